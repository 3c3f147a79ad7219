#include "runner/run/run.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "runner/exec/env.h"
#include "runner/exec/execute.h"
#include "runner/exec/sanitize.h"
#include "runner/exec/watchdog.h"
#include "runner/jit/cache.h"
#include "runner/jit/compile.h"
#include "runner/jit/jit_helper.h"
#include "runner/ops/decl.h"
#include "runner/ops/expr.h"
#include "runner/plan/plan.h"
#include "runner/run/report.h"
#include "runner/search/search_driver.h"
#include "runner/store/h5in.h"
#include "runner/store/h5out.h"
#include "runner/store/schema.h"

/* What this run does of the plan: its shard, less the cases the file already holds. */
typedef struct {
    unsigned char *todo; /* per plan case: 1 = run it here */
    int ntodo;
    int nshare;          /* cases of the shard (all of them without --shard) */
    int nearlier;        /* of which the file already holds */
    int failed_earlier;  /* of those, verify_failed or error */
    char **retry_of;     /* --retry-failed: per plan case it runs again, the attempt it replaces (else NULL) */
    int nretry;
} run_share;

/* One run, from its plan to its closing table; everything a phase makes, the later phases and
 * run_state_free find here. */
typedef struct {
    const run_opts *o;
    tl_experiment *x;
    int argc;
    char **argv;              /* the whole command line */
    const char *rerun_of;     /* rerun: the file it runs again, else NULL */
    tl_plan p;
    env_info env;
    int use_gpu;              /* a case of the plan runs on the GPU */
    int64_t device[EXPR_NDEVICE]; /* the device's facts, for declared variants' expressions */
    run_share sh;
    char *cache;              /* the trusted kernel cache, until exec takes it */
    jit_memo memo;            /* the experiment's own kernels, compiled before any GPU work */
    counters_session *ctr;         /* hardware counters' session, or NULL */
    char *path;               /* the result file */
    char *argv_text;          /* the command line as recorded */
    execute_ctx ex;
    int have_exec;
    h5out out;
    int have_out;
    h5out_existing have;      /* --resume: the cases the file holds */
    compile_ahead *ahead;     /* threads compiling the run's kernels */
    tl_result *res;           /* this session's cases, in run order */
    int nres;
    int lost;                 /* a kernel fault lost the CUDA context: the rest is a new process's */
    double start_cuda_s;      /* the CUDA context's creation, s */
    double start_libs_s;      /* the GPU set-up (cuBLAS, streams, buffers, NVML), s */
    char *sanitizer;          /* --sanitize: compute-sanitizer */
    int gpu_gone;             /* after a restart, the GPU did not come back: not bad input, a failed run */
    search_plan sp;             /* `search:`: the plan's searches */
    search_held *held;          /* `search:`: what the file holds of each plan case (--resume) */
    search_driver *drv;         /* `search:`: which case runs next */
} run_state;

int run_needs_gpu(const tl_plan *p)
{
    for (int i = 0; i < p->ncases; i++)
        if (p->cases[i].variant->kind != REG_HOST && (!p->cases[i].skipped || p->cases[i].device_skip)) return 1;
    return 0;
}

char *run_output_path(const run_opts *o, const tl_experiment *x, tl_err *e)
{
    if (o->output) return tl_user_path(o->output);
    char stamp[32];
    tl_utc_stamp(stamp, 0);
    char *dir = tl_user_path(o->results_dir);
    if (tl_mkdir_p(dir, e)) {
        free(dir);
        return NULL;
    }
    char *path = tl_xasprintf("%s/%s-%s.h5", dir, x->name, stamp);
    struct stat st;
    for (int n = 2; stat(path, &st) == 0; n++) {
        free(path);
        path = tl_xasprintf("%s/%s-%s-%d.h5", dir, x->name, stamp, n);
    }
    free(dir);
    return path;
}

/* A --devices worker's cases: those of the shard whose ids its file lists. */
static int worker_share(const char *path, const tl_plan *p, unsigned char *todo, tl_err *e)
{
    size_t len = 0;
    char *text = tl_read_file(path, &len, e); /* a regular file: never a FIFO that blocks */
    if (!text) {
        tl_err_wrap(e, "the worker's cases");
        return -1;
    }
    unsigned char *listed = tl_xcalloc((size_t)p->ncases + 1, 1);
    plan_id *ids = plan_ids(p);
    int rc = 0, lineno = 0;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); rc == 0 && line; line = strtok_r(NULL, "\n", &save)) {
        lineno++;
        int found = plan_find(ids, p->ncases, line);
        if (found < 0 || !todo[found]) {
            char *shown = tl_shown(line);
            tl_err_set(e, "%s:%d: '%.64s' is no case of this run's share of the experiment", path, lineno, shown);
            free(shown);
            rc = -1;
        } else {
            listed[found] = 1;
        }
    }
    free(text);
    for (int i = 0; i < p->ncases; i++) todo[i] = todo[i] && listed[i];
    free(listed), free(ids);
    return rc;
}

