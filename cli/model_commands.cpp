// predict, sweep, reproduce-thesis: the model-only subcommands.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "commands.hpp"
#include "model_option.hpp"
#include "options.hpp"
#include "exit_codes.hpp"
#include "warpmodel/energy.hpp"
#include "warpmodel/intervals.hpp"
#include "warpmodel/json_io.hpp"
#include "warpmodel/model.hpp"
#include "warpmodel/report.hpp"
#include "warpmodel/sweep.hpp"
#include "warpmodel/thesis.hpp"

namespace warpmodel::cli {
namespace {

enum class OutputFormat { Table, Json, Csv, Markdown };

const std::map<std::string, OutputFormat> kFormats = {
    {"table", OutputFormat::Table}, {"json", OutputFormat::Json}, {"csv", OutputFormat::Csv},
    {"markdown", OutputFormat::Markdown}};

TableFormat table_format(OutputFormat f) {
  switch (f) {
    case OutputFormat::Csv: return TableFormat::Csv;
    case OutputFormat::Markdown: return TableFormat::Markdown;
    default: return TableFormat::Text;
  }
}

struct CommonOptions {
  std::string format = "table";
  std::string output;  // empty: stdout
};

void add_output_options(CLI::App* cmd, CommonOptions& o) {
  cmd->add_option("--format", o.format, "table, json, csv or markdown")
      ->check(CLI::IsMember({"table", "json", "csv", "markdown"}));
  cmd->add_option("-o,--output", o.output, "write to this file (atomically) instead of standard output")
      ->check(path_name());
}

std::vector<ModelVariant> parse_models(const std::string& name) {
  if (name == "all") return {all_variants().begin(), all_variants().end()};
  if (auto v = parse_variant(name)) return {*v};
  throw InputError("--model: unknown model '" + name + "' (known: " + variant_names() + ", all)");
}

struct PredictOptions : CommonOptions {
  std::string device, kernel, model = kDefaultModel;
  bool terms = false;  // the full term list after the summary
};

// The terms whose cycles make up a prediction, for the summary's largest three: hopper's parts of
// one wave (H.2-H.16), the MWP-CWP variants' parts of eq 4.1 (T_overlap is subtracted).
constexpr const char* kHopperTimeTerms[] = {"T_issue", "T_sfu", "T_schedule", "T_mem_latency", "T_l1",
                                            "T_l2",    "T_dram", "T_dispatch", "T_slice_atomics", "T_gather"};
constexpr const char* kMwpCwpTimeTerms[] = {"W_parallel", "W_serial", "T_mem", "T_overlap"};
// hong-kim-2009 has no eq 4.1 totals: one warp's periods and the barrier cost.
constexpr const char* kHongKimTimeTerms[] = {"comp_cycles", "mem_cycles", "O_sync"};

struct LargestTerm {
  std::string key, label, equation;
  double cycles = 0;
};

std::vector<LargestTerm> largest_terms(const Prediction& p, std::size_t count = 3) {
  std::vector<LargestTerm> out;
  std::vector<std::string> keys;
  if (p.variant == ModelVariant::Hopper) keys.assign(std::begin(kHopperTimeTerms), std::end(kHopperTimeTerms));
  else if (p.variant == ModelVariant::HongKim2009) keys.assign(std::begin(kHongKimTimeTerms), std::end(kHongKimTimeTerms));
  else keys.assign(std::begin(kMwpCwpTimeTerms), std::end(kMwpCwpTimeTerms));
  for (const PredictionTerm& term : prediction_terms()) {
    const double v = p.*term.member;
    if (std::find(keys.begin(), keys.end(), term.key) != keys.end() && std::isfinite(v) && v > 0)
      out.push_back({term.key, term.label, term.equation, v});
  }
  std::stable_sort(out.begin(), out.end(), [](const LargestTerm& a, const LargestTerm& b) { return a.cycles > b.cycles; });
  if (out.size() > count) out.resize(count);
  return out;
}

// "launch_cycles = ..., turnover_exponent = ..." as device.json gives them to hopper; empty when unfitted.
std::string calibration_text(const DeviceProfile& device) {
  if (!device.hopper_calibration) return "";
  const auto& c = *device.hopper_calibration;
  return "launch_cycles = " + format_number(c.launch_cycles, 6) + ", scale = " + format_number(c.scale, 6) +
         ", wave_cycles = " + format_number(c.wave_cycles, 6) + ", barrier_cycles = " + format_number(c.barrier_cycles, 6) +
         ", turnover_exponent = " + format_number(c.turnover_exponent, 3);
}

// "52.1 to 68.9 us": the interval of a time in microseconds.
std::string interval_us(const PredictionInterval& iv, double seconds) {
  return format_number(seconds * 1e6 * iv.low_factor, 4) + " to " + format_number(seconds * 1e6 * iv.high_factor, 4) + " us";
}

// Why a prediction has no interval.
std::string no_interval_reason(const Prediction& p) {
  if (p.variant != ModelVariant::Hopper) return "no interval (the intervals are the hopper variant's held-out errors)";
  return "no interval (the device profile has no hopper_intervals: `warpmodel validate --from DIR` writes them)";
}

// predict's lead: the time with its interval, what bounds it (hopper's bound; the MWP-CWP variants'
// case), the three largest terms and the constants applied.
// The launch's energy (energy.hpp E.1 at the predicted time) where the device profile has energy
// coefficients: "0.0812 mJ (static 0.06 mJ at 60 W; fp32 0.01, l2 0.001, dram 0.01 mJ)".
std::optional<EnergyPrediction> predicted_energy(const DeviceProfile& device, const KernelProfile& kernel, const Prediction& p) {
  if (!device.energy) return std::nullopt;
  return launch_energy(*device.energy, launch_counts(kernel, p.occupancy.total_warps, p.seconds));
}

std::string energy_text(const DeviceProfile& device, const EnergyPrediction& e) {
  std::string text = format_number(e.joules * 1e3, 4) + " mJ (static " + format_number(e.static_joules * 1e3, 4) + " mJ at " +
                     format_number(device.energy->static_w, 4) + " W";
  std::string dynamic;
  for (const auto& t : e.terms)
    if (t.name != "static") dynamic += (dynamic.empty() ? "" : ", ") + t.name + " " + format_number(t.joules * 1e3, 4);
  if (!dynamic.empty()) text += "; " + dynamic + " mJ";
  if (!e.left_out.empty()) {
    std::string names;
    for (const auto& n : e.left_out) names += (names.empty() ? "" : ", ") + n;
    text += "; no coefficient for " + names;
  }
  if (e.at_power_limit)  // E.3: the terms are E.1's; the total is the limit times the time
    text += "; capped at the board's " + format_number(*device.energy->power_limit_w, 4) + " W power limit, E.3";
  return text + ")";
}

nlohmann::json energy_json(const EnergyPrediction& e) {
  nlohmann::json terms = nlohmann::json::object();
  for (const auto& t : e.terms) terms[t.name] = t.joules;
  return {{"joules", e.joules},
          {"static_joules", e.static_joules},
          {"dynamic_joules", e.dynamic_joules},
          {"counted_dynamic_joules", e.counted_dynamic_joules},
          {"at_power_limit", e.at_power_limit},
          {"terms", terms},
          {"left_out", e.left_out},
          {"equation", "E = min(P_static t + sum_i count_i e_i, P_limit t) (docs/energy.md, E.1 and E.3)"}};
}

std::string prediction_summary(const DeviceProfile& device, const KernelProfile& kernel, const Prediction& p, bool markdown) {
  const std::string b = markdown ? "- " : "";
  std::string text = b + "model: " + std::string(to_string(p.variant)) + "\n";
  text += b + "time: " + format_number(p.seconds * 1e6, 6) + " us";
  if (const auto iv = prediction_interval(device, p))
    text += ", 80 % interval " + interval_us(*iv, p.seconds) + " (" + iv->basis + ")";
  else
    text += ", " + no_interval_reason(p);
  text += "\n" + b + "cycles: " + format_number(p.cycles) + "\n";
  if (const auto e = predicted_energy(device, kernel, p)) text += b + "energy: " + energy_text(device, *e) + "\n";
  if (p.variant == ModelVariant::Hopper)
    text += b + "bound: " + (p.bound.empty() ? std::string("-") : p.bound) + "\n";
  else
    text += b + "case: " + std::string(to_string(p.model_case)) + "\n";
  std::string terms;
  for (const LargestTerm& t : largest_terms(p)) {
    if (!terms.empty()) terms += ", ";
    terms += t.label + " " + format_number(t.cycles, 6) + " (" + t.equation + (t.key == "T_overlap" ? ", subtracted" : "") + ")";
  }
  text += b + (p.variant == ModelVariant::Hopper ? "largest terms (cycles of one wave): " : "largest terms (cycles): ") +
          (terms.empty() ? std::string("-") : terms) + "\n";
  if (p.variant != ModelVariant::Hopper)
    text += b + "calibration: none (the MWP-CWP variants have no fitted constants)\n";
  else if (const std::string c = calibration_text(device); !c.empty())
    text += b + "calibration: " + c +
            (device.hopper_calibration->fitted_on.empty() ? "" : " (" + device.hopper_calibration->fitted_on + ")") + "\n";
  else
    text += b + "calibration: none (unfitted)\n";
  return text;
}

// The full term table with the interval's ends under the time, where a prediction has one.
Table terms_table(const DeviceProfile& device, std::span<const Prediction> predictions) {
  Table t = prediction_table(predictions);
  std::vector<std::string> low{"time low (us)", "80 %"}, high{"time high (us)", "80 %"};
  bool any = false;
  for (const auto& p : predictions) {
    const auto iv = prediction_interval(device, p);
    any = any || iv.has_value();
    low.push_back(iv ? format_number(p.seconds * 1e6 * iv->low_factor, 6) : "-");
    high.push_back(iv ? format_number(p.seconds * 1e6 * iv->high_factor, 6) : "-");
  }
  if (any) {
    t.rows.push_back(std::move(low));
    t.rows.push_back(std::move(high));
  }
  return t;
}

nlohmann::json interval_json(const DeviceProfile& device, const Prediction& p) {
  const auto iv = prediction_interval(device, p);
  if (!iv) return nullptr;
  return {{"quantiles", {kIntervalLowQuantile, kIntervalHighQuantile}},
          {"low_us", p.seconds * 1e6 * iv->low_factor},
          {"high_us", p.seconds * 1e6 * iv->high_factor},
          {"low_cycles", p.cycles * iv->low_factor},
          {"high_cycles", p.cycles * iv->high_factor},
          {"bound", iv->bound.empty() ? nlohmann::json(nullptr) : nlohmann::json(iv->bound)},
          {"errors", {iv->errors.low, iv->errors.high}},
          {"held_out_errors", iv->errors.cases},
          {"basis", iv->basis},
          {"source", device.hopper_intervals->source}};
}

int run_predict(const PredictOptions& o) {
  check_output(o.output, {{"--device", o.device}, {"--kernel", o.kernel}});
  const std::vector<ModelVariant> models = parse_models(o.model);
  const DeviceProfile device = load_device_profile(o.device);
  const KernelProfile kernel = load_kernel_profile(o.kernel);
  std::vector<Prediction> predictions;
  std::vector<std::string> skipped;  // with --model all: variants this device or kernel cannot feed
  for (ModelVariant v : models) {
    try {
      predictions.push_back(predict(v, device, kernel));
    } catch (const ModelError& e) {
      if (models.size() == 1) throw;
      skipped.push_back(std::string(to_string(v)) + ": " + e.what());
    }
  }
  if (predictions.empty()) throw ModelError(skipped.front());
  // Said once the output is written: bad input stays one line on stderr.
  const auto say_skipped = [&] {
    for (const auto& s : skipped) std::cerr << "warpmodel predict: skipped " << s << "\n";
  };

  const OutputFormat format = kFormats.at(o.format);
  if (format == OutputFormat::Json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& p : predictions) {
      nlohmann::json j = to_json(p);
      j["device"] = device.name;
      j["kernel"] = kernel.name;
      j["interval"] = interval_json(device, p);
      if (const auto e = predicted_energy(device, kernel, p)) j["energy"] = energy_json(*e);
      nlohmann::json largest = nlohmann::json::array();
      for (const LargestTerm& t : largest_terms(p)) largest.push_back({{"term", t.key}, {"cycles", t.cycles}});
      j["largest_terms"] = largest;
      j["calibration_applied"] = p.variant == ModelVariant::Hopper && device.hopper_calibration
                                     ? to_json(*device.hopper_calibration)
                                     : nlohmann::json(nullptr);
      out.push_back(j);
    }
    emit(o.output, (models.size() == 1 ? out[0] : out).dump(2) + "\n");
    say_skipped();
    return kExitOk;
  }
  std::string text;
  if (format == OutputFormat::Csv) {  // machine-readable: every term, and the interval's ends
    emit(o.output, terms_table(device, predictions).render(TableFormat::Csv));
    say_skipped();
    return kExitOk;
  }
  const bool markdown = format == OutputFormat::Markdown;
  text += (markdown ? "- device: " : "device: ") + device.name + "\n" + (markdown ? "- kernel: " : "kernel: ") +
          kernel.name + "\n\n";
  for (std::size_t i = 0; i < predictions.size(); ++i)
    text += (i ? "\n" : "") + prediction_summary(device, kernel, predictions[i], markdown);
  if (o.terms)
    text += "\n" + terms_table(device, predictions).render(table_format(format));
  else
    text += "\n(every term of the model: --terms)\n";
  for (const auto& p : predictions)
    for (const auto& note : p.notes) text += (markdown ? "- note (" : "note (") + std::string(to_string(p.variant)) + "): " + note + "\n";
  emit(o.output, text);
  say_skipped();
  return kExitOk;
}

struct SweepOptions : CommonOptions {
  std::string device, kernel, model = kDefaultModel;
  std::size_t top = 10;
};

int run_sweep(const SweepOptions& o) {
  check_output(o.output, {{"--device", o.device}, {"--kernel", o.kernel}});
  const std::vector<ModelVariant> models = parse_models(o.model);
  if (models.size() != 1) throw InputError("--model: sweep ranks with one model; name one of " + variant_names());
  const DeviceProfile device = load_device_profile(o.device);
  const KernelProfile kernel = load_kernel_profile(o.kernel);
  const Dim3 domain = kernel_domain(kernel);
  const std::vector<Dim3> shapes = candidate_block_shapes(device, domain);
  const SweepResult result = sweep_launch_shapes(device, kernel, models[0], shapes);

  const OutputFormat format = kFormats.at(o.format);
  if (format == OutputFormat::Json) {
    nlohmann::json ranked = nlohmann::json::array();
    for (std::size_t i = 0; i < std::min(o.top, result.ranked.size()); ++i) {
      const auto& e = result.ranked[i];
      nlohmann::json derived = nlohmann::json::array();
      for (const DerivedCounter& d : e.derived)
        derived.push_back({{"counter", d.name}, {"profiled", d.reference}, {"derived", d.derived}, {"how", d.how}});
      ranked.push_back({{"rank", i + 1},
                        {"block", {e.block.x, e.block.y, e.block.z}},
                        {"grid", {e.grid.x, e.grid.y, e.grid.z}},
                        {"memory_counters", e.counters},
                        {"transactions_per_request", e.profile.transactions_per_request},
                        {"l1_hit_rate", 1 - e.profile.l1_miss_ratio},
                        {"l2_bytes_per_warp", e.profile.l2_bytes_per_warp ? nlohmann::json(*e.profile.l2_bytes_per_warp) : nlohmann::json(nullptr)},
                        {"derived_counters", derived},
                        {"prediction", to_json(e.prediction)},
                        {"interval", interval_json(device, e.prediction)}});
    }
    emit(o.output, nlohmann::json{{"device", device.name},
                           {"kernel", kernel.name},
                           {"model", std::string(to_string(models[0]))},
                           {"domain", {domain.x, domain.y, domain.z}},
                           {"shapes_tried", shapes.size()},
                           {"shapes_rejected", result.rejected},
                           {"ranked", ranked}}
                    .dump(2) + "\n");
    return kExitOk;
  }
  std::string text;
  if (format == OutputFormat::Table)
    text += "device: " + device.name + "\nkernel: " + kernel.name + "\nmodel: " + std::string(to_string(models[0])) +
            "\ndomain: " + format_dim3(domain) + "; " + std::to_string(shapes.size()) + " block shapes tried, " +
            std::to_string(result.rejected) + " cannot run\n" +
            "the profiled launch's work spread over each shape's warps (profiled at " + format_dim3(kernel.launch.block) + ")\n" +
            (kernel.access_patterns
                 ? "memory counters derived per shape from the SASS addresses (" + kernel.access_patterns->source + ")\n"
                 : std::string("memory counters kept from the profiled launch (the profile has no access_patterns: "
                               "make it with `warpmodel kernel-profile` to derive them per shape)\n"));
  Table table = sweep_table(result, o.top);
  // Each shape's time with its 80 % interval (its own bound's held-out errors), where the device has them.
  const bool intervals = models[0] == ModelVariant::Hopper && device.hopper_intervals;
  if (intervals) {
    const auto at = std::find(table.headers.begin(), table.headers.end(), "time_us") - table.headers.begin() + 1;
    table.headers.insert(table.headers.begin() + at, {"time_low_us", "time_high_us"});
    for (std::size_t i = 0; i < table.rows.size(); ++i) {
      const Prediction& p = result.ranked[i].prediction;
      const PredictionInterval iv = *prediction_interval(device, p);
      table.rows[i].insert(table.rows[i].begin() + at, {format_number(p.seconds * 1e6 * iv.low_factor, 6),
                                                        format_number(p.seconds * 1e6 * iv.high_factor, 6)});
    }
    if (format == OutputFormat::Table)
      text += "80 % intervals: the held-out errors of each shape's bound (" + device.hopper_intervals->source + ")\n\n";
  } else if (format == OutputFormat::Table) {
    text += std::string(models[0] == ModelVariant::Hopper
                            ? "no intervals: the device profile has no hopper_intervals (`warpmodel validate --from DIR` writes them)"
                            : "no intervals: they are the hopper variant's held-out errors") + "\n\n";
  }
  text += table.render(table_format(format));
  emit(o.output, text);
  return kExitOk;
}

int run_reproduce_thesis(const CommonOptions& o) {
  check_output(o.output, {});
  const ThesisReproduction r = reproduce_thesis();
  const OutputFormat format = kFormats.at(o.format);
  if (format == OutputFormat::Json) {
    nlohmann::json rows = nlohmann::json::array(), cells = nlohmann::json::array();
    for (const auto& row : r.rows)
      rows.push_back({{"quantity", row.quantity}, {"equation", row.equation}, {"thesis", row.printed},
                      {"recomputed", row.recomputed}, {"difference", row.recomputed - row.printed},
                      {"matches", row.matches()}, {"reading", row.reading}});
    for (const auto& c : r.cells)
      cells.push_back({{"table", c.table}, {"order", c.order}, {"warps_per_sm", c.warps}, {"thesis", c.printed},
                       {"recomputed", c.recomputed ? nlohmann::json(*c.recomputed) : nlohmann::json(nullptr)},
                       {"with_8_warp_inputs", c.with_fixed_inputs ? nlohmann::json(*c.with_fixed_inputs) : nlohmann::json(nullptr)},
                       {"status", c.status}});
    // Where the numbers come from: the thesis's printed inputs, no GPU; no date or commit, so that the
    // committed file is what every regeneration writes (results/k40-thesis/provenance.json says so too).
    const DeviceProfile k40 = thesis_k40_device();
    const nlohmann::json provenance = {
        {"kind", "computed"},
        {"gpu", "none: the printed inputs of " + k40.name},
        {"driver", "none (no GPU was used)"},
        {"cuda", "none (no GPU was used)"},
        {"sm_clock_mhz", k40.sm_clock_mhz},
        {"sm_clock_source", "the thesis's K40 clock (model/data/k40-thesis.device.json)"},
        {"date", "not measured: recomputed from the printed inputs"},
        {"command", "warpmodel reproduce-thesis --format json"},
        {"from", {"model/data/k40-thesis.device.json", "model/data/stencil-order2-k40-thesis.kernel.json"}}};
    emit(o.output, nlohmann::json{{"provenance", provenance},
                                  {"worked_example", rows},
                                  {"tables_4_5_4_7", cells},
                                  {"prediction", to_json(r.prediction)}}
                       .dump(2) + "\n");
    return kExitOk;
  }
  const TableFormat tf = table_format(format);
  std::string text;
  if (format == OutputFormat::Csv) {
    // Two tables in one CSV stream would not load; the worked example is the main table.
    text = thesis_rows_table(r).render(tf);
  } else {
    const std::string h = format == OutputFormat::Markdown ? "## " : "";
    text += h + "Worked example, section 4.6 (K40, order-2 stencil, 50^3, N = 8): thesis-2016 recomputed\n\n";
    text += thesis_rows_table(r).render(tf);
    text += "\n" + h + "Tables 4.5 and 4.7 (cycles)\n\n";
    text += thesis_cells_table(r).render(tf);
  }
  emit(o.output, text);
  return kExitOk;
}

}  // namespace

