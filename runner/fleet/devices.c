#include "runner/fleet/devices.h"

#include <cuda_runtime.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runner/jit/compile.h"
#include "runner/exec/env.h"
#include "runner/exec/sanitize.h"
#include "runner/run/report.h"
#include "runner/search/search_driver.h"
#include "runner/store/h5in.h"
#include "runner/store/h5out.h"
#include "runner/store/merge.h"
#include "runner/store/schema.h"

extern char **environ;

/* ---- which devices ------------------------------------------------------------------------- */

static int device_count(devices_list *d, tl_err *e)
{
    const char *sim = getenv("TILELAB_TEST_DEVICES");
    if (sim && *sim) {
        char tail;
        int n;
        if (sscanf(sim, "%d%c", &n, &tail) != 1 || n < 1 || n > DEVICES_MAX) {
            tl_err_set(e, "TILELAB_TEST_DEVICES=%s: a number of devices 1 .. %d", sim, DEVICES_MAX);
            return -1;
        }
        d->simulated = 1;
        return n;
    }
    /* CUDA's first call takes 0.4 s on a node without persistence mode; made here, it spares the
     * workers most of theirs (0.25 s for CUDA's start and context against 0.58 s when they all start it
     * together: NVML's count, 10 ms, made the run slower). */
    int n = 0;
    cudaError_t rc = cudaGetDeviceCount(&n);
    if (rc != cudaSuccess || n == 0) {
        tl_err_set(e, "--devices: no CUDA device found (%s)", rc != cudaSuccess ? cudaGetErrorString(rc) : "0 devices");
        return -1;
    }
    return n;
}

int devices_parse(const char *spec, devices_list *d, tl_err *e)
{
    memset(d, 0, sizeof *d);
    int count = device_count(d, e);
    if (count < 0) return -1;
    if (!strcmp(spec, "all")) {
        d->n = count < DEVICES_MAX ? count : DEVICES_MAX;
        for (int i = 0; i < d->n; i++) d->ord[i] = i;
        return 0;
    }
    const char *s = spec;
    for (;;) {
        char *end;
        errno = 0;
        long v = strtol(s, &end, 10);
        if (end == s || errno || (*end && *end != ',')) {
            tl_err_set(e, "--devices takes `all` or device numbers like 0,2,3, not '%s'", spec);
            return -1;
        }
        if (v < 0 || v >= count) {
            tl_err_set(e, "--devices %s: device %ld does not exist here (%d device%s: 0 .. %d)", spec, v, count,
                       count > 1 ? "s" : "", count - 1);
            return -1;
        }
        for (int i = 0; i < d->n; i++)
            if (d->ord[i] == v) {
                tl_err_set(e, "--devices %s: device %ld is listed twice", spec, v);
                return -1;
            }
        if (d->n == DEVICES_MAX) {
            tl_err_set(e, "--devices %s: at most %d devices", spec, DEVICES_MAX);
            return -1;
        }
        d->ord[d->n++] = (int)v;
        if (!*end) return 0;
        s = end + 1;
    }
}

/* ---- files ----------------------------------------------------------------------------------- */

static int is_part(const struct dirent *de)
{
    size_t n = strlen(de->d_name);
    return !strncmp(de->d_name, "device-", 7) && n > 10 && !strcmp(de->d_name + n - 3, ".h5");
}

/* OUT (when it exists) and the workers' files in parts, in that order: what the merge takes. */
static int list_inputs(const char *out, const char *parts, char ***v, int *n)
{
    struct dirent **ents = NULL;
    struct stat st;
    int k = scandir(parts, &ents, is_part, alphasort);
    if (k < 0) k = 0;
    *v = tl_xcalloc((size_t)k + 2, sizeof **v);
    *n = 0;
    if (stat(out, &st) == 0) (*v)[(*n)++] = tl_xstrdup(out);
    for (int i = 0; i < k; i++) {
        (*v)[(*n)++] = tl_xasprintf("%s/%s", parts, ents[i]->d_name);
        free(ents[i]);
    }
    free(ents);
    return 0;
}

