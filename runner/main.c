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

#include "runner/cache.h"
#include "runner/compile.h"
#include "runner/config.h"
#include "runner/devices.h"
#include "runner/dispatch.h"
#include "runner/env.h"
#include "runner/execute.h"
#include "runner/expr.h"
#include "runner/extract.h"
#include "runner/h5in.h"
#include "runner/h5out.h"
#include "runner/h5src.h"
#include "runner/h5util.h"
#include "runner/jit_helper.h"
#include "runner/merge.h"
#include "runner/submit.h"
#include "runner/plan.h"
#include "runner/report.h"

static const char usage[] =
    "tilelab runner " TL_VERSION ": run CUDA kernel experiments from YAML, verify, time, write HDF5\n"
    "\n"
    "usage:\n"
    "  runner [run] EXPERIMENT.yaml [options]   run every case, print a table, write the result file\n"
    "  runner rerun RESULT.h5 [options] [--local-sources]\n"
    "                                           run the experiment embedded in a result file again,\n"
    "                                           on this machine, into a new file (same case ids),\n"
    "                                           compiling the kernel sources the file carries\n"
    "                                           (--local-sources: this runner's own kernels instead)\n"
    "  runner extract RESULT.h5 DIR             write the file's experiment and its kernel sources\n"
    "                                           to DIR (new or empty), a folder that runs as it is\n"
    "  runner merge OUT.h5 RESULT.h5... [--force]\n"
    "                                           one file with the union of the cases (shards of one\n"
    "                                           sweep); refuses files of different experiments\n"
    "                                           unless --force; exit 1 if cases are missing or failed\n"
    "  runner submit EXPERIMENT.yaml --shards N [--partition P] [--gres gpu:1] [--time T]\n"
    "                [--account A] [--max-parallel K] [--gpus-per-task G] [-o OUT.h5]\n"
    "                [--runner PATH] [--dry-run]\n"
    "                                           a Slurm job array (one task per shard, each resuming\n"
    "                                           its own file) and a merge job after it (afterok);\n"
    "                                           writes OUT.sweep/ (scripts, logs, shards) and prints\n"
    "                                           the job ids; --dry-run prints the scripts only.\n"
    "                                           After a failure, sh OUT.sweep/submit.sh resumes.\n"
    "                                           --gpus-per-task G: each task asks for G GPUs (gres\n"
    "                                           gpu:G unless --gres) and runs its shard on all of\n"
    "                                           them (run --devices all)\n"
    "  runner validate EXPERIMENT.yaml... [--compile [--arch sm_90] [-j N]] [--chip CHIP] [--picks]\n"
    "                                           check configs and print case counts; runs nothing.\n"
    "                                           --picks: what a dispatching variant (sgemm's tuned)\n"
    "                                           runs for each of its cases, from its table (with\n"
    "                                           trials, the other candidates it times)\n"
    "                                           --compile also compiles every kernel (NVRTC, no GPU);\n"
    "                                           --chip GH100 checks counter names against that chip's\n"
    "                                           metric list (CUPTI's host library, no GPU; `run`\n"
    "                                           checks them against its GPU's)\n"
    "  runner table-check TABLE [--against HELD_OUT_TABLE] [--trials K]\n"
    "                                           how well a dispatch table (e.g. kernels/sgemm/\n"
    "                                           tuned_h100.table) predicts itself: each measured\n"
    "                                           problem picked from the others, and how that pick did\n"
    "                                           there against the fastest (no GPU); --against: how\n"
    "                                           its picks did on the problems of another table,\n"
    "                                           measured on shapes it was not tuned on (e.g. docs/\n"
    "                                           results/heldout_h100.table; tools/held_out.py);\n"
    "                                           --trials K: the best of the K candidates a problem\n"
    "                                           tries (tuned's `trials: K`), as if timed exactly\n"
    "                                           (not the op's twins, e.g. sgemm's EDGE=1: no table\n"
    "                                           measured them)\n"
    "  runner list [OP]                         ops, the kernel signature of each, variants, params,\n"
    "                                           defaults and constraints\n"
    "  runner list counters                     the counter sets (memory, smem, occupancy, roofline):\n"
    "                                           their metrics and what each means\n"
    "  runner compile EXPERIMENT.yaml... [--arch sm_90] [-j N]\n"
    "                                           compile every kernel the experiments name into the\n"
    "                                           cubin cache, without a GPU (NVRTC), for another machine\n"
    "  runner cache [--verify | --clear]        the compiled-kernel cache: where it is and whether it\n"
    "                                           is used; --verify checks every entry (exit 1 when one\n"
    "                                           is damaged), --clear removes them all\n"
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
    "  --compile-jobs N      threads that compile the run's kernels ahead while the first cases\n"
    "                        run, each through a helper process of its own: one process's NVRTC\n"
    "                        compiles one CuTe kernel at a time (default: the CPUs it may use,\n"
    "                        one a 2 GiB of memory; with --devices, dealt over the workers; 0:\n"
    "                        each case compiles its own)\n"
    "  --devices all|0,2,3   run on several GPUs of this machine at once: a worker process per GPU\n"
    "                        (each case on one GPU, a problem's cases together, shares balanced by\n"
    "                        expected time), their files in FILE.parts/ merged into FILE at the end;\n"
    "                        each case names its device. With --resume, goes on after a kill\n"
    "                        (the workers die with the run; what they wrote is kept)\n"
    "  --worker-cases IDS    internal: how --devices starts a worker (the case ids it runs)\n"
    "\n"
    "Cases whose variants run on the GPU need a CUDA device (cases the plan skips, e.g. a rung\n"
    "that does not take the size, are written down without one); variants of the host target\n"
    "(e.g. experiments/host_smoke.yaml) run anywhere. A variant of your own is declared in the\n"
    "experiment with `source:` (a .cu file in the experiment's folder), `entry:`, `block:`, `grid:`\n"
    "and optionally `smem:` and `requires:`; see README.md, \"Your own kernels\".\n"
    "\n"
    "environment:\n"
    "  TILELAB_CACHE_DIR     compiled-kernel cache (default $XDG_CACHE_HOME/tilelab/cubin or\n"
    "                        ~/.cache/tilelab/cubin), used only when this user alone can write it\n"
    "                        and the folders above it (as ssh with its keys)\n"
    "  TILELAB_DEVICE        CUDA device ordinal (default 0)\n"
    "  CUDA_HOME             the CUDA toolkit whose headers <...> includes of kernels find\n"
    "                        (default /usr/local/cuda)\n"
    "  TILELAB_CUTLASS       a folder with the CUTLASS headers (include/, VERSION) for kernels that\n"
    "                        include <cute/...> (default: cutlass/ beside the runner, then its Bazel\n"
    "                        runfiles)\n"
    "  TILELAB_TEST_CRASH_AT=POINT:N\n"
    "                        tests only: SIGKILL the N-th time the writer passes POINT (created,\n"
    "                        case_written, shadow_closed, exchanged), for the fault tests\n"
    "  TILELAB_TEST_PROBE_SECONDS=N\n"
    "                        tests only: reading a result file gives up after N s (default 30 + its\n"
    "                        size in MiB), for the fuzz triage's files that make HDF5 loop\n"
    "  TILELAB_TEST_DEVICES=N\n"
    "                        tests only: --devices sees N devices without CUDA (host-target cases)\n"
    "  TILELAB_TEST_HOST_TIMING=MS:NOISE:SEED\n"
    "                        tests only: host-target times become MS * (1 + NOISE * z), z normal from\n"
    "                        SEED and the case; the variants still run and are verified\n"
    "\n"
    "exit codes: 0 every case ok or skipped; 1 a case failed verification or errored; 2 bad input\n"
    "(including a kernel of the experiment that does not compile)\n";

