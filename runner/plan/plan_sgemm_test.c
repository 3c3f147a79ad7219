/* plan: the sgemm rungs' rules and launches as the plan applies them: tiles against the problem, packed and
 * static grids, split-k's partials, stream-k, tf32x3, the skinny kernels. */
#include <stdlib.h>
#include <string.h>

#include "runner/plan/plan.h"
#include "runner/plan/plan_fixture.h"
#include "runner/testing/testutil.h"

/* The ladder's constraints: each invalid shape is skipped with the reason, never launched. */
static int check_tile_constraints(void)
{
    static const char *yaml =
        "name: t\nop: sgemm\nseed: 1\nsizes: {mnk: 256}\nvariants:\n"
        "  - {name: hopper, params: {SWIZZLE: [0, 1, 2]}}\n"
        "  - {name: hopper, params: {WM: 48}}\n"
        "  - {name: warptile, params: {THREADS: [256, 128]}}\n"
        "  - {name: vectorized, params: {BK: 6}}\n"
        "  - {name: double_buffer, params: {STAGES: 9}}\n"
        "  - {name: hopper, params: {BM: 256, BN: 256, BK: 64, STAGES: 4, WM: 64, WN: 64}}\n"
        "  - {name: hopper, params: {TLDG: [1, 2]}}\n"
        "  - {name: hopper, params: {TLDG: 1, ODD: 1}}\n"
        "  - {name: hopper, params: {TLDG: 1, BM: 32, BN: 128, BK: 8, WM: 32, WN: 32, WNITER: 1}}\n";
    static const char *want[] = {
        NULL, NULL, "SWIZZLE = 2 is not 0 or 1", "WM must divide BM", NULL,
        "THREADS = 128, the tiles need 256", "TM, TN and BK must be multiples of 4", "STAGES must be 2 .. 8",
        "bytes of shared memory > 227 KiB", NULL, "TLDG must be 0 or 1", "TLDG = 1 needs ODD = 0",
        "the warps (4) must divide the tiles' blocks of 8 k x 16 rows or columns (BK/8 x BM/16 = 2",
    };
    tl_experiment x;
    tl_plan p;
    if (load(yaml, &x, &p, 0)) return 1;
    CHECK(p.ncases == 13, "ncases %d", p.ncases);
    for (int i = 0; i < p.ncases && i < 13; i++) {
        const tl_case *c = &p.cases[i];
        if (!want[i]) CHECK(!c->skipped, "case %d (%s %s) skipped: %s", i, c->variant->name, c->params_text, c->reason);
        else CHECK(c->skipped && strstr(c->reason, want[i]), "case %d (%s %s): want '%s', got '%s'", i, c->variant->name,
                   c->params_text, want[i], c->reason ? c->reason : "(runs)");
    }
    unload(&x, &p);
    return 1;
}

/* The sizes of packed's plan tests: every operand aligned; M no tile multiple; K no multiple of 32. */
#define PACKED_TEST_HEAD                                                                                   \
    "name: t\nop: sgemm\nseed: 9\nlayout: {a: [row, col], b: [row, col]}\n"                           \
    "sizes: [{m: 256, n: 512, k: 64}, {m: 250, n: 512, k: 96}, {m: 256, n: 512, k: 70}]\n"

/* The last case of p with these sizes and layouts whose params text has want and want2 and not lacks (each
 * when given). */
static const tl_case *packed_case(const tl_plan *p, const char *sizes, const char *layouts, const char *want,
                                  const char *want2, const char *lacks)
{
    const tl_case *c = NULL;
    for (int i = 0; i < p->ncases; i++) {
        const char *t = p->cases[i].params_text;
        if (!strcmp(p->cases[i].sizes_text, sizes) && !strcmp(p->cases[i].layout_text, layouts) &&
            (!want || strstr(t, want)) && (!want2 || strstr(t, want2)) && (!lacks || !strstr(t, lacks)))
            c = &p->cases[i];
    }
    return c;
}

/* c's pack (launch[1], of 256-thread blocks) has `blocks` blocks and its workspace `ws` bytes;
 * what names the case in a failure. Returns the checks made. */
static int packed_pack_is(const tl_case *c, unsigned blocks, uint64_t ws, const char *what)
{
    uint64_t got = c->run->workspace(c->run_params, &c->spec);
    CHECK(c->launch[1].grid[0] == blocks && c->launch[1].block[0] * c->launch[1].block[1] == 256,
          "packed %s: pack grid %u of %u threads, want %u of 256", what, c->launch[1].grid[0],
          c->launch[1].block[0] * c->launch[1].block[1], blocks);
    CHECK(got == ws, "packed %s: workspace %llu, want %llu", what, (unsigned long long)got, (unsigned long long)ws);
    return 2;
}

/* packed (15_packed.cu): the pack runs before the GEMM, over the tiles of the operands it copies (a block
 * 4 tiles of 32 x 32 along the source's contiguous side, k for row-major A and column-major B, else m or
 * n), and an operand already laid out and padded as the GEMM reads it is read in place (no copy, no
 * workspace). Rows: sizes, layouts of A and B, the pack's blocks, the workspace's bytes (128 x 128 tiles,
 * k to 32). */
static int check_packed_launch(void)
{
    static const struct {
        const char *sizes, *layouts;
        unsigned blocks;
        uint64_t ws;
    } rows[] = {
        {"m=256,n=512,k=64", "a=col,b=row", 1, 0},                        /* both in place: one idle block */
        {"m=256,n=512,k=64", "a=row,b=col", 8 + 16, 64 * (256 + 512) * 4}, /* both copied, 2 k tiles a block */
        {"m=256,n=512,k=64", "a=col,b=col", 16, 64 * 512 * 4},              /* A in place */
        {"m=256,n=512,k=64", "a=row,b=row", 8, 64 * 256 * 4},               /* B in place */
        {"m=250,n=512,k=96", "a=col,b=row", 3 * 2, 96 * 256 * 4},           /* M no tile multiple: 8 m tiles, 4 a block */
        {"m=256,n=512,k=70", "a=col,b=row", 3 * (2 + 4), 96 * (256 + 512) * 4}, /* K padded to 96 */
    };
    static const char *yaml = PACKED_TEST_HEAD
                              "variants:\n  - {name: packed, params: {BM: 128, BN: 128, WM: 64, WN: 32, WNITER: 2, "
                              "STAGES: 3, MINB: 2}}\n  - {name: packed, params: {BK: 24}}\n";
    tl_experiment x;
    tl_plan p;
    int n = 0;
    if (load(yaml, &x, &p, 0)) return 1;
    for (size_t r = 0; r < sizeof rows / sizeof *rows; r++) {
        const tl_case *c = packed_case(&p, rows[r].sizes, rows[r].layouts, NULL, NULL, "BK=24");
        CHECK(c && !c->skipped && c->nlaunch == 2, "packed %s %s: a case of two launches", rows[r].sizes,
              rows[r].layouts);
        if (!c || c->nlaunch != 2) continue;
        CHECK(c->run->entry2_first && !strcmp(c->run->entry2, "sgemm_pack"), "the pack runs first");
        n += 1 + packed_pack_is(c, rows[r].blocks, rows[r].ws, c->canonical);
    }
    for (int i = 0; i < p.ncases; i++)
        if (strstr(p.cases[i].params_text, "BK=24"))
            CHECK(p.cases[i].skipped && strstr(p.cases[i].reason, "BK divide 32"), "BK = 24: %s",
                  p.cases[i].reason ? p.cases[i].reason : "(runs)");
    unload(&x, &p);
    /* The workspace counts against the device's memory: one byte short of inputs + workspace skips. */
    static const char *one = "name: t\nop: sgemm\nseed: 9\nlayout: {a: row, b: col}\nsizes: {m: 256, n: 512, k: 64}\n"
                             "variants:\n  - {name: packed, params: {BM: 128, BN: 128, WM: 64, WN: 32, WNITER: 2}}\n";
    if (load(one, &x, &p, 0)) return n + 1;
    const tl_case *c = &p.cases[0];
    uint64_t need = c->op->mem_bytes(c->op, &c->spec, 1) + c->run->workspace(c->run_params, &c->spec);
    unload(&x, &p);
    if (load(one, &x, &p, need - 1)) return n + 1;
    CHECK(p.cases[0].skipped && strstr(p.cases[0].reason, "of device memory"), "one byte short: %s",
          p.cases[0].reason ? p.cases[0].reason : "(runs)");
    unload(&x, &p);
    if (load(one, &x, &p, need)) return n + 2;
    CHECK(!p.cases[0].skipped, "with the workspace's bytes: %s", p.cases[0].reason);
    unload(&x, &p);
    return n + 3;
}

