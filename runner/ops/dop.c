#include "runner/ops/dop.h"

#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/ops/data_gen.h"
#include "runner/ops/devdata.h"
#include "runner/ops/dop_gen.h"
#include "runner/util/cuda_check.h"

const dop_type_info dop_types[DOP_NTYPES] = {
    [DOP_F32] = {"f32", "float", 4, 1, -3.4028234663852886e38, 3.4028234663852886e38},
    [DOP_F64] = {"f64", "double", 8, 1, -1.7976931348623157e308, 1.7976931348623157e308},
    [DOP_I32] = {"i32", "int", 4, 0, -2147483648.0, 2147483647.0},
    [DOP_I64] = {"i64", "long long", 8, 0, -9223372036854775808.0, 9223372036854774784.0},
    [DOP_F16] = {"f16", "__half", 2, 1, -65504.0, 65504.0},
    [DOP_BF16] = {"bf16", "__nv_bfloat16", 2, 1, -3.3895313892515355e38, 3.3895313892515355e38},
    [DOP_I8] = {"i8", "signed char", 1, 0, -128.0, 127.0},
    [DOP_U8] = {"u8", "unsigned char", 1, 0, 0.0, 255.0},
    [DOP_I16] = {"i16", "short", 2, 0, -32768.0, 32767.0},
    [DOP_U16] = {"u16", "unsigned short", 2, 0, 0.0, 65535.0},
    [DOP_U32] = {"u32", "unsigned", 4, 0, 0.0, 4294967295.0},
    [DOP_U64] = {"u64", "unsigned long long", 8, 0, 0.0, 18446744073709549568.0},
};

const char *const dop_init_names[DOP_NINITS] = {"uniform", "normal", "ints", "constant", "sequence", "permutation",
                                                "file"};

static const char *const role_names[] = {"in", "out", "inout"};

/* What an output is filled with before the verified run: NaN for floats (it never passes), 0x5a bytes for
 * integers (a value no kernel should leave by chance); and what fills the guards around it. */
#define POISON_FLOAT 0xff
#define POISON_INT 0x5a
#define GUARD_BYTE 0xa5

int dop_find_type(const char *name)
{
    for (int t = 0; t < DOP_NTYPES; t++)
        if (!strcmp(name, dop_types[t].name)) return t;
    return -1;
}

const dop *dop_of(const reg_op *op)
{
    return op->decl;
}

static int is_checked(const dop_buffer *b)
{
    return b->role != DOP_IN;
}


/* ---- counts and values -------------------------------------------------------------------- */

static int eval_at(const dop *d, const decl_expr *x, const reg_spec *s, int64_t *out, tl_err *e)
{
    char msg[512];
    expr_env env = {.dims = s->dims};
    if (expr_eval(&x->x, &env, out, msg, sizeof msg) == 0) return 0;
    tl_err_set(e, "%s:%d:%d: %s: '%s': %s", d->path, x->line, x->col, x->field, x->x.text, msg);
    return -1;
}

/* The axes of problem s as "n=1024,m=8", for messages (malloc'd). */
static char *axes_text(const dop *d, const reg_spec *s)
{
    tl_buf at = {0};
    for (int a = 0; a < d->naxes; a++) tl_buf_printf(&at, "%s%s=%lld", a ? "," : "", d->axes[a], (long long)s->dims[a]);
    return at.s ? at.s : tl_xstrdup("");
}

int dop_counts(const dop *d, const reg_spec *s, int64_t *counts, tl_err *e)
{
    for (int b = 0; b < d->nbuffers; b++) {
        const dop_buffer *bf = &d->buffers[b];
        if (eval_at(d, &bf->count, s, &counts[b], e)) return -1;
        uint64_t bytes;
        if (counts[b] <= 0 || !tl_mul_u64((uint64_t)counts[b], (uint64_t)dop_types[bf->type].size, &bytes) ||
            bytes > (1ULL << 62)) {
            const decl_expr *x = &bf->count;
            char *at = axes_text(d, s);
            tl_err_set(e, "%s:%d:%d: %s: '%s' is %lld elements at %s: a buffer's count must be positive, its bytes under "
                          "2^62", d->path, x->line, x->col, x->field, x->x.text, (long long)counts[b], at);
            free(at);
            return -1;
        }
    }
    return 0;
}

static void store_int(dop_type t, void *out, int64_t i, int64_t v)
{
    tl_gen_store((int)t, out, i, (double)v, v);
}

