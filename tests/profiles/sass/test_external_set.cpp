// The external validation set (external_set.hpp): its file read field by field, base64 cubins, the
// statistics, and every application predicted from the kept cubins exactly as predict-app predicts it
// (the example application's committed H200 profile and cubins, as an application of the set).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <tuple>

#include <nlohmann/json.hpp>

#include "warpmodel/json_io.hpp"
#include "warpmodel/sass/app_prediction.hpp"
#include "warpmodel/sass/external_set.hpp"
#include "warpmodel/sass/tools.hpp"
#include "warpmodel/support/text.hpp"

using namespace warpmodel;
using namespace warpmodel::sass;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const fs::path kExample = fs::path(WARPMODEL_RESULTS) / "h200" / "app-example";

std::string base64(const std::string& bytes) {
  static const char* digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    unsigned v = static_cast<unsigned char>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) v |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    if (i + 2 < bytes.size()) v |= static_cast<unsigned char>(bytes[i + 2]);
    out += digits[(v >> 18) & 63];
    out += digits[(v >> 12) & 63];
    out += i + 1 < bytes.size() ? digits[(v >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? digits[v & 63] : '=';
  }
  return out;
}

json app_entry(const std::string& name, const std::string& half, json status) {
  return {{"app", name},       {"suite", "hecbench"},     {"half", half}, {"folder", "hecbench/src/" + name + "-cuda"},
          {"build", "make"},   {"run", "./main 3"},       {"profile_options", "-"}, {"status", std::move(status)},
          {"profile", nullptr}, {"cubins", json::array()}, {"sass", nullptr}};
}

// profiles.json.xz and cubins.json.xz as scripts/external_bundle.py writes them.
struct BundleFiles {
  json profiles, cubins;
  ExternalBundle read() const { return external_bundle_from_json(profiles, "p.json.xz", cubins, "c.json.xz"); }
};

json ok_status() {
  return {{"build_exit", "0"}, {"run_exit", "0"}, {"run_date", "2026-03-04T05:06:07Z"}, {"run_reason", ""}};
}

// A bundle of four applications: the example application (profile and cubins), one whose profile was
// not kept, one that did not build, one built and never run.
BundleFiles example_bundle() {
  json example = app_entry("example", "development", ok_status());
  json profile = read_json_file(kExample / "profile.json");
  profile["provenance"]["command"] = "warpmodel profile -o /home/gpu/repo/results/x/external/.work/example/profile -- ./main";
  example["profile"] = profile;
  json cubins = {{"schema", kExternalCubinsSchema}, {"applications", {{"example", json::object()}}}};
  for (const auto& entry : fs::directory_iterator(kExample / "profile.cubins")) {
    const std::string bytes = *support::read_text_file(entry.path());
    example["cubins"].push_back({{"file", entry.path().filename().string()}, {"bytes", bytes.size()}});
    cubins["applications"]["example"][entry.path().filename().string()] = base64(bytes);
  }
  example["sass"] = "the cubins `warpmodel profile` kept";
  json gone = app_entry("gone", "held-out", ok_status());
  gone["profile_missing"] = "not kept";
  json bundle = {{"schema", kExternalProfilesSchema},
                 {"suites", {{{"suite", "hecbench"}, {"repository", "https://example.org/hec"}, {"commit", "1111111"}}}},
                 // Two calls on two cards: the example's run_date names the first.
                 {"runs",
                  {{{"date", "2026-03-04T05:06:07Z"}, {"gpu_uuid", "GPU-aaaa"}},
                   {{"date", "2026-03-05T01:00:00Z"}, {"gpu_uuid", "GPU-bbbb"}, {"not_run_reason", "the calls stopped"}}}},
                 {"applications",
                  {example, gone, app_entry("broken", "held-out", {{"build_exit", "2"}, {"build_reason", "error: x"}}),
                   app_entry("idle", "development", {{"build_exit", "0"}})}}};
  return {bundle, cubins};
}

}  // namespace

