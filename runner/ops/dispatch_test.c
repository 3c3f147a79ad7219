/* dispatch: tables parse with errors at TABLE:LINE; a problem gets the nearest row of its dtype and layouts whose
 * rung takes it; the consensus of trials, the rank of candidates, the waves and the pack the model predicts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/ops/dispatch.h"
#include "runner/ops/registry_lookup.h"
#include "runner/testing/testutil.h"

static const reg_op *sgemm(void)
{
    return reg_find_op("sgemm");
}

static int check_parse_errors(void)
{
    static const struct {
        const char *text, *want;
    } bad[] = {
        {"m=64,n=64,k=64 a=row,b=row f32 hopper -\n", "t.table: the table does not say its op (a line `op sgemm`)"},
        {"op copy\n", "t.table:1: a table of op 'copy', not of sgemm"},
        {"op sgemm\n", "t.table: the table has no rows"},
        {"op sgemm\n# c\n\nm=64,n=64 a=row,b=row f32 hopper -\n", "t.table:4: sizes: an axis of the op is missing"},
        {"op sgemm\nm=64,n=64,k=64,q=3 a=row,b=row f32 hopper -\n", "t.table:2: sizes: an axis the op does not have"},
        {"op sgemm\nm=0,n=64,k=64 a=row,b=row f32 hopper -\n", "t.table:2: sizes: a size is 1 .. 2^40"},
        {"op sgemm\nm=64,n=64,k=64 a=row,b=diag f32 hopper -\n", "t.table:2: layouts: a layout is row or col"},
        {"op sgemm\nm=64,n=64,k=64 a=row f32 hopper -\n", "t.table:2: layouts: an operand's layout is missing"},
        {"op sgemm\nm=64,n=64,k=64 a=row,b=row f64 hopper -\n", "t.table:2: dtype 'f64' is not one of the op's"},
        {"op sgemm\nm=64,n=64,k=64 a=row,b=row f32 cublas -\n", "t.table:2: 'cublas' is not a compiled variant of op sgemm"},
        {"op sgemm\nm=64,n=64,k=64 a=row,b=row f32 tuned -\n", "t.table:2: 'tuned' is not a compiled variant"},
        {"op sgemm\nm=64,n=64,k=64 a=row,b=row f32 mma_sync -\n", "t.table:2: variant mma_sync does not take dtype f32"},
        {"op sgemm\nm=64,n=64,k=64 a=row,b=row f32 hopper BX=3\n", "t.table:2: params: BX is not a param of hopper"},
        {"op sgemm\nm=64,n=64,k=64 a=row,b=row f32 hopper BM=x\n", "t.table:2: params: a param value is an integer"},
        {"op sgemm\nm=64,n=64,k=64 a=row,b=row f32 smem_tile BLOCKSIZE=33\n",
         "t.table:2: the row's rung does not take its own problem: BLOCKSIZE"},
        {"op sgemm\nm=64,n=64,k=64 a=row,b=row f32\n", "t.table:2: a row is: sizes layouts dtype variant params"},
        {"op sgemm\nm=64,n=64,k=64 a=row,b=row f32 hopper - rel=0.9\n",
         "t.table:2: rel: '0.9' is not a number from 1 to 1e6"},
        {"op sgemm\nm=64,n=64,k=64 a=row,b=row f32 hopper - rel=fast\n", "t.table:2: rel: 'fast' is not a number"},
        {"op sgemm\nsms many\n", "t.table:2: sms: 'many' is not a count of SMs"},
        {"op sgemm\nm=64,n=64,k=64 a=row,b=row f32 hopper BM=128 rel=1\n"
         "m=64,n=64,k=64 a=row,b=col f32 hopper BM=128 rel=1\n"
         "m=64,n=64,k=64 a=row,b=row f32 warptile - rel=1.2\n"
         "m=64,n=64,k=64 a=row,b=row f32 hopper BN=256,BM=128 rel=1.1\n",
         "t.table:5: the same rung and params for the same problem as line 2"},
    };
    int n = 0;
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++, n++) {
        dispatch_table t;
        tl_err e;
        int rc = dispatch_parse(sgemm(), "t.table", bad[i].text, strlen(bad[i].text), &t, &e);
        CHECK(rc == -1 && strstr(e.msg, bad[i].want), "table %zu: got '%s', want '%s'", i, rc ? e.msg : "(parsed)",
              bad[i].want);
        if (rc == 0) dispatch_free(&t);
    }
    return n;
}

static const char *TABLE =
    "op sgemm\n"
    "device Test GPU\n"
    "measured today\n"
    "m=4096,n=4096,k=4096 a=row,b=row f32 hopper BM=128,BN=128,WN=32,WNITER=2,STAGES=3  # 0.9 x cublas\n"
    "m=1024,n=1024,k=1024 a=row,b=row f32 smem_tile BLOCKSIZE=16\n"
    "m=1000,n=1000,k=777 a=row,b=row f32 double_buffer -\n"
    "m=64,n=64,k=64 a=row,b=row f32 smem_tile BLOCKSIZE=1\n"
    "m=4096,n=4096,k=4096 a=col,b=row f32 warptile -\n"
    "m=4096,n=4096,k=4096 a=row,b=row tf32 mma_sync -\n";

static int pick(const dispatch_table *t, long m, long n, long k, int acol, int bcol, int dtype, char *why)
{
    reg_spec s = {.dims = {m, n, k}, .layouts = {acol, bcol}, .dtype = dtype};
    return dispatch_pick(t, sgemm(), &s, why, 256);
}

/* Parses a table that must parse; 0 when it did (else the failure is counted). */
static int parse_ok(const char *text, dispatch_table *t)
{
    tl_err e;
    if (dispatch_parse(sgemm(), "t.table", text, strlen(text), t, &e) == 0) return 0;
    CHECK(0, "parse: %s", e.msg);
    return -1;
}

