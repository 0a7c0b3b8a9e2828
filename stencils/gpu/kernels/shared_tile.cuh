// shared: one thread per point; each z-plane of the block keeps a (bx + 2R) x (by + 2R) tile of
// p(n) in shared memory (the block's points plus x and y halos, corners unused); x and y
// neighbours come from the tile, z neighbours from global memory through the read-only cache.
#pragma once

#include <cstddef>

#include "common.cuh"

namespace warpmodel::stencils::gpu::kernels {

template <int R>
WM_KERNEL void shared_kernel(StencilParams p) {
  const int tx = int(thread_x()), ty = int(thread_y()), tz = int(thread_z());
  const int bx = int(block_dim_x()), by = int(block_dim_y());
  const int i0 = int(block_x()) * bx, j0 = int(block_y()) * by;
  const int i = i0 + tx, j = j0 + ty, k = int(block_z() * block_dim_z()) + tz;
  const int tile_w = bx + 2 * R, tile_h = by + 2 * R;
  float* tile = dynamic_shared<float>() + std::ptrdiff_t(tz) * tile_w * tile_h;
  const auto at = [&](int row, int col) -> float& { return tile[row * tile_w + col]; };
  const std::ptrdiff_t sy = p.pitch, sz = std::ptrdiff_t(p.pitch) * p.ny;
  const std::ptrdiff_t plane = k * sz;

  // Fill the tile; every load is guarded by the coordinates it reads, so a block that hangs over
  // the grid's edge still loads the halo its interior points need.
  if (k < p.nz) {
    if (i < p.nx && j < p.ny) at(ty + R, tx + R) = load_readonly(p.cur + plane + j * sy + i);
    if (j < p.ny)
      for (int h = tx; h < R; h += bx) {  // x halo of this row: R points left and right
        const int left = i0 - R + h, right = i0 + bx + h;
        if (left >= 0) at(ty + R, h) = load_readonly(p.cur + plane + j * sy + left);
        if (right < p.nx) at(ty + R, bx + R + h) = load_readonly(p.cur + plane + j * sy + right);
      }
    if (i < p.nx)
      for (int h = ty; h < R; h += by) {  // y halo of this column: R rows above and below
        const int above = j0 - R + h, below = j0 + by + h;
        if (above >= 0) at(h, tx + R) = load_readonly(p.cur + plane + above * sy + i);
        if (below < p.ny) at(by + R + h, tx + R) = load_readonly(p.cur + plane + below * sy + i);
      }
  }
  block_sync();
  if (i >= p.nx || j >= p.ny || k >= p.nz) return;

  const std::ptrdiff_t c = plane + j * sy + i;
  float out = 0.0f;
  if (is_interior<R>(p, i, j, k)) {
    const float centre = at(ty + R, tx + R);
    float sum = p.weight[0] * centre;
    WM_UNROLL
    for (int d = 1; d <= R; ++d)
      sum += p.weight[d] * (at(ty + R, tx + R - d) + at(ty + R, tx + R + d) + at(ty + R - d, tx + R) +
                            at(ty + R + d, tx + R) + load_readonly(p.cur + c - d * sz) +
                            load_readonly(p.cur + c + d * sz));
    out = with_source(p, leapfrog(centre, load_readonly(p.prev + c), load_readonly(p.vel2 + c), sum), i, j, k);
  }
  store_global(p.next + c, out);
}

}  // namespace warpmodel::stencils::gpu::kernels
