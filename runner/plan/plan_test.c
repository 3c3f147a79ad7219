/* plan: deterministic expansion, stable case ids, skipped cases with reasons. */
#include <stdlib.h>

#include "runner/plan/plan.h"
#include "runner/plan/plan_fixture.h"
#include "runner/testing/testutil.h"

/* Sizes outer, then layouts, then variants as listed, params last-fastest. */
static int check_order(void)
{
    static const char *yaml =
        "name: t\nop: sgemm\nseed: 5\n"
        "sizes: {mnk: [64, 128]}\n"
        "variants:\n"
        "  - {name: naive, params: {BX: [8, 16], BY: 4}}\n"
        "  - cublas\n"
        "  - {name: smem_tile, params: {BLOCKSIZE: 40}}\n";
    static const char *want[] = {
        "naive BX=8,BY=4 m=64,n=64,k=64",       "naive BX=16,BY=4 m=64,n=64,k=64",
        "cublas  m=64,n=64,k=64",               "smem_tile BLOCKSIZE=40 m=64,n=64,k=64",
        "naive BX=8,BY=4 m=128,n=128,k=128",    "naive BX=16,BY=4 m=128,n=128,k=128",
        "cublas  m=128,n=128,k=128",            "smem_tile BLOCKSIZE=40 m=128,n=128,k=128",
    };
    tl_experiment x;
    tl_plan p;
    if (load(yaml, &x, &p, 0)) return 1;
    CHECK(p.ncases == 8, "ncases %d", p.ncases);
    for (int i = 0; i < p.ncases && i < 8; i++) {
        char got[128];
        snprintf(got, sizeof got, "%s %s %s", p.cases[i].variant->name, p.cases[i].params_text, p.cases[i].sizes_text);
        CHECK(!strcmp(got, want[i]), "case %d: got '%s', want '%s'", i, got, want[i]);
    }
    CHECK(p.nskipped == 2, "nskipped %d", p.nskipped);
    CHECK(p.cases[3].skipped && strstr(p.cases[3].reason, "BLOCKSIZE = 40 is not 1 .. 32"), "reason: %s",
          p.cases[3].reason ? p.cases[3].reason : "(none)");
    unload(&x, &p);
    return 1;
}

/* The same cases written with other key orders have the same ids, and a known case has a known id. */
static int check_ids_stable(void)
{
    static const char *a =
        "name: t\nop: sgemm\nseed: 1234\nlayout: {a: row, b: col}\nargs: {alpha: 2, beta: 0.5}\n"
        "sizes: {m: 100, n: 200, k: 300}\n"
        "variants:\n  - {name: naive, params: {BX: 16, BY: 8}}\n";
    static const char *b =
        "variants:\n  - {params: {BY: 8, BX: 16}, name: naive}\n"
        "sizes: {k: 300, n: 200, m: 100}\n"
        "args: {beta: 0.5, alpha: 2.0}\nlayout: {b: col, a: row}\nseed: 1234\nop: sgemm\nname: other_name\n"
        "measure: {min_reps: 2, max_reps: 7}\n";
    tl_experiment xa, xb;
    tl_plan pa, pb;
    if (load(a, &xa, &pa, 0)) return 1;
    if (load(b, &xb, &pb, 0)) {
        unload(&xa, &pa);
        return 1;
    }
    CHECK(pa.ncases == 1 && pb.ncases == 1, "one case each");
    CHECK(!strcmp(pa.cases[0].id, pb.cases[0].id), "ids differ: %s vs %s", pa.cases[0].id, pb.cases[0].id);
    CHECK(!strcmp(pa.cases[0].canonical,
                  "tilelab-case/2;op=sgemm;variant=naive;target=cuda;params=BX=16,BY=8;sizes=m=100,n=200,k=300;"
                  "dtype=f32;layout=a=row,b=col;args=alpha=2,beta=0.5;seed=1234;data=uniform"),
          "canonical text changed: %s", pa.cases[0].canonical);
    /* sha256 of that text: a change here re-identifies every stored case (resume, compare, merge). */
    CHECK(!strcmp(pa.cases[0].id, "3861ace5e071d04f"), "case id changed: %s", pa.cases[0].id);
    unload(&xa, &pa);
    unload(&xb, &pb);
    return 1;
}

/* A param added to a variant after it had cases (hopper's TLDG) is in the case's text only when set:
 * the cases at its default keep the ids they had, and setting it makes other cases. */
