/* TMA tensor maps without a GPU: what a kernel's request turns into for an operand (tma_plan), what
 * is the kernel's error and what only sends it down its other path, and that the runner finds the
 * request and map globals in a cubin NVRTC made (runner/jit/tma.h). */
#include <nvrtc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runner/jit/jit.h"
#include "runner/jit/tma.h"
#include "runner/ops/registry.h"
#include "runner/ops/registry_lookup.h"
#include "runner/testing/testutil.h"
#include "runner/util/util.h"

static int total;

static int plan(const reg_op *op, tma_request rq, reg_tensor t, tma_encoding *enc, char *why)
{
    total++;
    return tma_plan(op, &rq, &t, enc, why, 200);
}

static void test_plan(void)
{
    const reg_op *sgemm = reg_find_op("sgemm"), *reduce = reg_find_op("reduce");
    static float buf[64] __attribute__((aligned(16)));
    char why[200];
    tma_encoding enc;
    /* A 4096 x 4096 TF32 matrix, k contiguous: a box of one 128-byte swizzle span by 128 rows. */
    reg_tensor a = {.ptr = buf, .elem = REG_ELEM_F32, .inner = 4096, .outer = 4096, .row_bytes = 4096 * 4};
    memset(&enc, 0, sizeof enc);
    CHECK(plan(sgemm, (tma_request){0, 32, 128, 128, 0}, a, &enc, why) == 0, "%s", why);
    CHECK(enc.ptr == buf && enc.elem == REG_ELEM_F32 && enc.dims[0] == 4096 && enc.dims[1] == 4096 &&
              enc.stride == 16384 && enc.box[0] == 32 && enc.box[1] == 128 && enc.swizzle == 128,
          "encoding %llu x %llu stride %llu box %u x %u sw %d", (unsigned long long)enc.dims[0],
          (unsigned long long)enc.dims[1], (unsigned long long)enc.stride, enc.box[0], enc.box[1], enc.swizzle);
    /* BF16: 64 elements fill the 128-byte span; 128 would not. */
    reg_tensor h = {.ptr = buf, .elem = REG_ELEM_BF16, .inner = 1000, .outer = 24, .row_bytes = 2000};
    CHECK(plan(sgemm, (tma_request){1, 64, 32, 128, 0}, h, &enc, why) == 0 && enc.elem == REG_ELEM_BF16, "%s", why);
    CHECK(plan(sgemm, (tma_request){1, 128, 32, 128, 0}, h, &enc, why) == -1 && strstr(why, "exceed the 128-byte"),
          "%s", why);

    /* The kernel's mistakes: errors that say what is wrong. */
    CHECK(plan(sgemm, (tma_request){2, 32, 128, 128, 0}, a, &enc, why) == -1 && strstr(why, "no such operand"), "%s",
          why);
    CHECK(plan(sgemm, (tma_request){-1, 32, 128, 128, 0}, a, &enc, why) == -1, "negative operand: %s", why);
    CHECK(plan(reduce, (tma_request){0, 32, 128, 128, 0}, a, &enc, why) == -1 && strstr(why, "op reduce"), "%s", why);
    CHECK(plan(sgemm, (tma_request){0, 32, 257, 128, 0}, a, &enc, why) == -1 && strstr(why, "1 .. 256"), "%s", why);
    CHECK(plan(sgemm, (tma_request){0, 0, 128, 128, 0}, a, &enc, why) == -1 && strstr(why, "1 .. 256"), "%s", why);
    CHECK(plan(sgemm, (tma_request){0, 32, 128, 96, 0}, a, &enc, why) == -1 && strstr(why, "swizzle 96"), "%s", why);
    CHECK(plan(sgemm, (tma_request){0, 6, 128, 0, 0}, a, &enc, why) == -1 && strstr(why, "multiple of 16"), "%s",
          why);
    CHECK(plan(sgemm, (tma_request){0, 32, 128, 64, 0}, a, &enc, why) == -1 && strstr(why, "64-byte swizzle"), "%s",
          why);
    CHECK(plan(sgemm, (tma_request){0, 64, 8, 0, 0}, a, &enc, why) == 0, "no swizzle, 256-byte rows: %s", why);

    /* The operand's limits: no error, the kernel is told (encoded 0) and takes its other path. */
    reg_tensor odd = a;
    odd.inner = 777, odd.row_bytes = 777 * 4;
    CHECK(plan(sgemm, (tma_request){0, 32, 128, 128, 0}, odd, &enc, why) == 1 && strstr(why, "a not encoded") &&
              strstr(why, "3108 bytes"),
          "%s", why);
    reg_tensor moved = a;
    moved.ptr = (char *)buf + 4;
    CHECK(plan(sgemm, (tma_request){1, 32, 128, 128, 0}, moved, &enc, why) == 1 && strstr(why, "b not encoded") &&
              strstr(why, "16-byte aligned"),
          "%s", why);
    reg_tensor huge = a;
    huge.outer = (1ull << 32) + 1;
    CHECK(plan(sgemm, (tma_request){0, 32, 128, 128, 0}, huge, &enc, why) == 1 && strstr(why, "limits"), "%s", why);
}