double dop_get(dop_type t, const void *data, int64_t i)
{
    switch (t) {
    case DOP_F32: return ((const float *)data)[i];
    case DOP_F64: return ((const double *)data)[i];
    case DOP_F16: return tl_from_f16(((const uint16_t *)data)[i]);
    case DOP_BF16: return tl_from_bf16(((const uint16_t *)data)[i]);
    case DOP_I8: return ((const int8_t *)data)[i];
    case DOP_U8: return ((const uint8_t *)data)[i];
    case DOP_I16: return ((const int16_t *)data)[i];
    case DOP_U16: return ((const uint16_t *)data)[i];
    case DOP_I32: return ((const int32_t *)data)[i];
    case DOP_U32: return ((const uint32_t *)data)[i];
    case DOP_I64: return (double)((const int64_t *)data)[i];
    case DOP_U64: return (double)((const uint64_t *)data)[i];
    default: return NAN;
    }
}

/* The permutation: Fisher-Yates from the last element down, each swap drawn from (base, i). */
static void fill_permutation(dop_type t, void *out, int64_t n, uint64_t base)
{
    int64_t *p = tl_xmalloc((size_t)n * sizeof *p);
    for (int64_t i = 0; i < n; i++) p[i] = i;
    for (int64_t i = n - 1; i > 0; i--) {
        int64_t j = (int64_t)(tl_mix64(base + (uint64_t)i) % (uint64_t)(i + 1)), v = p[i];
        p[i] = p[j], p[j] = v;
    }
    for (int64_t i = 0; i < n; i++) store_int(t, out, i, p[i]);
    free(p);
}

uint64_t dop_fill_base(const dop *d, int b, const reg_spec *s)
{
    return tl_mix64(s->seed ^ tl_mix64(d->buffers[b].stream ^ (uint64_t)d->buffers[b].init.kind));
}

int dop_fill_on_device(const dop *d, int b)
{
    dop_init_kind k = d->buffers[b].init.kind;
    return k != DOP_NORMAL && k != DOP_PERMUTATION && k != DOP_FILE;
}

void dop_fill(const dop *d, int b, const reg_spec *s, int64_t n, void *out)
{
    const dop_buffer *bf = &d->buffers[b];
    const dop_init *in = &bf->init;
    uint64_t base = dop_fill_base(d, b, s);
    if (in->kind == DOP_FILE) { /* dop_check saw that the counts agree */
        memcpy(out, bf->file.data, (size_t)(n < bf->file.count ? n : bf->file.count) * (size_t)dop_types[bf->type].size);
    } else if (in->kind == DOP_PERMUTATION) {
        fill_permutation(bf->type, out, n, base);
    } else if (in->kind == DOP_NORMAL) {
        for (int64_t i = 0; i < n; i++) {
            uint64_t k = base + 2 * (uint64_t)i;
            double u1 = 1.0 - tl_gen_unit(tl_mix64(k)), u2 = tl_gen_unit(tl_mix64(k + 1));
            tl_gen_store((int)bf->type, out, i, in->a + in->b * sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2), 0);
        }
    } else {
        for (int64_t i = 0; i < n; i++) tl_gen_at((int)bf->type, (int)in->kind, in->a, in->b, base, i, out);
    }
}

/* Whether buffer b's init stays inside its type for n elements (a sequence's last value, a permutation's
 * n - 1): 1, else 0 with why. */
static int init_fits(const dop *d, int b, int64_t n, char *why, size_t len)
{
    const dop_buffer *bf = &d->buffers[b];
    const dop_type_info *t = &dop_types[bf->type];
    double last = bf->init.kind == DOP_SEQUENCE ? bf->init.a + (double)(n - 1) * bf->init.b
                  : bf->init.kind == DOP_PERMUTATION ? (double)(n - 1) : 0;
    if ((bf->init.kind == DOP_SEQUENCE || bf->init.kind == DOP_PERMUTATION) && (last < t->lo || last > t->hi)) {
        snprintf(why, len, "buffer %s: its %s reaches %.17g at element %lld, past what %s holds", bf->name,
                 dop_init_names[bf->init.kind], last, (long long)(n - 1), t->name);
        return 0;
    }
    return 1;
}

/* A file input holds the buffer's count for problem s: 0, else -1 with e at the init. */
static int file_fits(const dop *d, int b, const reg_spec *s, int64_t count, tl_err *e)
{
    const dop_buffer *bf = &d->buffers[b];
    const dop_file *f = &bf->file;
    if (bf->init.kind != DOP_FILE || f->count == count) return 0;
    char *at = axes_text(d, s);
    tl_err_set(e, "%s:%d:%d: %s: %s%s%s holds %lld elements (shape %s), but buffer %s's count '%s' is %lld at %s: a "
                  "file input fixes the count for every problem", d->path, f->line, f->col, f->field, f->path,
               f->dataset ? ":" : "", f->dataset ? f->dataset : "", (long long)f->count, f->shape, bf->name,
               bf->count.x.text, (long long)count, at);
    free(at);
    return -1;
}

