#include "runner/run/report.h"
#include "runner/search/search_plan.h"

#include "runner/ops/decl.h"
#include "runner/ops/dispatch.h"
#include "runner/ops/dlib.h"
#include "runner/store/schema.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The kernel every NVRTC variant of op is: what a variant of one's own (`source:`) must declare. */
static void report_signature(FILE *f, const reg_op *op)
{
    fprintf(f, "  kernel signature (every compiled variant; yours too):\n    extern \"C\" __global__ void NAME(");
    for (int i = 0; i < op->nkargs; i++) {
        const char *t = op->kargs[i].type;
        fprintf(f, "%s%s%s%s", i ? ", " : "", t, t[strlen(t) - 1] == '*' ? "" : " ", op->kargs[i].name);
    }
    fprintf(f, ")\n");
    for (int i = 0; i < op->nkargs; i++) fprintf(f, "      %-8s %s\n", op->kargs[i].name, op->kargs[i].doc);
    if (op->kernel_doc) fprintf(f, "    %s\n", op->kernel_doc);
}

/* "launch: grid ceil_div(n, TILE) x ceil_div(m, TILE), block TILE x ROWS": the dimensions written, smem when set. */
static void report_launch_exprs(FILE *f, const reg_launch_exprs *le)
{
    fprintf(f, "      launch: grid");
    for (int d = 0; d < 3 && le->grid[d]; d++) fprintf(f, "%s%s", d ? " x " : " ", le->grid[d]);
    fprintf(f, ", block");
    for (int d = 0; d < 3 && le->block[d]; d++) fprintf(f, "%s%s", d ? " x " : " ", le->block[d]);
    if (le->smem) fprintf(f, ", smem %s bytes", le->smem);
    fputc('\n', f);
}

void report_list_op(FILE *f, const reg_op *op)
{
    fprintf(f, "%s: %s\n  axes:", op->name, op->summary);
    for (int a = 0; a < op->naxes; a++) fprintf(f, " %s", op->axes[a]);
    if (op->noperands) {
        fprintf(f, "\n  layouts of:");
        for (int o = 0; o < op->noperands; o++) fprintf(f, " %s", op->operands[o]);
        fprintf(f, " (row | col)");
    }
    if (op->nargs) {
        fprintf(f, "\n  args:");
        for (int a = 0; a < op->nargs; a++) fprintf(f, " %s=%g", op->args[a].name, op->args[a].def);
    }
    fprintf(f, "\n  dtypes:");
    for (int d = 0; d < op->ndtypes; d++) fprintf(f, " %s", op->dtypes[d]);
    for (int d = 0; op->dtype_docs && d < op->ndtypes; d++) fprintf(f, "\n    %-6s %s", op->dtypes[d], op->dtype_docs[d]);
    fprintf(f, "\n  references:");
    for (int r = 0; r < op->nreferences; r++) fprintf(f, " %s%s", op->references[r], r ? "" : " (default)");
    if (!op->dtype_tol) fprintf(f, "\n  tolerance: rtol=%g atol=%g: %s\n", op->tol.rtol, op->tol.atol, op->tol_doc);
    else {
        fprintf(f, "\n  tolerance: %s\n", op->tol_doc);
        for (int d = 0; d < op->ndtypes; d++)
            fprintf(f, "    %-6s rtol=%g atol=%g\n", op->dtypes[d], op->dtype_tol[d].rtol, op->dtype_tol[d].atol);
    }
    report_signature(f, op);
    fprintf(f, "  variants:\n");
    for (int i = 0; i < op->nvariants; i++) {
        const reg_variant *v = &op->variants[i];
        fprintf(f, "    %-16s [%s, %s%s] %s\n", v->name, reg_target_name(v->kind), reg_kind_name(v->kind),
                v->test_only ? ", test only" : "", v->summary);
        if (v->source) {
            const char *first = v->entry2 && v->entry2_first ? v->entry2 : v->entry;
            const char *then = !v->entry2 ? NULL : v->entry2_first ? v->entry : v->entry2;
            fprintf(f, "      source: kernels/%s (%s%s%s)\n", v->source, first, then ? ", then " : "", then ? then : "");
        }
        if (v->table) fprintf(f, "      table: kernels/%s (the rung and params it runs, per problem)\n", v->table);
        for (int k = 0; k < v->nparams; k++)
            fprintf(f, "      param %-10s default %-6ld %s\n", v->params[k].name, v->params[k].def, v->params[k].doc);
        for (int r = 0; v->rules && v->rules[r].expr; r++) fprintf(f, "      rule: %s\n", v->rules[r].expr);
        if (v->launch.grid[0]) report_launch_exprs(f, &v->launch);
        if (v->constraints) fprintf(f, "      %s: %s\n", v->rules ? "and" : "constraints", v->constraints);
        if (op->ndtypes > 1) {
            fprintf(f, "      dtypes:");
            for (int d = 0; d < op->ndtypes; d++)
                if (reg_variant_takes(v, d)) fprintf(f, " %s", op->dtypes[d]);
            fputc('\n', f);
        }
    }
}

