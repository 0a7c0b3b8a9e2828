// import-ncu's library side (ncu_import.hpp): ncu's names mapped to the binary's kernels, launch
// shapes and durations, the report's fields, the model set's missing metrics; on the real raw page
// and on every ncu file of the example program (fixtures/app-example: the hand-made ones, and the
// real ones once they are there).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "warpmodel/counter_rules.hpp"
#include "warpmodel/cupti/metrics.hpp"
#include "warpmodel/cupti/ncu_import.hpp"
#include "warpmodel/json_io.hpp"
#include "warpmodel/support/text.hpp"

namespace wc = warpmodel::cupti;
namespace fs = std::filesystem;

namespace {

const fs::path kFixtures = WARPMODEL_CUPTI_FIXTURES;

wc::NcuReport read(const fs::path& p) {
  const auto text = warpmodel::support::read_text_file(p);
  if (!text) throw std::runtime_error("missing fixture " + p.string());
  return wc::parse_ncu_csv(*text, p.filename().string());
}

// The example program's kernels as the SASS analysis names them (the PTX-only one by its .entry).
const std::vector<wc::KernelSymbol> kExample = {
    {"_ZN11app_example17reduce_sum_kernelILi256EEEvPKiPix", "void app_example::reduce_sum_kernel<256>(int const*, int*, long long)"},
    {"_ZN11app_example19matmul_naive_kernelEPKfS1_Pfi", "app_example::matmul_naive_kernel(float const*, float const*, float*, int)"},
    {"_ZN11app_example11copy_kernelEPKfPfx", "app_example::copy_kernel(float const*, float*, long long)"},
    {"_ZN11app_library16scale_add_kernelEfPKfPfx", "app_library::scale_add_kernel(float, float const*, float*, long long)"},
    {"_ZN11app_library17polynomial_kernelEPfxif", "app_library::polynomial_kernel(float*, long long, int, float)"},
};

int match(const std::string& name, const std::vector<wc::KernelSymbol>& k, std::string* why = nullptr) {
  return wc::match_ncu_kernel_name(name, k, why);
}

}  // namespace

TEST(NcuNames, EveryFormNcuPrintsMapsToTheOneKernel) {
  // ncu's demangling (const first, spaces), the function base, mangled names, return types.
  EXPECT_EQ(match("app_example::copy_kernel(const float *, float *, long long)", kExample), 2);
  EXPECT_EQ(match("copy_kernel", kExample), 2);
  EXPECT_EQ(match("_ZN11app_example11copy_kernelEPKfPfx", kExample), 2);
  EXPECT_EQ(match("void app_example::reduce_sum_kernel<256>(const int *, int *, long long)", kExample), 0);
  EXPECT_EQ(match("reduce_sum_kernel", kExample), 0);
  EXPECT_EQ(match("polynomial_kernel(float *, long long, int, float)", kExample), 4);
  // The real H200 output: "(anonymous namespace)" printed as "unnamed>", outer namespaces cut.
  const std::vector<wc::KernelSymbol> anonymous = {
      {"_ZN9warpmodel5cupti12_GLOBAL__N_111copy_kernelEPKfPfx",
       "warpmodel::cupti::(anonymous namespace)::copy_kernel(float const*, float*, long long)"},
      {"_ZN5other11copy_kernelEPKfPfx", "other::copy_kernel(float const*, float*, long long)"}};
  EXPECT_EQ(match("unnamed>::copy_kernel(const float *, float *, long long)", anonymous), 0);
  EXPECT_EQ(match("other::copy_kernel(const float *, float *, long long)", anonymous), 1);
  std::string why;
  EXPECT_EQ(match("copy_kernel", anonymous, &why), -1) << "two kernels of that name";
  EXPECT_NE(why.find("could be any of 2 kernels"), std::string::npos) << why;
}

TEST(NcuNames, OverloadsAndTemplatesAreToldApart) {
  const std::vector<wc::KernelSymbol> k = {
      {"_Z4stepPfi", "step(float*, int)"},
      {"_Z4stepPdi", "step(double*, int)"},
      {"_Z6kernelILi2EEvPf", "void kernel<2>(float*)"},
      {"_Z6kernelILi4EEvPf", "void kernel<4>(float*)"},
      {"_ZN1a4tileEv", "a::tile()"},
      {"_ZN1b4tileEv", "b::tile()"}};
  EXPECT_EQ(match("step(double *, int)", k), 1);
  EXPECT_EQ(match("step(float *, int)", k), 0);
  EXPECT_EQ(match("void kernel<4>(float *)", k), 3);
  EXPECT_EQ(match("kernel<2>(float *)", k), 2);
  EXPECT_EQ(match("b::tile()", k), 5);
  std::string why;
  EXPECT_EQ(match("step", k, &why), -1);
  EXPECT_EQ(match("tile()", k, &why), -1);
  EXPECT_EQ(match("stencil_kernel(float *)", k, &why), -1);
  EXPECT_NE(why.find("no kernel named 'stencil_kernel'"), std::string::npos) << why;
}

