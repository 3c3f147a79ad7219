/* CUB's device-wide algorithms for declared ops' library variants (runner/ops/dlib_cub.cu, compiled by nvcc).
 * type: a dop_type (runner/ops/dop.h), not f16 or bf16. With temp NULL, *temp_bytes gets the scratch the call
 * needs and nothing runs. Asynchronous on stream; each returns a cudaError_t. */
#ifndef TILELAB_DLIB_CUB_H
#define TILELAB_DLIB_CUB_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* out[0] = the sum of in[0 .. n). */
int tl_cub_reduce_sum(int type, const void *in, void *out, long long n, void *temp, size_t *temp_bytes, void *stream);
/* out[i] = in[0] + ... + in[i] (inclusive) or + in[i - 1] (exclusive, out[0] = 0). */
int tl_cub_scan_sum(int type, int inclusive, const void *in, void *out, long long n, void *temp, size_t *temp_bytes,
                    void *stream);
/* out = in sorted ascending (radix sort of the keys' bits). */
int tl_cub_sort_keys(int type, const void *in, void *out, long long n, void *temp, size_t *temp_bytes, void *stream);
/* counts[0 .. bins) = how many of in[0 .. n) fall in each of bins equal bins of [lower, upper). */
int tl_cub_histogram_even(int type, const void *in, unsigned *counts, int bins, long long lower, long long upper,
                          long long n, void *temp, size_t *temp_bytes, void *stream);

#ifdef __cplusplus
}
#endif

#endif
