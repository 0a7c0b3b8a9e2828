// `warpmodel validate --from DIR`: predicted against measured cycles for the launches measured in
// DIR/validation-measurements.json on the GPU that DIR/device.json describes; writes
// validation.md, validation.csv, validation.tex and validation.json (README "Validation").
// Model only: runs without a GPU, from committed measurements.
#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "commands.hpp"
#include "options.hpp"
#include "warpmodel/support/progress.hpp"
#include "warpmodel/support/provenance.hpp"
#include "warpmodel/support/statistics.hpp"
#include "warpmodel/support/xz.hpp"
#include "exit_codes.hpp"
#include "warpmodel/json_io.hpp"
#include "warpmodel/device_comparison.hpp"  // profile_gpu_name
#include "warpmodel/intervals.hpp"
#include "warpmodel/model.hpp"
#include "warpmodel/report.hpp"
#include "warpmodel/validation.hpp"
#include "warpmodel/sass/external_set.hpp"
#include "warpmodel/sass/merge.hpp"
#include "warpmodel/sass/report.hpp"
#include "warpmodel/sass/tools.hpp"
#include "warpmodel/traffic.hpp"
#include "warpmodel/adi/cluster_sweep.hpp"

#ifdef WARPMODEL_HAVE_VALIDATION_SWEEP
#include "characterize.hpp"  // ubench: gpu_slug
#include "warpmodel/corpus/corpus.hpp"
#include "warpmodel/support/cuda.hpp"
#include "warpmodel/support/text.hpp"
#include "warpmodel/cupti/profiler.hpp"
#include "warpmodel/sweep/validation_sweep.hpp"
#endif

