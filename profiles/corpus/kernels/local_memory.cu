// Local memory (class "local-memory"): a per-thread array indexed by data, which the compiler must
// place in local memory, and a kernel whose live accumulators outgrow a register cap and spill.
#include "common.cuh"

namespace warpmodel::corpus::kernels {

// A 64-entry histogram per thread of the low 6 bits of its 32 key bytes: the increments index
// by data, so the array is in local memory (64 stores to clear it, a load and a store per key
// byte, 64 loads to find the mode). 32 bytes of keys read, 4 written per thread.
__global__ void local_hist_u32(const std::uint32_t* __restrict__ keys, std::uint32_t* __restrict__ mode, int n) {
  const int i = global_x();
  if (i >= n) return;
  std::uint32_t hist[64];
  for (int b = 0; b < 64; ++b) hist[b] = 0;
  for (int w = 0; w < 8; ++w) {
    const std::uint32_t key = keys[w * n + i];
    for (int shift = 0; shift < 32; shift += 8) ++hist[(key >> shift) & 63u];
  }
  int best = 0;
  for (int b = 1; b < 64; ++b)
    if (hist[b] > hist[best]) best = b;
  mode[i] = 256u * static_cast<std::uint32_t>(best) + hist[best];
}

// 48 accumulators, each a Horner chain in the thread's inputs, live across a loop whose trip
// count is a run-time value (so it cannot be unrolled away): ~60 registers. 48 FFMA per round,
// `rounds` 4-byte loads per thread.
__device__ __forceinline__ float accumulate(const float* __restrict__ in, int n, int rounds, int i) {
  constexpr int A = gpu::kRegPressureAccumulators;
  float acc[A];
#pragma unroll
  for (int j = 0; j < A; ++j) acc[j] = 0.0f;
  for (int r = 0; r < rounds; ++r) {
    const float v = in[r * n + i];
#pragma unroll
    for (int j = 0; j < A; ++j) acc[j] = fmaf(acc[j], v, static_cast<float>(j + 1) * 0.015625f);
  }
  float out = 0.0f;
#pragma unroll
  for (int j = 0; j < A; ++j) out = fmaf(acc[j], static_cast<float>(j % 7 - 3) * 0.125f, out);
  return out;
}

__global__ void regpressure_f32(const float* __restrict__ in, float* __restrict__ out, int n, int rounds) {
  const int i = global_x();
  if (i < n) out[i] = accumulate(in, n, rounds, i);
}

// The same code capped at 32 registers: ptxas keeps part of the accumulators in local memory,
// loaded and stored in every round.
__global__ void __maxnreg__(32) regpressure_spill_f32(const float* __restrict__ in, float* __restrict__ out, int n,
                                                      int rounds) {
  const int i = global_x();
  if (i < n) out[i] = accumulate(in, n, rounds, i);
}

}  // namespace warpmodel::corpus::kernels

namespace warpmodel::corpus::gpu {

void local_hist_u32(Geometry g, const std::uint32_t* keys, std::uint32_t* mode, int n) {
  kernels::local_hist_u32<<<g.grid, g.block>>>(keys, mode, n);
}
void regpressure_f32(Geometry g, const float* in, float* out, int n, int rounds) {
  kernels::regpressure_f32<<<g.grid, g.block>>>(in, out, n, rounds);
}
void regpressure_spill_f32(Geometry g, const float* in, float* out, int n, int rounds) {
  kernels::regpressure_spill_f32<<<g.grid, g.block>>>(in, out, n, rounds);
}

}  // namespace warpmodel::corpus::gpu
