// Tile movement shared by the tiled SGEMM rungs (04 onwards).
//
// Shared memory holds both tiles as k rows: As[k][m] (A transposed) and Bs[k][n], so that the inner
// loop reads T_TM consecutive values of A and T_TN of B for one k. A global operand is contiguous either
// along k (row-major A, column-major B: the load transposes) or along m / n (column-major A,
// row-major B: the load copies rows). Element (k, x) of a tile is at G[x * ld + k] in the first case
// and G[k * ld + x] in the second. Out-of-range elements read as 0, so sizes need not be tile
// multiples; 16-byte accesses are used only where the rows are 16-byte aligned (ld % 4 == 0).
#pragma once

#include "sgemm_common.cuh"

// Swizzled column of element (k, x) in a k-major tile with T_LD floats per row: XOR the 16-byte chunk
// index with k, so that a transposing store (one x, consecutive k) spreads over the banks while
// 16-byte reads along x stay contiguous.
template <int T_LD, bool T_SWIZZLE>
__device__ __forceinline__ int tile_at(int k, int x)
{
    if (T_SWIZZLE) return k * T_LD + ((((x >> 2) ^ k) & (T_LD / 4 - 1)) << 2 | (x & 3));
    return k * T_LD + x;
}

// Trips of a loop that hands the elements of a tile to the threads of a block, thread t taking elements
// t, t + threads, ...: a compile-time count, so that the loop unrolls into copies with constant offsets
// (a loop from tid to the end by threads has a run-time trip count, and costs integer work per element).
__host__ __device__ constexpr int tile_trips(int elements, int threads) { return (elements + threads - 1) / threads; }

// ---- synchronous loads (through registers) ----------------------------------------------------

// Element (k, x) of a tile, read with bounds checks, into its place in shared memory.
template <int T_ROWS, int T_COLS, int T_LD, bool T_CONTIG_K, bool T_SWIZZLE>
__device__ __forceinline__ void tile_copy_checked(float *S, const float *__restrict__ G, int ld, int kext, int xext,
                                                  int k0, int x0, int i)
{
    // Consecutive i walk the contiguous dimension: coalesced.
    const int k = T_CONTIG_K ? i % T_ROWS : i / T_COLS, x = T_CONTIG_K ? i / T_ROWS : i % T_COLS;
    const int gk = k0 + k, gx = x0 + x;
    float v = 0.0f;
    if (gk < kext && gx < xext) v = T_CONTIG_K ? G[(size_t)gx * ld + gk] : G[(size_t)gk * ld + gx];
    S[tile_at<T_LD, T_SWIZZLE>(k, x)] = v;
}

// Scalar loads, any layout, any size: element i of the tile goes to thread i % T_THREADS. T_ROLLED keeps
// the loop rolled, for a fallback path whose unrolled copies would hold registers the main path needs.
template <int T_ROWS, int T_COLS, int T_LD, int T_THREADS, bool T_CONTIG_K, bool T_SWIZZLE, bool T_ROLLED = false>
__device__ __forceinline__ void tile_load_scalar(float *S, const float *__restrict__ G, int ld, int kext,
                                                 int xext, int k0, int x0, int tid)
{
    if (T_ROLLED) {
#pragma unroll 1
        for (int i = tid; i < T_ROWS * T_COLS; i += T_THREADS)
            tile_copy_checked<T_ROWS, T_COLS, T_LD, T_CONTIG_K, T_SWIZZLE>(S, G, ld, kext, xext, k0, x0, i);
    } else {
#pragma unroll
        for (int j = 0; j < tile_trips(T_ROWS * T_COLS, T_THREADS); ++j) {
            const int i = tid + j * T_THREADS;
            if (T_ROWS * T_COLS % T_THREADS != 0 && i >= T_ROWS * T_COLS) break;
            tile_copy_checked<T_ROWS, T_COLS, T_LD, T_CONTIG_K, T_SWIZZLE>(S, G, ld, kext, xext, k0, x0, i);
        }
    }
}