/* Of todo, only the cases result file path holds (a rerun of a search's file measures what it evaluated). */
static int cases_held_by(const char *path, const tl_plan *p, unsigned char *todo, tl_err *e)
{
    h5out_existing h;
    if (h5out_read_existing(path, 0, &h, e)) return -1;
    unsigned char *held = tl_xcalloc((size_t)p->ncases + 1, 1);
    plan_id *ids = plan_ids(p);
    for (int k = 0; k < h.n; k++) {
        int i = plan_find(ids, p->ncases, h.ids[k]);
        if (i >= 0) held[i] = 1;
    }
    for (int i = 0; i < p->ncases; i++) todo[i] = todo[i] && held[i];
    free(held), free(ids);
    h5out_existing_free(&h);
    return 0;
}

/* The shard's cases (all of them without --shard); a worker's, of those, when it is one. */
static int select_share(const run_opts *o, const tl_plan *p, run_share *sh, tl_err *e)
{
    memset(sh, 0, sizeof *sh);
    sh->todo = tl_xcalloc((size_t)p->ncases + 1, 1);
    if (o->shard_count) {
        if (plan_shard(p, o->shard_index, o->shard_count, sh->todo)) {
            tl_err_set(e, "--shard %s: not a shard", o->shard_text);
            return -1;
        }
    } else {
        memset(sh->todo, 1, (size_t)p->ncases);
    }
    if (o->worker_cases && worker_share(o->worker_cases, p, sh->todo, e)) return -1;
    if (o->cases_of && cases_held_by(o->cases_of, p, sh->todo, e)) return -1;
    for (int i = 0; i < p->ncases; i++) sh->nshare += sh->todo[i];
    sh->ntodo = sh->nshare;
    return 0;
}

/* The first /sessions index a --retry-failed run writes, inherited by the runner's restarts: failed cases written
 * under an index before it are run again once, those written under it or after (a retry that timed out) are kept. */
#define RETRY_FROM_ENV "TILELAB_RETRY_FROM"

/* --resume: drops the cases the file already holds from the share, counting the failed ones; with retry, keeps
 * those held as failed by a session before retry_from. */
static void skip_held(const tl_plan *p, const h5out_existing *have, int retry, int retry_from, run_share *sh)
{
    plan_id *ids = plan_ids(p);
    for (int k = 0; k < have->n; k++) {
        int i = plan_find(ids, p->ncases, have->ids[k]);
        if (i < 0 || !sh->todo[i]) continue;
        if (retry && sch_status_failed(have->status[k]) && have->session[k] < retry_from) {
            if (!sh->retry_of) sh->retry_of = tl_xcalloc((size_t)p->ncases, sizeof *sh->retry_of);
            sh->retry_of[i] = tl_xasprintf("%s in session %d", have->status[k], have->session[k]);
            sh->nretry++;
            continue;
        }
        sh->todo[i] = 0;
        sh->ntodo--;
        sh->nearlier++;
        sh->failed_earlier += sch_status_failed(have->status[k]);
    }
    free(ids);
}

/* Free space for the result file: its two copies, at the protocol's largest sample counts. */
static int check_space(const char *path, const tl_plan *p, const run_share *sh, tl_err *e)
{
    char *d = tl_xstrdup(path);
    struct statvfs fs;
    int rc = statvfs(dirname(d), &fs);
    free(d);
    if (rc < 0) return 0; /* unknown: the writes will say */
    double need = 256 * 1024;
    for (int i = 0; i < p->ncases; i++)
        if (sh->todo[i]) need += 8192 + 48.0 * p->cases[i].protocol.max_reps;
    need *= 2;
    double avail = (double)fs.f_bavail * (double)fs.f_frsize;
    if (avail < need) {
        tl_err_set(e, "%s: %.1f MB free there, the result file and its working copy may need %.1f MB; free space "
                      "or choose another -o", path, avail / 1e6, need / 1e6);
        return -1;
    }
    return 0;
}