/* An expression the problem must give a value to: a work figure (not negative) or an integer scalar (inside its
 * type), as counts are checked: 0, or -1 with e at the expression. */
static int value_fits(const dop *d, const decl_expr *x, const reg_spec *s, int64_t lo, int64_t hi, const char *what,
                      tl_err *e)
{
    int64_t v;
    if (eval_at(d, x, s, &v, e)) {
        char *at = axes_text(d, s);
        size_t len = strlen(e->msg); /* which problem: the expression holds for others */
        snprintf(e->msg + len, sizeof e->msg - len, " at %s", at);
        free(at);
        return -1;
    }
    if (v >= lo && v <= hi) return 0;
    char *at = axes_text(d, s);
    tl_err_set(e, "%s:%d:%d: %s: '%s' is %lld at %s: %s", d->path, x->line, x->col, x->field, x->x.text, (long long)v, at,
               what);
    free(at);
    return -1;
}

int dop_check(const dop *d, const reg_spec *s, char *why, size_t n, tl_err *e)
{
    int64_t counts[DOP_MAX_BUFFERS];
    why[0] = '\0';
    if (dop_counts(d, s, counts, e)) return -1;
    if (d->has_flop && value_fits(d, &d->flop, s, 0, INT64_MAX, "a count of operations is not negative", e)) return -1;
    if (d->has_bytes && value_fits(d, &d->bytes, s, 0, INT64_MAX, "a count of bytes is not negative", e)) return -1;
    for (int k = 0; k < d->nscalars; k++) {
        const dop_scalar *sc = &d->scalars[k];
        int i32 = sc->type == DOP_I32;
        if (sc->is_expr && value_fits(d, &sc->value, s, i32 ? INT32_MIN : INT64_MIN, i32 ? INT32_MAX : INT64_MAX,
                                      i32 ? "past what i32 holds" : "past what i64 holds", e))
            return -1;
    }
    for (int b = 0; b < d->nbuffers; b++)
        if (file_fits(d, b, s, counts[b], e)) return -1;
    for (int b = 0; b < d->nbuffers; b++)
        if (!init_fits(d, b, counts[b], why, n)) return 0;
    return 0;
}

/* ---- the op's functions -------------------------------------------------------------------- */

struct reg_problem {
    const dop *d;
    reg_spec s;
    const reg_ctx *ctx;
    int64_t counts[DOP_MAX_BUFFERS];
    size_t bytes[DOP_MAX_BUFFERS];
    unsigned char *dbase[DOP_MAX_BUFFERS]; /* the allocation: guard, data, guard (checked buffers) */
    void *dptr[DOP_MAX_BUFFERS];           /* the data the kernels get */
    void *dinit[DOP_MAX_BUFFERS];          /* inout: its initial data, on the device */
    void *dref[DOP_MAX_BUFFERS];           /* checked: the reference's output, on the device (compared there) */
    unsigned char *href[DOP_MAX_BUFFERS];  /* checked: the reference's output, fetched only for a failure's detail */
    unsigned char *hgot[DOP_MAX_BUFFERS];  /* checked: a run's output with its guards, fetched */
    void *scratch;                         /* 32 bytes for the device's verdict */
    void *lib_temp;                        /* a library variant's scratch (dop_scratch) */
    size_t lib_temp_bytes;
    long long axes[REG_MAX_AXES];
    union {
        int32_t i32;
        int64_t i64;
        float f32;
        double f64;
    } scalars[DOP_MAX_SCALARS];
};

static double dop_flop(const reg_op *op, const reg_spec *s)
{
    const dop *d = op->decl;
    int64_t v;
    tl_err e;
    if (!d->has_flop) return 0.0;
    return eval_at(d, &d->flop, s, &v, &e) ? NAN : (double)v;
}

static double dop_bytes(const reg_op *op, const reg_spec *s)
{
    const dop *d = op->decl;
    int64_t v, counts[DOP_MAX_BUFFERS];
    tl_err e;
    if (d->has_bytes) return eval_at(d, &d->bytes, s, &v, &e) ? NAN : (double)v;
    if (dop_counts(d, s, counts, &e)) return NAN;
    double sum = 0; /* every input read once, every output written once, an inout both */
    for (int b = 0; b < d->nbuffers; b++)
        sum += (double)counts[b] * dop_types[d->buffers[b].type].size * (d->buffers[b].role == DOP_INOUT ? 2 : 1);
    return sum;
}

