/* Checked CUDA, cuBLAS and NVRTC calls. Each macro stringifies the call, reports file:line into the
 * tl_err *e in scope, and jumps to the function's `fail:` label. */
#ifndef TILELAB_CUDA_CHECK_H
#define TILELAB_CUDA_CHECK_H

#include <cuda_runtime_api.h>

#include "runner/util/util.h"

#define CUDA_CHECK(call)                                                                                   \
    do {                                                                                                   \
        cudaError_t err_ = (call);                                                                         \
        if (err_ != cudaSuccess) {                                                                         \
            tl_err_set(e, "%s:%d: %s: %s (%s)", __FILE__, __LINE__, #call, cudaGetErrorString(err_),       \
                       cudaGetErrorName(err_));                                                            \
            goto fail;                                                                                     \
        }                                                                                                  \
    } while (0)

#define CUBLAS_CHECK(call)                                                                                 \
    do {                                                                                                   \
        cublasStatus_t st_ = (call);                                                                       \
        if (st_ != CUBLAS_STATUS_SUCCESS) {                                                                \
            tl_err_set(e, "%s:%d: %s: %s", __FILE__, __LINE__, #call, cublasGetStatusString(st_));         \
            goto fail;                                                                                     \
        }                                                                                                  \
    } while (0)

#define NVRTC_CHECK(call)                                                                                  \
    do {                                                                                                   \
        nvrtcResult r_ = (call);                                                                           \
        if (r_ != NVRTC_SUCCESS) {                                                                         \
            tl_err_set(e, "%s:%d: %s: %s", __FILE__, __LINE__, #call, nvrtcGetErrorString(r_));            \
            goto fail;                                                                                     \
        }                                                                                                  \
    } while (0)

#endif
