// Block-level inclusive scans (class "scan"): each block scans its blockDim.x elements on its own
// (8n bytes; what a multi-pass scan's first pass does). Threads past n scan zeros.
#include "common.cuh"

namespace warpmodel::corpus::kernels {

// Hillis-Steele in double-buffered shared memory: log2(blockDim.x) steps, a barrier each, every
// thread reading two words and writing one per step.
__global__ void scan_block_hs_f32(const float* __restrict__ in, float* __restrict__ out, int n) {
  float* buffer = dynamic_shared<float>();  // 2 x blockDim.x
  const int t = threadIdx.x, bs = blockDim.x, i = global_x();
  int src = 0;
  buffer[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int offset = 1; offset < bs; offset *= 2) {
    const int dst = 1 - src;
    buffer[dst * bs + t] = buffer[src * bs + t] + (t >= offset ? buffer[src * bs + t - offset] : 0.0f);
    __syncthreads();
    src = dst;
  }
  if (i < n) out[i] = buffer[src * bs + t];
}

// Warp shuffles scan each warp; warp 0 scans the warps' totals in shared memory; each warp adds
// the totals before it. Two barriers.
__global__ void scan_block_shuffle_f32(const float* __restrict__ in, float* __restrict__ out, int n) {
  __shared__ float warp_totals[32];
  const int i = global_x(), lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  float v = i < n ? in[i] : 0.0f;
#pragma unroll
  for (int offset = 1; offset < 32; offset *= 2) {
    const float up = __shfl_up_sync(kFullWarp, v, offset);
    if (lane >= offset) v += up;
  }
  if (lane == 31) warp_totals[warp] = v;
  __syncthreads();
  if (warp == 0) {
    const int warps = blockDim.x / 32;
    float total = lane < warps ? warp_totals[lane] : 0.0f;
#pragma unroll
    for (int offset = 1; offset < 32; offset *= 2) {
      const float up = __shfl_up_sync(kFullWarp, total, offset);
      if (lane >= offset) total += up;
    }
    if (lane < warps) warp_totals[lane] = total;
  }
  __syncthreads();
  if (warp > 0) v += warp_totals[warp - 1];
  if (i < n) out[i] = v;
}

}  // namespace warpmodel::corpus::kernels

namespace warpmodel::corpus::gpu {

void scan_block_hs_f32(Geometry g, const float* in, float* out, int n) {
  kernels::scan_block_hs_f32<<<g.grid, g.block, 2 * g.block.x * sizeof(float)>>>(in, out, n);
}
void scan_block_shuffle_f32(Geometry g, const float* in, float* out, int n) {
  kernels::scan_block_shuffle_f32<<<g.grid, g.block>>>(in, out, n);
}

}  // namespace warpmodel::corpus::gpu
