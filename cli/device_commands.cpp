// compare-devices: device profiles side by side (model only, no GPU; README "Compare GPUs").
#include <algorithm>
#include <iostream>
#include <optional>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "options.hpp"
#include "exit_codes.hpp"
#include "warpmodel/device_comparison.hpp"
#include "warpmodel/json_io.hpp"
#include "warpmodel/report.hpp"
#include "writers.hpp"

namespace warpmodel::cli {
namespace {

struct CompareDevicesOptions {
  std::vector<std::string> profiles;
  std::vector<std::string> names;
  std::string format = "text";
  std::string output;  // empty: standard output
  bool uncertainty = false;
};

// The tensor stage's quantities (tensor cores, TMA, clusters, async copies, library GEMM) for every
// profile: its value, "n/a" where the profile has the field without a value (a rate with no spec),
// "not measured" where it lacks it. A profile without any is one line; the table comes when one has.
std::optional<double> number_at_path(const nlohmann::json& doc, const std::string& dotted, bool& present) {
  std::string pointer = "/" + dotted;
  std::replace(pointer.begin(), pointer.end(), '.', '/');
  const nlohmann::json::json_pointer p(pointer);
  present = doc.contains(p);
  if (!present || !doc.at(p).is_number()) return std::nullopt;
  return doc.at(p).get<double>();
}
bool has_tensor_stage(const nlohmann::json& doc) {
  return doc.contains("measurements") && doc.at("measurements").is_object() &&
         doc.at("measurements").contains("tensor_cores");
}
std::string tensor_stage_text(const std::vector<DeviceProfileDocument>& docs, const DeviceComparison& c,
                              TableFormat format) {
  const bool md = format == TableFormat::Markdown;
  std::string text = "\n" + std::string(md ? "## " : "") +
                     "Tensor stage: tensor cores, TMA, clusters, async copies, library GEMM\n\n"
                     "Measured by `warpmodel characterize --only tensor` (docs/microbenchmarks.md); ops = 2 x M x N x K.\n";
  bool any = false;
  for (std::size_t d = 0; d < docs.size(); ++d) {
    if (has_tensor_stage(docs[d].json)) {
      any = true;
      continue;
    }
    text += (md ? "- " : "  ") + c.devices[d].name + ": not measured (its profile has no measurements.tensor_cores)\n";
  }
  if (!any) return text;
  Table t;
  t.headers = {"quantity", "unit"};
  for (const auto& dev : c.devices) t.headers.push_back(dev.name);
  for (const auto& q : ubench::tensor_stage_quantities()) {
    std::vector<std::string> row = {q.substr(std::string("measurements.").size()), quantity_unit(q)};
    for (const auto& doc : docs) {
      bool present = false;
      const auto v = number_at_path(doc.json, q, present);
      row.push_back(v ? format_number(*v, 6) : present ? "n/a" : "not measured");
    }
    t.rows.push_back(row);
  }
  return text + "\n" + t.render(format);
}
nlohmann::json tensor_stage_json(const std::vector<DeviceProfileDocument>& docs) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& q : ubench::tensor_stage_quantities()) {
    nlohmann::json values = nlohmann::json::array();
    for (const auto& doc : docs) {
      bool present = false;
      const auto v = number_at_path(doc.json, q, present);
      values.push_back(v ? nlohmann::json(*v) : nlohmann::json(nullptr));
    }
    out.push_back({{"quantity", q}, {"unit", quantity_unit(q)}, {"values", values}});
  }
  return out;
}

int run_compare_devices(const CompareDevicesOptions& o) {
  if (o.profiles.size() < 2)
    throw InputError("compare-devices: needs two or more device profiles, got " + std::to_string(o.profiles.size()) +
                     " (usage: warpmodel compare-devices A/device.json B/device.json [...])");
  std::vector<support::NamedInput> inputs;
  for (const auto& path : o.profiles) inputs.push_back({"", path});
  check_output(o.output, inputs);
  std::vector<DeviceProfileDocument> documents;
  for (const auto& path : o.profiles) documents.push_back({path, read_json_file(path)});
  const DeviceComparison comparison = compare_devices(documents, o.names);

  std::string text;
  if (o.format == "json") {
    nlohmann::json j = to_json(comparison);
    j["tensor_stage"] = tensor_stage_json(documents);  // null where a profile lacks the quantity
    text = j.dump(2) + "\n";
  } else {
    const TableFormat format =
        o.format == "csv" ? TableFormat::Csv : o.format == "markdown" ? TableFormat::Markdown : TableFormat::Text;
    text = render_device_comparison(comparison, format, o.uncertainty);
    if (format != TableFormat::Csv) text += tensor_stage_text(documents, comparison, format);
  }
  // Everything is read and rendered before the file is touched: a bad input leaves no output file.
  emit(o.output, text);
  return kExitOk;
}

}  // namespace

void add_device_commands(CLI::App& app, Action& action) {
  auto opts = std::make_shared<CompareDevicesOptions>();
  CLI::App* cmd = app.add_subcommand(
      "compare-devices",
      "every measured quantity of two or more device profiles side by side, with ratios to the first and the spec values");
  cmd->add_option("profiles", opts->profiles, "device profiles (device.json), the first is the reference of the ratios");
  cmd->add_option("--names", opts->names, "column names, one per profile (default: the profiles' names)")->delimiter(',');
  cmd->add_option("--format", opts->format, "text, markdown, csv or json")
      ->check(CLI::IsMember({"text", "table", "markdown", "csv", "json"}))
      ->capture_default_str();
  cmd->add_option("-o,--output", opts->output, "write to this file (atomically) instead of standard output")
      ->check(path_name());
  cmd->add_flag("--uncertainty", opts->uncertainty, "text, markdown, csv: a column with each value's uncertainty");
  cmd->callback([&action, opts] { action = [opts] { return run_compare_devices(*opts); }; });
}

}  // namespace warpmodel::cli
