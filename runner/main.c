/* runner: the tilelab command line. Only main exits; everything else returns a status. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "runner/config.h"
#include "runner/env.h"
#include "runner/execute.h"
#include "runner/h5out.h"
#include "runner/plan.h"
#include "runner/report.h"

static const char usage[] =
    "tilelab runner " TL_VERSION ": run CUDA kernel experiments from YAML, verify, time, write HDF5\n"
    "\n"
    "usage:\n"
    "  runner [run] EXPERIMENT.yaml [options]   run every case, print a table, write the result file\n"
    "  runner validate EXPERIMENT.yaml...       check configs and print case counts; runs nothing\n"
    "  runner list [OP]                         ops, variants, params, defaults and constraints\n"
    "  runner --help | --version\n"
    "\n"
    "run options:\n"
    "  -o, --output FILE     result file (default: RESULTS_DIR/<name>-<utc>.h5); never overwritten\n"
    "  --results-dir DIR     folder for the default file name (default: results)\n"
    "  -q, --quiet           no progress line per case\n"
    "\n"
    "Cases whose variants run on the GPU need a CUDA device; variants of the host target\n"
    "(e.g. experiments/host_smoke.yaml) run anywhere.\n"
    "\n"
    "environment:\n"
    "  TILELAB_CACHE_DIR     compiled-kernel cache (default $XDG_CACHE_HOME/tilelab/cubin or\n"
    "                        ~/.cache/tilelab/cubin)\n"
    "  TILELAB_DEVICE        CUDA device ordinal (default 0)\n"
    "\n"
    "exit codes: 0 every case ok or skipped; 1 a case failed verification or errored; 2 bad input\n";

typedef struct {
    const char *yaml;
    const char *output;
    const char *results_dir;
    int quiet;
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
        else if (a[0] == '-') {
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

static int run_cases(const run_opts *o, const tl_plan *p, exec_ctx *ex, h5out *out, tl_result *res, tl_err *e)
{
    double t0 = tl_now_s();
    for (int i = 0; i < p->ncases; i++) {
        if (exec_case(ex, &p->cases[i], &res[i], e)) return -1;
        if (h5out_write_case(out, &res[i], e)) return -1;
        if (!o->quiet) report_progress(stderr, i + 1, p->ncases, &res[i], tl_now_s() - t0);
    }
    return 0;
}

static int cmd_run(int argc, char **argv, int full_argc, char **full_argv)
{
    run_opts o;
    tl_experiment x;
    tl_plan p = {0};
    env_info env = {0};
    exec_ctx ex = {0};
    h5out out = {.file = -1, .summary = -1, .summary_type = -1};
    tl_result *res = NULL;
    tl_err e;
    char *yaml = NULL, *path = NULL, *argv_text = NULL;
    int rc = TL_EXIT_BAD_INPUT, have_exec = 0;

    if (parse_run_args(argc, argv, &o)) return TL_EXIT_BAD_INPUT;
    yaml = tl_user_path(o.yaml);
    if (config_load(yaml, &x, &e)) {
        fprintf(stderr, "%s\n", e.msg);
        goto out;
    }
    env_host(&env);
    plan_limits lim = {0, env.host_mem_bytes / 2};
    if (plan_expand(&x, &lim, &p, &e)) {
        fprintf(stderr, "%s\n", e.msg);
        goto out;
    }
    int use_gpu = needs_gpu(&p);
    if (use_gpu) {
        if (env_gpu(&env, &e)) {
            fprintf(stderr, "runner: %s: %s; try experiments/host_smoke.yaml (host target) or `runner validate %s`\n",
                    o.yaml, e.msg, o.yaml);
            goto out;
        }
        plan_free(&p);
        lim.device_bytes = (uint64_t)(env.free_mem * 0.9) - 2 * (uint64_t)env.l2_bytes;
        if (plan_expand(&x, &lim, &p, &e)) {
            fprintf(stderr, "%s\n", e.msg);
            goto out;
        }
    }
    if (!(path = output_path(&o, &x, &e))) {
        fprintf(stderr, "runner: %s\n", e.msg);
        goto out;
    }
    if (exec_init(&ex, &x, &env, use_gpu, &e)) {
        fprintf(stderr, "runner: %s\n", e.msg);
        goto out;
    }
    have_exec = 1;
    argv_text = join_argv(full_argc, full_argv);
    if (h5out_open(&out, path, &x, &env, argv_text, &e)) {
        fprintf(stderr, "runner: %s\n", e.msg);
        goto out;
    }
    if (!o.quiet) report_header(stderr, &x, &p, &env, path);
    res = tl_xcalloc((size_t)p.ncases, sizeof *res);
    if (run_cases(&o, &p, &ex, &out, res, &e)) {
        fprintf(stderr, "runner: %s\n", e.msg);
        rc = TL_EXIT_FAILED;
        goto out;
    }
    if (h5out_close(&out, &e)) {
        fprintf(stderr, "runner: %s\n", e.msg);
        rc = TL_EXIT_FAILED;
        goto out;
    }
    report_table(stdout, &x, res, p.ncases);
    printf("results: %s\n", path);
    rc = report_failures(res, p.ncases) ? TL_EXIT_FAILED : TL_EXIT_OK;
out:
    if (out.file >= 0) h5out_close(&out, &e);
    if (res)
        for (int i = 0; i < p.ncases; i++) result_free(&res[i]);
    free(res);
    if (have_exec) exec_free(&ex);
    plan_free(&p);
    config_free(&x);
    free(yaml), free(path), free(argv_text);
    return rc;
}

int main(int argc, char **argv)
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
    if (!strcmp(cmd, "run")) return cmd_run(argc - 2, argv + 2, argc, argv);
    return cmd_run(argc - 1, argv + 1, argc, argv);
}
