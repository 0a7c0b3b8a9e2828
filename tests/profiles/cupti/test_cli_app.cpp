// `warpmodel profile -- APP`, `import-ncu`, `predict-app` and kernel-profile's fallback line, end
// to end, without a GPU: the arguments after --, every refusal before APP runs (one line, the
// README's exit code, nothing written), the importer on the committed ncu files, predictions of a
// committed profile with the project's own binary and with the example program's kernels (from its
// binary and from a folder of cubins), and the example's copy kernel compiled to the same SASS as
// the built-in copy workload's.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "run_program.hpp"
#include "warpmodel/sass/tools.hpp"
#include "warpmodel/support/provenance.hpp"
#include "warpmodel/support/text.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using warpmodel::test::CommandResult;

namespace {

const std::string kBin = WARPMODEL_BIN;
const std::string kExample = WARPMODEL_APP_EXAMPLE;
const fs::path kFixtures = WARPMODEL_CUPTI_FIXTURES;
const fs::path kDevice = WARPMODEL_SOURCE_DIR "/results/h200/device.json";

struct Output {
  int code = -1;
  std::string out, err;
};

// Runs warpmodel with stdout and stderr apart.
Output run(const std::string& args, const std::string& env = "") {
  static int n = 0;
  const fs::path err = fs::temp_directory_path() / ("warpmodel-cli-app-" + std::to_string(::getpid()) + "-" + std::to_string(n++));
  // run_command merges stderr into stdout after the command; the group keeps them apart.
  const CommandResult r =
      warpmodel::test::run_command("{ " + env + (env.empty() ? "" : " ") + kBin + " " + args + " 2>" + err.string() + "; }");
  Output o;
  o.code = r.code;
  o.out = r.out;
  o.err = warpmodel::support::read_text_file(err).value_or("");
  fs::remove(err);
  return o;
}

std::size_t lines(const std::string& s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }

bool have_gpu() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("warpmodel-cli-app-dir-" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
};

json read_json(const fs::path& p) { return json::parse(warpmodel::support::read_text_file(p).value()); }

std::string q(const fs::path& p) { return warpmodel::support::shell_quote(p.string()); }

}  // namespace

TEST(ProfileApp, EverythingAfterTheSeparatorIsTheApplications) {
  TempDir t;
  const fs::path prefix = t.path / "echo";
  // --kernel and -o after -- are echo's: no "both --kernel and APP" refusal.
  const Output o = run("profile -o " + q(prefix) + " -- /bin/echo --kernel copy -o y");
  if (have_gpu()) {
    EXPECT_EQ(o.code, 2) << o.err;  // echo runs and never initialises CUDA
    EXPECT_NE(o.err.find("without initialising CUDA"), std::string::npos) << o.err;
    EXPECT_NE(o.out.find("--kernel copy -o y"), std::string::npos) << "APP's stdout passes through";
  } else {
    EXPECT_EQ(o.code, 3) << o.err;
    EXPECT_EQ(lines(o.err), 1u) << o.err;
    EXPECT_NE(o.err.find("no NVIDIA driver"), std::string::npos) << o.err;
  }
  EXPECT_FALSE(fs::exists(prefix.string() + ".json"));
  EXPECT_FALSE(fs::exists(prefix.string() + ".cubins"));
  for (const auto& e : fs::directory_iterator(t.path)) ADD_FAILURE() << "left behind: " << e.path();
}

