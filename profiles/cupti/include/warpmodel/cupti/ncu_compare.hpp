// Cross-check of the project's CUPTI values against Nsight Compute's: ncu's CSV (read by
// ncu_csv.hpp, the one reader of ncu output), matched launch by launch to a ProfileReport's, and
// compared metric by metric. Plain C++, no CUPTI; tested on committed ncu output.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "warpmodel/cupti/ncu_csv.hpp"
#include "warpmodel/cupti/profile_report.hpp"

namespace warpmodel::cupti {

// How a metric is compared: a percentage (name ends in ".pct" or holds "pct_of_peak") by its
// difference in percentage points, anything else by its relative difference in percent.
bool is_percentage_metric(const std::string& metric);
// Whether a metric measures time rather than work (cycles, durations, rates, percent of elapsed
// peak): with clocks left alone (`--clock-control none`) such a value moves from run to run.
bool is_timing_metric(const std::string& metric);
// A count of SM or SMSP cycles (not a rate or a percentage): it moves with the SM clock.
bool is_cycle_count_metric(const std::string& metric);

// The function's identifier without namespaces, return type, template and call arguments:
// "void ns::shared_kernel<4>(P)" and "shared_kernel<4>(P)" -> "shared_kernel".
std::string kernel_identifier(const std::string& name);

// How the two tools are judged: each tool profiles the workload several times (>= 3);
// a metric's value per tool is the median of its runs and its spread is max - min over them (in
// percent of the median, or percentage points for percentages). The tools agree on a metric when
//   |median(CUPTI) - median(ncu)| <= max(base tolerance, 3 x the larger of the two spreads),
// the base tolerance being 0.5 % for counters and 1 pp for percentages. The spread is what one tool
// cannot repeat from process to process (clocks left alone, physical pages, the write-backs still
// in flight when a range closes), so two tools cannot be asked to agree more closely than that.
// With fewer than 3 runs of either tool no spread is derived and the base tolerance alone applies.
// A count of SM cycles (sm__cycles_elapsed, smsp__cycles_active, ...) also moves with the SM clock,
// which each process gets from the GPU (clocks left alone; measured on the H200: the same 1 GiB copy
// ran 815 us under both tools, at 1935 MHz under CUPTI and 1978 MHz under ncu, so its cycles differed
// by 2.1 %). Its tolerance therefore adds the clock difference measured in the same comparison: each
// tool's clock is the median of its runs' sm__cycles_elapsed.avg / gpu__time_duration.sum for that
// launch. The cycle count then agrees when the time does and the clocks explain the rest; the time
// itself (gpu__time_duration) is judged by the rule above alone.
// The stall reasons (smsp__average_warps_issue_stalled_<reason>_per_issue_active.ratio) are not
// compared: ncu's CSV prints them to two decimals, and a ratio per issue-active cycle moves with each
// process's schedule (the copy kernel's long_scoreboard: 42.83 under CUPTI, 44.05 under ncu, each tool
// within 0.2 % of itself over 3 runs; results/h200/logs/vs-ncu-stalls/). Hopper H.1c reads only their
// barrier share, from CUPTI.
bool is_stall_reason_metric(const std::string& metric);
inline constexpr int kRunsForSpread = 3;
inline constexpr double kSpreadFactor = 3.0;

struct MetricAgreement {
  std::size_t launch_index = 0;
  std::string kernel;       // demangled (shortened to the function name)
  std::string metric;
  bool percentage = false;  // compared in percentage points
  bool timing = false;      // is_timing_metric (reported; judged by the same rule)
  double cupti = 0, ncu = 0;  // medians over each tool's runs
  double difference = 0;    // |cupti - ncu| in pp for percentages, else 100 |cupti - ncu| / |ncu| (0 when both are 0)
  double base_tolerance = 0;
  double cupti_spread = -1, ncu_spread = -1;  // max - min over the runs (% or pp); -1: fewer than 2 runs
  int cupti_runs = 0, ncu_runs = 0;
  double clock_difference = 0;  // cycle counts only: 100 |f_cupti / f_ncu - 1| of the SM clocks the tools ran at
  double tolerance = 0;     // max(base, 3 x the larger spread) with >= 3 runs of each tool, else base; + clock_difference
  bool ok = false;          // difference <= tolerance
};

struct Comparison {
  std::string workload;
  std::vector<MetricAgreement> rows;
  std::vector<std::string> problems;   // unmatched launches, missing metrics, runs that disagree on the kernels
  std::vector<std::string> not_compared;  // stall reasons (is_stall_reason_metric), reported by name only
  double max_counter_difference_pct = 0;     // work counters (not timing)
  double max_percentage_difference_pp = 0;   // percentages (not timing)
  double max_timing_difference_pct = 0;      // timing metrics, relative (percentages in pp)
  bool all_ok() const;
};

// Matches ncu's rows to the reports' launches in order (ncu profiles exactly the workload's
// launches: `--profile-from-start off` with cudaProfilerStart/Stop around them), checks that the
// names agree, and compares every metric the first CUPTI run collected by the rule above.
// `cupti_runs` and `ncu_runs` each hold at least one run of the same workload.
Comparison compare_with_ncu(const std::vector<ProfileReport>& cupti_runs, const std::vector<std::vector<NcuLaunch>>& ncu_runs,
                            double counter_tolerance_pct = 0.5, double percentage_tolerance_pp = 1.0);

nlohmann::json to_json(const Comparison& c);
// A markdown section: header with the workload, a table (launch, kernel, metric, CUPTI, ncu,
// difference, tolerance, agrees) and the maxima.
std::string comparison_markdown(const Comparison& c);

// A comparison folder, as the gpu test CuptiVsNcu writes it: for i = 0, 1, ...: cupti-i.json and its
// repeats cupti-i-repeat.json, cupti-i-repeat2.json, ... (warpmodel profile), ncu-i.csv and
// ncu-i-repeat*.csv (ncu's raw page), ncu-i.command.txt (the ncu command line as run), and
// ncu-version.txt. The repeats and the command file are optional (older folders lack them).
// Returns the document of results/h200/cupti-vs-ncu.md and its JSON twin; throws
// warpmodel::InputError when the folder holds no cupti-0.json or a file is unreadable.
struct ComparisonDocument {
  nlohmann::json json;
  std::string markdown;
  std::size_t workloads = 0;
  double max_counter_difference_pct = 0, max_percentage_difference_pp = 0, max_timing_difference = 0;
  bool all_ok = false;
};
ComparisonDocument compare_ncu_directory(const std::filesystem::path& dir, double counter_tolerance_pct = 0.5,
                                         double percentage_tolerance_pp = 1.0);

// The workload's own arguments of a `warpmodel profile` command line: the command without
// "warpmodel profile" and the collection options (--metrics, --timing-runs, --output/-o).
std::string workload_arguments(const std::string& profile_command);

}  // namespace warpmodel::cupti
