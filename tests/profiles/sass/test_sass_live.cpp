// The real tools on the freshly built warpmodel program (it embeds the project's kernels), and the
// CLI end to end: sass-analyze, kernel-profile, then predict on its output. Tests that need the
// tools, or device code in the program (a CUDA build), skip with the reason when they are absent.
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "run_program.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "warpmodel/sass/tools.hpp"
#include "warpmodel/support/text.hpp"

using warpmodel::support::read_text_file;

using namespace warpmodel::sass;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const std::string kBin = WARPMODEL_BIN;
const std::string kFixtures = WARPMODEL_SASS_FIXTURES;
const fs::path kTmp = fs::temp_directory_path() / ("warpmodel_sass_test_" + std::to_string(::getpid()));

// Removes the scratch folder when the test program ends.
struct RemoveScratch : testing::Environment {
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(kTmp, ec);
  }
};
[[maybe_unused]] testing::Environment* const kRemoveScratch = testing::AddGlobalTestEnvironment(new RemoveScratch);

using CommandResult = warpmodel::test::ProgramResult;

CommandResult run(const std::string& args, const std::string& env = "") {
  return warpmodel::test::run_program(env + " " + kBin + " " + args, kTmp);
}

std::string write(const std::string& name, const std::string& text) {
  fs::create_directories(kTmp);
  std::ofstream(kTmp / name) << text;
  return (kTmp / name).string();
}

int lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

const std::string kFixtureArgs = "--sass " + kFixtures + "/sm90_ubench.sass --cfg " + kFixtures +
                                 "/sm90_ubench.cfg.dot --res-usage " + kFixtures + "/sm90_ubench.res-usage.txt";

// The analysis of the built program, once; nullopt (with the reason) when it cannot be made here.
const std::optional<BinaryAnalysis>& live(std::string* why) {
  static std::string reason;
  static const std::optional<BinaryAnalysis> analysis = []() -> std::optional<BinaryAnalysis> {
    if (!find_cuobjdump()) {
      reason = "cuobjdump not found (pip package nvidia-cuda-cuobjdump, installed by scripts/setup.sh)";
      return std::nullopt;
    }
    try {
      return analyse_binary(kBin);
    } catch (const AnalysisError& e) {
      reason = std::string("no analysable device code in the program (a build without CUDA?): ") + e.what();
      return std::nullopt;
    }
  }();
  *why = reason;
  return analysis;
}

#define REQUIRE_LIVE(var)                    \
  std::string why_skipped;                   \
  const auto& var = live(&why_skipped);      \
  if (!var) GTEST_SKIP() << why_skipped;

}  // namespace

// ---------------------------------------------------------------- the tools on the built program

