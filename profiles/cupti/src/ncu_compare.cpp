// The CUPTI-vs-ncu comparison (ncu_compare.hpp); ncu's CSV is read by ncu_csv.cpp.
#include "warpmodel/cupti/ncu_compare.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <cstdio>
#include <sstream>

#include "warpmodel/json_io.hpp"
#include "warpmodel/report.hpp"
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

}  // namespace

Comparison compare_with_ncu(const ProfileReport& cupti, const std::vector<NcuLaunch>& ncu,
                            double counter_tolerance_pct, double percentage_tolerance_pp, const ProfileReport* repeat,
                            const std::vector<NcuLaunch>* ncu_repeat) {
  Comparison c;
  c.workload = cupti.workload;
  if (ncu.size() != cupti.launches.size())
    c.problems.push_back("ncu profiled " + std::to_string(ncu.size()) + " kernels, the CUPTI report has " +
                         std::to_string(cupti.launches.size()) + " launches");
  if (repeat && repeat->launches.size() != cupti.launches.size())
    c.problems.push_back("the repeated CUPTI run has " + std::to_string(repeat->launches.size()) + " launches");
  if (ncu_repeat && ncu_repeat->size() != ncu.size())
    c.problems.push_back("the repeated ncu run profiled " + std::to_string(ncu_repeat->size()) + " kernels");
  const std::size_t n = std::min(ncu.size(), cupti.launches.size());
  for (std::size_t i = 0; i < n; ++i) {
    const LaunchRecord& l = cupti.launches[i];
    const NcuLaunch& k = ncu[i];
    // ncu prints its own demangling (no namespaces, "(anonymous namespace)" shortened), so the
    // function identifiers are compared; the order and count were matched already.
    if (k.kernel_name != l.kernel && kernel_identifier(k.kernel_name) != kernel_identifier(l.demangled)) {
      c.problems.push_back("launch " + std::to_string(i) + ": ncu kernel '" + k.kernel_name + "' is not '" + l.kernel + "'");
      continue;
    }
    for (const auto& [metric, value] : l.metrics) {
      const auto it = k.metrics.find(metric);
      if (it == k.metrics.end()) {
        c.problems.push_back("launch " + std::to_string(i) + ": ncu has no column for " + metric);
        continue;
      }
      MetricAgreement a;
      a.launch_index = l.launch_index;
      a.kernel = display_name(l.demangled);
      a.metric = metric;
      a.percentage = is_percentage_metric(metric);
      a.timing = is_timing_metric(metric);
      a.cupti = value;
      a.ncu = it->second;
      a.difference = difference(a.cupti, a.ncu, a.percentage);
      a.tolerance = a.percentage ? percentage_tolerance_pp : counter_tolerance_pct;
      a.within_tolerance = std::isfinite(a.difference) && a.difference <= a.tolerance;
      if (repeat && i < repeat->launches.size()) {
        const auto r = repeat->launches[i].metrics.find(metric);
        if (r != repeat->launches[i].metrics.end()) a.repeat_difference = difference(r->second, a.cupti, a.percentage);
      }
      if (ncu_repeat && i < ncu_repeat->size()) {
        const auto r = (*ncu_repeat)[i].metrics.find(metric);
        if (r != (*ncu_repeat)[i].metrics.end()) a.ncu_repeat_difference = difference(r->second, a.ncu, a.percentage);
      }
      a.ok = a.within_tolerance ||
             (a.timing && a.repeat_difference >= 0 && std::isfinite(a.difference) && a.difference <= 2 * a.repeat_difference);
      if (a.timing) c.max_timing_difference_pct = std::max(c.max_timing_difference_pct, a.difference);
      else if (a.percentage) c.max_percentage_difference_pp = std::max(c.max_percentage_difference_pp, a.difference);
      else c.max_counter_difference_pct = std::max(c.max_counter_difference_pct, a.difference);
      c.rows.push_back(a);
    }
  }
  return c;
}

