/* Ops declared in an experiment file: every bad declaration is an error at file:line:column before any GPU
 * work; a count the sizes make bad stops the plan with the expression's place; an init that runs past its type
 * skips the problem; the inits make what their definitions say, the same for the same seed and name and
 * different for another; a case id holds the declaration but not the order of its params or the kernel's
 * bytes; each case knows its problem's reference case. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "runner/config/config.h"
#include "runner/ops/dop.h"
#include "runner/plan/plan.h"
#include "runner/testing/testutil.h"

static char root[512]; /* a temporary folder: root/e.yaml and root/k.cu */

static void put(const char *rel, const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL, "cannot write %s", path);
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

#define OP_HEAD "name: t\nseed: 3\n"
/* A complete declaration (line 3 on), which the rows change a line of. */
#define BUFS "    x: {type: f32, count: \"rows * cols\"}\n    y: {type: f32, count: \"rows * cols\", out: true}\n"
#define OPDECL(bufs, rest)                                                                                            \
    "op:\n  name: mine\n  axes: [rows, cols]\n  buffers:\n" bufs "  signature: [x, y, rows, cols]\n" rest            \
    "  reference: k\n"
#define TAIL "sizes: {rows: 8, cols: 16}\nvariants:\n  - {name: k, source: k.cu, block: [32], grid: [rows]}\n"
#define GOOD OP_HEAD OPDECL(BUFS, "") TAIL

static int load(const char *text, tl_experiment *x, tl_plan *p, tl_err *e)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/e.yaml", root);
    put("e.yaml", text);
    plan_limits lim = {0};
    memset(p, 0, sizeof *p);
    if (config_load(path, x, e)) return -1;
    if (plan_expand(x, &lim, p, e)) {
        config_free(x);
        return -1;
    }
    return 0;
}

typedef struct {
    const char *yaml;
    const char *want; /* a substring of the error; "e.yaml:L:C: ..." rows check the place */
} bad_row;

#define XB(x) "    x: " x "\n    y: {type: f32, count: \"rows * cols\", out: true}\n"

