#include "runner/measure/measure.h"

#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/util/cuda_check.h"

const measure_protocol measure_trial = {
    .warmup = 1, .warmup_s = 0.0, .min_reps = 3, .max_reps = 5, .max_noise = 0.01, .max_time_s = 0.05,
    .l2_flush = 1, .batch = 1,
};

const measure_protocol measure_defaults = {
    .warmup = 3,
    .warmup_s = 0.0,
    .min_reps = 10,
    .max_reps = 200,
    .max_noise = 0.01,
    .max_time_s = 2.0,
    .l2_flush = 1,
    .batch = 1,
};

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Linear interpolation between order statistics of sorted x (numpy's default). */
static double quantile(const double *sorted, int n, double q)
{
    double pos = q * (n - 1);
    int i = (int)pos;
    if (i >= n - 1) return sorted[n - 1];
    return sorted[i] + (pos - i) * (sorted[i + 1] - sorted[i]);
}

void measure_stats_compute(const double *x, int n, measure_stats *st)
{
    double *s = tl_xmalloc(sizeof *s * (size_t)n);
    memcpy(s, x, sizeof *s * (size_t)n);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    double sum = 0, ss = 0;
    for (int i = 0; i < n; i++) sum += s[i];
    double mean = sum / n;
    for (int i = 0; i < n; i++) ss += (s[i] - mean) * (s[i] - mean);
    st->mean_ms = mean;
    st->stdev_ms = n > 1 ? sqrt(ss / (n - 1)) : 0.0;
    st->min_ms = s[0];
    st->max_ms = s[n - 1];
    st->median_ms = quantile(s, n, 0.5);
    st->p10_ms = quantile(s, n, 0.1);
    st->p90_ms = quantile(s, n, 0.9);
    /* Standard error of the median for a normal sample: sqrt(pi/2) * sigma / sqrt(n). */
    st->noise = (n > 1 && st->median_ms > 0) ? 1.2533 * st->stdev_ms / sqrt((double)n) / st->median_ms : INFINITY;
    free(s);
}

char *measure_protocol_text(const measure_protocol *p)
{
    char energy[48] = ""; /* only when asked for: the text of a protocol without it stays as it was */
    if (p->energy_s > 0) snprintf(energy, sizeof energy, ";energy_s=%.17g", p->energy_s);
    return tl_xasprintf("warmup=%d;warmup_s=%.17g;min_reps=%d;max_reps=%d;max_noise=%.17g;max_time_s=%.17g;"
                        "l2_flush=%d;batch=%d%s",
                        p->warmup, p->warmup_s, p->min_reps, p->max_reps, p->max_noise, p->max_time_s, p->l2_flush,
                        p->batch, energy);
}

/* ---- one repetition ----------------------------------------------------------------------- */

typedef struct {
    const measure_protocol *p;
    const measure_target *t;
    cudaEvent_t ev[2];
    cudaGraphExec_t graph; /* batch > 1 on the device */
} timer;

static int launch_batch(const timer *tm, tl_err *e)
{
    const measure_target *t = tm->t;
    if (tm->graph) {
        CUDA_CHECK(cudaGraphLaunch(tm->graph, (cudaStream_t)t->stream));
        return 0;
    }
    for (int i = 0; i < (t->on_device ? 1 : tm->p->batch); i++)
        if (t->launch(t->ctx, e)) return -1;
    return 0;
fail:
    return -1;
}

/* One timed repetition; *ms gets the time of one launch. */
static int time_one(const timer *tm, int i, double *ms, tl_err *e)
{
    const measure_target *t = tm->t;
    cudaStream_t st = (cudaStream_t)t->stream;
    if (t->fake_ms) {
        if (launch_batch(tm, e)) return -1;
        *ms = t->fake_ms(t->ctx, i);
        return 0;
    }
    if (!t->on_device) {
        double t0 = tl_now_s();
        if (launch_batch(tm, e)) return -1;
        *ms = (tl_now_s() - t0) * 1e3 / tm->p->batch;
        return 0;
    }
    float f;
    CUDA_CHECK(cudaEventRecord(tm->ev[0], st));
    if (launch_batch(tm, e)) return -1;
    CUDA_CHECK(cudaEventRecord(tm->ev[1], st));
    CUDA_CHECK(cudaEventSynchronize(tm->ev[1]));
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaEventElapsedTime(&f, tm->ev[0], tm->ev[1]));
    *ms = (double)f / tm->p->batch;
    return 0;
fail:
    return -1;
}

