#include "runner/config/cfg_op.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/ops/registry_lookup.h"

/* A name of the declaration: an identifier a kernel's C can also use, not one the expressions give a meaning. */
static int check_name(cfg_node_ctx *c, yaml_node_t *at, const char *field, const char *what, const char *name)
{
    int ok = *name && !isdigit((unsigned char)*name) && strlen(name) <= 64;
    for (const char *s = name; ok && *s; s++) ok = isalnum((unsigned char)*s) || *s == '_';
    if (!ok) return cfg_node_fail(c, at, field, "'%s': %s name is letters, digits and _ (not first a digit, at most 64)",
                              name, what);
    for (int i = 0; i < EXPR_NDEVICE; i++)
        if (!strcmp(name, expr_device_names[i])) return cfg_node_fail(c, at, field, "'%s' is a device fact's name", name);
    if (!strcmp(name, "ceil_div") || !strcmp(name, "min") || !strcmp(name, "max") || !strncmp(name, "TL_", 3))
        return cfg_node_fail(c, at, field, "'%s' is a name the runner keeps (ceil_div, min, max, TL_...)", name);
    return 0;
}

/* An expression of the axes (a count, a scalar, the work): never of the device, since a problem is the same on
 * every GPU. */
static int axes_expr(cfg_node_ctx *c, yaml_node_t *n, const char *field, const dop *d, decl_expr *out)
{
    expr_scope axes = {NULL, 0, (const char *const *)d->axes, d->naxes};
    if (cfg_node_expr(c, n, field, &axes, out)) return -1;
    if (!out->x.uses_device) return 0;
    expr_free(&out->x);
    memset(out, 0, sizeof *out);
    return cfg_node_fail(c, n, field, "'%s' names a device fact: a problem is the same on every GPU", cfg_node_scalar(n));
}

/* Whether name is already an axis, buffer or scalar of d: what it is, or NULL. */
static const char *taken(const dop *d, const char *name)
{
    for (int a = 0; a < d->naxes; a++)
        if (!strcmp(d->axes[a], name)) return "an axis";
    for (int b = 0; b < d->nbuffers; b++)
        if (!strcmp(d->buffers[b].name, name)) return "a buffer";
    for (int k = 0; k < d->nscalars; k++)
        if (!strcmp(d->scalars[k].name, name)) return "a scalar";
    return NULL;
}

static int parse_axes(cfg_node_ctx *c, yaml_node_t *n, dop *d)
{
    if (cfg_node_expect(c, n, YAML_SEQUENCE_NODE, "op.axes")) return -1;
    int k = cfg_node_count(n);
    if (k < 1 || k > REG_MAX_AXES) return cfg_node_fail(c, n, "op.axes", "expected 1 to %d axis names, got %d", REG_MAX_AXES, k);
    for (int a = 0; a < k; a++) {
        yaml_node_t *an = cfg_node_item(c, n, a);
        char f[32];
        snprintf(f, sizeof f, "op.axes[%d]", a);
        if (cfg_node_expect(c, an, YAML_SCALAR_NODE, f) || check_name(c, an, f, "an axis", cfg_node_scalar(an))) return -1;
        if (taken(d, cfg_node_scalar(an))) return cfg_node_fail(c, an, f, "axis '%s' is named twice", cfg_node_scalar(an));
        d->axes[d->naxes++] = tl_xstrdup(cfg_node_scalar(an));
    }
    return 0;
}

/* ---- a buffer's init ------------------------------------------------------------------------ */

/* A number of the init that must fit the buffer's type (and be an integer for integer types). */
static int init_number(cfg_node_ctx *c, yaml_node_t *n, const char *field, dop_type t, int integral, double *out)
{
    const dop_type_info *ti = &dop_types[t];
    if (cfg_node_double(c, n, field, -INFINITY, INFINITY, out)) return -1;
    if ((integral || !ti->is_float) && *out != floor(*out))
        return cfg_node_fail(c, n, field, "%g is not an integer (%s)", *out, integral ? "an integer init" : ti->name);
    if (*out < ti->lo || *out > ti->hi)
        return cfg_node_fail(c, n, field, "%.17g does not fit %s (%.17g .. %.17g)", *out, ti->name, ti->lo, ti->hi);
    return 0;
}

