/* plan: an experiment -> an ordered list of cases, each with a stable case_id.
 * Order: sizes (as listed) x layouts x variants (as listed) x params (registry order, last fastest). */
#ifndef TILELAB_PLAN_H
#define TILELAB_PLAN_H

#include "runner/config/config.h"

typedef struct tl_case {
    char id[17];      /* first 16 hex digits of sha256(canonical) */
    char *canonical;  /* the case's identity as text; see plan_canonical */
    char *params_text;/* "BLOCKSIZE=32" (registry order), "" when none */
    char *sizes_text; /* "m=256,n=256,k=256" */
    char *layout_text;/* "a=row,b=col" */
    const reg_op *op;
    const reg_variant *variant;
    const cfg_variant *cv;     /* its entry in the experiment (origin, sources) */
    long params[REG_MAX_PARAMS]; /* registry order */
    reg_spec spec;
    const char *dtype;
    measure_protocol protocol; /* how it is timed (not part of its identity) */
    int skipped;  /* 1: not run, see reason */
    char *reason; /* why it is skipped, or NULL */
    int device_skip; /* skipped for a reason that depends on the device (its memory, its facts) */
    int undecided;   /* its requires or launch need device facts not known yet (no GPU) */
    reg_launch launch[REG_MAX_KERNELS]; /* REG_NVRTC, when not skipped or undecided: per kernel of run, in
                                         * decl_entries' order */
    int nlaunch;                        /* 0 when unknown */
    uint64_t workspace;                 /* bytes of the run's scratch (reg_variant.workspace, a declared
                                         * variant's `workspace:`), 0: none */
    /* What runs: the variant and its params, or for a dispatching variant (its table) the rung and
     * params the table picked for this problem. */
    const reg_variant *run;
    long run_params[REG_MAX_PARAMS];
    const source_set *run_src; /* REG_NVRTC: the files run's compile reads */
    char *dispatch;         /* a dispatching variant: "hopper BM=...,... (TABLE:LINE)", else NULL */
    /* A dispatching variant with `trials:` over 1 whose table ranks more than one candidate for the problem
     * (dispatch_rank): each of them as a case (trial[0] the pick, as this case has it), with this case's identity,
     * texts and problem but its own run, run_params, run_src, launch and dispatch (those it may not run on
     * the device, e.g. for memory, left out). The run times each on the problem and runs the fastest as the
     * case (execute_case). NULL and 0 otherwise. */
    struct tl_case *trial;
    int ntrials;
    /* A declared op (reg_op.decl): the case of this problem whose run makes its reference (the reference
     * variant's first params), in the same plan; else NULL. */
    const struct tl_case *ref;
} tl_case;

typedef struct {
    tl_case *cases;
    int ncases;
    int nskipped;
    int whole_problems; /* shards and --devices workers get whole problems (a search runs on one of them) */
} tl_plan;

/* Memory limits the plan checks sizes against; 0 = unknown (no check). */
typedef struct {
    uint64_t device_bytes; /* device memory the runner may use */
    uint64_t host_bytes;   /* host memory the runner may use */
    const int64_t *device; /* facts a declared variant's expressions may name (EXPR_*); NULL: no GPU known */
} plan_limits;

/* -1 with e on an error in the experiment that only its cases show (a case listed twice; a declared
 * variant's expression that overflows, divides by zero or asks for an impossible block). */
int plan_expand(const tl_experiment *x, const plan_limits *lim, tl_plan *p, tl_err *e);
void plan_free(tl_plan *p);

/* The canonical text of a case: key=value fields in a fixed order, numbers in a fixed format.
 * Its hash is the case_id, so it changes only when what runs changes. */
char *plan_canonical(const tl_case *c);

/* The model of a case's run time, s: fixed set-up plus the minimum repetitions at nominal rates. */
double plan_cost(const tl_case *c);
/* The model of making a case's problem (inputs, reference), s: paid once by the cases that share it. */
double plan_setup_cost(const tl_case *c);
/* What cases share when they share a problem (sizes, layouts, dtype, args, seed, host or device):
 * the runner makes inputs and reference once for consecutive cases with one key. */
char *plan_problem_key(const tl_case *c);
/* The cases with todo[i] (every case when todo is NULL) over count shards: owner[i] = the shard, or -1
 * for the cases not given. A problem's cases stay together unless the problem alone is more than a
 * share (never, with p->whole_problems); pieces go longest first to the least loaded shard, costs with their set-up. The same plan
 * gives the same shares on every machine. -1 when count < 1. */
int plan_assign(const tl_plan *p, const unsigned char *todo, int count, int *owner);
/* Shard index of count (0-based): mine[i] = 1 for the cases it runs (plan_assign over the whole plan).
 * -1 when index/count is not a shard. */
int plan_shard(const tl_plan *p, int index, int count, unsigned char *mine);

/* Finding cases by id among many (a resumed sweep, a worker's list, a merge): the plan's ids sorted
 * once (an id is unique in a plan), then a binary search. */
typedef struct {
    const char *id; /* the plan's own string */
    int index;      /* in p->cases */
} plan_id;
plan_id *plan_ids(const tl_plan *p); /* p->ncases of them; free() */
/* The plan index of case id, or -1. */
int plan_find(const plan_id *ids, int n, const char *id);

#endif
