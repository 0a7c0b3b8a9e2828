// On a GPU: the harness's kernels give physically sensible numbers (small, fast runs).
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <string>
#include <utility>

#include "constants.hpp"
#include "warpmodel/support/statistics.hpp"
#include "kernels.hpp"
#include "registry.hpp"
#include "warpmodel/support/cuda.hpp"

using namespace warpmodel::ubench;

namespace {
double mean_per_op(const gpu::Cycles& c, int units, int reps, double overhead, double chain) {
  double s = 0;
  for (int u = 0; u < units; ++u)
    for (int r = 1; r <= reps; ++r) s += static_cast<double>(c[static_cast<std::size_t>(u) * (reps + 1) + r]);
  return (s / (units * reps) - overhead) / chain;
}
}  // namespace

TEST(Ubench, ClockOverheadAndFp32Latency) {
  gpu::select_device(0);
  const double oh = mean_per_op(gpu::run_clock(ClockRead::clock64, 1, 20), 1, 20, 0, 1);
  EXPECT_GT(oh, 0);
  EXPECT_LT(oh, 200);
  const auto* add = find_declaration("fp32_add");
  ASSERT_NE(add, nullptr);
  const double lat = mean_per_op(gpu::run_alu(AluKernel{add->alu_index, false}, 1, 1, 20), 1, 20, oh, add->chain);
  EXPECT_GT(lat, 1.5);
  EXPECT_LT(lat, 12);
}

TEST(Ubench, CacheHierarchyIsOrdered) {
  gpu::select_device(0);
  gpu::ChaseBuffer chase(std::size_t(1) << 30);
  chase.build(16 << 10, 256, 1);
  const double l1 = mean_per_op(chase.run(CacheOp::ca, true, 1, 1, 64, 10), 1, 10, 0, 256);
  chase.build(4 << 20, 256, 2);
  const double l2 = mean_per_op(chase.run(CacheOp::cg, true, 1, 1, 8192, 10), 1, 10, 0, 256);
  chase.build(std::size_t(1) << 30, 4096, 3);
  const double dram = mean_per_op(chase.run(CacheOp::cg, true, 1, 1, 0, 10), 1, 10, 0, 256);
  EXPECT_LT(l1, l2);
  EXPECT_LT(l2, dram);
  EXPECT_GT(dram, 200);
}

TEST(Ubench, StoreRoundTripCostsAtLeastTheLoad) {
  gpu::select_device(0);
  const double oh = mean_per_op(gpu::run_clock(ClockRead::clock64, 1, 20), 1, 20, 0, 1);
  for (const auto& [trip_chain, load_chain] : {std::pair{StoreChain::shared_roundtrip, StoreChain::shared_selfload},
                                                 std::pair{StoreChain::global_roundtrip, StoreChain::global_selfload}}) {
    const int space = trip_chain == StoreChain::shared_roundtrip ? 0 : 2;
    const double trip = mean_per_op(gpu::run_store(trip_chain, 1, 20), 1, 20, oh, 256);
    const double load = mean_per_op(gpu::run_store(load_chain, 1, 20), 1, 20, oh, 256);
    EXPECT_GT(load, 5) << space;
    EXPECT_GE(trip, load - 1) << space;
  }
}

TEST(Ubench, L2LinesReachEverySmAsked) {
  gpu::select_device(0);
  int sms = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), cudaSuccess);
  gpu::ChaseBuffer chase(std::size_t(4) << 20);
  chase.build(4 << 20, 256, 7);
  chase.prewarm();
  for (int sm : {0, sms - 1}) {
    const auto c = chase.run_lines(sm, 256, 4 * sms);
    ASSERT_EQ(c.size(), 256u);
    EXPECT_GT(c[0], 50) << "SM " << sm;  // -1: no block landed there
    EXPECT_LT(c[0], 5000) << "SM " << sm;
  }
}

namespace {
// Per warp and repetition (rep 0 dropped), the region cycles of a run_timed result.
std::vector<double> regions(const gpu::Cycles& pairs, int units, int reps) {
  std::vector<double> out;
  for (int u = 0; u < units; ++u)
    for (int r = 1; r <= reps; ++r) {
      const std::size_t i = (static_cast<std::size_t>(u) * (reps + 1) + r) * 2;
      out.push_back(static_cast<double>(pairs[i + 1] - pairs[i]));
    }
  return out;
}
double mean(const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0) / double(v.size()); }
}  // namespace

