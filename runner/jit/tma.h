/* TMA tensor maps for kernels that ask for them (Hopper's copy engine, cp.async.bulk.tensor).
 *
 * A tensor map holds a global tensor's address and shape, so it is made per case on the host
 * (cuTensorMapEncodeTiled) and handed to the kernel. The op's kernel signature stays: a kernel that
 * wants maps declares two globals, which the runner finds in the cubin after loading it and fills
 * before the case's first launch (verified run, timed runs and counter replays all see them):
 *
 *     struct tilelab_tensor_map_request { int operand, box_inner, box_outer, swizzle, encoded; };
 *     __device__ tilelab_tensor_map_request tilelab_tensor_map_requests[N] = {{0, 32, 128, 128, 0}, ...};
 *     __constant__ alignas(64) struct { unsigned long long v[16]; } tilelab_tensor_maps[N];
 *
 * operand: index into the op's operands (sgemm: 0 = a, 1 = b), the matrix as stored (rows of its
 * contiguous dimension); box_inner x box_outer: the tile one copy moves, box_inner along the contiguous
 * dimension (1 .. 256 each, box_inner a multiple of 16 bytes, at most the swizzle span when swizzled);
 * swizzle: 0, 32, 64 or 128 (CU_TENSOR_MAP_SWIZZLE_*B); elements past the operand's edge read as zero.
 * encoded: written by the runner, 1 when map i is filled, 0 when the operand cannot have one (TMA
 * needs a 16-byte aligned address and rows a multiple of 16 bytes, e.g. k = 777 row-major): the kernel
 * must then take another path. A malformed request is the case's error, naming the kernel. */
#ifndef TILELAB_TMA_H
#define TILELAB_TMA_H

#include <stddef.h>
#include <stdint.h>

#include "runner/jit/jit.h"
#include "runner/ops/registry.h"

#define TMA_MAP_BYTES 128
#define TMA_MAX_MAPS 16

/* As the kernel declares it (five 32-bit integers). */
typedef struct {
    int32_t operand, box_inner, box_outer, swizzle, encoded;
} tma_request;

/* What cuTensorMapEncodeTiled gets for one request. */
typedef struct {
    void *ptr;
    int elem;          /* REG_ELEM_* */
    uint64_t dims[2];  /* inner, outer */
    uint64_t stride;   /* bytes between rows */
    uint32_t box[2];   /* inner, outer */
    int swizzle;       /* bytes: 0, 32, 64, 128 */
} tma_encoding;

/* Request rq of a kernel of op against operand tensor t. -1: the request is malformed (why says
 * how; the kernel is wrong). 0: enc is filled. 1: the operand cannot have a map (why says why). */
int tma_plan(const reg_op *op, const tma_request *rq, const reg_tensor *t, tma_encoding *enc, char *why,
             size_t n);

/* After jit_load of a kernel from cubin cb: when the cubin declares requests, encodes each for
 * problem p and writes the maps and their `encoded` flags into the kernel's library. summary (n
 * bytes) gets what was done, e.g. "a 32x128 sw128; b not encoded: rows of 3108 bytes ...", or ""
 * when the kernel asks for none. */
int tma_bind(const reg_op *op, const jit_cubin *cb, const jit_kernel *k, const reg_problem *p, char *summary,
             size_t n, tl_err *e);

#endif
