// Divergent branches (class "divergence"): each thread takes one of four paths of different
// length and instruction mix, chosen by its key. With a key per lane the warp runs every path its
// lanes chose, one after the other; with keys equal across each warp (branch-uniform-f32, the same
// kernel on other data) it runs one. Every path is a contracting iteration (no overflow, errors
// do not grow). 16-64 dependent steps, 8 + 4 bytes read and 4 written per element.
#include "common.cuh"

namespace warpmodel::corpus::kernels {

__global__ void branch_paths_f32(const std::uint32_t* __restrict__ keys, const float* __restrict__ x,
                                 float* __restrict__ y, int n) {
  const int i = global_x();
  if (i >= n) return;
  float v = x[i];
  switch (keys[i] & 3u) {
    case 0:
      for (int k = 0; k < 16; ++k) v = fmaf(v, 0.75f, 0.125f);
      break;
    case 1:
      for (int k = 0; k < 32; ++k) v = fmaf(v, v, -0.25f);
      break;
    case 2:
      for (int k = 0; k < 48; ++k) v = fmaf(v, -0.5f, 0.25f) * 0.875f;
      break;
    default:
      for (int k = 0; k < 64; ++k) v = fmaf(v * v, -0.0625f, v * 0.9375f);
      break;
  }
  y[i] = v;
}

}  // namespace warpmodel::corpus::kernels

namespace warpmodel::corpus::gpu {

void branch_paths_f32(Geometry g, const std::uint32_t* keys, const float* x, float* y, int n) {
  kernels::branch_paths_f32<<<g.grid, g.block>>>(keys, x, y, n);
}

}  // namespace warpmodel::corpus::gpu
