// Asynchronous copies (class "async-copy"): one 9-point 1D stencil, out[i] = sum_m w[m] in[i + m]
// over an input padded by 4 on each side (n + 8 elements), written three ways. Each moves 8n bytes
// and does 18n flops.
#include <cuda_pipeline.h>

#include "common.cuh"

namespace warpmodel::corpus::kernels {

constexpr int kHalo = 2 * gpu::kStencilRadius;  // 8 extra input elements per tile

__device__ __forceinline__ float stencil9(const gpu::Stencil9& w, const float* p) {
  float acc = 0.0f;
#pragma unroll
  for (int m = 0; m <= kHalo; ++m) acc = fmaf(w.w[m], p[m], acc);
  return acc;
}

// Plain loads: each input element is read by 9 threads, the L1 serves the overlap.
__global__ void stencil1d_f32(const float* __restrict__ in, float* __restrict__ out, int n, const gpu::Stencil9 w) {
  const int i = global_x();
  if (i < n) out[i] = stencil9(w, in + i);
}

// A block computes kStencilTilesPerBlock consecutive tiles of blockDim.x outputs. Tile t + 1 is
// copied into one shared buffer with cp.async (LDGSTS, no register on the way) while tile t is
// computed from the other: double buffering. Threads past n still meet every barrier.
__global__ void stencil1d_cpasync_f32(const float* __restrict__ in, float* __restrict__ out, int n,
                                      const gpu::Stencil9 w) {
  float* buffers = dynamic_shared<float>();  // 2 x (blockDim.x + 8)
  const int bs = blockDim.x, t = threadIdx.x, stride = bs + kHalo;
  const int block_first = blockIdx.x * bs * gpu::kStencilTilesPerBlock;
  const auto load_tile = [&](int tile) {  // in[first .. first + bs + 8) into buffer tile % 2, one group
    const int first = block_first + tile * bs;
    float* dst = buffers + (tile % 2) * stride;
    if (first + t < n + kHalo) __pipeline_memcpy_async(dst + t, in + first + t, sizeof(float));
    if (t < kHalo && first + bs + t < n + kHalo) __pipeline_memcpy_async(dst + bs + t, in + first + bs + t, sizeof(float));
    __pipeline_commit();
  };
  load_tile(0);
  for (int tile = 0; tile < gpu::kStencilTilesPerBlock; ++tile) {
    if (tile + 1 < gpu::kStencilTilesPerBlock)
      load_tile(tile + 1);  // into the buffer tile - 1 used, released by the barrier that ended it
    else
      __pipeline_commit();  // an empty group: "all but the newest" below is still this tile
    __pipeline_wait_prior(1);
    __syncthreads();
    const int i = block_first + tile * bs + t;
    if (i < n) out[i] = stencil9(w, buffers + (tile % 2) * stride + t);
    __syncthreads();
  }
}

// --- the bulk copy engine (TMA) with an mbarrier, sm_90: one thread copies the block's whole tile
__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void mbarrier_init(unsigned long long* bar, unsigned arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(shared_address(bar)), "r"(arrivals) : "memory");
}
// Makes the initialised barrier visible to the copy engine (a block barrier then shows it to the threads).
__device__ __forceinline__ void fence_mbarrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}
__device__ __forceinline__ void mbarrier_arrive_expect_bytes(unsigned long long* bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(shared_address(bar)), "r"(bytes)
               : "memory");
}
// global -> shared, `bytes` a multiple of 16, both addresses 16-byte aligned; completes on `bar`.
__device__ __forceinline__ void bulk_copy_to_shared(void* dst, const void* src, unsigned bytes, unsigned long long* bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(
                   shared_address(dst)),
               "l"(src), "r"(bytes), "r"(shared_address(bar))
               : "memory");
}
__device__ __forceinline__ void mbarrier_wait(unsigned long long* bar, unsigned parity) {
  unsigned done = 0;
  do {
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(shared_address(bar)), "r"(parity)
        : "memory");
  } while (!done);
}

// Thread 0 fetches in[first .. first + count + 8) (count = the block's outputs) with one bulk
// copy; every thread waits on the mbarrier, then computes its output from shared memory. n and
// blockDim.x are multiples of 4, so the copy is a whole number of 16-byte units.
__global__ void stencil1d_tma_f32(const float* __restrict__ in, float* __restrict__ out, int n, const gpu::Stencil9 w) {
  unsigned char* raw = dynamic_shared<unsigned char>();
  auto* bar = reinterpret_cast<unsigned long long*>(raw);
  float* tile = reinterpret_cast<float*>(raw + 16);  // 16-byte aligned, after the barrier
  const int t = threadIdx.x, first = blockIdx.x * blockDim.x;
  if (t == 0) {
    mbarrier_init(bar, 1);
    fence_mbarrier_init();
  }
  __syncthreads();
  if (t == 0) {
    const unsigned bytes = static_cast<unsigned>(min(static_cast<int>(blockDim.x), n - first) + kHalo) * 4u;
    mbarrier_arrive_expect_bytes(bar, bytes);
    bulk_copy_to_shared(tile, in + first, bytes, bar);
  }
  mbarrier_wait(bar, 0);
  const int i = first + t;
  if (i < n) out[i] = stencil9(w, tile + t);
}

}  // namespace warpmodel::corpus::kernels

namespace warpmodel::corpus::gpu {

void stencil1d_f32(Geometry g, const float* in, float* out, int n, const Stencil9& w) {
  kernels::stencil1d_f32<<<g.grid, g.block>>>(in, out, n, w);
}
void stencil1d_cpasync_f32(Geometry g, const float* in, float* out, int n, const Stencil9& w) {
  kernels::stencil1d_cpasync_f32<<<g.grid, g.block, 2 * (g.block.x + kernels::kHalo) * sizeof(float)>>>(in, out, n, w);
}
void stencil1d_tma_f32(Geometry g, const float* in, float* out, int n, const Stencil9& w) {
  kernels::stencil1d_tma_f32<<<g.grid, g.block, 16 + (g.block.x + kernels::kHalo) * sizeof(float)>>>(in, out, n, w);
}

}  // namespace warpmodel::corpus::gpu
