/* bayes: Bayesian optimisation over a search's points. A Gaussian process models the log objective on the
 * points' places (search.h: search_space.pos); the next point is the one of most expected improvement over the
 * best so far. Failed points count as the worst seen.
 *
 * The kernel is half a Matern 5/2 over all dimensions at once and half the mean of one Matern 5/2 a dimension:
 * the first lets params act together (a tile that only pays with deep pipelining), the second lets what one
 * value of a param did at some points say something about it at all the others, which is what a dozen
 * evaluations can learn. The tensor-core GEMM spaces of the search benchmark are close to that second kind (its
 * page gives, per space, how much of the log times one effect a param explains). Each dimension has its length
 * scale, used by both halves; the length scales and the noise are fitted by the log marginal likelihood over a
 * grid, one coordinate at a time. The starting points cover the params' values (search_covering_new).
 *
 * The factor L of the kernel matrix grows by a row an evaluation, and with it V = L^-1 K(evaluated, pool), so
 * a prediction over the whole pool costs one pass over V; a new fit rebuilds both. */
#include "runner/search/search_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BO_POOL_MAX 8192   /* a larger space is predicted on this many points drawn once, and the near neighbours
                            * of the best */
#define BO_FIT_MAX 120     /* the fit uses at most this many evaluations: the best ones */
#define BO_REFIT 1.2       /* a new fit once the evaluations have grown by this factor */
#define BO_XI 0.01         /* expected improvement's margin, in standard deviations of the objective */

static const double ls_grid[] = {0.06, 0.12, 0.25, 0.5, 1.0, 2.0, 8.0};
static const double noise_grid[] = {1e-4, 1e-3, 1e-2, 5e-2};
#define NLS (int)(sizeof ls_grid / sizeof *ls_grid)
#define NNOISE (int)(sizeof noise_grid / sizeof *noise_grid)

typedef struct {
    int ndims;
    int n0;            /* evaluations drawn before the model is used */
    double *x;         /* npoints x ndims places */
    double ls[SEARCH_MAX_DIMS], noise;
    int nfit;          /* evaluations at the last fit, 0 before one */
    /* The model's evaluations (in order), its factor and the pool it predicts. */
    int *obs, nobs, cap;
    double *L;         /* cap x cap, lower triangle */
    int *pool, npool;
    double *V;         /* cap x npool */
    double *vv;        /* per pool point: the squared norm of its column of V */
} bo_state;

static double matern52_of(double r)
{
    r *= sqrt(5.0);
    return (1 + r + r * r / 3) * exp(-r);
}

/* The kernel (above): the joint Matern and the mean of the one-dimension ones, in equal parts. */
static double kernel(const bo_state *b, const double *u, const double *v)
{
    double r2 = 0, each = 0;
    for (int d = 0; d < b->ndims; d++) {
        double t = fabs(u[d] - v[d]) / b->ls[d];
        r2 += t * t;
        each += matern52_of(t);
    }
    return 0.5 * matern52_of(sqrt(r2)) + 0.5 * each / b->ndims;
}

static const double *place(const bo_state *b, int p)
{
    return b->x + (size_t)p * b->ndims;
}

static void *bo_new(search_run *r)
{
    const search_space *sp = r->sp;
    bo_state *b = tl_xcalloc(1, sizeof *b);
    b->ndims = sp->ndims;
    /* Enough points to see each param move once or so, before a model is trusted. */
    b->n0 = sp->ndims + 2 < 5 ? 5 : sp->ndims + 2 > 10 ? 10 : sp->ndims + 2;
    b->x = tl_xcalloc((size_t)sp->npoints * (size_t)sp->ndims + 1, sizeof *b->x);
    for (int p = 0; p < sp->npoints; p++)
        for (int d = 0; d < sp->ndims; d++) b->x[(size_t)p * sp->ndims + d] = sp->pos[d][sp->coord[(size_t)p * sp->ndims + d]];
    for (int d = 0; d < sp->ndims; d++) b->ls[d] = 0.5;
    b->noise = 1e-3;
    b->npool = sp->npoints < BO_POOL_MAX ? sp->npoints : BO_POOL_MAX;
    b->pool = tl_xcalloc((size_t)b->npool + 1, sizeof *b->pool);
    if (sp->npoints <= BO_POOL_MAX) {
        for (int p = 0; p < sp->npoints; p++) b->pool[p] = p;
    } else { /* a partial shuffle: the first BO_POOL_MAX of a random order */
        int *all = tl_xcalloc((size_t)sp->npoints, sizeof *all);
        for (int p = 0; p < sp->npoints; p++) all[p] = p;
        for (int k = 0; k < b->npool; k++) {
            int j = k + search_rng_below(&r->rng, sp->npoints - k), t = all[k];
            all[k] = all[j], all[j] = t;
            b->pool[k] = all[k];
        }
        free(all);
    }
    b->vv = tl_xcalloc((size_t)b->npool + 1, sizeof *b->vv);
    return b;
}

