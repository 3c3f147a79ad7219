#include "runner/plan/plan.h"

#include "runner/ops/decl.h"
#include "runner/ops/dispatch.h"
#include "runner/ops/dlib.h"
#include "runner/ops/dop.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *layout_name(int l)
{
    return l == REG_COL ? "col" : "row";
}

/* NAME=value for each param of v, comma-separated; one after v's nid_params only when not at its default. */
static void params_append(tl_buf *b, const reg_variant *v, const long *params)
{
    int first = 1;
    for (int k = 0; k < v->nparams; k++) {
        if (v->nid_params && k >= v->nid_params && params[k] == v->params[k].def) continue;
        if (!first) tl_buf_puts(b, ",");
        tl_buf_puts(b, v->params[k].name), tl_buf_puts(b, "="), tl_buf_long(b, params[k]);
        first = 0;
    }
}

static char *params_text(const reg_variant *v, const long *params)
{
    tl_buf b = {0};
    tl_buf_puts(&b, "");
    params_append(&b, v, params);
    return b.s;
}

static char *sizes_text(const reg_op *op, const reg_spec *s)
{
    tl_buf b = {0};
    tl_buf_puts(&b, "");
    for (int a = 0; a < op->naxes; a++) {
        if (a) tl_buf_puts(&b, ",");
        tl_buf_puts(&b, op->axes[a]), tl_buf_puts(&b, "="), tl_buf_long(&b, (long long)s->dims[a]);
    }
    return b.s;
}

static char *layout_text(const reg_op *op, const reg_spec *s)
{
    tl_buf b = {0};
    tl_buf_puts(&b, "");
    for (int o = 0; o < op->noperands; o++) {
        if (o) tl_buf_puts(&b, ",");
        tl_buf_puts(&b, op->operands[o]), tl_buf_puts(&b, "="), tl_buf_puts(&b, layout_name(s->layouts[o]));
    }
    return b.s;
}

char *plan_canonical(const tl_case *c)
{
    tl_buf b = {0};
    /* "tilelab-case/2;op=%s;variant=%s;target=%s;params=%s;sizes=%s;dtype=%s;layout=%s;args=" piece by
     * piece: a plan of 10^5 cases builds one each. */
    /* A declared op's declaration is part of what runs: a changed buffer, init or signature is another case. */
    const char *decl = c->op->decl ? c->op->decl->identity_id : NULL;
    const char *parts[] = {"tilelab-case/2;op=", c->op->name, decl ? ";decl=" : "", decl ? decl : "", ";variant=",
                           c->variant->name,
                           ";target=", reg_target_name(c->variant->kind), ";params=", c->params_text,
                           ";sizes=", c->sizes_text, ";dtype=", c->dtype, ";layout=", c->layout_text, ";args="};
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++) tl_buf_puts(&b, parts[i]);
    for (int a = 0; a < c->op->nargs; a++)
        tl_buf_printf(&b, "%s%s=%.17g", a ? "," : "", c->op->args[a].name, c->spec.args[a]);
    tl_buf_printf(&b, ";seed=%llu;data=%s", (unsigned long long)c->spec.seed, reg_dist_names[c->spec.dist]);
    /* A dispatching variant is what its table picks: another pick is another case; with trials, what it
     * tries (the pick first). */
    if (c->run && c->run != c->variant) {
        tl_buf_puts(&b, ";runs="), tl_buf_puts(&b, c->run->name), tl_buf_puts(&b, ";run_params=");
        params_append(&b, c->run, c->run_params);
    }
    if (c->ntrials > 1) {
        tl_buf_printf(&b, ";trials=%d", c->ntrials);
        for (int i = 1; i < c->ntrials; i++) {
            tl_buf_puts(&b, i > 1 ? "|" : ";tries="), tl_buf_puts(&b, c->trial[i].run->name), tl_buf_puts(&b, " ");
            params_append(&b, c->trial[i].run, c->trial[i].run_params);
        }
    }
    return b.s;
}

/* Drops case c's trials (the texts they share are c's). */
static void trials_free(tl_case *c)
{
    for (int i = 0; i < c->ntrials; i++) free(c->trial[i].dispatch), free(c->trial[i].reason);
    free(c->trial);
    c->trial = NULL, c->ntrials = 0;
}

