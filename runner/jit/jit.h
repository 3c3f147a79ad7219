/* jit: a variant's sources -> cubin with NVRTC (params as #define lines before the sources, for the device's architecture),
 * cached on disk by sha256(files, options, arch, NVRTC version); then loaded as a CUDA library.
 * Compiling needs no GPU; loading does. The disk cache (cache.h) is used only when it can be trusted.
 *
 * NVRTC compiles a small program the runner writes: it includes the variant's main source (every
 * file given in memory, exactly as read: see source.h) and checks with static_asserts that each
 * entry takes the op's kernel arguments; the cubin's symbols then show that the entry is an
 * extern "C" kernel. So a wrong name, a C++ name or a wrong signature is an error before a launch. */
#ifndef TILELAB_JIT_H
#define TILELAB_JIT_H

#include <cuda_runtime_api.h>
#include <stdint.h>

#include "runner/jit/jit_build.h"
#include "runner/plan/plan.h"

/* Cubins this run compiled, by cache key: a kernel compiled ahead (to find errors before any GPU
 * work, or by the compile threads while the first cases run) is not compiled again when its cases
 * run, with or without a disk cache (with one, the cubin is read back from there and the memo keeps
 * only its key's claim: a sweep of thousands of kernels does not hold them all in memory).
 * jit_compile may share one memo between threads: a kernel that one thread is compiling, another
 * waits for rather than compiling it too. A kernel that failed to compile fails again from the memo,
 * with the same error: a sweep's thousand cases of a broken kernel cost one compile, not a thousand. */
typedef struct {
    char **keys;
    jit_cubin *cubins;
    int n;
    char **busy; /* keys being compiled now */
    int nbusy;
    char **failed_keys, **failed_msgs; /* kernels that could not be compiled, and why: their other cases
                                        * get the same error at once instead of compiling again */
    int nfailed;
} jit_memo;

/* What one compile needs. */
typedef struct {
    const reg_op *op;
    const source_store *store;
    const source_set *src;    /* the files, main source first */
    const char *entry;     /* the kernel */
    const char *also[REG_MAX_KERNELS - 1]; /* the module's other kernels the run launches (NULL after the last) */
    const reg_param *params;
    int nparams;
    const long *values;    /* per param */
    const reg_spec *spec;  /* layouts, dtype and the args that name a nonzero_macro (macros) */
    const reg_variant *variant; /* a registered rung: its rules become the compile's #if / #error lines; else NULL */
    int arch;              /* 90 for sm_90 */
    int arch_specific;     /* 1: sm_90a rather than sm_90 */
    int front_end_only;    /* tests: NVRTC's front end only (--fdevice-syntax-only: the C++, its templates,
                            * #if and static_assert checks) in about a tenth of the time of PTX; no output,
                            * no disk cache, and the entries are not checked (out->cubin stays NULL) */
} jit_request;

typedef struct {
    cudaLibrary_t lib;
    int owns_lib;        /* 1: jit_unload unloads lib (jit_load's); 0: another kernel's (jit_load_also's) */
    cudaKernel_t kernel;
    int regs;            /* registers per thread */
    size_t smem_static;  /* static shared memory, bytes */
    size_t local_bytes;  /* local memory per thread (spills and stack), bytes */
    int max_threads;     /* most threads per block the compiled kernel allows */
} jit_kernel;

/* The request for a case of x. */
void jit_request_of_case(const tl_experiment *x, const tl_case *c, int arch, jit_request *rq);
/* Compiles (or takes from memo, then the disk cache cache_dir, a folder cache_dir() trusted). Errors quote NVRTC's log with the files named
 * as the user knows them ("experiments/x/kernels/my.cu(12): error: ..."). memo and cache_dir may
 * be NULL. */
int jit_compile(const jit_request *rq, const char *cache_dir, jit_memo *memo, jit_cubin *out, tl_err *e);
/* As jit_compile, NVRTC running in helper h's process (jit_helper.h; in this one when h is NULL or has
 * ended): how threads compile CuTe kernels side by side. */
typedef struct jit_helper jit_helper;
int jit_compile_in(const jit_request *rq, const char *cache_dir, jit_memo *memo, jit_helper *h, jit_cubin *out,
                   tl_err *e);
void jit_memo_free(jit_memo *m);

/* 1 when the cubin has an extern "C" kernel named entry; 0 when not (kernels gets the names of
 * those it has, comma-separated); -1 when it is not a readable cubin. */
int jit_cubin_has_kernel(const void *cubin, size_t len, const char *entry, char *kernels, size_t n);
/* 1 when the cubin defines a global variable (__device__ or __constant__) named name (size gets its
 * bytes), 0 when not, -1 when it is not a readable cubin. */
int jit_cubin_has_global(const void *cubin, size_t len, const char *name, uint64_t *size);
/* How many global variables the cubin defines, or -1 when it is not a readable cubin. */
int jit_cubin_globals(const void *cubin, size_t len);

int jit_load(const jit_cubin *c, const char *entry, jit_kernel *k, tl_err *e);

/* Modules a run keeps loaded across its cases, by their cubin's SHA-256: a case whose cubin an earlier
 * case loaded takes that module (a tf32x3 module takes some 23 ms to load, its sweeps load few distinct
 * ones thousands of times). At most cap are kept; the one used longest ago is unloaded first. */
typedef struct {
    struct jit_kept {
        char sha256[65];
        cudaLibrary_t lib;
        unsigned long long used; /* the clock at its last use */
    } *e;
    int n, cap;
    unsigned long long clock;
    int loads, hits; /* modules loaded, and takes of a kept one */
} jit_modules;
/* As jit_load, from m: k does not own the module (jit_unload(k) leaves it loaded in m). */
int jit_load_kept(jit_modules *m, const jit_cubin *c, const char *entry, jit_kernel *k, tl_err *e);
/* Unloads lib if m keeps it (a case that failed with it: the next case starts from a fresh load). */
void jit_modules_drop(jit_modules *m, cudaLibrary_t lib);
void jit_modules_free(jit_modules *m);
/* entry of the module k loaded, as k2: one module for a variant's two kernels, so they share its globals
 * (the workspace pointer, the TMA maps) and it is loaded once. k2 is unloaded with k, not by itself. */
int jit_load_also(const jit_kernel *k, const char *entry, jit_kernel *k2, tl_err *e);
void jit_unload(jit_kernel *k);

/* The version of the CUTLASS headers kernels that include <cute/...> or <cutlass/...> compile with
 * (TILELAB_CUTLASS, the bundle's cutlass folder, or the runner's Bazel runfiles), or NULL when this
 * machine has none. */
const char *jit_cutlass_version(void);
/* This program is the runner (it answers JIT_HELPER_ARG): an experiment's sources then compile only in a
 * sandboxed helper process, never in this one. */
void jit_helpers_enable(void);
/* A helper's sandbox (runner/jit/sandbox.h): NVRTC warmed up, then reads only under the toolkit, CUTLASS's headers
 * and the libraries. 0, or -1 with why. */
int jit_sandbox(char *why, size_t len);

/* Kernels compiled from now on carry line info (-lineinfo, part of the cache key): what compute-sanitizer's
 * reports name the source's lines with. */
void jit_set_line_info(int on);

/* NVRTC's version as "13.0". */
void jit_nvrtc_version(char out[16]);

#endif