static int check_later_param_keeps_ids(void)
{
    static const char *yaml = "name: t\nop: sgemm\nseed: 9\nsizes: {mnk: 512}\n"
                              "variants:\n  - {name: hopper, params: {TLDG: [0, 1]}}\n";
    tl_experiment x;
    tl_plan p;
    if (load(yaml, &x, &p, 0)) return 1;
    CHECK(p.ncases == 2, "ncases %d", p.ncases);
    if (p.ncases == 2) {
        CHECK(strstr(p.cases[0].canonical, ";params=BM=128,BN=256,BK=16,WM=64,WN=64,WNITER=4,TM=8,TN=4,STAGES=2,"
                                           "GROUP_M=8,MINB=1,THREADS=0,SWIZZLE=0,SPLITK=1,ODD=0;sizes=") != NULL,
              "hopper at TLDG = 0: %s", p.cases[0].canonical);
        CHECK(!strcmp(p.cases[1].params_text, "BM=128,BN=256,BK=16,WM=64,WN=64,WNITER=4,TM=8,TN=4,STAGES=2,GROUP_M=8,"
                                              "MINB=1,THREADS=0,SWIZZLE=0,SPLITK=1,ODD=0,TLDG=1"),
              "hopper at TLDG = 1: %s", p.cases[1].params_text);
        CHECK(strcmp(p.cases[0].id, p.cases[1].id), "TLDG does not change the id");
    }
    unload(&x, &p);
    return 1;
}

/* Whatever changes what runs changes the id. */
static int check_ids_distinct(void)
{
    static const char *yaml =
        "name: t\nop: sgemm\nseed: 1\nlayout: {a: [row, col]}\nargs: {beta: 0.25}\n"
        "sizes: {mnk: [32, 64]}\n"
        "variants:\n  - {name: smem_tile, params: {BLOCKSIZE: [8, 16]}}\n  - {name: gmem_coalesced, params: {BLOCKSIZE: 8}}\n";
    tl_experiment x;
    tl_plan p;
    if (load(yaml, &x, &p, 0)) return 1;
    CHECK(p.ncases == 12, "ncases %d", p.ncases);
    for (int i = 0; i < p.ncases; i++)
        for (int j = i + 1; j < p.ncases; j++)
            CHECK(strcmp(p.cases[i].id, p.cases[j].id), "cases %d and %d share id %s", i, j, p.cases[i].id);
    unload(&x, &p);
    static const char *seed2 =
        "name: t\nop: sgemm\nseed: 2\nlayout: {a: [row, col]}\nargs: {beta: 0.25}\n"
        "sizes: {mnk: [32, 64]}\n"
        "variants:\n  - {name: smem_tile, params: {BLOCKSIZE: [8, 16]}}\n  - {name: gmem_coalesced, params: {BLOCKSIZE: 8}}\n";
    tl_experiment x1, x2;
    tl_plan p1, p2;
    if (load(yaml, &x1, &p1, 0)) return 1;
    if (load(seed2, &x2, &p2, 0)) {
        unload(&x1, &p1);
        return 1;
    }
    CHECK(strcmp(p1.cases[0].id, p2.cases[0].id), "seed does not change the id");
    unload(&x1, &p1);
    unload(&x2, &p2);
    return 1;
}

/* A dtype list is a sweep axis: each variant gets a case per dtype it takes, each with its own id and
 * the tolerance of its dtype. */
