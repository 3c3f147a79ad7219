/* measure: the timing protocol. Warm-up (by count and by time), then timed repetitions until the
 * stopping rule holds; every sample is kept. Device runs are timed with one CUDA event pair per
 * repetition, host runs with CLOCK_MONOTONIC. The L2 flush and the output reset sit outside the
 * timed region. In batch mode one repetition is a CUDA graph of `batch` launches and its sample is
 * the per-launch time. After each repetition the GPU's clock, temperature, power and throttle
 * reasons are read through NVML when it is there; throttled samples are flagged, never dropped. */
#ifndef TILELAB_MEASURE_H
#define TILELAB_MEASURE_H

#include <stdint.h>

#include "runner/measure/nvml.h"
#include "runner/util/util.h"

typedef struct {
    int warmup;        /* untimed runs before the first sample, at least */
    double warmup_s;   /* and untimed runs until this long has passed, s */
    int min_reps;      /* samples always taken */
    int max_reps;      /* samples at most */
    double max_noise;  /* stop once the relative standard error of the median is below this */
    double max_time_s; /* stop once the timed loop has run this long, s */
    int l2_flush;      /* 1: flush L2 before every sample (cold); 0: hot */
    int batch;         /* launches per sample (a CUDA graph on the device); 1 = one launch */
    double energy_s;   /* after the samples, runs back to back for about this long under the GPU's energy counter
                        * (measure_energy_run), s; 0: energy is not measured */
} measure_protocol;

/* The defaults written into every result file. */
extern const measure_protocol measure_defaults;
/* A dispatching case's trial of one candidate (execute_case; l2_flush as the case's): a short measurement
 * that only ranks the candidates, each of which is verified only if it then runs the case. */
extern const measure_protocol measure_trial;

typedef struct {
    double *time_ms;       /* one per repetition, ms (per launch in batch mode) */
    double *sm_clock_mhz;  /* per repetition, NAN when not read; NULL without NVML */
    double *temp_c;        /* per repetition, deg C */
    double *power_w;       /* per repetition, W */
    uint64_t *throttle;    /* per repetition, NVML clock-event reason bits */
    uint8_t *throttled;    /* per repetition, 1 when a reason slows the clock (see nvml.h) */
    int n;                 /* samples taken */
    int nthrottled;        /* samples flagged throttled */
    int warmup_runs;       /* untimed runs done */
    double timed_s;        /* sum of the timed regions, s (per sample, not per launch) */
    double warmup_s;       /* wall time of the untimed runs, s */
    double loop_s;         /* wall time of the timing loop, s (timed regions, telemetry and the rest) */
    double telemetry_s;    /* wall time of the NVML reads, s */
    const char *stopped;   /* "noise", "max_reps", "max_time" or "verify_failed" */
} measure_samples;

typedef struct {
    double median_ms, mean_ms, stdev_ms, min_ms, max_ms, p10_ms, p90_ms; /* ms */
    double noise; /* relative standard error of the median */
} measure_stats;

/* What is being timed; callbacks return 0, or -1 with e set. */
typedef struct {
    int on_device;                      /* 1: CUDA events on `stream`; 0: CLOCK_MONOTONIC */
    void *stream;                       /* cudaStream_t */
    int (*reset)(void *ctx, tl_err *e); /* before each repetition, untimed */
    int (*launch)(void *ctx, tl_err *e);
    /* Optional, after each repetition, untimed: 1 when the output is wrong (stops the loop). */
    int (*check)(void *ctx, tl_err *e);
    void *ctx;
    void *l2_buf;    /* device buffer the L2 flush overwrites, or NULL */
    size_t l2_bytes; /* its size, bytes */
    nvml_gpu *gpu;   /* telemetry, or NULL */
    /* The energy counter, mJ: 0, or -1 when there is none. NULL: the GPU's, through NVML (nvml_energy_mj). */
    int (*energy_mj)(void *ctx, unsigned long long *mj);
    /* Tests only: replaces the clock; returns the duration of repetition i, ms. */
    double (*fake_ms)(void *ctx, int i);
} measure_target;

int measure_run(const measure_protocol *p, const measure_target *t, measure_samples *out, tl_err *e);

/* Energy per run. The counter (NVML's total energy, mJ) moves only a few times a second, so one run is far
 * below its step: the runs go back to back (no reset, no L2 flush) in batches of about 2 ms, from one move of the
 * counter until the first move after energy_s seconds; the energy between the two moves over the runs between
 * them is the energy of a run. Each move lands somewhere in a batch: a batch's energy at each end, over the runs,
 * is the reading's resolution. */
typedef struct {
    const char *status;  /* NULL: not asked for; "ok"; "unavailable" (reason says why) */
    char *reason;        /* why not, or NULL */
    double j_per_run;    /* J, NAN unless ok */
    double power_w;      /* mean power between the counter's two moves, W */
    double span_s;       /* the time between them, s */
    long runs;           /* the runs between them */
    double resolution_j; /* J a run the reading may be off by */
} measure_energy;

/* Measures energy per run over p->energy_s (a run takes about run_ms); out->status says whether it could.
 * -1 with e only when a run fails. */
int measure_energy_run(const measure_protocol *p, const measure_target *t, double run_ms, measure_energy *out,
                       tl_err *e);
void measure_energy_free(measure_energy *m);
void measure_samples_free(measure_samples *s);

/* Statistics of n samples (n >= 1). */
void measure_stats_compute(const double *x, int n, measure_stats *st);
/* Text form of a protocol, stored in every case. */
char *measure_protocol_text(const measure_protocol *p);

#endif
