/* Variants declared in an experiment file: every bad input (names, params, expressions, sources that
 * leave the folder, links out, oversized or binary files, includes) is an error naming the file,
 * line and column; the include scanner sees what a preprocessor sees; the plan evaluates requires and
 * launches per case, and case ids do not depend on the order params are written in. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runner/config/config.h"
#include "runner/ops/decl.h"
#include "runner/plan/plan.h"
#include "runner/testing/testutil.h"

static char root[512]; /* a temporary folder: root/exp is the experiment's folder */

static void put(const char *rel, const char *text, size_t len)
{
    char path[1024], dir[1024];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    snprintf(dir, sizeof dir, "%s", path);
    *strrchr(dir, '/') = '\0';
    tl_err e;
    CHECK(tl_mkdir_p(dir, &e) == 0, "%s", e.msg);
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL, "cannot write %s", path);
    if (!f) return;
    fwrite(text, 1, len, f);
    fclose(f);
}

#define PUT(rel, text) put(rel, text, strlen(text))

static const char kernel_ok[] =
    "#include \"inc/a.cuh\"\n"
    "extern \"C\" __global__ void k(int M, int N, int K, float alpha, const float *A, const float *B, float beta,\n"
    "                              float *C) {}\n";

static void make_folder(void)
{
    const char *tmp = getenv("TEST_TMPDIR");
    snprintf(root, sizeof root, "%s/declared-XXXXXX", tmp ? tmp : "/tmp");
    CHECK(mkdtemp(root) != NULL, "mkdtemp");
    PUT("exp/k/ok.cu", kernel_ok);
    PUT("exp/k/inc/a.cuh", "// a\n#include \"../common.cuh\"\n");
    PUT("exp/k/common.cuh", "// common\n");
    PUT("outside.cuh", "// not the experiment's\n");
    PUT("exp/k/esc.cu", "#include \"../../outside.cuh\"\n");
    PUT("exp/k/abs.cu", "#include \"/etc/hostname\"\n");
    PUT("exp/k/macro.cu", "#define H \"common.cuh\"\n#include H\n");
    PUT("exp/k/angle.cu", "#include <../../etc/passwd>\n");
    PUT("exp/k/missing.cu", "\n\n#include \"gone.cuh\"\n");
    PUT("exp/k/conflict.cu", "#include \"x.cuh\"\n#include \"sub/y.cuh\"\n");
    PUT("exp/k/x.cuh", "// x\n");
    PUT("exp/k/sub/y.cuh", "#include \"x.cuh\"\n");
    PUT("exp/k/sub/x.cuh", "// another x\n");
    put("exp/k/nul.cu", "abc\0def", 7);
    char *big = calloc(SOURCE_MAX_BYTES + 2, 1);
    memset(big, ' ', SOURCE_MAX_BYTES + 1);
    put("exp/k/big.cu", big, SOURCE_MAX_BYTES + 1);
    free(big);
    char a[1024], b[1024];
    snprintf(a, sizeof a, "%s/exp/k/linkout.cu", root);
    snprintf(b, sizeof b, "%s/outside.cuh", root);
    CHECK(symlink(b, a) == 0, "symlink");
    snprintf(a, sizeof a, "%s/exp/k/linkin.cu", root);
    CHECK(symlink("ok.cu", a) == 0, "symlink");
    snprintf(a, sizeof a, "%s/exp/k/adir.cu", root);
    CHECK(mkdir(a, 0755) == 0, "mkdir");
}

#define HEAD "name: t\nop: sgemm\nseed: 1\nsizes: {mnk: 64}\nvariants:\n"
#define DECL(rest) "  - {name: mine, source: k/ok.cu, entry: k, block: [128], grid: [1]" rest "}\n"

/* Loads HEAD + variants from root/exp/e.yaml, then plans it with device facts (or none). */
static int load(const char *variants, const int64_t *device, tl_experiment *x, tl_plan *p, tl_err *e)
{
    char path[1024], *text = tl_xasprintf(HEAD "%s", variants);
    snprintf(path, sizeof path, "%s/exp/e.yaml", root);
    put("exp/e.yaml", text, strlen(text));
    free(text);
    plan_limits lim = {0, 0, device};
    memset(p, 0, sizeof *p);
    if (config_load(path, x, e)) return -1;
    if (plan_expand(x, &lim, p, e)) {
        config_free(x);
        return -1;
    }
    return 0;
}