static int compile_jobs(const run_opts *o)
{
    return o->compile_jobs < 0 ? compile_default_threads() : o->compile_jobs;
}

/* The variants declared in the experiment are input like the YAML: each of their kernels that this
 * run needs is compiled before any GPU work, and one that does not compile is bad input (exit 2), with
 * no result file. The cubins stay in memo for the cases; --compile-jobs threads compile them. */
static int precompile(run_state *s)
{
    compile_list l = {0};
    compile_collect(s->x, &s->p, s->sh.todo, 1, &l);
    if (l.n == 0) return 0;
    double t0 = tl_now_s();
    if (!s->o->quiet)
        fprintf(stderr, "tilelab: compiling %d kernel%s of the experiment's own variants\n", l.n, l.n > 1 ? "s" : "");
    int failed = compile_run(&l, s->env.cc_major * 10 + s->env.cc_minor, compile_jobs(s->o), s->cache, &s->memo, stderr);
    if (failed)
        fprintf(stderr, "runner: %s: %d kernel%s of the experiment do%s not compile (above); nothing was run\n",
                s->o->yaml, failed, failed > 1 ? "s" : "", failed > 1 ? "" : "es");
    else if (!s->o->quiet)
        fprintf(stderr, "tilelab: compiled in %.1f s\n", tl_now_s() - t0);
    compile_list_free(&l);
    return failed ? -1 : 0;
}

static int wants_counters(const tl_experiment *x)
{
    for (int v = 0; v < x->nvariants; v++)
        if (x->variants[v].counters.n) return 1;
    return 0;
}

/* The counter session of a run on env's GPU: metric names this chip lacks are bad input (exit 2, before
 * any GPU work); a session that cannot collect is said once, and the run measures without counters. */
static int open_counters(const tl_experiment *x, const env_info *env, counters_session **s)
{
    tl_err e;
    *s = counters_open(env->device, NULL);
    if (counters_session_why(*s)) {
        fprintf(stderr, "tilelab: counters: not collected: %s; the cases are measured without them\n",
                counters_session_why(*s));
        return 0;
    }
    if (config_check_counters(*s, x, &e)) {
        fprintf(stderr, "%s\n", e.msg);
        return -1;
    }
    return 0;
}

/* A --devices run that was stopped left its workers' files beside path: only such a run may go on. */
static int parts_left(const char *path)
{
    struct stat st;
    char *parts = run_parts_dir(path);
    int left = stat(parts, &st) == 0;
    if (left)
        fprintf(stderr, "runner: %s holds the workers' files of a --devices run into %s that was stopped; continue it "
                        "with --devices and --resume -o %s\n", parts, path, path);
    free(parts);
    return left;
}

/* ---- the phases ----------------------------------------------------------------------------------- */

/* The plan, made again with the device's facts and memory once the GPU is up. */
static int run_plan(run_state *s)
{
    tl_err e;
    env_host(&s->env);
    plan_limits lim = {0, s->env.host_mem_bytes / 2, NULL};
    if (plan_expand(s->x, &lim, &s->p, &e)) {
        fprintf(stderr, "%s\n", e.msg);
        return -1;
    }
    s->use_gpu = run_needs_gpu(&s->p);
    if (!s->use_gpu) return 0;
    double t = tl_now_s();
    int failed = env_gpu(&s->env, &e);
    s->start_cuda_s = tl_now_s() - t;
    const char *depth = getenv("TILELAB_REEXEC_DEPTH");
    if (depth && atoi(depth) > 0 && (failed || execute_health_check(&e))) {
        /* The runner started again after a lost context or a hang, and the GPU is not back: the file keeps every
         * case done, the rest waits for the GPU (a --devices worker ends, the others go on). */
        if (s->o->worker_cases) /* the run that started it names the file and the command */
            fprintf(stderr, "runner: the GPU of this worker is unusable after its restart (%s); the worker stops, its "
                            "cases done are kept\n", e.msg);
        else
            fprintf(stderr, "runner: the GPU is unusable after the runner's restart (%s); stopping: %s keeps every "
                            "case done; continue with --resume -o %s once the GPU works\n", e.msg, s->o->output,
                    s->o->output);
        s->gpu_gone = 1;
        return -1;
    }
    if (failed) {
        if (s->rerun_of)
            fprintf(stderr, "runner rerun: %s: %s; `runner extract %s DIR` writes its experiment out\n", s->o->yaml,
                    e.msg, s->o->yaml);
        else
            fprintf(stderr, "runner: %s: %s; try experiments/host_smoke.yaml (host target) or `runner validate "
                            "%s`\n", s->o->yaml, e.msg, s->o->yaml);
        return -1;
    }
    plan_free(&s->p);
    s->device[EXPR_SMS] = s->env.sms;
    s->device[EXPR_SMEM_OPTIN] = (int64_t)s->env.smem_per_block_optin;
    s->device[EXPR_WARP] = 32;
    lim.device = s->device;
    lim.device_bytes = (uint64_t)(s->env.free_mem * 0.9) - 2 * (uint64_t)s->env.l2_bytes;
    if (plan_expand(s->x, &lim, &s->p, &e)) {
        fprintf(stderr, "%s\n", e.msg);
        return -1;
    }
    return 0;
}

