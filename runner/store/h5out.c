#include "runner/store/h5out.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runner/store/h5in.h"
#include "runner/store/h5src.h"
#include "runner/store/h5write.h"

/* TILELAB_TEST_CRASH_AT=POINT:N kills the runner (SIGKILL, as kill -9 would) the Nth time it passes
 * POINT: for the fault tests, which must hit the moments inside a commit. Never set otherwise. */
static void crash_point(const char *point)
{
    static int seen[8];
    static const char *const points[] = {"case_written", "shadow_closed", "exchanged", "created", NULL};
    const char *v = getenv("TILELAB_TEST_CRASH_AT");
    if (!v) return;
    size_t n = strlen(point);
    if (strncmp(v, point, n) || v[n] != ':') return;
    for (int i = 0; points[i]; i++)
        if (!strcmp(points[i], point) && ++seen[i] == atoi(v + n + 1)) raise(SIGKILL);
}

/* What h5write takes of the run: the shadow copy it writes into, and the run's facts. */
static h5write_run run_of(const h5out *o)
{
    return (h5write_run){o->shadow, o->x, o->env, o->s, o->session, o->created_utc};
}

/* ---- commits ------------------------------------------------------------------------------- */

/* Swaps shadow and path; without RENAME_EXCHANGE (e.g. NFS), renames the shadow over path, which
 * is atomic too, and leaves no shadow (*gone = 1). */
static int exchange(h5out *o, int *gone, tl_err *e)
{
    *gone = 0;
    if (!o->no_exchange) {
        if (renameat2(AT_FDCWD, o->shadow, AT_FDCWD, o->path, RENAME_EXCHANGE) == 0) return h5util_fsync_dir_of(o->path, e);
        if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP && errno != EOPNOTSUPP) {
            tl_err_set(e, "%s: cannot swap in the new copy %s: %s", o->path, o->shadow, strerror(errno));
            return -1;
        }
        o->no_exchange = 1;
    }
    if (rename(o->shadow, o->path) < 0) {
        tl_err_set(e, "%s: cannot rename %s over it: %s", o->path, o->shadow, strerror(errno));
        return -1;
    }
    *gone = 1;
    return h5util_fsync_dir_of(o->path, e);
}

/* 1 when another process has the shadow open (it was `path` until the last swap, and a reader,
 * e.g. analysis, opened it then): HDF5 holds a shared flock on a file it has open. */
static int shadow_in_use(const h5out *o)
{
    int fd = open(o->shadow, O_RDONLY | O_CLOEXEC), busy = 0;
    if (fd < 0) return 1; /* missing or unreadable: make it again */
    if (flock(fd, LOCK_EX | LOCK_NB) < 0) busy = errno == EWOULDBLOCK;
    close(fd); /* drops the lock */
    return busy;
}

/* 1 when a shadow `behind` cases behind path (the writer took a big batch into path last time) is better
 * made afresh from it: a case group costs HDF5 about 0.3 ms to write, its 7 - 20 KB a few microseconds to
 * copy; so a copy of path when path is at most 32 KB for each case the shadow lacks (a resumed file may be
 * far larger than this run's cases). */
static int far_behind(const h5out *o, int behind)
{
    struct stat st;
    return behind >= 64 && stat(o->path, &st) == 0 && (uint64_t)st.st_size <= (uint64_t)behind * 32768u;
}

/* Brings the shadow up to date (this run's session, every case, totals), then makes it `path`.
 * On failure path is as it was, and the shadow is made again from it by the next commit. */
