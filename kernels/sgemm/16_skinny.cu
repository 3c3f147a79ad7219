// 16_skinny: C with few rows or few columns (m or n of 1 .. 64), the large operand streamed once.
//
// The tiled rungs' tiles are 64 - 256 rows of C: at m = 8 a 64-row tile computes 8 times what the
// problem needs, and at m = 1 (a matrix-vector product) 64 times. But such a product is not bound by
// its multiply-adds at all: with S rows of C (the small side), each element of the large operand (B
// for few rows, A for few columns) feeds S multiply-adds and is read once, so at S = 1 .. 32 the time is
// reading it (4 k L bytes: 2k S L flops against the H100's 60 FP32 TFLOP/s and 3.3 TB/s cross near
// S = 40; past that, up to SMAX 64, the multiply-adds of the few rows still cost less than the tiled
// rungs' tiles of mostly nothing). This rung reads the large operand once, at the DRAM's pace,
// whatever its layout and sizes:
// - a block takes LT columns of the large side (L: n when the small side is m, m when it is n) and
//   every row of the small side, up to SMAX (a param; the rows past S compute zeros and the warps that
//   hold only such rows skip the multiply-adds);
// - it walks its k range in chunks of KT: the large operand's KT x LT chunk and the small one's KT x
//   SMAX go through shared memory (two buffers, one barrier a chunk), loaded into registers one chunk
//   ahead so that the loads are in flight while the multiply-adds of the chunk before run. The loads
//   are 4 bytes, coalesced along whichever side of the operand is contiguous (k, or the large side),
//   and checked against the edges: any sizes, any leading dimensions, no alignment asked;
// - each thread keeps SPT x LPT results (SPT a param, 4 or 8, or SMAX below that; 6 or 12 at SMAX 24 and 48;
//   LPT a param, 1, 2 or 4). The large operand's LPT values of a k are a warp's 32 threads side by side (LPT
//   shared wavefronts a k), the small one's SPT values the same for the whole warp (one broadcast wavefront
//   a 16-byte load): at SPT 4 x LPT 4, a warp's k is 5 wavefronts (cycles of the SM's shared memory) for 16
//   multiply-adds a thread, 4 cycles of the SM's FMA pipes: the shared memory sets the pace; at 8 x 4, 6
//   wavefronts for 8 cycles (SPT 16 was slower than 8 on all 20 problems tried on the H100). SMAX 24 is for
//   small sides of 17 .. 24, which SMAX 32 holds in four row groups of 8 of which the fourth has nothing to
//   do: a quarter of the threads idle, and the warps' multiply-adds unevenly spread over the SM's four
//   schedulers (three live warps of eight at n = 24 on two of them, one on the others). At SMAX 24, SPT 6
//   (three 8-byte loads of the small chunk a k) or 12 (three 16-byte) keeps every row group busy; at 12 x
//   LPT 2 a warp's k is 5 wavefronts for 6 cycles of multiply-adds. SMAX 48 (small sides of 33 .. 48; SPT 6
//   or 12) and 64 (SPT 4 or 8) the same way (on the H100, 48 beat the tiled rungs at small sides of 40 and
//   48 in most layouts, 64 lost to them at 56 and 64). LPT and SPT set the block's columns and so the chunk:
//   LT = 256 SPT LPT / SMAX columns, KT = 4096 / LT k (16 elements of the large operand a thread), which is
//   the length of the runs read where the operand is contiguous along k;
// - SLICES (a param) splits k: the grid's y dimension, so that a short large side still fills the
//   GPU. Slices write their partial results to the workspace and the last one of a block column to
//   arrive (a per-column count) adds them in slice order: the same sum on every run;
// - MINB (a param): blocks an SM the compiler must leave registers for (65536 / (256 MINB) a thread):
//   more blocks, more of the large operand in flight (SPT 8 takes up to 146 registers at MINB 1, one
//   block an SM; MINB 2 holds it to 128 without spilling, MINB 3 spills);
// - STAGES (a param): 0 loads through registers as above, one chunk in flight a block while the chunk
//   before is multiplied: with 16 KiB a block that is 32 KiB an SM at MINB 2, less than the DRAM's
//   latency times its share of the bandwidth, so the SM waits for the loads after each chunk's
//   multiply-adds. 2 .. 8: cp.async copies global memory to a ring of STAGES chunks in dynamic shared
//   memory, STAGES - 1 chunks ahead, without the registers; where the large operand is contiguous along
//   the large side with rows at 16-byte multiples (and a 16-byte aligned start) 16 bytes at a time, else
//   4 bytes an element, zero-filled past the edges as the register path's loads are.
// - KMAJ (a param, with STAGES): a large operand contiguous along k (row-major A, column-major B) keeps
//   its chunk k-major in the ring, rows of KT k as it lies in global memory, copied 16 bytes at a time
//   where its rows are 16-byte multiples (K % 4 == 0), 4 bytes an element otherwise; without it every
//   element of such an operand is a 4-byte copy into the transposed chunk (four times the copies).
//   The multiply-adds then take four k at once: one 16-byte shared load along k for each of the
//   thread's LPT columns, which are interleaved (lg, lg + LG, ..: a quarter-warp's loads hit 8
//   consecutive rows, whose stride SK_KPAD is an odd number of 16-byte units: conflict-free), as many
//   shared loads as four k of the transposed chunk. For an operand contiguous along the large side the
//   runner skips it (sgemm_hopper.c's sgemm_check16; compiled anyway, it would be STAGES alone).
//
// Params: SIDE (0: m is the small side, 1: n is), SMAX (the small side at most: 1, 2, 4, 8, 16, 24,
// 32, 48, 64), LPT, SPT (4, 8; 6, 12 with SMAX 24 and 48, which take one of them), MINB, SLICES (k
// slices at most, 1 .. 1024; the launch takes no more than one a chunk), STAGES, KMAJ. sgemm_hopper.c's
// skinny_tile and skinny_smem say the same tile sizes as below.
#include "sgemm_tile.cuh" // cp_async4, cp_async16, cp_async_commit, cp_async_wait

