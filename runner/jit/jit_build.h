/* jit_build: one NVRTC compile (and, for LTO IR, its nvJitLink link) as plain data, run where it is given:
 * in the run's process (runner/jit/jit.h) or in a compile helper's (runner/jit/jit_helper.h). It knows nothing of
 * requests, caches or memos; those stay with jit.c. */
#ifndef TILELAB_JIT_BUILD_H
#define TILELAB_JIT_BUILD_H

#include <stddef.h>

#include "runner/util/util.h"

#define JIT_CHECK_FILE "tilelab-signature-check" /* the wrapper's lines, as NVRTC's log names them */
#define JIT_RULES_FILE "tilelab-rules"           /* its lines of the variant's rules (reg_rule) */

typedef struct {
    char *options;         /* NVRTC options, space-separated, as stored in the result file */
    void *cubin;           /* compiled code */
    size_t cubin_len;      /* bytes */
    char cubin_sha256[65]; /* of the cubin */
    int cached;            /* 1: from the disk cache (or this run's memory of it) */
    char *log;             /* NVRTC's log (warnings), or NULL */
    char cutlass_version[32]; /* the CUTLASS headers' version when the sources include them, else "" */
} jit_cubin;

/* One NVRTC compile (and, for -dlto, its nvJitLink link), as plain data a helper can be sent. */
typedef struct {
    const char *wrapper;       /* the translation unit compiled */
    char **opts;               /* NVRTC's options */
    int nopts;
    int nh;                    /* sources given in memory: texts[i] is the file included as names[i] */
    const char *const *texts;
    const char *const *names;
    int arch, arch_specific;   /* sm_<arch>, "a" when arch_specific: nvJitLink's target */
    const char *entry;         /* the kernel the link keeps */
    const char *also;          /* and these, comma-separated ("" or NULL: none) */
    int front_end_only;        /* --fdevice-syntax-only: no cubin */
} jit_build_job;

/* Runs j in this process: 0 with out->cubin (and out->log when NVRTC wrote one); > 0: NVRTC's
 * nvrtcResult for a program that did not compile, out->log its log; -1: e says why (an NVRTC or
 * nvJitLink call that failed). */
int jit_build_run(const jit_build_job *j, jit_cubin *out, tl_err *e);

void jit_cubin_free(jit_cubin *c);

#endif
