// The profile writers (JSON warpmodel.profile/1, long CSV) and the CUPTI-vs-ncu comparison, on
// constructed reports and ncu output in ncu's raw-page CSV format.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "warpmodel/cupti/ncu_compare.hpp"
#include "warpmodel/cupti/profile_report.hpp"
#include "warpmodel/json_io.hpp"
#include "warpmodel/support/statistics.hpp"

namespace wc = warpmodel::cupti;
namespace fs = std::filesystem;

namespace {

wc::ProfileReport sample_report() {
  wc::ProfileReport r;
  r.workload = "copy n=1024 block=256";
  r.device.name = "NVIDIA H200";
  r.device.chip = "GH100";
  r.device.cc_major = 9;
  r.device.sm_count = 132;
  r.provenance.gpu = "NVIDIA H200";
  r.provenance.commit = "abc1234";
  r.provenance.command = "warpmodel profile --kernel copy";
  r.collection.range_mode = "auto";
  r.collection.replay_mode = "kernel";
  r.collection.passes = 2;
  r.collection.metrics = {"smsp__warps_launched.sum", "lts__t_sector_hit_rate.pct"};
  r.collection.derived = {{"inst_per_warp", "smsp__inst_executed.sum / smsp__warps_launched.sum"}};
  wc::LaunchRecord l;
  l.kernel = "_ZN9warpmodel5cupti12_GLOBAL__N_111copy_kernelEPKfPfx";
  l.demangled = wc::demangle(l.kernel);
  l.label = "copy 0";
  l.grid = {4, 1, 1};
  l.block = {256, 1, 1};
  l.registers_per_thread = 16;
  l.duration_ns_runs = {2000, 1000, 3000};
  l.duration_ns = warpmodel::support::median(l.duration_ns_runs);
  l.metrics = {{"smsp__warps_launched.sum", 32}, {"lts__t_sector_hit_rate.pct", std::numeric_limits<double>::quiet_NaN()}};
  l.derived = {{"inst_per_warp", 7.5}};
  r.launches.push_back(l);
  return r;
}

std::size_t count_lines(const std::string& s) {
  std::size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

// ncu's raw page as `ncu --csv --page raw --print-units base` writes it: a header row, a units row,
// one row per kernel, every field quoted, thousands separators in numbers.
std::string ncu_csv(double warps, double hit_pct, const std::string& kernel) {
  return "==PROF== Connected to process 1234\n"
         "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Block Size\","
         "\"Grid Size\",\"Device\",\"CC\",\"lts__t_sector_hit_rate.pct\",\"smsp__warps_launched.sum\"\n"
         "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"%\",\"warp\"\n"
         "\"0\",\"1234\",\"warpmodel\",\"127.0.0.1\",\"" +
         kernel + "\",\"1\",\"7\",\"(256, 1, 1)\",\"(4, 1, 1)\",\"0\",\"9.0\",\"" + std::to_string(hit_pct) + "\",\"" +
         (warps >= 1000 ? "1,000,000" : std::to_string(static_cast<long long>(warps))) + "\"\n";
}

}  // namespace

TEST(Report, MedianAndDemangle) {
  EXPECT_DOUBLE_EQ(warpmodel::support::median({3, 1, 2}), 2.0);
  EXPECT_DOUBLE_EQ(warpmodel::support::median({4, 1, 2, 3}), 2.5);
  EXPECT_TRUE(std::isnan(warpmodel::support::median({})));
  EXPECT_EQ(wc::demangle("_Z3fooPKfi"), "foo(float const*, int)");
  EXPECT_EQ(wc::demangle("not_mangled"), "not_mangled");
  EXPECT_EQ(wc::csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(wc::csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(wc::csv_field("plain"), "plain");
}

TEST(Report, JsonHasTheAgreedSchemaAndRoundTrips) {
  const auto r = sample_report();
  const auto j = wc::to_json(r);
  EXPECT_EQ(j.at("schema"), "warpmodel.profile/1");
  for (const char* k : {"gpu", "driver", "cuda", "sm_clock_mhz", "date", "commit", "command"})
    EXPECT_TRUE(j.at("provenance").contains(k)) << k;
  const auto& l = j.at("launches").at(0);
  for (const char* k : {"kernel", "demangled", "launch_index", "grid", "block", "registers_per_thread",
                        "shared_memory_per_block_bytes", "duration_ns", "metrics"})
    EXPECT_TRUE(l.contains(k)) << k;
  EXPECT_EQ(l.at("grid"), nlohmann::json::array({4, 1, 1}));
  EXPECT_EQ(l.at("duration_ns"), 2000.0);
  EXPECT_EQ(l.at("metrics").at("smsp__warps_launched.sum"), 32.0);
  EXPECT_TRUE(l.at("metrics").at("lts__t_sector_hit_rate.pct").is_null()) << "NaN is written as null";
  EXPECT_EQ(l.at("derived").at("inst_per_warp"), 7.5);

  const auto back = wc::profile_report_from_json(nlohmann::json::parse(j.dump()), "test");
  EXPECT_EQ(wc::to_json(back), j);
  EXPECT_TRUE(std::isnan(back.launches[0].metrics.at("lts__t_sector_hit_rate.pct")));
}

TEST(Report, JsonReaderNamesWhatIsWrong) {
  auto j = wc::to_json(sample_report());
  j["schema"] = "warpmodel.kernel/1";
  EXPECT_THROW(wc::profile_report_from_json(j, "x.json"), warpmodel::InputError);
  j = wc::to_json(sample_report());
  j["launches"][0].erase("kernel");
  try {
    wc::profile_report_from_json(j, "x.json");
    FAIL() << "a launch without kernel must be refused";
  } catch (const warpmodel::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("x.json: launches[0]: missing field 'kernel'"), std::string::npos) << e.what();
  }
}

TEST(Report, CsvIsLongFormOneRowPerLaunchAndMetric) {
  const auto r = sample_report();
  const std::string csv = wc::to_csv(r);
  std::istringstream in(csv);
  std::string header;
  std::getline(in, header);
  EXPECT_EQ(header, wc::kCsvHeader);
  EXPECT_EQ(count_lines(csv), 1u + 2u + 1u);  // header, 2 Perfworks metrics, 1 derived value
  // The demangled name has commas: quoted. NaN: an empty value (pandas reads NaN).
  EXPECT_NE(csv.find("\"warpmodel::cupti::(anonymous namespace)::copy_kernel(float const*, float*, long long)\""),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find(",lts__t_sector_hit_rate.pct,,perfworks,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",smsp__warps_launched.sum,32,perfworks,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",inst_per_warp,7.5,nvprof,smsp__inst_executed.sum / smsp__warps_launched.sum"), std::string::npos)
      << csv;
}

TEST(NcuCompare, ParsesTheRawPage) {
  const auto rows = wc::parse_ncu_csv(ncu_csv(1e6, 12.5, "_Z4copyv"), "ncu.csv").launches;
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].kernel_name, "_Z4copyv");
  EXPECT_DOUBLE_EQ(rows[0].metrics.at("smsp__warps_launched.sum"), 1e6);
  EXPECT_DOUBLE_EQ(rows[0].metrics.at("lts__t_sector_hit_rate.pct"), 12.5);
  EXPECT_EQ(rows[0].units.at("lts__t_sector_hit_rate.pct"), "%");
  EXPECT_EQ(rows[0].metrics.count("Block Size"), 0u);
  EXPECT_THROW(wc::parse_ncu_csv("==PROF== no kernels were profiled\n", "ncu.csv"), warpmodel::InputError);
}

