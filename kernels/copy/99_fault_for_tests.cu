// 99_fault_for_tests: a kernel that faults, for the runner's fault test only (test-only variant).
//
// Thread 0 stores through an address no allocation ever has: an illegal address, which is a sticky
// error: the CUDA context cannot be used again, and the runner must start a new process to go on.
#include "copy_common.cuh"

extern "C" __global__ void copy_fault_for_tests(const float *__restrict__ x, float *__restrict__ y, long long n)
{
    for (long long j = global_thread(); j < n; j += grid_threads()) y[j] = x[j];
    if (global_thread() == 0) *(volatile float *)(unsigned long long)0x10 = x[0];
}