static int check_pick(void)
{
    dispatch_table t;
    char why[256];
    if (parse_ok(TABLE, &t)) return 1;
    CHECK(t.n == 6 && !strcmp(t.device, "Test GPU") && !strcmp(t.measured, "today"), "header: %d rows, '%s', '%s'",
          t.n, t.device, t.measured);
    const dispatch_row *h = &t.rows[0];
    CHECK(h->params[reg_find_param(h->v, "BN")] == 128 && h->params[reg_find_param(h->v, "BK")] == 16 &&
              h->params[reg_find_param(h->v, "STAGES")] == 3 && h->line == 4 && strstr(h->text, "hopper BM=128"),
          "row 0: BN %ld BK %ld line %d '%s'", h->params[1], h->params[2], h->line, h->text);
    /* The nearest row of the problem's dtype and layouts. */
    CHECK(pick(&t, 3000, 3000, 3000, 0, 0, 0, why) == 0, "3000^3 row/row: %s", why);
    CHECK(pick(&t, 8192, 8192, 8192, 0, 0, 0, why) == 0, "8192^3");
    CHECK(pick(&t, 1100, 1100, 1100, 0, 0, 0, why) == 1, "1100^3");
    /* k not a multiple of 4 prefers the row measured on such a k, though 1024^3 is as near by size. */
    CHECK(pick(&t, 1000, 1000, 775, 0, 0, 0, why) == 2, "1000 x 1000 x 775");
    CHECK(pick(&t, 1000, 1000, 776, 0, 0, 0, why) == 1, "1000 x 1000 x 776");
    /* The nearest row's rung does not take it (m / 1 > 65535 blocks): the next one does. */
    CHECK(pick(&t, 70000, 64, 64, 0, 0, 0, why) == 1, "70000 x 64 x 64: %d", pick(&t, 70000, 64, 64, 0, 0, 0, why));
    CHECK(pick(&t, 64, 64, 64, 0, 0, 0, why) == 3, "64^3");
    /* Other layouts: their row; none measured: the nearest of any layouts. */
    CHECK(pick(&t, 4000, 4000, 4000, 1, 0, 0, why) == 4, "col/row");
    int r = pick(&t, 4096, 4096, 4096, 1, 1, 0, why);
    CHECK(r == 0 || r == 4, "col/col: row %d", r);
    CHECK(pick(&t, 4096, 4096, 4096, 0, 0, 1, why) == 5, "tf32");
    CHECK(pick(&t, 4096, 4096, 4096, 0, 0, 2, why) == -1 && strstr(why, "the table t.table has no row of dtype bf16"),
          "bf16: %s", why);
    dispatch_free(&t);
    return 12;
}

/* Several candidates a problem, with rel: the pick is the one that did best over the near problems,
 * not the winner of the nearest alone. */
static const char *CONSENSUS =
    "op sgemm\n"
    "m=1024,n=1024,k=4096 a=row,b=row f32 hopper SPLITK=4 rel=1  # winner on a small C\n"
    "m=1024,n=1024,k=4096 a=row,b=row f32 warptile - rel=1.06\n"
    "m=1024,n=1024,k=4096 a=row,b=row f32 cute_pipeline - rel=1.5\n"
    "m=8192,n=8192,k=4096 a=row,b=row f32 cute_pipeline - rel=1  # winner on a large C\n"
    "m=8192,n=8192,k=4096 a=row,b=row f32 warptile - rel=1.04\n"
    "m=8192,n=8192,k=4096 a=row,b=row f32 hopper SPLITK=4 rel=1.9\n"
    "m=40000,n=40000,k=64 a=row,b=row f32 naive - rel=1\n";

