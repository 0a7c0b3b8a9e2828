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
  EXPECT_DOUBLE_EQ(p.t_mem_latency, 400);   // H.6: 4 / 4 x 400
  EXPECT_DOUBLE_EQ(p.t_l1_data, 256);       // H.7: 64 x 512 B / 128
  EXPECT_DOUBLE_EQ(p.t_l2_bandwidth, 512);  // H.8: 64 x 512 B / 64
  EXPECT_DOUBLE_EQ(p.t_dram_bandwidth, 512);  // H.9: 64 x 256 B / 32
  EXPECT_DOUBLE_EQ(p.t_wave, 1600);
  EXPECT_EQ(p.bound, "issue");
  // partial wave, 16 warps: issue 400, dependent 200, memory latency 400 -> 400
  EXPECT_DOUBLE_EQ(p.t_last_wave, 400);
  EXPECT_DOUBLE_EQ(p.cycles, 2000);  // H.12: 1 x 1600 + 400
  EXPECT_DOUBLE_EQ(p.seconds, 2e-6);
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
  EXPECT_DOUBLE_EQ(p.t_wave, 768);
  EXPECT_EQ(p.bound, "dram bandwidth");
  EXPECT_DOUBLE_EQ(p.t_last_wave, 500);  // 16 warps: DRAM 192 < memory latency 500
  EXPECT_DOUBLE_EQ(p.cycles, 1268);
  EXPECT_EQ(p.model_case, ModelCase::MemoryBound);
}

TEST(Hopper, CalibrationAndBarriers) {
  DeviceProfile d = round_device();
  d.hopper_calibration = DeviceProfile::HopperCalibration{1000, 2, 10, "test"};
  KernelProfile k = round_kernel();
  k.inst_per_warp = 20;
  k.sfu_inst_per_warp = 0;
  k.l2_miss_ratio = 0.75;
  k.sync_inst_per_warp = 3;
  const Prediction p = predict_hopper(d, k);
  EXPECT_DOUBLE_EQ(p.t_wave, 798);       // H.11: 768 + 3 x 10
  EXPECT_DOUBLE_EQ(p.t_last_wave, 530);  // 500 + 3 x 10
  EXPECT_DOUBLE_EQ(p.cycles, 1000 + 2 * (798 + 530));
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
// and a bandwidth-bound one must level off once the bandwidth is reached.
TEST(Hopper, OccupancySweepHasShape) {
  const DeviceProfile d = round_device();
  KernelProfile k = round_kernel();
  k.inst_per_warp = 20;
  k.sfu_inst_per_warp = 0;
  k.mlp = 1;
  k.launch.grid = {100 * 64, 1, 1};  // the same work at every N
  k.launch.block = {32, 1, 1};
  double previous = INFINITY;
  std::vector<double> cycles;
  for (int n : {8, 16, 24, 32, 48, 64}) {
    k.launch.active_warps_per_sm = n;
    const double c = predict_hopper(d, k).cycles;
    EXPECT_LE(c, previous) << n << " warps per SM";
    previous = c;
    cycles.push_back(c);
  }
  EXPECT_GT(cycles.front() / cycles.back(), 2.5) << "latency-bound: 8 warps must be much slower than 64";
  // with 8x the traffic the same sweep hits the DRAM bound and flattens
  k.dram_bytes_per_warp = 8 * 384.0;
  k.launch.active_warps_per_sm = 32;
  const double at32 = predict_hopper(d, k).cycles;
  k.launch.active_warps_per_sm = 64;
  const double at64 = predict_hopper(d, k).cycles;
  EXPECT_NEAR(at32 / at64, 1.0, 0.02);
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
