// predict-app's what-ifs, without editing JSON: `--what-if KEY=VALUE` (repeatable) changes the merged
// kernel profile of every launch before it is predicted at its profiled shape, and every launch is
// also predicted with each bound of the hopper variant made free (GPUPerf's potential benefit: the
// time with that resource costing nothing, DeviceProfile::free_terms).
//
//   KEY                    VALUE         changes
//   dram_bytes             0.5x          memory.dram_bytes_per_warp (and its written part)
//   l2_bytes               0.5x          memory.l2_bytes_per_warp (and its written part)
//   l1_wavefronts          0.5x          memory.l1_wavefronts_per_warp
//   instructions           0.5x          instructions_per_warp.total (no fewer than the memory ones)
//   memory_instructions    0.5x          instructions_per_warp.memory and .global_load
//   shared_instructions    0.5x          instructions_per_warp.shared
//   sfu_instructions       0.5x          instructions_per_warp.sfu
//   bank_conflicts         0.5x          memory.bank_conflicts_per_warp
//   sectors_per_request    0.5x          memory.transactions_per_request (at least 1)
//   l1_hit_rate            +20 | -10 | 80   the L1 hit rate in points (+/-) or percent; the L2 read
//                                        bytes follow the L1 misses
//   l2_hit_rate            +20 | -10 | 80   the L2 hit rate; the DRAM read bytes follow the L2 misses
//   registers              64            launch.registers_per_thread (occupancy)
//   shared_memory          49152         launch.shared_memory_per_block_bytes (occupancy)
// A factor is a number >= 0 followed by x. A change of occupancy drops the measured active warps
// (they held at the profiled resources).
#pragma once

#include <string>
#include <vector>

#include "warpmodel/kernel_profile.hpp"

namespace warpmodel::sass {

struct WhatIf {
  enum class Kind { Factor, Points, Percent, Integer };
  std::string text;  // as given: "dram_bytes=0.5x"
  std::string key;
  Kind kind = Kind::Factor;
  double value = 0;
};

// Throws InputError naming --what-if and the text: an unknown key, a malformed or out-of-range value.
WhatIf parse_what_if(const std::string& text);
// The keys parse_what_if knows, ", "-joined.
std::string what_if_keys();

// Applies `w` to `k`; returns "" or why it does not apply to this launch (the counter it scales is
// not in the profile).
std::string apply_what_if(const WhatIf& w, KernelProfile& k);

// The hopper bounds a what-if can make free, in Prediction::bound's names.
const std::vector<std::string>& removable_bounds();

}  // namespace warpmodel::sass
