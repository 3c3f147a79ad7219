/* GPU check (from the bundle: ./dop_fill_check): the inits the device makes for declared ops' buffers
 * (runner/ops/dop_gen.h) are dop_fill's on the host, bit for bit, for every type and every init the device makes,
 * at a size no block divides. Prints each pair and "DOP FILL CHECK PASSED"; exit 1 on a difference, 2 when it
 * cannot run. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runner/config/config.h"
#include "runner/ops/devdata.h"
#include "runner/ops/dop.h"

#define N 1000003

static const char *const inits_float[] = {"uniform", "{uniform: {lo: -3.5, hi: 700}}", "{ints: {lo: -9, hi: 9}}",
                                          "{constant: 0.1}", "{sequence: {start: -2.25, step: 0.001}}"};
static const char *const inits_int[] = {"{ints: {lo: 0, hi: 100}}", "{constant: 7}", "{sequence: {start: 3, step: 0}}"};

/* The buffers of one type, each with one of the inits the device makes, as a declared op; 0 or -1. */
static int load(const char *dir, int t, tl_experiment *x)
{
    char path[256];
    tl_buf y = {0};
    int fl = dop_types[t].is_float, ni = fl ? 5 : 3;
    tl_buf_printf(&y, "name: c\nop:\n  name: c\n  axes: [n]\n  buffers:\n");
    for (int k = 0; k < ni; k++)
        tl_buf_printf(&y, "    b%d: {type: %s, count: n, init: %s}\n", k, dop_types[t].name, fl ? inits_float[k] : inits_int[k]);
    tl_buf_printf(&y, "    y: {type: f32, count: n, out: true}\n  signature: [y");
    for (int k = 0; k < ni; k++) tl_buf_printf(&y, ", b%d", k);
    tl_buf_printf(&y, "]\n  reference: k\nseed: 12\nsizes: {n: %d}\nvariants:\n  - {name: k, source: k.cu, block: [1], "
                      "grid: [1]}\n", N);
    snprintf(path, sizeof path, "%s/c.yaml", dir);
    tl_err e = {{0}};
    int rc = config_parse(path, y.s, y.len, x, &e);
    if (rc) fprintf(stderr, "dop_fill_check: %s\n", e.msg);
    free(y.s);
    return rc;
}

int main(void)
{
    char dir[] = "/tmp/dop_fill_check-XXXXXX", path[256];
    if (!mkdtemp(dir)) return 2;
    snprintf(path, sizeof path, "%s/k.cu", dir);
    FILE *f = fopen(path, "w");
    if (!f) return 2;
    fputs("extern \"C\" __global__ void k() {}\n", f);
    fclose(f);
    reg_spec s = {.dims = {N}, .seed = 12};
    int bad = 0, checked = 0;
    void *dev = NULL;
    unsigned char *host = malloc((size_t)N * 8), *back = malloc((size_t)N * 8);
    if (!host || !back || cudaMalloc(&dev, (size_t)N * 8) != cudaSuccess) return 2;
    for (int t = 0; t < DOP_NTYPES; t++) {
        tl_experiment x;
        if (load(dir, t, &x)) return 2;
        for (int b = 0; b < x.dop->nbuffers; b++) {
            const dop_buffer *bf = &x.dop->buffers[b];
            if (bf->role != DOP_IN || !dop_fill_on_device(x.dop, b)) continue;
            size_t bytes = (size_t)N * (size_t)dop_types[bf->type].size;
            dop_fill(x.dop, b, &s, N, host);
            int rc = tl_dev_fill_init(dev, (int)bf->type, (int)bf->init.kind, bf->init.a, bf->init.b,
                                      dop_fill_base(x.dop, b, &s), N, NULL);
            if (rc || cudaMemcpy(back, dev, bytes, cudaMemcpyDeviceToHost) != cudaSuccess) {
                fprintf(stderr, "dop_fill_check: CUDA error %d\n", rc);
                return 2;
            }
            size_t i = 0;
            while (i < bytes && host[i] == back[i]) i++;
            printf("%-5s %-12s %s\n", dop_types[bf->type].name, dop_init_names[bf->init.kind],
                   i == bytes ? "same bits" : "DIFFERENT");
            if (i < bytes) printf("      first differing byte %zu (element %zu)\n", i, i / (size_t)dop_types[bf->type].size);
            bad += i < bytes;
            checked++;
        }
        config_free(&x);
    }
    printf("%d inits, %d differ\nDOP FILL CHECK %s\n", checked, bad, bad ? "FAILED" : "PASSED");
    cudaFree(dev);
    free(host), free(back);
    return bad ? 1 : 0;
}