TEST(ExternalSet, Base64DecodesWhatPythonWritesAndRefusesTheRest) {
  EXPECT_EQ(support::base64_decode(""), std::string());
  EXPECT_EQ(support::base64_decode("Zg=="), std::string("f"));
  EXPECT_EQ(support::base64_decode("Zm8="), std::string("fo"));
  EXPECT_EQ(support::base64_decode("Zm9v"), std::string("foo"));
  const std::string binary("\x7f" "ELF\0\xff\x10 ab", 9);
  EXPECT_EQ(support::base64_decode(base64(binary)), binary);
  for (const char* bad : {"Zg=", "Z===", "Zm9v!A==", "=Zg=", "Zg=a", "Zm 9v"})
    EXPECT_FALSE(support::base64_decode(bad)) << bad;
}

TEST(ExternalSet, AccuracyOverDistinctLaunches) {
  const auto a = external_accuracy({+10, -25, -5, +30});
  ASSERT_TRUE(a);
  EXPECT_EQ(a->count, 4u);
  EXPECT_DOUBLE_EQ(a->mape, 17.5);
  EXPECT_DOUBLE_EQ(a->median_abs, 17.5);
  EXPECT_DOUBLE_EQ(a->within_10, 50.0);
  EXPECT_DOUBLE_EQ(a->within_25, 75.0);
  EXPECT_DOUBLE_EQ(a->under, 50.0);
  EXPECT_DOUBLE_EQ(a->mean_signed, 2.5);
  EXPECT_DOUBLE_EQ(a->median_signed, 2.5);
  EXPECT_FALSE(external_accuracy({}));
}

TEST(ExternalSet, BundleReadFieldByField) {
  const BundleFiles good = example_bundle();
  EXPECT_EQ(good.read().apps.size(), 4u);
  EXPECT_EQ(good.read().apps[0].cubins.size(), 3u);
  auto refused = [&](const std::function<void(BundleFiles&)>& change, const std::string& file, const std::string& field) {
    BundleFiles b = good;
    change(b);
    try {
      b.read();
      ADD_FAILURE() << "accepted a bundle with a bad " << field;
    } catch (const InputError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(file), std::string::npos) << what;
      EXPECT_NE(what.find(field), std::string::npos) << what;
    }
  };
  refused([](BundleFiles& b) { b.profiles["schema"] = "warpmodel.profile/1"; }, "p.json.xz", "schema");
  refused([](BundleFiles& b) { b.profiles.erase("applications"); }, "p.json.xz", "applications");
  refused([](BundleFiles& b) { b.profiles["applications"][1]["half"] = "test"; }, "p.json.xz", "half");
  refused([](BundleFiles& b) { b.cubins["applications"]["example"]["0.cubin"] = "not base64!"; }, "c.json.xz",
          "applications.example.0.cubin");
  refused([](BundleFiles& b) { b.cubins["applications"]["example"]["0.cubin"] = "Zg=="; }, "c.json.xz",
          "different runs");
  refused([](BundleFiles& b) { b.cubins["applications"]["example"].erase("1.cubin"); }, "c.json.xz", "no cubin 1.cubin");
  refused([](BundleFiles& b) { b.cubins = nullptr; }, "no cubins.json.xz", "1.cubin");
  refused([](BundleFiles& b) { b.cubins["schema"] = "x"; }, "c.json.xz", "warpmodel.external-cubins/1");
  refused([](BundleFiles& b) { b.profiles["applications"][0]["cubins"][0]["file"] = "../0.cubin"; }, "p.json.xz",
          "../0.cubin");
  refused([](BundleFiles& b) { b.profiles["applications"][0]["profile"] = "profile.json"; }, "p.json.xz", "profile");
  refused([](BundleFiles& b) { b.profiles["applications"][2]["status"]["build_exit"] = 2; }, "p.json.xz",
          "status.build_exit");
  refused([](BundleFiles& b) { b.profiles["applications"][3]["app"] = "gone"; }, "p.json.xz", "listed twice");
  refused([](BundleFiles& b) { b.profiles["applications"][3].erase("run"); }, "p.json.xz", "run");
}

