// The CUPTI-vs-ncu comparison (ncu_compare.hpp); ncu's CSV is read by ncu_csv.cpp.
#include "warpmodel/cupti/ncu_compare.hpp"

#include "warpmodel/support/statistics.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <optional>
#include <cstdio>
#include <sstream>

#include "warpmodel/json_io.hpp"
#include "warpmodel/report.hpp"
#include "warpmodel/support/input_file.hpp"
#include "warpmodel/support/text.hpp"

namespace warpmodel::cupti {
namespace {

// "copy_kernel(const float *, float *, long)" -> "copy_kernel"; templates keep their arguments.
std::string short_name(std::string demangled) {
  const std::string anonymous = "(anonymous namespace)";
  for (auto at = demangled.find(anonymous); at != std::string::npos; at = demangled.find(anonymous))
    demangled.replace(at, anonymous.size(), "anonymous");
  int depth = 0;
  for (std::size_t i = 0; i < demangled.size(); ++i) {
    if (demangled[i] == '<') ++depth;
    if (demangled[i] == '>') --depth;
    if (demangled[i] == '(' && depth == 0) return demangled.substr(0, i);
  }
  return demangled;
}

}  // namespace

std::string kernel_identifier(const std::string& name) {
  // Cut the parameter list and the template arguments (depth 0 only), then keep what follows the
  // last "::" and the last space (return type).
  std::string text = name;
  const std::string anonymous = "(anonymous namespace)";
  for (auto at = text.find(anonymous); at != std::string::npos; at = text.find(anonymous))
    text.replace(at, anonymous.size(), "anonymous");
  std::string base;
  int depth = 0;
  for (char c : text) {
    if (c == '(' && depth == 0) break;
    if (c == '<') ++depth;
    if (depth == 0) base += c;
    // ncu prints "(anonymous namespace)" as "unnamed>": a '>' without its '<'.
    if (c == '>' && depth > 0) --depth;
  }
  const auto colon = base.rfind("::");
  if (colon != std::string::npos) base = base.substr(colon + 2);
  const auto space = base.rfind(' ');
  if (space != std::string::npos) base = base.substr(space + 1);
  return base;
}

namespace {

// "void ns::shared_kernel<4>(P)" -> "shared_kernel<4>": the table's kernel column.
std::string display_name(const std::string& demangled) {
  const std::string s = short_name(demangled);
  std::size_t start = 0;
  int depth = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '<') ++depth;
    if (s[i] == '>' && depth > 0) --depth;
    if (depth == 0 && (s[i] == ' ' || (s[i] == ':' && i + 1 < s.size() && s[i + 1] == ':'))) start = i + (s[i] == ' ' ? 1 : 2);
  }
  return s.substr(start);
}

