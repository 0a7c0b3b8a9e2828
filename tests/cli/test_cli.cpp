// The warpmodel program end to end: exit codes and one-line errors (README "Exit codes").
#include <sys/resource.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <regex>
#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>

#include <gtest/gtest.h>

#include "run_program.hpp"
#include <nlohmann/json.hpp>
#include "warpmodel/support/text.hpp"
#include "warpmodel/support/xz.hpp"

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
  const CommandResult r = run("predict --device " + kDevice + " --kernel " + kKernel + " --model thesis-2016 --terms");
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

// A device profile of a Blackwell GPU loads and predicts: the committed H200 profile's measured rates
// under each newer compute capability (a stand-in for a profile `characterize` would write there),
// its occupancy from that architecture's rules. The kernel's 256-thread blocks hold 8 an SM on sm_100
// and sm_103 (64 warp slots), 6 on sm_120 and sm_121 (48).
TEST(Cli, NewerComputeCapabilitiesLoadAndPredict) {
  auto device = nlohmann::json::parse(
      read_text_file(std::string(WARPMODEL_SOURCE_DIR) + "/results/h200/device.json").value());
  for (const auto& [cc, blocks] : {std::pair{"10.0", 8}, {"10.3", 8}, {"12.0", 6}, {"12.1", 6}}) {
    device["hardware"]["compute_capability"] = cc;
    const std::string path = write(std::string("device-") + cc + ".json", device.dump());
    const CommandResult r = run("predict --device " + path + " --kernel " + kKernel + " --format json");
    ASSERT_EQ(r.exit_code, 0) << cc << ": " << r.err;
    const auto j = nlohmann::json::parse(r.out);
    const auto& p = j.is_array() ? j[0] : j;
    EXPECT_EQ(p["occupancy"]["blocks_limit_by_warps"].get<int>(), blocks) << cc;
    EXPECT_GT(p["cycles"].get<double>(), 0) << cc;
  }
  device["hardware"]["compute_capability"] = "13.0";  // not in the occupancy rules: refused, with the known list
  const CommandResult r = run("predict --device " + write("device-13.0.json", device.dump()) + " --kernel " + kKernel);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown compute capability 13.0"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("12.1"), std::string::npos) << r.err;
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
  // The JSON says where its numbers come from: the printed K40 inputs, no GPU, the thesis's clock.
  const CommandResult json_out = run("reproduce-thesis --format json");
  ASSERT_EQ(json_out.exit_code, 0);
  const auto provenance = nlohmann::json::parse(json_out.out).at("provenance");
  EXPECT_EQ(provenance.at("kind"), "computed");
  EXPECT_EQ(provenance.at("driver"), "none (no GPU was used)");
  EXPECT_DOUBLE_EQ(provenance.at("sm_clock_mhz").get<double>(), 745.0);
  EXPECT_EQ(provenance.at("command"), "warpmodel reproduce-thesis --format json");
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
                   "negative.json: field 'latency_cycles.dram': expected a number of cycles in [0.1, 100000] (its "
                   "plausible range, docs/input-checks.md), got -399");
  EXPECT_EQ(run("predict --device " + kDevice).exit_code, 2);  // missing --kernel
  EXPECT_EQ(run("no-such-command").exit_code, 2);
}