/* `search:`: the plan's searches; the driver once the file says what it holds. */
static int search_prepare(run_state *s)
{
    tl_err e;
    if (!s->x->search || s->o->cases_of) return 0;
    if (search_plan_make(s->x, &s->p, &s->sp, &e)) {
        fprintf(stderr, "runner: %s\n", e.msg);
        return -1;
    }
    return 0;
}

/* A --devices worker's held outcomes from the run's file (o->search_held), for its own problems: those with a
 * case in its share. Its own file's outcomes come first. */
static int search_held_of_run(run_state *s, tl_err *e)
{
    hid_t f = h5in_open(s->o->search_held, e);
    search_held *run = NULL;
    int rc = f < 0 ? -1 : search_held_read(f, s->o->search_held, &s->p, s->x->search, &run, e);
    if (f >= 0) H5Fclose(f);
    if (rc) return -1;
    unsigned char *mine = tl_xcalloc((size_t)s->sp.nproblems + 1, 1);
    for (int i = 0; i < s->p.ncases; i++)
        if (s->sh.todo[i] && s->sp.problem_of[i] >= 0) mine[s->sp.problem_of[i]] = 1;
    if (!s->held) s->held = tl_xcalloc((size_t)s->p.ncases + 1, sizeof *s->held);
    for (int i = 0; i < s->p.ncases; i++)
        if (!s->held[i].status && run[i].status && s->sp.problem_of[i] >= 0 && mine[s->sp.problem_of[i]])
            s->held[i] = run[i];
    free(mine), free(run);
    return 0;
}

static int search_open(run_state *s)
{
    tl_err e;
    if (!s->x->search || s->o->cases_of) return 0;
    int rc = 0;
    if (s->have.n) {
        hid_t f = h5in_open_locked(s->path, &e);
        rc = f < 0 ? -1 : search_held_read(f, s->path, &s->p, s->x->search, &s->held, &e);
        if (f >= 0) H5Fclose(f);
    }
    if (rc == 0 && s->o->search_held) rc = search_held_of_run(s, &e);
    if (rc) {
        fprintf(stderr, "runner: %s\n", e.msg);
        return -1;
    }
    s->drv = search_driver_new(s->x, &s->p, &s->sp, s->sh.todo, s->held);
    return 0;
}

/* What is checked before any GPU work: counter names, this run's share, the experiment's own kernels,
 * where the file goes. */
static int run_prepare(run_state *s)
{
    tl_err e;
    char why[512];
    if (s->use_gpu && wants_counters(s->x) && open_counters(s->x, &s->env, &s->ctr)) return -1;
    if (s->use_gpu && !(s->cache = cache_dir(why, sizeof why)) && why[0])
        fprintf(stderr, "tilelab: kernel cache not used: %s; compiling every kernel\n", why);
    if (select_share(s->o, &s->p, &s->sh, &e)) {
        fprintf(stderr, "runner: %s\n", e.msg);
        return -1;
    }
    if (s->o->sanitize && !(s->sanitizer = sanitize_find(&e))) {
        fprintf(stderr, "runner: %s\n", e.msg);
        return -1;
    }
    if (precompile(s)) return -1;
    if (!(s->path = run_output_path(s->o, s->x, &e))) {
        fprintf(stderr, "runner: %s\n", e.msg);
        return -1;
    }
    if (!s->o->worker_cases && parts_left(s->path)) return -1;
    return 0;
}

/* The GPU set-up, then the result file (with --resume, the cases it holds leave the share), the threads
 * that compile ahead, the header. */
