#include "runner/exec/env.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runner/jit/jit.h"
#include "runner/util/cuda_check.h"

void env_host(env_info *v)
{
    if (gethostname(v->host, sizeof v->host) != 0) snprintf(v->host, sizeof v->host, "unknown");
    v->host[sizeof v->host - 1] = '\0';
    v->cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
    v->host_mem_bytes = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
    snprintf(v->cpu, sizeof v->cpu, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) || !colon) continue;
        snprintf(v->cpu, sizeof v->cpu, "%s", colon + 2);
        v->cpu[strcspn(v->cpu, "\n")] = '\0';
        break;
    }
    fclose(f);
}

/* FP32 lanes per multiprocessor, from the CUDA programming guide's throughput table. */
static int fp32_lanes(int major, int minor)
{
    if (major == 8 && minor == 0) return 64;
    if (major >= 8) return 128;
    if (major == 7) return 64;
    return 128;
}

static int attr(enum cudaDeviceAttr a, int dev, int *out, tl_err *e)
{
    CUDA_CHECK(cudaDeviceGetAttribute(out, a, dev));
    return 0;
fail:
    return -1;
}

int env_gpu(env_info *v, tl_err *e)
{
    int count = 0, dev = 0, optin = 0, smem_sm = 0;
    const char *want = getenv("TILELAB_DEVICE");
    cudaError_t rc = cudaGetDeviceCount(&count);
    if (rc != cudaSuccess || count == 0) {
        tl_err_set(e, "no CUDA device found (%s)", rc != cudaSuccess ? cudaGetErrorString(rc) : "0 devices");
        return -1;
    }
    if (want && *want) dev = atoi(want);
    if (dev < 0 || dev >= count) {
        tl_err_set(e, "TILELAB_DEVICE=%s: this machine has %d CUDA device(s)", want, count);
        return -1;
    }
    struct cudaDeviceProp p;
    CUDA_CHECK(cudaSetDevice(dev));
    CUDA_CHECK(cudaGetDeviceProperties(&p, dev));
    CUDA_CHECK(cudaDeviceGetPCIBusId(v->pci_bus_id, (int)sizeof v->pci_bus_id, dev));
    v->have_gpu = 1;
    v->device = dev;
    snprintf(v->gpu_name, sizeof v->gpu_name, "%s", p.name);
    v->cc_major = p.major, v->cc_minor = p.minor;
    v->sms = p.multiProcessorCount;
    v->l2_bytes = p.l2CacheSize;
    v->smem_per_block = p.sharedMemPerBlock;
    v->regs_per_sm = p.regsPerMultiprocessor;
    if (attr(cudaDevAttrMaxSharedMemoryPerBlockOptin, dev, &optin, e) ||
        attr(cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev, &smem_sm, e) ||
        attr(cudaDevAttrClockRate, dev, &v->sm_clock_khz, e) ||
        attr(cudaDevAttrMemoryClockRate, dev, &v->mem_clock_khz, e) ||
        attr(cudaDevAttrGlobalMemoryBusWidth, dev, &v->mem_bus_bits, e))
        return -1;
    v->smem_per_block_optin = (size_t)optin;
    v->smem_per_sm = (size_t)smem_sm;
    CUDA_CHECK(cudaMemGetInfo(&v->free_mem, &v->total_mem));
    CUDA_CHECK(cudaDriverGetVersion(&v->driver_version));
    CUDA_CHECK(cudaRuntimeGetVersion(&v->runtime_version));
    int major = 0, minor = 0, patch = 0;
    if (cublasGetProperty(MAJOR_VERSION, &major) != CUBLAS_STATUS_SUCCESS ||
        cublasGetProperty(MINOR_VERSION, &minor) != CUBLAS_STATUS_SUCCESS ||
        cublasGetProperty(PATCH_LEVEL, &patch) != CUBLAS_STATUS_SUCCESS) {
        tl_err_set(e, "cublasGetProperty failed: is libcublas from this CUDA installed?");
        return -1;
    }
    v->cublas_version = major * 10000 + minor * 100 + patch;
    jit_nvrtc_version(v->nvrtc_version);
    v->peak_fp32_gflops = v->sms * fp32_lanes(v->cc_major, v->cc_minor) * 2.0 * v->sm_clock_khz * 1e-6;
    v->peak_dram_gbs = 2.0 * v->mem_clock_khz * 1e3 * (v->mem_bus_bits / 8.0) * 1e-9;
    return 0;
fail:
    return -1;
}
