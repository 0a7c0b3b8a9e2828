// `warpmodel profile -- APP` on a GPU (label gpu): the example program (tests/app_example)
// profiled by injection. Every launch recorded with the model set's counters, the modules' cubins
// kept (the PTX-only kernel's JIT cubin among them), the copy and scale_add kernels' counts equal to
// the in-process workloads' with the same code and shape (copy, saxpy), --kernel-regex /
// --launch-skip / --launch-count selecting what they say, a failing application giving an
// incomplete profile and exit 5, a missing one exit 2, and predict-app reading the result.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cmath>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "run_program.hpp"
#include "warpmodel/cupti/metrics.hpp"
#include "warpmodel/support/provenance.hpp"
#include "warpmodel/support/text.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using warpmodel::test::CommandResult;

namespace {

const std::string kBin = WARPMODEL_BIN;
const std::string kExample = WARPMODEL_APP_EXAMPLE;

const fs::path& scratch() {
  static const fs::path dir = [] {
    const fs::path d = fs::temp_directory_path() / ("warpmodel-app-gpu-" + std::to_string(::getpid()));
    fs::create_directories(d);
    return d;
  }();
  return dir;
}

std::string q(const fs::path& p) { return warpmodel::support::shell_quote(p.string()); }

CommandResult run_warpmodel(const std::string& args) { return warpmodel::test::run_command(kBin + " " + args); }

json read_json(const fs::path& p) {
  const auto text = warpmodel::support::read_text_file(p);
  if (!text) throw std::runtime_error("missing " + p.string());
  return json::parse(*text);
}

// Profiles the example with `options` into scratch()/<name>; returns the command's result.
CommandResult profile_example(const std::string& name, const std::string& options, const std::string& app_args = "") {
  return run_warpmodel("profile -o " + q(scratch() / name) + " " + options + " -- " + kExample + " " + app_args);
}

const char* const kOrder[] = {"copy_kernel", "matmul_naive_kernel", "reduce_sum_kernel", "reduce_sum_kernel",
                              "scale_add_kernel", "polynomial_kernel"};
// After the two repetitions, once each: the kernels built to trip predict-app's guardrails.
const char* const kGuardrailOrder[] = {"rows_x_only_kernel", "scale_grid_stride_kernel", "bounded_square_kernel",
                                       "block_sum_dynamic_kernel"};
constexpr std::size_t kLaunches = 2 * 6 + 4;

const char* kernel_at(std::size_t i) { return i < 12 ? kOrder[i % 6] : kGuardrailOrder[i - 12]; }

// The counts that depend only on the code and the launch shape.
const std::vector<std::string> kExactCounts = {
    "smsp__warps_launched.sum",
    "smsp__inst_executed.sum",
    "smsp__inst_executed_op_global_ld.sum",
    "smsp__inst_executed_op_global_st.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
};

}  // namespace

