// compare-devices' model part (warpmodel/device_comparison.hpp) on two small hand-written profiles:
// values, ratios, units, spec and uncertainty by hand; what is left out; a field only one profile has.
#include <algorithm>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "warpmodel/device_comparison.hpp"
#include "warpmodel/json_io.hpp"
#include "warpmodel/thesis.hpp"

namespace warpmodel {
namespace {

using nlohmann::json;

// Shaped like characterize's device.json, a few fields of each kind.
const json kProfileA = json::parse(R"json({
  "schema": "warpmodel.device/1",
  "name": "GPU A (warpmodel characterize)",
  "hardware": {"compute_capability": "9.0", "sm_count": 100, "sm_clock_mhz": 1000, "simd_width": 128,
               "mem_peak_bandwidth_gbs": 2000},
  "latency_cycles": {"fp": 40, "l1_hit": 30, "l2_hit": 200, "dram": 500, "departure_delay_coalesced": 20},
  "global_load_latency_by_warps": [500, 501],
  "hopper_calibration": {"scale": 1.5},
  "measurements": {
    "note": "text is not a quantity",
    "bandwidth": {"dram_read": {"gbs": 1800, "u_gbs": 3, "n": 50, "spec_gbs": 2000, "fraction_of_spec": 0.9,
                                "bytes_per_launch": 1024, "spec_source": "runtime"}},
    "latency": {"l1_hit": {"sass": "valid", "warps_1": {"mean_cycles": 30, "mean_ns": 30, "u_cycles": 0.5,
                                                          "u_ns": 0.5, "stddev_cycles": 1, "n": 50}}},
    "barrier": {"cycles_32_warps": 40, "cycles_by_warps": [10, 20, 40], "sass": "valid"},
    "throughput": {"fp32_fma": {"ops_per_clk_per_sm": 120, "u": 0.25, "n": 50, "spec_ops_per_clk_per_sm": 128,
                                "fraction_of_spec": 0.9375}},
    "l2_near_far": {"near_cycles": {"mean": 250, "u": 0.1, "n": 1000, "median": 251, "stddev": 8}}
  }
})json");

// An older profile of another GPU: no barrier, a launch table A lacks, the short bandwidth_gbs block.
const json kProfileB = json::parse(R"json({
  "schema": "warpmodel.device/1",
  "name": "GPU B",
  "hardware": {"compute_capability": "8.0", "sm_count": 50, "sm_clock_mhz": 1500, "simd_width": 64,
               "mem_peak_bandwidth_gbs": 3000},
  "latency_cycles": {"fp": 20, "l1_hit": 33, "l2_hit": 250, "dram": 600, "departure_delay_coalesced": 10},
  "bandwidth_gbs": {"dram_read": 2500},
  "measurements": {
    "bandwidth": {"dram_read": {"gbs": 2700, "u_gbs": 6, "spec_gbs": 3000}},
    "latency": {"l1_hit": {"warps_1": {"mean_cycles": 33, "mean_ns": 22, "u_cycles": 0.25}}},
    "throughput": {"fp32_fma": {"ops_per_clk_per_sm": 60, "u": 0.5, "spec_ops_per_clk_per_sm": 64}},
    "launch": {"empty_kernel_us": 5, "empty_kernel_u_us": 0.2, "block_dispatch_cycles": 150,
               "block_dispatch_u_cycles": 2},
    "l2_near_far": {"near_cycles": {"mean": 240, "u": 0.2}}
  }
})json");

DeviceComparison compare_a_b() {
  return compare_devices({{"a/device.json", kProfileA}, {"b/device.json", kProfileB}});
}

const ComparedQuantity& row(const DeviceComparison& c, const std::string& quantity) {
  const auto it = std::find_if(c.quantities.begin(), c.quantities.end(),
                               [&](const ComparedQuantity& q) { return q.quantity == quantity; });
  if (it == c.quantities.end()) throw std::runtime_error("no row " + quantity);
  return *it;
}

bool has_row(const DeviceComparison& c, const std::string& quantity) {
  return std::any_of(c.quantities.begin(), c.quantities.end(),
                     [&](const ComparedQuantity& q) { return q.quantity == quantity; });
}

