#include "warpmodel/occupancy.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace warpmodel {
namespace {

constexpr int kKiB = 1024;

struct ArchRow {
  int major, minor;
  ArchLimits limits;
};

ArchLimits make_limits(int threads_per_sm, int blocks_per_sm, int regs_per_sm, int regs_per_block,
                       int max_regs_per_thread, int smem_per_sm, int smem_per_block_optin,
                       int smem_unit, int smem_reserved) {
  ArchLimits a;
  a.max_threads_per_sm = threads_per_sm;
  a.max_blocks_per_sm = blocks_per_sm;
  a.registers_per_sm = regs_per_sm;
  a.max_registers_per_block = regs_per_block;
  a.max_registers_per_thread = max_regs_per_thread;
  a.shared_memory_per_sm_bytes = smem_per_sm;
  a.shared_memory_per_block_bytes = std::min(48 * kKiB, smem_per_block_optin);
  a.shared_memory_per_block_optin_bytes = smem_per_block_optin;
  a.shared_memory_allocation_unit = smem_unit;
  a.shared_memory_reserved_per_block_bytes = smem_reserved;
  return a;
}

// GP100 (sm_60) splits its register file between two schedulers, not four.
ArchLimits with_sub_partitions(ArchLimits a, int sub_partitions) {
  a.sub_partitions_per_sm = sub_partitions;
  return a;
}

// CUDA C Programming Guide, "Technical Specifications per Compute Capability"; allocation units
// and sub-partitions as cuda_occupancy.h has them. Kepler's shared memory is the 48 KiB
// "prefer shared" split, the default of the occupancy rules.
const ArchRow kArchTable[] = {
    //        thr/SM blk/SM regs/SM  regs/blk regs/thr smem/SM      smem/blk opt-in unit resv
    {3, 5, make_limits(2048, 16, 65536, 65536, 255, 48 * kKiB, 48 * kKiB, 256, 0)},
    {3, 7, make_limits(2048, 16, 131072, 65536, 255, 112 * kKiB, 48 * kKiB, 256, 0)},
    {5, 0, make_limits(2048, 32, 65536, 65536, 255, 64 * kKiB, 48 * kKiB, 256, 0)},
    {5, 2, make_limits(2048, 32, 65536, 65536, 255, 96 * kKiB, 48 * kKiB, 256, 0)},
    {5, 3, make_limits(2048, 32, 65536, 32768, 255, 64 * kKiB, 48 * kKiB, 256, 0)},
    {6, 0, with_sub_partitions(make_limits(2048, 32, 65536, 65536, 255, 64 * kKiB, 48 * kKiB, 256, 0), 2)},
    {6, 1, make_limits(2048, 32, 65536, 65536, 255, 96 * kKiB, 48 * kKiB, 256, 0)},
    {6, 2, make_limits(2048, 32, 65536, 32768, 255, 64 * kKiB, 48 * kKiB, 256, 0)},
    {7, 0, make_limits(2048, 32, 65536, 65536, 255, 96 * kKiB, 96 * kKiB, 256, 0)},
    {7, 2, make_limits(2048, 32, 65536, 65536, 255, 96 * kKiB, 96 * kKiB, 256, 0)},
    {7, 5, make_limits(1024, 16, 65536, 65536, 255, 64 * kKiB, 64 * kKiB, 256, 0)},
    {8, 0, make_limits(2048, 32, 65536, 65536, 255, 164 * kKiB, 163 * kKiB, 128, kKiB)},
    {8, 6, make_limits(1536, 16, 65536, 65536, 255, 100 * kKiB, 99 * kKiB, 128, kKiB)},
    {8, 7, make_limits(1536, 16, 65536, 65536, 255, 164 * kKiB, 163 * kKiB, 128, kKiB)},
    {8, 9, make_limits(1536, 24, 65536, 65536, 255, 100 * kKiB, 99 * kKiB, 128, kKiB)},
    {9, 0, make_limits(2048, 32, 65536, 65536, 255, 228 * kKiB, 227 * kKiB, 128, kKiB)},
    // Blackwell: 10.0 (B200, GB200), 10.3 (B300, GB300) keep Hopper's SM limits; 12.0 (RTX 50) and
    // 12.1 (GB10, DGX Spark) have 48 warps, 24 blocks (cuda_occupancy.h) and at most 100 KiB of shared
    // memory an SM (their carve-outs stop at 100 KiB).
    {10, 0, make_limits(2048, 32, 65536, 65536, 255, 228 * kKiB, 227 * kKiB, 128, kKiB)},
    {10, 3, make_limits(2048, 32, 65536, 65536, 255, 228 * kKiB, 227 * kKiB, 128, kKiB)},
    {12, 0, make_limits(1536, 24, 65536, 65536, 255, 100 * kKiB, 99 * kKiB, 128, kKiB)},
    {12, 1, make_limits(1536, 24, 65536, 65536, 255, 100 * kKiB, 99 * kKiB, 128, kKiB)},
};

int round_up(int x, int unit) { return unit * ((x + unit - 1) / unit); }
int divide_round_up(long long x, long long y) { return static_cast<int>((x + y - 1) / y); }

}  // namespace

