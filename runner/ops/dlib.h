/* dlib: library calls as variants of a declared op (`library: cub.inclusive_sum` with `args:` mapping the call's
 * arguments to the op's buffers and to expressions of its axes), so "how does my kernel do against the
 * library?" needs no code. The mapping is checked when the file is read (each buffer's role and type) and per
 * problem by the plan (each count against its buffer), before any GPU work. */
#ifndef TILELAB_DLIB_H
#define TILELAB_DLIB_H

#include "runner/ops/decl.h"
#include "runner/ops/dop.h"

#define DLIB_MAX_ARGS 8

typedef enum {
    DLIB_IN,   /* a buffer the call reads */
    DLIB_OUT,  /* a buffer it writes (the op's out or inout) */
    DLIB_VALUE /* an integer: an expression of the axes (a count, a size, a bound) */
} dlib_role;

typedef struct {
    const char *name;
    dlib_role role;
    const char *doc;
} dlib_arg;

struct dlib_call;

typedef struct dlib_fn {
    const char *name; /* "cub.inclusive_sum" */
    const char *doc;
    dlib_arg args[DLIB_MAX_ARGS];
    int nargs;
    unsigned types;   /* bit t: its buffers may be of dop_type t */
    int same_type;    /* 1: every buffer of one type; 0: the outputs' type is fixed by the call (out_type) */
    int out_type;     /* same_type 0: the type its outputs must have */
    /* Per problem: 1 when the values (in args order, buffers' slots unused) fit the buffers' counts, else 0 with
     * why. */
    int (*fits)(const struct dlib_call *c, const int64_t *values, const int64_t *counts, char *why, size_t n);
    int (*run)(const struct dlib_call *c, const int64_t *values, reg_problem *p, tl_err *e);
} dlib_fn;

typedef struct dlib_call {
    const dlib_fn *fn;
    const dop *d;
    int buffer[DLIB_MAX_ARGS];      /* buffer args: the op's buffer */
    decl_expr value[DLIB_MAX_ARGS]; /* value args: its expression */
} dlib_call;

extern const dlib_fn dlib_fns[];
extern const int dlib_nfns;
const dlib_fn *dlib_find(const char *name);

/* The call's values for problem s into values (args order): -1 with e on an expression's error. Then whether they
 * fit the buffers: 1, or 0 with why (a count past its buffer). */
int dlib_values(const dlib_call *c, const reg_spec *s, int64_t *values, tl_err *e);
int dlib_check(const dlib_call *c, const reg_spec *s, char *why, size_t n, tl_err *e);
/* reg_variant.run of a library variant of a declared op (v->decl->lib). */
int dlib_run(const reg_variant *v, reg_problem *p, const long *params, tl_err *e);
void dlib_call_free(dlib_call *c);

#endif
