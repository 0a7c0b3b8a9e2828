// One launch configuration under test (variant, block, and the knobs of the z-marching
// variants), shared by the emulated and the GPU comparison tests.
#pragma once

#include <string>

#include "warpmodel/stencils/launch_plan.hpp"

namespace warpmodel::stencils::testing {

struct VariantCase {
  Variant variant;
  Dim3 block;
  int z_chunk = 0;
  int depth = 0;
  IntzRegLoader loader = IntzRegLoader::tma;

  StencilLaunch launch(int order) const {
    StencilLaunch l;
    l.order = order, l.variant = variant, l.block = block, l.z_chunk = z_chunk, l.pipeline_depth = depth;
    l.loader = loader;
    return l;
  }
  std::string label(int order) const {
    std::string s = std::string(variant_info(variant).name) + " order " + std::to_string(order) + " block " +
                    to_string(block);
    if (z_chunk) s += " z_chunk " + std::to_string(z_chunk);
    if (variant == Variant::intz_reg) s += std::string(" loader ") + loader_name(loader) + " depth " + std::to_string(depth);
    return s;
  }
};

}  // namespace warpmodel::stencils::testing
