// Functions shared by the CPU reference and the CUDA kernels are marked WARPMODEL_ADI_HD: compiled
// by g++ they are plain inline functions, by nvcc host-and-device functions. Sharing the code is
// what lets the GPU agree with the CPU reference to rounding (same formulas, same operation order).
#pragma once

#include <cmath>

#if defined(__CUDACC__)
#define WARPMODEL_ADI_HD __host__ __device__ __forceinline__
#define WARPMODEL_ADI_UNROLL _Pragma("unroll")
#else
#define WARPMODEL_ADI_HD inline
#define WARPMODEL_ADI_UNROLL
#endif

namespace warpmodel::adi {

// std:: maths on the host, CUDA's overloads on the device (float and double).
template <class T>
WARPMODEL_ADI_HD T adi_sqrt(T x) {
#if defined(__CUDA_ARCH__)
  return sqrt(x);
#else
  return std::sqrt(x);
#endif
}

// 1/x on the device from the hardware approximation (MUFU.RCP64H) and its cubic correction, r (1 + e + e^2)
// with e = 1 - x r: 3 DFMA. tests/adi/test_adi_math_gpu.cu bounds it by 2 units in the last place; on the
// H200 its worst error over 105,538 inputs was 0.496 (results/h200/logs/adi-fused-cluster/width-rcp-kept/
// test-nw.txt), as with the Newton step. On the host 1 / x.
WARPMODEL_ADI_HD double adi_reciprocal_cubic(double x) {
#if defined(__CUDA_ARCH__)
  double r;
  asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(x));
  double e = fma(-x, r, 1.0);
  e = fma(e, e, e);
  return fma(r, e, r);
#else
  return 1.0 / x;
#endif
}

// 1/x. On the device without the IEEE division's slow-path branch: the hardware approximation
// (MUFU.RCP64H / MUFU.RCP) refined by FMA steps as CUDA's own reciprocal does on its fast path
// (the cubic correction and one Newton step in double, one Newton step in float). Branch-free, so the
// compiler can interleave independent chains around it; this is what the latency-bound kernels
// (thread-per-line Thomas) need. Valid for normal, finite x (the ADI pivots and depths are O(1e-2
// .. 1e2)). On the host: 1 / x.
// A translation unit compiled with WARPMODEL_ADI_CUBIC_RECIPROCAL (fused-cluster's kernels,
// gpu/cluster_sweep.cu) stops the double after the cubic correction (adi_reciprocal_cubic): 3 DFMA
// instead of 5. Measured on the H200 (results/h200/logs/adi-fused-cluster/width-rcp/call1/ab.md): fused-cluster's
// 2048^2 double step 271.7 us against 277.0, 4096^2 1,120.7 against 1,142.8, the 100-step comparisons with the
// CPU reference passing; every other variant keeps the Newton step, so their kernels and tables stand.
template <class T>
WARPMODEL_ADI_HD T adi_reciprocal(T x) {
#if defined(__CUDA_ARCH__)
  if constexpr (sizeof(T) == 8) {
    const double r = adi_reciprocal_cubic(static_cast<double>(x));
#if defined(WARPMODEL_ADI_CUBIC_RECIPROCAL)
    return static_cast<T>(r);
#else
    const double e = fma(-static_cast<double>(x), r, 1.0);
    return static_cast<T>(fma(r, e, r));
#endif
  } else {
    float r;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(static_cast<float>(x)));
    const float e = fmaf(-static_cast<float>(x), r, 1.0f);
    return static_cast<T>(fmaf(r, e, r));
  }
#else
  return T(1) / x;
#endif
}

// x^(1/6) for normal, finite x > 0 (the friction's depths): a float seed of y = x^(-1/6) (the
// hardware log2 and exp2 on the device, relative error about 3e-7), Newton steps on y^-6 = x without
// a division, y <- y (7 - x y^6) / 6 (the relative error e becomes -3.5 e^2: two steps in double, one
// in float), and x^(1/6) = 1 / y. Branch-free: in the SASS of fused_sweep_kernel<double, 8> 48
// instructions fewer than cbrt(sqrt(x)) for each of its four friction terms, and no call to the
// square root's slow path; within 2 units in the last place (tested against std::pow).
template <class T>
WARPMODEL_ADI_HD T adi_sixth_root(T x) {
  const float xf = static_cast<float>(x);
#if defined(__CUDA_ARCH__)
  float log2_x, seed;
  asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(log2_x) : "f"(xf));
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(seed) : "f"(log2_x * (-1.0f / 6.0f)));
#else
  const float seed = std::exp2(std::log2(xf) * (-1.0f / 6.0f));
#endif
  T y = static_cast<T>(seed);
  constexpr int kSteps = sizeof(T) == 8 ? 2 : 1;
WARPMODEL_ADI_UNROLL
  for (int step = 0; step < kSteps; ++step) {
    const T y2 = y * y;
    const T y6 = y2 * y2 * y2;
    y = y * (T(7) - x * y6) * T(1.0 / 6.0);
  }
  return adi_reciprocal(y);
}

}  // namespace warpmodel::adi
