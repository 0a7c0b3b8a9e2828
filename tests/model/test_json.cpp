// JSON input: round trips, one-line errors naming file and field, and a fuzz-style test that
// feeds random, mutated and truncated JSON: every outcome is a profile or an InputError.
#include <random>

#include <gtest/gtest.h>

#include "random_profiles.hpp"
#include "warpmodel/json_io.hpp"
#include "warpmodel/model.hpp"
#include "warpmodel/thesis.hpp"

namespace warpmodel {
namespace {

using nlohmann::json;

json k40_device() { return json::parse(thesis_k40_device_json()); }
// A valid sm_90 device profile with the hopper rates (the measurement tests add to it).
DeviceProfile round_trip_base() {
  std::mt19937 rng(3);
  DeviceProfile d = testing::random_device(rng);
  d.cc_major = 9;
  d.cc_minor = 0;
  d.limits = arch_limits_for(9, 0);
  return d;
}
json order2_kernel() { return json::parse(thesis_order2_kernel_json()); }

std::string device_error(const json& j) {
  try {
    device_from_json(j, "dev.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::string kernel_error(const json& j) {
  try {
    kernel_from_json(j, "kern.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Json, RoundTripPreservesEveryField) {
  std::mt19937 rng(42);
  for (int i = 0; i < 200; ++i) {
    const DeviceProfile d = testing::random_device(rng);
    const KernelProfile k = testing::random_kernel(rng, d);
    const DeviceProfile d2 = device_from_json(to_json(d), "rt");
    const KernelProfile k2 = kernel_from_json(to_json(k), "rt");
    EXPECT_EQ(to_json(d2), to_json(d));
    EXPECT_EQ(to_json(k2), to_json(k));
    for (ModelVariant v : all_variants()) EXPECT_DOUBLE_EQ(predict(v, d2, k2).cycles, predict(v, d, k).cycles);
  }
}

// H.12b's inputs: the measured counter-range overhead in hopper_calibration and the kernel's timing
// flag survive a round trip; an overhead outside 0 .. 1e5 ns is one line naming the field.
TEST(Json, CounterRangeOverheadAndTiming) {
  DeviceProfile d = round_trip_base();
  d.hopper_calibration = DeviceProfile::HopperCalibration{1000, 1.1, 10, 5, 0.5, "test"};
  d.hopper_calibration->counter_range_overhead_ns = 1850;
  const json dj = to_json(d);
  EXPECT_EQ(dj["hopper_calibration"]["counter_range_overhead_ns"], 1850);
  EXPECT_EQ(device_from_json(dj, "rt").hopper_calibration->counter_range_overhead_ns, 1850);
  d.hopper_calibration->counter_range_overhead_ns = 0;  // not measured: not written
  EXPECT_FALSE(to_json(d)["hopper_calibration"].contains("counter_range_overhead_ns"));
  json bad = dj;
  bad["hopper_calibration"]["counter_range_overhead_ns"] = -5;
  EXPECT_NE(device_error(bad).find("counter_range_overhead_ns"), std::string::npos) << device_error(bad);
  std::mt19937 rng(5);
  KernelProfile k = testing::random_kernel(rng, d);
  k.timed_by_counter_range = true;
  EXPECT_TRUE(kernel_from_json(to_json(k), "rt").timed_by_counter_range);
  json kj = to_json(k);
  kj["launch"]["timed_by_counter_range"] = "yes";
  EXPECT_NE(kernel_error(kj).find("timed_by_counter_range"), std::string::npos) << kernel_error(kj);
}

// The tensor and cluster fields (hopper H.17, H.18) survive a round trip, characterize's measurement
// names fill them, and bad values are one line naming the field.
TEST(Json, TensorAndClusterFields) {
  std::mt19937 rng(7);
  DeviceProfile d = testing::random_device(rng);
  d.sm_count = 132;
  d.sms_per_gpc = {18, 18, 16, 16, 16, 16, 16, 16};
  d.tensor_flops_per_clock_per_sm = {{"fp16", 4096}, {"fp64", 256}};
  d.mma_sync_flops_per_clock_per_sm = {{"fp16", 2273}};
  d.cluster_barrier_latency_cycles = 380;
  d.dsmem_latency_cycles = 210;
  d.dsmem_bandwidth_gbs = 3300;
  const DeviceProfile d2 = device_from_json(to_json(d), "rt");
  EXPECT_EQ(to_json(d2), to_json(d));
  EXPECT_EQ(d2.sms_per_gpc, d.sms_per_gpc);
  EXPECT_EQ(d2.tensor_flops_per_clock_per_sm.at("fp16"), 4096);
  EXPECT_EQ(*d2.cluster_barrier_latency_cycles, 380);

  KernelProfile k = testing::random_kernel(rng, d);
  k.launch.cluster = Dim3{16, 1, 1};
  k.tensor_flops_per_warp = {{"bf16", 1.5e6}};
  k.mma_sync_flops_per_warp = {{"bf16", 0.5e6}};
  k.tensor_inst_per_warp = 366;
  k.cluster_barrier_waits_per_warp = 2;
  k.remote_shared_waits_per_warp = 2;
  k.dsmem_bytes_per_warp = 1792;
  const KernelProfile k2 = kernel_from_json(to_json(k), "rt");
  EXPECT_EQ(to_json(k2), to_json(k));
  EXPECT_EQ(*k2.launch.cluster, (Dim3{16, 1, 1}));

  // characterize's measurement block: the tensor rates, the cluster latencies and DSMEM bandwidth.
  json m = to_json(round_trip_base());
  // (the layout ubench/writers.cpp writes: measurements.tensor_cores.<op>.<type>, measurements.cluster)
  m["measurements"] = {
      {"tensor_cores", {{"wgmma", {{"bf16", {{"ops_per_clk_per_sm", 4000}}}}},
                        {"mma_sync", {{"bf16", {{"ops_per_clk_per_sm", 2000}}}, {"s8", {{"ops_per_clk_per_sm", 7000}}}}}}},
      {"cluster", {{"barrier", {{"cluster_2", {{"latency_cycles", 390}}}, {"cluster_16", {{"latency_cycles", 900}}}}},
                   {"dsmem_load", {{"cluster_2", {{"latency_cycles", 205}}}}},
                   {"dsmem_read", {{"cluster_2", {{"gbs", 3000}}}}}}}};
  const DeviceProfile from_measurements = device_from_json(m, "m.json");
  EXPECT_EQ(from_measurements.tensor_flops_per_clock_per_sm.at("bf16"), 4000) << "the faster of wgmma and mma.sync";
  EXPECT_EQ(from_measurements.tensor_flops_per_clock_per_sm.at("int8"), 7000);
  EXPECT_EQ(from_measurements.tensor_flops_per_clock_per_sm.count("fp16"), 0u);
  EXPECT_EQ(from_measurements.mma_sync_flops_per_clock_per_sm.at("bf16"), 2000) << "mma.sync's own rate, kept apart";
  EXPECT_EQ(from_measurements.mma_sync_flops_per_clock_per_sm.at("int8"), 7000);
  EXPECT_EQ(*from_measurements.cluster_barrier_latency_cycles, 390);
  EXPECT_EQ(*from_measurements.dsmem_latency_cycles, 205);
  EXPECT_EQ(*from_measurements.dsmem_bandwidth_gbs, 3000);

  json bad = to_json(d);
  bad["hardware"]["sms_per_gpc"] = {18, 18, 16};
  EXPECT_NE(device_error(bad).find("field 'hardware.sms_per_gpc': expected an array of at most 64 positive integers "
                                   "(the SMs of each GPC) adding up to sm_count (132)"),
            std::string::npos)
      << device_error(bad);
  bad = to_json(d);
  bad["tensor_flops_per_clock_per_sm"] = {{"fp17", 4096}};
  EXPECT_NE(device_error(bad).find("field 'tensor_flops_per_clock_per_sm.fp17': unknown field (did you mean 'fp16'?)"),
            std::string::npos)
      << device_error(bad);
  json kb = to_json(k);
  kb["launch"]["cluster"] = json::array({64, 1, 1});
  EXPECT_NE(kernel_error(kb).find("field 'launch.cluster'"), std::string::npos) << kernel_error(kb);
  kb = to_json(k);
  kb["tensor_flops_per_warp"] = {{"fp16", -1}};
  EXPECT_NE(kernel_error(kb).find("field 'tensor_flops_per_warp.fp16'"), std::string::npos) << kernel_error(kb);
  kb = to_json(k);
  kb["mma_sync_flops_per_warp"] = {{"bf16", 2e6}};  // more than all of the warp's bf16 MMAs
  EXPECT_NE(kernel_error(kb).find("field 'mma_sync_flops_per_warp.bf16': expected at most tensor_flops_per_warp.bf16"),
            std::string::npos)
      << kernel_error(kb);
}

TEST(Json, ErrorsNameFileFieldAndExpectation) {
  json d = k40_device();
  d["latency_cycles"].erase("dram");
  EXPECT_EQ(device_error(d), "dev.json: field 'latency_cycles.dram': missing field (expected a number of cycles in [0.1, 100000])");

  d = k40_device();
  d["hardware"]["sm_count"] = -15;
  EXPECT_EQ(device_error(d), "dev.json: field 'hardware.sm_count': expected an integer in [1, 4096], got -15");

  d = k40_device();
  d["hardware"]["sm_count"] = "15";
  EXPECT_EQ(device_error(d), "dev.json: field 'hardware.sm_count': expected an integer in [1, 4096], got \"15\"");

  d = k40_device();
  d["hardware"]["sm_cuont"] = 15;
  EXPECT_EQ(device_error(d), "dev.json: field 'hardware.sm_cuont': unknown field (did you mean 'sm_count'?)");

  d = k40_device();
  d["hardware"]["compute_capability"] = "2.0";
  EXPECT_NE(device_error(d).find("field 'hardware.compute_capability': unknown compute capability 2.0"),
            std::string::npos);

  json k = order2_kernel();
  k["instructions_per_warp"]["total"] = 0;
  EXPECT_EQ(kernel_error(k), "kern.json: field 'instructions_per_warp.total': expected a positive number, got 0");

  k = order2_kernel();
  k["memory"]["l2_miss_ratio"] = 1.5;
  EXPECT_EQ(kernel_error(k), "kern.json: field 'memory.l2_miss_ratio': expected a ratio between 0 and 1, got 1.5");

  k = order2_kernel();
  k["instructions_per_warp"]["memory"] = 100;
  EXPECT_NE(kernel_error(k).find("'instructions_per_warp.memory': expected at most"), std::string::npos);

  k = order2_kernel();
  k["launch"]["block"] = {8, 0, 4};
  EXPECT_NE(kernel_error(k).find("'launch.block': expected a positive integer or [x, y, z]"), std::string::npos);

  k = order2_kernel();
  k["schema"] = "warpmodel.device/1";
  EXPECT_NE(kernel_error(k).find("field 'schema'"), std::string::npos);

  EXPECT_EQ(kernel_error(json::array()), "kern.json: field '(top level)': expected a JSON object, got []");
}

TEST(Json, MalformedTextAndUnreadableFiles) {
  try {
    parse_json_text("{\"name\": ", "x.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("x.json: not valid JSON: parse error", 0), 0u) << e.what();
  }
  try {
    load_device_profile("/nonexistent/dev.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "/nonexistent/dev.json: cannot read the file (does it exist and is it readable?)");
  }
}

json random_scalar(std::mt19937& rng) {
  switch (std::uniform_int_distribution<int>(0, 7)(rng)) {
    case 0: return nullptr;
    case 1: return -1;
    case 2: return 0;
    case 3: return 1e308;
    case 4: return "text";
    case 5: return json::array({1, 2});
    case 6: return json::object();
    default: return std::uniform_real_distribution<double>(-10, 1000)(rng);
  }
}

// Replace, delete or add one field somewhere in the tree.
void mutate(json& j, std::mt19937& rng) {
  json* node = &j;
  for (int depth = 0; depth < 3 && node->is_object() && !node->empty(); ++depth) {
    auto it = node->begin();
    std::advance(it, std::uniform_int_distribution<std::size_t>(0, node->size() - 1)(rng));
    if (!it->is_structured() || rng() % 2) {
      switch (rng() % 3) {
        case 0: *it = random_scalar(rng); return;
        case 1: node->erase(it.key()); return;
        default: (*node)["extra_" + std::to_string(rng() % 5)] = random_scalar(rng); return;
      }
    }
    node = &*it;
  }
  *node = random_scalar(rng);
}

// Each outcome: a valid profile (which the model must then evaluate without crashing) or one
// InputError line naming the input. Never another exception, never a crash.
template <typename Load>
void fuzz(const json& valid, Load load, unsigned seed) {
  std::mt19937 rng(seed);
  const std::string text = valid.dump();
  int accepted = 0, rejected = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string input;
    if (i % 3 == 0) {
      input = text.substr(0, std::uniform_int_distribution<std::size_t>(0, text.size() - 1)(rng));  // truncated
    } else if (i % 3 == 1) {
      input = text;
      for (int flips = 0; flips < 3; ++flips)
        input[std::uniform_int_distribution<std::size_t>(0, input.size() - 1)(rng)] = static_cast<char>(32 + rng() % 95);
    } else {
      json j = valid;
      for (int m = 0; m < 1 + static_cast<int>(rng() % 3); ++m) mutate(j, rng);
      input = j.dump();
    }
    try {
      load(parse_json_text(input, "fuzz.json"));
      ++accepted;
    } catch (const InputError& e) {
      const std::string msg = e.what();
      ASSERT_EQ(msg.rfind("fuzz.json: ", 0), 0u) << msg;
      ASSERT_EQ(msg.find('\n'), std::string::npos) << msg;
      ++rejected;
    }
  }
  EXPECT_GT(rejected, 1000);
  EXPECT_GT(accepted, 10);
}

TEST(JsonFuzz, DeviceProfiles) {
  const KernelProfile k = thesis_order2_kernel();
  fuzz(k40_device(), [&](const json& j) {
    const DeviceProfile d = device_from_json(j, "fuzz.json");
    for (ModelVariant v : all_variants()) {
      try {
        const Prediction p = predict(v, d, k);
        ASSERT_TRUE(std::isfinite(p.cycles) && p.cycles > 0);
      } catch (const ModelError&) {
        // a valid device the kernel cannot run on: reported, not a crash
      }
    }
  }, 1);
}

TEST(JsonFuzz, KernelProfiles) {
  const DeviceProfile d = thesis_k40_device();
  fuzz(order2_kernel(), [&](const json& j) {
    const KernelProfile k = kernel_from_json(j, "fuzz.json");
    for (ModelVariant v : all_variants()) {
      try {
        const Prediction p = predict(v, d, k);
        ASSERT_TRUE(std::isfinite(p.cycles) && p.cycles > 0) << to_string(v) << " " << j.dump();
      } catch (const ModelError&) {
      }
    }
  }, 2);
}

// A merged measurements file: each case's provenance is the newest run that measured its family (and,
// for the corpus, its kernel), not the last run's.
TEST(Json, EachCaseComesFromTheRunThatMeasuredIt) {
  const json m = json::parse(R"({"provenance": {
      "command": "fwi run", "families_measured": ["fwi"],
      "earlier_parts": [
        {"command": "tensor run", "families_measured": ["corpus"], "corpus_kernels_measured": ["gemm-wmma-f16"]},
        {"command": "adi run", "families_measured": ["adi"]},
        {"command": "corpus run", "families_measured": ["corpus"]},
        {"command": "first full sweep"}]}})");
  EXPECT_EQ(measuring_run(m, "fwi", "propagate").at("command"), "fwi run");
  EXPECT_EQ(measuring_run(m, "corpus", "gemm-wmma-f16").at("command"), "tensor run");
  EXPECT_EQ(measuring_run(m, "corpus", "copy-f32").at("command"), "corpus run");
  EXPECT_EQ(measuring_run(m, "adi", "sweep-y").at("command"), "adi run");
  EXPECT_EQ(measuring_run(m, "stencil", "order 2").at("command"), "first full sweep");
  // One run, or no record: the top-level record, or an empty object.
  EXPECT_EQ(measuring_run(json::parse(R"({"provenance": {"command": "only"}})"), "adi", "x").at("command"), "only");
  EXPECT_TRUE(measuring_run(json::object(), "adi", "x").empty());
}

}  // namespace
}  // namespace warpmodel
