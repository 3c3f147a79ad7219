#include "runner/measure.h"

#include <cuda_runtime_api.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const measure_protocol measure_defaults = {
    .warmup = 3,
    .min_reps = 10,
    .max_reps = 200,
    .max_noise = 0.01,
    .max_time_s = 2.0,
    .l2_flush = 1,
};

#define CUDA_TRY(call)                                                                                     \
    do {                                                                                                   \
        cudaError_t err_ = (call);                                                                         \
        if (err_ != cudaSuccess) {                                                                         \
            tl_err_set(e, "%s:%d: %s: %s", __FILE__, __LINE__, #call, cudaGetErrorString(err_));           \
            goto fail;                                                                                     \
        }                                                                                                  \
    } while (0)

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Linear interpolation between order statistics of sorted x. */
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
    return tl_xasprintf("warmup=%d;min_reps=%d;max_reps=%d;max_noise=%.17g;max_time_s=%.17g;l2_flush=%d",
                        p->warmup, p->min_reps, p->max_reps, p->max_noise, p->max_time_s, p->l2_flush);
}

static int flush_l2(const measure_target *t, tl_err *e)
{
    if (!t->on_device || !t->l2_buf) return 0;
    CUDA_TRY(cudaMemsetAsync(t->l2_buf, 0x5a, t->l2_bytes, 0));
    return 0;
fail:
    return -1;
}

/* One timed run; *ms gets its duration. */
static int time_one(const measure_target *t, cudaEvent_t ev[2], double *ms, tl_err *e)
{
    if (!t->on_device) {
        double t0 = tl_now_s();
        if (t->launch(t->ctx, e)) return -1;
        *ms = (tl_now_s() - t0) * 1e3;
        return 0;
    }
    float f;
    CUDA_TRY(cudaEventRecord(ev[0], 0));
    if (t->launch(t->ctx, e)) return -1;
    CUDA_TRY(cudaEventRecord(ev[1], 0));
    CUDA_TRY(cudaEventSynchronize(ev[1]));
    CUDA_TRY(cudaGetLastError());
    CUDA_TRY(cudaEventElapsedTime(&f, ev[0], ev[1]));
    *ms = f;
    return 0;
fail:
    return -1;
}

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

int measure_run(const measure_protocol *p, const measure_target *t, measure_samples *out, tl_err *e)
{
    cudaEvent_t ev[2] = {0, 0};
    memset(out, 0, sizeof *out);
    out->time_ms = tl_xmalloc(sizeof *out->time_ms * (size_t)p->max_reps);
    if (t->on_device) {
        CUDA_TRY(cudaEventCreate(&ev[0]));
        CUDA_TRY(cudaEventCreate(&ev[1]));
    }
    for (int i = 0; i < p->warmup; i++) {
        double ms;
        if (t->reset(t->ctx, e) || time_one(t, ev, &ms, e)) goto fail;
    }
    double start = tl_now_s();
    for (;;) {
        if (t->reset(t->ctx, e) || flush_l2(t, e)) goto fail;
        if (time_one(t, ev, &out->time_ms[out->n], e)) goto fail;
        out->n++;
        if (stop_reason(p, out->time_ms, out->n, tl_now_s() - start, &out->stopped)) break;
    }
    if (ev[0]) cudaEventDestroy(ev[0]);
    if (ev[1]) cudaEventDestroy(ev[1]);
    return 0;
fail:
    if (ev[0]) cudaEventDestroy(ev[0]);
    if (ev[1]) cudaEventDestroy(ev[1]);
    return -1;
}

void measure_samples_free(measure_samples *s)
{
    free(s->time_ms);
    memset(s, 0, sizeof *s);
}
