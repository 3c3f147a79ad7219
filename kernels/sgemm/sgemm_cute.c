/* sgemm's CuTe rungs, 20 - 25: seed 003's table (element copies, 128-bit TiledCopy, cp.async, swizzled
 * tiles, register blocks, a pipeline) with CUTLASS's CuTe. */
#include <stdio.h>

#include "kernels/sgemm/sgemm_rungs.h"

/* C's threads: 8 x THREADS/8 of them for 64 and 128, 16 x 16 for 256 (20_cute_naive.cu's tC). */
#define TCN "(8 + 8 * (THREADS >= 256))"
#define TCM "(THREADS / " TCN ")"
#define RULES_CUTE                                                                                           \
    {"THREADS == 64 || THREADS == 128 || THREADS == 256", "THREADS must be 64, 128 or 256"},                   \
    {"BM >= 1 && BN >= 1 && BK >= 1 && BM % " TCM " == 0 && BN % " TCN " == 0",                                \
     "BM must be a multiple of {" TCM "} and BN of {" TCN "} (C's {" TCM "} x {" TCN "} threads)"}
#define RULE_CUTE_VEC {"BM % 4 == 0 && BN % 4 == 0 && BK % 4 == 0", "BM, BN and BK must be multiples of 4 (16-byte copies)"}

const reg_param sgemm_p20[P20_N] = {SGEMM_CUTE(REG_PARAM_ROW, P20)};
const reg_param sgemm_p23[P23_N] = {SGEMM_CUTE_SWIZZLE(REG_PARAM_ROW, P23)};
const reg_param sgemm_p24[P24_N] = {SGEMM_CUTE_BLOCKED(REG_PARAM_ROW, P24, 1)};
const reg_param sgemm_p25[P24_N] = {SGEMM_CUTE_BLOCKED(REG_PARAM_ROW, P24, 2)};

const reg_rule sgemm_cute_rules[] = {RULES_CUTE, REG_RULES_END};
const reg_rule sgemm_cute_vec_rules[] = {RULES_CUTE, RULE_CUTE_VEC, REG_RULES_END};
const reg_rule sgemm_cute_swizzle_rules[] = {
    RULES_CUTE,
    RULE_CUTE_VEC,
    {"PAD >= 0 && PAD % 4 == 0 && (SWIZZLE == 0 || SWIZZLE == 1) && (SWIZZLE == 0 || PAD == 0)",
     "PAD must be a multiple of 4, SWIZZLE 0 or 1, and not both"},
    {"SWIZZLE == 0 || (1073741824 % BM == 0 && 1073741824 % BN == 0 && 1073741824 % BK == 0)",
     "SWIZZLE needs BM, BN, BK powers of two"},
    REG_RULES_END,
};
const reg_rule sgemm_cute_blocked_rules[] = {
    {"THREADS == 128 || THREADS == 256", "THREADS must be 128 or 256"},
    {"BM >= 64 && BM % 64 == 0 && BN >= 1 && BN % (THREADS / 4) == 0",
     "BM must be a multiple of 64 and BN of {THREADS / 4} (4 columns per thread)"},
    {"BK >= 4 && BK % 4 == 0 && PAD >= 0 && PAD % 4 == 0", "BK and PAD must be multiples of 4"},
    {"STAGES >= 1 && STAGES <= 4", "STAGES must be 1 .. 4"},
    {SGEMM_CUTE_BLOCKED_SMEM " <= 227 * 1024", "{" SGEMM_CUTE_BLOCKED_SMEM "} bytes of shared memory > 227 KiB"},
    REG_RULES_END,
};

static int blocks_y_fit(const reg_spec *s, long bn, char *why, size_t n)
{
    if (sgemm_ceil_div(s->dims[N_], bn) > 65535) return snprintf(why, n, "n / BN needs more than 65535 blocks in y"), 0;
    return 1;
}

/* ---- 20_cute_naive ----------------------------------------------------------------------------------- */

/* A copy's thread layout divides a (rows, BK) tile, along either dimension (20_cute_naive.cu). */
static int cute_copy_fits(long rows, long bk, long threads)
{
    long r = rows < threads ? rows : threads, k = bk < threads ? bk : threads;
    return threads % r == 0 && rows % r == 0 && bk % (threads / r) == 0 && threads % k == 0 && bk % k == 0 &&
           rows % (threads / k) == 0;
}