ArchLimits arch_limits_for(int cc_major, int cc_minor) {
  for (const auto& row : kArchTable)
    if (row.major == cc_major && row.minor == cc_minor) return row.limits;
  std::string known;
  for (const auto& cc : known_compute_capabilities()) known += (known.empty() ? "" : ", ") + cc;
  throw std::invalid_argument("unknown compute capability " + std::to_string(cc_major) + "." +
                              std::to_string(cc_minor) + " (known: " + known + ")");
}

std::vector<std::string> known_compute_capabilities() {
  std::vector<std::string> out;
  for (const auto& row : kArchTable) out.push_back(std::to_string(row.major) + "." + std::to_string(row.minor));
  return out;
}

BlockLimits max_blocks_per_sm(const ArchLimits& arch, const BlockResources& block) {
  BlockLimits out;
  const int threads = block.threads_per_block;
  if (threads <= 0 || threads > arch.max_threads_per_block) return out;  // cannot launch: all zero
  const int warps_per_block = divide_round_up(threads, arch.warp_size);

  // Warp slots.
  out.by_warps = arch.max_warps_per_sm() / warps_per_block;

  // The hardware's own cap on resident blocks.
  out.by_blocks = arch.max_blocks_per_sm;

  // Registers: allocated per warp in units; each sub-partition (scheduler) has its own share of
  // the register file, so warps are counted per sub-partition.
  if (block.registers_per_thread > 0) {
    const int regs_per_warp = round_up(block.registers_per_thread * arch.warp_size, arch.register_allocation_unit);
    const long long regs_per_block = 1LL * regs_per_warp * warps_per_block;
    // The launch check assumes every one of four sub-partitions gets the same number of warps,
    // GP100's two included (cuda_occupancy.h re-checks sm_60 as sm_61).
    constexpr int kLaunchCheckSubPartitions = 4;
    const long long regs_assumed_per_block = 1LL * regs_per_warp * round_up(warps_per_block, kLaunchCheckSubPartitions);
    if (block.registers_per_thread > arch.max_registers_per_thread || regs_per_block > arch.max_registers_per_block ||
        regs_assumed_per_block > arch.max_registers_per_block) {
      out.by_registers = 0;
    } else {
      const int warps_per_sub_partition = (arch.registers_per_sm / arch.sub_partitions_per_sm) / regs_per_warp;
      out.by_registers = warps_per_sub_partition * arch.sub_partitions_per_sm / warps_per_block;
    }
  } else {
    out.by_registers = out.by_blocks;  // no register use: never the limit
  }

  // Shared memory: static + dynamic + the driver's per-block reservation (sm_80+), in allocation units.
  const int smem_used = block.shared_memory_per_block_bytes + arch.shared_memory_reserved_per_block_bytes;
  const int smem_allocated = round_up(smem_used, arch.shared_memory_allocation_unit);
  const int smem_block_limit = arch.shared_memory_per_block_optin_bytes + arch.shared_memory_reserved_per_block_bytes;
  if (smem_allocated > smem_block_limit) {
    out.by_shared_memory = 0;
  } else if (smem_allocated == 0) {
    out.by_shared_memory = out.by_blocks;  // no shared memory: never the limit
  } else {
    out.by_shared_memory = arch.shared_memory_per_sm_bytes / smem_allocated;
  }

  // The smallest limit wins; ties name the first in this order (threads before hardware cap).
  out.blocks_per_sm = out.by_warps;
  out.limiter = OccupancyLimiter::Warps;
  auto consider = [&](int limit, OccupancyLimiter which) {
    if (limit < out.blocks_per_sm) {
      out.blocks_per_sm = limit;
      out.limiter = which;
    }
  };
  consider(out.by_blocks, OccupancyLimiter::Blocks);
  consider(out.by_registers, OccupancyLimiter::Registers);
  consider(out.by_shared_memory, OccupancyLimiter::SharedMemory);
  return out;
}

