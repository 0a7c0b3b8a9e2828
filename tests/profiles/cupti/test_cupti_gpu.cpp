// The collector on a GPU, on kernels whose counts are known exactly (builtin_workloads.hpp): a copy
// of n floats with one element per thread launches n/32 warps, executes n/32 global load and n/32
// global store instructions, each one request of 4 sectors (128 aligned bytes per warp).
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdlib>

#include "warpmodel/cupti/builtin_workloads.hpp"
#include "warpmodel/cupti/profiler.hpp"
#include "warpmodel/cupti/workload_factory.hpp"

namespace wc = warpmodel::cupti;

namespace {

constexpr long long kN = 1LL << 24;  // 64 MiB per buffer: larger than the H200's L2
constexpr int kBlock = 256;

const std::vector<std::string> kExact = {
    "smsp__warps_launched.sum",
    "smsp__inst_executed_op_global_ld.sum",
    "smsp__inst_executed_op_global_st.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "dram__bytes_read.sum",
    "smsp__inst_executed.sum",
};

wc::ProfileOptions options(const std::vector<std::string>& metrics, wc::RangeMode mode) {
  wc::ProfileOptions o;
  o.plan = wc::ChipMetrics::for_device(0).resolve(metrics);
  o.mode = mode;
  o.timing_runs = 3;
  o.command = "test_cupti_gpu";
  return o;
}

void expect_copy_counts(const wc::LaunchRecord& l, long long n, bool larger_than_l2 = true) {
  const double warps = static_cast<double>(n) / 32, sectors = static_cast<double>(n) / 8;
  EXPECT_EQ(l.metrics.at("smsp__warps_launched.sum"), warps);
  EXPECT_EQ(l.metrics.at("smsp__inst_executed_op_global_ld.sum"), warps);
  EXPECT_EQ(l.metrics.at("smsp__inst_executed_op_global_st.sum"), warps);
  EXPECT_EQ(l.metrics.at("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"), warps);
  EXPECT_EQ(l.metrics.at("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"), warps);
  EXPECT_EQ(l.metrics.at("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"), sectors);
  EXPECT_EQ(l.metrics.at("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"), sectors);
  // DRAM reads: the input once, give or take what L2 held from the previous pass (50 MiB); a
  // buffer smaller than L2 may come from L2 entirely.
  const double bytes = 4.0 * static_cast<double>(n);
  if (larger_than_l2) {
    EXPECT_GT(l.metrics.at("dram__bytes_read.sum"), 0.2 * bytes);
  }
  EXPECT_LT(l.metrics.at("dram__bytes_read.sum"), 1.2 * bytes);
  // A handful of instructions per warp: more than the two memory ones, fewer than 40.
  EXPECT_GT(l.metrics.at("smsp__inst_executed.sum"), 2 * warps);
  EXPECT_LT(l.metrics.at("smsp__inst_executed.sum"), 40 * warps);
  // Launch shape and duration from the Activity API.
  EXPECT_EQ(l.grid[0], n / kBlock);
  EXPECT_EQ(l.block[0], kBlock);
  EXPECT_GT(l.registers_per_thread, 0);
  EXPECT_NE(l.kernel.find("copy_kernel"), std::string::npos) << l.kernel;
  EXPECT_NE(l.demangled.find("copy_kernel("), std::string::npos) << l.demangled;
  EXPECT_EQ(l.duration_ns_runs.size(), 3u);
  // 8 bytes per element cannot move faster than ~4.8 TB/s (H200 HBM3e peak), nor take a second.
  EXPECT_GT(l.duration_ns, 8.0 * static_cast<double>(n) / 5e12 * 1e9);
  EXPECT_LT(l.duration_ns, 1e9);
}

}  // namespace