#ifndef SIDE
#define SIDE 0
#endif
#ifndef SMAX
#define SMAX 8
#endif
#ifndef SLICES
#define SLICES 1
#endif
#ifndef LPT
#define LPT 4
#endif
#ifndef SPT
#define SPT 4
#endif
#ifndef MINB
#define MINB 1
#endif
#ifndef STAGES
#define STAGES 0
#endif
#ifndef KMAJ
#define KMAJ 0
#endif

#define SK_NT 256                               // threads a block
#define SK_SPT (SMAX < SPT ? SMAX : SPT)        // small-side rows a thread
#define SK_LPT LPT                              // large-side columns a thread
#define SK_LG (SK_NT * SK_SPT / SMAX)           // threads along the large side
#define SK_LT (SK_LG * SK_LPT)                  // large-side columns a block: 128 (SMAX 32) .. 1024
#define SK_KT (16 * SK_NT / SK_LT)              // k a chunk: 16 elements of the large operand a thread
#define SK_E (SK_LT * SK_KT / SK_NT)            // = 16
#define SK_SE ((SMAX * SK_KT + SK_NT - 1) / SK_NT) // elements of the small operand a thread loads
#define SK_LPAD (SK_LT + 4)                     // a shared row of the large chunk: 16-byte aligned, 4 mod 32
#define SK_SPAD (SMAX < 4 ? SMAX : SMAX == 4 ? 12 : SMAX + 4) // of the small one: 4, 12, 20 or 28 mod 32 from 4 on
#if STAGES == 0 && 2 * SK_KT * (SK_LPAD + SK_SPAD) * 4 > 48 * 1024
#error "16_skinny: the two chunks take more than 48 KiB of shared memory (STAGES 2 .. 8 may take up to 227 KiB)"
#endif

