/* cuBLAS loaded on first use. Linking libcublas made every start of the runner map libcublasLt and apply its
 * 350,000 relocations: 0.2 s and 200 MB before `runner --help` printed a line, in every command and in every
 * runner a test starts. The runner defines the cuBLAS entries it calls (their prototypes come from
 * <cublas_v2.h>, so the compiler holds each to cuBLAS's own) and each opens the library the first time one
 * is called, from the same places the dynamic linker looked (the runner's rpath, LD_LIBRARY_PATH, the
 * system's cache). A library that cannot be opened makes every call return CUBLAS_STATUS_NOT_INITIALIZED,
 * and cublasGetStatusString says why. */
#include <cublas_v2.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#define STR2(x) #x
#define STR(x) STR2(x) /* after expansion: cublasCreate is cublasCreate_v2 */

static const char library[] = "libcublas.so." STR(CUBLAS_VER_MAJOR);
static pthread_once_t once = PTHREAD_ONCE_INIT;
static void *handle;
static char why[512];

static void open_library(void)
{
    handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *e = dlerror();
        snprintf(why, sizeof why, "cuBLAS could not be loaded: %s", e ? e : library);
    }
}

/* The entry name in the library, NULL when it is not there (why says so). */
static void *entry(const char *name)
{
    pthread_once(&once, open_library);
    if (!handle) return NULL;
    void *f = dlsym(handle, name);
    if (!f) snprintf(why, sizeof why, "cuBLAS (%s) has no %s", library, name);
    return f;
}

/* The entry behind slot, looked up once (a timed cuBLAS call pays one atomic load, not a dlsym). */
static void *cached(_Atomic(void *) *slot, const char *name)
{
    void *f = atomic_load_explicit(slot, memory_order_acquire);
    if (!f && (f = entry(name))) atomic_store_explicit(slot, f, memory_order_release);
    return f;
}

/* A cuBLAS entry, name params, that forwards args to the library's. */
#define FORWARD(name, params, args)                                                                        \
    cublasStatus_t CUBLASWINAPI name params                                                                \
    {                                                                                                      \
        static _Atomic(void *) slot;                                                                       \
        cublasStatus_t(*f) params = (cublasStatus_t(*) params)cached(&slot, STR(name));                    \
        return f ? f args : CUBLAS_STATUS_NOT_INITIALIZED;                                                 \
    }

FORWARD(cublasCreate, (cublasHandle_t * h), (h))
FORWARD(cublasDestroy, (cublasHandle_t h), (h))
FORWARD(cublasSetStream, (cublasHandle_t h, cudaStream_t s), (h, s))
FORWARD(cublasSetMathMode, (cublasHandle_t h, cublasMath_t mode), (h, mode))
FORWARD(cublasGetProperty, (libraryPropertyType type, int *value), (type, value))
FORWARD(cublasSgemm,
        (cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, const float *alpha,
         const float *A, int lda, const float *B, int ldb, const float *beta, float *C, int ldc),
        (h, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc))
FORWARD(cublasGemmEx,
        (cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, const void *alpha,
         const void *A, cudaDataType at, int lda, const void *B, cudaDataType bt, int ldb, const void *beta, void *C,
         cudaDataType ct, int ldc, cublasComputeType_t compute, cublasGemmAlgo_t algo),
        (h, ta, tb, m, n, k, alpha, A, at, lda, B, bt, ldb, beta, C, ct, ldc, compute, algo))
FORWARD(cublasSgeam,
        (cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, const float *alpha,
         const float *A, int lda, const float *beta, const float *B, int ldb, float *C, int ldc),
        (h, ta, tb, m, n, alpha, A, lda, beta, B, ldb, C, ldc))
FORWARD(cublasSgemv,
        (cublasHandle_t h, cublasOperation_t t, int m, int n, const float *alpha, const float *A, int lda,
         const float *x, int incx, const float *beta, float *y, int incy),
        (h, t, m, n, alpha, A, lda, x, incx, beta, y, incy))
FORWARD(cublasDgemv,
        (cublasHandle_t h, cublasOperation_t t, int m, int n, const double *alpha, const double *A, int lda,
         const double *x, int incx, const double *beta, double *y, int incy),
        (h, t, m, n, alpha, A, lda, x, incx, beta, y, incy))
FORWARD(cublasSgemmStridedBatched,
        (cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, const float *alpha,
         const float *A, int lda, long long sa, const float *B, int ldb, long long sb, const float *beta, float *C,
         int ldc, long long sc, int batches),
        (h, ta, tb, m, n, k, alpha, A, lda, sa, B, ldb, sb, beta, C, ldc, sc, batches))
FORWARD(cublasDgemmStridedBatched,
        (cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, const double *alpha,
         const double *A, int lda, long long sa, const double *B, int ldb, long long sb, const double *beta,
         double *C, int ldc, long long sc, int batches),
        (h, ta, tb, m, n, k, alpha, A, lda, sa, B, ldb, sb, beta, C, ldc, sc, batches))

const char *CUBLASWINAPI cublasGetStatusString(cublasStatus_t status)
{
    static _Atomic(void *) slot;
    const char *(*f)(cublasStatus_t) = (const char *(*)(cublasStatus_t))cached(&slot, "cublasGetStatusString");
    return f ? f(status) : why;
}
