// The ADI kernels' own approximations on the device (label gpu, in test_adi_gpu): adi_reciprocal (the
// hardware reciprocal refined by FMA steps) and adi_sixth_root (a hardware log2/exp2 seed and Newton steps),
// against the correctly rounded value (long double on the host), over twelve decades and over random
// mantissas. Why here: the host path of both is another formula (1 / x; a std:: seed), so the CPU tests
// (test_reference.cpp) cannot see the device's; until now only the 100-step comparisons did.
// Error measure as the host test's: |got - exact| / |exact| in units of the type's epsilon (a correctly
// rounded result is within 0.5).
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

#include "warpmodel/adi/hd.hpp"

namespace warpmodel::adi {
namespace {

template <class T>
__global__ void evaluate_approximations(const T* x, T* reciprocal, T* sixth_root, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= n) return;
  reciprocal[i] = adi_reciprocal(x[i]);
  sixth_root[i] = x[i] > T(0) ? adi_sixth_root(x[i]) : T(0);  // the friction's argument is positive
}

// Inputs: 10^(-6 .. 6) in 20001 steps (the host test's), their negatives (pivots may be negative), and
// 2^16 random mantissas in [1, 2) times 2^e, e in [-20, 20].
template <class T>
std::vector<T> inputs() {
  std::vector<T> x;
  for (int k = 0; k <= 20000; ++k) {
    const T v = static_cast<T>(std::pow(10.0, -6 + 12.0 * k / 20000));
    x.push_back(v);
    x.push_back(-v);
  }
  std::mt19937 rng(15);
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  std::uniform_int_distribution<int> exponent(-20, 20);
  for (int k = 0; k < (1 << 16); ++k) x.push_back(static_cast<T>(std::ldexp(mantissa(rng), exponent(rng))));
  return x;
}

#define WARPMODEL_CUDA_OK(call) ASSERT_EQ((call), cudaSuccess) << #call

struct WorstErrors {
  double reciprocal = 0, sixth_root = 0;
};

template <class T>
void measure(WorstErrors& worst) {
  const std::vector<T> x = inputs<T>();
  const int n = static_cast<int>(x.size());
  const std::size_t bytes = x.size() * sizeof(T);
  T *d_x = nullptr, *d_rcp = nullptr, *d_root = nullptr;
  WARPMODEL_CUDA_OK(cudaMalloc(&d_x, bytes));
  WARPMODEL_CUDA_OK(cudaMalloc(&d_rcp, bytes));
  WARPMODEL_CUDA_OK(cudaMalloc(&d_root, bytes));
  WARPMODEL_CUDA_OK(cudaMemcpy(d_x, x.data(), bytes, cudaMemcpyHostToDevice));
  evaluate_approximations<T><<<(n + 255) / 256, 256>>>(d_x, d_rcp, d_root, n);
  WARPMODEL_CUDA_OK(cudaGetLastError());
  std::vector<T> rcp(x.size()), root(x.size());
  WARPMODEL_CUDA_OK(cudaMemcpy(rcp.data(), d_rcp, bytes, cudaMemcpyDeviceToHost));
  WARPMODEL_CUDA_OK(cudaMemcpy(root.data(), d_root, bytes, cudaMemcpyDeviceToHost));
  cudaFree(d_x);
  cudaFree(d_rcp);
  cudaFree(d_root);
  const long double eps = std::numeric_limits<T>::epsilon();
  for (std::size_t i = 0; i < x.size(); ++i) {
    const long double xi = x[i];
    const long double exact_rcp = 1.0L / xi;
    worst.reciprocal = std::max(worst.reciprocal, static_cast<double>(std::fabs((rcp[i] - exact_rcp) / exact_rcp) / eps));
    if (xi > 0) {
      const long double exact_root = std::pow(xi, 1.0L / 6);
      worst.sixth_root =
          std::max(worst.sixth_root, static_cast<double>(std::fabs((root[i] - exact_root) / exact_root) / eps));
    }
  }
  std::printf("%s: worst adi_reciprocal %.3f, adi_sixth_root %.3f (units of epsilon, relative; %d inputs)\n",
              sizeof(T) == 8 ? "double" : "float", worst.reciprocal, worst.sixth_root, n);
}

// Bounds: the reciprocal's refinement ends with a Newton step on an FMA residual, so within one unit
// (CUDA's correctly rounded reciprocal is within 0.5); the sixth root as the host path's (2, test_reference.cpp).
TEST(DeviceApproximations, DoubleReciprocalAndSixthRoot) {
  WorstErrors worst;
  measure<double>(worst);
  EXPECT_LE(worst.reciprocal, 1.0);
  EXPECT_LE(worst.sixth_root, 2.0);
}

TEST(DeviceApproximations, FloatReciprocalAndSixthRoot) {
  WorstErrors worst;
  measure<float>(worst);
  EXPECT_LE(worst.reciprocal, 1.0);
  EXPECT_LE(worst.sixth_root, 2.0);
}

}  // namespace
}  // namespace warpmodel::adi
