#include "runner/jit/tma.h"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "runner/util/cuda_check.h"

static size_t elem_bytes(int elem)
{
    return elem == REG_ELEM_BF16 ? 2 : 4;
}

int tma_plan(const reg_op *op, const tma_request *rq, const reg_tensor *t, tma_encoding *enc, char *why, size_t n)
{
    if (!op->operand_tensor || rq->operand < 0 || rq->operand >= op->noperands)
        return snprintf(why, n, "operand %d: op %s has %s", rq->operand, op->name,
                        op->operand_tensor ? "no such operand" : "no operands a tensor map can describe"),
               -1;
    const char *name = op->operands[rq->operand];
    if (rq->box_inner < 1 || rq->box_inner > 256 || rq->box_outer < 1 || rq->box_outer > 256)
        return snprintf(why, n, "operand %s: box %d x %d: each side 1 .. 256", name, rq->box_inner, rq->box_outer), -1;
    if (rq->swizzle != 0 && rq->swizzle != 32 && rq->swizzle != 64 && rq->swizzle != 128)
        return snprintf(why, n, "operand %s: swizzle %d: 0, 32, 64 or 128 (bytes)", name, rq->swizzle), -1;
    size_t inner_bytes = (size_t)rq->box_inner * elem_bytes(t->elem);
    if (inner_bytes % 16)
        return snprintf(why, n, "operand %s: box rows of %zu bytes: TMA needs a multiple of 16", name, inner_bytes), -1;
    if (rq->swizzle && inner_bytes > (size_t)rq->swizzle)
        return snprintf(why, n, "operand %s: box rows of %zu bytes exceed the %d-byte swizzle span", name, inner_bytes,
                        rq->swizzle),
               -1;
    /* What the operand must be (cuTensorMapEncodeTiled's rules); a problem that breaks one is no
     * error: the kernel is told, and takes another path. */
    if ((uintptr_t)t->ptr % 16)
        return snprintf(why, n, "%s not encoded: its address is not 16-byte aligned", name), 1;
    if (t->row_bytes % 16)
        return snprintf(why, n, "%s not encoded: rows of %llu bytes, TMA needs a multiple of 16", name,
                        (unsigned long long)t->row_bytes),
               1;
    if (t->inner < 1 || t->outer < 1 || t->inner > (1ull << 32) || t->outer > (1ull << 32) || t->row_bytes >= (1ull << 40))
        return snprintf(why, n, "%s not encoded: %llu x %llu elements is outside TMA's limits", name,
                        (unsigned long long)t->outer, (unsigned long long)t->inner),
               1;
    *enc = (tma_encoding){.ptr = t->ptr,
                          .elem = t->elem,
                          .dims = {t->inner, t->outer},
                          .stride = t->row_bytes,
                          .box = {(uint32_t)rq->box_inner, (uint32_t)rq->box_outer},
                          .swizzle = rq->swizzle};
    return 0;
}

/* ---- the driver's encoder, without linking libcuda -------------------------------------------- */

typedef CUresult (*encode_fn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
                              const cuuint64_t *, const cuuint32_t *, const cuuint32_t *, CUtensorMapInterleave,
                              CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
static encode_fn encode;
static cudaError_t encode_err;
static pthread_once_t encode_once = PTHREAD_ONCE_INIT;

static void find_encode(void)
{
    void *fn = NULL;
    enum cudaDriverEntryPointQueryResult q;
    encode_err = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q);
    if (encode_err == cudaSuccess && q != cudaDriverEntryPointSuccess) encode_err = cudaErrorSymbolNotFound;
    encode = encode_err == cudaSuccess ? (encode_fn)fn : NULL;
}

static int encode_map(const tma_encoding *m, CUtensorMap *out, tl_err *e)
{
    static const CUtensorMapSwizzle swz[] = {CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_SWIZZLE_32B,
                                             CU_TENSOR_MAP_SWIZZLE_64B, CU_TENSOR_MAP_SWIZZLE_128B};
    pthread_once(&encode_once, find_encode);
    CUDA_CHECK(encode_err);
    cuuint64_t dims[2] = {m->dims[0], m->dims[1]}, strides[1] = {m->stride};
    cuuint32_t box[2] = {m->box[0], m->box[1]}, estr[2] = {1, 1};
    int s = m->swizzle == 128 ? 3 : m->swizzle == 64 ? 2 : m->swizzle == 32 ? 1 : 0;
    CUresult r = encode(out, m->elem == REG_ELEM_BF16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
                        2, m->ptr, dims, strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE, swz[s],
                        CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
        tl_err_set(e, "cuTensorMapEncodeTiled (%llu x %llu, box %u x %u, swizzle %d) failed: CUresult %d",
                   (unsigned long long)m->dims[1], (unsigned long long)m->dims[0], m->box[1], m->box[0], m->swizzle,
                   (int)r);
        return -1;
    }
    return 0;
fail:
    return -1;
}

