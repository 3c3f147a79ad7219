/* registry: what an op and its variants declare (kernels/<op>/<op>.c fills one reg_op).
 * The runner, `list`, the tests and the docs all read these tables; nothing else lists variants. */
#ifndef TILELAB_REGISTRY_H
#define TILELAB_REGISTRY_H

#include <stddef.h>
#include <stdint.h>

#include "runner/util/util.h"

#define REG_MAX_AXES 4
#define REG_MAX_PARAMS 24
#define REG_MAX_OPERANDS 4
#define REG_MAX_ARGS 4
#define REG_MAX_DTYPES 4
#define REG_MAX_KERNELS 4 /* kernels one run of a variant launches */
#define REG_WORKSPACE_SYMBOL "tilelab_workspace" /* see reg_variant.workspace */
/* The globals of a kernel that asks for TMA tensor maps (runner/jit/tma.h): the runner binds them by name. */
#define REG_TMA_REQUESTS_SYMBOL "tilelab_tensor_map_requests"
#define REG_TMA_MAPS_SYMBOL "tilelab_tensor_maps"

enum { REG_ROW = 0, REG_COL = 1 };

/* Input distributions (YAML `data:`). */
typedef enum {
    REG_UNIFORM, /* uniform in [-1, 1) */
    REG_NORMAL,  /* standard normal */
    REG_INT      /* small integers in [-3, 3]: sums are exact, so checks can be exact */
} reg_dist;

typedef enum {
    REG_NVRTC,   /* a .cu file compiled at run time by NVRTC, params as #define lines before the source */
    REG_LIBRARY, /* a library call compiled ahead of time (cuBLAS, CUB, cudaMemcpy) */
    REG_HOST     /* a C implementation run on the CPU (the `host` target) */
} reg_kind;

/* One problem instance, independent of the variant that solves it. */
typedef struct {
    int64_t dims[REG_MAX_AXES];    /* size along each op axis, elements */
    int layouts[REG_MAX_OPERANDS]; /* REG_ROW / REG_COL per op operand */
    double args[REG_MAX_ARGS];     /* op scalars (alpha, beta), in op order */
    uint64_t seed;                 /* input data seed, from the experiment */
    reg_dist dist;                 /* input distribution */
    int dtype;                     /* element type: index into the op's dtypes */
} reg_spec;

typedef struct {
    unsigned grid[3];  /* blocks */
    unsigned block[3]; /* threads per block */
    size_t smem;       /* dynamic shared memory, bytes */
} reg_launch;

typedef struct {
    double rtol; /* relative tolerance (its scale is the op's, docs/guide/measurement.md) */
    double atol; /* absolute tolerance */
} reg_tolerance;

typedef struct {
    int ok;             /* every element finite and within tolerance */
    double max_abs_err; /* max |got - want| */
    double max_rel_err; /* max |got - want| / |want| over elements with want != 0 */
    int64_t bad;        /* elements out of tolerance or not finite */
    char detail[512];   /* the first mismatches: index, got, want */
} reg_verify;

/* Handles the runner owns and lends to ops. */
typedef struct {
    void *cublas; /* cublasHandle_t, or NULL on the host target */
    void *stream; /* cudaStream_t every device operation goes to (blocking: ordered with stream 0) */
} reg_ctx;

typedef struct reg_problem reg_problem; /* op-defined: inputs, output, reference */

/* An operand as the device holds it, for kernels that ask for TMA tensor maps (runner/jit/tma.h): a
 * matrix of `outer` rows of `inner` elements, the inner ones contiguous. */
enum { REG_ELEM_F32 = 0, REG_ELEM_BF16 = 1 };
typedef struct {
    void *ptr;             /* device address */
    int elem;              /* REG_ELEM_* */
    uint64_t inner, outer; /* elements along the contiguous dimension, rows */
    uint64_t row_bytes;    /* bytes from one row to the next */
} reg_tensor;

typedef struct {
    const char *name; /* macro name: `#define NAME value` before the source */
    long def;         /* default value */
    const char *doc;  /* one line for `list` */
} reg_param;