static int check_consensus(void)
{
    dispatch_table t;
    char why[256];
    if (parse_ok(CONSENSUS, &t)) return 1;
    CHECK(t.rows[1].rel == 1.06 && t.rows[0].rel == 1 && t.rows[1].prob == 0 && t.rows[4].prob == 3 &&
              t.rows[4].cand == 1 && t.rows[5].cand == 0,
          "rel and grouping: %g, prob %d cand %d", t.rows[1].rel, t.rows[4].prob, t.rows[4].cand);
    /* Half way (in log size) between the two: warptile, within 6% of both winners, though neither's. */
    CHECK(pick(&t, 2896, 2896, 4096, 0, 0, 0, why) == 1, "half way: row %d (warptile's row at the nearer problem)",
          pick(&t, 2896, 2896, 4096, 0, 0, 0, why));
    CHECK(pick(&t, 2900, 2900, 4096, 0, 0, 0, why) == 4, "half way, a little nearer the large C: row %d",
          pick(&t, 2900, 2900, 4096, 0, 0, 0, why));

    /* Near one of them, the other farther than DISPATCH_NEAR: that one's winner. */
    CHECK(pick(&t, 1100, 1100, 4096, 0, 0, 0, why) == 0, "near the small C: %d", pick(&t, 1100, 1100, 4096, 0, 0, 0, why));
    CHECK(pick(&t, 7000, 7000, 4096, 0, 0, 0, why) == 3, "near the large C: %d", pick(&t, 7000, 7000, 4096, 0, 0, 0, why));
    /* Near naive's problem alone: naive, the only candidate measured there; the others score
     * DISPATCH_REL_ABSENT. */
    CHECK(pick(&t, 30000, 30000, 64, 0, 0, 0, why) == 6, "near naive's problem: %d", pick(&t, 30000, 30000, 64, 0, 0, 0, why));
    dispatch_free(&t);
    /* A measured problem is decided by its own rows, however its neighbours voted. */
    static const char *EXACT = "op sgemm\n"
                               "m=1024,n=1024,k=4096 a=row,b=row f32 cute_pipeline - rel=1\n"
                               "m=1024,n=1024,k=4096 a=row,b=row f32 warptile - rel=1.04\n"
                               "m=1200,n=1200,k=4096 a=row,b=row f32 warptile - rel=1\n"
                               "m=1200,n=1200,k=4096 a=row,b=row f32 cute_pipeline - rel=1.3\n";
    if (parse_ok(EXACT, &t)) return 1;
    CHECK(pick(&t, 1024, 1024, 4096, 0, 0, 0, why) == 0, "measured: %d", pick(&t, 1024, 1024, 4096, 0, 0, 0, why));
    /* Each problem predicted from the other: 1024^2 gets warptile (the fastest at 1200^2; 1.04 at
     * 1024^2), 1200^2 gets cute_pipeline (1.3 there). */
    dispatch_check *lo = NULL;
    int nlo = dispatch_leave_one_out(&t, sgemm(), 1, &lo);
    CHECK(nlo == 2 && lo[0].prob == 0 && lo[0].pick == 2 && lo[0].rel == 1.04 && lo[1].prob == 2 && lo[1].pick == 0 &&
              lo[1].rel == 1.3,
          "leave one out: %d problems, pick %d rel %g, pick %d rel %g", nlo, lo[0].pick, lo[0].rel, lo[1].pick, lo[1].rel);
    free(lo);
    /* Trying two candidates each: both problems get their fastest (rel 1), the pick unchanged. */
    nlo = dispatch_leave_one_out(&t, sgemm(), 2, &lo);
    CHECK(nlo == 2 && lo[0].pick == 2 && lo[0].tried == 2 && lo[0].rel == 1 && lo[1].pick == 0 && lo[1].tried == 2 &&
              lo[1].rel == 1,
          "leave one out, two tried: pick %d (%d tried) rel %g, pick %d (%d tried) rel %g", lo[0].pick, lo[0].tried,
          lo[0].rel, lo[1].pick, lo[1].tried, lo[1].rel);
    free(lo);
    CHECK(pick(&t, 1020, 1020, 4096, 0, 0, 0, why) == 1, "beside it, the neighbours' vote: %d",
          pick(&t, 1020, 1020, 4096, 0, 0, 0, why));
    dispatch_free(&t);
    return 9;
}

/* With trials (k >= 4), half the places go to the nearest measured problems' own fastest: naive, far
 * the fastest at the nearest problem and too slow for a row at the two others as near, ranks last by the
 * neighbours' vote but is tried; the first pick, and fewer than 4 trials, stay the vote's. */
