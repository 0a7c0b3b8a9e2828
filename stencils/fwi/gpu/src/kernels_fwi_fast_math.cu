// The fast-math variant's kernels: this translation unit is compiled with --use_fast_math
// (stencils/fwi/CMakeLists.txt), the study's last row of table 28.
#include "../kernels/kernel_sets.cuh"

namespace warpmodel::fwi::gpu {
KernelSet cuda_kernel_set_fast_math(const GpuVariantInfo& info) {
  return kernels::make_kernel_set<kernels::kFastMath>(info);
}
}  // namespace warpmodel::fwi::gpu