/* A param list is written once, as a macro LIST(X, P) that calls X(P, NAME, default, "doc") for each param
 * in order; it gives the list's rows and the index of each param by name, so no code reads a param by its
 * position:
 *     #define COPY_PLAIN(X, P) X(P, BLOCK, 256, "threads per block") X(P, GRID, 0, "blocks; 0: enough")
 *     enum { COPY_PLAIN(REG_PARAM_INDEX, PLAIN) PLAIN_N };        PLAIN_BLOCK = 0, PLAIN_GRID = 1, PLAIN_N = 2
 *     static const reg_param plain_params[] = {COPY_PLAIN(REG_PARAM_ROW, PLAIN)};
 *     ... p[PLAIN_GRID] ... */
#define REG_PARAM_INDEX(P, name, def, doc) P##_##name,
#define REG_PARAM_ROW(P, name, def, doc) {#name, def, doc},

/* A rule a compiled variant's params must keep, written once: `expr` (runner/ops/expr.h's language, naming the
 * variant's params only) is true for params it takes. The plan evaluates it (reg_check: a case that breaks
 * it is skipped with `why`, where {NAME} stands for the param's value), `list` prints it, and the compile
 * of the variant gets it as an `#if !(expr)` / `#error` (runner/jit/jit.c), so a kernel built for params the
 * registry refuses fails to compile with the same words. */
typedef struct {
    const char *expr;
    const char *why;
} reg_rule;
#define REG_RULES_END {NULL, NULL} /* the last of a variant's rules */

/* A launch written as expressions in runner/ops/expr.h's language over the variant's params and the op's axes, as
 * a declared variant's block, grid and smem are: grid x, y, z, block x, y, z (NULL: 1) and dynamic shared
 * memory in bytes (NULL: 0). A variant that sets grid[0] has no `geometry`. */
typedef struct {
    const char *grid[3];
    const char *block[3];
    const char *smem;
} reg_launch_exprs;

struct decl_variant; /* runner/ops/decl.h */
struct dop;          /* runner/ops/dop.h */

typedef struct reg_variant {
    const char *name;    /* as written in YAML */
    const char *summary; /* one line: the idea of this rung */
    reg_kind kind;
    const char *source; /* REG_NVRTC: path under kernels/ */
    const char *entry;  /* REG_NVRTC: extern "C" kernel name */
    const reg_param *params;
    int nparams;
    int nid_params; /* 0: every param is in a case's params text (and so its id); else the params from
                     * this one on, added after the variant had cases, are there only when not at their
                     * default, so that those cases keep their ids */
    /* Its params' rules, in order, ended by one whose expr is NULL: the first broken one is the skip reason
     * (NULL: none). */
    const reg_rule *rules;
    const char *constraints; /* what else it takes, as text for `list`: what check tests beyond the rules */
    /* After the rules: 1 if the params and the problem go together, else 0 and a reason. May be NULL. */
    int (*check)(const long *params, const reg_spec *s, char *why, size_t whylen);
    /* REG_NVRTC: grid, block and dynamic shared memory, as expressions where they read simpler so (launch),
     * else computed (geometry); reg_geometry evaluates either. */
    reg_launch_exprs launch;
    void (*geometry)(const long *params, const reg_spec *s, reg_launch *l);
    /* REG_NVRTC, optional: a second kernel of the same source, launched after the first with the same
     * arguments (e.g. the one-block pass that finishes a two-pass reduction), and its geometry. */
    const char *entry2;
    void (*geometry2)(const long *params, const reg_spec *s, reg_launch *l);
    int entry2_first; /* 1: entry2 runs before entry instead (a pass that prepares the operands, such as a
                       * pack into the workspace); entry stays the kernel whose registers are reported */
    /* REG_NVRTC, optional: bytes of device scratch the kernels reach through their module's
     * `__device__ T *tilelab_workspace` (REG_WORKSPACE_SYMBOL, a pointer), which the runner allocates for the
     * case, fills with NaN (so that a kernel reading what no pass wrote fails verification) and points
     * that variable at; 0 or NULL: none. */
    uint64_t (*workspace)(const long *params, const reg_spec *s);
    /* REG_LIBRARY / REG_HOST: runs the variant (v, this one) once (asynchronously for a library call). */
    int (*run)(const struct reg_variant *v, reg_problem *p, const long *params, tl_err *e);
    int test_only; /* 1: exists for the runner's own tests (e.g. a deliberately wrong kernel) */
    /* Tests only, REG_HOST: what TILELAB_TEST_HOST_TIMING's simulated time is multiplied by at these params (a
     * landscape a search can be tested on without a GPU); NULL: 1. */
    double (*sim_scale)(const long *params);
    unsigned dtypes; /* bit d: takes the op's dtype d; 0: only the first (a declared variant takes all) */
    int arch_specific; /* REG_NVRTC: compiled for the device's arch-specific target (sm_90a: wgmma,
                        * setmaxnreg), which runs on that architecture only */
    /* A dispatching variant (kind REG_NVRTC, no source of its own): the path under kernels/ of its default
     * table (runner/ops/dispatch.h), which picks the rung and params that run each problem; else NULL. */
    const char *table;
    /* Declared in an experiment file (its source, launch and requires are the file's), else NULL. */
    const struct decl_variant *decl;
} reg_variant;

