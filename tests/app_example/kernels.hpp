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

// The kernels built to trip predict-app's guardrails (launched once, after the repetitions).
// out[i] = 2 in[i] + 1 with blocks of kRowsBlockX x kRowsBlockY threads indexed by threadIdx.x alone:
// the kRowsBlockY rows of a block write the same elements.
cudaError_t launch_rows_x_only(const float* in, float* out, int n);
inline constexpr int kRowsBlockX = 64, kRowsBlockY = 4;
// data[i] *= s by a grid-stride loop over a fixed grid of kGridStrideBlocks x kGridStrideBlock threads.
cudaError_t launch_grid_stride(float* data, long long n, float s);
inline constexpr int kGridStrideBlocks = 264, kGridStrideBlock = 256;
// out[i] = in[i]^2 by a kernel declared __launch_bounds__(kBoundedBlock), launched with that block.
cudaError_t launch_bounded_square(const float* in, float* out, long long n);
inline constexpr int kBoundedBlock = 128;
// out[b] = the sum of block b's `block` elements, in dynamic shared memory of `block` floats.
cudaError_t launch_block_sum_dynamic(const float* in, float* out, long long n, int block);

}  // namespace app_example
