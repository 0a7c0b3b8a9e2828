// CUDA error checking and a device buffer for the ADI GPU code (private to warpmodel_adi_gpu).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <utility>

#include "warpmodel/adi/gpu_solver.hpp"

namespace warpmodel::adi::gpu {

inline void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw CudaError(std::string(what) + ": " + cudaGetErrorString(status));
}

// Checks the launch that was just made (configuration errors; execution errors surface at the
// next synchronising call).
inline void check_launch(const char* kernel) { check(cudaGetLastError(), kernel); }

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
    check(cudaMalloc(&ptr_, bytes), "cudaMalloc");
    check(cudaMemset(ptr_, 0, bytes), "cudaMemset");
  }
  ~DeviceBuffer() {
    if (ptr_) cudaFree(ptr_);
  }
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(bytes_, o.bytes_);
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  template <class T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  std::size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

// __syncthreads() for the block bodies of block_algorithms.hpp.
struct DeviceBlock {
  __device__ void sync() const { __syncthreads(); }
};

}  // namespace warpmodel::adi::gpu