static const char *WINNERS =
    "op sgemm\n"
    "m=4096,n=4096,k=4096 a=row,b=row f32 naive - rel=1\n"
    "m=4096,n=4096,k=4096 a=row,b=row f32 hopper - rel=1.3\n"
    "m=4096,n=4096,k=4096 a=row,b=row f32 warptile - rel=1.31\n"
    "m=4096,n=4096,k=4096 a=row,b=row f32 cute_pipeline - rel=1.32\n"
    "m=4096,n=4096,k=4096 a=row,b=row f32 packed - rel=1.33\n"
    "m=3840,n=3840,k=4096 a=row,b=row f32 hopper - rel=1\n"
    "m=3840,n=3840,k=4096 a=row,b=row f32 warptile - rel=1.01\n"
    "m=3840,n=3840,k=4096 a=row,b=row f32 cute_pipeline - rel=1.02\n"
    "m=3840,n=3840,k=4096 a=row,b=row f32 packed - rel=1.03\n"
    "m=4160,n=4160,k=4096 a=row,b=row f32 hopper - rel=1\n"
    "m=4160,n=4160,k=4096 a=row,b=row f32 warptile - rel=1.01\n"
    "m=4160,n=4160,k=4096 a=row,b=row f32 cute_pipeline - rel=1.02\n"
    "m=4160,n=4160,k=4096 a=row,b=row f32 packed - rel=1.03\n";

static int check_winners(void)
{
    dispatch_table t;
    char why[256];
    if (parse_ok(WINNERS, &t)) return 1;
    reg_spec s = {.dims = {4000, 4000, 4096}, .layouts = {0, 0}, .dtype = 0};
    int rows[8], got[9] = {0};
    const char *names[9] = {0};
    for (int k = 1; k <= 8; k++) {
        int n = dispatch_rank(&t, sgemm(), &s, k, rows, why, sizeof why);
        got[k] = 0;
        for (int i = 0; i < n; i++) got[k] |= !strcmp(t.rows[rows[i]].v->name, "naive");
        names[k] = n > 0 ? t.rows[rows[0]].v->name : "(none)";
        if (k == 4) CHECK(n == 4 && rows[2] == 0, "k 4: %d ranked, the third row %d (naive's: 0)", n, n > 2 ? rows[2] : -1);
    }
    CHECK(!strcmp(names[1], "hopper") && !got[1] && !got[2] && !got[3], "the vote: %s first; naive tried at 1 - 3: %d %d %d",
          names[1], got[1], got[2], got[3]);
    CHECK(got[4] && got[8] && !strcmp(names[4], "hopper"), "naive tried at 4 and 8: %d %d; first %s", got[4], got[8],
          names[4]);
    dispatch_free(&t);
    return 3;
}

/* A table's picks on another table's problems (runner table-check --against): each held-out problem gets
 * what the table picks for it, and that candidate's rel in the held-out table; 0 where the held-out
 * table has no row of it. */
static int check_against(void)
{
    static const char *TABLE = "op sgemm\n"
                               "m=1024,n=1024,k=4096 a=row,b=row f32 cute_pipeline - rel=1\n"
                               "m=1024,n=1024,k=4096 a=row,b=row f32 warptile - rel=1.04\n"
                               "m=1200,n=1200,k=4096 a=row,b=row f32 warptile - rel=1\n"
                               "m=1200,n=1200,k=4096 a=row,b=row f32 cute_pipeline - rel=1.3\n";
    static const char *HELD = "op sgemm\n"
                              "m=1100,n=1100,k=4096 a=row,b=row f32 cute_pipeline - rel=1\n"
                              "m=1100,n=1100,k=4096 a=row,b=row f32 warptile - rel=1.07\n"
                              "m=1024,n=1024,k=4096 a=row,b=row f32 warptile - rel=1\n";
    dispatch_table t, h;
    if (parse_ok(TABLE, &t)) return 1;
    if (parse_ok(HELD, &h)) {
        dispatch_free(&t);
        return 1;
    }
    dispatch_check *c = NULL;
    int n = dispatch_against(&t, sgemm(), &h, 1, &c);
    /* 1100^2: warptile (within 4% at both neighbours, where cute_pipeline lost 30% at one), 1.07 there
     * though cute_pipeline was the fastest; 1024^2, measured by the table: its fastest, cute_pipeline,
     * which the held-out table has no row of. */
    CHECK(n == 2 && c[0].prob == 0 && c[0].pick >= 0 && !strcmp(t.rows[c[0].pick].v->name, "warptile") &&
              c[0].rel == 1.07 && c[1].prob == 2 && c[1].pick == 0 && c[1].rel == 0,
          "against: %d problems; pick %d (%s) rel %g; pick %d rel %g", n, c[0].pick,
          c[0].pick >= 0 ? t.rows[c[0].pick].v->name : "-", c[0].rel, n > 1 ? c[1].pick : -9, n > 1 ? c[1].rel : -9.0);
    free(c);
    /* Two tried (trials: 2): 1100^2 finds cute_pipeline, its fastest, though the pick is still warptile;
     * three asked for, two candidates there are. */
    n = dispatch_against(&t, sgemm(), &h, 3, &c);
    CHECK(n == 2 && c[0].tried == 2 && !strcmp(t.rows[c[0].pick].v->name, "warptile") && c[0].rel == 1,
          "against, trials 3: %d problems; %d tried, rel %g", n, n ? c[0].tried : -1, n ? c[0].rel : -1.0);
    free(c);
    dispatch_free(&t), dispatch_free(&h);
    return 2;
}