static int run_open(run_state *s)
{
    const run_opts *o = s->o;
    tl_err e;
    double t = tl_now_s();
    if (execute_init(&s->ex, s->x, &s->env, s->use_gpu, &e)) {
        fprintf(stderr, "runner: %s\n", e.msg);
        return -1;
    }
    s->start_libs_s = tl_now_s() - t;
    s->have_exec = 1;
    s->ex.memo = s->memo; /* the cubins compiled ahead */
    memset(&s->memo, 0, sizeof s->memo);
    s->ex.cache_dir = s->cache;
    s->cache = NULL;
    s->ex.ctr = s->ctr;
    s->ex.verify_only = o->sanitize_child;
    snprintf(s->env.nvml, sizeof s->env.nvml, "%s", nvml_status(s->ex.gpu));
    unsigned long long mj;
    snprintf(s->env.energy_counter, sizeof s->env.energy_counter, "%s",
             nvml_energy_mj(s->ex.gpu, &mj) == 0
                 ? "nvml total energy (mJ; it moves a few times a second: each case says the resolution it got)"
                 : "unavailable: no NVML total energy counter for this GPU");
    s->argv_text = tl_join_words(s->argc, s->argv);
    /* The space check counts the whole share: what a resume skips is not known before the file is open. */
    if (check_space(s->path, &s->p, &s->sh, &e)) {
        fprintf(stderr, "runner: %s\n", e.msg);
        return -1;
    }
    h5out_session ses = {s->argv_text, o->shard_text, s->rerun_of};
    if (h5out_open(&s->out, s->path, s->x, &s->env, &ses, o->resume, &s->have, &e)) {
        fprintf(stderr, "runner: %s\n", e.msg);
        return -1;
    }
    s->have_out = 1;
    int retry_from = s->have.nsessions;
    if (o->retry_failed) {
        const char *from = getenv(RETRY_FROM_ENV);
        if (from && *from) retry_from = atoi(from);
        char num[16];
        snprintf(num, sizeof num, "%d", retry_from);
        setenv(RETRY_FROM_ENV, num, 1);
    }
    skip_held(&s->p, &s->have, o->retry_failed, retry_from, &s->sh);
    if (search_open(s)) return -1;
    if (s->use_gpu) {
        compile_list l = {0};
        compile_collect(s->x, &s->p, s->sh.todo, 0, &l);
        s->ahead = compile_ahead_start(&l, s->env.cc_major * 10 + s->env.cc_minor, s->ex.cache_dir, &s->ex.memo,
                                       compile_jobs(o), 1);
    }
    if (!o->quiet) {
        report_header(stderr, s->x, &s->p, &s->env, s->path);
        if (o->worker_cases) /* a --devices worker: its share of the run's (of the shard's, with --shard) */
            fprintf(stderr, "this device: %d of the %d cases%s%s\n", s->sh.nshare, s->p.ncases,
                    o->shard_count ? ", shard " : "", o->shard_text);
        else if (o->shard_count)
            fprintf(stderr, "shard %s: %d of the %d cases\n", o->shard_text, s->sh.nshare, s->p.ncases);
        if (o->resume && s->have.n)
            fprintf(stderr, "resuming: %d of these %d cases are already in %s, %d to run\n", s->sh.nearlier,
                    s->sh.nshare, s->path, s->sh.ntodo);
    }
    if (o->retry_failed) /* said even with -q: it changes what the file holds */
        fprintf(stderr, "--retry-failed: %d case%s %s holds as failed or timed out run%s again (each earlier attempt "
                        "is kept under /retried)\n", s->sh.nretry, s->sh.nretry == 1 ? "" : "s", s->path,
                s->sh.nretry == 1 ? "s" : "");
    return 0;
}

/* The progress line of a case, once the writer thread has it in the file. */
typedef struct {
    int quiet, nearlier, nshare;
    double t0;
    report_widths w;
} progress_ctx;

static void case_saved(void *ctx, int index, const tl_result *r)
{
    const progress_ctx *pc = ctx;
    if (pc->quiet) return;
    flockfile(stderr); /* one whole line, whatever the main thread prints meanwhile */
    report_progress(stderr, &pc->w, pc->nearlier + index + 1, pc->nshare, r, tl_now_s() - pc->t0);
    funlockfile(stderr);
}