TEST(CuptiGpu, CopyCountsAreExactWithKernelReplay) {
  auto w = wc::make_copy_workload(kN, kBlock);
  const auto r = wc::profile(*w, options(kExact, wc::RangeMode::Auto));
  ASSERT_EQ(r.launches.size(), 1u);
  expect_copy_counts(r.launches[0], kN);
  EXPECT_EQ(r.device.chip, "GH100");
  EXPECT_EQ(r.collection.range_mode, "auto");
  EXPECT_EQ(w->verify(), "");
  RecordProperty("passes", static_cast<int>(r.collection.passes));
}

TEST(CuptiGpu, CopyCountsAreExactWithUserReplay) {
  auto w = wc::make_copy_workload(kN, kBlock);
  auto metrics = kExact;
  metrics.push_back("dram__bytes_write.sum");
  auto o = options(metrics, wc::RangeMode::User);
  o.flush_l2 = true;
  const auto r = wc::profile(*w, o);
  ASSERT_EQ(r.launches.size(), 1u);
  expect_copy_counts(r.launches[0], kN);
  EXPECT_TRUE(r.collection.l2_flushed_before_each_pass);
  // The flush leaves no line of the workload and no dirty line in L2 (src/l2_flush.hpp): the
  // input comes from DRAM once, and the only DRAM writes are the kernel's own stores (some of
  // which may still sit in L2 when it ends). A flush that left dirty lines would add up to an
  // L2's worth (50 MiB) of write-backs to the kernel's count.
  const double bytes = 4.0 * static_cast<double>(kN);
  EXPECT_NEAR(r.launches[0].metrics.at("dram__bytes_read.sum"), bytes, 0.005 * bytes);
  EXPECT_LE(r.launches[0].metrics.at("dram__bytes_write.sum"), 1.005 * bytes);
}

TEST(CuptiGpu, CopyWithAutoRangesAndUserReplayIsTheKernelAlone) {
  // Auto ranges (one per kernel, as ncu's) replayed by the workload, flushed before each pass:
  // counts exact, the input read from DRAM once, and the range's duration the kernel's (a user
  // range around the launch also spans the launch latency: about 40 us more on the H200).
  auto metrics = kExact;
  metrics.push_back("gpu__time_duration.sum");
  auto o = options(metrics, wc::RangeMode::Auto);
  o.replay = wc::ReplayMode::User;
  o.flush_l2 = true;
  auto w = wc::make_copy_workload(kN, kBlock);
  const auto r = wc::profile(*w, o);
  ASSERT_EQ(r.launches.size(), 1u);
  expect_copy_counts(r.launches[0], kN);
  EXPECT_EQ(r.collection.range_mode, "auto");
  EXPECT_EQ(r.collection.replay_mode, "user");
  EXPECT_EQ(w->verify(), "");
  const double bytes = 4.0 * static_cast<double>(kN);
  EXPECT_NEAR(r.launches[0].metrics.at("dram__bytes_read.sum"), bytes, 0.005 * bytes);
  EXPECT_LT(r.launches[0].metrics.at("gpu__time_duration.sum"), 1.25 * r.launches[0].duration_ns);
  // Kernel replay cannot flush between its passes; user ranges cannot be kernel-replayed.
  o.replay = wc::ReplayMode::Kernel;
  EXPECT_THROW(wc::profile(*w, o), std::invalid_argument);
  o.flush_l2 = false;
  o.mode = wc::RangeMode::User;
  EXPECT_THROW(wc::profile(*w, o), std::invalid_argument);
}