/* packed's KEEP: the operand it names is read as it lies (not packed: no pack blocks, no workspace), only
 * where it is tile-aligned; TLDG only for a kept operand contiguous along k; KEEP 0 is not in a case's text
 * (the ids of the cases before KEEP unchanged). Rows: sizes, layouts, KEEP, TLDG, the pack's blocks, the
 * workspace's bytes (128 x 128 tiles, BK 16, k to 32), or the reason it is skipped. */
static int check_packed_keep(void)
{
    static const struct {
        const char *sizes, *layouts;
        int keep, tldg;
        unsigned blocks;
        uint64_t ws;
        const char *skip;
    } rows[] = {
        {"m=256,n=512,k=64", "a=row,b=col", 1, 1, 16, 64 * 512 * 4, NULL},  /* A kept: B alone packed */
        {"m=256,n=512,k=64", "a=row,b=col", 2, 1, 8, 64 * 256 * 4, NULL},   /* B kept: A alone packed */
        {"m=256,n=512,k=64", "a=row,b=col", 2, 0, 8, 64 * 256 * 4, NULL},   /* ... its tiles by 4-byte copies */
        {"m=256,n=512,k=64", "a=row,b=row", 1, 1, 1, 0, NULL},              /* A kept, B in place: nothing copied */
        {"m=256,n=512,k=64", "a=col,b=row", 1, 0, 1, 0, NULL},              /* kept where in place anyway */
        {"m=256,n=512,k=64", "a=col,b=row", 1, 1, 0, 0, "TLDG = 1 is for the operand KEEP reads as it lies"},
        {"m=256,n=512,k=64", "a=row,b=row", 2, 1, 0, 0, "TLDG = 1 is for the operand KEEP reads as it lies"},
        {"m=250,n=512,k=96", "a=row,b=col", 1, 1, 0, 0, "KEEP = 1 reads A as it lies: m must be a multiple of BM = 128"},
        {"m=250,n=512,k=96", "a=row,b=col", 2, 1, 8, 96 * 256 * 4, NULL},   /* B aligned: kept; A padded to 256 */
        {"m=256,n=512,k=70", "a=row,b=col", 2, 1, 0, 0, "KEEP = 2 reads B as it lies: n must be a multiple of BN = 128 and k of 32"},
    };
    static const char *yaml = PACKED_TEST_HEAD
                              "variants:\n  - {name: packed, params: {BM: 128, BN: 128, WM: 64, WN: 32, WNITER: 2, "
                              "STAGES: 3, MINB: 2, KEEP: [0, 1, 2], TLDG: [0, 1]}}\n";
    tl_experiment x;
    tl_plan p;
    int n = 0;
    if (load(yaml, &x, &p, 0)) return 1;
    for (size_t r = 0; r < sizeof rows / sizeof *rows; r++) {
        char keep[16], tldg[16];
        snprintf(keep, sizeof keep, "KEEP=%d", rows[r].keep);
        snprintf(tldg, sizeof tldg, "TLDG=%d", rows[r].tldg);
        const tl_case *c = packed_case(&p, rows[r].sizes, rows[r].layouts, keep, rows[r].tldg ? tldg : NULL,
                                       rows[r].tldg ? NULL : "TLDG=1");
        CHECK(c != NULL, "packed %s %s %s %s: no such case", rows[r].sizes, rows[r].layouts, keep, tldg);
        if (!c) continue;
        if (rows[r].skip) {
            CHECK(c->skipped && strstr(c->reason, rows[r].skip), "packed %s %s %s %s: %s, want skipped: %s",
                  rows[r].sizes, rows[r].layouts, keep, tldg, c->reason ? c->reason : "runs", rows[r].skip);
            n++;
            continue;
        }
        CHECK(!c->skipped && c->nlaunch == 2, "packed %s %s %s %s: runs (%s)", rows[r].sizes, rows[r].layouts, keep,
              tldg, c->reason ? c->reason : "");
        if (c->skipped || c->nlaunch != 2) continue;
        n += packed_pack_is(c, rows[r].blocks, rows[r].ws, c->canonical);
    }
    for (int i = 0; i < p.ncases; i++)
        if (!strstr(p.cases[i].params_text, "KEEP=")) {
            CHECK(!strstr(p.cases[i].canonical, "KEEP") && !strstr(p.cases[i].canonical, "TLDG=0"),
                  "KEEP 0 and TLDG 0 are not in the case's text: %s", p.cases[i].canonical);
            n++;
            break;
        }
    unload(&x, &p);
    return n;
}

/* A tf32x3 case found by its text (what): skipped for a reason containing skip, or else run as two launches,
 * the main kernel's grid `grid`, the split's `blocks` and a workspace of ws bytes. Returns the checks made. */
static int tf32x3_case_is(const tl_case *c, const char *what, unsigned grid, unsigned blocks, uint64_t ws,
                          const char *skip)
{
    CHECK(c != NULL, "tf32x3 %s: no such case", what);
    if (!c) return 1;
    if (skip) {
        CHECK(c->skipped && strstr(c->reason, skip), "tf32x3 %s: %s, want skipped: %s", what,
              c->reason ? c->reason : "runs", skip);
        return 1;
    }
    CHECK(!c->skipped && c->nlaunch == 2, "tf32x3 %s: runs (%s)", what, c->reason ? c->reason : "");
    if (c->skipped || c->nlaunch != 2) return 1;
    CHECK(c->launch[0].grid[0] == grid, "tf32x3 %s: grid %u, want %u", what, c->launch[0].grid[0], grid);
    return 1 + packed_pack_is(c, blocks, ws, c->canonical);
}

/* tf32x3 (17_tf32x3.cu): the split runs first, a 32 x 8 block a 32 x 32 tile of A (k x m, padded to 32 and
 * BM) and of B (n x k, padded to BN and 32), and its workspace holds A and B's two parts; tiles whose
 * accumulators (two sets) or stages do not fit are refused at plan time. Rows: sizes, BM, BN, STAGES,
 * the split's blocks, the workspace's bytes, or the reason the case is skipped. */