TEST(AppProfileGpu, EveryLaunchWithItsCountersAndTheModulesCubins) {
  const CommandResult r = profile_example("app", "");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("every result correct"), std::string::npos) << "APP's own output passes through: " << r.out;
  const json j = read_json(scratch() / "app.json");
  EXPECT_TRUE(j.at("complete").get<bool>());
  EXPECT_EQ(j.at("application").at("exit_code"), 0);
  EXPECT_EQ(j.at("collection").at("range_mode"), "auto");
  EXPECT_EQ(j.at("collection").at("replay_mode"), "kernel");
  // The SM clock the launches ran at, read by NVML inside APP after its first and last profiled launch.
  EXPECT_GT(j.at("provenance").at("sm_clock_mhz").get<double>(), 0.0);
  EXPECT_GT(j.at("provenance").at("sm_clock_mhz_after").get<double>(), 0.0);
  const auto& launches = j.at("launches");
  ASSERT_EQ(launches.size(), kLaunches) << "2 repetitions of 6 launches, then the 4 guardrail kernels";
  const warpmodel::cupti::MetricSet* model = warpmodel::cupti::find_metric_set("model");
  ASSERT_NE(model, nullptr);
  for (std::size_t i = 0; i < launches.size(); ++i) {
    const json& l = launches[i];
    SCOPED_TRACE("launch " + std::to_string(i) + " " + l.at("demangled").get<std::string>());
    EXPECT_EQ(l.at("application_launch_index"), i);
    EXPECT_NE(l.at("demangled").get<std::string>().find(kernel_at(i)), std::string::npos);
    EXPECT_GT(l.at("duration_ns").get<double>(), 0.0);
    EXPECT_GT(l.at("registers_per_thread").get<int>(), 0);
    for (const auto& m : model->metrics) {
      ASSERT_TRUE(l.at("metrics").contains(m)) << m;
      EXPECT_TRUE(l.at("metrics").at(m).is_number()) << m << " is " << l.at("metrics").at(m);
    }
    const auto grid = l.at("grid").get<std::vector<double>>();
    const auto block = l.at("block").get<std::vector<double>>();
    const double warps = grid[0] * grid[1] * grid[2] * std::ceil(block[0] * block[1] * block[2] / 32.0);
    EXPECT_EQ(l.at("metrics").at("smsp__warps_launched.sum").get<double>(), warps);
  }
  EXPECT_EQ(launches[2].at("shared_memory_per_block_bytes").get<int>(), 256 * 4) << "the reduction's shared array: int[256]";
  EXPECT_EQ(launches[3].at("grid"), json::array({1, 1, 1}));
  // The guardrail kernels' shapes (tests/app_example/kernels.hpp).
  EXPECT_EQ(launches[12].at("block"), json::array({64, 4, 1})) << "rows_x_only: a 2D block";
  EXPECT_EQ(launches[13].at("grid"), json::array({264, 1, 1})) << "scale_grid_stride: a fixed grid";
  EXPECT_EQ(launches[14].at("block"), json::array({128, 1, 1})) << "bounded_square: its __launch_bounds__";
  EXPECT_EQ(launches[15].at("shared_memory_per_block_bytes").get<int>(), 256 * 4)
      << "block_sum_dynamic: blockDim.x floats of dynamic shared memory";
  // The cubins of every module, the library's JIT-compiled PTX included.
  EXPECT_EQ(j.at("cubins"), "app.cubins");
  std::size_t cubins = 0;
  for (const auto& e : fs::directory_iterator(scratch() / "app.cubins")) cubins += e.path().extension() == ".cubin";
  EXPECT_GE(cubins, 3u) << "kernels.cu's, scale_add.cu's and polynomial.cu's modules";
  bool jit_kept = false;
  for (const auto& e : fs::directory_iterator(scratch() / "app.cubins")) {
    if (e.path().extension() != ".cubin") continue;
    const CommandResult a = run_warpmodel("sass-analyze " + q(e.path()) + " --format csv");
    EXPECT_EQ(a.code, 0) << e.path() << ": " << a.out;
    jit_kept = jit_kept || a.out.find("polynomial_kernel") != std::string::npos;
  }
  EXPECT_TRUE(jit_kept) << "the PTX-only kernel's SASS is in a kept cubin";
  EXPECT_TRUE(fs::exists(scratch() / "app.csv"));
}

TEST(AppProfileGpu, CountsEqualTheInProcessWorkloadsWithTheSameCode) {
  // copy: the same kernel as `profile --kernel copy` (SassIsTheBuiltinCopysSass), the same n and block.
  ASSERT_EQ(run_warpmodel("profile --kernel copy --size 16777216 --block 256 --metrics model --timing-runs 1 -o " +
                      q(scratch() / "builtin-copy"))
                .code,
            0);
  // scale_add: the same code as the built-in saxpy kernel, at the library's n and block.
  ASSERT_EQ(run_warpmodel("profile --kernel saxpy --size 4194304 --block 128 --metrics model --timing-runs 1 -o " +
                      q(scratch() / "builtin-saxpy"))
                .code,
            0);
  const CommandResult r = profile_example("selected", "--kernel-regex 'copy_kernel|scale_add_kernel' --launch-count 2");
  ASSERT_EQ(r.code, 0) << r.out;
  const json app = read_json(scratch() / "selected.json");
  ASSERT_EQ(app.at("launches").size(), 2u);
  const json& copy = app.at("launches")[0];
  const json& scale_add = app.at("launches")[1];
  ASSERT_NE(copy.at("demangled").get<std::string>().find("copy_kernel"), std::string::npos);
  ASSERT_NE(scale_add.at("demangled").get<std::string>().find("scale_add_kernel"), std::string::npos);
  const json builtin_copy = read_json(scratch() / "builtin-copy.json").at("launches").at(0);
  const json builtin_saxpy = read_json(scratch() / "builtin-saxpy.json").at("launches").at(0);
  EXPECT_EQ(copy.at("grid"), builtin_copy.at("grid"));
  EXPECT_EQ(scale_add.at("block"), builtin_saxpy.at("block"));
  for (const auto& m : kExactCounts) {
    EXPECT_EQ(copy.at("metrics").at(m), builtin_copy.at("metrics").at(m)) << "copy: " << m;
    EXPECT_EQ(scale_add.at("metrics").at(m), builtin_saxpy.at("metrics").at(m)) << "scale_add vs saxpy: " << m;
  }
}

