// compare-devices: device profiles side by side (model only, no GPU; README "Compare GPUs").
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "options.hpp"
#include "exit_codes.hpp"
#include "warpmodel/device_comparison.hpp"
#include "warpmodel/json_io.hpp"
#include "warpmodel/report.hpp"

namespace warpmodel::cli {
namespace {

struct CompareDevicesOptions {
  std::vector<std::string> profiles;
  std::vector<std::string> names;
  std::string format = "text";
  std::string output;  // empty: standard output
  bool uncertainty = false;
};

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
    text = to_json(comparison).dump(2) + "\n";
  } else {
    const TableFormat format =
        o.format == "csv" ? TableFormat::Csv : o.format == "markdown" ? TableFormat::Markdown : TableFormat::Text;
    text = render_device_comparison(comparison, format, o.uncertainty);
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
