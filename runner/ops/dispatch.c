#include "runner/ops/dispatch.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DISPATCH_MAX_ROWS 100000
#define DISPATCH_MAX_LINE 1024

static int line_err(tl_err *e, const char *name, int line, const char *fmt, const char *a, const char *b)
{
    char msg[512];
    snprintf(msg, sizeof msg, fmt, a, b);
    tl_err_set(e, "%s:%d: %s", name, line, msg);
    return -1;
}

/* "m=4096,n=4096,k=4096": every axis once. */
static int parse_sizes(const reg_op *op, char *f, int64_t *dims, const char **why)
{
    int seen[REG_MAX_AXES] = {0};
    for (char *save = NULL, *item = strtok_r(f, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(item, '=');
        if (!eq) return *why = "sizes are axis=value, comma-separated", -1;
        *eq = '\0';
        int a = reg_find_axis(op, item);
        if (a < 0 || seen[a]) return *why = a < 0 ? "an axis the op does not have" : "an axis given twice", -1;
        char *end;
        errno = 0;
        long long v = strtoll(eq + 1, &end, 10);
        if (*end || errno || v < 1 || v > (1LL << 40)) return *why = "a size is 1 .. 2^40", -1;
        dims[a] = v;
        seen[a] = 1;
    }
    for (int a = 0; a < op->naxes; a++)
        if (!seen[a]) return *why = "an axis of the op is missing", -1;
    return 0;
}

/* "a=row,b=col": every operand once. */
static int parse_layouts(const reg_op *op, char *f, int *layouts, const char **why)
{
    int seen[REG_MAX_OPERANDS] = {0};
    for (char *save = NULL, *item = strtok_r(f, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(item, '=');
        int o = -1;
        if (eq) {
            *eq = '\0';
            for (int k = 0; k < op->noperands; k++)
                if (!strcmp(op->operands[k], item)) o = k;
        }
        if (o < 0 || seen[o]) return *why = "layouts are operand=row|col, each operand once", -1;
        if (strcmp(eq + 1, "row") && strcmp(eq + 1, "col")) return *why = "a layout is row or col", -1;
        layouts[o] = !strcmp(eq + 1, "col") ? REG_COL : REG_ROW;
        seen[o] = 1;
    }
    for (int k = 0; k < op->noperands; k++)
        if (!seen[k]) return *why = "an operand's layout is missing", -1;
    return 0;
}

static int parse_params(const reg_variant *v, char *f, long *params, const char **why, char *buf, size_t n)
{
    for (int k = 0; k < v->nparams; k++) params[k] = v->params[k].def;
    if (!strcmp(f, "-")) return 0;
    for (char *save = NULL, *item = strtok_r(f, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(item, '=');
        if (!eq) return *why = "params are NAME=value, comma-separated, or -", -1;
        *eq = '\0';
        int k = reg_find_param(v, item);
        if (k < 0) {
            snprintf(buf, n, "%s is not a param of %s (see runner list)", item, v->name);
            return *why = buf, -1;
        }
        char *end;
        errno = 0;
        long val = strtol(eq + 1, &end, 10);
        if (*end || errno) return *why = "a param value is an integer", -1;
        params[k] = val;
    }
    return 0;
}

static reg_spec row_spec(const dispatch_row *r)
{
    reg_spec s = {0};
    memcpy(s.dims, r->dims, sizeof s.dims);
    memcpy(s.layouts, r->layouts, sizeof s.layouts);
    s.dtype = r->dtype;
    return s;
}

static int parse_row(const reg_op *op, const char *name, int line, char *s, dispatch_row *r, tl_err *e)
{
    char *f[6], *save = NULL;
    int nf = 0;
    for (char *w = strtok_r(s, " \t", &save); w && nf < 6; w = strtok_r(NULL, " \t", &save)) f[nf++] = w;
    if (nf < 5)
        return line_err(e, name, line,
                        "a row is: sizes layouts dtype variant params [rel=R] (then anything)%s%s", "", "");
    r->rel = 1.0;
    if (nf == 6 && !strncmp(f[5], "rel=", 4)) {
        char *end;
        errno = 0;
        r->rel = strtod(f[5] + 4, &end);
        if (*end || errno || !(r->rel >= 1.0 && r->rel <= 1e6))
            return line_err(e, name, line, "rel: '%s' is not a number from 1 to 1e6 (time over the fastest)%s", f[5] + 4, "");
    }
    const char *why = NULL;
    if (parse_sizes(op, f[0], r->dims, &why)) return line_err(e, name, line, "sizes: %s%s", why, "");
    if (parse_layouts(op, f[1], r->layouts, &why)) return line_err(e, name, line, "layouts: %s%s", why, "");
    r->dtype = -1;
    for (int d = 0; d < op->ndtypes; d++)
        if (!strcmp(op->dtypes[d], f[2])) r->dtype = d;
    if (r->dtype < 0) return line_err(e, name, line, "dtype '%s' is not one of the op's%s", f[2], "");
    r->v = reg_find_variant(op, f[3]);
    if (!r->v || r->v->kind != REG_NVRTC || r->v->table || r->v->test_only)
        return line_err(e, name, line, "'%s' is not a compiled variant of op %s", f[3], op->name);
    if (!reg_variant_takes(r->v, r->dtype))
        return line_err(e, name, line, "variant %s does not take dtype %s", f[3], f[2]);
    r->text = tl_xasprintf("%s %s", f[3], f[4]);
    char buf[160];
    if (parse_params(r->v, f[4], r->params, &why, buf, sizeof buf))
        return line_err(e, name, line, "params: %s%s", why, "");
    reg_spec spec = row_spec(r);
    char no[256] = "";
    if (!reg_check(r->v, r->params, &spec, no, sizeof no))
        return line_err(e, name, line, "the row's rung does not take its own problem: %s%s", no, "");
    r->line = line;
    return 0;
}

static int same_problem(const dispatch_row *a, const dispatch_row *b)
{
    return !memcmp(a->dims, b->dims, sizeof a->dims) && !memcmp(a->layouts, b->layouts, sizeof a->layouts) &&
           a->dtype == b->dtype;
}

static int same_candidate(const dispatch_row *a, const dispatch_row *b)
{
    return a->v == b->v && !memcmp(a->params, b->params, sizeof(long) * (size_t)a->v->nparams);
}

int dispatch_parse(const reg_op *op, const char *name, const char *text, size_t len, dispatch_table *t, tl_err *e)
{
    memset(t, 0, sizeof *t);
    t->name = tl_xstrdup(name);
    t->device = tl_xstrdup("");
    t->measured = tl_xstrdup("");
    int line = 0, have_op = 0, cap = 0;
    for (size_t at = 0; at < len;) {
        size_t end = at;
        while (end < len && text[end] != '\n') end++;
        line++;
        char buf[DISPATCH_MAX_LINE];
        if (end - at >= sizeof buf) {
            line_err(e, name, line, "a line longer than %s%s bytes", "1023", "");
            goto fail;
        }
        memcpy(buf, text + at, end - at);
        buf[end - at] = '\0';
        at = end + 1;
        char *s = buf;
        while (*s == ' ' || *s == '\t' || *s == '\r') s++;
        s[strcspn(s, "\r")] = '\0';
        if (!*s || *s == '#') continue;
        if (!strncmp(s, "sms ", 4)) {
            char *end;
            errno = 0;
            long v = strtol(s + 4, &end, 10);
            while (*end == ' ' || *end == '\t') end++;
            if (*end || errno || v < 1 || v > 100000) {
                line_err(e, name, line, "sms: '%s' is not a count of SMs%s", s + 4, "");
                goto fail;
            }
            t->sms = (int)v;
            continue;
        }
        if (!strncmp(s, "op ", 3) || !strncmp(s, "device ", 7) || !strncmp(s, "measured ", 9)) {
            char *v = strchr(s, ' ') + 1;
            while (*v == ' ') v++;
            if (*s == 'o') {
                if (strcmp(v, op->name)) {
                    line_err(e, name, line, "a table of op '%s', not of %s", v, op->name);
                    goto fail;
                }
                have_op = 1;
            } else {
                char **slot = *s == 'd' ? &t->device : &t->measured;
                free(*slot);
                *slot = tl_xstrdup(v);
            }
            continue;
        }
        if (t->n == DISPATCH_MAX_ROWS) {
            line_err(e, name, line, "more than %s%s rows", "100000", "");
            goto fail;
        }
        if (t->n == cap) { /* doubling: a row at a time copied the table's rows n^2 / 2 times */
            cap = cap ? 2 * cap : 256;
            t->rows = realloc(t->rows, sizeof *t->rows * (size_t)cap);
            if (!t->rows) abort();
        }
        memset(&t->rows[t->n], 0, sizeof t->rows[t->n]);
        if (parse_row(op, name, line, s, &t->rows[t->n], e)) {
            free(t->rows[t->n].text);
            goto fail;
        }
        t->n++;
    }
    if (!have_op) {
        tl_err_set(e, "%s: the table does not say its op (a line `op %s`)", name, op->name);
        goto fail;
    }
    if (t->n == 0) {
        tl_err_set(e, "%s: the table has no rows", name);
        goto fail;
    }
    for (int i = 0; i < t->n; i++) {
        dispatch_row *r = &t->rows[i];
        r->prob = r->cand = -1;
        if (i > 0 && same_problem(r, &t->rows[i - 1])) r->prob = t->rows[i - 1].prob; /* a problem's rows in a row */
        for (int j = 0; j <= i && (r->prob < 0 || r->cand < 0); j++) {
            if (r->prob < 0 && same_problem(r, &t->rows[j])) r->prob = j;
            if (r->cand < 0 && same_candidate(r, &t->rows[j])) r->cand = j;
        }
        for (int j = r->prob; j < i; j++)
            if (t->rows[j].prob == r->prob && t->rows[j].cand == r->cand) {
                char at[32];
                snprintf(at, sizeof at, "%d", t->rows[j].line);
                line_err(e, name, r->line, "the same rung and params for the same problem as line %s%s", at, "");
                goto fail;
            }
    }
    return 0;
fail:
    dispatch_free(t);
    return -1;
}

int dispatch_header_device(const char *text, size_t len, char *out, size_t n)
{
    out[0] = '\0';
    for (size_t at = 0; at < len;) {
        size_t end = at;
        while (end < len && text[end] != '\n') end++;
        const char *s = text + at;
        size_t k = end - at;
        at = end + 1;
        while (k && (*s == ' ' || *s == '\t')) s++, k--;
        while (k && (s[k - 1] == '\r' || s[k - 1] == ' ' || s[k - 1] == '\t')) k--;
        if (!k || *s == '#') continue;
        if (k > 7 && !strncmp(s, "device ", 7)) {
            s += 7, k -= 7;
            while (k && *s == ' ') s++, k--;
            if (k >= n) k = n - 1;
            memcpy(out, s, k);
            out[k] = '\0';
            return 1;
        }
        if (strncmp(s, "op ", 3) && strncmp(s, "sms ", 4) && strncmp(s, "measured ", 9)) return 0; /* the rows */
    }
    return 0;
}

void dispatch_free(dispatch_table *t)
{
    for (int i = 0; i < t->n; i++) free(t->rows[i].text);
    free(t->rows), free(t->name), free(t->device), free(t->measured);
    memset(t, 0, sizeof *t);
}

static double distance(const reg_op *op, const dispatch_row *r, const reg_spec *s)
{
    double d = 0;
    for (int a = 0; a < op->naxes; a++) {
        d += fabs(log((double)s->dims[a] / (double)r->dims[a]));
        d += 3.0 * ((s->dims[a] % 4 == 0) != (r->dims[a] % 4 == 0)); /* another code path: worth a factor of 20 in size */
    }
    return d;
}

/* The op's overhead for row r's candidate on spec (1 without a model). */
static double overhead(const dispatch_table *t, const reg_op *op, const dispatch_row *r, const reg_spec *s)
{
    if (!op->dispatch || !op->dispatch->overhead) return 1.0;
    double f = op->dispatch->overhead(op, r->v, r->params, s, t->sms);
    return f >= 1.0 && f < 1e6 ? f : 1.0;
}

/* The pick with the op's switch w (dispatch_model.switches) set as the op says for spec (a problem the
 * table did not measure), where the table has the picked candidate's twin (the same rung and params but
 * that one, on where the pick has it off or the other way) among the candidates of these rows (row[c],
 * rd[c]: as in rank_among) and the twin takes spec. */
static int switched(const dispatch_table *t, const reg_op *op, int w, const reg_spec *s, int best, const int *row,
                    const double *rd)
{
    if (best < 0 || !op->dispatch || !op->dispatch->switches[w].param || !op->dispatch->switches[w].on) return best;
    const dispatch_row *b = &t->rows[best];
    int pi = reg_find_param(b->v, op->dispatch->switches[w].param);
    if (pi < 0) return best;
    for (int c = 0; c < t->n; c++) {
        if (rd[c] == HUGE_VAL || c == b->cand) continue;
        const dispatch_row *o = &t->rows[row[c]];
        if (o->v != b->v || (o->params[pi] != 0) == (b->params[pi] != 0)) continue;
        int same = 1;
        for (int k = 0; k < b->v->nparams && same; k++) same = k == pi || o->params[k] == b->params[k];
        if (!same) continue;
        const dispatch_row *on = b->params[pi] ? b : o, *off = on == b ? o : b;
        int want_on = op->dispatch->switches[w].on(b->v, on->params, s);
        if (want_on < 0) return best;
        const dispatch_row *want = want_on ? on : off;
        char no[256];
        if (want == b || !reg_check(want->v, want->params, s, no, sizeof no)) return best;
        return row[c];
    }
    return best;
}

/* Ranked candidates: score, then the distance of the candidate's nearest row; ties in table order. */
typedef struct {
    double score, d;
    int row, cand;
} ranked;

static int by_rank(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->score < y->score - 1e-9 || x->score > y->score + 1e-9) return x->score < y->score ? -1 : 1;
    if (x->d != y->d) return x->d < y->d ? -1 : 1;
    return (x->cand > y->cand) - (x->cand < y->cand);
}

/* out[0 .. got) and candidate row pick (after the op's switches where spec was not measured, dmin > 0),
 * unless its candidate is there already: the new count. */
static int add_pick(const dispatch_table *t, const reg_op *op, const reg_spec *s, int pick, double dmin, const int *row,
                    const double *rd, int *out, int got)
{
    for (int sw = 0; sw < DISPATCH_SWITCHES && dmin > 0; sw++) /* measured: as measured */
        pick = switched(t, op, sw, s, pick, row, rd);
    for (int j = 0; j < got; j++)
        if (t->rows[out[j]].cand == t->rows[pick].cand) return got;
    out[got] = pick;
    return got + 1;
}

/* Problems p[0 .. n) (their first rows) by their distance d[p], nearest first; ties in table order. */
static void sort_by_distance(int *p, int n, const double *d)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && (d[p[j]] < d[p[j - 1]] || (d[p[j]] == d[p[j - 1]] && p[j] < p[j - 1])); j--) {
            int x = p[j];
            p[j] = p[j - 1], p[j - 1] = x;
        }
}

