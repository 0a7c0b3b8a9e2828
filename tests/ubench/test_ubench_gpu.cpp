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
#include "harness.hpp"
#include "kernels.hpp"
#include "library_gemm.hpp"
#include "plan.hpp"
#include "registry.hpp"
#include "unit_kernels.hpp"
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

// --- the tensor stage (unit_kernels.cu, sm_90a): small runs, physically sensible numbers ---
namespace {
bool hopper(std::string& why) {
  gpu::select_device(0);
  return gpu::unit_kernels_supported(why);
}
// Per-op cycles of a latency run (1 block or cluster), the clock-read cost subtracted.
double unit_latency(const gpu::UnitRun& run, int reps, double overhead, int chain) {
  double sum = 0;
  const int units = run.blocks * run.warps;
  for (int u = 0; u < units; ++u)
    for (int r = 1; r <= reps; ++r) {
      const std::size_t i = (static_cast<std::size_t>(u) * (reps + 1) + r) * 2;
      sum += static_cast<double>(run.pairs[i + 1] - run.pairs[i]);
    }
  return (sum / (units * reps) - overhead) / chain;
}
}  // namespace

TEST(UbenchTensor, MmaAndWgmmaLatencyAndRate) {
  std::string why;
  if (!hopper(why)) GTEST_SKIP() << why;
  const double oh = mean_per_op(gpu::run_clock(ClockRead::clock64, 1, 20), 1, 20, 0, 1);
  const double mma = unit_latency(gpu::run_unit("ubench_mma_lat_mma_sync_f16", 1, false, 1, 5, 0, 1), 5, oh, sizes::kMmaChain);
  EXPECT_GT(mma, 8);
  EXPECT_LT(mma, 100);
  const double oh4 = mean_per_op(gpu::run_clock(ClockRead::clock64, 4, 20), 4, 20, 0, 1);
  const double wgmma = unit_latency(gpu::run_unit("ubench_wgmma_lat_wgmma_f16", 1, false, 4, 5, 0, 1), 5, oh4,
                                    sizes::kWgmmaChain);
  EXPECT_GT(wgmma, 32);  // m64n256k16 is 128 clocks of a whole SM's tensor cores at the spec rate
  EXPECT_LT(wgmma, 2000);
  // The rate per SM: 2 warpgroups, every SM, 8 loop trips; between half and just over the spec.
  const auto* d = find_declaration("wgmma.f16.throughput");
  ASSERT_NE(d, nullptr);
  const int reps = 3, warps = 8, steps = 8;
  const auto run = gpu::run_unit(d->kernel, 1, true, warps, reps, steps, 2);
  EXPECT_EQ(run.seconds.size(), 2u);
  const double per_warp = d->rate.per_warp / d->steps * steps;
  double rate = 0;
  for (int b = 0; b < run.blocks; ++b) {
    long long t0 = 0, t1 = 0;
    for (int w = 0; w < warps; ++w) {
      const std::size_t i = ((static_cast<std::size_t>(b) * warps + w) * (reps + 1) + reps) * 2;
      t0 = w == 0 ? run.pairs[i] : std::min(t0, run.pairs[i]);
      t1 = w == 0 ? run.pairs[i + 1] : std::max(t1, run.pairs[i + 1]);
    }
    rate += warps * per_warp / double(t1 - t0);
  }
  rate /= run.blocks;
  EXPECT_GT(rate, 0.5 * d->spec_per_clk_sm);
  EXPECT_LT(rate, 1.05 * d->spec_per_clk_sm);
}