// Which element of the small chunk (R = SMAX rows by SK_KT k) consecutive threads copy, i = 0 .. R SK_KT
// - 1. Where the operand is contiguous along the rows: consecutive rows of one k, stored along a shared
// row. Where it is contiguous along k: blocks of G = 8 consecutive k by 4 rows a warp, each row's 8 k
// one 32-byte sector of global memory, so that the transposing store (row stride SK_SPAD: 4, 12, 20 or
// 28 mod 32 floats) puts the 32 threads in 32 banks; 32 consecutive k of one row fall in 32 / (the stride's
// banks) banks, at SMAX 32 all in one: a 32-way conflict on every store. A side of fewer than 32 / G rows
// (SMAX 1, 2) keeps the run of k. (The large chunk keeps runs of 32 k: its stride SK_LPAD costs 4-way
// conflicts there, and 8 k by 4 rows read the operand 5% slower at m = 1 on the H100.)
template <int R, bool ALONG_ROWS> __device__ __forceinline__ void sk_at(int i, int &r, int &p)
{
    constexpr int G = SK_KT < 8 ? SK_KT : 8, RG = 32 / G, PG = SK_KT / G;
    if (ALONG_ROWS) {
        r = i % R, p = i / R;
    } else if (R % RG != 0) {
        r = i / SK_KT, p = i % SK_KT;
    } else {
        const int q = i / 32, lane = i % 32;
        p = lane % G + G * (q % PG), r = lane / G + RG * (q / PG);
    }
}

// The large side's operand contiguous along that side (else along k).
#if SIDE == 0
#define SK_LCONTIG (!B_COL)
#define SK_SCONTIG (A_COL)
#else
#define SK_LCONTIG (A_COL)
#define SK_SCONTIG (!B_COL)
#endif
// With KMAJ, the large chunk k-major: LT rows of SK_KPAD floats, k along a row. SK_KPAD / 4 odd, so that
// 8 consecutive rows' 16-byte loads of one k fall in 8 different groups of 4 banks.
#define SK_KM (KMAJ && !SK_LCONTIG)
#define SK_KPAD (SK_KT + (SK_KT / 4 % 2 ? 8 : 4))
// The large-side column of this thread's result j: side by side (LPT a thread), or with SK_KM interleaved.
#define SK_COL(lg, j) (SK_KM ? (lg) + (j) * SK_LG : (lg) * SK_LPT + (j))

// The runner's workspace (reg_variant.workspace in sgemm_hopper.c): with more than one slice, per block column
// SLICES x SK_NT x SK_SPT x SK_LPT floats of partial results.
__device__ float *tilelab_workspace;

// Per block column: how many of its slices have written their part. Zero at load; the last slice sets
// it back, so every launch finds it so (one launch at a time per module: the runner's one stream).
#define SK_MAX_COLUMNS 65536
__device__ unsigned int skinny_arrived[SK_MAX_COLUMNS];

