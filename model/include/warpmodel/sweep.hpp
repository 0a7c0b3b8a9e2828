// Launch-shape sweep: predict a kernel under many block shapes and rank them.
// The per-warp counts of the profile are held fixed across shapes (the model's assumption: they
// were measured at one shape); the grid is re-derived from the domain so padding is counted.
#pragma once

#include <span>
#include <vector>

#include "warpmodel/device_profile.hpp"
#include "warpmodel/kernel_profile.hpp"
#include "warpmodel/prediction.hpp"

namespace warpmodel {

struct SweepEntry {
  Dim3 block;
  Dim3 grid;
  Prediction prediction;
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

SweepResult sweep_launch_shapes(const DeviceProfile& device, const KernelProfile& kernel, ModelVariant variant,
                                std::span<const Dim3> blocks);

}  // namespace warpmodel