/* A kernel that asks for two maps, compiled by NVRTC for sm_90 (no GPU): the runner's ELF reader
 * finds both globals with their sizes, and none in a kernel that declares none. */
static const char source[] =
    "struct tilelab_tensor_map_request { int operand, box_inner, box_outer, swizzle, encoded; };\n"
    "__device__ tilelab_tensor_map_request tilelab_tensor_map_requests[2] = {{0, 32, 128, 128, 0},\n"
    "                                                                        {1, 32, 256, 128, 0}};\n"
    "struct alignas(64) map_bytes { unsigned long long v[16]; };\n"
    "__constant__ map_bytes tilelab_tensor_maps[2];\n"
    "extern \"C\" __global__ void uses_maps(int *out)\n"
    "{\n"
    "    out[0] = tilelab_tensor_map_requests[1].encoded + (int)tilelab_tensor_maps[1].v[3];\n"
    "}\n"
    "extern \"C\" __global__ void plain(int *out) { out[0] = 1; }\n";

static void test_cubin_globals(void)
{
    nvrtcProgram prog;
    const char *opts[] = {"-arch=sm_90"};
    total++;
    CHECK(nvrtcCreateProgram(&prog, source, "maps.cu", 0, NULL, NULL) == NVRTC_SUCCESS, "create");
    nvrtcResult rc = nvrtcCompileProgram(prog, 1, opts);
    if (rc != NVRTC_SUCCESS) {
        size_t n = 0;
        nvrtcGetProgramLogSize(prog, &n);
        char *log = tl_xmalloc(n + 1);
        nvrtcGetProgramLog(prog, log);
        log[n] = '\0';
        CHECK(0, "NVRTC: %s\n%s", nvrtcGetErrorString(rc), log);
        free(log);
        nvrtcDestroyProgram(&prog);
        return;
    }
    size_t len = 0;
    nvrtcGetCUBINSize(prog, &len);
    void *cubin = tl_xmalloc(len);
    CHECK(nvrtcGetCUBIN(prog, cubin) == NVRTC_SUCCESS, "cubin");
    uint64_t size = 0;
    char names[256];
    total += 5;
    CHECK(jit_cubin_has_global(cubin, len, REG_TMA_REQUESTS_SYMBOL, &size) == 1 && size == 2 * sizeof(tma_request),
          "requests: %llu bytes", (unsigned long long)size);
    CHECK(jit_cubin_has_global(cubin, len, REG_TMA_MAPS_SYMBOL, &size) == 1 && size == 2 * TMA_MAP_BYTES,
          "maps: %llu bytes", (unsigned long long)size);
    CHECK(jit_cubin_has_global(cubin, len, "tilelab_tensor_map", NULL) == 0, "a prefix is not the name");
    CHECK(jit_cubin_has_global(cubin, len, "plain", NULL) == 0, "a kernel is no global variable");
    CHECK(jit_cubin_has_kernel(cubin, len, "uses_maps", names, sizeof names) == 1 &&
              jit_cubin_has_kernel(cubin, len, REG_TMA_MAPS_SYMBOL, names, sizeof names) == 0 && strstr(names, "plain"),
          "kernels: %s", names);
    total++;
    CHECK(jit_cubin_has_global("not an elf file", 16, REG_TMA_MAPS_SYMBOL, NULL) == -1, "garbage is not a cubin");
    free(cubin);
    nvrtcDestroyProgram(&prog);
}

int main(void)
{
    test_plan();
    test_cubin_globals();
    return TEST_REPORT(total);
}