extern "C" __global__ void __launch_bounds__(SK_NT, MINB)
sgemm_skinny(int M, int N, int K, float alpha, const float *__restrict__ A, const float *__restrict__ B, float beta,
             float *__restrict__ C)
{
    const int tid = threadIdx.x;
#if SIDE == 0
    const int S = M, L = N;
    const float *small = A, *large = B;
    const int ss = A_COL ? 1 : K, sp = A_COL ? M : 1; // small(s, p) = small[s * ss + p * sp]
    const int ll = B_COL ? K : 1, lp = B_COL ? 1 : N; // large(l, p) = large[l * ll + p * lp]
    const int os = N, ol = 1;                         // out(s, l) = C[s * os + l * ol]
#else
    const int S = N, L = M;
    const float *small = B, *large = A;
    const int ss = B_COL ? K : 1, sp = B_COL ? 1 : N;
    const int ll = A_COL ? 1 : K, lp = A_COL ? M : 1;
    const int os = 1, ol = N;
#endif
    const int l0 = blockIdx.x * SK_LT;
    const int chunks = (K + SK_KT - 1) / SK_KT, per = (chunks + gridDim.y - 1) / gridDim.y;
    const int c0 = blockIdx.y * per, c1 = min(chunks, c0 + per);

    // Element e of this thread's share of a chunk: (l, p) of the large one, (s, p) of the small one.
    auto large_at = [&](int e, int &l, int &p) {
        const int i = tid + e * SK_NT;
        l = SK_LCONTIG ? i % SK_LT : i / SK_KT, p = SK_LCONTIG ? i / SK_LT : i % SK_KT;
    };
    auto small_at = [&](int e, int &s, int &p) {
        sk_at<SMAX, SK_SCONTIG>(tid + e * SK_NT, s, p);
    };
    constexpr bool small_partial = SMAX * SK_KT % SK_NT != 0; // the last element of a thread may be past the chunk

    // This thread's results: small-side rows sg * SPT .., large-side columns lg * LPT ..; a warp's
    // threads share sg, so the skip of rows past S is the warp's.
    const int lg = tid % SK_LG, sg = tid / SK_LG;
    const bool live = sg * SK_SPT < S;
    float acc[SK_SPT][SK_LPT];
#pragma unroll
    for (int i = 0; i < SK_SPT; ++i)
#pragma unroll
        for (int j = 0; j < SK_LPT; ++j) acc[i][j] = 0.0f;

    // The small chunk's SPT rows of k-slice p for this thread: sc[p * SK_SPAD + s], the whole warp's the same.
    auto small_rows = [&](const float *sc, int p, float (&y)[SK_SPT]) {
#if SK_SPT % 4 == 0
#pragma unroll
        for (int h = 0; h < SK_SPT; h += 4) {
            const float4 y4 = *reinterpret_cast<const float4 *>(&sc[p * SK_SPAD + sg * SK_SPT + h]);
            y[h] = y4.x, y[h + 1] = y4.y, y[h + 2] = y4.z, y[h + 3] = y4.w;
        }
#elif SK_SPT % 2 == 0
#pragma unroll
        for (int h = 0; h < SK_SPT; h += 2) { // SPT 6: rows from a multiple of 6, 8-byte aligned
            const float2 y2 = *reinterpret_cast<const float2 *>(&sc[p * SK_SPAD + sg * SK_SPT + h]);
            y[h] = y2.x, y[h + 1] = y2.y;
        }
#else
#pragma unroll
        for (int i = 0; i < SK_SPT; ++i) y[i] = sc[p * SK_SPAD + sg * SK_SPT + i];
#endif
    };

    // The multiply-adds of one chunk in shared memory: lc[p * SK_LPAD + l] (with SK_KM lc[l * SK_KPAD + p]),
    // sc[p * SK_SPAD + s]. k in order either way: the same sums.
    auto mac = [&](const float *lc, const float *sc) {
#if SK_KM
#pragma unroll
        for (int p = 0; p < SK_KT; p += 4) {
            float4 x[SK_LPT];
#pragma unroll
            for (int j = 0; j < SK_LPT; ++j)
                x[j] = *reinterpret_cast<const float4 *>(&lc[SK_COL(lg, j) * SK_KPAD + p]);
#pragma unroll
            for (int q = 0; q < 4; ++q) {
                float y[SK_SPT];
                small_rows(sc, p + q, y);
#pragma unroll
                for (int i = 0; i < SK_SPT; ++i)
#pragma unroll
                    for (int j = 0; j < SK_LPT; ++j)
                        acc[i][j] += y[i] * (q == 0 ? x[j].x : q == 1 ? x[j].y : q == 2 ? x[j].z : x[j].w);
            }
        }
#else
#pragma unroll
        for (int p = 0; p < SK_KT; ++p) {
            float x[SK_LPT];
#if SK_LPT == 4
            const float4 x4 = *reinterpret_cast<const float4 *>(&lc[p * SK_LPAD + lg * SK_LPT]);
            x[0] = x4.x, x[1] = x4.y, x[2] = x4.z, x[3] = x4.w;
#elif SK_LPT == 2
            const float2 x2 = *reinterpret_cast<const float2 *>(&lc[p * SK_LPAD + lg * SK_LPT]);
            x[0] = x2.x, x[1] = x2.y;
#else
            x[0] = lc[p * SK_LPAD + lg];
#endif
            float y[SK_SPT];
            small_rows(sc, p, y);
#pragma unroll
            for (int i = 0; i < SK_SPT; ++i)
#pragma unroll
                for (int j = 0; j < SK_LPT; ++j) acc[i][j] += y[i] * x[j];
        }
#endif
    };

#if STAGES == 0
    __shared__ __align__(16) float lt[2][SK_KT][SK_LPAD];
    __shared__ __align__(16) float st[2][SK_KT][SK_SPAD];
    // Where this thread's loads of a chunk land: element e of the large chunk, and of the small one.
    float lv[SK_E], sv[SK_SE];
    auto load = [&](int c) {
        const int p0 = c * SK_KT;
#pragma unroll
        for (int e = 0; e < SK_E; ++e) {
            int l, p;
            large_at(e, l, p);
            const int gl = l0 + l, gp = p0 + p;
            lv[e] = gl < L && gp < K ? __ldg(&large[(size_t)gl * ll + (size_t)gp * lp]) : 0.0f;
        }
#pragma unroll
        for (int e = 0; e < SK_SE; ++e) {
            int s, p;
            small_at(e, s, p);
            const int gp = p0 + p;
            const bool in = !small_partial || tid + e * SK_NT < SMAX * SK_KT;
            sv[e] = in && s < S && gp < K ? __ldg(&small[(size_t)s * ss + (size_t)gp * sp]) : 0.0f;
        }
    };
    auto store = [&](int b) {
#pragma unroll
        for (int e = 0; e < SK_E; ++e) {
            int l, p;
            large_at(e, l, p);
            lt[b][p][l] = lv[e];
        }
#pragma unroll
        for (int e = 0; e < SK_SE; ++e) {
            int s, p;
            small_at(e, s, p);
            if (!small_partial || tid + e * SK_NT < SMAX * SK_KT) st[b][p][s] = sv[e];
        }
    };

    int b = 0;
    if (c0 < c1) load(c0);
    for (int c = c0; c < c1; ++c, b ^= 1) {
        store(b);
        __syncthreads(); // chunk c in buffer b; every thread is past chunk c - 2's reads of it
        if (c + 1 < c1) load(c + 1);
        if (live) mac(&lt[b][0][0], &st[b][0][0]);
    }
#else
    // The ring: STAGES chunks of the large operand, then STAGES of the small one.
    constexpr int LCHUNK = SK_KM ? SK_LT * SK_KPAD : SK_KT * SK_LPAD; // floats of a large chunk
    extern __shared__ __align__(16) float sk_ring[];
    float *const lring = sk_ring, *const sring = sk_ring + STAGES * LCHUNK;
    // 16-byte copies along the large side: rows of it (one a k) 16-byte aligned, so that a vector of
    // four columns from a multiple of 4 is one aligned read (SK_LT is a multiple of 4).
    const bool vec = SK_LCONTIG && lp % 4 == 0 && (size_t)large % 16 == 0;
    // With SK_KM, 16-byte copies along k: rows of k (ll = K floats apart) 16-byte aligned.
    const bool kvec = SK_KM && ll % 4 == 0 && (size_t)large % 16 == 0;
    auto fetch = [&](int c, int b) {
        const int p0 = c * SK_KT;
        float *lc = lring + b * LCHUNK, *sc = sring + b * SK_KT * SK_SPAD;
        if (SK_KM && kvec) {
#pragma unroll
            for (int e = 0; e < SK_E / 4; ++e) {
                const int i = tid + e * SK_NT, l = i / (SK_KT / 4), p = i % (SK_KT / 4) * 4;
                const int gl = l0 + l, gp = p0 + p;
                const int bytes = gl < L && gp < K ? 4 * min(4, K - gp) : 0;
                cp_async16(&lc[l * SK_KPAD + p], bytes ? &large[(size_t)gl * ll + (size_t)gp * lp] : large, bytes);
            }
        } else if (SK_KM) {
#pragma unroll
            for (int e = 0; e < SK_E; ++e) {
                const int i = tid + e * SK_NT, l = i / SK_KT, p = i % SK_KT;
                const int gl = l0 + l, gp = p0 + p;
                const bool in = gl < L && gp < K;
                cp_async4(&lc[l * SK_KPAD + p], in ? &large[(size_t)gl * ll + (size_t)gp * lp] : large, in);
            }
        } else if (SK_LCONTIG && vec) {
#pragma unroll
            for (int e = 0; e < SK_E / 4; ++e) {
                const int i = tid + e * SK_NT, l = i % (SK_LT / 4) * 4, p = i / (SK_LT / 4);
                const int gl = l0 + l, gp = p0 + p;
                const int bytes = gp < K && gl < L ? 4 * min(4, L - gl) : 0;
                cp_async16(&lc[p * SK_LPAD + l], bytes ? &large[(size_t)gl * ll + (size_t)gp * lp] : large, bytes);
            }
        } else {
#pragma unroll
            for (int e = 0; e < SK_E; ++e) {
                int l, p;
                large_at(e, l, p);
                const int gl = l0 + l, gp = p0 + p;
                const bool in = gl < L && gp < K;
                cp_async4(&lc[p * SK_LPAD + l], in ? &large[(size_t)gl * ll + (size_t)gp * lp] : large, in);
            }
        }
#pragma unroll
        for (int e = 0; e < SK_SE; ++e) {
            if (small_partial && tid + e * SK_NT >= SMAX * SK_KT) break;
            int s, p;
            small_at(e, s, p);
            const int gp = p0 + p;
            const bool in = s < S && gp < K;
            cp_async4(&sc[p * SK_SPAD + s], in ? &small[(size_t)s * ss + (size_t)gp * sp] : small, in);
        }
    };

#pragma unroll
    for (int z = 0; z < STAGES - 1; ++z) {
        if (c0 + z < c1) fetch(c0 + z, z);
        cp_async_commit(); // one group a stage, even an empty one: the wait below counts groups
    }
    for (int c = c0, b = 0; c < c1; ++c, b = b + 1 == STAGES ? 0 : b + 1) {
        cp_async_wait<STAGES - 2>(); // this thread's copies of chunk c have landed ...
        __syncthreads();             // ... and every thread's; all are past chunk c - 1's reads of its buffer
        if (c + STAGES - 1 < c1) fetch(c + STAGES - 1, b == 0 ? STAGES - 1 : b - 1);
        cp_async_commit();
        if (live) mac(lring + b * LCHUNK, sring + b * SK_KT * SK_SPAD);
    }
    cp_async_wait<0>(); // no copy in flight at the exit
#endif

    if (gridDim.y > 1) {
        // Slice order, whichever slice arrives last: each thread's results side by side, 16 bytes a
        // thread (coalesced), SLICES parts a block column.
        float *part = tilelab_workspace + (size_t)blockIdx.x * gridDim.y * SK_NT * SK_SPT * SK_LPT;
        float *mine = part + (size_t)blockIdx.y * SK_NT * SK_SPT * SK_LPT;
        if (live)
#pragma unroll
            for (int i = 0; i < SK_SPT; ++i)
#pragma unroll
                for (int j = 0; j < SK_LPT; ++j) __stcg(&mine[(i * SK_LPT + j) * SK_NT + tid], acc[i][j]);
        __threadfence(); // the part is visible to the GPU before this slice counts as arrived
        __syncthreads();
        const int last = __syncthreads_or(tid == 0 && atomicAdd(&skinny_arrived[blockIdx.x], 1u) == gridDim.y - 1);
        if (!last) return;
        __threadfence();
        if (live) {
#pragma unroll
            for (int i = 0; i < SK_SPT; ++i)
#pragma unroll
                for (int j = 0; j < SK_LPT; ++j) acc[i][j] = 0.0f;
            for (int z = 0; z < (int)gridDim.y; ++z) {
                const float *their = part + (size_t)z * SK_NT * SK_SPT * SK_LPT;
#pragma unroll
                for (int i = 0; i < SK_SPT; ++i)
#pragma unroll
                    for (int j = 0; j < SK_LPT; ++j) acc[i][j] += __ldcg(&their[(i * SK_LPT + j) * SK_NT + tid]);
            }
        }
        if (tid == 0) skinny_arrived[blockIdx.x] = 0u;
    }
    if (!live) return;
    // Element e is acc[i][j] for e = i * SK_LPT + j: short side s, long side l.
#if defined(TL_BETA_NONZERO) && TL_BETA_NONZERO
    const auto s = [&](int e) { return sg * SK_SPT + e / SK_LPT; };
    const auto l = [&](int e) { return l0 + SK_COL(lg, e % SK_LPT); };
    sgemm_store_c<SK_SPT * SK_LPT>([&](int e) { return s(e) < S && l(e) < L; },
                                   [&](int e) { return &C[(size_t)s(e) * os + (size_t)l(e) * ol]; },
                                   [&](int e) { return acc[e / SK_LPT][e % SK_LPT]; }, alpha, beta);
#else
#pragma unroll
    for (int i = 0; i < SK_SPT; ++i) {
        const int s = sg * SK_SPT + i;
        if (s >= S) break;
#pragma unroll
        for (int j = 0; j < SK_LPT; ++j) {
            const int l = l0 + SK_COL(lg, j);
            if (l < L) {
                float *c = &C[(size_t)s * os + (size_t)l * ol];
                *c = sgemm_epilogue(acc[i][j], alpha, beta, c);
            }
        }
    }
#endif
}
