// Histograms with contended atomics (class "histogram"): bins[key % bins] += 1 for n keys (4n
// bytes read, n atomics). The bins are zeroed before every launch (restore_inputs).
#include "common.cuh"

namespace warpmodel::corpus::kernels {

template <unsigned Bins>
__device__ __forceinline__ void histogram_global(const std::uint32_t* __restrict__ keys, std::uint32_t* bins, int n) {
  const int i = global_x();
  if (i < n) atomicAdd(&bins[keys[i] % Bins], 1u);
}

// 8 bins: a warp's 32 atomics land on at most 8 words, every block on the same 8.
__global__ void hist_global_8_bins(const std::uint32_t* __restrict__ keys, std::uint32_t* bins, int n) {
  histogram_global<8>(keys, bins, n);
}
// 4096 bins: contention is rare; the L2's atomic throughput is the limit.
__global__ void hist_global_4096_bins(const std::uint32_t* __restrict__ keys, std::uint32_t* bins, int n) {
  histogram_global<4096>(keys, bins, n);
}

// A block-private histogram in shared memory (shared atomics), then the block's non-zero bins
// added to the global ones: at most 256 global atomics per block.
__global__ void hist_shared_256_bins(const std::uint32_t* __restrict__ keys, std::uint32_t* bins, int n) {
  constexpr unsigned kBins = 256;
  __shared__ std::uint32_t local[kBins];
  for (unsigned b = threadIdx.x; b < kBins; b += blockDim.x) local[b] = 0;
  __syncthreads();
  const int i = global_x();
  if (i < n) atomicAdd(&local[keys[i] % kBins], 1u);
  __syncthreads();
  for (unsigned b = threadIdx.x; b < kBins; b += blockDim.x)
    if (local[b] != 0) atomicAdd(&bins[b], local[b]);
}

}  // namespace warpmodel::corpus::kernels

namespace warpmodel::corpus::gpu {

void hist_global_8_bins(Geometry g, const std::uint32_t* keys, std::uint32_t* bins, int n) {
  kernels::hist_global_8_bins<<<g.grid, g.block>>>(keys, bins, n);
}
void hist_global_4096_bins(Geometry g, const std::uint32_t* keys, std::uint32_t* bins, int n) {
  kernels::hist_global_4096_bins<<<g.grid, g.block>>>(keys, bins, n);
}
void hist_shared_256_bins(Geometry g, const std::uint32_t* keys, std::uint32_t* bins, int n) {
  kernels::hist_shared_256_bins<<<g.grid, g.block>>>(keys, bins, n);
}

}  // namespace warpmodel::corpus::gpu
