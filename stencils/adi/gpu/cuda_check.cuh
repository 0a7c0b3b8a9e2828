// The support library's CUDA checks and a zero-filled device buffer for the ADI GPU code (private to
// warpmodel_adi_gpu).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <utility>

#include "warpmodel/adi/gpu_solver.hpp"
#include "warpmodel/support/cuda.hpp"

namespace warpmodel::adi::gpu {

using support::cuda::check;
using support::cuda::check_launch;

// Zero-filled device memory of `bytes`, viewed as any element type (as<T>()).
class DeviceBuffer : public support::cuda::DeviceBuffer<std::byte> {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes) : support::cuda::DeviceBuffer<std::byte>(bytes) {
    check(cudaMemset(data(), 0, bytes), "cudaMemset");
  }
};

// __syncthreads() for the block bodies of block_algorithms.hpp.
struct DeviceBlock {
  __device__ void sync() const { __syncthreads(); }
  // A barrier that also tells every thread whether p held on any thread of the block.
  __device__ bool sync_or(bool p) const { return __syncthreads_or(p) != 0; }
  // Whether p holds on every active thread of the calling thread's warp.
  __device__ bool all_in_warp(bool p) const { return __all_sync(__activemask(), p); }
};

}  // namespace warpmodel::adi::gpu
