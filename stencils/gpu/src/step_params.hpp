// Host-side pieces the GPU propagator and its CPU emulation share: finding a kernel in a table,
// filling the kernel argument, and the boxes of the TMA loader.
#pragma once

#include <stdexcept>
#include <vector>

#include "../kernels/kernel_entry.hpp"
#include "warpmodel/stencils/device_layout.hpp"

namespace warpmodel::stencils::gpu {

inline const KernelEntry& find_kernel(const std::vector<KernelEntry>& table, const StencilLaunch& l,
                                      const LaunchGeometry& g) {
  for (const auto& e : table)
    if (e.variant == l.variant && e.order == l.order &&
        (l.variant != Variant::intz_reg || (e.pipeline_depth == g.pipeline_depth && e.loader == l.loader)))
      return e;
  throw std::invalid_argument(std::string("no kernel for variant ") + variant_info(l.variant).name + ", order " +
                              std::to_string(l.order) + "; variants: " + variant_names() +
                              "; orders: 2, 4, 6, 8, 10, 12, 14, 16");
}

inline StencilParams make_params(const PropagationSetup& s, const LaunchGeometry& g, const float* prev,
                                 const float* cur, const float* vel2, float* next, float source_amplitude) {
  StencilParams p{};
  p.prev = prev, p.cur = cur, p.vel2 = vel2, p.next = next;
  p.nx = int(s.grid.nx), p.ny = int(s.grid.ny), p.nz = int(s.grid.nz);
  p.pitch = int(g.pitch);
  p.z_chunk = g.z_chunk;
  p.source_i = int(s.source_i), p.source_j = int(s.source_j), p.source_k = int(s.source_k);
  p.source_amplitude = source_amplitude;
  const auto w = stencil_weights_float(s.order);
  for (int d = 0; d <= kMaxRadius; ++d) p.weight[d] = w[d];
  return p;
}

// The TMA loader's tensors and boxes (kernels/intz_reg.cuh): every array is a 3D tensor of
// pitch x ny x nz floats; the tile box is (4 bx + 2 R4) x (by + 2 R) x 1, the own box 4 bx x by x 1.
struct TmaBoxes {
  unsigned long long size[3];
  unsigned long long stride_bytes[2];  // y and z
  unsigned tile_box[3], own_box[3];
};
inline TmaBoxes tma_boxes(const PropagationSetup& s, const LaunchGeometry& g) {
  const unsigned r = unsigned(g.radius), r4 = unsigned(intz_reg_x_halo(g.radius));
  TmaBoxes b{};
  b.size[0] = g.pitch, b.size[1] = s.grid.ny, b.size[2] = s.grid.nz;
  b.stride_bytes[0] = g.pitch * sizeof(float);
  b.stride_bytes[1] = g.pitch * s.grid.ny * sizeof(float);
  b.tile_box[0] = 4 * g.block.x + 2 * r4, b.tile_box[1] = g.block.y + 2 * r, b.tile_box[2] = 1;
  b.own_box[0] = 4 * g.block.x, b.own_box[1] = g.block.y, b.own_box[2] = 1;
  return b;
}

}  // namespace warpmodel::stencils::gpu