static int commit(h5out *o, const tl_result *const *results, int nresults, int finished, tl_err *e)
{
    const char *where = o->shadow;
    h5out_copy *c = &o->at_shadow;
    int gone = 0;
    if (c->ncases >= 0 && shadow_in_use(o)) c->ncases = -1;
    if (c->ncases >= 0 && far_behind(o, o->at_path.ncases - c->ncases)) c->ncases = -1;
    if (c->ncases < 0) {
        /* A fresh inode: whoever still reads the old one keeps reading what it was. */
        if (h5util_copy_file(o->path, o->fresh, e)) return -1;
        if (rename(o->fresh, o->shadow) < 0) {
            tl_err_set(e, "%s: cannot rename %s: %s", o->shadow, o->fresh, strerror(errno));
            return -1;
        }
        *c = o->at_path;
    }
    hid_t f = H5Fopen(o->shadow, H5F_ACC_RDWR, o->fapl);
    if (f < 0) {
        char why[512];
        h5util_last_error(why, sizeof why);
        tl_err_set(e, "%s: cannot open the working copy of %s: %s", o->shadow, o->path, why);
        c->ncases = -1;
        return -1;
    }
    /* A resumed file gets this run's session, and its sources if it was written without them. */
    h5write_run run = run_of(o);
    if (!c->has_session && (h5write_session(&run, f, e) || h5src_add_store(f, where, &o->x->store, e))) goto fail;
    for (int i = c->ncases; i < nresults; i++) {
        if (h5write_case(f, where, results[i], o->session, &o->x->store, e)) goto fail;
        crash_point("case_written");
    }
    if (finished && !c->finished) {
        char name[64];
        hid_t g = -1;
        snprintf(name, sizeof name, "/sessions/%d", o->session);
        H5_CHECK(g = H5Gopen2(f, name, H5P_DEFAULT));
        herr_t rc = h5util_put_f64(g, SCH_SESSION_WALL_S, o->wall_s) | h5util_put_f64(g, SCH_SESSION_TIMED_S, o->timed_s);
        /* Schema 1.5: where the session's wall time went (the cases' phases, the writer's time). */
        for (int p = 0; p < PH_N; p++) rc |= h5util_put_f64(g, SCH_SESSION_T_COMPILE_S + p, o->phase_s[p]);
        rc |= h5util_put_f64(g, SCH_SESSION_T_WRITE_S, o->write_s);
        /* Schema 1.8: the process's start-up before the first case, outside wall_s. */
        rc |= h5util_put_f64(g, SCH_SESSION_T_START_S, o->start_s) | h5util_put_f64(g, SCH_SESSION_T_START_CUDA_S, o->start_cuda_s) |
              h5util_put_f64(g, SCH_SESSION_T_START_LIBS_S, o->start_libs_s);
        H5Gclose(g);
        H5_CHECK(rc);
        H5_CHECK(h5util_put_f64(f, SCH_ROOT_WALL_S, o->prior_wall_s + o->wall_s));
        H5_CHECK(h5util_put_f64(f, SCH_ROOT_TIMED_S, o->prior_timed_s + o->timed_s));
    }
    herr_t closed = h5util_fclose(f);
    f = -1; /* closed even when it failed: never closed twice */
    H5_CHECK(closed);
    crash_point("shadow_closed");
    if (h5util_fsync_path(o->shadow, e) || exchange(o, &gone, e)) goto fail;
    h5out_copy now = {nresults, 1, finished};
    o->at_shadow = gone ? (h5out_copy){-1, 0, 0} : o->at_path;
    o->at_path = now;
    crash_point("exchanged");
    return 0;
fail:
    if (f >= 0) h5util_fclose(f);
    c->ncases = -1; /* half-written: made again from path */
    return -1;
}

/* The writer thread: commits every case queued since its last commit in one, in order, then the
 * totals (a kill -9 between a commit and its `saved` leaves the cases of that commit in the file
 * unreported, never a reported case out of it). A commit's fsyncs and swap cost milliseconds whatever
 * it holds: one a case made a tuning shard of 59436 cases, 47677 of them skipped, wait 130 s for its
 * writer after its last case, and sgemm_odd (9724 cases run, most of them a few milliseconds) 30 s of
 * its 50 on the H100 (docs/gpu-runs.md: where a sweep's time goes). */
