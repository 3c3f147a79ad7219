// The data path on the device (devdata.h): seeded inputs and verification, compiled ahead by nvcc
// (runner/BUILD) and called from C.
#include <cuda_runtime.h>
#include <math.h>
#include <string.h>

#include "runner/ops/data_gen.h"
#include "runner/ops/devdata.h"
#include "runner/ops/dop_gen.h"

namespace {

constexpr int kThreads = 256;
enum { UNIFORM = 0, NORMAL = 1, INT = 2 }; // reg_dist's order

unsigned blocks_for(size_t n)
{
    size_t b = (n + kThreads - 1) / kThreads;
    return (unsigned)(b < 4096 ? (b ? b : 1) : 4096);
}

__global__ void fill(float *x, size_t n, int dist, uint64_t base)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        x[i] = dist == INT ? tl_int_at(base, i) : tl_uniform_at(base, i);
}

__global__ void fill_init(void *out, int t, int kind, double a, double b, uint64_t base, long long n)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        tl_gen_at(t, kind, a, b, base, i, out);
}

__global__ void round_bf16(uint16_t *h, float *x, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        uint16_t b = tl_to_bf16(x[i]);
        h[i] = b;
        x[i] = tl_from_bf16(b);
    }
}

__global__ void abs_f32(float *x, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        x[i] = fabsf(x[i]);
}

struct Verdict {
    unsigned long long max_abs, max_rel; // bits of non-negative doubles: their order is the values'
    unsigned long long bad;
};

__device__ __forceinline__ unsigned long long bits(double d)
{
    return (unsigned long long)__double_as_longlong(d);
}

__global__ void verify(const float *got, const float *want, const float *scale, size_t n, double atol, double rtol,
                       Verdict *v)
{
    double max_abs = 0.0, max_rel = 0.0;
    unsigned long long bad = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        double g = got[i], w = want[i], s = scale ? (double)scale[i] : fabs(w);
        double err = fabs(g - w);
        bool finite = isfinite(g);
        if (finite) {
            if (err > max_abs) max_abs = err;
            if (s > 0 && err / s > max_rel) max_rel = err / s;
        } else {
            max_abs = max_rel = INFINITY;
        }
        if (!(finite && err <= atol + rtol * s)) bad++;
    }
    for (int o = 16; o > 0; o /= 2) {
        max_abs = fmax(max_abs, __shfl_xor_sync(0xffffffffu, max_abs, o));
        max_rel = fmax(max_rel, __shfl_xor_sync(0xffffffffu, max_rel, o));
        bad += __shfl_xor_sync(0xffffffffu, bad, o);
    }
    if (threadIdx.x % 32 == 0) {
        atomicMax(&v->max_abs, bits(max_abs));
        atomicMax(&v->max_rel, bits(max_rel));
        if (bad) atomicAdd(&v->bad, bad);
    }
}

// An element of a declared op's buffer as a double, and whether it is compared exactly (an integer type).
template <class T> struct elem {
    static __device__ double get(const T *p, size_t i) { return (double)p[i]; }
    static __device__ bool same(const T *a, const T *b, size_t i) { return a[i] == b[i]; }
    static constexpr bool exact = true;
};
template <> struct elem<float> {
    static __device__ double get(const float *p, size_t i) { return p[i]; }
    static __device__ bool same(const float *, const float *, size_t) { return false; }
    static constexpr bool exact = false;
};
template <> struct elem<double> {
    static __device__ double get(const double *p, size_t i) { return p[i]; }
    static __device__ bool same(const double *, const double *, size_t) { return false; }
    static constexpr bool exact = false;
};
struct f16 { uint16_t bits; };
struct bf16 { uint16_t bits; };
template <> struct elem<f16> {
    static __device__ double get(const f16 *p, size_t i) { return tl_from_f16(p[i].bits); }
    static __device__ bool same(const f16 *, const f16 *, size_t) { return false; }
    static constexpr bool exact = false;
};
template <> struct elem<bf16> {
    static __device__ double get(const bf16 *p, size_t i) { return tl_from_bf16(p[i].bits); }
    static __device__ bool same(const bf16 *, const bf16 *, size_t) { return false; }
    static constexpr bool exact = false;
};

