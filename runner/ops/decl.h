/* decl: a variant declared in an experiment file: its launch (block, grid, dynamic shared memory) and
 * its requires, as expressions of its params, the op's axes and the device. The config parses them;
 * the plan evaluates them per case. Every evaluation error names the file, line and column of the
 * expression and the case it failed for. */
#ifndef TILELAB_DECL_H
#define TILELAB_DECL_H

#include "runner/ops/expr.h"
#include "runner/ops/registry.h"

/* CUDA's limits on a launch (every GPU so far). */
#define DECL_MAX_THREADS 1024
#define DECL_MAX_BLOCK_Z 64
#define DECL_MAX_GRID_X 2147483647LL
#define DECL_MAX_GRID_YZ 65535LL

typedef struct {
    expr x;
    int line, col;   /* where it is written in the experiment file, 1-based */
    char field[64];  /* "variants[0].grid[1]" */
} decl_expr;

/* One kernel of a declared variant: its entry and launch. */
typedef struct {
    const char *entry;          /* owned by the config */
    decl_expr block[3], grid[3], smem;
    int nblock, ngrid, has_smem;
} decl_kernel;

typedef struct decl_variant {
    const char *path;           /* the experiment file, for messages (not owned) */
    const reg_op *op;
    const reg_variant *v;       /* the variant it belongs to: its params name the expressions' values */
    decl_kernel kernels[REG_MAX_KERNELS]; /* launched in this order, one run (`kernels:`, or the variant's own
                                           * entry, block, grid and smem) */
    int nkernels;
    decl_expr workspace;        /* bytes of scratch its kernels reach through tilelab_workspace (has_workspace) */
    int has_workspace;
    decl_expr *requires;
    int nrequires;
    struct dlib_call *lib;      /* a library variant of a declared op (runner/ops/dlib.h; no kernels), else NULL */
} decl_variant;

/* What a case's params and sizes make of the declaration. */
typedef struct {
    char *skip;        /* a failed requires (or a launch the device cannot take): the reason; NULL if it runs */
    int device_skip;   /* the skip depends on the device (names a device fact, or its shared memory) */
    int undecided;     /* needs device facts that are not known yet (validate without a GPU) */
    reg_launch launch[REG_MAX_KERNELS]; /* when it runs and is decided: per kernel */
    uint64_t workspace;                  /* bytes (0: none) */
} decl_outcome;

/* Evaluates requires (in order, stopping at the first false), then the launch. device: EXPR_*
 * facts, or NULL. -1 with e (file:line:col: field: ...) on an error in an expression, a block over
 * CUDA's limits or an empty grid. */
int decl_evaluate(const decl_variant *d, const long *params, const reg_spec *s, const int64_t *device,
                  const char *case_text, decl_outcome *out, tl_err *e);
void decl_free(decl_variant *d);

/* Any variant's kernels (REG_NVRTC) into out[0 .. REG_MAX_KERNELS): entry, then entry2 or a declared variant's
 * others; how many. A case's launches are in this order, and so are the kernels' launches but for
 * entry2_first. */
int decl_entries(const reg_variant *v, const char **out);

#endif