int tma_bind(const reg_op *op, const jit_cubin *cb, const jit_kernel *k, const reg_problem *p, char *summary,
             size_t n, tl_err *e)
{
    uint64_t rq_bytes = 0, map_bytes = 0;
    summary[0] = '\0';
    int has = jit_cubin_has_global(cb->cubin, cb->cubin_len, REG_TMA_REQUESTS_SYMBOL, &rq_bytes);
    if (has < 0) {
        tl_err_set(e, "the compiled kernel is not a readable cubin");
        return -1;
    }
    if (!has) return 0;
    int nreq = (int)(rq_bytes / sizeof(tma_request));
    if (rq_bytes % sizeof(tma_request) || nreq < 1 || nreq > TMA_MAX_MAPS) {
        tl_err_set(e, "the kernel's %s has %llu bytes: 1 .. %d requests of five 32-bit integers", REG_TMA_REQUESTS_SYMBOL,
                   (unsigned long long)rq_bytes, TMA_MAX_MAPS);
        return -1;
    }
    if (jit_cubin_has_global(cb->cubin, cb->cubin_len, REG_TMA_MAPS_SYMBOL, &map_bytes) != 1 ||
        map_bytes < (uint64_t)nreq * TMA_MAP_BYTES) {
        tl_err_set(e, "the kernel declares %d tensor map requests but no %s of %d x %d bytes", nreq, REG_TMA_MAPS_SYMBOL,
                   nreq, TMA_MAP_BYTES);
        return -1;
    }
    tma_request rq[TMA_MAX_MAPS];
    CUtensorMap maps[TMA_MAX_MAPS];
    void *drq = NULL, *dmaps = NULL;
    size_t bytes = 0;
    memset(maps, 0, sizeof maps);
    CUDA_CHECK(cudaLibraryGetGlobal(&drq, &bytes, k->lib, REG_TMA_REQUESTS_SYMBOL));
    CUDA_CHECK(cudaMemcpy(rq, drq, (size_t)nreq * sizeof *rq, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaLibraryGetGlobal(&dmaps, &bytes, k->lib, REG_TMA_MAPS_SYMBOL));
    if ((uintptr_t)dmaps % 64) {
        tl_err_set(e, "the kernel's %s is not 64-byte aligned (declare it alignas(64))", REG_TMA_MAPS_SYMBOL);
        return -1;
    }
    size_t used = 0;
    for (int i = 0; i < nreq; i++) {
        reg_tensor t = {0};
        tma_encoding enc;
        char why[160];
        int rc = -1;
        if (op->operand_tensor && rq[i].operand >= 0 && rq[i].operand < op->noperands &&
            op->operand_tensor(p, rq[i].operand, &t)) {
            snprintf(why, sizeof why, "operand %d has no device tensor", rq[i].operand);
        } else {
            rc = tma_plan(op, &rq[i], &t, &enc, why, sizeof why);
        }
        if (rc < 0) {
            tl_err_set(e, "tensor map request %d of the kernel: %s", i, why);
            return -1;
        }
        rq[i].encoded = rc == 0;
        if (rc == 0 && encode_map(&enc, &maps[i], e)) return -1;
        if (rc == 0)
            snprintf(why, sizeof why, "%s %dx%d sw%d", op->operands[rq[i].operand], rq[i].box_inner, rq[i].box_outer,
                     rq[i].swizzle);
        used += (size_t)snprintf(summary + used, used < n ? n - used : 0, "%s%s", i ? "; " : "", why);
        if (used >= n) used = n - 1;
    }
    CUDA_CHECK(cudaMemcpy(dmaps, maps, (size_t)nreq * TMA_MAP_BYTES, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(drq, rq, (size_t)nreq * sizeof *rq, cudaMemcpyHostToDevice));
    return 0;
fail:
    return -1;
}