TEST(NcuCompare, CountersByRelativeDifferencePercentagesByPoints) {
  auto r = sample_report();
  r.launches[0].metrics["lts__t_sector_hit_rate.pct"] = 12.0;
  const std::string kernel = r.launches[0].kernel;
  // 32 vs 32: 0 %; 12.0 vs 12.5 %: 0.5 pp -> both agree.
  auto c = wc::compare_with_ncu({r}, {wc::parse_ncu_csv(ncu_csv(32, 12.5, kernel), "ncu").launches});
  ASSERT_EQ(c.rows.size(), 2u);
  EXPECT_TRUE(c.all_ok()) << wc::comparison_markdown(c);
  EXPECT_DOUBLE_EQ(c.max_percentage_difference_pp, 0.5);
  EXPECT_DOUBLE_EQ(c.max_counter_difference_pct, 0.0);
  // 12.0 vs 13.5: 1.5 pp -> fails; 32 vs 31: 3.2 % -> fails.
  c = wc::compare_with_ncu({r}, {wc::parse_ncu_csv(ncu_csv(31, 13.5, kernel), "ncu").launches});
  EXPECT_FALSE(c.all_ok());
  for (const auto& a : c.rows) EXPECT_FALSE(a.ok) << a.metric;
  EXPECT_NEAR(c.max_counter_difference_pct, 100.0 / 31.0, 1e-9);
  const std::string md = wc::comparison_markdown(c);
  EXPECT_NE(md.find("**no**"), std::string::npos);
  EXPECT_NE(md.find("NOT all agree"), std::string::npos);
  EXPECT_FALSE(wc::to_json(c).at("all_ok").get<bool>());
}