/* Where the run's time went, after its last case is in the file. */
static void report_overhead(run_state *s, double wall, double timed)
{
    h5out *out = &s->out;
    fprintf(stderr, "tilelab: overhead: %.2f s wall for %.2f s inside timed regions (%.1f%%)\n", wall, timed,
            wall > 0 ? 100.0 * timed / wall : 0.0);
    /* Every case has its kernel: the threads compiling ahead have nothing left but to say how many they did. */
    int compiled_ahead = compile_ahead_wait(s->ahead);
    report_phases(stderr, out->phase_s, out->write_s, wall, s->res, s->nres, compiled_ahead);
    if (s->ex.mods.loads)
        fprintf(stderr, "tilelab: modules: %d loaded, %d times one an earlier case loaded was taken again\n",
                s->ex.mods.loads, s->ex.mods.hits);
    if (out->start_s >= 0 && out->start_cuda_s > 0)
        fprintf(stderr, "tilelab: before the first case: %.2f s from the runner's start (CUDA context %.2f, GPU set-up "
                        "%.2f: cuBLAS, streams, buffers, NVML)\n", out->start_s, out->start_cuda_s, out->start_libs_s);
    else if (out->start_s >= 0)
        fprintf(stderr, "tilelab: before the first case: %.2f s from the runner's start\n", out->start_s);
}

/* The case a run before this one left past its limit (runner/exec/watchdog.h): in the file as `timeout`, before the
 * others, and out of the share. */
static int record_timeout(run_state *s, int device, tl_err *e)
{
    watchdog_marker m;
    int got = watchdog_take_marker(s->path, &m, e);
    if (got <= 0) return got;
    plan_id *ids = plan_ids(&s->p);
    int i = plan_find(ids, s->p.ncases, m.case_id);
    free(ids);
    if (i < 0 || !s->sh.todo[i]) return 0; /* not this run's to record (another shard's, or held already) */
    tl_result *r = &s->res[s->nres++];
    execute_result_init(&s->ex, &s->p.cases[i], r);
    r->status = "timeout";
    r->reason = tl_xasprintf("ran past its limit of %.0f s (case_timeout_s) in its %s phase; the runner started "
                             "again and went on", m.limit_s, m.phase);
    r->device = device;
    if (s->sh.retry_of && s->sh.retry_of[i]) r->retried = tl_xstrdup(s->sh.retry_of[i]);
    s->sh.todo[i] = 0;
    s->sh.ntodo--;
    return h5out_write_case(&s->out, r, e);
}

/* Whether --sanitize checks case r: a compiled kernel's that ran (TILELAB_TEST_SANITIZE_HOST: a host variant's
 * too, for the tests, which have no GPU). */
static int sanitizable(const tl_result *r)
{
    if (r->c->skipped || (strcmp(r->status, "ok") && strcmp(r->status, "verify_failed"))) return 0;
    return r->c->run->kind == REG_NVRTC || (r->c->run->kind == REG_HOST && getenv("TILELAB_TEST_SANITIZE_HOST"));
}

/* --sanitize: r's verified run again under the tool, in a child runner; its verdict into r. */
static void sanitize_case(run_state *s, const tl_case *tc, tl_result *r, double limit_s)
{
    const char *entries[REG_MAX_KERNELS];
    int n = r->c->run->kind == REG_NVRTC ? decl_entries(r->c->run, entries) : 0;
    sanitize_job j = {s->sanitizer, (sanitize_tool)s->o->sanitize, s->x->path, 3 * limit_s}; /* the tool is slow */
    sanitize_findings f;
    tl_err e;
    double t0 = tl_now_s();
    int rc = sanitize_run_case(&j, tc->id, entries, n, &f, &e);
    r->phase_s[PH_VERIFY] += tl_now_s() - t0;
    r->sanitize_tool = sanitize_tool_names[j.tool];
    r->sanitize_errors = rc ? -1 : f.errors;
    r->sanitize_report = f.report;
    f.report = NULL;
    char *was = r->reason;
    if (rc) {
        r->status = "error";
        r->reason = tl_xasprintf("%s%s%s", e.msg, was ? "; " : "", was ? was : "");
    } else if (f.errors > 0) {
        r->status = "verify_failed";
        r->reason = tl_xasprintf("compute-sanitizer %s: %d error%s in the kernel%s; the first: %s%s%s", r->sanitize_tool,
                                 f.errors, f.errors == 1 ? "" : "s", n == 1 ? "" : "s", f.first ? f.first : "?",
                                 was ? "; and " : "", was ? was : "");
    } else {
        was = NULL;
    }
    if (was) free(was);
    sanitize_findings_free(&f);
}

/* The plan case to run after case i (-1: the first), or -1 when none is left: the next of the share in plan
 * order, or the one the search driver picks. */
static int next_case(run_state *s, int i)
{
    if (s->drv) return search_driver_next(s->drv);
    for (i++; i < s->p.ncases; i++)
        if (s->sh.todo[i]) return i;
    return -1;
}