typedef struct {
    const char *yaml;
    const char *output;
    const char *results_dir;
    int quiet;
    int resume;                /* continue -o FILE: skip the cases it holds */
    int shard_index, shard_count; /* --shard i/N (count 0: every case) */
    char shard_text[32];
    int local_sources;         /* rerun: this runner's kernels, not the file's */
    int compile_jobs;          /* threads compiling ahead; -1: the default */
    const char *devices;       /* --devices: "all" or "0,2,3"; NULL: one device */
    const char *worker_cases;  /* a --devices worker: the file of the case ids it runs */
} run_opts;

/* ---- list ------------------------------------------------------------------------------- */

static void list_counters(FILE *f)
{
    fprintf(f, "counter sets (`counters:` in an experiment or a variant; any CUPTI metric name too):\n");
    for (int i = 0; i < ctr_nsets; i++) {
        if (i == 0 || strcmp(ctr_sets[i].set, ctr_sets[i - 1].set)) fprintf(f, "\n  %s\n", ctr_sets[i].set);
        fprintf(f, "    %-56s %s\n", ctr_sets[i].metric, ctr_sets[i].meaning);
    }
    fprintf(f, "\nEvery collection adds %s (the kernels' time under the profiler, ns). Over the kernels of\n"
               "one run, .sum, .max and .min metrics combine as they say; the others as means weighted by the\n"
               "kernels' durations.\n", CTR_DURATION);
}

static int cmd_list(int argc, char **argv)
{
    if (argc > 1) {
        fprintf(stderr, "runner list: takes at most one op name, or `counters`\n");
        return TL_EXIT_BAD_INPUT;
    }
    if (argc == 1 && !strcmp(argv[0], "counters")) {
        list_counters(stdout);
        return TL_EXIT_OK;
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

/* ---- validate, compile -------------------------------------------------------------------- */

typedef struct {
    int compile;      /* validate: compile the kernels too */
    int arch, jobs;
    const char *chip; /* validate --chip: check counter names against this chip's metric list */
    int picks;        /* validate --picks: each dispatched case's pick */
    char **files;     /* experiment files as given */
    int nfiles;
} check_opts;

/* Options shared by validate and compile; files are the other arguments. */
static int parse_check_args(const char *cmd, int argc, char **argv, check_opts *o)
{
    *o = (check_opts){.arch = 90, .jobs = 1, .files = tl_xcalloc((size_t)argc + 1, sizeof(char *))};
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--compile") && !strcmp(cmd, "validate")) {
            o->compile = 1;
        } else if (!strcmp(argv[i], "--picks") && !strcmp(cmd, "validate")) {
            o->picks = 1;
        } else if (!strcmp(argv[i], "--chip") && i + 1 < argc && !strcmp(cmd, "validate")) {
            o->chip = argv[++i];
        } else if (!strcmp(argv[i], "--arch") && i + 1 < argc) {
            if (sscanf(argv[++i], "sm_%d", &o->arch) != 1 || o->arch < 50 || o->arch > 200) {
                fprintf(stderr, "runner %s: --arch takes sm_NN, e.g. sm_90\n", cmd);
                return -1;
            }
        } else if (!strcmp(argv[i], "-j") && i + 1 < argc) {
            o->jobs = atoi(argv[++i]);
            if (o->jobs < 1 || o->jobs > 256) {
                fprintf(stderr, "runner %s: -j takes 1 .. 256\n", cmd);
                return -1;
            }
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "runner %s: unknown or incomplete option '%s' (see runner --help)\n", cmd, argv[i]);
            return -1;
        } else {
            o->files[o->nfiles++] = argv[i];
        }
    }
    if (o->nfiles == 0) {
        fprintf(stderr, "runner %s: give one or more experiment files\n", cmd);
        return -1;
    }
    return 0;
}

/* Every counter name of x against the session's chip: -1 with e naming x's file:line:col. */
static int check_counters(ctr_session *s, const tl_experiment *x, tl_err *e)
{
    if (ctr_check(s, &x->counters, x->path, e)) return -1;
    for (int v = 0; v < x->nvariants; v++)
        if (ctr_check(s, &x->variants[v].counters, x->path, e)) return -1;
    return 0;
}