static const bad_row bad_rows[] = {
    {OP_HEAD "op:\n  name: mine\n  axes: [rows]\n" TAIL, "e.yaml:4:3: op: a declared op needs `buffers:`"},
    {OP_HEAD OPDECL(BUFS, "  colour: red\n") TAIL, "e.yaml:10:3: op: unknown key 'colour'"},
    {OP_HEAD "op:\n  name: copy\n  axes: [n]\n  buffers: {y: {type: f32, count: n, out: true}}\n  signature: [y, n]\n"
             "  reference: k\n" TAIL, "e.yaml:4:9: op.name: 'copy' is a registered op"},
    {OP_HEAD OPDECL(XB("{type: f33, count: rows}"), "") TAIL,
     "e.yaml:7:15: op.buffers.x.type: 'f33' is not an element type (f32, f64, f16, bf16"},
    {OP_HEAD OPDECL(XB("{type: f32}"), "") TAIL, "e.yaml:7:8: op.buffers.x: a buffer needs `type:` and `count:`"},
    {OP_HEAD OPDECL(XB("{type: f32, count: \"rows * colz\"}"), "") TAIL,
     "e.yaml:7:35: op.buffers.x.count: 'rows * colz': unknown name 'colz'"},
    {OP_HEAD OPDECL(XB("{type: f32, count: rows, size: 4}"), "") TAIL, "e.yaml:7:33: op.buffers.x: unknown key 'size'"},
    {OP_HEAD OPDECL(XB("{type: u8, count: rows, init: {ints: {lo: 0, hi: 300}}}"), "") TAIL,
     "e.yaml:7:57: op.buffers.x.init.ints.hi: 300 does not fit u8 (0 .. 255)"},
    {OP_HEAD OPDECL(XB("{type: i8, count: rows, init: {constant: -129}}"), "") TAIL,
     "op.buffers.x.init.constant: -129 does not fit i8"},
    {OP_HEAD OPDECL(XB("{type: i32, count: rows, init: {constant: 1.5}}"), "") TAIL,
     "op.buffers.x.init.constant: 1.5 is not an integer (i32)"},
    {OP_HEAD OPDECL(XB("{type: i32, count: rows, init: uniform}"), "") TAIL,
     "e.yaml:7:39: op.buffers.x.init: uniform makes fractions: an integer buffer (i32) takes ints"},
    {OP_HEAD OPDECL(XB("{type: f32, count: rows, init: permutation}"), "") TAIL,
     "op.buffers.x.init: a permutation makes indices: it needs an integer type, not f32"},
    {OP_HEAD OPDECL(XB("{type: f16, count: rows, init: {uniform: {lo: 0, hi: 70000}}}"), "") TAIL,
     "op.buffers.x.init.uniform.hi: 70000 does not fit f16"},
    {OP_HEAD OPDECL(XB("{type: f32, count: rows, init: {uniform: {lo: 1, hi: 1}}}"), "") TAIL,
     "op.buffers.x.init.uniform: lo 1 is not below hi 1"},
    {OP_HEAD OPDECL(XB("{type: f32, count: rows, init: {normal: {mean: 0, std: 0}}}"), "") TAIL,
     "op.buffers.x.init.normal.std: a standard deviation is positive"},
    {OP_HEAD OPDECL(XB("{type: f32, count: rows, init: {gauss: {}}}"), "") TAIL,
     "op.buffers.x.init: 'gauss' is not an init (uniform, normal, ints, constant, sequence, permutation, file)"},
    {OP_HEAD OPDECL(XB("{type: f32, count: rows, init: {ints: {lo: 0}}}"), "") TAIL,
     "op.buffers.x.init.ints: expected {lo: ..., hi: ...}"},
    {OP_HEAD OPDECL(XB("{type: f32, count: rows, out: true, init: uniform}"), "") TAIL,
     "op.buffers.x: an out buffer is poisoned before the verified run; `init:` belongs to inputs"},
    {OP_HEAD OPDECL(XB("{type: f32, count: rows, out: true, inout: true}"), "") TAIL,
     "op.buffers.x: a buffer is out or inout, not both"},
    {OP_HEAD OPDECL(XB("{type: f32, count: rows, tolerance: {rtol: 0.1}}"), "") TAIL,
     "op.buffers.x: tolerance: belongs to a buffer that is checked"},
    {OP_HEAD OPDECL(XB("{type: f32, count: rows, out: maybe}"), "") TAIL,
     "op.buffers.x.out: expected true or false, got 'maybe'"},
    {OP_HEAD "op:\n  name: mine\n  axes: [rows, cols]\n  buffers:\n    x: {type: f32, count: rows}\n"
             "  signature: [x, rows]\n  reference: k\n" TAIL,
     "e.yaml:7:5: op.buffers: no buffer is `out: true` or `inout: true`"},
    {OP_HEAD "op:\n  name: mine\n  axes: [rows, cols]\n  buffers:\n" BUFS "  signature: [x, y, rows, colz]\n"
             "  reference: k\n" TAIL, "e.yaml:9:27: op.signature[3]: 'colz' is not a buffer, axis or scalar of the op"},
    {OP_HEAD "op:\n  name: mine\n  axes: [rows, cols]\n  buffers:\n" BUFS "  signature: [x, y, x]\n"
             "  reference: k\n" TAIL, "e.yaml:9:21: op.signature[2]: 'x' is in the signature twice"},
    {OP_HEAD "op:\n  name: mine\n  axes: [rows, cols]\n  buffers:\n" BUFS "  signature: [y, rows]\n"
             "  reference: k\n" TAIL, "e.yaml:9:14: op.signature: buffer 'x' is not in it"},
    {OP_HEAD "op:\n  name: mine\n  axes: [rows, rows]\n  buffers:\n" BUFS "  signature: [x]\n  reference: k\n" TAIL,
     "e.yaml:5:16: op.axes[1]: axis 'rows' is named twice"},
    {OP_HEAD "op:\n  name: mine\n  axes: [sms]\n  buffers:\n" BUFS "  signature: [x]\n  reference: k\n" TAIL,
     "e.yaml:5:10: op.axes[0]: 'sms' is a device fact's name"},
    {OP_HEAD OPDECL("    rows: {type: f32, count: rows}\n", "") TAIL, "e.yaml:7:5: op.buffers.rows: 'rows' is already an axis"},
    {OP_HEAD OPDECL(BUFS, "  scalars: {eps: {type: f16, value: 1}}\n") TAIL,
     "op.scalars.eps.type: 'f16' is not one of: f32, f64, i32, i64"},
    {OP_HEAD OPDECL(BUFS, "  scalars: {eps: {type: f32}}\n") TAIL, "op.scalars.eps: a scalar needs `type:`"},
    {OP_HEAD OPDECL(BUFS, "  scalars: {n2: {type: i32, value: \"rows * cols * 2 +\"}}\n") TAIL,
     "op.scalars.n2.value: 'rows * cols * 2 +': "},
    {OP_HEAD OPDECL(BUFS, "  work: {flop: \"5 * rows * colz\"}\n") TAIL,
     "e.yaml:10:28: op.work.flop: '5 * rows * colz': unknown name 'colz'"},
    {OP_HEAD OPDECL(XB("{type: f32, count: \"rows * sms\"}"), "") TAIL,
     "e.yaml:7:27: op.buffers.x.count: 'rows * sms' names a device fact: a problem is the same on every GPU"},
    {OP_HEAD OPDECL(BUFS, "  work: {rate: GFLOP/s}\n") TAIL, "op.work.rate: GFLOP/s needs `flop:`"},
    {OP_HEAD OPDECL(BUFS, "  work: {rate: TB/s}\n") TAIL, "op.work.rate: 'TB/s' is not one of: GB/s, GFLOP/s"},
    {OP_HEAD OPDECL(BUFS, "  tolerance: {rtol: -1}\n") TAIL, "op.tolerance.rtol: -1 is out of range"},
    {OP_HEAD "op:\n  name: mine\n  axes: [rows, cols]\n  buffers:\n" BUFS "  signature: [x, y, rows, cols]\n"
             "  reference: nope\n" TAIL,
     "e.yaml:10:14: op.reference: 'nope' is not a variant of this experiment (variants: k)"},
    {OP_HEAD OPDECL(BUFS, "") "dtype: f16\n" TAIL, "e.yaml:11:8: dtype: belongs to a registered op; a declared op's"},
    {OP_HEAD OPDECL(BUFS, "") "tolerance: {rtol: 1}\n" TAIL, "tolerance: belongs to a registered op"},
    {OP_HEAD OPDECL(BUFS, "") "sizes: {rows: 8, cols: 16}\nvariants: [naive]\n",
     "e.yaml:12:12: variants[0]: 'naive': op mine is declared in this file, so its variants are too"},
    {OP_HEAD OPDECL(BUFS, "") "sizes: {rows: 8, colz: 16}\nvariants:\n  - {name: k, source: k.cu, block: [1], grid: [1]}\n",
     "sizes: 'colz' is not an axis of mine (axes: rows, cols"},
    /* A variant of several kernels. */
    {OP_HEAD OPDECL(BUFS, "") "sizes: {rows: 8, cols: 16}\nvariants:\n  - {name: k, source: k.cu, kernels: [{entry: k}]}\n",
     "e.yaml:13:39: variants[0].kernels[0]: a kernel needs `block:` and `grid:`"},
    {OP_HEAD OPDECL(BUFS, "") "sizes: {rows: 8, cols: 16}\nvariants:\n  - {name: k, source: k.cu, block: [1], kernels: []}\n",
     "e.yaml:13:36: variants[0]: with `kernels:`, each kernel has its own entry, block, grid and smem"},
    {OP_HEAD OPDECL(BUFS, "") "sizes: {rows: 8, cols: 16}\nvariants:\n  - {name: k, source: k.cu, kernels: []}\n",
     "variants[0].kernels: expected 1 to 4 kernels, got 0"},
    {OP_HEAD OPDECL(BUFS, "") "sizes: {rows: 8, cols: 16}\nvariants:\n  - name: k\n    source: k.cu\n    kernels:\n"
     "      - {entry: k, block: [1], grid: [1]}\n      - {entry: k, block: [1], grid: [1]}\n",
     "e.yaml:17:17: variants[0].kernels[1].entry: 'k' is kernel 0 already"},
    {OP_HEAD OPDECL(BUFS, "") "sizes: {rows: 8, cols: 16}\nvariants:\n  - {name: k, source: k.cu, block: [1], grid: [1], "
     "workspace: \"rows - 9\"}\n", "variants[0].workspace: 'rows - 9' is -1 bytes for rows=8,cols=16 (0 .. 2^40)"},
    /* Library variants: the call, its args' roles and types, and their counts per problem. */
    {OP_HEAD OPDECL(BUFS, "") "sizes: {rows: 8, cols: 16}\nvariants:\n  - {name: k, source: k.cu, block: [1], grid: [1]}\n" "  - {name: c, library: cub.scan}\n",
     "e.yaml:14:24: variants[1].library: 'cub.scan' is not a library call (cub.reduce_sum, cub.inclusive_sum"},
    {OP_HEAD OPDECL(BUFS, "") "sizes: {rows: 8, cols: 16}\nvariants:\n  - {name: k, source: k.cu, block: [1], grid: [1]}\n" "  - {name: c, library: cub.inclusive_sum}\n", "variants[1]: a library variant needs `args:`"},
    {OP_HEAD OPDECL(BUFS, "") "sizes: {rows: 8, cols: 16}\nvariants:\n  - {name: k, source: k.cu, block: [1], grid: [1]}\n" "  - {name: c, library: cub.inclusive_sum, args: {in: x, out: y}}\n",
     "variants[1].args: cub.inclusive_sum needs n (elements)"},
    {OP_HEAD OPDECL(BUFS, "") "sizes: {rows: 8, cols: 16}\nvariants:\n  - {name: k, source: k.cu, block: [1], grid: [1]}\n" "  - {name: c, library: cub.inclusive_sum, args: {in: x, out: y, n: n, m: 1}}\n",
     "variants[1].args: unknown key 'm' (expected one of: in, out, n)"},
    {OP_HEAD OPDECL(BUFS, "") "sizes: {rows: 8, cols: 16}\nvariants:\n  - {name: k, source: k.cu, block: [1], grid: [1]}\n" "  - {name: c, library: cub.inclusive_sum, args: {in: y, out: x, n: rows}}\n",
     "variants[1].args.in: cub.inclusive_sum reads in, and 'y' is an output (poisoned before the run)"},
    {OP_HEAD OPDECL(BUFS, "") "sizes: {rows: 8, cols: 16}\nvariants:\n  - {name: k, source: k.cu, block: [1], grid: [1]}\n" "  - {name: c, library: cub.inclusive_sum, args: {in: x, out: z, n: rows}}\n",
     "variants[1].args.out: 'z' is not a buffer of op mine"},
    {OP_HEAD OPDECL(XB("{type: f16, count: \"rows * cols\"}"), "") "sizes: {rows: 8, cols: 16}\nvariants:\n"
     "  - {name: k, source: k.cu, block: [1], grid: [1]}\n  - {name: c, library: cub.inclusive_sum, args: {in: x, out: y, n: rows}}\n",
     "variants[1].args.in: cub.inclusive_sum takes f32 f64 i32 i64 i8 u8 i16 u16 u32 u64; 'x' is f16"},
    {OP_HEAD OPDECL(XB("{type: f64, count: \"rows * cols\"}"), "") "sizes: {rows: 8, cols: 16}\nvariants:\n"
     "  - {name: k, source: k.cu, block: [1], grid: [1]}\n  - {name: c, library: cub.inclusive_sum, args: {in: x, out: y, n: rows}}\n",
     "variants[1].args.out: cub.inclusive_sum takes one type: 'y' is f32, 'x' f64"},
    {OP_HEAD OPDECL(BUFS, "") "sizes: {rows: 8, cols: 16}\nvariants:\n  - {name: k, source: k.cu, block: [1], grid: [1]}\n" "  - {name: c, library: cub.histogram_even, args: {samples: x, histogram: y, n: rows, bins: 4, lower: 0, upper: 4}}\n",
     "variants[1].args.histogram: cub.histogram_even's histogram is u32, and 'y' is f32"},
    {OP_HEAD OPDECL(BUFS, "") "sizes: {rows: 8, cols: 16}\nvariants:\n  - {name: k, source: k.cu, block: [1], grid: [1]}\n" "  - {name: c, library: cub.inclusive_sum, source: k.cu, args: {in: x, out: y, n: rows}}\n",
     "variants[1]: a library variant takes `library:` and `args:`, not a kernel's keys"},
    {OP_HEAD OPDECL(BUFS, "") "sizes: {rows: 8, cols: 16}\nvariants:\n  - {name: k, source: k.cu, block: [1], grid: [1]}\n" "  - {name: c, library: cub.inclusive_sum, args: {in: x, out: y, n: \"rows * cols + 1\"}}\n",
     "e.yaml:14:5: c: cub.inclusive_sum: in (x) holds 128 elements, the call reaches 129, at rows=8,cols=16"},
    {OP_HEAD OPDECL(BUFS, "") "sizes: {rows: 8, cols: 16}\nvariants:\n  - {name: k, source: k.cu, block: [1], grid: [1]}\n" "  - {name: c, library: cublas.gemm, args: {A: x, B: x, C: y, m: rows, n: cols, k: cols}}\n",
     "c: cublas.gemm: B (x) holds 128 elements, the call reaches 256"},
    {"name: t\nop: copy\nseed: 1\nsizes: {n: 8}\nvariants:\n  - {name: c, library: memcpy, args: {src: x}}\n",
     "e.yaml:6:24: variants[0]: library: belongs to a variant of an op declared in the file"},
    /* What the sizes make of the counts: the plan's errors, with the expression's place. */
    {OP_HEAD OPDECL(XB("{type: f32, count: \"rows - 8\"}"), "") TAIL,
     "e.yaml:7:27: op.buffers.x.count: 'rows - 8' is 0 elements at rows=8,cols=16: a buffer's count must be positive"},
    {OP_HEAD OPDECL(XB("{type: f32, count: \"rows - 9\"}"), "") TAIL, "'rows - 9' is -1 elements at rows=8,cols=16"},
    {OP_HEAD OPDECL(XB("{type: f64, count: \"rows * cols * 1000000000000000000\"}"), "") TAIL,
     "op.buffers.x.count: 'rows * cols * 1000000000000000000': "},
    {OP_HEAD OPDECL(XB("{type: f64, count: \"rows * 1000000000000000000\"}"), "") TAIL,
     "its bytes under 2^62"},
};