/* `search:`: how many searches, their points and what a budget runs of them. */
static void report_searches_planned(FILE *f, const tl_experiment *x, const tl_plan *p)
{
    search_plan sp;
    tl_err e;
    if (search_plan_make(x, p, &sp, &e)) return; /* (config already refused an experiment with nothing to search) */
    int lo = 0, hi = 0, cases = 0;
    for (int s = 0; s < sp.nspaces; s++) {
        int n = sp.spaces[s].npoints, b = search_budget_cases(x->search, &sp.spaces[s]);
        lo = s && lo < n ? lo : n, hi = hi > n ? hi : n;
        cases += b && b < n ? b : n;
    }
    char *text = search_spec_text(x->search);
    fprintf(f, "  search: %s; %d search%s (a problem and a variant entry each) of %d .. %d points the rules allow; "
               "%s%d cases run of them, besides the cases that run as in a sweep\n", text, sp.nspaces,
            sp.nspaces == 1 ? "" : "es", lo, hi, x->search->budget_kind == SEARCH_SECONDS ? "at most " : "", cases);
    free(text);
    search_plan_free(&sp);
}

void report_validate(FILE *f, const char *path, const tl_experiment *x, const tl_plan *p, int picks)
{
    int host = 0, undecided = 0;
    for (int i = 0; i < p->ncases; i++) {
        host += p->cases[i].variant->kind == REG_HOST;
        undecided += p->cases[i].undecided;
    }
    fprintf(f, "%s: ok: experiment '%s', op %s, %d sizes, %d cases (%d on the GPU, %d on the host, %d skipped)\n", path,
            x->name, x->op->name, x->nsizes, p->ncases, p->ncases - host, host, p->nskipped);
    if (x->dop) { /* what its kernels must be: the declaration's signature */
        fprintf(f, "  op %s (declared): axes", x->op->name);
        for (int i = 0; i < x->op->naxes; i++) fprintf(f, " %s", x->op->axes[i]);
        fprintf(f, "; reference %s; %s\n", x->reference, x->op->rate);
        report_signature(f, x->op);
    }
    for (int v = 0; v < x->nvariants; v++) {
        const cfg_variant *cv = &x->variants[v];
        if (!cv->own) continue;
        const decl_variant *d = cv->v->decl;
        if (d && d->lib) {
            fprintf(f, "  %s: library %s (", cv->v->name, d->lib->fn->name);
            for (int a = 0; a < d->lib->fn->nargs; a++)
                fprintf(f, "%s%s=%s", a ? ", " : "", d->lib->fn->args[a].name, d->lib->fn->args[a].role == DLIB_VALUE
                        ? d->lib->value[a].x.text : x->dop->buffers[d->lib->buffer[a]].name);
            fprintf(f, ")\n");
            continue;
        }
        fprintf(f, "  %s: %s (%s ", cv->v->name, cv->v->source, d && d->nkernels > 1 ? "kernels" : "entry");
        for (int k = 0; d && k < d->nkernels; k++) fprintf(f, "%s%s", k ? ", then " : "", d->kernels[k].entry);
        if (!d) fprintf(f, "%s", cv->v->entry);
        fprintf(f, "), %d file%s:", cv->src.n, cv->src.n == 1 ? "" : "s");
        for (int k = 0; k < cv->src.n; k++) fprintf(f, " %s", x->store.files[cv->src.files[k]].path);
        fputc('\n', f);
    }
    if (x->search) report_searches_planned(f, x, p);
    /* A dispatching variant: its table, and how many of its cases each rung runs. */
    for (int v = 0; v < x->nvariants; v++) {
        const cfg_variant *cv = &x->variants[v];
        if (!cv->table) continue;
        fprintf(f, "  %s: table %s (%d rows; device %s; measured %s); its cases run:", cv->v->name, cv->table->name,
                cv->table->n, cv->table->device[0] ? cv->table->device : "?",
                cv->table->measured[0] ? cv->table->measured : "?");
        for (int r = 0; r < x->op->nvariants; r++) {
            int n = 0;
            for (int i = 0; i < p->ncases; i++)
                n += p->cases[i].cv == cv && !p->cases[i].skipped && p->cases[i].run == &x->op->variants[r];
            if (n) fprintf(f, " %s x %d", x->op->variants[r].name, n);
        }
        if (cv->trials > 1)
            fprintf(f, " (as the pick; each case times the %d candidates the table ranks first and runs the fastest: "
                       "`trials: %d`)", cv->trials, cv->trials);
        fputc('\n', f);
        for (int i = 0; picks && i < p->ncases; i++) {
            const tl_case *c = &p->cases[i];
            if (c->cv != cv) continue;
            fprintf(f, "    %s %s %s: %s\n", c->sizes_text, c->layout_text, c->dtype,
                    c->skipped ? (c->reason ? c->reason : "skipped") : c->dispatch ? c->dispatch : "?");
            for (int t = 1; t < c->ntrials; t++) fprintf(f, "      or %s\n", c->trial[t].dispatch);
        }
    }
    if (undecided)
        fprintf(f, "  %d cases are decided on the device: their requires or launch name sms, smem_optin or warp\n",
                undecided);
    /* Skips grouped by variant and reason, with one example each: a sweep may skip hundreds. */
    int *done = tl_xcalloc((size_t)p->ncases + 1, sizeof *done);
    for (int i = 0; i < p->ncases; i++) {
        const tl_case *c = &p->cases[i];
        if (!c->skipped || done[i]) continue;
        int count = 0;
        for (int j = i; j < p->ncases; j++) {
            const tl_case *d = &p->cases[j];
            if (d->skipped && !done[j] && d->variant == c->variant && !strcmp(d->reason, c->reason)) done[j] = 1, count++;
        }
        fprintf(f, "  skipped %d x %s: %s (e.g. %s %s)\n", count, c->variant->name, c->reason,
                c->params_text, c->sizes_text);
    }
    free(done);
}

