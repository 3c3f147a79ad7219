/* config: every malformed input gets a message naming file:line:column and the field. */
#include <stdlib.h>

#include "runner/config/config.h"
#include "runner/testing/testutil.h"

typedef struct {
    const char *yaml;
    const char *want; /* expected prefix (file:line:col: field: ...) or substring after '~' */
} bad_row;

#define HEAD "name: t\nop: sgemm\nseed: 1\n"
#define SIZES "sizes: {mnk: 64}\n"
#define VARS "variants: [naive]\n"

#define SEARCHED "variants:\n  - name: smem_tile\n    params: {BLOCKSIZE: [8, 16, 32]}\n  - cublas\n"

#define LONG_NAME "n23456789012345678901234567890123456789012345678901234567890123456789012345678901234567890" \
    "1234567890123456789012345678901234567890"

static const bad_row bad_rows[] = {
    /* what no name or text may hold, at its place */
    {"name: \"t\\u0000x\"\nop: sgemm\nseed: 1\n" SIZES VARS,
     "t.yaml:1:7: experiment: a value holds a NUL character (\\0), which no name or text may hold"},
    {"name: " LONG_NAME "\nop: sgemm\nseed: 1\n" SIZES VARS,
     "t.yaml:1:7: name: 130 characters, more than the 128 a name may have (it names the output file)"},
    {"name: t\nop: sgemm\nseed: 1\ndescription: caf\xe9 au lait\n" SIZES VARS, "t.yaml:4:18: YAML syntax: invalid trailing UTF-8 octet"},
    /* search: (lines 5-8 are SEARCHED, `search:` is line 9) */
    {HEAD SIZES SEARCHED "search: {strategy: annealing, budget: {cases: 2}}\n",
     "t.yaml:9:20: search.strategy: 'annealing' is not one of: random, genetic, local, bayes"},
    {HEAD SIZES SEARCHED "search: {strategy: bayes}\n", "t.yaml:9:9: search: 'budget' is missing"},
    {HEAD SIZES SEARCHED "search: {strategy: bayes, budget: {cases: 0}}\n",
     "t.yaml:9:43: search.budget.cases: 0 is out of range [1, "},
    {HEAD SIZES SEARCHED "search: {strategy: bayes, budget: {fraction: 0}}\n",
     "t.yaml:9:46: search.budget.fraction: must be more than 0"},
    {HEAD SIZES SEARCHED "search: {strategy: bayes, budget: {fraction: 1.5}}\n",
     "t.yaml:9:46: search.budget.fraction: 1.5 is out of range [0, 1]"},
    {HEAD SIZES SEARCHED "search: {strategy: bayes, budget: {seconds: -3}}\n",
     "t.yaml:9:45: search.budget.seconds: -3 is out of range"},
    {HEAD SIZES SEARCHED "search: {strategy: bayes, budget: {cases: 4}}\n",
     "t.yaml:9:43: search.budget.cases: 4 is over the space (the largest search has 3 points before the rules)"},
    {HEAD SIZES SEARCHED "search: {strategy: bayes, budget: {cases: 2, seconds: 9}}\n",
     "t.yaml:9:35: search.budget: give one of cases, fraction or seconds (it has 2)"},
    {HEAD SIZES SEARCHED "search: {strategy: bayes, budget: 20}\n", "t.yaml:9:35: search.budget: expected a mapping"},
    {HEAD SIZES SEARCHED "search: {strategy: bayes, budget: {cases: 2}, objective: speed}\n",
     "t.yaml:9:58: search.objective: unknown objective 'speed' (time, energy, or a counter's metric name"},
    {HEAD SIZES SEARCHED "search: {strategy: bayes, budget: {cases: 2}, objective: dram__bytes_read.sum}\n",
     "t.yaml:9:58: search.objective: 'dram__bytes_read.sum' is not among the counters variant 'smem_tile' collects "
     "(none): add it to `counters:`"},
    {HEAD SIZES SEARCHED "search: {strategy: bayes, budget: {cases: 2}, better: higher}\n",
     "t.yaml:9:55: search.better: a time is better lower"},
    {HEAD SIZES SEARCHED "search: {strategy: bayes, budget: {cases: 2}, pace: 3}\n",
     "t.yaml:9:47: search: unknown key 'pace'"},
    {HEAD SIZES "variants:\n  - name: smem_tile\n    params: {BLOCKSIZE: 16}\n  - cublas\n"
     "search: {strategy: genetic, budget: {cases: 2}}\n",
     "t.yaml:9:9: search: nothing to search: no variant has a param with a list of values"},
    {"", "t.yaml:1:1: experiment: the file is empty"},
    {"name: [unclosed\n", "t.yaml:2:1: YAML syntax: did not find expected ',' or ']'"},
    {"- a\n- b\n", "t.yaml:1:1: experiment: expected a mapping of fields"},
    {HEAD SIZES VARS "nmae: x\n", "t.yaml:6:1: experiment: unknown key 'nmae' (expected one of: name, description"},
    {"op: sgemm\nseed: 1\n" SIZES VARS, "t.yaml:1:1: name: required field is missing"},
    {"name: t\nop: dgemm\nseed: 1\n" SIZES VARS, "t.yaml:2:5: op: unknown op 'dgemm' (ops: sgemm, reduce, copy, transpose; or declare one"},
    {"name: t\nop: sgemm\nseed: abc\n" SIZES VARS, "t.yaml:3:7: seed: expected an integer, got 'abc'"},
    {"name: t\nop: sgemm\nseed: -4\n" SIZES VARS, "t.yaml:3:7: seed: -4 is out of range"},
    {HEAD SIZES "variants: [smem]\n", "t.yaml:5:12: variants[0]: op 'sgemm' has no variant 'smem' (variants: naive,"},
    {HEAD SIZES "variants:\n  - name: smem_tile\n    params: {BLOKSIZE: 16}\n",
     "t.yaml:7:14: variants[0].params: variant 'smem_tile' has no param 'BLOKSIZE' (its params: BLOCKSIZE)"},
    {HEAD SIZES "variants:\n  - name: smem_tile\n    params: {BLOCKSIZE: big}\n",
     "t.yaml:7:25: variants[0].params.BLOCKSIZE: expected an integer, got 'big'"},
    {HEAD "sizes: {m: 64, n: 64}\n" VARS, "t.yaml:4:8: sizes: axis 'k' is not given"},
    {HEAD "sizes: {mnk: 8, m: 4}\n" VARS, "t.yaml:4:17: sizes: axis 'm' is given twice"},
    {HEAD "sizes: {mnk: 0}\n" VARS, "t.yaml:4:14: sizes.mnk: 0 is out of range [1, 2147483647]"},
    {HEAD "sizes: {mnk: {pow2: [5, 3]}}\n" VARS, "t.yaml:4:21: sizes.mnk: pow2: lo 5 is above hi 3"},
    {HEAD "sizes: {mnk: {range: [8, 64, 0]}}\n" VARS, "t.yaml:4:22: sizes.mnk: range: step must be positive, got 0"},
    {HEAD "sizes:\n  zip: {m: [1, 2], n: [1, 2, 3]}\n  k: 8\n" VARS,
     "t.yaml:5:23: sizes.zip.n: zip needs lists of one length: 3 here, 2 before"},
    {HEAD "seed: 2\n" SIZES VARS, "t.yaml:4:1: experiment: key 'seed' is given twice"},
    {HEAD SIZES VARS "layout: {a: diag}\n", "t.yaml:6:13: layout.a: 'diag' is not one of: row, col"},
    {HEAD SIZES VARS "measure: {reps: 5}\n", "t.yaml:6:11: measure: unknown key 'reps' (expected one of: warmup,"},
    {HEAD SIZES VARS "measure: {min_reps: 50, max_reps: 10}\n", "t.yaml:6:10: measure: min_reps (50) is above max_reps (10)"},
    {HEAD SIZES VARS "tolerance: {rtol: -1}\n", "t.yaml:6:19: tolerance.rtol: -1 is out of range [0, 1]"},
    {"name: a/b\nop: sgemm\nseed: 1\n" SIZES VARS, "t.yaml:1:7: name: 'a/b' may hold only letters, digits"},
    {HEAD SIZES VARS "dtype: f64\n", "t.yaml:6:8: dtype: 'f64' is not one of: f32, tf32, bf16"},
    {HEAD SIZES VARS "dtype: [f32, tf32, f32]\n", "t.yaml:6:20: dtype: 'f32' is listed twice"},
    {HEAD SIZES VARS "dtype: []\n", "t.yaml:6:8: dtype: expected 1 to 3 of the op's dtypes"},
    {HEAD SIZES VARS "dtype: [f32, f16]\n", "t.yaml:6:14: dtype: 'f16' is not one of: f32, tf32, bf16"},
    {HEAD SIZES "dtype: [tf32, bf16]\nvariants: [cublas, hopper]\n",
     "t.yaml:6: variants: hopper takes dtype f32, not tf32, bf16 (runner list sgemm shows each variant's)"},
    {HEAD SIZES "variants: []\n", "t.yaml:5:11: variants: the list is empty"},
    {HEAD "sizes: {q: 4}\n" VARS, "t.yaml:4:9: sizes: 'q' is not an axis of sgemm (axes: m, n, k"},
    {HEAD SIZES VARS "measure: {l2_flush: maybe}\n", "t.yaml:6:21: measure.l2_flush: expected true or false, got 'maybe'"},
    {HEAD SIZES VARS "reference: cudnn\n", "t.yaml:6:12: reference: 'cudnn' is not one of: cublas, host"},
    {HEAD SIZES VARS "args: {gamma: 2}\n", "t.yaml:6:8: args: op 'sgemm' has no arg 'gamma'"},
    {HEAD SIZES "variants:\n  - params: {BX: 8}\n", "t.yaml:6:5: variants[0]: 'name' is required"},
    {HEAD "sizes: 64\n" VARS, "t.yaml:4:8: sizes: expected a mapping of axes or a list of them, got a scalar"},
    {HEAD "sizes:\n  - 64\n" VARS, "t.yaml:5:5: sizes: each list item must be a mapping of axes"},
    {HEAD "sizes: {mnk: {pow2: [3, 5], range: [1, 2, 1]}}\n" VARS, "t.yaml:4:14: sizes.mnk: expected one of {pow2"},
    {HEAD SIZES VARS "args: {alpha: nan}\n", "t.yaml:6:15: args.alpha: expected a number, got 'nan'"},
    {HEAD SIZES VARS "data: gaussian\n", "t.yaml:6:7: data: 'gaussian' is not one of: uniform, normal, int"},
    {HEAD SIZES VARS "verify: sometimes\n", "t.yaml:6:9: verify: 'sometimes' is not one of: off, once, every"},
    {HEAD SIZES "verify: every\nmeasure: {batch: 4}\n" VARS,
     "t.yaml:7:12: variants[0]: verify: every checks each run, so it needs batch: 1"},
    {HEAD SIZES "variants:\n  - name: naive\n    measure: {reps: 3}\n",
     "t.yaml:7:15: variants[0].measure: unknown key 'reps' (expected one of: warmup, warmup_s,"},
    {HEAD SIZES VARS "measure: {batch: 0}\n", "t.yaml:6:18: measure.batch: 0 is out of range [1, 100000]"},
    {HEAD SIZES VARS "counters: [memroy]\n",
     "t.yaml:6:12: counters: 'memroy' is neither a set (memory, smem, occupancy, roofline) nor a metric name"},
    {HEAD SIZES VARS "counters: [memory, DRAM__bytes.sum]\n", "t.yaml:6:20: counters: 'DRAM__bytes.sum' is neither"},
    {HEAD SIZES VARS "counters: [dram__bytes..sum]\n", "t.yaml:6:12: counters: 'dram__bytes..sum' is neither"},
    {HEAD SIZES VARS "counters: {memory: 1}\n", "t.yaml:6:11: counters: expected a metric or set name, or a list"},
    {HEAD SIZES VARS "counters: [[memory]]\n", "t.yaml:6:12: counters: each item must be a metric or set name"},
    {HEAD SIZES "variants:\n  - {name: naive, counters: [dram_bytes]}\n",
     "t.yaml:6:30: variants[0].counters: 'dram_bytes' is neither"},
    {HEAD SIZES "variants:\n  - {name: naive, countres: [memory]}\n", "t.yaml:6:19: variants[0]: unknown key 'countres'"},
};

