// Instantiates the naive kernels for every order (see kernels/kernel_list.cuh).
#include <vector>

#include "../kernels/kernel_list.cuh"

namespace warpmodel::stencils::gpu {
void add_naive_kernels(std::vector<KernelEntry>& table) {
  kernels::visit_naive([&](KernelEntry e) { table.push_back(std::move(e)); });
}
}  // namespace warpmodel::stencils::gpu