TEST(ProfileApp, RefusalsBeforeAnythingRunsAreOneLine) {
  TempDir t;
  const std::string o = " -o " + q(t.path / "p");
  const fs::path plain = t.path / "not-executable";
  std::ofstream(plain) << "#!/bin/sh\n";
  const std::pair<std::string, std::string> cases[] = {
      {"profile" + o + " -- /nonexistent/app", "/nonexistent/app: no such file"},
      {"profile" + o + " -- warpmodel-no-such-program", "not found in PATH"},
      {"profile" + o + " -- " + q(plain), "not executable"},
      {"profile" + o + " -- " + q(t.path), "not a file"},
      {"profile" + o, "name a built-in workload (--kernel"},
      {"profile" + o + " --", "name a built-in workload (--kernel"},
      {"profile" + o + " --kernel-regex '(' -- /bin/true", "--kernel-regex '(': not a valid regular expression"},
      {"profile" + o + " --launch-count 0 -- /bin/true", "--launch-count must be at least 1"},
      {"profile" + o + " --range user --timing-runs 3 -- /bin/true", "--range, --timing-runs: for the built-in workloads"},
      {"profile" + o + " --kernel copy -- /bin/true", "--kernel names a built-in workload and -- an application"},
      {"profile --kernel copy --launch-skip 2", "--launch-skip: for an application (-- APP) only"},
      {"profile -o /proc/warpmodel-no/p -- /bin/true", "not writable"},
  };
  for (const auto& [args, message] : cases) {
    const Output r = run(args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.err;
    EXPECT_EQ(lines(r.err), 1u) << args << "\n" << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << args << "\n" << r.err;
  }
  const Output under_ncu = run("profile" + o + " -- /bin/true", "CUDA_INJECTION64_PATH=/opt/ncu/libInjection.so");
  EXPECT_EQ(under_ncu.code, 4) << under_ncu.err;
  EXPECT_EQ(lines(under_ncu.err), 1u);
  EXPECT_NE(under_ncu.err.find("import-ncu"), std::string::npos) << "the way out for an application: " << under_ncu.err;
  for (const auto& e : fs::directory_iterator(t.path))
    EXPECT_EQ(e.path(), plain) << "nothing written: " << e.path();
}

TEST(ImportNcu, TheRealRawPageWithTheProgramsKernels) {
  TempDir t;
  const fs::path out = t.path / "imported.json";
  const Output o = run("import-ncu " + q(kFixtures / "ncu-comparison/ncu-0.csv") + " -o " + q(out) + " --binary " + kBin);
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("1 launch(es) of 1 kernel(s)"), std::string::npos) << o.out;
  // One warning line: the model set's metric that run did not collect.
  EXPECT_EQ(lines(o.err), 1u) << o.err;
  EXPECT_NE(o.err.find("smsp__inst_executed_pipe_adu.sum"), std::string::npos) << o.err;
  const json j = read_json(out);
  EXPECT_EQ(j.at("schema"), "warpmodel.profile/1");
  const json& l = j.at("launches").at(0);
  EXPECT_EQ(l.at("kernel").get<std::string>().rfind("_ZN9warpmodel5cupti", 0), 0u) << l.at("kernel");
  EXPECT_EQ(l.at("demangled"), "warpmodel::cupti::(anonymous namespace)::copy_kernel(float const*, float*, long long)");
  EXPECT_EQ(l.at("duration_ns"), 52768.0);
  EXPECT_NE(j.at("provenance").at("command").get<std::string>().find("import-ncu"), std::string::npos);

  // kernel-profile reads it and says which fields fell back to static estimates (the ADU pipe feeds
  // the barrier count, which the copy kernel does not need; fp and async copies are never in the set).
  const Output k = run("kernel-profile --kernel copy_kernel --binary " + kBin + " --counters " + q(out));
  ASSERT_EQ(k.code, 0) << k.err;
  EXPECT_EQ(lines(k.err), 1u) << k.err;
  EXPECT_NE(k.err.find("from static estimates"), std::string::npos) << k.err;
  EXPECT_NE(k.err.find("instructions_per_warp.fp"), std::string::npos) << k.err;
  EXPECT_EQ(k.err.find("instructions_per_warp.total"), std::string::npos) << k.err;
}

TEST(ImportNcu, TheExampleProgramInBothLayouts) {
  TempDir t;
  std::map<std::string, json> imported;
  for (const char* name : {"ncu-raw.csv", "ncu-long.csv"}) {
    const fs::path out = t.path / (std::string(name) + ".json");
    const Output o = run("import-ncu " + q(kFixtures / "app-example" / name) + " -o " + q(out) + " --binary " + kExample);
    ASSERT_EQ(o.code, 0) << name << "\n" << o.err;
    // Every name mapped; the one warning: the metrics the model set gained after these files were
    // measured (the local loads' and stores' requests and sectors, the L2's sectors by operation, the LSU
    // wavefronts, the L1's atomic sectors, the busiest slice's), in one line.
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
    EXPECT_NE(o.err.find("lacks 29 of the `model` set's metrics"), std::string::npos) << name << ": " << o.err;
    imported[name] = read_json(out);
  }
  const json& raw = imported.at("ncu-raw.csv");
  const json& rows = imported.at("ncu-long.csv");
  ASSERT_EQ(raw.at("launches").size(), 12u) << "two repetitions of the program's 6 launches";
  ASSERT_EQ(rows.at("launches").size(), 12u);
  for (std::size_t i = 0; i < 12; ++i) {
    EXPECT_EQ(raw.at("launches")[i].at("kernel"), rows.at("launches")[i].at("kernel")) << i;
    EXPECT_EQ(raw.at("launches")[i].at("grid"), rows.at("launches")[i].at("grid")) << i;
  }
  // The PTX-only kernel (no SASS in the binary) is mapped by its PTX entry.
  EXPECT_EQ(rows.at("launches")[5].at("kernel"), "_ZN11app_library17polynomial_kernelEPfxif");
}

