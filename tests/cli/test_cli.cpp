// The warpmodel program end to end: exit codes and one-line errors (README "Exit codes").
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "run_program.hpp"
#include <nlohmann/json.hpp>
#include "warpmodel/support/text.hpp"

using warpmodel::support::read_text_file;

namespace {

namespace fs = std::filesystem;

using CommandResult = warpmodel::test::ProgramResult;

const fs::path kTmp = fs::temp_directory_path() / ("warpmodel_cli_test_" + std::to_string(::getpid()));

CommandResult run(const std::string& args) { return warpmodel::test::run_program(std::string(WARPMODEL_BIN) + " " + args, kTmp); }

std::string write(const std::string& name, const std::string& text) {
  fs::create_directories(kTmp);
  std::ofstream(kTmp / name) << text;
  return (kTmp / name).string();
}

const std::string kDevice = std::string(WARPMODEL_DATA) + "/k40-thesis.device.json";
const std::string kKernel = std::string(WARPMODEL_DATA) + "/stencil-order2-k40-thesis.kernel.json";

int lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

TEST(Cli, PredictPrintsEveryTerm) {
  // The thesis's K40 profile is printed, not measured: it feeds thesis-2016, not the default hopper.
  const CommandResult r = run("predict --device " + kDevice + " --kernel " + kKernel + " --model thesis-2016");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* term : {"ITILP", "MWP_cp", "AMAT", "T_overlap", "W_serial", "#Rep", "102912"})
    EXPECT_NE(r.out.find(term), std::string::npos) << term;
}

// hopper is the default of every predicting subcommand, and each one's help says so and lists every
// variant; the K40's printed profile cannot feed it, and the message names the way out.
TEST(Cli, HopperIsTheDefaultModel) {
  for (const char* sub : {"predict", "sweep", "predict-app"}) {
    const CommandResult help = run(std::string(sub) + " --help");
    ASSERT_EQ(help.exit_code, 0) << sub;
    for (const char* variant : {"hopper (default", "thesis-2016", "gpuperf-2012", "hong-kim-2009"})
      EXPECT_NE(help.out.find(variant), std::string::npos) << sub << ": " << variant;
  }
  const CommandResult r = run("predict --device " + kDevice + " --kernel " + kKernel);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("hopper model needs measured rates"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--model thesis-2016"), std::string::npos) << r.err;
}

TEST(Cli, PredictJsonForAllModels) {
  const CommandResult r = run("predict --device " + kDevice + " --kernel " + kKernel + " --model all --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.size(), 3u);  // hopper needs measured rates the K40 profile lacks: skipped, and said so
  EXPECT_NE(r.err.find("skipped hopper"), std::string::npos) << r.err;
  EXPECT_EQ(j[2]["model"], "thesis-2016");
  EXPECT_NEAR(j[2]["cycles"].get<double>(), 102912, 1e-6);
  EXPECT_TRUE(j[0]["terms"]["ITILP"].is_null());  // hong-kim-2009 has no ITILP
}

TEST(Cli, ReproduceThesisShowsMatchesAndDifferences) {
  const CommandResult r = run("reproduce-thesis");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("88115.4"), std::string::npos);
  EXPECT_NE(r.out.find("DIFFERS"), std::string::npos);
  EXPECT_NE(r.out.find("98138.25"), std::string::npos);
  const CommandResult csv = run("reproduce-thesis --format csv");
  ASSERT_EQ(csv.exit_code, 0);
  EXPECT_EQ(csv.out.rfind("quantity,eq,thesis,recomputed,difference,verdict,reading\n", 0), 0u);
}

TEST(Cli, SweepRanksShapes) {
  const CommandResult r = run("sweep --device " + kDevice + " --kernel " + kKernel + " --model thesis-2016 --top 5");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("limiter"), std::string::npos);
  EXPECT_NE(r.out.find("\n5 "), std::string::npos);
}

