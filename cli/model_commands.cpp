// predict, sweep, reproduce-thesis: the model-only subcommands.
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "model_option.hpp"
#include "options.hpp"
#include "exit_codes.hpp"
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
};

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
      out.push_back(j);
    }
    emit(o.output, (models.size() == 1 ? out[0] : out).dump(2) + "\n");
    say_skipped();
    return kExitOk;
  }
  std::string text;
  if (format == OutputFormat::Table) text += "device: " + device.name + "\nkernel: " + kernel.name + "\n\n";
  text += prediction_table(predictions).render(table_format(format));
  for (const auto& p : predictions)
    for (const auto& note : p.notes) text += format == OutputFormat::Csv ? "" : "note (" + std::string(to_string(p.variant)) + "): " + note + "\n";
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
                        {"prediction", to_json(e.prediction)}});
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
                 ? "memory counters derived per shape from the SASS addresses (" + kernel.access_patterns->source + ")\n\n"
                 : std::string("memory counters kept from the profiled launch (the profile has no access_patterns: "
                               "make it with `warpmodel kernel-profile` to derive them per shape)\n\n"));
  text += sweep_table(result, o.top).render(table_format(format));
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
    emit(o.output, nlohmann::json{{"worked_example", rows}, {"tables_4_5_4_7", cells}, {"prediction", to_json(r.prediction)}}
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
  CLI::App* predict_cmd = app.add_subcommand("predict", "predict one kernel launch, printing every term of the model");
  predict_cmd->add_option("--device", predict_opts->device, "device profile JSON")->required()->check(path_name());
  predict_cmd->add_option("--kernel", predict_opts->kernel, "kernel profile JSON")->required()->check(path_name());
  predict_cmd->add_option("--model", predict_opts->model, model_option_help(true));
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