TEST(SassLive, EveryKernelOfTheProgramIsAnalysedConsistently) {
  REQUIRE_LIVE(a);
  ASSERT_FALSE(a->kernels.empty());
  ASSERT_FALSE(a->dumps.empty());
  EXPECT_TRUE(find_nvdisasm().has_value()) << "nvdisasm missing: blocks come from the leader rule only";
  std::size_t functions = 0;
  for (const auto& d : a->dumps) {
    // Every function cuobjdump lists, in both its listing and its resource usage, is analysed.
    const std::regex function_re(R"(Function : (\S+))");
    for (auto it = std::sregex_iterator(d.sass.begin(), d.sass.end(), function_re); it != std::sregex_iterator(); ++it) {
      ++functions;
      EXPECT_NE(d.res_usage.find("Function " + (*it)[1].str() + ":"), std::string::npos) << (*it)[1].str();
    }
  }
  EXPECT_EQ(a->kernels.size(), functions);
  // The project's microbenchmarks are always there.
  EXPECT_TRUE(std::any_of(a->kernels.begin(), a->kernels.end(), [](const auto& k) { return k.name == "ubench_clock64"; }));

  // Consistency of every kernel's counts (one test: the analysis of the program takes seconds).
  static const std::regex register_re(R"((?:^|[^A-Za-z0-9_])R(\d+))");
  for (const auto& k : a->kernels) {
    SCOPED_TRACE(k.demangled);
    EXPECT_GT(k.static_instructions, 0);
    EXPECT_GE(k.basic_blocks(), 1);
    EXPECT_LE(k.mix.classified(), k.static_instructions);
    int in_blocks = 0;
    for (const auto& b : k.blocks) in_blocks += b.instructions;
    EXPECT_EQ(in_blocks, k.static_instructions);
    EXPECT_DOUBLE_EQ(k.thesis_ilp, static_cast<double>(k.static_instructions) / k.basic_blocks());
    EXPECT_GE(k.mlp_max, 1);
    EXPECT_GE(k.mlp_max, k.mlp_mean);
    // The leader rule reproduces nvdisasm's basic blocks on every project kernel.
    EXPECT_EQ(k.leaders_agree_with_cfg, true);
    ASSERT_TRUE(k.resources.has_value());
    EXPECT_EQ(k.spill_store_bytes > 0, k.mix.stl > 0);
    if (k.spill_store_bytes > 0) EXPECT_GT(k.resources->local_bytes + k.resources->stack_bytes, 0);
  }
  // Registers: res-usage's REG covers every register the kernel's SASS names (R0..R(REG-1); ptxas
  // may allocate a few more than it uses, never fewer).
  for (const auto& d : a->dumps) {
    const auto listing = parse_sass_listing(d.sass);
    const auto usage = parse_resource_usage(d.res_usage);
    for (const auto& l : listing) {
      int highest = -1;
      for (const auto& i : l.instructions)
        for (const auto& o : i.operands)
          for (auto it = std::sregex_iterator(o.begin(), o.end(), register_re); it != std::sregex_iterator(); ++it)
            highest = std::max(highest, std::stoi((*it)[1].str()) + (o.find(".64") != std::string::npos ? 1 : 0));
      ASSERT_TRUE(usage.count(l.name)) << l.name;
      EXPECT_LT(highest, usage.at(l.name).registers) << l.name;
      EXPECT_GE(usage.at(l.name).registers, 1) << l.name;
    }
  }
}

TEST(SassLive, ReadsStaticLibrariesAndObjects) {
  if (!find_cuobjdump()) GTEST_SKIP() << "cuobjdump not found (pip package nvidia-cuda-cuobjdump)";
  // The ubench kernels: the object file and the static library that holds it give the same analysis.
  const fs::path root = fs::path(kBin).parent_path().parent_path();
  const fs::path library = root / "ubench" / "libwarpmodel_ubench.a";
  const fs::path object = root / "ubench" / "CMakeFiles" / "warpmodel_ubench.dir" / "kernels.cu.o";
  if (!fs::exists(library) || !fs::exists(object)) GTEST_SKIP() << library << " or " << object << " not built (no CUDA)";
  const BinaryAnalysis from_library = analyse_binary(library.string());
  const BinaryAnalysis from_object = analyse_binary(object.string());
  ASSERT_FALSE(from_library.kernels.empty());
  ASSERT_EQ(from_library.kernels.size(), from_object.kernels.size());
  for (std::size_t i = 0; i < from_object.kernels.size(); ++i) {
    const KernelStatics& l = from_library.kernels[i];
    const KernelStatics& o = from_object.kernels[i];
    EXPECT_EQ(l.name, o.name);
    EXPECT_EQ(l.static_instructions, o.static_instructions) << l.name;
    EXPECT_EQ(l.basic_blocks(), o.basic_blocks()) << l.name;
    EXPECT_EQ(l.mix.global_memory(), o.mix.global_memory()) << l.name;
    EXPECT_EQ(l.resources->registers, o.resources->registers) << l.name;
  }
  EXPECT_TRUE(std::any_of(from_object.kernels.begin(), from_object.kernels.end(),
                          [](const auto& k) { return k.name == "ubench_clock64"; }));
}

