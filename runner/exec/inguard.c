/* inguard: see inguard.h. */
#include "runner/exec/inguard.h"

#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runner/ops/data_gen.h"
#include "runner/ops/devdata.h"
#include "runner/util/cuda_check.h"

/* A device copy is kept when the inputs take at most this share of the free memory: the rest stays for the
 * variants' workspaces and the counters, which the plan counted on. */
#define COPY_SHARE 4

/* devdata.cu's hash_bytes, on the host. */
static uint64_t host_hash(const unsigned char *p, size_t bytes)
{
    uint64_t h = 0;
    for (size_t i = 0; i * 8 <= bytes; i++) {
        uint64_t w = 0;
        size_t at = i * 8, len = bytes - at < 8 ? bytes - at : 8;
        for (size_t k = 0; k < len; k++) w |= (uint64_t)p[at + k] << (8 * k);
        h += tl_hash_word(w, i);
    }
    return h;
}

static int fingerprint(inguard *g, int i, uint64_t *h, tl_err *e)
{
    if (!g->on_device) {
        *h = host_hash(g->in[i].ptr, g->in[i].bytes);
        return 0;
    }
    CUDA_CHECK((cudaError_t)tl_dev_hash(g->in[i].ptr, g->in[i].bytes, g->scratch, h, g->stream));
    return 0;
fail:
    return -1;
}

int inguard_take(inguard *g, const reg_op *op, reg_problem *p, int on_device, void *stream, tl_err *e)
{
    size_t free_b = 0, all_b = 0;
    if (on_device) {
        CUDA_CHECK(cudaStreamSynchronize((cudaStream_t)stream)); /* the inputs are made */
        CUDA_CHECK(cudaMemGetInfo(&free_b, &all_b));
    }
    return inguard_take_within(g, op, p, on_device, stream, on_device ? free_b / COPY_SHARE : SIZE_MAX, e);
fail:
    return -1;
}

int inguard_take_within(inguard *g, const reg_op *op, reg_problem *p, int on_device, void *stream, size_t copy_limit,
                        tl_err *e)
{
    memset(g, 0, sizeof *g);
    g->on_device = on_device, g->stream = stream;
    g->n = op->inputs ? op->inputs(p, g->in, REG_MAX_INPUTS) : 0;
    if (g->n <= 0) return g->n = 0;
    size_t total = 0;
    for (int i = 0; i < g->n; i++) total += g->in[i].bytes;
    if (on_device) CUDA_CHECK(cudaMalloc(&g->scratch, 8));
    int copy = total <= copy_limit;
    for (int i = 0; i < g->n; i++) {
        size_t bytes = g->in[i].bytes;
        if (copy && !on_device) {
            g->copy[i] = malloc(bytes ? bytes : 1);
            if (g->copy[i]) memcpy(g->copy[i], g->in[i].ptr, bytes);
        } else if (copy) {
            cudaError_t rc = cudaMalloc(&g->copy[i], bytes ? bytes : 1);
            if (rc == cudaErrorMemoryAllocation) { /* no room after all: this one is fingerprinted */
                cudaGetLastError();
                g->copy[i] = NULL;
            } else {
                CUDA_CHECK(rc);
                CUDA_CHECK(cudaMemcpyAsync(g->copy[i], g->in[i].ptr, bytes, cudaMemcpyDeviceToDevice,
                                           (cudaStream_t)stream));
            }
        }
        if (!g->copy[i] && fingerprint(g, i, &g->hash[i], e)) goto fail;
    }
    return 0;
fail:
    inguard_free(g);
    return -1;
}

/* The first byte of input i that differs from its copy, or -1. */
static int first_changed(inguard *g, int i, long long *at, tl_err *e)
{
    const unsigned char *a = g->in[i].ptr, *b = g->copy[i];
    *at = -1;
    if (g->on_device) {
        CUDA_CHECK((cudaError_t)tl_dev_first_diff(a, b, g->in[i].bytes, g->scratch, at, g->stream));
        return 0;
    }
    for (size_t k = 0; k < g->in[i].bytes; k++)
        if (a[k] != b[k]) {
            *at = (long long)k;
            break;
        }
    return 0;
fail:
    return -1;
}

int inguard_check(inguard *g, int *which, long long *elem, tl_err *e)
{
    for (int i = 0; i < g->n; i++) {
        long long at = -1;
        if (g->copy[i]) {
            if (first_changed(g, i, &at, e)) return -1;
        } else {
            uint64_t h;
            if (fingerprint(g, i, &h, e)) return -1;
            at = h != g->hash[i] ? 0 : -1;
        }
        if (at < 0) continue;
        *which = i;
        *elem = g->copy[i] ? at / (g->in[i].elem_bytes > 0 ? g->in[i].elem_bytes : 1) : -1;
        return 1;
    }
    return 0;
}

int inguard_restore(inguard *g, int i, tl_err *e)
{
    if (!g->copy[i]) return 1;
    if (!g->on_device) {
        memcpy(g->in[i].ptr, g->copy[i], g->in[i].bytes);
        return 0;
    }
    CUDA_CHECK(cudaMemcpyAsync(g->in[i].ptr, g->copy[i], g->in[i].bytes, cudaMemcpyDeviceToDevice,
                               (cudaStream_t)g->stream));
    return 0;
fail:
    return -1;
}

char *inguard_reason(const inguard *g, int which, long long elem)
{
    if (elem < 0) return tl_xasprintf("wrote to its input %s", g->in[which].name);
    return tl_xasprintf("wrote to its input %s (first changed element %lld)", g->in[which].name, elem);
}

void inguard_free(inguard *g)
{
    for (int i = 0; i < g->n; i++) {
        if (!g->copy[i]) continue;
        if (g->on_device) cudaFree(g->copy[i]);
        else free(g->copy[i]);
    }
    if (g->scratch) cudaFree(g->scratch);
    memset(g, 0, sizeof *g);
}