// What `validate --measure` compares with the GPU it runs on.
TEST(DeviceComparison, ProfileGpuNameDropsTheTrailingNote) {
  EXPECT_EQ(profile_gpu_name("NVIDIA H200 (warpmodel characterize)"), "NVIDIA H200");
  EXPECT_EQ(profile_gpu_name("NVIDIA H100 80GB HBM3"), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(profile_gpu_name("Tesla K40 (thesis, (table 4.1))"), "Tesla K40");
  EXPECT_EQ(profile_gpu_name(""), "");
}

TEST(DeviceComparison, DevicesAreNamedShortly) {
  const DeviceComparison c = compare_a_b();
  ASSERT_EQ(c.devices.size(), 2u);
  EXPECT_EQ(c.devices[0].name, "GPU A");  // " (warpmodel characterize)" dropped
  EXPECT_EQ(c.devices[0].profile_name, "GPU A (warpmodel characterize)");
  EXPECT_EQ(c.devices[0].source, "a/device.json");
  EXPECT_EQ(c.devices[0].compute_capability, "9.0");
  EXPECT_EQ(c.devices[1].name, "GPU B");
}

// Each device's JSON entry says where its numbers came from (a profile without a provenance: empty).
TEST(DeviceComparison, EachDeviceCarriesItsProfilesProvenance) {
  json a = kProfileA;
  a["provenance"] = {{"gpu", "GPU A"}, {"driver", "580"}, {"cuda_runtime", "13000"}, {"date", "2026-12-06"},
                     {"commit", "abc1234"}, {"command", "warpmodel characterize --output a"}, {"note", "left out"}};
  const json j = to_json(compare_devices({{"a/device.json", a}, {"b/device.json", kProfileB}}));
  const json& pa = j.at("devices").at(0).at("provenance");
  EXPECT_EQ(pa.at("commit"), "abc1234");
  EXPECT_EQ(pa.at("command"), "warpmodel characterize --output a");
  EXPECT_EQ(pa.at("sm_clock_mhz"), 1000);
  EXPECT_FALSE(pa.contains("note"));
  EXPECT_TRUE(j.at("devices").at(1).at("provenance").empty());
}

TEST(DeviceComparison, ValuesAndRatiosByHand) {
  const DeviceComparison c = compare_a_b();
  const ComparedQuantity& dram = row(c, "latency_cycles.dram");
  EXPECT_EQ(dram.unit, "cycles");
  EXPECT_EQ(dram.values[0], 500);
  EXPECT_EQ(dram.values[1], 600);
  EXPECT_DOUBLE_EQ(*dram.ratio(1), 1.2);   // 600 / 500
  EXPECT_DOUBLE_EQ(*dram.ratio(0), 1.0);
  EXPECT_TRUE(dram.in_every_profile());
  EXPECT_DOUBLE_EQ(*row(c, "hardware.sm_count").ratio(1), 0.5);       // 50 / 100
  EXPECT_DOUBLE_EQ(*row(c, "latency_cycles.fp").ratio(1), 0.5);       // 20 / 40
  EXPECT_DOUBLE_EQ(*row(c, "hardware.sm_clock_mhz").ratio(1), 1.5);   // 1500 / 1000
  EXPECT_EQ(row(c, "hardware.sm_clock_mhz").unit, "MHz");
}

TEST(DeviceComparison, SpecAndUncertaintyBesideTheValue) {
  const DeviceComparison c = compare_a_b();
  const ComparedQuantity& bw = row(c, "measurements.bandwidth.dram_read.gbs");
  EXPECT_EQ(bw.unit, "GB/s");
  EXPECT_EQ(bw.specs[0], 2000);
  EXPECT_EQ(bw.specs[1], 3000);
  EXPECT_EQ(bw.uncertainties[0], 3);
  EXPECT_EQ(bw.uncertainties[1], 6);
  EXPECT_DOUBLE_EQ(*bw.ratio(1), 1.5);  // 2700 / 1800
  const ComparedQuantity& fma = row(c, "measurements.throughput.fp32_fma.ops_per_clk_per_sm");
  EXPECT_EQ(fma.unit, "ops/clk/SM");
  EXPECT_EQ(fma.specs[0], 128);
  EXPECT_EQ(fma.uncertainties[0], 0.25);  // "u" of the rate the entry was reduced in
  EXPECT_DOUBLE_EQ(*fma.ratio(1), 0.5);
  EXPECT_EQ(row(c, "measurements.latency.l1_hit.warps_1.mean_cycles").uncertainties[1], 0.25);  // u_cycles
  EXPECT_EQ(row(c, "measurements.l2_near_far.near_cycles.mean").uncertainties[0], 0.1);         // u of a mean
  EXPECT_EQ(row(c, "measurements.l2_near_far.near_cycles.median").uncertainties[0], std::nullopt);
  // The short bandwidth_gbs block has no spec of its own: the profile's peak DRAM bandwidth.
  const ComparedQuantity& short_bw = row(c, "bandwidth_gbs.dram_read");
  EXPECT_EQ(short_bw.specs[1], 3000);
  EXPECT_FALSE(short_bw.values[0].has_value());
  EXPECT_FALSE(row(c, "hardware.mem_peak_bandwidth_gbs").specs[0].has_value());  // not its own spec
}

TEST(DeviceComparison, LeavesOutWhatIsNotAMeasuredQuantity) {
  const DeviceComparison c = compare_a_b();
  for (const char* q : {"measurements.bandwidth.dram_read.u_gbs", "measurements.bandwidth.dram_read.n",
                        "measurements.bandwidth.dram_read.spec_gbs", "measurements.bandwidth.dram_read.fraction_of_spec",
                        "measurements.bandwidth.dram_read.bytes_per_launch", "measurements.latency.l1_hit.warps_1.mean_ns",
                        "measurements.latency.l1_hit.warps_1.stddev_cycles", "measurements.latency.l1_hit.warps_1.u_cycles",
                        "measurements.throughput.fp32_fma.u", "measurements.launch.empty_kernel_u_us",
                        "measurements.l2_near_far.near_cycles.stddev", "measurements.note", "hardware.compute_capability",
                        "hopper_calibration.scale", "global_load_latency_by_warps"})
    EXPECT_FALSE(has_row(c, q)) << q;
  for (const auto& q : c.quantities) EXPECT_EQ(q.quantity.find("cycles_by_warps"), std::string::npos) << q.quantity;
}

TEST(DeviceComparison, FieldsOfOneProfileOnlyAreKeptAndMarked) {
  const DeviceComparison c = compare_a_b();
  const ComparedQuantity& barrier = row(c, "measurements.barrier.cycles_32_warps");
  EXPECT_EQ(barrier.present_in(), std::vector<std::size_t>{0});
  EXPECT_FALSE(barrier.in_every_profile());
  EXPECT_FALSE(barrier.ratio(1).has_value());
  const ComparedQuantity& launch = row(c, "measurements.launch.empty_kernel_us");
  EXPECT_EQ(launch.present_in(), std::vector<std::size_t>{1});
  EXPECT_EQ(launch.unit, "us");
  EXPECT_EQ(launch.uncertainties[1], 0.2);  // empty_kernel_u_us
  EXPECT_EQ(row(c, "measurements.launch.block_dispatch_cycles").uncertainties[1], 2);

  const auto tables = device_comparison_tables(c);
  ASSERT_EQ(tables.size(), 3u);
  EXPECT_EQ(tables[0].title.rfind("In every profile (", 0), 0u) << tables[0].title;
  EXPECT_EQ(tables[1].title, "Only in: GPU A (2 quantities)");  // the barrier, the near L2 median
  EXPECT_EQ(tables[2].title.rfind("Only in: GPU B (", 0), 0u) << tables[2].title;
  EXPECT_EQ(tables[1].table.headers, (std::vector<std::string>{"quantity", "unit", "GPU A"}));
  EXPECT_EQ(tables[1].table.rows[0], (std::vector<std::string>{"measurements.barrier.cycles_32_warps", "cycles", "40"}));
  // In every profile: values, the ratio to the first, the spec columns.
  EXPECT_EQ(tables[0].table.headers, (std::vector<std::string>{"quantity", "unit", "GPU A", "GPU B", "GPU B / GPU A",
                                                               "spec GPU A", "spec GPU B"}));
  const auto& rows = tables[0].table.rows;
  const auto dram = std::find_if(rows.begin(), rows.end(), [](const auto& r) { return r[0] == "latency_cycles.dram"; });
  ASSERT_NE(dram, rows.end());
  EXPECT_EQ(*dram, (std::vector<std::string>{"latency_cycles.dram", "cycles", "500", "600", "1.2", "-", "-"}));

  const Table flat = device_comparison_flat_table(c);
  EXPECT_EQ(flat.headers.back(), "present_in");
  EXPECT_EQ(flat.rows.size(), c.quantities.size());
  for (std::size_t i = 0; i < c.quantities.size(); ++i)
    EXPECT_EQ(flat.rows[i].back(), c.quantities[i].in_every_profile() ? "all"
                                   : c.quantities[i].present_in()[0] == 0 ? "GPU A" : "GPU B");
}

TEST(DeviceComparison, ListsSectionsInOrderAndPathsSorted) {
  const DeviceComparison c = compare_a_b();
  auto rank = [](const std::string& q) {
    for (std::size_t i = 0; const char* s : {"hardware.", "latency_cycles.", "bandwidth_gbs.", "measurements."}) {
      if (q.rfind(s, 0) == 0) return i;
      ++i;
    }
    return std::size_t{99};
  };
  for (std::size_t i = 1; i < c.quantities.size(); ++i) {
    const auto& a = c.quantities[i - 1].quantity;
    const auto& b = c.quantities[i].quantity;
    EXPECT_TRUE(rank(a) < rank(b) || (rank(a) == rank(b) && a < b)) << a << " before " << b;
  }
}

TEST(DeviceComparison, UncertaintyColumnsOnRequest) {
  const auto tables = device_comparison_tables(compare_a_b(), true);
  const auto& h = tables[0].table.headers;
  EXPECT_NE(std::find(h.begin(), h.end(), "u GPU A"), h.end());
  EXPECT_NE(std::find(h.begin(), h.end(), "u GPU B"), h.end());
}

TEST(DeviceComparison, JsonHasNullWhereAProfileLacksAQuantity) {
  const json j = to_json(compare_a_b());
  EXPECT_EQ(j["schema"], kDeviceComparisonSchema);
  EXPECT_EQ(j["ratios_to"], "GPU A");
  ASSERT_EQ(j["devices"].size(), 2u);
  bool seen = false;
  for (const auto& q : j["quantities"]) {
    if (q["quantity"] != "measurements.barrier.cycles_32_warps") continue;
    seen = true;
    EXPECT_EQ(q["values"][0], 40);
    EXPECT_TRUE(q["values"][1].is_null());
    EXPECT_TRUE(q["ratios"][1].is_null());
    EXPECT_EQ(q["present_in"], json::array({"GPU A"}));
    EXPECT_FALSE(q["in_every_profile"].get<bool>());
  }
  EXPECT_TRUE(seen);
}

TEST(DeviceComparison, RendersEveryTableFormat) {
  const DeviceComparison c = compare_a_b();
  const std::string md = render_device_comparison(c, TableFormat::Markdown);
  EXPECT_EQ(md.rfind("# Device profiles compared\n", 0), 0u);
  EXPECT_NE(md.find("## Only in: GPU A (2 quantities)"), std::string::npos);
  EXPECT_NE(md.find("| latency_cycles.dram | cycles | 500 | 600 | 1.2 | - | - |"), std::string::npos) << md;
  const std::string text = render_device_comparison(c, TableFormat::Text);
  EXPECT_NE(text.find("GPU A: a/device.json (\"GPU A (warpmodel characterize)\", compute capability 9.0)"),
            std::string::npos) << text;
  const std::string csv = render_device_comparison(c, TableFormat::Csv);
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "quantity,unit,GPU A,GPU B,GPU B / GPU A,spec GPU A,spec GPU B,present_in");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), static_cast<long>(c.quantities.size() + 1));
}