// The stall reasons are not compared (ncu_compare.hpp: ncu prints them to two decimals, and a ratio per
// issue-active cycle moves with each process's schedule): named in not_compared, no row, no verdict.
TEST(NcuCompare, StallReasonsAreListedNotCompared) {
  auto r = sample_report();
  const std::string stall = "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio";
  r.launches[0].metrics[stall] = 42.83;
  const std::string kernel = r.launches[0].kernel;
  EXPECT_TRUE(wc::is_stall_reason_metric(stall));
  EXPECT_FALSE(wc::is_stall_reason_metric("smsp__inst_executed.sum"));
  auto c = wc::compare_with_ncu({r}, {wc::parse_ncu_csv(ncu_csv(32, 12.5, kernel), "ncu").launches});
  EXPECT_EQ(c.not_compared, std::vector<std::string>{stall});
  for (const auto& a : c.rows) EXPECT_NE(a.metric, stall);
  EXPECT_TRUE(c.problems.empty()) << "a stall reason ncu lacks is not a missing column either";
}

// With >= 3 runs of each tool, a metric's tolerance is max(base, 3 x the larger run-to-run
// spread), the values compared are each tool's median, and the same rule holds for every metric.
TEST(NcuCompare, ToleranceFollowsTheToolsMeasuredSpread) {
  auto r = sample_report();
  r.launches[0].metrics = {{"sm__cycles_elapsed.max", 1000}};
  const std::string kernel = r.launches[0].kernel;
  auto ncu = [&](double cycles) {
    return wc::parse_ncu_csv(
        "\"ID\",\"Kernel Name\",\"sm__cycles_elapsed.max\"\n\"\",\"\",\"cycle\"\n\"0\",\"" + kernel + "\",\"" +
            std::to_string(cycles) + "\"\n",
        "ncu").launches;
  };
  auto cupti = [&](std::initializer_list<double> values) {
    std::vector<wc::ProfileReport> runs;
    for (double v : values) {
      runs.push_back(r);
      runs.back().launches[0].metrics["sm__cycles_elapsed.max"] = v;
    }
    return runs;
  };
  EXPECT_TRUE(wc::is_timing_metric("sm__cycles_elapsed.max"));
  EXPECT_FALSE(wc::is_timing_metric("smsp__inst_executed.sum"));
  // CUPTI 990/1000/1010 (median 1000, spread 2 %), ncu 1030/1031/1032 (median 1031, spread 0.19 %):
  // difference 3.0 % <= 3 x 2 % -> agrees.
  auto c = wc::compare_with_ncu(cupti({990, 1000, 1010}), {ncu(1030), ncu(1031), ncu(1032)});
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(c.rows[0].cupti, 1000);
  EXPECT_DOUBLE_EQ(c.rows[0].ncu, 1031);
  EXPECT_NEAR(c.rows[0].cupti_spread, 2.0, 1e-9);
  EXPECT_NEAR(c.rows[0].ncu_spread, 200.0 / 1031.0, 1e-9);
  EXPECT_NEAR(c.rows[0].tolerance, 6.0, 1e-9);
  EXPECT_TRUE(c.all_ok()) << wc::comparison_markdown(c);
  // Tight repeats leave no room: 3.0 % against a 0.5 % base tolerance.
  EXPECT_FALSE(wc::compare_with_ncu(cupti({1000, 1000, 1001}), {ncu(1030), ncu(1031), ncu(1030)}).all_ok());
  // Fewer than 3 runs of a tool: no spread is derived, the base tolerance alone judges.
  c = wc::compare_with_ncu(cupti({990, 1010}), {ncu(1030), ncu(1031), ncu(1032)});
  EXPECT_DOUBLE_EQ(c.rows[0].tolerance, 0.5);
  EXPECT_FALSE(c.all_ok());
  // ncu's spread counts as much as CUPTI's: 100 vs 103 with ncu repeating 100..103.
  r.launches[0].metrics = {{"smsp__warps_launched.sum", 100}};
  std::vector<wc::ProfileReport> steady(3, r);
  c = wc::compare_with_ncu(steady, {wc::parse_ncu_csv(ncu_csv(103, 0, kernel), "ncu").launches,
                                    wc::parse_ncu_csv(ncu_csv(100, 0, kernel), "ncu").launches,
                                    wc::parse_ncu_csv(ncu_csv(103, 0, kernel), "ncu").launches});
  EXPECT_TRUE(c.all_ok()) << wc::comparison_markdown(c);
  EXPECT_NE(wc::comparison_markdown(c).find("| ncu spread |"), std::string::npos);
  EXPECT_NEAR(wc::to_json(c).at("rows").at(0).at("ncu_spread").get<double>(), 300.0 / 103.0, 1e-9);
  // A repeat that profiled other kernels is a problem, not a silent partial comparison.
  const auto other = wc::parse_ncu_csv("==PROF== no kernels\n\"ID\",\"Kernel Name\"\n\"\",\"\"\n", "ncu").launches;
  EXPECT_FALSE(wc::compare_with_ncu(steady, {wc::parse_ncu_csv(ncu_csv(100, 0, kernel), "ncu").launches, other}).problems.empty());
}