// 16-byte loads along the contiguous dimension; falls back to scalar ones for unaligned rows.
template <int T_ROWS, int T_COLS, int T_LD, int T_THREADS, bool T_CONTIG_K, bool T_SWIZZLE>
__device__ __forceinline__ void tile_load_vec(float *S, const float *__restrict__ G, int ld, int kext, int xext,
                                              int k0, int x0, int tid)
{
    if (ld % 4 != 0) {
        // Rolled: unrolled, this rare path costs rungs 06-08 three registers and their second block per SM.
        tile_load_scalar<T_ROWS, T_COLS, T_LD, T_THREADS, T_CONTIG_K, T_SWIZZLE, true>(S, G, ld, kext, xext, k0, x0,
                                                                                        tid);
        return;
    }
    constexpr int T_VR = T_CONTIG_K ? T_ROWS / 4 : T_ROWS, T_VC = T_CONTIG_K ? T_COLS : T_COLS / 4; // tile in float4s
#pragma unroll
    for (int j = 0; j < tile_trips(T_VR * T_VC, T_THREADS); ++j) {
        const int i = tid + j * T_THREADS;
        if (T_VR * T_VC % T_THREADS != 0 && i >= T_VR * T_VC) break;
        const int vk = T_CONTIG_K ? i % T_VR : i / T_VC, vx = T_CONTIG_K ? i / T_VR : i % T_VC;
        const int k = T_CONTIG_K ? vk * 4 : vk, x = T_CONTIG_K ? vx : vx * 4;
        const int gk = k0 + k, gx = x0 + x;
        float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        if (T_CONTIG_K) {
            if (gx < xext) {
                const float *p = G + (size_t)gx * ld + gk;
                if (gk + 3 < kext) v = *reinterpret_cast<const float4 *>(p);
                else {
                    v.x = gk < kext ? p[0] : 0.0f;
                    v.y = gk + 1 < kext ? p[1] : 0.0f;
                    v.z = gk + 2 < kext ? p[2] : 0.0f;
                }
            }
            // The transposing store: four k rows of one column.
            S[tile_at<T_LD, T_SWIZZLE>(k + 0, x)] = v.x;
            S[tile_at<T_LD, T_SWIZZLE>(k + 1, x)] = v.y;
            S[tile_at<T_LD, T_SWIZZLE>(k + 2, x)] = v.z;
            S[tile_at<T_LD, T_SWIZZLE>(k + 3, x)] = v.w;
        } else {
            if (gk < kext) {
                const float *p = G + (size_t)gk * ld + gx;
                if (gx + 3 < xext) v = *reinterpret_cast<const float4 *>(p);
                else {
                    v.x = gx < xext ? p[0] : 0.0f;
                    v.y = gx + 1 < xext ? p[1] : 0.0f;
                    v.z = gx + 2 < xext ? p[2] : 0.0f;
                }
            }
            *reinterpret_cast<float4 *>(&S[tile_at<T_LD, T_SWIZZLE>(k, x)]) = v;
        }
    }
}

// ---- asynchronous loads (cp.async: global -> shared without registers) -------------------------

__device__ __forceinline__ void cp_async4(float *s, const float *g, bool valid)
{
    const unsigned sa = (unsigned)__cvta_generic_to_shared(s);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(sa), "l"(g), "r"(valid ? 4 : 0));
}

__device__ __forceinline__ void cp_async16(float *s, const float *g, int valid_bytes)
{
    const unsigned sa = (unsigned)__cvta_generic_to_shared(s);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(sa), "l"(g), "r"(valid_bytes));
}

__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }

template <int N> __device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