TEST(DeviceComparison, UnitsFromTheNames) {
  EXPECT_EQ(quantity_unit("latency_cycles.departure_delay_coalesced"), "cycles");
  EXPECT_EQ(quantity_unit("measurements.l2_near_far.near_cycles.mean"), "cycles");
  EXPECT_EQ(quantity_unit("measurements.barrier.cycles_32_warps"), "cycles");
  EXPECT_EQ(quantity_unit("hardware.mem_peak_bandwidth_gbs"), "GB/s");
  EXPECT_EQ(quantity_unit("measurements.launch.back_to_back_us"), "us");
  EXPECT_EQ(quantity_unit("measurements.capacity.l2_bytes_detected"), "bytes");
  EXPECT_EQ(quantity_unit("measurements.throughput.global_store_coalesced.bytes_per_clk_per_sm"), "bytes/clk/SM");
  EXPECT_EQ(quantity_unit("measurements.throughput.global_atomic_distinct.ops_per_clk"), "ops/clk");
  EXPECT_EQ(quantity_unit("measurements.wall_seconds"), "s");
  EXPECT_EQ(quantity_unit("measurements.l2_near_far.near_fraction_pooled"), "");
  EXPECT_EQ(quantity_unit("hardware.sm_count"), "");
}

TEST(DeviceComparison, SameNamesAreToldApartByFolder) {
  const DeviceComparison c = compare_devices({{"run1/device.json", kProfileA}, {"run2/device.json", kProfileA}});
  EXPECT_EQ(c.devices[0].name, "GPU A (run1)");
  EXPECT_EQ(c.devices[1].name, "GPU A (run2)");
  for (const auto& q : c.quantities) {
    EXPECT_TRUE(q.in_every_profile()) << q.quantity;
    EXPECT_DOUBLE_EQ(*q.ratio(1), 1.0) << q.quantity;
  }
  const DeviceComparison named = compare_devices({{"x.json", kProfileA}, {"y.json", kProfileB}}, {"first", "second"});
  EXPECT_EQ(named.devices[1].name, "second");
}