/* The two numbers of {uniform: {lo, hi}}, {normal: {mean, std}}, {ints: {lo, hi}}, {sequence: {start, step}}. */
static int init_pair(cfg_node_ctx *c, yaml_node_t *n, const char *field, const char *ka, const char *kb, dop_type t,
                     int integral, dop_init *in)
{
    const char *keys[] = {ka, kb, NULL};
    cfg_node_pair pr[2];
    int np;
    char f[96];
    if (cfg_node_pairs(c, n, field, keys, pr, 2, &np)) return -1;
    yaml_node_t *a = cfg_node_find(pr, np, ka), *b = cfg_node_find(pr, np, kb);
    if ((!a || !b) && in->kind == DOP_INTS) return cfg_node_fail(c, n, field, "expected {%s: ..., %s: ...}", ka, kb);
    snprintf(f, sizeof f, "%s.%s", field, ka);
    if (a && init_number(c, a, f, t, integral, &in->a)) return -1;
    snprintf(f, sizeof f, "%s.%s", field, kb);
    if (!b) return 0; /* the kind's default (parse_init sets it) */
    if (in->kind == DOP_SEQUENCE || in->kind == DOP_NORMAL) /* a step or a spread, not a value of the type */
        return cfg_node_double(c, b, f, -INFINITY, INFINITY, &in->b) ? -1
               : integral && in->b != floor(in->b) ? cfg_node_fail(c, b, f, "%g is not an integer", in->b)
               : in->kind == DOP_NORMAL && !(in->b > 0) ? cfg_node_fail(c, b, f, "a standard deviation is positive") : 0;
    if (init_number(c, b, f, t, integral, &in->b)) return -1;
    if (in->a > in->b || (in->kind == DOP_UNIFORM && in->a == in->b))
        return cfg_node_fail(c, n, field, "%s %g is not below %s %g", ka, in->a, kb, in->b);
    return 0;
}

/* {file: PATH} (a .npy) or {file: {path: PATH, dataset: NAME}} (an HDF5 dataset), read through the store: inside
 * the experiment's folder, carried in the result file; its type checked here, its count per problem (dop_check). */
static int parse_file(cfg_node_ctx *c, yaml_node_t *at, yaml_node_t *arg, const char *field, dop_buffer *b)
{
    static const char *const keys[] = {"path", "dataset", NULL};
    dop_file *f = &b->file;
    yaml_node_t *pn = arg, *dn = NULL;
    char fp[160], fd[160], why[512];
    snprintf(fp, sizeof fp, "%s.path", field), snprintf(fd, sizeof fd, "%s.dataset", field);
    if (!arg) return cfg_node_fail(c, at, field, "file needs a path: {file: x.npy} or {file: {path: x.h5, dataset: /x}}");
    if (arg->type == YAML_MAPPING_NODE) {
        cfg_node_pair pr[2];
        int np;
        if (cfg_node_pairs(c, arg, field, keys, pr, 2, &np)) return -1;
        pn = cfg_node_find(pr, np, "path"), dn = cfg_node_find(pr, np, "dataset");
        if (!pn) return cfg_node_fail(c, arg, field, "file needs `path:`");
    }
    if (cfg_node_expect(c, pn, YAML_SCALAR_NODE, fp) || (dn && cfg_node_expect(c, dn, YAML_SCALAR_NODE, fd))) return -1;
    const char *path = cfg_node_scalar(pn), *dot = strrchr(path, '.');
    int h5 = dot && (!strcmp(dot, ".h5") || !strcmp(dot, ".hdf5") || !strcmp(dot, ".hdf"));
    if (!h5 && (!dot || strcmp(dot, ".npy")))
        return cfg_node_fail(c, pn, fp, "'%s': a data file is a .npy, or an HDF5 file (.h5, .hdf5) with `dataset:`", path);
    if (h5 && !dn) return cfg_node_fail(c, pn, field, "'%s' is an HDF5 file: name its dataset, {file: {path: %s, dataset: "
                                                  "NAME}}", path, path);
    if (!h5 && dn) return cfg_node_fail(c, dn, fd, "a .npy file holds one array: `dataset:` belongs to HDF5 files");
    if (!c->store) return cfg_node_fail(c, pn, fp, "no experiment folder to read '%s' from", path);
    tl_err re;
    int idx = source_read_data(c->store, path, &re);
    if (idx < 0) return cfg_node_fail(c, pn, fp, "%s", re.msg);
    f->path = tl_xstrdup(path);
    f->dataset = dn ? tl_xstrdup(cfg_node_scalar(dn)) : NULL;
    f->line = (int)pn->start_mark.line + 1, f->col = (int)pn->start_mark.column + 1;
    snprintf(f->field, sizeof f->field, "%s", fp);
    const source_file *sf = &c->store->files[idx];
    if (dop_file_decode(f, (int)b->type, dop_types[b->type].size, sf->text, sf->len, why, sizeof why))
        return cfg_node_fail(c, dn ? dn : pn, dn ? fd : fp, "%s: %s", path, why);
    return 0;
}