static int check_tf32x3(void)
{
    static const struct {
        const char *sizes;
        int bm, bn, stages;
        unsigned blocks;
        uint64_t ws;
        const char *skip;
    } rows[] = {
        {"m=256,n=512,k=64", 128, 128, 4, 2 * (8 + 16), 64ull * (256 + 2 * 512) * 4, NULL},
        {"m=250,n=500,k=70", 128, 128, 4, 3 * (8 + 16), 96ull * (256 + 2 * 512) * 4, NULL}, /* every side padded */
        {"m=250,n=500,k=70", 256, 64, 4, 3 * (8 + 16), 96ull * (256 + 2 * 512) * 4, NULL},
        {"m=256,n=512,k=64", 64, 64, 8, 2 * (8 + 16), 64ull * (256 + 2 * 512) * 4, NULL},
        {"m=256,n=512,k=64", 256, 128, 2, 0, 0, "at most 64 x 128"},
        {"m=256,n=512,k=64", 128, 256, 2, 0, 0, "at most 64 x 128"},
        {"m=256,n=512,k=64", 128, 128, 5, 0, 0, "bytes of shared memory > 227 KiB"},
        {"m=256,n=512,k=64", 96, 128, 2, 0, 0, "BM must be 64, 128 or 256"},
    };
    /* SPLITK: a block a slice of a tile; the tiles' counts (rounded to 4) and a part a slice after B's parts.
     * A column-major A with M a multiple of BM and K of 32 is read in place: the split copies B alone, and
     * the workspace has no A (SPLITK 1 copies it all the same: rows above). Rows: sizes, layouts, SPLITK,
     * the main kernel's grid, the split's blocks, the workspace's bytes, or the reason it is skipped. */
    static const struct {
        const char *sizes, *layouts;
        int splitk;
        unsigned grid, blocks;
        uint64_t ws;
        const char *skip;
    } split[] = {
        {"m=256,n=512,k=64", "a=row,b=col", 3, 8 * 3, 2 * (8 + 16), (64ull * (256 + 2 * 512) + 8 + 8 * 3 * 128 * 128) * 4, NULL},
        {"m=250,n=500,k=70", "a=row,b=col", 5, 8 * 5, 3 * (8 + 16), (96ull * (256 + 2 * 512) + 8 + 8 * 5 * 128 * 128) * 4, NULL},
        {"m=256,n=512,k=64", "a=col,b=row", 3, 8 * 3, 2 * 16, (64ull * (2 * 512) + 8 + 8 * 3 * 128 * 128) * 4, NULL},
        {"m=256,n=512,k=64", "a=col,b=col", 5, 8 * 5, 2 * 16, (64ull * (2 * 512) + 8 + 8 * 5 * 128 * 128) * 4, NULL},
        {"m=250,n=500,k=70", "a=col,b=col", 3, 8 * 3, 3 * (8 + 16), (96ull * (256 + 2 * 512) + 8 + 8 * 3 * 128 * 128) * 4, NULL},
        {"m=256,n=512,k=64", "a=row,b=col", 65, 0, 0, 0, "SPLITK 1 .. 64"},
        {"m=16384,n=16384,k=8", "a=row,b=col", 16, 0, 0, 0, "over 2^31-1 floats"},
    };
    static const char *yaml = "name: t\nop: sgemm\nseed: 9\nlayout: {a: [row, col], b: [row, col]}\n"
                              "sizes: [{m: 256, n: 512, k: 64}, {m: 250, n: 500, k: 70}, {m: 16384, n: 16384, k: 8}]\n"
                              "variants:\n  - {name: tf32x3, params: {BM: [64, 96, 128, 256], BN: [64, 128, 256], "
                              "STAGES: [2, 4, 5, 8]}}\n"
                              "  - {name: tf32x3, params: {SPLITK: [3, 5, 65, 16]}}\n";
    tl_experiment x;
    tl_plan p;
    int n = 0;
    if (load(yaml, &x, &p, 0)) return 1;
    for (size_t r = 0; r < sizeof rows / sizeof *rows; r++) {
        char want[64];
        snprintf(want, sizeof want, "BM=%d,BN=%d,STAGES=%d", rows[r].bm, rows[r].bn, rows[r].stages);
        for (int l = 0; l < 4; l++) {
            const char *layouts = (const char *[]){"a=row,b=row", "a=row,b=col", "a=col,b=row", "a=col,b=col"}[l];
            const tl_case *c = packed_case(&p, rows[r].sizes, layouts, want, NULL, "SPLITK=");
            CHECK(c != NULL, "tf32x3 %s %s %s: no such case", rows[r].sizes, layouts, want);
            if (!c) continue;
            if (rows[r].skip) {
                CHECK(c->skipped && strstr(c->reason, rows[r].skip), "tf32x3 %s %s: %s, want skipped: %s", rows[r].sizes,
                      want, c->reason ? c->reason : "runs", rows[r].skip);
                n++;
                continue;
            }
            CHECK(!c->skipped && c->nlaunch == 2, "tf32x3 %s %s: runs (%s)", rows[r].sizes, want,
                  c->reason ? c->reason : "");
            if (c->skipped || c->nlaunch != 2) continue;
            unsigned threads = (rows[r].bm >= 128 ? 3 : 2) * 128;
            CHECK(c->launch[0].block[0] == threads, "tf32x3 %s %s: %u threads, want %u", rows[r].sizes, want,
                  c->launch[0].block[0], threads);
            n += 1 + packed_pack_is(c, rows[r].blocks, rows[r].ws, c->canonical);
        }
    }
    for (size_t r = 0; r < sizeof split / sizeof *split; r++) {
        char want[32], what[128];
        snprintf(want, sizeof want, "SPLITK=%d", split[r].splitk);
        snprintf(what, sizeof what, "%s %s %s", split[r].sizes, split[r].layouts, want);
        n += tf32x3_case_is(packed_case(&p, split[r].sizes, split[r].layouts, want, NULL, NULL), what, split[r].grid,
                            split[r].blocks, split[r].ws, split[r].skip);
    }
    for (int i = 0; i < p.ncases; i++)
        if (!strcmp(p.cases[i].variant->name, "tf32x3") && !strstr(p.cases[i].params_text, "SPLITK=")) {
            CHECK(!strstr(p.cases[i].canonical, "SPLITK"), "SPLITK 1 is not in the case's text: %s",
                  p.cases[i].canonical);
            n++;
            break;
        }
    unload(&x, &p);
    return n;
}

/* tf32x3's WAVE: in place of SPLITK, the slices a tile that sgemm.c's model picks for waves of WAVE blocks (at
 * most K's tiles of 32), the grid tiles x slices and the parts a slice each (none for one slice: the tiles'
 * counts alone); WAVE > 0 reads a column-major A in place as SPLITK > 1 does. WAVE 0 stays out of a case's
 * text. Rows: sizes, layouts, params, the main kernel's grid, the split's blocks, the workspace's floats, or
 * the reason the case is skipped. */