// The H200's 1 GiB copy: the same duration under both tools, the SM at 1935 MHz under CUPTI and at
// 1978 MHz under ncu, so the elapsed cycles differ by 2.2 %; the clocks explain it, the durations agree.
TEST(NcuCompare, CycleCountsAllowForTheClockEachToolRanAt) {
  auto r = sample_report();
  const std::string kernel = r.launches[0].kernel;
  auto cupti_run = [&](double cycles, double ns) {
    auto x = r;
    x.launches[0].metrics = {{"sm__cycles_elapsed.avg", cycles}, {"gpu__time_duration.sum", ns}};
    return x;
  };
  auto ncu_run = [&](double cycles, double ns) {
    return wc::parse_ncu_csv("\"ID\",\"Kernel Name\",\"sm__cycles_elapsed.avg\",\"gpu__time_duration.sum\"\n\"\",\"\",\"cycle\",\"ns\"\n"
                             "\"0\",\"" + kernel + "\",\"" + std::to_string(cycles) + "\",\"" + std::to_string(ns) + "\"\n",
                             "ncu").launches;
  };
  EXPECT_TRUE(wc::is_cycle_count_metric("sm__cycles_elapsed.avg"));
  EXPECT_TRUE(wc::is_cycle_count_metric("smsp__cycles_active.avg"));
  EXPECT_FALSE(wc::is_cycle_count_metric("gpu__time_duration.sum"));
  EXPECT_FALSE(wc::is_cycle_count_metric("sm__cycles_elapsed.avg.per_second"));
  // 815000 ns at 1.935 and 1.978 GHz: cycles 1577025 vs 1612070 (2.17 %); clocks differ by 2.17 %.
  const std::vector<wc::ProfileReport> cupti = {cupti_run(1577025, 815000), cupti_run(1577025, 815000),
                                                cupti_run(1577025, 815000)};
  auto c = wc::compare_with_ncu(cupti, {ncu_run(1612070, 815000), ncu_run(1612070, 815000), ncu_run(1612070, 815000)});
  ASSERT_EQ(c.rows.size(), 2u);
  const auto& cycles = c.rows[0].metric == "sm__cycles_elapsed.avg" ? c.rows[0] : c.rows[1];
  EXPECT_NEAR(cycles.clock_difference, 100.0 * std::fabs(1577025.0 / 1612070.0 - 1.0), 1e-6);
  EXPECT_NEAR(cycles.tolerance, 0.5 + cycles.clock_difference, 1e-6);
  EXPECT_TRUE(c.all_ok()) << wc::comparison_markdown(c);
  // Same clocks but durations 2 % apart: the duration row disagrees, and so does the cycle count.
  c = wc::compare_with_ncu(cupti, {ncu_run(1577025 * 1.02, 815000 * 1.02), ncu_run(1577025 * 1.02, 815000 * 1.02),
                                   ncu_run(1577025 * 1.02, 815000 * 1.02)});
  EXPECT_FALSE(c.all_ok());
  for (const auto& a : c.rows) EXPECT_FALSE(a.ok) << a.metric;
}

