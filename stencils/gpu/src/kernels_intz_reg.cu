// Instantiates the intz_reg kernels for every order (see kernels/kernel_list.cuh).
#include <vector>

#include "../kernels/kernel_list.cuh"

namespace warpmodel::stencils::gpu {
void add_intz_reg_kernels(std::vector<KernelEntry>& table) {
  kernels::visit_intz_reg([&](KernelEntry e) { table.push_back(std::move(e)); });
}
}  // namespace warpmodel::stencils::gpu
