// Random but valid device and kernel profiles for property and fuzz tests.
#pragma once

#include <random>

#include "warpmodel/device_profile.hpp"
#include "warpmodel/kernel_profile.hpp"
#include "warpmodel/occupancy.hpp"

namespace warpmodel::testing {

inline double uniform(std::mt19937& rng, double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); }
inline int uniform_int(std::mt19937& rng, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

inline DeviceProfile random_device(std::mt19937& rng) {
  static const std::pair<int, int> kCcs[] = {{3, 5}, {5, 2}, {6, 0}, {7, 0}, {7, 5},  {8, 0},
                                             {8, 6}, {8, 9}, {9, 0}, {10, 0}, {10, 3}, {12, 0}, {12, 1}};
  const auto [major, minor] = kCcs[uniform_int(rng, 0, 12)];
  DeviceProfile d;
  d.name = "random";
  d.cc_major = major;
  d.cc_minor = minor;
  d.limits = arch_limits_for(major, minor);
  d.sm_count = uniform_int(rng, 1, 160);
  d.sm_clock_mhz = uniform(rng, 500, 2200);
  d.simd_width = 32 * uniform_int(rng, 1, 6);
  d.sfu_width = 4 * uniform_int(rng, 1, 8);
  d.mem_peak_bandwidth_gbs = uniform(rng, 50, 5000);
  d.fp_latency_cycles = uniform(rng, 2, 300);
  d.l1_hit_latency_cycles = uniform(rng, 10, 60);
  d.l2_hit_latency_cycles = uniform(rng, 60, 400);
  d.dram_latency_cycles = uniform(rng, 200, 900);
  d.departure_delay_coalesced_cycles = uniform(rng, 0.5, 20);
  d.departure_delay_uncoalesced_cycles = uniform(rng, 1, 60);
  // The measured rates of `characterize` (hopper variant).
  d.fp32_dependent_latency_cycles = uniform(rng, 2, 30);
  d.dram_read_bandwidth_gbs = uniform(rng, 50, 5000);
  d.dram_copy_bandwidth_gbs = *d.dram_read_bandwidth_gbs * uniform(rng, 0.7, 1.0);
  d.l2_read_bandwidth_gbs = *d.dram_read_bandwidth_gbs * uniform(rng, 1.5, 4);
  d.shared_read_bandwidth_gbs = *d.l2_read_bandwidth_gbs * uniform(rng, 1.5, 4);
  if (uniform_int(rng, 0, 1)) d.hopper_calibration = {uniform(rng, 0, 5000), uniform(rng, 0.5, 2), uniform(rng, 0, 50), uniform(rng, 0, 100),
                                                         uniform(rng, 0, 1), ""};
  if (d.hopper_calibration && uniform_int(rng, 0, 1)) d.hopper_calibration->counter_range_overhead_ns = uniform(rng, 0, 4000);
  return d;
}

// A kernel whose block fits on the device.
inline KernelProfile random_kernel(std::mt19937& rng, const DeviceProfile& d) {
  KernelProfile k;
  k.name = "random";
  for (;;) {
    k.launch.block = {32LL * uniform_int(rng, 1, 32), 1, 1};
    k.launch.registers_per_thread = uniform_int(rng, 8, 128);
    k.launch.shared_memory_per_block_bytes = uniform_int(rng, 0, 2) == 0 ? uniform_int(rng, 0, 40000) : 0;
    if (max_blocks_per_sm(d.limits, {static_cast<int>(k.launch.block.count()), k.launch.registers_per_thread,
                                     k.launch.shared_memory_per_block_bytes})
            .blocks_per_sm > 0)
      break;
  }
  k.launch.grid = {uniform_int(rng, 1, 20000), 1, 1};
  k.inst_per_warp = uniform(rng, 10, 5000);
  k.mem_inst_per_warp = uniform(rng, 0, k.inst_per_warp * 0.5);
  k.uncoalesced_mem_inst_per_warp = uniform(rng, 0, k.mem_inst_per_warp);
  k.sfu_inst_per_warp = uniform(rng, 0, k.inst_per_warp * 0.1);
  k.sync_inst_per_warp = uniform(rng, 0, 4);
  k.divergent_inst_per_warp = uniform(rng, 0, 10);
  k.bank_conflicts_per_warp = uniform(rng, 0, 10);
  k.shared_inst_per_warp = uniform(rng, 0, k.inst_per_warp * 0.2);
  k.ilp = uniform(rng, 1, 8);
  k.mlp = uniform(rng, 1, 16);
  k.transactions_per_request = uniform(rng, 1, 32);
  k.transactions_per_uncoalesced_request = uniform(rng, 1, 32);
  k.l1_miss_ratio = uniform(rng, 0, 1);
  k.l2_miss_ratio = uniform(rng, 0, 1);
  k.data_size_bytes = 4 * uniform_int(rng, 1, 4);
  k.timed_by_counter_range = uniform_int(rng, 0, 1) == 1;
  return k;
}

}  // namespace warpmodel::testing
