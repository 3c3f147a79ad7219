/* CuTe through NVRTC, offline: a TiledCopy kernel (16-byte UniversalCopy atoms, threads 16 x 4, values
 * 4 x 1, as in the seed post's GMEM step) compiles for sm_90 with the CUTLASS headers tools/setup.sh
 * unpacked (the @cutlass repository) and CUDA's own headers, and the cubin holds the extern "C" kernel.
 * usage (Bazel passes it): cute_nvrtc_test CUTLASS_VERSION_FILE */
#include <libgen.h>
#include <nvrtc.h>
#include <stdlib.h>

#include "runner/jit/jit.h"
#include "runner/testing/testutil.h"
#include "runner/util/util.h"

static const char kernel[] =
    "#include <cute/tensor.hpp>\n"
    "using namespace cute;\n"
    "extern \"C\" __global__ void cute_tiled_copy(const float *x, float *y, long long n)\n"
    "{\n"
    "    auto layout = make_layout(make_shape(Int<64>{}, Int<4>{}));\n"
    "    Tensor gx = make_tensor(make_gmem_ptr(x + blockIdx.x * 256), layout);\n"
    "    Tensor gy = make_tensor(make_gmem_ptr(y + blockIdx.x * 256), layout);\n"
    "    auto copy = make_tiled_copy(Copy_Atom<UniversalCopy<uint128_t>, float>{},\n"
    "                                Layout<Shape<_16, _4>>{}, Layout<Shape<_4, _1>>{});\n"
    "    auto thr = copy.get_slice(threadIdx.x);\n"
    "    if ((blockIdx.x + 1) * 256 <= n) cute::copy(copy, thr.partition_S(gx), thr.partition_D(gy));\n"
    "}\n";

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: cute_nvrtc_test CUTLASS_VERSION_FILE\n");
        return 2;
    }
    char *copy = tl_xstrdup(argv[1]);
    const char *root = dirname(copy);
    const char *cuda = getenv("CUDA_HOME") ? getenv("CUDA_HOME") : "/usr/local/cuda";
    char *inc = tl_xasprintf("-I%s/include", root), *cinc = tl_xasprintf("-I%s/include", cuda),
         *cccl = tl_xasprintf("-I%s/include/cccl", cuda);
    const char *opts[] = {"-arch=sm_90", "-std=c++17", "-default-device", inc, cinc, cccl};
    nvrtcProgram prog;
    int total = 0;
    CHECK(nvrtcCreateProgram(&prog, kernel, "cute_tiled_copy.cu", 0, NULL, NULL) == NVRTC_SUCCESS, "create");
    nvrtcResult rc = nvrtcCompileProgram(prog, (int)(sizeof opts / sizeof *opts), opts);
    total++;
    if (rc != NVRTC_SUCCESS) {
        size_t n = 0;
        nvrtcGetProgramLogSize(prog, &n);
        char *log = tl_xmalloc(n + 1);
        nvrtcGetProgramLog(prog, log);
        log[n] = '\0';
        CHECK(0, "NVRTC could not compile the CuTe kernel with %s: %s\n%.4000s", inc, nvrtcGetErrorString(rc), log);
        free(log);
    } else {
        size_t len = 0;
        CHECK(nvrtcGetCUBINSize(prog, &len) == NVRTC_SUCCESS && len > 0, "cubin size");
        void *cubin = tl_xmalloc(len);
        CHECK(nvrtcGetCUBIN(prog, cubin) == NVRTC_SUCCESS, "cubin");
        char names[1024] = "";
        total++;
        CHECK(jit_cubin_has_kernel(cubin, len, "cute_tiled_copy", names, sizeof names) == 1,
              "the cubin has no extern \"C\" cute_tiled_copy (it has: %s)", names);
        free(cubin);
    }
    nvrtcDestroyProgram(&prog);
    free(copy), free(inc), free(cinc), free(cccl);
    return TEST_REPORT(total);
}