/* A declared variant's requires and launch. */
static int check_declared(tl_case *c, const plan_limits *lim, tl_err *e)
{
    decl_outcome d;
    char *text = tl_xasprintf("%s%s%s", c->params_text, c->params_text[0] ? " at " : "", c->sizes_text);
    int rc = decl_evaluate(c->variant->decl, c->params, &c->spec, lim->device, text, &d, e);
    free(text);
    if (rc) return -1;
    if (!d.skip && c->variant->decl->lib) { /* a library variant: its counts against the buffers */
        char why[512];
        if (dlib_check(c->variant->decl->lib, &c->spec, why, sizeof why, e)) return -1;
        if (why[0]) { /* a mistake in the mapping, not a problem the variant cannot take */
            tl_err_set(e, "%s:%d:%d: %s: %s, at %s", c->variant->decl->path, c->cv->line, c->cv->col, c->variant->name, why,
                       c->sizes_text);
            return -1;
        }
    }
    c->reason = d.skip;
    c->device_skip = d.device_skip;
    c->undecided = d.undecided;
    if (!d.skip && !d.undecided) {
        memcpy(c->launch, d.launch, sizeof c->launch);
        c->nlaunch = c->variant->decl->nkernels;
        c->workspace = d.workspace;
    }
    return 0;
}

/* Skips what cannot run: a failed constraint, or more memory than the target has. */
static int check_case(tl_case *c, const plan_limits *lim, tl_err *e)
{
    char why[256] = "";
    const reg_variant *v = c->run;
    int on_device = v->kind != REG_HOST;
    uint64_t need = c->op->mem_bytes(c->op, &c->spec, on_device);
    uint64_t have = on_device ? lim->device_bytes : lim->host_bytes;
    /* A declared op's counts and inits: what a registered op's mem_bytes and checks cover. */
    if (c->op->decl && dop_check(c->op->decl, &c->spec, why, sizeof why, e)) return -1;
    if (why[0]) {
        c->reason = tl_xstrdup(why);
    } else if (need == 0) {
        c->reason = tl_xstrdup("size arithmetic overflows 64 bits");
    } else if (v->decl) {
        if (check_declared(c, lim, e)) return -1;
    } else if (!reg_check(v, c->run_params, &c->spec, why, sizeof why)) {
        c->reason = tl_xstrdup(why[0] ? why : "constraint failed");
    } else if (v->kind == REG_NVRTC) {
        if (reg_geometry(c->op, v, c->run_params, &c->spec, &c->launch[0], why, sizeof why) == 0) {
            if (v->entry2) v->geometry2(c->run_params, &c->spec, &c->launch[1]);
            c->nlaunch = v->entry2 ? 2 : 1;
            c->workspace = v->workspace ? v->workspace(c->run_params, &c->spec) : 0; /* check bounded it */
        } else {
            c->reason = tl_xstrdup(why);
        }
    }
    need += c->workspace;
    if (!c->reason && have && need > have) {
        c->reason = tl_xasprintf("needs %.1f MiB of %s memory, %.1f MiB available", need / 1048576.0,
                                 on_device ? "device" : "host", have / 1048576.0);
        c->device_skip = 1;
    }
    c->skipped = c->reason != NULL;
    return 0;
}

/* Case c runs what row r of its variant's table names. */
static void dispatch_to(tl_case *c, const tl_experiment *x, const cfg_variant *cv, int r)
{
    const dispatch_row *row = &cv->table->rows[r];
    c->run = row->v;
    memcpy(c->run_params, row->params, sizeof c->run_params);
    c->run_src = &cv->run_src[row->v - x->op->variants];
    c->dispatch = tl_xasprintf("%s (%s:%d)", row->text, cv->table->name, row->line);
}

/* A candidate of case c: c's problem and identity, nothing of its own yet (no run, launch or dispatch). */
static void trial_from(const tl_case *c, tl_case *t)
{
    *t = *c;
    t->trial = NULL, t->ntrials = 0, t->reason = NULL, t->dispatch = NULL;
    memset(t->launch, 0, sizeof t->launch);
    t->nlaunch = 0;
}

/* Trial t, which runs row r of cv's table, as the op's twin of it (dispatch_model.trial_twin) into *w, when the op
 * has one for t's problem: 1, else 0. Its dispatch names the row and what the twin changes. */