/* dispatch_rank: the candidates by score, best first, the first dispatch_pick's; k caps them, no candidate twice. */
static int check_rank(void)
{
    static const char *TABLE = "op sgemm\n"
                               "m=1024,n=1024,k=4096 a=row,b=row f32 cute_pipeline - rel=1\n"
                               "m=1024,n=1024,k=4096 a=row,b=row f32 warptile - rel=1.04\n"
                               "m=1024,n=1024,k=4096 a=row,b=row f32 hopper - rel=1.2\n"
                               "m=1200,n=1200,k=4096 a=row,b=row f32 warptile - rel=1\n"
                               "m=1200,n=1200,k=4096 a=row,b=row f32 cute_pipeline - rel=1.3\n"
                               "m=1200,n=1200,k=4096 a=row,b=row f32 hopper - rel=1.1\n";
    dispatch_table t;
    if (parse_ok(TABLE, &t)) return 1;
    reg_spec s = {.dims = {1100, 1100, 4096}, .layouts = {REG_ROW, REG_ROW}};
    int rows[8] = {0}, n;
    char why[256];
    /* At 1100^2, between the two: warptile (1.04 and 1), then the two that lost 10 - 30% at one of them. */
    n = dispatch_rank(&t, sgemm(), &s, 8, rows, why, sizeof why);
    CHECK(n == 3 && rows[0] == dispatch_pick(&t, sgemm(), &s, why, sizeof why) && !strcmp(t.rows[rows[0]].v->name, "warptile"),
          "rank: %d, first %s", n, n > 0 ? t.rows[rows[0]].v->name : "-");
    int seen = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++) seen += t.rows[rows[i]].cand == t.rows[rows[j]].cand;
    CHECK(seen == 0, "rank: a candidate twice");
    CHECK(dispatch_rank(&t, sgemm(), &s, 2, rows, why, sizeof why) == 2 && !strcmp(t.rows[rows[0]].v->name, "warptile"),
          "rank capped at 2");
    s.dtype = 2; /* bf16: no row of it */
    CHECK(dispatch_rank(&t, sgemm(), &s, 4, rows, why, sizeof why) == -1 && strstr(why, "no row of dtype"),
          "rank without rows: %s", why);
    dispatch_free(&t);
    return 4;
}

/* A near problem a candidate's rung refuses (skinny's small side over its SMAX) is left out of that
 * candidate's mean, where one it ran too slowly for a row of counts DISPATCH_REL_ABSENT: at m = 24, SMAX 24
 * (the fastest at m = 20, refused at m = 32) beats SMAX 32 (1.1 and 1). */
static const char *REFUSED = "op sgemm\n"
                             "m=20,n=16384,k=2048 a=row,b=row f32 skinny SIDE=0,SMAX=24,SPT=6 rel=1\n"
                             "m=20,n=16384,k=2048 a=row,b=row f32 skinny SIDE=0,SMAX=32,SPT=8 rel=1.1\n"
                             "m=32,n=16384,k=2048 a=row,b=row f32 skinny SIDE=0,SMAX=32,SPT=8 rel=1\n"
                             "m=4,n=16384,k=2048 a=row,b=row f32 skinny SIDE=0,SMAX=32,SPT=8 rel=1\n";

static int check_refused(void)
{
    dispatch_table t;
    char why[256];
    if (parse_ok(REFUSED, &t)) return 1;
    CHECK(pick(&t, 24, 16384, 2048, 0, 0, 0, why) == 0, "m = 24: row %d", pick(&t, 24, 16384, 2048, 0, 0, 0, why));
    /* Near m = 20 and m = 4, where SMAX 24 ran but has no row: absent there, so SMAX 32 (1.1, 1). */
    CHECK(pick(&t, 8, 16384, 2048, 0, 0, 0, why) == 1 || pick(&t, 8, 16384, 2048, 0, 0, 0, why) == 3,
          "m = 8: row %d", pick(&t, 8, 16384, 2048, 0, 0, 0, why));
    dispatch_free(&t);
    return 2;
}