static int check_dtype_sweep(void)
{
    static const char *yaml =
        "name: t\nop: sgemm\nseed: 1\ndtype: [f32, tf32, bf16]\nsizes: {mnk: [32, 64]}\n"
        "variants: [cublas, smem_tile, host_naive]\n";
    tl_experiment x;
    tl_plan p;
    if (load(yaml, &x, &p, 0)) return 1;
    /* cublas and host_naive take the three dtypes, smem_tile only f32: 7 per size. */
    CHECK(p.ncases == 14, "ncases %d", p.ncases);
    int per[3] = {0};
    for (int i = 0; i < p.ncases; i++) {
        const tl_case *c = &p.cases[i];
        CHECK(!strcmp(c->dtype, x.op->dtypes[c->spec.dtype]), "case %d: dtype %s, spec %d", i, c->dtype, c->spec.dtype);
        CHECK(strstr(c->canonical, c->dtype), "case %d: the dtype is not in its canonical text", i);
        CHECK(strcmp(c->variant->name, "smem_tile") || c->spec.dtype == 0, "smem_tile planned for %s", c->dtype);
        per[c->spec.dtype]++;
        for (int j = i + 1; j < p.ncases; j++)
            CHECK(strcmp(c->id, p.cases[j].id), "cases %d and %d share id %s", i, j, c->id);
        reg_tolerance t = config_tolerance(&x, &c->spec);
        CHECK(c->spec.dtype == 1 ? t.rtol > 1e-3 && t.rtol < 2e-3 : t.rtol == 1e-5, "%s: rtol %g", c->dtype, t.rtol);
    }
    CHECK(per[0] == 6 && per[1] == 4 && per[2] == 4, "cases per dtype %d %d %d", per[0], per[1], per[2]);
    unload(&x, &p);
    /* A tolerance the file gives holds for every dtype. */
    static const char *given =
        "name: t\nop: sgemm\nseed: 1\ndtype: [f32, tf32]\nsizes: {mnk: 32}\nvariants: [cublas]\ntolerance: {rtol: 0.01}\n";
    if (load(given, &x, &p, 0)) return 1;
    for (int i = 0; i < p.ncases; i++)
        CHECK(config_tolerance(&x, &p.cases[i].spec).rtol == 0.01, "%s: the file's tolerance is not used", p.cases[i].dtype);
    unload(&x, &p);
    return 1;
}

static int check_memory_and_overflow(void)
{
    static const char *yaml =
        "name: t\nop: sgemm\nseed: 1\n"
        "sizes:\n  - {mnk: 1024}\n  - {mnk: 2147483647}\n  - {m: 65536, n: 65536, k: 1}\n"
        "variants: [cublas, smem_tile]\n";
    tl_experiment x;
    tl_plan p;
    if (load(yaml, &x, &p, 8u << 20)) return 1; /* 8 MiB of device memory */
    CHECK(p.ncases == 6, "ncases %d", p.ncases);
    /* A and B 4 MiB each; C, its initial value, the reference and the error scale 4 MiB each. */
    CHECK(p.cases[0].skipped && strstr(p.cases[0].reason, "needs 24.0 MiB of device memory, 8.0 MiB available"),
          "memory: %s", p.cases[0].reason ? p.cases[0].reason : "(not skipped)");
    CHECK(p.cases[2].skipped && strstr(p.cases[2].reason, "overflows"), "overflow: %s",
          p.cases[2].reason ? p.cases[2].reason : "(not skipped)");
    unload(&x, &p);
    if (load(yaml, &x, &p, 0)) return 1; /* no memory limit: the int-index constraint remains */
    CHECK(!p.cases[0].skipped && !p.cases[1].skipped, "1024^3 runs without a memory limit");
    CHECK(p.cases[5].skipped && strstr(p.cases[5].reason, "2^31-1 elements"), "int index: %s",
          p.cases[5].reason ? p.cases[5].reason : "(not skipped)");
    unload(&x, &p);
    return 1;
}

/* A case listed twice is an error, found at plan time, before anything runs. */
/* plan_find: every case of a plan by its id, at its own index; an id of no case, -1. */
static int check_find_by_id(void)
{
    static const char *yaml = "name: t\nop: sgemm\nseed: 4\nlayout: {a: [row, col], b: [row, col]}\n"
                              "sizes: {mnk: [8, 16, 24, 32, 40]}\nvariants: [naive, smem_tile, cublas]\n";
    tl_experiment x;
    tl_plan p;
    int n = 0;
    if (load(yaml, &x, &p, 0)) return 1;
    plan_id *ids = plan_ids(&p);
    for (int i = 0; i < p.ncases; i++, n++) CHECK(plan_find(ids, p.ncases, p.cases[i].id) == i, "case %d", i);
    char other[17];
    snprintf(other, sizeof other, "%s", p.cases[0].id);
    other[15] = other[15] == '0' ? '1' : '0';
    int known = 0;
    for (int i = 0; i < p.ncases; i++) known |= !strcmp(p.cases[i].id, other);
    CHECK(known || plan_find(ids, p.ncases, other) == -1, "%s found", other);
    CHECK(plan_find(ids, p.ncases, "") == -1 && plan_find(ids, 0, p.cases[0].id) == -1, "empty");
    free(ids);
    unload(&x, &p);
    return n + 2;
}