static uint64_t dop_mem_bytes(const reg_op *op, const reg_spec *s, int on_device)
{
    const dop *d = op->decl;
    int64_t counts[DOP_MAX_BUFFERS];
    tl_err e;
    if (dop_counts(d, s, counts, &e)) return 0;
    uint64_t sum = 0;
    for (int b = 0; b < d->nbuffers; b++) {
        const dop_buffer *bf = &d->buffers[b];
        uint64_t bytes = (uint64_t)counts[b] * (uint64_t)dop_types[bf->type].size; /* dop_counts bounds it */
        /* device: the buffer, its guards, an inout's initial data, a checked one's reference; host: a checked
         * one's reference and fetched copy (a failure's detail), an input's making */
        uint64_t copies = on_device ? 1 + (bf->role == DOP_INOUT) + is_checked(bf)
                                    : is_checked(bf) ? 2 : 1;
        sum += copies * bytes + (is_checked(bf) ? 2 * DOP_GUARD * (on_device ? 1 : 2) : 0);
    }
    return sum;
}

static void dop_problem_free(reg_problem *p)
{
    if (!p) return;
    for (int b = 0; b < p->d->nbuffers; b++) {
        if (p->dbase[b]) cudaFree(p->dbase[b]);
        if (p->dinit[b]) cudaFree(p->dinit[b]);
        if (p->dref[b]) cudaFree(p->dref[b]);
        free(p->href[b]), free(p->hgot[b]);
    }
    if (p->scratch) cudaFree(p->scratch);
    if (p->lib_temp) cudaFree(p->lib_temp);
    free(p);
}

/* Buffer b on the device, made from its init (an input or inout), or left for reset_output (an output). */
static int make_buffer(reg_problem *p, int b, tl_err *e)
{
    const dop_buffer *bf = &p->d->buffers[b];
    size_t bytes = p->bytes[b], guard = is_checked(bf) ? DOP_GUARD : 0;
    void *host = NULL;
    CUDA_CHECK(cudaMalloc((void **)&p->dbase[b], bytes + 2 * guard));
    p->dptr[b] = p->dbase[b] + guard;
    if (guard) {
        p->href[b] = tl_xmalloc(bytes);
        p->hgot[b] = tl_xmalloc(bytes + 2 * guard);
        CUDA_CHECK(cudaMalloc(&p->dref[b], bytes));
    }
    if (bf->role == DOP_OUT) return 0;
    if (bf->init.kind == DOP_FILE) {
        if (bf->file.count != p->counts[b]) { /* dop_check refuses it before any GPU work */
            tl_err_set(e, "buffer %s: %s holds %lld elements, not %lld", bf->name, bf->file.path,
                       (long long)bf->file.count, (long long)p->counts[b]);
            goto fail;
        }
        CUDA_CHECK(cudaMemcpy(p->dptr[b], bf->file.data, bytes, cudaMemcpyHostToDevice));
    } else if (dop_fill_on_device(p->d, b)) { /* the same bits as dop_fill's (runner/ops/dop_gen.h), where they are used */
        const dop_init *in = &bf->init;
        CUDA_CHECK((cudaError_t)tl_dev_fill_init(p->dptr[b], (int)bf->type, (int)in->kind, in->a, in->b,
                                                 dop_fill_base(p->d, b, &p->s), (long long)p->counts[b],
                                                 p->ctx->stream));
    } else {
        host = tl_xmalloc(bytes);
        dop_fill(p->d, b, &p->s, p->counts[b], host);
        CUDA_CHECK(cudaMemcpy(p->dptr[b], host, bytes, cudaMemcpyHostToDevice));
    }
    if (bf->role == DOP_INOUT) {
        CUDA_CHECK(cudaMalloc(&p->dinit[b], bytes));
        CUDA_CHECK(cudaMemcpyAsync(p->dinit[b], p->dptr[b], bytes, cudaMemcpyDeviceToDevice,
                                   (cudaStream_t)p->ctx->stream));
    }
    free(host);
    return 0;
fail:
    free(host);
    return -1;
}