typedef struct {
    const char *variants;
    const char *want; /* substring; "e.yaml:L:C: ..." rows check the place */
} bad_row;

static const bad_row bad_rows[] = {
    {"  - {name: naive, source: k/ok.cu, block: [1], grid: [1]}\n",
     "e.yaml:6:12: variants[0]: 'naive' is a registered variant of sgemm: a variant with `source:` needs a name"},
    {"  - {name: mine, source: k/ok.cu, grid: [1]}\n", "e.yaml:6:12: variants[0]: a variant with `source:` needs `block:`"},
    {"  - {name: naive, entry: k}\n", "e.yaml:6:26: variants[0]: entry, block, grid, smem, requires, kernels and workspace belong to a variant"},
    {"  - {name: my-k, source: k/ok.cu, block: [1], grid: [1]}\n", "e.yaml:6:12: variants[0]: 'my-k': a declared variant's name"},
    {DECL("") DECL(""), "e.yaml:7:12: variants[1]: 'mine' is declared twice (first at line 6)"},
    {"  - {name: mine, source: k/ok.cu, entry: 2k, block: [1], grid: [1]}\n", "variants[0].entry: '2k' is not a kernel name"},
    {DECL(", params: {A_COL: 1}"), "variants[0].params: 'A_COL' cannot be a param: the runner defines <OPERAND>_COL"},
    {DECL(", params: {n: 1}"), "variants[0].params: 'n' cannot be a param: an axis of the op has that name"},
    {DECL(", params: {TL_X: 1}"), "'TL_X' cannot be a param: TL_ and __ names"},
    {DECL(", params: {sms: 1}"), "'sms' cannot be a param: a device fact has that name"},
    {DECL(", params: {9X: 1}"), "'9X' is not a macro name"},
    {DECL(", params: {BM: big}"), "variants[0].params.BM: expected an integer, got 'big'"},
    {"  - {name: mine, source: k/ok.cu, block: [128], grid: [\"ceil_div(n, BN\"]}\n",
     "e.yaml:6:69: variants[0].grid[0]: 'ceil_div(n, BN': unknown name 'BN'"},
    {"  - {name: mine, source: k/ok.cu, block: [128], grid: [\"ceil_div(n, 64\"]}\n",
     "e.yaml:6:71: variants[0].grid[0]: 'ceil_div(n, 64': expected ',' or ')' in ceil_div(...)"},
    {"  - {name: mine, source: k/ok.cu, block: [128], grid: [ceil_div(n, 64)]}\n",
     "(in a [...] list, quote an expression that holds a comma)"},
    {DECL(", smem: 'BNN * 4'"), "variants[0].smem: 'BNN * 4': unknown name 'BNN' (names: m, n, k, sms, smem_optin, warp)"},
    {"  - {name: mine, source: k/ok.cu, block: [1, 1, 1, 1], grid: [1]}\n", "variants[0].block: expected 1 to 3 expressions"},
    {DECL(", requires: [{a: 1}]"), "variants[0].requires[0]: expected a scalar, got a mapping"},
    {"  - {name: mine, source: k/gone.cu, block: [1], grid: [1]}\n",
     "e.yaml:6:26: variants[0].source: "},
    {"  - {name: mine, source: k/gone.cu, block: [1], grid: [1]}\n", "exp/k/gone.cu: no such file in the experiment's folder"},
    {"  - {name: mine, source: /etc/hostname, block: [1], grid: [1]}\n", "variants[0].source: /etc/hostname: an absolute path"},
    {"  - {name: mine, source: ../outside.cuh, block: [1], grid: [1]}\n", "../outside.cuh: it leaves the experiment's folder"},
    {"  - {name: mine, source: k/../../outside.cuh, block: [1], grid: [1]}\n", "it leaves the experiment's folder"},
    {"  - {name: mine, source: k/linkout.cu, block: [1], grid: [1]}\n", "k/linkout.cu: a link to "},
    {"  - {name: mine, source: k/big.cu, block: [1], grid: [1]}\n", "k/big.cu: 1.0 MiB, over the 1 MiB limit"},
    {"  - {name: mine, source: k/nul.cu, block: [1], grid: [1]}\n", "k/nul.cu: not a text file (it holds a NUL byte)"},
    {"  - {name: mine, source: k/adir.cu, block: [1], grid: [1]}\n", "k/adir.cu: not a regular file"},
    {"  - {name: mine, source: k/esc.cu, block: [1], grid: [1]}\n", "k/esc.cu:1: \"../../outside.cuh\": it leaves"},
    {"  - {name: mine, source: k/abs.cu, block: [1], grid: [1]}\n", "k/abs.cu:1: \"/etc/hostname\": an absolute path"},
    {"  - {name: mine, source: k/macro.cu, block: [1], grid: [1]}\n", "k/macro.cu:2: #include H: a computed include"},
    {"  - {name: mine, source: k/angle.cu, block: [1], grid: [1]}\n", "k/angle.cu:1: <../../etc/passwd>:"},
    {"  - {name: mine, source: k/missing.cu, block: [1], grid: [1]}\n",
     "k/missing.cu:3: #include \"gone.cuh\": "},
    {"  - {name: mine, source: k/conflict.cu, block: [1], grid: [1]}\n",
     "#include \"x.cuh\" names k/sub/x.cuh here and k/x.cuh elsewhere in the same compile"},
    /* Evaluated per case, by the plan. */
    {DECL(", params: {D: [1, 0]}, smem: 'n / D'"),
     "e.yaml:6:97: variants[0].smem: 'n / D': division by zero in 'n / D', for D=0 at m=64,n=64,k=64"},
    {"  - {name: mine, source: k/ok.cu, params: {T: [512, 2048]}, block: [T], grid: [1]}\n",
     "variants[0].block[0]: block [2048, 1, 1] for T=2048 at m=64,n=64,k=64: x and y may be 1024 at most"},
    {"  - {name: mine, source: k/ok.cu, block: [32, 32, 2], grid: [1]}\n", "a block has 1024 threads at most"},
    {"  - {name: mine, source: k/ok.cu, block: [128], grid: ['n / 128']}\n",
     "variants[0].grid[0]: 'n / 128' is 0 for m=64,n=64,k=64: a launch needs at least 1"},
    {DECL(", smem: 'm * n * k * m * n * k * m * n * k * m * n'"), "64-bit overflow in 'm * n * k * m * n * k * m * n * k * m * n'"},
};