/* A dispatching variant whose table was measured on another GPU than the one it runs on: a note that
 * says so and names the table this runner carries for this GPU, if it has one (`table: tilelab:...`).
 * The table stays what the experiment says: a YAML's cases are the same on every machine. */
static void report_table_device(FILE *f, const tl_experiment *x, const env_info *env)
{
    for (int v = 0; env->have_gpu && v < x->nvariants; v++) {
        const dispatch_table *t = x->variants[v].table;
        if (!t || !t->device[0] || !strcmp(t->device, env->gpu_name)) continue;
        const char *mine = NULL;
        for (int i = 0; i < reg_nsources && !mine; i++) {
            const reg_source *r = &reg_sources[i];
            char device[256];
            if (reg_is_table_of(r->path, x->op->name) && dispatch_header_device(r->text, r->len, device, sizeof device) &&
                !strcmp(device, env->gpu_name))
                mine = r->path;
        }
        fprintf(f, "tilelab: note: %s's table %s was measured on %s, this GPU is %s", x->variants[v].v->name, t->name,
                t->device, env->gpu_name);
        if (mine)
            fprintf(f, "; this runner carries one measured on it: {name: %s, table: " TILELAB_TABLE_PREFIX "%s}\n",
                    x->variants[v].v->name, mine);
        else
            fprintf(f, "; for picks measured here, run the op's tuning experiment and analysis/dispatch_table.py "
                       "(docs/guide/tuned.md)\n");
    }
}

void report_header(FILE *f, const tl_experiment *x, const tl_plan *p, const env_info *env, const char *out_path)
{
    fprintf(f, "tilelab: %s (%s): %d cases on %s\n", x->name, x->path, p->ncases,
            env->have_gpu ? env->gpu_name : "the host");
    report_table_device(f, x, env);
    fprintf(f, "tilelab: writing %s\n", out_path);
}