/* validate --chip: the chip's metric list, from CUPTI's host library (no GPU needed). */
static int check_chip(const check_opts *o, const tl_experiment *x, ctr_session **s, tl_err *e)
{
    if (!o->chip) return 0;
    if (!*s) *s = ctr_open(-1, o->chip);
    if (ctr_session_why(*s)) {
        tl_err_set(e, "runner validate: --chip %s: %s", o->chip, ctr_session_why(*s));
        return -1;
    }
    return check_counters(*s, x, e);
}

/* Loads and plans each file (xs[i], ps[i]); 1 when one of them is bad (its error printed, its xs[i] and ps[i]
 * left empty). */
static int load_all(const check_opts *o, tl_experiment *xs, tl_plan *ps, int print_validate)
{
    int bad = 0;
    ctr_session *chip = NULL;
    for (int i = 0; i < o->nfiles; i++) {
        tl_err e;
        plan_limits lim = {0};
        char *path = tl_user_path(o->files[i]);
        if (config_load(path, &xs[i], &e) || plan_expand(&xs[i], &lim, &ps[i], &e) ||
            check_chip(o, &xs[i], &chip, &e)) {
            fprintf(stderr, "%s\n", e.msg);
            plan_free(&ps[i]), config_free(&xs[i]); /* op NULL: nothing of it is compiled */
            bad = 1;
        } else if (print_validate) {
            report_validate(stdout, o->files[i], &xs[i], &ps[i], o->picks);
        }
        free(path);
    }
    ctr_close(chip);
    return bad;
}

/* Compiles the kernels of every plan that loaded; 1 when one failed. */
static int compile_all(const check_opts *o, tl_experiment *xs, tl_plan *ps, const char *cmd)
{
    compile_list l = {0};
    char why[512];
    char *cache = cache_dir(why, sizeof why);
    if (!cache && why[0]) fprintf(stderr, "runner %s: kernel cache not used: %s; nothing is cached\n", cmd, why);
    for (int i = 0; i < o->nfiles; i++)
        if (xs[i].op) compile_collect(&xs[i], &ps[i], NULL, 0, &l);
    fprintf(stderr, "runner %s: compiling %d kernels for sm_%d%s%s, %d jobs\n", cmd, l.n, o->arch,
            cache ? " into " : " (no cache folder)", cache ? cache : "", o->jobs);
    double t0 = tl_now_s();
    int failed = compile_run(&l, o->arch, o->jobs, cache, NULL, stderr);
    fprintf(stderr, "runner %s: compiled in %.1f s%s\n", cmd, tl_now_s() - t0, failed ? ", with failures" : "");
    compile_list_free(&l);
    free(cache);
    return failed != 0;
}

/* validate (and --compile) and compile: bad input, including a kernel that does not compile, is 2. */
static int cmd_check(const char *cmd, int argc, char **argv)
{
    check_opts o;
    int bad = 1;
    tl_experiment *xs = NULL;
    tl_plan *ps = NULL;
    if (parse_check_args(cmd, argc, argv, &o) == 0) {
        int compile = o.compile || !strcmp(cmd, "compile");
        xs = tl_xcalloc((size_t)o.nfiles, sizeof *xs);
        ps = tl_xcalloc((size_t)o.nfiles, sizeof *ps);
        bad = load_all(&o, xs, ps, !strcmp(cmd, "validate"));
        int loaded = 0;
        for (int i = 0; i < o.nfiles; i++) loaded += xs[i].op != NULL;
        if (compile && loaded) bad |= compile_all(&o, xs, ps, cmd); /* no compile lines when none loaded */
        for (int i = 0; i < o.nfiles; i++) plan_free(&ps[i]), config_free(&xs[i]);
    }
    free(xs), free(ps), free(o.files);
    return bad ? TL_EXIT_BAD_INPUT : TL_EXIT_OK;
}

/* ---- run -------------------------------------------------------------------------------- */

static int parse_run_args(int argc, char **argv, run_opts *o)
{
    memset(o, 0, sizeof *o);
    o->results_dir = "results";
    o->compile_jobs = -1;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if ((!strcmp(a, "-o") || !strcmp(a, "--output")) && i + 1 < argc) o->output = argv[++i];
        else if (!strcmp(a, "--results-dir") && i + 1 < argc) o->results_dir = argv[++i];
        else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) o->quiet = 1;
        else if (!strcmp(a, "--resume")) o->resume = 1;
        else if (!strcmp(a, "--local-sources")) o->local_sources = 1;
        else if (!strcmp(a, "--devices") && i + 1 < argc) o->devices = argv[++i];
        else if (!strcmp(a, "--worker-cases") && i + 1 < argc) o->worker_cases = argv[++i];
        else if (!strcmp(a, "--compile-jobs") && i + 1 < argc) {
            char tail;
            const char *v = argv[++i];
            if (sscanf(v, "%d%c", &o->compile_jobs, &tail) != 1 || o->compile_jobs < 0 || o->compile_jobs > 256) {
                fprintf(stderr, "runner: --compile-jobs takes a number of threads 0 .. 256, not '%s'\n", v);
                return -1;
            }
        }
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
    if (o->devices && o->worker_cases) {
        fprintf(stderr, "runner: --worker-cases is how --devices starts its workers; give one or the other\n");
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

/* Whether a case of the plan runs on the GPU: one the plan skipped for a reason of its own (not of the
 * device's) is written down without one. */
static int needs_gpu(const tl_plan *p)
{
    for (int i = 0; i < p->ncases; i++)
        if (p->cases[i].variant->kind != REG_HOST && (!p->cases[i].skipped || p->cases[i].device_skip)) return 1;
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

/* A --devices worker's cases: those of the shard whose ids its file lists. */
static int worker_share(const char *path, const tl_plan *p, unsigned char *todo, tl_err *e)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        tl_err_set(e, "%s: cannot read the worker's cases: %s", path, strerror(errno));
        return -1;
    }
    unsigned char *listed = tl_xcalloc((size_t)p->ncases + 1, 1);
    plan_id *ids = plan_ids(p);
    char line[64];
    int rc = 0, lineno = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        lineno++;
        line[strcspn(line, "\n")] = '\0';
        int found = plan_find(ids, p->ncases, line);
        if (found < 0 || !todo[found]) {
            tl_err_set(e, "%s:%d: '%s' is no case of this run's share of the experiment", path, lineno, line);
            rc = -1;
        } else {
            listed[found] = 1;
        }
    }
    fclose(f);
    for (int i = 0; i < p->ncases; i++) todo[i] = todo[i] && listed[i];
    free(listed), free(ids);
    return rc;
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
    for (int i = 0; i < p->ncases; i++) sh->nshare += sh->todo[i];
    sh->ntodo = sh->nshare;
    return 0;
}