/* The op's overhead model carries a time from one problem to another: on 64 SMs, 128 x 128 tiles
 * give each SM one block at 1024 x 1024, and at 1152 x 1024 (72 tiles) 8 SMs a second while the rest
 * wait; 64 x 128 tiles (2 blocks an SM at 1024, 144 = 3 on some at 1152) lose less. */
#define T128 "hopper BM=128,BN=128,BK=16,WM=64,WN=32,WNITER=2,TM=8,TN=4,STAGES=3,MINB=2"
#define T64 "hopper BM=64,BN=128,BK=16,WM=32,WN=64,WNITER=2,TM=8,TN=4,STAGES=3,MINB=2"
static const char *WAVES = "op sgemm\nsms 64\n"
                           "m=1024,n=1024,k=4096 a=row,b=row f32 " T128 " rel=1\n"
                           "m=1024,n=1024,k=4096 a=row,b=row f32 " T64 " rel=1.1  # two blocks an SM\n";

static int check_waves(void)
{
    dispatch_table t;
    char why[256];
    if (parse_ok(WAVES, &t)) return 1;
    CHECK(t.sms == 64 && t.rows[1].rel == 1.1, "sms %d", t.sms);
    CHECK(pick(&t, 1024, 1024, 4096, 0, 0, 0, why) == 0, "where it was measured: the fastest there");
    /* 72 tiles: 2 rounds for 1.125 of work (x 1.78); 144: 3 rounds for 2.25 (x 1.33): 1.78 > 1.1 x 1.33. */
    CHECK(pick(&t, 1152, 1024, 4096, 0, 0, 0, why) == 1, "1152 x 1024: row %d", pick(&t, 1152, 1024, 4096, 0, 0, 0, why));
    /* 1040 x 1024: the same blocks, and 128 x 128 tiles cover 1152 rows for 1040 (x 1.11), 64 x 128 1088. */
    CHECK(pick(&t, 1040, 1024, 4096, 0, 0, 0, why) == 1, "1040 x 1024 with sms");
    /* Without the SM count only the padding counts: 1152 is 9 tiles of 128 and 18 of 64, no waste. */
    t.sms = 0;
    CHECK(pick(&t, 1152, 1024, 4096, 0, 0, 0, why) == 0, "1152 x 1024 without the SM count: row %d",
          pick(&t, 1152, 1024, 4096, 0, 0, 0, why));
    dispatch_free(&t);
    return 5;
}

/* A near problem without a row of a candidate whose shape would cost that candidate far more than the
 * problem asked about (over DISPATCH_ABSENT_WASTE times: 128-row tiles at m = 48, 2.7 rows padded for one)
 * is left out of its mean rather than counted DISPATCH_REL_ABSENT: at 128 x 16384 x 4096 the 128 x 128 tile,
 * fastest at 128 x 8192 x 4096 and absent at 48 x 16384 x 4096, beats the 64 x 128 one, slower at m = 128
 * and within reach at m = 48 (its overhead there 1.33). */
#define W128 "hopper BM=128,BN=128,BK=16,WM=64,WN=32,WNITER=2,TM=8,TN=4,STAGES=3,MINB=2"
#define W64 "hopper BM=64,BN=128,BK=16,WM=32,WN=64,WNITER=2,TM=8,TN=4,STAGES=3,MINB=2"
static const char *WASTE = "op sgemm\n"
                           "m=128,n=8192,k=4096 a=row,b=row f32 " W128 " rel=1\n"
                           "m=128,n=8192,k=4096 a=row,b=row f32 " W64 " rel=1.2\n"
                           "m=48,n=16384,k=4096 a=row,b=row f32 warptile - rel=1\n"
                           "m=48,n=16384,k=4096 a=row,b=row f32 " W64 " rel=1.3\n";

static int check_absent_waste(void)
{
    dispatch_table t;
    char why[256];
    if (parse_ok(WASTE, &t)) return 1;
    CHECK(pick(&t, 128, 16384, 4096, 0, 0, 0, why) == 0, "128 x 16384 x 4096: row %d", pick(&t, 128, 16384, 4096, 0, 0, 0, why));
    /* Near m = 48 the 128-row tile's waste is the problem's own: the rule does not apply, 64 x 128 wins. */
    CHECK(pick(&t, 40, 16384, 4096, 0, 0, 0, why) != 0, "40 x 16384 x 4096: row %d", pick(&t, 40, 16384, 4096, 0, 0, 0, why));
    /* Two candidates ranked: both, the 128 x 128 first. */
    reg_spec s = {.dims = {128, 16384, 4096}};
    int rows[4], got = dispatch_rank(&t, sgemm(), &s, 4, rows, why, sizeof why);
    CHECK(got == 3 && rows[0] == 0 && rows[1] == 1, "ranked %d: %d %d", got, rows[0], rows[1]);
    dispatch_free(&t);
    return 3;
}