TEST(CuptiGpu, FlushBeforeEachLaunchMakesEveryLaunchCold) {
  // Three copies of the same 4 MiB input, which L2 holds. Flushed before each pass only, the second
  // and third copies find the input in L2 (the validation sweep's warm protocol); flushed before
  // each launch (ncu's --cache-control all, the sweep's cold protocol), every copy reads it from
  // DRAM, in the counted passes and in the timed runs alike.
  constexpr long long n = kN / 16;
  const double bytes = 4.0 * static_cast<double>(n);
  auto w = wc::make_copy_workload(n, kBlock, 3);
  auto o = options(kExact, wc::RangeMode::User);
  o.flush_l2 = true;
  const auto warm = wc::profile(*w, o);
  ASSERT_EQ(warm.launches.size(), 3u);
  EXPECT_NEAR(warm.launches[0].metrics.at("dram__bytes_read.sum"), bytes, 0.01 * bytes);
  EXPECT_LT(warm.launches[1].metrics.at("dram__bytes_read.sum"), 0.1 * bytes);
  EXPECT_FALSE(warm.collection.l2_flushed_before_each_launch);
  o.flush_l2 = false;
  o.flush_l2_before_each_launch = true;
  const auto cold = wc::profile(*w, o);
  ASSERT_EQ(cold.launches.size(), 3u);
  EXPECT_TRUE(cold.collection.l2_flushed_before_each_launch);
  EXPECT_TRUE(cold.collection.l2_flushed_before_each_pass);
  for (const auto& l : cold.launches) EXPECT_NEAR(l.metrics.at("dram__bytes_read.sum"), bytes, 0.01 * bytes);
  // The timed runs are cold too: the second copy takes longer than when it found its input in L2.
  EXPECT_GT(cold.launches[1].duration_ns, warm.launches[1].duration_ns);
  EXPECT_EQ(w->verify(), "");
  // Kernel replay cannot flush between a range's passes: refused before any work.
  o.mode = wc::RangeMode::Auto;
  EXPECT_THROW(wc::profile(*w, o), std::invalid_argument);
}

TEST(CuptiGpu, EveryLaunchIsItsOwnRange) {
  for (auto mode : {wc::RangeMode::Auto, wc::RangeMode::User}) {
    auto w = wc::make_copy_workload(kN / 4, kBlock, 3);
    const auto r = wc::profile(*w, options(kExact, mode));
    ASSERT_EQ(r.launches.size(), 3u);
    for (std::size_t i = 0; i < 3; ++i) {
      EXPECT_EQ(r.launches[i].launch_index, i);
      expect_copy_counts(r.launches[i], kN / 4, /*larger_than_l2=*/false);
    }
  }
}

TEST(CuptiGpu, InPlaceInputsAreRestoredBeforeEveryPass) {
  // The model set needs several passes; saxpy updates y in place, so without a restore before
  // each pass y would be updated once per pass.
  for (auto mode : {wc::RangeMode::User, wc::RangeMode::Auto}) {
    auto w = wc::make_saxpy_workload(kN, kBlock);
    const auto r = wc::profile(*w, options({"model"}, mode));
    EXPECT_GT(r.collection.passes, 1u);
    EXPECT_EQ(w->verify(), "") << (mode == wc::RangeMode::User ? "user" : "auto") << " replay";
    const auto& m = r.launches.at(0).metrics;
    EXPECT_EQ(m.at("smsp__inst_executed_op_global_ld.sum"), 2.0 * kN / 32);  // x and y
    EXPECT_EQ(m.at("smsp__inst_executed_op_global_st.sum"), 1.0 * kN / 32);
    EXPECT_GT(m.at("sm__warps_active.avg.pct_of_peak_sustained_active"), 10.0);
    EXPECT_LE(m.at("sm__warps_active.avg.pct_of_peak_sustained_active"), 100.0);
  }
}

TEST(CuptiGpu, LegacyNamesAreDerivedFromTheirInputs) {
  auto w = wc::make_copy_workload(kN, kBlock);
  const auto r = wc::profile(*w, options({"inst_per_warp", "gld_transactions_per_request", "achieved_occupancy"},
                                         wc::RangeMode::Auto));
  const auto& l = r.launches.at(0);
  EXPECT_DOUBLE_EQ(l.derived.at("inst_per_warp"),
                   l.metrics.at("smsp__inst_executed.sum") / l.metrics.at("smsp__warps_launched.sum"));
  EXPECT_DOUBLE_EQ(l.derived.at("gld_transactions_per_request"), 4.0);
  EXPECT_GT(l.derived.at("achieved_occupancy"), 0.1);
  EXPECT_LE(l.derived.at("achieved_occupancy"), 1.0);
}