static int twin_of(const tl_case *t, const cfg_variant *cv, int r, tl_case *w)
{
    long twin[REG_MAX_PARAMS];
    const dispatch_model *m = t->op->dispatch;
    if (!m || !m->trial_twin || !m->trial_twin(t->run, t->run_params, &t->spec, twin)) return 0;
    trial_from(t, w);
    memcpy(w->run_params, twin, sizeof w->run_params);
    tl_buf b = {0}, d = {0};
    tl_buf_puts(&b, ""), tl_buf_puts(&d, "");
    params_append(&b, w->run, twin);
    for (int k = 0; k < w->run->nparams; k++)
        if (twin[k] != t->run_params[k]) {
            if (d.s[0]) tl_buf_puts(&d, ",");
            tl_buf_puts(&d, w->run->params[k].name), tl_buf_puts(&d, "="), tl_buf_long(&d, twin[k]);
        }
    w->dispatch = tl_xasprintf("%s %s (%s:%d with %s)", w->run->name, b.s, cv->table->name, cv->table->rows[r].line, d.s);
    free(b.s), free(d.s);
    return 1;
}

/* c's trials: the candidates rows[0 .. nr) (the first c's pick) that pass check_case on c's problem, when
 * more than one does and the pick does; then the op's twins (dispatch_model.trial_twin) of the first half of the
 * `trials:` asked for, those that pass, CFG_MAX_TRIALS candidates in all at most. Before c's identity,
 * which names them (add_case then gives it to them). */
static int add_trials(tl_case *c, const tl_experiment *x, const cfg_variant *cv, const int *rows, int nr,
                      const plan_limits *lim, tl_err *e)
{
    int twins = (cv->trials + 1) / 2;
    tl_case *tr = tl_xcalloc((size_t)(nr + twins), sizeof *tr);
    int n = 0, rc = 0, *row = tl_xcalloc((size_t)nr, sizeof *row); /* row[i]: trial i's row */
    for (int i = 0; i < nr; i++) {
        tl_case *t = &tr[n];
        trial_from(c, t);
        dispatch_to(t, x, cv, rows[i]);
        rc = check_case(t, lim, e);
        if (!rc && !t->skipped) {
            row[n++] = rows[i];
            continue;
        }
        free(t->dispatch), free(t->reason);
        if (rc || i == 0) break; /* the pick's skip is the case's own: check_case on c says it again */
    }
    for (int i = 0, rows_n = n; !rc && i < rows_n && i < twins && n < CFG_MAX_TRIALS; i++) { /* (run_trials' room) */
        if (!twin_of(&tr[i], cv, row[i], &tr[n])) continue;
        rc = check_case(&tr[n], lim, e);
        if (!rc && !tr[n].skipped) n++;
        else free(tr[n].dispatch), free(tr[n].reason);
    }
    free(row);
    c->trial = tr, c->ntrials = n;
    if (rc || n < 2) trials_free(c);
    return rc;
}

static int add_case(tl_plan *p, const tl_experiment *x, const cfg_variant *cv, const long *params,
                    const reg_spec *spec, const plan_limits *lim, tl_err *e)
{
    /* Room doubles (at 16, 32, 64, ... cases): a realloc per case copies the array each time where the
     * allocator cannot grow it in place (ASan's never does: a 47000-case plan took over 10 minutes). */
    int n = p->ncases;
    if (n == 0 || (n >= 16 && (n & (n - 1)) == 0)) {
        p->cases = realloc(p->cases, sizeof *p->cases * (size_t)(n ? 2 * n : 16));
        if (!p->cases) abort();
    }
    tl_case *c = &p->cases[p->ncases++];
    memset(c, 0, sizeof *c);
    c->op = x->op;
    c->variant = cv->v;
    c->cv = cv;
    memcpy(c->params, params, sizeof c->params);
    c->spec = *spec;
    c->dtype = x->op->dtypes[spec->dtype];
    c->protocol = cv->protocol;
    c->params_text = params_text(cv->v, params);
    c->sizes_text = sizes_text(x->op, spec);
    c->layout_text = layout_text(x->op, spec);
    c->run = cv->v;
    memcpy(c->run_params, params, sizeof c->run_params);
    c->run_src = &cv->src;
    if (cv->table) {
        char why[512];
        int rows[CFG_MAX_TRIALS], nr = dispatch_rank(cv->table, x->op, spec, cv->trials, rows, why, sizeof why);
        if (nr < 0) c->reason = tl_xstrdup(why);
        else dispatch_to(c, x, cv, rows[0]);
        if (nr >= 1 && cv->trials > 1 && add_trials(c, x, cv, rows, nr, lim, e)) return -1;
    }
    c->canonical = plan_canonical(c);
    char hex[65];
    tl_sha256_hex(c->canonical, strlen(c->canonical), hex);
    memcpy(c->id, hex, 16);
    c->id[16] = '\0';
    for (int i = 0; i < c->ntrials; i++) c->trial[i].canonical = c->canonical, memcpy(c->trial[i].id, c->id, sizeof c->id);
    if (!c->reason && check_case(c, lim, e)) return -1;
    c->skipped = c->reason != NULL;
    p->nskipped += c->skipped;
    return 0;
}