static void test_bad(void)
{
    for (size_t i = 0; i < sizeof bad_rows / sizeof *bad_rows; i++) {
        tl_experiment x;
        tl_plan p;
        tl_err e = {{0}};
        int rc = load(bad_rows[i].yaml, &x, &p, &e);
        CHECK(rc == -1, "row %zu: accepted, want: %s", i, bad_rows[i].want);
        if (rc == 0) {
            plan_free(&p);
            config_free(&x);
            continue;
        }
        CHECK(strstr(e.msg, bad_rows[i].want) != NULL, "row %zu:\n  got  %s\n  want %s", i, e.msg, bad_rows[i].want);
    }
}

/* The good declaration: the op the runner sees, its signature, its work, its reference cases. */
static void test_good(void)
{
    tl_experiment x;
    tl_plan p;
    tl_err e = {{0}};
    const char *yaml = OP_HEAD "op:\n  name: mine\n  axes: [rows, cols]\n  buffers:\n" BUFS
        "  signature: [x, y, rows, cols, eps, half]\n  reference: k\n"
        "  scalars: {eps: {type: f64, value: 0.5}, half: {type: i32, value: \"cols / 2\"}}\n"
        "  work: {flop: \"5 * rows * cols\"}\n"
        "sizes: {rows: [8, 4], cols: 16}\nvariants:\n  - {name: k, source: k.cu, block: [32], grid: [rows]}\n"
        "  - {name: j, source: k.cu, entry: k, params: {B: [32, 64]}, block: [B], grid: [rows]}\n";
    if (load(yaml, &x, &p, &e)) {
        CHECK(0, "the good declaration: %s", e.msg);
        return;
    }
    const reg_op *op = x.op;
    CHECK(op->decl == x.dop && !strcmp(op->name, "mine") && op->naxes == 2, "the op");
    CHECK(op->nkargs == 6 && !strcmp(op->kargs[0].type, "const float *") && !strcmp(op->kargs[1].type, "float *") &&
              op->kargs[2].kind == 'l' && !strcmp(op->kargs[3].name, "cols") && !strcmp(op->kargs[4].type, "double") &&
              op->kargs[5].kind == 'i', "the kernel's arguments");
    CHECK(!strcmp(op->rate, "GFLOP/s") && !strcmp(x.reference, "k"), "rate %s, reference %s", op->rate, x.reference);
    CHECK(p.ncases == 6 && p.nskipped == 0, "%d cases, %d skipped", p.ncases, p.nskipped);
    for (int i = 0; i < p.ncases; i++) {
        const tl_case *c = &p.cases[i];
        CHECK(c->ref && !strcmp(c->ref->variant->name, "k") && !strcmp(c->ref->sizes_text, c->sizes_text),
              "case %d's reference", i);
        CHECK(strstr(c->canonical, ";decl=") != NULL, "case %d: %s", i, c->canonical);
    }
    CHECK(op->flop(op, &p.cases[0].spec) == 5 * 8 * 16, "flop %g", op->flop(op, &p.cases[0].spec));
    CHECK(op->bytes(op, &p.cases[0].spec) == 8.0 * 8 * 16, "bytes %g (every buffer once)", op->bytes(op, &p.cases[0].spec));
    CHECK(!strcmp(p.cases[0].dtype, "f32"), "dtype %s", p.cases[0].dtype);
    plan_free(&p);
    config_free(&x);
}