static int parse_init(cfg_node_ctx *c, yaml_node_t *n, const char *field, dop_buffer *b)
{
    dop_type t = b->type;
    dop_init *in = &b->init;
    int is_float = dop_types[t].is_float;
    yaml_node_t *arg = NULL, *at = n;
    const char *kind;
    if (n->type == YAML_SCALAR_NODE) {
        kind = cfg_node_scalar(n);
    } else {
        cfg_node_pair pr[1];
        int np;
        if (n->type != YAML_MAPPING_NODE || n->data.mapping.pairs.top - n->data.mapping.pairs.start != 1)
            return cfg_node_fail(c, n, field, "expected one of uniform, normal, ints, constant, sequence, permutation, file, "
                                          "e.g. {normal: {mean: 0, std: 1}}");
        if (cfg_node_pairs(c, n, field, NULL, pr, 1, &np)) return -1;
        kind = pr[0].key, arg = pr[0].value;
    }
    int k = 0;
    while (k < DOP_NINITS && strcmp(kind, dop_init_names[k])) k++;
    if (k == DOP_NINITS)
        return cfg_node_fail(c, at, field, "'%s' is not an init (uniform, normal, ints, constant, sequence, permutation, "
                                       "file)", kind);
    in->kind = (dop_init_kind)k;
    char f[96];
    snprintf(f, sizeof f, "%s.%s", field, kind);
    if (k == DOP_FILE) return parse_file(c, at, arg, f, b);
    if ((k == DOP_UNIFORM || k == DOP_NORMAL) && !is_float)
        return cfg_node_fail(c, at, field, "%s makes fractions: an integer buffer (%s) takes ints, constant, sequence or "
                                       "permutation", kind, dop_types[t].name);
    if (k == DOP_PERMUTATION && is_float)
        return cfg_node_fail(c, at, field, "a permutation makes indices: it needs an integer type, not %s", dop_types[t].name);
    switch (in->kind) {
    case DOP_UNIFORM:
        in->a = -1, in->b = 1;
        return arg ? init_pair(c, arg, f, "lo", "hi", t, 0, in) : 0;
    case DOP_NORMAL:
        in->a = 0, in->b = 1;
        return arg ? init_pair(c, arg, f, "mean", "std", t, 0, in) : 0;
    case DOP_INTS:
        if (!arg) return cfg_node_fail(c, at, field, "ints needs {lo: ..., hi: ...}");
        return init_pair(c, arg, f, "lo", "hi", t, 1, in);
    case DOP_CONSTANT:
        if (!arg) return cfg_node_fail(c, at, field, "constant needs its value: {constant: 1.5}");
        return init_number(c, arg, f, t, 0, &in->a);
    case DOP_SEQUENCE:
        in->a = 0, in->b = 1;
        return arg ? init_pair(c, arg, f, "start", "step", t, !is_float, in) : 0;
    default:
        if (arg && (arg->type != YAML_MAPPING_NODE || arg->data.mapping.pairs.top != arg->data.mapping.pairs.start))
            return cfg_node_fail(c, arg, f, "a permutation takes nothing: write `init: permutation`");
        return 0;
    }
}