/* Every combination of the variant's param values, the last param varying fastest. */
static int expand_params(tl_plan *p, const tl_experiment *x, const cfg_variant *cv, const reg_spec *spec,
                         const plan_limits *lim, tl_err *e)
{
    int np = cv->v->nparams, idx[REG_MAX_PARAMS] = {0};
    for (;;) {
        long params[REG_MAX_PARAMS] = {0};
        for (int k = 0; k < np; k++) params[k] = cv->values[k][idx[k]];
        if (p->ncases >= CFG_MAX_CASES) {
            tl_err_set(e, "%s:%d:%d: variants: the experiment expands to more than %d cases%s", x->path, cv->line, cv->col,
                       CFG_MAX_CASES, x->search ? "" : ": a sweep runs every case; `search:` measures a budget of them");
            return -1;
        }
        if (add_case(p, x, cv, params, spec, lim, e)) return -1;
        int k = np - 1;
        while (k >= 0 && ++idx[k] == cv->nvalues[k]) idx[k--] = 0;
        if (k < 0) return 0;
    }
}

static int cmp_case_index(const void *a, const void *b, void *arg)
{
    const tl_case *cs = arg;
    int i = *(const int *)a, j = *(const int *)b;
    int c = strcmp(cs[i].id, cs[j].id);
    return c ? c : (i > j) - (i < j);
}

/* The same case twice (a variant listed twice, a param value repeated) would be run twice under
 * one id: an error in the experiment, reported with both places. */
static int check_duplicates(const tl_experiment *x, const tl_plan *p, tl_err *e)
{
    int *order = tl_xmalloc(sizeof *order * (size_t)(p->ncases ? p->ncases : 1)), rc = 0;
    for (int i = 0; i < p->ncases; i++) order[i] = i;
    qsort_r(order, (size_t)p->ncases, sizeof *order, cmp_case_index, p->cases);
    for (int i = 1; i < p->ncases && !rc; i++) {
        const tl_case *a = &p->cases[order[i - 1]], *b = &p->cases[order[i]];
        if (strcmp(a->id, b->id)) continue;
        tl_err_set(e, "%s: variants: case %s (%s %s %s %s) is listed twice: each case runs once", x->path, a->id,
                   a->variant->name, a->params_text, a->sizes_text, a->layout_text);
        rc = -1;
    }
    free(order);
    return rc;
}

/* A declared op's problem: the cases from first on (its cases) get the index of its reference case in *refs
 * (grown with the plan), pointers once the plan stops growing. */
static void note_reference(const tl_experiment *x, const tl_plan *p, int first, int **refs)
{
    int r = first;
    while (r < p->ncases && strcmp(p->cases[r].variant->name, x->dop->reference)) r++;
    *refs = realloc(*refs, sizeof **refs * (size_t)(p->ncases ? p->ncases : 1));
    if (!*refs) abort();
    for (int i = first; i < p->ncases; i++) (*refs)[i] = r < p->ncases ? r : -1;
}

