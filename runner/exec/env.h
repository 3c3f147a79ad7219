/* env: the machine a run happens on: the GPU and its software, the host. Written to /env. */
#ifndef TILELAB_ENV_H
#define TILELAB_ENV_H

#include <stddef.h>
#include <stdint.h>

#include "runner/util/util.h"

typedef struct {
    /* host */
    char host[256];          /* hostname */
    char cpu[256];           /* CPU model */
    int cpus;                /* online CPUs */
    uint64_t host_mem_bytes; /* physical memory, bytes */
    /* GPU (have_gpu == 0: the rest is unset) */
    int have_gpu;
    int device;                 /* CUDA device ordinal */
    char gpu_name[256];
    char pci_bus_id[32];        /* "0000:3B:00.0", to find the same GPU in NVML */
    char nvml[256];             /* "ok" or "unavailable: <why>" (telemetry) */
    char energy_counter[256];   /* where energy per case comes from, or why none; "" when not known */
    int cc_major, cc_minor;     /* compute capability */
    int sms;                    /* multiprocessors */
    int l2_bytes;               /* L2 cache, bytes */
    size_t smem_per_block;      /* default shared memory limit per block, bytes */
    size_t smem_per_block_optin;/* opt-in limit per block, bytes */
    size_t smem_per_sm;         /* per multiprocessor, bytes */
    int regs_per_sm;            /* 32-bit registers per multiprocessor */
    int sm_clock_khz;           /* peak SM clock, kHz */
    int mem_clock_khz;          /* peak memory clock, kHz */
    int mem_bus_bits;           /* memory bus width, bits */
    size_t total_mem, free_mem; /* device memory, bytes */
    int driver_version;         /* e.g. 13000 */
    int runtime_version;
    int cublas_version;
    char nvrtc_version[16];
    double peak_fp32_gflops; /* SMs x FP32 lanes x 2 x peak clock, GFLOP/s */
    double peak_dram_gbs;    /* 2 x memory clock x bus width, GB/s */
} env_info;

/* Fills the host part; never fails. */
void env_host(env_info *v);
/* Picks device 0 (or $TILELAB_DEVICE), fills the GPU part. -1 with e set when there is no GPU. */
int env_gpu(env_info *v, tl_err *e);

#endif
