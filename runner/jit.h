/* jit: a variant's .cu -> cubin with NVRTC (params as -D macros, for the device's architecture),
 * cached on disk by sha256(sources, options, arch, NVRTC version); then loaded as a CUDA library.
 * Compiling needs no GPU; loading does. */
#ifndef TILELAB_JIT_H
#define TILELAB_JIT_H

#include <cuda_runtime_api.h>

#include "runner/registry.h"

typedef struct {
    char *options;         /* NVRTC options, space-separated, as stored in the result file */
    void *cubin;           /* compiled code */
    size_t cubin_len;      /* bytes */
    char cubin_sha256[65]; /* of the cubin */
    int cached;            /* 1: read from the disk cache */
    char *log;             /* NVRTC's log (warnings), or NULL */
} jit_cubin;

typedef struct {
    cudaLibrary_t lib;
    cudaKernel_t kernel;
    int regs;            /* registers per thread */
    size_t smem_static;  /* static shared memory, bytes */
    size_t local_bytes;  /* local memory per thread (spills and stack), bytes */
    int max_threads;     /* most threads per block the compiled kernel allows */
} jit_kernel;

/* The cache directory: $TILELAB_CACHE_DIR, else $XDG_CACHE_HOME/tilelab/cubin, else
 * $HOME/.cache/tilelab/cubin; NULL when none can be named. Caller frees. */
char *jit_cache_dir(void);

int jit_compile(const reg_op *op, const reg_variant *v, const long *params, const reg_spec *s, int arch,
                const char *cache_dir, jit_cubin *out, tl_err *e);
void jit_cubin_free(jit_cubin *c);

int jit_load(const jit_cubin *c, const char *entry, jit_kernel *k, tl_err *e);
void jit_unload(jit_kernel *k);

/* NVRTC's version as "13.0". */
void jit_nvrtc_version(char out[16]);

#endif