/* A search's case ran: its outcome to the driver, the driver's record of it to the file. */
static void note_search(run_state *s, int i, tl_result *r)
{
    double cost = 0;
    for (int k = 0; k < PH_N; k++) cost += r->phase_s[k];
    search_note note;
    search_driver_ran(s->drv, i, r->status, search_result_objective(s->x->search, r), cost, &note);
    if (!note.proposer) return; /* a sweep case of the search's experiment */
    r->search_step = note.step;
    r->search_proposer = note.proposer;
    r->search_objective = note.objective;
    r->search_best = note.best;
}

/* Runs this run's cases; s->lost when a kernel fault lost the CUDA context (the rest is left to a new
 * process). Each case is committed by the writer thread while the next one runs. */
static int run_cases(run_state *s, tl_err *e)
{
    const run_opts *o = s->o;
    h5out *out = &s->out;
    double t0 = tl_now_s(), timed = 0;
    int said = 0;
    s->res = tl_xcalloc((size_t)s->sh.ntodo + 1, sizeof *s->res);
    /* The device each case names: this run's GPU; a --devices worker's device even for host cases. */
    int device = s->env.have_gpu ? s->env.device : -1;
    if (!s->env.have_gpu && o->worker_cases && getenv("TILELAB_DEVICE")) device = atoi(getenv("TILELAB_DEVICE"));
    out->start_s = tl_process_age_s();
    out->start_cuda_s = s->start_cuda_s;
    out->start_libs_s = s->start_libs_s;
    memset(out->phase_s, 0, sizeof out->phase_s);
    out->write_s = 0;
    static progress_ctx pc; /* lives as long as the writer thread (joined in h5out_finish or h5out_close) */
    int total = s->drv ? s->sh.nearlier + search_driver_expected(s->drv) : s->sh.nshare; /* a search: its budgets */
    pc = (progress_ctx){o->quiet, s->sh.nearlier, total, t0, report_progress_widths(&s->p, s->sh.todo)};
    if (h5out_start_writer(out, case_saved, &pc, e)) return -1;
    if (record_timeout(s, device, e) || watchdog_start(s->path, s->argc, s->argv, e)) return -1;
    for (int i = next_case(s, -1); i >= 0 && !s->lost; i = next_case(s, i)) {
        tl_result *r = &s->res[s->nres++];
        const tl_case *tc = &s->p.cases[i];
        double limit = s->x->case_timeout_s > 0 ? s->x->case_timeout_s : watchdog_default_limit(tc->protocol.max_time_s);
        /* (--sanitize's child has its limit from the run that started it, which kills it past that.) */
        watchdog_arm(tc->id, tc->skipped || o->sanitize_child ? 0 : limit);
        int bad = execute_case(&s->ex, tc, r, e);
        watchdog_disarm();
        if (bad) return -1;
        if (o->sanitize && sanitizable(r)) sanitize_case(s, tc, r, limit);
        r->device = device;
        if (s->sh.retry_of && s->sh.retry_of[i]) r->retried = tl_xstrdup(s->sh.retry_of[i]);
        /* A session that could not start was said once already (open_counters). */
        if (!said && r->counters.status && !strcmp(r->counters.status, "not_permitted") && s->ex.ctr &&
            !counters_session_why(s->ex.ctr)) {
            fprintf(stderr, "tilelab: counters: %s; the cases are measured without them\n", r->counters.reason);
            said = 1;
        }
        if (s->drv) note_search(s, i, r);
        if (!strcmp(r->status, "error") && execute_context_lost(&s->ex, r)) s->lost = 1;
        double tw = tl_now_s();
        if (h5out_write_case(out, r, e)) return -1;
        out->write_s += tl_now_s() - tw;
        for (int k = 0; k < PH_N; k++) out->phase_s[k] += r->phase_s[k];
        timed += r->samples.timed_s;
    }
    watchdog_stop();
    /* The wall time ends when the last case is in the file. */
    double tw = tl_now_s();
    if (h5out_drain(out, e)) return -1;
    out->write_s += tl_now_s() - tw;
    double wall = tl_now_s() - t0;
    if (h5out_finish(out, wall, timed, e)) return -1;
    report_overhead(s, wall, timed);
    return 0;
}