/* The rate an op's tables show: GFLOP/s for compute, GB/s for memory-bound ops. */
static int by_bytes(const reg_op *op)
{
    return op->rate && !strcmp(op->rate, "GB/s");
}

static double rate_of(const tl_result *r)
{
    return by_bytes(r->c->op) ? r->gbs : r->gflops;
}

/* A column as wide as its widest text (at least its heading's). */
static int column(int w, const char *text)
{
    int n = (int)strlen(text);
    return n > w ? n : w;
}

report_widths report_progress_widths(const tl_plan *p, const unsigned char *todo)
{
    report_widths w = {15, 14, 22, 0};
    for (int i = 0; i < p->ncases; i++) {
        const tl_case *c = &p->cases[i];
        if (todo && !todo[i]) continue;
        w.variant = column(w.variant, c->variant->name), w.params = column(w.params, c->params_text);
        w.sizes = column(w.sizes, c->sizes_text), w.layout = column(w.layout, c->layout_text);
    }
    return w;
}

void report_progress(FILE *f, const report_widths *w, int done, int total, const tl_result *r, double elapsed_s)
{
    const tl_case *c = r->c;
    /* What tells the case apart, as the closing table does: its layouts too (a=row,b=col), where the op has some. */
    fprintf(f, "[%*d/%d %6.1fs] %-*s %-*s %-*s%s%-*s%s%s %-13s", total >= 1000 ? 4 : 3, done, total, elapsed_s,
            w->variant, c->variant->name, w->params, c->params_text[0] ? c->params_text : "-", w->sizes, c->sizes_text,
            w->layout ? " " : "", w->layout, c->layout_text, c->op->ndtypes > 1 ? " " : "",
            c->op->ndtypes > 1 ? c->dtype : "", r->status);
    if (r->samples.n)
        fprintf(f, " %10.4f ms %9.1f %s %4d reps", r->st.median_ms, rate_of(r), by_bytes(c->op) ? "GB/s" : "GFLOP/s",
                r->samples.n);
    else if (r->reason) fprintf(f, " %s", r->reason);
    if (r->local_bytes > 0) fprintf(f, " [spills: %ld B of local memory per thread, %d registers]", r->local_bytes, r->regs);
    if (r->samples.nthrottled) fprintf(f, " [%d of %d samples throttled]", r->samples.nthrottled, r->samples.n);
    if (c->dispatch) fprintf(f, " [ran %s]", c->dispatch);
    if (r->trials) {
        int tried = 0;
        for (const char *s = r->trials; *s; s++) tried += *s == '\n';
        fprintf(f, " [the fastest of %d tried]", tried);
    }
    fputc('\n', f);
    fflush(f);
}

/* The op's first library variant is the bar the others are measured against. */
static const reg_variant *baseline_of(const reg_op *op)
{
    for (int i = 0; i < op->nvariants; i++)
        if (op->variants[i].kind == REG_LIBRARY) return &op->variants[i];
    return NULL;
}

/* The baseline's results with samples, ordered by problem (sizes, layouts, dtype) and then by their place
 * in the run, so that each row finds the first of its problem's by a binary search. Scanning every result
 * for each row was quadratic: about 1 s after 16000 cases, some 15 s after a 60000-case tuning shard. */
static int problem_cmp(const tl_result *a, const tl_result *b)
{
    int d = strcmp(a->c->sizes_text, b->c->sizes_text);
    if (!d) d = strcmp(a->c->layout_text, b->c->layout_text);
    if (!d) d = strcmp(a->c->dtype, b->c->dtype);
    return d;
}

static int baseline_order(const void *x, const void *y)
{
    const tl_result *a = *(const tl_result *const *)x, *b = *(const tl_result *const *)y;
    int d = problem_cmp(a, b);
    return d ? d : (a > b) - (a < b);
}