TEST(SassLive, NotABinaryIsOneClearLine) {
  if (!find_cuobjdump()) GTEST_SKIP() << "cuobjdump not found";
  const std::string text = write("not_a_binary.txt", "hello\n");
  const auto r = run("sass-analyze " + text);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("no device code"), std::string::npos) << r.err;
  const auto missing = run("sass-analyze /nonexistent/file");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("cannot read"), std::string::npos) << missing.err;
}

// ---------------------------------------------------------------- the CLI

TEST(SassCli, MissingToolIsOneLineNamingThePipPackage) {
  const auto r = run("sass-analyze " + kBin, "WARPMODEL_CUOBJDUMP=/nonexistent/cuobjdump");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("cuobjdump not found"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("nvidia-cuda-cuobjdump"), std::string::npos) << r.err;
}

TEST(SassCli, AnalyzesFixturesAsTableCsvAndJson) {
  const auto table = run("sass-analyze " + kFixtureArgs);
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("ubench_clock64"), std::string::npos);
  EXPECT_NE(table.out.find("ILP_4.26"), std::string::npos);
  const auto csv = run("sass-analyze " + kFixtureArgs + " --format csv");
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_EQ(lines(csv.out), 6);  // header + 5 kernels
  EXPECT_EQ(csv.out.rfind("kernel,symbol,cubin,arch,inst,BBs,ILP_4.26,ILP_dep,MLP_max,MLP_mean,stall_per_inst,LDG,STG", 0), 0u);
  const auto j = run("sass-analyze " + kFixtureArgs + " --format json --kernel clock64");
  ASSERT_EQ(j.exit_code, 0) << j.err;
  const json parsed = json::parse(j.out);
  EXPECT_EQ(parsed["schema"], "warpmodel.sass/1");
  ASSERT_EQ(parsed["kernels"].size(), 1u);
  EXPECT_EQ(parsed["kernels"][0]["static_instructions"], 29);
  EXPECT_EQ(parsed["kernels"][0]["basic_blocks"], 4);
  EXPECT_EQ(parsed["kernels"][0]["resources"]["registers"], 10);
}