int sgemm_check20(const long *p, const reg_spec *s, char *why, size_t n)
{
    long bm = p[P20_BM], bn = p[P20_BN], bk = p[P20_BK], threads = p[P20_THREADS];
    if (!cute_copy_fits(bm, bk, threads) || !cute_copy_fits(bn, bk, threads))
        return snprintf(why, n, "the copy threads do not tile BM x BK and BN x BK (%ld threads)", threads), 0;
    if ((bm + bn) * bk * 4 > 48 * 1024)
        return snprintf(why, n, "%ld bytes of static shared memory > 48 KiB", (bm + bn) * bk * 4), 0;
    return blocks_y_fit(s, bn, why, n) && sgemm_fits_int(s, why, n);
}

/* ---- 21 .. 23 (cute_simt.cuh): 16-byte copies of (rows, BK) tiles, threads along the contiguous dimension */

static int cute_vector_fits(long rows, long bk, long threads, int gmem_k)
{
    if (gmem_k) {
        long tk = bk / 4 < threads ? bk / 4 : threads;
        return threads % tk == 0 && rows % (threads / tk) == 0;
    }
    long tr = rows / 4 < threads ? rows / 4 : threads;
    return threads % tr == 0 && bk % (threads / tr) == 0;
}

/* 21 and 22 have 20's params (P20_*); 23 adds PAD and SWIZZLE after them (P23_*), the first four alike. */
_Static_assert((int)P23_BM == (int)P20_BM && (int)P23_BN == (int)P20_BN && (int)P23_BK == (int)P20_BK &&
                   (int)P23_THREADS == (int)P20_THREADS,
               "cute_swizzle's params begin as cute_naive's");
static int check_cute_simt(const long *p, long pad, const reg_spec *s, char *why, size_t n)
{
    long bm = p[P20_BM], bn = p[P20_BN], bk = p[P20_BK], threads = p[P20_THREADS];
    if (!sgemm_check20(p, s, why, n)) return 0;
    int acol = s->layouts[OP_A] == REG_COL, bcol = s->layouts[OP_B] == REG_COL;
    if (!cute_vector_fits(bm, bk, threads, !acol) || !cute_vector_fits(bn, bk, threads, bcol))
        return snprintf(why, n, "the 16-byte copy threads do not tile BM x BK and BN x BK (%ld threads)", threads), 0;
    long smem = ((bm + pad) + (bn + pad)) * (bk + pad) * 4;
    if (smem > 48 * 1024) return snprintf(why, n, "%ld bytes of static shared memory > 48 KiB", smem), 0;
    return 1;
}

int sgemm_check21(const long *p, const reg_spec *s, char *why, size_t n)
{
    return check_cute_simt(p, 0, s, why, n);
}

int sgemm_check23(const long *p, const reg_spec *s, char *why, size_t n)
{
    return check_cute_simt(p, p[P23_PAD], s, why, n);
}

/* ---- 24, 25 (cute_blocked.cuh): register-blocked rungs with rows-contiguous shared tiles ---------------- */

/* cute_blocked.cuh's copies into a rows-contiguous (rows, BK) tile. */
static int blocked_copy_fits(long rows, long bk, long threads, int gmem_k)
{
    if (!gmem_k) {
        long tr = rows / 4 < threads ? rows / 4 : threads;
        return threads % tr == 0 && bk % (threads / tr) == 0;
    }
    long tk = bk < threads ? bk : threads;
    return threads % tk == 0 && rows % (threads / tk) == 0;
}

int sgemm_check24(const long *p, const reg_spec *s, char *why, size_t n)
{
    long bm = p[P24_BM], bn = p[P24_BN], bk = p[P24_BK], threads = p[P24_THREADS];
    int acol = s->layouts[OP_A] == REG_COL, bcol = s->layouts[OP_B] == REG_COL;
    if (!blocked_copy_fits(bm, bk, threads, !acol) || !blocked_copy_fits(bn, bk, threads, bcol))
        return snprintf(why, n, "the copy threads do not tile BM x BK and BN x BK (%ld threads)", threads), 0;
    return blocks_y_fit(s, bn, why, n) && sgemm_fits_int(s, why, n);
}