void expect_bad_input(const CommandResult& r, const std::string& needle) {
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(Cli, BadInputIsOneLineAndExitTwo) {
  expect_bad_input(run("predict --device " + kDevice + " --kernel " + kKernel + " --model nope"),
                   "unknown model 'nope' (known: hong-kim-2009, gpuperf-2012, thesis-2016, hopper, all)");
  expect_bad_input(run("predict --device /nonexistent.json --kernel " + kKernel), "/nonexistent.json: cannot read");
  const std::string broken = write("broken.json", "{\"name\": \"x\", ");
  expect_bad_input(run("predict --device " + broken + " --kernel " + kKernel), "broken.json: not valid JSON");
  std::string device_text = read_text_file(kDevice).value_or("");
  device_text.replace(device_text.find("\"dram\": 399"), 11, "\"dram\": -399");
  const std::string negative = write("negative.json", device_text);
  expect_bad_input(run("predict --device " + negative + " --kernel " + kKernel),
                   "negative.json: field 'latency_cycles.dram': expected a positive number, got -399");
  EXPECT_EQ(run("predict --device " + kDevice).exit_code, 2);  // missing --kernel
  EXPECT_EQ(run("no-such-command").exit_code, 2);
}

// Nesting deep enough to overflow a recursive parser's stack is refused before parsing (issue 14:
// 100,000 '[' used to end in SIGSEGV), for the device, kernel and measurement readers alike.
TEST(Cli, DeeplyNestedJsonIsOneLineAndExitTwo) {
  const std::string deep = write("deep.json", std::string(100000, '[') + std::string(100000, ']'));
  expect_bad_input(run("predict --device " + deep + " --kernel " + kKernel), "nested deeper than 64 levels");
  expect_bad_input(run("predict --device " + kDevice + " --kernel " + deep), "nested deeper than 64 levels");
  // Brackets inside strings are text, not nesting.
  const std::string in_string = write("string.json", "{\"name\": \"" + std::string(1000, '[') + "\"}");
  const CommandResult r = run("predict --device " + in_string + " --kernel " + kKernel);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.find("nested deeper"), std::string::npos) << r.err;
}

// Every numeric option states its bound in one line (issue 14: --top -5 printed a 300-digit range).
TEST(Cli, NumericOptionsStateTheirBound) {
  const std::string model = " --device " + kDevice + " --kernel " + kKernel;
  expect_bad_input(run("sweep" + model + " --top -5"), "--top: must be >= 0 (got -5)");
  expect_bad_input(run("sweep" + model + " --top x"), "--top: expected a number >= 0, got 'x'");
  expect_bad_input(run("run-stencil --steps 0"), "--steps: must be >= 1 (got 0)");
  expect_bad_input(run("run-stencil --depth 4"), "--depth: must be in [1, 3] (got 4)");
  expect_bad_input(run("run-stencil --spacing -1"), "--spacing: must be > 0 (got -1)");
  expect_bad_input(run("run-adi --size 8"), "--size: must be >= 32 (got 8)");
  expect_bad_input(run("characterize --reps 1"), "--reps: must be >= 2 (got 1)");
  expect_bad_input(run("kernel-profile --kernel k --launch-index -1"), "--launch-index: must be >= 0 (got -1)");
  for (const char* bounded : {"profile --kernel copy --timing-runs 0", "profile --kernel copy --device -1", "metrics --device -2"}) {
    const CommandResult r = run(bounded);
    EXPECT_EQ(r.exit_code, 2) << bounded << ": " << r.err;
    EXPECT_EQ(lines(r.err), 1) << bounded << ": " << r.err;
    EXPECT_NE(r.err.find("must be >="), std::string::npos) << bounded << ": " << r.err;
  }
}

// The cold protocol's flush runs between user ranges: refused before any GPU work otherwise. A build
// without CUDA refuses `profile` itself first (one line, exit 3), which is checked instead.
TEST(Cli, FlushBeforeEachLaunchNeedsUserRanges) {
  const auto refused = [](const CommandResult& r, const std::string& needle) {
    if (r.err.find("this build has no CUDA/CUPTI support") != std::string::npos) {
      EXPECT_EQ(r.exit_code, 3) << r.err;
      EXPECT_EQ(lines(r.err), 1) << r.err;
      return;
    }
    expect_bad_input(r, needle);
  };
  refused(run("profile --kernel copy --flush-l2-each-launch"), "--flush-l2-each-launch: needs --range user");
  refused(run("profile --kernel copy --range user --launch-only --flush-l2-each-launch"),
          "--flush-l2-each-launch: needs --range user");
  refused(run("profile --flush-l2-each-launch -- /bin/true"),
          "--flush-l2-each-launch: for a built-in workload (--kernel) only");
  expect_bad_input(run("validate --measure /nonexistent --l2 lukewarm"), "--l2: lukewarm not in {cold,warm}");
}