TEST(SassCli, KernelProfileFromCountersThenPredict) {
  // Made-up counters (round numbers), in the schema `warpmodel profile` writes.
  const json counters = {
      {"schema", "warpmodel.profile/1"},
      {"device", {{"name", "synthetic"}}},
      {"provenance", {{"note", "made-up values for a CLI test"}}},
      {"launches",
       {{{"kernel", "ubench_departure"}, {"launch_index", 0}, {"grid", {8, 8, 8}}, {"block", {8, 8, 4}},
         {"registers_per_thread", 19}, {"shared_memory_per_block_bytes", 0}, {"duration_ns", 5000},
         {"metrics",
          {{"smsp__warps_launched.sum", 4096}, {"smsp__inst_executed.sum", 4096 * 75},
           {"smsp__inst_executed_op_global_ld.sum", 4096 * 10}, {"smsp__inst_executed_op_global_st.sum", 4096},
           {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 4096 * 10 * 21},
           {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", 4096 * 10},
           {"l1tex__t_sector_hit_rate.pct", 0}, {"lts__t_sector_hit_rate.pct", 95},
           {"sm__warps_active.avg.pct_of_peak_sustained_active", 12.5}}}}}}};
  const std::string counters_file = write("counters.json", counters.dump());
  const std::string kernel_file = (kTmp / "departure.kernel.json").string();
  const auto r = run("kernel-profile " + kFixtureArgs + " --kernel ubench_departure --counters " + counters_file +
                     " --device " + WARPMODEL_DATA + "/k40-thesis.device.json -o " + kernel_file);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json k = json::parse(read_text_file(kernel_file).value_or(""));
  EXPECT_EQ(k["schema"], "warpmodel.kernel/1");
  EXPECT_DOUBLE_EQ(k["instructions_per_warp"]["total"].get<double>(), 75);
  EXPECT_DOUBLE_EQ(k["instructions_per_warp"]["memory"].get<double>(), 11);
  EXPECT_DOUBLE_EQ(k["memory"]["transactions_per_request"].get<double>(), 21);
  EXPECT_NEAR(k["memory"]["l2_miss_ratio"].get<double>(), 0.05, 1e-12);
  EXPECT_DOUBLE_EQ(k["launch"]["active_warps_per_sm"].get<double>(), 8);  // 12.5 % of the K40's 64 warps
  EXPECT_EQ(k["parallelism"]["static_instructions"], 64);
  EXPECT_EQ(k["parallelism"]["basic_blocks"], 4);
  for (const char* field : {"instructions_per_warp.total", "instructions_per_warp.memory", "parallelism.ilp",
                            "parallelism.mlp", "memory.transactions_per_request", "memory.l1_miss_ratio",
                            "memory.l2_miss_ratio", "launch.active_warps_per_sm", "launch.grid"})
    EXPECT_TRUE(k["sources"].contains(field)) << field;
  // predict reads it unchanged, with every model variant.
  const auto p = run("predict --device " + std::string(WARPMODEL_DATA) + "/k40-thesis.device.json --kernel " +
                     kernel_file + " --model thesis-2016 --format json");
  ASSERT_EQ(p.exit_code, 0) << p.err;
  const json prediction = json::parse(p.out);
  EXPECT_GT(prediction["cycles"].get<double>(), 0);
  EXPECT_DOUBLE_EQ(prediction["terms"]["ILP"].get<double>(), 16);  // 64 / 4, eq 4.26
}

// The counters `warpmodel profile` measured on the H200 (results/h200/metrics.json, a collection of
// profiles) merged with the committed SASS of the same kernel: the reader takes the real file, and
// each mapped field is the ratio of that file's own counters.
TEST(SassCli, KernelProfileFromTheMeasuredH200Counters) {
  const fs::path metrics = fs::path(WARPMODEL_RESULTS) / "h200" / "metrics.json";
  const fs::path device = fs::path(WARPMODEL_RESULTS) / "h200" / "device.json";
  if (!fs::exists(metrics) || !fs::exists(device)) GTEST_SKIP() << "results/h200/metrics.json or device.json not committed";
  const json collection = json::parse(read_text_file(metrics).value_or(""));
  const std::string symbol = "_ZN9warpmodel8stencils3gpu7kernels12naive_kernelILi1EEEvNS1_13StencilParamsE";
  json launch;
  for (const auto& profile : collection["profiles"])
    for (const auto& l : profile["launches"])
      if (launch.is_null() && l["kernel"] == symbol) launch = l;
  if (launch.is_null()) GTEST_SKIP() << "no naive_kernel<1> launch in " << metrics;
  const std::string stencils = "--sass " + kFixtures + "/sm90_stencils.sass --cfg " + kFixtures +
                               "/sm90_stencils.cfg.dot --res-usage " + kFixtures + "/sm90_stencils.res-usage.txt";
  const std::string kernel_file = (kTmp / "naive1.kernel.json").string();
  const auto r = run("kernel-profile " + stencils + " --kernel 'naive_kernel<1>' --counters " + metrics.string() +
                     " -o " + kernel_file);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json k = json::parse(read_text_file(kernel_file).value_or(""));
  const json& m = launch["metrics"];
  const double warps = m["smsp__warps_launched.sum"].get<double>();
  EXPECT_DOUBLE_EQ(k["instructions_per_warp"]["total"].get<double>(), m["smsp__inst_executed.sum"].get<double>() / warps);
  EXPECT_DOUBLE_EQ(k["instructions_per_warp"]["memory"].get<double>(),
                   (m["smsp__inst_executed_op_global_ld.sum"].get<double>() +
                    m["smsp__inst_executed_op_global_st.sum"].get<double>()) / warps);
  EXPECT_DOUBLE_EQ(k["memory"]["transactions_per_request"].get<double>(),
                   m["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"].get<double>() /
                       m["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"].get<double>());
  EXPECT_EQ(k["launch"]["grid"], launch["grid"]);
  EXPECT_EQ(k["parallelism"]["static_instructions"], 98);
  EXPECT_TRUE(k["launch"].contains("active_warps_per_sm"));  // compute capability 9.0 from the file's device
  EXPECT_EQ(k["sources"]["instructions_per_warp.total"].get<std::string>().rfind("cupti: smsp__inst_executed.sum", 0), 0u);
  const auto p = run("predict --device " + device.string() + " --kernel " + kernel_file + " --model all --format json");
  ASSERT_EQ(p.exit_code, 0) << p.err;
  for (const auto& prediction : json::parse(p.out)) EXPECT_GT(prediction["cycles"].get<double>(), 0) << prediction["model"];
}

TEST(SassCli, KernelProfileOfTheBuiltProgramPredictsOnTheH200) {
  if (!find_cuobjdump()) GTEST_SKIP() << "cuobjdump not found (pip package nvidia-cuda-cuobjdump)";
  const fs::path device = fs::path(WARPMODEL_RESULTS) / "h200" / "device.json";
  if (!fs::exists(device)) GTEST_SKIP() << device << " not committed";
  const std::string kernel_file = (kTmp / "live.kernel.json").string();
  // Without --binary the program analyses itself (/proc/self/exe, resolved before the tools run).
  const auto r = run("kernel-profile --kernel ubench_lat_fp32_add --launch grid=132,block=32 -o " + kernel_file);
  if (r.exit_code == 2 && r.err.find("no device code") != std::string::npos) GTEST_SKIP() << r.err;  // CUDA off
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json k = json::parse(read_text_file(kernel_file).value_or(""));
  EXPECT_NE(k["sources"]["instructions_per_warp.total"].get<std::string>().find("static estimate"), std::string::npos);
  const auto p = run("predict --device " + device.string() + " --kernel " + kernel_file + " --model all --format json");
  ASSERT_EQ(p.exit_code, 0) << p.err;
  const json predictions = json::parse(p.out);
  ASSERT_TRUE(predictions.is_array());
  EXPECT_GE(predictions.size(), 3u);
  for (const auto& prediction : predictions) EXPECT_GT(prediction["cycles"].get<double>(), 0) << prediction["model"];
}

TEST(SassCli, KernelProfileBadInputIsOneLineAndExit2) {
  struct Case {
    std::string args, expect;
  };
  const std::string good_counters = write("empty_counters.json", R"({"schema":"warpmodel.profile/1","launches":[]})");
  const std::vector<Case> cases = {
      {"kernel-profile " + kFixtureArgs + " --kernel ubench_departure", "--launch"},
      {"kernel-profile " + kFixtureArgs + " --kernel ubench_clock46 --launch grid=1,block=32", "closest: ubench_clock64"},
      {"kernel-profile " + kFixtureArgs + " --kernel ubench_ --launch grid=1,block=32", "matches 4 kernels"},
      {"kernel-profile " + kFixtureArgs + " --kernel ubench_clock64 --launch grid=1,block=32x0", "--launch"},
      {"kernel-profile " + kFixtureArgs + " --kernel ubench_clock64 --counters " + good_counters, "no launch of"},
      {"kernel-profile " + kFixtureArgs + " --kernel ubench_clock64 --counters " + write("bad.json", "{oops"),
       "not valid JSON"},
      {"kernel-profile --sass /nonexistent.sass --kernel x --launch grid=1,block=1", "cannot read"},
  };
  for (const auto& c : cases) {
    const auto r = run(c.args + " -o " + (kTmp / "must_not_exist.json").string());
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.err;
    EXPECT_EQ(lines(r.err), 1) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << c.args << "\n" << r.err;
    EXPECT_FALSE(fs::exists(kTmp / "must_not_exist.json")) << c.args;
  }
}
