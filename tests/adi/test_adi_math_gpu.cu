// The ADI kernels' own approximations on the device (label gpu, in test_adi_gpu): adi_reciprocal (the
// hardware reciprocal refined by FMA steps) and adi_sixth_root (a hardware log2/exp2 seed and Newton steps),
// against the correctly rounded value (long double on the host), over twelve decades and over random
// mantissas. Why here: the host path of both is another formula (1 / x; a std:: seed), so the CPU tests
// (test_reference.cpp) cannot see the device's; until now only the 100-step comparisons did.
// Error measure as the host test's: |got - exact| / |exact| in units of the type's epsilon (a correctly
// rounded result is within 0.5).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

#include "warpmodel/adi/hd.hpp"
#include "warpmodel/support/cuda.hpp"

namespace warpmodel::adi {
namespace {

template <class T>
__global__ void evaluate_approximations(const T* x, T* reciprocal, T* sixth_root, T* reciprocal_cubic, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= n) return;
  reciprocal[i] = adi_reciprocal(x[i]);
  sixth_root[i] = x[i] > T(0) ? adi_sixth_root(x[i]) : T(0);  // the friction's argument is positive
  reciprocal_cubic[i] = static_cast<T>(adi_reciprocal_cubic(static_cast<double>(x[i])));  // fused-cluster's
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

// |got - exact| / |exact| in units of T's epsilon.
template <class T>
double relative_error_in_epsilon(T got, long double exact) {
  return static_cast<double>(std::fabs((got - exact) / exact) / std::numeric_limits<T>::epsilon());
}

struct WorstErrors {
  double reciprocal = 0, sixth_root = 0, reciprocal_cubic = 0;
};

template <class T>
WorstErrors measure() {
  namespace cu = support::cuda;
  const std::vector<T> x = inputs<T>();
  const int n = static_cast<int>(x.size());
  cu::DeviceBuffer<T> d_x(x.size()), d_rcp(x.size()), d_root(x.size()), d_cubic(x.size());
  d_x.upload(x);
  evaluate_approximations<T><<<(n + 255) / 256, 256>>>(d_x.data(), d_rcp.data(), d_root.data(), d_cubic.data(), n);
  cu::check_launch("evaluate_approximations");
  const std::vector<T> rcp = d_rcp.download(), root = d_root.download(), cubic = d_cubic.download();
  WorstErrors worst;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const long double xi = x[i];
    worst.reciprocal = std::max(worst.reciprocal, relative_error_in_epsilon(rcp[i], 1.0L / xi));
    worst.reciprocal_cubic = std::max(worst.reciprocal_cubic, relative_error_in_epsilon(cubic[i], 1.0L / xi));
    if (xi > 0) worst.sixth_root = std::max(worst.sixth_root, relative_error_in_epsilon(root[i], std::pow(xi, 1.0L / 6)));
  }
  std::printf("%s: worst adi_reciprocal %.3f, adi_sixth_root %.3f, adi_reciprocal_cubic %.3f (units of epsilon, "
              "relative; %d inputs)\n",
              sizeof(T) == 8 ? "double" : "float", worst.reciprocal, worst.sixth_root, worst.reciprocal_cubic, n);
  return worst;
}

// Bounds: the reciprocal's refinement ends with a Newton step on an FMA residual, so within one unit
// (CUDA's correctly rounded reciprocal is within 0.5); the sixth root as the host path's (2, test_reference.cpp).
// The cubic correction alone (fused-cluster's double reciprocal, hd.hpp): its last rounding (half a unit) and
// its truncation e^3 (|e| = |1 - x r| of the hardware seed), within two units.
TEST(DeviceApproximations, DoubleReciprocalAndSixthRoot) {
  const WorstErrors worst = measure<double>();
  EXPECT_LE(worst.reciprocal, 1.0);
  EXPECT_LE(worst.sixth_root, 2.0);
  EXPECT_LE(worst.reciprocal_cubic, 2.0);
}

TEST(DeviceApproximations, FloatReciprocalAndSixthRoot) {
  const WorstErrors worst = measure<float>();
  EXPECT_LE(worst.reciprocal, 1.0);
  EXPECT_LE(worst.sixth_root, 2.0);
}

}  // namespace
}  // namespace warpmodel::adi
