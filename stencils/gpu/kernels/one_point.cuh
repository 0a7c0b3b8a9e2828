// naive and readonly: one thread per point, 3D blocks (thesis listing 3.3). They differ only in
// how the neighbours are read: plain global loads, or the read-only data cache.
#pragma once

#include <cstddef>

#include "common.cuh"

namespace warpmodel::stencils::gpu::kernels {

template <int R, bool ReadOnly>
WM_DEVICE void one_point_per_thread(const StencilParams& p) {
  const int i = int(block_x() * block_dim_x() + thread_x());
  const int j = int(block_y() * block_dim_y() + thread_y());
  const int k = int(block_z() * block_dim_z() + thread_z());
  if (i >= p.nx || j >= p.ny || k >= p.nz) return;
  const std::ptrdiff_t sy = p.pitch, sz = std::ptrdiff_t(p.pitch) * p.ny;
  const std::ptrdiff_t c = k * sz + j * sy + i;
  float out = 0.0f;
  if (is_interior<R>(p, i, j, k)) {
    const auto read = [](const float* a, std::ptrdiff_t at) { return ReadOnly ? load_readonly(a + at) : load_global(a + at); };
    const float centre = read(p.cur, c);
    float sum = p.weight[0] * centre;
    WM_UNROLL
    for (int d = 1; d <= R; ++d)
      sum += p.weight[d] * (read(p.cur, c - d) + read(p.cur, c + d) + read(p.cur, c - d * sy) +
                            read(p.cur, c + d * sy) + read(p.cur, c - d * sz) + read(p.cur, c + d * sz));
    out = with_source(p, leapfrog(centre, read(p.prev, c), read(p.vel2, c), sum), i, j, k);
  }
  store_global(p.next + c, out);
}

template <int R>
WM_KERNEL void naive_kernel(StencilParams p) {
  one_point_per_thread<R, false>(p);
}

template <int R>
WM_KERNEL void readonly_kernel(StencilParams p) {
  one_point_per_thread<R, true>(p);
}

}  // namespace warpmodel::stencils::gpu::kernels
