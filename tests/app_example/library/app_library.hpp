// A stand-in for a third-party CUDA library: compiled apart from the application (its own static
// libraries, their own fat binaries), launched through its host API.
//   scale_add:  y = a x + y in place (sm_XX SASS in the fat binary).
//   polynomial: each element run through `iterations` fused multiply-adds, x = x * 0.5 + c; the
//               library ships PTX only, so the driver JIT-compiles it when the module loads and
//               the application's binary holds no SASS for it (only the cubin that
//               `warpmodel profile -- APP` keeps does).
#pragma once

#include <cuda_runtime_api.h>

namespace app_library {

cudaError_t scale_add(float a, const float* x, float* y, long long n);

cudaError_t polynomial(float* data, long long n, int iterations, float c);
// The same arithmetic on the host (fmaf rounds once, as the GPU's FFMA does), for the check.
float polynomial_reference(float x, int iterations, float c);

}  // namespace app_library
