#include "runner/store/h5check.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/exec/result.h"
#include "runner/measure/counters.h"
#include "runner/store/h5src.h"
#include "runner/store/h5util.h"

typedef struct {
    const char *path;
    tl_err *e;
    int minor;       /* schema tilelab/1.<minor> */
    int nsessions;
    char **ids;      /* cases, sorted */
    char **status;
    long long *nsamples;
    int n, cap;
    char **shas;     /* /sources entries */
    int nshas;
} checker;

__attribute__((format(printf, 2, 3))) static int bad(checker *c, const char *fmt, ...)
{
    char what[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    tl_err_set(c->e, "%s: %s", c->path, what);
    return -1;
}

/* The kind of object at name: H5I_GROUP, H5I_DATASET, or H5I_BADID when there is none. */
static H5I_type_t kind_of(hid_t loc, const char *name)
{
    if (H5Lexists(loc, name, H5P_DEFAULT) <= 0) return H5I_BADID;
    hid_t o = H5Oopen(loc, name, H5P_DEFAULT);
    if (o < 0) return H5I_BADID;
    H5I_type_t t = H5Iget_type(o);
    H5Oclose(o);
    return t;
}

/* Whether an attribute of the object at name cannot be read in full (h5util_read_attrs: what a merge copies). */
static int attrs_unreadable(hid_t loc, const char *name)
{
    hid_t o = H5Oopen(loc, name, H5P_DEFAULT);
    if (o < 0) return 1;
    int rc = h5util_read_attrs(o);
    H5Oclose(o);
    return rc != 0;
}

/* What attribute a holds, as a reader would say it: "a string", "an array of 1500 strings", "a float". */
static void held(hid_t a, char *out, size_t n)
{
    hid_t t = H5Aget_type(a);
    hssize_t count = -1;
    int rank = -1;
    H5T_class_t cl = t >= 0 ? H5Tget_class(t) : H5T_NO_CLASS;
    const char *what = cl == H5T_STRING ? "string" : cl == H5T_INTEGER ? "integer" : cl == H5T_FLOAT ? "float"
                       : cl == H5T_COMPOUND ? "compound record" : "value of another type";
    if (t >= 0) H5Tclose(t);
    if (h5util_attr_shape(a, &count, &rank)) snprintf(out, n, "an unreadable %s", what);
    else if (rank == 0 || (rank == 1 && count == 1)) snprintf(out, n, "%s %s", strchr("aeiou", what[0]) ? "an" : "a", what);
    else snprintf(out, n, "an array of %lld %ss", (long long)count, what);
}

/* Each attribute of obj that the schema names for group holds what its row says (one value of the row's type;
 * an int64[n] array for SCH_I64_ARRAY): else -1 naming it, where (the object's path) and what it holds. */
static int check_attr_types(checker *c, hid_t obj, sch_group group, const char *where)
{
    for (int i = 0; i < SCH_N; i++) {
        const sch_field *f = &sch_fields[i];
        if (f->group != group || strchr(f->name, '<') || H5Aexists(obj, f->name) <= 0) continue;
        hid_t a = H5Aopen(obj, f->name, H5P_DEFAULT), t = a >= 0 ? H5Aget_type(a) : -1;
        hssize_t n = -1;
        int rank = -1, ok = t >= 0 && h5util_attr_shape(a, &n, &rank) == 0;
        H5T_class_t cl = t >= 0 ? H5Tget_class(t) : H5T_NO_CLASS;
        int one = rank == 0 || (rank == 1 && n == 1);
        if (f->type == SCH_STR) ok = ok && one && cl == H5T_STRING;
        else if (f->type == SCH_I64) ok = ok && one && cl == H5T_INTEGER;
        else if (f->type == SCH_F64) ok = ok && one && (cl == H5T_FLOAT || cl == H5T_INTEGER);
        else if (f->type == SCH_I64_ARRAY) ok = ok && rank <= 1 && cl == H5T_INTEGER;
        char have[96] = "nothing readable";
        if (!ok && a >= 0) held(a, have, sizeof have);
        if (t >= 0) H5Tclose(t);
        if (a >= 0) H5Aclose(a);
        if (!ok)
            return bad(c, "%s: the attribute '%s' is %s, not %s", where, f->name, have,
                       f->type == SCH_STR ? "a string" : f->type == SCH_I64 ? "an integer"
                       : f->type == SCH_F64 ? "a number" : "an array of integers");
    }
    return 0;
}

/* The same for the object at name under loc. */
static int check_attr_types_at(checker *c, hid_t loc, const char *name, sch_group group, const char *where)
{
    hid_t o = H5Oopen(loc, name, H5P_DEFAULT);
    if (o < 0) return bad(c, "%s: cannot open it", where);
    int rc = check_attr_types(c, o, group, where);
    H5Oclose(o);
    return rc;
}

/* ---- root --------------------------------------------------------------------------------------- */

static int check_root(checker *c, hid_t f)
{
    char *v[SCH_N] = {0};
    int rc = 0;
    for (int i = 0; i < SCH_N && !rc; i++) /* the root's MUST rows, all strings */
        if (sch_fields[i].group == SCH_ROOT && sch_fields[i].check == SCH_MUST && !(v[i] = h5util_read_str(f, sch_fields[i].name)))
            rc = bad(c, "the root attribute '%s' is missing or not a string", sch_fields[i].name);
    if (!rc) {
        char hex[65];
        tl_sha256_hex(v[SCH_ROOT_CONFIG_YAML], strlen(v[SCH_ROOT_CONFIG_YAML]), hex);
        if (strcmp(hex, v[SCH_ROOT_CONFIG_SHA256]))
            rc = bad(c, "config_sha256 is not the hash of config_yaml (the file was edited or damaged)");
        const char *dot = strchr(v[SCH_ROOT_SCHEMA], '.');
        c->minor = dot ? atoi(dot + 1) : 0;
    }
    for (int i = 0; i < SCH_N; i++) free(v[i]);
    if (rc) return rc;
    if (h5util_read_attrs(f)) return bad(c, "a root attribute cannot be read");
    if (check_attr_types(c, f, SCH_ROOT, "/")) return -1;
    if (kind_of(f, "/env") != H5I_GROUP) return bad(c, "/env is missing or not a group");
    if (attrs_unreadable(f, "/env")) return bad(c, "an attribute of /env cannot be read");
    if (check_attr_types_at(c, f, "/env", SCH_ENV, "/env")) return -1;
    if (kind_of(f, "/cases") != H5I_GROUP) return bad(c, "/cases is missing or not a group");
    if (kind_of(f, "/summary") != H5I_DATASET) return bad(c, "/summary is missing or not a dataset");
    if (c->minor >= 1 && kind_of(f, "/sessions") != H5I_GROUP)
        return bad(c, "/sessions is missing or not a group (schema tilelab/1.%d has it)", c->minor);
    return 0;
}

static int check_sessions(checker *c, hid_t f)
{
    H5G_info_t info;
    hid_t g;
    if (c->minor < 1) return 0;
    if ((g = H5Gopen2(f, "/sessions", H5P_DEFAULT)) < 0 || H5Gget_info(g, &info) < 0) {
        if (g >= 0) H5Gclose(g);
        return bad(c, "cannot read /sessions");
    }
    c->nsessions = (int)info.nlinks;
    int rc = 0;
    for (int k = 0; k < c->nsessions && !rc; k++) {
        char name[32];
        snprintf(name, sizeof name, "%d", k);
        if (kind_of(g, name) != H5I_GROUP) rc = bad(c, "/sessions/%d is missing or not a group", k);
        else if (attrs_unreadable(g, name)) rc = bad(c, "/sessions/%d: an attribute cannot be read", k);
        else {
            char env[48], where[64];
            snprintf(env, sizeof env, "%d/env", k);
            snprintf(where, sizeof where, "/sessions/%d", k);
            if (kind_of(g, env) == H5I_GROUP && attrs_unreadable(g, env))
                rc = bad(c, "/sessions/%d/env: an attribute cannot be read", k);
            else if (check_attr_types_at(c, g, name, SCH_SESSION, where)) rc = -1;
            else if (kind_of(g, env) == H5I_GROUP && check_attr_types_at(c, g, env, SCH_ENV, strcat(where, "/env")))
                rc = -1;
        }
    }
    H5Gclose(g);
    return rc;
}

/* ---- cases -------------------------------------------------------------------------------------- */

static int is_case_id(const char *s)
{
    if (strlen(s) != 16) return 0;
    for (; *s; s++)
        if (!isxdigit((unsigned char)*s) || isupper((unsigned char)*s)) return 0;
    return 1;
}

/* A 1-D float64 dataset's length, or -1. */
static long long samples_of(hid_t g, const char *name, int want_float)
{
    hid_t d = H5Dopen2(g, name, H5P_DEFAULT), s = -1, t = -1;
    long long n = -1;
    hsize_t dim;
    if (d < 0) return -1;
    if ((s = H5Dget_space(d)) >= 0 && (t = H5Dget_type(d)) >= 0 && H5Sget_simple_extent_ndims(s) == 1 &&
        H5Sget_simple_extent_dims(s, &dim, NULL) >= 0 &&
        (!want_float || (H5Tget_class(t) == H5T_FLOAT && H5Tget_size(t) == 8)))
        n = (long long)dim;
    if (t >= 0) H5Tclose(t);
    if (s >= 0) H5Sclose(s);
    H5Dclose(d);
    return n;
}

static int known_status(const char *s)
{
    for (int i = 0; i < SCH_NSTATUSES; i++)
        if (!strcmp(s, sch_statuses[i])) return 1;
    return 0;
}

/* The identity of a case: its id is the first 16 hex digits of the hash of its canonical text. */
static int check_identity(checker *c, hid_t g, const char *name)
{
    char *id = h5util_read_str(g, "case_id"), *canonical = h5util_read_str(g, "canonical"), hex[65];
    int rc = 0;
    if (!id || strcmp(id, name)) rc = bad(c, "/cases/%s: its case_id attribute is missing or another id", name);
    else if (!canonical) rc = bad(c, "/cases/%s: its canonical attribute is missing or not a string", name);
    else if (tl_sha256_hex(canonical, strlen(canonical), hex), strncmp(hex, name, 16))
        rc = bad(c, "/cases/%s: its id is not the hash of its canonical text (edited or damaged)", name);
    free(id), free(canonical);
    return rc;
}

static int check_samples(checker *c, hid_t g, const char *name, const char *status, long long *n)
{
    if ((*n = samples_of(g, sch_fields[SCH_DATA_TIME_MS].name, 1)) < 0)
        return bad(c, "/cases/%s: time_ms is missing or not a 1-D float64 dataset", name);
    if (!strcmp(status, "ok") && *n == 0) return bad(c, "/cases/%s: status ok but no samples in time_ms", name);
    for (int i = 0; i < SCH_N; i++) { /* the telemetry: one value a sample, where there is some */
        const sch_field *d = &sch_fields[i];
        if (d->group != SCH_DATA || i == SCH_DATA_TIME_MS || d->type == SCH_ROWS_DATA) continue;
        if (H5Lexists(g, d->name, H5P_DEFAULT) <= 0) continue;
        if (samples_of(g, d->name, 0) != *n)
            return bad(c, "/cases/%s: %s has not one value per sample (%lld)", name, d->name, *n);
    }
    return 0;
}

/* Counters (schema 1.3): a 1-D compound of name, value, unit that reads as h5util_counter_row. */
static int check_counters(checker *c, hid_t g, const char *name)
{
    if (H5Lexists(g, "counters", H5P_DEFAULT) <= 0) return 0;
    hid_t d = H5Dopen2(g, "counters", H5P_DEFAULT), s = -1, t = -1;
    hsize_t dim = 0;
    int rc = -1;
    if (d >= 0 && (s = H5Dget_space(d)) >= 0 && H5Sget_simple_extent_ndims(s) == 1 &&
        H5Sget_simple_extent_dims(s, &dim, NULL) >= 0 && dim <= 4 * COUNTERS_MAX && (t = H5Dget_type(d)) >= 0 &&
        H5Tget_class(t) == H5T_COMPOUND && H5Tget_member_index(t, "name") >= 0 &&
        H5Tget_member_index(t, "value") >= 0 && H5Tget_member_index(t, "unit") >= 0) {
        h5util_counter_row rows[4 * COUNTERS_MAX];
        hid_t mt = h5util_counter_type();
        if (mt >= 0 && H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) >= 0) {
            rc = 0;
            for (hsize_t i = 0; i < dim; i++)
                if (!rows[i].name || !rows[i].unit) rc = -1;
            H5Dvlen_reclaim(mt, s, H5P_DEFAULT, rows);
        }
        if (mt >= 0) H5Tclose(mt);
    }
    if (t >= 0) H5Tclose(t);
    if (s >= 0) H5Sclose(s);
    if (d >= 0) H5Dclose(d);
    if (rc) return bad(c, "/cases/%s: counters is not a list of (name, value, unit) of at most %d rows", name, 4 * COUNTERS_MAX);
    return 0;
}