static void *writer_main(void *arg)
{
    h5out *o = arg;
    /* TILELAB_TEST_COMMIT_EACH: the fault tests' crash points name the Nth commit of a run, which needs a
     * commit a case to come at all. Never set otherwise. */
    const int commit_each = getenv("TILELAB_TEST_COMMIT_EACH") != NULL;
    const tl_result **mine = NULL;
    int cap = 0;
    pthread_mutex_lock(&o->w.mu);
    for (;;) {
        while (!o->w.failed && o->w.committed == o->nresults && !(o->w.finish && !o->w.done) && !o->w.stop)
            pthread_cond_wait(&o->w.cv, &o->w.mu);
        if (o->w.failed) break;
        int n = o->nresults;
        if (commit_each) { /* tests only: a commit a case (and the skipped cases after it) */
            n = o->w.committed < o->nresults ? o->w.committed + 1 : o->nresults;
            while (n < o->nresults && !strcmp(o->results[n]->status, "skipped")) n++;
        }
        int fin = n == o->nresults && o->w.finish && !o->w.done;
        if (n == o->w.committed && !fin) break; /* stop, and nothing is queued */
        if (n > cap) {
            cap = n > 2 * cap ? n : 2 * cap;
            mine = realloc(mine, sizeof *mine * (size_t)cap);
            if (!mine) abort();
        }
        memcpy(mine, o->results, sizeof *mine * (size_t)n); /* main may grow results meanwhile */
        pthread_mutex_unlock(&o->w.mu);
        tl_err e;
        int rc = commit(o, mine, n, fin, &e);
        if (rc == 0 && o->w.saved)
            for (int i = o->w.committed; i < n; i++) o->w.saved(o->w.ctx, i, mine[i]);
        pthread_mutex_lock(&o->w.mu);
        if (rc) {
            o->w.failed = 1;
            o->w.err = e;
            tl_err_wrap(&o->w.err, "%s keeps the cases before case %d of this run", o->path, o->w.committed + 1);
            o->w.reported = 0;
        } else {
            o->w.committed = n;
            o->w.done |= fin;
        }
        pthread_cond_broadcast(&o->w.cv);
    }
    pthread_cond_broadcast(&o->w.cv);
    pthread_mutex_unlock(&o->w.mu);
    free(mine);
    return NULL;
}

int h5out_start_writer(h5out *o, void (*saved)(void *ctx, int index, const tl_result *r), void *ctx, tl_err *e)
{
    if (o->w.on) return 0;
    o->w.committed = o->nresults;
    o->w.finish = o->w.stop = o->w.failed = o->w.done = o->w.reported = 0;
    o->w.saved = saved;
    o->w.ctx = ctx;
    if (pthread_mutex_init(&o->w.mu, NULL) || pthread_cond_init(&o->w.cv, NULL)) {
        tl_err_set(e, "%s: cannot make the writer thread's lock", o->path);
        return -1;
    }
    int rc = pthread_create(&o->w.thread, NULL, writer_main, o);
    if (rc) {
        pthread_cond_destroy(&o->w.cv);
        pthread_mutex_destroy(&o->w.mu);
        tl_err_set(e, "%s: cannot start the writer thread: %s", o->path, strerror(rc));
        return -1;
    }
    o->w.on = 1;
    return 0;
}

/* Ends the writer thread after it committed what was queued; -1 with e if a commit failed. */
static int stop_writer(h5out *o, tl_err *e)
{
    if (!o->w.on) return 0;
    pthread_mutex_lock(&o->w.mu);
    o->w.stop = 1;
    pthread_cond_broadcast(&o->w.cv);
    pthread_mutex_unlock(&o->w.mu);
    pthread_join(o->w.thread, NULL);
    o->w.on = 0;
    pthread_cond_destroy(&o->w.cv);
    pthread_mutex_destroy(&o->w.mu);
    if (o->w.failed) {
        if (e) *e = o->w.err;
        return -1;
    }
    return 0;
}

/* h5out_close: a failed commit that no call has reported yet (the run stopped for another reason). */
static void stop_writer_quietly(h5out *o)
{
    int reported = o->w.reported;
    tl_err e;
    if (stop_writer(o, &e) && !reported) fprintf(stderr, "runner: %s\n", e.msg);
}

int h5out_write_case(h5out *o, const tl_result *r, tl_err *e)
{
    if (o->w.on) pthread_mutex_lock(&o->w.mu);
    if (o->w.on && o->w.failed) {
        *e = o->w.err;
        o->w.reported = 1;
        pthread_mutex_unlock(&o->w.mu);
        return -1;
    }
    if (o->nresults == o->cap) {
        o->cap = o->cap ? 2 * o->cap : 64;
        o->results = realloc(o->results, sizeof *o->results * (size_t)o->cap);
        if (!o->results) abort();
    }
    o->results[o->nresults++] = r;
    if (o->w.on) {
        pthread_cond_broadcast(&o->w.cv);
        pthread_mutex_unlock(&o->w.mu);
        return 0;
    }
    if (commit(o, o->results, o->nresults, o->finished, e)) {
        o->nresults--;
        tl_err_wrap(e, "%s keeps the cases before this one", o->path);
        return -1;
    }
    return 0;
}

