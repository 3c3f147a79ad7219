/* A dispatching variant (sgemm `tuned`) in a run: its cases run what the table picked, and the pick is part of the
 * case's identity; `table:` reads a file of the experiment's folder only, or one the runner carries
 * (`tilelab:sgemm/tuned_h200.table`); a run on a GPU other than its table's says so. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runner/jit/compile.h"
#include "runner/ops/dispatch.h"
#include "runner/ops/registry_lookup.h"
#include "runner/plan/plan.h"
#include "runner/run/report.h"
#include "runner/testing/testutil.h"

/* The table of the folder the experiments below name as my.table (its fourth line, hopper, is 3000^3's pick). */
static const char *TABLE =
    "op sgemm\n"
    "device Test GPU\n"
    "measured today\n"
    "m=4096,n=4096,k=4096 a=row,b=row f32 hopper BM=128,BN=128,WN=32,WNITER=2,STAGES=3  # 0.9 x cublas\n"
    "m=1024,n=1024,k=1024 a=row,b=row f32 smem_tile BLOCKSIZE=16\n"
    "m=1000,n=1000,k=777 a=row,b=row f32 double_buffer -\n"
    "m=64,n=64,k=64 a=row,b=row f32 smem_tile BLOCKSIZE=1\n"
    "m=4096,n=4096,k=4096 a=col,b=row f32 warptile -\n"
    "m=4096,n=4096,k=4096 a=row,b=row tf32 mma_sync -\n";