/* One argument of the kernel signature that every NVRTC variant of an op takes. */
typedef struct {
    const char *type; /* as C spells it: "const float *" */
    const char *name; /* "A" */
    char kind;        /* what the runner checks: 'p' a pointer, 'i' a 32-bit integer, 'l' a 64-bit integer,
                       * 'f' a float */
    const char *doc;  /* what it holds */
} reg_karg;

typedef struct {
    const char *name; /* "alpha" */
    double def;
    /* NVRTC kernels get <nonzero_macro> defined 1 where the case's value is not 0, =0 where it is (NULL: no
     * macro): a hint that lets a kernel build the path that value takes (sgemm: C read only where
     * beta != 0). Either build must be right for any value; the runner only makes them match. */
    const char *nonzero_macro;
} reg_arg;

/* An input of a problem that every run reads and none may write (runner/exec/inguard.h keeps it so). */
#define REG_MAX_INPUTS 16
typedef struct {
    const char *name; /* as the kernel signature names it: "A", "x" */
    void *ptr;        /* where the case's runs read it: device memory, or host memory on the host target */
    size_t bytes;
    int elem_bytes;   /* bytes of one element, to name the first changed one */
} reg_input;

typedef struct reg_op reg_op;
struct reg_op {
    const char *name;    /* "sgemm" */
    const char *summary; /* one line */
    const char *const *axes;
    int naxes;
    const char *const *operands; /* operands with a layout ("a", "b") */
    int noperands;
    const reg_arg *args;
    int nargs;
    const char *const *dtypes; /* element types; with more than one, kernels get -DTL_DTYPE_<NAME>=1 */
    int ndtypes;
    const char *const *dtype_docs;  /* per dtype, one line for `list` (NULL: none) */
    const reg_tolerance *dtype_tol; /* per dtype, the default tolerance (NULL: tol for every dtype) */
    const char *const *references; /* reference names; the first is the default */
    int nreferences;
    const char *host_reference; /* the reference that needs no GPU */
    reg_tolerance tol;          /* default tolerance */
    reg_tolerance tol_exact;    /* default tolerance for `data: int`, whose results are exact */
    const char *tol_doc;        /* what rtol and atol are relative to */
    const reg_variant *variants;
    int nvariants;
    /* The kernel signature: kernel_args passes these, in this order, to every NVRTC variant. */
    const reg_karg *kargs;
    int nkargs;
    const char *kernel_doc; /* what else a kernel of this op may rely on (macros the runner defines) */

    const char *rate;                   /* what the tables show: "GFLOP/s" (NULL) or "GB/s" */
    /* The op-level functions take the op itself first: a declared op (runner/ops/dop.h) finds its declaration
     * through it. */
    double (*flop)(const reg_op *op, const reg_spec *s);  /* floating-point operations of one run */
    double (*bytes)(const reg_op *op, const reg_spec *s); /* fewest bytes one run must move */
    /* Memory the runner allocates for a case, bytes; 0 on overflow. */
    uint64_t (*mem_bytes)(const reg_op *op, const reg_spec *s, int on_device);

