/* h5out: the result file, schema tilelab/1.1 (results/README.md).
 *
 * No work is lost to a crash: the file at `path` is always a complete, closed HDF5 file. Cases are
 * written into a second copy beside it (.NAME.shadow), which is closed, fsynced and swapped with
 * the first in one atomic rename (RENAME_EXCHANGE). The old copy becomes the next shadow and
 * catches up by the cases it lacks, so each case is written twice, never the whole file again.
 * A kill -9 at any moment leaves `path` holding every case committed before it; the shadow (and the
 * lock file .NAME.lock) may be left behind, and `--resume` starts from `path` again. A reader
 * that still has an old `path` open is never written under: the shadow is then made afresh.
 *
 * With a writer thread (h5out_start_writer), the commits run beside the next case instead of before
 * it: h5out_write_case queues the case and returns; the thread commits the cases one by one, in order
 * (skipped cases queued behind one go with it), and calls `saved` for each once it is in `path` (the
 * progress line: a case reported is a case kept).
 * Only that thread calls HDF5 while it runs. A failed commit stops it; the next call says why. */
#ifndef TILELAB_H5OUT_H
#define TILELAB_H5OUT_H

#include <pthread.h>

#include "runner/config/config.h"
#include "runner/exec/env.h"
#include "runner/exec/result.h"
#include "runner/store/h5util.h"
#include "runner/store/h5write.h"

/* The cases a file already holds (for --resume). */
typedef struct {
    char **ids;    /* case ids */
    char **status; /* their status */
    int *session;  /* the session that wrote each */
    int n;
    int nsessions; /* /sessions groups */
    char *shard;   /* the shard of the file's first run, /sessions/0 ("" for a whole run); NULL without */
    double wall_s, timed_s; /* run totals so far */
} h5out_existing;

typedef struct {
    int ncases;      /* results[0, ncases) are in this copy */
    int has_session; /* this run's /sessions/<k> is in it */
    int finished;    /* this run's totals are in it */
} h5out_copy;

typedef struct {
    char *path;      /* the result file */
    char *shadow;    /* the copy being written */
    char *fresh;     /* where a new copy is made before it is renamed into place */
    hid_t fapl;      /* file access: no HDF5 flock (lock_path is the writer's lock) */
    char *lock_path; /* held (flock) while this run writes */
    int lock_fd;
    h5out_copy at_path, at_shadow;
    const tl_result **results; /* this run's cases, in order; the caller keeps them alive */
    int nresults, cap;
    int session;               /* this run's /sessions index */
    const tl_experiment *x;
    const env_info *env;
    h5out_session s;           /* strings owned */
    char created_utc[32];
    double prior_wall_s, prior_timed_s; /* totals of earlier sessions */
    double wall_s, timed_s;
    double phase_s[PH_N];      /* this session's seconds per phase (the cases'), for its group */
    double write_s;            /* this session's seconds in the writer */
    double start_s;            /* (1.8) from the process's start to the first case, s (-1 unknown) */
    double start_cuda_s;       /* of it, the CUDA context (0 for a host run) */
    double start_libs_s;       /* of it, the run's GPU set-up: cuBLAS, streams, buffers, NVML */
    int finished;
    int no_exchange;           /* the file system cannot RENAME_EXCHANGE: rename + copy */
    /* The writer thread (h5out_start_writer); mu guards what follows and results, nresults, cap,
     * finished, wall_s and timed_s while it runs. */
    struct {
        int on;                /* started, not yet joined */
        pthread_t thread;
        pthread_mutex_t mu;
        pthread_cond_t cv;     /* signalled on queueing, on each commit, on failure, on stop */
        int committed;         /* results[0, committed) are in path */
        int finish;            /* h5out_finish asked for the totals' commit */
        int done;              /* and it is in path */
        int stop;              /* commit what is queued, then end */
        int failed;            /* a commit failed: err says why; nothing more is committed */
        int reported;          /* a call returned err to the caller */
        tl_err err;
        void (*saved)(void *ctx, int index, const tl_result *r);
        void *ctx;
    } w;
} h5out;

/* Takes the writer's lock of the result file path (the one h5out_open takes) into *fd, for a run that
 * writes path by other means (several workers' files merged into it); -1 with e when another runner
 * holds it. close(*fd) drops it. */
int h5out_lock(const char *path, int *fd, tl_err *e);

/* Opens the result file for this run. A new path is created (never overwriting one); an existing
 * path is an error unless resume, and then must hold the same experiment (config_sha256): *have
 * gets the cases it holds. Errors name the path; nothing is left behind on failure. */
int h5out_open(h5out *o, const char *path, const tl_experiment *x, const env_info *env, const h5out_session *s,
               int resume, h5out_existing *have, tl_err *e);
/* From here on, cases are committed by a thread of their own (see above); saved (may be NULL) is
 * called on that thread with each case's index among this run's cases once it is in `path`. */
int h5out_start_writer(h5out *o, void (*saved)(void *ctx, int index, const tl_result *r), void *ctx, tl_err *e);
/* Appends r (kept by pointer until close) and commits: when it returns 0, r is in `path`; with the
 * writer thread, r is queued (-1: an earlier commit failed, e says which cases the file keeps). */
int h5out_write_case(h5out *o, const tl_result *r, tl_err *e);
/* Waits until every queued case is in `path` (at once without the writer thread); -1 with e when a
 * commit failed. */
int h5out_drain(h5out *o, tl_err *e);
/* Run totals (overhead: wall time against the sum of timed regions), committed (after every case). */
int h5out_finish(h5out *o, double wall_s, double timed_s, tl_err *e);
/* Commits what is queued, ends the writer thread, releases the lock and removes the shadow; `path`
 * stays as last committed. */
void h5out_close(h5out *o);

void h5out_existing_free(h5out_existing *h);
/* The cases of a result file, its sessions and totals (any tilelab/1.x file). locked: this process
 * holds the file's lock (h5out_lock; h5in_open_locked). */
int h5out_read_existing(const char *path, int locked, h5out_existing *h, tl_err *e);

#endif