namespace warpmodel::cli {
namespace {

struct ValidateOptions {
  std::string from;     // analyse committed measurements
  std::string measure;  // measure on the GPU into this folder, then analyse
  bool quick = false;   // --measure: a few configurations only (a smoke run)
  std::vector<std::string> families;  // --measure: which sweeps (stencil, adi, fwi, corpus); empty: all
  std::vector<std::string> corpus_kernels;  // --measure: only these corpus kernels (the corpus's others kept)
  std::string l2 = "cold";  // --measure: L2 flushed before every launch (cold) or as left (warm)
  std::string output;   // default: the measurements' folder
  std::vector<std::string> cross;  // other GPUs' folders: cross-GPU evaluation in both directions
  std::string sass_binary = "/proc/self/exe";  // where the cases' kernels' SASS is read (access patterns)
  bool sass_binary_given = false;
  std::string command;
};

// Sweeps measured before the kernel profile carried launch.cluster: the ADI fused-cluster y-sweep ran
// in clusters of adi::cluster_columns(ny, kClusterCells) blocks along x, as its launch
// (stencils/adi gpu_solver.cu) sets them on a GPU that runs clusters of 16 (every one measured);
// the case's size label "N^2" gives ny. (Its kernel's third template argument is that width:
// test AdiClusterLaunches checks the rule against the committed sweeps' kernel names.) Returns how
// many cases it completed.
int complete_cluster_launches(std::vector<ValidationCase>& cases) {
  int completed = 0;
  for (ValidationCase& c : cases) {
    if (c.profile.launch.cluster || c.family != "adi" || c.shape != "fused-cluster" || c.kernel.rfind("sweep-y", 0) != 0)
      continue;
    const auto caret = c.size.find("^2");
    if (caret == std::string::npos || caret == 0) continue;
    int ny = 0;
    try {
      ny = std::stoi(c.size.substr(0, caret));
    } catch (const std::exception&) {
      continue;
    }
    if (ny <= 0) continue;
    c.profile.launch.cluster = Dim3{adi::cluster_columns(ny, adi::kClusterCells), 1, 1};
    c.profile.sources["launch.cluster"] = "the ADI solver's launch of fused-cluster's y-sweep (adi::cluster_columns(" +
                                          std::to_string(ny) + ", " + std::to_string(adi::kClusterCells) +
                                          ")): measured before the kernel profile carried launch.cluster";
    ++completed;
  }
  return completed;
}

// The access patterns (the SASS address of every global access, traffic.hpp) of each case's
// kernel, so that the cross-shape evaluation can derive memory counters per shape. From
// `--sass-binary` when given (e.g. this program, which embeds every kernel the sweep measures),
// else from DIR/access-patterns.json (written beside the measurements by `warpmodel sass-analyze
// --addresses --format json` of the program that measured them), else none: the binary's analysis
// takes seconds, so it is not run unasked. A case gets its kernel's patterns only when the static
// instruction counts agree (the same code). Returns a note for the report.
std::string attach_access_patterns(std::vector<ValidationCase>& cases, const std::filesystem::path& dir,
                                   std::string binary, bool binary_given) {
  struct Entry {
    double static_instructions;
    AccessPatterns patterns;
    std::optional<sass::ClusterStatics> cluster;
  };
  std::map<std::string, Entry> by_symbol;
  std::string from;
  // Stored xz-compressed under results/ (docs/results-layout.md); a plain file is read as well.
  const std::filesystem::path committed = support::plain_or_xz(dir / "access-patterns.json");
  std::error_code unreadable;  // a folder the system cannot look in has no committed patterns
  if (!binary_given && std::filesystem::exists(committed, unreadable)) {
    const nlohmann::json j = read_json_file(committed);
    if (!j.contains("schema") || j["schema"] != "warpmodel.access-patterns/1" || !j.contains("kernels") ||
        !j["kernels"].is_object())
      throw InputError(committed.string() + ": expected a warpmodel.access-patterns/1 document with \"kernels\" "
                       "(write it with `warpmodel sass-analyze --addresses --format json`)");
    for (const auto& [symbol, k] : j["kernels"].items()) {
      if (!k.is_object() || !k.contains("static_instructions") || !k["static_instructions"].is_number())
        throw InputError(committed.string() + ": kernel '" + symbol + "': expected static_instructions");
      by_symbol[symbol] = {k["static_instructions"].get<double>(),
                           access_patterns_from_json(k.value("access_patterns", nlohmann::json::object()),
                                                     committed.string() + " (kernel " + symbol + ")"),
                           std::nullopt};
      if (k.contains("cluster")) {
        const nlohmann::json& c = k["cluster"];
        const auto count = [&](const char* key) {
          if (!c.is_object() || !c.contains(key) || !c[key].is_number_integer() || c[key].get<long long>() < 0 ||
              c[key].get<long long>() > 100000)
            throw InputError(committed.string() + ": kernel '" + symbol + "': cluster." + key +
                             ": expected a count from 0 to 100000");
          return c[key].get<int>();
        };
        by_symbol[symbol].cluster = sass::ClusterStatics{count("barrier_waits"), count("remote_shared_stores"),
                                                         count("remote_store_bytes_per_thread"),
                                                         count("remote_data_waits")};
      }
    }
    from = committed.filename().string();
  } else if (!binary_given) {
    return "no access patterns (no " + committed.filename().string() + " in the folder and no --sass-binary): memory "
           "counters are kept from the reference shape";
  } else {
    if (binary == "/proc/self/exe") {
      std::error_code ec;
      const auto self = std::filesystem::read_symlink(binary, ec);  // the tools run in child processes
      if (!ec) binary = self.string();
    }
    sass::BinaryAnalysis analysis;
    try {
      analysis = sass::analyse_binary(binary);
    } catch (const std::exception& e) {
      return std::string("no access patterns (") + e.what() + "): memory counters are kept from the reference shape";
    }
    for (const auto& k : analysis.kernels)
      by_symbol[k.name] = {static_cast<double>(k.static_instructions), k.access_patterns,
                           sass::ClusterStatics{k.cluster_barrier_waits, k.remote_shared_stores,
                                                k.remote_store_bytes_per_thread, k.remote_data_waits}};
    from = "the SASS of " + std::filesystem::path(binary).filename().string();
  }
  std::size_t attached = 0, other_code = 0, cluster_completed = 0;
  for (ValidationCase& c : cases) {
    const auto source = c.profile.sources.find("kernel");
    if (source == c.profile.sources.end()) continue;
    const auto it = by_symbol.find(source->second.substr(0, source->second.find(' ')));
    if (it == by_symbol.end()) continue;
    if (c.profile.static_instructions && *c.profile.static_instructions != it->second.static_instructions) {
      ++other_code;
      continue;
    }
    // A launch in clusters measured before the kernel profile carried its waits and remote bytes
    // (hopper H.18b-c): its kernel's SASS gives them, as the sweep now does when it measures.
    if (c.profile.launch.cluster && it->second.cluster && !c.profile.cluster_barrier_waits_per_warp &&
        !c.profile.remote_shared_waits_per_warp) {
      sass::add_cluster_statics(c.profile, *it->second.cluster);
      cluster_completed += c.profile.cluster_barrier_waits_per_warp.has_value();
    }
    if (it->second.patterns.accesses.empty()) continue;
    c.profile.access_patterns = it->second.patterns;
    ++attached;
  }
  return "access patterns from " + from + " for " + std::to_string(attached) + " of " + std::to_string(cases.size()) +
         " launches" + (other_code ? " (" + std::to_string(other_code) + " left out: other code)" : "") +
         (cluster_completed ? "; cluster waits and remote bytes from the same SASS for " +
                                  std::to_string(cluster_completed) + " launches in clusters measured without them"
                            : "");
}

// Where the numbers in validation.csv/.json came from: the measurements' own provenance (GPU,
// driver, CUDA, date, commit, command), the SM clocks the launches recorded, and this analysis.
nlohmann::json provenance_object(const nlohmann::json& measurements, const std::vector<ValidationCase>& cases,
                                 const std::string& analysis_command) {
  nlohmann::json p = nlohmann::json::object();
  if (measurements.contains("provenance") && measurements["provenance"].is_object()) p["measurements"] = measurements["provenance"];
  double low = INFINITY, high = -INFINITY;
  for (const auto& c : cases) low = std::min(low, c.sm_clock_mhz), high = std::max(high, c.sm_clock_mhz);
  if (!cases.empty()) p["sm_clock_mhz_recorded"] = {{"min", low}, {"max", high}, {"launches", cases.size()}};
  // The measurements' own record, at the top level too, so a reader of the CSV beside this file finds
  // the GPU, driver, CUDA, clock, date, commit and command without knowing the sweep's layout.
  if (p.contains("measurements"))
    for (const char* key : {"gpu", "driver", "cuda", "date", "commit", "command"})
      if (p["measurements"].contains(key)) p[key] = p["measurements"][key];
  if (!cases.empty()) p["sm_clock_mhz"] = low == high ? nlohmann::json(low) : nlohmann::json({{"min", low}, {"max", high}});
  p["analysis_command"] = analysis_command;
  p["analysis_inputs"] = "validation-measurements.json and device.json in the same folder";
  return p;
}

std::string provenance_lines(const nlohmann::json& measurements) {
  std::ostringstream out;
  if (measurements.contains("provenance") && measurements["provenance"].is_object())
    for (const auto& [k, v] : measurements["provenance"].items())
      out << "- " << k << ": " << (v.is_string() ? v.get<std::string>() : v.dump()) << "\n";
  return out.str();
}

// The fitted constants as text: "launch_cycles = ..., ..., turnover_exponent = ...".
std::string calibration_constants(const DeviceProfile::HopperCalibration& c) {
  return "launch_cycles = " + format_number(c.launch_cycles, 6) + ", scale = " + format_number(c.scale, 6) +
         ", wave_cycles = " + format_number(c.wave_cycles, 6) + ", barrier_cycles = " +
         format_number(c.barrier_cycles, 6) + ", turnover_exponent = " + format_number(c.turnover_exponent, 3);
}

std::string calibration_line(const DeviceProfile::HopperCalibration& c) {
  return "hopper constants fitted on the training half (" + c.fitted_on + "): " + calibration_constants(c);
}

// Where each row's measurement came from, as columns of its own, so that a CSV row says it without
// its sidecar (the held-out CSV mixes two GPUs' sweeps): the measured GPU, driver and CUDA, the
// launch's recorded SM clock, the sweep's date, commit and command, and the analysis's command.
const std::vector<std::string> kProvenanceColumns = {"gpu",         "driver",         "cuda",
                                                     "sm_clock_mhz", "measured_date", "measured_commit",
                                                     "measurement_command", "analysis_command"};

// A table row's kProvenanceColumns cells, appended: the run that measured its case (a merged file holds
// several: measuring_run).
void append_provenance(std::vector<std::string>& row, const nlohmann::json& measurements, const ValidationCase& c,
                       const std::string& analysis_command) {
  const nlohmann::json run = measuring_run(measurements, c.family, c.kernel);
  auto field = [&](const char* key) {
    return run.contains(key) && run[key].is_string() ? run[key].get<std::string>() : std::string("unknown");
  };
  row.insert(row.end(), {field("gpu"), field("driver"), field("cuda"), format_number(c.sm_clock_mhz, 6), field("date"),
                         field("commit"), field("command"), analysis_command});
}

// held_out_rows_table's rows for one evaluation, each with the provenance columns of its case.
Table held_out_rows_with_provenance(const std::vector<ValidationCase>& cases, const HeldOutEvaluation& e,
                                    const std::string& label, const nlohmann::json& measurements,
                                    const std::string& analysis_command, Table into) {
  const bool fresh = into.headers.empty();
  const std::size_t first = into.rows.size();
  Table t = held_out_rows_table(cases, e, label, std::move(into));
  if (fresh) t.headers.insert(t.headers.end(), kProvenanceColumns.begin(), kProvenanceColumns.end());
  for (std::size_t r = 0; r < e.rows.size(); ++r)
    append_provenance(t.rows[first + r], measurements, cases[e.rows[r].case_index], analysis_command);
  return t;
}

// Per derived counter: launches, close when derived, close when kept from the reference.
Table derived_counter_table(const CrossShapeEvaluation& shapes) {
  Table t;
  t.headers = {"counter", "launches", "derived close", "kept close", "median |derived - measured|",
               "median |kept - measured|", "derived close or off by < 1 % of the L2 bytes"};
  std::map<std::string, std::vector<const CrossShapeEvaluation::CounterCheck*>> by_counter;
  std::map<std::size_t, double> l2_bytes;  // each launch's measured L2 bytes
  for (const auto& c : shapes.counter_checks) {
    by_counter[c.counter].push_back(&c);
    if (c.counter == "l2_bytes") l2_bytes[c.case_index] = c.measured;
  }
  for (const auto& [name, checks] : by_counter) {
    const bool points = name == "l1_hit_rate";
    std::vector<double> derived_error, kept_error;
    std::size_t derived_close = 0, kept_close = 0, close_or_negligible = 0;
    for (const auto* c : checks) {
      derived_close += c->derived_close;
      kept_close += c->kept_close;
      // DRAM bytes of a launch whose data stays in L2 are a few write-backs, noise the model's DRAM
      // term never sees: a miss by less than 1 % of the launch's L2 traffic is counted apart.
      const auto l2 = l2_bytes.find(c->case_index);
      close_or_negligible += c->derived_close || (l2 != l2_bytes.end() && std::abs(c->derived - c->measured) < 0.01 * l2->second);
      const double scale = points ? 1 : (c->measured > 0 ? c->measured : 1);
      derived_error.push_back(std::abs(c->derived - c->measured) / scale);
      kept_error.push_back(std::abs(c->kept - c->measured) / scale);
    }
    auto pct = [&](std::size_t n) { return format_number(100.0 * static_cast<double>(n) / checks.size(), 3) + "%"; };
    auto err = [&](std::vector<double> e) {
      return format_number(100 * support::median(std::move(e)), 3) + (points ? " points" : "%");
    };
    t.rows.push_back({name, std::to_string(checks.size()), pct(derived_close), pct(kept_close), err(derived_error),
                      err(kept_error), name == "dram_bytes" ? pct(close_or_negligible) : "-"});
  }
  return t;
}

nlohmann::json derived_counter_json(const CrossShapeEvaluation& shapes) {
  const Table t = derived_counter_table(shapes);
  nlohmann::json out = nlohmann::json::array();
  for (const auto& row : t.rows) {
    nlohmann::json r;
    for (std::size_t i = 0; i < t.headers.size(); ++i) r[t.headers[i]] = row[i];
    out.push_back(r);
  }
  return out;
}

std::vector<Residual> residuals_of(const HeldOutEvaluation& e) {
  std::vector<Residual> out;
  for (std::size_t r = 0; r < e.rows.size(); ++r)
    if (e.rows[r].error.empty()) out.push_back({e.row_class[r], e.rows[r].bound, e.rows[r].signed_error});
  return out;
}

// The hopper intervals validate stores in device.json, and their coverage on the nested
// leave-one-class-out evaluation, with the plain percentiles and with the widened ones.
struct Intervals {
  bool any = false;  // some class's leave-one-class-out predictions to take errors from
  DeviceProfile::HopperIntervals stored;
  NestedCoverage nested_plain, nested_widened;
  double gain_threshold = 0;  // reliable_gain_threshold of the stored shape-change errors
};

Intervals prediction_intervals(const HeldOutEvaluation& loco, const CrossShapeEvaluation& shapes,
                               const std::string& device_name) {
  Intervals out;
  const std::vector<Residual> residuals = residuals_of(loco);
  out.any = !residuals.empty();
  if (!out.any) return out;
  double widen = choose_widen(residuals);
  if (!std::isfinite(widen)) widen = 1;  // one class: nothing to nest, the plain percentiles
  out.stored = fit_intervals(residuals, widen, kIntervalMinCases,
                             "leave-one-class-out errors of " + std::to_string(residuals.size()) + " launches of " +
                                 device_name + ", widened to cover 80 % of the nested leave-one-class-out predictions "
                                 "(warpmodel validate)");
  std::vector<double> ratio_errors;
  for (const auto& r : shapes.ratio_residuals) ratio_errors.push_back(r.error);
  if (!ratio_errors.empty()) out.stored.shape_change = error_quantiles(ratio_errors);
  out.gain_threshold = reliable_gain_threshold(out.stored.shape_change);
  out.nested_plain = nested_coverage(residuals, 1.0);
  out.nested_widened = nested_coverage(residuals, std::nullopt);
  return out;
}

std::string pct(double fraction, int digits = 3) {
  return std::isfinite(fraction) ? format_number(100 * fraction, digits) + "%" : "-";
}
std::string signed_pct(double fraction) {
  return std::isfinite(fraction) ? (fraction >= 0 ? "+" : "") + format_number(100 * fraction, 3) + "%" : "-";
}

// The intervals per bound: percentiles, their widened values, and what they make of a prediction p.
Table interval_table(const DeviceProfile::HopperIntervals& iv) {
  Table t;
  t.headers = {"bound", "held-out errors", "e10", "e50", "e90", "widened e10'", "widened e90'", "interval of a prediction p"};
  auto row = [&](const std::string& name, const DeviceProfile::ErrorQuantiles& q, const std::string& bound_key) {
    const ErrorBounds b = error_bounds(iv, bound_key);
    const std::string fallback = b.pooled && name != "pooled" ? " (pooled: fewer than " + std::to_string(iv.min_cases) + ")" : "";
    t.rows.push_back({name, std::to_string(q.cases), signed_pct(q.e10), signed_pct(q.e50), signed_pct(q.e90),
                      signed_pct(b.low) + fallback, signed_pct(b.high) + fallback,
                      format_number(1 / (1 + b.high), 3) + " p to " + format_number(1 / (1 + b.low), 3) + " p"});
  };
  for (const auto& [bound, q] : iv.by_bound) row(bound, q, bound);
  row("pooled", iv.pooled, "");
  return t;
}

Table harmful_table(const HarmfulPicks& all, const HarmfulPicks& reliable) {
  Table t;
  t.headers = {"picks", "kernels x sizes", "moved off the profiled shape", "harmful (> 10 % slower)", "share",
               "largest slowdown", "withheld", "withheld that ran > 10 % faster"};
  auto row = [&](const std::string& name, const HarmfulPicks& h) {
    t.rows.push_back({name, std::to_string(h.groups), std::to_string(h.moved), std::to_string(h.harmful), pct(h.share),
                      h.harmful ? signed_pct(h.largest) + " (" + h.largest_group + ": " + h.largest_pick + ")" : "-",
                      std::to_string(h.withheld), std::to_string(h.withheld_faster)});
  };
  row("every pick", all);
  row("reliable gains only (picks inside the uncertainty withheld)", reliable);
  return t;
}

nlohmann::json harmful_json(const HarmfulPicks& h) {
  return {{"groups", h.groups},     {"moved", h.moved},
          {"harmful", h.harmful},   {"share", std::isfinite(h.share) ? nlohmann::json(h.share) : nlohmann::json(nullptr)},
          {"largest_slowdown", h.largest}, {"largest_group", h.largest_group},
          {"largest_pick", h.largest_pick}, {"withheld", h.withheld}, {"withheld_faster", h.withheld_faster}};
}

nlohmann::json coverage_json(const Coverage& plain, const Coverage& widened) {
  auto num = [](double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); };
  return {{"name", plain.name},
          {"cases", plain.cases},
          {"coverage_percentiles", num(plain.share())},
          {"coverage_widened", num(widened.share())}};
}

int analyse(const ValidateOptions& o) {
  namespace fs = std::filesystem;
  const fs::path dir(o.from);
  const DeviceProfile device = load_device_profile(dir / "device.json");
  // Stored xz-compressed under results/ (docs/results-layout.md); a plain file is read as well.
  const fs::path measurements_path = support::plain_or_xz(dir / "validation-measurements.json");
  const nlohmann::json measurements = read_json_file(measurements_path);
  std::vector<ValidationCase> cases = validation_cases_from_json(measurements, measurements_path.string());
  complete_cluster_launches(cases);
  const std::string patterns_note = attach_access_patterns(cases, dir, o.sass_binary, o.sass_binary_given);
  support::progress("validate", std::to_string(cases.size()) + " launches of " + device.name +
                                    ": fitting hopper's constants on the training half");
  const ValidationResult v = validate(device, cases);
  // Held-out evaluations that cannot flatter: each class predicted by constants that never saw it,
  // and each other GPU's sweep predicted by this GPU's constants and the other way round.
  support::progress("validate", "leave-one-class-out (the constants refitted without each class)");
  const HeldOutEvaluation loco = leave_one_class_out(device, v.cases);
  struct Cross {
    std::string label;
    HeldOutEvaluation evaluation;
    std::vector<ValidationCase> cases;
    const nlohmann::json* measurements;  // the predicted cases' sweep (its provenance)
    bool outgoing = false;  // this GPU's constants predicting the other GPU's sweep
  };
  std::vector<nlohmann::json> other_measurements;
  other_measurements.reserve(o.cross.size());
  std::vector<Cross> crosses;
  for (const std::string& other_dir : o.cross) {
    support::progress("validate", "cross-GPU: " + other_dir + "'s launches with these constants, and the other way");
    const fs::path other(other_dir);
    const DeviceProfile other_device = load_device_profile(other / "device.json");
    const fs::path other_path = support::plain_or_xz(other / "validation-measurements.json");
    other_measurements.push_back(read_json_file(other_path));
    std::vector<ValidationCase> other_cases = validation_cases_from_json(other_measurements.back(), other_path.string());
    complete_cluster_launches(other_cases);
    // The other sweep's cases get their kernels' access patterns too (from its folder's
    // access-patterns.json), so that both GPUs' cases are predicted alike (hopper H.15 reads them).
    attach_access_patterns(other_cases, other, "", false);
    const std::string here = dir.filename().string(), there = other.filename().string();
    crosses.push_back({"cross-gpu " + here + " -> " + there, cross_device(device, v.cases, other_device, other_cases),
                       other_cases, &other_measurements.back(), true});
    crosses.push_back({"cross-gpu " + there + " -> " + here, cross_device(other_device, other_cases, device, v.cases),
                       v.cases, &measurements, false});
  }
  // The "before tuning" use: one reference shape's counters predict every shape of its kernel.
  support::progress("validate", "cross-shape: one shape's counters predicting the kernel's other shapes");
  const CrossShapeEvaluation shapes = cross_shape(device, v.cases, loco);
  // What users' predictions use: the constants fitted on every measured case, in device.json, and the
  // counter range's overhead (H.12b) measured beside them where the folder has profiler-floor.json.
  DeviceProfile::HopperCalibration fitted_on_all = fit_hopper_calibration_on_all(device, v.cases);
  if (const fs::path floor = dir / "profiler-floor.json"; fs::exists(floor))
    fitted_on_all.counter_range_overhead_ns = sass::counter_range_overhead_ns(sass::load_counters(floor));
  // ... and the 80 % intervals of their times (intervals.hpp), from the leave-one-class-out errors.
  support::progress("validate", "prediction intervals: percentiles of the leave-one-class-out errors, their coverage");
  const Intervals intervals = prediction_intervals(loco, shapes, device.name);
  std::vector<std::pair<std::string, std::array<Coverage, 2>>> cross_coverage;  // percentiles, widened
  for (const auto& c : crosses)
    if (c.outgoing && intervals.any) {
      const std::vector<Residual> r = residuals_of(c.evaluation);
      DeviceProfile::HopperIntervals plain = intervals.stored;
      plain.widen = 1;
      cross_coverage.push_back({c.label, {coverage(plain, r, c.label), coverage(intervals.stored, r, c.label)}});
    }
  const HarmfulPicks harmful_all = harmful_picks(shapes);
  const HarmfulPicks harmful_reliable = harmful_picks(shapes, nested_gain_thresholds(shapes));

  // The external validation set (DIR/external/profiles.json.xz, when measured on this GPU): every
  // application's launches predicted as predict-app would, with the device profile as written below
  // (the constants fitted on every case of the corpus, and the intervals).
  std::optional<sass::ExternalSet> external;
  std::optional<sass::ExternalBundle> external_bundle;  // the applications the set points into
  const fs::path external_path = dir / "external" / "profiles.json.xz";
  if (std::error_code ec; fs::exists(external_path, ec)) {
    DeviceProfile fitted = device;
    fitted.hopper_calibration = fitted_on_all;
    fitted.hopper_calibration->fitted_on += " by `warpmodel validate`";
    if (intervals.any) fitted.hopper_intervals = intervals.stored;
    else fitted.hopper_intervals.reset();
    const fs::path cubins_path = dir / "external" / "cubins.json.xz";
    std::error_code missing;
    external_bundle = sass::external_bundle_from_json(
        read_json_file(external_path), external_path.string(),
        fs::exists(cubins_path, missing) ? read_json_file(cubins_path) : nlohmann::json(nullptr), cubins_path.string());
    support::progress("validate", "external set: " + std::to_string(external_bundle->apps.size()) +
                                      " applications of " + external_path.string());
    external = sass::predict_external_set(*external_bundle, fitted, ModelVariant::Hopper);
  }

  // Everything is rendered before anything is written.
  const std::string provenance = provenance_lines(measurements);
  std::ostringstream md;
  md << "# Validation on " << device.name << "\n\n"
     << "Generated by `" << o.command << "` from " << measurements_path.filename().string()
     << " (" << v.cases.size() << " measured launches) and device.json. Errors are (predicted - measured) / measured; "
     << "summaries use the held-out half only.\n\n"
     << calibration_line(v.calibration) << ".\n\n## Summary (held-out half)\n\n"
     << validation_summary_table(v).render(TableFormat::Markdown) << "\n";
  for (const auto& t : validation_layout_tables(v))
    md << "## " << t.title << "\n\n" << t.table.render(TableFormat::Markdown) << "\n";
  md << "## Held-out evaluations (hopper)\n\n"
     << "The committed split above keeps every kernel in both halves, so it measures interpolation. Below, the "
        "constants never see the class (or the GPU) they predict.\n\n"
     << "### Held-out half of the split, by class\n\n"
     << class_score_table(v.held_out_classes, std::nullopt).render(TableFormat::Markdown) << "\n"
     << "### Leave-one-class-out\n\n" << loco.description << ".\n\n"
     << class_score_table(loco.classes, loco.pooled).render(TableFormat::Markdown) << "\n";
  for (const auto& c : crosses)
    md << "### " << c.label << "\n\n" << c.evaluation.description << " (" << calibration_line(c.evaluation.calibrations.at(0).second)
       << ").\n\n" << class_score_table(c.evaluation.classes, c.evaluation.pooled).render(TableFormat::Markdown) << "\n";
  {
    Table t;
    t.headers = {"counters", "cases", "MAPE", "median |error|", "mean signed error", "within 25%",
                 "best shape within 5%", "mean slowdown of the pick"};
    auto row = [&](const ClassScore& s, double within5, double slowdown) {
      t.rows.push_back({s.kernel_class, std::to_string(s.cases), format_number(100 * s.mape, 3) + "%",
                        format_number(100 * s.median_abs_error, 3) + "%", format_number(100 * s.mean_signed_error, 3) + "%",
                        format_number(100 * s.within_25_percent, 3) + "%", format_number(100 * within5, 3) + "%",
                        format_number(100 * slowdown, 3) + "%"});
    };
    row(shapes.from_reference, shapes.best_within_5_percent_reference, shapes.mean_slowdown_reference);
    row(shapes.from_reference_derived, shapes.best_within_5_percent_derived, shapes.mean_slowdown_derived);
    row(shapes.from_own_counters, shapes.best_within_5_percent_own, shapes.mean_slowdown_own);
    md << "### Cross-shape (before tuning)\n\nPer kernel and size (" << shapes.groups
       << " with two or more shapes), the per-warp counts of the first shape measured predict every other shape "
          "with its own launch (as `sweep` does), with the class's leave-one-class-out constants: first with the "
          "reference's memory counters kept, then with the shape-dependent ones (sectors per request, L1 hit rate, "
          "L2 bytes, L1 wavefronts) derived for each shape from the SASS addresses (model/traffic.hpp; "
       << shapes.groups_with_patterns << " of the " << shapes.groups << " groups have access patterns: " << patterns_note
       << "); last, the same shapes from their own measured counters. What not having measured costs is the "
          "difference.\n\n"
       << t.render(TableFormat::Markdown) << "\n";
    md << "Derived counters against each shape's measured ones (non-reference launches of the groups with access "
          "patterns; close: within 10 %, hit rates within 5 points):\n\n"
       << derived_counter_table(shapes).render(TableFormat::Markdown) << "\n";
    md << "#### Picks against the profiled shape\n\nPer kernel and size, the shape ranked first from the reference's "
          "counters with derived memory counters against the reference shape itself (the shape a user profiled): a "
          "pick measured more than 10 % slower than it is harmful. A pick's predicted gain is reliable when it exceeds "
          "the shape-change errors' 10th percentile (d = predicted ratio to the reference / measured ratio - 1, over "
       << (intervals.stored.shape_change ? intervals.stored.shape_change->cases : 0)
       << " non-reference shapes: d10 = "
       << (intervals.stored.shape_change ? signed_pct(intervals.stored.shape_change->e10) : "-")
       << ", d50 = " << (intervals.stored.shape_change ? signed_pct(intervals.stored.shape_change->e50) : "-")
       << ", d90 = " << (intervals.stored.shape_change ? signed_pct(intervals.stored.shape_change->e90) : "-")
       << ", so gains above " << pct(intervals.gain_threshold)
       << "); below it the pick is withheld and the profiled shape stays. Each class's picks are withheld by the "
          "threshold of the other classes' errors.\n\n"
       << harmful_table(harmful_all, harmful_reliable).render(TableFormat::Markdown) << "\n";
  }
  if (!intervals.any) {
    md << "### Prediction intervals and their coverage\n\nNone: no class has leave-one-class-out predictions to "
          "take errors from (the other classes cannot fit the constants), so device.json carries no "
          "hopper_intervals.\n\n";
  } else {
    const NestedCoverage& plain = intervals.nested_plain;
    const NestedCoverage& widened = intervals.nested_widened;
    md << "### Prediction intervals and their coverage\n\n"
       << "Every hopper prediction carries an 80 % interval from the leave-one-class-out errors of its bound: the "
          "10th, 50th and 90th percentiles of e = (predicted - measured) / measured per bound (a bound with fewer than "
       << intervals.stored.min_cases
       << " errors takes the pooled ones), e10 and e90 moved away from e50 by the factor whose nested "
          "leave-one-class-out coverage reaches 80 % (x"
       << format_number(intervals.stored.widen, 3)
       << " here); a prediction p lies in [p / (1 + e90'), p / (1 + e10')]. device.json carries them "
          "(\"hopper_intervals\"), and predict, sweep and predict-app print them.\n\n"
       << interval_table(intervals.stored).render(TableFormat::Markdown) << "\n"
       << "Coverage: the share of held-out launches whose measured time lies in its interval (target 80 %). Nested "
          "leave-one-class-out: each class's predictions against intervals from the other classes' errors alone, "
          "their widening factor chosen on those classes too. Cross-GPU: these intervals on the other GPU's launches "
          "predicted with this GPU's constants.\n\n";
    Table t;
    t.headers = {"evaluation", "cases", "coverage of the 10-90 % percentiles", "coverage of the widened intervals"};
    t.rows.push_back({"leave-one-class-out, nested", std::to_string(widened.pooled.cases), pct(plain.pooled.share()),
                      pct(widened.pooled.share())});
    for (const auto& [label, c] : cross_coverage)
      t.rows.push_back({label, std::to_string(c[1].cases), pct(c[0].share()), pct(c[1].share())});
    md << t.render(TableFormat::Markdown) << "\n";
    Table by_class;
    by_class.headers = {"class", "cases", "coverage of the 10-90 % percentiles", "coverage of the widened intervals",
                        "widening factor (from the other classes)"};
    for (std::size_t i = 0; i < widened.classes.size() && i < plain.classes.size(); ++i)
      by_class.rows.push_back({widened.classes[i].name, std::to_string(widened.classes[i].cases),
                               pct(plain.classes[i].share()), pct(widened.classes[i].share()),
                               format_number(widened.widen_by_class.at(widened.classes[i].name), 3)});
    md << "Nested leave-one-class-out coverage by class:\n\n" << by_class.render(TableFormat::Markdown) << "\n";
  }
  md << "device.json carries the constants fitted on every case (" << fitted_on_all.fitted_on
     << "): " << calibration_constants(fitted_on_all) << ".\n\n";
  md << (fitted_on_all.counter_range_overhead_ns > 0
             ? "A launch timed by a counter range (`profile -- APP`, `import-ncu`) is predicted with the counter "
               "range's own time added (H.12b): " + format_number(fitted_on_all.counter_range_overhead_ns, 4) +
                   " ns, measured (profiler-floor.json: one small kernel timed by the Activity API and by the "
                   "counter range), not fitted.\n\n"
             : std::string("No counter-range overhead is measured for this GPU (no profiler-floor.json): launches "
                           "timed by a counter range (`profile -- APP`, `import-ncu`) are predicted without H.12b.\n\n"));
  if (external)
    md << sass::external_validation_section(*external);
  else
    md << "## External validation set\n\nNot measured on this GPU (no external/profiles.json.xz: "
          "scripts/external_suite.sh measures it; docs/validation.md, \"External validation set\").\n\n";
  md << "## Launch-shape choice\n\n" << shape_choice_table(v).render(TableFormat::Markdown) << "\n";
  if (!provenance.empty()) md << "## Provenance of the measurements\n\n" << provenance;

  std::ostringstream tex;
  tex << "% Generated by " << o.command << "\n% " << calibration_line(v.calibration) << "\n";
  tex << "\\begin{table}\\centering\\caption{Held-out errors per model}\n"
      << validation_summary_table(v).render(TableFormat::Latex) << "\\end{table}\n";
  for (const auto& t : validation_layout_tables(v))
    tex << "\\begin{table}\\centering\\caption{" << t.title << "}\n"
        << t.table.render(TableFormat::Latex) << "\\end{table}\n";

  nlohmann::json provenance_json = provenance_object(measurements, v.cases, o.command);
  // validation-held-out.csv's cross-GPU rows come from these folders' measurements as well.
  if (!o.cross.empty()) provenance_json["cross_gpu_inputs"] = o.cross;
  nlohmann::json summary = {{"device", device.name},
                            {"provenance", provenance_json},
                            {"cases", v.cases.size()},
                            {"hopper_calibration", to_json(v.calibration)},
                            {"summaries", nlohmann::json::array()}};
  auto score_json = [](const ClassScore& s) {
    auto num = [](double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); };
    return nlohmann::json{{"class", s.kernel_class},           {"cases", s.cases},
                          {"mape", num(s.mape)},               {"median_abs_error", num(s.median_abs_error)},
                          {"mean_signed_error", num(s.mean_signed_error)},
                          {"within_10_percent", num(s.within_10_percent)},
                          {"within_25_percent", num(s.within_25_percent)}};
  };
  auto evaluation_json = [&](const HeldOutEvaluation& e, const std::string& label) {
    nlohmann::json j = {{"evaluation", label}, {"description", e.description}, {"pooled", score_json(e.pooled)},
                        {"classes", nlohmann::json::array()}};
    for (const auto& s : e.classes) j["classes"].push_back(score_json(s));
    return j;
  };
  summary["held_out_half_by_class"] = nlohmann::json::array();
  for (const auto& s : v.held_out_classes) summary["held_out_half_by_class"].push_back(score_json(s));
  summary["leave_one_class_out"] = evaluation_json(loco, "leave-one-class-out");
  summary["cross_gpu"] = nlohmann::json::array();
  for (const auto& c : crosses) summary["cross_gpu"].push_back(evaluation_json(c.evaluation, c.label));
  summary["cross_shape"] = {{"groups", shapes.groups},
                            {"from_reference", score_json(shapes.from_reference)},
                            {"from_own_counters", score_json(shapes.from_own_counters)},
                            {"from_reference_derived", score_json(shapes.from_reference_derived)},
                            {"groups_with_access_patterns", shapes.groups_with_patterns},
                            {"access_patterns", patterns_note},
                            {"best_within_5_percent_reference", shapes.best_within_5_percent_reference},
                            {"best_within_5_percent_derived", shapes.best_within_5_percent_derived},
                            {"best_within_5_percent_own", shapes.best_within_5_percent_own},
                            {"mean_slowdown_reference", shapes.mean_slowdown_reference},
                            {"mean_slowdown_derived", shapes.mean_slowdown_derived},
                            {"mean_slowdown_own", shapes.mean_slowdown_own},
                            {"derived_counters", derived_counter_json(shapes)}};
  summary["hopper_calibration_all_cases"] = to_json(fitted_on_all);
  summary["external"] = external ? sass::external_summary_json(*external) : nlohmann::json(nullptr);
  summary["cross_shape"]["harmful_picks"] = {{"threshold", kHarmfulSlowdown},
                                             {"every_pick", harmful_json(harmful_all)},
                                             {"reliable_gains_only", harmful_json(harmful_reliable)}};
  summary["hopper_intervals"] = nullptr;
  if (intervals.any) {
    nlohmann::json iv = to_json(intervals.stored);
    iv["gain_threshold"] = std::isfinite(intervals.gain_threshold) ? nlohmann::json(intervals.gain_threshold)
                                                                   : nlohmann::json(nullptr);
    iv["target_coverage"] = kIntervalTargetCoverage;
    iv["coverage"] = nlohmann::json::array();
    Coverage plain = intervals.nested_plain.pooled, widened = intervals.nested_widened.pooled;
    plain.name = widened.name = "leave-one-class-out, nested";
    iv["coverage"].push_back(coverage_json(plain, widened));
    for (const auto& [label, c] : cross_coverage) iv["coverage"].push_back(coverage_json(c[0], c[1]));
    iv["nested_by_class"] = nlohmann::json::array();
    for (std::size_t i = 0; i < intervals.nested_widened.classes.size() && i < intervals.nested_plain.classes.size(); ++i) {
      nlohmann::json c = coverage_json(intervals.nested_plain.classes[i], intervals.nested_widened.classes[i]);
      c["widen"] = intervals.nested_widened.widen_by_class.at(intervals.nested_widened.classes[i].name);
      iv["nested_by_class"].push_back(c);
    }
    summary["hopper_intervals"] = iv;
  }
  Table held_out =
      held_out_rows_with_provenance(v.cases, loco, "leave-one-class-out", measurements, o.command, Table{});
  {
    HeldOutEvaluation shaped;  // the cross-shape rows in the same layout
    shaped.rows = shapes.rows;
    for (const auto& r : shapes.rows) shaped.row_class.push_back(v.cases[r.case_index].kernel_class);
    held_out = held_out_rows_with_provenance(v.cases, shaped, "cross-shape (reference counters)", measurements,
                                             o.command, std::move(held_out));
    HeldOutEvaluation derived;
    derived.rows = shapes.derived_rows;
    for (const auto& r : shapes.derived_rows) derived.row_class.push_back(v.cases[r.case_index].kernel_class);
    held_out = held_out_rows_with_provenance(v.cases, derived, "cross-shape (derived memory counters)", measurements,
                                             o.command, std::move(held_out));
  }
  for (const auto& c : crosses)
    held_out = held_out_rows_with_provenance(c.cases, c.evaluation, c.label, *c.measurements, o.command,
                                             std::move(held_out));
  // device.json with the constants fitted on every case (the rest of the file as it was).
  nlohmann::json device_json = read_json_file(dir / "device.json");
  {
    DeviceProfile::HopperCalibration stored = fitted_on_all;
    stored.fitted_on += " by `warpmodel validate`";
    device_json["hopper_calibration"] = to_json(stored);
    if (intervals.any) device_json["hopper_intervals"] = to_json(intervals.stored);
    else device_json.erase("hopper_intervals");  // none from these measurements: none from earlier ones either
  }
  for (std::size_t i = 0; i < v.summaries.size(); ++i) {
    const auto& s = v.summaries[i];
    const auto& c = v.shape_summaries[i];
    auto num = [](double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); };
    summary["summaries"].push_back({{"model", std::string(to_string(s.variant))},
                                    {"held_out_cases", s.cases},
                                    {"mape", num(s.mape)},
                                    {"median_abs_error", num(s.median_abs_error)},
                                    {"max_abs_error", num(s.max_abs_error)},
                                    {"spearman", num(s.spearman)},
                                    {"shape_groups", c.groups},
                                    {"top1_hit_rate", num(c.top1_hit_rate)},
                                    {"within_5_percent_rate", num(c.within_5_percent_rate)}});
  }

  // Every derived counter beside the measured one, a row per launch and counter.
  Table counter_rows;
  counter_rows.headers = {"family", "class", "kernel", "size", "reference_shape", "shape", "counter",
                          "kept_from_reference", "derived", "measured", "derived_close", "kept_close"};
  counter_rows.headers.insert(counter_rows.headers.end(), kProvenanceColumns.begin(), kProvenanceColumns.end());
  {
    std::map<std::string, std::string> reference_shape;
    for (const auto& g : shapes.per_group) reference_shape[g.group] = g.reference_shape;
    for (const auto& c : shapes.counter_checks) {
      const ValidationCase& vc = v.cases[c.case_index];
      counter_rows.rows.push_back({vc.family, vc.kernel_class, vc.kernel, vc.size, reference_shape[vc.group()], vc.shape,
                                   c.counter, format_number(c.kept, 6), format_number(c.derived, 6),
                                   format_number(c.measured, 6), c.derived_close ? "1" : "0", c.kept_close ? "1" : "0"});
      append_provenance(counter_rows.rows.back(), measurements, vc, o.command);
    }
  }

  const fs::path out_dir = o.output.empty() ? dir : fs::path(o.output);
  support::progress("validate", "writing the tables in " + out_dir.string());
  write_file_atomically(out_dir / "validation.md", md.str());
  write_file_atomically(out_dir / "validation-derived-counters.csv", counter_rows.render(TableFormat::Csv));
  // Each row with the provenance of the run that measured its launch (a merged file holds several).
  Table rows = validation_rows_table(v);
  rows.headers.insert(rows.headers.end(), kProvenanceColumns.begin(), kProvenanceColumns.end());
  for (std::size_t r = 0; r < v.rows.size(); ++r)
    append_provenance(rows.rows[r], measurements, v.cases[v.rows[r].case_index], o.command);
  write_file_atomically(out_dir / "validation.csv", rows.render(TableFormat::Csv));
  write_file_atomically(out_dir / "validation-held-out.csv", held_out.render(TableFormat::Csv));
  write_file_atomically(out_dir / "device.json", device_json.dump(2) + "\n");
  write_file_atomically(out_dir / "validation.tex", tex.str());
  write_file_atomically(out_dir / "validation.json", summary.dump(2) + "\n");
  if (external) {
    const fs::path external_dir = out_dir / "external";
    std::error_code ec;
    fs::create_directories(external_dir, ec);
    if (ec) throw InputError(external_dir.string() + ": cannot create the folder (" + ec.message() + ")");
    write_file_atomically(external_dir / "launches.csv", sass::external_launches_table(*external).render(TableFormat::Csv));
    write_file_atomically(external_dir / "apps.csv", sass::external_apps_table(*external).render(TableFormat::Csv));
    write_file_atomically(external_dir / "summary.md", sass::external_summary_markdown(*external));
  }
  // Where these numbers came from is validation.json's "provenance" (the measurements' own record and
  // this analysis); scripts/provenance_index.py files it under each output in the folder's provenance.json.
  std::cout << validation_summary_table(v).render(TableFormat::Text) << calibration_line(v.calibration) << "\n"
            << "hopper leave-one-class-out: MAPE " << format_number(100 * loco.pooled.mape, 3) << "%, within 25% "
            << format_number(100 * loco.pooled.within_25_percent, 3) << "% of " << loco.pooled.cases << " cases\n";
  std::cout << "hopper cross-shape: MAPE " << format_number(100 * shapes.from_reference.mape, 3)
            << "% from the reference shape's counters (" << format_number(100 * shapes.from_own_counters.mape, 3)
            << "% from each shape's own), best shape within 5%: " << format_number(100 * shapes.best_within_5_percent_reference, 3)
            << "% (" << format_number(100 * shapes.best_within_5_percent_own, 3) << "%) of " << shapes.groups << "\n"
            << "hopper cross-shape with derived memory counters: MAPE " << format_number(100 * shapes.from_reference_derived.mape, 3)
            << "%, best shape within 5%: " << format_number(100 * shapes.best_within_5_percent_derived, 3) << "% ("
            << patterns_note << ")\n";
  for (const auto& c : crosses)
    std::cout << "hopper " << c.label << ": MAPE " << format_number(100 * c.evaluation.pooled.mape, 3) << "%\n";
  if (external)
    for (const std::string half : {"development", "held-out"})
      if (const auto a = sass::external_accuracy(sass::external_errors(*external, half, true)))
        std::cout << "hopper external set, " << half << " half, launches >= 20 us: MAPE " << format_number(a->mape, 3)
                  << "%, within 10% " << format_number(a->within_10, 3) << "%, under-predicted "
                  << format_number(a->under, 3) << "% of " << a->count << "\n";
  if (intervals.any) {
    std::cout << "hopper 80% intervals (leave-one-class-out errors per bound, widened x"
              << format_number(intervals.stored.widen, 3) << "): coverage " << pct(intervals.nested_widened.pooled.share())
              << " nested leave-one-class-out";
    for (const auto& [label, c] : cross_coverage) std::cout << ", " << pct(c[1].share()) << " " << label;
    std::cout << "\n";
  } else {
    std::cout << "hopper 80% intervals: none (no leave-one-class-out predictions to take errors from)\n";
  }
  std::cout << "hopper shape picks more than 10% slower than the profiled shape: " << harmful_all.harmful << " of "
            << harmful_all.groups << " (largest " << (harmful_all.harmful ? signed_pct(harmful_all.largest) : "-")
            << "); " << harmful_reliable.harmful << " (largest "
            << (harmful_reliable.harmful ? signed_pct(harmful_reliable.largest) : "-") << ") with the "
            << harmful_reliable.withheld << " picks inside the uncertainty withheld\n";
  std::cout
            << "wrote " << (out_dir / "validation.{md,csv,tex,json}").string() << ", validation-held-out.csv and validation-derived-counters.csv"
            << (external ? ", external/{launches.csv,apps.csv,summary.md}" : "") << "\n";
  return kExitOk;
}