TEST(Cli, OutputToUnwritableFolderLeavesNothing) {
  // A regular file where the folder should be: not writable even for root.
  const std::string blocker = write("blocker", "not a folder");
  const fs::path target = fs::path(blocker) / "thesis.md";
  expect_bad_input(run("reproduce-thesis --output " + target.string()), "not writable");
  EXPECT_EQ(read_text_file(blocker).value_or(""), "not a folder");
  for (const auto& entry : fs::directory_iterator(kTmp))
    EXPECT_EQ(entry.path().filename().string().find(".tmp"), std::string::npos) << entry.path();
}

TEST(Cli, OutputFileIsWritten) {
  const fs::path out = kTmp / "thesis.md";
  const CommandResult r = run("reproduce-thesis --format markdown --output " + out.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(read_text_file(out).value_or("").find("| T_exec |"), std::string::npos);
}

// A GPU subcommand on any machine: a table (GPU present) or one line and exit 3 (none). Never a crash.
TEST(Cli, GpuSubcommandWithoutGpuExitsThree) {
  const CommandResult r = run("devices");
  if (r.exit_code == 0) {
    EXPECT_NE(r.out.find("name"), std::string::npos);
  } else {
    EXPECT_EQ(r.exit_code, 3) << r.err;
    EXPECT_EQ(lines(r.err), 1) << r.err;
    // No driver at all reads as such, not as "driver version insufficient" (issue 14).
    if (!fs::exists("/dev/nvidiactl") && r.err.find("no CUDA support") == std::string::npos) {
      EXPECT_NE(r.err.find("no NVIDIA driver found"), std::string::npos) << r.err;
      EXPECT_EQ(r.err.find("insufficient"), std::string::npos) << r.err;
    }
  }
}

// validate --measure into a folder whose device.json describes another GPU: refused before anything is
// measured (exit 2, one line naming both GPUs, nothing written); without a GPU, exit 3 and nothing written.
TEST(Cli, ValidateMeasureRefusesAnotherGpusFolder) {
  const fs::path dir = kTmp / "validate_other_gpu";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "device.json") << R"json({"name": "Not This GPU 9000 (warpmodel characterize)"})json";
  const CommandResult r = run("validate --measure " + dir.string() + " --quick --families adi");
  EXPECT_FALSE(fs::exists(dir / "validation-measurements.json"));
  EXPECT_FALSE(fs::exists(dir / "validation.md"));
  EXPECT_EQ(lines(r.err), 1) << r.err;
  if (r.exit_code == 3) GTEST_SKIP() << "no GPU: " << r.err;
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("describes the Not This GPU 9000 and this GPU is the "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("results/"), std::string::npos) << r.err;
}

}  // namespace

// validate --from: a folder with a device profile (the K40 one plus measured rates) and synthetic
// "measurements" of the thesis kernel at four grids; every output is written, bad input leaves none.
namespace validate_fixture {
std::string folder(bool broken) {
  const fs::path dir = kTmp / (broken ? "validate_broken" : "validate_ok");
  fs::remove_all(dir);
  fs::create_directories(dir);
  nlohmann::json device = nlohmann::json::parse(read_text_file(kDevice).value_or(""));
  device["bandwidth_gbs"] = {{"dram_copy", 200.0}, {"l2_read", 500.0}, {"shared_read", 2000.0}};
  device["latency_cycles"]["fp32_dependent"] = 9.0;
  std::ofstream(dir / "device.json") << device.dump(2);
  const nlohmann::json kernel = nlohmann::json::parse(read_text_file(kKernel).value_or(""));
  nlohmann::json m = {{"schema", "warpmodel.validation-measurements/1"},
                      {"provenance", {{"note", "synthetic cases for the CLI test"}}},
                      {"cases", nlohmann::json::array()}};
  int i = 0;
  for (int warps : {8, 16, 24, 32}) {
    for (int grid : {8, 16}) {
      nlohmann::json k = kernel;
      k["launch"]["active_warps_per_sm"] = warps;
      // what the sweep does to hold the warps per SM: unused shared memory (48 KiB per K40 SM)
      k["launch"]["shared_memory_per_block_bytes"] = (49152 / (warps / 8)) / 256 * 256;
      k["launch"]["grid"] = {grid, 8, 8};
      m["cases"].push_back({{"family", "stencil"},
                            {"kernel", "order 2"},
                            {"size", grid == 8 ? "64^3" : "128x64x64"},
                            {"shape", "8x8x4 @" + std::to_string(warps)},
                            {"warps_per_sm", warps},
                            {"duration_ns", 20000.0 + 1000.0 * (i++ % 3) + 5000.0 * grid / warps},
                            {"sm_clock_mhz", 745.0},
                            {"profile", k}});
    }
  }
  if (broken) m["cases"][5]["sm_clock_mhz"] = "fast";
  std::ofstream(dir / "validation-measurements.json") << m.dump(2);
  return dir.string();
}
}  // namespace validate_fixture

