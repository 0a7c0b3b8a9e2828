// The one harness every corpus workload is built from (workload.cpp wraps a Case into a
// cupti::Workload): deterministic device inputs the host can recompute, poisoned outputs,
// comparisons with double-precision references, and the Case interface each kernel family
// implements (cases_*.cpp). Host compiler, C++20.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "launchers.hpp"
#include "random.hpp"
#include "warpmodel/corpus/corpus.hpp"
#include "warpmodel/support/cuda.hpp"

namespace warpmodel::corpus::detail {

namespace cuda = support::cuda;

// Relative tolerances: |got - expected| <= rtol x magnitude, where magnitude is the sum of the
// absolute values of the terms that made the result (so a long sum gets a tolerance that grows
// with its length, and cancellation does not make a correct result look wrong).
constexpr double kRtolF32 = 1e-4;
constexpr double kRtolF64 = 1e-10;
template <class T>
constexpr double rtol() {
  return sizeof(T) == sizeof(double) ? kRtolF64 : kRtolF32;
}

// Up to `count` indices of [0, n): every one when n <= count, else the first, the last, evenly
// spaced ones and pseudo-random ones (a fixed seed), sorted.
std::vector<std::size_t> sample_indices(std::size_t n, std::size_t count = 512);

// Collects the comparison of a kernel's outputs with their references; verdict() is "" when all
// agree, else one line: how many disagree and the first of them.
class Comparison {
 public:
  Comparison(std::string what, double rtol) : what_(std::move(what)), rtol_(rtol) {}
  // |got - expected| <= rtol x magnitude (NaN never passes).
  void near(std::size_t index, double got, double expected, double magnitude);
  void equal(std::size_t index, double got, double expected);
  std::string verdict() const;

 private:
  void fail(std::size_t index, double got, double expected, double tolerance);
  std::string what_;
  double rtol_;
  std::size_t checked_ = 0, wrong_ = 0;
  std::string first_;
};

// "" when every element is finite, else which is not (outputs are poisoned with NaN before the
// first launch, so a NaN is an output the kernel never wrote).
template <class T>
std::string all_finite(const std::vector<T>& values, std::string_view what) {
  for (std::size_t i = 0; i < values.size(); ++i)
    if (!std::isfinite(static_cast<double>(values[i])))
      return std::string(what) + "[" + std::to_string(i) + "] = " + std::to_string(static_cast<double>(values[i])) +
             " (of " + std::to_string(values.size()) + "; poisoned before the launch: never written?)";
  return "";
}

// The same for an integer output: "" when no element still holds the poison (all bits set).
inline std::string none_poisoned(const std::vector<std::uint32_t>& values, std::string_view what) {
  for (std::size_t i = 0; i < values.size(); ++i)
    if (values[i] == 0xFFFFFFFFu)
      return std::string(what) + "[" + std::to_string(i) + "] = 0xFFFFFFFF (of " + std::to_string(values.size()) +
             "; poisoned before the launch: never written?)";
  return "";
}

// Allocates `count` elements, refusing buffers the kernels' int indices cannot address.
template <class T>
cuda::DeviceBuffer<T> allocate(std::size_t count) {
  if (count >= (std::size_t(1) << 31)) throw std::invalid_argument("corpus: a buffer of 2^31 or more elements");
  return cuda::DeviceBuffer<T>(count);
}

// A device array of values uniform in [lo, lo + width) (random.hpp: width a power of two), filled
// on the device; the host recomputes any element with operator[].
template <class T>
class Uniform {
 public:
  Uniform(std::size_t count, std::uint64_t seed, T lo, T width) : count_(count), seed_(seed), lo_(lo), width_(width) {}
  void allocate_and_fill() {
    buffer_ = allocate<T>(count_);
    fill();
  }
  void fill() {
    gpu::fill_uniform(buffer_.data(), count_, seed_, lo_, width_);
    cuda::check_launch("corpus fill_uniform");
  }
  T operator[](std::size_t i) const {
    if constexpr (sizeof(T) == sizeof(double))
      return uniform_f64(seed_, i, lo_, width_);
    else
      return uniform_f32(seed_, i, lo_, width_);
  }
  T* device() const { return buffer_.data(); }
  std::size_t size() const { return count_; }
  std::vector<T> download() const { return buffer_.download(); }

 private:
  std::size_t count_;
  std::uint64_t seed_;
  T lo_, width_;
  cuda::DeviceBuffer<T> buffer_;
};

// A device array of 32-bit keys: random_key(seed, i, modulus, group) (random.hpp).
class Keys {
 public:
  Keys(std::size_t count, std::uint64_t seed, std::uint32_t modulus, std::uint32_t group = 1)
      : count_(count), seed_(seed), modulus_(modulus), group_(group) {}
  void allocate_and_fill() {
    buffer_ = allocate<std::uint32_t>(count_);
    gpu::fill_keys(buffer_.data(), count_, seed_, modulus_, group_);
    cuda::check_launch("corpus fill_keys");
  }
  std::uint32_t operator[](std::size_t i) const { return random_key(seed_, i, modulus_, group_); }
  std::uint32_t* device() const { return buffer_.data(); }
  std::size_t size() const { return count_; }

 private:
  std::size_t count_;
  std::uint64_t seed_;
  std::uint32_t modulus_, group_;
  cuda::DeviceBuffer<std::uint32_t> buffer_;
};

// An output array, every byte 0xFF (NaN for floats) before the first launch.
template <class T>
class Output {
 public:
  explicit Output(std::size_t count) : count_(count) {}
  void allocate_and_poison() {
    buffer_ = allocate<T>(count_);
    buffer_.fill_bytes(0xFF);
  }
  void zero() { buffer_.fill_bytes(0); }
  T* device() const { return buffer_.data(); }
  std::size_t size() const { return count_; }
  std::vector<T> download() const { return buffer_.download(); }

 private:
  std::size_t count_;
  cuda::DeviceBuffer<T> buffer_;
};

// One kernel at one size: its buffers, its launch, its reference. Constructors only record
// parameters (no CUDA call: workloads are built, and tested, on machines without a GPU).
class Case {
 public:
  virtual ~Case() = default;
  virtual void setup() = 0;                              // allocate, fill inputs, poison outputs
  virtual void launch(const gpu::Geometry& geometry) = 0;  // exactly one kernel
  virtual void restore() {}                              // buffers the launch changes in place back to their setup state
  virtual std::string verify() = 0;                      // "" or what is wrong
};

using CaseFactory = std::unique_ptr<Case> (*)(const KernelDecl&, const Size&, Shape);

// The factories, one per kernel family (cases_*.cpp); each dispatches on the kernel's name.
std::unique_ptr<Case> make_dense_case(const KernelDecl&, const Size&, Shape);      // streaming, naive loops, matvec, GEMM, transposes
std::unique_ptr<Case> make_irregular_case(const KernelDecl&, const Size&, Shape);  // reductions, histograms, gathers, scans, latency, launch-bound
std::unique_ptr<Case> make_compute_case(const KernelDecl&, const Size&, Shape);    // compute, divergence, local memory
std::unique_ptr<Case> make_stencil_case(const KernelDecl&, const Size&, Shape);    // async copies, 2D/3D stencils
std::unique_ptr<Case> make_tensor_case(const KernelDecl&, const Size&, Shape);     // tensor-core GEMM tiles

// Size extents as int (the kernels' index type); throws when one does not fit.
int as_int(long long v, std::string_view what);

}  // namespace warpmodel::corpus::detail