TEST(ImportNcu, BrokenInputIsExitTwoAndWritesNothing) {
  TempDir t;
  const fs::path out = t.path / "x.json";
  const std::string text = warpmodel::support::read_text_file(kFixtures / "app-example/ncu-raw.csv").value();
  const fs::path truncated = t.path / "truncated.csv";
  std::ofstream(truncated) << text.substr(0, text.size() * 2 / 3);
  Output o = run("import-ncu " + q(truncated) + " -o " + q(out));
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_EQ(lines(o.err), 1u) << o.err;
  EXPECT_NE(o.err.find(truncated.string() + ":"), std::string::npos) << "names the file, line and column: " << o.err;
  EXPECT_FALSE(fs::exists(out));
  o = run("import-ncu " + q(t.path / "missing.csv") + " -o " + q(out));
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_NE(o.err.find("cannot read"), std::string::npos) << o.err;
  const fs::path empty = t.path / "no-kernels.csv";
  std::ofstream(empty) << "==PROF== Connected to process 1\n==WARNING== No kernels were profiled.\n";
  o = run("import-ncu " + q(empty) + " -o " + q(out));
  EXPECT_EQ(o.code, 2) << o.err;
  EXPECT_NE(o.err.find("no ncu CSV header"), std::string::npos) << o.err;
  EXPECT_FALSE(fs::exists(out));
}

TEST(PredictApp, ACommittedProfileWithTheProgramsOwnBinary) {
  TempDir t;
  const fs::path profile = kFixtures / "ncu-comparison/cupti-0.json";
  const fs::path json_out = t.path / "p.json";
  ASSERT_EQ(run("predict-app --profile " + q(profile) + " --device " + q(kDevice) + " --binary " + kBin +
                " --format json -o " + q(json_out))
                .code,
            0);
  const json j = read_json(json_out);
  ASSERT_EQ(j.at("rows").size(), 1u);
  const json& row = j.at("rows")[0];
  EXPECT_NEAR(row.at("measured_us").get<double>(), 56.224, 1e-9);
  EXPECT_GT(row.at("predicted_us").get<double>(), 1.0);
  EXPECT_NEAR(row.at("error_pct").get<double>(),
              100 * (row.at("predicted_us").get<double>() - 56.224) / 56.224, 1e-9);
  EXPECT_FALSE(row.at("bound").get<std::string>().empty());
  EXPECT_EQ(row.at("best_block").size(), 3u);
  EXPECT_GE(row.at("gain_pct").get<double>(), 0.0) << "the best shape is never predicted slower than the profiled one";
  EXPECT_TRUE(j.at("complete").get<bool>());
  const Output csv = run("predict-app --profile " + q(profile) + " --device " + q(kDevice) + " --binary " + kBin +
                         " --format csv --model thesis-2016");
  ASSERT_EQ(csv.code, 0) << csv.err;
  EXPECT_EQ(lines(csv.out), 2u) << csv.out;
  EXPECT_EQ(csv.out.rfind("kernel,mangled,launches,", 0), 0u) << csv.out;
}