/* --resume: drops the cases the file already holds from the share, counting the failed ones. */
static void skip_held(const tl_plan *p, const h5out_existing *have, run_share *sh)
{
    plan_id *ids = plan_ids(p);
    for (int k = 0; k < have->n; k++) {
        int i = plan_find(ids, p->ncases, have->ids[k]);
        if (i < 0 || !sh->todo[i]) continue;
        sh->todo[i] = 0;
        sh->ntodo--;
        sh->nearlier++;
        sh->failed_earlier += !strcmp(have->status[k], "error") || !strcmp(have->status[k], "verify_failed");
    }
    free(ids);
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

/* Runs this run's cases; 1 in *lost when a kernel fault lost the CUDA context (the rest is left
 * to a new process). Each case is committed by the writer thread while the next one runs. */
static int run_cases(const run_opts *o, const tl_plan *p, const run_share *sh, exec_ctx *ex, compile_ahead *ahead,
                     h5out *out, int device, tl_result *res, int *nres, int *lost, tl_err *e)
{
    double t0 = tl_now_s(), timed = 0;
    int said = 0;
    memset(out->phase_s, 0, sizeof out->phase_s);
    out->write_s = 0;
    *nres = *lost = 0;
    static progress_ctx pc; /* lives as long as the writer thread (joined in h5out_finish or h5out_close) */
    pc = (progress_ctx){o->quiet, sh->nearlier, sh->nshare, t0, report_progress_widths(p, sh->todo)};
    if (h5out_start_writer(out, case_saved, &pc, e)) return -1;
    for (int i = 0; i < p->ncases && !*lost; i++) {
        if (!sh->todo[i]) continue;
        tl_result *r = &res[(*nres)++];
        if (exec_case(ex, &p->cases[i], r, e)) return -1;
        r->device = device;
        /* A session that could not start was said once already (open_counters). */
        if (!said && r->counters.status && !strcmp(r->counters.status, "not_permitted") && ex->ctr &&
            !ctr_session_why(ex->ctr)) {
            fprintf(stderr, "tilelab: counters: %s; the cases are measured without them\n", r->counters.reason);
            said = 1;
        }
        if (!strcmp(r->status, "error") && exec_context_lost(ex, r)) *lost = 1;
        double tw = tl_now_s();
        if (h5out_write_case(out, r, e)) return -1;
        out->write_s += tl_now_s() - tw;
        for (int k = 0; k < PH_N; k++) out->phase_s[k] += r->phase_s[k];
        timed += r->samples.timed_s;
    }
    /* The wall time ends when the last case is in the file. */
    double tw = tl_now_s();
    if (h5out_drain(out, e)) return -1;
    out->write_s += tl_now_s() - tw;
    double wall = tl_now_s() - t0;
    if (h5out_finish(out, wall, timed, e)) return -1;
    fprintf(stderr, "tilelab: overhead: %.2f s wall for %.2f s inside timed regions (%.1f%%)\n", wall, timed,
            wall > 0 ? 100.0 * timed / wall : 0.0);
    /* Every case has its kernel: the threads compiling ahead have nothing left but to say how many they did. */
    int compiled_ahead = compile_ahead_wait(ahead);
    report_phases(stderr, out->phase_s, out->write_s, wall, res, *nres, compiled_ahead);
    if (ex->mods.loads)
        fprintf(stderr, "tilelab: modules: %d loaded, %d times one an earlier case loaded was taken again\n",
                ex->mods.loads, ex->mods.hits);
    if (out->start_s >= 0 && out->start_cuda_s > 0)
        fprintf(stderr, "tilelab: before the first case: %.2f s from the runner's start (CUDA context %.2f, GPU set-up "
                        "%.2f: cuBLAS, streams, buffers, NVML)\n", out->start_s, out->start_cuda_s, out->start_libs_s);
    else if (out->start_s >= 0)
        fprintf(stderr, "tilelab: before the first case: %.2f s from the runner's start\n", out->start_s);
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

/* The variants declared in the experiment are input like the YAML: each of their kernels that this
 * run needs is compiled before any GPU work, and one that does not compile is bad input (exit 2), with
 * no result file. The cubins stay in memo for the cases; --compile-jobs threads compile them. */
static int precompile(const run_opts *o, const tl_experiment *x, const tl_plan *p, const run_share *sh,
                      const env_info *env, const char *cache, jit_memo *memo)
{
    compile_list l = {0};
    compile_collect(x, p, sh->todo, 1, &l);
    if (l.n == 0) return 0;
    double t0 = tl_now_s();
    if (!o->quiet) fprintf(stderr, "tilelab: compiling %d kernel%s of the experiment's own variants\n", l.n, l.n > 1 ? "s" : "");
    int jobs = o->compile_jobs < 0 ? compile_default_threads() : o->compile_jobs;
    int failed = compile_run(&l, env->cc_major * 10 + env->cc_minor, jobs, cache, memo, stderr);
    if (failed)
        fprintf(stderr, "runner: %s: %d kernel%s of the experiment do%s not compile (above); nothing was run\n",
                o->yaml, failed, failed > 1 ? "s" : "", failed > 1 ? "" : "es");
    else if (!o->quiet)
        fprintf(stderr, "tilelab: compiled in %.1f s\n", tl_now_s() - t0);
    compile_list_free(&l);
    return failed ? -1 : 0;
}

/* Every kernel this run still needs, compiled by threads while the cases run (the cases wait for one
 * being compiled rather than compile it twice). */
static compile_ahead *start_ahead(const run_opts *o, const tl_experiment *x, const tl_plan *p, const run_share *sh,
                                  const env_info *env, exec_ctx *ex)
{
    int jobs = o->compile_jobs < 0 ? compile_default_threads() : o->compile_jobs;
    compile_list l = {0};
    compile_collect(x, p, sh->todo, 0, &l);
    return compile_ahead_start(&l, env->cc_major * 10 + env->cc_minor, ex->cache_dir, &ex->memo, jobs, 1);
}

static int wants_counters(const tl_experiment *x)
{
    for (int v = 0; v < x->nvariants; v++)
        if (x->variants[v].counters.n) return 1;
    return 0;
}

/* The counter session of a run on env's GPU: metric names this chip lacks are bad input (exit 2, before
 * any GPU work); a session that cannot collect is said once, and the run measures without counters. */
static int open_counters(const tl_experiment *x, const env_info *env, ctr_session **s)
{
    tl_err e;
    *s = ctr_open(env->device, NULL);
    if (ctr_session_why(*s)) {
        fprintf(stderr, "tilelab: counters: not collected: %s; the cases are measured without them\n",
                ctr_session_why(*s));
        return 0;
    }
    if (check_counters(*s, x, &e)) {
        fprintf(stderr, "%s\n", e.msg);
        return -1;
    }
    return 0;
}

/* A --devices run that was stopped left its workers' files beside path: only such a run may go on. */
static int parts_left(const char *path)
{
    struct stat st;
    char *parts = dev_parts_dir(path);
    int left = stat(parts, &st) == 0;
    if (left)
        fprintf(stderr, "runner: %s holds the workers' files of a --devices run into %s that was stopped; continue it "
                        "with --devices and --resume -o %s\n", parts, path, path);
    free(parts);
    return left;
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
    jit_memo memo = {0};
    ctr_session *ctr = NULL;
    compile_ahead *ahead = NULL;
    tl_result *res = NULL;
    tl_err e;
    char *path = NULL, *argv_text = NULL, *cache = NULL, why[512];
    int rc = TL_EXIT_BAD_INPUT, have_exec = 0, have_out = 0, nres = 0, lost = 0;
    double start_cuda_s = 0, start_libs_s = 0, t;

    env_host(&env);
    plan_limits lim = {0, env.host_mem_bytes / 2, NULL};
    if (plan_expand(x, &lim, &p, &e)) {
        fprintf(stderr, "%s\n", e.msg);
        goto out;
    }
    int use_gpu = needs_gpu(&p);
    int64_t device[EXPR_NDEVICE];
    if (use_gpu) {
        t = tl_now_s();
        int failed = env_gpu(&env, &e);
        start_cuda_s = tl_now_s() - t;
        if (failed) {
            if (rerun_of)
                fprintf(stderr, "runner rerun: %s: %s; `runner extract %s DIR` writes its experiment out\n", o->yaml,
                        e.msg, o->yaml);
            else
                fprintf(stderr, "runner: %s: %s; try experiments/host_smoke.yaml (host target) or `runner validate "
                                "%s`\n", o->yaml, e.msg, o->yaml);
            goto out;
        }
        plan_free(&p);
        device[EXPR_SMS] = env.sms;
        device[EXPR_SMEM_OPTIN] = (int64_t)env.smem_per_block_optin;
        device[EXPR_WARP] = 32;
        lim.device = device;
        lim.device_bytes = (uint64_t)(env.free_mem * 0.9) - 2 * (uint64_t)env.l2_bytes;
        if (plan_expand(x, &lim, &p, &e)) {
            fprintf(stderr, "%s\n", e.msg);
            goto out;
        }
    }
    if (use_gpu && wants_counters(x) && open_counters(x, &env, &ctr)) goto out;
    if (use_gpu && !(cache = cache_dir(why, sizeof why)) && why[0])
        fprintf(stderr, "tilelab: kernel cache not used: %s; compiling every kernel\n", why);
    if (select_share(o, &p, &sh, &e)) {
        fprintf(stderr, "runner: %s\n", e.msg);
        goto out;
    }
    if (precompile(o, x, &p, &sh, &env, cache, &memo)) goto out;
    if (!(path = output_path(o, x, &e))) {
        fprintf(stderr, "runner: %s\n", e.msg);
        goto out;
    }
    if (!o->worker_cases && parts_left(path)) goto out;
    t = tl_now_s();
    if (exec_init(&ex, x, &env, use_gpu, &e)) {
        fprintf(stderr, "runner: %s\n", e.msg);
        goto out;
    }
    start_libs_s = tl_now_s() - t;
    have_exec = 1;
    ex.memo = memo; /* the cubins compiled ahead */
    memset(&memo, 0, sizeof memo);
    ex.cache_dir = cache;
    cache = NULL;
    ex.ctr = ctr;
    snprintf(env.nvml, sizeof env.nvml, "%s", nvml_status(ex.gpu));
    argv_text = join_argv(argc, argv);
    /* The space check counts the whole share: what a resume skips is not known before the file is open. */
    if (check_space(path, &p, &sh, &e)) {
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
    if (use_gpu) ahead = start_ahead(o, x, &p, &sh, &env, &ex);
    if (!o->quiet) {
        report_header(stderr, x, &p, &env, path);
        if (o->worker_cases) /* a --devices worker: its share of the run's (of the shard's, with --shard) */
            fprintf(stderr, "this device: %d of the %d cases%s%s\n", sh.nshare, p.ncases, o->shard_count ? ", shard " : "",
                    o->shard_text);
        else if (o->shard_count)
            fprintf(stderr, "shard %s: %d of the %d cases\n", o->shard_text, sh.nshare, p.ncases);
        if (o->resume && have.n)
            fprintf(stderr, "resuming: %d of these %d cases are already in %s, %d to run\n", sh.nearlier, sh.nshare,
                    path, sh.ntodo);
    }
    res = tl_xcalloc((size_t)sh.ntodo + 1, sizeof *res);
    /* The device each case names: this run's GPU; a --devices worker's device even for host cases. */
    int ran_on = env.have_gpu ? env.device : -1;
    if (!env.have_gpu && o->worker_cases && getenv("TILELAB_DEVICE")) ran_on = atoi(getenv("TILELAB_DEVICE"));
    out.start_s = tl_process_age_s();
    out.start_cuda_s = start_cuda_s;
    out.start_libs_s = start_libs_s;
    if (run_cases(o, &p, &sh, &ex, ahead, &out, ran_on, res, &nres, &lost, &e)) {
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
    if (!o->worker_cases) { /* a worker's run says it through the run that started it */
        if (nres) report_table(stdout, x, res, nres);
        if (sh.nearlier)
            printf("and %d cases from earlier sessions (%d failed); `bazel run //analysis:summary -- %s` shows all\n",
                   sh.nearlier, sh.failed_earlier, path);
        printf("results: %s\n", path);
    }
    rc = report_failures(res, nres) || sh.failed_earlier ? TL_EXIT_FAILED : TL_EXIT_OK;
out:
    compile_ahead_stop(ahead); /* before the memo it fills goes */
    if (have_out) h5out_close(&out);
    h5out_existing_free(&have);
    if (res)
        for (int i = 0; i < nres; i++) result_free(&res[i]);
    free(res);
    free(sh.todo);
    if (have_exec) exec_free(&ex);
    ctr_close(ctr);
    jit_memo_free(&memo);
    free(cache);
    plan_free(&p);
    free(path), free(argv_text);
    return rc;
}

/* run --devices: the plan over several GPUs, a worker process each (runner/devices.h). This process
 * plans (without device facts, as shards do), hands out the cases and merges; it uses no GPU. */
static int run_on_devices(const run_opts *o, tl_experiment *x, int argc, char **argv)
{
    tl_plan p = {0};
    env_info env = {0};
    run_share sh = {0};
    dev_list d;
    tl_err e;
    char *path = NULL, *argv_text = NULL;
    int rc = TL_EXIT_BAD_INPUT;
    env_host(&env);
    plan_limits lim = {0, env.host_mem_bytes / 2, NULL};
    if (plan_expand(x, &lim, &p, &e) || select_share(o, &p, &sh, &e) || dev_parse(o->devices, &d, &e) ||
        !(path = output_path(o, x, &e))) {
        fprintf(stderr, "runner: %s\n", e.msg);
        goto out;
    }
    if (d.simulated && needs_gpu(&p)) {
        fprintf(stderr, "runner: TILELAB_TEST_DEVICES simulates devices for host-target cases only; %s has GPU "
                        "variants\n", o->yaml);
        goto out;
    }
    argv_text = join_argv(argc, argv);
    dev_opts dopt = {"/proc/self/exe", argv[0], o->yaml, path, o->shard_text, argv_text, o->resume, o->quiet,
                     o->compile_jobs};
    rc = dev_run(&dopt, &d, x, &p, sh.todo);
out:
    free(sh.todo);
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
    if (o.local_sources) {
        fprintf(stderr, "runner: --local-sources belongs to rerun (a run always compiles the sources it reads)\n");
        return TL_EXIT_BAD_INPUT;
    }
    char *yaml = tl_user_path(o.yaml);
    int rc = TL_EXIT_BAD_INPUT;
    if (config_load(yaml, &x, &e)) fprintf(stderr, "%s\n", e.msg);
    else if (o.devices) rc = run_on_devices(&o, &x, full_argc, full_argv);
    else rc = run_experiment(&o, &x, full_argc, full_argv, NULL);
    config_free(&x);
    free(yaml);
    return rc;
}

/* The runner's own kernel files that x compiles from the result file but this runner has otherwise
 * (changed or gone), comma-separated; their count. */
static int kernels_differing(const tl_experiment *x, char *list, size_t n)
{
    int count = 0;
    list[0] = '\0';
    for (int i = 0; i < x->store.n; i++) {
        const src_file *f = &x->store.files[i];
        if (!f->used || strcmp(f->origin, SRC_TILELAB)) continue;
        const reg_source *mine = reg_find_source(f->path);
        if (mine && mine->len == f->len && !memcmp(mine->text, f->text, f->len)) continue;
        snprintf(list + strlen(list), n - strlen(list), "%skernels/%s%s", count ? ", " : "", f->path, mine ? "" : " (gone)");
        count++;
    }
    return count;
}

/* Parses the experiment of a result file with the kernel sources it carries (or, local, this runner's
 * own kernels), saying in one line where they differ. */
static int parse_embedded(hid_t f, const char *h5, const char *shown, const h5in_source *src, int local,
                          tl_experiment *x, tl_err *e)
{
    src_store store;
    int nfiles;
    char *label = tl_xasprintf("%s:config_yaml", shown), list[1024];
    int rc = -1;
    /* First with the file's own kernels, to compare them with this runner's. */
    if (h5src_load_store(f, h5, 0, &store, &nfiles, e) ||
        config_parse_with(label, src->config_yaml, strlen(src->config_yaml), &store, x, e))
        goto out;
    if (!x->store.tilelab_preloaded) {
        fprintf(stderr, "runner rerun: %s carries no sources of the runner's own kernels (written before "
                        "tilelab/1.2): compiling this runner's\n", shown);
    } else {
        int differ = kernels_differing(x, list, sizeof list);
        if (differ)
            fprintf(stderr, "runner rerun: %d of this runner's kernel files differ from those %s ran (%s): compiling "
                            "%s\n", differ, shown, list,
                    local ? "this runner's (--local-sources)" : "the file's; --local-sources compiles this runner's");
    }
    if (local) {
        config_free(x);
        if (h5src_load_store(f, h5, 1, &store, &nfiles, e) ||
            config_parse_with(label, src->config_yaml, strlen(src->config_yaml), &store, x, e))
            goto out;
    }
    rc = 0;
out:
    src_store_free(&store);
    free(label);
    return rc;
}

/* The experiment embedded in a result file, with its kernel sources, on this machine, into a new file. */
static int cmd_rerun(int argc, char **argv, int full_argc, char **full_argv)
{
    run_opts o;
    tl_experiment x = {0};
    h5in_source src;
    tl_err e;
    if (parse_run_args(argc, argv, &o)) return TL_EXIT_BAD_INPUT;
    if (o.devices || o.worker_cases) {
        fprintf(stderr, "runner rerun: --devices belongs to run (`runner extract` writes the file's experiment out)\n");
        return TL_EXIT_BAD_INPUT;
    }
    char *h5 = tl_user_path(o.yaml);
    int rc = TL_EXIT_BAD_INPUT;
    hid_t f = h5in_open(h5, &e);
    if (f < 0 || h5in_read_source(f, h5, &src, &e)) {
        fprintf(stderr, "runner rerun: %s\n", e.msg);
        if (f >= 0) H5Fclose(f);
        free(h5);
        return rc;
    }
    /* Errors in the embedded text point into it: "<file.h5>:config_yaml:line:col". */
    int bad = parse_embedded(f, h5, o.yaml, &src, o.local_sources, &x, &e);
    H5Fclose(f);
    if (bad) {
        fprintf(stderr, "runner rerun: %s\n", e.msg);
    } else {
        char *of = tl_xasprintf("%s (run %s on %s from %s)", h5, src.created_utc ? src.created_utc : "?",
                                src.host ? src.host : "?", src.config_path ? src.config_path : "?");
        rc = run_experiment(&o, &x, full_argc, full_argv, of);
        free(of);
    }
    config_free(&x);
    h5in_source_free(&src);
    free(h5);
    return rc;
}

/* ---- cache -------------------------------------------------------------------------------- */

static int cmd_cache(int argc, char **argv)
{
    int verify = 0, clear = 0, entries = 0, damaged = 0, removed = 0, rc = TL_EXIT_OK;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--verify")) verify = 1;
        else if (!strcmp(argv[i], "--clear")) clear = 1;
        else {
            fprintf(stderr, "runner cache: usage: cache [--verify | --clear]\n");
            return TL_EXIT_BAD_INPUT;
        }
    }
    char why[512], *name = cache_dir_name(), *dir = cache_dir(why, sizeof why);
    tl_err e;
    if (!name) {
        fprintf(stderr, "runner cache: no folder can be named: set TILELAB_CACHE_DIR (or HOME)\n");
        return TL_EXIT_BAD_INPUT;
    }
    printf("kernel cache: %s (%s)\n", name, dir ? "used: only this user can write it" : why);
    if (clear) {
        if (cache_clear(name, &removed, &e)) fprintf(stderr, "runner cache: %s\n", e.msg), rc = TL_EXIT_BAD_INPUT;
        else printf("removed %d entries\n", removed);
    } else if (cache_verify(name, verify ? stdout : NULL, &entries, &damaged, &e)) {
        fprintf(stderr, "runner cache: %s\n", e.msg);
        rc = TL_EXIT_BAD_INPUT;
    } else {
        printf("%d entries, %d damaged%s\n", entries, damaged,
               damaged ? " (never run: compiled again when needed; runner cache --clear removes them)" : "");
        rc = verify && damaged ? TL_EXIT_FAILED : TL_EXIT_OK;
    }
    free(name), free(dir);
    return rc;
}

/* ---- extract ------------------------------------------------------------------------------ */

static int cmd_extract(int argc, char **argv)
{
    if (argc != 2 || argv[0][0] == '-' || argv[1][0] == '-') {
        fprintf(stderr, "runner extract: usage: extract RESULT.h5 DIR (DIR new or empty)\n");
        return TL_EXIT_BAD_INPUT;
    }
    char *h5 = tl_user_path(argv[0]), *dir = tl_user_path(argv[1]);
    extract_report r;
    tl_err e;
    int rc = TL_EXIT_BAD_INPUT;
    if (extract_result(h5, dir, &r, &e)) {
        fprintf(stderr, "runner extract: %s\n", e.msg);
    } else {
        printf("extracted %s and %d kernel source%s of its own variants into %s; run it with: runner run %s\n", r.yaml,
               r.nsources, r.nsources == 1 ? "" : "s", dir, r.yaml);
        rc = TL_EXIT_OK;
        extract_report_free(&r);
    }
    free(h5), free(dir);
    return rc;
}

/* ---- table-check ------------------------------------------------------------------------- */

/* Reads and parses a dispatch table named on the command line; 0, or -1 after saying why. */
static int load_table(const char *arg, const reg_op *want, dsp_table *t, const reg_op **op)
{
    char *path = tl_user_path(arg);
    tl_err e;
    size_t len = 0;
    char *text = tl_read_file(path, &len, &e);
    int rc = -1;
    if (!text) {
        fprintf(stderr, "runner table-check: %s\n", e.msg);
        goto out;
    }
    *op = dsp_table_op(text, len);
    if (!*op) {
        fprintf(stderr, "runner table-check: %s: the table does not name an op of this runner (a line `op NAME`; "
                        "see runner list)\n", arg);
        goto out;
    }
    if (want && *op != want) {
        fprintf(stderr, "runner table-check: %s: a table of op %s, the table it checks is of op %s\n", arg,
                (*op)->name, want->name);
        goto out;
    }
    if (dsp_parse(*op, arg, text, len, t, &e)) {
        fprintf(stderr, "runner table-check: %s\n", e.msg);
        goto out;
    }
    rc = 0;
out:
    free(text), free(path);
    return rc;
}

static int cmd_table_check(int argc, char **argv)
{
    const char *table = NULL, *against = NULL;
    int trials = 0, bad = 0;
    for (int i = 0; i < argc && !bad; i++) {
        if (!strcmp(argv[i], "--against") && i + 1 < argc && !against) against = argv[++i];
        else if (!strcmp(argv[i], "--trials") && i + 1 < argc && !trials) {
            char *end;
            long k = strtol(argv[++i], &end, 10);
            if (*end || end == argv[i] || k < 1 || k > CFG_MAX_TRIALS) {
                fprintf(stderr, "runner table-check: --trials %s: a count of candidates, 1 .. %d\n", argv[i],
                        CFG_MAX_TRIALS);
                return TL_EXIT_BAD_INPUT;
            }
            trials = (int)k;
        } else if (argv[i][0] != '-' && !table) table = argv[i];
        else bad = 1;
    }
    if (!table || bad) {
        fprintf(stderr, "runner table-check: usage: table-check TABLE [--against HELD_OUT_TABLE] [--trials K] (dispatch "
                        "tables, e.g. kernels/sgemm/tuned_h100.table)\n");
        return TL_EXIT_BAD_INPUT;
    }
    if (!trials) trials = 1;
    int rc = TL_EXIT_BAD_INPUT;
    dsp_table t = {0}, h = {0};
    dsp_check *c = NULL;
    const reg_op *op = NULL, *hop = NULL;
    if (load_table(table, NULL, &t, &op)) goto out;
    if (against && load_table(against, op, &h, &hop)) goto out;
    const dsp_table *probs = against ? &h : &t; /* the table whose problems are checked */
    int n = against ? dsp_against(&t, op, &h, trials, &c) : dsp_leave_one_out(&t, op, trials, &c), over = 0, missing = 0;
    if (against)
        printf("%s: its picks (op %s; device %s; %d SMs) on the %d problems of %s (device %s; measured %s):\nthe pick, "
               "and its time there over the fastest measured there\n",
               table, op->name, t.device[0] ? t.device : "not said", t.sms, n, against,
               h.device[0] ? h.device : "not said", h.measured ? h.measured : "not said");
    else
        printf("%s: %d measured problems (op %s; device %s; %d SMs), each predicted from the others as if it had not "
               "been measured:\nthe pick, and its time there over the fastest measured there\n",
               table, n, op->name, t.device[0] ? t.device : "not said", t.sms);
    if (trials > 1)
        printf("(the time is the best of the %d candidates ranked first there, tuned's `trials: %d`)\n", trials, trials);
    double logs = 0;
    for (int i = 0; i < n; i++) {
        const dsp_row *p = &probs->rows[c[i].prob];
        char sizes[160], lay[64];
        dsp_problem_text(op, p, sizes, sizeof sizes, lay, sizeof lay);
        double rel = c[i].rel > 0 ? c[i].rel : DSP_REL_KEPT; /* at least */
        logs += log(rel);
        over += rel > 1.2;
        missing += c[i].pick >= 0 && c[i].rel == 0;
        if (c[i].pick < 0)
            printf("  %-28s %-12s %-5s  none: %s\n", sizes, lay, op->dtypes[p->dtype],
                   against ? "no rung of the table takes it" : "no other problem's rung takes it");
        else if (c[i].rel == 0)
            printf("  %-28s %-12s %-5s  > %.1f  %s (line %d)\n", sizes, lay, op->dtypes[p->dtype], DSP_REL_KEPT,
                   t.rows[c[i].pick].text, t.rows[c[i].pick].line);
        else
            printf("  %-28s %-12s %-5s  %5.3f  %s (line %d)\n", sizes, lay, op->dtypes[p->dtype], c[i].rel,
                   t.rows[c[i].pick].text, t.rows[c[i].pick].line);
    }
    printf("geometric mean %.3f x the fastest (%d picks the %s has no row of there counted at %.1f); %d of %d "
           "above 1.2", n ? exp(logs / n) : 1.0, missing, against ? "held-out table" : "table", DSP_REL_KEPT, over, n);
    if (trials > 1) printf("; each problem the best of the %d candidates ranked first, as if timed exactly", trials);
    printf("\n");
    rc = TL_EXIT_OK;
out:
    free(c);
    if (t.name) dsp_free(&t);
    if (h.name) dsp_free(&h);
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
        else if (!strcmp(a, "--gpus-per-task")) {
            char tail;
            if (sscanf(argv[++i], "%d%c", &so.gpus_per_task, &tail) != 1 || so.gpus_per_task < 1 ||
                so.gpus_per_task > DEV_MAX) {
                fprintf(stderr, "runner submit: --gpus-per-task takes a number of GPUs 1 .. %d, not '%s'\n", DEV_MAX,
                        argv[i]);
                return rc;
            }
        }
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
    plan_limits lim = {0};
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
        printf("merged %d file%s: %d cases", n, n == 1 ? "" : "s", r.ncases);
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
    if (argc == 2 && !strcmp(argv[1], JIT_HELPER_ARG)) return jit_helper_main(); /* a run's compile helper */
    int rc = dispatch(argc, argv);
    if (h5_left_open() || h5_close_failed) {
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
    if (!strcmp(cmd, "validate") || !strcmp(cmd, "compile")) return cmd_check(cmd, argc - 2, argv + 2);
    if (!strcmp(cmd, "extract")) return cmd_extract(argc - 2, argv + 2);
    if (!strcmp(cmd, "table-check")) return cmd_table_check(argc - 2, argv + 2);
    if (!strcmp(cmd, "cache")) return cmd_cache(argc - 2, argv + 2);
    if (!strcmp(cmd, "run")) return cmd_run(argc - 2, argv + 2, argc, argv);
    if (!strcmp(cmd, "rerun")) return cmd_rerun(argc - 2, argv + 2, argc, argv);
    if (!strcmp(cmd, "merge")) return cmd_merge(argc - 2, argv + 2, argc, argv);
    if (!strcmp(cmd, "submit")) return cmd_submit(argc - 2, argv + 2);
    return cmd_run(argc - 1, argv + 1, argc, argv);
}