static int dop_problem_new(const reg_op *op, reg_problem **out, const reg_spec *s, const reg_ctx *ctx,
                           int on_device, tl_err *e)
{
    const dop *d = op->decl;
    char why[256];
    *out = NULL;
    if (!on_device) {
        tl_err_set(e, "op %s is declared in %s: its variants run on the GPU only", d->name, d->path);
        return -1;
    }
    reg_problem *p = tl_xcalloc(1, sizeof *p);
    p->d = d, p->s = *s, p->ctx = ctx;
    if (dop_counts(d, s, p->counts, e)) goto fail;
    CUDA_CHECK(cudaMalloc(&p->scratch, 32));
    for (int b = 0; b < d->nbuffers; b++) {
        p->bytes[b] = (size_t)p->counts[b] * (size_t)dop_types[d->buffers[b].type].size;
        if (!init_fits(d, b, p->counts[b], why, sizeof why)) {
            tl_err_set(e, "%s", why);
            goto fail;
        }
        if (make_buffer(p, b, e)) goto fail;
    }
    for (int a = 0; a < d->naxes; a++) p->axes[a] = (long long)s->dims[a];
    for (int k = 0; k < d->nscalars; k++) {
        const dop_scalar *sc = &d->scalars[k];
        int64_t v = 0;
        if (sc->is_expr && eval_at(d, &sc->value, s, &v, e)) goto fail;
        double x = sc->is_expr ? (double)v : sc->number;
        switch (sc->type) {
        case DOP_I32: p->scalars[k].i32 = (int32_t)(sc->is_expr ? v : (int64_t)x); break;
        case DOP_I64: p->scalars[k].i64 = sc->is_expr ? v : (int64_t)x; break;
        case DOP_F32: p->scalars[k].f32 = (float)x; break;
        default: p->scalars[k].f64 = x; break;
        }
        if (sc->type == DOP_I32 && sc->is_expr && (v < INT32_MIN || v > INT32_MAX)) {
            tl_err_set(e, "%s:%d:%d: %s: '%s' is %lld, past what i32 holds", d->path, sc->value.line, sc->value.col,
                       sc->value.field, sc->value.x.text, (long long)v);
            goto fail;
        }
    }
    *out = p;
    return 0;
fail:
    dop_problem_free(p);
    return -1;
}

/* The first element of a reference output that is not finite (or not written: poison is NaN), or -1. */
static int64_t first_not_finite(const reg_problem *p, int b)
{
    const dop_buffer *bf = &p->d->buffers[b];
    for (int64_t i = 0; dop_types[bf->type].is_float && i < p->counts[b]; i++)
        if (!isfinite(dop_get(bf->type, p->href[b], i))) return i;
    return -1;
}

/* The outputs of the run just made (the reference variant's, poisoned before) become the truth. */
static int dop_reference(reg_problem *p, const char *name, tl_err *e)
{
    const dop *d = p->d;
    cudaStream_t st = (cudaStream_t)p->ctx->stream;
    CUDA_CHECK(cudaStreamSynchronize(st));
    for (int b = 0; b < d->nbuffers; b++) {
        const dop_buffer *bf = &d->buffers[b];
        if (!is_checked(bf)) continue;
        /* Kept on the device, and compared with itself there: an element that is not finite is "bad". */
        tl_dev_verdict v;
        int64_t at = -1;
        CUDA_CHECK(cudaMemcpyAsync(p->dref[b], p->dptr[b], p->bytes[b], cudaMemcpyDeviceToDevice, st));
        CUDA_CHECK((cudaError_t)tl_dev_verify((int)bf->type, p->dref[b], p->dref[b], (size_t)p->counts[b], 0, 0,
                                              p->scratch, &v, st));
        if (v.bad) {
            CUDA_CHECK(cudaMemcpy(p->href[b], p->dref[b], p->bytes[b], cudaMemcpyDeviceToHost));
            at = first_not_finite(p, b);
        }
        if (at >= 0) {
            tl_err_set(e, "the reference variant %s left %s[%lld] = %g (not written, or not finite): a reference's "
                          "outputs must be finite", name, bf->name, (long long)at, dop_get(bf->type, p->href[b], at));
            return -1;
        }
    }
    return 0;
fail:
    return -1;
}

static int dop_reset_output(reg_problem *p, int poison, tl_err *e)
{
    const dop *d = p->d;
    cudaStream_t st = (cudaStream_t)p->ctx->stream;
    for (int b = 0; b < d->nbuffers; b++) {
        const dop_buffer *bf = &d->buffers[b];
        if (!is_checked(bf)) continue;
        if (bf->role == DOP_INOUT)
            CUDA_CHECK(cudaMemcpyAsync(p->dptr[b], p->dinit[b], p->bytes[b], cudaMemcpyDeviceToDevice, st));
        if (!poison) continue;
        if (bf->role == DOP_OUT)
            CUDA_CHECK(cudaMemsetAsync(p->dptr[b], dop_types[bf->type].is_float ? POISON_FLOAT : POISON_INT,
                                       p->bytes[b], st));
        CUDA_CHECK(cudaMemsetAsync(p->dbase[b], GUARD_BYTE, DOP_GUARD, st));
        CUDA_CHECK(cudaMemsetAsync(p->dbase[b] + DOP_GUARD + p->bytes[b], GUARD_BYTE, DOP_GUARD, st));
    }
    return 0;
fail:
    return -1;
}

