#include "runner/config/cfg_values.h"

#include <stdlib.h>
#include <string.h>

static void push_value(long **vals, int *n, long v)
{
    *vals = realloc(*vals, sizeof **vals * (size_t)(*n + 1));
    if (!*vals) abort();
    (*vals)[(*n)++] = v;
}

int cfg_values_parse(cfg_node_ctx *c, yaml_node_t *n, const char *field, long lo, long hi, long **vals, int *nvals)
{
    long v;
    *vals = NULL;
    *nvals = 0;
    if (n->type == YAML_SCALAR_NODE) {
        if (cfg_node_int(c, n, field, lo, hi, &v)) return -1;
        push_value(vals, nvals, v);
        return 0;
    }
    if (n->type == YAML_SEQUENCE_NODE) {
        if (n->data.sequence.items.top == n->data.sequence.items.start)
            return cfg_node_fail(c, n, field, "the list is empty");
        for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
            if (cfg_node_int(c, cfg_node_node(c, *it), field, lo, hi, &v)) goto fail;
            push_value(vals, nvals, v);
        }
        return 0;
    }
    static const char *const forms[] = {"pow2", "range", NULL};
    cfg_node_pair pr[2];
    int np;
    if (cfg_node_pairs(c, n, field, forms, pr, 2, &np)) return -1;
    if (np != 1) return cfg_node_fail(c, n, field, "expected one of {pow2: [lo, hi]} or {range: [start, stop, step]}");
    yaml_node_t *seq = pr[0].value;
    int is_pow2 = !strcmp(pr[0].key, "pow2");
    int want = is_pow2 ? 2 : 3;
    if (cfg_node_expect(c, seq, YAML_SEQUENCE_NODE, field)) return -1;
    long a[3];
    int got = (int)(seq->data.sequence.items.top - seq->data.sequence.items.start);
    if (got != want)
        return cfg_node_fail(c, seq, field, "%s takes %d numbers, got %d", pr[0].key, want, got);
    for (int i = 0; i < want; i++) {
        /* A range's step is checked below, with its own message. */
        long ilo = is_pow2 ? 0 : i == 2 ? -(1L << 62) : lo, ihi = is_pow2 ? 62 : i == 2 ? (1L << 62) : hi;
        if (cfg_node_int(c, cfg_node_node(c, seq->data.sequence.items.start[i]), field, ilo, ihi, &a[i])) return -1;
    }
    if (is_pow2) {
        if (a[0] > a[1]) return cfg_node_fail(c, seq, field, "pow2: lo %ld is above hi %ld", a[0], a[1]);
        for (long e = a[0]; e <= a[1]; e++) {
            long p = 1L << e;
            if (p < lo || p > hi) {
                cfg_node_fail(c, seq, field, "2^%ld = %ld is out of range [%ld, %ld]", e, p, lo, hi);
                goto fail;
            }
            push_value(vals, nvals, p);
        }
        return 0;
    }
    if (a[2] <= 0) return cfg_node_fail(c, seq, field, "range: step must be positive, got %ld", a[2]);
    if (a[0] > a[1]) return cfg_node_fail(c, seq, field, "range: start %ld is above stop %ld", a[0], a[1]);
    if ((a[1] - a[0]) / a[2] >= CFG_MAX_VALUES)
        return cfg_node_fail(c, seq, field, "range expands to more than %d values", CFG_MAX_VALUES);
    for (long x = a[0]; x <= a[1]; x += a[2]) push_value(vals, nvals, x);
    return 0;
fail:
    free(*vals);
    *vals = NULL;
    *nvals = 0;
    return -1;
}

/* ---- sizes ---------------------------------------------------------------------------------- */

#define AXIS_MAX 2147483647L /* kernels take int sizes */

typedef struct {
    int axes[REG_MAX_AXES]; /* op axis indices this factor sets */
    int naxes;
    long *vals[REG_MAX_AXES]; /* per axis: values (zip) or one shared list (tied) */
    int nvals;
} size_factor;

/* "mnk" ties the single-letter axes m, n and k; an exact axis name sets that axis. */
static int axes_of_key(cfg_node_ctx *c, yaml_node_t *kn, const char *key, const reg_op *op, int *axes,
                       int *naxes, int *seen)
{
    int a = reg_find_axis(op, key);
    *naxes = 0;
    if (a >= 0) {
        axes[(*naxes)++] = a;
    } else {
        for (const char *p = key; *p; p++) {
            char one[2] = {*p, 0};
            int b = reg_find_axis(op, one);
            if (b < 0 || *naxes == REG_MAX_AXES) {
                char list[128] = "";
                for (int i = 0; i < op->naxes; i++)
                    snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", op->axes[i]);
                return cfg_node_fail(c, kn, "sizes", "'%s' is not an axis of %s (axes: %s; 'mnk' ties m, n and k)",
                               key, op->name, list);
            }
            axes[(*naxes)++] = b;
        }
    }
    for (int i = 0; i < *naxes; i++) {
        if (seen[axes[i]]) return cfg_node_fail(c, kn, "sizes", "axis '%s' is given twice", op->axes[axes[i]]);
        seen[axes[i]] = 1;
    }
    return 0;
}

static void push_size(tl_experiment *x, const int64_t *dims)
{
    x->sizes = realloc(x->sizes, sizeof *x->sizes * (size_t)(x->nsizes + 1));
    if (!x->sizes) abort();
    memcpy(x->sizes[x->nsizes++].dims, dims, sizeof x->sizes[0].dims);
}