/* ---- buffers, scalars, signature -------------------------------------------------------------- */

static int parse_tol(cfg_node_ctx *c, yaml_node_t *n, const char *field, reg_tolerance *t)
{
    static const char *const keys[] = {"rtol", "atol", NULL};
    cfg_node_pair pr[2];
    int np;
    char f[96];
    if (cfg_node_pairs(c, n, field, keys, pr, 2, &np)) return -1;
    t->rtol = t->atol = 0;
    for (int i = 0; i < np; i++) {
        snprintf(f, sizeof f, "%s.%s", field, pr[i].key);
        if (cfg_node_double(c, pr[i].value, f, 0, 1e30, !strcmp(pr[i].key, "rtol") ? &t->rtol : &t->atol)) return -1;
    }
    return 0;
}

static int parse_buffer(cfg_node_ctx *c, const char *name, yaml_node_t *kn, yaml_node_t *n, dop *d)
{
    static const char *const keys[] = {"type", "count", "init", "out", "inout", "tolerance", NULL};
    char field[96], f[128];
    snprintf(field, sizeof field, "op.buffers.%s", name);
    if (check_name(c, kn, field, "a buffer", name)) return -1;
    const char *what = taken(d, name);
    if (what) return cfg_node_fail(c, kn, field, "'%s' is already %s", name, what);
    if (d->nbuffers == DOP_MAX_BUFFERS) return cfg_node_fail(c, kn, field, "more than %d buffers", DOP_MAX_BUFFERS);
    cfg_node_pair pr[6];
    int np, out = 0, inout = 0;
    if (n->type != YAML_MAPPING_NODE)
        return cfg_node_fail(c, n, field, "expected {type: f32, count: \"...\", init: ...} (or out: true), got %s",
                         cfg_node_kind_name(n));
    if (cfg_node_pairs(c, n, field, keys, pr, 6, &np)) return -1;
    yaml_node_t *type = cfg_node_find(pr, np, "type"), *count = cfg_node_find(pr, np, "count"), *init = cfg_node_find(pr, np, "init");
    yaml_node_t *outn = cfg_node_find(pr, np, "out"), *inoutn = cfg_node_find(pr, np, "inout"), *tol = cfg_node_find(pr, np, "tolerance");
    if (!type || !count) return cfg_node_fail(c, n, field, "a buffer needs `type:` and `count:`");
    dop_buffer *b = &d->buffers[d->nbuffers];
    snprintf(f, sizeof f, "%s.type", field);
    if (cfg_node_expect(c, type, YAML_SCALAR_NODE, f)) return -1;
    int t = dop_find_type(cfg_node_scalar(type));
    if (t < 0) return cfg_node_fail(c, type, f, "'%s' is not an element type (f32, f64, f16, bf16, i8, u8, i16, u16, i32, "
                                            "u32, i64, u64)", cfg_node_scalar(type));
    snprintf(f, sizeof f, "%s.out", field);
    if (outn && cfg_node_bool(c, outn, f, &out)) return -1;
    snprintf(f, sizeof f, "%s.inout", field);
    if (inoutn && cfg_node_bool(c, inoutn, f, &inout)) return -1;
    if (out && inout) return cfg_node_fail(c, inoutn, field, "a buffer is out or inout, not both");
    if (out && init)
        return cfg_node_fail(c, init, field, "an out buffer is poisoned before the verified run; `init:` belongs to inputs "
                                         "and inout buffers");
    if (tol && !out && !inout) return cfg_node_fail(c, tol, field, "tolerance: belongs to a buffer that is checked (out or inout)");
    if (tol && !dop_types[t].is_float)
        return cfg_node_fail(c, tol, field, "tolerance: an integer buffer is checked exactly (%s)", dop_types[t].name);
    b->name = tl_xstrdup(name);
    d->nbuffers++;
    b->type = (dop_type)t;
    b->role = out ? DOP_OUT : inout ? DOP_INOUT : DOP_IN;
    b->stream = 0xcbf29ce484222325ULL; /* FNV-1a of the name: every buffer its own stream */
    for (const char *s = name; *s; s++) b->stream = (b->stream ^ (unsigned char)*s) * 0x100000001b3ULL;
    snprintf(f, sizeof f, "%s.count", field);
    if (axes_expr(c, count, f, d, &b->count)) return -1;
    b->init = dop_types[t].is_float ? (dop_init){DOP_UNIFORM, -1, 1} : (dop_init){DOP_INTS, 0, 9};
    snprintf(f, sizeof f, "%s.init", field);
    if (init && parse_init(c, init, f, b)) return -1;
    snprintf(f, sizeof f, "%s.tolerance", field);
    if (tol && parse_tol(c, tol, f, &b->tol)) return -1;
    b->tol_given = tol != NULL;
    return 0;
}