TEST(Cli, ValidateFromCommittedMeasurementsWritesEveryOutput) {
  const std::string dir = validate_fixture::folder(false);
  const CommandResult r = run("validate --from " + dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* f : {"validation.md", "validation.csv", "validation.tex", "validation.json", "validation-held-out.csv",
                        "validation-derived-counters.csv"})
    EXPECT_TRUE(fs::exists(fs::path(dir) / f)) << f;
  // Their provenance is validation.json's; no file beside them (a results folder has one index).
  for (const char* f : {"validation.provenance.json", "validation-held-out.provenance.json"})
    EXPECT_FALSE(fs::exists(fs::path(dir) / f)) << f;
  const std::string counters = read_text_file(fs::path(dir) / "validation-derived-counters.csv").value_or("");
  EXPECT_EQ(counters.substr(0, counters.find('\n')),
            "family,class,kernel,size,reference_shape,shape,counter,kept_from_reference,derived,measured,derived_close,"
            "kept_close,gpu,driver,cuda,sm_clock_mhz,measured_date,measured_commit,measurement_command,analysis_command");
  // Every held-out row says which sweep measured it.
  const std::string held_out_csv = read_text_file(fs::path(dir) / "validation-held-out.csv").value_or("");
  EXPECT_NE(held_out_csv.substr(0, held_out_csv.find('\n'))
                .find(",gpu,driver,cuda,sm_clock_mhz,measured_date,measured_commit,measurement_command,analysis_command"),
            std::string::npos);
  const std::string csv = read_text_file(fs::path(dir) / "validation.csv").value_or("");
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "family,kernel,size,shape,warps_per_sm,split,model,measured_cycles,sm_cycles_elapsed,predicted_cycles,"
            "signed_error,abs_error,bound,error");
  EXPECT_EQ(lines(csv), 1 + 8 * 4);  // header + 8 cases x 4 variants
  EXPECT_NE(r.out.find("hopper"), std::string::npos);
  const nlohmann::json summary = nlohmann::json::parse(read_text_file(fs::path(dir) / "validation.json").value_or(""));
  EXPECT_EQ(summary["cases"], 8);
  EXPECT_EQ(summary["summaries"].size(), 4u);
  // Where the numbers came from, in the JSON.
  const nlohmann::json provenance = summary["provenance"];
  EXPECT_EQ(provenance["sm_clock_mhz_recorded"]["min"], 745.0);
  EXPECT_EQ(provenance["sm_clock_mhz_recorded"]["launches"], 8);
  EXPECT_NE(provenance["analysis_command"].get<std::string>().find("validate --from"), std::string::npos);
  EXPECT_EQ(provenance["sm_clock_mhz"], provenance["sm_clock_mhz_recorded"]["min"]) << "every launch at one clock";
}

TEST(Cli, ValidateWithBadMeasurementsWritesNothing) {
  const std::string dir = validate_fixture::folder(true);
  const CommandResult r = run("validate --from " + dir);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("cases[5].sm_clock_mhz"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(fs::path(dir) / "validation.md"));
  EXPECT_FALSE(fs::exists(fs::path(dir) / "validation.json"));
  const CommandResult missing = run("validate --from " + (kTmp / "no_such_folder").string());
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("device.json"), std::string::npos) << missing.err;
}