// verify's rule for any element type: floats within atol + rtol |want| and finite, integers equal.
template <class T>
__global__ void verify_typed(const T *got, const T *want, size_t n, double atol, double rtol, Verdict *v)
{
    double max_abs = 0.0, max_rel = 0.0;
    unsigned long long bad = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        double g = elem<T>::get(got, i), w = elem<T>::get(want, i), err = fabs(g - w);
        bool finite = isfinite(g), ok;
        if (elem<T>::exact) ok = elem<T>::same(got, want, i);
        else ok = finite && err <= atol + rtol * fabs(w);
        if (finite) {
            if (err > max_abs) max_abs = err;
            if (w != 0 && err / fabs(w) > max_rel) max_rel = err / fabs(w);
        } else {
            max_abs = max_rel = INFINITY;
        }
        bad += !ok;
    }
    for (int o = 16; o > 0; o /= 2) {
        max_abs = fmax(max_abs, __shfl_xor_sync(0xffffffffu, max_abs, o));
        max_rel = fmax(max_rel, __shfl_xor_sync(0xffffffffu, max_rel, o));
        bad += __shfl_xor_sync(0xffffffffu, bad, o);
    }
    if (threadIdx.x % 32 == 0) {
        atomicMax(&v->max_abs, bits(max_abs));
        atomicMax(&v->max_rel, bits(max_rel));
        if (bad) atomicAdd(&v->bad, bad);
    }
}

// The first word at which a and b differ (atomicMin over word indices; ~0 when none): inputs compared with
// their pristine copies after a case's runs (runner/exec/inguard.h). W: 8-byte words where both are so aligned, else bytes.
template <class W> __global__ void first_diff(const W *a, const W *b, size_t n, unsigned long long *first)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        if (a[i] != b[i]) {
            atomicMin(first, (unsigned long long)i);
            return; // a thread's later words come after this one
        }
}

// A 64-bit fingerprint of n bytes that depends on every byte and on where it lies: the sum over 8-byte words of
// tl_hash_word (an order-free sum, so the blocks may add in any order). Bytes past the last whole word are
// folded into one word of their own.

__global__ void hash_bytes(const unsigned char *p, size_t bytes, unsigned long long *out)
{
    size_t words = bytes / 8;
    unsigned long long h = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i <= words; i += (size_t)gridDim.x * blockDim.x) {
        unsigned long long w = 0;
        size_t at = i * 8, len = i < words ? 8 : bytes - at;
        for (size_t k = 0; k < len; k++) w |= (unsigned long long)p[at + k] << (8 * k); // unaligned-safe
        h += tl_hash_word(w, i);
    }
    for (int o = 16; o > 0; o /= 2) h += __shfl_xor_sync(0xffffffffu, h, o);
    if (threadIdx.x % 32 == 0) atomicAdd(out, h);
}

template <class T> void launch_verify(const void *got, const void *want, size_t n, double atol, double rtol, Verdict *d,
                                      cudaStream_t s)
{
    verify_typed<T><<<blocks_for(n), kThreads, 0, s>>>((const T *)got, (const T *)want, n, atol, rtol, d);
}

} // namespace

extern "C" int tl_dev_can_fill(int dist)
{
    return dist == UNIFORM || dist == INT;
}

extern "C" int tl_dev_fill_f32(float *x, size_t n, int dist, uint64_t seed, uint64_t stream, void *st)
{
    if (!tl_dev_can_fill(dist)) return (int)cudaErrorNotSupported;
    uint64_t base = dist == INT ? tl_int_base(seed, stream) : tl_uniform_base(seed, stream);
    fill<<<blocks_for(n), kThreads, 0, (cudaStream_t)st>>>(x, n, dist, base);
    return (int)cudaGetLastError();
}

