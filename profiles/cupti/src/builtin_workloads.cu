// The built-in test workloads (builtin_workloads.hpp).
#include <cuda_runtime.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "warpmodel/cupti/builtin_workloads.hpp"
#include "warpmodel/support/cuda.hpp"

namespace warpmodel::cupti {
namespace {

using support::cuda::check;

__global__ void copy_kernel(const float* __restrict__ in, float* __restrict__ out, long long n) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

__global__ void saxpy_kernel(float a, const float* __restrict__ x, float* __restrict__ y, long long n) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

// Every thread reaches every barrier (no early exit), so each warp executes BARRIERS barriers.
template <int BARRIERS>
__global__ void barrier_kernel(const float* __restrict__ in, float* __restrict__ out, long long n) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  float v = i < n ? in[i] : 0.0f;
#pragma unroll
  for (int b = 0; b < BARRIERS; ++b) __syncthreads();
  if (i < n) out[i] = v;
}

using DeviceFloats = support::cuda::DeviceBuffer<float>;

// Values with no simple pattern that are exact in float: i mod 1021, scaled.
std::vector<float> pattern(long long n, float scale) {
  std::vector<float> h(static_cast<std::size_t>(n));
  for (long long i = 0; i < n; ++i) h[static_cast<std::size_t>(i)] = scale * static_cast<float>(i % 1021);
  return h;
}

unsigned grid_for(long long n, int block) { return static_cast<unsigned>((n + block - 1) / block); }

void check_shape(long long n, int block) {
  if (n <= 0) throw std::invalid_argument("--size must be positive");
  if (block <= 0 || block > 1024 || block % 32 != 0)
    throw std::invalid_argument("--block must be a multiple of 32 in [32, 1024]");
  if ((n + block - 1) / block > 0x7fffffffLL) throw std::invalid_argument("--size too large for a 1D grid");
}

class CopyWorkload : public Workload {
 public:
  CopyWorkload(long long n, int block, int copies) : n_(n), block_(block), copies_(copies) {
    check_shape(n, block);
    if (copies < 1) throw std::invalid_argument("copies must be >= 1");
  }
  std::string description() const override {
    return "copy n=" + std::to_string(n_) + " block=" + std::to_string(block_) +
           (copies_ > 1 ? " launches=" + std::to_string(copies_) : "");
  }
  void setup() override {
    in_ = std::make_unique<DeviceFloats>(n_);
    out_ = std::make_unique<DeviceFloats>(n_);
    const auto h = pattern(n_, 0.5f);
    check(cudaMemcpy(in_->data(), h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
  }
  std::size_t launch_count() const override { return static_cast<std::size_t>(copies_); }
  std::string launch_label(std::size_t i) const override { return "copy " + std::to_string(i); }
  void launch(std::size_t) override { copy_kernel<<<grid_for(n_, block_), block_>>>(in_->data(), out_->data(), n_); }
  void restore_inputs() override {}  // `in` is never written
  std::string verify() override {
    std::vector<float> h(static_cast<std::size_t>(n_));
    check(cudaMemcpy(h.data(), out_->data(), h.size() * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
    for (long long i = 0; i < n_; ++i)
      if (h[static_cast<std::size_t>(i)] != 0.5f * static_cast<float>(i % 1021))
        return "copy: out[" + std::to_string(i) + "] is wrong";
    return "";
  }

 private:
  long long n_;
  int block_, copies_;
  std::unique_ptr<DeviceFloats> in_, out_;
};

class SaxpyWorkload : public Workload {
 public:
  SaxpyWorkload(long long n, int block) : n_(n), block_(block) { check_shape(n, block); }
  std::string description() const override {
    return "saxpy (in place) n=" + std::to_string(n_) + " block=" + std::to_string(block_);
  }
  void setup() override {
    x_ = std::make_unique<DeviceFloats>(n_);
    y_ = std::make_unique<DeviceFloats>(n_);
    y0_ = std::make_unique<DeviceFloats>(n_);
    const auto hx = pattern(n_, 1.0f), hy = pattern(n_, 0.25f);
    check(cudaMemcpy(x_->data(), hx.data(), hx.size() * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
    check(cudaMemcpy(y0_->data(), hy.data(), hy.size() * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
  }
  std::size_t launch_count() const override { return 1; }
  std::string launch_label(std::size_t) const override { return "saxpy"; }
  void launch(std::size_t) override { saxpy_kernel<<<grid_for(n_, block_), block_>>>(kA, x_->data(), y_->data(), n_); }
  void restore_inputs() override {
    check(cudaMemcpy(y_->data(), y0_->data(), static_cast<std::size_t>(n_) * sizeof(float), cudaMemcpyDeviceToDevice),
               "cudaMemcpy (restore y)");
  }
  std::string verify() override {
    std::vector<float> h(static_cast<std::size_t>(n_));
    check(cudaMemcpy(h.data(), y_->data(), h.size() * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
    for (long long i = 0; i < n_; ++i) {
      const float v = static_cast<float>(i % 1021);
      const float want = kA * v + 0.25f * v;  // exact: small integers times powers of two
      if (h[static_cast<std::size_t>(i)] != want)
        return "saxpy: y[" + std::to_string(i) + "] = " + std::to_string(h[static_cast<std::size_t>(i)]) + ", expected " +
               std::to_string(want) + " (inputs not restored before a pass?)";
    }
    return "";
  }

 private:
  static constexpr float kA = 2.0f;
  long long n_;
  int block_;
  std::unique_ptr<DeviceFloats> x_, y_, y0_;
};

class BarrierWorkload : public Workload {
 public:
  BarrierWorkload(long long n, int block, int barriers) : n_(n), block_(block), barriers_(barriers) {
    check_shape(n, block);
    if (barriers != 0 && barriers != 1 && barriers != 8 && barriers != 32)
      throw std::invalid_argument("--barriers must be 0, 1, 8 or 32");
  }
  std::string description() const override {
    return "barrier n=" + std::to_string(n_) + " block=" + std::to_string(block_) + " barriers=" + std::to_string(barriers_);
  }
  void setup() override {
    in_ = std::make_unique<DeviceFloats>(n_);
    out_ = std::make_unique<DeviceFloats>(n_);
    check(cudaMemset(in_->data(), 0, static_cast<std::size_t>(n_) * sizeof(float)), "cudaMemset");
  }
  std::size_t launch_count() const override { return 1; }
  std::string launch_label(std::size_t) const override { return "barrier x" + std::to_string(barriers_); }
  void launch(std::size_t) override {
    const unsigned g = grid_for(n_, block_);
    switch (barriers_) {
      case 0: barrier_kernel<0><<<g, block_>>>(in_->data(), out_->data(), n_); break;
      case 1: barrier_kernel<1><<<g, block_>>>(in_->data(), out_->data(), n_); break;
      case 8: barrier_kernel<8><<<g, block_>>>(in_->data(), out_->data(), n_); break;
      default: barrier_kernel<32><<<g, block_>>>(in_->data(), out_->data(), n_); break;
    }
  }
  void restore_inputs() override {}

 private:
  long long n_;
  int block_, barriers_;
  std::unique_ptr<DeviceFloats> in_, out_;
};

class DoubleLaunchWorkload : public CopyWorkload {
 public:
  DoubleLaunchWorkload(long long n, int block) : CopyWorkload(n, block, 1) {}
  std::string description() const override { return "double launch (misdeclared) " + CopyWorkload::description(); }
  void launch(std::size_t i) override {
    CopyWorkload::launch(i);
    CopyWorkload::launch(i);
  }
};

}  // namespace

std::unique_ptr<Workload> make_copy_workload(long long n, int block, int copies) {
  return std::make_unique<CopyWorkload>(n, block, copies);
}
std::unique_ptr<Workload> make_saxpy_workload(long long n, int block) { return std::make_unique<SaxpyWorkload>(n, block); }
std::unique_ptr<Workload> make_barrier_workload(long long n, int block, int barriers) {
  return std::make_unique<BarrierWorkload>(n, block, barriers);
}
std::unique_ptr<Workload> make_double_launch_workload(long long n, int block) {
  return std::make_unique<DoubleLaunchWorkload>(n, block);
}

}  // namespace warpmodel::cupti
