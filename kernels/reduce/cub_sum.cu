// The CUB baseline of the reduce op: cub::DeviceReduce, compiled ahead of time by nvcc (kernels/BUILD),
// called from C. Half inputs are summed in float (the accumulator type follows the float init value).
#include <cub/device/device_reduce.cuh>
#include <cuda/std/functional>
#include <cuda_fp16.h>

// With temp == NULL, sets *temp_bytes to the scratch the call needs and runs nothing (CUB's protocol).
// Returns a cudaError_t; CUB's host code may throw, and no exception may cross into C.
extern "C" int tl_cub_sum(const void *in, int half, float *out, long long n, void *temp, size_t *temp_bytes,
                          void *stream)
{
    try {
        cudaStream_t st = static_cast<cudaStream_t>(stream);
        if (half)
            return (int)cub::DeviceReduce::Reduce(temp, *temp_bytes, static_cast<const __half *>(in), out, n,
                                                  cuda::std::plus<float>{}, 0.0f, st);
        return (int)cub::DeviceReduce::Sum(temp, *temp_bytes, static_cast<const float *>(in), out, n, st);
    } catch (...) {
        return (int)cudaErrorUnknown;
    }
}