static void free_list(char **v, int n)
{
    for (int i = 0; i < n; i++) free(v[i]);
    free(v);
}

/* Drops from todo the cases path holds, after checking it is a file of this experiment and share. */
static int drop_held(const char *path, const tl_experiment *x, const char *shard, const tl_plan *p,
                     unsigned char *todo, int *held, tl_err *e)
{
    hid_t f = h5in_open(path, e);
    if (f < 0) return -1;
    char *sha = h5util_read_str(f, "config_sha256");
    H5Fclose(f);
    int same = sha && !strcmp(sha, x->sha256);
    free(sha);
    if (!same) {
        tl_err_set(e, "%s: was written by a different experiment than %s; resume it with the same experiment", path,
                   x->path);
        return -1;
    }
    h5out_existing have;
    if (h5out_read_existing(path, 0, &have, e)) return -1;
    if (have.shard && strcmp(have.shard, shard)) {
        tl_err_set(e, "%s: holds %s%s, not %s%s: resume a file with the share it was started with", path,
                   have.shard[0] ? "shard " : "the whole plan", have.shard, shard[0] ? "shard " : "the whole plan", shard);
        h5out_existing_free(&have);
        return -1;
    }
    plan_id *ids = plan_ids(p);
    for (int k = 0; k < have.n; k++) {
        int i = plan_find(ids, p->ncases, have.ids[k]);
        if (i >= 0 && todo[i]) todo[i] = 0, (*held)++;
    }
    free(ids);
    h5out_existing_free(&have);
    return 0;
}