TEST(AppProfileGpu, RegexSkipAndCountSelectWhatTheySay) {
  // Reductions are launches 2, 3, 8, 9: skip one, take two.
  CommandResult r = profile_example("reduce", "--kernel-regex reduce_sum --launch-skip 1 --launch-count 2");
  ASSERT_EQ(r.code, 0) << r.out;
  json j = read_json(scratch() / "reduce.json");
  ASSERT_EQ(j.at("launches").size(), 2u);
  EXPECT_EQ(j.at("launches")[0].at("application_launch_index"), 3);
  EXPECT_EQ(j.at("launches")[1].at("application_launch_index"), 8);
  // A regex on the mangled name: the library's kernels (launches 4, 5, 10, 11).
  r = profile_example("library", "--kernel-regex '^_ZN11app_library'");
  ASSERT_EQ(r.code, 0) << r.out;
  j = read_json(scratch() / "library.json");
  std::vector<int> indices;
  for (const auto& l : j.at("launches")) indices.push_back(l.at("application_launch_index").get<int>());
  EXPECT_EQ(indices, (std::vector<int>{4, 5, 10, 11}));
  // No kernel matches: exit 2, the kernels APP launched, nothing written.
  r = profile_example("none", "--kernel-regex no_such_kernel");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("no kernel matches --kernel-regex 'no_such_kernel'"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("app_example::copy_kernel"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(scratch() / "none.json"));
  EXPECT_FALSE(fs::exists(scratch() / "none.cubins"));
}

TEST(AppProfileGpu, AFailingApplicationGivesAnIncompleteProfile) {
  CommandResult r = profile_example("exit3", "", "--exit-code 3");
  EXPECT_EQ(r.code, 5) << r.out;
  EXPECT_NE(r.out.find("exited with status 3"), std::string::npos) << r.out;
  json j = read_json(scratch() / "exit3.json");
  EXPECT_FALSE(j.at("complete").get<bool>());
  EXPECT_EQ(j.at("application").at("exit_code"), 3);
  EXPECT_EQ(j.at("launches").size(), kLaunches);
  // Killed by a signal after its 4th launch: the 4 launches seen are kept.
  r = profile_example("abort", "", "--abort-after 4");
  EXPECT_EQ(r.code, 5) << r.out;
  j = read_json(scratch() / "abort.json");
  EXPECT_FALSE(j.at("complete").get<bool>());
  EXPECT_EQ(j.at("application").at("signal"), SIGABRT);
  EXPECT_EQ(j.at("launches").size(), 4u);
  // A missing application: exit 2 before anything runs.
  r = run_warpmodel("profile -o " + q(scratch() / "missing") + " -- " + q(scratch() / "no-such-app"));
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_FALSE(fs::exists(scratch() / "missing.json"));
}

TEST(AppProfileGpu, PredictAppReadsTheProfileAndItsCubins) {
  if (!fs::exists(scratch() / "app.json")) {
    ASSERT_EQ(profile_example("app", "").code, 0);
  }
  const fs::path out = scratch() / "predicted.json";
  const CommandResult r = run_warpmodel("predict-app --profile " + q(scratch() / "app.json") + " --device " +
                                    q(WARPMODEL_SOURCE_DIR "/results/h200/device.json") + " --format json -o " + q(out));
  ASSERT_EQ(r.code, 0) << r.out;
  const json j = read_json(out);
  ASSERT_EQ(j.at("rows").size(), kLaunches);
  for (const auto& row : j.at("rows")) {
    EXPECT_TRUE(row.at("predicted_us").is_number()) << row.at("kernel") << ": " << row.at("note");
    EXPECT_TRUE(row.at("measured_us").is_number()) << row.at("kernel");
    EXPECT_FALSE(row.at("speed_of_light").empty()) << row.at("kernel") << ": every launch has counters";
  }
  // Each guardrail kernel trips its guardrail (the reduction's template size among them).
  auto kinds = [&](std::size_t i) {
    std::vector<std::string> found;
    for (const auto& g : j.at("rows")[i].at("guardrails")) found.push_back(g.at("kind").get<std::string>());
    return found;
  };
  auto has = [&](std::size_t i, const std::string& kind) {
    const auto k = kinds(i);
    return std::find(k.begin(), k.end(), kind) != k.end();
  };
  EXPECT_TRUE(has(2, "fixed_block_size"));
  EXPECT_TRUE(has(12, "unused_block_dimension"));
  EXPECT_TRUE(j.at("rows")[12].at("not_recommended").is_string());
  EXPECT_TRUE(has(13, "grid_not_from_block"));
  EXPECT_TRUE(has(14, "launch_bounds"));
  EXPECT_TRUE(has(15, "block_sized_shared_memory"));
  // The device profile is the H200's: a profile from another GPU says so once.
  EXPECT_EQ(j.at("gpu_warning").is_null(), j.at("profile_gpu") == "NVIDIA H200") << j.at("gpu_warning");
}