std::string fixed(double v, int decimals) {
  if (!std::isfinite(v)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

}  // namespace

bool is_percentage_metric(const std::string& metric) {
  const std::string pct = ".pct";
  const bool ends_pct = metric.size() >= pct.size() && metric.compare(metric.size() - pct.size(), pct.size(), pct) == 0;
  return ends_pct || metric.find("pct_of_peak") != std::string::npos;
}

bool is_timing_metric(const std::string& metric) {
  for (const char* marker : {"cycles", "time_duration", ".per_second", "pct_of_peak_sustained_elapsed", "throughput"})
    if (metric.find(marker) != std::string::npos) return true;
  return false;
}

bool is_stall_reason_metric(const std::string& metric) {
  const std::string head = "smsp__average_warps_issue_stalled_", tail = "_per_issue_active.ratio";
  return metric.rfind(head, 0) == 0 && metric.size() > head.size() + tail.size() &&
         metric.compare(metric.size() - tail.size(), tail.size(), tail) == 0;
}

bool is_cycle_count_metric(const std::string& metric) {
  return (metric.rfind("sm__cycles", 0) == 0 || metric.rfind("smsp__cycles", 0) == 0) && !is_percentage_metric(metric) &&
         metric.find("per_second") == std::string::npos;
}

bool Comparison::all_ok() const {
  if (!problems.empty() || rows.empty()) return false;
  return std::all_of(rows.begin(), rows.end(), [](const MetricAgreement& a) { return a.ok; });
}

namespace {

// |a - b| in percentage points for percentages, else relative to b in percent (0 when equal).
double difference(double a, double b, bool percentage) {
  if (percentage) return std::fabs(a - b);
  return a == b ? 0.0 : 100.0 * std::fabs(a - b) / std::fabs(b);
}

// max - min over the runs, in pp for percentages, else in percent of the median (of the largest
// |value| when the median is 0: runs of 0, 0 and 5 spread by 100 %); -1 for one run, or when the
// spread is no finite number.
double spread(const std::vector<double>& runs, bool percentage) {
  if (runs.size() < 2) return -1;
  const auto [lo, hi] = std::minmax_element(runs.begin(), runs.end());
  if (percentage) return std::isfinite(*hi - *lo) ? *hi - *lo : -1;
  if (*hi == *lo) return 0.0;
  double middle = std::fabs(support::median(runs));
  if (middle == 0) middle = std::max(std::fabs(*hi), std::fabs(*lo));
  const double s = 100.0 * (*hi - *lo) / middle;
  return std::isfinite(s) ? s : -1;
}

}  // namespace

Comparison compare_with_ncu(const std::vector<ProfileReport>& cupti_runs, const std::vector<std::vector<NcuLaunch>>& ncu_runs,
                            double counter_tolerance_pct, double percentage_tolerance_pp) {
  Comparison c;
  if (cupti_runs.empty() || ncu_runs.empty()) {
    c.problems.push_back("no CUPTI run or no ncu run to compare");
    return c;
  }
  const ProfileReport& cupti = cupti_runs.front();
  const std::vector<NcuLaunch>& ncu = ncu_runs.front();
  c.workload = cupti.workload;
  if (ncu.size() != cupti.launches.size())
    c.problems.push_back("ncu profiled " + std::to_string(ncu.size()) + " kernels, the CUPTI report has " +
                         std::to_string(cupti.launches.size()) + " launches");
  for (std::size_t r = 1; r < cupti_runs.size(); ++r)
    if (cupti_runs[r].launches.size() != cupti.launches.size())
      c.problems.push_back("CUPTI run " + std::to_string(r + 1) + " has " + std::to_string(cupti_runs[r].launches.size()) +
                           " launches");
  for (std::size_t r = 1; r < ncu_runs.size(); ++r)
    if (ncu_runs[r].size() != ncu.size())
      c.problems.push_back("ncu run " + std::to_string(r + 1) + " profiled " + std::to_string(ncu_runs[r].size()) + " kernels");
  const std::size_t n = std::min(ncu.size(), cupti.launches.size());
  // Launch i's values of one metric over each tool's runs.
  auto cupti_values_of = [&](std::size_t i, const std::string& metric) {
    std::vector<double> v;
    for (const auto& run : cupti_runs)
      if (i < run.launches.size())
        if (auto it = run.launches[i].metrics.find(metric); it != run.launches[i].metrics.end() && std::isfinite(it->second))
          v.push_back(it->second);
    return v;
  };
  auto ncu_values_of = [&](std::size_t i, const std::string& metric) {
    std::vector<double> v;
    for (const auto& run : ncu_runs)
      if (i < run.size())
        if (auto it = run[i].metrics.find(metric); it != run[i].metrics.end() && std::isfinite(it->second))
          v.push_back(it->second);
    return v;
  };
  // The SM clock a tool ran launch i at: median over its runs of cycles / duration (0 when unknown).
  auto clock_of = [](const std::vector<double>& cycles, const std::vector<double>& durations) {
    std::vector<double> f;
    for (std::size_t r = 0; r < std::min(cycles.size(), durations.size()); ++r)
      if (durations[r] > 0) f.push_back(cycles[r] / durations[r]);
    return f.empty() ? 0.0 : support::median(f);
  };
  for (std::size_t i = 0; i < n; ++i) {
    const LaunchRecord& l = cupti.launches[i];
    const NcuLaunch& k = ncu[i];
    const double cupti_clock = clock_of(cupti_values_of(i, "sm__cycles_elapsed.avg"), cupti_values_of(i, "gpu__time_duration.sum"));
    const double ncu_clock = clock_of(ncu_values_of(i, "sm__cycles_elapsed.avg"), ncu_values_of(i, "gpu__time_duration.sum"));
    double clock_difference =
        cupti_clock > 0 && ncu_clock > 0 ? 100.0 * std::fabs(cupti_clock / ncu_clock - 1.0) : 0.0;
    if (!std::isfinite(clock_difference)) clock_difference = 0.0;  // a clock of 1e300 cycles per ns is none
    // ncu prints its own demangling (no namespaces, "(anonymous namespace)" shortened), so the
    // function identifiers are compared; the order and count were matched already.
    if (k.kernel_name != l.kernel && kernel_identifier(k.kernel_name) != kernel_identifier(l.demangled)) {
      c.problems.push_back("launch " + std::to_string(i) + ": ncu kernel '" + k.kernel_name + "' is not '" + l.kernel + "'");
      continue;
    }
    for (const auto& [metric, value] : l.metrics) {
      if (is_stall_reason_metric(metric)) {  // not compared (ncu_compare.hpp says why)
        if (std::find(c.not_compared.begin(), c.not_compared.end(), metric) == c.not_compared.end())
          c.not_compared.push_back(metric);
        continue;
      }
      if (k.metrics.find(metric) == k.metrics.end()) {
        c.problems.push_back("launch " + std::to_string(i) + ": ncu has no column for " + metric);
        continue;
      }
      const std::vector<double> cupti_values = cupti_values_of(i, metric), ncu_values = ncu_values_of(i, metric);
      MetricAgreement a;
      a.launch_index = l.launch_index;
      a.kernel = display_name(l.demangled);
      a.metric = metric;
      a.percentage = is_percentage_metric(metric);
      a.timing = is_timing_metric(metric);
      a.cupti_runs = static_cast<int>(cupti_values.size());
      a.ncu_runs = static_cast<int>(ncu_values.size());
      a.cupti = cupti_values.empty() ? value : support::median(cupti_values);
      a.ncu = ncu_values.empty() ? std::numeric_limits<double>::quiet_NaN() : support::median(ncu_values);
      a.difference = difference(a.cupti, a.ncu, a.percentage);
      a.base_tolerance = a.percentage ? percentage_tolerance_pp : counter_tolerance_pct;
      a.cupti_spread = spread(cupti_values, a.percentage);
      a.ncu_spread = spread(ncu_values, a.percentage);
      a.tolerance = a.base_tolerance;
      if (a.cupti_runs >= kRunsForSpread && a.ncu_runs >= kRunsForSpread)
        a.tolerance = std::max(a.base_tolerance, kSpreadFactor * std::max(a.cupti_spread, a.ncu_spread));
      if (is_cycle_count_metric(metric)) {
        a.clock_difference = clock_difference;
        a.tolerance += clock_difference;
      }
      a.ok = std::isfinite(a.difference) && a.difference <= a.tolerance;
      // No relative difference to a 0 (or to a value that overflows it): the row is a problem, not an
      // infinite difference in the summary.
      if (std::isinf(a.difference)) {
        c.problems.push_back("launch " + std::to_string(i) + ": " + metric + ": no relative difference between CUPTI's " +
                             format_number(a.cupti, 10) + " and ncu's " + format_number(a.ncu, 10));
        c.rows.push_back(a);
        continue;
      }
      if (a.timing) c.max_timing_difference_pct = std::max(c.max_timing_difference_pct, a.difference);
      else if (a.percentage) c.max_percentage_difference_pp = std::max(c.max_percentage_difference_pp, a.difference);
      else c.max_counter_difference_pct = std::max(c.max_counter_difference_pct, a.difference);
      c.rows.push_back(a);
    }
  }
  return c;
}

nlohmann::json to_json(const Comparison& c) {
  auto number = [](double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); };
  auto spread_json = [](double x) { return x >= 0 ? nlohmann::json(x) : nlohmann::json(nullptr); };
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& a : c.rows)
    rows.push_back({{"launch_index", a.launch_index},
                    {"kernel", a.kernel},
                    {"metric", a.metric},
                    {"compared_in", a.percentage ? "percentage points" : "percent of ncu"},
                    {"cupti", number(a.cupti)},
                    {"ncu", number(a.ncu)},
                    {"cupti_runs", a.cupti_runs},
                    {"ncu_runs", a.ncu_runs},
                    {"difference", number(a.difference)},
                    {"cupti_spread", spread_json(a.cupti_spread)},
                    {"ncu_spread", spread_json(a.ncu_spread)},
                    {"base_tolerance", a.base_tolerance},
                    {"clock_difference", a.clock_difference},
                    {"tolerance", a.tolerance},
                    {"timing", a.timing},
                    {"ok", a.ok}});
  return {{"workload", c.workload},
          {"rows", rows},
          {"problems", c.problems},
          {"max_counter_difference_pct", c.max_counter_difference_pct},
          {"max_percentage_difference_pp", c.max_percentage_difference_pp},
          {"max_timing_difference", c.max_timing_difference_pct},
          {"all_ok", c.all_ok()}};
}