static int check_bad(const bad_row *r)
{
    tl_experiment x;
    tl_plan p;
    tl_err e = {{0}};
    if (load(r->variants, NULL, &x, &p, &e) == 0) {
        CHECK(0, "accepted:\n%s", r->variants);
        plan_free(&p);
        config_free(&x);
        return 1;
    }
    const char *at = strstr(e.msg, "e.yaml:");
    const char *want = r->want;
    int ok = !strncmp(want, "e.yaml:", 7) ? at && !strncmp(at, want, strlen(want)) : strstr(e.msg, want) != NULL;
    CHECK(ok, "input:\n%swant: %s\ngot:  %s", r->variants, want, e.msg);
    return 1;
}

/* A declared variant plans like a registered one: params sorted, requires skip with the expression
 * as the reason (and stop at the first false one), the launch evaluated per case. */
static int check_plan(void)
{
    tl_experiment x;
    tl_plan p;
    tl_err e;
    int64_t dev[EXPR_NDEVICE] = {132, 232448, 32};
    const char *v = "  - {name: mine, source: k/linkin.cu, entry: k, params: {BN: 64, BM: [64, 96], D: [0, 2]},\n"
                    "     block: ['BM * BN / 32'], grid: ['ceil_div(n, BN)', 'ceil_div(m, BM)'], smem: '(BM + BN) * 4 * D',\n"
                    "     requires: ['D != 0', 'n / D > 1', 'BM % 64 == 0']}\n";
    int rc = load(v, dev, &x, &p, &e);
    CHECK(rc == 0, "%s", e.msg);
    if (rc) return 1;
    CHECK(p.ncases == 4, "%d cases", p.ncases);
    CHECK(!strcmp(p.cases[0].params_text, "BM=64,BN=64,D=0"), "params sorted by name: %s", p.cases[0].params_text);
    CHECK(p.cases[0].skipped && !strcmp(p.cases[0].reason, "requires D != 0"), "D=0: %s", p.cases[0].reason);
    CHECK(!p.cases[1].skipped && p.cases[1].nlaunch == 1, "BM=64,D=2 runs");
    const reg_launch *l = &p.cases[1].launch[0];
    CHECK(l->block[0] == 128 && l->grid[0] == 1 && l->grid[1] == 1 && l->smem == 1024, "launch %u %u %u %zu",
          l->block[0], l->grid[0], l->grid[1], l->smem);
    CHECK(p.cases[3].skipped && !strcmp(p.cases[3].reason, "requires BM % 64 == 0"), "BM=96: %s", p.cases[3].reason);
    /* Sources: the main file under the link's name, and its includes, as NVRTC will be given them. */
    const source_set *s = &x.variants[0].src;
    CHECK(s->n == 3 && !strcmp(s->names[0], "k/linkin.cu") && !strcmp(s->names[1], "inc/a.cuh") &&
              !strcmp(s->names[2], "../common.cuh"), "set of %d", s->n);
    CHECK(!strcmp(x.store.files[s->files[2]].path, "k/common.cuh"), "../common.cuh from inc/ is k/common.cuh");
    plan_free(&p);
    config_free(&x);
    return 1;
}