// H.12b through predict-app: the example application was profiled with `profile -- APP` (timed by the
// counter range). Without a measured overhead its short launch (one block, 2.7 us) carries a note that
// the device profile does not price the range's own time, and its long ones none; with one, every
// prediction grows by that time and the note goes.
TEST(ExternalSet, ShortLaunchesTimedByACounterRange) {
  if (!find_cuobjdump()) GTEST_SKIP() << "cuobjdump not found (pip package nvidia-cuda-cuobjdump)";
  DeviceProfile device = load_device_profile(fs::path(WARPMODEL_RESULTS) / "h200" / "device.json");
  const CounterFile counters = counters_from_json(read_json_file(kExample / "profile.json"), "profile.json");
  ASSERT_TRUE(counters.launches.front().duration_from_counter_range);
  const BinaryAnalysis analysis = analyse_cubin_folder((kExample / "profile.cubins").string());
  ASSERT_TRUE(device.hopper_calibration);
  device.hopper_calibration->counter_range_overhead_ns = 0;  // not measured (the committed profile may have it)
  const AppPrediction plain = predict_application(counters, analysis.kernels, device, ModelVariant::Hopper, true, "x");
  device.hopper_calibration->counter_range_overhead_ns = 1500;
  const AppPrediction ranged = predict_application(counters, analysis.kernels, device, ModelVariant::Hopper, true, "x");
  ASSERT_EQ(plain.rows.size(), ranged.rows.size());
  int short_rows = 0;
  for (std::size_t i = 0; i < plain.rows.size(); ++i) {
    const AppPredictionRow &a = plain.rows[i], &b = ranged.rows[i];
    ASSERT_TRUE(a.measured_us && a.predicted_us && b.predicted_us) << a.kernel;
    const bool is_short = *a.measured_us < kShortLaunchUs;
    short_rows += is_short;
    EXPECT_EQ(a.note.find("counter range") != std::string::npos, is_short) << a.kernel << ": " << a.note;
    EXPECT_EQ(b.note.find("counter range"), std::string::npos) << b.kernel;
    EXPECT_NEAR(*b.predicted_us, *a.predicted_us + 1.5, 1e-6) << b.kernel;
  }
  EXPECT_GE(short_rows, 1);
}