/* The id of the first case of yaml's plan into id. */
static void first_id(const char *yaml, char *id)
{
    tl_experiment x;
    tl_plan p;
    tl_err e = {{0}};
    id[0] = '\0';
    if (load(yaml, &x, &p, &e)) {
        CHECK(0, "%s", e.msg);
        return;
    }
    memcpy(id, p.cases[0].id, 17);
    plan_free(&p);
    config_free(&x);
}

/* Two kernels a run, and their workspace: a launch each, in order. */
static void test_kernels(void)
{
    tl_experiment x;
    tl_plan p;
    tl_err e = {{0}};
    const char *yaml = OP_HEAD OPDECL(BUFS, "") "sizes: {rows: 8, cols: 16}\nvariants:\n  - name: k\n    source: k.cu\n"
        "    params: {T: [64]}\n    kernels:\n      - {entry: k, block: [T], grid: [rows]}\n"
        "      - {entry: k2, block: [32, 2], grid: [\"ceil_div(rows * cols, 64)\"], smem: 128}\n"
        "    workspace: \"rows * 8\"\n";
    if (load(yaml, &x, &p, &e)) {
        CHECK(0, "%s", e.msg);
        return;
    }
    const tl_case *c = &p.cases[0];
    CHECK(c->nlaunch == 2 && c->launch[0].block[0] == 64 && c->launch[0].grid[0] == 8 && c->launch[1].block[1] == 2 &&
              c->launch[1].grid[0] == 2 && c->launch[1].smem == 128, "launches %d: %u x %u, %u x %u", c->nlaunch,
          c->launch[0].grid[0], c->launch[0].block[0], c->launch[1].grid[0], c->launch[1].block[0]);
    CHECK(c->workspace == 64, "workspace %llu", (unsigned long long)c->workspace);
    plan_free(&p);
    config_free(&x);
}

