/* counters: metric names, how per-kernel values combine, and names checked against a chip's metric
 * list through CUPTI's host library (no GPU needed). */
#include <math.h>
#include <stdlib.h>

#include "runner/measure/counters.h"
#include "runner/testing/testutil.h"

static const struct {
    const char *name;
    int ok;
} name_rows[] = {
    {"dram__bytes_read.sum", 1},
    {"sm__warps_active.avg.pct_of_peak_sustained_active", 1},
    {"gpu__time_duration", 1},
    {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 1},
    {"dram_bytes_read.sum", 0},   /* no unit__ */
    {"__bytes.sum", 0},           /* no unit */
    {"dram__.sum", 0},            /* no counter */
    {"dram__bytes..sum", 0},
    {"dram__bytes.sum.", 0},
    {"Dram__bytes.sum", 0},
    {"dram__bytes sum", 0},
    {"dram.x__bytes", 0},         /* a dot before the counter */
    {"", 0},
    {"memory", 0},                /* a set is not a metric name */
};

static int check_names(void)
{
    int n = 0;
    for (size_t i = 0; i < sizeof name_rows / sizeof *name_rows; i++, n++)
        CHECK(counters_name_ok(name_rows[i].name) == name_rows[i].ok, "'%s': want %d", name_rows[i].name, name_rows[i].ok);
    return n;
}

static int check_list(void)
{
    counters_list l = {0};
    tl_err e;
    CHECK(counters_list_add(&l, "memory", 3, 5, &e) == 0, "%s", e.msg);
    CHECK(counters_list_add(&l, "roofline", 3, 13, &e) == 0, "%s", e.msg);
    int nmem = 0, nroof = 0, shared = 0;
    for (int i = 0; i < counters_nsets; i++) {
        nmem += !strcmp(counters_sets[i].set, "memory");
        nroof += !strcmp(counters_sets[i].set, "roofline");
    }
    for (int i = 0; i < counters_nsets; i++)
        if (!strcmp(counters_sets[i].set, "roofline"))
            for (int j = 0; j < counters_nsets; j++)
                shared += !strcmp(counters_sets[j].set, "memory") && !strcmp(counters_sets[j].metric, counters_sets[i].metric);
    CHECK(l.n == nmem + nroof - shared, "memory + roofline: %d metrics, want %d (DRAM bytes once)", l.n,
          nmem + nroof - shared);
    CHECK(!strcmp(l.text, "memory, roofline"), "text '%s'", l.text);
    CHECK(counters_list_add(&l, "smem_conflicts", 4, 1, &e) == -1 && strstr(e.msg, "'smem_conflicts' is neither"),
          "a bad name: %s", e.msg);
    for (int i = 0; i <= COUNTERS_MAX; i++) {
        char name[32];
        snprintf(name, sizeof name, "a__m%d.sum", i);
        if (counters_list_add(&l, name, 1, 1, &e)) break;
    }
    CHECK(strstr(e.msg, "more than 64 metrics") != NULL, "a list is capped: %s", e.msg);
    counters_list_free(&l);
    return 4;
}

static const struct {
    const char *name;
    double want; /* over values {10, 30, 20} with durations {1, 1, 2} */
} combine_rows[] = {
    {"dram__bytes_read.sum", 60},
    {"sm__cycles_active.max", 30},
    {"sm__cycles_active.min", 10},
    {"sm__warps_active.avg.pct_of_peak_sustained_active", (10 + 30 + 2 * 20) / 4.0},
    {"sm__cycles_active.avg", 20},
    {"dram__bytes_read.sum.per_second", 20}, /* a rate: weighted, not summed */
    {"gpu__time_duration", 20},
};

static int check_combine(void)
{
    const double values[] = {10, -1, 30, -1, 20, -1}, weights[] = {1, 1, 2};
    int n = 0;
    for (size_t i = 0; i < sizeof combine_rows / sizeof *combine_rows; i++, n++) {
        double got = counters_combine_values(counters_combine_of(combine_rows[i].name), values, 2, weights, 3);
        CHECK(fabs(got - combine_rows[i].want) < 1e-12, "%s: %g, want %g", combine_rows[i].name, got,
              combine_rows[i].want);
    }
    CHECK(counters_combine_values(COUNTERS_WEIGHTED, values, 2, (const double[]){0, 0, 0}, 3) == 20, "no durations: plain mean");
    CHECK(isnan(counters_combine_values(COUNTERS_SUM, values, 2, weights, 0)), "no kernels: NaN");
    return n + 2;
}

/* The chip's metric list: a misspelt name is an error at its line:col with the near names. */
static int check_chip(void)
{
    counters_session *s = counters_open(-1, "GH100");
    CHECK(counters_session_why(s) == NULL, "CUPTI's host library (the CUDA toolkit's libcupti): %s", counters_session_why(s));
    if (counters_session_why(s)) {
        counters_close(s);
        return 1;
    }
    counters_list l = {0};
    tl_err e;
    counters_list_add(&l, "memory", 7, 11, &e);
    counters_list_add(&l, "smem", 7, 19, &e);
    counters_list_add(&l, "occupancy", 7, 25, &e);
    counters_list_add(&l, "roofline", 7, 36, &e);
    CHECK(counters_check(s, &l, "x.yaml", &e) == 0, "every set's metric is a GH100 metric: %s", e.msg);
    counters_list_add(&l, "dram__bytes_reed.sum", 8, 3, &e);
    CHECK(counters_check(s, &l, "x.yaml", &e) == -1, "a misspelt base accepted");
    CHECK(strstr(e.msg, "x.yaml:8:3: counters: 'dram__bytes_reed.sum' is not a metric of GH100 (near names: "
                        "dram__bytes_read.sum") == e.msg, "got: %s", e.msg);
    counters_list_free(&l);
    counters_list_add(&l, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.summ", 2, 9, &e);
    CHECK(counters_check(s, &l, "x.yaml", &e) == -1 &&
              strstr(e.msg, "near names: l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"),
          "a misspelt rollup: %s", e.msg);
    counters_list_free(&l);
    counters_close(s);
    s = counters_open(-1, "XY999");
    CHECK(counters_session_why(s) && strstr(counters_session_why(s), "not a chip this CUPTI knows (it knows: ") &&
              strstr(counters_session_why(s), "GH100"),
          "an unknown chip: %s", counters_session_why(s) ? counters_session_why(s) : "(accepted)");
    counters_close(s);
    return 5;
}

int main(void)
{
    int total = check_names() + check_list() + check_combine() + check_chip();
    return TEST_REPORT(total);
}
