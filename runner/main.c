/* runner: the tilelab command line. Only main exits; everything else returns a status. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libgen.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runner/jit.h"

#include "runner/config.h"
#include "runner/env.h"
#include "runner/execute.h"
#include "runner/h5in.h"
#include "runner/h5out.h"
#include "runner/h5util.h"
#include "runner/merge.h"
#include "runner/submit.h"
#include "runner/plan.h"
#include "runner/report.h"

static const char usage[] =
    "tilelab runner " TL_VERSION ": run CUDA kernel experiments from YAML, verify, time, write HDF5\n"
    "\n"
    "usage:\n"
    "  runner [run] EXPERIMENT.yaml [options]   run every case, print a table, write the result file\n"
    "  runner rerun RESULT.h5 [options]         run the experiment embedded in a result file again,\n"
    "                                           on this machine, into a new file (same case ids)\n"
    "  runner merge OUT.h5 RESULT.h5... [--force]\n"
    "                                           one file with the union of the cases (shards of one\n"
    "                                           sweep); refuses files of different experiments\n"
    "                                           unless --force; exit 1 if cases are missing or failed\n"
    "  runner submit EXPERIMENT.yaml --shards N [--partition P] [--gres gpu:1] [--time T]\n"
    "                [--account A] [--max-parallel K] [-o OUT.h5] [--runner PATH] [--dry-run]\n"
    "                                           a Slurm job array (one task per shard, each resuming\n"
    "                                           its own file) and a merge job after it (afterok);\n"
    "                                           writes OUT.sweep/ (scripts, logs, shards) and prints\n"
    "                                           the job ids; --dry-run prints the scripts only.\n"
    "                                           After a failure, sh OUT.sweep/submit.sh resumes\n"
    "  runner validate EXPERIMENT.yaml...       check configs and print case counts; runs nothing\n"
    "  runner list [OP]                         ops, variants, params, defaults and constraints\n"
    "  runner compile EXPERIMENT.yaml... [--arch sm_90] [-j N]\n"
    "                                           compile every kernel the experiments name into the\n"
    "                                           cubin cache, without a GPU (NVRTC), for another machine\n"
    "  runner --help | --version\n"
    "\n"
    "run and rerun options:\n"
    "  -o, --output FILE     result file (default: RESULTS_DIR/<name>-<utc>.h5); never overwritten\n"
    "  --results-dir DIR     folder for the default file name (default: results)\n"
    "  -q, --quiet           no progress line per case\n"
    "  --shard I/N           run shard I (0-based) of N: disjoint shares balanced by expected time,\n"
    "                        the same on every machine\n"
    "  --resume              continue -o FILE: skip the cases it holds (any status); creates FILE\n"
    "                        when it does not exist. A kill at any moment leaves FILE complete up to\n"
    "                        the last case written; after a kernel fault that loses the CUDA\n"
    "                        context, the runner restarts itself this way\n"
    "\n"
    "Cases whose variants run on the GPU need a CUDA device; variants of the host target\n"
    "(e.g. experiments/host_smoke.yaml) run anywhere.\n"
    "\n"
    "environment:\n"
    "  TILELAB_CACHE_DIR     compiled-kernel cache (default $XDG_CACHE_HOME/tilelab/cubin or\n"
    "                        ~/.cache/tilelab/cubin)\n"
    "  TILELAB_DEVICE        CUDA device ordinal (default 0)\n"
    "  TILELAB_TEST_CRASH_AT=POINT:N\n"
    "                        tests only: SIGKILL the N-th time the writer passes POINT (created,\n"
    "                        case_written, shadow_closed, exchanged), for the fault tests\n"
    "  TILELAB_TEST_HOST_TIMING=MS:NOISE:SEED\n"
    "                        tests only: host-target times become MS * (1 + NOISE * z), z normal from\n"
    "                        SEED and the case; the variants still run and are verified\n"
    "\n"
    "exit codes: 0 every case ok or skipped; 1 a case failed verification or errored; 2 bad input\n";

typedef struct {
    const char *yaml;
    const char *output;
    const char *results_dir;
    int quiet;
    int resume;                /* continue -o FILE: skip the cases it holds */
    int shard_index, shard_count; /* --shard i/N (count 0: every case) */
    char shard_text[32];
} run_opts;