static int check_tf32x3_skw(void)
{
    static const struct {
        const char *sizes, *layouts, *params;
        unsigned grid, blocks;
        uint64_t floats;
        const char *skip;
    } rows[] = {
        /* 8 tiles, 2 k tiles: 16 slices wanted, 2 taken; A row-major copied */
        {"m=256,n=512,k=64", "a=row,b=col", "PROMOTE=4,WAVE=132", 16, 2 * (8 + 16), 64 * (256 + 2 * 512) + 8 + 8 * 2 * 16384, NULL},
        {"m=250,n=500,k=70", "a=col,b=col", "PROMOTE=4,WAVE=132", 24, 3 * (8 + 16), 96 * (256 + 2 * 512) + 8 + 8 * 3 * 16384, NULL},
        {"m=256,n=512,k=64", "a=col,b=col", "PROMOTE=4,WAVE=20", 16, 2 * 16, 64 * 2 * 512 + 8 + 8 * 2 * 16384, NULL}, /* A in place */
        {"m=256,n=512,k=64", "a=col,b=col", "PROMOTE=4,WAVE=4", 8, 2 * 16, 64 * 2 * 512 + 8, NULL}, /* one slice a tile */
        /* 16 tiles of a deep k: 8 slices each, 128 blocks */
        {"m=2000,n=128,k=8192", "a=row,b=col", "PROMOTE=4,WAVE=132", 128, 256 * (64 + 4),
         8192ull * 2048 + 2 * 128 * 8192 + 16 + 16 * 8 * 16384, NULL},
        /* 144 tiles (k tiles 64): 4 slices in 5 waves, not 1 in 2 (one slice, the waves at 132 blocks) */
        {"m=1536,n=1536,k=2048", "a=col,b=col", "PROMOTE=4,WAVE=132", 576, 64 * 48, 2048ull * 2 * 1536 + 144 + 144 * 4 * 16384, NULL},
        {"m=256,n=512,k=64", "a=row,b=col", "SPLITK=4,WAVE=132", 0, 0, 0, "goes with SPLITK 1"},
        {"m=256,n=512,k=64", "a=row,b=col", "WAVE=70000", 0, 0, 0, "WAVE must be 0 .. 65536"},
    };
    static const char *yaml = "name: t\nop: sgemm\nseed: 9\nlayout: {a: [row, col], b: [row, col]}\n"
                              "sizes: [{m: 256, n: 512, k: 64}, {m: 250, n: 500, k: 70}, {m: 2000, n: 128, k: 8192}, "
                              "{m: 1536, n: 1536, k: 2048}]\n"
                              "variants:\n  - {name: tf32x3, params: {WAVE: [0, 132, 20, 4]}}\n"
                              "  - {name: tf32x3, params: {WAVE: 132, SPLITK: 4}}\n  - {name: tf32x3, params: {WAVE: 70000}}\n";
    tl_experiment x;
    tl_plan p;
    int n = 0;
    if (load(yaml, &x, &p, 0)) return 1;
    for (size_t r = 0; r < sizeof rows / sizeof *rows; r++) {
        char what[128];
        snprintf(what, sizeof what, "%s %s %s", rows[r].sizes, rows[r].layouts, rows[r].params);
        n += tf32x3_case_is(packed_case(&p, rows[r].sizes, rows[r].layouts, rows[r].params, NULL, NULL), what,
                            rows[r].grid, rows[r].blocks, rows[r].floats * 4, rows[r].skip);
    }
    for (int i = 0; i < p.ncases; i++)
        if (!strstr(p.cases[i].params_text, "WAVE=")) {
            CHECK(!strstr(p.cases[i].canonical, "WAVE"), "WAVE 0 is not in the case's text: %s", p.cases[i].canonical);
            n++;
        }
    unload(&x, &p);
    return n;
}

/* tf32x3's BN: 32 .. 256 by 32. And its AIN: A read where it lies in either layout wherever its rows
 * (row-major, K % 4 == 0) or columns (column-major, M % 4 == 0) are 16-byte aligned: the split copies B
 * alone and the workspace holds no A;
 * else A is copied as without AIN. AIN 0 stays out of a case's text (ids as before). Rows: sizes, layouts,
 * SPLITK, whether A is read in place; the split's blocks and the workspace follow from the padded sides. */
static int check_tf32x3_ain(void)
{
    static const struct {
        const char *sizes, *layouts;
        int splitk, in_place;
        uint64_t mp, np, kp;
    } rows[] = {
        {"m=256,n=512,k=64", "a=row,b=row", 1, 1, 256, 512, 64},
        {"m=256,n=512,k=64", "a=col,b=col", 3, 1, 256, 512, 64},
        {"m=250,n=500,k=70", "a=row,b=col", 1, 0, 256, 512, 96}, /* K % 4 != 0: row-major A copied */
        {"m=250,n=500,k=70", "a=col,b=row", 3, 0, 256, 512, 96}, /* M % 4 != 0: column-major A copied */
        {"m=252,n=500,k=68", "a=row,b=row", 3, 1, 256, 512, 96}, /* both aligned, neither a multiple of a tile */
        {"m=252,n=500,k=68", "a=col,b=col", 1, 1, 256, 512, 96},
    };
    static const char *yaml = "name: t\nop: sgemm\nseed: 9\nlayout: {a: [row, col], b: [row, col]}\n"
                              "sizes: [{m: 256, n: 512, k: 64}, {m: 250, n: 500, k: 70}, {m: 252, n: 500, k: 68}, "
                              "{m: 250, n: 66, k: 70}, {m: 92, n: 500, k: 64}]\n"
                              "variants:\n  - {name: tf32x3, params: {AIN: [0, 1, 2], SPLITK: [1, 3]}}\n"
                              "  - {name: tf32x3, params: {BN: [32, 48, 96]}}\n"
                              "  - {name: tf32x3, params: {SWAP: 1, AIN: [0, 1], STAGES: 3}}\n";
    tl_experiment x;
    tl_plan p;
    int n = 0;
    if (load(yaml, &x, &p, 0)) return 1;
    for (size_t r = 0; r < sizeof rows / sizeof *rows; r++) {
        char want[32];
        snprintf(want, sizeof want, rows[r].splitk > 1 ? "SPLITK=%d" : "STAGES=4,GROUP_M=8,PROMOTE=4", rows[r].splitk);
        const tl_case *c = packed_case(&p, rows[r].sizes, rows[r].layouts, want, "AIN=1", rows[r].splitk > 1 ? NULL : "SPLITK");
        CHECK(c != NULL && !c->skipped && c->nlaunch == 2, "tf32x3 AIN=1 %s %s %s: runs (%s)", rows[r].sizes,
              rows[r].layouts, want, c && c->reason ? c->reason : "no such case");
        if (!c || c->skipped || c->nlaunch != 2) continue;
        uint64_t a = rows[r].in_place ? 0 : rows[r].mp, parts = 0;
        if (rows[r].splitk > 1) {
            uint64_t tiles = (rows[r].mp / 128) * (rows[r].np / 128);
            parts = (tiles + 3) / 4 * 4 + tiles * rows[r].splitk * 128 * 128;
        }
        unsigned blocks = (unsigned)((rows[r].kp / 32) * (a / 32 + rows[r].np / 32));
        n += packed_pack_is(c, blocks, (rows[r].kp * (a + 2 * rows[r].np) + parts) * 4, c->canonical);
    }
    for (int i = 0; i < p.ncases; i++) {
        const tl_case *c = &p.cases[i];
        if (!strcmp(c->sizes_text, "m=250,n=66,k=70")) {
            if (strstr(c->params_text, "AIN") || strstr(c->params_text, "SPLITK") || strstr(c->params_text, "SWAP")) continue;
            /* BN by 32 (wgmma's N, the split's 32-wide tiles): n = 66 in one tile of 96, or three of 32 */
            int bn = atoi(strstr(c->params_text, "BN=") + 3);
            if (bn % 32) {
                CHECK(c->skipped && strstr(c->reason, "multiple of 32"), "BN=%d: %s", bn, c->reason ? c->reason : "runs");
            } else {
                uint64_t np = (66 + bn - 1) / bn * bn;
                CHECK(!c->skipped && c->launch[0].grid[0] == 2 * np / bn, "BN=%d: %s", bn, c->reason ? c->reason : "grid");
                if (!c->skipped) n += packed_pack_is(c, (unsigned)(3 * (8 + np / 32)), 96 * (256 + 2 * np) * 4, c->canonical);
            }
            n++;
        } else if (!strcmp(c->sizes_text, "m=92,n=500,k=64")) {
            /* SWAP: C^T = B^T A^T, m and n swapped: 500 along BM (4 tiles of 128), 92 along BN (one of 128);
             * B^T (500 x 64) the A that AIN reads in place, A^T (64 x 92) split into its two parts */
            int ain = strstr(c->params_text, "AIN=1") != NULL;
            if (!strstr(c->params_text, "SWAP=1") || strstr(c->params_text, "SPLITK") || strstr(c->params_text, "AIN=2"))
                continue;
            CHECK(!c->skipped && c->launch[0].grid[0] == 4, "SWAP %s: %s", c->layout_text, c->reason ? c->reason : "grid");
            if (!c->skipped) n += packed_pack_is(c, ain ? 2 * 4 : 2 * (16 + 4), 64 * ((ain ? 0 : 512) + 2 * 128) * 4, c->canonical);
            n++;
        } else if (strstr(c->params_text, "AIN=2")) {
            CHECK(c->skipped && strstr(c->reason, "AIN and SWAP 0 or 1"), "AIN=2: %s", c->reason ? c->reason : "runs");
            n++;
        } else if (!strstr(c->params_text, "AIN=1")) {
            CHECK(!strstr(c->canonical, "AIN"), "AIN 0 is not in the case's text: %s", c->canonical);
            n++;
        }
    }
    unload(&x, &p);
    return n;
}

