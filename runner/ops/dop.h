/* dop: an op declared in an experiment file (`op:` as a mapping, parsed by runner/config/cfg_op.c): its axes, its
 * device buffers (element type, count, role, initial data), its scalars, the kernel signature, the work model,
 * the variant whose outputs are the truth and the tolerance. dop_finish makes it a reg_op, so the plan,
 * execute, the writer and the analysis handle it as they handle the registered ops: nothing after the config
 * knows which kind it has. */
#ifndef TILELAB_DOP_H
#define TILELAB_DOP_H

#include <stdint.h>

#include "runner/ops/decl.h"
#include "runner/ops/dop_file.h"
#include "runner/ops/dop_gen.h"
#include "runner/ops/registry.h"

/* Element types of buffers (and, the first four, of scalars): runner/ops/dop_gen.h's values, which the device's
 * generator and comparison share. */
typedef enum {
    DOP_F32 = TL_GEN_F32, DOP_F64 = TL_GEN_F64, DOP_I32 = TL_GEN_I32, DOP_I64 = TL_GEN_I64, /* scalars may be these */
    DOP_F16 = TL_GEN_F16, DOP_BF16 = TL_GEN_BF16, DOP_I8 = TL_GEN_I8, DOP_U8 = TL_GEN_U8, DOP_I16 = TL_GEN_I16,
    DOP_U16 = TL_GEN_U16, DOP_U32 = TL_GEN_U32, DOP_U64 = TL_GEN_U64,
    DOP_NTYPES
} dop_type;
#define DOP_NSCALAR_TYPES 4

typedef struct {
    const char *name;  /* "f32", as the YAML spells it */
    const char *ctype; /* "float": what a kernel may call it (f16: __half, bf16: __nv_bfloat16) */
    int size;          /* bytes */
    int is_float;
    double lo, hi;     /* the values it holds exactly as integers (floats: the finite range) */
} dop_type_info;
extern const dop_type_info dop_types[DOP_NTYPES];
/* Its index, or -1. */
int dop_find_type(const char *name);

typedef enum {
    DOP_IN,    /* made once per problem from its init */
    DOP_OUT,   /* poisoned before the verified run (floats NaN, integers 0x5a bytes), then checked */
    DOP_INOUT  /* put back to its init before every run, outside the timed region, then checked */
} dop_role;

typedef enum {
    DOP_UNIFORM = TL_GEN_UNIFORM,         /* a + (b - a) u, u uniform in [0, 1) */
    DOP_NORMAL = TL_GEN_NORMAL,           /* mean a, standard deviation b */
    DOP_INTS = TL_GEN_INTS,               /* integers a .. b, uniformly */
    DOP_CONSTANT = TL_GEN_CONSTANT,       /* a */
    DOP_SEQUENCE = TL_GEN_SEQUENCE,       /* a + i b */
    DOP_PERMUTATION = TL_GEN_PERMUTATION, /* 0 .. count - 1 in a seeded random order */
    DOP_FILE = TL_GEN_FILE,               /* the elements of a file of the experiment's folder (dop_buffer.file) */
    DOP_NINITS
} dop_init_kind;
extern const char *const dop_init_names[DOP_NINITS];

typedef struct {
    dop_init_kind kind;
    double a, b; /* see dop_init_kind */
} dop_init;

typedef struct {
    char *name;
    dop_type type;
    dop_role role;
    decl_expr count;   /* elements: an expression of the axes */
    dop_init init;     /* DOP_IN, DOP_INOUT */
    dop_file file;     /* init DOP_FILE: its data */
    reg_tolerance tol; /* DOP_OUT, DOP_INOUT with tol_given: its own check */
    int tol_given;
    uint64_t stream;   /* its generator stream, from its name: every buffer's data differ */
} dop_buffer;

typedef struct {
    char *name;
    dop_type type;   /* DOP_F32 .. DOP_I64 */
    decl_expr value; /* an integer scalar: an expression of the axes (is_expr) */
    int is_expr;
    double number;   /* else its value */
} dop_scalar;

