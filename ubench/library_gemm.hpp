// The best library GEMM on this GPU, beside the wgmma rows: cuBLASLt (loaded with dlopen, so the
// program starts without it), A and B FP16, D FP16, FP32 accumulation (CUBLAS_COMPUTE_32F), the
// fastest of the heuristic's candidate algorithms per square size, timed with CUDA events.
#pragma once

#include <vector>

#include "results.hpp"

namespace warpmodel::ubench {

// sizes: m = n = k; algorithms: candidates asked of cublasLtMatmulAlgoGetHeuristic; launches: timed
// launches per candidate (after one untimed). Not measured (why_not says why) without cuBLASLt;
// throws support::cuda::CudaError on a CUDA failure.
LibraryGemmResult measure_library_gemm(const std::vector<int>& sizes, int algorithms, int launches);

}  // namespace warpmodel::ubench