extern "C" int tl_dev_round_bf16(uint16_t *h, float *x, size_t n, void *st)
{
    round_bf16<<<blocks_for(n), kThreads, 0, (cudaStream_t)st>>>(h, x, n);
    return (int)cudaGetLastError();
}

extern "C" int tl_dev_fill_init(void *out, int t, int kind, double a, double b, uint64_t base, long long n, void *st)
{
    fill_init<<<blocks_for((size_t)n), kThreads, 0, (cudaStream_t)st>>>(out, t, kind, a, b, base, n);
    return (int)cudaGetLastError();
}

extern "C" int tl_dev_abs_f32(float *x, size_t n, void *st)
{
    abs_f32<<<blocks_for(n), kThreads, 0, (cudaStream_t)st>>>(x, n);
    return (int)cudaGetLastError();
}

extern "C" int tl_dev_verify(int t, const void *got, const void *want, size_t n, double atol, double rtol,
                             void *scratch, tl_dev_verdict *out, void *st)
{
    cudaStream_t s = (cudaStream_t)st;
    Verdict h, *d = (Verdict *)scratch;
    cudaError_t rc = cudaMemsetAsync(d, 0, sizeof *d, s);
    if (rc != cudaSuccess) return (int)rc;
    switch (t) { // runner/ops/dop_gen.h's types
    case TL_GEN_F32: launch_verify<float>(got, want, n, atol, rtol, d, s); break;
    case TL_GEN_F64: launch_verify<double>(got, want, n, atol, rtol, d, s); break;
    case TL_GEN_F16: launch_verify<f16>(got, want, n, atol, rtol, d, s); break;
    case TL_GEN_BF16: launch_verify<bf16>(got, want, n, atol, rtol, d, s); break;
    case TL_GEN_I8: launch_verify<int8_t>(got, want, n, atol, rtol, d, s); break;
    case TL_GEN_U8: launch_verify<uint8_t>(got, want, n, atol, rtol, d, s); break;
    case TL_GEN_I16: launch_verify<int16_t>(got, want, n, atol, rtol, d, s); break;
    case TL_GEN_U16: launch_verify<uint16_t>(got, want, n, atol, rtol, d, s); break;
    case TL_GEN_I32: launch_verify<int32_t>(got, want, n, atol, rtol, d, s); break;
    case TL_GEN_U32: launch_verify<uint32_t>(got, want, n, atol, rtol, d, s); break;
    case TL_GEN_I64: launch_verify<int64_t>(got, want, n, atol, rtol, d, s); break;
    case TL_GEN_U64: launch_verify<uint64_t>(got, want, n, atol, rtol, d, s); break;
    default: return (int)cudaErrorInvalidValue;
    }
    if ((rc = cudaGetLastError()) != cudaSuccess) return (int)rc;
    if ((rc = cudaMemcpyAsync(&h, d, sizeof h, cudaMemcpyDeviceToHost, s)) != cudaSuccess) return (int)rc;
    if ((rc = cudaStreamSynchronize(s)) != cudaSuccess) return (int)rc;
    memcpy(&out->max_abs_err, &h.max_abs, sizeof out->max_abs_err);
    memcpy(&out->max_rel_err, &h.max_rel, sizeof out->max_rel_err);
    out->bad = (long long)h.bad;
    return 0;
}