/* ---- list ------------------------------------------------------------------------------- */

static int cmd_list(int argc, char **argv)
{
    if (argc > 1) {
        fprintf(stderr, "runner list: takes at most one op name\n");
        return TL_EXIT_BAD_INPUT;
    }
    if (argc == 1 && !reg_find_op(argv[0])) {
        fprintf(stderr, "runner list: unknown op '%s'\n", argv[0]);
        return TL_EXIT_BAD_INPUT;
    }
    for (int i = 0; i < reg_nops; i++) {
        const reg_op *op = reg_ops[i];
        if (argc == 1 && strcmp(op->name, argv[0])) continue;
        report_list_op(stdout, op);
    }
    return TL_EXIT_OK;
}

/* ---- validate --------------------------------------------------------------------------- */

static int cmd_validate(int argc, char **argv)
{
    int bad = 0;
    if (argc == 0) {
        fprintf(stderr, "runner validate: give one or more experiment files\n");
        return TL_EXIT_BAD_INPUT;
    }
    for (int i = 0; i < argc; i++) {
        tl_experiment x;
        tl_plan p;
        tl_err e;
        char *path = tl_user_path(argv[i]);
        plan_limits lim = {0, 0};
        if (config_load(path, &x, &e) || plan_expand(&x, &lim, &p, &e)) {
            fprintf(stderr, "%s\n", e.msg);
            bad = 1;
        } else {
            report_validate(stdout, argv[i], &x, &p);
            plan_free(&p);
        }
        config_free(&x);
        free(path);
    }
    return bad ? TL_EXIT_BAD_INPUT : TL_EXIT_OK;
}

/* ---- compile ------------------------------------------------------------------------------ */

typedef struct {
    const tl_case **cases; /* distinct (source, options) */
    int n;
} compile_list;

static void collect_kernels(const tl_plan *p, compile_list *l)
{
    for (int i = 0; i < p->ncases; i++) {
        const tl_case *c = &p->cases[i];
        if (c->variant->kind != REG_NVRTC || c->skipped) continue;
        int dup = 0;
        for (int j = 0; j < l->n && !dup; j++)
            dup = l->cases[j]->variant == c->variant && !strcmp(l->cases[j]->params_text, c->params_text) &&
                  !strcmp(l->cases[j]->layout_text, c->layout_text);
        if (dup) continue;
        l->cases = realloc(l->cases, sizeof *l->cases * (size_t)(l->n + 1));
        if (!l->cases) abort();
        l->cases[l->n++] = c;
    }
}

/* Worker w of nw compiles kernels w, w + nw, ...; returns the number that failed. */
static int compile_share(const compile_list *l, int w, int nw, int arch, const char *cache)
{
    int bad = 0;
    for (int i = w; i < l->n; i += nw) {
        const tl_case *c = l->cases[i];
        jit_cubin cb;
        tl_err e;
        if (jit_compile(c->op, c->variant, c->params, &c->spec, arch, cache, &cb, &e)) {
            fprintf(stderr, "FAILED %s %s %s: %s\n", c->variant->name, c->params_text, c->layout_text, e.msg);
            bad++;
        } else {
            jit_cubin_free(&cb);
        }
    }
    return bad;
}

