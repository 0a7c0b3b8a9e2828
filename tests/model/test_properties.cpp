// Properties every variant must keep on every valid input (randomised).
#include <cmath>

#include <gtest/gtest.h>

#include "random_profiles.hpp"
#include "warpmodel/model.hpp"

namespace warpmodel {
namespace {

using testing::random_device;
using testing::random_kernel;

constexpr int kCases = 20000;
constexpr double kRelTol = 1e-9;

class EveryVariant : public ::testing::TestWithParam<ModelVariant> {};

TEST_P(EveryVariant, FinitePositiveAndBounded) {
  std::mt19937 rng(1 + static_cast<int>(GetParam()));
  for (int i = 0; i < kCases; ++i) {
    const DeviceProfile d = random_device(rng);
    const KernelProfile k = random_kernel(rng, d);
    const Prediction p = predict(GetParam(), d, k);
    ASSERT_TRUE(std::isfinite(p.cycles) && p.cycles > 0) << "case " << i << " cycles " << p.cycles;
    ASSERT_TRUE(std::isfinite(p.seconds) && p.seconds > 0);
    const double n = p.occupancy.n;
    if (!std::isnan(p.mwp)) {  // the MWP-CWP variants
      ASSERT_LE(p.mwp, n * (1 + kRelTol)) << "MWP <= N, case " << i;
      ASSERT_LE(p.cwp, n * (1 + kRelTol)) << "CWP <= N, case " << i;
      ASSERT_GE(p.mwp, 0);
    }
    if (!std::isnan(p.t_wave)) {  // hopper: a wave lasts at least as long as each of its bounds (H.10-H.11)
      for (double term : {p.t_issue, p.t_sfu, p.t_schedule, p.t_mem_latency, p.t_l1_data, p.t_l2_bandwidth,
                          p.t_dram_bandwidth, p.t_warp, p.t_pipe, p.t_data})
        ASSERT_LE(term, p.t_wave * (1 + kRelTol)) << "case " << i;
      ASSERT_GE(p.t_wave, 0);
      ASSERT_GE(p.t_last_wave, 0);
      ASSERT_FALSE(p.bound.empty());
    }
    if (!std::isnan(p.t_overlap)) {
      ASSERT_LE(p.t_overlap, std::min(p.t_comp, p.t_mem) * (1 + kRelTol)) << "T_overlap <= min(T_comp, T_mem)";
      ASSERT_GE(p.t_overlap, 0);
      ASSERT_LE(p.mwp_cp, p.mwp * (1 + kRelTol));
    }
  }
}

double memory_time(const Prediction& p) {
  if (!std::isnan(p.t_data)) return p.t_data;  // hopper
  return std::isnan(p.t_mem) ? p.mem_cycles : p.t_mem;
}

// More memory instructions never lower the memory time: T_mem (eq 4.8) for the Sim-style variants,
// Mem_cycles for Hong & Kim (which has no T_mem), T_data (H.10) for hopper.
TEST_P(EveryVariant, MoreMemoryInstructionsNeverLowerMemoryTime) {
  std::mt19937 rng(100 + static_cast<int>(GetParam()));
  for (int i = 0; i < kCases / 4; ++i) {
    const DeviceProfile d = random_device(rng);
    KernelProfile k = random_kernel(rng, d);
    const Prediction before = predict(GetParam(), d, k);
    const double extra = testing::uniform(rng, 0.01, 50);
    k.mem_inst_per_warp += extra;
    k.inst_per_warp += extra;  // a memory instruction is an instruction
    const Prediction after = predict(GetParam(), d, k);
    const double memory_before = memory_time(before);
    const double memory_after = memory_time(after);
    ASSERT_GE(memory_after, memory_before * (1 - kRelTol)) << "case " << i;
  }
}

TEST_P(EveryVariant, NoMemoryInstructionsMeansNoMemoryTime) {
  std::mt19937 rng(7);
  const DeviceProfile d = random_device(rng);
  KernelProfile k = random_kernel(rng, d);
  k.mem_inst_per_warp = 0;
  k.uncoalesced_mem_inst_per_warp = 0;
  k.shared_inst_per_warp = 0;
  k.bank_conflicts_per_warp = 0;
  const Prediction p = predict(GetParam(), d, k);
  EXPECT_TRUE(std::isfinite(p.cycles) && p.cycles > 0);
  EXPECT_EQ(memory_time(p), 0);
}

INSTANTIATE_TEST_SUITE_P(Model, EveryVariant, ::testing::ValuesIn(all_variants().begin(), all_variants().end()),
                         [](const auto& info) {
                           std::string s(to_string(info.param));
                           for (char& c : s) if (c == '-') c = '_';
                           return s;
                         });

TEST(Variants, NamesRoundTrip) {
  for (ModelVariant v : all_variants()) EXPECT_EQ(parse_variant(to_string(v)), v);
  EXPECT_FALSE(parse_variant("hong-kim").has_value());
}

// Hong & Kim's three cases, each forced by construction. Device: Mem_L = 400, Delta = 40, so
// MWP = min(10, N) with unlimited bandwidth; 128 lanes per SM, so 0.25 issue cycles per instruction.
TEST(HongKim2009, ThreeCasesInThePapersOrder) {
  std::mt19937 rng(3);
  DeviceProfile d = random_device(rng);
  d.cc_major = 9, d.cc_minor = 0, d.limits = arch_limits_for(9, 0);
  d.sm_count = 10, d.simd_width = 128, d.mem_peak_bandwidth_gbs = 1e9;
  d.dram_latency_cycles = 400, d.departure_delay_coalesced_cycles = 40;
  KernelProfile k;
  k.name = "k";
  k.mlp = 1;
  k.ilp = 1;

  // 2 warps per SM, memory heavy: MWP = CWP = N = 2.
  k.launch.block = {64, 1, 1};
  k.launch.grid = {10, 1, 1};
  k.inst_per_warp = 20, k.mem_inst_per_warp = 10;
  Prediction p = predict_hong_kim_2009(d, k);
  EXPECT_DOUBLE_EQ(p.occupancy.n, 2);
  EXPECT_EQ(p.model_case, ModelCase::NotEnoughWarps);
  EXPECT_NEAR(p.cycles, (4000 + 5 + 0.5 * 1) * 1, 1e-9);  // (Mem + Comp + Comp/#Mem x (MWP-1)) x #Rep

  // 64 warps per SM: MWP = 10 < CWP = 64.
  k.launch.block = {1024, 1, 1};
  k.launch.grid = {20, 1, 1};
  p = predict_hong_kim_2009(d, k);
  EXPECT_DOUBLE_EQ(p.mwp, 10);
  EXPECT_EQ(p.model_case, ModelCase::MemoryBound);
  EXPECT_NEAR(p.cycles, 4000 * 64 / 10.0 + 0.5 * 9, 1e-9);

  // Compute heavier: Comp = 200 <= Mem = 800, CWP_full = 5 < MWP = 10.
  k.inst_per_warp = 800, k.mem_inst_per_warp = 2;
  p = predict_hong_kim_2009(d, k);
  EXPECT_DOUBLE_EQ(p.cwp, 5);
  EXPECT_EQ(p.model_case, ModelCase::ComputeBound);
  EXPECT_NEAR(p.cycles, 400 + 200 * 64, 1e-9);  // Mem_L + Comp x N
  EXPECT_TRUE(p.notes.empty());

  // Comp = 1000 > Mem = 800 with CWP < MWP: the paper's second condition takes the memory formula.
  k.inst_per_warp = 4000;
  p = predict_hong_kim_2009(d, k);
  EXPECT_LT(p.cwp, p.mwp);
  EXPECT_EQ(p.model_case, ModelCase::MemoryBound);
  EXPECT_EQ(p.notes.size(), 1u);
}

// Barriers add Departure_delay x (MWP - 1) x #sync x #Active_blocks_per_SM x #Rep.
TEST(HongKim2009, SynchronisationCost) {
  std::mt19937 rng(5);
  DeviceProfile d = random_device(rng);
  d.cc_major = 9, d.cc_minor = 0, d.limits = arch_limits_for(9, 0);
  d.sm_count = 10, d.simd_width = 128, d.mem_peak_bandwidth_gbs = 1e9;
  d.dram_latency_cycles = 400, d.departure_delay_coalesced_cycles = 40;
  KernelProfile k;
  k.name = "k";
  k.launch.block = {1024, 1, 1};
  k.launch.grid = {20, 1, 1};
  k.inst_per_warp = 20, k.mem_inst_per_warp = 10;
  const double without = predict_hong_kim_2009(d, k).cycles;
  k.sync_inst_per_warp = 3;
  const Prediction p = predict_hong_kim_2009(d, k);
  EXPECT_NEAR(p.o_sync, 40 * (10 - 1) * 3 * 2 * 1, 1e-9);
  EXPECT_NEAR(p.cycles - without, p.o_sync, 1e-6);
}

// gpuperf-2012's W_serial terms appear only with their instructions; thesis-2016 never has them.
TEST(GpuPerf2012, SerialOverheads) {
  std::mt19937 rng(11);
  const DeviceProfile d = random_device(rng);
  KernelProfile k = random_kernel(rng, d);
  k.sync_inst_per_warp = k.sfu_inst_per_warp = k.divergent_inst_per_warp = k.bank_conflicts_per_warp = 0;
  Prediction p = predict_gpuperf_2012(d, k);
  EXPECT_EQ(p.w_serial, 0);
  k.sync_inst_per_warp = 2;
  p = predict_gpuperf_2012(d, k);
  const double per_sm = p.occupancy.total_warps / p.occupancy.active_sms;
  EXPECT_NEAR(p.o_sync, 2 * per_sm * 64 * p.avg_dram_lat * k.mem_inst_per_warp / k.inst_per_warp, 1e-6 * p.o_sync);
  EXPECT_NEAR(p.t_comp, p.w_parallel + p.o_sync, 1e-9 * p.t_comp);
  EXPECT_EQ(predict_thesis_2016(d, k).w_serial, 0);
}

}  // namespace
}  // namespace warpmodel
