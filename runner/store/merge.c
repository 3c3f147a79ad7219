#include "runner/store/merge.h"

#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runner/config/config.h"
#include "runner/plan/plan.h"
#include "runner/store/h5in.h"
#include "runner/store/h5src.h"
#include "runner/store/h5util.h"
#include "runner/store/schema.h"

typedef struct {
    const char *path;
    hid_t f;
    char *sha, *yaml, *experiment;
    int nsessions;         /* its /sessions groups */
    int session0;          /* their first index in the output */
    h5util_summary_row *rows;  /* its /summary */
    hsize_t nrows;
    hid_t row_type;
} input;

typedef struct {
    char id[17];
    int input; /* which input holds it */
    long row;  /* its /summary row there, -1 when none */
    long order;/* plan index, or after the plan by input, then id, for cases outside it */
} placed;

static int open_input(input *in, const char *path, int trusted, tl_err *e)
{
    const char *where = path;
    hid_t g = -1;
    memset(in, 0, sizeof *in);
    in->path = path;
    in->f = in->row_type = -1;
    if ((in->f = trusted ? h5util_open_result(path, e) : h5in_open(path, e)) < 0) return -1;
    in->sha = h5util_read_str(in->f, "config_sha256");
    in->yaml = h5util_read_str(in->f, "config_yaml");
    in->experiment = h5util_read_str(in->f, "experiment");
    if (!in->sha || !in->yaml) {
        tl_err_set(e, "%s: has no config_sha256 / config_yaml attribute", path);
        return -1;
    }
    if (H5Lexists(in->f, "/sessions", H5P_DEFAULT) > 0) {
        H5G_info_t info;
        H5_CHECK(g = H5Gopen2(in->f, "/sessions", H5P_DEFAULT));
        H5_CHECK(H5Gget_info(g, &info));
        in->nsessions = (int)info.nlinks;
        H5Gclose(g);
        g = -1;
    }
    hid_t d = -1, space = -1;
    H5_CHECK(in->row_type = h5util_summary_type());
    H5_CHECK(d = H5Dopen2(in->f, "/summary", H5P_DEFAULT));
    H5_CHECK(space = H5Dget_space(d));
    H5_CHECK(H5Sget_simple_extent_dims(space, &in->nrows, NULL));
    in->rows = tl_xcalloc((size_t)in->nrows + 1, sizeof *in->rows);
    if (in->nrows) H5_CHECK(H5Dread(d, in->row_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, in->rows));
    H5Sclose(space);
    H5Dclose(d);
    return 0;
fail:
    if (g >= 0) H5Gclose(g);
    return -1;
}

static void close_input(input *in)
{
    if (in->rows && in->nrows) {
        hid_t space = H5Screate_simple(1, &in->nrows, NULL);
        H5Dvlen_reclaim(in->row_type, space, H5P_DEFAULT, in->rows);
        H5Sclose(space);
    }
    free(in->rows);
    if (in->row_type >= 0) H5Tclose(in->row_type);
    if (in->f >= 0) H5Fclose(in->f);
    free(in->sha), free(in->yaml), free(in->experiment);
    memset(in, 0, sizeof *in);
    in->f = in->row_type = -1;
}

typedef struct {
    placed *v;
    int n, cap;
    int input;
    const input *in;
} collect;

static herr_t collect_case(hid_t g, const char *name, const H5L_info_t *info, void *data)
{
    (void)g, (void)info;
    collect *c = data;
    if (strlen(name) != 16) return 0; /* not a case group */
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 256;
        c->v = realloc(c->v, sizeof *c->v * (size_t)c->cap);
        if (!c->v) abort();
    }
    placed *p = &c->v[c->n++];
    memcpy(p->id, name, 17);
    p->input = c->input;
    p->row = -1;
    return 0;
}

/* Sorting by id, then input, then row: a case's copies side by side, the first input's first. */
static int by_id(const void *a, const void *b)
{
    const placed *x = a, *y = b;
    int c = strcmp(x->id, y->id);
    return c ? c : x->input != y->input ? (x->input < y->input ? -1 : 1) : (x->row > y->row) - (x->row < y->row);
}

/* Each case's /summary row in its input (the last row of that id, as a scan would find): the cases
 * (sorted by id) against the input's rows sorted by id. */
static void match_rows(placed *v, int n, const input *in)
{
    placed *rows = tl_xcalloc((size_t)in->nrows + 1, sizeof *rows);
    int nr = 0;
    for (hsize_t r = 0; r < in->nrows; r++)
        if (in->rows[r].case_id && strlen(in->rows[r].case_id) == 16) {
            memcpy(rows[nr].id, in->rows[r].case_id, 17);
            rows[nr++].row = (long)r;
        }
    qsort(rows, (size_t)nr, sizeof *rows, by_id);
    for (int k = 0, j = 0; k < n; k++) {
        while (j < nr && strcmp(rows[j].id, v[k].id) < 0) j++;
        for (int t = j; t < nr && !strcmp(rows[t].id, v[k].id); t++) v[k].row = rows[t].row;
    }
    free(rows);
}