static int prepare(const timer *tm, tl_err *e)
{
    const measure_target *t = tm->t;
    if (t->reset(t->ctx, e)) return -1;
    if (t->on_device && t->l2_buf && tm->p->l2_flush)
        CUDA_CHECK(cudaMemsetAsync(t->l2_buf, 0x5a, t->l2_bytes, (cudaStream_t)t->stream));
    return 0;
fail:
    return -1;
}

/* The batch as one CUDA graph, so that launch gaps do not count. */
static int capture(timer *tm, tl_err *e)
{
    const measure_target *t = tm->t;
    cudaStream_t st = (cudaStream_t)t->stream;
    cudaGraph_t g = NULL;
    CUDA_CHECK(cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
    for (int i = 0; i < tm->p->batch; i++)
        if (t->launch(t->ctx, e)) {
            cudaStreamEndCapture(st, &g);
            goto fail;
        }
    CUDA_CHECK(cudaStreamEndCapture(st, &g));
    CUDA_CHECK(cudaGraphInstantiate(&tm->graph, g, 0));
    cudaGraphDestroy(g);
    return 0;
fail:
    if (g) cudaGraphDestroy(g);
    return -1;
}

/* ---- the loop ----------------------------------------------------------------------------- */

static int stop_reason(const measure_protocol *p, const double *x, int n, double elapsed_s, const char **why)
{
    if (n >= p->max_reps) return *why = "max_reps", 1;
    if (n < p->min_reps) return 0;
    if (elapsed_s >= p->max_time_s) return *why = "max_time", 1;
    /* The noise check sorts every sample: do it after 1/16 more samples, not after each one. */
    int step = n / 16 > 1 ? n / 16 : 1;
    if ((n - p->min_reps) % step) return 0;
    measure_stats st;
    measure_stats_compute(x, n, &st);
    if (st.noise <= p->max_noise) return *why = "noise", 1;
    return 0;
}

static void alloc_samples(measure_samples *s, int max, int telemetry)
{
    memset(s, 0, sizeof *s);
    s->time_ms = tl_xcalloc((size_t)max, sizeof *s->time_ms);
    if (!telemetry) return;
    s->sm_clock_mhz = tl_xcalloc((size_t)max, sizeof *s->sm_clock_mhz);
    s->temp_c = tl_xcalloc((size_t)max, sizeof *s->temp_c);
    s->power_w = tl_xcalloc((size_t)max, sizeof *s->power_w);
    s->throttle = tl_xcalloc((size_t)max, sizeof *s->throttle);
    s->throttled = tl_xcalloc((size_t)max, sizeof *s->throttled);
}

static void record_telemetry(const measure_target *t, measure_samples *s)
{
    if (!s->sm_clock_mhz) return;
    double t0 = tl_now_s();
    nvml_sample v;
    nvml_read(t->gpu, &v);
    s->telemetry_s += tl_now_s() - t0;
    int i = s->n;
    s->sm_clock_mhz[i] = v.sm_clock_mhz;
    s->temp_c[i] = v.temp_c;
    s->power_w[i] = v.power_w;
    s->throttle[i] = v.reasons;
    s->throttled[i] = (uint8_t)nvml_is_throttled(v.reasons);
    s->nthrottled += s->throttled[i];
}

static int warm_up(const timer *tm, measure_samples *out, tl_err *e)
{
    double t0 = tl_now_s(), ms;
    while (out->warmup_runs < tm->p->warmup || tl_now_s() - t0 < tm->p->warmup_s) {
        if (prepare(tm, e) || time_one(tm, -1, &ms, e)) return -1;
        out->warmup_runs++;
    }
    out->warmup_s = tl_now_s() - t0;
    return 0;
}

int measure_run(const measure_protocol *p, const measure_target *t, measure_samples *out, tl_err *e)
{
    timer tm = {.p = p, .t = t};
    int real_device = t->on_device && !t->fake_ms;
    alloc_samples(out, p->max_reps, t->gpu != NULL && nvml_ok(t->gpu));
    if (real_device) {
        CUDA_CHECK(cudaEventCreate(&tm.ev[0]));
        CUDA_CHECK(cudaEventCreate(&tm.ev[1]));
        if (p->batch > 1 && capture(&tm, e)) goto fail;
    }
    if (warm_up(&tm, out, e)) goto fail;
    double start = tl_now_s(), fake_elapsed = 0;
    for (;;) {
        if (prepare(&tm, e)) goto fail;
        if (time_one(&tm, out->n, &out->time_ms[out->n], e)) goto fail;
        out->timed_s += out->time_ms[out->n] * p->batch * 1e-3;
        fake_elapsed += out->time_ms[out->n] * 1e-3;
        record_telemetry(t, out);
        out->n++;
        if (t->check) {
            int bad = t->check(t->ctx, e);
            if (bad < 0) goto fail;
            if (bad) {
                out->stopped = "verify_failed";
                break;
            }
        }
        double elapsed = t->fake_ms ? fake_elapsed : tl_now_s() - start;
        if (stop_reason(p, out->time_ms, out->n, elapsed, &out->stopped)) break;
    }
    out->loop_s = tl_now_s() - start;
    if (tm.graph) cudaGraphExecDestroy(tm.graph);
    if (tm.ev[0]) cudaEventDestroy(tm.ev[0]);
    if (tm.ev[1]) cudaEventDestroy(tm.ev[1]);
    return 0;
fail:
    if (tm.graph) cudaGraphExecDestroy(tm.graph);
    if (tm.ev[0]) cudaEventDestroy(tm.ev[0]);
    if (tm.ev[1]) cudaEventDestroy(tm.ev[1]);
    return -1;
}

void measure_samples_free(measure_samples *s)
{
    free(s->time_ms);
    free(s->sm_clock_mhz);
    free(s->temp_c);
    free(s->power_w);
    free(s->throttle);
    free(s->throttled);
    memset(s, 0, sizeof *s);
}

/* ---- energy ------------------------------------------------------------------------------- */

#define ENERGY_BATCH_MS 2.0 /* a batch of back-to-back runs: about this long */
#define ENERGY_WAIT_S 1.0   /* the counter must move within this long */

static int read_energy(const measure_target *t, unsigned long long *mj)
{
    return t->energy_mj ? t->energy_mj(t->ctx, mj) : nvml_energy_mj(t->gpu, mj);
}

static int energy_batch(const measure_target *t, int k, tl_err *e)
{
    for (int i = 0; i < k; i++)
        if (t->launch(t->ctx, e)) return -1;
    if (t->on_device) CUDA_CHECK(cudaStreamSynchronize((cudaStream_t)t->stream));
    return 0;
fail:
    return -1;
}

static void energy_unavailable(measure_energy *m, const char *why)
{
    m->status = "unavailable";
    m->reason = tl_xstrdup(why);
}

int measure_energy_run(const measure_protocol *p, const measure_target *t, double run_ms, measure_energy *out,
                       tl_err *e)
{
    memset(out, 0, sizeof *out);
    out->j_per_run = out->power_w = out->resolution_j = NAN;
    if (!(p->energy_s > 0)) return 0;
    unsigned long long e0, now, last;
    if (read_energy(t, &e0)) {
        energy_unavailable(out, t->on_device ? "the GPU has no energy counter (NVML's total energy consumption)"
                                             : "no energy counter on the host target");
        return 0;
    }
    int k = run_ms > 0 && run_ms < ENERGY_BATCH_MS ? (int)ceil(ENERGY_BATCH_MS / run_ms) : 1;
    /* The start: the first move of the counter. */
    double t0 = tl_now_s();
    now = e0;
    while (now == e0) {
        if (energy_batch(t, k, e)) return -1;
        if (read_energy(t, &now)) return energy_unavailable(out, "the energy counter stopped answering"), 0;
        if (tl_now_s() - t0 > ENERGY_WAIT_S) return energy_unavailable(out, "the energy counter did not move in 1 s"), 0;
    }
    unsigned long long ea = now;
    double ta = tl_now_s(), tb, batch_s = 0;
    long runs = 0;
    last = now;
    for (;;) { /* the end: the first move after energy_s */
        double b0 = tl_now_s();
        if (energy_batch(t, k, e)) return -1;
        runs += k;
        tb = tl_now_s();
        batch_s = fmax(batch_s, tb - b0);
        if (read_energy(t, &now)) return energy_unavailable(out, "the energy counter stopped answering"), 0;
        if (tb - ta >= p->energy_s && now != last) break;
        if (tb - ta > p->energy_s + ENERGY_WAIT_S)
            return energy_unavailable(out, "the energy counter stopped moving"), 0;
        last = now;
    }
    double joules = (double)(now - ea) * 1e-3;
    out->status = "ok";
    out->span_s = tb - ta;
    out->runs = runs;
    out->j_per_run = joules / (double)runs;
    out->power_w = joules / out->span_s;
    out->resolution_j = 2 * out->power_w * batch_s / (double)runs;
    return 0;
}

void measure_energy_free(measure_energy *m)
{
    free(m->reason);
    memset(m, 0, sizeof *m);
}