TEST(CuptiGpu, RangeOverflowIsReportedNotTruncated) {
  auto w = wc::make_copy_workload(kN / 16, kBlock, 2);
  auto o = options({"smsp__warps_launched.sum"}, wc::RangeMode::Auto);
  o.max_ranges = 1;
  EXPECT_THROW(wc::profile(*w, o), wc::RangeOverflowError);
  auto u = options({"smsp__warps_launched.sum"}, wc::RangeMode::User);
  u.max_ranges = 1;
  EXPECT_THROW(wc::profile(*w, u), wc::RangeOverflowError);
  // The profiler is usable again afterwards.
  auto w2 = wc::make_copy_workload(kN / 16, kBlock, 2);
  EXPECT_EQ(wc::profile(*w2, options({"smsp__warps_launched.sum"}, wc::RangeMode::Auto)).launches.size(), 2u);
}

TEST(CuptiGpu, ALaunchThatStartsTwoKernelsIsRefused) {
  auto w = wc::make_double_launch_workload(kN / 16, kBlock);
  EXPECT_THROW(wc::profile(*w, options({"smsp__warps_launched.sum"}, wc::RangeMode::Auto)), wc::RangeOverflowError);
}

// A launch in thread-block clusters: the Activity API's cluster dimension reaches the launch record
// (hopper H.18 reads it as launch.cluster), and the model set's optional counters come with it on
// sm_90: the bytes pushed into other blocks' shared memory, and a tensor pipe that ran nothing. The
// ADI fused-cluster y-sweep at 1024^2 double runs clusters of 8 (adi::cluster_columns); each of its
// 131,072 segments pushes 6 reduced rows and 1 or 2 Z values of 8 bytes, 7/8 of them into another
// block (the owner of a column is one block of the 8): at least 0.8 x 6.3 MB.
TEST(CuptiGpu, AClusterLaunchRecordsItsClusterAndItsRemoteBytes) {
  wc::WorkloadRequest r;
  r.kernel = "adi";
  r.size = "1024";
  r.variant = "fused-cluster";
  r.adi_kernel = "sweep-y";
  r.precision = "double";
  const auto workload = wc::make_workload(r);
  const wc::ProfileReport report = wc::profile(*workload, options({"model"}, wc::RangeMode::Auto));
  ASSERT_EQ(report.launches.size(), 1u);
  const wc::LaunchRecord& l = report.launches[0];
  ASSERT_TRUE(l.cluster.has_value()) << l.kernel;
  EXPECT_EQ(*l.cluster, (std::array<int, 3>{8, 1, 1}));
  const auto dsmem = l.metrics.find("l1tex__m_l1tex2xbar_write_bytes_mem_dshared.sum");
  ASSERT_NE(dsmem, l.metrics.end()) << "collected on sm_90";
  EXPECT_GT(dsmem->second, 0.8 * 6 * 8 * 131072);
  EXPECT_LT(dsmem->second, 1e8);
  EXPECT_EQ(l.metrics.at("smsp__inst_executed_pipe_tensor.sum"), 0);
}

TEST(CuptiGpu, AnInjectedProfilerIsDetected) {
  ASSERT_EQ(setenv("CUDA_INJECTION64_PATH", "/nonexistent/libInjection.so", 1), 0);
  auto w = wc::make_copy_workload(kN / 16, kBlock);
  EXPECT_THROW(wc::profile(*w, options({"smsp__warps_launched.sum"}, wc::RangeMode::Auto)), wc::OtherClientError);
  unsetenv("CUDA_INJECTION64_PATH");
}