static int parse_buffers(cfg_node_ctx *c, yaml_node_t *n, dop *d)
{
    if (cfg_node_expect(c, n, YAML_MAPPING_NODE, "op.buffers")) return -1;
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        yaml_node_t *kn = cfg_node_node(c, p->key);
        if (kn->type != YAML_SCALAR_NODE) return cfg_node_fail(c, kn, "op.buffers", "keys must be plain names");
        if (parse_buffer(c, cfg_node_scalar(kn), kn, cfg_node_node(c, p->value), d)) return -1;
    }
    int checked = 0;
    for (int b = 0; b < d->nbuffers; b++) checked += d->buffers[b].role != DOP_IN;
    if (!checked) return cfg_node_fail(c, n, "op.buffers", "no buffer is `out: true` or `inout: true`: the verified run "
                                                      "checks those against the reference");
    return 0;
}

static int parse_scalar(cfg_node_ctx *c, const char *name, yaml_node_t *kn, yaml_node_t *n, dop *d)
{
    static const char *const keys[] = {"type", "value", NULL};
    static const char *const types[] = {"f32", "f64", "i32", "i64"}; /* DOP_F32 .. DOP_I64 */
    char field[96], f[128];
    snprintf(field, sizeof field, "op.scalars.%s", name);
    if (check_name(c, kn, field, "a scalar", name)) return -1;
    const char *what = taken(d, name);
    if (what) return cfg_node_fail(c, kn, field, "'%s' is already %s", name, what);
    if (d->nscalars == DOP_MAX_SCALARS) return cfg_node_fail(c, kn, field, "more than %d scalars", DOP_MAX_SCALARS);
    cfg_node_pair pr[2];
    int np, t;
    if (cfg_node_pairs(c, n, field, keys, pr, 2, &np)) return -1;
    yaml_node_t *type = cfg_node_find(pr, np, "type"), *value = cfg_node_find(pr, np, "value");
    if (!type || !value) return cfg_node_fail(c, n, field, "a scalar needs `type:` (f32, f64, i32, i64) and `value:`");
    snprintf(f, sizeof f, "%s.type", field);
    if (cfg_node_choice(c, type, f, types, DOP_NSCALAR_TYPES, &t)) return -1;
    dop_scalar *s = &d->scalars[d->nscalars];
    s->name = tl_xstrdup(name);
    d->nscalars++;
    s->type = (dop_type)t;
    snprintf(f, sizeof f, "%s.value", field);
    if (dop_types[t].is_float) return cfg_node_double(c, value, f, -dop_types[t].hi, dop_types[t].hi, &s->number);
    if (axes_expr(c, value, f, d, &s->value)) return -1;
    s->is_expr = 1;
    return 0;
}

