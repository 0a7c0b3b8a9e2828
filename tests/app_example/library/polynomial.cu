// The library's compute-bound kernel (app_library.hpp), shipped as PTX only (see CMakeLists.txt).
#include <cmath>

#include "app_library.hpp"

namespace app_library {


__global__ void polynomial_kernel(float* __restrict__ data, long long n, int iterations, float c) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = data[i];
  for (int k = 0; k < iterations; ++k) x = __fmaf_rn(x, 0.5f, c);
  data[i] = x;
}

cudaError_t polynomial(float* data, long long n, int iterations, float c) {
  constexpr int kBlock = 256;
  polynomial_kernel<<<static_cast<unsigned>((n + kBlock - 1) / kBlock), kBlock>>>(data, n, iterations, c);
  return cudaGetLastError();
}

float polynomial_reference(float x, int iterations, float c) {
  for (int k = 0; k < iterations; ++k) x = std::fmaf(x, 0.5f, c);
  return x;
}

}  // namespace app_library