static int cmd_compile(int argc, char **argv)
{
    int arch = 90, jobs = 1, bad = 0, nfiles = 0;
    tl_experiment *xs = tl_xcalloc((size_t)argc + 1, sizeof *xs);
    tl_plan *ps = tl_xcalloc((size_t)argc + 1, sizeof *ps);
    compile_list l = {0};
    char *cache = jit_cache_dir();
    for (int i = 0; i < argc; i++) {
        tl_err e;
        plan_limits lim = {0, 0};
        if (!strcmp(argv[i], "--arch") && i + 1 < argc) {
            if (sscanf(argv[++i], "sm_%d", &arch) != 1 || arch < 50) {
                fprintf(stderr, "runner compile: --arch takes sm_NN, e.g. sm_90\n");
                bad = 1;
            }
        } else if (!strcmp(argv[i], "-j") && i + 1 < argc) {
            jobs = atoi(argv[++i]);
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "runner compile: unknown or incomplete option '%s' (see runner --help)\n", argv[i]);
            bad = 1;
        } else {
            char *path = tl_user_path(argv[i]);
            if (config_load(path, &xs[nfiles], &e) || plan_expand(&xs[nfiles], &lim, &ps[nfiles], &e)) {
                fprintf(stderr, "%s\n", e.msg);
                bad = 1;
            } else {
                collect_kernels(&ps[nfiles], &l);
            }
            nfiles++;
            free(path);
        }
    }
    if (bad || nfiles == 0 || !cache) {
        if (!bad) fprintf(stderr, nfiles ? "runner compile: no cache directory (set TILELAB_CACHE_DIR)\n"
                                         : "runner compile: give one or more experiment files\n");
        bad = TL_EXIT_BAD_INPUT;
        goto out;
    }
    if (jobs < 1) jobs = 1;
    fprintf(stderr, "runner compile: %d kernels for sm_%d into %s, %d jobs\n", l.n, arch, cache, jobs);
    double t0 = tl_now_s();
    for (int w = 1; w < jobs; w++)
        if (fork() == 0) _exit(compile_share(&l, w, jobs, arch, cache) ? 1 : 0);
    int failed = compile_share(&l, 0, jobs, arch, cache), status;
    while (wait(&status) > 0) failed += !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    fprintf(stderr, "runner compile: done in %.1f s%s\n", tl_now_s() - t0, failed ? " with failures" : "");
    bad = failed ? TL_EXIT_FAILED : TL_EXIT_OK;
out:
    for (int i = 0; i < nfiles; i++) plan_free(&ps[i]), config_free(&xs[i]);
    free(xs), free(ps), free(l.cases), free(cache);
    return bad;
}

/* ---- run -------------------------------------------------------------------------------- */

static int parse_run_args(int argc, char **argv, run_opts *o)
{
    memset(o, 0, sizeof *o);
    o->results_dir = "results";
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if ((!strcmp(a, "-o") || !strcmp(a, "--output")) && i + 1 < argc) o->output = argv[++i];
        else if (!strcmp(a, "--results-dir") && i + 1 < argc) o->results_dir = argv[++i];
        else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) o->quiet = 1;
        else if (!strcmp(a, "--resume")) o->resume = 1;
        else if (!strcmp(a, "--shard") && i + 1 < argc) {
            char tail;
            const char *v = argv[++i];
            if (sscanf(v, "%d/%d%c", &o->shard_index, &o->shard_count, &tail) != 2 || o->shard_count < 1 ||
                o->shard_count > 100000 || o->shard_index < 0 || o->shard_index >= o->shard_count) {
                fprintf(stderr, "runner: --shard takes I/N with 0 <= I < N <= 100000 (e.g. 3/8), not '%s'\n", v);
                return -1;
            }
            snprintf(o->shard_text, sizeof o->shard_text, "%d/%d", o->shard_index, o->shard_count);
        } else if (a[0] == '-') {
            fprintf(stderr, "runner: unknown or incomplete option '%s' (see runner --help)\n", a);
            return -1;
        } else if (!o->yaml) o->yaml = a;
        else {
            fprintf(stderr, "runner: one experiment per run (got '%s' and '%s'); validate takes several\n", o->yaml, a);
            return -1;
        }
    }
    if (!o->yaml) {
        fprintf(stderr, "runner: give an experiment file (see runner --help)\n");
        return -1;
    }
    if (o->resume && !o->output) {
        fprintf(stderr, "runner: --resume continues a file: name it with -o FILE\n");
        return -1;
    }
    return 0;
}