static int parse_scalars(cfg_node_ctx *c, yaml_node_t *n, dop *d)
{
    if (cfg_node_expect(c, n, YAML_MAPPING_NODE, "op.scalars")) return -1;
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        yaml_node_t *kn = cfg_node_node(c, p->key);
        if (kn->type != YAML_SCALAR_NODE) return cfg_node_fail(c, kn, "op.scalars", "keys must be plain names");
        if (parse_scalar(c, cfg_node_scalar(kn), kn, cfg_node_node(c, p->value), d)) return -1;
    }
    return 0;
}

static int parse_signature(cfg_node_ctx *c, yaml_node_t *n, dop *d)
{
    if (cfg_node_expect(c, n, YAML_SEQUENCE_NODE, "op.signature")) return -1;
    int k = cfg_node_count(n);
    if (k < 1 || k > DOP_MAX_ARGS) return cfg_node_fail(c, n, "op.signature", "expected 1 to %d names, got %d", DOP_MAX_ARGS, k);
    int used[DOP_MAX_BUFFERS] = {0};
    for (int i = 0; i < k; i++) {
        yaml_node_t *an = cfg_node_item(c, n, i);
        char f[32];
        snprintf(f, sizeof f, "op.signature[%d]", i);
        if (cfg_node_expect(c, an, YAML_SCALAR_NODE, f)) return -1;
        const char *name = cfg_node_scalar(an);
        dop_arg a = {DOP_ARG_BUFFER, -1};
        for (int b = 0; b < d->nbuffers && a.index < 0; b++)
            if (!strcmp(d->buffers[b].name, name)) a = (dop_arg){DOP_ARG_BUFFER, b};
        for (int x = 0; x < d->naxes && a.index < 0; x++)
            if (!strcmp(d->axes[x], name)) a = (dop_arg){DOP_ARG_AXIS, x};
        for (int s = 0; s < d->nscalars && a.index < 0; s++)
            if (!strcmp(d->scalars[s].name, name)) a = (dop_arg){DOP_ARG_SCALAR, s};
        if (a.index < 0) return cfg_node_fail(c, an, f, "'%s' is not a buffer, axis or scalar of the op", name);
        for (int j = 0; j < d->nargs; j++)
            if (d->args[j].kind == a.kind && d->args[j].index == a.index)
                return cfg_node_fail(c, an, f, "'%s' is in the signature twice", name);
        if (a.kind == DOP_ARG_BUFFER) used[a.index] = 1;
        d->args[d->nargs++] = a;
    }
    for (int b = 0; b < d->nbuffers; b++)
        if (!used[b]) return cfg_node_fail(c, n, "op.signature", "buffer '%s' is not in it: no kernel could reach it",
                                       d->buffers[b].name);
    for (int k = 0; k < d->nscalars; k++) {
        int in = 0;
        for (int j = 0; j < d->nargs; j++) in |= d->args[j].kind == DOP_ARG_SCALAR && d->args[j].index == k;
        if (!in) return cfg_node_fail(c, n, "op.signature", "scalar '%s' is not in it: no kernel could read it",
                                  d->scalars[k].name);
    }
    return 0;
}

static int parse_work(cfg_node_ctx *c, yaml_node_t *n, dop *d)
{
    static const char *const keys[] = {"flop", "bytes", "rate", NULL};
    static const char *const rates[] = {"GB/s", "GFLOP/s"};
    cfg_node_pair pr[3];
    int np, r;
    if (cfg_node_pairs(c, n, "op.work", keys, pr, 3, &np)) return -1;
    yaml_node_t *flop = cfg_node_find(pr, np, "flop"), *bytes = cfg_node_find(pr, np, "bytes"), *rate = cfg_node_find(pr, np, "rate");
    if (flop && axes_expr(c, flop, "op.work.flop", d, &d->flop)) return -1;
    d->has_flop = flop != NULL;
    if (bytes && axes_expr(c, bytes, "op.work.bytes", d, &d->bytes)) return -1;
    d->has_bytes = bytes != NULL;
    if (rate) {
        if (cfg_node_choice(c, rate, "op.work.rate", rates, 2, &r)) return -1;
        if (r == 1 && !flop) return cfg_node_fail(c, rate, "op.work.rate", "GFLOP/s needs `flop:`");
        d->rate = tl_xstrdup(rates[r]);
    }
    return 0;
}