TEST(UbenchTensor, CopiesAndClusters) {
  std::string why;
  if (!hopper(why)) GTEST_SKIP() << why;
  const double oh = mean_per_op(gpu::run_clock(ClockRead::clock64, 1, 20), 1, 20, 0, 1);
  const double tma = unit_latency(gpu::run_unit("ubench_tma_load_2d_lat", 1, false, 1, 5, 0, 1), 5, oh, sizes::kCopyChain);
  EXPECT_GT(tma, 100);  // an L2 round trip at least
  EXPECT_LT(tma, 20000);
  const double store = unit_latency(gpu::run_unit("ubench_tma_store_1d_lat", 1, false, 1, 5, 0, 1), 5, oh, sizes::kCopyChain);
  EXPECT_GT(store, 50);
  const double cp = unit_latency(gpu::run_unit("ubench_cp_async_lat", 1, false, 1, 5, 0, 1), 5, oh, sizes::kCpAsyncChain);
  EXPECT_GT(cp, 100);
  EXPECT_LT(cp, 5000);
  for (int cluster : {2, 16}) {
    gpu::UnitRun chase;
    try {
      chase = gpu::run_unit("ubench_dsmem_chase", cluster, false, 1, 5, 0, 1);
    } catch (const warpmodel::support::cuda::CudaError& e) {
      if (cluster == 16) continue;  // a GPU without a GPC of 16 free SMs: the harness reports it as a warning
      throw;
    }
    EXPECT_EQ(chase.blocks, cluster);
    const double dsmem = unit_latency(chase, 5, oh, sizes::kDsmemChain);
    EXPECT_GT(dsmem, 20) << cluster;  // more than a local shared load's ~30, less than an L2 hit's ~270
    EXPECT_LT(dsmem, 1000) << cluster;
    const double barrier =
        unit_latency(gpu::run_unit("ubench_cluster_barrier_relaxed", cluster, false, 1, 5, 0, 1), 5, oh,
                     sizes::kClusterBarrierChain);
    EXPECT_GT(barrier, 10) << cluster;
    EXPECT_LT(barrier, 10000) << cluster;
  }
  // The DRAM stream: GB/s within the runtime's peak.
  const auto* d = find_declaration("tma_load_2d.bandwidth");
  ASSERT_NE(d, nullptr);
  const auto run = gpu::run_unit(d->kernel, 1, true, 1, 2, d->steps, 2);
  const double gbs = run.blocks * d->rate.per_warp * 3 / run.seconds.back() / 1e9;
  EXPECT_GT(gbs, 300);
  EXPECT_LT(gbs, 6000);
}

TEST(UbenchTensor, LibraryGemm) {
  std::string why;
  if (!hopper(why)) GTEST_SKIP() << why;
  const LibraryGemmResult g = measure_library_gemm({2048}, 2, 2);
  if (!g.measured) GTEST_SKIP() << "cuBLASLt: " << g.why_not;
  ASSERT_EQ(g.sizes.size(), 1u);
  EXPECT_GT(g.sizes[0].tera_ops_per_second.mean, 50);  // far above any CUDA-core GEMM, below the sheet's 989
  EXPECT_LT(g.sizes[0].tera_ops_per_second.mean, 1100);
}

// The harness end to end on a few tensor rows (no SASS check: no program to disassemble here).
TEST(UbenchTensor, HarnessRunsTheStage) {
  std::string why;
  if (!hopper(why)) GTEST_SKIP() << why;
  const auto gpus = query_gpus();
  Plan plan;
  plan.reps = 3;
  plan.stages = {kStageTensor};
  for (const char* n : {"clock64", "wgmma.bf16", "wgmma.bf16.throughput", "cluster_barrier", "tma_load_1d.bandwidth"})
    plan.benchmarks.push_back(find_declaration(n));
  const Results r = run_plan(gpus.at(0), plan, HarnessOptions{"", nullptr});
  ASSERT_TRUE(r.units_skipped.empty()) << r.units_skipped;
  const UnitSeries* rate = r.find_unit("tensor_cores", "wgmma.bf16", false);
  ASSERT_NE(rate, nullptr);
  ASSERT_NE(rate->best(), nullptr);
  EXPECT_TRUE(rate->best()->per_second.has_value());
  const UnitSeries* barrier = r.find_unit("cluster", "barrier", true);
  ASSERT_NE(barrier, nullptr);
  EXPECT_GE(barrier->points.size(), 3u);  // clusters of 2, 4, 8 (and 16 where a GPC holds it)
  const UnitSeries* stream = r.find_unit("tma", "load_1d", false);
  ASSERT_NE(stream, nullptr);
  ASSERT_TRUE(stream->spec_per_second.has_value());
  ASSERT_NE(stream->best(), nullptr) << "tma load_1d measured no point";
  ASSERT_TRUE(stream->best()->per_second.has_value());
  EXPECT_LT(stream->best()->per_second->mean, *stream->spec_per_second * 1.05);
}
