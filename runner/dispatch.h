/* dispatch: the table of a dispatching variant (e.g. sgemm `tuned`): per measured problem, the rung
 * and params that were fastest there. A table is text, written by tools/dispatch_table.py from a
 * result file of a tuning experiment, one line a problem:
 *
 *   op sgemm
 *   device NVIDIA H100 80GB HBM3
 *   measured 2026-11-23T14:02:11Z results/tune.h5 (experiment sgemm_dispatch_tune)
 *   # sizes                 layouts      dtype  variant  params                          measured
 *   m=4096,n=4096,k=4096    a=row,b=row  f32    hopper   BM=128,BN=256,BK=16,...         0.917 x cublas
 *
 * (params `-` when none; what follows the params is a comment). A problem that is not in the table
 * gets the row of the same dtype and layouts nearest to it (distance: the sum over the axes of
 * |ln(size / row's size)|, plus 3 per axis whose size is a multiple of 4 in one and not the other),
 * the first such row whose rung takes the problem; rows of other layouts only when none does. */
#ifndef TILELAB_DISPATCH_H
#define TILELAB_DISPATCH_H

#include "runner/registry.h"

typedef struct {
    int64_t dims[REG_MAX_AXES];
    int layouts[REG_MAX_OPERANDS];
    int dtype;
    const reg_variant *v;
    long params[REG_MAX_PARAMS]; /* registry order; the defaults where the row names none */
    char *text;                  /* "hopper BM=128,..." as the row says it */
    int line;
} dsp_row;

typedef struct dsp_table {
    char *name;     /* how messages name the table: "kernels/sgemm/tuned_h100.table" */
    char *device;   /* what the header says ("" when it says nothing) */
    char *measured;
    dsp_row *rows;
    int n;
} dsp_table;

/* Parses text (named name in errors: "NAME:LINE: ..."); rows name variants of op that compile
 * with NVRTC and are not dispatching themselves. -1 with e. */
int dsp_parse(const reg_op *op, const char *name, const char *text, size_t len, dsp_table *t, tl_err *e);
void dsp_free(dsp_table *t);

/* The row for spec: its index, or -1 with why (no row of the dtype, no rung that takes it). */
int dsp_pick(const dsp_table *t, const reg_op *op, const reg_spec *s, char *why, size_t whylen);

#endif
