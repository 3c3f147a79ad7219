/* experiment: what a validated experiment file holds (runner/config/config.h reads one): its op, sizes, variants
 * and their params, measurement, verification, limits, sources and search. The parts of the reader
 * (cfg_values.c, cfg_decl.c) fill it without the reader's own header. */
#ifndef TILELAB_EXPERIMENT_H
#define TILELAB_EXPERIMENT_H

#include <stdint.h>

#include "runner/config/source.h"
#include "runner/measure/counters.h"
#include "runner/measure/measure.h"
#include "runner/ops/registry.h"
#include "runner/search/search.h"

#define CFG_MAX_VALUES 4096 /* values one param or axis may expand to */
#define CFG_MAX_CASES 1000000
#define CFG_MAX_NAME 128          /* characters of an experiment's name */
#define CFG_MAX_DEPTH 64          /* mappings and sequences an experiment file may nest */
#define CFG_MAX_BYTES (16 << 20)  /* an experiment file's size, bytes */

typedef enum { CFG_VERIFY_OFF, CFG_VERIFY_ONCE, CFG_VERIFY_EVERY } cfg_verify;

#define CFG_TRIALS 8      /* a dispatching variant's trials without `trials:` */
#define CFG_MAX_TRIALS 16 /* `trials:` at most */

typedef struct {
    const reg_variant *v;
    measure_protocol protocol; /* the experiment's, with this variant's overrides */
    counters_list counters;         /* hardware counters collected after the timing: the experiment's, or the
                                * variant's own list when it has `counters:` (an empty list: none) */
    long *values[REG_MAX_PARAMS]; /* the values each param sweeps, registry order */
    int nvalues[REG_MAX_PARAMS];
    int line, col; /* where the variant is declared (1-based) */
    const char *origin;     /* where its kernel comes from: SOURCE_TILELAB (the registry) or SOURCE_EXPERIMENT (declared
                             * in the experiment file, with `source:`) */
    source_set src;            /* REG_NVRTC: the files its compile reads, main source first */
    struct dispatch_table *table;/* a dispatching variant (reg_variant.table): its table, else NULL */
    int trials;             /* a dispatching variant: the candidates its table ranks first that a case times
                             * on its problem before the fastest runs it (`trials:`, default CFG_TRIALS;
                             * 1: the table's pick alone), else 0 */
    source_set *run_src;       /* a dispatching variant: per variant of the op (registry order), the files its
                             * compile reads, for the rungs the table names (n 0 for the others) */
    struct cfg_owned *own;  /* declared in the experiment file: v points into it */
} cfg_variant;

typedef struct {
    int64_t dims[REG_MAX_AXES]; /* per op axis */
} cfg_size;

typedef struct {
    char *path;          /* as the user gave it */
    char *yaml;          /* the file verbatim */
    size_t yaml_len;     /* bytes */
    char sha256[65];     /* of the file's bytes */
    char *name;          /* experiment name, used in the output file name */
    char *description;
    const reg_op *op;       /* registered, or &dop->op */
    struct dop *dop;        /* the op declared in the file (`op:` a mapping), else NULL */
    uint64_t seed;
    int dtypes[REG_MAX_DTYPES];             /* the dtypes swept: indices into op->dtypes */
    int ndtypes;
    int layouts[REG_MAX_OPERANDS][2];       /* per operand: the layouts swept */
    int nlayouts[REG_MAX_OPERANDS];
    double args[REG_MAX_ARGS];              /* op scalars */
    cfg_size *sizes;
    int nsizes;
    cfg_variant *variants;
    int nvariants;
    const char *reference; /* one of op->references */
    reg_tolerance tol;         /* as the file says; without `tolerance:`, see config_tolerance */
    int tol_given;             /* the file has `tolerance:` (it then holds for every dtype) */
    measure_protocol protocol; /* experiment-wide; variants may override */
    counters_list counters;         /* experiment-wide; a variant's `counters:` replaces it */
    reg_dist dist;             /* input distribution */
    cfg_verify verify;         /* off | once (the first run) | every (every timed run) */
    double case_timeout_s;     /* a case's limit, s (0: runner/exec/watchdog.h's default from its protocol) */
    double compile_timeout_s;  /* a kernel's compile's limit in a helper process, s (0: JIT_COMPILE_TIMEOUT_S) */
    source_store store;           /* every kernel source the variants compile, as read */
    search_spec *search;         /* `search:`, or NULL: every case of the plan runs */
} tl_experiment;

extern const char *const cfg_verify_names[]; /* indexed by cfg_verify */

#endif
