// What every corpus kernel file shares: the thread's position in the domain, warp sums, dynamic
// shared memory. nvcc only.
#pragma once

#include <cuda_runtime.h>

#include "../src/launchers.hpp"

namespace warpmodel::corpus::kernels {

constexpr unsigned kFullWarp = 0xFFFFFFFFu;

__device__ __forceinline__ int global_x() { return static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); }
__device__ __forceinline__ int global_y() { return static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y); }

// The sum over the warp, in lane 0. Every lane of the warp must call it (full mask): kernels that
// use it keep out-of-domain threads alive with a neutral value instead of returning early.
template <class T>
__device__ __forceinline__ T warp_sum(T v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(kFullWarp, v, offset);
  return v;
}

// The block's dynamic shared memory as T (one declaration for every type and kernel).
template <class T>
__device__ __forceinline__ T* dynamic_shared() {
  extern __shared__ __align__(16) unsigned char corpus_dynamic_shared[];
  return reinterpret_cast<T*>(corpus_dynamic_shared);
}

}  // namespace warpmodel::corpus::kernels