/* An attribute the schema bounds (SCH_IFTHERE), where the case has it: of the row's type, within lo .. hi (a
 * string: its length). */
static int check_bounded(checker *c, hid_t g, const char *name, const sch_field *f)
{
    if (H5Aexists(g, f->name) <= 0) return 0;
    int ok = 0;
    if (f->type == SCH_STR) {
        char *v = h5util_read_str(g, f->name);
        ok = v && (double)strlen(v) >= f->lo && (double)strlen(v) <= f->hi;
        free(v);
    } else if (f->type == SCH_F64) {
        double v;
        ok = h5util_read_f64(g, f->name, &v) == 0 && v >= f->lo && v <= f->hi;
    } else if (f->type == SCH_I64) {
        long long v;
        ok = h5util_read_i64(g, f->name, &v) == 0 && (double)v >= f->lo && (double)v <= f->hi;
    }
    return ok ? 0 : bad(c, "/cases/%s: %s is not %s", name, f->name, f->what);
}

static int check_case(checker *c, hid_t cases, const char *name)
{
    long long session = 0, n = 0;
    if (!is_case_id(name)) return bad(c, "/cases/%s: not a case id (16 hex digits)", name);
    if (kind_of(cases, name) != H5I_GROUP) return bad(c, "/cases/%s: not a group", name);
    hid_t g = H5Gopen2(cases, name, H5P_DEFAULT);
    if (g < 0) return bad(c, "/cases/%s: cannot open it", name);
    if (h5util_read_attrs(g)) {
        H5Gclose(g);
        return bad(c, "/cases/%s: an attribute cannot be read", name);
    }
    char *status = h5util_read_str(g, "status"), *op = h5util_read_str(g, "op"), *variant = h5util_read_str(g, "variant");
    int rc = check_identity(c, g, name);
    if (!rc && (!op || !variant)) rc = bad(c, "/cases/%s: its op or variant attribute is missing or not a string", name);
    if (!rc && (!status || !known_status(status)))
        rc = bad(c, "/cases/%s: its status is missing, not a string or not one of ok, verify_failed, skipped, error", name);
    if (!rc && c->minor >= 1 && (h5util_read_i64(g, "session", &session) || session < 0 || session >= c->nsessions))
        rc = bad(c, "/cases/%s: its session is missing or names no /sessions group", name);
    if (!rc) rc = check_samples(c, g, name, status, &n);
    if (!rc && c->minor >= 3) rc = check_counters(c, g, name);
    for (int i = 0; i < SCH_N && !rc; i++)
        if (sch_fields[i].group == SCH_CASE && sch_fields[i].check == SCH_IFTHERE) rc = check_bounded(c, g, name, &sch_fields[i]);
    char where[64];
    snprintf(where, sizeof where, "/cases/%s", name);
    if (!rc) rc = check_attr_types(c, g, SCH_CASE, where); /* the rest of the case's attributes, as the schema says */
    H5Gclose(g);
    free(op), free(variant);
    if (rc) {
        free(status);
        return rc;
    }
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 64;
        c->ids = realloc(c->ids, sizeof *c->ids * (size_t)c->cap);
        c->status = realloc(c->status, sizeof *c->status * (size_t)c->cap);
        c->nsamples = realloc(c->nsamples, sizeof *c->nsamples * (size_t)c->cap);
        if (!c->ids || !c->status || !c->nsamples) abort();
    }
    c->ids[c->n] = tl_xstrdup(name);
    c->status[c->n] = status;
    c->nsamples[c->n++] = n;
    return 0;
}

