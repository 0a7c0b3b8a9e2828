// Instantiates the readonly kernels for every order (see kernels/kernel_list.cuh).
#include <vector>

#include "../kernels/kernel_list.cuh"

namespace warpmodel::stencils::gpu {
void add_readonly_kernels(std::vector<KernelEntry>& table) {
  kernels::visit_readonly([&](KernelEntry e) { table.push_back(std::move(e)); });
}
}  // namespace warpmodel::stencils::gpu