/* A line a search this run took part in: the best point, its objective, and what it took to find it. */
static void report_searches(const run_state *s)
{
    const search_spec *spec = s->x->search;
    for (int k = 0; k < s->sp.nspaces; k++) {
        const search_result *r = search_driver_result(s->drv, k);
        if (!r->mine) continue;
        char *label = search_space_label(&s->p, &s->sp.spaces[k]);
        printf("search %s (%s, %d points): %d evaluated in %.1f s", label, search_strategy_name(spec->strategy),
               s->sp.spaces[k].npoints, r->evals, r->seconds);
        if (r->best_case >= 0)
            printf(", best %s %s %.6g (%s) at evaluation %d, %.1f s in\n", s->p.cases[r->best_case].params_text,
                   search_objective_name(spec), r->best, spec->objective == SEARCH_TIME ? "ms median"
                   : spec->objective == SEARCH_ENERGY ? "J a run" : "counter", r->best_step, r->best_at_s);
        else
            printf(", none ok\n");
        free(label);
    }
}

/* The cases, then the closing table (or the re-exec after a lost context); the exit code. */
static int run_all(run_state *s)
{
    const run_opts *o = s->o;
    tl_err e;
    if (run_cases(s, &e)) {
        fprintf(stderr, "runner: %s\n", e.msg);
        fprintf(stderr, "runner: continue with: runner run %s -o %s --resume%s%s\n", o->yaml, s->path,
                o->shard_count ? " --shard " : "", o->shard_text);
        return TL_EXIT_FAILED;
    }
    if (s->lost && o->sanitize_child) return TL_EXIT_FAILED; /* its one case is in its file */
    if (s->lost) {
        h5out_close(&s->out);
        s->have_out = 0;
        /* After a kernel fault the CUDA context is lost for good: the case is in the file as an error, and the
         * runner starts again as a new process (a new context) that resumes the file. */
        watchdog_reexec_resume(s->argc, s->argv, s->path, "the CUDA context is lost"); /* returns only when it cannot */
        return TL_EXIT_FAILED;
    }
    if (!o->worker_cases) { /* a worker's run says it through the run that started it */
        if (s->nres) report_table(stdout, s->x, s->res, s->nres);
        if (s->drv) report_searches(s);
        if (s->sh.nearlier)
            printf("and %d cases from earlier sessions (%d failed); `bazel run //analysis:summary -- %s` shows all\n",
                   s->sh.nearlier, s->sh.failed_earlier, s->path);
        printf("results: %s\n", s->path);
    }
    return report_failures(s->res, s->nres) || s->sh.failed_earlier ? TL_EXIT_FAILED : TL_EXIT_OK;
}

static void run_state_free(run_state *s)
{
    compile_ahead_stop(s->ahead); /* before the memo it fills goes */
    search_driver_free(s->drv);
    free(s->held);
    if (s->sp.spaces) search_plan_free(&s->sp);
    if (s->have_out) h5out_close(&s->out);
    h5out_existing_free(&s->have);
    for (int i = 0; s->res && i < s->nres; i++) result_free(&s->res[i]);
    free(s->res);
    free(s->sh.todo);
    for (int i = 0; s->sh.retry_of && i < s->p.ncases; i++) free(s->sh.retry_of[i]);
    free(s->sh.retry_of);
    if (s->have_exec) execute_free(&s->ex);
    counters_close(s->ctr);
    jit_memo_free(&s->memo);
    free(s->cache);
    plan_free(&s->p);
    free(s->path), free(s->argv_text), free(s->sanitizer);
}

int run_experiment(const run_opts *o, tl_experiment *x, int argc, char **argv, const char *rerun_of)
{
    run_state s = {.o = o, .x = x, .argc = argc, .argv = argv, .rerun_of = rerun_of,
                   .out = {.lock_fd = -1, .fapl = -1}};
    int rc = TL_EXIT_BAD_INPUT;
    jit_helper_set_timeout(x->compile_timeout_s);
    if (o->sanitize_child) jit_set_line_info(1); /* the tool's reports name the source's lines */
    if (run_plan(&s) == 0 && search_prepare(&s) == 0 && run_prepare(&s) == 0 && run_open(&s) == 0) rc = run_all(&s);
    if (s.gpu_gone) rc = TL_EXIT_FAILED;
    run_state_free(&s);
    return rc;
}

unsigned char *run_share_of(const run_opts *o, const tl_plan *p, tl_err *e)
{
    run_share sh;
    if (select_share(o, p, &sh, e)) {
        free(sh.todo);
        return NULL;
    }
    return sh.todo;
}

char *run_parts_dir(const char *out)
{
    return tl_xasprintf("%s.parts", out);
}
