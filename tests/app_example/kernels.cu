// Three kernels of different kinds: a streaming copy (DRAM), a naive matrix product (loads that
// hit in L1/L2, a loop), a shared-memory tree reduction (shared memory, barriers).
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

}  // namespace app_example
