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

// 1/x. On the device without the IEEE division's slow-path branch: the hardware approximation
// (MUFU.RCP64H / MUFU.RCP) refined by FMA steps as CUDA's own reciprocal does on its fast path
// (a cubic correction and one Newton step in double, one Newton step in float). Branch-free, so the
// compiler can interleave independent chains around it; this is what the latency-bound kernels
// (thread-per-line Thomas) need. Valid for normal, finite x (the ADI pivots and depths are O(1e-2
// .. 1e2)). On the host: 1 / x.
template <class T>
WARPMODEL_ADI_HD T adi_reciprocal(T x) {
#if defined(__CUDA_ARCH__)
  if constexpr (sizeof(T) == 8) {
    double r;
    asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(static_cast<double>(x)));
    double e = fma(-static_cast<double>(x), r, 1.0);
    e = fma(e, e, e);
    r = fma(r, e, r);
    e = fma(-static_cast<double>(x), r, 1.0);
    return static_cast<T>(fma(r, e, r));
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