static void test_ids(void)
{
    char a[17], b[17];
    first_id(GOOD, a);
    put("k.cu", "// another kernel's bytes\nextern \"C\" __global__ void k(const float *x, float *y, long long r, long long c) {}\n");
    first_id(GOOD, b);
    CHECK(!strcmp(a, b), "the kernel's bytes changed the id: %s %s", a, b);
    first_id(OP_HEAD OPDECL("    x: {type: f32, count: \"rows*cols\"}\n    y: {type: f32, count: \"rows * cols\", out: true}\n",
                            "") TAIL, b);
    CHECK(!strcmp(a, b), "blanks in a count changed the id");
    const char *changes[] = {
        OP_HEAD OPDECL(XB("{type: f32, count: \"rows * cols\", init: {uniform: {lo: -2, hi: 2}}}"), "") TAIL,
        OP_HEAD OPDECL(XB("{type: f64, count: \"rows * cols\"}"), "") TAIL,
        OP_HEAD OPDECL(XB("{type: f32, count: \"rows * cols + 1\"}"), "") TAIL,
        OP_HEAD OPDECL(BUFS, "  work: {bytes: \"8 * rows * cols\"}\n") TAIL,
        OP_HEAD OPDECL(XB("{type: f32, count: \"rows * cols\", inout: true}"), "") TAIL,
    };
    for (size_t i = 0; i < sizeof changes / sizeof *changes; i++) {
        first_id(changes[i], b);
        CHECK(b[0] && strcmp(a, b), "change %zu kept the id %s", i, a);
    }
}