int h5out_drain(h5out *o, tl_err *e)
{
    if (!o->w.on) return 0;
    pthread_mutex_lock(&o->w.mu);
    while (!o->w.failed && o->w.committed < o->nresults) pthread_cond_wait(&o->w.cv, &o->w.mu);
    int rc = o->w.failed ? -1 : 0;
    if (rc) *e = o->w.err, o->w.reported = 1;
    pthread_mutex_unlock(&o->w.mu);
    return rc;
}

int h5out_finish(h5out *o, double wall_s, double timed_s, tl_err *e)
{
    if (!o->w.on) {
        o->wall_s = wall_s;
        o->timed_s = timed_s;
        o->finished = 1;
        return commit(o, o->results, o->nresults, 1, e);
    }
    pthread_mutex_lock(&o->w.mu);
    o->wall_s = wall_s;
    o->timed_s = timed_s;
    o->w.finish = 1;
    pthread_cond_broadcast(&o->w.cv);
    while (!o->w.failed && !o->w.done) pthread_cond_wait(&o->w.cv, &o->w.mu);
    o->w.reported |= o->w.failed;
    pthread_mutex_unlock(&o->w.mu);
    return stop_writer(o, e);
}

/* ---- open and close ---------------------------------------------------------------------------- */

/* path's folder and base name, as "<dir>/.<base><suffix>". */
static char *sibling(const char *path, const char *suffix)
{
    char *d = tl_xstrdup(path), *b = tl_xstrdup(path);
    char *out = tl_xasprintf("%s/.%s%s", dirname(d), basename(b), suffix);
    free(d), free(b);
    return out;
}

int h5out_lock(const char *path, int *fd, tl_err *e)
{
    char *lock = sibling(path, ".lock");
    *fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (*fd < 0) tl_err_set(e, "%s: cannot create the result file here: %s", path, strerror(errno));
    else if (flock(*fd, LOCK_EX | LOCK_NB) < 0) {
        tl_err_set(e, "%s: another runner is writing this file (it holds %s)", path, lock);
        close(*fd);
        *fd = -1;
    }
    free(lock);
    return *fd < 0 ? -1 : 0;
}