TEST(PredictApp, TheExampleProgramGroupedAndFromItsCubins) {
  TempDir t;
  const fs::path profile = t.path / "example.json";
  ASSERT_EQ(run("import-ncu " + q(kFixtures / "app-example/ncu-raw.csv") + " -o " + q(profile)).code, 0);
  // From the binary: the PTX-only kernel has no SASS there, and says so; every other launch is predicted.
  const fs::path grouped = t.path / "grouped.json";
  Output o = run("predict-app --profile " + q(profile) + " --device " + q(kDevice) + " --binary " + kExample +
                 " --group --format json -o " + q(grouped));
  ASSERT_EQ(o.code, 0) << o.err;
  json j = read_json(grouped);
  ASSERT_EQ(j.at("rows").size(), 6u) << "the reduction at two launch shapes is two groups";
  std::size_t predicted = 0;
  for (const auto& row : j.at("rows")) {
    if (row.at("kernel").get<std::string>().find("polynomial_kernel") != std::string::npos) {
      EXPECT_TRUE(row.at("predicted_us").is_null());
      EXPECT_NE(row.at("note").get<std::string>().find("no SASS of this kernel"), std::string::npos) << row.at("note");
    } else {
      ++predicted;
      EXPECT_GT(row.at("predicted_us").get<double>(), 0.0) << row.at("kernel");
    }
  }
  EXPECT_EQ(predicted, 5u);
  for (std::size_t i = 1; i < j.at("rows").size(); ++i)
    EXPECT_GE(j.at("rows")[i - 1].at("total_measured_us").get<double>(), j.at("rows")[i].at("total_measured_us").get<double>())
        << "largest total first";

  // From a folder of cubins, named by the profile ("cubins", as `profile -- APP` writes it).
  const auto cuobjdump = warpmodel::sass::find_cuobjdump();
  ASSERT_TRUE(cuobjdump.has_value());
  const fs::path cubins = t.path / "example.cubins";
  fs::create_directories(cubins);
  ASSERT_EQ(warpmodel::test::run_command("cd " + q(cubins) + " && " + q(*cuobjdump) + " -xelf all " + kExample).code, 0);
  std::size_t n = 0;
  for (const auto& e : fs::directory_iterator(cubins)) fs::rename(e.path(), cubins / (std::to_string(n++) + ".cubin"));
  ASSERT_GE(n, 2u) << "the program's and the library's fat binaries";
  json with_cubins = read_json(profile);
  with_cubins["cubins"] = "example.cubins";
  with_cubins["complete"] = false;
  with_cubins["incomplete_reason"] = "APP exited with status 3";
  std::ofstream(profile) << with_cubins.dump(2);
  const Output table = run("predict-app --profile " + q(profile) + " --device " + q(kDevice) + " --binary " + kExample);
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_NE(table.out.find("model: hopper"), std::string::npos) << table.out;
  // The copy's measured duration, as the profile holds it (ns), in microseconds.
  const double copy_us = with_cubins.at("launches")[0].at("duration_ns").get<double>() / 1000.0;
  char copy_text[32];
  std::snprintf(copy_text, sizeof copy_text, "%.2f", copy_us);  // the table's two decimals
  EXPECT_NE(table.out.find(copy_text), std::string::npos)
      << "the copy's measured duration " << copy_us << " us: " << table.out;
  EXPECT_NE(table.out.find("65536 / 256"), std::string::npos) << table.out;
  o = run("predict-app --profile " + q(profile) + " --device " + q(kDevice) + " --format markdown");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.out.find("| launch |"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find(cubins.string()), std::string::npos) << "the SASS came from the profile's cubins: " << o.out;
  EXPECT_NE(o.out.find("INCOMPLETE"), std::string::npos) << o.out;
  EXPECT_NE(o.err.find("is incomplete"), std::string::npos) << o.err;
  EXPECT_NE(o.out.find("matmul_naive_kernel"), std::string::npos) << o.out;
  // The same profile named by a relative path (scripts/app_example_device_run.sh does so): the
  // cubins are found, and the tools, which run in a temporary folder, are given absolute paths.
  const CommandResult relative = warpmodel::test::run_command(
      "cd " + q(t.path.parent_path()) + " && " + q(kBin) + " predict-app --profile " +
      q(t.path.filename() / profile.filename()) + " --device " + q(kDevice) + " --group");
  ASSERT_EQ(relative.code, 0) << relative.out;
  EXPECT_NE(relative.out.find("matmul_naive_kernel"), std::string::npos) << relative.out;
}

