/* plan: an experiment -> an ordered list of cases, each with a stable case_id.
 * Order: sizes (as listed) x layouts x variants (as listed) x params (registry order, last fastest). */
#ifndef TILELAB_PLAN_H
#define TILELAB_PLAN_H

#include "runner/config.h"

typedef struct {
    char id[17];      /* first 16 hex digits of sha256(canonical) */
    char *canonical;  /* the case's identity as text; see plan_canonical */
    char *params_text;/* "BLOCKSIZE=32" (registry order), "" when none */
    char *sizes_text; /* "m=256,n=256,k=256" */
    char *layout_text;/* "a=row,b=col" */
    const reg_op *op;
    const reg_variant *variant;
    long params[REG_MAX_PARAMS]; /* registry order */
    reg_spec spec;
    const char *dtype;
    measure_protocol protocol; /* how it is timed (not part of its identity) */
    int skipped;  /* 1: not run, see reason */
    char *reason; /* why it is skipped, or NULL */
} tl_case;

typedef struct {
    tl_case *cases;
    int ncases;
    int nskipped;
} tl_plan;

/* Memory limits the plan checks sizes against; 0 = unknown (no check). */
typedef struct {
    uint64_t device_bytes; /* device memory the runner may use */
    uint64_t host_bytes;   /* host memory the runner may use */
} plan_limits;

int plan_expand(const tl_experiment *x, const plan_limits *lim, tl_plan *p, tl_err *e);
void plan_free(tl_plan *p);

/* The canonical text of a case: key=value fields in a fixed order, numbers in a fixed format.
 * Its hash is the case_id, so it changes only when what runs changes. */
char *plan_canonical(const tl_case *c);

/* The model of a case's run time, s: fixed set-up plus the minimum repetitions at nominal rates. */
double plan_cost(const tl_case *c);
/* Shard index of count (0-based): mine[i] = 1 for the cases it runs. The shares are disjoint, cover
 * the plan, and are balanced by plan_cost (longest first to the least loaded); every machine
 * computes the same ones. -1 when index/count is not a shard. */
int plan_shard(const tl_plan *p, int index, int count, unsigned char *mine);

#endif