/* sgemm's model counts packed's pack: measured at 9216 x 128 x 6144 (A column-major, read in place) packed
 * was the fastest; at 9000 x 128 x 6000 it must copy A (55 M floats for 14 GFLOP, x 1.32), and hopper,
 * 5% slower where both were measured, wins; at 9152 x 128 x 6144 (143 tiles of 64: in place) packed
 * again. */
#define PACKED "packed BM=64,BN=64,BK=16,WM=32,WN=32,WNITER=1,TM=8,TN=4,STAGES=3,MINB=4,SPLITK=4,XPF=1"
#define HOPPER "hopper BM=64,BN=64,BK=32,WM=32,WN=32,WNITER=1,TM=8,TN=4,STAGES=3,MINB=4,SPLITK=4,ODD=1,KMAJ=1"
static const char *PACK = "op sgemm\n"
                          "m=9216,n=128,k=6144 a=col,b=col f32 " PACKED " rel=1\n"
                          "m=9216,n=128,k=6144 a=col,b=col f32 " HOPPER " rel=1.05\n";

static int check_pack(void)
{
    dispatch_table t;
    char why[256];
    if (parse_ok(PACK, &t)) return 1;
    CHECK(pick(&t, 9216, 128, 6144, 1, 1, 0, why) == 0, "measured: packed");
    CHECK(pick(&t, 9000, 128, 6000, 1, 1, 0, why) == 1, "9000 x 128 x 6000 copies A: row %d",
          pick(&t, 9000, 128, 6000, 1, 1, 0, why));
    CHECK(pick(&t, 9152, 128, 6144, 1, 1, 0, why) == 0, "9152 x 128 x 6144 reads A in place: row %d",
          pick(&t, 9152, 128, 6144, 1, 1, 0, why));
    /* A row-major is always copied (the pack makes it column-major): hopper. */
    CHECK(pick(&t, 9152, 128, 6144, 0, 1, 0, why) == 1, "A row-major: row %d", pick(&t, 9152, 128, 6144, 0, 1, 0, why));
    dispatch_free(&t);
    return 4;
}

/* sgemm's second switch: hopper's ODD on where K leaves a partial k tile (ODD 0 would run its checked loop
 * in every block), else as picked. */
#define ODD0 "hopper BM=64,BN=64,BK=32,WM=32,WN=32,WNITER=1,TM=8,TN=4,STAGES=3,MINB=4,SPLITK=4,ODD=0,KMAJ=1"
#define ODD1 "hopper BM=64,BN=64,BK=32,WM=32,WN=32,WNITER=1,TM=8,TN=4,STAGES=3,MINB=4,SPLITK=4,ODD=1,KMAJ=1"
static const char *ODDS = "op sgemm\n"
                          "m=9216,n=128,k=6144 a=row,b=row f32 " ODD0 " rel=1\n"
                          "m=9216,n=128,k=6144 a=row,b=row f32 " ODD1 " rel=1.06\n";

static int check_odd(void)
{
    dispatch_table t;
    char why[256];
    if (parse_ok(ODDS, &t)) return 1;
    CHECK(pick(&t, 9216, 128, 6144, 0, 0, 0, why) == 0, "measured: ODD 0");
    CHECK(pick(&t, 9000, 128, 6000, 0, 0, 0, why) == 1, "K = 6000, BK 32: ODD 1, row %d", pick(&t, 9000, 128, 6000, 0, 0, 0, why));
    CHECK(pick(&t, 9000, 128, 6144, 0, 0, 0, why) == 0, "K = 6144: as picked, row %d", pick(&t, 9000, 128, 6144, 0, 0, 0, why));
    dispatch_free(&t);
    return 3;
}

/* sgemm's third switch: tf32x3's AIN off where a row-major A's rows are not 16-byte aligned (K % 4 != 0: AIN
 * would copy A into k-major stages, AIN 0 into the m-major ones), else as picked; with SWAP the A is B^T. */
#define X3 "tf32x3 BM=128,BN=128,STAGES=4,GROUP_M=8,PROMOTE=4"
static const char *AINS = "op sgemm\n"
                          "m=4096,n=4096,k=4096 a=row,b=row f32 " X3 ",AIN=1 rel=1\n"
                          "m=4096,n=4096,k=4096 a=row,b=row f32 " X3 " rel=1.1\n"
                          "m=4096,n=4096,k=4096 a=col,b=row f32 " X3 ",AIN=1 rel=1\n"
                          "m=4096,n=4096,k=4096 a=col,b=row f32 " X3 " rel=1.1\n"
                          "m=4096,n=4096,k=4096 a=row,b=row f32 " X3 ",AIN=1,SWAP=1 rel=1.2\n";

