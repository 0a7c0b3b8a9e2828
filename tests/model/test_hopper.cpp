// The hopper variant (hopper_equations.hpp, H.1-H.12): hand-computed terms, the shape of an
// occupancy sweep, calibration, and the inputs it needs.
#include <cmath>

#include <gtest/gtest.h>

#include "warpmodel/json_io.hpp"
#include "warpmodel/model.hpp"
#include "round_profiles.hpp"

namespace warpmodel {
namespace {

using testing::round_device;
using testing::round_kernel;

TEST(Hopper, ComputeBoundTermsByHand) {
  const Prediction p = predict_hopper(round_device(), round_kernel());
  EXPECT_EQ(p.occupancy.n, 64);
  EXPECT_EQ(p.full_waves, 1);
  EXPECT_EQ(p.last_wave_sms, 100);
  EXPECT_EQ(p.last_wave_warps_per_sm, 16);
  EXPECT_DOUBLE_EQ(p.t_issue, 1600);        // H.2: ceil(64/4) x 100
  EXPECT_DOUBLE_EQ(p.t_sfu_pipe, 256);      // H.3: 16 x 2 x 32 / (16/4)
  EXPECT_DOUBLE_EQ(p.t_dependent, 200);     // H.4: 100 x 4 / 2
  EXPECT_DOUBLE_EQ(p.avg_dram_lat, 600);    // H.5: one line per request, no departure term
  EXPECT_DOUBLE_EQ(p.amat, 400);            // H.5: 0.5 x 200 + 0.5 x 600
  // H.6: a batch of MLP = 4 loads, each an L1 miss and an L2 miss with probability 0.5: the batch
  // waits for DRAM unless all four hit L2 (0.5^4): 200 x 0.0625 + 600 x 0.9375 = 575; 4 / 4 batches
  EXPECT_DOUBLE_EQ(p.t_mem_latency, 575);
  EXPECT_DOUBLE_EQ(p.t_l1_data, 256);       // H.7: 64 x 512 B / 128
  EXPECT_DOUBLE_EQ(p.t_l2_bandwidth, 512);  // H.8: 64 x 512 B / 64
  EXPECT_DOUBLE_EQ(p.t_dram_bandwidth, 512);  // H.9: 64 x 256 B / 32
  EXPECT_DOUBLE_EQ(p.t_comp, 1600);         // H.10: max(1600, 256, 200)
  EXPECT_DOUBLE_EQ(p.t_mem, 575 + 512);     // H.10: latency + the narrowest level
  EXPECT_DOUBLE_EQ(p.t_wave, 1600 + 1087);  // H.11
  EXPECT_EQ(p.bound, "issue");
  // partial wave, 16 warps: comp max(400, 64, 200) = 400; mem 575 + max(64, 128, 128) = 703
  EXPECT_DOUBLE_EQ(p.t_last_wave, 400 + 703);
  EXPECT_DOUBLE_EQ(p.cycles, 2687 + 1103);  // H.12: 1 x 2687 + 1103
  EXPECT_DOUBLE_EQ(p.seconds, 3.79e-6);
  EXPECT_EQ(p.model_case, ModelCase::ComputeBound);
}

TEST(Hopper, MemoryBoundTermsByHand) {
  KernelProfile k = round_kernel();
  k.inst_per_warp = 20;
  k.sfu_inst_per_warp = 0;
  k.l2_miss_ratio = 0.75;  // DRAM bytes per warp: 512 x 0.75 = 384
  const Prediction p = predict_hopper(round_device(), k);
  EXPECT_DOUBLE_EQ(p.amat, 500);              // 0.25 x 200 + 0.75 x 600
  EXPECT_DOUBLE_EQ(p.t_dram_bandwidth, 768);  // 64 x 384 / 32
  // batch of 4 loads served by L1 or L2 with probability 0.25^4: 200/256 + 600 x 255/256 = 598.4375
  EXPECT_DOUBLE_EQ(p.t_mem_latency, 598.4375);
  EXPECT_DOUBLE_EQ(p.t_wave, 320 + 598.4375 + 768);  // issue 16 x 20; latency; DRAM
  EXPECT_EQ(p.bound, "dram bandwidth");
  EXPECT_DOUBLE_EQ(p.t_last_wave, 80 + 598.4375 + 192);  // 16 warps: issue 4 x 20, DRAM 16 x 384 / 32
  EXPECT_DOUBLE_EQ(p.cycles, 1686.4375 + 870.4375);
  EXPECT_EQ(p.model_case, ModelCase::MemoryBound);
}

TEST(Hopper, Calibration) {
  DeviceProfile d = round_device();
  d.hopper_calibration = DeviceProfile::HopperCalibration{1000, 2, 10, "test"};
  KernelProfile k = round_kernel();
  k.inst_per_warp = 20;
  k.sfu_inst_per_warp = 0;
  k.l2_miss_ratio = 0.75;
  const Prediction p = predict_hopper(d, k);
  EXPECT_DOUBLE_EQ(p.t_wave, 1686.4375);  // the constants do not enter the waves
  EXPECT_DOUBLE_EQ(p.cycles, 1000 + 2 * (1686.4375 + 870.4375) + 10 * 2);  // H.12: two waves
}

TEST(Hopper, ForcedWarpsPerSmIsIgnoredForWholeWaves) {
  KernelProfile k = round_kernel();
  const double free_cycles = predict_hopper(round_device(), k).cycles;
  k.launch.active_warps_per_sm = 40.5;  // e.g. CUPTI's achieved occupancy
  const Prediction p = predict_hopper(round_device(), k);
  EXPECT_EQ(p.occupancy.n, 64);
  EXPECT_DOUBLE_EQ(p.cycles, free_cycles);
  ASSERT_FALSE(p.notes.empty());
}

TEST(Hopper, MeasuredTrafficOverridesTheDerivedOne) {
  KernelProfile k = round_kernel();
  k.dram_bytes_per_warp = 1024;
  const Prediction p = predict_hopper(round_device(), k);
  EXPECT_DOUBLE_EQ(p.t_dram_bandwidth, 64 * 1024 / 32.0);
  EXPECT_DOUBLE_EQ(p.t_l2_bandwidth, 512);  // still derived: 4 x 4 x 32 x 1.0
}

TEST(Hopper, SharedMemoryAndBankConflictsUseTheL1DataPath) {
  KernelProfile k = round_kernel();
  k.shared_inst_per_warp = 6;
  k.bank_conflicts_per_warp = 2;
  const Prediction p = predict_hopper(round_device(), k);
  EXPECT_DOUBLE_EQ(p.t_l1_data, 64 * (512 + 8 * 128) / 128.0);
}

// The issue's warning: in an occupancy sweep the older variants' N/MWP and #Rep cancel. Here a
// latency-bound kernel must get faster with more warps per SM (fewer waves of the same latency),
// and a bandwidth-heavy one must gain much less. N is set the way the validation sweep sets it:
// unused shared memory per block (228 KiB per SM, 1 KiB reserved per block on sm_90).
double cycles_at(KernelProfile k, int warps_per_sm) {
  const long long blocks_per_sm = warps_per_sm / 2;  // blocks of 64 threads
  k.launch.shared_memory_per_block_bytes = static_cast<int>((233472 / blocks_per_sm) / 128 * 128 - 1024);
  const Prediction p = predict_hopper(round_device(), k);
  EXPECT_EQ(p.occupancy.n, warps_per_sm);
  return p.cycles;
}

TEST(Hopper, OccupancySweepHasShape) {
  KernelProfile k = round_kernel();
  k.inst_per_warp = 20;
  k.sfu_inst_per_warp = 0;
  k.mlp = 1;
  k.launch.block = {64, 1, 1};
  k.launch.grid = {100 * 32, 1, 1};  // the same work at every N
  double previous = INFINITY;
  std::vector<double> cycles;
  for (int n : {8, 16, 24, 32, 48, 64}) {
    const double c = cycles_at(k, n);
    EXPECT_LE(c, previous) << n << " warps per SM";
    previous = c;
    cycles.push_back(c);
  }
  const double latency_gain = cycles.front() / cycles.back();
  EXPECT_GT(latency_gain, 4.0) << "latency-bound: 8 warps must be much slower than 64";
  // With 32x the DRAM traffic the bytes dominate each wave: more warps help far less.
  k.dram_bytes_per_warp = 32 * 384.0;
  const double bandwidth_gain = cycles_at(k, 8) / cycles_at(k, 64);
  EXPECT_LT(bandwidth_gain, 1.5);
  EXPECT_GT(bandwidth_gain, 1.0);
}

TEST(Hopper, NeedsTheMeasuredRates) {
  DeviceProfile d = round_device();
  d.l2_read_bandwidth_gbs.reset();
  d.fp32_dependent_latency_cycles.reset();
  try {
    predict_hopper(d, round_kernel());
    FAIL() << "expected ModelError";
  } catch (const ModelError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("latency_cycles.fp32_dependent, bandwidth_gbs.l2_read"), std::string::npos) << what;
    EXPECT_NE(what.find("warpmodel characterize"), std::string::npos) << what;
  }
}

// A characterize output carries the rates in its measurements block; a profile's own
// bandwidth_gbs wins over it.
TEST(Hopper, RatesFromCharacterizeMeasurements) {
  nlohmann::json j = to_json(round_device());
  j.erase("bandwidth_gbs");
  j["latency_cycles"].erase("fp32_dependent");
  j["measurements"] = {{"latency", {{"fp32_fma", {{"warps_1", {{"mean_cycles", 4.0}}}}}}},
                       {"bandwidth",
                        {{"dram_copy", {{"gbs", 3000.0}}},
                         {"l2_read", {{"gbs", 6400.0}}},
                         {"shared_read", {{"gbs", 12800.0}}}}}};
  DeviceProfile d = device_from_json(j, "characterize.json");
  EXPECT_EQ(d.fp32_dependent_latency_cycles, 4.0);
  EXPECT_EQ(d.dram_copy_bandwidth_gbs, 3000.0);
  EXPECT_FALSE(d.dram_read_bandwidth_gbs.has_value());
  j["bandwidth_gbs"] = {{"dram_copy", 3500.0}};
  d = device_from_json(j, "characterize.json");
  EXPECT_EQ(d.dram_copy_bandwidth_gbs, 3500.0);
  EXPECT_EQ(d.l2_read_bandwidth_gbs, 6400.0);
}

}  // namespace
}  // namespace warpmodel