int plan_expand(const tl_experiment *x, const plan_limits *lim, tl_plan *p, tl_err *e)
{
    const reg_op *op = x->op;
    int *refs = NULL;
    memset(p, 0, sizeof *p);
    p->whole_problems = x->search != NULL;
    for (int s = 0; s < x->nsizes; s++) {
        int lidx[REG_MAX_OPERANDS] = {0};
        for (;;) {
            reg_spec spec = {0};
            memcpy(spec.dims, x->sizes[s].dims, sizeof spec.dims);
            for (int o = 0; o < op->noperands; o++) spec.layouts[o] = x->layouts[o][lidx[o]];
            memcpy(spec.args, x->args, sizeof spec.args);
            spec.seed = x->seed;
            spec.dist = x->dist;
            for (int d = 0; d < x->ndtypes; d++) {
                spec.dtype = x->dtypes[d];
                int first = p->ncases;
                for (int v = 0; v < x->nvariants; v++)
                    if (reg_variant_takes(x->variants[v].v, spec.dtype) &&
                        expand_params(p, x, &x->variants[v], &spec, lim, e)) {
                        free(refs);
                        plan_free(p);
                        return -1;
                    }
                if (x->dop) note_reference(x, p, first, &refs);
            }
            int o = op->noperands - 1;
            while (o >= 0 && ++lidx[o] == x->nlayouts[o]) lidx[o--] = 0;
            if (o < 0) break;
        }
    }
    for (int i = 0; refs && i < p->ncases; i++) p->cases[i].ref = refs[i] >= 0 ? &p->cases[refs[i]] : NULL;
    free(refs);
    if (check_duplicates(x, p, e)) {
        plan_free(p);
        return -1;
    }
    return 0;
}

void plan_free(tl_plan *p)
{
    for (int i = 0; i < p->ncases; i++) {
        trials_free(&p->cases[i]);
        free(p->cases[i].canonical);
        free(p->cases[i].params_text);
        free(p->cases[i].sizes_text);
        free(p->cases[i].layout_text);
        free(p->cases[i].reason);
        free(p->cases[i].dispatch);
    }
    free(p->cases);
    memset(p, 0, sizeof *p);
}

/* ---- shards ---------------------------------------------------------------------------------- */

/* Nominal rates: the model only has to rank cases, and must not depend on the machine (every task
 * of a sweep computes the same shares). */
#define COST_CASE_S 0.05      /* set-up, verification, compile from the cache */
#define COST_PROBLEM_S 0.1    /* a problem's buffers */
#define COST_DEVICE_FLOPS 2e13
#define COST_DEVICE_BPS 2e12
#define COST_HOST_FLOPS 2e9
#define COST_HOST_BPS 5e9

/* One run at the nominal rates, s. */
static double run_time(const tl_case *c)
{
    int host = c->variant->kind == REG_HOST;
    double flop = c->op->flop(c->op, &c->spec), bytes = c->op->bytes(c->op, &c->spec);
    return fmax(flop / (host ? COST_HOST_FLOPS : COST_DEVICE_FLOPS), bytes / (host ? COST_HOST_BPS : COST_DEVICE_BPS));
}

/* A skip for a reason of the device counts as a run: shards must not depend on the machine. */
static int runs(const tl_case *c)
{
    return !c->skipped || c->device_skip;
}

double plan_cost(const tl_case *c)
{
    if (!runs(c)) return 0.001;
    double t = run_time(c);
    const measure_protocol *m = &c->protocol;
    double n = (double)(m->warmup + m->min_reps) * (m->batch > 0 ? m->batch : 1) + 1; /* + the verified run */
    double timed = fmin(n * t, m->max_time_s + m->warmup_s + 2 * t);
    /* Trials: each candidate loaded and run as measure_trial says, at least. */
    return COST_CASE_S * (c->ntrials ? c->ntrials : 1) + fmax(timed, m->warmup_s) +
           c->ntrials * (measure_trial.warmup + measure_trial.min_reps) * t;
}

double plan_setup_cost(const tl_case *c)
{
    return runs(c) ? COST_PROBLEM_S + 2 * run_time(c) : 0;
}

char *plan_problem_key(const tl_case *c)
{
    /* args and seed sit at the end of the case's canonical text (add_case sets it), after ";args="
     * (before a dispatch's ";runs="). */
    const char *tail = strstr(c->canonical, ";args="), *runs = strstr(tail, ";runs=");
    return tl_xasprintf("%s|%s|%s|%.*s|%d", c->sizes_text, c->layout_text, c->dtype,
                        (int)(runs ? (size_t)(runs - tail) : strlen(tail)), tail, c->variant->kind != REG_HOST);
}

/* A problem's cases to assign, or a piece of them when the problem alone is more than a share. */
typedef struct {
    int first, n;  /* into the case list, sorted by problem then plan order */
    double cost;   /* its cases and one set-up */
} piece;

typedef struct {
    char *key;
    int i;
} keyed;

static int by_key(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : x->i - y->i;
}

static int by_piece_cost(const void *a, const void *b)
{
    const piece *x = a, *y = b;
    if (x->cost != y->cost) return x->cost > y->cost ? -1 : 1;
    return x->first - y->first;
}