/* The k best candidates among the rows with use[i] (spec's dtype and maybe layouts), best first, as their
 * rows into out (each after the op's switches, no candidate twice): their count, 0 when no row's rung
 * takes spec. */
static int rank_among(const dispatch_table *t, const reg_op *op, const reg_spec *s, const char *use, int k, int *out)
{
    int n = t->n, nr = 0;
    double dmin = HUGE_VAL;
    double *d = tl_xcalloc((size_t)n + 1, sizeof *d), *w = tl_xcalloc((size_t)n + 1, sizeof *w);
    double *score = tl_xcalloc((size_t)n + 1, sizeof *score), *rd = tl_xcalloc((size_t)n + 1, sizeof *rd);
    double *here = tl_xcalloc((size_t)n + 1, sizeof *here);
    int *row = tl_xcalloc((size_t)n + 1, sizeof *row), *nearp = tl_xcalloc((size_t)n + 1, sizeof *nearp), nnear = 0;
    int *nearj = tl_xcalloc((size_t)n + 1, sizeof *nearj);
    ranked *rk = tl_xcalloc((size_t)n + 1, sizeof *rk);
    for (int i = 0; i < n; i++) {
        rd[i] = HUGE_VAL;
        if (use[i] && (d[i] = distance(op, &t->rows[i], s)) < dmin) dmin = d[i];
    }
    /* w[p]: the weight of problem p (its first row), 0 when it is not near. A problem the table
     * measured is decided by its own rows. */
    double near = dmin == 0 ? 0 : DISPATCH_NEAR;
    for (int i = 0; i < n; i++)
        if (use[i] && t->rows[i].prob == i && d[i] <= dmin + near)
            w[i] = exp(-(d[i] - dmin) / DISPATCH_SCALE), nearj[i] = nnear, nearp[nnear++] = i;
    /* has[j * n + c]: whether candidate c has a row at the near problem nearp[j]. */
    char *has = tl_xcalloc((size_t)nnear * n + 1, 1);
    /* here[c]: candidate c's overhead on spec (>= 1, so 0 is not yet known). */
    for (int i = 0; i < n; i++)
        if (use[i] && !here[t->rows[i].cand]) here[t->rows[i].cand] = overhead(t, op, &t->rows[i], s);
    /* score[c] = sum over near p of w[p] (c's rel at p, scaled to spec, - DISPATCH_REL_ABSENT), so that
     * DISPATCH_REL_ABSENT + score[c] / (the weight of the near problems c could run on) is the weighted mean;
     * row[c], rd[c]: c's row at its nearest problem. */
    for (int i = 0; i < n; i++) {
        if (!use[i]) continue;
        const dispatch_row *r = &t->rows[i];
        if (w[r->prob] > 0) {
            reg_spec at = row_spec(r);
            score[r->cand] += w[r->prob] * (r->rel * here[r->cand] / overhead(t, op, r, &at) - DISPATCH_REL_ABSENT);
        }
        if (d[i] < rd[r->cand]) rd[r->cand] = d[i], row[r->cand] = i;
        if (w[r->prob] > 0) has[(size_t)nearj[r->prob] * n + r->cand] = 1;
    }
    for (int c = 0; c < n; c++) {
        if (rd[c] == HUGE_VAL) continue; /* not a candidate of these rows */
        const dispatch_row *r = &t->rows[c];
        char no[256];
        if (!reg_check(r->v, r->params, s, no, sizeof no)) continue;
        /* The weight of the near problems c could run on: one its rung refuses (skinny's small side
         * over its SMAX) says nothing about it, where one it ran too slowly for a row counts as absent. */
        double wc = 0;
        for (int j = 0; j < nnear; j++) {
            reg_spec at = row_spec(&t->rows[nearp[j]]);
            if (!reg_check(r->v, r->params, &at, no, sizeof no)) continue;
            /* Nor does one where c has no row and its shape would cost it far more than here does
             * (a 128-row tile at m = 48): the tuning kept only the rows within reach of the fastest. */
            if (!has[(size_t)j * n + c] && overhead(t, op, r, &at) > DISPATCH_ABSENT_WASTE * here[c]) continue;
            wc += w[nearp[j]];
        }
        if (wc <= 0) continue;
        rk[nr++] = (ranked){DISPATCH_REL_ABSENT + score[c] / wc, rd[c], row[c], c};
    }
    qsort(rk, (size_t)nr, sizeof *rk, by_rank);
    /* With trials (k >= 4), k / DISPATCH_WINNERS_PER of the k places go to what won outright at the nearest measured problems
     * (their fastest row whose rung takes spec, nearest first): a consensus over the neighbours can rank
     * low a candidate that was far the fastest at the nearest of them (tf32x3 at 16384 x 24 x 2048, asked
     * about 32768 x 24 x 2048, behind a dozen skinny rows that did well everywhere). */
    int got = 0, winners = k >= 4 ? k / DISPATCH_WINNERS_PER : 0;
    for (int i = 0; i < nr && got < k - winners; i++) got = add_pick(t, op, s, rk[i].row, dmin, row, rd, out, got);
    int *order = tl_xcalloc((size_t)nnear + 1, sizeof *order);
    for (int j = 0; j < nnear; j++) order[j] = nearp[j];
    sort_by_distance(order, nnear, d);
    for (int j = 0; j < nnear && winners > 0 && got < k; j++) {
        int best = -1;
        for (int i = order[j]; i < n && t->rows[i].prob == order[j]; i++) {
            char no[256];
            const dispatch_row *r = &t->rows[i];
            if (use[i] && reg_check(r->v, r->params, s, no, sizeof no) &&
                (best < 0 || r->rel < t->rows[best].rel))
                best = i;
        }
        if (best < 0) continue;
        int had = got;
        got = add_pick(t, op, s, row[t->rows[best].cand], dmin, row, rd, out, got);
        winners -= got > had;
    }
    for (int i = 0; i < nr && got < k; i++) got = add_pick(t, op, s, rk[i].row, dmin, row, rd, out, got);
    free(order);
    free(d), free(w), free(score), free(rd), free(row), free(here), free(nearp), free(nearj), free(has), free(rk);
    return got;
}

