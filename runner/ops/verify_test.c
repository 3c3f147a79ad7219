/* verify and measure statistics: NaN and Inf never pass, the tolerance rule holds at its edges,
 * mismatches are quoted, and the statistics match their definitions. */
#include <math.h>

#include "runner/measure/measure.h"
#include "runner/ops/verify.h"
#include "runner/testing/testutil.h"

typedef struct {
    float got, want, scale;
    int ok;
} verify_row;

static const verify_row rows[] = {
    {1.0f, 1.0f, 1.0f, 1},
    {1.0f + 1e-6f, 1.0f, 1.0f, 1},        /* 1e-6 <= atol 1e-6 + rtol 1e-5 * 1 */
    {1.0f + 2e-5f, 1.0f, 1.0f, 0},        /* 2e-5 > 1.1e-5 */
    {1.0f + 2e-5f, 1.0f, 4.0f, 1},        /* a larger error scale allows more */
    {NAN, 1.0f, 1.0f, 0},                 /* NaN never passes ... */
    {NAN, NAN, 1.0f, 0},                  /* ... not even against NaN */
    {INFINITY, INFINITY, 1.0f, 0},        /* nor Inf */
    {-INFINITY, 1.0f, 1.0f, 0},
    {0.0f, 0.0f, 0.0f, 1},                /* exact zero with zero scale */
    {1e-7f, 0.0f, 0.0f, 1},               /* within atol */
    {1e-5f, 0.0f, 0.0f, 0},               /* beyond atol, no scale */
};

static int check_rows(void)
{
    reg_tolerance t = {.rtol = 1e-5, .atol = 1e-6};
    int n = (int)(sizeof rows / sizeof *rows);
    for (int i = 0; i < n; i++) {
        reg_verify v;
        verify_f32(&rows[i].got, &rows[i].want, &rows[i].scale, 1, &t, &v);
        CHECK(v.ok == rows[i].ok, "row %d: got %g want %g scale %g: ok=%d", i, rows[i].got, rows[i].want,
              rows[i].scale, v.ok);
    }
    return n;
}

static int check_counts_and_detail(void)
{
    float got[6] = {1, 2, NAN, 4, 5.5f, 6}, want[6] = {1, 2, 3, 4, 5, 6}, scale[6] = {1, 1, 1, 1, 1, 1};
    reg_tolerance t = {.rtol = 1e-5, .atol = 1e-6};
    reg_verify v;
    verify_f32(got, want, scale, 6, &t, &v);
    CHECK(!v.ok && v.bad == 2, "bad %lld", (long long)v.bad);
    CHECK(strstr(v.detail, "[2] got nan want 3") && strstr(v.detail, "[4] got 5.5 want 5"), "detail: %s", v.detail);
    CHECK(isinf(v.max_abs_err), "a NaN output makes the max error infinite, got %g", v.max_abs_err);
    got[2] = 3;
    verify_f32(got, want, scale, 6, &t, &v);
    CHECK(v.bad == 1 && fabs(v.max_abs_err - 0.5) < 1e-12 && fabs(v.max_rel_err - 0.5) < 1e-12, "max errs %g %g",
          v.max_abs_err, v.max_rel_err);
    return 1;
}

static int check_stats(void)
{
    double x[] = {5, 1, 4, 2, 3}; /* sorted 1 2 3 4 5 */
    measure_stats st;
    measure_stats_compute(x, 5, &st);
    CHECK(st.median_ms == 3 && st.min_ms == 1 && st.max_ms == 5 && st.mean_ms == 3, "order stats");
    CHECK(fabs(st.stdev_ms - sqrt(2.5)) < 1e-12, "sample stdev %g", st.stdev_ms);
    CHECK(fabs(st.p10_ms - 1.4) < 1e-12 && fabs(st.p90_ms - 4.6) < 1e-12, "p10 %g p90 %g", st.p10_ms, st.p90_ms);
    double one = 2.0;
    measure_stats_compute(&one, 1, &st);
    CHECK(st.median_ms == 2 && st.stdev_ms == 0 && isinf(st.noise), "one sample");
    return 1;
}

int main(void)
{
    int total = check_rows() + check_counts_and_detail() + check_stats();
    return TEST_REPORT(total);
}