static int by_order(const void *a, const void *b)
{
    const placed *x = a, *y = b;
    return x->order < y->order ? -1 : x->order > y->order;
}

typedef struct {
    hid_t f;
    const char *where;
} source_sink;

static int add_source(void *ctx, const char *origin, const char *path, const char *text, size_t len, const char *sha,
                      tl_err *e)
{
    source_sink *k = ctx;
    return h5src_add(k->f, k->where, origin, path, text, len, sha, e);
}

/* The union of the inputs' /sources: every case's kernel sources stay in the file. */
static int merge_sources(hid_t f, const char *where, input *ins, int n, tl_err *e)
{
    source_sink k = {f, where};
    for (int i = 0; i < n; i++) {
        int have;
        if (h5src_each(ins[i].f, ins[i].path, add_source, &k, &have, e)) return -1;
    }
    return 0;
}

/* Writes the merged file into tmp: a new file; or, with trusted inputs (this run's own, of the current
 * schema), a byte copy of the first with the others' sessions, cases and sources added to it and its
 * /summary made again: its cases (the first's sessions are numbered from 0 in both) are not copied one
 * by one, which is most of a merge's time. */
static int write_merged(const char *tmp, input *ins, int n, placed *cases, int ncases, const merge_opts *o,
                        char **inputs, tl_err *e)
{
    const char *where = tmp;
    hid_t f = -1, g = -1, d = -1, space = -1, dcpl = -1;
    h5util_summary_row *rows = NULL;
    double wall = 0, timed = 0;
    tl_buf from = {0};
    const int onto = o->trusted; /* the output starts as the first input */
    if (onto) {
        if (h5util_copy_file(inputs[0], tmp, e)) return -1;
        H5_CHECK(f = H5Fopen(tmp, H5F_ACC_RDWR, H5P_DEFAULT));
        H5_CHECK(H5Ldelete(f, "/summary", H5P_DEFAULT));
    } else {
        H5_CHECK(f = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
        H5_CHECK(h5util_copy_attrs(ins[0].f, f));
        if (H5Lexists(ins[0].f, "/env", H5P_DEFAULT) > 0)
            H5_CHECK(H5Ocopy(ins[0].f, "/env", f, "/env", H5P_DEFAULT, H5P_DEFAULT));
        H5_CHECK(g = H5Gcreate2(f, "/sessions", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
        H5Gclose(g);
        H5_CHECK(g = H5Gcreate2(f, "/cases", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
        H5Gclose(g);
        g = -1;
    }
    H5_CHECK(h5util_put_str(f, SCH_ROOT_SCHEMA, H5_SCHEMA));
    for (int i = 0; i < n; i++) {
        double v;
        if (!h5util_read_f64(ins[i].f, "wall_s", &v)) wall += v;
        if (!h5util_read_f64(ins[i].f, "timed_s", &v)) timed += v;
        tl_buf_printf(&from, "%s%s", i ? "\n" : "", inputs[i]);
        for (int k = 0; k < ins[i].nsessions; k++) {
            char a[64], b[64];
            snprintf(a, sizeof a, "/sessions/%d", k);
            snprintf(b, sizeof b, "/sessions/%d", ins[i].session0 + k);
            if (!(onto && i == 0)) H5_CHECK(H5Ocopy(ins[i].f, a, f, b, H5P_DEFAULT, H5P_DEFAULT));
            H5_CHECK(g = H5Gopen2(f, b, H5P_DEFAULT));
            H5_CHECK(h5util_put_str(g, SCH_SESSION_MERGED_FROM, inputs[i]));
            H5_CHECK(h5util_put_str(g, SCH_SESSION_CONFIG_SHA256, ins[i].sha));
            H5Gclose(g);
            g = -1;
        }
    }
    if (merge_sources(f, where, ins + onto, n - onto, e)) goto fail;
    H5_CHECK(h5util_put_f64(f, SCH_ROOT_WALL_S, wall));
    H5_CHECK(h5util_put_f64(f, SCH_ROOT_TIMED_S, timed));
    H5_CHECK(h5util_put_str(f, SCH_ROOT_MERGED_FROM, from.s));
    H5_CHECK(h5util_put_str(f, SCH_ROOT_MERGE_ARGV, o->argv_text));
    H5_CHECK(h5util_put_i64(f, SCH_ROOT_MERGE_FORCED, o->force));
    rows = tl_xcalloc((size_t)ncases + 1, sizeof *rows);
    int nrows = 0;
    for (int c = 0; c < ncases; c++) {
        const placed *p = &cases[c];
        const input *in = &ins[p->input];
        char name[64];
        long long session = 0;
        snprintf(name, sizeof name, "/cases/%s", p->id);
        if (onto && p->input == 0) {
            if (p->row >= 0) rows[nrows++] = in->rows[p->row];
            continue; /* in the file already, its session number the same */
        }
        H5_CHECK(H5Ocopy(in->f, name, f, name, H5P_DEFAULT, H5P_DEFAULT));
        H5_CHECK(g = H5Gopen2(f, name, H5P_DEFAULT));
        h5util_read_i64(g, "session", &session); /* absent in tilelab/1 files: their one session */
        H5_CHECK(h5util_put_i64(g, SCH_CASE_SESSION, in->session0 + session));
        H5Gclose(g);
        g = -1;
        if (p->row >= 0) rows[nrows++] = in->rows[p->row];
    }
    hsize_t dims = (hsize_t)nrows, maxdims = H5S_UNLIMITED, chunk = 64;
    H5_CHECK(space = H5Screate_simple(1, &dims, &maxdims));
    H5_CHECK(dcpl = H5Pcreate(H5P_DATASET_CREATE));
    H5_CHECK(H5Pset_chunk(dcpl, 1, &chunk));
    H5_CHECK(d = H5Dcreate2(f, "/summary", ins[0].row_type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT));
    if (nrows) H5_CHECK(H5Dwrite(d, ins[0].row_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows));
    H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(space);
    free(rows);
    tl_buf_free(&from);
    herr_t closed = h5util_fclose(f);
    f = -1; /* closed even when it failed: never closed twice */
    H5_CHECK(closed);
    return h5util_fsync_path(tmp, e);
fail:
    if (d >= 0) H5Dclose(d);
    if (dcpl >= 0) H5Pclose(dcpl);
    if (space >= 0) H5Sclose(space);
    if (g >= 0) H5Gclose(g);
    if (f >= 0) h5util_fclose(f);
    free(rows);
    tl_buf_free(&from);
    return -1;
}

/* Opens and checks the inputs: none given twice, all of one experiment (unless o->force, then said on log). */
static int open_inputs(input *ins, char **inputs, int n, const merge_opts *o, FILE *log, tl_err *e)
{
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < i; j++)
            if (!strcmp(inputs[i], inputs[j])) {
                tl_err_set(e, "%s: given twice", inputs[i]);
                return -1;
            }
        if (open_input(&ins[i], inputs[i], o->trusted, e)) return -1;
        ins[i].session0 = i ? ins[i - 1].session0 + (ins[i - 1].nsessions ? ins[i - 1].nsessions : 1) : 0;
        if (strcmp(ins[i].sha, ins[0].sha)) {
            if (!o->force) {
                tl_err_set(e, "%s: a different experiment from %s (config_sha256 %.12s... vs %.12s...): merge refuses "
                              "to mix them; --force merges anyway, keeping each session's config_sha256",
                           inputs[i], inputs[0], ins[i].sha, ins[0].sha);
                return -1;
            }
            fprintf(log, "merge: warning: %s is a different experiment from %s (--force)\n", inputs[i], inputs[0]);
        }
    }
    return 0;
}

/* The cases of the inputs, each once: a case in two inputs is an error, or the first input's (o->force,
 * o->first_wins). */
static int union_of_cases(input *ins, char **inputs, int n, const merge_opts *o, collect *all, tl_err *e)
{
    /* The union, checking that no case is in two inputs. */
    for (int i = 0; i < n; i++) {
        collect c = {0};
        c.input = i;
        c.in = &ins[i];
        hid_t g = H5Gopen2(ins[i].f, "/cases", H5P_DEFAULT);
        if (g < 0 || H5Literate(g, H5_INDEX_NAME, H5_ITER_INC, NULL, collect_case, &c) < 0) {
            if (g >= 0) H5Gclose(g);
            free(c.v);
            tl_err_set(e, "%s: cannot read /cases", inputs[i]);
            return -1;
        }
        H5Gclose(g);
        qsort(c.v, (size_t)c.n, sizeof *c.v, by_id);
        match_rows(c.v, c.n, &ins[i]);
        if (all->n + c.n > all->cap) {
            all->cap = all->n + c.n > 2 * all->cap ? all->n + c.n : 2 * all->cap;
            all->v = realloc(all->v, sizeof *all->v * (size_t)(all->cap + 1));
            if (!all->v) abort();
        }
        memcpy(all->v + all->n, c.v, sizeof *c.v * (size_t)c.n);
        all->n += c.n;
        free(c.v);
    }
    /* A case in several inputs: an error, or the first input's copy. */
    qsort(all->v, (size_t)all->n, sizeof *all->v, by_id);
    int kept = 0;
    for (int k = 0; k < all->n; k++) {
        if (kept && !strcmp(all->v[kept - 1].id, all->v[k].id)) {
            if (!o->force && !o->first_wins) {
                tl_err_set(e, "case %s is in both %s and %s: the inputs overlap (--force keeps the first)",
                           all->v[k].id, inputs[all->v[kept - 1].input], inputs[all->v[k].input]);
                return -1;
            }
            continue;
        }
        all->v[kept++] = all->v[k];
    }
    all->n = kept;
    return 0;
}

int merge_files(const char *out, char **inputs, int n, const merge_opts *o, merge_report *r, FILE *log, tl_err *e)
{
    input *ins = tl_xcalloc((size_t)n, sizeof *ins);
    collect all = {0};
    tl_experiment x = {0};
    tl_plan plan = {0};
    int rc = -1, planned = 0;
    char *tmp = NULL;
    struct stat st;
    memset(r, 0, sizeof *r);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (stat(out, &st) == 0) {
        tl_err_set(e, "%s: exists; result files are never overwritten", out);
        goto out;
    }
    for (int i = 0; i < n; i++) ins[i].f = ins[i].row_type = -1;
    if (open_inputs(ins, inputs, n, o, log, e) || union_of_cases(ins, inputs, n, o, &all, e)) goto out;
    /* Plan order, and what is missing, from the experiment the first input embeds (or the caller's plan of it). */
    const tl_plan *pl = o->plan;
    if (!pl) {
        tl_err pe;
        plan_limits lim = {0};
        char *label = tl_xasprintf("%s:config_yaml", inputs[0]);
        source_store store;
        int nfiles;
        if (h5src_load_store(ins[0].f, inputs[0], 0, &store, &nfiles, &pe) == 0 &&
            config_parse_with(label, ins[0].yaml, strlen(ins[0].yaml), &store, &x, &pe) == 0 &&
            plan_expand(&x, &lim, &plan, &pe) == 0)
            planned = 1, pl = &plan;
        else
            fprintf(log, "merge: warning: cannot plan the embedded experiment (%s); cases keep the inputs' order\n",
                    pe.msg);
        source_store_free(&store); /* what config_parse_with did not take over */
        free(label);
    }
    plan_id *ids = pl ? plan_ids(pl) : NULL;
    for (int k = 0; k < all.n; k++) {
        long i = pl ? plan_find(ids, pl->ncases, all.v[k].id) : -1;
        /* Outside the plan: after it, by input, then by id (the order an input lists its cases in). */
        all.v[k].order = i >= 0 ? i : (long)(pl ? pl->ncases : 0) + (long)all.v[k].input * (all.n + 1) + k;
    }
    free(ids);
    qsort(all.v, (size_t)all.n, sizeof *all.v, by_order);
    r->ncases = all.n;
    if (pl) {
        r->nplan = pl->ncases;
        int inside = 0;
        for (int k = 0; k < all.n; k++) inside += all.v[k].order < pl->ncases;
        r->missing = pl->ncases - inside;
        if (inside < all.n) fprintf(log, "merge: %d cases are not in the experiment's plan (kept)\n", all.n - inside);
    }
    for (int k = 0; k < all.n; k++) {
        const input *in = &ins[all.v[k].input];
        const char *status = all.v[k].row >= 0 ? in->rows[all.v[k].row].status : NULL;
        r->failed += sch_status_failed(status);
    }
    {
        char *d = tl_xstrdup(out), *b = tl_xstrdup(out);
        tmp = tl_xasprintf("%s/.%s.merge-%d", dirname(d), basename(b), (int)getpid());
        free(d), free(b);
    }
    if (write_merged(tmp, ins, n, all.v, all.n, o, inputs, e)) goto out;
    if (link(tmp, out) < 0) {
        int err = errno;
        if (err == EEXIST || stat(out, &st) == 0 || rename(tmp, out) < 0) {
            tl_err_set(e, "%s: cannot create: %s", out, err == EEXIST ? "it exists" : strerror(err));
            goto out;
        }
    }
    if (h5util_fsync_dir_of(out, e)) goto out;
    rc = 0;
out:
    if (tmp) unlink(tmp);
    free(tmp);
    for (int i = 0; i < n; i++) close_input(&ins[i]);
    free(ins);
    free(all.v);
    if (planned) plan_free(&plan);
    config_free(&x);
    return rc;
}