static int write_ids(const char *path, const tl_plan *p, const int *owner, int w, tl_err *e)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        tl_err_set(e, "%s: cannot write: %s", path, strerror(errno));
        return -1;
    }
    for (int i = 0; i < p->ncases; i++)
        if (owner[i] == w) fprintf(f, "%s\n", p->cases[i].id);
    if (fclose(f) != 0) {
        tl_err_set(e, "%s: cannot write: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* ---- workers ----------------------------------------------------------------------------- */

typedef struct {
    int ord;
    int which;       /* its index in the device list, the shard of plan_assign */
    pid_t pid;
    int fd;          /* its stdout and stderr */
    char label[16];  /* "gpu1" */
    char line[4096]; /* a partial line */
    size_t len;
    int status;      /* from waitpid */
    int ncases;
    double cost;
} worker;

/* The environment of a worker: this one's, with TILELAB_DEVICE set to its device. */
static char **worker_env(int ord)
{
    int n = 0;
    while (environ[n]) n++;
    char **v = tl_xcalloc((size_t)n + 2, sizeof *v);
    int k = 0;
    for (int i = 0; i < n; i++)
        if (strncmp(environ[i], "TILELAB_DEVICE=", 15) && strncmp(environ[i], "TILELAB_REEXEC_DEPTH=", 21))
            v[k++] = environ[i];
    v[k++] = tl_xasprintf("TILELAB_DEVICE=%d", ord);
    return v;
}

/* Starts a worker; everything is made before fork, so the child only sets itself up and execs. */
static int spawn(worker *w, const char *exe, char **argv, char **env, tl_err *e)
{
    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC) < 0) {
        tl_err_set(e, "cannot make a pipe for %s: %s", w->label, strerror(errno));
        return -1;
    }
    pid_t parent = getpid();
    fflush(NULL);
    w->pid = fork();
    if (w->pid < 0) {
        tl_err_set(e, "cannot start the worker of %s: %s", w->label, strerror(errno));
        close(pfd[0]), close(pfd[1]);
        return -1;
    }
    if (w->pid == 0) {
        /* A run killed (even with -9) takes its workers with it; their files stay for --resume. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(127);
        dup2(pfd[1], 1);
        dup2(pfd[1], 2);
        execve(exe, argv, env);
        static const char msg[] = "runner: cannot start a worker (execve failed)\n";
        ssize_t ignored = write(2, msg, sizeof msg - 1);
        (void)ignored;
        _exit(127);
    }
    close(pfd[1]);
    w->fd = pfd[0];
    return 0;
}

/* Whole lines of a worker's output, each prefixed with its device. */
static void forward(worker *w, int eof)
{
    char *start = w->line, *nl;
    size_t left = w->len;
    while ((nl = memchr(start, '\n', left))) {
        fprintf(stderr, "%s | %.*s\n", w->label, (int)(nl - start), start);
        left -= (size_t)(nl - start) + 1;
        start = nl + 1;
    }
    if (left && (eof || left == sizeof w->line)) {
        fprintf(stderr, "%s | %.*s\n", w->label, (int)left, start);
        left = 0;
    }
    memmove(w->line, start, left);
    w->len = left;
    fflush(stderr);
}

/* Forwards the workers' output until each has closed it, then reaps them. */
static void follow(worker *ws, int n)
{
    struct pollfd pf[DEVICES_MAX];
    if (n < 1 || n > DEVICES_MAX) return;
    int open_fds = n;
    while (open_fds) {
        for (int i = 0; i < n; i++) pf[i] = (struct pollfd){ws[i].fd, POLLIN, 0};
        if (poll(pf, (nfds_t)n, -1) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        for (int i = 0; i < n; i++) {
            if (ws[i].fd < 0 || !(pf[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            ssize_t r = read(ws[i].fd, ws[i].line + ws[i].len, sizeof ws[i].line - ws[i].len);
            if (r > 0) {
                ws[i].len += (size_t)r;
                forward(&ws[i], 0);
            } else if (r == 0 || errno != EINTR) {
                forward(&ws[i], 1);
                close(ws[i].fd);
                ws[i].fd = -1;
                open_fds--;
            }
        }
    }
    for (int i = 0; i < n; i++)
        while (waitpid(ws[i].pid, &ws[i].status, 0) < 0 && errno == EINTR) {
        }
}

/* ---- the run --------------------------------------------------------------------------------- */

static int remove_parts(const char *parts)
{
    DIR *d = opendir(parts);
    if (!d) return errno == ENOENT ? 0 : -1;
    struct dirent *de;
    int rc = 0;
    while ((de = readdir(d))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
        char *p = tl_xasprintf("%s/%s", parts, de->d_name);
        if (unlink(p) < 0) rc = -1;
        free(p);
    }
    closedir(d);
    return rmdir(parts) < 0 ? -1 : rc;
}

/* The parts and OUT into OUT: merged into a new file beside it, which then replaces it, in the order of p (the
 * run's plan of the experiment they hold). trusted: the parts are this run's workers' alone, each closed by a
 * worker that exited (merge.h). */
static int merge_parts(const devices_opts *o, const char *parts, const tl_plan *p, int trusted, merge_report *r, tl_err *e)
{
    char **in;
    int n;
    list_inputs(o->out, parts, &in, &n);
    if (n == 0) {
        free_list(in, n);
        tl_err_set(e, "%s: no worker wrote a file", parts);
        return -1;
    }
    char *d = tl_xstrdup(o->out), *b = tl_xstrdup(o->out);
    char *tmp = tl_xasprintf("%s/.%s.devices-merge", dirname(d), basename(b));
    free(d), free(b);
    unlink(tmp); /* left by a run killed while merging */
    merge_opts mo = {.first_wins = 1, .argv_text = o->argv_text, .trusted = trusted, .plan = p};
    FILE *log = o->quiet ? fopen("/dev/null", "w") : NULL;
    int rc = merge_files(tmp, in, n, &mo, r, log ? log : stderr, e);
    if (log) fclose(log);
    if (rc == 0 && rename(tmp, o->out) < 0) {
        tl_err_set(e, "%s: cannot put the merged file in place: %s", o->out, strerror(errno));
        rc = -1;
    }
    if (rc == 0) rc = h5util_fsync_dir_of(o->out, e);
    if (rc != 0) unlink(tmp);
    free(tmp);
    free_list(in, n);
    return rc;
}

/* What the share looks like in OUT after a merge that took in files of earlier runs (or of a worker that
 * did not exit): cases present and failed. */
static int tally(const char *out, const tl_plan *p, const unsigned char *share, int *have, int *failed, tl_err *e)
{
    h5out_existing h;
    if (h5out_read_existing(out, 1, &h, e)) return -1; /* devices_run holds its lock */
    *have = *failed = 0;
    plan_id *ids = plan_ids(p);
    for (int k = 0; k < h.n; k++) {
        int i = plan_find(ids, p->ncases, h.ids[k]);
        if (i < 0 || !share[i]) continue;
        (*have)++;
        *failed += sch_status_failed(h.status[k]);
    }
    free(ids);
    h5out_existing_free(&h);
    return 0;
}

/* The closing table that a run on one GPU prints, for the cases this run's workers ran (ran[i]), from OUT's
 * /summary (the merge wrote it moments ago, in plan order); the share's cases from earlier sessions in one line. */
static int print_table(const char *out, const tl_experiment *x, const tl_plan *p, const unsigned char *ran,
                       const unsigned char *share, tl_err *e)
{
    const char *where = out;
    hid_t f = -1, d = -1, type = -1, space = -1;
    hsize_t n = 0;
    h5util_summary_row *rows = NULL;
    tl_result *res = NULL;
    plan_id *ids = NULL;
    int rc = -1;
    if ((f = h5util_open_result(out, e)) < 0) return -1;
    H5_CHECK(type = h5util_summary_type());
    H5_CHECK(d = H5Dopen2(f, "/summary", H5P_DEFAULT));
    H5_CHECK(space = H5Dget_space(d));
    H5_CHECK(H5Sget_simple_extent_dims(space, &n, NULL));
    rows = tl_xcalloc((size_t)n + 1, sizeof *rows);
    if (n) H5_CHECK(H5Dread(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows));
    res = tl_xcalloc((size_t)n + 1, sizeof *res);
    ids = plan_ids(p);
    int nres = 0, earlier = 0, failed_earlier = 0;
    for (hsize_t k = 0; k < n; k++) {
        int i = rows[k].case_id && rows[k].status ? plan_find(ids, p->ncases, rows[k].case_id) : -1;
        if (i < 0 || !share[i]) continue;
        int bad = sch_status_failed(rows[k].status);
        if (!ran[i]) {
            earlier++, failed_earlier += bad;
            continue;
        }
        tl_result *r = &res[nres++];
        r->c = &p->cases[i];
        r->status = rows[k].status;
        r->st.median_ms = rows[k].median_ms;
        r->gflops = rows[k].gflops, r->gbs = rows[k].gbs;
        r->samples.n = rows[k].reps;
    }
    if (nres) report_table(stdout, x, res, nres);
    if (earlier)
        printf("and %d cases from earlier sessions (%d failed)\n", earlier, failed_earlier);
    rc = 0;
fail:
    if (rows && n && type >= 0 && space >= 0) H5Dvlen_reclaim(type, space, H5P_DEFAULT, rows);
    free(rows), free(res), free(ids);
    if (space >= 0) H5Sclose(space);
    if (d >= 0) H5Dclose(d);
    if (type >= 0) H5Tclose(type);
    H5Fclose(f);
    return rc;
}

/* Starts a worker process for each of ws[0, nw): `runner run` of the experiment into its file in parts, with the cases
 * owner gives it; the number started (fewer after a failure, said on stderr). */
static int start_workers(const devices_opts *o, const tl_experiment *x, const tl_plan *p, const int *owner,
                         const char *parts, int out_exists, worker *ws, int nw)
{
    tl_err e;
    int jobs = o->compile_jobs < 0 ? compile_default_threads() : o->compile_jobs;
    int started = 0;
    for (int k = 0; k < nw; k++) {
        worker *w = &ws[k];
        char *ids = tl_xasprintf("%s/device-%d.ids", parts, w->ord), *part = tl_xasprintf("%s/device-%d.h5", parts, w->ord);
        char njobs[16];
        snprintf(njobs, sizeof njobs, "%d", jobs / nw > 0 ? jobs / nw : 1);
        char *argv[20];
        int a = 0;
        argv[a++] = (char *)o->argv0;
        argv[a++] = "run";
        argv[a++] = (char *)o->yaml;
        argv[a++] = "-o", argv[a++] = part;
        argv[a++] = "--resume";
        argv[a++] = "--worker-cases", argv[a++] = ids;
        argv[a++] = "--compile-jobs", argv[a++] = njobs;
        if (o->shard_text[0]) argv[a++] = "--shard", argv[a++] = (char *)o->shard_text;
        if (x->search && out_exists) argv[a++] = "--search-held", argv[a++] = (char *)o->out;
        if (o->quiet) argv[a++] = "-q";
        if (o->sanitize) argv[a++] = "--sanitize", argv[a++] = (char *)o->sanitize;
        argv[a] = NULL;
        char **env = worker_env(w->ord);
        int bad = write_ids(ids, p, owner, w->which, &e) || spawn(w, o->runner, argv, env, &e);
        for (int i = 0; env[i]; i++)
            if (!env[i + 1]) free(env[i]); /* the last: its TILELAB_DEVICE */
        free(env), free(ids), free(part);
        if (bad) {
            fprintf(stderr, "runner: %s\n", e.msg);
            break;
        }
        started++;
    }
    return started;
}

static int workers_exited(const worker *ws, int started)
{
    for (int k = 0; k < started; k++)
        if (!WIFEXITED(ws[k].status)) return 0;
    return 1;
}

/* The run's exit code from its workers': the worst of theirs; a worker killed, stopped on its own or never started
 * is a failed run (what the others finished is kept), said on stderr. */
static int worst_exit(const worker *ws, int started, int nw)
{
    int worst = 0;
    for (int k = 0; k < started; k++) {
        int s = ws[k].status, code = WIFEXITED(s) ? WEXITSTATUS(s) : -1;
        if (code == TL_EXIT_OK || code == TL_EXIT_FAILED || code == TL_EXIT_BAD_INPUT) {
            worst = code > worst ? code : worst;
            continue;
        }
        worst = worst < TL_EXIT_FAILED ? TL_EXIT_FAILED : worst;
        if (WIFSIGNALED(s))
            fprintf(stderr, "runner: the worker of %s was killed by signal %d; the cases it finished are kept\n",
                    ws[k].label, WTERMSIG(s));
        else
            fprintf(stderr, "runner: the worker of %s stopped with exit code %d; the cases it finished are kept\n",
                    ws[k].label, code);
    }
    return started < nw && worst < TL_EXIT_FAILED ? TL_EXIT_FAILED : worst;
}

int devices_run(const devices_opts *o, const devices_list *d, const tl_experiment *x, const tl_plan *p, const unsigned char *share)
{
    tl_err e;
    struct stat st;
    int lock = -1, rc = TL_EXIT_BAD_INPUT, held = 0, nshare = 0, nw = 0;
    char *parts = run_parts_dir(o->out), **in = NULL;
    int nin = 0;
    unsigned char *todo = tl_xcalloc((size_t)p->ncases + 1, 1);
    int *owner = tl_xcalloc((size_t)p->ncases + 1, sizeof *owner);
    worker *ws = tl_xcalloc(DEVICES_MAX, sizeof *ws);
    double t0 = tl_now_s();

    if (h5out_lock(o->out, &lock, &e)) goto bad;
    int out_exists = stat(o->out, &st) == 0, parts_exist = stat(parts, &st) == 0;
    if (parts_exist && !out_exists) {
        /* Workers that stopped before writing anything (bad input) leave only their case lists. */
        list_inputs(o->out, parts, &in, &nin);
        if (nin == 0 && remove_parts(parts) == 0) parts_exist = 0;
        free_list(in, nin);
        in = NULL, nin = 0;
    }
    if (!o->resume && (out_exists || parts_exist)) {
        tl_err_set(&e, "%s: exists; result files are never overwritten (--resume continues it)",
                   out_exists ? o->out : parts);
        goto bad;
    }
    if (!parts_exist && mkdir(parts, 0755) < 0) {
        tl_err_set(&e, "%s: cannot create: %s", parts, strerror(errno));
        goto bad;
    }
    /* What earlier sessions hold: OUT, and the workers' files of a run that was stopped. */
    for (int i = 0; i < p->ncases; i++) nshare += todo[i] = share[i];
    list_inputs(o->out, parts, &in, &nin);
    for (int k = 0; k < nin; k++)
        if (drop_held(in[k], x, o->shard_text, p, todo, &held, &e)) goto bad;
    /* A search's problem may go to another worker than the one whose file holds its evaluations so far, and its
     * strategy needs them all: what the workers' files of an earlier session hold goes into OUT first, and
     * each worker reads OUT (--search-held). */
    if (x->search && nin > out_exists) {
        merge_report mr;
        if (merge_parts(o, parts, p, 0, &mr, &e)) goto bad;
        if (remove_parts(parts) || mkdir(parts, 0755) < 0) {
            tl_err_set(&e, "%s: cannot clear the workers' files (merged into %s): %s", parts, o->out, strerror(errno));
            goto bad;
        }
        out_exists = 1;
    }
    if (plan_assign(p, todo, d->n, owner)) goto bad;
    for (int k = 0; k < d->n; k++) {
        worker *w = &ws[nw];
        memset(w, 0, sizeof *w);
        w->ord = d->ord[k];
        snprintf(w->label, sizeof w->label, "%s%d", d->simulated ? "sim" : "gpu", w->ord);
        for (int i = 0; i < p->ncases; i++)
            if (owner[i] == k) w->ncases++, w->cost += plan_cost(&p->cases[i]);
        /* With nothing at all to merge, one worker still writes the (empty) file. */
        w->which = k;
        if (w->ncases || (k == 0 && nin == 0)) nw++;
    }
    if (!o->quiet) {
        fprintf(stderr, "tilelab: %d of the %d cases%s%s to run on %d device%s", nshare - held, p->ncases,
                o->shard_text[0] ? " of shard " : "", o->shard_text, nw, nw == 1 ? "" : "s");
        if (held) fprintf(stderr, " (%d already in %s)", held, out_exists ? o->out : parts);
        fputc('\n', stderr);
        for (int k = 0; k < nw; k++)
            fprintf(stderr, "  %s: %d cases, expected %.1f s\n", ws[k].label, ws[k].ncases, ws[k].cost);
    }
    int started = start_workers(o, x, p, owner, parts, out_exists, ws, nw);
    double t_follow = tl_now_s();
    follow(ws, started);
    double t_merge = tl_now_s();
    /* Only this run's workers wrote files (none held from before), and each of them exited. */
    int trusted = nin == 0 && workers_exited(ws, started);
    int worst = worst_exit(ws, started, nw);
    int have = 0, failed = 0;
    merge_report r;
    int merged = merge_parts(o, parts, p, trusted, &r, &e);
    if (merged == 0 && trusted) have = r.ncases, failed = r.failed; /* the merge's own count */
    else if (merged == 0) merged = tally(o->out, p, share, &have, &failed, &e);
    if (merged) {
        fprintf(stderr, "runner: %s\nrunner: the workers' files are kept in %s; `--resume` merges them\n", e.msg, parts);
        rc = worst == TL_EXIT_BAD_INPUT ? worst : TL_EXIT_FAILED;
        goto out;
    }
    if (remove_parts(parts))
        fprintf(stderr, "tilelab: warning: %s: cannot remove the workers' files (merged into %s)\n", parts, o->out);
    double t_end = tl_now_s(), age = tl_process_age_s();
    if (print_table(o->out, x, p, todo, share, &e)) fprintf(stderr, "tilelab: warning: %s\n", e.msg);
    printf("results: %s: %d of the %d cases%s%s%s (%d failed), %.1f s on %d device%s; `bazel run //analysis:summary "
           "-- %s` shows them\n", o->out, have, nshare, x->search ? " (a search runs a budget of them)" : "",
           o->shard_text[0] ? " of shard " : "", o->shard_text, failed, t_end - t0, nw, nw == 1 ? "" : "s", o->out);
    fflush(stdout);
    /* Where the command's own time went, beside the workers' sessions (their lines above). */
    fprintf(stderr, "tilelab: %.2f s from this runner's start to its workers' start, %.2f s of workers, %.2f s merging\n",
            age >= 0 ? age - (t_end - t_follow) : t_follow - t0, t_merge - t_follow, t_end - t_merge);
    /* A search's share is whole when its searches are done, not when the file holds every case of the plan. */
    int missing = nshare - have, unfinished = missing > 0;
    if (x->search && search_share_unfinished(o->out, x, p, share, &unfinished, &e)) {
        fprintf(stderr, "runner: %s\n", e.msg);
        unfinished = 1;
    }
    if (unfinished && x->search)
        fprintf(stderr, "runner: the search is not finished; continue with --resume -o %s\n", o->out);
    else if (unfinished)
        fprintf(stderr, "runner: %d cases are missing; continue with --resume -o %s\n", missing, o->out);
    rc = worst == TL_EXIT_BAD_INPUT ? worst : (worst || failed || unfinished) ? TL_EXIT_FAILED : TL_EXIT_OK;
    goto out;
bad:
    fprintf(stderr, "runner: %s\n", e.msg);
out:
    if (lock >= 0) close(lock);
    free_list(in, nin);
    free(parts), free(todo), free(owner), free(ws);
    return rc;
}

int devices_run_experiment(const run_opts *o, tl_experiment *x, int argc, char **argv)
{
    tl_plan p = {0};
    env_info env = {0};
    unsigned char *todo = NULL;
    devices_list d;
    tl_err e;
    char *path = NULL, *argv_text = NULL;
    int rc = TL_EXIT_BAD_INPUT;
    env_host(&env);
    plan_limits lim = {0, env.host_mem_bytes / 2, NULL};
    if (plan_expand(x, &lim, &p, &e) || !(todo = run_share_of(o, &p, &e)) || devices_parse(o->devices, &d, &e) ||
        !(path = run_output_path(o, x, &e))) {
        fprintf(stderr, "runner: %s\n", e.msg);
        goto out;
    }
    if (d.simulated && run_needs_gpu(&p)) {
        fprintf(stderr, "runner: TILELAB_TEST_DEVICES simulates devices for host-target cases only; %s has GPU "
                        "variants\n", o->yaml);
        goto out;
    }
    argv_text = tl_join_words(argc, argv);
    devices_opts dopt = {"/proc/self/exe", argv[0], o->yaml, path, o->shard_text, argv_text, o->resume, o->quiet,
                     o->compile_jobs, o->sanitize ? sanitize_tool_names[o->sanitize] : NULL};
    rc = devices_run(&dopt, &d, x, &p, todo);
out:
    free(todo);
    plan_free(&p);
    free(path), free(argv_text);
    return rc;
}
