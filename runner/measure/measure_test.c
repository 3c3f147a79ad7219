/* measure: the stopping rule and the protocol's bookkeeping on synthetic sample streams. */
#include <math.h>
#include <stdlib.h>

#include "runner/measure/measure.h"
#include "runner/testing/testutil.h"

typedef struct {
    const double *stream; /* samples, ms, cycled */
    int len;
    int launches, resets, checks;
    int fail_check_at; /* check() reports a bad output at this repetition, or -1 */
} fake;

static double fake_ms(void *ctx, int i)
{
    fake *f = ctx;
    return i < 0 ? 1.0 : f->stream[i % f->len];
}

static int fake_reset(void *ctx, tl_err *e)
{
    (void)e;
    ((fake *)ctx)->resets++;
    return 0;
}

static int fake_launch(void *ctx, tl_err *e)
{
    (void)e;
    ((fake *)ctx)->launches++;
    return 0;
}

static int fake_check(void *ctx, tl_err *e)
{
    fake *f = ctx;
    (void)e;
    return f->checks++ == f->fail_check_at;
}

static measure_samples run(measure_protocol p, fake *f, int with_check)
{
    measure_target t = {.reset = fake_reset, .launch = fake_launch, .ctx = f, .fake_ms = fake_ms,
                        .check = with_check ? fake_check : NULL};
    measure_samples s;
    tl_err e;
    CHECK(measure_run(&p, &t, &s, &e) == 0, "%s", e.msg);
    return s;
}

typedef struct {
    const char *name;
    double stream[4];
    int len;
    measure_protocol p;
    int want_n;
    const char *want_stopped;
} stop_row;

#define P(w, mn, mx, noise, tmax) {.warmup = (w), .min_reps = (mn), .max_reps = (mx), .max_noise = (noise), \
                                   .max_time_s = (tmax), .batch = 1}

static const stop_row stop_rows[] = {
    /* a steady kernel stops as soon as min_reps are in */
    {"steady", {1.0}, 1, P(2, 10, 100, 0.01, 10), 10, "noise"},
    /* a noisy one (1 ms / 3 ms alternating: relative error of the median ~ 0.6 / sqrt(n)) runs to max_reps */
    {"noisy", {1.0, 3.0}, 2, P(0, 10, 40, 0.01, 100), 40, "max_reps"},
    /* ... unless the noise target is loose. Median 2, stdev sqrt(n/(n-1)): 1.2533 stdev / sqrt(n) / 2 <= 0.1
     * first at n = 41 (0.1004 at n = 40); odd n have median 1 (far noisier) and from n = 32 the check runs
     * every n/16 = 2 samples, on even n: it stops at 42. */
    {"noisy, loose target", {1.0, 3.0}, 2, P(0, 10, 1000, 0.1, 100), 42, "noise"},
    /* slow samples hit the time budget: 0.5 s each, 2 s budget, min_reps 3 */
    {"time budget", {500.0, 700.0}, 2, P(0, 3, 1000, 0.0, 2.0), 4, "max_time"},
    /* min_reps holds even past the time budget */
    {"min_reps first", {5000.0, 7000.0}, 2, P(0, 5, 1000, 0.0, 1.0), 5, "max_time"},
    {"max_reps 1", {1.0, 3.0}, 2, P(0, 1, 1, 0.0, 100), 1, "max_reps"},
};

static int check_stopping(void)
{
    int n = (int)(sizeof stop_rows / sizeof *stop_rows);
    for (int i = 0; i < n; i++) {
        const stop_row *r = &stop_rows[i];
        fake f = {.stream = r->stream, .len = r->len, .fail_check_at = -1};
        measure_samples s = run(r->p, &f, 0);
        CHECK(s.n == r->want_n, "%s: %d samples, want %d", r->name, s.n, r->want_n);
        CHECK(s.stopped && !strcmp(s.stopped, r->want_stopped), "%s: stopped by %s, want %s", r->name,
              s.stopped ? s.stopped : "(null)", r->want_stopped);
        CHECK(s.warmup_runs == r->p.warmup, "%s: %d warm-up runs", r->name, s.warmup_runs);
        CHECK(f.resets == s.n + s.warmup_runs, "%s: a reset before every run (%d resets)", r->name, f.resets);
        for (int k = 0; k < s.n; k++)
            CHECK(s.time_ms[k] == r->stream[k % r->len], "%s: sample %d kept as taken", r->name, k);
        measure_samples_free(&s);
    }
    return n;
}

static int check_batch_and_warmup_time(void)
{
    static const double one[] = {1.0};
    fake f = {.stream = one, .len = 1, .fail_check_at = -1};
    measure_protocol p = P(2, 5, 5, 0.0, 100);
    p.batch = 8;
    measure_samples s = run(p, &f, 0);
    CHECK(f.launches == 8 * (5 + 2), "batch: %d launches, want 56", f.launches);
    CHECK(fabs(s.timed_s - 5 * 8 * 1e-3) < 1e-12, "batch: timed_s %g counts every launch", s.timed_s);
    measure_samples_free(&s);

    fake g = {.stream = one, .len = 1, .fail_check_at = -1};
    p = (measure_protocol)P(1, 1, 1, 0.0, 100);
    p.warmup_s = 0.05;
    double t0 = tl_now_s();
    s = run(p, &g, 0);
    CHECK(tl_now_s() - t0 >= 0.05, "warm-up by time lasted %g s", tl_now_s() - t0);
    CHECK(s.warmup_runs > 1, "warm-up by time ran %d times", s.warmup_runs);
    measure_samples_free(&s);
    return 2;
}

static int check_verify_every(void)
{
    static const double one[] = {1.0};
    fake f = {.stream = one, .len = 1, .fail_check_at = 3};
    measure_samples s = run((measure_protocol)P(0, 10, 10, 0.0, 100), &f, 1);
    CHECK(s.n == 4 && !strcmp(s.stopped, "verify_failed"), "stops at the bad run: n %d, %s", s.n, s.stopped);
    CHECK(f.checks == 4, "a check after every run: %d", f.checks);
    measure_samples_free(&s);
    return 1;
}

int main(void)
{
    int total = check_stopping() + check_batch_and_warmup_time() + check_verify_every();
    return TEST_REPORT(total);
}