extern "C" int tl_dev_verify_f32(const float *got, const float *want, const float *scale, size_t n, double atol,
                                 double rtol, void *scratch, tl_dev_verdict *out, void *st)
{
    cudaStream_t s = (cudaStream_t)st;
    Verdict h, *d = (Verdict *)scratch;
    cudaError_t rc = cudaMemsetAsync(d, 0, sizeof *d, s);
    if (rc != cudaSuccess) return (int)rc;
    verify<<<blocks_for(n), kThreads, 0, s>>>(got, want, scale, n, atol, rtol, d);
    if ((rc = cudaGetLastError()) != cudaSuccess) return (int)rc;
    if ((rc = cudaMemcpyAsync(&h, d, sizeof h, cudaMemcpyDeviceToHost, s)) != cudaSuccess) return (int)rc;
    if ((rc = cudaStreamSynchronize(s)) != cudaSuccess) return (int)rc;
    memcpy(&out->max_abs_err, &h.max_abs, sizeof out->max_abs_err);
    memcpy(&out->max_rel_err, &h.max_rel, sizeof out->max_rel_err);
    out->bad = (long long)h.bad;
    return 0;
}

// One word a round trip: the first differing byte is found on the host from the two words.
extern "C" int tl_dev_first_diff(const void *a, const void *b, size_t bytes, void *scratch, long long *first, void *st)
{
    cudaStream_t s = (cudaStream_t)st;
    unsigned long long *d = (unsigned long long *)scratch, h = ~0ULL;
    int wide = ((uintptr_t)a % 8 == 0) && ((uintptr_t)b % 8 == 0);
    size_t w = wide ? 8 : 1, n = bytes / w;
    cudaError_t rc = cudaMemsetAsync(d, 0xff, sizeof *d, s); /* ~0: none differs yet */
    if (rc != cudaSuccess) return (int)rc;
    if (wide) first_diff<unsigned long long><<<blocks_for(n), kThreads, 0, s>>>(
        (const unsigned long long *)a, (const unsigned long long *)b, n, d);
    else first_diff<unsigned char><<<blocks_for(n), kThreads, 0, s>>>((const unsigned char *)a,
                                                                      (const unsigned char *)b, n, d);
    if ((rc = cudaGetLastError()) != cudaSuccess) return (int)rc;
    if ((rc = cudaMemcpyAsync(&h, d, sizeof h, cudaMemcpyDeviceToHost, s)) != cudaSuccess) return (int)rc;
    if ((rc = cudaStreamSynchronize(s)) != cudaSuccess) return (int)rc;
    size_t at = h == ~0ULL ? n * w : (size_t)h * w, end = at + w < bytes && h != ~0ULL ? at + w : bytes;
    *first = -1;
    if (at >= bytes) return 0;
    unsigned char x[8], y[8]; // the differing word, or the tail past the last whole word
    if ((rc = cudaMemcpy(x, (const char *)a + at, end - at, cudaMemcpyDeviceToHost)) != cudaSuccess) return (int)rc;
    if ((rc = cudaMemcpy(y, (const char *)b + at, end - at, cudaMemcpyDeviceToHost)) != cudaSuccess) return (int)rc;
    for (size_t k = 0; k < end - at; k++)
        if (x[k] != y[k]) {
            *first = (long long)(at + k);
            break;
        }
    return 0;
}

extern "C" int tl_dev_hash(const void *p, size_t bytes, void *scratch, uint64_t *out, void *st)
{
    cudaStream_t s = (cudaStream_t)st;
    unsigned long long *d = (unsigned long long *)scratch, h = 0;
    cudaError_t rc = cudaMemsetAsync(d, 0, sizeof *d, s);
    if (rc != cudaSuccess) return (int)rc;
    hash_bytes<<<blocks_for(bytes / 8 + 1), kThreads, 0, s>>>((const unsigned char *)p, bytes, d);
    if ((rc = cudaGetLastError()) != cudaSuccess) return (int)rc;
    if ((rc = cudaMemcpyAsync(&h, d, sizeof h, cudaMemcpyDeviceToHost, s)) != cudaSuccess) return (int)rc;
    if ((rc = cudaStreamSynchronize(s)) != cudaSuccess) return (int)rc;
    *out = h;
    return 0;
}