// The tile with cp.async. Rows contiguous in x (and 16-byte aligned) copy 16 bytes at a time; a
// transposing load copies 4 bytes per element (cp.async cannot scatter a vector). Out-of-range bytes
// are zero-filled.
//
// The transposing copy of an interior tile gives each warp a block of 8 k x 4 x: every x row of it is
// one 32-byte sector of global memory (4 full sectors per request, as with 32 consecutive k), and the
// 32 shared-memory stores, at k * T_LD + x with T_LD = 4 (mod 32), fall in 32 different banks. With 32
// consecutive k and one x the stores hit 8 banks: 4-way conflicts on every copy.
//
// tile_load_async_interior copies a tile that lies wholly inside the operand (with T_CLAMP: whose k rows
// do), without bounds checks: with T_VEC16 (ld % 4 == 0) rows contiguous in x go 16 bytes at a time, else 4 bytes (consecutive
// threads on consecutive x, one running address each); tile_load_async_checked copies any tile;
// tile_load_async picks one of the two.
template <int T_ROWS, int T_COLS, int T_LD, int T_THREADS, bool T_CONTIG_K, bool T_SWIZZLE, bool T_VEC16 = true,
          bool T_CLAMP = false>
__device__ __forceinline__ void tile_load_async_interior(float *S, const float *__restrict__ G, int ld, int k0,
                                                         int x0, int tid, int xext = 0)
{
    // T_CLAMP: the tile's k rows lie inside the operand, its x may run past xext. Those x read the last
    // one (or, 16 bytes at a time, the last four) instead: what they compute lands in results outside C,
    // which are never stored, and the copies need no checks, only an address clamped once per copy.
    const int xlast = T_CLAMP ? xext - (!T_CONTIG_K && T_VEC16 ? 4 : 1) : 0;
#define TILE_X(gx) (T_CLAMP ? min((gx), xlast) : (gx))
    if (!T_CONTIG_K && !T_VEC16) {
        if (T_THREADS % T_COLS == 0 && T_ROWS * T_COLS % T_THREADS == 0) {
            const int k = tid / T_COLS, x = tid % T_COLS;
            const float *g = G + (size_t)(k0 + k) * ld + TILE_X(x0 + x);
            const size_t step = (size_t)(T_THREADS / T_COLS) * ld;
#pragma unroll
            for (int j = 0; j < T_ROWS * T_COLS / T_THREADS; ++j, g += step)
                cp_async4(&S[tile_at<T_LD, T_SWIZZLE>(k + j * (T_THREADS / T_COLS), x)], g, true);
        } else {
#pragma unroll
            for (int j = 0; j < tile_trips(T_ROWS * T_COLS, T_THREADS); ++j) {
                const int i = tid + j * T_THREADS;
                if (T_ROWS * T_COLS % T_THREADS != 0 && i >= T_ROWS * T_COLS) break;
                const int k = i / T_COLS, x = i % T_COLS;
                cp_async4(&S[tile_at<T_LD, T_SWIZZLE>(k, x)], G + (size_t)(k0 + k) * ld + TILE_X(x0 + x), true);
            }
        }
    } else if (!T_CONTIG_K) {
        constexpr int T_VC = T_COLS / 4;
        if (T_THREADS % T_VC == 0 && T_ROWS * T_VC % T_THREADS == 0) {
            // Every copy of a thread is T_THREADS / T_VC rows below the one before: one running address.
            const int k = tid / T_VC, x = (tid % T_VC) * 4;
            const float *g = G + (size_t)(k0 + k) * ld + TILE_X(x0 + x);
            const size_t step = (size_t)(T_THREADS / T_VC) * ld;
#pragma unroll
            for (int j = 0; j < T_ROWS * T_VC / T_THREADS; ++j, g += step)
                cp_async16(&S[tile_at<T_LD, T_SWIZZLE>(k + j * (T_THREADS / T_VC), x)], g, 16);
        } else {
#pragma unroll
            for (int j = 0; j < tile_trips(T_ROWS * T_VC, T_THREADS); ++j) {
                const int i = tid + j * T_THREADS;
                if (T_ROWS * T_VC % T_THREADS != 0 && i >= T_ROWS * T_VC) break;
                const int k = i / T_VC, x = (i % T_VC) * 4;
                cp_async16(&S[tile_at<T_LD, T_SWIZZLE>(k, x)], G + (size_t)(k0 + k) * ld + TILE_X(x0 + x), 16);
            }
        }
    } else if (T_THREADS % 32 == 0 && T_ROWS % 8 == 0 && T_COLS % 4 == 0 && (T_THREADS / 32) % (T_ROWS / 8) == 0 &&
               (T_ROWS / 8) * (T_COLS / 4) % (T_THREADS / 32) == 0) {
        constexpr int T_WARPS = T_THREADS / 32, T_KB = T_ROWS / 8, T_BLOCKS = T_KB * (T_COLS / 4);
        // Blocks of 8 k x 4 x per warp; a warp's next block is T_WARPS / T_KB blocks along x.
        const int lane = tid % 32, warp = tid / 32;
        const int k = (warp % T_KB) * 8 + lane % 8, x = (warp / T_KB) * 4 + lane / 8;
        if (T_CLAMP) {
#pragma unroll
            for (int j = 0; j < T_BLOCKS / T_WARPS; ++j) {
                const int xj = x + j * (T_WARPS / T_KB) * 4;
                cp_async4(&S[tile_at<T_LD, T_SWIZZLE>(k, xj)], G + (size_t)TILE_X(x0 + xj) * ld + k0 + k, true);
            }
        } else {
            const float *g = G + (size_t)(x0 + x) * ld + k0 + k;
            const size_t step = (size_t)(T_WARPS / T_KB) * 4 * ld;
#pragma unroll
            for (int j = 0; j < T_BLOCKS / T_WARPS; ++j, g += step)
                cp_async4(&S[tile_at<T_LD, T_SWIZZLE>(k, x + j * (T_WARPS / T_KB) * 4)], g, true);
        }
    } else {
#pragma unroll
        for (int j = 0; j < tile_trips(T_ROWS * T_COLS, T_THREADS); ++j) {
            const int i = tid + j * T_THREADS;
            if (T_ROWS * T_COLS % T_THREADS != 0 && i >= T_ROWS * T_COLS) break;
            const int k = i % T_ROWS, x = i / T_ROWS;
            cp_async4(&S[tile_at<T_LD, T_SWIZZLE>(k, x)], G + (size_t)TILE_X(x0 + x) * ld + k0 + k, true);
        }
    }
#undef TILE_X
}