static char *write_folder(const char *table_text)
{
    char *dir = tl_xasprintf("%s/dispatch_XXXXXX", getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp");
    if (!mkdtemp(dir)) abort();
    char *path = tl_xasprintf("%s/my.table", dir);
    FILE *f = fopen(path, "w");
    fputs(table_text, f);
    fclose(f);
    free(path);
    return dir;
}

static int load_in(const char *dir, const char *yaml, tl_experiment *x, tl_plan *p, tl_err *e)
{
    char *path = tl_xasprintf("%s/t.yaml", dir);
    FILE *f = fopen(path, "w");
    fputs(yaml, f);
    fclose(f);
    plan_limits lim = {0};
    int rc = config_load(path, x, e);
    if (rc == 0 && plan_expand(x, &lim, p, e)) {
        config_free(x);
        rc = -1;
    }
    free(path);
    return rc;
}

/* load_in, or a failed check with its error and dir freed: 0 when x and p were made. */
static int load_or_fail(char *dir, const char *yaml, tl_experiment *x, tl_plan *p)
{
    tl_err e;
    if (load_in(dir, yaml, x, p, &e) == 0) return 0;
    CHECK(0, "%s", e.msg);
    free(dir);
    return -1;
}

/* `tuned` with a table of the experiment's folder: each case runs the pick, says so, and is another
 * case when the pick changes; a problem no rung takes is skipped with the reason. */
static int check_tuned_cases(void)
{
    char *dir = write_folder(TABLE);
    static const char *yaml = "name: t\nop: sgemm\nseed: 1\nlayout: {a: row, b: row}\ndtype: [f32, bf16]\n"
                              "sizes: [{mnk: [3000, 1100]}]\n"
                              "variants: [{name: tuned, table: my.table}, {name: smem_tile, params: {BLOCKSIZE: 16}}]\n";
    tl_experiment x;
    tl_plan p;
    tl_err e;
    if (load_or_fail(dir, yaml, &x, &p)) return 1;
    CHECK(p.ncases == 6, "ncases %d", p.ncases);
    const tl_case *big = &p.cases[0], *small = &p.cases[3], *plain = &p.cases[4], *bf16 = &p.cases[2];
    CHECK(!strcmp(big->variant->name, "tuned") && !strcmp(big->run->name, "hopper") && !big->skipped &&
              big->run_params[reg_find_param(big->run, "STAGES")] == 3 && big->run_src->n > 0 &&
              strstr(big->dispatch, "hopper BM=128,BN=128,WN=32,WNITER=2,STAGES=3 (") && strstr(big->dispatch, "my.table:4)"),
          "3000^3: runs %s, '%s'", big->run->name, big->dispatch ? big->dispatch : "");
    CHECK(big->launch[0].block[0] > 0 && big->nlaunch == 1, "the pick's launch");
    CHECK(!strcmp(small->run->name, "smem_tile") && strstr(small->canonical, ";runs=smem_tile;run_params=BLOCKSIZE=16"),
          "1100^3: %s", small->canonical);
    /* The same kernel as the plain smem_tile case, another case, the same problem. */
    CHECK(strcmp(small->id, plain->id), "tuned and smem_tile share an id");
    char *k1 = plan_problem_key(small), *k2 = plan_problem_key(plain);
    CHECK(!strcmp(k1, k2), "problem keys differ: %s / %s", k1, k2);
    free(k1), free(k2);
    CHECK(bf16->skipped && strstr(bf16->reason, "has no row of dtype bf16") && !bf16->dispatch, "bf16: %s",
          bf16->reason ? bf16->reason : "(not skipped)");
    /* The table is carried: it is a used file of the experiment. */
    const source_file *f = source_store_find(&x.store, SOURCE_EXPERIMENT, "my.table");
    CHECK(f && f->used, "my.table not in the store");
    char id[17];
    memcpy(id, big->id, sizeof id);
    plan_free(&p);
    config_free(&x);
    /* Another table that picks another rung for 3000^3: another case id. */
    char *path = tl_xasprintf("%s/my.table", dir);
    FILE *t = fopen(path, "w");
    fputs("op sgemm\nm=4096,n=4096,k=4096 a=row,b=row f32 warptile -\n", t);
    fclose(t);
    if (load_in(dir, yaml, &x, &p, &e) == 0) {
        CHECK(!strcmp(p.cases[0].run->name, "warptile") && strcmp(p.cases[0].id, id), "another pick, same id");
        plan_free(&p);
        config_free(&x);
    } else {
        CHECK(0, "%s", e.msg);
    }
    free(path);
    free(dir);
    return 8;
}

/* `trials: K`: a case tries the K candidates its table ranks first (dispatch_rank), the pick first. The
 * candidates are cases of their own with the case's id; the canonical text names them (another trial set,
 * another case); compiling ahead takes every candidate's kernel; the cost model counts their runs. */
static int check_trials(void)
{
    char *dir = write_folder("op sgemm\n"
                             "m=1024,n=1024,k=4096 a=row,b=row f32 cute_pipeline - rel=1\n"
                             "m=1024,n=1024,k=4096 a=row,b=row f32 warptile - rel=1.04\n"
                             "m=1024,n=1024,k=4096 a=row,b=row f32 hopper BM=64,BN=64,WN=32,WNITER=1,MINB=2 rel=1.2\n"
                             "m=1200,n=1200,k=4096 a=row,b=row f32 warptile - rel=1\n"
                             "m=1200,n=1200,k=4096 a=row,b=row f32 cute_pipeline - rel=1.3\n");
    static const char *yaml = "name: t\nop: sgemm\nseed: 1\nlayout: {a: row, b: row}\nsizes: [{mnk: 1100}]\n"
                              "variants: [{name: tuned, table: my.table, trials: 2}, {name: tuned, table: my.table, "
                              "trials: 1}, {name: tuned, table: my.table, trials: 16}]\n";
    tl_experiment x;
    tl_plan p;
    tl_err e;
    if (load_or_fail(dir, yaml, &x, &p)) return 1;
    int n = 11;
    CHECK(p.ncases == 3, "ncases %d", p.ncases);
    const tl_case *two = &p.cases[0], *one = &p.cases[1], *all = &p.cases[2];
    /* trials 16: the three candidates, and hopper's EDGE twin (its 64 x 64 tiles leave a warp's 32 columns
     * and more empty at 1100 = 18 x 64 - 52; warptile and cute_pipeline have none). */
    CHECK(two->ntrials == 2 && one->ntrials == 0 && !one->trial && all->ntrials == 4, "trials %d, %d, %d",
          two->ntrials, one->ntrials, all->ntrials);
    if (two->ntrials == 2 && all->ntrials == 4) {
        const tl_case *h = &all->trial[2], *w = &all->trial[3];
        int edge = reg_find_param(h->run, "EDGE");
        CHECK(!strcmp(h->run->name, "hopper") && w->run == h->run && edge >= 0 && h->run_params[edge] == 0 &&
                  w->run_params[edge] == 1 && w->run_params[0] == h->run_params[0] && w->nlaunch == 1 &&
                  strstr(w->dispatch, ",EDGE=1 (") &&
                  strstr(w->dispatch, "my.table:4 with EDGE=1)") && strstr(all->canonical, "EDGE=1"),
              "the twin: %s", w->dispatch);
        const tl_case *t0 = &two->trial[0], *t1 = &two->trial[1];
        /* The pick first, as the case itself has it; the other its own rung, launch and dispatch. */
        CHECK(t0->run == two->run && !memcmp(t0->run_params, two->run_params, sizeof t0->run_params) &&
                  !strcmp(t0->dispatch, two->dispatch) && !strcmp(two->run->name, "warptile"),
              "trial 0: %s, the case %s", t0->dispatch, two->dispatch);
        CHECK(t1->run != t0->run && t1->nlaunch == 1 && t1->launch[0].block[0] > 0 && !t1->skipped &&
                  t1->dispatch && strcmp(t1->dispatch, t0->dispatch),
              "trial 1: %s", t1->dispatch ? t1->dispatch : "(none)");
        CHECK(!strcmp(t0->id, two->id) && !strcmp(t1->id, two->id) && t1->canonical == two->canonical &&
                  t1->cv == two->cv && !strcmp(t1->sizes_text, two->sizes_text),
              "the trials share the case's identity");
        /* Identity: the trials are named, so trials 1, 2 and 16 make three cases of one problem. */
        CHECK(strstr(two->canonical, ";trials=2;tries=") && strstr(all->canonical, ";trials=4;tries=") &&
                  !strstr(one->canonical, ";trials="),
              "canonical: %s", two->canonical);
        CHECK(strcmp(two->id, one->id) && strcmp(two->id, all->id) && strcmp(one->id, all->id), "ids");
        char *k1 = plan_problem_key(two), *k2 = plan_problem_key(one);
        CHECK(!strcmp(k1, k2), "one problem: %s / %s", k1, k2);
        free(k1), free(k2);
        /* Compiling ahead: the four candidates once each. */
        compile_list l = {0};
        compile_collect(&x, &p, NULL, 0, &l);
        int seen = 0;
        for (int i = 0; i < l.n; i++)
            for (int k = 0; k < all->ntrials; k++)
                seen += l.items[i].c->run == all->trial[k].run &&
                        !memcmp(l.items[i].c->run_params, all->trial[k].run_params, sizeof all->trial[k].run_params);
        CHECK(l.n == 4 && seen == 4, "compile list %d kernels, %d of the candidates", l.n, seen);
        compile_list_free(&l);
        CHECK(plan_cost(two) > plan_cost(one) && plan_cost(all) > plan_cost(two), "cost %g, %g, %g", plan_cost(one),
              plan_cost(two), plan_cost(all));
    }
    plan_free(&p);
    config_free(&x);
    /* trials: where it does not belong, or out of range. */
    static const struct {
        const char *variant, *want;
    } bad[] = {
        {"{name: tuned, table: my.table, trials: 0}", "variants[0].trials: 0 is out of range [1, 16]"},
        {"{name: tuned, table: my.table, trials: 17}", "variants[0].trials: 17 is out of range [1, 16]"},
        {"{name: tuned, table: my.table, trials: two}", "variants[0].trials: expected an integer"},
        {"{name: hopper, trials: 2}", "trials: belongs to a dispatching variant; hopper is not one"},
        {"{name: mine, source: k.cu, trials: 2}", "trials: belongs to a dispatching variant (e.g. tuned)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++, n++) {
        char *y = tl_xasprintf("name: t\nop: sgemm\nseed: 1\nsizes: {mnk: 64}\nvariants: [%s]\n", bad[i].variant);
        int rc = load_in(dir, y, &x, &p, &e);
        CHECK(rc == -1 && strstr(e.msg, bad[i].want), "%s: got '%s', want '%s'", bad[i].variant, rc ? e.msg : "(loaded)",
              bad[i].want);
        if (rc == 0) plan_free(&p), config_free(&x);
        free(y);
    }
    free(dir);
    return n;
}

/* The op's trial twins (sgemm: EDGE 1 beside a hopper or packed candidate whose tiles leave whole warps past
 * C's edge): only where the tiles do, only with trials (trials 1 runs the pick alone), and a pick with no
 * other candidate still gets its twin. */
static int check_twins(void)
{
    char *dir = write_folder("op sgemm\n"
                             "m=1024,n=1024,k=4096 a=row,b=row f32 hopper BM=64,BN=64,WM=32,WN=32,WNITER=1,MINB=2\n");
    static const char *yaml = "name: t\nop: sgemm\nseed: 1\nlayout: {a: row, b: row}\n"
                              "sizes: [{mnk: 1024}, {m: 1100, n: 1024, k: 4096}, {m: 1024, n: 1090, k: 4096}, "
                              "{m: 1050, n: 1050, k: 4096}]\n"
                              "variants: [{name: tuned, table: my.table, trials: 4}]\n";
    tl_experiment x;
    tl_plan p;
    tl_err e;
    if (load_or_fail(dir, yaml, &x, &p)) return 1;
    /* 1024: none past; 1100: 1152 - 1100 = 52 rows past, >= WM 32; 1090: 62 columns past; 1050: 38 both ways. */
    int want[4] = {0, 2, 2, 2}, n = 1;
    CHECK(p.ncases == 4, "ncases %d", p.ncases);
    for (int i = 0; i < p.ncases && i < 4; i++, n++) {
        const tl_case *c = &p.cases[i];
        CHECK(c->ntrials == want[i] && (!want[i] || strstr(c->trial[1].dispatch, "EDGE=1")), "%s: %d candidates",
              c->sizes_text, c->ntrials);
    }
    plan_free(&p);
    config_free(&x);
    /* trials 1: the pick alone. */
    if (load_in(dir, "name: t\nop: sgemm\nseed: 1\nlayout: {a: row, b: row}\nsizes: {m: 1100, n: 1024, k: 4096}\n"
                     "variants: [{name: tuned, table: my.table, trials: 1}]\n", &x, &p, &e) == 0) {
        CHECK(p.ncases == 1 && p.cases[0].ntrials == 0, "trials 1: %d candidates", p.cases[0].ntrials);
        plan_free(&p);
        config_free(&x);
    } else {
        CHECK(0, "%s", e.msg);
    }
    free(dir);
    return n + 1;
}

/* Kernels of two experiments compiled together (runner compile A.yaml B.yaml): the same rung and params
 * built for beta 0 and for beta != 0 (TL_BETA_NONZERO) are two kernels, not one. */
static int check_collect_args(void)
{
    char *dir = write_folder("op sgemm\nm=64,n=64,k=64 a=row,b=row f32 hopper -\n");
    const char *yaml[2] = {"name: t\nop: sgemm\nseed: 1\nsizes: {mnk: 64}\nvariants: [smem_tile]\n",
                           "name: t\nop: sgemm\nseed: 1\nargs: {beta: -1.25}\nsizes: {mnk: 64}\nvariants: [smem_tile]\n"};
    tl_experiment x[2];
    tl_plan p[2];
    tl_err e;
    int loaded = 0, n = 1;
    for (int i = 0; i < 2; i++, loaded++)
        if (load_in(dir, yaml[i], &x[i], &p[i], &e)) break;
    CHECK(loaded == 2, "%s", loaded == 2 ? "" : e.msg);
    if (loaded == 2) {
        compile_list l = {0};
        compile_collect(&x[0], &p[0], NULL, 0, &l);
        compile_collect(&x[1], &p[1], NULL, 0, &l);
        compile_collect(&x[0], &p[0], NULL, 0, &l); /* again: nothing new */
        n++;
        CHECK(l.n == 2 && l.items[0].x == &x[0] && l.items[1].x == &x[1], "%d kernels for beta 0 and beta -1.25", l.n);
        compile_list_free(&l);
    }
    for (int i = 0; i < loaded; i++) plan_free(&p[i]), config_free(&x[i]);
    free(dir);
    return n;
}

static int check_config_errors(void)
{
    char *dir = write_folder("op sgemm\nm=64,n=64,k=64 a=row,b=row f32 hopper BX=1\n");
    static const struct {
        const char *variants, *want;
    } bad[] = {
        {"[{name: tuned, table: my.table}]", "t.yaml:5:33: variants[0].table: "},
        {"[{name: tuned, table: my.table}]", "my.table:2: params: BX is not a param of hopper"},
        {"[{name: tuned, table: ../x.table}]", "it leaves the experiment's folder"},
        {"[{name: tuned, table: none.table}]", "none.table"},
        {"[{name: hopper, table: my.table}]", "table: belongs to a dispatching variant; hopper is not one"},
        {"[{name: tuned, table: [a]}]", "variants[0].table"},
        /* A table the runner carries, by name: only its op's .table files, and the error lists them. */
        {"[{name: tuned, table: \"tilelab:sgemm/none.table\"}]",
         "t.yaml:5:33: variants[0].table: this runner carries no table kernels/sgemm/none.table (tilelab:sgemm/tuned_h100.table"},
        {"[{name: tuned, table: tilelab:sgemm/10_warptile.cu}]",
         "variants[0].table: 'tilelab:sgemm/10_warptile.cu' names no table this runner carries for op sgemm ("},
        {"[{name: tuned, table: tilelab:reduce/x.table}]", "names no table this runner carries for op sgemm"},
        {"[{name: tuned, table: \"tilelab:sgemm/../sgemm/tuned_h100.table\"}]", "this runner carries no table"},
    };
    int n = 0;
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++, n++) {
        char *yaml = tl_xasprintf("name: t\nop: sgemm\nseed: 1\nsizes: {mnk: 64}\nvariants: %s\n", bad[i].variants);
        tl_experiment x;
        tl_plan p;
        tl_err e;
        int rc = load_in(dir, yaml, &x, &p, &e);
        CHECK(rc == -1 && strstr(e.msg, bad[i].want), "%s: got '%s', want '%s'", bad[i].variants,
              rc ? e.msg : "(loaded)", bad[i].want);
        if (rc == 0) plan_free(&p), config_free(&x);
        free(yaml);
    }
    free(dir);
    return n;
}

/* yaml parsed and planned into x and p, or a failed check: 0 when they were made. */
static int parse_or_fail(const char *yaml, tl_experiment *x, tl_plan *p)
{
    tl_err e;
    plan_limits lim = {0};
    if (config_parse("t.yaml", yaml, strlen(yaml), x, &e) == 0 && plan_expand(x, &lim, p, &e) == 0) return 0;
    CHECK(0, "%s", e.msg);
    return -1;
}

/* The registry's own table (kernels/sgemm/tuned_h100.table) parses, and `tuned` without `table:`
 * uses it. */
static int check_default_table(void)
{
    static const char *yaml = "name: t\nop: sgemm\nseed: 1\nsizes: {mnk: 4096}\nvariants: [tuned]\n";
    tl_experiment x;
    tl_plan p;
    if (parse_or_fail(yaml, &x, &p)) return 1;
    CHECK(!p.cases[0].skipped && p.cases[0].run != p.cases[0].variant &&
              strstr(p.cases[0].dispatch, "(kernels/sgemm/tuned_h100.table:"),
          "4096^3: %s", p.cases[0].dispatch ? p.cases[0].dispatch : p.cases[0].reason);
    CHECK(x.variants[0].table && x.variants[0].table->n >= 48 && strstr(x.variants[0].table->device, "H100"),
          "the table: %d rows, device '%s'", x.variants[0].table ? x.variants[0].table->n : 0,
          x.variants[0].table ? x.variants[0].table->device : "");
    plan_free(&p);
    config_free(&x);
    return 2;
}

/* The tables the runner carries (kernels/OP/ *.table): each parses for its op, names its device in its
 * header (dispatch_header_device reads the same as the parse), and `table: tilelab:OP/NAME.table` runs it. */
static int check_carried_tables(void)
{
    int n = 0, tables = 0;
    for (int i = 0; i < reg_nsources; i++) {
        const reg_source *r = &reg_sources[i];
        size_t len = strlen(r->path);
        if (len < 6 || strcmp(r->path + len - 6, ".table")) continue;
        tables++;
        char op[32], device[256];
        snprintf(op, sizeof op, "%.*s", (int)strcspn(r->path, "/"), r->path);
        dispatch_table t;
        tl_err e;
        int rc = dispatch_parse(reg_find_op(op), r->path, r->text, r->len, &t, &e);
        CHECK(rc == 0, "%s: %s", r->path, e.msg);
        n++;
        if (rc) continue;
        CHECK(dispatch_header_device(r->text, r->len, device, sizeof device) && t.device[0] && !strcmp(device, t.device),
              "%s: header device '%s', parsed '%s'", r->path, device, t.device);
        n++;
        char *yaml = tl_xasprintf("name: t\nop: %s\nseed: 1\nsizes: {mnk: 4096}\n"
                                  "variants: [{name: tuned, table: \"tilelab:%s\"}]\n", op, r->path);
        tl_experiment x;
        tl_plan p;
        plan_limits lim = {0};
        char *where = tl_xasprintf("(kernels/%s:", r->path);
        if (config_parse("t.yaml", yaml, strlen(yaml), &x, &e) || plan_expand(&x, &lim, &p, &e)) {
            CHECK(0, "%s: %s", r->path, e.msg);
        } else {
            CHECK(!p.cases[0].skipped && strstr(p.cases[0].dispatch, where) && !strcmp(x.variants[0].table->device, device),
                  "%s: 4096^3 ran '%s'", r->path, p.cases[0].dispatch ? p.cases[0].dispatch : p.cases[0].reason);
            plan_free(&p);
            config_free(&x);
        }
        n++;
        free(where), free(yaml);
        dispatch_free(&t);
    }
    CHECK(tables >= 2, "the runner carries %d tables (tuned_h100, tuned_h200)", tables);
    char device[64];
    static const char *late = "op sgemm\nm=64,n=64,k=64 a=row,b=row f32 hopper -\ndevice X\n";
    CHECK(!dispatch_header_device(late, strlen(late), device, sizeof device), "a device line after the rows: '%s'", device);
    static const char *cut = "# c\nop sgemm\n  device   NVIDIA H200 with a long name\r\nsms 132\n";
    CHECK(dispatch_header_device(cut, strlen(cut), device, 12) && !strcmp(device, "NVIDIA H200"), "cut to fit: '%s'", device);
    return n + 3;
}

/* A run on a GPU other than its table's says so at its start and names the table the runner carries for
 * that GPU; on the table's own GPU, or on the host, nothing. */
static int check_table_device_note(void)
{
    static const char *yaml = "name: t\nop: sgemm\nseed: 1\nsizes: {mnk: 4096}\nvariants: [tuned, cublas]\n";
    tl_experiment x;
    tl_plan p;
    if (parse_or_fail(yaml, &x, &p)) return 1;
    static const struct {
        int have_gpu;
        const char *gpu, *want;
    } runs[] = {
        {1, "NVIDIA H200", "tilelab: note: tuned's table kernels/sgemm/tuned_h100.table was measured on NVIDIA H100 80GB "
                           "HBM3, this GPU is NVIDIA H200; this runner carries one measured on it: {name: tuned, table: "
                           "tilelab:sgemm/tuned_h200.table}\n"},
        {1, "NVIDIA B200", "this GPU is NVIDIA B200; for picks measured here, run the op's tuning experiment"},
        {1, "NVIDIA H100 80GB HBM3", NULL},
        {0, "", NULL},
    };
    int n = 0;
    for (size_t i = 0; i < sizeof runs / sizeof *runs; i++, n++) {
        env_info env;
        memset(&env, 0, sizeof env);
        env.have_gpu = runs[i].have_gpu;
        snprintf(env.gpu_name, sizeof env.gpu_name, "%s", runs[i].gpu);
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        report_header(f, &x, &p, &env, "out.h5");
        fclose(f);
        CHECK(runs[i].want ? strstr(buf, runs[i].want) != NULL : strstr(buf, "note") == NULL, "on '%s':\n%s",
              runs[i].gpu, buf);
        free(buf);
    }
    plan_free(&p);
    config_free(&x);
    return n;
}

int main(void)
{
    int total = 0;
    total += check_tuned_cases();
    total += check_trials();
    total += check_twins();
    total += check_collect_args();
    total += check_config_errors();
    total += check_default_table();
    total += check_carried_tables();
    total += check_table_device_note();
    return TEST_REPORT(total);
}