#ifdef WARPMODEL_HAVE_VALIDATION_SWEEP
int measure(ValidateOptions o) {
  namespace fs = std::filesystem;
  const fs::path dir(o.measure);
  // --corpus-kernels: only those corpus kernels are measured, the other families and the corpus's other
  // kernels kept from the folder's file (a class added to the corpus, measured without the whole sweep).
  // Checked before anything touches the GPU.
  if (!o.corpus_kernels.empty()) {
    if (o.families.empty()) o.families = {"corpus"};
    if (std::find(o.families.begin(), o.families.end(), "corpus") == o.families.end())
      throw InputError("--corpus-kernels: --families must include corpus");
    for (const auto& k : o.corpus_kernels)
      if (!corpus::find_kernel(k))
        throw InputError("--corpus-kernels: '" + k + "' is not a corpus kernel; closest: " +
                         support::join(support::closest_names(k, corpus::kernel_names(), 3)) +
                         " (profiles/corpus/README.md lists them)");
  }
  // The device profile is the model's other input: without it the measurements cannot be analysed.
  if (!fs::exists(dir / "device.json"))
    throw InputError((dir / "device.json").string() + ": missing; run `warpmodel characterize --output " +
                     dir.string() + "` on this GPU first");
  // ... and it must be this GPU's: a machine asked for as one kind can come as another, and an H100's
  // launches merged into results/h200/ would be analysed with the H200's profile. Checked before measuring.
  const nlohmann::json folder_profile = read_json_file(dir / "device.json");
  const std::string folder_gpu = folder_profile.contains("name") && folder_profile["name"].is_string()
                                     ? profile_gpu_name(folder_profile["name"].get<std::string>())
                                     : std::string();
  std::string this_gpu;
  try {
    this_gpu = support::cuda::device_name();
  } catch (const support::cuda::NoGpuError& e) {
    std::cerr << "warpmodel validate: " << e.what() << "\n";
    return kExitNoGpu;
  }
  if (!folder_gpu.empty() && folder_gpu != this_gpu)
    throw InputError((dir / "device.json").string() + " describes the " + folder_gpu + " and this GPU is the " +
                     this_gpu + "; measure into its own folder (`warpmodel characterize` writes results/" +
                     ubench::gpu_slug(this_gpu) + "/device.json)");
  sweep::SweepPlan plan;
  if (o.quick) {
    plan.stencil_sizes = {64};
    plan.orders = {2, 8};
    plan.variants = {"naive", "intz-reg"};
    plan.warps_per_sm = {8, 16};
    plan.adi_sizes = {256};
    plan.adi_variants = {"thread-per-line", "block-per-line/cr-pcr"};
    // A kernel of each kind of limiter the corpus adds, smallest size, two shapes.
    plan.corpus_kernels = {"copy-f32",          "gemm-naive-f32",        "gemm-tiled-bt-f32", "reduce-atomic-f32",
                           "stencil1d-tma-f32", "regpressure-spill-f32", "pointer-chase-u32", "gemm-wgmma-f16"};
    plan.corpus_sizes = 1;
    plan.corpus_shapes = 2;
    plan.fwi_sizes = {"210x68"};
    plan.fwi_variants = {"original", "read-only"};
  }
  // --families: the others are not measured, and their cases are kept from the folder's file.
  const std::vector<std::string> all_families = {"stencil", "adi", "fwi", "corpus"};
  for (const auto& f : o.families)
    if (std::find(all_families.begin(), all_families.end(), f) == all_families.end())
      throw InputError("--families: unknown family '" + f + "' (known: stencil, adi, fwi, corpus)");
  auto measured = [&](const std::string& f) {
    return o.families.empty() || std::find(o.families.begin(), o.families.end(), f) != o.families.end();
  };
  if (!o.corpus_kernels.empty()) plan.corpus_kernels = o.corpus_kernels;
  if (!measured("stencil")) plan.stencil_sizes.clear();
  if (!measured("adi")) plan.adi_sizes.clear();
  if (!measured("fwi")) plan.fwi_sizes.clear();
  if (!measured("corpus")) plan.corpus = false;
  plan.cold_l2 = o.l2 == "cold";
  // Written xz-compressed (docs/results-layout.md: every number changes on a re-measure, so git
  // cannot store the new version as a delta); an existing plain file is read and replaced.
  const fs::path measurements_path = dir / "validation-measurements.json.xz";
  const fs::path plain_path = dir / "validation-measurements.json";
  const fs::path existing_path = support::plain_or_xz(plain_path).extension() == ".xz" ? measurements_path : plain_path;
  nlohmann::json kept;  // the existing file, when only some families are measured
  if (!o.families.empty() && fs::exists(existing_path)) kept = read_json_file(existing_path);
  // The families kept from the file should share the new ones' cache protocol (files before the
  // protocol was recorded were warm): say so when they do not.
  if (!kept.is_null()) {
    const bool kept_cold = sweep::measured_cold(kept);
    if (kept_cold != plan.cold_l2)
      std::cerr << "validate: warning: the families kept from " << existing_path.string() << " were measured with L2 "
                << (kept_cold ? "flushed before each launch" : "as left by the previous launch")
                << "; measure them too (--families) so that every case shares one protocol\n";
  }
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  try {
    sweep::SweepOutcome out = sweep::run_validation_sweep(
        plan, ec ? std::string("/proc/self/exe") : self.string(), o.command,
        [](const std::string& line) { std::cerr << "validate: " << line << "\n"; });
    if (!kept.is_null())
      out.measurements = sweep::merge_measurements(kept, out.measurements, o.families, o.corpus_kernels);
    // The measured kernels' SASS addresses beside them (the cross-shape evaluation's traffic model),
    // once per kernel: `validate --from` attaches them to every case of that kernel, so the cases'
    // own copies (3.8 KB each, two thirds of the file) are left out when the document is written.
    try {
      const sass::BinaryAnalysis analysis = sass::analyse_binary(ec ? std::string("/proc/self/exe") : self.string());
      write_file_atomically(fs::path(o.measure) / "access-patterns.json.xz",
                            sass::access_patterns_document(analysis).dump(1) + "\n");
      for (auto& c : out.measurements["cases"])
        if (c.contains("profile") && c["profile"].is_object()) c["profile"].erase("access_patterns");
    } catch (const std::exception& e) {
      std::cerr << "validate: warning: no access-patterns.json.xz (" << e.what() << ")\n";
    }
    write_file_atomically(measurements_path, out.measurements.dump(1) + "\n");
    if (fs::exists(plain_path)) fs::remove(plain_path, ec);
    std::cerr << "validate: " << out.measurements["cases"].size() << " launches measured in "
              << format_number(out.seconds, 4) << " s (" << out.skipped.size() << " configurations skipped)\n";
  } catch (const support::cuda::NoGpuError& e) {
    std::cerr << "warpmodel validate: " << e.what() << "\n";
    return kExitNoGpu;
  } catch (const cupti::PermissionError& e) {
    std::cerr << "warpmodel validate: " << e.what() << "\n";
    return kExitNoPermission;
  } catch (const cupti::OtherClientError& e) {
    std::cerr << "warpmodel validate: " << e.what() << "\n";
    return kExitNoPermission;
  }
  o.from = o.measure;
  return analyse(o);
}
#else
int measure(const ValidateOptions&) {
  std::cerr << "warpmodel validate --measure: this build has no CUDA, CUPTI or kernel libraries; rebuild with the "
               "CUDA 13 toolkit, or use --from with committed measurements\n";
  return kExitNoGpu;
}
#endif