// Any tile, bounds-checked. The loops stay rolled: edge tiles are few, and unrolled they would hold
// addresses in registers that the FMAs of the main loop need.
template <int T_ROWS, int T_COLS, int T_LD, int T_THREADS, bool T_CONTIG_K, bool T_SWIZZLE>
__device__ __forceinline__ void tile_load_async_checked(float *S, const float *__restrict__ G, int ld, int kext,
                                                        int xext, int k0, int x0, int tid)
{
    if (!T_CONTIG_K && ld % 4 == 0) {
#pragma unroll 1
        for (int i = tid; i < T_ROWS * T_COLS / 4; i += T_THREADS) {
            const int k = i / (T_COLS / 4), x = (i % (T_COLS / 4)) * 4, gk = k0 + k, gx = x0 + x;
            int valid = (gk < kext) ? min(max(xext - gx, 0), 4) * 4 : 0;
            const float *p = valid ? G + (size_t)gk * ld + gx : G; // keep the address legal when nothing is read
            cp_async16(&S[tile_at<T_LD, T_SWIZZLE>(k, x)], p, valid);
        }
        return;
    }
#pragma unroll 1
    for (int i = tid; i < T_ROWS * T_COLS; i += T_THREADS) {
        const int k = T_CONTIG_K ? i % T_ROWS : i / T_COLS, x = T_CONTIG_K ? i / T_ROWS : i % T_COLS;
        const int gk = k0 + k, gx = x0 + x;
        const bool valid = gk < kext && gx < xext;
        const float *p = !valid ? G : T_CONTIG_K ? G + (size_t)gx * ld + gk : G + (size_t)gk * ld + gx;
        cp_async4(&S[tile_at<T_LD, T_SWIZZLE>(k, x)], p, valid);
    }
}