static char *join_argv(int argc, char **argv)
{
    tl_buf b = {0};
    tl_buf_printf(&b, "%s", "");
    for (int i = 0; i < argc; i++) tl_buf_printf(&b, "%s%s", i ? " " : "", argv[i]);
    return b.s;
}

static int needs_gpu(const tl_plan *p)
{
    for (int i = 0; i < p->ncases; i++)
        if (p->cases[i].variant->kind != REG_HOST) return 1;
    return 0;
}

/* The output path: -o as given, else RESULTS_DIR/<name>-<utc>.h5 (created if missing). */
static char *output_path(const run_opts *o, const tl_experiment *x, tl_err *e)
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

/* What this run does of the plan: its shard, less the cases the file already holds. */
typedef struct {
    unsigned char *todo; /* per plan case: 1 = run it here */
    int ntodo;
    int nshare;          /* cases of the shard (all of them without --shard) */
    int nearlier;        /* of which the file already holds */
    int failed_earlier;  /* of those, verify_failed or error */
} run_share;

/* The shard's cases (all of them without --shard). */
static int select_share(const run_opts *o, const tl_plan *p, run_share *sh)
{
    memset(sh, 0, sizeof *sh);
    sh->todo = tl_xcalloc((size_t)p->ncases + 1, 1);
    if (o->shard_count) {
        if (plan_shard(p, o->shard_index, o->shard_count, sh->todo)) return -1;
    } else {
        memset(sh->todo, 1, (size_t)p->ncases);
    }
    for (int i = 0; i < p->ncases; i++) sh->nshare += sh->todo[i];
    sh->ntodo = sh->nshare;
    return 0;
}

/* --resume: drops the cases the file already holds from the share, counting the failed ones. */
static void skip_held(const tl_plan *p, const h5out_existing *have, run_share *sh)
{
    for (int i = 0; i < p->ncases; i++) {
        if (!sh->todo[i]) continue;
        for (int k = 0; k < have->n; k++)
            if (!strcmp(have->ids[k], p->cases[i].id)) {
                sh->todo[i] = 0;
                sh->ntodo--;
                sh->nearlier++;
                sh->failed_earlier += !strcmp(have->status[k], "error") || !strcmp(have->status[k], "verify_failed");
                break;
            }
    }
}

/* After a kernel fault the CUDA context is lost for good: the case is in the file as an error, and
 * the runner starts again as a new process (a new context) that resumes the file. */
#define MAX_REEXEC 64

static void reexec_resume(int argc, char **argv, const char *path)
{
    const char *depth = getenv("TILELAB_REEXEC_DEPTH");
    int d = depth ? atoi(depth) : 0;
    if (d >= MAX_REEXEC) {
        fprintf(stderr, "runner: the CUDA context was lost %d times; stopping (continue with --resume -o %s)\n", d, path);
        return;
    }
    char **nv = tl_xcalloc((size_t)argc + 4, sizeof *nv), num[16];
    int n = 0;
    nv[n++] = argv[0]; /* as the user called it; the binary is /proc/self/exe */
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--resume")) continue;
        if ((!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) && i + 1 < argc) {
            i++;
            continue;
        }
        nv[n++] = argv[i];
    }
    nv[n++] = "-o";
    nv[n++] = (char *)path;
    nv[n++] = "--resume";
    snprintf(num, sizeof num, "%d", d + 1);
    setenv("TILELAB_REEXEC_DEPTH", num, 1);
    fprintf(stderr, "runner: the CUDA context is lost; starting again with --resume (%d)\n", d + 1);
    fflush(NULL);
    execv("/proc/self/exe", nv);
    fprintf(stderr, "runner: cannot re-execute itself: %s; continue with --resume -o %s\n", strerror(errno), path);
    free(nv);
}