static void bo_free(void *impl)
{
    bo_state *b = impl;
    free(b->x), free(b->obs), free(b->L), free(b->pool), free(b->V), free(b->vv);
    free(b);
}

/* ---- the targets ---------------------------------------------------------------------------------------------- */

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double quantile_sorted(const double *s, int n, double q)
{
    double at = q * (n - 1);
    int i = (int)at;
    return i >= n - 1 ? s[n - 1] : s[i] + (at - i) * (s[i + 1] - s[i]);
}

/* Log objective (when every value is positive), capped at the median plus 1.5 interquartile ranges: kernels
 * 30 times slower than the best would otherwise set the model's scale, and the model is for the fast ones.
 * Failed points sit at the cap. Then standardised. */
static void targets(const search_run *r, const int *pts, int n, double *t)
{
    int all_pos = 1, nok = 0;
    for (int i = 0; i < n; i++)
        if (r->state[pts[i]] == PT_OK && !(r->y[pts[i]] > 0)) all_pos = 0;
    double *ok = tl_xcalloc((size_t)n + 1, sizeof *ok);
    for (int i = 0; i < n; i++)
        if (r->state[pts[i]] == PT_OK) t[i] = ok[nok++] = all_pos ? log(r->y[pts[i]]) : r->y[pts[i]];
    double cap = 0;
    if (nok) {
        qsort(ok, (size_t)nok, sizeof *ok, by_value);
        double q1 = quantile_sorted(ok, nok, 0.25), q2 = quantile_sorted(ok, nok, 0.5), q3 = quantile_sorted(ok, nok, 0.75);
        cap = q2 + 1.5 * (q3 - q1);
    }
    free(ok);
    double mean = 0, m2 = 0;
    for (int i = 0; i < n; i++) {
        if (r->state[pts[i]] != PT_OK || t[i] > cap) t[i] = cap;
        double dlt = t[i] - mean;
        mean += dlt / (i + 1);
        m2 += dlt * (t[i] - mean);
    }
    double sd = n > 1 ? sqrt(m2 / (n - 1)) : 1;
    if (!(sd > 1e-12)) sd = 1;
    for (int i = 0; i < n; i++) t[i] = (t[i] - mean) / sd;
}

/* ---- the fit ---------------------------------------------------------------------------------------------------- */

/* Cholesky of the n x n kernel matrix of pts (with noise) into L (leading dimension ld); -1 if not positive. */
static int factor(const bo_state *b, const int *pts, int n, double *L, int ld)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j <= i; j++) {
            double s = kernel(b, place(b, pts[i]), place(b, pts[j])) + (i == j ? b->noise : 0);
            for (int k = 0; k < j; k++) s -= L[(size_t)i * ld + k] * L[(size_t)j * ld + k];
            if (i == j) {
                if (!(s > 0)) return -1;
                L[(size_t)i * ld + i] = sqrt(s);
            } else {
                L[(size_t)i * ld + j] = s / L[(size_t)j * ld + j];
            }
        }
    return 0;
}

/* Solves L z = t in place (forward substitution). */
static void forward(const double *L, int ld, int n, double *t)
{
    for (int i = 0; i < n; i++) {
        double s = t[i];
        for (int k = 0; k < i; k++) s -= L[(size_t)i * ld + k] * t[k];
        t[i] = s / L[(size_t)i * ld + i];
    }
}

/* The log marginal likelihood of targets t at pts under b's hyperparameters (up to a constant). */
static double lml(const bo_state *b, const int *pts, int n, const double *t, double *L, double *z)
{
    if (factor(b, pts, n, L, n)) return -INFINITY;
    memcpy(z, t, sizeof *z * (size_t)n);
    forward(L, n, n, z);
    double s = 0;
    for (int i = 0; i < n; i++) s += -0.5 * z[i] * z[i] - log(L[(size_t)i * n + i]);
    return s;
}

static int by_target(const void *a, const void *b)
{
    const double *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : (x[1] < y[1] ? -1 : x[1] > y[1]);
}