// Interior tiles (all but the last along k, m or n) go without bounds checks.
template <int T_ROWS, int T_COLS, int T_LD, int T_THREADS, bool T_CONTIG_K, bool T_SWIZZLE>
__device__ __forceinline__ void tile_load_async(float *S, const float *__restrict__ G, int ld, int kext, int xext,
                                                int k0, int x0, int tid)
{
    if (k0 + T_ROWS <= kext && x0 + T_COLS <= xext && (T_CONTIG_K || ld % 4 == 0))
        tile_load_async_interior<T_ROWS, T_COLS, T_LD, T_THREADS, T_CONTIG_K, T_SWIZZLE>(S, G, ld, k0, x0, tid);
    else
        tile_load_async_checked<T_ROWS, T_COLS, T_LD, T_THREADS, T_CONTIG_K, T_SWIZZLE>(S, G, ld, kext, xext, k0, x0,
                                                                                          tid);
}

// ---- transposing copies through registers, 16 bytes at a time ---------------------------------------
//
// A tile whose operand is contiguous along k (row-major A, column-major B) with 16-byte aligned rows
// (ld % 4 == 0, k0 % 4 == 0), wholly inside the operand. The transposing cp.async above moves 4 bytes per
// request and lane (128 bytes per warp request); these move 16 (512 bytes): tile_ldg_kmajor loads the
// tile's float4s into registers (issued a tile ahead, so the FMAs of a tile hide them), tile_sts_kmajor
// stores them transposed. A warp's copy is a block of 2 float4 along k x 16 x: 16 rows of 32 bytes (full
// sectors), and with T_LD = 4 (mod 32) each of its four k rows of stores falls in 32 different banks.
template <int T_ROWS, int T_COLS, int T_THREADS>
struct tile_kmajor {
    static constexpr int KB = T_ROWS / 8, BLOCKS = KB * (T_COLS / 16), WARPS = T_THREADS / 32;
    static constexpr int PER_THREAD = BLOCKS / WARPS; // float4s a thread holds
    static constexpr bool OK = T_ROWS % 8 == 0 && T_COLS % 16 == 0 && T_THREADS % 32 == 0 && BLOCKS % WARPS == 0;
    // Element (k, x) of a thread's j-th float4 (k the first of its four).
    static __device__ __forceinline__ int k_of(int j, int tid) { return ((tid / 32 + j * WARPS) % KB) * 8 + (tid % 2) * 4; }
    static __device__ __forceinline__ int x_of(int j, int tid) { return ((tid / 32 + j * WARPS) / KB) * 16 + (tid % 32) / 2; }
};

template <int T_ROWS, int T_COLS, int T_THREADS>
__device__ __forceinline__ void tile_ldg_kmajor(float4 *r, const float *__restrict__ G, int ld, int k0, int x0, int tid)
{
    using T = tile_kmajor<T_ROWS, T_COLS, T_THREADS>;
    static_assert(T::OK, "tile_ldg_kmajor: tiles of 8 k x 16 x blocks, a whole number per warp");
#pragma unroll
    for (int j = 0; j < T::PER_THREAD; ++j)
        r[j] = __ldg(reinterpret_cast<const float4 *>(G + (size_t)(x0 + T::x_of(j, tid)) * ld + k0 + T::k_of(j, tid)));
}

template <int T_ROWS, int T_COLS, int T_LD, int T_THREADS>
__device__ __forceinline__ void tile_sts_kmajor(float *S, const float4 *r, int tid)
{
    using T = tile_kmajor<T_ROWS, T_COLS, T_THREADS>;
#pragma unroll
    for (int j = 0; j < T::PER_THREAD; ++j) {
        float *s = S + T::k_of(j, tid) * T_LD + T::x_of(j, tid);
        s[0] = r[j].x, s[T_LD] = r[j].y, s[2 * T_LD] = r[j].z, s[3 * T_LD] = r[j].w;
    }
}