static int check_ain(void)
{
    dispatch_table t;
    char why[256];
    if (parse_ok(AINS, &t)) return 1;
    CHECK(pick(&t, 4096, 4096, 4096, 0, 0, 0, why) == 0, "measured: AIN 1");
    CHECK(pick(&t, 4000, 4000, 4002, 0, 0, 0, why) == 1, "row-major A, K = 4002: AIN 0, row %d",
          pick(&t, 4000, 4000, 4002, 0, 0, 0, why));
    CHECK(pick(&t, 4000, 4000, 4000, 0, 0, 0, why) == 0, "row-major A, K = 4000: as picked, row %d",
          pick(&t, 4000, 4000, 4000, 0, 0, 0, why));
    /* A column-major with M % 4 != 0: AIN copies it into the same m-major stages as AIN 0, as picked. */
    CHECK(pick(&t, 4001, 4000, 4002, 1, 0, 0, why) == 2, "column-major A, M = 4001: as picked, row %d",
          pick(&t, 4001, 4000, 4002, 1, 0, 0, why));
    dispatch_free(&t);
    return 4;
}

/* sgemm's switch: where the pick has a twin with SK on (or off), SK runs where it cuts the last wave of a
 * problem of under two waves and not elsewhere, whichever of the two was faster where they were measured;
 * a measured problem keeps what was measured. */
static int check_switch(void)
{
    static const char *const tables[] = {
        "op sgemm\n"
        "m=2048,n=2048,k=2048 a=col,b=row f32 packed BM=128,BN=64,WM=64,WN=32,WNITER=2,STAGES=3,MINB=2 rel=1\n"
        "m=2048,n=2048,k=2048 a=col,b=row f32 packed BM=128,BN=64,WM=64,WN=32,WNITER=2,STAGES=3,MINB=2,SK=396 rel=1.02\n"
        "m=2048,n=2048,k=2048 a=col,b=row f32 hopper - rel=1.3\n",
        "op sgemm\n"
        "m=2048,n=2048,k=2048 a=col,b=row f32 packed BM=128,BN=64,WM=64,WN=32,WNITER=2,STAGES=3,MINB=2 rel=1.02\n"
        "m=2048,n=2048,k=2048 a=col,b=row f32 packed BM=128,BN=64,WM=64,WN=32,WNITER=2,STAGES=3,MINB=2,SK=396 rel=1\n"
        "m=2048,n=2048,k=2048 a=col,b=row f32 hopper - rel=1.3\n",
    };
    int n = 0;
    for (int i = 0; i < 2; i++) {
        dispatch_table t;
        char why[256];
        if (parse_ok(tables[i], &t)) return 1;
        /* 2048^3: 512 tiles of 128 x 64, 116 past the wave of 396, cut in 3: but measured. */
        CHECK(pick(&t, 2048, 2048, 2048, 1, 0, 0, why) == i, "table %d, 2048^3: row %d", i, pick(&t, 2048, 2048, 2048, 1, 0, 0, why));
        /* 2047 x 2049: 16 x 33 tiles, 132 past the wave: cut in 3, SK. */
        CHECK(pick(&t, 2047, 2049, 2048, 1, 0, 0, why) == 1, "table %d, 2047 x 2049: row %d", i, pick(&t, 2047, 2049, 2048, 1, 0, 0, why));
        /* 4096 x 16384: 8192 tiles, 272 past the waves: one slice a tile, nothing cut; no SK. */
        CHECK(pick(&t, 4096, 16384, 4096, 1, 0, 0, why) == 0, "table %d, 4096 x 16384: row %d", i,
              pick(&t, 4096, 16384, 4096, 1, 0, 0, why));
        /* 4096^3: 2048 tiles, 68 past five waves, cut in 5; but five waves and more: no SK. */
        CHECK(pick(&t, 4096, 4096, 4096, 1, 0, 0, why) == 0, "table %d, 4096^3: row %d", i, pick(&t, 4096, 4096, 4096, 1, 0, 0, why));
        /* 1000 x 600: 80 tiles, under a wave: 4 slices each, SK. */
        CHECK(pick(&t, 1000, 600, 2048, 1, 0, 0, why) == 1, "table %d, 1000 x 600: row %d", i, pick(&t, 1000, 600, 2048, 1, 0, 0, why));
        n += 5;
        dispatch_free(&t);
    }
    return n;
}

int main(void)
{
    int total = 0;
    total += check_parse_errors();
    total += check_pick();
    total += check_consensus();
    total += check_winners();
    total += check_against();
    total += check_rank();
    total += check_refused();
    total += check_waves();
    total += check_absent_waste();
    total += check_pack();
    total += check_odd();
    total += check_ain();
    total += check_switch();
    return TEST_REPORT(total);
}
