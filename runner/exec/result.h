/* result: what one case produced, as the writer, the table and the exit code see it. */
#ifndef TILELAB_RESULT_H
#define TILELAB_RESULT_H

#include "runner/measure/counters.h"
#include "runner/measure/measure.h"
#include "runner/plan/plan.h"

/* Where a case's wall time went (schema 1.5: case attributes t_<name>_s; `load` since 1.11, counted in
 * `compile` before). */
typedef enum {
    PH_COMPILE,   /* NVRTC or the kernel cache */
    PH_LOAD,      /* (1.11) loading the module into the GPU's context, binding its TMA maps and workspace, and
                   * unloading it after the case */
    PH_INPUTS,    /* making the inputs (host and device), when the case starts a new problem */
    PH_REFERENCE, /* the reference output and its error scale, when the problem has none yet */
    PH_VERIFY,    /* the poisoned, verified run */
    PH_WARMUP,    /* untimed runs */
    PH_TIMED,     /* inside the timed regions */
    PH_LOOP,      /* the rest of the timing loop: L2 flushes, resets, waits, per-run checks */
    PH_TELEMETRY, /* NVML reads */
    PH_COUNTERS,  /* the hardware counters pass */
    PH_TRIALS,    /* a dispatching case's trials: its candidates compiled (or from the cache) and timed */
    PH_ENERGY,    /* (1.15) the energy runs (measure_energy_run) */
    PH_N
} tl_phase;
extern const char *const tl_phase_names[PH_N];

typedef struct {
    const tl_case *c;
    const char *status;       /* "ok", "verify_failed", "skipped", "error" or "timeout" */
    char *reason;             /* why it is not ok (skip reason, mismatches, CUDA message), or NULL */
    const char *reference;    /* what the output was compared with */
    reg_tolerance tol;        /* the tolerance it was compared under */
    double max_abs_err;       /* max |got - want|, NaN when not verified */
    double max_rel_err;       /* max |got - want| / error scale, NaN when not verified */
    double flop;              /* operations of one run */
    double bytes;             /* fewest bytes one run moves */
    int regs;                 /* registers per thread, -1 when not a compiled kernel */
    long smem_bytes;          /* static + dynamic shared memory per block, bytes; -1 when n/a */
    long smem_static_bytes;   /* of which static, bytes; -1 when n/a */
    long smem_dynamic_bytes;  /* of which dynamic, bytes; -1 when n/a */
    long local_bytes;         /* local memory per thread (spills), bytes; -1 when n/a */
    long long workspace_bytes; /* device scratch its kernels used (reg_variant.workspace), bytes; 0: none */
    char cubin_sha256[65];    /* "" when n/a */
    char *nvrtc_options;      /* NULL when n/a */
    char cutlass_version[32]; /* the CUTLASS headers it compiled with, "" when none */
    char tensor_maps[256];    /* the TMA tensor maps the kernel was given (runner/jit/tma.h), "" when none */
    int device;               /* CUDA ordinal of the GPU that ran it (a --devices worker's, even for a host
                               * case); -1 when the run used none */
    unsigned grid[3], block[3]; /* launch geometry; zeros when n/a */
    char *protocol;           /* the measurement protocol, as text */
    const char *verify;       /* off, once or every */
    const char *data;         /* input distribution */
    measure_samples samples;  /* raw timings (n == 0 when not measured) */
    measure_stats st;         /* statistics of the samples */
    double gflops, gbs;       /* from the median; NaN when not measured */
    counters_result counters;      /* status NULL when the case asked for none */
    double phase_s[PH_N];     /* wall seconds per phase */
    int compile_cached;       /* 1 the kernel came from the cache (disk or this run's), 0 compiled, -1 n/a */
    char *trials;             /* a case with trials (tl_case.trial): each candidate and its trial's median, one
                               * line each, the one that ran marked; NULL otherwise */
    int trial_compiled;       /* of its trials' kernels, those NVRTC compiled during them (not ahead, not cached) */
    char *retried;            /* --retry-failed: the status and session of the attempt this one replaces, or NULL */
    const char *sanitize_tool; /* --sanitize: the tool its verified run was repeated under, or NULL */
    int sanitize_errors;      /* its errors in the variant's kernels; -1 when it could not check */
    char *sanitize_report;    /* its first reports, or NULL */
    measure_energy energy;    /* energy per run; status NULL when the protocol asks for none */
    int search_step;          /* a search's evaluation (runner/search/search_driver.h), 0: not a search's */
    char *search_proposer;    /* what proposed it, or NULL */
    double search_objective;  /* its objective, NAN when none */
    double search_best;       /* its search's best so far */
} tl_result;

void result_free(tl_result *r);

#endif