static void factors_free(size_factor *f, int nf)
{
    for (int i = 0; i < nf; i++)
        for (int j = 0; j < REG_MAX_AXES; j++) free(f[i].vals[j]);
}

static int parse_zip(cfg_node_ctx *c, yaml_node_t *n, const reg_op *op, int *seen, size_factor *f)
{
    cfg_node_pair pr[REG_MAX_AXES];
    int np;
    if (cfg_node_pairs(c, n, "sizes.zip", NULL, pr, REG_MAX_AXES, &np)) return -1;
    if (np == 0) return cfg_node_fail(c, n, "sizes.zip", "zip needs at least one axis");
    f->naxes = 0;
    for (int i = 0; i < np; i++) {
        yaml_node_t *kn = NULL;
        for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++)
            if (cfg_node_node(c, p->value) == pr[i].value) kn = cfg_node_node(c, p->key);
        int axes[REG_MAX_AXES], na;
        if (axes_of_key(c, kn, pr[i].key, op, axes, &na, seen)) return -1;
        int nv;
        char field[64];
        snprintf(field, sizeof field, "sizes.zip.%s", pr[i].key);
        if (cfg_values_parse(c, pr[i].value, field, 1, AXIS_MAX, &f->vals[f->naxes], &nv)) return -1;
        if (i > 0 && nv != f->nvals)
            return cfg_node_fail(c, pr[i].value, field, "zip needs lists of one length: %d here, %d before", nv,
                           f->nvals);
        f->nvals = nv;
        for (int j = 0; j < na; j++) {
            f->axes[f->naxes] = axes[j];
            if (j > 0) {
                f->vals[f->naxes] = tl_xmalloc(sizeof(long) * (size_t)nv);
                memcpy(f->vals[f->naxes], f->vals[f->naxes - j], sizeof(long) * (size_t)nv);
            }
            f->naxes++;
        }
    }
    return 0;
}

/* A sizes mapping: the product of its factors (an axis, tied axes, or a zip). */
static int parse_sizes_mapping(cfg_node_ctx *c, yaml_node_t *n, tl_experiment *x)
{
    const reg_op *op = x->op;
    cfg_node_pair pr[REG_MAX_AXES + 1];
    int np, seen[REG_MAX_AXES] = {0};
    size_factor f[REG_MAX_AXES + 1];
    memset(f, 0, sizeof f);
    int nf = 0, rc = -1;
    if (cfg_node_pairs(c, n, "sizes", NULL, pr, REG_MAX_AXES + 1, &np)) return -1;
    yaml_node_pair_t *p = n->data.mapping.pairs.start;
    for (int i = 0; i < np; i++, p++) {
        size_factor *fi = &f[nf++];
        if (!strcmp(pr[i].key, "zip")) {
            if (parse_zip(c, pr[i].value, op, seen, fi)) goto out;
            continue;
        }
        int na;
        if (axes_of_key(c, cfg_node_node(c, p->key), pr[i].key, op, fi->axes, &na, seen)) goto out;
        char field[64];
        snprintf(field, sizeof field, "sizes.%s", pr[i].key);
        if (cfg_values_parse(c, pr[i].value, field, 1, AXIS_MAX, &fi->vals[0], &fi->nvals)) goto out;
        for (int j = 1; j < na; j++) {
            fi->vals[j] = tl_xmalloc(sizeof(long) * (size_t)fi->nvals);
            memcpy(fi->vals[j], fi->vals[0], sizeof(long) * (size_t)fi->nvals);
        }
        fi->naxes = na;
    }
    for (int a = 0; a < op->naxes; a++)
        if (!seen[a]) {
            cfg_node_fail(c, n, "sizes", "axis '%s' is not given", op->axes[a]);
            goto out;
        }
    /* Product over factors, the last factor varying fastest. */
    int idx[REG_MAX_AXES + 1] = {0};
    for (;;) {
        int64_t dims[REG_MAX_AXES] = {0};
        for (int i = 0; i < nf; i++)
            for (int j = 0; j < f[i].naxes; j++) dims[f[i].axes[j]] = f[i].vals[j][idx[i]];
        if (x->nsizes >= CFG_MAX_CASES) {
            cfg_node_fail(c, n, "sizes", "expands to more than %d sizes", CFG_MAX_CASES);
            goto out;
        }
        push_size(x, dims);
        int i = nf - 1;
        while (i >= 0 && ++idx[i] == f[i].nvals) idx[i--] = 0;
        if (i < 0) break;
    }
    rc = 0;
out:
    factors_free(f, nf);
    return rc;
}

int cfg_values_sizes(cfg_node_ctx *c, yaml_node_t *n, tl_experiment *x)
{
    if (n->type == YAML_MAPPING_NODE) return parse_sizes_mapping(c, n, x);
    if (n->type != YAML_SEQUENCE_NODE)
        return cfg_node_fail(c, n, "sizes", "expected a mapping of axes or a list of them, got %s", cfg_node_kind_name(n));
    if (n->data.sequence.items.top == n->data.sequence.items.start)
        return cfg_node_fail(c, n, "sizes", "the list is empty");
    for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
        yaml_node_t *item = cfg_node_node(c, *it);
        if (item->type != YAML_MAPPING_NODE)
            return cfg_node_fail(c, item, "sizes", "each list item must be a mapping of axes, like {m: 64, n: 64, k: 64}");
        if (parse_sizes_mapping(c, item, x)) return -1;
    }
    return 0;
}