// The stall reasons the model set ends with (hopper H.1c), which no committed ncu file holds.
std::vector<std::string> with_stall_reasons() {
  std::vector<std::string> v;
  for (const char* reason : warpmodel::counter_rules::kStallReasons) v.push_back(warpmodel::counter_rules::stall_metric(reason));
  return v;
}
std::vector<std::string> operator+(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

TEST(NcuImport, TheRealRawPage) {
  wc::NcuImportOptions o;
  o.origin = "ncu-0.csv";
  o.command = "warpmodel import-ncu ncu-0.csv -o x.json";
  o.binary = "warpmodel";
  o.kernels = {{"_ZN9warpmodel5cupti12_GLOBAL__N_111copy_kernelEPKfPfx",
                "warpmodel::cupti::(anonymous namespace)::copy_kernel(float const*, float*, long long)"}};
  const wc::NcuImport im = wc::import_ncu(read(kFixtures / "ncu-comparison/ncu-0.csv"), o);
  const wc::ProfileReport& r = im.report;
  ASSERT_EQ(r.launches.size(), 1u);
  const wc::LaunchRecord& l = r.launches[0];
  EXPECT_EQ(l.kernel, o.kernels[0].mangled);
  EXPECT_EQ(l.demangled, o.kernels[0].demangled);
  EXPECT_EQ(l.grid, (std::array<int, 3>{65536, 1, 1}));
  EXPECT_EQ(l.block, (std::array<int, 3>{256, 1, 1}));
  EXPECT_EQ(l.registers_per_thread, 16);
  EXPECT_EQ(l.shared_memory_per_block_bytes, 0);
  EXPECT_EQ(l.duration_ns, 52768.0);
  EXPECT_EQ(l.process_id, 15130);
  EXPECT_EQ(l.metrics.at("smsp__inst_executed.sum"), 11534336.0);
  EXPECT_EQ(l.metrics.count("device__attribute_display_name"), 0u);
  EXPECT_EQ(l.metrics.count("launch__grid_size"), 0u) << "launch facts are the launch's fields, not counters";
  EXPECT_EQ(r.device.name, "NVIDIA H200");
  EXPECT_EQ(r.device.cc_major, 9);
  EXPECT_EQ(r.device.sm_count, 132);
  EXPECT_EQ(r.device.l2_cache_bytes, 62914560);
  EXPECT_DOUBLE_EQ(r.device.max_sm_clock_mhz, 1980.0);
  EXPECT_EQ(r.collection.range_mode, "ncu");
  EXPECT_TRUE(r.complete);
  // That run predates the local loads' and stores' requests and sectors, the ADU pipe, the async copies, the L2
  // bytes, the shared wavefronts, the L2's sectors by operation, the LSU wavefronts and the stall
  // reasons in the model set: those are missing, in one line.
  EXPECT_EQ(im.missing_model_metrics,
            (std::vector<std::string>{"l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum",
                                      "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum",
                                      "l1tex__t_requests_pipe_lsu_mem_local_op_st.sum",
                                      "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum", "smsp__inst_executed_pipe_adu.sum", "smsp__inst_executed_op_ldgsts.sum",
                                      "smsp__inst_executed_op_tma_ld.sum", "lts__t_bytes.sum",
                                      "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", "lts__t_sectors_op_write.sum",
                                      "l1tex__data_pipe_lsu_wavefronts.sum", "lts__t_sectors_op_read.sum",
                                      "lts__t_sectors_op_atom.sum", "lts__t_sectors_op_red.sum",
                                      "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum",
                                      "l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum", "lts__t_sectors_op_red.max",
                                      "lts__t_sectors_op_atom.max"}) + with_stall_reasons());
  const std::string line = wc::missing_metrics_warning(im, "ncu-0.csv");
  EXPECT_EQ(std::count(line.begin(), line.end(), '\n'), 0);
  EXPECT_NE(line.find("lacks 34 of the `model` set's metrics"), std::string::npos) << line;
  // It round-trips as warpmodel.profile/1.
  const auto back = wc::profile_report_from_json(wc::to_json(r), "x");
  EXPECT_EQ(back.launches.at(0).kernel, l.kernel);
}

TEST(NcuImport, WithoutTheBinaryNamesStayAsPrintedWithAWarning) {
  wc::NcuImportOptions o;
  o.origin = "ncu-0.csv";
  const wc::NcuImport im = wc::import_ncu(read(kFixtures / "ncu-comparison/ncu-0.csv"), o);
  EXPECT_EQ(im.report.launches.at(0).kernel, "unnamed>::copy_kernel(const float *, float *, long long)");
  ASSERT_FALSE(im.warnings.empty());
  EXPECT_NE(im.warnings[0].find("--binary"), std::string::npos) << im.warnings[0];
}

TEST(NcuImport, EveryExampleProgramFileMapsEveryLaunch) {
  // Hand-made now; the real files of scripts/app_example_device_run.sh when they are dropped in.
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(kFixtures / "app-example")) {
    if (entry.path().extension() != ".csv") continue;
    ++files;
    SCOPED_TRACE(entry.path().filename().string());
    wc::NcuImportOptions o;
    o.origin = entry.path().filename().string();
    o.binary = "warpmodel_app_example";
    o.kernels = kExample;
    const wc::NcuImport im = wc::import_ncu(read(entry.path()), o);
    const auto& launches = im.report.launches;
    ASSERT_FALSE(launches.empty());
    ASSERT_EQ(launches.size() % 6, 0u) << "repetitions of the program's 6 launches";
    EXPECT_TRUE(im.warnings.empty()) << warpmodel::support::join(im.warnings, "\n");
    // These files predate the local loads' requests and sectors, the L2's sectors by operation, the
    // LSU wavefronts, the busiest slice's atomic sectors and the stall reasons in the model set.
    EXPECT_EQ(im.missing_model_metrics,
              (std::vector<std::string>{"l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum",
                                        "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum",
                                        "l1tex__t_requests_pipe_lsu_mem_local_op_st.sum",
                                        "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum", "lts__t_sectors_op_write.sum", "l1tex__data_pipe_lsu_wavefronts.sum",
                                        "lts__t_sectors_op_read.sum", "lts__t_sectors_op_atom.sum",
                                        "lts__t_sectors_op_red.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum",
                                        "l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum", "lts__t_sectors_op_red.max",
                                        "lts__t_sectors_op_atom.max"}) + with_stall_reasons())
        << warpmodel::support::join(im.missing_model_metrics);
    const int order[] = {2, 1, 0, 0, 3, 4};  // copy, matmul, reduce x 2, scale_add, polynomial
    for (std::size_t i = 0; i < launches.size(); ++i) {
      const auto& l = launches[i];
      EXPECT_EQ(l.kernel, kExample[static_cast<std::size_t>(order[i % 6])].mangled) << i;
      EXPECT_GT(l.duration_ns, 0.0) << i;
      EXPECT_GT(l.metrics.at("smsp__warps_launched.sum"), 0.0) << i;
      const double warps = static_cast<double>(l.grid[0]) * l.grid[1] * l.grid[2] * std::ceil(l.block[0] * l.block[1] * l.block[2] / 32.0);
      EXPECT_EQ(l.metrics.at("smsp__warps_launched.sum"), warps) << i;
      EXPECT_GT(l.registers_per_thread, 0) << i;
    }
    EXPECT_EQ(launches[0].grid, (std::array<int, 3>{65536, 1, 1}));
    EXPECT_EQ(launches[1].block, (std::array<int, 3>{16, 16, 1}));
    EXPECT_EQ(launches[3].grid, (std::array<int, 3>{1, 1, 1}));
    EXPECT_EQ(launches[2].shared_memory_per_block_bytes, 256 * 4) << "the reduction's static shared array: int[256]";
  }
  EXPECT_GE(files, 2u);
}