/* hopper's and packed's SKPAR: a workspace of SPLITK partial tiles per tile of C only with SPLITK > 1
 * (packed's after its packed operands), the ids of the cases without it unchanged, and a workspace past
 * 2^31 floats refused at plan time. */
static int check_splitk_partials(void)
{
    static const char *yaml = "name: t\nop: sgemm\nseed: 9\nsizes: [{m: 300, n: 256, k: 4096}, {m: 16384, n: 16384, k: 64}]\n"
                              "variants:\n  - {name: hopper, params: {BM: 128, BN: 128, WM: 64, WN: 32, WNITER: 2, "
                              "SPLITK: [1, 8], SKPAR: [0, 1]}}\n"
                              "  - {name: packed, params: {BM: 128, BN: 128, WM: 64, WN: 32, WNITER: 2, "
                              "SPLITK: [1, 8], SKPAR: [0, 1]}}\n";
    tl_experiment x;
    tl_plan p;
    int n = 0;
    if (load(yaml, &x, &p, 0)) return 1;
    CHECK(p.ncases == 16, "ncases %d", p.ncases);
    for (int i = 0; i < p.ncases; i++) {
        const tl_case *c = &p.cases[i];
        int big = strstr(c->sizes_text, "m=16384") != NULL, split = strstr(c->params_text, "SPLITK=8") != NULL;
        int par = strstr(c->params_text, "SKPAR=1") != NULL, packed = !strcmp(c->variant->name, "packed");
        uint64_t ws = c->run->workspace ? c->run->workspace(c->run_params, &c->spec) : 0;
        uint64_t want = par && split && !big ? 3ull * 2 * 8 * 128 * 128 * 4 : 0; /* 3 x 2 tiles, 8 slices */
        if (packed) /* row-major A packed: k x m rounded up to the tiles; B row-major, aligned: read in place */
            want += big ? 64ull * 16384 * 4 : 4096ull * 384 * 4;
        if (big && par && split)
            CHECK(c->skipped && strstr(c->reason, "2^31-1 floats"), "SKPAR, 8 x 16384^2 floats: %s",
                  c->reason ? c->reason : "(runs)");
        else
            CHECK(!c->skipped && ws == want, "%s %s: workspace %llu, want %llu (%s)", c->sizes_text, c->params_text,
                  (unsigned long long)ws, (unsigned long long)want, c->reason ? c->reason : "runs");
        CHECK(par || !strstr(c->canonical, "SKPAR"), "SKPAR = 0 is not in the case's text: %s", c->canonical);
        n += 2;
    }
    unload(&x, &p);
    /* Every built-in variant's params fit the planner's arrays. */
    for (int i = 0; i < reg_nops; i++)
        for (int j = 0; j < reg_ops[i]->nvariants; j++)
            CHECK(reg_ops[i]->variants[j].nparams <= REG_MAX_PARAMS, "%s %s: %d params > REG_MAX_PARAMS",
                  reg_ops[i]->name, reg_ops[i]->variants[j].name, reg_ops[i]->variants[j].nparams);
    return n + 1;
}

/* hopper's KMAJ: the tiles of k-contiguous operands (row-major A, column-major B) are k-major, rows of BK
 * floats and a pad that makes them an odd number of 16-byte chunks, and the launch's shared memory says
 * so, layout by layout; KMAJ with TLDG is refused at plan time; KMAJ = 0 stays out of the ids. */
static int check_kmajor_tiles(void)
{
    static const char *yaml = "name: t\nop: sgemm\nseed: 9\nlayout: {a: [row, col], b: [row, col]}\n"
                              "sizes: {mnk: 256}\nvariants:\n"
                              "  - {name: hopper, params: {BM: 64, BN: 64, BK: [16, 32], WM: 32, WN: 32, WNITER: 1, "
                              "STAGES: 3, MINB: 4, KMAJ: [0, 1]}}\n"
                              "  - {name: hopper, params: {KMAJ: 1, TLDG: 1}}\n";
    tl_experiment x;
    tl_plan p;
    int n = 0;
    if (load(yaml, &x, &p, 0)) return 1;
    CHECK(p.ncases == 20, "ncases %d", p.ncases);
    for (int i = 0; i < p.ncases; i++) {
        const tl_case *c = &p.cases[i];
        int km = strstr(c->params_text, "KMAJ=1") != NULL, tldg = strstr(c->params_text, "TLDG=1") != NULL;
        if (tldg) {
            CHECK(c->skipped && c->reason && strstr(c->reason, "KMAJ = 1 needs TLDG = 0"), "KMAJ with TLDG: %s",
                  c->reason ? c->reason : "(runs)");
            n++;
            continue;
        }
        long bk = strstr(c->params_text, "BK=16") ? 16 : 32, ldk = bk == 16 ? 20 : 36;
        int arow = strstr(c->layout_text, "a=row") != NULL, bcol = strstr(c->layout_text, "b=col") != NULL;
        long a = km && arow ? 64 * ldk : bk * 68, b = km && bcol ? 64 * ldk : bk * 68;
        size_t want = (size_t)(3 * (a + b) * 4);
        CHECK(!c->skipped && c->nlaunch == 1 && c->launch[0].smem == want, "%s %s: smem %zu, want %zu (%s)",
              c->params_text, c->layout_text, c->nlaunch ? c->launch[0].smem : 0, want, c->reason ? c->reason : "runs");
        CHECK(km || !strstr(c->canonical, "KMAJ"), "KMAJ = 0 is not in the case's text: %s", c->canonical);
        n += 2;
    }
    unload(&x, &p);
    return n;
}

/* hopper's and packed's GRID: min(GRID, tiles) blocks along x (each then takes tiles b, b + GRID, ...),
 * the slices of split-k along y as before; GRID = 0 (one block a tile) stays out of the ids. */
static int check_static_grid(void)
{
    static const char *yaml = "name: t\nop: sgemm\nseed: 9\nsizes: {m: 1000, n: 600, k: 512}\nvariants:\n"
                              "  - {name: hopper, params: {BM: 128, BN: 128, WM: 64, WN: 32, WNITER: 2, SPLITK: [1, 2], "
                              "GRID: [0, 7, 264]}}\n"
                              "  - {name: packed, params: {BM: 128, BN: 128, WM: 64, WN: 32, WNITER: 2, GRID: [0, 7]}}\n";
    tl_experiment x;
    tl_plan p;
    int n = 0;
    if (load(yaml, &x, &p, 0)) return 1;
    CHECK(p.ncases == 8, "ncases %d", p.ncases);
    for (int i = 0; i < p.ncases; i++) {
        const tl_case *c = &p.cases[i];
        const char *g = strstr(c->params_text, "GRID=");
        unsigned want = g && atoi(g + 5) < 40 ? (unsigned)atoi(g + 5) : 8 * 5; /* 8 x 5 tiles of 128 x 128 */
        unsigned slices = strstr(c->params_text, "SPLITK=2") ? 2 : 1;
        const reg_launch *l = &c->launch[0]; /* packed's GEMM too: its pack is launch[1] */
        CHECK(!c->skipped && l->grid[0] == want && l->grid[1] == slices, "%s %s: grid %u x %u, want %u x %u (%s)",
              c->variant->name, c->params_text, l->grid[0], l->grid[1], want, slices, c->reason ? c->reason : "runs");
        CHECK(g || !strstr(c->canonical, "GRID"), "GRID = 0 is not in the case's text: %s", c->canonical);
        n += 2;
    }
    unload(&x, &p);
    return n;
}