typedef enum { DOP_ARG_BUFFER, DOP_ARG_AXIS, DOP_ARG_SCALAR } dop_arg_kind;
typedef struct {
    dop_arg_kind kind;
    int index; /* into buffers, axes or scalars */
} dop_arg;

#define DOP_MAX_BUFFERS 16
#define DOP_MAX_SCALARS 16
#define DOP_MAX_ARGS 32
/* Bytes checked before and after every output buffer: a kernel that writes past either end fails. */
#define DOP_GUARD 4096

typedef struct dop {
    reg_op op;              /* what the runner sees: op.kargs and the texts point in here */
    const char *path;       /* the experiment file, for messages (not owned) */
    char *name, *summary;
    char *axes[REG_MAX_AXES];
    int naxes;
    dop_buffer buffers[DOP_MAX_BUFFERS];
    int nbuffers;
    dop_scalar scalars[DOP_MAX_SCALARS];
    int nscalars;
    dop_arg args[DOP_MAX_ARGS]; /* the signature */
    int nargs;
    reg_karg kargs[DOP_MAX_ARGS];
    char *karg_types[DOP_MAX_ARGS], *karg_docs[DOP_MAX_ARGS];
    decl_expr flop, bytes;  /* the work of one run (has_*: given; bytes defaults to every buffer once) */
    int has_flop, has_bytes;
    char *reference;        /* the variant whose outputs are the truth */
    int reference_line, reference_col; /* where the file names it */
    reg_tolerance tol;      /* for the float buffers without their own */
    char *rate;             /* what the tables show: "GB/s" or "GFLOP/s" */
    const char *refs[1];
    const char *dtypes[1];  /* one "dtype": the first checked buffer's type */
    char *kernel_doc;
    char *identity;         /* the declaration's canonical text */
    char identity_id[17];   /* its hash's first 16 hex digits: in every case's canonical text */
} dop;

/* After the parser has filled the declaration: the reg_op, the kernel arguments, the identity. */
void dop_finish(dop *d);
void dop_free(dop *d);
/* The dop behind op, or NULL for a registered op. */
const dop *dop_of(const reg_op *op);

/* What a library variant (runner/ops/dlib.h) reaches of a declared op's problem: buffer b on the device and its
 * count, the runner's handles, and scratch of at least bytes (grown, kept for the problem; NULL with e). */
void *dop_ptr(reg_problem *p, int b);
int64_t dop_count(const reg_problem *p, int b);
const reg_ctx *dop_ctx(const reg_problem *p);
const reg_spec *dop_spec(const reg_problem *p);
void *dop_scratch(reg_problem *p, size_t bytes, tl_err *e);

/* Kernel argument i: the bytes of a buffer's element, 0 for a scalar or an axis (the compile checks the size). */
int dop_karg_elem_size(const dop *d, int i);

/* The problem's counts: -1 with e (file:line:column of the expression) when one overflows or is not positive. */
int dop_counts(const dop *d, const reg_spec *s, int64_t *counts, tl_err *e);

/* Problem s of d: -1 with e when a count is bad (dop_counts); 0 with why[0] != 0 when an init cannot fill its
 * buffer (a sequence past what its type holds); else 0 with why "". */
int dop_check(const dop *d, const reg_spec *s, char *why, size_t n, tl_err *e);

/* Buffer b's initial data for problem s (count elements of its type) into out, on the host: value i depends
 * only on the seed, the buffer's name and i. */
void dop_fill(const dop *d, int b, const reg_spec *s, int64_t count, void *out);
/* The generator state of buffer b's init for problem s, and whether the device makes that init (its values are
 * dop_fill's, bit for bit: uniform, ints, constant, sequence; runner/ops/dop_gen.h). */
uint64_t dop_fill_base(const dop *d, int b, const reg_spec *s);
int dop_fill_on_device(const dop *d, int b);
/* Element i of a buffer of type t as a double (exact for every type but 64-bit integers past 2^53). */
double dop_get(dop_type t, const void *data, int64_t i);

#endif
