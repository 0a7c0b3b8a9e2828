// Three kernels of different kinds: a streaming copy (DRAM), a naive matrix product (loads that
// hit in L1/L2, a loop), a shared-memory tree reduction (shared memory, barriers); then four built
// to trip predict-app's guardrails (docs/your-kernels.md): a 2D block indexed by threadIdx.x alone,
// a grid-stride loop over a fixed grid, a __launch_bounds__ kernel, and shared memory sized from
// the block at launch.
#include "kernels.hpp"

namespace app_example {

// Named (not anonymous) namespace: the mangled names stay the same wherever the file is compiled
// (nvcc mangles an anonymous namespace with a hash of the source path), so committed ncu output
// of this program names the same kernels as a fresh build.

// Keep this kernel's text equal to copy_kernel in profiles/cupti/src/builtin_workloads.cu.
__global__ void copy_kernel(const float* __restrict__ in, float* __restrict__ out, long long n) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

__global__ void matmul_naive_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                    int n) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n || col >= n) return;
  float sum = 0.0f;
  for (int k = 0; k < n; ++k) sum += a[row * n + k] * b[k * n + col];
  c[row * n + col] = sum;
}

template <int BLOCK>
__global__ void reduce_sum_kernel(const int* __restrict__ in, int* __restrict__ out, long long count) {
  __shared__ int partial[BLOCK];
  int sum = 0;
  for (long long i = static_cast<long long>(blockIdx.x) * BLOCK + threadIdx.x; i < count;
       i += static_cast<long long>(gridDim.x) * BLOCK)
    sum += in[i];
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
    if (static_cast<int>(threadIdx.x) < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = partial[0];
}

// A 2D block whose index arithmetic uses threadIdx.x alone: each of the blockDim.y rows of a block
// writes the same elements (the same values), so a taller block adds no work, only repeats it.
__global__ void rows_x_only_kernel(const float* __restrict__ in, float* __restrict__ out, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) out[i] = 2.0f * in[i] + 1.0f;
}

// A grid-stride loop: the grid is a fixed number of blocks, not derived from the block or the data.
__global__ void scale_grid_stride_kernel(float* data, long long n, float s) {
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    data[i] *= s;
}

// Compiled for at most kBoundedBlock threads per block (__launch_bounds__: EIATTR_MAX_THREADS).
__global__ void __launch_bounds__(kBoundedBlock) bounded_square_kernel(const float* __restrict__ in,
                                                                       float* __restrict__ out, long long n) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * in[i];
}

// Dynamic shared memory of blockDim.x floats, sized at launch from the block: each block's sum.
__global__ void block_sum_dynamic_kernel(const float* __restrict__ in, float* __restrict__ out, long long n) {
  extern __shared__ float tile[];
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) tile[threadIdx.x] += tile[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = tile[0];
}

cudaError_t launch_copy(const float* in, float* out, long long n, int block) {
  const unsigned grid = static_cast<unsigned>((n + block - 1) / block);
  copy_kernel<<<grid, block>>>(in, out, n);
  return cudaGetLastError();
}

cudaError_t launch_matmul(const float* a, const float* b, float* c, int n, int tile) {
  const dim3 block(tile, tile);
  const dim3 grid((n + tile - 1) / tile, (n + tile - 1) / tile);
  matmul_naive_kernel<<<grid, block>>>(a, b, c, n);
  return cudaGetLastError();
}

cudaError_t launch_reduce(const int* in, int* out, long long count, int blocks) {
  reduce_sum_kernel<kReduceBlock><<<blocks, kReduceBlock>>>(in, out, count);
  return cudaGetLastError();
}

cudaError_t launch_rows_x_only(const float* in, float* out, int n) {
  const dim3 block(kRowsBlockX, kRowsBlockY);
  rows_x_only_kernel<<<(n + kRowsBlockX - 1) / kRowsBlockX, block>>>(in, out, n);
  return cudaGetLastError();
}

cudaError_t launch_grid_stride(float* data, long long n, float s) {
  scale_grid_stride_kernel<<<kGridStrideBlocks, kGridStrideBlock>>>(data, n, s);
  return cudaGetLastError();
}

cudaError_t launch_bounded_square(const float* in, float* out, long long n) {
  const unsigned grid = static_cast<unsigned>((n + kBoundedBlock - 1) / kBoundedBlock);
  bounded_square_kernel<<<grid, kBoundedBlock>>>(in, out, n);
  return cudaGetLastError();
}

cudaError_t launch_block_sum_dynamic(const float* in, float* out, long long n, int block) {
  const unsigned grid = static_cast<unsigned>((n + block - 1) / block);
  block_sum_dynamic_kernel<<<grid, block, block * sizeof(float)>>>(in, out, n);
  return cudaGetLastError();
}

}  // namespace app_example
