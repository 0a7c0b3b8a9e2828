// One instantiated kernel: which variant, order and tuning it implements and how to call it.
// Plain C++: the CUDA build fills a table of these with the kernels' host stubs (launched through
// cudaLaunchKernel), the CPU emulation with the same templates compiled as host functions.
#pragma once

#include <string>

#include "tma_params.hpp"
#include "warpmodel/stencils/launch_plan.hpp"

namespace warpmodel::stencils::gpu {

using PlainKernel = void (*)(StencilParams);
using TmaKernel = void (*)(TmaStencilParams);

struct KernelEntry {
  Variant variant;
  int order;
  int pipeline_depth;       // intz-reg only, else 0
  IntzRegLoader loader;     // intz-reg only (tma for the others, unused)
  PlainKernel plain;        // the kernel, when it takes StencilParams
  TmaKernel tma;            // the kernel, when it takes TmaStencilParams (intz-reg, tma loader)
  std::string name;         // e.g. "intz_reg_tma_kernel<4, 2>" (template arguments: radius, depth)
  bool uses_barriers;       // __syncthreads inside (the emulation runs such blocks as fibers)
  const void* function() const { return plain ? reinterpret_cast<const void*>(plain) : reinterpret_cast<const void*>(tma); }
};

}  // namespace warpmodel::stencils::gpu