std::string comparison_markdown(const Comparison& c) {
  std::ostringstream o;
  o << "### " << c.workload << "\n\n";
  Table t;
  t.headers = {"launch", "kernel", "metric", "CUPTI (median)", "ncu (median)", "difference",
               "CUPTI spread", "ncu spread", "tolerance", "agrees"};
  for (const auto& a : c.rows) {
    const char* unit = a.percentage ? " pp" : " %";
    auto spread_text = [&](double x, int runs) {
      return x >= 0 ? fixed(x, 3) + unit + " (" + std::to_string(runs) + " runs)" : std::string("- (1 run)");
    };
    t.rows.push_back({std::to_string(a.launch_index), a.kernel, a.metric + (a.timing ? " (timing)" : ""),
                      format_number(a.cupti, 10), format_number(a.ncu, 10), fixed(a.difference, 3) + unit,
                      spread_text(a.cupti_spread, a.cupti_runs), spread_text(a.ncu_spread, a.ncu_runs),
                      fixed(a.tolerance, 2) + unit, a.ok ? "yes" : "**no**"});
  }
  o << t.render(TableFormat::Markdown) << "\n";
  o << "Largest difference: work counters " << fixed(c.max_counter_difference_pct, 4) << " %, percentages "
    << fixed(c.max_percentage_difference_pp, 4) << " pp, timing metrics " << fixed(c.max_timing_difference_pct, 3)
    << " (% or pp); " << (c.all_ok() ? "all agree" : "NOT all agree") << ".\n";
  for (const auto& p : c.problems) o << "\n- problem: " << p << "\n";
  return o.str();
}

