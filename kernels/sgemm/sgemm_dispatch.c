/* sgemm's dispatch model: what `tuned`'s tables (runner/ops/dispatch.h) ask of the op. How a candidate's time
 * carries from a measured problem to another (its blocks over the SMs, its tiles past the matrix, the passes
 * that copy operands), the params the table's rows cannot tell (SK, ODD, AIN), and the twin a trial times
 * beside a candidate (EDGE). */
#include <math.h>
#include <string.h>

#include "kernels/sgemm/sgemm_rungs.h"
#include "runner/ops/dispatch.h"

/* What a float that packed's pack copies costs, in flops of the GEMM: 8 bytes moved against the ~40
 * TFLOP/s of the H100's best SIMT rungs at ~3 TB/s is some 100; measured, 9000 x 128 x 6000 (A copied: 55 M
 * floats) took packed 64 x 64 1.31 x the time of the fastest rung that copies nothing, where at 9216 x 128
 * x 6144 (A read in place) it was the fastest, and 128 x 12000 x 2560 (B copied) 1.38 x: about 80. */
#define PACK_FLOPS 80.0
/* tf32x3's split, for each float of A (read, written) or B (read, its two parts written: 1.5 floats of A),
 * against its GEMM's ~1.5 x the SIMT rate: 120 (`runner table-check` on tuned_h100.table, each problem
 * predicted from the others: 1.040 x the fastest with 0, 1.038 with 60 - 120, 39 -> 35 problems above 1.2). */
#define X3_SPLIT_FLOPS 120.0

/* What a shape costs a tiled rung beyond its flops: the blocks (split-k slices included) dealt out over
 * the SMs, whose busiest SM sets the time (an SM's throughput is shared by the blocks it holds, so it
 * is the count over the SMs that matters, not over the resident slots: the better model on the H100
 * table's problems, each left out and predicted from the others); the tiles BM x BN past the matrix,
 * where the rung has those params; and packed's copy of the operands it does not read in place, a pass
 * over them that a skinny problem's few flops an element do not hide (the tuning measured packed at
 * problems whose tile-multiple sizes it reads in place, and it lost 30% at their unaligned neighbours),
 * and tf32x3's split of both. */
static double sgemm_dispatch_overhead(const reg_op *op, const reg_variant *v, const long *params, const reg_spec *s,
                                      int sms)
{
    double f = 1.0;
    int bm = reg_find_param(v, "BM"), bn = reg_find_param(v, "BN"), swap = reg_find_param(v, "SWAP");
    if (bm >= 0 && bn >= 0 && params[bm] > 0 && params[bn] > 0) {
        double m = (double)s->dims[M_], n = (double)s->dims[N_];
        if (swap >= 0 && params[swap]) { /* C^T's tiles: BM along n, BN along m */
            double t = m;
            m = n;
            n = t;
        }
        f *= ceil(m / params[bm]) * params[bm] * ceil(n / params[bn]) * params[bn] / (m * n);
    }
    reg_launch l;
    char why[256];
    if (v->kind == REG_NVRTC && sms > 0 && reg_geometry(op, v, params, s, &l, why, sizeof why) == 0) {
        double blocks = (double)l.grid[0] * l.grid[1] * l.grid[2];
        if (blocks > 0) f *= ceil(blocks / sms) * sms / blocks;
    }
    if (!strcmp(v->name, "packed")) {
        int64_t mp, np, kp;
        sgemm_packed_dims(params, s, &mp, &np, &kp);
        double copied = (sgemm_packed_in_place(params, s, OP_A) ? 0.0 : (double)mp * kp) +
                        (sgemm_packed_in_place(params, s, OP_B) ? 0.0 : (double)np * kp);
        f *= 1.0 + PACK_FLOPS * copied / (2.0 * s->dims[M_] * s->dims[N_] * s->dims[K_]);
    }
    if (!strcmp(v->name, "tf32x3")) {
        const reg_spec x = sgemm_tf32x3_problem(params, s);
        int64_t mp, np, kp;
        sgemm_tf32x3_dims(params, &x, &mp, &np, &kp);
        double copied = (double)kp * ((sgemm_tf32x3_a_in_place(params, &x) ? 0.0 : (double)mp) + 1.5 * (double)np);
        f *= 1.0 + X3_SPLIT_FLOPS * copied / (2.0 * s->dims[M_] * s->dims[N_] * s->dims[K_]);
    }
    return f;
}

/* The dispatch's switch: SK where it cuts the last wave (at least two slices a tile left) of a problem
 * of under two waves of tiles, its twin without SK elsewhere. The tuning measured it so (tuned_h100.table,
 * packed 128 x 64 and 64 x 128): SK's rel 1.00 - 1.16 against 1.12 - 1.47 under one wave, within 1% at
 * 1.3 waves, 2% either way at 5 - 6 waves (where the last wave is a small part of the time, and the
 * hardware's schedule runs its few blocks faster than a wave's share), 1 - 8% above where it cuts nothing
 * (its code alone). */
