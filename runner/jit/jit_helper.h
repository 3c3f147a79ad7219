/* jit_helper: NVRTC in helper processes. NVRTC is thread-safe, but a process compiles one CuTe kernel at a
 * time: two threads compiling tf32x3 kernels take as long as the two compiles one after the other (NVRTC
 * holds a lock through most of such a compile), where two processes take half of that. So each thread
 * that compiles a run's kernels ahead hands them to a helper process of its own: the runner started again
 * as `runner JIT_HELPER_ARG`, which reads build jobs on its standard input (a socket) and answers each
 * with the cubin or NVRTC's verdict. Keys, the disk cache, the memo and the error messages stay in the
 * run's process; a helper only compiles. */
#ifndef TILELAB_JIT_HELPER_H
#define TILELAB_JIT_HELPER_H

#include "runner/jit/jit_build.h"

#define JIT_HELPER_ARG "--tilelab-nvrtc-helper"
#define JIT_HELPER_GONE (-2) /* jit_helper_build: the helper is gone; compile in this process */
#define JIT_HELPER_FAILED (-3) /* jit_helper_build: the job killed its helper (or ran past the limit): e says how;
                                * the job fails, the next one starts a new helper */
/* What a helper may take (the runner's compile_timeout_s and memory bounds): a job that runs longer is killed
 * with its process; NVRTC in a helper gets this much address space. */
#define JIT_COMPILE_TIMEOUT_S 600.0
#define JIT_HELPER_MEMORY_BYTES ((unsigned long long)32 << 30)
/* The seconds a job may take in any helper of this process (<= 0: JIT_COMPILE_TIMEOUT_S). */
void jit_helper_set_timeout(double seconds);

typedef struct jit_helper jit_helper;

/* A helper: its process (this program, /proc/self/exe, run as `JIT_HELPER_ARG`) starts with its first
 * job, in the thread that sends it, and dies with that thread (PR_SET_PDEATHSIG): a run whose kernels
 * are all in the cache starts none. */
jit_helper *jit_helper_new(void);
/* As jit_build_run, in h's process; JIT_HELPER_GONE (out untouched) when that cannot start or does not answer
 * in the protocol: h is then stopped, and later calls return JIT_HELPER_GONE at once. JIT_HELPER_FAILED when
 * the process died during the job (a crash, the memory bound) or ran past the timeout (it is killed). */
int jit_helper_build(jit_helper *h, const jit_build_job *j, jit_cubin *out, tl_err *e);
/* h's process id, 0 before its first job and once it is gone (tests). */
int jit_helper_pid(const jit_helper *h);
/* Ends h's process (it holds nothing to keep) and frees h; NULL is none. */
void jit_helper_stop(jit_helper *h);
/* The helper's side: closes what it inherited, calls prepare (the sandbox; NULL: none), then answers jobs on
 * standard input until it closes; the process's exit status. */
int jit_helper_main(void (*prepare)(void));

#endif
