// Functions shared by the CPU reference and the CUDA kernels are marked WARPMODEL_ADI_HD: compiled
// by g++ they are plain inline functions, by nvcc host-and-device functions. Sharing the code is
// what lets the GPU agree with the CPU reference to rounding (same formulas, same operation order).
#pragma once

#include <cmath>

#if defined(__CUDACC__)
#define WARPMODEL_ADI_HD __host__ __device__ __forceinline__
#else
#define WARPMODEL_ADI_HD inline
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

template <class T>
WARPMODEL_ADI_HD T adi_cbrt(T x) {
#if defined(__CUDA_ARCH__)
  return cbrt(x);
#else
  return std::cbrt(x);
#endif
}

}  // namespace warpmodel::adi
