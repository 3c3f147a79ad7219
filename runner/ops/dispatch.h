/* dispatch: the table of a dispatching variant (e.g. sgemm `tuned`): per measured problem, the rungs
 * and params that were measured there and how they did. A table is text, written by
 * analysis/dispatch_table.py from a result file of a tuning experiment, one line a candidate:
 *
 *   op sgemm
 *   device NVIDIA H100 80GB HBM3
 *   sms 132
 *   measured 2026-11-23T14:02:11Z results/tune.h5 (experiment sgemm_dispatch_tune)
 *   # sizes                 layouts      dtype  variant  params                  rel        measured
 *   m=4096,n=4096,k=4096    a=row,b=row  f32    hopper   BM=128,BN=256,BK=16,... rel=1.000  # 0.917 x cublas
 *   m=4096,n=4096,k=4096    a=row,b=row  f32    warptile -                       rel=1.043
 *
 * (params `-` when none; rel=R, optional: the candidate's time over the fastest of its problem, 1
 * when absent; `sms`: the device's SM count, optional; what follows is a comment). A problem gets the candidate that did best near it: among the measured problems of
 * its dtype and layouts, the nearest (distance: the sum over the axes of |ln(size / problem's size)|,
 * plus 3 per axis whose size is a multiple of 4 in one and not the other) and those at most DISPATCH_NEAR
 * farther, each weighted by exp(-(its distance - the nearest's) / DISPATCH_SCALE); each candidate whose
 * rung takes the problem scores the weighted mean of its rel there, each scaled by the op's
 * overhead (dispatch_model) on the problem over that on the measured one (blocks over the SMs, padded tiles), and
 * DISPATCH_REL_ABSENT where a problem has no row of it (a problem its rung refuses, e.g. skinny's small side
 * over its SMAX, is left out of its mean: that says nothing of its speed; so is one without a row of it
 * where its overhead is over DISPATCH_ABSENT_WASTE times its overhead on the problem: the shape, not the
 * candidate, kept it out of the rows there); the lowest score wins, ties to the candidate with
 * the nearer row, then the earlier. A problem the table measured (distance 0) counts alone. Rows of
 * other layouts only when no candidate of the problem's layouts takes it. Then, for a problem the table
 * did not measure, the op's switches (dispatch_model.switches, sgemm's SK, ODD and AIN): where the table has
 * the winner's twin with that param on instead of off (or off instead of on) and all else equal, the op
 * says which of the two runs the problem. */
#ifndef TILELAB_DISPATCH_H
#define TILELAB_DISPATCH_H

#include "runner/ops/registry.h"

/* What an op gives its dispatch tables (reg_op.dispatch): a model of how a candidate's time carries from one
 * problem to another, and what the table's rows cannot tell. */
#define DISPATCH_SWITCHES 3
typedef struct dispatch_model {
    /* How much longer than its work alone compiled variant v with params takes on spec, on a device of sms
     * SMs (0: unknown): the SMs idle while the last blocks run, the tiles past the matrix; >= 1. NULL: a
     * time measured on one problem carries over to another as it is. */
    double (*overhead)(const reg_op *op, const reg_variant *v, const long *params, const reg_spec *s, int sms);
    /* Params that the pick switches on or off (nonzero or 0), one after the other, where the table has the
     * picked rung with both, all else equal, as `on` says for the problem (given the params with it on): 1 to
     * run it on, 0 off, -1 as picked. For a param that helps some problems and costs others by what it does
     * to a launch or a loop, not by what the nearest measured problems can tell (sgemm's SK: whether it cuts
     * the last wave of a problem of under two waves; hopper's ODD: whether K leaves a partial k tile, which
     * sends every block of ODD 0 through its checked loop; tf32x3's AIN: whether A lies 16-byte aligned, else
     * AIN copies it all the same). */
    struct {
        const char *param;
        int (*on)(const reg_variant *v, const long *params, const reg_spec *s);
    } switches[DISPATCH_SWITCHES];
    /* For a dispatching variant's trials: a twin of candidate v with params worth timing beside it on spec, a
     * param the table did not measure and the problem's shape can make pay (sgemm's EDGE): 1 with twin
     * (REG_MAX_PARAMS, registry order) filled, else 0. NULL: none. */
    int (*trial_twin)(const reg_variant *v, const long *params, const reg_spec *s, long *twin);
} dispatch_model;

typedef struct {
    int64_t dims[REG_MAX_AXES];
    int layouts[REG_MAX_OPERANDS];
    int dtype;
    const reg_variant *v;
    long params[REG_MAX_PARAMS]; /* registry order; the defaults where the row names none */
    char *text;                  /* "hopper BM=128,..." as the row says it */
    double rel;                  /* time over the fastest of the problem's candidates (>= 1) */
    int prob, cand;              /* the table's first row of the same problem, of the same candidate */
    int line;
} dispatch_row;

