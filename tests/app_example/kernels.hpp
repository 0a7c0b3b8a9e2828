// The example application's own kernels (kernels.cu), launched through these host functions so
// that main.cpp stays plain C++. Each returns the CUDA runtime's launch error.
#pragma once

#include <cuda_runtime_api.h>

namespace app_example {

// out[i] = in[i], one element per thread: the same kernel as the built-in `copy` workload of
// `warpmodel profile --kernel copy` (profiles/cupti/src/builtin_workloads.cu), so its counters
// can be compared exactly (the test SassIsTheBuiltinCopysSass checks the SASS is the same).
cudaError_t launch_copy(const float* in, float* out, long long n, int block);

// C = A B for n x n row-major matrices, one output element per thread, blocks of tile x tile.
cudaError_t launch_matmul(const float* a, const float* b, float* c, int n, int tile);

// Sums `count` ints into out[blockIdx.x] with blocks of 256 threads: each thread first adds a
// grid-stride slice, then the block reduces in shared memory.
cudaError_t launch_reduce(const int* in, int* out, long long count, int blocks);
inline constexpr int kReduceBlock = 256;

}  // namespace app_example