int dispatch_rank(const dispatch_table *t, const reg_op *op, const reg_spec *s, int k, int *rows, char *why, size_t whylen)
{
    int same_dtype = 0, got = 0;
    char *use = tl_xcalloc((size_t)t->n + 1, 1);
    /* Pass 0: rows of the problem's layouts; pass 1: any layouts. */
    for (int pass = 0; pass < 2 && got == 0 && k > 0; pass++) {
        int any = 0;
        for (int i = 0; i < t->n; i++) {
            const dispatch_row *r = &t->rows[i];
            use[i] = r->dtype == s->dtype && (pass == 1 || !memcmp(r->layouts, s->layouts, sizeof r->layouts));
            same_dtype |= r->dtype == s->dtype;
            any |= use[i];
        }
        if (any) got = rank_among(t, op, s, use, k, rows);
    }
    free(use);
    if (got > 0) return got;
    if (same_dtype) snprintf(why, whylen, "no rung of the table %s takes this problem", t->name);
    else snprintf(why, whylen, "the table %s has no row of dtype %s", t->name, op->dtypes[s->dtype]);
    return -1;
}

int dispatch_pick(const dispatch_table *t, const reg_op *op, const reg_spec *s, char *why, size_t whylen)
{
    int row;
    return dispatch_rank(t, op, s, 1, &row, why, whylen) < 0 ? -1 : row;
}