TEST(DeviceComparison, RefusesWhatItCannotCompare) {
  EXPECT_THROW(compare_devices({{"a/device.json", kProfileA}}), InputError);
  json kernel = json::parse(R"({"schema": "warpmodel.kernel/1", "name": "k"})");
  try {
    compare_devices({{"a/device.json", kProfileA}, {"k.json", kernel}});
    FAIL() << "a kernel profile was compared";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("k.json: schema 'warpmodel.kernel/1'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(compare_devices({{"a", kProfileA}, {"b", json::array()}}), InputError);
  EXPECT_THROW(compare_devices({{"a", kProfileA}, {"b", kProfileB}}, {"only one"}), InputError);
}

// The thesis's K40 (typed from the thesis) against a profile `characterize` wrote: the model's
// required fields agree, each profile's own tables are listed as its own.
TEST(DeviceComparison, ThesisK40AgainstACharacterizeProfile) {
  std::ifstream in(std::string(WARPMODEL_SOURCE_DIR) + "/results/h100-80gb-hbm3/device.json");
  std::stringstream text;
  text << in.rdbuf();
  const json h100 = json::parse(text.str());
  const DeviceComparison c = compare_devices({{"results/h100-80gb-hbm3/device.json", h100},
                                              {"model/data/k40-thesis.device.json", json::parse(thesis_k40_device_json())}});
  EXPECT_EQ(c.devices[0].name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(c.devices[1].name, "Tesla K40");
  EXPECT_EQ(c.devices[1].compute_capability, "3.5");
  const ComparedQuantity& dram = row(c, "latency_cycles.dram");
  EXPECT_EQ(dram.values[1], 399);
  // the ratio to the first profile's measured value (whatever the last characterize run measured)
  EXPECT_NEAR(*dram.ratio(1), 399 / h100.at("latency_cycles").at("dram").get<double>(), 1e-12);
  EXPECT_NEAR(*row(c, "hardware.sm_count").ratio(1), 15.0 / 132, 1e-12);
  for (const char* q : {"hardware.sm_clock_mhz", "hardware.simd_width", "hardware.mem_peak_bandwidth_gbs",
                        "latency_cycles.fp", "latency_cycles.l1_hit", "latency_cycles.l2_hit",
                        "latency_cycles.departure_delay_coalesced"})
    EXPECT_TRUE(row(c, q).in_every_profile()) << q;
  EXPECT_EQ(row(c, "measurements.table_4_3.fp32_div.warps_32").present_in(), std::vector<std::size_t>{1});
  EXPECT_EQ(row(c, "measurements.launch.wave_cycles").present_in(), std::vector<std::size_t>{0});
  EXPECT_FALSE(has_row(c, "measurements.table_4_4_uncertainty.global_load.warps_1"));  // uncertainties
}

}  // namespace
}  // namespace warpmodel
