// The FWI kernels of every variant but fast-math (kernels/kernel_sets.cuh).
#include "../kernels/kernel_sets.cuh"

namespace warpmodel::fwi::gpu {
KernelSet cuda_kernel_set(const GpuVariantInfo& info) { return kernels::make_kernel_set<0>(info); }
}  // namespace warpmodel::fwi::gpu
