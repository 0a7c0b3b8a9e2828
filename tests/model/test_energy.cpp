// The launch energy (model/include/warpmodel/energy.hpp): equation E.1 on numbers worked by hand, the
// counts of E.2 from a kernel profile, and device.json's "energy" (top level, or characterize's
// measurements.energy.coefficients), its range checks and its round trip.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "warpmodel/energy.hpp"
#include "warpmodel/json_io.hpp"

namespace warpmodel {
namespace {

DeviceProfile::EnergyCoefficients coefficients() {
  DeviceProfile::EnergyCoefficients e;
  e.static_w = 60;
  e.pj_per_fp32_op = 10;
  e.pj_per_l2_byte = 5;
  e.pj_per_dram_byte = 100;
  return e;
}

TEST(LaunchEnergy, StaticPowerTimesTimePlusCountsTimesEnergies) {
  LaunchCounts c;
  c.seconds = 1e-3;
  c.fp32_ops = 1e9;
  c.l2_bytes = 2e8;
  c.dram_bytes = 1e8;
  const EnergyPrediction p = launch_energy(coefficients(), c);
  // 60 W x 1 ms = 60 mJ; 1e9 x 10 pJ = 10 mJ; 2e8 x 5 pJ = 1 mJ; 1e8 x 100 pJ = 10 mJ.
  EXPECT_NEAR(p.static_joules, 0.060, 1e-15);
  EXPECT_NEAR(p.dynamic_joules, 0.021, 1e-15);
  EXPECT_NEAR(p.joules, 0.081, 1e-15);
  ASSERT_EQ(p.terms.size(), 4u);
  EXPECT_EQ(p.terms[0].name, "static");
  EXPECT_EQ(p.terms[3].name, "dram");
  EXPECT_TRUE(p.left_out.empty());
}

TEST(LaunchEnergy, ACountWithoutACoefficientIsNamedNotPriced) {
  LaunchCounts c;
  c.seconds = 1e-3;
  c.fp64_ops = 1e9;      // no pj_per_fp64_op
  c.shared_bytes = 1e6;  // no pj_per_shared_byte
  const EnergyPrediction p = launch_energy(coefficients(), c);
  EXPECT_DOUBLE_EQ(p.joules, p.static_joules);
  EXPECT_EQ(p.left_out, (std::vector<std::string>{"fp64", "shared"}));
}

// E.3: above the board's power limit the prediction is the limit times the time; below it E.1 stands.
TEST(LaunchEnergy, CappedAtTheBoardsPowerLimit) {
  LaunchCounts c;
  c.seconds = 1e-3;
  c.fp32_ops = 1e9;
  c.l2_bytes = 2e8;
  c.dram_bytes = 1e8;  // E.1: 81 mJ in 1 ms, 81 W
  DeviceProfile::EnergyCoefficients e = coefficients();
  e.power_limit_w = 70;
  EnergyPrediction p = launch_energy(e, c);
  EXPECT_TRUE(p.at_power_limit);
  EXPECT_NEAR(p.joules, 0.070, 1e-15);
  EXPECT_NEAR(p.dynamic_joules, 0.010, 1e-15);  // what the limit leaves above 60 W
  EXPECT_NEAR(p.counted_dynamic_joules, 0.021, 1e-15);  // E.1's, kept
  EXPECT_NEAR(p.static_joules, 0.060, 1e-15);
  ASSERT_EQ(p.terms.size(), 4u);  // E.1's terms, for the breakdown
  e.power_limit_w = 90;
  p = launch_energy(e, c);
  EXPECT_FALSE(p.at_power_limit);
  EXPECT_NEAR(p.joules, 0.081, 1e-15);
}

TEST(LaunchEnergy, CountsFromTheKernelProfile) {
  KernelProfile k;
  k.fp_inst_per_warp = 10;
  k.shared_inst_per_warp = 2;
  k.mem_inst_per_warp = 3;
  k.transactions_per_request = 4;
  k.l2_miss_ratio = 0.5;
  LaunchCounts c = launch_counts(k, 1000, 2e-3);
  EXPECT_DOUBLE_EQ(c.seconds, 2e-3);
  EXPECT_DOUBLE_EQ(c.fp32_ops, 10 * 32 * 1000.0);
  EXPECT_DOUBLE_EQ(c.shared_bytes, 2 * 32 * 4 * 1000.0);
  EXPECT_DOUBLE_EQ(c.l2_bytes, 3 * 4 * 32 * 1000.0);    // derived from the requests
  EXPECT_DOUBLE_EQ(c.dram_bytes, 3 * 4 * 32 * 500.0);   // and the miss ratio
  k.l2_bytes_per_warp = 1000;
  k.dram_bytes_per_warp = 300;
  c = launch_counts(k, 1000, 2e-3);
  EXPECT_DOUBLE_EQ(c.l2_bytes, 1e6);  // measured traffic wins
  EXPECT_DOUBLE_EQ(c.dram_bytes, 3e5);
  // E.2b: counted data-pipe wavefronts (shared and the L1 of global loads) are the data pipe's bytes.
  k.l1_wavefronts_per_warp = 22;
  c = launch_counts(k, 1000, 2e-3);
  EXPECT_DOUBLE_EQ(c.shared_bytes, 22 * 128 * 1000.0);
}

TEST(LaunchEnergy, OtherExecutedInstructionsArePricedAsIntegerOperations) {
  KernelProfile k;
  k.inst_per_warp = 100;
  k.fp_inst_per_warp = 10;
  k.sfu_inst_per_warp = 1;
  k.mem_inst_per_warp = 3;
  k.shared_inst_per_warp = 2;
  k.local_load_inst_per_warp = 1;
  k.sync_inst_per_warp = 2;
  k.tensor_inst_per_warp = 1;
  // E.2c reads executed counts only: the SASS's static count of a loop is its body once.
  k.sources["instructions_per_warp.total"] = "sass: 100 static instructions, each executed once (static estimate)";
  EXPECT_DOUBLE_EQ(launch_counts(k, 1000, 1e-3).int32_ops, 0);
  k.sources["instructions_per_warp.total"] = "cupti: smsp__inst_executed.sum / smsp__warps_launched.sum = 100";
  const LaunchCounts c = launch_counts(k, 1000, 1e-3);
  EXPECT_DOUBLE_EQ(c.int32_ops, (100 - 10 - 1 - 3 - 2 - 1 - 2 - 1) * 32 * 1000.0);
  DeviceProfile::EnergyCoefficients e;
  e.static_w = 0;
  e.pj_per_int32_op = 12.0;
  EXPECT_DOUBLE_EQ(launch_energy(e, c).dynamic_joules, c.int32_ops * 12e-12);
  // More priced instructions than executed ones (counters from different replays): none left over.
  k.fp_inst_per_warp = 200;
  EXPECT_DOUBLE_EQ(launch_counts(k, 1000, 1e-3).int32_ops, 0);
}

nlohmann::json device_document() {
  return {{"schema", "warpmodel.device/1"},
          {"name", "test"},
          {"hardware",
           {{"compute_capability", "9.0"}, {"sm_count", 132}, {"sm_clock_mhz", 1980}, {"simd_width", 128},
            {"mem_peak_bandwidth_gbs", 3350}}},
          {"latency_cycles",
           {{"fp", 4}, {"l1_hit", 40}, {"l2_hit", 260}, {"dram", 600}, {"departure_delay_coalesced", 4}}}};
}

TEST(DeviceEnergy, ReadFromTheProfileOrFromCharacterizesRows) {
  nlohmann::json j = device_document();
  EXPECT_FALSE(device_from_json(j, "t").energy.has_value());  // absent: no energy predicted
  j["measurements"] = {{"energy", {{"coefficients", {{"static_w", 75.0}, {"pj_per_fp32_op", 1.5}, {"pj_per_dram_byte", 40.0}}}}}};
  DeviceProfile d = device_from_json(j, "t");
  ASSERT_TRUE(d.energy);
  EXPECT_EQ(d.energy->static_w, 75.0);
  EXPECT_EQ(d.energy->pj_per_fp32_op, 1.5);
  EXPECT_FALSE(d.energy->pj_per_l2_byte);
  EXPECT_NE(d.energy->source.find("characterize"), std::string::npos);
  EXPECT_FALSE(d.energy->power_limit_w);  // measured before the limit was read: no cap
  j["measurements"]["energy"]["board"] = {{"power_limit_w", 700.0}};
  EXPECT_EQ(device_from_json(j, "t").energy->power_limit_w, 700.0);
  j["measurements"]["energy"]["board"] = {{"power_limit_w", -1.0}};
  EXPECT_THROW(device_from_json(j, "t"), InputError);
  j["measurements"]["energy"].erase("board");
  // The top level wins, and the profile writes it back the same.
  j["energy"] = {{"static_w", 80.0}, {"pj_per_l2_byte", 4.0}, {"pj_per_int32_op", 2.5}, {"power_limit_w", 350.0},
                 {"source", "hand"}};
  d = device_from_json(j, "t");
  EXPECT_EQ(d.energy->static_w, 80.0);
  EXPECT_EQ(d.energy->pj_per_l2_byte, 4.0);
  const DeviceProfile again = device_from_json(to_json(d), "t");
  ASSERT_TRUE(again.energy);
  EXPECT_EQ(again.energy->static_w, 80.0);
  EXPECT_EQ(again.energy->pj_per_l2_byte, 4.0);
  EXPECT_EQ(again.energy->pj_per_int32_op, 2.5);
  EXPECT_EQ(again.energy->power_limit_w, 350.0);
  EXPECT_EQ(again.energy->source, "hand");
}

TEST(DeviceEnergy, ImplausibleValuesAreRefusedByName) {
  nlohmann::json j = device_document();
  j["energy"] = {{"static_w", 75.0}, {"pj_per_dram_byte", -3.0}};
  try {
    device_from_json(j, "dev.json");
    FAIL() << "a negative energy was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("pj_per_dram_byte"), std::string::npos) << e.what();
  }
  j["energy"] = {{"static_w", 75.0}, {"pj_per_flop", 3.0}};
  EXPECT_THROW(device_from_json(j, "dev.json"), InputError);  // unknown key
}

}  // namespace
}  // namespace warpmodel