/* Each init against its definition, on the host. */
static void test_inits(void)
{
    tl_experiment x;
    tl_plan p;
    tl_err e = {{0}};
    const char *yaml = OP_HEAD
        "op:\n  name: mine\n  axes: [n]\n  buffers:\n"
        "    u: {type: f32, count: n, init: {uniform: {lo: 2, hi: 3}}}\n"
        "    g: {type: f64, count: n, init: {normal: {mean: 5, std: 2}}}\n"
        "    i: {type: i16, count: n, init: {ints: {lo: -4, hi: 4}}}\n"
        "    c: {type: bf16, count: n, init: {constant: 1.5}}\n"
        "    s: {type: i64, count: n, init: {sequence: {start: 10, step: -3}}}\n"
        "    p: {type: u32, count: n, init: permutation}\n"
        "    h: {type: f16, count: n, init: {ints: {lo: -8, hi: 8}}}\n"
        "    v: {type: u8, count: n, init: {sequence: {start: 250}}}\n"
        "    y: {type: f32, count: n, out: true}\n"
        "  signature: [u, g, i, c, s, p, h, v, y, n]\n  reference: k\n"
        "sizes: {n: [4000, 6]}\nvariants:\n  - {name: k, source: k.cu, block: [1], grid: [1]}\n";
    if (load(yaml, &x, &p, &e)) {
        CHECK(0, "%s", e.msg);
        return;
    }
    const dop *d = x.dop;
    const reg_spec *s = &p.cases[0].spec;
    enum { N = 4000 };
    double v[8][N];
    for (int b = 0; b < 8; b++) {
        void *buf = calloc(N, 8);
        dop_fill(d, b, s, N, buf);
        for (int i = 0; i < N; i++) v[b][i] = dop_get(d->buffers[b].type, buf, i);
        free(buf);
    }
    double sum = 0, sq = 0;
    int seen[9] = {0}, distinct = 1;
    unsigned char hit[N] = {0};
    for (int i = 0; i < N; i++) {
        CHECK(v[0][i] >= 2 && v[0][i] < 3, "uniform %g", v[0][i]);
        sum += v[1][i], sq += v[1][i] * v[1][i];
        CHECK(v[2][i] >= -4 && v[2][i] <= 4 && v[2][i] == floor(v[2][i]), "ints %g", v[2][i]);
        seen[(int)v[2][i] + 4] = 1;
        CHECK(v[3][i] == 1.5, "constant %g", v[3][i]);
        CHECK(v[4][i] == 10 - 3.0 * i, "sequence %g at %d", v[4][i], i);
        CHECK(v[5][i] >= 0 && v[5][i] < N && !hit[(int)v[5][i]], "permutation %g at %d", v[5][i], i);
        if (v[5][i] >= 0 && v[5][i] < N) hit[(int)v[5][i]] = 1;
        CHECK(v[6][i] >= -8 && v[6][i] <= 8 && v[6][i] == floor(v[6][i]), "f16 ints %g", v[6][i]);
        if (i && v[0][i] != v[0][i - 1]) distinct++;
    }
    double mean = sum / N, sd = sqrt(sq / N - mean * mean);
    CHECK(fabs(mean - 5) < 0.15 && fabs(sd - 2) < 0.15, "normal: mean %g, sd %g", mean, sd);
    for (int k = 0; k < 9; k++) CHECK(seen[k], "ints never made %d", k - 4);
    CHECK(distinct > N / 2, "uniform: %d distinct neighbours", distinct);
    /* The same seed and name make the same data; another buffer's name, other data. */
    float a[64], b[64], c[64];
    dop_fill(d, 0, s, 64, a), dop_fill(d, 0, s, 64, b);
    CHECK(!memcmp(a, b, sizeof a), "the same buffer twice differs");
    dop_buffer other = d->buffers[0];
    ((dop *)d)->buffers[0].stream ^= 1;
    dop_fill(d, 0, s, 64, c);
    ((dop *)d)->buffers[0] = other;
    CHECK(memcmp(a, c, sizeof a), "another stream made the same data");
    /* v (u8 from 250) fits 6 elements: the n=4000 problem is skipped with the reason, n=6 runs. */
    CHECK(p.cases[0].skipped && strstr(p.cases[0].reason, "buffer v: its sequence reaches 4249 at element 3999, past "
                                                           "what u8 holds"), "reason %s", p.cases[0].reason);
    CHECK(!p.cases[1].skipped, "n=6: %s", p.cases[1].reason ? p.cases[1].reason : "");
    plan_free(&p);
    config_free(&x);
}

int main(void)
{
    const char *tmp = getenv("TEST_TMPDIR");
    snprintf(root, sizeof root, "%s/dop-XXXXXX", tmp ? tmp : "/tmp");
    if (!mkdtemp(root)) return 2;
    put("k.cu", "extern \"C\" __global__ void k(const float *x, float *y, long long r, long long c) {}\n");
    test_bad();
    test_good();
    test_kernels();
    test_ids();
    test_inits();
    return TEST_REPORT((int)(sizeof bad_rows / sizeof *bad_rows) + 4);
}
