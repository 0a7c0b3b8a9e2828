// Instantiates the intz kernels for every order (see kernels/kernel_list.cuh).
#include <vector>

#include "../kernels/kernel_list.cuh"

namespace warpmodel::stencils::gpu {
void add_intz_kernels(std::vector<KernelEntry>& table) {
  kernels::visit_intz([&](KernelEntry e) { table.push_back(std::move(e)); });
}
}  // namespace warpmodel::stencils::gpu