// compare-devices (README "Compare GPUs"): the thesis's K40 beside a variant of it.
namespace compare_fixture {
std::string other_device() {
  std::string text = read_text_file(kDevice).value_or("");
  const std::string k40_name = "\"Tesla K40 (thesis, seeds/000 chapter 4)\"";
  text.replace(text.find(k40_name), k40_name.size(), "\"Other GPU\"");
  text.replace(text.find("\"dram\": 399"), 11, "\"dram\": 798");
  return write("other/device.json", text);
}
}  // namespace compare_fixture

TEST(Cli, CompareDevicesInEveryFormat) {
  fs::create_directories(kTmp / "other");
  const std::string other = compare_fixture::other_device();
  const std::string both = kDevice + " " + other;
  const CommandResult text = run("compare-devices " + both);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_TRUE(text.err.empty()) << text.err;
  EXPECT_NE(text.out.find("In every profile"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("Other GPU / Tesla K40"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("latency_cycles.dram"), std::string::npos);

  const CommandResult md = run("compare-devices " + both + " --format markdown");
  ASSERT_EQ(md.exit_code, 0) << md.err;
  EXPECT_EQ(md.out.rfind("# Device profiles compared\n", 0), 0u) << md.out;
  EXPECT_NE(md.out.find("| latency_cycles.dram | cycles | 399 | 798 | 2 |"), std::string::npos) << md.out;

  const CommandResult csv = run("compare-devices " + both + " --format csv");
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_EQ(csv.out.rfind("quantity,unit,Tesla K40,Other GPU,Other GPU / Tesla K40,", 0), 0u) << csv.out;
  EXPECT_NE(csv.out.find("\nlatency_cycles.dram,cycles,399,798,2,"), std::string::npos) << csv.out;

  const CommandResult json = run("compare-devices " + both + " --format json --names K40,other");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["schema"], "warpmodel.device-comparison/1");
  ASSERT_EQ(j["devices"].size(), 2u);
  EXPECT_EQ(j["devices"][1]["name"], "other");
  EXPECT_EQ(j["devices"][1]["source"], other);
  bool dram = false;
  for (const auto& q : j["quantities"])
    if (q["quantity"] == "latency_cycles.dram") {
      dram = true;
      EXPECT_EQ(q["values"], nlohmann::json::array({399, 798}));
      EXPECT_EQ(q["ratios"][1], 2.0);
    }
  EXPECT_TRUE(dram);

  // -o: the same text in the file, nothing on standard output.
  const fs::path out = kTmp / "compare.md";
  const CommandResult to_file = run("compare-devices " + both + " --format markdown -o " + out.string());
  ASSERT_EQ(to_file.exit_code, 0) << to_file.err;
  EXPECT_TRUE(to_file.out.empty()) << to_file.out;
  EXPECT_EQ(read_text_file(out).value_or(""), md.out);
}

TEST(Cli, CompareDevicesBadInputIsOneLineAndNoFile) {
  fs::create_directories(kTmp / "other");
  const std::string other = compare_fixture::other_device();
  const fs::path out = kTmp / "compare-bad.md";
  const std::string to_file = " -o " + out.string();
  expect_bad_input(run("compare-devices " + kDevice + to_file), "needs two or more device profiles, got 1");
  expect_bad_input(run("compare-devices" + to_file), "needs two or more device profiles, got 0");
  expect_bad_input(run("compare-devices " + kDevice + " /nonexistent/device.json" + to_file),
                   "/nonexistent/device.json: cannot read");
  const std::string broken = write("broken-device.json", "{\"schema\": \"warpmodel.device/1\", ");
  expect_bad_input(run("compare-devices " + kDevice + " " + broken + to_file), "broken-device.json: not valid JSON");
  expect_bad_input(run("compare-devices " + kDevice + " " + kKernel + to_file),
                   "stencil-order2-k40-thesis.kernel.json: schema 'warpmodel.kernel/1': expected a device profile");
  expect_bad_input(run("compare-devices " + kDevice + " " + other + " --names one" + to_file),
                   "--names: 1 names for 2 profiles");
  const CommandResult format = run("compare-devices " + kDevice + " " + other + " --format yaml" + to_file);
  EXPECT_EQ(format.exit_code, 2);
  EXPECT_EQ(lines(format.err), 1) << format.err;
  EXPECT_FALSE(fs::exists(out));
}