static int check_bad(const bad_row *r)
{
    tl_experiment x;
    tl_err e = {{0}};
    int rc = config_parse("t.yaml", r->yaml, strlen(r->yaml), &x, &e);
    config_free(&x);
    if (rc == 0) {
        CHECK(0, "accepted malformed input:\n%s", r->yaml);
        return 1;
    }
    CHECK(strncmp(e.msg, r->want, strlen(r->want)) == 0, "input:\n%s\nwant prefix: %s\ngot:         %s", r->yaml,
          r->want, e.msg);
    return 1;
}

static int check_sizes(void)
{
    static const char *yaml = HEAD
        "sizes:\n"
        "  - {mnk: {pow2: [3, 5]}}\n"                 /* 8, 16, 32 tied */
        "  - {m: [1, 2], n: {range: [10, 30, 10]}, k: 7}\n" /* product: 2 x 3 */
        "  - {zip: {mn: [4, 5], k: [6, 7]}}\n"          /* zipped: 2 */
        VARS;
    static const int64_t want[][3] = {{8, 8, 8},   {16, 16, 16}, {32, 32, 32}, {1, 10, 7}, {1, 20, 7}, {1, 30, 7},
                                      {2, 10, 7},  {2, 20, 7},   {2, 30, 7},   {4, 4, 6},  {5, 5, 7}};
    tl_experiment x;
    tl_err e;
    int rc = config_parse("t.yaml", yaml, strlen(yaml), &x, &e);
    CHECK(rc == 0, "%s", e.msg);
    int n = (int)(sizeof want / sizeof *want);
    CHECK(x.nsizes == n, "nsizes %d, want %d", x.nsizes, n);
    for (int i = 0; i < n && i < x.nsizes; i++)
        CHECK(!memcmp(x.sizes[i].dims, want[i], sizeof want[i]), "size %d: got %lld,%lld,%lld", i,
              (long long)x.sizes[i].dims[0], (long long)x.sizes[i].dims[1], (long long)x.sizes[i].dims[2]);
    config_free(&x);
    return 1;
}