nlohmann::json to_json(const Comparison& c) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& a : c.rows)
    rows.push_back({{"launch_index", a.launch_index},
                    {"kernel", a.kernel},
                    {"metric", a.metric},
                    {"compared_in", a.percentage ? "percentage points" : "percent of ncu"},
                    {"cupti", std::isfinite(a.cupti) ? nlohmann::json(a.cupti) : nlohmann::json(nullptr)},
                    {"ncu", std::isfinite(a.ncu) ? nlohmann::json(a.ncu) : nlohmann::json(nullptr)},
                    {"difference", std::isfinite(a.difference) ? nlohmann::json(a.difference) : nlohmann::json(nullptr)},
                    {"tolerance", a.tolerance},
                    {"within_tolerance", a.within_tolerance},
                    {"timing", a.timing},
                    {"cupti_repeat_difference", a.repeat_difference >= 0 ? nlohmann::json(a.repeat_difference)
                                                                          : nlohmann::json(nullptr)},
                    {"ncu_repeat_difference", a.ncu_repeat_difference >= 0 ? nlohmann::json(a.ncu_repeat_difference)
                                                                              : nlohmann::json(nullptr)},
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
  t.headers = {"launch",    "kernel",           "metric",         "CUPTI", "ncu", "difference",
               "tolerance", "CUPTI run to run", "ncu run to run", "agrees"};
  for (const auto& a : c.rows) {
    const char* unit = a.percentage ? " pp" : " %";
    std::string verdict = a.within_tolerance ? "yes" : a.ok ? "timing: within 2 x run to run" : "**no**";
    t.rows.push_back({std::to_string(a.launch_index), a.kernel, a.metric + (a.timing ? " (timing)" : ""),
                      format_number(a.cupti, 10), format_number(a.ncu, 10), fixed(a.difference, 3) + unit,
                      fixed(a.tolerance, 1) + unit, a.repeat_difference >= 0 ? fixed(a.repeat_difference, 3) + unit : "-",
                      a.ncu_repeat_difference >= 0 ? fixed(a.ncu_repeat_difference, 3) + unit : "-", verdict});
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

std::string slurp(const std::filesystem::path& p) {
  auto text = support::read_text_file(p);
  if (!text) throw InputError(p.string() + ": cannot read");
  return std::move(*text);
}

std::string number_text(double v, int significant) { return format_number(v, significant); }

}  // namespace

ComparisonDocument compare_ncu_directory(const std::filesystem::path& dir, double counter_tolerance_pct,
                                         double percentage_tolerance_pp) {
  namespace fs = std::filesystem;
  ComparisonDocument doc;
  if (!fs::exists(dir / "cupti-0.json")) throw InputError((dir / "cupti-0.json").string() + ": no comparison there");
  std::string ncu_version = fs::exists(dir / "ncu-version.txt") ? slurp(dir / "ncu-version.txt") : "unknown";
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
    if (!fs::exists(dir / ("cupti-" + n + ".json"))) break;
    const auto report = profile_report_from_json(read_json_file(dir / ("cupti-" + n + ".json")), "cupti-" + n + ".json");
    std::optional<ProfileReport> repeat;
    if (fs::exists(dir / ("cupti-" + n + "-repeat.json")))
      repeat = profile_report_from_json(read_json_file(dir / ("cupti-" + n + "-repeat.json")), "cupti-" + n + "-repeat.json");
    const auto rows = parse_ncu_csv(slurp(dir / ("ncu-" + n + ".csv")), "ncu-" + n + ".csv").launches;
    std::optional<std::vector<NcuLaunch>> ncu_repeat;
    if (fs::exists(dir / ("ncu-" + n + "-repeat.csv")))
      ncu_repeat = parse_ncu_csv(slurp(dir / ("ncu-" + n + "-repeat.csv")), "ncu-" + n + "-repeat.csv").launches;
    const Comparison cmp = compare_with_ncu(report, rows, counter_tolerance_pct, percentage_tolerance_pp,
                                            repeat ? &*repeat : nullptr, ncu_repeat ? &*ncu_repeat : nullptr);
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
    if (fs::exists(dir / ("ncu-" + n + ".command.txt"))) {
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
           << "; run " << (repeat ? "twice" : "once") << "). ncu: `" << ncu_cmd << "` (run "
           << (ncu_repeat ? "twice" : "once") << ").\n\n";
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
        "workload's launches are profiled by warpmodel's CUPTI code (the `model` set, twice) and by ncu "
        "(twice where the column 'ncu run to run' has values), clocks left alone in both. "
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
     << "Criterion: counters agree within "
     << number_text(counter_tolerance_pct, 3) << " %, percentages within " << number_text(percentage_tolerance_pp, 3)
     << " percentage point. Timing metrics (cycles, durations, rates; marked) move from run to run with the clocks "
        "left alone: the column 'CUPTI run to run' is the difference between the two CUPTI runs, and a timing "
        "metric outside the tolerance but within twice that is reported as such. 'ncu run to run' is the same "
        "for ncu's two runs, for the reader.\n\n"
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