    int (*problem_new)(const reg_op *op, reg_problem **out, const reg_spec *s, const reg_ctx *ctx, int on_device,
                       tl_err *e);
    void (*problem_free)(reg_problem *p);
    /* Computes the reference output for later checks. */
    int (*reference)(reg_problem *p, const char *name, tl_err *e);
    /* Puts the output back to its initial state; poison fills it with NaN instead where the
     * op's semantics let a variant ignore its initial value. */
    int (*reset_output)(reg_problem *p, int poison, tl_err *e);
    /* REG_NVRTC: the kernel argument pointers, in the order every variant of the op takes them. */
    int (*kernel_args)(reg_problem *p, void **argv, int max);
    /* The problem's inputs, at most max of them (REG_MAX_INPUTS): buffers the runs read and must leave as they
     * are. Outputs and inout buffers, which reset_output puts back before every run, are not inputs. */
    int (*inputs)(reg_problem *p, reg_input *in, int max);
    /* Fetches the output and compares every element with the reference. */
    int (*check_output)(reg_problem *p, const reg_tolerance *t, reg_verify *v, tl_err *e);
    /* Operand i (in `operands` order) as the device holds it; -1 when there is none such. NULL: the
     * op's kernels cannot ask for tensor maps. */
    int (*operand_tensor)(const reg_problem *p, int i, reg_tensor *t);
    /* Optional: what a dispatching variant's table (runner/ops/dispatch.h) asks of the op, or NULL. */
    const struct dispatch_model *dispatch;
    /* Declared in the experiment file (runner/ops/dop.h), else NULL: then its reference is a variant of the
     * experiment (references[0]), run once per problem, and every case id holds the declaration. */
    const struct dop *decl;
};

/* What tilelab ships, defined by kernels/ops.c and the embedded sources; looked up through
 * runner/ops/registry_lookup.h. */
extern const reg_op *const reg_ops[];
extern const int reg_nops;

const reg_variant *reg_find_variant(const reg_op *op, const char *name);
int reg_find_param(const reg_variant *v, const char *name);
int reg_find_axis(const reg_op *op, const char *name);

/* 1 when v takes the op's dtype d. */
int reg_variant_takes(const reg_variant *v, int d);

/* How many rules v has. */
int reg_nrules(const reg_variant *v);
/* Whether v takes params on problem s: its rules, in order, then its check. 1, or 0 with the first reason. */
int reg_check(const reg_variant *v, const long *params, const reg_spec *s, char *why, size_t n);
/* v's launch (REG_NVRTC) for params on problem s, from its launch expressions or its geometry: 0, or -1 with why
 * (an expression that overflows or divides by zero, or a grid or block out of 1 .. 2^31 - 1). */
int reg_geometry(const reg_op *op, const reg_variant *v, const long *params, const reg_spec *s, reg_launch *l,
                 char *why, size_t n);
/* Rule r's `why` for params (of v): {NAME} replaced by the param's value. */
void reg_rule_why(const reg_variant *v, const reg_rule *r, const long *params, char *why, size_t n);

/* The variant op's cases are compared with, by name: a declared op's reference variant (references[0]), else
 * op's first library variant; NULL when it has none. */
const char *reg_baseline(const reg_op *op);

const char *reg_kind_name(reg_kind k);
/* "host" for REG_HOST variants, "cuda" for the rest. */
const char *reg_target_name(reg_kind k);
extern const char *const reg_dist_names[]; /* indexed by reg_dist */
#define REG_NDISTS 3

/* Kernel sources, embedded in the binary at build time so that it is self-contained. */
typedef struct {
    const char *path; /* under kernels/, e.g. "sgemm/03_smem_tile.cu" */
    const char *text;
    size_t len;
} reg_source;

extern const reg_source reg_sources[];
extern const int reg_nsources;
/* `table: tilelab:sgemm/tuned_h200.table`: a table the runner carries, named in a YAML. */
#define TILELAB_TABLE_PREFIX "tilelab:"
/* Whether path (under kernels/) is a table of op: OP/NAME.table. */
int reg_is_table_of(const char *path, const char *op);

#endif