static int dop_kernel_args(reg_problem *p, void **argv, int max)
{
    const dop *d = p->d;
    if (max < d->nargs) return -1;
    for (int k = 0; k < d->nargs; k++) {
        const dop_arg *a = &d->args[k];
        argv[k] = a->kind == DOP_ARG_BUFFER ? (void *)&p->dptr[a->index]
                  : a->kind == DOP_ARG_AXIS ? (void *)&p->axes[a->index] : (void *)&p->scalars[a->index];
    }
    return d->nargs;
}

/* Its `in` buffers: inout ones are put back before every run. */
static int dop_inputs(reg_problem *p, reg_input *in, int max)
{
    int n = 0;
    for (int b = 0; b < p->d->nbuffers; b++) {
        const dop_buffer *bf = &p->d->buffers[b];
        if (bf->role != DOP_IN) continue;
        if (n == max) return -1;
        in[n++] = (reg_input){bf->name, p->dptr[b], p->bytes[b], dop_types[bf->type].size};
    }
    return n;
}

/* The tolerance buffer b is checked with: exact for integers, its own, or the op's. */
static reg_tolerance tol_of(const dop_buffer *bf, const reg_tolerance *t)
{
    return !dop_types[bf->type].is_float ? (reg_tolerance){0, 0} : bf->tol_given ? bf->tol : *t;
}

/* The first byte of a guard a run changed, or -1. */
static long long guard_hit(const unsigned char *g)
{
    for (long long i = 0; i < DOP_GUARD; i++)
        if (g[i] != GUARD_BYTE) return i;
    return -1;
}

/* One checked buffer against the reference, into v (which holds the buffers before it). */
static void check_buffer(const reg_problem *p, int b, const reg_tolerance *t, reg_verify *v)
{
    const dop_buffer *bf = &p->d->buffers[b];
    const unsigned char *got = p->hgot[b] + DOP_GUARD;
    size_t len = strlen(v->detail);
    long long before = guard_hit(p->hgot[b]), after = guard_hit(got + p->bytes[b]);
    if (before >= 0 || after >= 0) {
        len += (size_t)snprintf(v->detail + len, sizeof v->detail - len, "%swrote %s %s (byte %lld of the %d-byte "
                                "guard %s it)", len ? "; " : "", before >= 0 ? "before" : "past the end of", bf->name,
                                before >= 0 ? DOP_GUARD - before : after, DOP_GUARD, before >= 0 ? "before" : "after");
        v->bad++;
    }
    const reg_tolerance tv = tol_of(bf, t), *tol = &tv;
    for (int64_t i = 0; i < p->counts[b]; i++) {
        double g = dop_get(bf->type, got, i), w = dop_get(bf->type, p->href[b], i), err = fabs(g - w);
        int finite = isfinite(g);
        if (finite) {
            if (err > v->max_abs_err) v->max_abs_err = err;
            if (w != 0 && err / fabs(w) > v->max_rel_err) v->max_rel_err = err / fabs(w);
        }
        if (finite && err <= tol->atol + tol->rtol * fabs(w)) continue;
        if (!finite) v->max_abs_err = v->max_rel_err = INFINITY;
        if (v->bad < 3 && len < sizeof v->detail)
            len += (size_t)snprintf(v->detail + len, sizeof v->detail - len, "%s%s[%lld] got %.9g want %.9g",
                                    len ? "; " : "", bf->name, (long long)i, g, w);
        v->bad++;
    }
}

