/* The data path on the device (devdata.cu, compiled ahead by nvcc): seeded inputs made where they are
 * used, with the host's generators (data_gen.h: the same values bit for bit), and verification that
 * copies nothing back unless something failed. Each call is asynchronous on `stream` unless it says
 * otherwise, and returns a cudaError_t. */
#ifndef TILELAB_DEVDATA_H
#define TILELAB_DEVDATA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when distribution dist (reg_dist) can be made on the device (uniform, int: integer arithmetic). */
int tl_dev_can_fill(int dist);
/* x[i] = value i of stream `stream` of the seeded distribution, as data_fill_f32 makes it. */
int tl_dev_fill_f32(float *x, size_t n, int dist, uint64_t seed, uint64_t stream, void *st);
/* h[i] = BF16 of x[i] (round to nearest even), and x[i] becomes that BF16 value. */
int tl_dev_round_bf16(uint16_t *h, float *x, size_t n, void *st);
/* x[i] = |x[i]|. */
int tl_dev_abs_f32(float *x, size_t n, void *st);

/* A declared op's buffer (runner/ops/dop_gen.h): element i of init kind with a, b from base, for i < n, of type t. */
int tl_dev_fill_init(void *out, int t, int kind, double a, double b, uint64_t base, long long n, void *st);

/* What verify_f32 finds, on the device: an element passes when finite and |got - want| <= atol + rtol
 * * scale (double arithmetic, as on the host); max_abs_err and max_rel_err are infinite when an element
 * is not finite. */
typedef struct {
    double max_abs_err, max_rel_err;
    long long bad;
} tl_dev_verdict;
/* Synchronous: compares on the device and fetches the verdict only. scratch: 32 bytes of device memory. */
int tl_dev_verify_f32(const float *got, const float *want, const float *scale, size_t n, double atol, double rtol,
                      void *scratch, tl_dev_verdict *out, void *st);

/* The same for a declared op's buffer of type t (runner/ops/dop_gen.h's types): floats as verify_f32 with scale
 * |want|; integers equal. */
int tl_dev_verify(int t, const void *got, const void *want, size_t n, double atol, double rtol, void *scratch,
                  tl_dev_verdict *out, void *st);

/* Synchronous: the first byte at which a and b (bytes long, device memory) differ, or -1 in *first.
 * scratch: 8 bytes of device memory. */
int tl_dev_first_diff(const void *a, const void *b, size_t bytes, void *scratch, long long *first, void *st);
/* Synchronous: a 64-bit fingerprint of bytes bytes at p (device memory) that any change of a byte moves (but
 * for a 2^-64 chance). scratch: 8 bytes of device memory. */
int tl_dev_hash(const void *p, size_t bytes, void *scratch, uint64_t *out, void *st);

#ifdef __cplusplus
}
#endif

#endif