typedef struct {
    checker *c;
    int failed;
} walk;

static herr_t visit_case(hid_t g, const char *name, const H5L_info_t *info, void *data)
{
    (void)info;
    walk *w = data;
    if (check_case(w->c, g, name)) {
        w->failed = 1;
        return 1; /* stop */
    }
    return 0;
}

static int check_cases(checker *c, hid_t f)
{
    hid_t g = H5Gopen2(f, "/cases", H5P_DEFAULT);
    walk w = {c, 0};
    if (g < 0) return bad(c, "cannot open /cases");
    herr_t rc = H5Literate(g, H5_INDEX_NAME, H5_ITER_INC, NULL, visit_case, &w);
    H5Gclose(g);
    if (w.failed) return -1;
    if (rc < 0) return bad(c, "cannot read the list of /cases");
    return 0;
}

/* ---- /summary agrees with /cases ---------------------------------------------------------------- */

static int find_case(const checker *c, const char *id)
{
    int lo = 0, hi = c->n - 1; /* ids come sorted by name from H5Literate's name index */
    while (lo <= hi) {
        int mid = (lo + hi) / 2, r = strcmp(c->ids[mid], id);
        if (!r) return mid;
        if (r < 0) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
}

static int check_rows(checker *c, const h5util_summary_row *rows, hsize_t n)
{
    if (n != (hsize_t)c->n) return bad(c, "/summary has %llu rows for %d cases", (unsigned long long)n, c->n);
    unsigned char *seen = tl_xcalloc((size_t)c->n + 1, 1);
    int rc = 0;
    for (hsize_t r = 0; r < n && !rc; r++) {
        const h5util_summary_row *row = &rows[r];
        int i = row->case_id ? find_case(c, row->case_id) : -1;
        if (i < 0) rc = bad(c, "/summary row %llu names no case of /cases", (unsigned long long)r);
        else if (seen[i]) rc = bad(c, "/summary lists case %s twice", row->case_id);
        else if (!row->status || strcmp(row->status, c->status[i]))
            rc = bad(c, "/summary says case %s is %s, /cases says %s", row->case_id, row->status ? row->status : "?",
                     c->status[i]);
        else if (row->reps != c->nsamples[i])
            rc = bad(c, "/summary says case %s has %d samples, its time_ms has %lld", row->case_id, row->reps,
                     c->nsamples[i]);
        else seen[i] = 1;
    }
    free(seen);
    return rc;
}

/* The file's row type has every field of tilelab's, each of the same class (HDF5 would convert a
 * row with a field missing by leaving it empty). */
static int same_fields(hid_t file_type, hid_t mem_type)
{
    if (H5Tget_class(file_type) != H5T_COMPOUND) return 0;
    int n = H5Tget_nmembers(mem_type), ok = n > 0;
    for (int i = 0; i < n && ok; i++) {
        char *name = H5Tget_member_name(mem_type, (unsigned)i);
        int k = name ? H5Tget_member_index(file_type, name) : -1;
        ok = k >= 0 && H5Tget_member_class(file_type, (unsigned)k) == H5Tget_member_class(mem_type, (unsigned)i);
        H5free_memory(name);
    }
    return ok;
}

static int check_summary(checker *c, hid_t f)
{
    hid_t d = -1, space = -1, type = -1;
    h5util_summary_row *rows = NULL;
    hsize_t n = 0;
    int rc = -1;
    if ((d = H5Dopen2(f, "/summary", H5P_DEFAULT)) < 0 || (space = H5Dget_space(d)) < 0 ||
        H5Sget_simple_extent_ndims(space) != 1 || H5Sget_simple_extent_dims(space, &n, NULL) < 0) {
        bad(c, "/summary is not a 1-D dataset");
        goto out;
    }
    if ((type = h5util_summary_type()) < 0) {
        bad(c, "cannot make /summary's row type");
        goto out;
    }
    hid_t ft = H5Dget_type(d);
    int same = ft >= 0 && same_fields(ft, type);
    if (ft >= 0) H5Tclose(ft);
    if (!same) {
        bad(c, "/summary's rows are not tilelab's (a field is missing or of another type)");
        goto out;
    }
    if (n != (hsize_t)c->n) { /* before its rows are read: a crafted extent would ask for terabytes */
        bad(c, "/summary has %llu rows for %d cases", (unsigned long long)n, c->n);
        goto out;
    }
    rows = tl_xcalloc((size_t)n + 1, sizeof *rows);
    if (n && H5Dread(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) < 0) {
        bad(c, "/summary's rows are not tilelab's (a field is missing or of another type)");
        free(rows), rows = NULL;
        goto out;
    }
    rc = check_rows(c, rows, n);
out:
    if (rows && n) H5Dvlen_reclaim(type, space, H5P_DEFAULT, rows);
    free(rows);
    if (type >= 0) H5Tclose(type);
    if (space >= 0) H5Sclose(space);
    if (d >= 0) H5Dclose(d);
    return rc;
}

/* ---- /sources ----------------------------------------------------------------------------------- */

static int source_ok(void *ctx, const char *origin, const char *path, const char *text, size_t len, const char *sha,
                     tl_err *e)
{
    checker *c = ctx;
    source_store probe;
    source_store_init_preloaded(&probe, "", 0);
    int rc = source_store_add(&probe, origin, path, text, len, sha, e);
    source_store_free(&probe);
    if (rc) return rc;
    for (int i = 0; i < c->nshas; i++)
        if (!strcmp(c->shas[i], sha)) return 0;
    c->shas = realloc(c->shas, sizeof *c->shas * (size_t)(c->nshas + 1));
    if (!c->shas) abort();
    c->shas[c->nshas++] = tl_xstrdup(sha);
    return 0;
}

/* Every file a case names is in /sources. */
static int check_case_sources(checker *c, hid_t f)
{
    hid_t cases = H5Gopen2(f, "/cases", H5P_DEFAULT);
    int rc = 0;
    for (int i = 0; i < c->n && !rc; i++) {
        hid_t g = H5Gopen2(cases, c->ids[i], H5P_DEFAULT);
        char *text = g >= 0 ? h5util_read_str(g, "sources") : NULL;
        if (g >= 0) H5Gclose(g);
        for (char *save = NULL, *line = text ? strtok_r(text, "\n", &save) : NULL; line && !rc;
             line = strtok_r(NULL, "\n", &save)) {
            const char *sha = strrchr(line, ' ');
            int found = 0;
            for (int k = 0; sha && k < c->nshas && !found; k++) found = !strcmp(c->shas[k], sha + 1);
            if (!found) rc = bad(c, "/cases/%s: its source '%s' is not in /sources", c->ids[i], line);
        }
        free(text);
    }
    H5Gclose(cases);
    return rc;
}

static int check_sources(checker *c, hid_t f)
{
    int have;
    if (c->minor < 2) return 0;
    if (h5src_each(f, c->path, source_ok, c, &have, c->e)) {
        if (strncmp(c->e->msg, c->path, strlen(c->path))) tl_err_wrap(c->e, "%s: /sources", c->path);
        return -1;
    }
    return check_case_sources(c, f);
}

int h5check_file(hid_t f, const char *path, tl_err *e)
{
    checker c = {.path = path, .e = e};
    int rc = check_root(&c, f) || check_sessions(&c, f) || check_cases(&c, f) || check_summary(&c, f) ||
             check_sources(&c, f) ? -1 : 0;
    for (int i = 0; i < c.n; i++) free(c.ids[i]), free(c.status[i]);
    for (int i = 0; i < c.nshas; i++) free(c.shas[i]);
    free(c.ids), free(c.status), free(c.nsamples), free(c.shas);
    H5Eclear2(H5E_DEFAULT);
    return rc;
}