/* hopper's and packed's XPF: 0 or 1, refused with KMAJ (its four k-slices at a time) and out of range;
 * XPF = 0 stays out of the ids, XPF = 1 is in them and in the case's params. */
static int check_xpf(void)
{
    static const char *yaml = "name: t\nop: sgemm\nseed: 9\nsizes: {m: 1000, n: 600, k: 512}\nvariants:\n"
                              "  - {name: hopper, params: {BK: 8, XPF: [0, 1, 2]}}\n"
                              "  - {name: packed, params: {BK: 8, XPF: [0, 1]}}\n"
                              "  - {name: hopper, params: {BM: 64, BN: 64, BK: 32, WM: 32, WN: 32, WNITER: 1, MINB: 4, "
                              "KMAJ: 1, XPF: 1}}\n";
    tl_experiment x;
    tl_plan p;
    int n = 0, ran = 0;
    if (load(yaml, &x, &p, 0)) return 1;
    CHECK(p.ncases == 6, "ncases %d", p.ncases);
    for (int i = 0; i < p.ncases; i++) {
        const tl_case *c = &p.cases[i];
        const char *why = c->reason ? c->reason : "(runs)";
        if (strstr(c->params_text, "XPF=2")) {
            CHECK(c->skipped && strstr(why, "XPF must be 0 or 1"), "XPF = 2: %s", why);
        } else if (strstr(c->params_text, "KMAJ=1")) {
            CHECK(c->skipped && strstr(why, "XPF = 1 needs KMAJ = 0"), "XPF with KMAJ: %s", why);
        } else {
            int on = strstr(c->params_text, "XPF=1") != NULL;
            CHECK(!c->skipped, "%s %s: %s", c->variant->name, c->params_text, why);
            CHECK(on == (strstr(c->canonical, "XPF=1") != NULL) && !strstr(c->canonical, "XPF=0"),
                  "XPF in the case's text as set: %s", c->canonical);
            ran++;
        }
        n += 1;
    }
    CHECK(ran == 4, "%d cases run, want 4", ran);
    unload(&x, &p);
    return n + 1;
}

/* SK: the whole waves' tiles one block each, then the tiles left in slices (as many as a wave of SK blocks
 * has room for, at most the k tiles), one slice; its workspace a partial tile a slice (packed's after its
 * packed operands); refused with GRID, SPLITK or SKPAR. */
static int check_stream_k(void)
{
    static const char *yaml = "name: t\nop: sgemm\nseed: 9\nsizes: [{m: 1000, n: 600, k: 512}, {m: 100, n: 64, k: 40}]\n"
                              "variants:\n"
                              "  - {name: hopper, params: {BM: 128, BN: 64, WM: 64, WN: 32, WNITER: 2, MINB: 3, SK: [0, 7, 396]}}\n"
                              "  - {name: packed, params: {BM: 128, BN: 64, WM: 64, WN: 32, WNITER: 2, SK: [0, 396]}}\n"
                              "  - {name: hopper, params: {BM: 128, BN: 64, WM: 64, WN: 32, WNITER: 2, SK: 9, GRID: 5}}\n"
                              "  - {name: hopper, params: {BM: 128, BN: 64, WM: 64, WN: 32, WNITER: 2, SK: 9, SPLITK: 2}}\n"
                              "  - {name: hopper, params: {BM: 128, BN: 64, WM: 64, WN: 32, WNITER: 2, SK: 65537}}\n";
    /* 1000 x 600 x 512: 8 x 10 tiles of 128 x 64, 32 k tiles. SK 7: 77 tiles in 11 waves, 3 left in 2 slices
     * each; SK 396: no whole wave, 80 tiles in 4 slices. 100 x 64 x 40: one tile of 3 k tiles (packed: 4, K
     * padded to 64), in as many slices. {variant, SK, m, blocks, partial tiles} */
    static const struct {
        const char *variant;
        int sk, m;
        unsigned blocks, partials;
    } want[] = {
        {"hopper", 0, 1000, 80, 0},  {"hopper", 7, 1000, 83, 6},  {"hopper", 396, 1000, 320, 320},
        {"hopper", 0, 100, 1, 0},    {"hopper", 7, 100, 3, 3},    {"hopper", 396, 100, 3, 3},
        {"packed", 0, 1000, 80, 0},  {"packed", 396, 1000, 320, 320},
        {"packed", 0, 100, 1, 0},    {"packed", 396, 100, 4, 4},
    };
    tl_experiment x;
    tl_plan p;
    int n = 0;
    if (load(yaml, &x, &p, 0)) return 1;
    CHECK(p.ncases == 2 * 8, "ncases %d", p.ncases);
    for (int i = 0; i < p.ncases; i++) {
        const tl_case *c = &p.cases[i];
        const char *sk = strstr(c->params_text, "SK=");
        if (strstr(c->params_text, "GRID=") || strstr(c->params_text, "SPLITK=2") || strstr(c->params_text, "65537")) {
            CHECK(c->skipped && c->reason && strstr(c->reason, "SK"), "%s: not refused (%s)", c->params_text,
                  c->reason ? c->reason : "runs");
            n++;
            continue;
        }
        const int k = sk ? atoi(sk + 3) : 0, m = (int)c->spec.dims[0];
        size_t w = 0;
        while (w < sizeof want / sizeof *want && (strcmp(want[w].variant, c->variant->name) || want[w].sk != k || want[w].m != m))
            w++;
        CHECK(w < sizeof want / sizeof *want, "no expectation for %s %s m=%d", c->variant->name, c->params_text, m);
        const reg_launch *l = &c->launch[0];
        CHECK(!c->skipped && l->grid[0] == want[w].blocks && l->grid[1] == 1, "%s %s m=%d: grid %u x %u, want %u x 1 (%s)",
              c->variant->name, c->params_text, m, l->grid[0], l->grid[1], want[w].blocks, c->reason ? c->reason : "runs");
        CHECK(sk || !strstr(c->canonical, "SK="), "SK = 0 is not in the case's text: %s", c->canonical);
        /* packed: A (row-major) packed to k 512 (or 64) x m 1024 (or 128), B read in place when aligned. */
        const uint64_t packed = !strcmp(c->variant->name, "packed") ?
                                    (m == 1000 ? 512ull * 1024 + 512ull * 640 : 64ull * 128 + 64ull * 64) * 4 : 0;
        const uint64_t ws = c->variant->workspace ? c->variant->workspace(c->params, &c->spec) : 0;
        const uint64_t want_ws = packed + (uint64_t)want[w].partials * 128 * 64 * 4;
        CHECK(ws == want_ws, "%s %s m=%d: workspace %llu, want %llu", c->variant->name, c->params_text, m,
              (unsigned long long)ws, (unsigned long long)want_ws);
        n += 3;
    }
    unload(&x, &p);
    return n;
}

/* skinny: the grid is the large side's blocks by the k slices (at most one a chunk, none empty), the
 * workspace only with more than one slice, and a small side over SMAX, a tile over 48 KiB of shared
 * memory, or a bad param skipped with the reason. SPT, MINB and STAGES (later params) are in the params text
 * only off their defaults, and SPT 8 at LPT 2 is the tile of SPT 4 at LPT 4 along the large side. STAGES
 * (cp.async) asks for STAGES chunks of dynamic shared memory, past 48 KiB, up to 227 KiB. */