static int check_duplicates_rejected(void)
{
    static const char *const dup[] = {
        "name: t\nop: sgemm\nseed: 1\nsizes: {mnk: 64}\nvariants: [cublas, naive, cublas]\n",
        "name: t\nop: sgemm\nseed: 1\nsizes: {mnk: [64, 32, 64]}\nvariants: [cublas]\n",
        "name: t\nop: sgemm\nseed: 1\nsizes: {mnk: 64}\nvariants: [{name: smem_tile, params: {BLOCKSIZE: [8, 16, 8]}}]\n",
    };
    for (size_t i = 0; i < sizeof dup / sizeof *dup; i++) {
        tl_experiment x;
        tl_plan p;
        tl_err e;
        plan_limits lim = {0};
        CHECK(config_parse("t.yaml", dup[i], strlen(dup[i]), &x, &e) == 0, "%s", e.msg);
        CHECK(plan_expand(&x, &lim, &p, &e) != 0, "duplicate accepted: %s", dup[i]);
        CHECK(strstr(e.msg, "is listed twice") != NULL, "got: %s", e.msg);
        config_free(&x);
    }
    return 3;
}

/* The loads of count shares (each problem's set-up once per share that has it), and the largest
 * problem's cost with its set-up. */
static void shard_loads(const tl_plan *p, const unsigned char *mine, int count, double *load, double *largest)
{
    *largest = 0;
    for (int s = 0; s < count; s++) load[s] = 0;
    for (int i = 0; i < p->ncases; i++) {
        char *key = plan_problem_key(&p->cases[i]);
        double all = plan_setup_cost(&p->cases[i]);
        for (int j = 0; j < p->ncases; j++) {
            char *kj = plan_problem_key(&p->cases[j]);
            if (!strcmp(key, kj)) all += plan_cost(&p->cases[j]);
            free(kj);
        }
        if (all > *largest) *largest = all;
        for (int s = 0; s < count; s++) {
            if (!mine[(size_t)s * p->ncases + i]) continue;
            load[s] += plan_cost(&p->cases[i]);
            int seen = 0; /* an earlier case of the problem in this share */
            for (int j = 0; j < i && !seen; j++) {
                if (!mine[(size_t)s * p->ncases + j]) continue;
                char *kj = plan_problem_key(&p->cases[j]);
                seen = !strcmp(key, kj);
                free(kj);
            }
            if (!seen) load[s] += plan_setup_cost(&p->cases[i]);
        }
        free(key);
    }
}

/* The shares that hold a case of the problem of case i. */
static int problem_owners(const tl_plan *p, const unsigned char *mine, int count, int i)
{
    char *key = plan_problem_key(&p->cases[i]);
    int owners = 0;
    for (int s = 0; s < count; s++) {
        int has = 0;
        for (int j = 0; j < p->ncases && !has; j++) {
            if (!mine[(size_t)s * p->ncases + j]) continue;
            char *kj = plan_problem_key(&p->cases[j]);
            has = !strcmp(key, kj);
            free(kj);
        }
        owners += has;
    }
    free(key);
    return owners;
}

/* Shards: disjoint, covering, balanced by the cost model with set-ups (no share above another by
 * more than the largest problem), a problem's cases kept together unless it alone is more than a
 * share, independent of anything but the plan; bad I/N refused. */
