#include "warpmodel/sweep.hpp"

#include <algorithm>
#include <cmath>

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

KernelProfile profile_at_launch(const KernelProfile& reference, const LaunchConfig& target) {
  auto launched_warps = [](const LaunchConfig& l, int warp_size) {
    return static_cast<double>(l.grid.count()) * std::ceil(static_cast<double>(l.block.count()) / warp_size);
  };
  constexpr int kWarpSize = 32;
  const double from = launched_warps(reference.launch, kWarpSize), to = launched_warps(target, kWarpSize);
  KernelProfile k = reference;
  k.launch = target;
  k.launch.active_warps_per_sm.reset();  // N and #total_warps follow from the new shape
  k.launch.total_warps.reset();
  if (!(from > 0) || !(to > 0)) return k;
  scale_per_warp_counts(k, from / to);
  return k;
}

void scale_per_warp_counts(KernelProfile& k, double factor) {
  for (double* x : {&k.inst_per_warp, &k.mem_inst_per_warp, &k.fp_inst_per_warp, &k.sfu_inst_per_warp,
                    &k.sync_inst_per_warp, &k.uncoalesced_mem_inst_per_warp, &k.divergent_inst_per_warp,
                    &k.bank_conflicts_per_warp, &k.shared_inst_per_warp, &k.async_copy_inst_per_warp,
                    &k.local_load_inst_per_warp})
    *x *= factor;
  for (std::optional<double>* x : {&k.global_load_inst_per_warp, &k.l2_bytes_per_warp, &k.dram_bytes_per_warp,
                                   &k.dram_write_bytes_per_warp, &k.l2_write_bytes_per_warp, &k.l1_wavefronts_per_warp,
                                   &k.atomic_lane_ops_per_warp, &k.busiest_slice_atomics_per_warp,
                                   &k.dsmem_bytes_per_warp})
    if (*x) **x *= factor;
  k.tensor_inst_per_warp *= factor;
  for (auto& [type, flops] : k.tensor_flops_per_warp) flops *= factor;
  for (auto& [type, flops] : k.mma_sync_flops_per_warp) flops *= factor;
}

SweepResult sweep_launch_shapes(const DeviceProfile& device, const KernelProfile& kernel, ModelVariant variant,
                                std::span<const Dim3> blocks) {
  return sweep_launch_shapes(device, kernel, variant, blocks, SweepOptions{});
}

SweepResult sweep_launch_shapes(const DeviceProfile& device, const KernelProfile& kernel, ModelVariant variant,
                                std::span<const Dim3> blocks, const SweepOptions& options) {
  SweepResult result;
  result.domain = kernel_domain(kernel);
  result.ranked.reserve(blocks.size());
  for (const Dim3& block : blocks) {
    if (options.max_threads > 0 && block.count() > options.max_threads) {
      ++result.rejected;  // the kernel was compiled for fewer threads per block
      continue;
    }
    const int shared = options.shared_bytes_per_thread
                           ? options.fixed_shared_bytes +
                                 static_cast<int>(std::lround(*options.shared_bytes_per_thread * block.count()))
                           : kernel.launch.shared_memory_per_block_bytes;
    const BlockResources resources{static_cast<int>(block.count()), kernel.launch.registers_per_thread, shared};
    if (max_blocks_per_sm(device.limits, resources).blocks_per_sm == 0) {
      ++result.rejected;  // does not fit on an SM; any other ModelError is the profile's and propagates
      continue;
    }
    LaunchConfig launch = kernel.launch;
    launch.block = block;
    launch.grid = options.keep_grid ? kernel.launch.grid : grid_for(result.domain, block);
    launch.domain = result.domain;
    launch.shared_memory_per_block_bytes = shared;
    // The profiled launch's work, spread over this shape's warps (N and #total_warps from the shape),
    // with the memory counters derived for the shape where the SASS addresses are known.
    SweepEntry e;
    e.block = block;
    if (block == kernel.launch.block) {
      e.profile = profile_at_launch(kernel, launch);
      // The profiled launch's measured active warps (hopper H.1b) hold at its own shape only.
      if (launch.grid == kernel.launch.grid) e.profile.launch.active_warps_per_sm = kernel.launch.active_warps_per_sm;
      e.counters = "measured";
    } else if (kernel.access_patterns) {
      e.profile = derive_profile_at_launch(device, kernel, *kernel.access_patterns, launch, &e.derived);
      e.counters = e.derived.empty() ? "kept" : "derived";
    } else {
      e.profile = profile_at_launch(kernel, launch);
      e.counters = "kept";
    }
    e.grid = e.profile.launch.grid;
    e.prediction = predict(variant, device, e.profile);
    result.ranked.push_back(std::move(e));
  }
  std::stable_sort(result.ranked.begin(), result.ranked.end(),
                   [](const SweepEntry& a, const SweepEntry& b) { return a.prediction.cycles < b.prediction.cycles; });
  return result;
}

}  // namespace warpmodel
