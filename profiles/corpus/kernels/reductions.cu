// Reductions (class "reduction") and the one-block sum ("launch-bound"). Each reads 4n bytes;
// they differ in how partial sums meet: shuffles, a shared-memory tree with a barrier per level,
// or atomics into one word.
#include "common.cuh"

namespace warpmodel::corpus::kernels {

// Per-block partial sums: shuffle within each warp, the warps' sums through shared memory, a
// last shuffle by warp 0. Out-of-range threads add 0 (every lane must shuffle).
__global__ void reduce_shuffle_f32(const float* __restrict__ in, float* __restrict__ block_sums, int n) {
  __shared__ float warp_sums[32];
  const int i = global_x();
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  float v = warp_sum(i < n ? in[i] : 0.0f);
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = warp_sum(lane < static_cast<int>(blockDim.x / 32) ? warp_sums[lane] : 0.0f);
    if (lane == 0) block_sums[blockIdx.x] = v;
  }
}

// Per-block partial sums with the classic shared-memory tree: log2(blockDim.x) levels, a barrier
// each (blockDim.x a power of two).
__global__ void reduce_tree_f32(const float* __restrict__ in, float* __restrict__ block_sums, int n) {
  float* s = dynamic_shared<float>();
  const int t = threadIdx.x, i = global_x();
  s[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) block_sums[blockIdx.x] = s[0];
}

// Every thread adds its element to one word: n atomics on one address.
__global__ void reduce_atomic_f32(const float* __restrict__ in, float* sum, int n) {
  const int i = global_x();
  if (i < n) atomicAdd(sum, in[i]);
}

// A shuffle reduction per warp, then one atomic per warp: n / 32 atomics on one address.
__global__ void reduce_warp_atomic_f32(const float* __restrict__ in, float* sum, int n) {
  const int i = global_x();
  const float v = warp_sum(i < n ? in[i] : 0.0f);
  if (threadIdx.x % 32 == 0) atomicAdd(sum, v);
}

// One block (of a power-of-two size, at least `threads`): thread t < threads sums in[t + k threads]
// for k < per_thread (coalesced across the block), then a shared-memory tree. One SM works; the
// others idle.
__global__ void one_block_sum_f32(const float* __restrict__ in, float* __restrict__ sum, int threads, int per_thread) {
  float* s = dynamic_shared<float>();
  const int t = threadIdx.x;
  float v = 0.0f;
  if (t < threads)
    for (int k = 0; k < per_thread; ++k) v += in[k * threads + t];
  s[t] = v;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) *sum = s[0];
}

}  // namespace warpmodel::corpus::kernels

namespace warpmodel::corpus::gpu {

void reduce_shuffle_f32(Geometry g, const float* in, float* block_sums, int n) {
  kernels::reduce_shuffle_f32<<<g.grid, g.block>>>(in, block_sums, n);
}
void reduce_tree_f32(Geometry g, const float* in, float* block_sums, int n) {
  kernels::reduce_tree_f32<<<g.grid, g.block, g.block.x * sizeof(float)>>>(in, block_sums, n);
}
void reduce_atomic_f32(Geometry g, const float* in, float* sum, int n) {
  kernels::reduce_atomic_f32<<<g.grid, g.block>>>(in, sum, n);
}
void reduce_warp_atomic_f32(Geometry g, const float* in, float* sum, int n) {
  kernels::reduce_warp_atomic_f32<<<g.grid, g.block>>>(in, sum, n);
}
void one_block_sum_f32(Geometry g, const float* in, float* sum, int threads, int per_thread) {
  kernels::one_block_sum_f32<<<g.grid, g.block, g.block.x * sizeof(float)>>>(in, sum, threads, per_thread);
}

}  // namespace warpmodel::corpus::gpu