static int check_skinny(void)
{
    static const char *yaml = "name: t\nop: sgemm\nseed: 9\nlayout: {a: [row, col], b: row}\n"
                              "sizes: [{m: 3, n: 1000, k: 5000}, {m: 1000, n: 30, k: 70}]\nvariants:\n"
                              "  - {name: skinny, params: {SIDE: [0, 1], SMAX: 4, LPT: 2, SLICES: [1, 8, 1000]}}\n"
                              "  - {name: skinny, params: {SIDE: 1, SMAX: 32, LPT: [2, 4], SLICES: 3}}\n"
                              "  - {name: skinny, params: {SIDE: 1, SMAX: 32, LPT: 1, SPT: [8, 5, 4, 16], SLICES: 3}}\n"
                              "  - {name: skinny, params: {SIDE: 1, SMAX: 32, LPT: 2, SPT: 8, SLICES: 3}}\n"
                              "  - {name: skinny, params: {SIDE: 1, SMAX: 32, LPT: 4, MINB: [0, 2, 5], SLICES: 3}}\n"
                              "  - {name: skinny, params: {SIDE: 2, SMAX: 3}}\n"
                              "  - {name: skinny, params: {SIDE: 1, SMAX: 32, LPT: 1, STAGES: [1, 3, 8, 9], SLICES: 3}}\n"
                              "  - {name: skinny, params: {SIDE: 0, SMAX: [24, 32], LPT: 2, SPT: [4, 6, 12]}}\n"
                              "  - {name: skinny, params: {SIDE: 1, SMAX: [48, 64], LPT: [2, 4], SPT: [8, 12], STAGES: [0, 3]}}\n";
    tl_experiment x;
    tl_plan p;
    int n = 0;
    if (load(yaml, &x, &p, 0)) return 1;
    CHECK(p.ncases == 2 * 2 * (6 + 2 + 1 + 5 + 3 + 4 + 6 + 16), "ncases %d", p.ncases);
    for (int i = 0; i < p.ncases; i++, n++) {
        const tl_case *c = &p.cases[i];
        int skinny_m = strstr(c->sizes_text, "m=3,") != NULL, side = strstr(c->params_text, "SIDE=1") ? 1 : 0;
        const char *why = c->reason ? c->reason : "(runs)";
        CHECK(!strstr(c->params_text, "SPT=4") && !strstr(c->params_text, "MINB=1") && !strstr(c->params_text, "STAGES=0"),
              "SPT 4, MINB 1 and STAGES 0 are the defaults, not in the id: %s", c->params_text);
        const char *stages = strstr(c->params_text, "STAGES=");
        int smax24 = strstr(c->params_text, "SMAX=24") != NULL,
            spt6or12 = strstr(c->params_text, "SPT=6") || strstr(c->params_text, "SPT=12");
        int s48 = strstr(c->params_text, "SMAX=48") != NULL, s64 = strstr(c->params_text, "SMAX=64") != NULL;
        if (s48 || s64) {
            /* SMAX 48 takes SPT 6 or 12, 64 SPT 4 or 8; 64 at SPT 8 is past 48 KiB through registers. */
            int lpt4 = strstr(c->params_text, "LPT=4") != NULL, st = strstr(c->params_text, "STAGES=3") != NULL;
            if (s48 != (strstr(c->params_text, "SPT=12") != NULL)) {
                CHECK(c->skipped && strstr(why, "SMAX 24 and 48 take SPT 6 or 12"), "%s: %s", c->params_text, why);
            } else if (s64 && !st) {
                CHECK(c->skipped && strstr(why, "more than 48 KiB of shared memory through registers"), "%s: %s",
                      c->params_text, why);
            } else if (skinny_m) {
                CHECK(c->skipped && strstr(why, "n is more than SMAX"), "%s at n = 1000: %s", c->params_text, why);
            } else {
                /* n = 30: SMAX 48 at SPT 12 is 64 threads along m, 64 at SPT 8 32; LPT columns each; STAGES
                 * 3 is three chunks of (LT + 4) + (SMAX + 4) floats a k. */
                unsigned want = s48 ? (lpt4 ? 4 : 8) : (lpt4 ? 8 : 16);
                size_t smem = !st ? 0 : s48 ? (lpt4 ? 3 * 16 * (260 + 52) * 4 : 3 * 32 * (132 + 52) * 4)
                                            : (lpt4 ? 3 * 32 * (132 + 68) * 4 : 3 * 64 * (68 + 68) * 4);
                CHECK(!c->skipped && c->launch[0].grid[0] == want && c->launch[0].grid[1] == 1 && c->launch[0].smem == smem,
                      "%s: grid %u x %u, %zu bytes of shared memory, want %u, %zu (%s)", c->params_text,
                      c->launch[0].grid[0], c->launch[0].grid[1], c->launch[0].smem, want, smem, why);
            }
        } else if (smax24 || spt6or12) {
            /* SMAX 24 (small sides of 17 .. 24) in whole row groups: SPT 6 or 12, and those only there. */
            if (smax24 != spt6or12) {
                CHECK(c->skipped && strstr(why, "SMAX 24 and 48 take SPT 6 or 12"), "%s: %s", c->params_text, why);
            } else if (!skinny_m) {
                CHECK(c->skipped && strstr(why, "m is more than SMAX = 24"), "%s at m = 1000: %s", c->params_text, why);
            } else {
                /* 64 (SPT 6) or 128 (SPT 12) threads along n, 2 columns each: 8 or 4 blocks of 256 threads. */
                unsigned want = strstr(c->params_text, "SPT=6") ? 8 : 4;
                CHECK(!c->skipped && c->launch[0].grid[0] == want && c->launch[0].grid[1] == 1 &&
                          c->launch[0].block[0] == 256,
                      "%s: grid %u x %u, want %u (%s)", c->params_text, c->launch[0].grid[0], c->launch[0].grid[1],
                      want, why);
            }
        } else if (stages) {
            stages += strlen("STAGES=");
            if (!strcmp(stages, "1") || !strcmp(stages, "9")) {
                CHECK(c->skipped && strstr(why, "STAGES must be 0 (through registers) or 2 .. 8"), "STAGES 1, 9: %s", why);
            } else if (!strcmp(stages, "8")) {
                /* SMAX 32 at LPT 1: 32 columns a block, 128 k a chunk: 128 x (36 + 36) floats a stage. */
                CHECK(c->skipped && strstr(why, "294912 bytes of shared memory > 227 KiB"), "STAGES 8: %s", why);
            } else if (skinny_m) {
                CHECK(c->skipped && strstr(why, "n is more than SMAX"), "STAGES 3 at n = 1000: %s", why);
            } else {
                /* n = 30: 1000 / 32 blocks, one chunk (70 k), so one slice; three stages past 48 KiB. */
                CHECK(!c->skipped && c->launch[0].grid[0] == 32 && c->launch[0].grid[1] == 1 &&
                          c->launch[0].smem == 3 * 128 * (36 + 36) * 4 && c->run->workspace(c->run_params, &c->spec) == 0,
                      "STAGES 3: grid %u x %u, %zu bytes of shared memory (%s)", c->launch[0].grid[0],
                      c->launch[0].grid[1], c->launch[0].smem, why);
            }
        } else if (strstr(c->params_text, "SIDE=2")) {
            CHECK(c->skipped && strstr(why, "SIDE must be 0 (m small) or 1 (n small)"), "SIDE 2: %s", why);
        } else if (strstr(c->params_text, "MINB=0") || strstr(c->params_text, "MINB=5")) {
            CHECK(c->skipped && strstr(why, "MINB must be 1 .. 4"), "MINB 0, 5: %s", why);
        } else if (strstr(c->params_text, "SPT=5") || strstr(c->params_text, "SPT=16")) {
            CHECK(c->skipped && strstr(why, "SPT must be 4, 6, 8 or 12"), "SPT 5, 16: %s", why);
        } else if (strstr(c->params_text, "SMAX=32,LPT=1") ||
                   (strstr(c->params_text, "SMAX=32,LPT=2") && !strstr(c->params_text, "SPT=8"))) {
            CHECK(c->skipped && strstr(why, "more than 48 KiB of shared memory"), "SMAX 32 LPT 2: %s", why);
        } else if (side != !skinny_m || (!skinny_m && strstr(c->params_text, "SMAX=4"))) {
            CHECK(c->skipped && strstr(why, side ? "n is more than SMAX" : "m is more than SMAX"), "%s %s: %s",
                  c->sizes_text, c->params_text, why);
        } else if (skinny_m) {
            /* SMAX 4, LPT 2: 512 columns a block, 8 k a chunk: 625 chunks, 2 block columns. */
            long slices = strstr(c->params_text, "SLICES=1000") ? 625 : strstr(c->params_text, "SLICES=8") ? 8 : 1;
            uint64_t ws = c->run->workspace(c->run_params, &c->spec);
            CHECK(!c->skipped && c->nlaunch == 1 && c->launch[0].grid[0] == 2 && c->launch[0].smem == 0 && c->launch[0].grid[1] == slices &&
                      c->launch[0].block[0] == 256,
                  "%s %s: grid %u x %u, want 2 x %ld (%s)", c->sizes_text, c->params_text, c->launch[0].grid[0],
                  c->launch[0].grid[1], slices, why);
            CHECK(ws == (slices > 1 ? 2ull * slices * 256 * 4 * 2 * 4 : 0), "%s: workspace %llu", c->params_text,
                  (unsigned long long)ws);
        } else {
            /* n = 30 on SMAX 32, LPT 4: 128 rows of A a block, 32 k a chunk: 3 chunks, 3 slices; 8 blocks. */
            uint64_t ws = c->run->workspace(c->run_params, &c->spec);
            CHECK(!c->skipped && c->launch[0].grid[0] == 8 && c->launch[0].grid[1] == 3 && ws == 8ull * 3 * 256 * 4 * 4 * 4,
                  "%s %s: grid %u x %u, workspace %llu (%s)", c->sizes_text, c->params_text, c->launch[0].grid[0],
                  c->launch[0].grid[1], (unsigned long long)ws, why);
        }
    }
    unload(&x, &p);
    /* A large side or k within a tile of 2^31 - 1 (the kernel's int arithmetic rounds them up): skipped. */
    static const char *edge = "name: t\nop: sgemm\nseed: 9\nsizes: [{m: 1, n: 2147483600, k: 1}, {m: 1, n: 2147483000, k: 1}]\n"
                              "variants:\n  - {name: skinny, params: {SMAX: 4, LPT: 2}}\n";
    if (load(edge, &x, &p, 0)) return n + 1;
    CHECK(p.ncases == 2 && p.cases[0].skipped && strstr(p.cases[0].reason, "n or k within a tile (512, 8) of 2^31-1") &&
              !p.cases[1].skipped,
          "n = 2147483600: %s; n = 2147483000: %s", p.ncases ? p.cases[0].reason : "-",
          p.ncases > 1 && p.cases[1].reason ? p.cases[1].reason : "(runs)");
    unload(&x, &p);
    return n + 1;
}

