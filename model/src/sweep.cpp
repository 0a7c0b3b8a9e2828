#include "warpmodel/sweep.hpp"

#include <algorithm>

#include "warpmodel/model.hpp"
#include "warpmodel/occupancy.hpp"

namespace warpmodel {

Dim3 kernel_domain(const KernelProfile& kernel) {
  if (kernel.launch.domain) return *kernel.launch.domain;
  const Dim3& g = kernel.launch.grid;
  const Dim3& b = kernel.launch.block;
  return {g.x * b.x, g.y * b.y, g.z * b.z};
}

Dim3 grid_for(const Dim3& domain, const Dim3& block) {
  auto blocks = [](long long n, long long b) { return (n + b - 1) / b; };
  return {blocks(domain.x, block.x), blocks(domain.y, block.y), blocks(domain.z, block.z)};
}

std::vector<Dim3> candidate_block_shapes(const DeviceProfile& device, const Dim3& domain) {
  const int warp = device.warp_size();
  const long long max_threads = device.limits.max_threads_per_block;
  std::vector<Dim3> out;
  const long long max_y = domain.y > 1 ? 32 : 1;
  const long long max_z = domain.z > 1 ? 8 : 1;
  for (long long x = 8; x <= max_threads; x *= 2)
    for (long long y = 1; y <= max_y; y *= 2)
      for (long long z = 1; z <= max_z; z *= 2) {
        const long long threads = x * y * z;
        if (threads >= warp && threads <= max_threads && threads % warp == 0) out.push_back({x, y, z});
      }
  return out;
}

SweepResult sweep_launch_shapes(const DeviceProfile& device, const KernelProfile& kernel, ModelVariant variant,
                                std::span<const Dim3> blocks) {
  SweepResult result;
  result.domain = kernel_domain(kernel);
  result.ranked.reserve(blocks.size());
  KernelProfile shaped = kernel;
  // N and #total_warps follow from each shape, so overrides measured at one shape are dropped.
  shaped.launch.active_warps_per_sm.reset();
  shaped.launch.total_warps.reset();
  for (const Dim3& block : blocks) {
    const BlockResources resources{static_cast<int>(block.count()), kernel.launch.registers_per_thread,
                                   kernel.launch.shared_memory_per_block_bytes};
    if (max_blocks_per_sm(device.limits, resources).blocks_per_sm == 0) {
      ++result.rejected;  // does not fit on an SM; any other ModelError is the profile's and propagates
      continue;
    }
    shaped.launch.block = block;
    shaped.launch.grid = grid_for(result.domain, block);
    result.ranked.push_back({block, shaped.launch.grid, predict(variant, device, shaped)});
  }
  std::stable_sort(result.ranked.begin(), result.ranked.end(),
                   [](const SweepEntry& a, const SweepEntry& b) { return a.prediction.cycles < b.prediction.cycles; });
  return result;
}

}  // namespace warpmodel