static int check_defaults_and_params(void)
{
    static const char *yaml = HEAD SIZES
        "variants:\n"
        "  - name: naive\n    params: {BY: [4, 8]}\n"
        "  - cublas\n"
        "layout: {b: [row, col]}\n"
        "args: {beta: 0.5}\n"
        "measure: {warmup: 2, l2_flush: false}\n";
    tl_experiment x;
    tl_err e;
    int rc = config_parse("t.yaml", yaml, strlen(yaml), &x, &e);
    CHECK(rc == 0, "%s", e.msg);
    if (rc) return 1;
    CHECK(x.nvariants == 2, "nvariants %d", x.nvariants);
    CHECK(x.variants[0].nvalues[0] == 1 && x.variants[0].values[0][0] == 32, "BX default 32");
    CHECK(x.variants[0].nvalues[1] == 2 && x.variants[0].values[1][1] == 8, "BY sweep [4, 8]");
    CHECK(x.nlayouts[0] == 1 && x.layouts[0][0] == REG_ROW, "a defaults to row");
    CHECK(x.nlayouts[1] == 2 && x.layouts[1][1] == REG_COL, "b sweeps row, col");
    CHECK(x.args[0] == 1.0 && x.args[1] == 0.5, "alpha default 1, beta 0.5");
    CHECK(x.protocol.warmup == 2 && x.protocol.l2_flush == 0, "measure overrides");
    CHECK(x.protocol.max_reps == measure_defaults.max_reps, "measure defaults kept");
    CHECK(!strcmp(x.reference, "cublas"), "reference defaults to the op's first");
    CHECK(x.tol.rtol == x.op->tol.rtol, "tolerance defaults to the op's");
    CHECK(strlen(x.sha256) == 64, "config sha256");
    CHECK(x.variants[0].protocol.warmup == 2, "variants inherit the experiment's protocol");
    config_free(&x);
    return 1;
}