int cfg_op_parse(cfg_node_ctx *c, yaml_node_t *n, dop **out)
{
    static const char *const keys[] = {"name", "axes", "buffers", "scalars", "signature", "work", "reference",
                                       "tolerance", NULL};
    static const char *const required[] = {"name", "axes", "buffers", "signature", "reference"};
    cfg_node_pair pr[8];
    int np;
    *out = NULL;
    if (cfg_node_pairs(c, n, "op", keys, pr, 8, &np)) return -1;
    for (size_t i = 0; i < sizeof required / sizeof *required; i++)
        if (!cfg_node_find(pr, np, required[i]))
            return cfg_node_fail(c, n, "op", "a declared op needs `%s:` (name, axes, buffers, signature, reference; "
                                         "scalars, work and tolerance are optional)", required[i]);
    dop *d = tl_xcalloc(1, sizeof *d);
    d->path = c->path;
    d->tol = (reg_tolerance){1e-5, 1e-6};
    yaml_node_t *name = cfg_node_find(pr, np, "name"), *ref = cfg_node_find(pr, np, "reference"), *v;
    if (cfg_node_expect(c, name, YAML_SCALAR_NODE, "op.name") || check_name(c, name, "op.name", "an op", cfg_node_scalar(name)))
        goto fail;
    d->name = tl_xstrdup(cfg_node_scalar(name));
    if (reg_find_op(d->name)) {
        cfg_node_fail(c, name, "op.name", "'%s' is a registered op: a declared op needs a name of its own", d->name);
        goto fail;
    }
    if (parse_axes(c, cfg_node_find(pr, np, "axes"), d) || parse_buffers(c, cfg_node_find(pr, np, "buffers"), d)) goto fail;
    if ((v = cfg_node_find(pr, np, "scalars")) && parse_scalars(c, v, d)) goto fail;
    if (parse_signature(c, cfg_node_find(pr, np, "signature"), d)) goto fail;
    if ((v = cfg_node_find(pr, np, "work")) && parse_work(c, v, d)) goto fail;
    if (!d->rate) d->rate = tl_xstrdup(d->has_flop ? "GFLOP/s" : "GB/s");
    if ((v = cfg_node_find(pr, np, "tolerance")) && parse_tol(c, v, "op.tolerance", &d->tol)) goto fail;
    if (cfg_node_expect(c, ref, YAML_SCALAR_NODE, "op.reference")) goto fail;
    d->reference = tl_xstrdup(cfg_node_scalar(ref));
    d->reference_line = (int)ref->start_mark.line + 1, d->reference_col = (int)ref->start_mark.column + 1;
    dop_finish(d);
    *out = d;
    return 0;
fail:
    dop_free(d);
    return -1;
}

/* ---- library variants ----------------------------------------------------------------------- */

static int library_buffer(cfg_node_ctx *c, yaml_node_t *n, const char *f, const dlib_fn *fn, int a, const dop *d,
                          dlib_call *call)
{
    if (cfg_node_expect(c, n, YAML_SCALAR_NODE, f)) return -1;
    int b = 0;
    while (b < d->nbuffers && strcmp(d->buffers[b].name, cfg_node_scalar(n))) b++;
    if (b == d->nbuffers) return cfg_node_fail(c, n, f, "'%s' is not a buffer of op %s", cfg_node_scalar(n), d->name);
    const dop_buffer *bf = &d->buffers[b];
    if (fn->args[a].role == DLIB_OUT && bf->role == DOP_IN)
        return cfg_node_fail(c, n, f, "%s writes %s, and '%s' is an input: it needs `out: true` or `inout: true`", fn->name,
                         fn->args[a].name, bf->name);
    if (fn->args[a].role == DLIB_IN && bf->role == DOP_OUT)
        return cfg_node_fail(c, n, f, "%s reads %s, and '%s' is an output (poisoned before the run)", fn->name,
                         fn->args[a].name, bf->name);
    int want = fn->same_type ? -1 : fn->args[a].role == DLIB_OUT ? fn->out_type : -1;
    if (want >= 0 && (int)bf->type != want)
        return cfg_node_fail(c, n, f, "%s's %s is %s, and '%s' is %s", fn->name, fn->args[a].name, dop_types[want].name,
                         bf->name, dop_types[bf->type].name);
    if (want < 0 && !(fn->types & (1u << bf->type))) {
        char list[256] = "";
        for (int t = 0; t < DOP_NTYPES; t++)
            if (fn->types & (1u << t)) snprintf(list + strlen(list), sizeof list - strlen(list), " %s", dop_types[t].name);
        return cfg_node_fail(c, n, f, "%s takes%s; '%s' is %s", fn->name, list, bf->name, dop_types[bf->type].name);
    }
    call->buffer[a] = b;
    return 0;
}

