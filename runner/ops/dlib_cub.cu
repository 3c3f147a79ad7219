// CUB's device-wide algorithms for the library variants of declared ops (runner/ops/dlib.c), compiled ahead of
// time by nvcc and called from C: one entry per algorithm, the element type chosen at run time from the op's
// buffer types (runner/ops/dop.h's dop_type, passed as an int). With temp == NULL each sets *temp_bytes to the
// scratch it needs and runs nothing (CUB's protocol). Each returns a cudaError_t; CUB's host code may throw,
// and no exception may cross into C.
#include <cub/device/device_histogram.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>
#include <type_traits>

#include "runner/ops/dlib_cub.h"

namespace {

// dop_type's values (runner/ops/dop.h): F32 0, F64 1, I32 2, I64 3, F16 4, BF16 5, I8 6, U8 7, I16 8, U16 9,
// U32 10, U64 11. The half types are left out: CUB sums and sorts them through their own headers' types.
template <class F> int with_type(int type, F f)
{
    switch (type) {
    case 0: return f(float{});
    case 1: return f(double{});
    case 2: return f(int{});
    case 3: return f((long long){});
    case 6: return f((signed char){});
    case 7: return f((unsigned char){});
    case 8: return f(short{});
    case 9: return f((unsigned short){});
    case 10: return f(unsigned{});
    case 11: return f((unsigned long long){});
    default: return (int)cudaErrorInvalidValue;
    }
}

template <class F> int guarded(F f)
{
    try {
        return f();
    } catch (...) {
        return (int)cudaErrorUnknown;
    }
}

} // namespace

extern "C" int tl_cub_reduce_sum(int type, const void *in, void *out, long long n, void *temp, size_t *temp_bytes,
                                 void *stream)
{
    return guarded([&] {
        return with_type(type, [&](auto t) {
            using T = decltype(t);
            return (int)cub::DeviceReduce::Sum(temp, *temp_bytes, static_cast<const T *>(in), static_cast<T *>(out),
                                               n, static_cast<cudaStream_t>(stream));
        });
    });
}

extern "C" int tl_cub_scan_sum(int type, int inclusive, const void *in, void *out, long long n, void *temp,
                               size_t *temp_bytes, void *stream)
{
    return guarded([&] {
        return with_type(type, [&](auto t) {
            using T = decltype(t);
            const T *i = static_cast<const T *>(in);
            T *o = static_cast<T *>(out);
            cudaStream_t st = static_cast<cudaStream_t>(stream);
            return inclusive ? (int)cub::DeviceScan::InclusiveSum(temp, *temp_bytes, i, o, n, st)
                             : (int)cub::DeviceScan::ExclusiveSum(temp, *temp_bytes, i, o, n, st);
        });
    });
}

extern "C" int tl_cub_sort_keys(int type, const void *in, void *out, long long n, void *temp, size_t *temp_bytes,
                                void *stream)
{
    return guarded([&] {
        return with_type(type, [&](auto t) {
            using T = decltype(t);
            return (int)cub::DeviceRadixSort::SortKeys(temp, *temp_bytes, static_cast<const T *>(in),
                                                       static_cast<T *>(out), n, 0, (int)(8 * sizeof(T)),
                                                       static_cast<cudaStream_t>(stream));
        });
    });
}

extern "C" int tl_cub_histogram_even(int type, const void *in, unsigned *counts, int bins, long long lower,
                                     long long upper, long long n, void *temp, size_t *temp_bytes, void *stream)
{
    return guarded([&] {
        return with_type(type, [&](auto t) {
            using T = decltype(t);
            using Level = typename std::conditional<std::is_floating_point<T>::value, T, long long>::type;
            return (int)cub::DeviceHistogram::HistogramEven(temp, *temp_bytes, static_cast<const T *>(in), counts,
                                                            bins + 1, (Level)lower, (Level)upper, n,
                                                            static_cast<cudaStream_t>(stream));
        });
    });
}