// ---- k-major tiles: an operand contiguous along k kept so in shared memory ---------------------------
//
// (Here "k-major" means contiguous along k, As[m][k]: the other way round from the k rows above.)
//
// The other way to read a row-major A or a column-major B: no transpose at all. The tile is T_ROWS rows
// (along m or n) of k, T_LDK floats apart, copied 16 bytes at a time as the operand lies; the inner loop
// then reads 16 bytes along k (four k of one row) per row of its fragment: for four k as many shared
// loads as the transposed tile takes for one k each. T_LDK = BK + kmaj_pad(BK) makes a row an odd number
// of 16-byte chunks long, so that 8 consecutive rows start in 8 different groups of 4 banks: the rows
// that one quarter-warp's 16-byte loads read together are consecutive (sgemm_warptile.cuh interleaves
// the fragments of a k-major operand), and those loads are free of conflicts.
__host__ __device__ constexpr int kmaj_pad(int bk) { return (bk / 4) % 2 == 0 ? 4 : 8; }

template <int T_LDK>
__device__ __forceinline__ int kmaj_at(int x, int k)
{
    return x * T_LDK + k;
}

// A k-major tile whose k lie inside the operand: element (x, k) from G[(x0 + x) * ld + k0 + k]. T_VEC16
// (rows 16-byte aligned: ld % 4 == 0, k0 % 4 == 0): 16 bytes per copy, consecutive threads along k; else 4
// bytes. T_CLAMP: rows past xext read the last one instead (their results are never stored, as with
// tile_load_async_interior's).
template <int T_BK, int T_LDK, int T_ROWS, int T_THREADS, bool T_VEC16 = true, bool T_CLAMP = false>
__device__ __forceinline__ void tile_kmaj_interior(float *S, const float *__restrict__ G, int ld, int k0, int x0, int tid,
                                                   int xext = 0)
{
#define KMAJ_X(gx) (T_CLAMP ? min((gx), xext - 1) : (gx))
    constexpr int T_KC = T_BK / 4, T_CHUNKS = T_ROWS * T_KC;
    if (!T_VEC16) {
        // Rolled: unrolled, each copy's address is loop-invariant to the main loop, and the compiler keeps
        // them all in registers (spilling the FMAs' at 128). Rows of a K % 4 != 0 only.
#pragma unroll 1
        for (int i = tid; i < T_ROWS * T_BK; i += T_THREADS) {
            const int x = i / T_BK, k = i % T_BK;
            cp_async4(&S[kmaj_at<T_LDK>(x, k)], G + (size_t)KMAJ_X(x0 + x) * ld + k0 + k, true);
        }
    } else if (!T_CLAMP && T_THREADS % T_KC == 0 && T_CHUNKS % T_THREADS == 0) {
        // Every copy of a thread is T_THREADS / T_KC rows below the one before: one running address.
        const int x = tid / T_KC, k = (tid % T_KC) * 4;
        const float *g = G + (size_t)(x0 + x) * ld + k0 + k;
        const size_t step = (size_t)(T_THREADS / T_KC) * ld;
#pragma unroll
        for (int j = 0; j < T_CHUNKS / T_THREADS; ++j, g += step)
            cp_async16(&S[kmaj_at<T_LDK>(x + j * (T_THREADS / T_KC), k)], g, 16);
    } else {
#pragma unroll
        for (int j = 0; j < tile_trips(T_CHUNKS, T_THREADS); ++j) {
            const int i = tid + j * T_THREADS;
            if (T_CHUNKS % T_THREADS != 0 && i >= T_CHUNKS) break;
            const int x = i / T_KC, k = (i % T_KC) * 4;
            cp_async16(&S[kmaj_at<T_LDK>(x, k)], G + (size_t)KMAJ_X(x0 + x) * ld + k0 + k, 16);
        }
    }
#undef KMAJ_X
}