/* A min-heap of shards by (load, index). */
static int lighter(const double *load, int a, int b)
{
    return load[a] < load[b] || (load[a] == load[b] && a < b);
}

static void sift_down(int *heap, int n, const double *load, int at)
{
    for (;;) {
        int l = 2 * at + 1, r = l + 1, m = at;
        if (l < n && lighter(load, heap[l], heap[m])) m = l;
        if (r < n && lighter(load, heap[r], heap[m])) m = r;
        if (m == at) return;
        int t = heap[at];
        heap[at] = heap[m], heap[m] = t;
        at = m;
    }
}

int plan_assign(const tl_plan *p, const unsigned char *todo, int count, int *owner)
{
    if (count < 1) return -1;
    int n = 0;
    keyed *ks = tl_xcalloc((size_t)p->ncases + 1, sizeof *ks);
    for (int i = 0; i < p->ncases; i++) {
        owner[i] = -1;
        if (!todo || todo[i]) ks[n++] = (keyed){plan_problem_key(&p->cases[i]), i};
    }
    qsort(ks, (size_t)n, sizeof *ks, by_key);
    /* The share each shard would have if problems could be cut freely. */
    double total = 0;
    for (int k = 0; k < n; k++) {
        total += plan_cost(&p->cases[ks[k].i]);
        if (k == 0 || strcmp(ks[k].key, ks[k - 1].key)) total += plan_setup_cost(&p->cases[ks[k].i]);
    }
    double share = total / count;
    /* A problem is one piece (its inputs and reference made once), unless it alone exceeds a share:
     * then it is cut into pieces of at most a share, each paying its own set-up. */
    piece *ps = tl_xcalloc((size_t)n + 1, sizeof *ps);
    int np = 0;
    for (int k = 0; k < n;) {
        int end = k + 1;
        while (end < n && !strcmp(ks[end].key, ks[k].key)) end++;
        double setup = plan_setup_cost(&p->cases[ks[k].i]), all = setup;
        for (int j = k; j < end; j++) all += plan_cost(&p->cases[ks[j].i]);
        piece cur = {k, 0, setup};
        for (int j = k; j < end; j++) {
            double c = plan_cost(&p->cases[ks[j].i]);
            if (!p->whole_problems && all > share && cur.n && cur.cost + c > share) {
                ps[np++] = cur;
                cur = (piece){j, 0, setup};
            }
            cur.n++;
            cur.cost += c;
        }
        ps[np++] = cur;
        k = end;
    }
    /* Longest first, each to the least loaded shard (ties: plan order, lowest shard). */
    qsort(ps, (size_t)np, sizeof *ps, by_piece_cost);
    double *load = tl_xcalloc((size_t)count, sizeof *load);
    int *heap = tl_xcalloc((size_t)count, sizeof *heap);
    for (int s = 0; s < count; s++) heap[s] = s; /* all zero: already a heap */
    for (int q = 0; q < np; q++) {
        int s = heap[0];
        load[s] += ps[q].cost;
        for (int j = ps[q].first; j < ps[q].first + ps[q].n; j++) owner[ks[j].i] = s;
        sift_down(heap, count, load, 0);
    }
    for (int k = 0; k < n; k++) free(ks[k].key);
    free(ks), free(ps), free(load), free(heap);
    return 0;
}

int plan_shard(const tl_plan *p, int index, int count, unsigned char *mine)
{
    if (count < 1 || index < 0 || index >= count) return -1;
    int *owner = tl_xcalloc((size_t)p->ncases + 1, sizeof *owner);
    plan_assign(p, NULL, count, owner);
    for (int i = 0; i < p->ncases; i++) mine[i] = owner[i] == index;
    free(owner);
    return 0;
}

static int by_plan_id(const void *a, const void *b)
{
    return strcmp(((const plan_id *)a)->id, ((const plan_id *)b)->id);
}

plan_id *plan_ids(const tl_plan *p)
{
    plan_id *v = tl_xcalloc((size_t)p->ncases + 1, sizeof *v);
    for (int i = 0; i < p->ncases; i++) v[i] = (plan_id){p->cases[i].id, i};
    qsort(v, (size_t)p->ncases, sizeof *v, by_plan_id);
    return v;
}

int plan_find(const plan_id *ids, int n, const char *id)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (strcmp(ids[mid].id, id) < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && !strcmp(ids[lo].id, id) ? ids[lo].index : -1;
}