std::string workload_arguments(const std::string& command) {
  std::istringstream in(command);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  std::string out;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (i < 2 && (w == "warpmodel" || w == "profile" || w.find("/warpmodel") != std::string::npos)) continue;
    if (w == "--metrics" || w == "--timing-runs" || w == "--output" || w == "-o") {
      ++i;  // and its value
      continue;
    }
    // Commands recorded before flags were written by name alone carry "--flag true".
    if (w == "true" && i > 0 && words[i - 1].rfind("--", 0) == 0) continue;
    out += (out.empty() ? "" : " ") + w;
  }
  return out;
}

namespace {

std::string slurp(const std::filesystem::path& p) { return support::read_input_file(p); }

std::string number_text(double v, int significant) { return format_number(v, significant); }

}  // namespace

ComparisonDocument compare_ncu_directory(const std::filesystem::path& dir, double counter_tolerance_pct,
                                         double percentage_tolerance_pp) {
  namespace fs = std::filesystem;
  ComparisonDocument doc;
  // A path the system cannot look at (too long, a loop of links) is no comparison either.
  const auto exists = [](const fs::path& p) {
    std::error_code ec;
    return fs::exists(p, ec);
  };
  if (!exists(dir / "cupti-0.json")) throw InputError((dir / "cupti-0.json").string() + ": no comparison there");
  std::string ncu_version = exists(dir / "ncu-version.txt") ? slurp(dir / "ncu-version.txt") : "unknown";
  while (!ncu_version.empty() && (ncu_version.back() == '\n' || ncu_version.back() == '\r')) ncu_version.pop_back();
  for (auto& c : ncu_version)
    if (c == '\n') c = ' ';
  nlohmann::json all = nlohmann::json::array();
  std::ostringstream tables;
  std::string provenance;
  bool flushed_runs = false, user_ranges = false;
  doc.all_ok = true;
  for (std::size_t i = 0;; ++i) {
    const std::string n = std::to_string(i);
    if (!exists(dir / ("cupti-" + n + ".json"))) break;
    // The first run and its repeats, in name order (-repeat, -repeat2, ...): STEM-repeatDIGITS.EXT
    // only, so that other files beside them (a run's .provenance.json sidecar) are not taken for runs.
    auto runs_of = [&](const std::string& stem, const std::string& ext) {
      std::vector<fs::path> files{dir / (stem + ext)};
      std::vector<fs::path> repeats;
      const std::string prefix = stem + "-repeat";
      std::error_code ec;
      for (const auto& e : fs::directory_iterator(dir, ec)) {
        const std::string name = e.path().filename().string();
        if (name.size() < prefix.size() + ext.size() || name.rfind(prefix, 0) != 0 ||
            name.compare(name.size() - ext.size(), ext.size(), ext) != 0)
          continue;
        const std::string middle = name.substr(prefix.size(), name.size() - prefix.size() - ext.size());
        if (std::all_of(middle.begin(), middle.end(), [](unsigned char c) { return std::isdigit(c) != 0; }))
          repeats.push_back(e.path());
      }
      std::sort(repeats.begin(), repeats.end());
      files.insert(files.end(), repeats.begin(), repeats.end());
      return files;
    };
    std::vector<ProfileReport> cupti_runs;
    for (const auto& f : runs_of("cupti-" + n, ".json"))
      cupti_runs.push_back(profile_report_from_json(read_json_file(f), f.filename().string()));
    std::vector<std::vector<NcuLaunch>> ncu_runs;
    for (const auto& f : runs_of("ncu-" + n, ".csv")) ncu_runs.push_back(parse_ncu_csv(slurp(f), f.filename().string()).launches);
    const ProfileReport& report = cupti_runs.front();
    const Comparison cmp = compare_with_ncu(cupti_runs, ncu_runs, counter_tolerance_pct, percentage_tolerance_pp);
    ++doc.workloads;
    doc.all_ok = doc.all_ok && cmp.all_ok();
    doc.max_counter_difference_pct = std::max(doc.max_counter_difference_pct, cmp.max_counter_difference_pct);
    doc.max_percentage_difference_pp = std::max(doc.max_percentage_difference_pp, cmp.max_percentage_difference_pp);
    doc.max_timing_difference = std::max(doc.max_timing_difference, cmp.max_timing_difference_pct);
    const std::string args = workload_arguments(report.provenance.command);
    const std::string cupti_cmd = "warpmodel profile " + args + " --metrics model --timing-runs 1 -o PREFIX";
    // The command as the test ran it, where recorded; older folders: the command of that time.
    std::string ncu_cmd =
        "ncu --clock-control none --cache-control none --csv --page raw --print-units base --kernel-name-base mangled "
        "--profile-from-start off --metrics <the model set> warpmodel profile " + args + " --launch-only";
    if (exists(dir / ("ncu-" + n + ".command.txt"))) {
      ncu_cmd = slurp(dir / ("ncu-" + n + ".command.txt"));
      while (!ncu_cmd.empty() && (ncu_cmd.back() == '\n' || ncu_cmd.back() == '\r')) ncu_cmd.pop_back();
    }
    if (report.collection.l2_flushed_before_each_pass) flushed_runs = true;
    if (report.collection.range_mode == "user") user_ranges = true;
    auto j = to_json(cmp);
    j["cupti_command"] = cupti_cmd;
    j["ncu_command"] = ncu_cmd;
    j["passes"] = report.collection.passes;
    j["l2_flushed_before_each_pass"] = report.collection.l2_flushed_before_each_pass;
    j["provenance"] = to_json(report).at("provenance");
    all.push_back(j);
    tables << comparison_markdown(cmp) << "\nCUPTI: `" << cupti_cmd << "` (" << report.collection.passes << " passes, "
           << report.collection.range_mode << " range / " << report.collection.replay_mode << " replay"
           << (report.collection.l2_flushed_before_each_pass ? ", L2 written back and flushed before each pass" : "")
           << "; " << cupti_runs.size() << " run(s)). ncu: `" << ncu_cmd << "` (" << ncu_runs.size() << " run(s)).\n\n";
    if (provenance.empty()) {
      const auto& p = report.provenance;
      provenance = "GPU " + p.gpu + ", driver " + p.driver + ", CUDA " + p.cuda + ", SM clock " +
                   number_text(p.sm_clock_mhz, 6) + " MHz before / " + number_text(p.sm_clock_mhz_after, 6) +
                   " MHz after the first CUPTI run (NVML), " + p.date + ", commit " + p.commit + ", CUPTI API " +
                   p.cupti_version;
    }
  }
  std::ostringstream md;
  md << "# CUPTI Range Profiler vs Nsight Compute\n\n"
     << "Generated by `warpmodel compare-ncu` from the files the gpu test `CuptiVsNcu.TheModelSetAgrees` "
        "(tests/profiles/cupti/test_cupti_vs_ncu.cpp, run by scripts/cupti_device_run.sh) measured. Each "
        "workload's launches are profiled several times by warpmodel's CUPTI code (the `model` set) and by ncu, "
        "each run a process of its own, clocks left alone in both. "
     << (flushed_runs
             ? "Both start every replay pass from the same cache state: CUPTI replays the whole workload (" +
                   std::string(user_ranges ? "user ranges around each launch"
                                           : "auto ranges, one per kernel as ncu's") +
                   ", with user replay) and ncu replays the whole process "
               "(`--replay-mode application`, caches left alone by ncu: `--cache-control none`); before each "
               "pass the workload restores its inputs and reads a buffer of 3 x L2, which writes back every "
               "dirty line and evicts every line of the workload (profiles/cupti/src/l2_flush.hpp). With each "
               "tool's own kernel replay instead, later passes start from the cache state that tool's memory "
               "restore leaves, and DRAM writes and L2 hit rates differed between the tools by more than the "
               "tolerance (results/h200/cupti-probes/kernel-replay.md). "
             : "Caches are left alone by both tools. ")
     << "Criterion: each tool's value is the median of its runs and its spread max - min over them; "
        "the medians agree within max(" << number_text(counter_tolerance_pct, 3) << " % for counters or "
     << number_text(percentage_tolerance_pp, 3) << " pp for percentages, " << number_text(kSpreadFactor, 2)
     << " x the larger of the two spreads) when each tool ran at least " << kRunsForSpread
     << " times, else within the base tolerance alone. The spread is what one tool cannot repeat from process to "
        "process (clocks left alone, physical pages, the write-backs still in flight when a range closes); two "
        "tools cannot be asked to agree more closely than that. A count of SM cycles also moves with the SM clock "
        "each process ran at (clocks left alone): its tolerance adds the clocks' difference, each tool's clock being "
        "the median of its runs' sm__cycles_elapsed.avg / gpu__time_duration.sum for that launch, so it agrees when "
        "the durations agree and the clocks explain the rest. Timing metrics (cycles, durations, rates) are "
        "marked. Not compared: the stall reasons (smsp__average_warps_issue_stalled_<reason>_per_issue_active.ratio, "
        "in the model set for hopper H.1c): ncu's CSV prints them to two decimals (0.37 for CUPTI's 0.3657), and "
        "they count warps per issue-active cycle, which each process's schedule moves: on the H200 the copy "
        "kernel's long_scoreboard read 42.83 under CUPTI and 44.05 under ncu while each tool repeated itself "
        "within 0.2 % (results/h200/logs/vs-ncu-stalls/).\n\n"
     << "Provenance: " << provenance << ". ncu: " << ncu_version << ".\n\n"
     << "**Summary:** " << doc.workloads << " workload(s); largest work-counter difference "
     << number_text(doc.max_counter_difference_pct, 4) << " %, largest percentage difference "
     << number_text(doc.max_percentage_difference_pp, 4) << " pp, largest timing-metric difference "
     << number_text(doc.max_timing_difference, 4) << " (% or pp); "
     << (doc.all_ok ? "every metric agrees." : "NOT every metric agrees (see the tables).") << "\n\n"
     << tables.str();
  doc.markdown = md.str();
  doc.json = {{"comparisons", all},
              {"max_counter_difference_pct", doc.max_counter_difference_pct},
              {"max_percentage_difference_pp", doc.max_percentage_difference_pp},
              {"max_timing_difference", doc.max_timing_difference},
              {"all_ok", doc.all_ok},
              {"ncu_version", ncu_version}};
  return doc;
}

}  // namespace warpmodel::cupti