/* What depends on the device is left open without one, and decided (a skip for the device) with it. */
static int check_device_facts(void)
{
    tl_experiment x;
    tl_plan p;
    tl_err e;
    int64_t dev[EXPR_NDEVICE] = {132, 232448, 32};
    const char *v = DECL(", params: {S: [1, 4]}, smem: 'S * smem_optin / 2'");
    int rc = load(v, NULL, &x, &p, &e);
    CHECK(rc == 0, "%s", e.msg);
    if (rc) return 1;
    CHECK(p.cases[0].undecided && !p.cases[0].skipped && p.cases[0].nlaunch == 0, "undecided without a device");
    plan_free(&p);
    config_free(&x);
    rc = load(v, dev, &x, &p, &e);
    CHECK(rc == 0, "%s", e.msg);
    if (rc) return 1;
    CHECK(!p.cases[0].skipped && p.cases[0].launch[0].smem == 116224, "S=1 fits");
    CHECK(p.cases[1].skipped && p.cases[1].device_skip && strstr(p.cases[1].reason, "the device allows 232448"),
          "S=4: %s", p.cases[1].reason);
    plan_free(&p);
    config_free(&x);
    rc = load("  - {name: mine, source: k/ok.cu, entry: k, block: [128], grid: [1, 'm * 2000']}\n", dev, &x, &p, &e);
    CHECK(rc == 0, "%s", e.msg);
    if (rc) return 1;
    CHECK(p.cases[0].skipped && strstr(p.cases[0].reason, "grid [1, 128000, 1] is over CUDA's limits"), "grid: %s",
          p.cases[0].reason);
    plan_free(&p);
    config_free(&x);
    return 1;
}

/* Case ids depend on what the case is, not on how the YAML is written nor on the kernel's bytes
 * (those are recorded per case: an edited kernel keeps its cases comparable). */
static int check_case_ids(void)
{
    tl_experiment a, b;
    tl_plan pa, pb;
    tl_err e;
    int rc = load("  - {name: mine, source: k/ok.cu, entry: k, params: {X: [1, 2], Y: 3}, block: [32], grid: [1]}\n",
                  NULL, &a, &pa, &e);
    CHECK(rc == 0, "%s", e.msg);
    if (rc) return 1;
    rc = load("  - {name: mine, grid: [1], block: [32], params: {Y: 3, X: [1, 2]}, entry: k, source: k/linkin.cu}\n",
              NULL, &b, &pb, &e);
    CHECK(rc == 0, "%s", e.msg);
    if (rc == 0) {
        CHECK(pa.ncases == 2 && pb.ncases == 2, "cases");
        for (int i = 0; i < 2 && i < pa.ncases && i < pb.ncases; i++)
            CHECK(!strcmp(pa.cases[i].id, pb.cases[i].id), "case %d: %s vs %s", i, pa.cases[i].id, pb.cases[i].id);
        plan_free(&pb);
        config_free(&b);
    }
    plan_free(&pa);
    config_free(&a);
    return 1;
}

/* The include scanner: what a preprocessor sees, not what a grep would. */
typedef struct {
    const char *text;
    const char *want; /* "kind name @line;" per include, in order */
} scan_row;