static int sgemm_sk_cuts(const reg_variant *v, const long *params, const reg_spec *s)
{
    sgemm_tiles t;
    if (!strcmp(v->name, "packed")) t = sgemm_packed_tiles(params, s);
    else if (!strcmp(v->name, "hopper")) t = sgemm_hopper_tiles(params, s);
    else return 0;
    if (t.sk < 1) return 0;
    double blocks, partials;
    sgemm_tiles_sk_launch(&t, s, &blocks, &partials);
    return partials > 0 && (double)sgemm_ceil_div(s->dims[M_], t.bm) * (double)sgemm_ceil_div(s->dims[N_], t.bn) < 2.0 * (double)t.sk;
}

/* The dispatch's second switch: hopper's ODD on where K is not a multiple of BK (with ODD 0 every block
 * then runs its checked loop: 9000 x 128 x 6000 with A row-major, 64 x 64 tiles split 4, took 1.21 - 1.29 x
 * the fastest candidate's time with ODD 0 and 1.05 - 1.06 x with ODD 1, where at 9216 x 128 x 6144 ODD 0 was
 * the fastest); elsewhere as picked (ODD 1 also keeps edge blocks off the checked loop). */
static int sgemm_odd_needed(const reg_variant *v, const long *params, const reg_spec *s)
{
    int bk = reg_find_param(v, "BK");
    if (strcmp(v->name, "hopper") || bk < 0 || params[bk] < 1) return -1;
    return s->dims[K_] % params[bk] ? 1 : -1;
}

/* The dispatch's third switch: tf32x3's AIN off where a row-major A (C^T's A with SWAP) has rows that are not
 * 16-byte aligned (K % 4 != 0): AIN then copies A all the same, into k-major stages, which cost 15 % at
 * 4096^3 against the m-major ones of AIN 0 (H100, docs/gpu-runs.md, 2026-11-27); the table's
 * rows say how AIN does where A is read in place, at neighbours that may be aligned. A column-major A
 * AIN copies into the same stages as AIN 0: as picked (switching there only followed the tuning's noise).
 * `runner table-check` on tuned_h100.table: 1.038 -> 1.036 x the fastest (37 -> 35 of 664 above 1.2);
 * against the held-out table 1.132 -> 1.122 with the first pick, 1.039 -> 1.037 with 4 trials, 1.010
 * with 8 either way. */
static int sgemm_ain_aligned(const reg_variant *v, const long *params, const reg_spec *s)
{
    if (strcmp(v->name, "tf32x3")) return -1;
    const reg_spec x = sgemm_tf32x3_problem(params, s);
    return x.layouts[OP_A] == REG_ROW && !sgemm_tf32x3_a_in_place(params, &x) ? 0 : -1;
}

/* `tuned`'s trial twin: a hopper or packed candidate whose tiles leave whole warp tiles past C's edge (the
 * last tile's rows past M at least WM, or its columns past N at least WN) is also timed with EDGE 1, which
 * the table never measured: those warps then compute nothing, and the others of the SM issue more (the
 * H100: 92 x 4382 x 13487 col/row, hopper 64 x 64, 0.565 -> 0.639 x cuBLAS), where the kernel's second
 * loop can cost its main one a few percent (docs/gpu-runs.md): the trial decides. */
static int sgemm_trial_twin(const reg_variant *v, const long *params, const reg_spec *s, long *twin)
{
    int e = reg_find_param(v, "EDGE");
    if (e < 0 || params[e]) return 0;
    sgemm_tiles t = !strcmp(v->name, "packed") ? sgemm_packed_tiles(params, s) : sgemm_hopper_tiles(params, s);
    if (t.bm < 1 || t.bn < 1 || t.wm < 1 || t.wn < 1) return 0;
    int64_t m = s->dims[M_], n = s->dims[N_];
    if ((int64_t)sgemm_ceil_div(m, t.bm) * t.bm - m < t.wm && (int64_t)sgemm_ceil_div(n, t.bn) * t.bn - n < t.wn) return 0;
    memcpy(twin, params, sizeof *twin * REG_MAX_PARAMS);
    twin[e] = 1;
    return 1;
}

const dispatch_model sgemm_dispatch_model = {
    .overhead = sgemm_dispatch_overhead,
    .switches = {{"SK", sgemm_sk_cuts}, {"ODD", sgemm_odd_needed}, {"AIN", sgemm_ain_aligned}},
    .trial_twin = sgemm_trial_twin,
};
