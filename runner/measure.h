/* measure: the timing protocol. Warm-up, then timed repetitions until the stopping rule holds;
 * every sample is kept. Device runs are timed with one CUDA event pair per repetition, host runs
 * with CLOCK_MONOTONIC. The L2 flush and the output reset sit outside the timed region. */
#ifndef TILELAB_MEASURE_H
#define TILELAB_MEASURE_H

#include "runner/util.h"

typedef struct {
    int warmup;        /* untimed runs before the first sample */
    int min_reps;      /* samples always taken */
    int max_reps;      /* samples at most */
    double max_noise;  /* stop once the relative standard error of the median is below this */
    double max_time_s; /* stop once the timed loop has run this long, s */
    int l2_flush;      /* 1: flush L2 before every sample (cold); 0: hot */
} measure_protocol;

/* The defaults written into every result file. */
extern const measure_protocol measure_defaults;

typedef struct {
    double *time_ms;     /* one per repetition, ms */
    int n;               /* samples taken */
    const char *stopped; /* "noise", "max_reps" or "max_time" */
} measure_samples;

typedef struct {
    double median_ms, mean_ms, stdev_ms, min_ms, max_ms, p10_ms, p90_ms; /* ms */
    double noise; /* relative standard error of the median */
} measure_stats;

/* What is being timed; the callbacks return 0 or -1 with e set. */
typedef struct {
    int on_device;                      /* 1: CUDA events; 0: CLOCK_MONOTONIC */
    int (*reset)(void *ctx, tl_err *e); /* before each run, untimed */
    int (*launch)(void *ctx, tl_err *e);
    void *ctx;
    void *l2_buf;    /* device buffer the L2 flush overwrites, or NULL */
    size_t l2_bytes; /* its size, bytes */
} measure_target;

int measure_run(const measure_protocol *p, const measure_target *t, measure_samples *out, tl_err *e);
void measure_samples_free(measure_samples *s);

/* Statistics of n samples (n >= 1). */
void measure_stats_compute(const double *x, int n, measure_stats *st);
/* Text form of a protocol, stored in every case. */
char *measure_protocol_text(const measure_protocol *p);

#endif