static const tl_result *find_baseline(const tl_result *const *bases, int nb, const tl_result *r)
{
    int lo = 0, hi = nb; /* the first base not below r's problem */
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (problem_cmp(bases[mid], r) < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo < nb && problem_cmp(bases[lo], r) == 0 ? bases[lo] : NULL;
}

void report_table(FILE *f, const tl_experiment *x, const tl_result *res, int n)
{
    const reg_variant *base = baseline_of(x->op);
    char pct_head[32];
    snprintf(pct_head, sizeof pct_head, "%% %s", base ? base->name : "base");
    /* Widths from the rows (a rung's params run to 130 characters), so that the figures line up. */
    int wv = 16, wp = 16, ws = 24, wl = 12, wd = 6;
    for (int i = 0; i < n; i++) {
        const tl_case *c = res[i].c;
        wv = column(wv, c->variant->name), wp = column(wp, c->params_text), ws = column(ws, c->sizes_text);
        wl = column(wl, c->layout_text), wd = column(wd, c->dtype);
    }
    fprintf(f, "\n%-*s %-*s %-*s %-*s %-*s %12s %10s %9s  %s\n", wv, "variant", wp, "params", ws, "size", wl, "layout", wd,
            "dtype", "median ms", by_bytes(x->op) ? "GB/s" : "GFLOP/s", pct_head, "status");
    const tl_result **bases = tl_xcalloc((size_t)n + 1, sizeof *bases);
    int nb = 0;
    for (int i = 0; i < n; i++)
        if (base && res[i].c->variant == base && res[i].samples.n) bases[nb++] = &res[i];
    qsort(bases, (size_t)nb, sizeof *bases, baseline_order);
    for (int i = 0; i < n; i++) {
        const tl_result *r = &res[i];
        const tl_case *c = r->c;
        char med[32] = "-", gf[32] = "-", pct[32] = "-";
        if (r->samples.n) {
            snprintf(med, sizeof med, "%.4f", r->st.median_ms);
            snprintf(gf, sizeof gf, "%.1f", rate_of(r));
            const tl_result *b = find_baseline(bases, nb, r);
            if (b) snprintf(pct, sizeof pct, "%.1f", 100.0 * b->st.median_ms / r->st.median_ms);
        }
        fprintf(f, "%-*s %-*s %-*s %-*s %-*s %12s %10s %9s  %s\n", wv, c->variant->name, wp,
                c->params_text[0] ? c->params_text : "-", ws, c->sizes_text, wl, c->layout_text, wd, c->dtype, med, gf,
                pct, r->status);
    }
    free(bases);
    fflush(f); /* whole before what follows on stderr, where both go to one pipe (a table > 4 KB was cut there) */
}

int report_failures(const tl_result *res, int n)
{
    int bad = 0;
    for (int i = 0; i < n; i++) {
        const char *s = res[i].status;
        if (!sch_status_failed(s)) continue;
        fprintf(stderr, "FAILED %s %s %s %s: %s\n", res[i].c->id, res[i].c->variant->name, res[i].c->params_text,
                res[i].c->sizes_text, res[i].reason ? res[i].reason : s);
        bad++;
    }
    return bad;
}

void report_phases(FILE *f, const double *phase_s, double write_s, double wall_s, const tl_result *res, int n,
                   int compiled_ahead)
{
    int kernels = 0, cached = 0;
    double sum = write_s;
    int in_trials = 0;
    for (int i = 0; i < n; i++) {
        kernels += res[i].compile_cached >= 0;
        cached += res[i].compile_cached == 1;
        in_trials += res[i].trial_compiled;
    }
    fprintf(f, "tilelab: where the %.2f s went:", wall_s);
    /* Trials and energy runs: only in runs that had some. */
    int last = phase_s[PH_ENERGY] > 0 ? PH_ENERGY : phase_s[PH_TRIALS] > 0 ? PH_TRIALS : PH_TRIALS - 1;
    for (int p = 0; p <= last; p++) {
        if ((p == PH_TRIALS || p == PH_ENERGY) && !(phase_s[p] > 0)) continue;
        sum += phase_s[p];
        fprintf(f, " %s %.2f", tl_phase_names[p], phase_s[p]);
        if (p == PH_COMPILE && kernels) {
            int compiled = compiled_ahead + kernels - cached + in_trials;
            fprintf(f, " (%d of %d kernels from the cache", cached, kernels);
            if (compiled) fprintf(f, "; NVRTC compiled %d during the run, %d of them ahead", compiled, compiled_ahead);
            fputc(')', f);
        }
        fputc(p < last ? ',' : ';', f);
    }
    fprintf(f, " write %.2f, other %.2f\n", write_s, wall_s - sum > 0 ? wall_s - sum : 0.0);
}
