/* runner table-check: how well a dispatch table predicts the problems it did not measure, without a GPU. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/cmd/cmd.h"
#include "runner/ops/dispatch.h"
#include "runner/ops/registry_lookup.h"

static const char help[] =
    "How well a dispatch table (e.g. kernels/sgemm/tuned_h100.table) predicts itself: each measured\n"
    "problem picked from the others, as if it had not been measured, and how that pick did there\n"
    "against the fastest; the geometric mean over the problems. No GPU.\n";

typedef struct {
    const char *against;
    int trials;
} check_opts;

static const cmd_option table[] = {
    CMD_STR("--against", "HELD", check_opts, against,
            "how its picks did on the problems of another table, measured on shapes\n"
            "it was not tuned on (e.g. docs/results/heldout_h100.table, written by\n"
            "tools/held_out.py and analysis/dispatch_table.py)"),
    CMD_INT("--trials", "K", check_opts, trials, 1, CFG_MAX_TRIALS,
            "the best of the K candidates a problem tries (tuned's `trials: K`), as if\n"
            "timed exactly (not the op's twins, e.g. sgemm's EDGE=1: no table measured\n"
            "them)"),
    CMD_END,
};
static const cmd_option *const options[] = {table, NULL};

/* Reads and parses a dispatch table named on the command line; 0, or -1 after saying why. */
static int load_table(const char *arg, const reg_op *want, dispatch_table *t, const reg_op **op)
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
    char name[256];
    *op = dispatch_table_op_name(text, len, name, sizeof name) ? NULL : reg_find_op(name);
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
    if (dispatch_parse(*op, arg, text, len, t, &e)) {
        fprintf(stderr, "runner table-check: %s\n", e.msg);
        goto out;
    }
    rc = 0;
out:
    free(text), free(path);
    return rc;
}

/* Each checked problem's pick and how it did, then the geometric mean: against the held-out table h
 * (named against), or t's own problems left out one at a time (h NULL). */
static void print_checks(const char *table, const dispatch_table *t, const char *against, const dispatch_table *h,
                         const reg_op *op, const dispatch_check *c, int n, int trials)
{
    const dispatch_table *probs = h ? h : t; /* the table whose problems are checked */
    int over = 0, missing = 0;
    if (h)
        printf("%s: its picks (op %s; device %s; %d SMs) on the %d problems of %s (device %s; measured %s):\nthe pick, "
               "and its time there over the fastest measured there\n",
               table, op->name, t->device[0] ? t->device : "not said", t->sms, n, against,
               h->device[0] ? h->device : "not said", h->measured ? h->measured : "not said");
    else
        printf("%s: %d measured problems (op %s; device %s; %d SMs), each predicted from the others as if it had not "
               "been measured:\nthe pick, and its time there over the fastest measured there\n",
               table, n, op->name, t->device[0] ? t->device : "not said", t->sms);
    if (trials > 1)
        printf("(the time is the best of the %d candidates ranked first there, tuned's `trials: %d`)\n", trials, trials);
    double logs = 0;
    for (int i = 0; i < n; i++) {
        const dispatch_row *p = &probs->rows[c[i].prob];
        char sizes[160], lay[64];
        dispatch_problem_text(op, p, sizes, sizeof sizes, lay, sizeof lay);
        double rel = c[i].rel > 0 ? c[i].rel : DISPATCH_REL_KEPT; /* at least */
        logs += log(rel);
        over += rel > 1.2;
        missing += c[i].pick >= 0 && c[i].rel == 0;
        if (c[i].pick < 0)
            printf("  %-28s %-12s %-5s  none: %s\n", sizes, lay, op->dtypes[p->dtype],
                   h ? "no rung of the table takes it" : "no other problem's rung takes it");
        else if (c[i].rel == 0)
            printf("  %-28s %-12s %-5s  > %.1f  %s (line %d)\n", sizes, lay, op->dtypes[p->dtype], DISPATCH_REL_KEPT,
                   t->rows[c[i].pick].text, t->rows[c[i].pick].line);
        else
            printf("  %-28s %-12s %-5s  %5.3f  %s (line %d)\n", sizes, lay, op->dtypes[p->dtype], c[i].rel,
                   t->rows[c[i].pick].text, t->rows[c[i].pick].line);
    }
    printf("geometric mean %.3f x the fastest (%d picks the %s has no row of there counted at %.1f); %d of %d "
           "above 1.2", n ? exp(logs / n) : 1.0, missing, h ? "held-out table" : "table", DISPATCH_REL_KEPT, over, n);
    if (trials > 1) printf("; each problem the best of the %d candidates ranked first, as if timed exactly", trials);
    printf("\n");
}

static int table_check_main(int argc, char **argv, const cmd_line *line)
{
    (void)line;
    check_opts o = {NULL, 1};
    const char *words[2];
    int nw;
    if (cmd_parse("table-check", options, argc, argv, &o, words, 2, &nw)) return TL_EXIT_BAD_INPUT;
    if (nw != 1) {
        fprintf(stderr, "runner table-check: usage: table-check TABLE [--against HELD_OUT_TABLE] [--trials K] (dispatch "
                        "tables, e.g. kernels/sgemm/tuned_h100.table)\n");
        return TL_EXIT_BAD_INPUT;
    }
    const char *table = words[0], *against = o.against;
    int trials = o.trials;
    int rc = TL_EXIT_BAD_INPUT;
    dispatch_table t = {0}, h = {0};
    dispatch_check *c = NULL;
    const reg_op *op = NULL, *hop = NULL;
    if (load_table(table, NULL, &t, &op)) goto out;
    if (against && load_table(against, op, &h, &hop)) goto out;
    const dispatch_table *held = against ? &h : NULL;
    int n = against ? dispatch_against(&t, op, &h, trials, &c) : dispatch_leave_one_out(&t, op, trials, &c);
    print_checks(table, &t, against, held, op, c, n, trials);
    rc = TL_EXIT_OK;
out:
    free(c);
    if (t.name) dispatch_free(&t);
    if (h.name) dispatch_free(&h);
    return rc;
}

const cmd_def cmd_table_check = {
    .name = "table-check",
    .synopsis = "table-check TABLE [--against HELD_OUT_TABLE] [--trials K]",
    .summary = "how well a dispatch table predicts problems it did not measure (no GPU)",
    .help = help,
    .options = options,
    .main = table_check_main,
};