static const scan_row scan_rows[] = {
    {"#include \"a.h\"\n#include <b.h>\n", "\"a.h@1;<b.h@2;"},
    {"  #  include\t\"a.h\" // c\n", "\"a.h@1;"},
    {"#include\"a.h\"\n", "\"a.h@1;"},
    {"%:include \"a.h\"\n", "\"a.h@1;"},
    {"#/* c */include /* c */ \"a.h\"\n", "\"a.h@1;"},
    {"#inc\\\nlude \"a.h\"\n#include \"b.h\"\n", "\"a.h@1;\"b.h@3;"},
    {"/*\n#include \"no.h\"\n*/\n#include \"yes.h\"\n", "\"yes.h@4;"},
    {"// #include \"no.h\"\n", ""},
    {"const char *s = \"#include \\\"no.h\\\"\";\n", ""},
    {"auto r = R\"x(\n#include \"no.h\"\n)x\";\n#include \"yes.h\"\n", "\"yes.h@4;"},
    {"int n = 1'000'000;\n#include \"a.h\"\n", "\"a.h@2;"},
    /* A ' after a number that is not a digit separator opens a character literal, as the compiler reads it. */
    {"#define TL_HIDE 1'/*'\n#include \"/etc/passwd\"\n// */\n", "\"/etc/passwd@2;"},
    {"int a = 0x1'f'/*';\n#include \"x.h\"\n// */\n", "\"x.h@2;"},
    {"double d = 1.5e+'/*';\n#include \"x.h\"\n// */\n", "\"x.h@2;"},
    {"int b = 1'\"/*\";\n#include \"x.h\"\n// */\n", "\"x.h@2;"},
    {"char c = '\"';\n#include \"a.h\"\n", "\"a.h@2;"},
    {"#include MACRO\n", "?MACRO@1;"},
    {"#include_next \"a.h\"\n#import <b.h>\n", "\"a.h@1;<b.h@2;"},
    {"#if __has_include(\"/etc/x\") && __has_include(<y.h>)\n#endif\n", "h/etc/x@1;Hy.h@1;"},
    {"#define include x\nint include;\n", ""},
    {"#include \"a.h\"", "\"a.h@1;"},
    {"#include \"unterminated\n", "?\"unterminated@1;"},
};

static int check_scanner(void)
{
    for (size_t i = 0; i < sizeof scan_rows / sizeof *scan_rows; i++) {
        source_include *inc;
        int n = source_scan_includes(scan_rows[i].text, strlen(scan_rows[i].text), &inc);
        tl_buf b = {0};
        tl_buf_printf(&b, "%s", "");
        for (int k = 0; k < n; k++) tl_buf_printf(&b, "%c%s@%d;", inc[k].kind, inc[k].name, inc[k].line);
        CHECK(!strcmp(b.s, scan_rows[i].want), "scan of:\n%s\ngot:  %s\nwant: %s", scan_rows[i].text, b.s,
              scan_rows[i].want);
        tl_buf_free(&b);
        source_includes_free(inc, n);
    }
    return (int)(sizeof scan_rows / sizeof *scan_rows);
}

/* Paths as the store normalises them; the ones that leave the root are refused. */
static int check_join(void)
{
    static const struct {
        const char *dir, *name, *want; /* want NULL: refused */
    } rows[] = {
        {"", "a.cu", "a.cu"}, {"k", "a.cuh", "k/a.cuh"}, {"k/inc", "../c.cuh", "k/c.cuh"}, {"k", "./x//y.cuh", "k/x/y.cuh"},
        {"", "../a", NULL},   {"k", "../../a", NULL},    {"", "/etc/passwd", NULL},      {"", "", NULL},
        {"k", "..", NULL},    {"", "a\nb", NULL},        {"", "a\\b", NULL},             {"", ".", NULL},
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        char out[256];
        const char *why;
        int rc = source_join(rows[i].dir, rows[i].name, out, sizeof out, &why);
        if (rows[i].want) CHECK(rc == 0 && !strcmp(out, rows[i].want), "%s + %s = %s", rows[i].dir, rows[i].name, out);
        else CHECK(rc != 0 && why, "%s + %s accepted as %s", rows[i].dir, rows[i].name, out);
    }
    return (int)(sizeof rows / sizeof *rows);
}

int main(void)
{
    int total = 0;
    make_folder();
    for (size_t i = 0; i < sizeof bad_rows / sizeof *bad_rows; i++) total += check_bad(&bad_rows[i]);
    total += check_plan() + check_device_facts() + check_case_ids() + check_scanner() + check_join();
    return TEST_REPORT(total);
}