TEST(NcuCompare, TheFolderNamesTheCommandsItRan) {
  // A copy of the fixture with ncu's repeat and the command file the gpu test writes.
  const fs::path dir = fs::temp_directory_path() / ("ncu-folder-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  for (const auto& e : fs::directory_iterator(WARPMODEL_CUPTI_FIXTURES "/ncu-comparison"))
    fs::copy_file(e.path(), dir / e.path().filename(), fs::copy_options::overwrite_existing);
  fs::copy_file(dir / "ncu-0.csv", dir / "ncu-0-repeat.csv", fs::copy_options::overwrite_existing);
  std::ofstream(dir / "ncu-0.command.txt") << "ncu --replay-mode application --cache-control none <as run>\n";
  // Provenance sidecars beside the runs (scripts/provenance_sidecars.py writes them) are not runs.
  std::ofstream(dir / "cupti-0-repeat.provenance.json") << "{\"gpu\": \"sidecar\"}\n";
  std::ofstream(dir / "cupti-0.provenance.json") << "{\"gpu\": \"sidecar\"}\n";
  const wc::ComparisonDocument doc = wc::compare_ncu_directory(dir);
  const auto& cmp = doc.json.at("comparisons").at(0);
  EXPECT_EQ(cmp.at("ncu_command").get<std::string>(), "ncu --replay-mode application --cache-control none <as run>");
  for (const auto& row : cmp.at("rows")) EXPECT_EQ(row.at("ncu_spread").get<double>(), 0.0);
  EXPECT_NE(doc.markdown.find("(2 run(s))."), std::string::npos) << doc.markdown;
  fs::remove_all(dir);
}

TEST(NcuCompare, KernelIdentifiersMatchNcusDemangling) {
  // As ncu 2025.3 prints them, and as the C++ ABI demangles CUPTI's mangled names.
  EXPECT_EQ(wc::kernel_identifier("void shared_kernel<4>(StencilParams)"), "shared_kernel");
  EXPECT_EQ(wc::kernel_identifier("void warpmodel::stencils::gpu::kernels::shared_kernel<4>(warpmodel::stencils::gpu::"
                                  "kernels::StencilParams)"),
            "shared_kernel");
  EXPECT_EQ(wc::kernel_identifier("unnamed>::copy_kernel(const float *, float *, long long)"), "copy_kernel");
  EXPECT_EQ(wc::kernel_identifier("warpmodel::cupti::(anonymous namespace)::copy_kernel(float const*, float*, long long)"),
            "copy_kernel");
  EXPECT_EQ(wc::kernel_identifier("void ns::f<ns::A<2>, 3>(int)"), "f");
  EXPECT_EQ(wc::workload_arguments("warpmodel profile --kernel copy --size 8 --metrics model --timing-runs 1 --output /x/y"),
            "--kernel copy --size 8");
  EXPECT_EQ(wc::workload_arguments("warpmodel profile --kernel copy --replay user --flush-l2 true --metrics model -o /x"),
            "--kernel copy --replay user --flush-l2");
}

TEST(NcuCompare, TheMeasuredCopyComparison) {
  // A real run (H200, ncu 2025.3.1, committed as a fixture): the copy kernel's model set, CUPTI
  // twice and ncu once. Every work counter agrees exactly but DRAM writes, which differ by ~1 %
  // (the write-backs a kernel replay's memory restore leaves in L2 differ between the tools);
  // the comparison must say so. With fewer than 3 runs of each tool no spread is derived, so the
  // cycle counts are judged by the base tolerance plus the clocks' difference.
  const wc::ComparisonDocument doc = wc::compare_ncu_directory(WARPMODEL_CUPTI_FIXTURES "/ncu-comparison");
  EXPECT_EQ(doc.workloads, 1u);
  const auto& rows = doc.json.at("comparisons").at(0).at("rows");
  EXPECT_EQ(rows.size(), 27u);
  std::size_t exact = 0;
  for (const auto& r : rows) {
    const std::string m = r.at("metric");
    if (m == "dram__bytes_write.sum") {
      EXPECT_FALSE(r.at("ok").get<bool>());
      EXPECT_GT(r.at("difference").get<double>(), 0.5);
      EXPECT_LT(r.at("difference").get<double>(), 2.0);
      continue;
    }
    // Cycle counts add the two tools' clock difference; every other metric keeps the base tolerance.
    const double allowed = r.at("base_tolerance").get<double>() + r.at("clock_difference").get<double>();
    if (wc::is_cycle_count_metric(m)) EXPECT_GT(r.at("clock_difference").get<double>(), 0.0) << m;
    else EXPECT_EQ(r.at("clock_difference").get<double>(), 0.0) << m;
    EXPECT_EQ(r.at("tolerance").get<double>(), allowed) << m;
    EXPECT_EQ(r.at("ok").get<bool>(), r.at("difference").get<double>() <= allowed) << m;
    if (!r.at("timing").get<bool>()) {
      EXPECT_TRUE(r.at("ok").get<bool>()) << m;
    }
    if (!r.at("timing").get<bool>() && m.find("dram") == std::string::npos && r.at("difference").get<double>() == 0) ++exact;
  }
  EXPECT_GE(exact, 18u) << "instructions, warps, requests and sectors agree exactly";
  EXPECT_FALSE(doc.all_ok);
  EXPECT_NE(doc.markdown.find("| copy_kernel |"), std::string::npos) << doc.markdown;
  EXPECT_NE(doc.markdown.find("Version 2025.3.1.0"), std::string::npos);
  EXPECT_THROW(wc::compare_ncu_directory("/nonexistent"), warpmodel::InputError);
}

TEST(NcuCompare, MismatchedKernelsAndCountsAreProblems) {
  const auto r = sample_report();
  auto c = wc::compare_with_ncu({r}, {wc::parse_ncu_csv(ncu_csv(32, 12.5, "_Z5otherv"), "ncu").launches});
  EXPECT_FALSE(c.all_ok());
  ASSERT_FALSE(c.problems.empty());
  EXPECT_NE(c.problems[0].find("is not"), std::string::npos);
  c = wc::compare_with_ncu({r}, {std::vector<wc::NcuLaunch>{}});
  EXPECT_FALSE(c.all_ok());
  EXPECT_NE(c.problems.at(0).find("ncu profiled 0 kernels"), std::string::npos);
  EXPECT_TRUE(wc::is_percentage_metric("lts__t_sector_hit_rate.pct"));
  EXPECT_TRUE(wc::is_percentage_metric("sm__warps_active.avg.pct_of_peak_sustained_active"));
  EXPECT_FALSE(wc::is_percentage_metric("l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio"));
  EXPECT_FALSE(wc::is_percentage_metric("dram__bytes_read.sum"));
}