Occupancy compute_occupancy(const DeviceProfile& device, const LaunchConfig& launch) {
  const ArchLimits& arch = device.limits;
  Occupancy occ;
  const long long threads_per_block = launch.block.count();
  const BlockLimits limits = max_blocks_per_sm(
      arch, {static_cast<int>(std::min<long long>(threads_per_block, 1 << 30)), launch.registers_per_thread,
             launch.shared_memory_per_block_bytes});
  occ.warps_per_block = divide_round_up(threads_per_block, arch.warp_size);
  occ.blocks_limit_by_warps = limits.by_warps;
  occ.blocks_limit_by_blocks = limits.by_blocks;
  occ.blocks_limit_by_registers = limits.by_registers;
  occ.blocks_limit_by_shared_memory = limits.by_shared_memory;
  occ.blocks_per_sm = limits.blocks_per_sm;
  occ.limiter = limits.limiter;
  occ.total_blocks = launch.grid.count();
  // eq 4.29 counts threads/32; a partial warp still occupies a whole warp, so count whole warps per block.
  occ.total_warps = launch.total_warps ? *launch.total_warps
                                       : static_cast<double>(occ.total_blocks) * occ.warps_per_block;
  if (occ.blocks_per_sm == 0 || occ.total_blocks == 0) return occ;  // caller reports "cannot launch"

  // Blocks are spread evenly over the SMs (thesis 4.5.4 b).
  occ.active_sms = static_cast<int>(std::min<long long>(occ.total_blocks, device.sm_count));
  const double blocks_per_active_sm = std::ceil(static_cast<double>(occ.total_blocks) / occ.active_sms);
  occ.resident_blocks_per_sm = std::min<double>(occ.blocks_per_sm, blocks_per_active_sm);
  if (blocks_per_active_sm < occ.blocks_per_sm) occ.limiter = OccupancyLimiter::Grid;
  occ.n = occ.resident_blocks_per_sm * occ.warps_per_block;  // eq 4.30
  if (launch.active_warps_per_sm) {
    occ.n = *launch.active_warps_per_sm;
    occ.resident_blocks_per_sm = occ.n / occ.warps_per_block;
    occ.limiter = OccupancyLimiter::Forced;
  }
  // Hong & Kim: #Rep = #Blocks / (#Active_blocks_per_SM x #Active_SMs).
  occ.rep = static_cast<double>(occ.total_blocks) / (occ.resident_blocks_per_sm * occ.active_sms);
  occ.waves = static_cast<long long>(std::ceil(occ.rep - 1e-9));
  occ.occupancy_fraction = occ.n / arch.max_warps_per_sm();
  return occ;
}

}  // namespace warpmodel