/* skinny's KMAJ: with STAGES only, 0 or 1, in the id only at 1, and only where the large operand is
 * contiguous along k (row-major A at SIDE 1, column-major B at SIDE 0), whose ring chunk is then LT rows
 * of KT + 4 floats (KT / 4 + 1 odd) instead of KT rows of LT + 4. */
static int check_skinny_kmaj(void)
{
    static const char *yaml = "name: t\nop: sgemm\nseed: 9\nlayout: {a: [row, col], b: [row, col]}\n"
                              "sizes: [{m: 20, n: 1000, k: 70}, {m: 1000, n: 20, k: 70}]\nvariants:\n"
                              "  - {name: skinny, params: {SIDE: [0, 1], SMAX: 32, LPT: 2, SPT: 8, STAGES: [0, 3], "
                              "KMAJ: [0, 1, 2]}}\n";
    tl_experiment x;
    tl_plan p;
    int n = 0, kmajor_runs = 0;
    if (load(yaml, &x, &p, 0)) return 1;
    CHECK(p.ncases == 2 * 4 * 2 * 2 * 3, "ncases %d", p.ncases);
    for (int i = 0; i < p.ncases; i++, n++) {
        const tl_case *c = &p.cases[i];
        const char *why = c->reason ? c->reason : "(runs)";
        int side = strstr(c->params_text, "SIDE=1") != NULL, small_m = strstr(c->sizes_text, "m=20,") != NULL;
        int stages = strstr(c->params_text, "STAGES=3") != NULL, kmaj = strstr(c->params_text, "KMAJ=1") != NULL;
        int acol = strstr(c->layout_text, "a=col") != NULL, bcol = strstr(c->layout_text, "b=col") != NULL;
        CHECK(!strstr(c->params_text, "KMAJ=0"), "KMAJ 0 is the default, not in the id: %s", c->params_text);
        if (strstr(c->params_text, "KMAJ=2")) {
            CHECK(c->skipped && strstr(why, "KMAJ must be 0 or 1"), "KMAJ 2: %s", why);
        } else if (kmaj && !stages) {
            CHECK(c->skipped && strstr(why, "KMAJ = 1 needs STAGES 2 .. 8"), "KMAJ without STAGES: %s", why);
        } else if (kmaj && (side ? acol : !bcol)) {
            CHECK(c->skipped && strstr(why, side ? "KMAJ = 1 is for a large operand contiguous along k (row-major A), "
                                                   "this one is contiguous along m"
                                                 : "KMAJ = 1 is for a large operand contiguous along k (column-major B), "
                                                   "this one is contiguous along n"),
                  "KMAJ on %s at SIDE %d: %s", c->layout_text, side, why);
        } else if (side == small_m) {
            CHECK(c->skipped && strstr(why, "is more than SMAX"), "%s %s: %s", c->sizes_text, c->params_text, why);
        } else {
            /* SMAX 32, SPT 8, LPT 2: 128 columns a block, 32 k a chunk, the small chunk 32 rows of 36. */
            int kmajor = kmaj;
            size_t smem = !stages ? 0 : kmajor ? 3 * (128 * 36 + 32 * 36) * 4 : 3 * (32 * 132 + 32 * 36) * 4;
            CHECK(!c->skipped && c->launch[0].smem == smem && c->launch[0].grid[0] == 8,
                  "%s %s %s: %zu bytes of shared memory, grid %u, want %zu, 8 (%s)", c->sizes_text, c->layout_text,
                  c->params_text, c->launch[0].smem, c->launch[0].grid[0], smem, why);
            kmajor_runs += kmajor;
        }
    }
    CHECK(kmajor_runs == 4, "%d cases with a k-major chunk, want 4 (2 sizes x 2 layouts)", kmajor_runs);
    unload(&x, &p);
    return n + 1;
}

int main(void)
{
    int total = 0;
    total += check_tile_constraints();
    total += check_packed_launch();
    total += check_packed_keep();
    total += check_tf32x3();
    total += check_tf32x3_ain();
    total += check_tf32x3_skw();
    total += check_splitk_partials();
    total += check_kmajor_tiles();
    total += check_static_grid();
    total += check_xpf();
    total += check_stream_k();
    total += check_skinny();
    total += check_skinny_kmaj();
    return TEST_REPORT(total);
}
