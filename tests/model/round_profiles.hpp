// A device and a kernel with round numbers, so hopper terms (H.1-H.12) can be checked by hand.
#pragma once

#include "warpmodel/device_profile.hpp"
#include "warpmodel/kernel_profile.hpp"

namespace warpmodel::testing {

// Round numbers so every term below can be checked by hand: 100 SMs at 1000 MHz, so 1 GB/s is
// 1 byte per clock for the whole device.
inline DeviceProfile round_device() {
  DeviceProfile d;
  d.name = "round sm_90";
  d.cc_major = 9;
  d.cc_minor = 0;
  d.limits = arch_limits_for(9, 0);  // 64 warps/SM, 4 sub-partitions
  d.sm_count = 100;
  d.sm_clock_mhz = 1000;
  d.simd_width = 128;
  d.sfu_width = 16;
  d.mem_peak_bandwidth_gbs = 4000;
  d.fp_latency_cycles = 40;
  d.l1_hit_latency_cycles = 30;
  d.l2_hit_latency_cycles = 200;
  d.dram_latency_cycles = 600;
  d.departure_delay_coalesced_cycles = 20;
  d.fp32_dependent_latency_cycles = 4;
  d.shared_read_bandwidth_gbs = 12800;  // 128 B/clk per SM
  d.l2_read_bandwidth_gbs = 6400;       // 64 B/clk per SM
  d.dram_copy_bandwidth_gbs = 3200;     // 3200 B/clk for the device, 32 per SM with all 100 busy
  return d;
}

// 1000 blocks of 256 threads, 32 registers: 8 blocks (64 warps) per SM, so one full wave of 800
// blocks and a partial wave of 200 blocks = 2 per SM on all 100 SMs (16 warps).
inline KernelProfile round_kernel() {
  KernelProfile k;
  k.name = "round";
  k.launch.grid = {1000, 1, 1};
  k.launch.block = {256, 1, 1};
  k.launch.registers_per_thread = 32;
  k.inst_per_warp = 100;
  k.mem_inst_per_warp = 4;
  k.sfu_inst_per_warp = 2;
  k.ilp = 2;
  k.mlp = 4;
  k.transactions_per_request = 4;  // sectors: one 128-byte line per request
  k.l1_miss_ratio = 1;
  k.l2_miss_ratio = 0.5;
  return k;
}

}  // namespace warpmodel::testing
