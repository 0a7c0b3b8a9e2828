// The argument of the TMA-fed intz-reg kernel: the common parameters plus four tensor maps
// (the bulk tensor copy engine's descriptors: base address, sizes, strides, box). Built on the
// host (cuTensorMapEncodeTiled through the runtime's driver entry point) for the GPU, or as plain
// descriptors the CPU emulation copies from.
#pragma once

#include "stencil_params.hpp"

#if defined(WARPMODEL_STENCIL_EMULATION)
#include "../emulation/emulator.hpp"
namespace warpmodel::stencils::gpu {
using TensorMap = emu::TensorMap;
}
#else
#include <cuda.h>
namespace warpmodel::stencils::gpu {
using TensorMap = CUtensorMap;
}
#endif

namespace warpmodel::stencils::gpu {

// Boxes, in floats (x, y, z): the tile (4 bx + 2 R4) x (by + 2 R) x 1 starting at
// (i0 - R4, j0 - R, k), zero-filled outside the arrays; the block's own points 4 bx x by x 1.
struct TmaStencilParams {
  StencilParams base;
  TensorMap tile_cur;  // p(n), tile box
  TensorMap own_cur;   // p(n), own box (the plane R ahead, for the register queue)
  TensorMap own_prev;  // p(n-1), own box
  TensorMap own_vel2;  // vel2, own box
};

// x halo of the intz-reg tile, in floats: the radius rounded up to whole float4s.
constexpr int intz_reg_x_halo(int radius) { return (radius + 3) / 4 * 4; }

}  // namespace warpmodel::stencils::gpu
