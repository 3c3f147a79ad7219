/* compile: every distinct kernel of a plan, compiled ahead of its cases: for `runner compile` (a cache
 * for another machine), `runner validate --compile` (errors without a GPU), and `run`, which
 * compiles the variants declared in the experiment before any GPU work, so that a compile error is
 * bad input (exit 2) and not a failed case. */
#ifndef TILELAB_COMPILE_H
#define TILELAB_COMPILE_H

#include <stdio.h>

#include "runner/jit/jit.h"

typedef struct {
    const tl_experiment *x;
    const tl_case *c; /* the first case that needs the kernel */
} compile_item;

typedef struct {
    compile_item *items;
    int n;
} compile_list;

/* Adds the kernels of p's cases that are not skipped (and have mine[i] set, unless mine is NULL;
 * only declared variants' when only_declared), each distinct kernel once. */
void compile_collect(const tl_experiment *x, const tl_plan *p, const unsigned char *mine, int only_declared,
                     compile_list *l);
void compile_list_free(compile_list *l);
/* Compiles the list for sm_<arch> in `jobs` processes, or, when memo is given (it keeps the cubins, in
 * this process), in `jobs` threads each with its NVRTC in a helper process (compile_ahead_start says
 * why; programs that pass a memo and jobs > 1 call jit_helper_main when started as JIT_HELPER_ARG);
 * prints one "FAILED ..." paragraph per failure to log; returns how many failed (with processes, a
 * process whose kernels failed counts one). */
int compile_run(const compile_list *l, int arch, int jobs, const char *cache, jit_memo *memo, FILE *log);

/* How many threads compile ahead by default (run's --compile-jobs): the CPUs this process may use (its
 * affinity: a Slurm task's share, not the node's), at most one a COMPILE_BYTES_A_THREAD of the machine's
 * memory (NVRTC on a CuTe kernel takes some hundreds of MB) and COMPILE_MAX_THREADS; at least 1. A
 * --devices run deals them over its workers. */
#define COMPILE_BYTES_A_THREAD (2.0 * (1 << 30))
#define COMPILE_MAX_THREADS 256
int compile_default_threads(void);

/* Compiling ahead, while the cases run: `threads` threads take the list's kernels in order and
 * compile them into memo (the cases then find them there, or wait for the one a thread is
 * compiling). A kernel that fails is left out: its case compiles it again and reports the error. The
 * pool owns the list (l is emptied). NULL when there is nothing to compile or threads < 1.
 * helpers: each thread's NVRTC runs in a helper process of its own (jit_helper.h: in one process NVRTC
 * compiles CuTe kernels one at a time); a thread whose helper cannot start, or ends, compiles in this
 * process. Programs that pass it call jit_helper_main when started as JIT_HELPER_ARG. */
typedef struct compile_ahead compile_ahead;
compile_ahead *compile_ahead_start(compile_list *l, int arch, const char *cache, jit_memo *memo, int threads,
                                   int helpers);
/* Takes no more kernels and waits for those being compiled (a thread counts its compile only after its
 * cases may have read the cubin); how many NVRTC compiled in the threads. A case whose kernel a thread
 * compiled says it came from the cache: this count is what tells them apart. 0 for no pool. */
int compile_ahead_wait(compile_ahead *a);
/* Takes no more kernels, waits for those being compiled, frees the pool; how many NVRTC compiled in
 * its threads. NULL is no pool. */
int compile_ahead_stop(compile_ahead *a);

#endif