// Any k-major tile, bounds-checked, zeros past (xext, kext): 16 bytes per copy where the rows are aligned
// (ld % 4 == 0), else 4. Rolled, as tile_load_async_checked.
template <int T_BK, int T_LDK, int T_ROWS, int T_THREADS>
__device__ __forceinline__ void tile_kmaj_checked(float *S, const float *__restrict__ G, int ld, int kext, int xext,
                                                  int k0, int x0, int tid)
{
    if (ld % 4 == 0) {
#pragma unroll 1
        for (int i = tid; i < T_ROWS * T_BK / 4; i += T_THREADS) {
            const int x = i / (T_BK / 4), k = (i % (T_BK / 4)) * 4, gx = x0 + x, gk = k0 + k;
            const int valid = gx < xext ? min(max(kext - gk, 0), 4) * 4 : 0;
            cp_async16(&S[kmaj_at<T_LDK>(x, k)], valid ? G + (size_t)gx * ld + gk : G, valid);
        }
        return;
    }
#pragma unroll 1
    for (int i = tid; i < T_ROWS * T_BK; i += T_THREADS) {
        const int x = i / T_BK, k = i % T_BK, gx = x0 + x, gk = k0 + k;
        const bool valid = gx < xext && gk < kext;
        cp_async4(&S[kmaj_at<T_LDK>(x, k)], valid ? G + (size_t)gx * ld + gk : G, valid);
    }
}

// ---- the epilogue: T_TM x T_TN results of one thread -------------------------------------------------

// acc[i * T_ACC_LD + j] is C[row + i][col + j]; columns in groups of 4 go out as 16-byte stores where
// the row is aligned and in range. T_L2: C is read past L1 (ld.global.cg), for C that other blocks
// wrote during this kernel (L1 is not coherent between SMs).
//
// Two builds, by the runner's hint TL_BETA_NONZERO (the case's beta is not 0; both are right for any
// beta). With it, every old value of the lane's tile is loaded before the first store: the compiler
// cannot tell a store to one row from a load of the next (N could be 0), so a load after a store waits
// for it, one trip to memory an element where N % 4 != 0 (5164 x 6097 x 60 with beta -1.25 took packed
// 64 x 64 0.52 ms where N = 6096 took 0.24; 0.26 ms so). Without it, the code every case of beta 0 was
// tuned with (tuned_h100.table): the gathering code, present but not run, moved ptxas's schedule of
// some main loops (packed 128 x 128 at 4096^3 col/col, beta 0: 7% slower).
#if defined(TL_BETA_NONZERO) && TL_BETA_NONZERO
template <bool T_L2>
__device__ __forceinline__ float load_c(const float *c)
{
    return T_L2 ? __ldcg(c) : *c;
}