typedef struct dispatch_table {
    char *name;     /* how messages name the table: "kernels/sgemm/tuned_h100.table" */
    char *device;   /* what the header says ("" when it says nothing) */
    char *measured;
    int sms;        /* the device's SMs, 0 when the table does not say */
    dispatch_row *rows;
    int n;
} dispatch_table;

/* Parses text (named name in errors: "NAME:LINE: ..."); rows name variants of op that compile
 * with NVRTC and are not dispatching themselves. -1 with e. */
int dispatch_parse(const reg_op *op, const char *name, const char *text, size_t len, dispatch_table *t, tl_err *e);
void dispatch_free(dispatch_table *t);
/* The `device` line of a table's header (text, len) into out (n bytes, cut to fit): 1, or 0 when its
 * header has none. Reads the header alone: a runner's note on the tables it carries costs no parse. */
int dispatch_header_device(const char *text, size_t len, char *out, size_t n);

#define DISPATCH_NEAR 2.0       /* how much farther than the nearest a measured problem still counts */
#define DISPATCH_SCALE 0.5      /* the distance over which its weight falls by e */
#define DISPATCH_REL_ABSENT 2.0 /* a candidate's rel at a problem that has no row of it */
#define DISPATCH_WINNERS_PER 2  /* with trials k >= 4, k / 2 of them: the nearest problems' own fastest */
/* A problem where a candidate has no row and the op's overhead model puts it at more than this many
 * times its overhead on the problem asked about is left out of its mean (tuned_h100.table, each problem
 * left out and predicted from the others: 1.047 -> 1.042 x the fastest, the 128 held-out problems
 * 1.052 -> 1.050; 1.5 of 1.25, 1.5, 2 and 3 the best). */
#define DISPATCH_ABSENT_WASTE 1.5

/* The row for spec (the picked candidate's row at the nearest problem that has one): its index, or -1
 * with why (no row of the dtype, no rung that takes it). */
int dispatch_pick(const dispatch_table *t, const reg_op *op, const reg_spec *s, char *why, size_t whylen);

/* The k best candidates for spec, best first, as their rows (as dispatch_pick's, which is rows[0]; each after
 * the op's switches, no candidate twice) into rows (room for k): their count, 1 .. k, or -1 with why. A
 * dispatching variant with `trials: K` times them on the problem and runs the fastest. */
int dispatch_rank(const dispatch_table *t, const reg_op *op, const reg_spec *s, int k, int *rows, char *why, size_t whylen);

/* The name a table's text gives its op in its `op NAME` line, into name (nname bytes), for a reader that is not told
 * the op (runner table-check): 0, or -1 when the text has no such line. */
int dispatch_table_op_name(const char *text, size_t len, char *name, size_t nname);

/* Row r's problem as the table writes it: "m=4096,n=4096,k=4096" and "a=row,b=col". */
void dispatch_problem_text(const reg_op *op, const dispatch_row *r, char *sizes, size_t nsizes, char *layouts, size_t nlayouts);

#define DISPATCH_REL_KEPT 1.5 /* analysis/dispatch_table.py's REL_KEEP: slower candidates have no row */

/* How well the table predicts itself: for each measured problem, the pick from its other problems
 * (of the same dtype and layouts), as if it had not been measured, and the pick's rel there. */
typedef struct {
    int prob;   /* the problem's first row */
    int pick;   /* the row picked without it, -1 when none takes it */
    int tried;  /* the candidates ranked (dispatch_rank: 1 .. trials), 0 when none takes it */
    double rel; /* the lowest rel at the problem of the tried candidates (with trials 1, the pick's); 0 when
                 * the problem has no row of any (slower than the table kept, or not measured) */
} dispatch_check;

/* One dispatch_check per measured problem, in table order, into *out (free() it); their count. trials: the
 * candidates a problem tries (dispatch_rank's k; 1: the pick alone). */
int dispatch_leave_one_out(const dispatch_table *t, const reg_op *op, int trials, dispatch_check **out);

/* How well t predicts the problems of another table, held, measured on shapes t has not seen (its
 * candidates run on each, e.g. by the tuning experiment with other sizes): for each problem of held,
 * t's pick (dispatch_pick: t's rows, as a dispatching case gets them) and that candidate's rel in held. In
 * each dispatch_check, prob is a row of held and pick a row of t; the count into *out (free() it). */
int dispatch_against(const dispatch_table *t, const reg_op *op, const dispatch_table *held, int trials, dispatch_check **out);

#endif