// predict shows the launch's energy (docs/energy.md, E.1, capped by E.3 at the power limit) when the
// device profile has energy coefficients, and nothing about energy when it has none.
TEST(Cli, PredictShowsEnergyOnlyWithCoefficients) {
  const CommandResult plain = run("predict --device " + kDevice + " --kernel " + kKernel + " --model thesis-2016");
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(plain.out.find("energy"), std::string::npos) << plain.out;
  nlohmann::json device = nlohmann::json::parse(read_text_file(kDevice).value_or("{}"));
  device["energy"] = {{"static_w", 60.0}, {"pj_per_fp32_op", 20.0}, {"pj_per_l2_byte", 5.0}, {"pj_per_dram_byte", 150.0}};
  const std::string with_energy = write("energy-device.json", device.dump());
  const CommandResult r = run("predict --device " + with_energy + " --kernel " + kKernel + " --model thesis-2016");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("energy: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" mJ at 60 W; l2 "), std::string::npos) << r.out;  // the K40 kernel counts no FP instructions
  const CommandResult j = run("predict --device " + with_energy + " --kernel " + kKernel + " --model thesis-2016 --format json");
  ASSERT_EQ(j.exit_code, 0) << j.err;
  const nlohmann::json out = nlohmann::json::parse(j.out);
  ASSERT_TRUE(out.contains("energy")) << j.out;
  const double total = out["energy"]["joules"].get<double>();
  double sum = 0;
  for (const auto& [name, joules] : out["energy"]["terms"].items()) sum += joules.get<double>();
  EXPECT_NEAR(sum, total, 1e-12 * total);  // E.1: the terms add up
  // The static term is 60 W times the predicted time.
  EXPECT_NEAR(out["energy"]["static_joules"].get<double>(), 60.0 * out["seconds"].get<double>(), 1e-9);
  EXPECT_FALSE(out["energy"]["at_power_limit"].get<bool>());
  // E.3: a limit just above the static power caps the total at the limit times the time, and says so.
  device["energy"]["power_limit_w"] = 61.0;
  const std::string limited = write("energy-limited.json", device.dump());
  const CommandResult capped = run("predict --device " + limited + " --kernel " + kKernel + " --model thesis-2016 --format json");
  ASSERT_EQ(capped.exit_code, 0) << capped.err;
  const nlohmann::json c = nlohmann::json::parse(capped.out)["energy"];
  ASSERT_TRUE(c["at_power_limit"].get<bool>()) << capped.out;
  EXPECT_NEAR(c["joules"].get<double>(), 61.0 * out["seconds"].get<double>(), 1e-9);
  EXPECT_NEAR(c["counted_dynamic_joules"].get<double>(), out["energy"]["dynamic_joules"].get<double>(), 1e-12);
  const CommandResult text = run("predict --device " + limited + " --kernel " + kKernel + " --model thesis-2016");
  EXPECT_NE(text.out.find("capped at the board's 61 W power limit, E.3"), std::string::npos) << text.out;
}

// Nesting deep enough to overflow a recursive parser's stack is refused before parsing
// (100,000 '[' used to end in SIGSEGV), for the device, kernel and measurement readers alike.
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

// Every numeric option states its bound in one line (--top -5 used to print a 300-digit range).
TEST(Cli, NumericOptionsStateTheirBound) {
  const std::string model = " --device " + kDevice + " --kernel " + kKernel;
  expect_bad_input(run("sweep" + model + " --top -5"), "--top: must be >= 0 (got -5)");
  expect_bad_input(run("sweep" + model + " --top x"), "--top: expected an integer >= 0, got 'x'");
  expect_bad_input(run("run-stencil --steps 0"), "--steps: must be >= 1 (got 0)");
  expect_bad_input(run("run-stencil --depth 4"), "--depth: must be in [1, 3] (got 4)");
  expect_bad_input(run("run-stencil --spacing -1"), "--spacing: must be > 0 (got -1)");
  expect_bad_input(run("run-adi --size 8"), "--size: must be >= 32 (got 8)");
  expect_bad_input(run("characterize --reps 1"), "--reps: must be >= 2 (got 1)");
  expect_bad_input(run("characterize --only tensors"), "--only: tensors not in {core,tensor,energy}");
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

// validate --measure --corpus-kernels: the names are checked before any GPU work (a build without CUDA
// refuses --measure itself: one line, exit 3).
TEST(Cli, ValidateCorpusKernelsAreCheckedFirst) {
  const auto refused = [](const CommandResult& r, const std::string& needle) {
    if (r.err.find("this build has no CUDA") != std::string::npos) {
      EXPECT_EQ(r.exit_code, 3) << r.err;
      return;
    }
    expect_bad_input(r, needle);
  };
  refused(run("validate --measure /nonexistent --corpus-kernels gemm-wmma-f16,gemm-wmma-f61"),
          "--corpus-kernels: 'gemm-wmma-f61' is not a corpus kernel; closest: gemm-wmma-f16");
  refused(run("validate --measure /nonexistent --families adi --corpus-kernels gemm-wmma-f16"),
          "--corpus-kernels: --families must include corpus");
  // Good names go on to the folder's check.
  refused(run("validate --measure /nonexistent --corpus-kernels gemm-wmma-f16"), "/nonexistent/device.json: missing");
}

TEST(Cli, OutputToUnwritableFolderLeavesNothing) {
  // A regular file where the folder should be: not writable even for root.
  const std::string blocker = write("blocker", "not a folder");
  const fs::path target = fs::path(blocker) / "thesis.md";
  expect_bad_input(run("reproduce-thesis --output " + target.string()), "thesis.md: cannot be created there (Not a directory)");
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
    // No driver at all reads as such, not as "driver version insufficient".
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
            "signed_error,abs_error,bound,error,gpu,driver,cuda,sm_clock_mhz,measured_date,measured_commit,"
            "measurement_command,analysis_command");
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
  // One class: no leave-one-class-out errors, so no hopper_intervals (and device.json stays readable).
  EXPECT_TRUE(summary["hopper_intervals"].is_null());
  EXPECT_FALSE(nlohmann::json::parse(read_text_file(fs::path(dir) / "device.json").value_or("{}")).contains("hopper_intervals"));
  EXPECT_NE(r.out.find("hopper 80% intervals: none"), std::string::npos) << r.out;
}

// The measurements stored xz-compressed (as results/ keeps them) give the same tables; a corrupt or
// truncated .xz file is bad input: exit 2, one line naming it.
TEST(Cli, ValidateReadsCompressedMeasurements) {
  const fs::path dir = validate_fixture::folder(false);
  ASSERT_EQ(run("validate --from " + dir.string()).exit_code, 0);
  const std::string plain_csv = read_text_file(dir / "validation.csv").value_or("");
  const std::string text = read_text_file(dir / "validation-measurements.json").value_or("");
  const std::string compressed = warpmodel::support::xz_compress(text);
  EXPECT_LT(compressed.size(), text.size());
  EXPECT_EQ(warpmodel::support::xz_decompress(compressed, text.size(), "test"), text);
  fs::remove(dir / "validation-measurements.json");
  std::ofstream(dir / "validation-measurements.json.xz", std::ios::binary) << compressed;
  fs::remove(dir / "validation.csv");
  const CommandResult r = run("validate --from " + dir.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_text_file(dir / "validation.csv").value_or(""), plain_csv);
  std::ofstream(dir / "validation-measurements.json.xz", std::ios::binary) << compressed.substr(0, compressed.size() / 2);
  const CommandResult truncated = run("validate --from " + dir.string());
  EXPECT_EQ(truncated.exit_code, 2);
  EXPECT_EQ(lines(truncated.err), 1) << truncated.err;
  EXPECT_NE(truncated.err.find("validation-measurements.json.xz: not a complete xz stream"), std::string::npos)
      << truncated.err;
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

// H.12b: profiler-floor.json beside the measurements (one small kernel timed by the Activity API and by
// the counter range) gives device.json's counter_range_overhead_ns, the median difference; one with no
// launch timed both ways is bad input: exit 2, one line naming it, nothing written.
TEST(Cli, ValidateStoresTheMeasuredCounterRangeOverhead) {
  const fs::path dir = validate_fixture::folder(false);
  nlohmann::json floor = {{"schema", "warpmodel.profile/1"},
                          {"collection", {{"timing_runs", 10}}},
                          {"launches", nlohmann::json::array()}};
  for (int i = 0; i < 3; ++i)
    floor["launches"].push_back({{"kernel", "copy_kernel"}, {"launch_index", i}, {"grid", {1, 1, 1}},
                                 {"block", {256, 1, 1}}, {"duration_ns", 1500.0 + 10 * i},
                                 {"metrics", {{"gpu__time_duration.sum", 3400.0 + 100 * i}}}});
  std::ofstream(dir / "profiler-floor.json") << floor.dump(2);
  const CommandResult r = run("validate --from " + dir.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json device = nlohmann::json::parse(read_text_file(dir / "device.json").value_or("{}"));
  EXPECT_DOUBLE_EQ(device["hopper_calibration"]["counter_range_overhead_ns"].get<double>(), 1990.0);  // 1900, 1990, 2080
  EXPECT_NE(read_text_file(dir / "validation.md").value_or("").find("H.12b"), std::string::npos);
  fs::remove(dir / "validation.md");
  floor["collection"]["timing_runs"] = 0;  // profile -- APP's: timed by the range alone
  std::ofstream(dir / "profiler-floor.json") << floor.dump(2);
  const CommandResult bad = run("validate --from " + dir.string());
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(lines(bad.err), 1) << bad.err;
  EXPECT_NE(bad.err.find("profiler-floor.json"), std::string::npos) << bad.err;
  EXPECT_FALSE(fs::exists(dir / "validation.md"));
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

// The tensor stage's quantities: one line per profile without them ("not measured"); with one that has
// some, a row per quantity, "not measured" where a profile lacks it, "n/a" for a field without a value.
TEST(Cli, CompareDevicesShowsTheTensorStage) {
  fs::create_directories(kTmp / "other");
  const std::string other = compare_fixture::other_device();
  const CommandResult none = run("compare-devices " + kDevice + " " + other);
  ASSERT_EQ(none.exit_code, 0) << none.err;
  EXPECT_NE(none.out.find("Tesla K40: not measured (its profile has no measurements.tensor_cores)"), std::string::npos)
      << none.out;
  EXPECT_NE(none.out.find("Other GPU: not measured"), std::string::npos) << none.out;

  auto doc = nlohmann::json::parse(read_text_file(other).value_or("{}"));
  doc["measurements"]["tensor_cores"]["wgmma"]["f16"] = {{"tera_ops_per_s", 700}, {"fraction_of_spec", nullptr}};
  fs::create_directories(kTmp / "tensor");
  const std::string tensor = write("tensor/device.json", doc.dump());
  const CommandResult md = run("compare-devices " + kDevice + " " + tensor + " --format markdown");
  ASSERT_EQ(md.exit_code, 0) << md.err;
  EXPECT_NE(md.out.find("## Tensor stage: tensor cores, TMA, clusters, async copies, library GEMM"), std::string::npos);
  EXPECT_NE(md.out.find("| tensor_cores.wgmma.f16.tera_ops_per_s |  | not measured | 700 |"), std::string::npos)
      << md.out;
  EXPECT_NE(md.out.find("| tensor_cores.wgmma.f16.fraction_of_spec |  | not measured | n/a |"), std::string::npos);
  EXPECT_NE(md.out.find("| cluster.barrier.cluster_16.latency_cycles | cycles | not measured | not measured |"),
            std::string::npos);
  const auto j = nlohmann::json::parse(run("compare-devices " + kDevice + " " + tensor + " --format json").out);
  bool found = false;
  for (const auto& q : j.at("tensor_stage"))
    if (q["quantity"] == "measurements.tensor_cores.wgmma.f16.tera_ops_per_s") {
      found = true;
      EXPECT_EQ(q["values"], nlohmann::json::parse("[null, 700]"));
    }
  EXPECT_TRUE(found);
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

// --- Input checks (docs/input-checks.md): every reader and every option refuses bad input with one
// line naming the file (or option), the field and what was expected, exit 2, nothing written; the
// physical quantities read are checked against their plausible ranges, reads and work are bounded.
namespace input_checks {

const fs::path kSource = WARPMODEL_SOURCE_DIR;
const std::string kH200 = (kSource / "results/h200/device.json").string();
const fs::path kNcu = kSource / "tests/profiles/cupti/fixtures";
const std::string kSass = (kSource / "tests/profiles/sass/fixtures/sm90_stencils").string();

std::string text_of(const fs::path& p) { return read_text_file(p).value_or(""); }

// `text` with the first `from` replaced by `to` (the tampering must hit).
std::string tamper(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "tamper: '" << from << "' not found";
  return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

// Exit 2, one line holding every needle, nothing on standard output, `output` not written.
void refused(const CommandResult& r, const std::vector<std::string>& needles, const fs::path& output = {}) {
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(lines(r.err), 1) << r.err;
  for (const auto& n : needles) EXPECT_NE(r.err.find(n), std::string::npos) << "'" << n << "' not in: " << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  if (!output.empty()) EXPECT_FALSE(fs::exists(output)) << output;
}

// A device profile (the H200's) or kernel profile (the K40 thesis kernel) with one field changed.
std::string device_with(const std::string& name, const std::function<void(nlohmann::json&)>& change) {
  nlohmann::json d = nlohmann::json::parse(text_of(kH200));
  change(d);
  return write(name, d.dump(1));
}
std::string kernel_with(const std::string& name, const std::function<void(nlohmann::json&)>& change) {
  nlohmann::json k = nlohmann::json::parse(text_of(kKernel));
  change(k);
  return write(name, k.dump(1));
}

TEST(InputChecks, AnUnknownSubcommandIsNamedNotHelped) {
  for (const char* args : {"no-such-command", "no-such-command --help", "no-such-command --device x"})
    refused(run(args), {"unknown subcommand 'no-such-command'", "predict, sweep"});
  refused(run("predcit --device x"), {"unknown subcommand 'predcit' (did you mean 'predict'?)"});
  EXPECT_EQ(run("predict --help").exit_code, 0);
}

TEST(InputChecks, EmptyNamesDevicesAndFoldersAreNoFiles) {
  refused(run("predict --device '' --kernel " + kKernel), {"--device: expected a file or folder name, got ''"});
  refused(run("kernel-profile --sass '' --kernel k"), {"--sass: expected a file or folder name, got ''"});
  refused(run("predict --device /dev/zero --kernel " + kKernel), {"/dev/zero: is a character device"});
  refused(run("predict --device " + kTmp.string() + " --kernel " + kKernel), {"is a folder, not a file"});
  refused(run("import-ncu /dev/zero -o " + (kTmp / "z.json").string()), {"/dev/zero: is a character device"},
          kTmp / "z.json");
  refused(run("compare-devices '' " + kDevice), {"'': expected the path of a file, got an empty name"});
  // Arguments are UTF-8: a byte that is not would reach the JSON output.
  refused(run("predict --device \"$(printf 'x\\377')\" --kernel " + kKernel), {"argument 3 is not UTF-8 (byte 0xff)"});
}

TEST(InputChecks, OutputIsANewNameOrAFileNeverAnInput) {
  const std::string model = " --model thesis-2016";
  // -o naming an input: refused, the input intact.
  const std::string device = write("input-device.json", text_of(kDevice));
  refused(run("predict --device " + device + " --kernel " + kKernel + model + " -o " + device),
          {"-o " + device + ": is the input --device"});
  EXPECT_EQ(text_of(device), text_of(kDevice));
  // A folder, a device node: refused, the node still a device.
  refused(run("predict --device " + kDevice + " --kernel " + kKernel + model + " -o " + kTmp.string()),
          {"-o " + kTmp.string() + ": is a folder"});
  refused(run("reproduce-thesis -o /dev/null"), {"-o /dev/null: is a character device"});
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  // import-ncu onto its CSV; compare-ncu onto a file of its folder.
  const fs::path csv = kTmp / "ncu-raw.csv";
  fs::copy_file(kNcu / "app-example/ncu-raw.csv", csv, fs::copy_options::overwrite_existing);
  refused(run("import-ncu " + csv.string() + " -o " + csv.string()), {"is the input report"});
  EXPECT_EQ(text_of(csv), text_of(kNcu / "app-example/ncu-raw.csv"));
  const fs::path from = kTmp / "compare-ncu";
  fs::remove_all(from);
  fs::copy(kNcu / "ncu-comparison", from);
  refused(run("compare-ncu --from " + from.string() + " -o " + (from / "cupti-0").string()), {"is the input"});
  // validate -o: a new folder is made; a file is no folder.
  const std::string dir = validate_fixture::folder(false);
  const fs::path fresh = kTmp / "new" / "dir";
  fs::remove_all(kTmp / "new");
  const CommandResult made = run("validate --from " + dir + " -o " + fresh.string());
  EXPECT_EQ(made.exit_code, 0) << made.err;
  EXPECT_TRUE(fs::exists(fresh / "validation.md"));
  refused(run("validate --from " + dir + " -o " + device), {"-o " + device + ": is a regular file; expected a folder"});
}

TEST(InputChecks, IntegerOptionsAreReadOneWay) {
  const std::string model = "sweep --device " + kDevice + " --kernel " + kKernel + " --model thesis-2016";
  for (const char* top : {"1e3", "5e-324", "x", "1.5", ""})
    refused(run(model + " --top '" + top + "'"), {"--top: expected an integer >= 0, got '" + std::string(top) + "'"});
  refused(run(model + " --top="), {"--top: expected an integer >= 0, got ''"});
  // The same number beyond any count, refused alike by both options.
  refused(run(model + " --top 99999999999999999999"), {"--top: must be <= 2147483647 (got 99999999999999999999)"});
  refused(run("kernel-profile --kernel k --launch-index 99999999999999999999"),
          {"--launch-index: must be <= 2147483647 (got 99999999999999999999)"});
  EXPECT_EQ(run(model + " --top 3").exit_code, 0);
}

TEST(InputChecks, PhysicalQuantitiesAreWithinTheirPlausibleRanges) {
  const std::string kernel = " --kernel " + kKernel + " --model thesis-2016";
  refused(run("predict --device " + device_with("clock.json", [](auto& d) { d["hardware"]["sm_clock_mhz"] = 5e-324; }) + kernel),
          {"clock.json: field 'hardware.sm_clock_mhz': expected a number of MHz in [100, 10000]", "plausible range"});
  refused(run("predict --device " + device_with("latency.json", [](auto& d) { d["latency_cycles"]["dram"] = 1e308; }) + kernel),
          {"latency.json: field 'latency_cycles.dram': expected a number of cycles in [0.1, 100000]"});
  refused(run("predict --device " +
              device_with("bandwidth.json", [](auto& d) { d["measurements"]["bandwidth"]["dram_copy"]["gbs"] = 1e-300; }) +
              kernel),
          {"bandwidth.json: field 'measurements.bandwidth.dram_copy.gbs': expected a number of GB/s in [1, 1e6]"});
  refused(run("predict --device " + kDevice + " --model thesis-2016 --kernel " +
              kernel_with("mlp.json", [](auto& k) { k["parallelism"]["mlp"] = 5e-324; })),
          {"mlp.json: field 'parallelism.mlp': expected a number of instructions in [0.1, 10000]"});
  refused(run("predict --device " + kDevice + " --model thesis-2016 --kernel " +
              kernel_with("grid.json", [](auto& k) { k["launch"]["grid"] = {2147483648LL, 1, 1}; })),
          {"grid.json: field 'launch.grid': expected a positive integer or [x, y, z]"});
}

// The traffic model's work is bounded where it is read: 2e9 bytes per thread used to run for minutes.
TEST(InputChecks, AccessPatternWorkIsBounded) {
  const fs::path kernel = kTmp / "patterns.json";
  const CommandResult made = run("kernel-profile --sass " + kSass + ".sass --cfg " + kSass + ".cfg.dot --res-usage " +
                                 kSass + ".res-usage.txt --kernel 'naive_kernel<1>' --launch grid=8x8x8,block=8x8x4 -o " +
                                 kernel.string());
  ASSERT_EQ(made.exit_code, 0) << made.err;
  nlohmann::json k = nlohmann::json::parse(text_of(kernel));
  ASSERT_FALSE(k["access_patterns"]["accesses"].empty());
  k["access_patterns"]["accesses"][0]["bytes_per_thread"] = 2000000000;
  const std::string huge = write("huge-access.json", k.dump());
  for (const char* sub : {"predict", "sweep"}) {
    const auto start = std::chrono::steady_clock::now();
    refused(run(std::string(sub) + " --device " + kH200 + " --kernel " + huge),
            {"huge-access.json: field 'access_patterns.accesses[0].bytes_per_thread': expected an integer in [1, 32]"});
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10)) << sub;
  }
  // The count of addressed accesses is bounded above the largest public kernel (s3d's ratx4: 404),
  // which kernel-profile once wrote and then refused to read.
  const nlohmann::json made_kernel = nlohmann::json::parse(text_of(kernel));
  const auto with_accesses = [&](const std::string& name, std::size_t count) {
    nlohmann::json many = made_kernel;
    nlohmann::json& accesses = many["access_patterns"]["accesses"];
    const nlohmann::json first = accesses[0];
    accesses = nlohmann::json::array();
    for (std::size_t i = 0; i < count; ++i) {
      nlohmann::json a = first;
      a["offset"] = 16 * i;
      accesses.push_back(std::move(a));
    }
    return write(name, many.dump());
  };
  const CommandResult public_size = run("predict --device " + kH200 + " --kernel " + with_accesses("404-accesses.json", 404));
  EXPECT_EQ(public_size.exit_code, 0) << public_size.err;
  refused(run("predict --device " + kH200 + " --kernel " + with_accesses("1025-accesses.json", 1025)),
          {"1025-accesses.json: field 'access_patterns.accesses': expected at most 1024 accesses with an address per kernel"});
}

// import-ncu writes only what its own readers (kernel-profile --counters, predict-app) accept.
TEST(InputChecks, ImportNcuRefusesWhatItsReadersWould) {
  fs::create_directories(kTmp);  // ctest runs each test in a process of its own
  const std::string rows = text_of(kNcu / "app-example/ncu-long.csv");
  const std::string duration = "\"gpu__time_duration.sum\",\"ns\",\"51,936\"";
  const std::string registers = "\"launch__registers_per_thread\",\"register/thread\",\"16\"";
  const std::string dram = "\"dram__bytes_read.sum\",\"byte\",\"67,128,832\"";
  const std::pair<std::string, std::vector<std::string>> cases[] = {
      {tamper(rows, "copy_kernel(const", "copy\xff_kernel(const"), {"t.csv:6:", "byte 0xff is not UTF-8"}},
      {tamper(rows, "\"dram__bytes_read.sum\"", "\"dram\xc3_bytes_read.sum\""), {"byte 0xc3 is not UTF-8"}},
      {tamper(rows, duration, "\"gpu__time_duration.sum\",\"ns\",\"-51,936\""),
       {"(ID 0): gpu__time_duration.sum: expected a number of ns in [1, 1e15], got -51936"}},
      {tamper(rows, duration, "\"gpu__time_duration.sum\",\"Tbyte\",\"51,936\""),
       {"gpu__time_duration.sum: expected a value in a time", "'Tbyte'"}},
      {tamper(rows, dram, "\"dram__bytes_read.sum\",\"byte\",\"-67,128,832\""), {"dram__bytes_read.sum: expected a number in [0, 1e18]"}},
      {tamper(rows, registers, "\"launch__registers_per_thread\",\"register/thread\",\"-1\""),
       {"launch__registers_per_thread: expected an integer in [0, 255], got -1"}},
      {tamper(rows, registers, "\"launch__registers_per_thread\",\"register/thread\",\"18,446,744,073,709,551,616\""),
       {"launch__registers_per_thread: expected an integer in [0, 255]"}},
      {tamper(rows, "\"(65536, 1, 1)\"", "\"(2147483648, 1, 1)\""), {"Grid Size: expected an integer in [1, 2147483647]"}},
  };
  for (const auto& [text, needles] : cases) {
    const fs::path csv = kTmp / "t.csv", out = kTmp / "t.json";
    std::ofstream(csv, std::ios::binary) << text;
    refused(run("import-ncu " + csv.string() + " -o " + out.string()), needles, out);
  }
  for (const char* malformed : {"12,34", "0x10", "NaN"}) {
    const fs::path csv = kTmp / "t.csv", out = kTmp / "t.json";
    std::ofstream(csv, std::ios::binary) << tamper(rows, dram, "\"dram__bytes_read.sum\",\"byte\",\"" + std::string(malformed) + "\"");
    refused(run("import-ncu " + csv.string() + " -o " + out.string()),
            {"dram__bytes_read.sum: expected a number", "got '" + std::string(malformed) + "'"}, out);
  }
  // A byte-order mark before the header is no part of it.
  const fs::path bom = kTmp / "bom.csv", out = kTmp / "bom.json";
  std::ofstream(bom, std::ios::binary) << tamper(rows, "\"ID\",", "\xEF\xBB\xBF\"ID\",");
  const CommandResult r = run("import-ncu " + bom.string() + " -o " + out.string());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(out));
}

// import-ncu streams the CSV: its memory stays a fraction of the file's size (a 50 MB raw page
// used to take 3.3 GB).
TEST(InputChecks, ImportNcuMemoryStaysBelowThreeTimesTheFile) {
#ifdef WARPMODEL_SANITIZED
  GTEST_SKIP() << "AddressSanitizer's own memory is no measure of the importer's";
#endif
  fs::create_directories(kTmp);
  const std::string raw = text_of(kNcu / "app-example/ncu-raw.csv");
  std::istringstream in(raw);
  std::string line, header, units;
  std::vector<std::string> launches;
  while (std::getline(in, line)) {
    if (line.rfind("\"ID\",", 0) == 0) header = line;
    else if (!header.empty() && units.empty()) units = line;
    else if (!header.empty() && !line.empty()) launches.push_back(line.substr(line.find(',')));
  }
  ASSERT_FALSE(launches.empty());
  const fs::path csv = kTmp / "big-raw.csv", out = kTmp / "big-raw.json";
  {
    std::ofstream big(csv, std::ios::binary);
    big << header << "\n" << units << "\n";
    for (std::size_t id = 0, bytes = 0; bytes < (std::size_t{24} << 20); ++id) {
      const std::string row = "\"" + std::to_string(id) + "\"" + launches[id % launches.size()] + "\n";
      big << row;
      bytes += row.size();
    }
  }
  const auto size = fs::file_size(csv);
  const CommandResult r = run("import-ncu " + csv.string() + " -o " + out.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  struct rusage usage {};
  ::getrusage(RUSAGE_CHILDREN, &usage);
  EXPECT_LT(static_cast<double>(usage.ru_maxrss) * 1024, 3.0 * static_cast<double>(size))
      << "peak " << usage.ru_maxrss << " KB for a " << size << "-byte CSV";
  fs::remove(csv);
  fs::remove(out);
}

TEST(InputChecks, CompareNcuRefusesANonNumberAndPrintsNoInfinity) {
  fs::create_directories(kTmp);
  const fs::path from = kTmp / "compare-bad";
  fs::remove_all(from);
  fs::copy(kNcu / "ncu-comparison", from);
  nlohmann::json cupti = nlohmann::json::parse(text_of(from / "cupti-0.json"));
  nlohmann::json& metrics = cupti["launches"][0]["metrics"];
  const std::string metric = metrics.begin().key();
  metrics[metric] = true;
  std::ofstream(from / "cupti-0.json") << cupti.dump(1);
  refused(run("compare-ncu --from " + from.string() + " -o " + (kTmp / "cmp").string()),
          {"cupti-0.json: launches[0].metrics: field '" + metric + "': expected a number in [0, 1e18] or null, got true"},
          kTmp / "cmp.md");
  // ncu's 0 against CUPTI's 1: no relative difference, a problem, no "inf %".
  metrics["dram__bytes_read.sum"] = 1.0;
  std::ofstream(from / "cupti-0.json") << cupti.dump(1);
  std::string csv = text_of(from / "ncu-0.csv");
  std::ofstream(from / "ncu-0.csv") << tamper(csv, "\"67,120,128\"", "\"0\"");
  fs::remove(from / "cupti-0-repeat.json");
  const CommandResult r = run("compare-ncu --from " + from.string() + " -o " + (kTmp / "cmp").string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::regex infinity(R"((^|[^A-Za-z_])(-?inf|nan)([^A-Za-z_]|$))", std::regex::icase);
  for (const std::string& text : {r.out, text_of(kTmp / "cmp.md"), text_of(kTmp / "cmp.json")})
    EXPECT_FALSE(std::regex_search(text, infinity)) << text.substr(0, 2000);
  EXPECT_NE(text_of(kTmp / "cmp.md").find("dram__bytes_read.sum: no relative difference"), std::string::npos);
}

TEST(InputChecks, PredictAppReadsCompleteBeforeItsWork) {
  nlohmann::json profile = nlohmann::json::parse(text_of(kSource / "results/h200/app-example/profile.json"));
  const std::string rest = " --device " + kH200 + " --cubins " + (kSource / "results/h200/app-example/profile.cubins").string();
  profile["complete"] = nullptr;
  refused(run("predict-app --profile " + write("complete-null.json", profile.dump()) + rest),
          {"complete-null.json: field 'complete': expected true or false, got null"});
  profile["complete"] = false;
  profile["incomplete_reason"] = 5;
  refused(run("predict-app --profile " + write("reason.json", profile.dump()) + rest),
          {"reason.json: field 'incomplete_reason': expected a string, got 5"});
}

// An import of ncu's metric rows without --binary keeps ncu's names: predict-app says so (it used
// to name the same kernels as missing and as present).
TEST(InputChecks, PredictAppSaysWhenNamesAreNcusOwn) {
  const fs::path imported = kTmp / "long-import.json";
  const CommandResult import = run("import-ncu " + (kSource / "results/h200/app-example/ncu-long.csv").string() + " -o " +
                                   imported.string());
  ASSERT_EQ(import.exit_code, 0) << import.err;
  const CommandResult r = run("predict-app --profile " + imported.string() + " --device " + kH200 + " --cubins " +
                              (kSource / "results/h200/app-example/profile.cubins").string());
  if (r.err.find("cuobjdump not found") != std::string::npos) GTEST_SKIP() << r.err;
  refused(r, {"long-import.json names its kernels as ncu printed them", "import-ncu --binary APP"});
}

TEST(InputChecks, KernelProfileRefusesDumpsOfNoKernel) {
  const std::string garbage = write("garbage.txt", "garbage\n");
  const std::string base = "kernel-profile --sass " + kSass + ".sass --kernel 'naive_kernel<1>' --launch grid=8,block=256";
  refused(run(base + " --res-usage " + garbage), {"garbage.txt: no resource usage of any kernel", "cuobjdump -res-usage"});
  refused(run(base + " --cfg " + garbage), {"garbage.txt: no control-flow graph of any kernel", "nvdisasm -bbcfg"});
}

}  // namespace input_checks

// predict, sweep and predict-app with the H200's committed device profile: every time with its 80 %
// interval and where it came from; predict leads with a summary, every term under --terms.
namespace intervals_cli {

const fs::path kRepo = WARPMODEL_SOURCE_DIR;
const std::string kH200Device = (kRepo / "results/h200/device.json").string();

// The first launch of the committed H200 sweep, as a kernel profile.
std::string h200_kernel() {
  static const std::string path = [] {
    std::ifstream in(kRepo / "results/h200/validation-measurements.json.xz", std::ios::binary);
    const std::string xz((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto j = nlohmann::json::parse(warpmodel::support::xz_decompress(xz, 1ULL << 32, "sweep"));
    return write("h200-kernel.json", j["cases"][0]["profile"].dump());
  }();
  return path;
}

std::string line_starting(const std::string& text, const std::string& prefix) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(prefix, 0) == 0) return line;
  return "";
}

TEST(Intervals, PredictLeadsWithASummary) {
  const std::string args = "predict --device " + kH200Device + " --kernel " + h200_kernel();
  const CommandResult r = run(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string time = line_starting(r.out, "time: ");
  EXPECT_NE(time.find(" us, 80 % interval "), std::string::npos) << r.out;
  EXPECT_NE(time.find("held-out errors"), std::string::npos) << r.out;
  EXPECT_NE(line_starting(r.out, "bound: "), "") << r.out;
  // hopper's verdict is its bound: no MWP-CWP case beside it.
  EXPECT_EQ(line_starting(r.out, "case: "), "") << r.out;
  const std::string largest = line_starting(r.out, "largest terms (cycles of one wave): ");
  EXPECT_EQ(std::count(largest.begin(), largest.end(), '('), 4) << largest;  // the heading's and three terms'
  EXPECT_NE(line_starting(r.out, "calibration: launch_cycles = ").find("turnover_exponent = "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(every term of the model: --terms)"), std::string::npos);
  EXPECT_EQ(r.out.find("T_last_wave"), std::string::npos) << r.out;

  const CommandResult terms = run(args + " --terms");
  ASSERT_EQ(terms.exit_code, 0) << terms.err;
  for (const char* term : {"T_last_wave", "T_schedule", "time low (us)", "time high (us)"})
    EXPECT_NE(terms.out.find(term), std::string::npos) << term;
  EXPECT_EQ(line_starting(terms.out, "case "), "") << terms.out;  // "-" for hopper: the row is left out

  const CommandResult json = run(args + " --format json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto j = nlohmann::json::parse(json.out);
  const double us = j["seconds"].get<double>() * 1e6;
  EXPECT_LT(j["interval"]["low_us"].get<double>(), us);
  EXPECT_GT(j["interval"]["high_us"].get<double>(), us);
  EXPECT_FALSE(j["terms"]["T_last_wave"].is_null());  // json keeps every term
  EXPECT_EQ(j["largest_terms"].size(), 3u);
  EXPECT_TRUE(j["calibration_applied"]["scale"].is_number());

  const CommandResult csv = run(args + " --format csv");
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_NE(csv.out.find("\ntime low (us),80 %,"), std::string::npos) << csv.out;

  // Without intervals or constants, the summary says so.
  nlohmann::json bare = nlohmann::json::parse(read_text_file(kH200Device).value_or("{}"));
  bare.erase("hopper_intervals");
  bare.erase("hopper_calibration");
  const CommandResult unfitted = run("predict --device " + write("bare.json", bare.dump()) + " --kernel " + h200_kernel());
  ASSERT_EQ(unfitted.exit_code, 0) << unfitted.err;
  EXPECT_NE(line_starting(unfitted.out, "time: ").find("no interval (the device profile has no hopper_intervals"),
            std::string::npos)
      << unfitted.out;
  EXPECT_EQ(line_starting(unfitted.out, "calibration: "), "calibration: none (unfitted)") << unfitted.out;
}

// The MWP-CWP variants show their case, and no interval or constants.
TEST(Intervals, PredictSummaryOfAnMwpCwpVariant) {
  const CommandResult r = run("predict --device " + kDevice + " --kernel " + kKernel + " --model thesis-2016");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(line_starting(r.out, "case: "), "") << r.out;
  EXPECT_EQ(line_starting(r.out, "bound: "), "") << r.out;
  EXPECT_NE(line_starting(r.out, "time: ").find("no interval"), std::string::npos) << r.out;
  EXPECT_NE(line_starting(r.out, "largest terms (cycles): ").find("T_mem"), std::string::npos) << r.out;
  EXPECT_NE(line_starting(r.out, "calibration: none (the MWP-CWP variants"), "") << r.out;
}

TEST(Intervals, SweepPrintsEachShapesInterval) {
  const std::string args = "sweep --device " + kH200Device + " --kernel " + h200_kernel() + " --top 4";
  const CommandResult csv = run(args + " --format csv");
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_NE(csv.out.find(",bound,cycles,time_us,time_low_us,time_high_us,"), std::string::npos) << csv.out;
  const CommandResult json = run(args + " --format json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto ranked = nlohmann::json::parse(json.out)["ranked"];  // a copy: the parsed document is a temporary
  for (const auto& e : ranked) {
    const double us = e["prediction"]["seconds"].get<double>() * 1e6;
    EXPECT_LE(e["interval"]["low_us"].get<double>(), us);
    EXPECT_GE(e["interval"]["high_us"].get<double>(), us);
  }
}

// predict-app: each launch's interval, and one wording for a shape pick inside the uncertainty, so
// that the same kernel and shape read the same.
TEST(Intervals, PredictAppIntervalsAndReliableGains) {
  const std::string args = "predict-app --profile " + (kRepo / "results/h200/app-example/profile.json").string() +
                           " --device " + kH200Device;
  const CommandResult json = run(args + " --format json");
  if (json.err.find("cuobjdump not found") != std::string::npos) GTEST_SKIP() << json.err;
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto j = nlohmann::json::parse(json.out);
  EXPECT_GT(j["gain_threshold_pct"].get<double>(), 0.5);
  EXPECT_TRUE(j["interval_source"].is_string());
  for (const auto& row : j["rows"]) {
    if (row["predicted_us"].is_null()) continue;
    EXPECT_LT(row["predicted_low_us"].get<double>(), row["predicted_us"].get<double>());
    EXPECT_GT(row["predicted_high_us"].get<double>(), row["predicted_us"].get<double>());
    if (row["gain_pct"].is_number())
      EXPECT_EQ(row["reliable_gain"].get<bool>(), row["gain_pct"].get<double>() > j["gain_threshold_pct"].get<double>() &&
                                                      row["best_block"] != row["block"]);
  }
  const CommandResult table = run(args);
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("80 % interval (us)"), std::string::npos);
  EXPECT_EQ(table.out.find("none better"), std::string::npos) << table.out;
  EXPECT_EQ(table.out.find("as profiled"), std::string::npos) << table.out;
  // The same kernel at the same shape (the application's two repetitions): the same best-block cell.
  const CommandResult csv = run(args + " --format csv");
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  std::map<std::string, std::string> cell;  // kernel|grid|block -> the best-block cell
  std::istringstream in(csv.out);
  const auto fields = [](const std::string& line) {
    std::vector<std::string> f(1);  // the fields, quotes undone
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
      if (line[i] == '"') {
        if (quoted && i + 1 < line.size() && line[i + 1] == '"') f.back() += line[++i];
        else quoted = !quoted;
      } else if (line[i] == ',' && !quoted) {
        f.emplace_back();
      } else {
        f.back() += line[i];
      }
    }
    return f;
  };
  std::string header;
  std::getline(in, header);
  // Columns by name: the energy columns follow the interval's where the device profile has energy.
  const std::vector<std::string> names = fields(header);
  const auto column = [&](const std::string& name) {
    const auto at = std::find(names.begin(), names.end(), name);
    EXPECT_NE(at, names.end()) << name << " not in " << header;
    return static_cast<std::size_t>(at - names.begin());
  };
  const std::size_t reliable = column("reliable_gain"), best = column("best_block");
  for (std::string line; std::getline(in, line);) {
    const std::vector<std::string> f = fields(line);
    ASSERT_EQ(f.size(), names.size()) << line;
    const std::string key = f[0] + "|" + f[4] + "|" + f[5];
    // What the table's best-block cell says: the shape when its gain is reliable.
    const std::string value = f[reliable] == "0" ? "no reliable gain" : f[best];
    if (cell.count(key)) EXPECT_EQ(cell[key], value) << key;
    cell[key] = value;
  }
}

TEST(Intervals, DeviceIntervalsOutOfRangeAreOneLine) {
  nlohmann::json d = nlohmann::json::parse(read_text_file(kH200Device).value_or("{}"));
  d["hopper_intervals"]["widen"] = 0;
  expect_bad_input(run("predict --device " + write("widen.json", d.dump()) + " --kernel " + h200_kernel()),
                   "field 'hopper_intervals.widen': expected a number in [0.1, 10]");
}

}  // namespace intervals_cli
