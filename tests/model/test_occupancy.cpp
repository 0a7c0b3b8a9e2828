// The occupancy calculator against the CUDA occupancy rules: the toolkit's own host-side
// implementation (cuda_occupancy.h, no GPU needed) on random launches for every compute capability,
// plus hand-computed cases.
#include <algorithm>
#include <climits>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "warpmodel/occupancy.hpp"

#ifdef WARPMODEL_HAVE_CUDA_OCCUPANCY_H
#include <cuda_occupancy.h>
#endif

namespace warpmodel {
namespace {

DeviceProfile device_for(int major, int minor, int sms) {
  DeviceProfile d;
  d.name = "test";
  d.cc_major = major;
  d.cc_minor = minor;
  d.sm_count = sms;
  d.limits = arch_limits_for(major, minor);
  return d;
}

int blocks(int major, int minor, int threads, int regs, int smem) {
  return max_blocks_per_sm(arch_limits_for(major, minor), {threads, regs, smem}).blocks_per_sm;
}

TEST(Occupancy, HandComputedHopper) {
  // 256 threads = 8 warps; 64 warp slots -> 8 blocks.
  EXPECT_EQ(blocks(9, 0, 256, 32, 0), 8);
  // 128 regs/thread: 4096 regs/warp; 16384 regs per sub-partition -> 4 warps each, 16 per SM -> 2 blocks.
  auto l = max_blocks_per_sm(arch_limits_for(9, 0), {256, 128, 0});
  EXPECT_EQ(l.blocks_per_sm, 2);
  EXPECT_EQ(l.limiter, OccupancyLimiter::Registers);
  // 100 KiB shared + 1 KiB reserved = 103424 B; 233472 / 103424 -> 2 blocks.
  l = max_blocks_per_sm(arch_limits_for(9, 0), {128, 32, 100 * 1024});
  EXPECT_EQ(l.blocks_per_sm, 2);
  EXPECT_EQ(l.limiter, OccupancyLimiter::SharedMemory);
  // 32-thread blocks hit the 32-blocks-per-SM cap before the 64 warp slots.
  l = max_blocks_per_sm(arch_limits_for(9, 0), {32, 16, 0});
  EXPECT_EQ(l.blocks_per_sm, 32);
  EXPECT_EQ(l.limiter, OccupancyLimiter::Blocks);
  // Too much shared memory or too many threads: cannot run.
  EXPECT_EQ(blocks(9, 0, 128, 32, 228 * 1024), 0);
  EXPECT_EQ(blocks(9, 0, 2048, 32, 0), 0);
}

TEST(Occupancy, HandComputedKepler) {
  // K40: 16 blocks, 2048 threads, 48 KiB shared memory per SM.
  EXPECT_EQ(blocks(3, 5, 256, 0, 0), 8);
  EXPECT_EQ(blocks(3, 5, 64, 0, 0), 16);
  EXPECT_EQ(blocks(3, 5, 256, 0, 20000), 2);  // 20224 B allocated (256-B units) -> 2 per 48 KiB
  EXPECT_EQ(blocks(3, 5, 1024, 64, 0), 1);    // 64 regs x 1024 = 65536 = the whole file
}

TEST(Occupancy, HandComputedBlackwell) {
  // sm_100 / sm_103 (B200, B300): Hopper's SM. 100 KiB + 1 KiB reserved -> 2 blocks in 228 KiB.
  for (int minor : {0, 3}) {
    EXPECT_EQ(blocks(10, minor, 256, 32, 0), 8);
    EXPECT_EQ(blocks(10, minor, 128, 32, 100 * 1024), 2);
    EXPECT_EQ(blocks(10, minor, 32, 16, 0), 32);
    EXPECT_EQ(blocks(10, minor, 128, 32, 228 * 1024), 0);
  }
  // sm_120 / sm_121 (RTX 50, GB10): 48 warp slots, 24 blocks, 100 KiB of shared memory.
  for (int minor : {0, 1}) {
    auto l = max_blocks_per_sm(arch_limits_for(12, minor), {256, 32, 0});
    EXPECT_EQ(l.blocks_per_sm, 6);  // 48 / 8 warps
    EXPECT_EQ(l.limiter, OccupancyLimiter::Warps);
    l = max_blocks_per_sm(arch_limits_for(12, minor), {32, 16, 0});
    EXPECT_EQ(l.blocks_per_sm, 24);  // the block cap before the 48 warp slots
    EXPECT_EQ(l.limiter, OccupancyLimiter::Blocks);
    // 40 KiB + 1 KiB reserved = 41 KiB: two in 100 KiB (sm_100 would hold five).
    l = max_blocks_per_sm(arch_limits_for(12, minor), {128, 32, 40 * 1024});
    EXPECT_EQ(l.blocks_per_sm, 2);
    EXPECT_EQ(l.limiter, OccupancyLimiter::SharedMemory);
    EXPECT_EQ(blocks(10, 0, 128, 32, 40 * 1024), 5);
    // 128 registers a thread: 4 warps per sub-partition, 16 an SM -> 4 blocks of 128 threads.
    EXPECT_EQ(blocks(12, minor, 128, 128, 0), 4);
    EXPECT_EQ(blocks(12, minor, 128, 32, 100 * 1024), 0);  // over the 99 KiB a block may opt into
  }
}

TEST(Occupancy, KnowsTheBlackwellComputeCapabilities) {
  const std::vector<std::string> known = known_compute_capabilities();
  for (const char* cc : {"10.0", "10.3", "12.0", "12.1"})
    EXPECT_NE(std::find(known.begin(), known.end(), cc), known.end()) << cc;
}

TEST(Occupancy, LaunchSpreadAndRepetitions) {
  const DeviceProfile h200 = device_for(9, 0, 132);
  LaunchConfig launch;
  launch.block = {256, 1, 1};
  launch.registers_per_thread = 32;
  launch.grid = {2000, 1, 1};  // 8 blocks/SM x 132 SMs = 1056 per wave
  Occupancy o = compute_occupancy(h200, launch);
  EXPECT_EQ(o.active_sms, 132);
  EXPECT_DOUBLE_EQ(o.n, 64);
  EXPECT_DOUBLE_EQ(o.rep, 2000.0 / 1056.0);
  EXPECT_EQ(o.waves, 2);
  EXPECT_DOUBLE_EQ(o.total_warps, 2000.0 * 8);

  launch.grid = {10, 1, 1};  // fewer blocks than SMs
  o = compute_occupancy(h200, launch);
  EXPECT_EQ(o.active_sms, 10);
  EXPECT_DOUBLE_EQ(o.resident_blocks_per_sm, 1);
  EXPECT_DOUBLE_EQ(o.n, 8);
  EXPECT_EQ(o.limiter, OccupancyLimiter::Grid);
  EXPECT_EQ(o.waves, 1);

  launch.grid = {2000, 1, 1};
  launch.active_warps_per_sm = 16;  // forced N (thesis columns, achieved occupancy)
  o = compute_occupancy(h200, launch);
  EXPECT_DOUBLE_EQ(o.n, 16);
  EXPECT_EQ(o.limiter, OccupancyLimiter::Forced);
  EXPECT_DOUBLE_EQ(o.rep, 2000.0 / (2.0 * 132));
}

TEST(Occupancy, PartialWarpsCountAsWholeWarps) {
  LaunchConfig launch;
  launch.block = {50, 1, 1};  // 2 warps, the second partial
  launch.grid = {132, 1, 1};
  const Occupancy o = compute_occupancy(device_for(9, 0, 132), launch);
  EXPECT_EQ(o.warps_per_block, 2);
  EXPECT_DOUBLE_EQ(o.total_warps, 264);
}

TEST(Occupancy, UnknownComputeCapabilityIsRejected) {
  EXPECT_THROW(arch_limits_for(2, 0), std::invalid_argument);
  EXPECT_THROW(arch_limits_for(9, 9), std::invalid_argument);
  EXPECT_THROW(arch_limits_for(10, 1), std::invalid_argument);  // Thor's old number: 11.0 in CUDA 13
  try {
    arch_limits_for(2, 0);
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("12.1"), std::string::npos) << e.what();  // the known list
  }
}

#ifdef WARPMODEL_HAVE_CUDA_OCCUPANCY_H
// Same question to cuda_occupancy.h, with the same per-architecture numbers.
int reference_blocks(const ArchLimits& a, int major, int minor, int threads, int regs, int smem) {
  cudaOccDeviceProp prop;
  prop.computeMajor = major;
  prop.computeMinor = minor;
  prop.maxThreadsPerBlock = a.max_threads_per_block;
  prop.maxThreadsPerMultiprocessor = a.max_threads_per_sm;
  prop.regsPerBlock = a.max_registers_per_block;
  prop.regsPerMultiprocessor = a.registers_per_sm;
  prop.warpSize = a.warp_size;
  prop.sharedMemPerBlock = a.shared_memory_per_block_bytes;
  prop.sharedMemPerMultiprocessor = a.shared_memory_per_sm_bytes;
  prop.numSms = 1;
  prop.sharedMemPerBlockOptin = a.shared_memory_per_block_optin_bytes;
  prop.reservedSharedMemPerBlock = a.shared_memory_reserved_per_block_bytes;
  cudaOccFuncAttributes attr;
  attr.maxThreadsPerBlock = INT_MAX;
  attr.numRegs = regs;
  attr.sharedSizeBytes = smem;
  attr.partitionedGCConfig = PARTITIONED_GC_OFF;
  attr.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
  cudaOccDeviceState state;
  cudaOccResult result{};
  if (cudaOccMaxActiveBlocksPerMultiprocessor(&result, &prop, &attr, &state, threads, 0) != CUDA_OCC_SUCCESS)
    return -1;
  return result.activeBlocksPerMultiprocessor;
}

TEST(Occupancy, AgreesWithCudaOccupancyHeaderOnRandomLaunches) {
  std::mt19937 rng(20261121);
  int compared = 0;
  for (const std::string& cc : known_compute_capabilities()) {
    const std::size_t dot = cc.find('.');
    const int major = std::stoi(cc.substr(0, dot)), minor = std::stoi(cc.substr(dot + 1));
    const ArchLimits a = arch_limits_for(major, minor);
    std::uniform_int_distribution<int> threads_dist(1, a.max_threads_per_block);
    std::uniform_int_distribution<int> regs_dist(0, 255);
    std::uniform_int_distribution<int> smem_dist(0, a.shared_memory_per_block_optin_bytes);
    for (int i = 0; i < 3000; ++i) {
      // Mix round sizes (the common case) with arbitrary ones.
      const int threads = (i % 3 == 0) ? 32 * std::uniform_int_distribution<int>(1, 32)(rng) : threads_dist(rng);
      const int regs = (i % 4 == 0) ? 0 : regs_dist(rng);
      const int smem = (i % 2 == 0) ? 0 : smem_dist(rng);
      const int ours = max_blocks_per_sm(a, {threads, regs, smem}).blocks_per_sm;
      const int ref = reference_blocks(a, major, minor, threads, regs, smem);
      ASSERT_EQ(ours, ref) << "sm_" << major << minor << " threads=" << threads << " regs=" << regs
                           << " smem=" << smem;
      ++compared;
    }
  }
  EXPECT_EQ(compared, 3000 * static_cast<int>(known_compute_capabilities().size()));
}
#endif

}  // namespace
}  // namespace warpmodel