/* k's rel: the lowest rel at problem p (a row of table at) among the candidates rows[0 .. n) of t; 0 when
 * at has no row of any of them there. */
static double best_rel(const dispatch_table *t, const int *rows, int n, const dispatch_table *at, int p)
{
    double best = 0;
    for (int j = 0; j < n; j++)
        for (int i = p; i < at->n; i++)
            if (at->rows[i].prob == p && same_candidate(&at->rows[i], &t->rows[rows[j]]) && (best == 0 || at->rows[i].rel < best))
                best = at->rows[i].rel;
    return best;
}

int dispatch_leave_one_out(const dispatch_table *t, const reg_op *op, int trials, dispatch_check **out)
{
    int *rows = tl_xcalloc((size_t)(trials > 0 ? trials : 1), sizeof *rows);
    char *use = tl_xcalloc((size_t)t->n + 1, 1);
    dispatch_check *c = tl_xcalloc((size_t)t->n + 1, sizeof *c);
    int n = 0;
    for (int p = 0; p < t->n; p++) {
        const dispatch_row *r = &t->rows[p];
        if (r->prob != p) continue;
        int any = 0;
        for (int i = 0; i < t->n; i++) {
            const dispatch_row *q = &t->rows[i];
            use[i] = q->prob != p && q->dtype == r->dtype && !memcmp(q->layouts, r->layouts, sizeof q->layouts);
            any |= use[i];
        }
        reg_spec s = row_spec(r);
        dispatch_check *k = &c[n++];
        k->prob = p;
        int got = any ? rank_among(t, op, &s, use, trials, rows) : 0;
        k->pick = got > 0 ? rows[0] : -1;
        k->tried = got;
        k->rel = best_rel(t, rows, got, t, p);
    }
    free(use), free(rows);
    *out = c;
    return n;
}