TEST(PredictApp, BadInputIsOneLine) {
  const fs::path profile = kFixtures / "ncu-comparison/cupti-0.json";
  const std::pair<std::string, std::string> cases[] = {
      {"predict-app --profile " + q(profile) + " --device " + q(kDevice), "where is the SASS?"},
      {"predict-app --profile " + q(profile) + " --device " + q(kDevice) + " --binary " + kBin + " --model nonsense",
       "unknown model 'nonsense'"},
      {"predict-app --profile " + q(profile) + " --device " + q(kDevice) + " --cubins /nonexistent", "not a folder"},
      {"predict-app --profile /nonexistent.json --device " + q(kDevice) + " --binary " + kBin, "/nonexistent.json"},
      {"predict-app --profile " + q(profile) + " --device " + q(kDevice) + " --binary " + kBin + " --cubins /tmp",
       "excludes"},
      {"predict-app --profile " + q(profile) + " --device " + q(kDevice) + " --binary " + kExample,
       "none of the profile's kernels (warpmodel::cupti::(anonymous namespace)::copy_kernel) is in"},
  };
  for (const auto& [args, message] : cases) {
    const Output r = run(args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.err;
    EXPECT_NE((r.err + r.out).find(message), std::string::npos) << args << "\n" << r.err << r.out;
  }
}

TEST(ExampleProgram, SassIsTheBuiltinCopysSass) {
  // The counters of the example's copy and scale_add kernels can only be compared exactly with the
  // built-in copy and saxpy workloads' (gpu test AppProfileGpu) if they run the same code.
  const auto builtin = warpmodel::sass::analyse_binary(kBin);
  const auto example = warpmodel::sass::analyse_binary(kExample);
  auto find = [](const warpmodel::sass::BinaryAnalysis& a, const std::string& demangled) {
    const warpmodel::sass::KernelStatics* found = nullptr;
    for (const auto& k : a.kernels)
      if (k.demangled == demangled) found = &k;
    return found;
  };
  const std::pair<std::string, std::string> pairs[] = {
      {"warpmodel::cupti::(anonymous namespace)::copy_kernel(float const*, float*, long long)",
       "app_example::copy_kernel(float const*, float*, long long)"},
      {"warpmodel::cupti::(anonymous namespace)::saxpy_kernel(float, float const*, float*, long long)",
       "app_library::scale_add_kernel(float, float const*, float*, long long)"}};
  for (const auto& [ours, theirs] : pairs) {
    SCOPED_TRACE(theirs);
    const auto* a = find(builtin, ours);
    const auto* b = find(example, theirs);
    ASSERT_NE(a, nullptr);
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(a->static_instructions, b->static_instructions);
    EXPECT_FALSE(a->opcode_histogram.empty());
    EXPECT_EQ(a->opcode_histogram, b->opcode_histogram);
    ASSERT_EQ(a->blocks.size(), b->blocks.size());
    for (std::size_t i = 0; i < a->blocks.size(); ++i) {
      EXPECT_EQ(a->blocks[i].instructions, b->blocks[i].instructions);
      EXPECT_EQ(a->blocks[i].dependency_chain, b->blocks[i].dependency_chain);
    }
    EXPECT_EQ(a->stall_cycles_per_instruction, b->stall_cycles_per_instruction);
    ASSERT_TRUE(a->resources && b->resources);
    EXPECT_EQ(a->resources->registers, b->resources->registers);
  }
  // And the example holds every kernel the README lists, the PTX-only one as PTX: copy, matmul, the
  // reduction, scale_add and the four guardrail kernels.
  EXPECT_EQ(example.kernels.size(), 8u);
  EXPECT_EQ(example.ptx_only_kernels, std::vector<std::string>{"_ZN11app_library17polynomial_kernelEPfxif"});
}

namespace {

// A profile of the example program's kernels at the shapes its main.cpp launches them with (no GPU:
// made by hand), on `gpu`, each launch with a duration and its DRAM bytes.
json example_profile(const std::string& gpu) {
  struct L {
    const char* kernel;
    json grid, block;
    int shared;
  };
  const L launches[] = {
      {"_ZN11app_example17reduce_sum_kernelILi256EEEvPKiPix", {1024, 1, 1}, {256, 1, 1}, 1024},
      {"_ZN11app_example19matmul_naive_kernelEPKfS1_Pfi", {32, 32, 1}, {16, 16, 1}, 0},
      {"_ZN11app_example18rows_x_only_kernelEPKfPfi", {16384, 1, 1}, {64, 4, 1}, 0},
      {"_ZN11app_example24scale_grid_stride_kernelEPfxf", {264, 1, 1}, {256, 1, 1}, 0},
      {"_ZN11app_example21bounded_square_kernelEPKfPfx", {8192, 1, 1}, {128, 1, 1}, 0},
      {"_ZN11app_example24block_sum_dynamic_kernelEPKfPfx", {4096, 1, 1}, {256, 1, 1}, 1024},
  };
  json j = {{"schema", "warpmodel.profile/1"},
            {"device", {{"name", gpu}, {"compute_capability", "9.0"}}},
            {"provenance", {{"gpu", gpu}}},
            {"launches", json::array()}};
  int index = 0;
  for (const auto& l : launches)
    j["launches"].push_back({{"kernel", l.kernel},
                             {"launch_index", index++},
                             {"grid", l.grid},
                             {"block", l.block},
                             {"shared_memory_per_block_bytes", l.shared},
                             {"duration_ns", 10000.0},
                             {"metrics", {{"dram__bytes_read.sum", 8.0e6}, {"dram__bytes_write.sum", 4.0e6}}}});
  return j;
}

}  // namespace

TEST(PredictApp, GuardrailsOnTheExampleProgramsKernels) {
  TempDir t;
  const fs::path profile = t.path / "guardrails.json";
  std::ofstream(profile) << example_profile("NVIDIA H100 80GB HBM3").dump(2);
  const fs::path out = t.path / "p.json";
  const Output o = run("predict-app --profile " + q(profile) + " --device " + q(kDevice) + " --binary " + kExample +
                       " --format json -o " + q(out));
  ASSERT_EQ(o.code, 0) << o.err;
  // The GPU check: once, on stderr and in the JSON.
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
  EXPECT_NE(o.err.find("measured on NVIDIA H100 80GB HBM3, the device profile describes NVIDIA H200"), std::string::npos)
      << o.err;
  const json j = read_json(out);
  EXPECT_EQ(j.at("profile_gpu"), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(j.at("device_gpu"), "NVIDIA H200");
  EXPECT_TRUE(j.at("gpu_warning").is_string());
  const json& rows = j.at("rows");
  ASSERT_EQ(rows.size(), 6u);
  auto kinds = [&](std::size_t i) {
    std::vector<std::string> k;
    for (const auto& g : rows[i].at("guardrails")) k.push_back(g.at("kind").get<std::string>());
    return k;
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(kinds(0), (V{"fixed_block_size", "grid_not_from_block"})) << "reduce_sum_kernel<256> at 256 threads";
  EXPECT_EQ(kinds(1), V{}) << "the matrix product reads threadIdx.y";
  EXPECT_EQ(kinds(2), V{"unused_block_dimension"});
  EXPECT_EQ(kinds(3), V{"grid_not_from_block"});
  EXPECT_EQ(kinds(4), V{"launch_bounds"});
  EXPECT_EQ(kinds(5), V{"block_sized_shared_memory"});
  // Withheld picks: no best block, the reason instead; the others keep the sweep's pick.
  EXPECT_EQ(rows[0].at("not_recommended"), "the block size is the template argument <256>");
  EXPECT_EQ(rows[2].at("not_recommended"),
            "the kernel does not read threadIdx.y: reshaping the block is not work-conserving");
  for (std::size_t i : {0u, 2u}) EXPECT_TRUE(rows[i].at("best_block").is_null()) << i;
  for (std::size_t i : {1u, 3u, 4u, 5u}) {
    EXPECT_TRUE(rows[i].at("not_recommended").is_null()) << i;
    EXPECT_FALSE(rows[i].at("best_block").is_null()) << i;
  }
  EXPECT_EQ(rows[3].at("best_grid"), json::array({264, 1, 1})) << "the grid-stride loop keeps its grid";
  EXPECT_LE(rows[4].at("best_block")[0].get<int>() * rows[4].at("best_block")[1].get<int>(), 128)
      << "within __launch_bounds__(128)";
  // No counters but DRAM bytes: static estimates, and the SASS alone's time beside them.
  for (const auto& row : rows) {
    EXPECT_FALSE(row.at("static_fields").empty()) << row.at("kernel");
    EXPECT_TRUE(row.at("static_only_us").is_number()) << row.at("kernel");
    // 12 MB in 10 us against the H200's measured DRAM rates.
    EXPECT_GT(row.at("speed_of_light").at("dram").get<double>(), 0.2) << row.at("kernel");
    EXPECT_EQ(row.at("bound_removed").size(), 10u) << "every hopper bound made free";
  }

  // The table: the warning once, the reasons in the best-block cells, the speed of light.
  const Output table = run("predict-app --profile " + q(profile) + " --device " + q(kDevice) + " --binary " + kExample);
  ASSERT_EQ(table.code, 0) << table.err;
  std::size_t warnings = 0;
  for (std::size_t at = 0; (at = table.out.find("WARNING: the profile was measured on", at)) != std::string::npos; ++at)
    ++warnings;
  EXPECT_EQ(warnings, 1u) << table.out;
  EXPECT_NE(table.out.find("not recommended: the kernel does not read threadIdx.y"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("not recommended: the block size is the template argument <256>"), std::string::npos);
  EXPECT_NE(table.out.find("grid-stride loop (reads gridDim.x)"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("dynamic shared memory 1024 B = 4 B x 256 threads"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("DRAM "), std::string::npos) << "the speed-of-light column: " << table.out;
  EXPECT_NE(table.out.find("the SASS alone predicts"), std::string::npos) << table.out;
  // CSV: every share and the guardrails in columns.
  const Output csv = run("predict-app --profile " + q(profile) + " --device " + q(kDevice) + " --binary " + kExample +
                         " --format csv");
  ASSERT_EQ(csv.code, 0) << csv.err;
  const std::string header = csv.out.substr(0, csv.out.find('\n'));
  for (const char* column : {"sol_dram_pct", "sol_l2_pct", "sol_l1_shared_pct", "sol_issue_pct", "sol_fp32_pct",
                             "sol_fp64_pct", "sol_sfu_pct", "not_recommended", "guardrails", "static_only_us",
                             "without_bound_us", "without_bound_gain_pct", "gpu_warning"})
    EXPECT_NE(header.find(column), std::string::npos) << column << " in " << header;
}

TEST(PredictApp, WhatIfsAndTheBoundsMadeFree) {
  const fs::path profile = WARPMODEL_SOURCE_DIR "/results/h200/app-example/profile.json";
  TempDir t;
  const fs::path out = t.path / "w.json";
  Output o = run("predict-app --profile " + q(profile) + " --device " + q(kDevice) +
                 " --what-if dram_bytes=0.5x --what-if l1_hit_rate=+20 --what-if registers=255 --format json -o " + q(out));
  ASSERT_EQ(o.code, 0) << o.err;
  const json j = read_json(out);
  EXPECT_EQ(j.at("what_ifs"), json::array({"dram_bytes=0.5x", "l1_hit_rate=+20", "registers=255"}));
  EXPECT_TRUE(j.at("gpu_warning").is_null()) << "an H200 profile against the H200's device profile";
  for (const auto& row : j.at("rows")) {
    ASSERT_EQ(row.at("what_ifs").size(), 3u);
    const double predicted = row.at("predicted_us").get<double>();
    for (const auto& w : row.at("what_ifs")) {
      ASSERT_TRUE(w.at("predicted_us").is_number()) << w;
      EXPECT_NEAR(w.at("gain_pct").get<double>(), 100 * (1 - w.at("predicted_us").get<double>() / predicted), 1e-9);
    }
    // Half the DRAM bytes never slows a launch.
    EXPECT_GE(row.at("what_ifs")[0].at("gain_pct").get<double>(), -1e-9) << row.at("kernel");
    // The predicted bound made free: a gain, the table's "without the bound".
    bool found = false;
    for (const auto& b : row.at("bound_removed")) {
      EXPECT_GE(b.at("gain_pct").get<double>(), -1e-9) << b;
      if (b.at("what") == row.at("bound")) {
        found = true;
        EXPECT_GT(b.at("gain_pct").get<double>(), 0.0) << b;
      }
    }
    EXPECT_TRUE(found) << row.at("bound");
  }
  // 255 registers a thread: one block of 256 threads an SM, the copy slower.
  EXPECT_LT(j.at("rows")[0].at("what_ifs")[2].at("gain_pct").get<double>(), 0.0) << j.at("rows")[0].at("what_ifs")[2];
  const Output table = run("predict-app --profile " + q(profile) + " --device " + q(kDevice) + " --what-if dram_bytes=0.5x");
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_NE(table.out.find("what-if dram_bytes=0.5x"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("without the bound"), std::string::npos) << table.out;
  // Bad values: exit 2, one line naming the option, before any SASS is read.
  for (const char* bad : {"dram_bytes=half", "l1_hit_rate=+300", "registers=1000", "warp_size=64", "dram_bytes"}) {
    const Output r = run("predict-app --profile " + q(profile) + " --device " + q(kDevice) + " --what-if " + bad);
    EXPECT_EQ(r.code, 2) << bad << ": " << r.err;
    EXPECT_EQ(lines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find(std::string("--what-if ") + bad + ": "), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
}

// With energy coefficients in the device profile every predicted launch gets its energy (docs/energy.md
// E.1 at the predicted time); without them, no energy column and no key.
TEST(PredictApp, EnergyOnlyWithTheDevicesCoefficients) {
  const fs::path profile = WARPMODEL_SOURCE_DIR "/results/h200/app-example/profile.json";
  TempDir t;
  json device = read_json(kDevice);
  ASSERT_FALSE(device.contains("energy"));
  Output plain = run("predict-app --profile " + q(profile) + " --device " + q(kDevice) + " --format json");
  ASSERT_EQ(plain.code, 0) << plain.err;
  for (const auto& row : json::parse(plain.out).at("rows")) EXPECT_FALSE(row.contains("predicted_energy_mj"));
  device["energy"] = {{"static_w", 90.0}, {"pj_per_fp32_op", 2.0}, {"pj_per_l2_byte", 10.0}, {"pj_per_dram_byte", 60.0}};
  const fs::path with_energy = t.path / "device-energy.json";
  std::ofstream(with_energy) << device.dump();
  const Output o = run("predict-app --profile " + q(profile) + " --device " + q(with_energy) + " --format json");
  ASSERT_EQ(o.code, 0) << o.err;
  for (const auto& row : json::parse(o.out).at("rows")) {
    if (!row.at("predicted_us").is_number()) continue;
    ASSERT_TRUE(row.at("predicted_energy_mj").is_number()) << row;
    // At least the static power over the predicted time; E.1 = that plus the dynamic part (no limit).
    const double static_mj = 90.0 * row.at("predicted_us").get<double>() * 1e-3;
    EXPECT_GE(row.at("predicted_energy_mj").get<double>(), static_mj * (1 - 1e-9));
    ASSERT_TRUE(row.at("predicted_dynamic_energy_mj").is_number()) << row;
    EXPECT_NEAR(row.at("predicted_energy_mj").get<double>(), static_mj + row.at("predicted_dynamic_energy_mj").get<double>(),
                1e-6 * row.at("predicted_energy_mj").get<double>());
  }
  // E.3: a power limit below what the launches draw caps each at the limit times its time; the dynamic
  // part (E.1's) stays.
  device["energy"]["power_limit_w"] = 91.0;
  std::ofstream(with_energy) << device.dump();
  const Output capped = run("predict-app --profile " + q(profile) + " --device " + q(with_energy) + " --format json");
  ASSERT_EQ(capped.code, 0) << capped.err;
  const json uncapped_rows = json::parse(o.out).at("rows");
  const json capped_rows = json::parse(capped.out).at("rows");
  ASSERT_EQ(uncapped_rows.size(), capped_rows.size());
  for (std::size_t i = 0; i < capped_rows.size(); ++i) {
    if (!capped_rows[i].at("predicted_us").is_number()) continue;
    EXPECT_LE(capped_rows[i].at("predicted_energy_mj").get<double>(),
              91.0 * capped_rows[i].at("predicted_us").get<double>() * 1e-3 * (1 + 1e-9));
    EXPECT_EQ(capped_rows[i].at("predicted_dynamic_energy_mj"), uncapped_rows[i].at("predicted_dynamic_energy_mj"));
  }
  const Output table = run("predict-app --profile " + q(profile) + " --device " + q(with_energy));
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_NE(table.out.find("predicted energy (mJ)"), std::string::npos) << table.out;
}

TEST(Roofline, TheCommittedExampleApplication) {
  const fs::path profile = WARPMODEL_SOURCE_DIR "/results/h200/app-example/profile.json";
  TempDir t;
  const fs::path prefix = t.path / "app";
  const Output o = run("roofline --profile " + q(profile) + " --device " + q(kDevice) + " -o " + q(prefix));
  ASSERT_EQ(o.code, 0) << o.err;
  const std::string csv = warpmodel::support::read_text_file(prefix.string() + ".csv").value_or("");
  EXPECT_EQ(csv.rfind("label,intensity_flop_per_byte,flops_per_second,bound,", 0), 0u) << csv;
  EXPECT_EQ(lines(csv), 13u) << "one row per launch";
  EXPECT_NE(csv.find("no floating-point operations"), std::string::npos) << "the copy: " << csv;
  EXPECT_NE(csv.find(",estimated,"), std::string::npos) << "the profile has no FLOP counters: " << csv;
  const bool drew = fs::exists(prefix.string() + ".png");
  EXPECT_EQ(drew, o.out.find("wrote " + prefix.string() + ".png") != std::string::npos) << o.out;
  // Without python3 (a PATH of `timeout` alone, which the SASS tools run under): the CSV, and how to
  // draw it; still exit 0.
  const fs::path bare = t.path / "bare", path = t.path / "path";
  fs::create_directories(path);
  ASSERT_EQ(warpmodel::test::run_command("ln -s \"$(command -v timeout)\" " + q(path / "timeout")).code, 0);
  const Output no_python =
      run("roofline --profile " + q(profile) + " --device " + q(kDevice) + " -o " + q(bare), "PATH=" + q(path));
  ASSERT_EQ(no_python.code, 0) << no_python.err;
  EXPECT_TRUE(fs::exists(bare.string() + ".csv"));
  EXPECT_FALSE(fs::exists(bare.string() + ".png"));
  EXPECT_NE(no_python.out.find("draw it with: python3 "), std::string::npos) << no_python.out;
  EXPECT_NE(no_python.out.find("--points"), std::string::npos) << no_python.out;
  // A folder or a device node is no prefix: exit 2, one line, nothing written beside it.
  for (const std::string& folder_or_device : {t.path.string(), std::string("/dev/null")}) {
    const Output r = run("roofline --profile " + q(profile) + " --device " + q(kDevice) + " -o " + q(folder_or_device));
    EXPECT_EQ(r.code, 2) << folder_or_device << ": " << r.err;
    EXPECT_EQ(lines(r.err), 1u) << r.err;
    EXPECT_NE(r.err.find("expected a prefix of files to write"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(folder_or_device + ".csv"));
  }
}
