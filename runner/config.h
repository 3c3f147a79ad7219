/* config: a YAML experiment file -> a validated experiment. Every error names file:line:column,
 * the field, and what was expected; unknown keys are errors. */
#ifndef TILELAB_CONFIG_H
#define TILELAB_CONFIG_H

#include <stdint.h>

#include "runner/measure.h"
#include "runner/registry.h"

#define CFG_MAX_VALUES 4096 /* values one param or axis may expand to */
#define CFG_MAX_CASES 1000000

typedef enum { CFG_VERIFY_OFF, CFG_VERIFY_ONCE, CFG_VERIFY_EVERY } cfg_verify;

typedef struct {
    const reg_variant *v;
    measure_protocol protocol; /* the experiment's, with this variant's overrides */
    long *values[REG_MAX_PARAMS]; /* the values each param sweeps, registry order */
    int nvalues[REG_MAX_PARAMS];
    int line; /* where the variant is declared (1-based) */
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
    const reg_op *op;
    uint64_t seed;
    const char *dtype;                      /* one of op->dtypes */
    int layouts[REG_MAX_OPERANDS][2];       /* per operand: the layouts swept */
    int nlayouts[REG_MAX_OPERANDS];
    double args[REG_MAX_ARGS];              /* op scalars */
    cfg_size *sizes;
    int nsizes;
    cfg_variant *variants;
    int nvariants;
    const char *reference; /* one of op->references */
    reg_tolerance tol;
    measure_protocol protocol; /* experiment-wide; variants may override */
    reg_dist dist;             /* input distribution */
    cfg_verify verify;         /* off | once (the first run) | every (every timed run) */
} tl_experiment;

extern const char *const cfg_verify_names[]; /* indexed by cfg_verify */

/* Loads and validates path. Returns 0, or -1 with e naming file:line:col (and x zeroed: config_free
 * of it is harmless). */
int config_load(const char *path, tl_experiment *x, tl_err *e);
/* Same, from text in memory (path is only used in messages). */
int config_parse(const char *path, const char *text, size_t len, tl_experiment *x, tl_err *e);
void config_free(tl_experiment *x);

#endif
