/* The plan pin: every shipped experiment's cases, as they expand today, against tests/data/plan_pin.txt.
 *
 * A case id is what pairs a case across machines, reruns and `compare`; moving code (the registry, the
 * dispatch, the planner) must not change one. Each experiment of experiments/ is expanded twice, without
 * device facts (as `validate` and shards do) and with an H200's (as a run on one does), under fixed memory
 * limits, and each case gives a line: its id, whether it runs, is skipped or waits for the device, its
 * reason, its launches (grid/block/dynamic shared memory of each kernel) and workspace, its canonical text. The pin holds, per experiment and pass, the count and the SHA-256 of all those
 * lines, and some of the lines themselves, so that a change names a case it moved: up to KEEP_LINES of the
 * first pass, spread evenly over its cases, and of the second those that differ from the first.
 *
 *   plan_pin_test PIN EXPERIMENT.yaml...           checks (exit 1 when a plan moved)
 *   bazel run //runner/plan:plan_pin_test -- --write    writes the pin anew into the checkout (after a change of
 *                                                  case ids on purpose)
 *
 * Bazel's runfiles are links, which an experiment's folder refuses for its kernels: the experiments are
 * read from a copy (TEST_TMPDIR, else /tmp) with the same relative paths. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runner/config/config.h"
#include "runner/ops/expr.h"
#include "runner/plan/plan.h"
#include "runner/testing/testutil.h"
#include "runner/util/util.h"

enum { KEEP_LINES = 40 };

typedef struct {
    const char *name;
    int with_device;
} pass;

static const pass passes[] = {{"host", 0}, {"h200", 1}};

/* One case as the pin writes it: tabs and newlines of a reason kept out of the line's fields. */
static void case_line(tl_buf *b, const tl_case *c)
{
    tl_buf_printf(b, "%s\t%s\t", c->id, c->skipped ? "skip" : c->undecided ? "undecided" : "run");
    size_t at = b->len;
    tl_buf_puts(b, c->reason ? c->reason : "-");
    for (size_t i = at; i < b->len; i++)
        if (b->s[i] == '\t' || b->s[i] == '\n') b->s[i] = ' ';
    tl_buf_puts(b, "\t");
    for (int k = 0; k < c->nlaunch; k++) {
        const reg_launch *l = &c->launch[k];
        tl_buf_printf(b, "%s%ux%ux%u/%ux%ux%u/%zu", k ? "+" : "", l->grid[0], l->grid[1], l->grid[2], l->block[0],
                      l->block[1], l->block[2], l->smem);
    }
    if (c->nlaunch == 0) tl_buf_puts(b, "-");
    if (c->nlaunch && c->run->workspace) tl_buf_printf(b, " ws=%llu", (unsigned long long)c->run->workspace(c->run_params, &c->spec));
    tl_buf_puts(b, "\t"), tl_buf_puts(b, c->canonical), tl_buf_puts(b, "\n");
}

/* The case lines of one experiment and pass (lines[i] into all.s), or -1 with e. */
static int plan_lines(const char *path, const pass *ps, tl_buf *all, size_t **at, int *n, int *nskipped, tl_err *e)
{
    tl_experiment x;
    tl_plan p = {0};
    /* An H200 as CUDA reports it; memory limits fixed so that the memory skips do not depend on this machine. */
    int64_t device[EXPR_NDEVICE];
    device[EXPR_SMS] = 132, device[EXPR_SMEM_OPTIN] = 232448, device[EXPR_WARP] = 32;
    plan_limits lim = {ps->with_device ? 140ull << 30 : 0, 64ull << 30, ps->with_device ? device : NULL};
    if (config_load(path, &x, e)) return -1;
    if (plan_expand(&x, &lim, &p, e)) {
        config_free(&x);
        return -1;
    }
    tl_buf_printf(all, "%s", "");
    *at = tl_xcalloc((size_t)p.ncases + 1, sizeof **at);
    for (int i = 0; i < p.ncases; i++) (*at)[i] = all->len, case_line(all, &p.cases[i]);
    (*at)[p.ncases] = all->len;
    *n = p.ncases, *nskipped = p.nskipped;
    plan_free(&p);
    config_free(&x);
    return 0;
}

