// Occupancy calculator: how many blocks of a launch fit on one SM, and what that makes of
// N, #active_SMs and #Rep. Follows the CUDA occupancy rules (checked in tests against the
// toolkit's cuda_occupancy.h) for sm_35 .. sm_90 and the Blackwell sm_100, sm_103, sm_120 and
// sm_121, without the sm_52/sm_60 partitioned global-caching mode, without named-barrier and
// virtual-resource limits (a kernel profile does not say how many it uses) and without clusters
// (hopper's cluster terms, hopper_equations.hpp H.18, place them).
#pragma once

#include "warpmodel/device_profile.hpp"
#include "warpmodel/kernel_profile.hpp"
#include "warpmodel/prediction.hpp"

namespace warpmodel {

struct BlockResources {
  int threads_per_block = 0;
  int registers_per_thread = 0;
  int shared_memory_per_block_bytes = 0;
};

struct BlockLimits {
  int by_warps = 0;
  int by_blocks = 0;
  int by_registers = 0;
  int by_shared_memory = 0;
  int blocks_per_sm = 0;
  OccupancyLimiter limiter = OccupancyLimiter::Warps;
};

// Blocks per SM allowed by each resource. blocks_per_sm == 0 means the block cannot run at all.
BlockLimits max_blocks_per_sm(const ArchLimits& arch, const BlockResources& block);

// Occupancy of a whole launch on a device: the limits above, then the grid spread over the SMs.
Occupancy compute_occupancy(const DeviceProfile& device, const LaunchConfig& launch);

}  // namespace warpmodel