static int take_lock(h5out *o, tl_err *e)
{
    o->lock_fd = open(o->lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (o->lock_fd < 0) {
        tl_err_set(e, "%s: cannot create the result file here: %s", o->path, strerror(errno));
        return -1;
    }
    if (flock(o->lock_fd, LOCK_EX | LOCK_NB) < 0) {
        tl_err_set(e, "%s: another runner is writing this file (it holds %s)", o->path, o->lock_path);
        close(o->lock_fd);
        o->lock_fd = -1;
        return -1;
    }
    return 0;
}

/* A new result file: the header is written into the shadow, and a copy of it linked in as path, so
 * that path appears complete or not at all, and an existing file is never replaced. */
static int create_new(h5out *o, tl_err *e)
{
    const char *where = o->shadow, *fresh = o->fresh;
    int rc = -1;
    hid_t f = H5Fcreate(o->shadow, H5F_ACC_TRUNC, H5P_DEFAULT, o->fapl);
    if (f < 0) {
        char why[512];
        h5util_last_error(why, sizeof why);
        tl_err_set(e, "%s: cannot create the result file: %s", o->path, why);
        goto out;
    }
    h5write_run run = run_of(o);
    if (h5write_header(&run, f, e)) goto fail;
    herr_t closed = h5util_fclose(f);
    f = -1; /* closed even when it failed: never closed twice */
    H5_CHECK(closed);
    if (h5util_fsync_path(o->shadow, e) || h5util_copy_file(o->shadow, fresh, e)) goto out;
    if (link(fresh, o->path) < 0) {
        int err = errno;
        if (err == EEXIST) {
            tl_err_set(e, "%s: exists; result files are never overwritten (--resume continues one)", o->path);
            goto out;
        }
        /* No hard links here: rename, after checking again that path is still free. */
        struct stat st;
        if (stat(o->path, &st) == 0 || rename(fresh, o->path) < 0) {
            tl_err_set(e, "%s: cannot create: %s", o->path, strerror(err));
            goto out;
        }
    }
    if (h5util_fsync_dir_of(o->path, e)) goto out;
    o->at_path = o->at_shadow = (h5out_copy){0, 1, 0};
    crash_point("created");
    rc = 0;
    goto out;
fail:
    if (f >= 0) h5util_fclose(f);
out:
    unlink(fresh);
    return rc;
}

/* Counts /sessions/<k> and reads the totals of a file being resumed. */
static int check_resumable(h5out *o, h5out_existing *have, tl_err *e)
{
    hid_t f = H5Fopen(o->path, H5F_ACC_RDONLY, o->fapl);
    if (f < 0) {
        tl_err_set(e, "%s: cannot open it to resume", o->path);
        return -1;
    }
    char *sha = h5util_read_str(f, "config_sha256");
    int rc = -1;
    if (!sha || strcmp(sha, o->x->sha256)) {
        tl_err_set(e, "%s: was written by a different experiment (config_sha256 %.12s..., %s is %.12s...); "
                      "resume it with the same file, or write a new one", o->path, sha ? sha : "?", o->x->path,
                   o->x->sha256);
    } else if (have->nsessions == 0) {
        tl_err_set(e, "%s: written before tilelab/1.1 (no /sessions), cannot be resumed; run into a new file", o->path);
    } else if (h5src_check_store(f, o->path, &o->x->store, e)) {
        /* e says which kernel source changed */
    } else if (have->shard && strcmp(have->shard, o->s.shard)) {
        tl_err_set(e, "%s: holds %s%s, not %s%s: resume a file with the share it was started with", o->path,
                   have->shard[0] ? "shard " : "the whole plan", have->shard, o->s.shard[0] ? "shard " : "the whole plan",
                   o->s.shard);
    } else {
        rc = 0;
    }
    free(sha);
    H5Fclose(f);
    return rc;
}

int h5out_open(h5out *o, const char *path, const tl_experiment *x, const env_info *env, const h5out_session *s,
               int resume, h5out_existing *have, tl_err *e)
{
    struct stat st;
    memset(o, 0, sizeof *o);
    memset(have, 0, sizeof *have);
    o->lock_fd = -1;
    o->fapl = -1;
    o->path = tl_xstrdup(path);
    o->shadow = sibling(path, ".shadow");
    o->fresh = sibling(path, ".new");
    o->lock_path = sibling(path, ".lock");
    o->x = x;
    o->env = env;
    o->s.argv_text = tl_xstrdup(s->argv_text ? s->argv_text : "");
    o->s.shard = tl_xstrdup(s->shard ? s->shard : "");
    o->s.rerun_of = s->rerun_of ? tl_xstrdup(s->rerun_of) : NULL;
    tl_utc_stamp(o->created_utc, 1);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* our own messages, not HDF5's stack dumps */
    /* Our own lock (lock_path) guards the writer; HDF5's flock would make a reader of path fail
     * the writer's next commit. */
    if ((o->fapl = H5Pcreate(H5P_FILE_ACCESS)) < 0 || H5Pset_file_locking(o->fapl, 0, 1) < 0) {
        tl_err_set(e, "%s: cannot set up HDF5 file access", path);
        goto fail;
    }
    /* One file, one writer: the lock is a sibling of the name, so the file must have no other name; and the
     * runner commits by renaming, which would put a file in place of a link. */
    if (lstat(path, &st) == 0) {
        /* Its names but the runner's own siblings (a commit killed half-way can leave the shadow or the new file
         * as a second name of it). */
        nlink_t names = st.st_nlink;
        struct stat sib;
        if (lstat(o->shadow, &sib) == 0 && sib.st_dev == st.st_dev && sib.st_ino == st.st_ino) names--;
        if (lstat(o->fresh, &sib) == 0 && sib.st_dev == st.st_dev && sib.st_ino == st.st_ino) names--;
        const char *why = S_ISLNK(st.st_mode) ? "is a symbolic link: give the path of the file it points to"
                          : !S_ISREG(st.st_mode) ? "is not a regular file (a FIFO, a device or a folder)"
                          : names > 1 ? "has other names (hard links): two runs through two of them would both "
                                        "write it; copy it to a file of its own"
                          : NULL;
        if (why) {
            tl_err_set(e, "%s: %s", path, why);
            goto fail;
        }
    }
    if (take_lock(o, e)) goto fail;
    unlink(o->fresh); /* left by a run killed while creating the file */
    if (stat(path, &st) != 0) {
        if (create_new(o, e)) goto fail;
        return 0;
    }
    if (!resume) {
        tl_err_set(e, "%s: exists; result files are never overwritten (--resume continues one)", path);
        goto fail;
    }
    if (h5out_read_existing(path, 1, have, e) || check_resumable(o, have, e)) goto fail;
    o->session = have->nsessions;
    o->prior_wall_s = have->wall_s;
    o->prior_timed_s = have->timed_s;
    /* A shadow left by a killed run may be half-written: start it afresh. */
    o->at_path = (h5out_copy){0, 0, 0};
    o->at_shadow = (h5out_copy){-1, 0, 0};
    if (commit(o, o->results, o->nresults, 0, e)) goto fail;
    return 0;
fail:
    h5out_existing_free(have);
    h5out_close(o);
    return -1;
}

void h5out_close(h5out *o)
{
    stop_writer_quietly(o);
    /* Only the lock's holder removes the shadow: another runner may be writing this file. */
    if (o->lock_fd >= 0) {
        unlink(o->shadow);
        unlink(o->lock_path);
        close(o->lock_fd);
    }
    if (o->fapl >= 0) H5Pclose(o->fapl);
    free(o->path), free(o->shadow), free(o->fresh), free(o->lock_path), free(o->results);
    free((char *)o->s.argv_text), free((char *)o->s.shard), free((char *)o->s.rerun_of);
    memset(o, 0, sizeof *o);
    o->lock_fd = -1;
    o->fapl = -1;
}

/* ---- reading back --------------------------------------------------------------------------- */

typedef struct {
    h5out_existing *h;
    int cap;
} walk;

static herr_t add_case(hid_t g, const char *name, const H5L_info_t *info, void *data)
{
    (void)info;
    walk *w = data;
    h5out_existing *h = w->h;
    hid_t c = H5Gopen2(g, name, H5P_DEFAULT);
    if (c < 0) return -1;
    char *status = h5util_read_str(c, "status");
    long long session = 0;
    h5util_read_i64(c, "session", &session);
    H5Gclose(c);
    if (h->n == w->cap) {
        w->cap = w->cap ? 2 * w->cap : 64;
        h->ids = realloc(h->ids, sizeof *h->ids * (size_t)w->cap);
        h->status = realloc(h->status, sizeof *h->status * (size_t)w->cap);
        h->session = realloc(h->session, sizeof *h->session * (size_t)w->cap);
        if (!h->ids || !h->status || !h->session) abort();
    }
    h->session[h->n] = (int)session;
    h->ids[h->n] = tl_xstrdup(name);
    h->status[h->n++] = status ? status : tl_xstrdup("?");
    return 0;
}

int h5out_read_existing(const char *path, int locked, h5out_existing *h, tl_err *e)
{
    memset(h, 0, sizeof *h);
    hid_t f = locked ? h5in_open_locked(path, e) : h5in_open(path, e), g = -1;
    int rc = -1;
    walk w = {h, 0};
    if (f < 0) return -1;
    if ((g = H5Gopen2(f, "/cases", H5P_DEFAULT)) < 0 ||
        H5Literate(g, H5_INDEX_NAME, H5_ITER_INC, NULL, add_case, &w) < 0) {
        tl_err_set(e, "%s: cannot read /cases", path);
        goto out;
    }
    H5Gclose(g);
    g = -1;
    if (H5Lexists(f, "/sessions", H5P_DEFAULT) > 0) {
        H5G_info_t info;
        if ((g = H5Gopen2(f, "/sessions", H5P_DEFAULT)) < 0 || H5Gget_info(g, &info) < 0) {
            tl_err_set(e, "%s: cannot read /sessions", path);
            goto out;
        }
        h->nsessions = (int)info.nlinks;
        hid_t first = H5Lexists(g, "0", H5P_DEFAULT) > 0 ? H5Gopen2(g, "0", H5P_DEFAULT) : -1;
        if (first >= 0) {
            h->shard = h5util_read_str(first, "shard");
            H5Gclose(first);
        }
    }
    /* Absent until a session finishes. */
    h->wall_s = h->timed_s = 0;
    h5util_read_f64(f, "wall_s", &h->wall_s);
    h5util_read_f64(f, "timed_s", &h->timed_s);
    rc = 0;
out:
    if (g >= 0) H5Gclose(g);
    H5Fclose(f);
    if (rc) h5out_existing_free(h);
    return rc;
}

void h5out_existing_free(h5out_existing *h)
{
    for (int i = 0; i < h->n; i++) free(h->ids[i]), free(h->status[i]);
    free(h->ids);
    free(h->status);
    free(h->session);
    free(h->shard);
    memset(h, 0, sizeof *h);
}