static int check_variant_override_and_int_data(void)
{
    static const char *yaml = HEAD SIZES
        "data: int\n"
        "measure: {max_reps: 50, batch: 2}\n"
        "variants:\n"
        "  - {name: naive, measure: {batch: 16, max_reps: 20}}\n"
        "  - cublas\n";
    tl_experiment x;
    tl_err e;
    int rc = config_parse("t.yaml", yaml, strlen(yaml), &x, &e);
    CHECK(rc == 0, "%s", e.msg);
    if (rc) return 1;
    CHECK(x.variants[0].protocol.batch == 16 && x.variants[0].protocol.max_reps == 20, "variant override");
    CHECK(x.variants[1].protocol.batch == 2 && x.variants[1].protocol.max_reps == 50, "experiment protocol kept");
    CHECK(x.dist == REG_INT && x.tol.rtol == 0 && x.tol.atol == 0, "int data is checked exactly by default");
    config_free(&x);
    return 1;
}

/* counters: sets expand, duplicates go, a variant's list replaces the experiment's, [] turns them off. */
static int check_counters(void)
{
    static const char *yaml = HEAD SIZES
        "counters: [smem, l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum, dram__bytes_read.sum]\n"
        "variants:\n"
        "  - naive\n"
        "  - {name: cublas, counters: dram__bytes_write.sum}\n"
        "  - {name: smem_tile, counters: []}\n";
    tl_experiment x;
    tl_err e;
    int rc = config_parse("t.yaml", yaml, strlen(yaml), &x, &e);
    CHECK(rc == 0, "%s", e.msg);
    if (rc) return 1;
    int nsmem = 0;
    for (int i = 0; i < counters_nsets; i++) nsmem += !strcmp(counters_sets[i].set, "smem");
    /* the bank-conflict metric is in smem already: counted once */
    CHECK(x.counters.n == nsmem + 1, "experiment: %d metrics, want %d", x.counters.n, nsmem + 1);
    CHECK(!strcmp(x.counters.names[x.counters.n - 1], "dram__bytes_read.sum"), "order kept: last %s",
          x.counters.names[x.counters.n - 1]);
    CHECK(x.counters.line[0] == 5 && x.counters.col[0] == 12, "a set's metrics sit where the set is named (%d:%d)",
          x.counters.line[0], x.counters.col[0]);
    CHECK(!strcmp(x.counters.text, "smem, l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum, dram__bytes_read.sum"),
          "text: %s", x.counters.text);
    CHECK(x.variants[0].counters.n == x.counters.n, "naive inherits the experiment's counters");
    CHECK(x.variants[1].counters.n == 1 && !strcmp(x.variants[1].counters.names[0], "dram__bytes_write.sum"),
          "cublas: its own list replaces the experiment's");
    CHECK(x.variants[2].counters.n == 0, "smem_tile: [] turns them off");
    config_free(&x);
    return 1;
}

