// Launch-shape sweep: predict a kernel under many block shapes and rank them.
// The profile's total work is held fixed across shapes (profile_at_launch: its per-warp counts spread
// over each shape's launched warps); the grid is re-derived from the domain so padding is counted.
// Where the profile carries its access patterns (the SASS addresses, traffic.hpp), the memory
// counters that move with the shape (sectors per request, L1 hit rate, L2 bytes, L1 wavefronts)
// are derived for each shape; otherwise they are the profiled launch's (a stated assumption).
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "warpmodel/device_profile.hpp"
#include "warpmodel/kernel_profile.hpp"
#include "warpmodel/prediction.hpp"
#include "warpmodel/traffic.hpp"

namespace warpmodel {

struct SweepEntry {
  Dim3 block;
  Dim3 grid;
  Prediction prediction;
  KernelProfile profile;  // the profile the prediction used
  // Where its memory counters come from: "measured" (the profiled shape), "derived" (from the
  // access patterns, with `derived` listing each), "kept" (the profiled launch's, no patterns).
  std::string counters;
  std::vector<DerivedCounter> derived;
};

struct SweepResult {
  Dim3 domain;
  std::vector<SweepEntry> ranked;  // fastest first
  int rejected = 0;                // shapes that cannot run (too many threads, registers, shared memory)
};

// Block shapes worth trying for a domain: power-of-two x (8..1024), y (1..32), z (1..8), whole warps,
// at most max_threads_per_block; y and z collapse to 1 for 1D and 2D domains.
std::vector<Dim3> candidate_block_shapes(const DeviceProfile& device, const Dim3& domain);

// The domain a kernel covers: launch.domain, else grid x block.
Dim3 kernel_domain(const KernelProfile& kernel);

// Grid of ceil(domain / block) blocks.
Dim3 grid_for(const Dim3& domain, const Dim3& block);

// The profile of `reference` launched as `target` (block, grid, registers, shared memory), its work
// conserved: every per-warp count and byte count is scaled by the reference's launched warps / the
// target's, so a kernel whose grid does not follow the block (a grid-stride loop, one block) keeps
// its total work instead of multiplying it. For a one-thread-per-point kernel the two warp counts
// agree up to padding and the per-warp counts stay as they are. Ratios, MLP and stalls are kept.
KernelProfile profile_at_launch(const KernelProfile& reference, const LaunchConfig& target);
// Every per-warp count of the profile (instructions, requests, bytes, atomics) times `factor`: the
// same work spread over 1 / factor as many warps.
void scale_per_warp_counts(KernelProfile& k, double factor);

SweepResult sweep_launch_shapes(const DeviceProfile& device, const KernelProfile& kernel, ModelVariant variant,
                                std::span<const Dim3> blocks);

// What predict-app's guardrails know about a launch that the default sweep assumes otherwise.
struct SweepOptions {
  // The grid as profiled for every block shape instead of re-derived from the domain: a grid-stride
  // loop over a fixed grid (the launch's work is still conserved, profile_at_launch).
  bool keep_grid = false;
  // Shared memory that follows the block: each shape gets fixed_shared_bytes + this many bytes per
  // thread (dynamic shared memory sized from blockDim) instead of the profiled launch's per block.
  std::optional<double> shared_bytes_per_thread;
  int fixed_shared_bytes = 0;
  // Block shapes above this many threads are not tried (__launch_bounds__); 0: no limit.
  long long max_threads = 0;
};
SweepResult sweep_launch_shapes(const DeviceProfile& device, const KernelProfile& kernel, ModelVariant variant,
                                std::span<const Dim3> blocks, const SweepOptions& options);

}  // namespace warpmodel
