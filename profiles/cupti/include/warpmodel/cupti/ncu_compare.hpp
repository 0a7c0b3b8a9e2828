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
// peak): with clocks left alone (`--clock-control none`) such a value moves from run to run, so
// two tools cannot agree on it more closely than one tool agrees with itself.
bool is_timing_metric(const std::string& metric);

// The function's identifier without namespaces, return type, template and call arguments:
// "void ns::shared_kernel<4>(P)" and "shared_kernel<4>(P)" -> "shared_kernel".
std::string kernel_identifier(const std::string& name);

struct MetricAgreement {
  std::size_t launch_index = 0;
  std::string kernel;       // demangled (shortened to the function name)
  std::string metric;
  bool percentage = false;  // compared in percentage points
  double cupti = 0, ncu = 0;
  double difference = 0;    // |cupti - ncu| in pp for percentages, else 100 |cupti - ncu| / |ncu| (0 when both are 0)
  double tolerance = 0;
  bool within_tolerance = false;  // the criterion: difference <= tolerance
  bool timing = false;            // is_timing_metric
  double repeat_difference = -1;  // the same difference between two CUPTI runs (-1: not measured)
  double ncu_repeat_difference = -1;  // ... and between two ncu runs (-1: not measured); for the reader only
  // Agrees: within tolerance, or (timing metrics only) within twice the CUPTI run-to-run difference.
  bool ok = false;
};

struct Comparison {
  std::string workload;
  std::vector<MetricAgreement> rows;
  std::vector<std::string> problems;   // unmatched launches, missing metrics
  double max_counter_difference_pct = 0;     // work counters (not timing)
  double max_percentage_difference_pp = 0;   // percentages (not timing)
  double max_timing_difference_pct = 0;      // timing metrics, relative (percentages in pp)
  bool all_ok() const;
};

// Matches ncu's rows to the report's launches in order (ncu profiles exactly the workload's
// launches: `--profile-from-start off` with cudaProfilerStart/Stop around them) and checks that
// the mangled names agree; compares every metric the report collected.
// `repeat`, when given, is a second CUPTI run of the same workload: its difference from `cupti`
// is each metric's run-to-run spread (the timing rule above uses it). `ncu_repeat`, when given, is
// a second ncu run: its spread is reported beside, and judges nothing.
Comparison compare_with_ncu(const ProfileReport& cupti, const std::vector<NcuLaunch>& ncu,
                            double counter_tolerance_pct = 0.5, double percentage_tolerance_pp = 1.0,
                            const ProfileReport* repeat = nullptr, const std::vector<NcuLaunch>* ncu_repeat = nullptr);

nlohmann::json to_json(const Comparison& c);
// A markdown section: header with the workload, a table (launch, kernel, metric, CUPTI, ncu,
// difference, tolerance, agrees) and the maxima.
std::string comparison_markdown(const Comparison& c);

// A comparison folder, as the gpu test CuptiVsNcu writes it: for i = 0, 1, ...: cupti-i.json and
// cupti-i-repeat.json (warpmodel profile, twice), ncu-i.csv and ncu-i-repeat.csv (ncu's raw page,
// twice), ncu-i.command.txt (the ncu command line as run), and ncu-version.txt. The repeats and the
// command file are optional (older folders lack them).
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