/* The pin's text for one experiment: per pass a header line, then the kept case lines. */
static int pin_text(const char *path, tl_buf *out, tl_err *e)
{
    tl_buf all[2] = {{0}, {0}};
    size_t *at[2] = {NULL, NULL};
    int n[2], nskipped[2], rc = 0;
    for (int k = 0; k < 2 && rc == 0; k++) rc = plan_lines(path, &passes[k], &all[k], &at[k], &n[k], &nskipped[k], e);
    for (int k = 0; k < 2 && rc == 0; k++) {
        char hex[65];
        tl_sha256_hex(all[k].s, all[k].len, hex);
        tl_buf_printf(out, "experiment %s pass %s cases %d skipped %d sha256 %s\n", path, passes[k].name, n[k],
                      nskipped[k], hex);
        int kept = 0, step = n[k] > KEEP_LINES ? (n[k] + KEEP_LINES - 1) / KEEP_LINES : 1;
        for (int i = 0; i < n[k] && kept < KEEP_LINES; i++) {
            const char *line = all[k].s + at[k][i];
            size_t len = at[k][i + 1] - at[k][i];
            int keep = k == 0 ? i % step == 0
                              : n[0] != n[1] || len != at[0][i + 1] - at[0][i] || memcmp(line, all[0].s + at[0][i], len);
            if (!keep) continue;
            tl_buf_printf(out, "  %d ", i), tl_buf_put(out, line, len);
            kept++;
        }
    }
    for (int k = 0; k < 2; k++) free(all[k].s), free(at[k]);
    return rc;
}

/* The first line where two pins differ, for the message. */
static void first_difference(const char *want, const char *got)
{
    int line = 1;
    while (*want && *want == *got) line += *want == '\n', want++, got++;
    while (line > 1 && want[-1] != '\n') want--, got--; /* to the line's start */
    fprintf(stderr, "  pin line %d: the pin has\n    %.*s\n  the plan now gives\n    %.*s\n", line,
            (int)strcspn(want, "\n"), want, (int)strcspn(got, "\n"), got);
}

static char home[4096]; /* where the test started: the pin is read from there */

/* Copies the folders of files (experiments/...) into a scratch folder and moves there, links followed. */
static int copy_experiments(const char **files, int nfiles)
{
    const char *tmp = getenv("TEST_TMPDIR");
    char dir[4096], cmd[8192];
    snprintf(dir, sizeof dir, "%s/plan_pin.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!getcwd(home, sizeof home) || !mkdtemp(dir)) {
        perror("plan_pin_test: scratch folder");
        return -1;
    }
    for (int i = 0; i < nfiles; i++)
        if (strncmp(files[i], "experiments/", 12) || strstr(files[i], "..") || strchr(files[i], '\'')) {
            fprintf(stderr, "plan_pin_test: %s: the experiments are named experiments/...\n", files[i]);
            return -1;
        }
    snprintf(cmd, sizeof cmd, "cp -rL experiments '%s/experiments'", dir);
    if (system(cmd) != 0 || chdir(dir)) {
        fprintf(stderr, "plan_pin_test: cannot copy experiments/ into %s\n", dir);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int write = 0, nfiles = 0;
    const char *pin = NULL, **files = calloc((size_t)argc, sizeof *files);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--write")) write = 1;
        else if (!pin) pin = argv[i];
        else files[nfiles++] = argv[i];
    }
    if (!pin || !nfiles) {
        fprintf(stderr, "usage: plan_pin_test PIN EXPERIMENT.yaml... [--write]\n");
        return 2;
    }
    tl_buf now = {0};
    tl_buf_printf(&now, "# tilelab plan pin (runner/plan/plan_pin_test.c): regenerate only for a change of case ids on purpose.\n");
    if (copy_experiments(files, nfiles)) return 2;
    int total = 0;
    for (int i = 0; i < nfiles; i++) {
        tl_err e;
        total++;
        if (pin_text(files[i], &now, &e)) CHECK(0, "%s: %s", files[i], e.msg);
    }
    if (write) { /* `bazel run` stands in the runfiles: the pin is written into the checkout */
        const char *root = getenv("BUILD_WORKSPACE_DIRECTORY");
        char *out = root ? tl_xasprintf("%s/%s", root, pin) : pin[0] == '/' ? tl_xstrdup(pin) : tl_xasprintf("%s/%s", home, pin);
        FILE *f = fopen(out, "w");
        if (!f || fwrite(now.s, 1, now.len, f) != now.len || fclose(f)) {
            fprintf(stderr, "plan_pin_test: cannot write %s\n", out);
            return 2;
        }
        printf("wrote %s: %d experiments, %zu bytes\n", out, total, now.len);
        free(out);
        return test_failures ? 1 : 0;
    }
    tl_err e;
    size_t len = 0;
    char *path = pin[0] == '/' ? tl_xstrdup(pin) : tl_xasprintf("%s/%s", home, pin);
    char *want = tl_read_file(path, &len, &e);
    free(path);
    CHECK(want != NULL, "%s", want ? "" : e.msg);
    if (want) {
        int same = len == now.len && !memcmp(want, now.s, len);
        CHECK(same, "the plans of experiments/ moved from %s (a case id, a skip or its reason changed)", pin);
        if (!same) first_difference(want, now.s);
    }
    free(want), free(now.s), free(files);
    return TEST_REPORT(total + 1);
}