// The same for rows row_of(0 .. T_TM - 1) of C (any that are >= M skipped), columns col .. col + T_TN - 1.
template <int T_TM, int T_TN, int T_ACC_LD, bool T_L2, class RowOf>
__device__ __forceinline__ void store_rows(float *__restrict__ C, int M, int N, RowOf row_of, int col, const float *acc,
                                           float alpha, float beta)
{
    const bool vec = T_TN % 4 == 0 && N % 4 == 0;
    if (beta == 0.0f) { // C is write-only (BLAS): not read, whatever it holds
#pragma unroll
        for (int i = 0; i < T_TM; ++i) {
            const int r = row_of(i);
            if (r >= M) continue;
            float *c = C + (size_t)r * N;
            const float *a = acc + i * T_ACC_LD;
#pragma unroll
            for (int j = 0; j < T_TN; j += 4) {
                const int cc = col + j;
                if (vec && cc + 3 < N) {
                    *reinterpret_cast<float4 *>(c + cc) =
                        make_float4(alpha * a[j], alpha * a[j + 1], alpha * a[j + 2], alpha * a[j + 3]);
                } else {
#pragma unroll
                    for (int q = 0; q < 4 && j + q < T_TN; ++q)
                        if (cc + q < N) c[cc + q] = alpha * a[j + q];
                }
            }
        }
        return;
    }
    float old[T_TM * T_TN];
#pragma unroll
    for (int i = 0; i < T_TM; ++i) {
        const int r = row_of(i);
        const float *c = C + (size_t)r * N;
#pragma unroll
        for (int j = 0; j < T_TN; j += 4) {
            const int cc = col + j;
            if (r >= M) {
            } else if (vec && cc + 3 < N) {
                const float4 o = T_L2 ? __ldcg(reinterpret_cast<const float4 *>(c + cc))
                                      : *reinterpret_cast<const float4 *>(c + cc);
                old[i * T_TN + j] = o.x, old[i * T_TN + j + 1] = o.y, old[i * T_TN + j + 2] = o.z,
                               old[i * T_TN + j + 3] = o.w;
            } else {
#pragma unroll
                for (int q = 0; q < 4 && j + q < T_TN; ++q)
                    if (cc + q < N) old[i * T_TN + j + q] = load_c<T_L2>(c + cc + q);
            }
        }
    }
#pragma unroll
    for (int i = 0; i < T_TM; ++i) {
        const int r = row_of(i);
        if (r >= M) continue;
        float *c = C + (size_t)r * N;
        const float *a = acc + i * T_ACC_LD, *o = old + i * T_TN;
#pragma unroll
        for (int j = 0; j < T_TN; j += 4) {
            const int cc = col + j;
            if (vec && cc + 3 < N) {
                *reinterpret_cast<float4 *>(c + cc) =
                    make_float4(alpha * a[j] + beta * o[j], alpha * a[j + 1] + beta * o[j + 1],
                                alpha * a[j + 2] + beta * o[j + 2], alpha * a[j + 3] + beta * o[j + 3]);
            } else {
#pragma unroll
                for (int q = 0; q < 4 && j + q < T_TN; ++q)
                    if (cc + q < N) c[cc + q] = alpha * a[j + q] + beta * o[j + q];
            }
        }
    }
}

template <int T_TM, int T_TN, int T_ACC_LD = T_TN, bool T_L2 = false>
__device__ __forceinline__ void store_tile(float *__restrict__ C, int M, int N, int row, int col, const float *acc,
                                           float alpha, float beta)
{
    store_rows<T_TM, T_TN, T_ACC_LD, T_L2>(C, M, N, [row](int i) { return row + i; }, col, acc, alpha, beta);
}
#else
template <int T_TM, int T_TN, int T_ACC_LD = T_TN, bool T_L2 = false>
__device__ __forceinline__ void store_tile(float *__restrict__ C, int M, int N, int row, int col, const float *acc,
                                           float alpha, float beta)
{
#pragma unroll
    for (int i = 0; i < T_TM; ++i) {
        const int r = row + i;
        if (r >= M) break;
        float *c = C + (size_t)r * N;
#pragma unroll
        for (int j = 0; j < T_TN; j += 4) {
            const int cc = col + j;
            if (T_TN % 4 == 0 && N % 4 == 0 && cc + 3 < N) {
                const float *a = acc + i * T_ACC_LD + j;
                float4 v = make_float4(alpha * a[0], alpha * a[1], alpha * a[2], alpha * a[3]);
                if (beta != 0.0f) {
                    const float4 o = T_L2 ? __ldcg(reinterpret_cast<const float4 *>(c + cc))
                                          : *reinterpret_cast<const float4 *>(c + cc);
                    v.x += beta * o.x, v.y += beta * o.y, v.z += beta * o.z, v.w += beta * o.w;
                }
                *reinterpret_cast<float4 *>(c + cc) = v;
            } else {
#pragma unroll
                for (int q = 0; q < 4 && j + q < T_TN; ++q)
                    if (cc + q < N)
                        c[cc + q] = T_L2 ? alpha * acc[i * T_ACC_LD + j + q] + beta * __ldcg(c + cc + q)
                                         : sgemm_epilogue(acc[i * T_ACC_LD + j + q], alpha, beta, c + cc + q);
            }
        }
    }
}
#endif