int run_validate(const ValidateOptions& o) {
  if (o.from.empty() == o.measure.empty())
    throw InputError("validate: give exactly one of --from DIR (committed measurements) or --measure DIR (on the GPU)");
  if (!o.output.empty()) support::check_output_folder("-o", o.output);
  return o.measure.empty() ? analyse(o) : measure(o);
}

}  // namespace

void add_validate_command(CLI::App& app, Action& action) {
  auto o = std::make_shared<ValidateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "validate", "compare every model variant with measured launches (--from: committed measurements, no GPU)");
  cmd->add_option("--from", o->from, "folder with device.json and validation-measurements.json (e.g. results/h200)")
      ->check(path_name());
  cmd->add_option("--measure", o->measure,
                  "measure on the GPU into this folder (it must hold the GPU's device.json), then analyse")
      ->check(path_name());
  cmd->add_flag("--quick", o->quick, "with --measure: a few configurations only (a smoke run)");
  cmd->add_option("--families", o->families,
                  "with --measure: only these sweeps (stencil, adi, fwi, corpus; comma-separated); the other families' cases "
                  "are kept from the folder's validation-measurements.json")
      ->delimiter(',');
  cmd->add_option("--corpus-kernels", o->corpus_kernels,
                  "with --measure: only these corpus kernels (comma-separated; profiles/corpus/README.md); the corpus's "
                  "other cases and the other families' are kept from the folder's validation-measurements.json")
      ->delimiter(',');
  cmd->add_option("--l2", o->l2,
                  "with --measure: cold (default): L2 written back and emptied before every timed and counted launch, "
                  "as Nsight Compute does by default, so that the timed launches see the cache the counters see; warm: "
                  "as the previous launch left it")
      ->check(CLI::IsMember({"cold", "warm"}));
  cmd->add_option("-o,--output", o->output,
                  "folder for validation.{md,csv,tex,json}, validation-held-out.csv and device.json with the fitted "
                  "constants (default: the --from folder)")
      ->check(path_name());
  cmd->add_option("--cross", o->cross,
                  "with --from: other GPUs' folders (device.json + validation-measurements.json); each GPU's constants "
                  "predict the other's sweep, both directions")
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--sass-binary", o->sass_binary,
                  "with --from: the binary whose SASS gives the measured kernels' addresses (the cross-shape "
                  "evaluation's derived memory counters; default: DIR/access-patterns.json; `/proc/self/exe`: this "
                  "program, which embeds every kernel the sweep measures)")
      ->check(path_name());
  cmd->callback([&action, o, cmd] {
    o->command = support::this_process_command_line();
    o->sass_binary_given = cmd->count("--sass-binary") > 0;
    action = [o] { return run_validate(*o); };
  });
}

}  // namespace warpmodel::cli