/* Length scales and noise by coordinate ascent over their grids, on at most BO_FIT_MAX evaluations (the best). */
static void fit(const search_run *r, bo_state *b)
{
    int n = b->nobs;
    double *t = tl_xcalloc((size_t)n, sizeof *t);
    targets(r, b->obs, n, t);
    int m = n < BO_FIT_MAX ? n : BO_FIT_MAX;
    double (*order)[2] = tl_xcalloc((size_t)n, sizeof *order);
    for (int i = 0; i < n; i++) order[i][0] = t[i], order[i][1] = i;
    qsort(order, (size_t)n, sizeof *order, by_target);
    int *pts = tl_xcalloc((size_t)m, sizeof *pts);
    double *tm = tl_xcalloc((size_t)m, sizeof *tm);
    for (int i = 0; i < m; i++) pts[i] = b->obs[(int)order[i][1]];
    targets(r, pts, m, tm);
    double *L = tl_xcalloc((size_t)m * m, sizeof *L), *z = tl_xcalloc((size_t)m, sizeof *z);
    double best = lml(b, pts, m, tm, L, z);
    for (int pass = 0; pass < 2; pass++)
        for (int d = 0; d <= b->ndims; d++) {
            double *h = d < b->ndims ? &b->ls[d] : &b->noise, keep = *h;
            const double *grid = d < b->ndims ? ls_grid : noise_grid;
            for (int g = 0; g < (d < b->ndims ? NLS : NNOISE); g++) {
                if (grid[g] == keep) continue;
                *h = grid[g];
                double v = lml(b, pts, m, tm, L, z);
                if (v > best + 1e-9) best = v, keep = grid[g];
            }
            *h = keep;
        }
    free(t), free(order), free(pts), free(tm), free(L), free(z);
    b->nfit = n;
}

/* ---- the factor and V, rebuilt or grown by one --------------------------------------------------------------- */

static void grow(bo_state *b, int need)
{
    if (need <= b->cap) return;
    int cap = b->cap ? b->cap : 32;
    while (cap < need) cap *= 2;
    double *L = tl_xcalloc((size_t)cap * cap, sizeof *L), *V = tl_xcalloc((size_t)cap * b->npool + 1, sizeof *V);
    for (int i = 0; i < b->nobs; i++) {
        memcpy(L + (size_t)i * cap, b->L + (size_t)i * b->cap, sizeof *L * (size_t)(i + 1));
        memcpy(V + (size_t)i * b->npool, b->V + (size_t)i * b->npool, sizeof *V * (size_t)b->npool);
    }
    free(b->L), free(b->V);
    b->L = L, b->V = V;
    b->obs = realloc(b->obs, sizeof *b->obs * (size_t)cap);
    if (!b->obs) abort();
    b->cap = cap;
}

/* Adds evaluated point p as row nobs of L and V. -1 when the matrix stops being positive (p too near another
 * under tiny noise): the caller rebuilds. */
static int add_row(bo_state *b, int p)
{
    int n = b->nobs, ld = b->cap;
    grow(b, n + 1);
    ld = b->cap;
    double *l = b->L + (size_t)n * ld, s = 1 + b->noise;
    for (int i = 0; i < n; i++) l[i] = kernel(b, place(b, b->obs[i]), place(b, p));
    forward(b->L, ld, n, l);
    for (int i = 0; i < n; i++) s -= l[i] * l[i];
    if (!(s > 1e-12)) return -1;
    double dg = sqrt(s);
    l[n] = dg;
    double *v = b->V + (size_t)n * b->npool;
    for (int c = 0; c < b->npool; c++) {
        const double *xc = place(b, b->pool[c]);
        double a = kernel(b, place(b, p), xc);
        for (int i = 0; i < n; i++) a -= l[i] * b->V[(size_t)i * b->npool + c];
        v[c] = a / dg;
        b->vv[c] += v[c] * v[c];
    }
    b->obs[n] = p;
    b->nobs = n + 1;
    return 0;
}

static void rebuild(const search_run *r, bo_state *b)
{
    int n = b->nobs, *pts = tl_xcalloc((size_t)n + 1, sizeof *pts);
    memcpy(pts, b->obs, sizeof *pts * (size_t)n);
    for (;;) {
        b->nobs = 0;
        memset(b->vv, 0, sizeof *b->vv * (size_t)b->npool);
        int ok = 1;
        for (int i = 0; i < n && ok; i++) ok = add_row(b, pts[i]) == 0;
        if (ok || b->noise >= noise_grid[NNOISE - 1]) break;
        b->noise *= 10; /* two places too close for the noise: more of it */
    }
    (void)r;
    free(pts);
}