/* Runs this run's cases; 1 in *lost when a kernel fault lost the CUDA context (the rest is left
 * to a new process). */
static int run_cases(const run_opts *o, const tl_plan *p, const run_share *sh, exec_ctx *ex, h5out *out,
                     tl_result *res, int *nres, int *lost, tl_err *e)
{
    double t0 = tl_now_s(), timed = 0;
    *nres = *lost = 0;
    for (int i = 0; i < p->ncases && !*lost; i++) {
        if (!sh->todo[i]) continue;
        tl_result *r = &res[(*nres)++];
        if (exec_case(ex, &p->cases[i], r, e)) return -1;
        if (!strcmp(r->status, "error") && exec_context_lost(ex, r)) *lost = 1;
        if (h5out_write_case(out, r, e)) return -1;
        timed += r->samples.timed_s;
        if (!o->quiet) report_progress(stderr, sh->nearlier + *nres, sh->nshare, r, tl_now_s() - t0);
    }
    double wall = tl_now_s() - t0;
    if (h5out_finish(out, wall, timed, e)) return -1;
    fprintf(stderr, "tilelab: overhead: %.2f s wall for %.2f s inside timed regions (%.1f%%)\n", wall, timed,
            wall > 0 ? 100.0 * timed / wall : 0.0);
    return 0;
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

/* Plans x (again with the device's memory once there is one), runs it, writes the file. */
static int run_experiment(const run_opts *o, tl_experiment *x, int argc, char **argv, const char *rerun_of)
{
    tl_plan p = {0};
    env_info env = {0};
    exec_ctx ex = {0};
    h5out out = {.lock_fd = -1, .fapl = -1};
    h5out_existing have = {0};
    run_share sh = {0};
    tl_result *res = NULL;
    tl_err e;
    char *path = NULL, *argv_text = NULL;
    int rc = TL_EXIT_BAD_INPUT, have_exec = 0, have_out = 0, nres = 0, lost = 0;

    env_host(&env);
    plan_limits lim = {0, env.host_mem_bytes / 2};
    if (plan_expand(x, &lim, &p, &e)) {
        fprintf(stderr, "%s\n", e.msg);
        goto out;
    }
    int use_gpu = needs_gpu(&p);
    if (use_gpu) {
        if (env_gpu(&env, &e)) {
            fprintf(stderr, "runner: %s: %s; try experiments/host_smoke.yaml (host target) or `runner validate %s`\n",
                    o->yaml, e.msg, o->yaml);
            goto out;
        }
        plan_free(&p);
        lim.device_bytes = (uint64_t)(env.free_mem * 0.9) - 2 * (uint64_t)env.l2_bytes;
        if (plan_expand(x, &lim, &p, &e)) {
            fprintf(stderr, "%s\n", e.msg);
            goto out;
        }
    }
    if (!(path = output_path(o, x, &e))) {
        fprintf(stderr, "runner: %s\n", e.msg);
        goto out;
    }
    if (exec_init(&ex, x, &env, use_gpu, &e)) {
        fprintf(stderr, "runner: %s\n", e.msg);
        goto out;
    }
    have_exec = 1;
    snprintf(env.nvml, sizeof env.nvml, "%s", nvml_status(ex.gpu));
    argv_text = join_argv(argc, argv);
    /* The space check counts the whole share: what a resume skips is not known before the file is open. */
    if (select_share(o, &p, &sh) || check_space(path, &p, &sh, &e)) {
        fprintf(stderr, "runner: %s\n", e.msg);
        goto out;
    }
    h5out_session ses = {argv_text, o->shard_text, rerun_of};
    if (h5out_open(&out, path, x, &env, &ses, o->resume, &have, &e)) {
        fprintf(stderr, "runner: %s\n", e.msg);
        goto out;
    }
    have_out = 1;
    skip_held(&p, &have, &sh);
    if (!o->quiet) {
        report_header(stderr, x, &p, &env, path);
        if (o->shard_count)
            fprintf(stderr, "shard %s: %d of the %d cases\n", o->shard_text, sh.nshare, p.ncases);
        if (o->resume && have.n)
            fprintf(stderr, "resuming: %d of these %d cases are already in %s, %d to run\n", sh.nearlier, sh.nshare,
                    path, sh.ntodo);
    }
    res = tl_xcalloc((size_t)sh.ntodo + 1, sizeof *res);
    if (run_cases(o, &p, &sh, &ex, &out, res, &nres, &lost, &e)) {
        fprintf(stderr, "runner: %s\n", e.msg);
        fprintf(stderr, "runner: continue with: runner run %s -o %s --resume%s%s\n", o->yaml, path,
                o->shard_count ? " --shard " : "", o->shard_text);
        rc = TL_EXIT_FAILED;
        goto out;
    }
    if (lost) {
        h5out_close(&out);
        have_out = 0;
        reexec_resume(argc, argv, path); /* returns only when it cannot */
        rc = TL_EXIT_FAILED;
        goto out;
    }
    if (nres) report_table(stdout, x, res, nres);
    if (sh.nearlier)
        printf("and %d cases from earlier sessions (%d failed); `bazel run //analysis:summary -- %s` shows all\n",
               sh.nearlier, sh.failed_earlier, path);
    printf("results: %s\n", path);
    rc = report_failures(res, nres) || sh.failed_earlier ? TL_EXIT_FAILED : TL_EXIT_OK;
out:
    if (have_out) h5out_close(&out);
    h5out_existing_free(&have);
    if (res)
        for (int i = 0; i < nres; i++) result_free(&res[i]);
    free(res);
    free(sh.todo);
    if (have_exec) exec_free(&ex);
    plan_free(&p);
    free(path), free(argv_text);
    return rc;
}

static int cmd_run(int argc, char **argv, int full_argc, char **full_argv)
{
    run_opts o;
    tl_experiment x;
    tl_err e;
    if (parse_run_args(argc, argv, &o)) return TL_EXIT_BAD_INPUT;
    char *yaml = tl_user_path(o.yaml);
    int rc = TL_EXIT_BAD_INPUT;
    if (config_load(yaml, &x, &e)) fprintf(stderr, "%s\n", e.msg);
    else rc = run_experiment(&o, &x, full_argc, full_argv, NULL);
    config_free(&x);
    free(yaml);
    return rc;
}

/* The experiment embedded in a result file, on this machine, into a new file. */
static int cmd_rerun(int argc, char **argv, int full_argc, char **full_argv)
{
    run_opts o;
    tl_experiment x = {0};
    h5in_source src;
    tl_err e;
    if (parse_run_args(argc, argv, &o)) return TL_EXIT_BAD_INPUT;
    char *h5 = tl_user_path(o.yaml);
    int rc = TL_EXIT_BAD_INPUT;
    if (h5in_read_source(h5, &src, &e)) {
        fprintf(stderr, "runner rerun: %s\n", e.msg);
        free(h5);
        return rc;
    }
    /* Errors in the embedded text point into it: "<file.h5>:config_yaml:line:col". */
    char *label = tl_xasprintf("%s:config_yaml", o.yaml);
    if (config_parse(label, src.config_yaml, strlen(src.config_yaml), &x, &e)) {
        fprintf(stderr, "runner rerun: %s\n", e.msg);
    } else {
        char *of = tl_xasprintf("%s (run %s on %s from %s)", h5, src.created_utc ? src.created_utc : "?",
                                src.host ? src.host : "?", src.config_path ? src.config_path : "?");
        rc = run_experiment(&o, &x, full_argc, full_argv, of);
        free(of);
    }
    config_free(&x);
    h5in_source_free(&src);
    free(label);
    free(h5);
    return rc;
}

/* ---- submit ------------------------------------------------------------------------------ */

/* An absolute version of a user path (relative to where the user stands). */
static char *absolute(const char *path)
{
    char *p = tl_user_path(path), cwd[4096];
    if (p[0] == '/' || !getcwd(cwd, sizeof cwd)) return p;
    char *a = tl_xasprintf("%s/%s", cwd, p);
    free(p);
    return a;
}

/* Values that go into #SBATCH lines: no spaces, quotes or newlines. */
static int slurm_value_ok(const char *opt, const char *v)
{
    if (v[0] && strspn(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.,:=/+-") == strlen(v)) return 1;
    fprintf(stderr, "runner submit: %s '%s': letters, digits and _.,:=/+- only\n", opt, v);
    return 0;
}

static int cmd_submit(int argc, char **argv)
{
    submit_opts so = {0};
    const char *yaml = NULL, *output = NULL, *results_dir = "results", *runner = NULL;
    int rc = TL_EXIT_BAD_INPUT;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--dry-run")) so.dry_run = 1;
        else if (a[0] != '-') {
            if (yaml) {
                fprintf(stderr, "runner submit: one experiment per sweep (got '%s' and '%s')\n", yaml, a);
                return rc;
            }
            yaml = a;
        } else if (!v) {
            fprintf(stderr, "runner submit: unknown or incomplete option '%s' (see runner --help)\n", a);
            return rc;
        } else if (!strcmp(a, "--shards")) so.shards = atoi(argv[++i]);
        else if (!strcmp(a, "--max-parallel")) so.max_parallel = atoi(argv[++i]);
        else if (!strcmp(a, "--partition")) so.partition = argv[++i];
        else if (!strcmp(a, "--gres")) so.gres = argv[++i];
        else if (!strcmp(a, "--time")) so.time = argv[++i];
        else if (!strcmp(a, "--account")) so.account = argv[++i];
        else if (!strcmp(a, "-o") || !strcmp(a, "--output")) output = argv[++i];
        else if (!strcmp(a, "--results-dir")) results_dir = argv[++i];
        else if (!strcmp(a, "--runner")) runner = argv[++i];
        else {
            fprintf(stderr, "runner submit: unknown option '%s' (see runner --help)\n", a);
            return rc;
        }
    }
    if (!yaml || so.shards < 1 || so.shards > 100000 || so.max_parallel < 0) {
        fprintf(stderr, "runner submit: usage: submit EXPERIMENT.yaml --shards N (1..100000) [--max-parallel K] ...\n");
        return rc;
    }
    if ((so.partition && !slurm_value_ok("--partition", so.partition)) || (so.gres && !slurm_value_ok("--gres", so.gres)) ||
        (so.time && !slurm_value_ok("--time", so.time)) || (so.account && !slurm_value_ok("--account", so.account)))
        return rc;
    tl_experiment x;
    tl_plan p = {0};
    tl_err e;
    plan_limits lim = {0, 0};
    char *path = tl_user_path(yaml), *out = NULL, *dir = NULL, *self = NULL;
    if (config_load(path, &x, &e) || plan_expand(&x, &lim, &p, &e)) {
        fprintf(stderr, "%s\n", e.msg);
        goto done;
    }
    if (so.shards > p.ncases)
        fprintf(stderr, "runner submit: warning: %d shards for %d cases: %d shards will have nothing to run\n",
                so.shards, p.ncases, so.shards - p.ncases);
    if (output) {
        out = absolute(output);
    } else {
        char stamp[32], *rd = absolute(results_dir);
        tl_utc_stamp(stamp, 0);
        out = tl_xasprintf("%s/%s-%s.h5", rd, x.name, stamp);
        free(rd);
    }
    size_t n = strlen(out);
    dir = n > 3 && !strcmp(out + n - 3, ".h5") ? tl_xasprintf("%.*s.sweep", (int)(n - 3), out) : tl_xasprintf("%s.sweep", out);
    self = runner ? absolute(runner) : realpath("/proc/self/exe", NULL);
    if (!self) {
        fprintf(stderr, "runner submit: cannot find this runner's path; give it with --runner\n");
        goto done;
    }
    struct stat st;
    if (!so.dry_run && stat(out, &st) == 0) {
        fprintf(stderr, "runner submit: %s exists; result files are never overwritten (choose another -o)\n", out);
        goto done;
    }
    so.runner = self, so.output = out, so.dir = dir;
    if (submit_sweep(&x, &so, &e)) {
        fprintf(stderr, "runner submit: %s\n", e.msg);
        rc = TL_EXIT_FAILED;
        goto done;
    }
    rc = TL_EXIT_OK;
done:
    plan_free(&p);
    config_free(&x);
    free(path), free(out), free(dir), free(self);
    return rc;
}

/* ---- merge ------------------------------------------------------------------------------ */

static int cmd_merge(int argc, char **argv, int full_argc, char **full_argv)
{
    merge_opts mo = {0};
    char **inputs = tl_xcalloc((size_t)argc + 1, sizeof *inputs);
    char *out = NULL;
    int n = 0, rc = TL_EXIT_BAD_INPUT;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--force")) mo.force = 1;
        else if (argv[i][0] == '-') {
            fprintf(stderr, "runner merge: unknown option '%s' (see runner --help)\n", argv[i]);
            goto done;
        } else if (!out) out = tl_user_path(argv[i]);
        else inputs[n++] = tl_user_path(argv[i]);
    }
    if (!out || n == 0) {
        fprintf(stderr, "runner merge: give the output file and one or more result files: merge OUT.h5 A.h5 B.h5 ...\n");
        goto done;
    }
    char *argv_text = join_argv(full_argc, full_argv);
    mo.argv_text = argv_text;
    merge_report r;
    tl_err e;
    if (merge_files(out, inputs, n, &mo, &r, stderr, &e)) {
        fprintf(stderr, "runner merge: %s\n", e.msg);
    } else {
        printf("merged %d files: %d cases", n, r.ncases);
        if (r.nplan) printf(" of the experiment's %d", r.nplan);
        printf(", %d failed -> %s\n", r.failed, out);
        if (r.missing)
            fprintf(stderr, "runner merge: %d cases of the experiment are in none of the files (a shard that did not "
                            "finish? resume it with --resume, then merge again)\n", r.missing);
        rc = r.missing || r.failed ? TL_EXIT_FAILED : TL_EXIT_OK;
    }
    free(argv_text);
done:
    for (int i = 0; i < n; i++) free(inputs[i]);
    free(inputs);
    free(out);
    return rc;
}

static int dispatch(int argc, char **argv);

int main(int argc, char **argv)
{
    int rc = dispatch(argc, argv);
    if (h5_close_failed) {
        /* See h5util.h: skip HDF5's atexit clean-up, which would crash. */
        fflush(NULL);
        _exit(rc);
    }
    return rc;
}

static int dispatch(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage, stderr);
        return TL_EXIT_BAD_INPUT;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        fputs(usage, stdout);
        return TL_EXIT_OK;
    }
    if (!strcmp(cmd, "--version")) {
        printf("tilelab runner %s\n", TL_VERSION);
        return TL_EXIT_OK;
    }
    for (int i = 2; i < argc; i++)
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            fputs(usage, stdout);
            return TL_EXIT_OK;
        }
    if (!strcmp(cmd, "list")) return cmd_list(argc - 2, argv + 2);
    if (!strcmp(cmd, "validate")) return cmd_validate(argc - 2, argv + 2);
    if (!strcmp(cmd, "compile")) return cmd_compile(argc - 2, argv + 2);
    if (!strcmp(cmd, "run")) return cmd_run(argc - 2, argv + 2, argc, argv);
    if (!strcmp(cmd, "rerun")) return cmd_rerun(argc - 2, argv + 2, argc, argv);
    if (!strcmp(cmd, "merge")) return cmd_merge(argc - 2, argv + 2, argc, argv);
    if (!strcmp(cmd, "submit")) return cmd_submit(argc - 2, argv + 2);
    return cmd_run(argc - 1, argv + 1, argc, argv);
}