TEST(NcuImport, ALaunchWithoutAShapeIsRefused) {
  const std::string text =
      "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
      "\"0\",\"k()\",\"smsp__warps_launched.sum\",\"warp\",\"8\"\n";
  wc::NcuImportOptions o;
  o.origin = "t.csv";
  try {
    wc::import_ncu(wc::parse_ncu_csv(text, "t.csv"), o);
    FAIL();
  } catch (const warpmodel::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("t.csv:2 (ID 0): the launch has no grid size"), std::string::npos) << e.what();
  }
  // launch__grid_size / launch__block_size stand in for the shape columns.
  const std::string with_sizes = text + "\"0\",\"k()\",\"launch__grid_size\",\"\",\"4\"\n\"0\",\"k()\",\"launch__block_size\",\"\",\"64\"\n";
  const auto im = wc::import_ncu(wc::parse_ncu_csv(with_sizes, "t.csv"), o);
  EXPECT_EQ(im.report.launches.at(0).grid, (std::array<int, 3>{4, 1, 1}));
  EXPECT_EQ(im.report.launches.at(0).block, (std::array<int, 3>{64, 1, 1}));
  EXPECT_EQ(im.missing_model_metrics.size(), wc::find_metric_set("model")->metrics.size() - 1) << "all but warps launched";
  EXPECT_THROW(wc::import_ncu(wc::parse_ncu_csv("\"ID\",\"Kernel Name\"\n", "e.csv"), o), warpmodel::InputError);
}