static int check_shards(void)
{
    static const char *yaml =
        "name: t\nop: sgemm\nseed: 5\n"
        "sizes: {mnk: [64, 256, 1024, 4096, 8192]}\n"
        "layout: {a: [row, col], b: [row, col]}\n"
        "variants: [naive, cublas, {name: smem_tile, params: {BLOCKSIZE: [8, 16, 32]}}, host_ikj]\n";
    tl_experiment x;
    tl_plan p;
    if (load(yaml, &x, &p, 0)) return 1;
    enum { N = 7 };
    unsigned char *mine = calloc((size_t)p.ncases, N), *again = calloc((size_t)p.ncases, 1);
    double load_of[N], largest;
    for (int s = 0; s < N; s++) CHECK(plan_shard(&p, s, N, mine + (size_t)s * p.ncases) == 0, "shard %d", s);
    for (int i = 0; i < p.ncases; i++) {
        int owners = 0;
        for (int s = 0; s < N; s++) owners += mine[(size_t)s * p.ncases + i];
        CHECK(owners == 1, "case %d has %d shards", i, owners);
    }
    shard_loads(&p, mine, N, load_of, &largest);
    double lo = load_of[0], hi = load_of[0];
    for (int s = 1; s < N; s++) lo = load_of[s] < lo ? load_of[s] : lo, hi = load_of[s] > hi ? load_of[s] : hi;
    CHECK(hi - lo <= largest, "loads %.3f .. %.3f, largest problem %.3f", lo, hi, largest);
    /* 8192^3 costs far more than 64^3: the model is not a count. */
    CHECK(plan_cost(&p.cases[p.ncases - 2]) > 10 * plan_cost(&p.cases[0]), "costs %g %g",
          plan_cost(&p.cases[p.ncases - 2]), plan_cost(&p.cases[0]));
    CHECK(plan_shard(&p, 3, N, again) == 0 && !memcmp(again, mine + 3 * (size_t)p.ncases, (size_t)p.ncases),
          "shard 3 again differs");
    CHECK(plan_shard(&p, N, N, again) == -1 && plan_shard(&p, -1, N, again) == -1 && plan_shard(&p, 0, 0, again) == -1,
          "bad I/N accepted");
    free(mine), free(again);
    unload(&x, &p);
    return 1;
}

/* Two shards of twelve problems of three cases: no problem is worth cutting, so each stays in one
 * share (its inputs and reference made once); one problem far above a share is cut over both. */
static int check_shards_keep_problems(void)
{
    static const char *even =
        "name: t\nop: sgemm\nseed: 5\n"
        "sizes: {mnk: [512, 520, 528, 536, 544, 552]}\n"
        "layout: {a: [row, col], b: row}\n"
        "variants: [naive, cublas, {name: smem_tile, params: {BLOCKSIZE: 32}}]\n";
    static const char *lopsided =
        "name: t\nop: sgemm\nseed: 5\n"
        "sizes: {mnk: [64, 16384]}\n"
        "variants: [{name: smem_tile, params: {BLOCKSIZE: [8, 16, 32]}}, cublas]\n";
    tl_experiment x;
    tl_plan p;
    if (load(even, &x, &p, 0)) return 1;
    unsigned char *mine = calloc((size_t)p.ncases, 2);
    for (int s = 0; s < 2; s++) CHECK(plan_shard(&p, s, 2, mine + (size_t)s * p.ncases) == 0, "shard %d", s);
    for (int i = 0; i < p.ncases; i++)
        CHECK(problem_owners(&p, mine, 2, i) == 1, "case %d: its problem is in %d shares", i, problem_owners(&p, mine, 2, i));
    int n0 = 0;
    for (int i = 0; i < p.ncases; i++) n0 += mine[i];
    CHECK(n0 == 18, "share 0 has %d of the 36 cases", n0);
    free(mine);
    unload(&x, &p);
    if (load(lopsided, &x, &p, 0)) return 1;
    mine = calloc((size_t)p.ncases, 2);
    for (int s = 0; s < 2; s++) CHECK(plan_shard(&p, s, 2, mine + (size_t)s * p.ncases) == 0, "shard %d", s);
    CHECK(problem_owners(&p, mine, 2, p.ncases - 1) == 2, "the 16384^3 problem is in %d shares",
          problem_owners(&p, mine, 2, p.ncases - 1));
    /* plan_assign over a subset leaves the rest unowned. */
    int *owner = calloc((size_t)p.ncases, sizeof *owner);
    unsigned char *todo = calloc((size_t)p.ncases, 1);
    todo[1] = todo[2] = todo[5] = 1;
    CHECK(plan_assign(&p, todo, 2, owner) == 0 && owner[0] == -1 && owner[1] >= 0 && owner[1] == owner[2] &&
              owner[5] >= 0 && owner[5] != owner[1] && owner[p.ncases - 1] == -1,
          "subset owners %d %d %d %d", owner[0], owner[1], owner[2], owner[5]);
    free(owner), free(todo), free(mine);
    unload(&x, &p);
    return 3;
}

int main(void)
{
    int total = 0;
    total += check_order();
    total += check_ids_stable();
    total += check_ids_distinct();
    total += check_later_param_keeps_ids();
    total += check_dtype_sweep();
    total += check_memory_and_overflow();
    total += check_duplicates_rejected();
    total += check_find_by_id();
    total += check_shards();
    total += check_shards_keep_problems();
    return TEST_REPORT(total);
}