static int dop_check_output(reg_problem *p, const reg_tolerance *t, reg_verify *v, tl_err *e)
{
    const dop *d = p->d;
    cudaStream_t st = (cudaStream_t)p->ctx->stream;
    memset(v, 0, sizeof *v);
    for (int b = 0; b < d->nbuffers; b++) {
        const dop_buffer *bf = &d->buffers[b];
        if (!is_checked(bf)) continue;
        /* The device's verdict and the guards; the whole buffer and the reference only when it failed, to name
         * the first mismatches. */
        size_t bytes = p->bytes[b];
        tl_dev_verdict dv;
        reg_tolerance tol = tol_of(bf, t);
        CUDA_CHECK((cudaError_t)tl_dev_verify((int)bf->type, p->dptr[b], p->dref[b], (size_t)p->counts[b], tol.atol,
                                              tol.rtol, p->scratch, &dv, st));
        CUDA_CHECK(cudaMemcpy(p->hgot[b], p->dbase[b], DOP_GUARD, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(p->hgot[b] + DOP_GUARD + bytes, p->dbase[b] + DOP_GUARD + bytes, DOP_GUARD,
                              cudaMemcpyDeviceToHost));
        if (!dv.bad && guard_hit(p->hgot[b]) < 0 && guard_hit(p->hgot[b] + DOP_GUARD + bytes) < 0) {
            if (dv.max_abs_err > v->max_abs_err) v->max_abs_err = dv.max_abs_err;
            if (dv.max_rel_err > v->max_rel_err) v->max_rel_err = dv.max_rel_err;
            continue;
        }
        CUDA_CHECK(cudaMemcpy(p->href[b], p->dref[b], bytes, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(p->hgot[b], p->dbase[b], bytes + 2 * DOP_GUARD, cudaMemcpyDeviceToHost));
        check_buffer(p, b, t, v);
    }
    v->ok = v->bad == 0;
    return 0;
fail:
    return -1;
}

void *dop_ptr(reg_problem *p, int b)
{
    return p->dptr[b];
}

int64_t dop_count(const reg_problem *p, int b)
{
    return p->counts[b];
}

const reg_ctx *dop_ctx(const reg_problem *p)
{
    return p->ctx;
}

const reg_spec *dop_spec(const reg_problem *p)
{
    return &p->s;
}

void *dop_scratch(reg_problem *p, size_t bytes, tl_err *e)
{
    if (bytes <= p->lib_temp_bytes && p->lib_temp) return p->lib_temp;
    if (p->lib_temp) CUDA_CHECK(cudaFree(p->lib_temp));
    p->lib_temp = NULL, p->lib_temp_bytes = 0;
    CUDA_CHECK(cudaMalloc(&p->lib_temp, bytes ? bytes : 1));
    p->lib_temp_bytes = bytes;
    return p->lib_temp;
fail:
    return NULL;
}

/* ---- the declaration made an op ------------------------------------------------------------ */

int dop_karg_elem_size(const dop *d, int i)
{
    return i < d->nargs && d->args[i].kind == DOP_ARG_BUFFER ? dop_types[d->buffers[d->args[i].index].type].size : 0;
}

/* A buffer's init as the identity holds it (a file by its elements' hash: where it lies is not the problem) or,
 * for_people, as `list` shows it (a file by its path). */
static void init_text(tl_buf *b, const dop_buffer *bf, int for_people)
{
    const dop_init *in = &bf->init;
    tl_buf_printf(b, "%s", dop_init_names[in->kind]);
    switch (in->kind) {
    case DOP_CONSTANT: tl_buf_printf(b, "(%.17g)", in->a); break;
    case DOP_PERMUTATION: break;
    case DOP_FILE:
        if (for_people) tl_buf_printf(b, " %s%s%s", bf->file.path, bf->file.dataset ? ":" : "",
                                      bf->file.dataset ? bf->file.dataset : "");
        else tl_buf_printf(b, "(sha256=%s)", bf->file.sha256);
        break;
    default: tl_buf_printf(b, "(%.17g,%.17g)", in->a, in->b); break;
    }
}

/* An expression as the identity holds it: its text without blanks. */
static void expr_text(tl_buf *b, const char *s)
{
    for (; *s; s++)
        if (*s != ' ' && *s != '\t') tl_buf_printf(b, "%c", *s);
}

static char *identity(const dop *d)
{
    tl_buf b = {0};
    tl_buf_printf(&b, "tilelab-op/1;name=%s;axes=", d->name);
    for (int a = 0; a < d->naxes; a++) tl_buf_printf(&b, "%s%s", a ? "," : "", d->axes[a]);
    tl_buf_printf(&b, ";buffers=");
    for (int k = 0; k < d->nbuffers; k++) {
        const dop_buffer *bf = &d->buffers[k];
        tl_buf_printf(&b, "%s%s:%s:%s:", k ? "|" : "", bf->name, dop_types[bf->type].name, role_names[bf->role]);
        expr_text(&b, bf->count.x.text);
        if (bf->role != DOP_OUT) tl_buf_printf(&b, ":"), init_text(&b, bf, 0);
    }
    tl_buf_printf(&b, ";scalars=");
    for (int k = 0; k < d->nscalars; k++) {
        const dop_scalar *sc = &d->scalars[k];
        tl_buf_printf(&b, "%s%s:%s=", k ? "," : "", sc->name, dop_types[sc->type].name);
        if (sc->is_expr) expr_text(&b, sc->value.x.text);
        else tl_buf_printf(&b, "%.17g", sc->number);
    }
    tl_buf_printf(&b, ";signature=");
    for (int k = 0; k < d->nargs; k++) tl_buf_printf(&b, "%s%s", k ? "," : "", d->kargs[k].name);
    tl_buf_printf(&b, ";flop=");
    if (d->has_flop) expr_text(&b, d->flop.x.text);
    tl_buf_printf(&b, ";bytes=");
    if (d->has_bytes) expr_text(&b, d->bytes.x.text);
    return b.s;
}

/* Kernel argument k as `list` and the compile check spell it. */
static void make_karg(dop *d, int k)
{
    const dop_arg *a = &d->args[k];
    reg_karg *g = &d->kargs[k];
    if (a->kind == DOP_ARG_BUFFER) {
        const dop_buffer *bf = &d->buffers[a->index];
        d->karg_types[k] = tl_xasprintf("%s%s *", bf->role == DOP_IN ? "const " : "", dop_types[bf->type].ctype);
        tl_buf doc = {0};
        tl_buf_printf(&doc, "%s elements of %s, %s", bf->count.x.text, bf->type == DOP_F16 || bf->type == DOP_BF16
                      ? dop_types[bf->type].name : dop_types[bf->type].ctype, role_names[bf->role]);
        if (bf->role != DOP_OUT) tl_buf_printf(&doc, ", "), init_text(&doc, bf, 1);
        if (bf->role == DOP_OUT) tl_buf_printf(&doc, ", poisoned before the verified run");
        d->karg_docs[k] = doc.s;
        *g = (reg_karg){d->karg_types[k], bf->name, 'p', d->karg_docs[k]};
    } else if (a->kind == DOP_ARG_AXIS) {
        d->karg_types[k] = tl_xstrdup("long long");
        d->karg_docs[k] = tl_xasprintf("the size along axis %s", d->axes[a->index]);
        *g = (reg_karg){d->karg_types[k], d->axes[a->index], 'l', d->karg_docs[k]};
    } else {
        const dop_scalar *sc = &d->scalars[a->index];
        static const char kinds[] = {[DOP_F32] = 'f', [DOP_F64] = 'd', [DOP_I32] = 'i', [DOP_I64] = 'l'};
        d->karg_types[k] = tl_xstrdup(dop_types[sc->type].ctype);
        d->karg_docs[k] = sc->is_expr ? tl_xasprintf("= %s", sc->value.x.text) : tl_xasprintf("= %.9g", sc->number);
        *g = (reg_karg){d->karg_types[k], sc->name, kinds[sc->type], d->karg_docs[k]};
    }
}

void dop_finish(dop *d)
{
    for (int k = 0; k < d->nargs; k++) make_karg(d, k);
    d->refs[0] = d->reference;
    d->dtypes[0] = "f32";
    for (int b = 0; b < d->nbuffers; b++)
        if (is_checked(&d->buffers[b])) {
            d->dtypes[0] = dop_types[d->buffers[b].type].name;
            break;
        }
    d->summary = tl_xasprintf("declared in %s", d->path);
    d->kernel_doc = tl_xstrdup("the runner defines each param (#define NAME value) before your source; buffers are 256-byte aligned; f16 is __half "
                               "(cuda_fp16.h), bf16 __nv_bfloat16 (cuda_bf16.h), or any type of that size");
    d->identity = identity(d);
    char hex[65];
    tl_sha256_hex(d->identity, strlen(d->identity), hex);
    memcpy(d->identity_id, hex, 16);
    d->identity_id[16] = '\0';
    d->op = (reg_op){
        .name = d->name, .summary = d->summary,
        .axes = (const char *const *)d->axes, .naxes = d->naxes,
        .dtypes = d->dtypes, .ndtypes = 1,
        .references = d->refs, .nreferences = 1,
        .tol = d->tol, .tol_exact = d->tol,
        .tol_doc = "per element: |got - want| <= atol + rtol |want|, where want is the reference variant's; "
                   "integers exactly",
        .kargs = d->kargs, .nkargs = d->nargs,
        .kernel_doc = d->kernel_doc,
        .rate = d->rate,
        .flop = dop_flop, .bytes = dop_bytes, .mem_bytes = dop_mem_bytes,
        .problem_new = dop_problem_new, .problem_free = dop_problem_free,
        .reference = dop_reference, .reset_output = dop_reset_output,
        .kernel_args = dop_kernel_args, .inputs = dop_inputs, .check_output = dop_check_output,
        .decl = d,
    };
}

void dop_free(dop *d)
{
    if (!d) return;
    free(d->name), free(d->summary), free(d->reference), free(d->kernel_doc), free(d->identity);
    for (int a = 0; a < d->naxes; a++) free(d->axes[a]);
    for (int b = 0; b < d->nbuffers; b++)
        free(d->buffers[b].name), expr_free(&d->buffers[b].count.x), dop_file_free(&d->buffers[b].file);
    for (int k = 0; k < d->nscalars; k++) {
        free(d->scalars[k].name);
        if (d->scalars[k].is_expr) expr_free(&d->scalars[k].value.x);
    }
    for (int k = 0; k < d->nargs; k++) free(d->karg_types[k]), free(d->karg_docs[k]);
    if (d->has_flop) expr_free(&d->flop.x);
    if (d->has_bytes) expr_free(&d->bytes.x);
    free(d->rate);
    free(d);
}