void add_model_commands(CLI::App& app, Action& action) {
  auto predict_opts = std::make_shared<PredictOptions>();
  CLI::App* predict_cmd = app.add_subcommand(
      "predict", "predict one kernel launch: its time with an 80 % interval, the bound, the largest terms (--terms: every term)");
  predict_cmd->add_option("--device", predict_opts->device, "device profile JSON")->required()->check(path_name());
  predict_cmd->add_option("--kernel", predict_opts->kernel, "kernel profile JSON")->required()->check(path_name());
  predict_cmd->add_option("--model", predict_opts->model, model_option_help(true));
  predict_cmd->add_flag("--terms", predict_opts->terms,
                        "after the summary, every term of the model with its equation (--format json and csv always "
                        "carry every term)");
  add_output_options(predict_cmd, *predict_opts);
  predict_cmd->callback([&action, predict_opts] { action = [predict_opts] { return run_predict(*predict_opts); }; });

  auto sweep_opts = std::make_shared<SweepOptions>();
  CLI::App* sweep_cmd = app.add_subcommand("sweep", "rank block shapes of a kernel by predicted time");
  sweep_cmd->add_option("--device", sweep_opts->device, "device profile JSON")->required()->check(path_name());
  sweep_cmd->add_option("--kernel", sweep_opts->kernel, "kernel profile JSON")->required()->check(path_name());
  sweep_cmd->add_option("--model", sweep_opts->model, model_option_help(false));
  sweep_cmd->add_option("--top", sweep_opts->top, "how many of the best shapes to print")
      ->check(integer_at_least(0))
      ->capture_default_str();
  add_output_options(sweep_cmd, *sweep_opts);
  sweep_cmd->callback([&action, sweep_opts] { action = [sweep_opts] { return run_sweep(*sweep_opts); }; });

  auto thesis_opts = std::make_shared<CommonOptions>();
  CLI::App* thesis_cmd = app.add_subcommand(
      "reproduce-thesis", "recompute the thesis's K40 worked example (eqs 4.32-4.51) and tables 4.5/4.7");
  add_output_options(thesis_cmd, *thesis_opts);
  thesis_cmd->callback([&action, thesis_opts] { action = [thesis_opts] { return run_reproduce_thesis(*thesis_opts); }; });
}

}  // namespace warpmodel::cli
