// The epilogue of a CuTe kernel where the case's beta is not 0 (the runner's hint TL_BETA_NONZERO):
// sgemm_store_c (sgemm_common.cuh) for a thread's accumulators acc, element i at coordinate cC(i) of a tile
// whose corner is row m0, column n0 of the M x N product, and at gC(i) in C.
#pragma once

#include <cute/tensor.hpp>

#include "sgemm_common.cuh"

template <class Acc, class Coord, class Dst>
__device__ __forceinline__ void sgemm_store_c_cute(const Acc &acc, const Coord &cC, Dst gC, int m0, int n0, int M, int N,
                                                   float alpha, float beta)
{
    sgemm_store_c<decltype(cute::size(acc))::value>(
        [&](int i) {
            auto rc = cC(i);
            return m0 + cute::get<0>(rc) < M && n0 + cute::get<1>(rc) < N;
        },
        [&](int i) { return &gC(i); }, [&](int i) { return acc(i); }, alpha, beta);
}