/* ---- proposals ----------------------------------------------------------------------------------------------------- */

static double norm_cdf(double z)
{
    return 0.5 * erfc(-z / sqrt(2.0));
}

static int hamming(const search_run *r, int p, int q)
{
    const int *a = search_coord(r, p), *c = search_coord(r, q);
    int h = 0;
    for (int d = 0; d < r->sp->ndims; d++) h += a[d] != c[d];
    return h;
}

/* The fewest params in which a pool point not evaluated differs from the best point (0: none is left). */
static int nearest_ring(const search_run *r, const bo_state *b)
{
    int near = 0;
    for (int c = 0; c < b->npool; c++) {
        int p = b->pool[c];
        if (r->state[p] != PT_NEW) continue;
        int h = hamming(r, p, r->best);
        if (!near || h < near) near = h;
    }
    return near;
}

static int bo_next(search_run *r, char *why, size_t n)
{
    bo_state *b = r->impl;
    if (r->nevals < b->n0 || r->best < 0) {
        snprintf(why, n, "bayes: a starting point (%d of %d), covering the params' values", r->nevals + 1, b->n0);
        return search_covering_new(r, b->obs, b->nobs);
    }
    if (!b->nfit || b->nobs >= BO_REFIT * b->nfit) {
        fit(r, b);
        rebuild(r, b);
    }
    int nob = b->nobs;
    double *beta = tl_xcalloc((size_t)nob + 1, sizeof *beta);
    targets(r, b->obs, nob, beta);
    double ybest = INFINITY;
    for (int i = 0; i < nob; i++)
        if (r->state[b->obs[i]] == PT_OK && beta[i] < ybest) ybest = beta[i];
    forward(b->L, b->cap, nob, beta);
    /* Every other step refines: of the points nearest the best so far (one param changed, else two, ...), the
     * one the model predicts best. The steps between look anywhere, by expected improvement. */
    int local = (r->nevals - b->n0) % 2 == 1, near = local ? nearest_ring(r, b) : 0;
    int pick = -1;
    double top = -INFINITY, pm = 0, ps = 0;
    for (int c = 0; c < b->npool; c++) {
        int p = b->pool[c];
        if (r->state[p] != PT_NEW) continue;
        if (local) {
            if (hamming(r, p, r->best) != near) continue;
            double mu = 0;
            for (int i = 0; i < nob; i++) mu += b->V[(size_t)i * b->npool + c] * beta[i];
            if (-mu > top) top = -mu, pick = p, pm = mu, ps = 0;
            continue;
        }
        double mu = 0;
        for (int i = 0; i < nob; i++) mu += b->V[(size_t)i * b->npool + c] * beta[i];
        double var = 1 - b->vv[c], sd = var > 1e-12 ? sqrt(var) : 1e-6;
        double imp = ybest - mu - BO_XI, z = imp / sd;
        double ei = imp * norm_cdf(z) + sd * exp(-0.5 * z * z) / sqrt(2 * M_PI);
        if (ei > top) top = ei, pick = p, pm = mu, ps = sd;
    }
    free(beta);
    if (pick < 0) return -1;
    if (local) {
        snprintf(why, n, "bayes: of the points %d param%s from the best (step %d), the one predicted best (%+.2f sd)",
                 near, near == 1 ? "" : "s", r->step[r->best], pm);
        return pick;
    }
    snprintf(why, n, "bayes: most expected improvement (%.3g sd; predicted %+.2f sd from the mean, +-%.2f)", top, pm, ps);
    return pick;
}

static void bo_tell(search_run *r, int point, search_outcome o, double y)
{
    (void)y;
    bo_state *b = r->impl;
    if (o == SEARCH_INVALID) return;
    if (b->nfit && add_row(b, point)) { /* (before the first fit, the fit builds the factor) */
        grow(b, b->nobs + 1);
        b->obs[b->nobs++] = point;
        rebuild(r, b);
    } else if (!b->nfit) {
        grow(b, b->nobs + 1);
        b->obs[b->nobs++] = point;
    }
}

const search_strategy search_bayes = {"bayes", "a Gaussian process of the log objective, the next point of most expected improvement",
                                  bo_new, {bo_next, bo_tell, bo_free}};