int dispatch_against(const dispatch_table *t, const reg_op *op, const dispatch_table *held, int trials, dispatch_check **out)
{
    dispatch_check *c = tl_xcalloc((size_t)held->n + 1, sizeof *c);
    int *rows = tl_xcalloc((size_t)(trials > 0 ? trials : 1), sizeof *rows);
    int n = 0;
    for (int p = 0; p < held->n; p++) {
        const dispatch_row *r = &held->rows[p];
        if (r->prob != p) continue;
        reg_spec s = row_spec(r);
        char why[256];
        dispatch_check *k = &c[n++];
        k->prob = p;
        int got = dispatch_rank(t, op, &s, trials, rows, why, sizeof why);
        k->pick = got > 0 ? rows[0] : -1;
        k->tried = got > 0 ? got : 0;
        k->rel = best_rel(t, rows, k->tried, held, p);
    }
    free(rows);
    *out = c;
    return n;
}

int dispatch_table_op_name(const char *text, size_t len, char *name, size_t nname)
{
    for (size_t at = 0; at < len;) {
        size_t end = at;
        while (end < len && text[end] != '\n') end++;
        char line[256];
        size_t n = end - at < sizeof line - 1 ? end - at : sizeof line - 1;
        memcpy(line, text + at, n);
        line[n] = '\0';
        at = end + 1;
        char *v = line + strspn(line, " \t");
        if (strncmp(v, "op ", 3)) continue;
        v += 3 + strspn(v + 3, " \t");
        v[strcspn(v, " \t\r")] = '\0';
        snprintf(name, nname, "%s", v);
        return 0;
    }
    return -1;
}

void dispatch_problem_text(const reg_op *op, const dispatch_row *r, char *sizes, size_t nsizes, char *layouts, size_t nlayouts)
{
    size_t at = 0;
    sizes[0] = layouts[0] = '\0';
    for (int a = 0; a < op->naxes && at < nsizes; a++)
        at += (size_t)snprintf(sizes + at, nsizes - at, "%s%s=%lld", a ? "," : "", op->axes[a], (long long)r->dims[a]);
    at = 0;
    for (int k = 0; k < op->noperands && at < nlayouts; k++)
        at += (size_t)snprintf(layouts + at, nlayouts - at, "%s%s=%s", k ? "," : "", op->operands[k],
                               r->layouts[k] == REG_COL ? "col" : "row");
}