TEST(ExternalSet, EveryApplicationPredictedAsPredictAppPredictsIt) {
  if (!find_cuobjdump()) GTEST_SKIP() << "cuobjdump not found (pip package nvidia-cuda-cuobjdump)";
  const DeviceProfile device = load_device_profile(fs::path(WARPMODEL_RESULTS) / "h200" / "device.json");
  const ExternalBundle bundle = example_bundle().read();
  const ExternalSet set = predict_external_set(bundle, device, ModelVariant::Hopper);

  ASSERT_EQ(set.apps.size(), 4u);
  const std::vector<std::pair<std::string, std::string>> statuses = {
      {"ok", ""}, {"not kept", "not kept"}, {"build failed", "error: x"}, {"not run", "the calls stopped"}};
  for (std::size_t i = 0; i < statuses.size(); ++i) {
    EXPECT_EQ(set.apps[i].status, statuses[i].first) << set.apps[i].app->name;
    EXPECT_EQ(set.apps[i].reason, statuses[i].second) << set.apps[i].app->name;
  }

  // The same rows predict-app groups from the same profile and cubins, in the order of first launch.
  const json profile = read_json_file(kExample / "profile.json");
  const CounterFile counters = counters_from_json(profile, "profile.json");
  const BinaryAnalysis analysis = analyse_cubin_folder((kExample / "profile.cubins").string());
  const AppPrediction direct = predict_application(counters, analysis.kernels, device, ModelVariant::Hopper, true, "x");
  ASSERT_EQ(set.launches.size(), direct.rows.size());
  EXPECT_EQ(set.apps[0].distinct, direct.rows.size());
  EXPECT_EQ(set.apps[0].profiled_launches, counters.launches.size());
  std::set<std::tuple<std::string, double, double>> from_set, from_direct;
  for (const auto& l : set.launches) {
    EXPECT_EQ(l.app, "example");
    EXPECT_EQ(l.half, "development");
    ASSERT_TRUE(l.predicted_us && l.error_pct);
    EXPECT_NEAR(*l.error_pct, 100 * (*l.predicted_us - l.measured_us) / l.measured_us, 1e-9);
    from_set.insert({l.kernel + " " + l.grid + " " + l.block, l.measured_us, *l.predicted_us});
    // The profile's own provenance, its command relative to the work folder.
    ASSERT_EQ(l.provenance.size(), kExternalProvenanceColumns.size());
    EXPECT_EQ(l.provenance[0], "NVIDIA H200");
    EXPECT_EQ(l.provenance[1], "GPU-aaaa");  // the card of the call that ran it, not the last call's
    EXPECT_EQ(l.provenance[4], "not recorded");  // NVML read no clock (0)
    EXPECT_EQ(l.provenance[6], "dd241ea");
    EXPECT_EQ(l.provenance[7], "warpmodel profile -o .work/example/profile -- ./main");
  }
  auto shape = [](const Dim3& d) {
    std::string s = std::to_string(d.x);
    if (d.y != 1 || d.z != 1) s += "x" + std::to_string(d.y);
    if (d.z != 1) s += "x" + std::to_string(d.z);
    return s;
  };
  for (const auto& r : direct.rows)
    from_direct.insert({r.kernel + " " + shape(r.grid) + " " + shape(r.block), *r.measured_us, *r.predicted_us});
  EXPECT_EQ(from_set, from_direct);
  for (std::size_t i = 1; i < set.launches.size(); ++i)  // first launches in order
    EXPECT_FALSE(set.launches[i].kernel == set.launches[i - 1].kernel && set.launches[i].grid == set.launches[i - 1].grid &&
                 set.launches[i].block == set.launches[i - 1].block);

  // The tables: a CSV row per distinct launch; the summary counts the halves and names the apps not scored.
  const Table launches = external_launches_table(set);
  EXPECT_EQ(launches.rows.size(), set.launches.size());
  EXPECT_EQ(launches.headers.back(), "measurement_command");
  const Table apps = external_apps_table(set);
  ASSERT_EQ(apps.rows.size(), 4u);
  EXPECT_EQ(apps.rows[1][3], "not kept");
  const std::string md = external_summary_markdown(set);
  EXPECT_NE(md.find("| development | 2 | 2 | 1 | 1 | " + std::to_string(set.launches.size()) + " |"), std::string::npos) << md;
  EXPECT_NE(md.find("- build failed: error: x (1): broken (held-out)"), std::string::npos) << md;
  EXPECT_NE(md.find("https://example.org/hec at 1111111"), std::string::npos);
  const auto dev = external_accuracy(external_errors(set, "development", true));
  const auto dev_short = external_accuracy(external_errors(set, "development", false));
  ASSERT_TRUE(dev || dev_short);
  EXPECT_EQ((dev ? dev->count : 0) + (dev_short ? dev_short->count : 0), set.launches.size());
  EXPECT_FALSE(external_accuracy(external_errors(set, "held-out", true)));
  const std::string section = external_validation_section(set);
  EXPECT_NE(section.find("## External validation set (hopper)"), std::string::npos);
  EXPECT_NE(section.find("By application"), std::string::npos);
  const json summary = external_summary_json(set);
  EXPECT_EQ(summary["applications"]["scored"], 1);
  EXPECT_TRUE(summary["held-out"]["at_least_20us"].is_null());
}

TEST(ExternalSet, AnApplicationWhoseCubinsCannotBeAnalysedIsPredictFailed) {
  if (!find_cuobjdump()) GTEST_SKIP() << "cuobjdump not found (pip package nvidia-cuda-cuobjdump)";
  BundleFiles files = example_bundle();
  // A "cubin" that is not one: the SASS analysis fails, the application is not scored, the others are.
  files.profiles["applications"][0]["cubins"] = json::array();
  files.profiles["applications"][0]["cubins"].push_back(json{{"file", "0.cubin"}, {"bytes", 15}});
  files.cubins["applications"]["example"] = {{"0.cubin", base64("not an ELF file")}};
  const ExternalBundle bundle = files.read();
  const ExternalSet set =
      predict_external_set(bundle, load_device_profile(fs::path(WARPMODEL_RESULTS) / "h200" / "device.json"),
                           ModelVariant::Hopper);
  EXPECT_EQ(set.apps[0].status, "predict failed");
  EXPECT_FALSE(set.apps[0].reason.empty());
  EXPECT_TRUE(set.launches.empty());
  EXPECT_EQ(set.apps[1].status, "not kept");
}