static int check_missing_file(void)
{
    tl_experiment x;
    tl_err e;
    CHECK(config_load("no/such/file.yaml", &x, &e) != 0, "missing file accepted");
    CHECK(strstr(e.msg, "no/such/file.yaml: cannot open") == e.msg, "got: %s", e.msg);
    config_free(&x);
    return 1;
}

/* An experiment file is bounded: nested past CFG_MAX_DEPTH or larger than CFG_MAX_BYTES, it is refused at the
 * place it goes wrong, before libyaml builds anything of it (the time it takes is a benchmark's, not checked). */
static int check_limits(void)
{
    tl_experiment x;
    tl_err e = {{0}};
    tl_buf b = {0};
    tl_buf_printf(&b, HEAD SIZES VARS "description: ");
    for (int i = 0; i < 100000; i++) tl_buf_printf(&b, "{a: ");
    tl_buf_printf(&b, "1");
    for (int i = 0; i < 100000; i++) tl_buf_printf(&b, "}");
    int rc = config_parse("t.yaml", b.s, b.len, &x, &e);
    config_free(&x);
    /* line 6, the 64th "{a: " from column 14 (the file's own mapping is the first level) */
    CHECK(rc != 0 && !strcmp(e.msg, "t.yaml:6:266: experiment: nested more than 64 deep: an experiment nests a few levels"),
          "deep nesting: %s", e.msg);
    tl_buf_free(&b);
    tl_buf_printf(&b, HEAD SIZES VARS "description: [");
    for (int i = 0; i < 62; i++) tl_buf_printf(&b, "[");
    for (int i = 0; i < 63; i++) tl_buf_printf(&b, "]");
    rc = config_parse("t.yaml", b.s, b.len, &x, &e);
    config_free(&x);
    CHECK(rc != 0 && strstr(e.msg, "t.yaml:6:14: description: expected a scalar, got a list"), "64 deep is the limit, not past it: %s",
          e.msg);
    tl_buf_free(&b);
    size_t big = (size_t)CFG_MAX_BYTES + 1;
    char *text = malloc(big);
    memset(text, ' ', big);
    memcpy(text, HEAD, strlen(HEAD));
    rc = config_parse("t.yaml", text, big, &x, &e);
    config_free(&x);
    free(text);
    CHECK(rc != 0 && !strcmp(e.msg, "t.yaml:1:1: experiment: 16777217 bytes, more than the 16 MiB an experiment file may "
                                    "take (data belong in data files beside it)"), "a large file: %s", e.msg);
    return 1;
}

int main(void)
{
    int total = 0;
    for (size_t i = 0; i < sizeof bad_rows / sizeof *bad_rows; i++) total += check_bad(&bad_rows[i]);
    total += check_sizes();
    total += check_defaults_and_params();
    total += check_variant_override_and_int_data();
    total += check_counters();
    total += check_missing_file();
    total += check_limits();
    return TEST_REPORT(total);
}
