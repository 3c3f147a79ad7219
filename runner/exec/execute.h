/* execute: one case through the pipeline: inputs, reference, a poisoned and verified run, then the
 * timed repetitions. Consecutive cases with the same inputs share them and their reference. */
#ifndef TILELAB_EXECUTE_H
#define TILELAB_EXECUTE_H

#include "runner/config/config.h"
#include "runner/exec/env.h"
#include "runner/exec/inguard.h"
#include "runner/exec/result.h"
#include "runner/jit/jit.h"
#include "runner/measure/counters.h"
#include "runner/measure/nvml.h"

typedef struct {
    const tl_experiment *x;
    const env_info *env;
    reg_ctx ctx;       /* cuBLAS handle and stream when there is a GPU */
    char *cache_dir;   /* trusted cubin cache (cache.h), or NULL; set by the caller, freed by execute_free */
    jit_memo memo;     /* cubins compiled by this run (ahead of the cases, or by earlier ones) */
    jit_modules mods;  /* the registry's modules this run loaded, kept for its later cases */
    nvml_gpu *gpu;     /* telemetry (never NULL once initialised; may be unavailable) */
    counters_session *ctr;  /* hardware counters (set by the caller, who closes it), or NULL */
    void *l2_buf;      /* device buffer the L2 flush overwrites */
    size_t l2_bytes;   /* its size, bytes */
    void *ws_buf;      /* the variants' workspace (reg_variant.workspace), grown as cases need, or NULL */
    uint64_t ws_bytes; /* its size, bytes */
    reg_problem *prob; /* inputs of the last case */
    char *prob_key;    /* what they were made for */
    const char *prob_ref; /* the reference computed for them, or NULL */
    inguard guard;     /* their inputs as made: no case runs on inputs an earlier one changed */
    int verify_only;   /* --sanitize's child: a case is its verified run (one launch with verification off) */
} execute_ctx;

/* use_gpu: set up cuBLAS and the L2 flush buffer on env's device. */
int execute_init(execute_ctx *c, const tl_experiment *x, const env_info *env, int use_gpu, tl_err *e);
void execute_free(execute_ctx *c);

/* A short check that the GPU of this process's context works (a buffer set and read back): after the runner's
 * restart, a GPU that stays broken ends the run with one message instead of failing every case after. */
int execute_health_check(tl_err *e);

/* Runs one case into r. A case that fails (verification, a CUDA error) is a result, not an error:
 * -1 is returned only when the runner cannot go on. */
int execute_case(execute_ctx *c, const tl_case *tc, tl_result *r, tl_err *e);
/* A case's result before it runs: what its case and the experiment say (execute_case starts from it). */
void execute_result_init(const execute_ctx *c, const tl_case *tc, tl_result *r);

/* After a case that ended in an error on the device: 1 when the CUDA context is lost for good (a
 * sticky error such as an illegal address), so that nothing more can run in this process; the
 * case's reason then says so. */
int execute_context_lost(execute_ctx *c, tl_result *r);

#endif