// The memory-pipe kernels run, write a (start, end) pair for every warp, and give sensible sizes.
TEST(Ubench, MemoryPipeKernelsRunAndAreOrdered) {
  gpu::select_device(0);
  int sms = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), cudaSuccess);
  const int reps = 5, warps = 32;
  std::map<std::string, double> per_request;  // cycles per request per SM, 32 warps (or what fits)
  for (const char* k : {"ubench_ldg_broadcast", "ubench_ldg_coalesced", "ubench_ldg_coalesced_16b", "ubench_ldg_scattered",
                        "ubench_stg_coalesced", "ubench_stg_scattered", "ubench_local_loads"}) {
    // The float4 loads and the stores take too many registers for 32 warps in one block.
    const int w = std::min(warps, gpu::timed_max_warps_per_block(k));
    EXPECT_GE(w, 8) << k;
    const auto c = gpu::run_timed(k, sms, w, reps);
    ASSERT_EQ(c.size(), static_cast<std::size_t>(sms) * w * (reps + 1) * 2) << k;
    const auto r = regions(c, sms * w, reps);
    EXPECT_GT(*std::min_element(r.begin(), r.end()), 0) << k;
    per_request[k] = mean(r) / (double(w) * sizes::kMemoryOpsPerStep * sizes::kMemorySteps);
  }
  // 32 sectors per request cost more than 1 sector per request.
  EXPECT_GT(per_request["ubench_ldg_scattered"], per_request["ubench_ldg_broadcast"]);
  for (const char* k : {"ubench_red_global_same", "ubench_red_global_distinct", "ubench_atom_shared_same",
                        "ubench_atom_shared_distinct"}) {
    const auto r = regions(gpu::run_timed(k, sms, warps, reps), sms * warps, reps);
    EXPECT_GT(*std::min_element(r.begin(), r.end()), 0) << k;
  }
}

TEST(Ubench, AtomicLocalAndBarrierChains) {
  gpu::select_device(0);
  const double oh = mean_per_op(gpu::run_clock(ClockRead::clock64, 1, 20), 1, 20, 0, 1);
  const double atomic = (mean(regions(gpu::run_timed("ubench_atom_global_latency", 1, 1, 10), 1, 10)) - oh) /
                        sizes::kAtomicChain;
  EXPECT_GT(atomic, 50);   // an L2 round trip
  EXPECT_LT(atomic, 5000);
  const double local = (mean(regions(gpu::run_timed("ubench_local_chase", 1, 1, 10), 1, 10)) - oh) /
                       sizes::kLocalChaseChain;
  EXPECT_GT(local, 5);
  EXPECT_LT(local, 1000);
  for (int warps : {1, 32}) {
    const double bar = (mean(regions(gpu::run_timed("ubench_barrier", 1, warps, 10), warps, 10)) - oh) /
                       sizes::kBarrierChain;
    EXPECT_GT(bar, 1) << warps;
    EXPECT_LT(bar, 1000) << warps;
  }
  EXPECT_THROW(gpu::run_timed("ubench_no_such_kernel", 1, 1, 2), warpmodel::support::cuda::CudaError);
}

TEST(Ubench, LaunchOverheadIsMicroseconds) {
  gpu::select_device(0);
  const auto single = gpu::time_single_launches(20);
  const auto b2b = gpu::time_back_to_back_launches(100, 3);
  ASSERT_EQ(single.size(), 20u);
  ASSERT_EQ(b2b.size(), 3u);
  for (double us : single) {
    EXPECT_GT(us, 0);
    EXPECT_LT(us, 1000);
  }
  EXPECT_GT(b2b[0], 0);
  const int shared = gpu::one_block_per_sm_shared_bytes();
  EXPECT_GT(shared, 48 * 1024);
  // One block per SM: 16 waves one after another take longer than one. Medians of 9 launches: the
  // mean of 3 once failed on an H100 (one wave 12.6 us against 16 waves 7.5 us, at 26f6b57), a
  // single slow launch among three; the characterize harness reduces these timings by the median too.
  const auto one_wave = gpu::time_grid_launches(132, 32, shared, 9);
  const auto many = gpu::time_grid_launches(16 * 132, 32, shared, 9);
  EXPECT_GT(warpmodel::support::median(many), warpmodel::support::median(one_wave))
      << "one wave: " << ::testing::PrintToString(one_wave) << " us; 16 waves: " << ::testing::PrintToString(many)
      << " us";
}