int cfg_op_library(cfg_node_ctx *c, yaml_node_t *lib, yaml_node_t *args, const char *field, const dop *d, dlib_call **out)
{
    char f[128];
    *out = NULL;
    snprintf(f, sizeof f, "%s.library", field);
    if (cfg_node_expect(c, lib, YAML_SCALAR_NODE, f)) return -1;
    const dlib_fn *fn = dlib_find(cfg_node_scalar(lib));
    if (!fn) {
        char list[512] = "";
        for (int i = 0; i < dlib_nfns; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", dlib_fns[i].name);
        return cfg_node_fail(c, lib, f, "'%s' is not a library call (%s)", cfg_node_scalar(lib), list);
    }
    if (!args) return cfg_node_fail(c, lib, field, "a library variant needs `args:`, its arguments mapped to the op's");
    const char *keys[DLIB_MAX_ARGS + 1] = {0};
    for (int a = 0; a < fn->nargs; a++) keys[a] = fn->args[a].name;
    cfg_node_pair pr[DLIB_MAX_ARGS];
    int np;
    snprintf(f, sizeof f, "%s.args", field);
    if (cfg_node_pairs(c, args, f, keys, pr, DLIB_MAX_ARGS, &np)) return -1;
    dlib_call *call = tl_xcalloc(1, sizeof *call);
    call->fn = fn, call->d = d;
    expr_scope axes = {NULL, 0, (const char *const *)d->axes, d->naxes};
    int first = -1;
    for (int a = 0; a < fn->nargs; a++) {
        yaml_node_t *v = cfg_node_find(pr, np, fn->args[a].name);
        char fa[160];
        snprintf(fa, sizeof fa, "%s.args.%s", field, fn->args[a].name);
        if (!v) {
            cfg_node_fail(c, args, f, "%s needs %s (%s)", fn->name, fn->args[a].name, fn->args[a].doc);
            goto fail;
        }
        if (fn->args[a].role == DLIB_VALUE ? cfg_node_expr(c, v, fa, &axes, &call->value[a])
                                           : library_buffer(c, v, fa, fn, a, d, call))
            goto fail;
        if (fn->args[a].role == DLIB_VALUE && call->value[a].x.uses_device) {
            cfg_node_fail(c, v, fa, "'%s' names a device fact: a problem is the same on every GPU", cfg_node_scalar(v));
            goto fail;
        }
        if (fn->args[a].role == DLIB_VALUE || !fn->same_type) continue;
        if (first < 0) first = a;
        else if (d->buffers[call->buffer[a]].type != d->buffers[call->buffer[first]].type) {
            cfg_node_fail(c, v, fa, "%s takes one type: '%s' is %s, '%s' %s", fn->name, d->buffers[call->buffer[a]].name,
                      dop_types[d->buffers[call->buffer[a]].type].name, d->buffers[call->buffer[first]].name,
                      dop_types[d->buffers[call->buffer[first]].type].name);
            goto fail;
        }
    }
    *out = call;
    return 0;
fail:
    dlib_call_free(call);
    return -1;
}
