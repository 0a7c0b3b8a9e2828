// The pointer chase (class "latency"): each thread follows its own chain through a random cycle,
// one dependent load at a time. With 1-4 warps on the whole GPU nothing hides the latency: a
// launch takes steps x the load latency of the level the table lives in (L1, L2 or DRAM).
#include "common.cuh"

namespace warpmodel::corpus::kernels {

__global__ void pointer_chase_u32(const std::uint32_t* __restrict__ next, const std::uint32_t* __restrict__ start,
                                  std::uint32_t* __restrict__ out, int chains, int steps) {
  const int c = global_x();
  if (c >= chains) return;
  std::uint32_t p = start[c];
  for (int s = 0; s < steps; ++s) p = next[p];
  out[c] = p;
}

}  // namespace warpmodel::corpus::kernels

namespace warpmodel::corpus::gpu {

void pointer_chase_u32(Geometry g, const std::uint32_t* next, const std::uint32_t* start, std::uint32_t* out, int chains,
                       int steps) {
  kernels::pointer_chase_u32<<<g.grid, g.block>>>(next, start, out, chains, steps);
}

}  // namespace warpmodel::corpus::gpu
