// intz: z internalised (seed 004 "int.z"). A 2D block covers an xy tile and every thread marches
// through the block's z range; all neighbours through the read-only cache, which now sees the
// z neighbours of the previous planes again (the reuse seed 004 attributes to the caches).
#pragma once

#include <cstddef>

#include "common.cuh"

namespace warpmodel::stencils::gpu::kernels {

template <int R>
WM_KERNEL void intz_kernel(StencilParams p) {
  const int i = int(block_x() * block_dim_x() + thread_x());
  const int j = int(block_y() * block_dim_y() + thread_y());
  if (i >= p.nx || j >= p.ny) return;
  const int k_begin = int(block_z()) * p.z_chunk;
  const int k_end = k_begin + p.z_chunk < p.nz ? k_begin + p.z_chunk : p.nz;
  const std::ptrdiff_t sy = p.pitch, sz = std::ptrdiff_t(p.pitch) * p.ny;
  const bool interior_xy = i >= R && i < p.nx - R && j >= R && j < p.ny - R;
  std::ptrdiff_t c = k_begin * sz + j * sy + i;
  for (int k = k_begin; k < k_end; ++k, c += sz) {
    float out = 0.0f;
    if (interior_xy && k >= R && k < p.nz - R) {
      const float centre = load_readonly(p.cur + c);
      float sum = p.weight[0] * centre;
      WM_UNROLL
      for (int d = 1; d <= R; ++d)
        sum += p.weight[d] * (load_readonly(p.cur + c - d) + load_readonly(p.cur + c + d) +
                              load_readonly(p.cur + c - d * sy) + load_readonly(p.cur + c + d * sy) +
                              load_readonly(p.cur + c - d * sz) + load_readonly(p.cur + c + d * sz));
      out = with_source(p, leapfrog(centre, load_readonly(p.prev + c), load_readonly(p.vel2 + c), sum), i, j, k);
    }
    store_global(p.next + c, out);
  }
}

}  // namespace warpmodel::stencils::gpu::kernels
