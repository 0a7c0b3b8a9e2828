// Profiles of any application, without a GPU: `import-ncu` (Nsight Compute's CSV as a
// warpmodel.profile/1 file), `predict-app` (every launch of a profile predicted, with its best
// launch shape, guardrails, speed of light and what-ifs) and `roofline` (its launches on the
// device's measured roofline). README "Your own kernels".
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "options.hpp"
#include "model_option.hpp"
#include "tool_errors.hpp"
#include "exit_codes.hpp"
#include "warpmodel/json_io.hpp"
#include "warpmodel/model.hpp"
#include "warpmodel/report.hpp"
#include "warpmodel/sass/app_prediction.hpp"
#include "warpmodel/sass/roofline.hpp"
#include "warpmodel/sass/merge.hpp"
#include "warpmodel/sass/tools.hpp"
#include "warpmodel/support/input_file.hpp"
#include "warpmodel/support/progress.hpp"
#include "warpmodel/support/provenance.hpp"
#include "warpmodel/support/text.hpp"

#ifdef WARPMODEL_HAVE_CUPTI_CORE
#include "warpmodel/cupti/ncu_import.hpp"
#endif

namespace warpmodel::cli {
namespace {

namespace fs = std::filesystem;

// The kernels of a binary (or of every .cubin in a folder), for names and SASS; the analysis's
// warnings are added to `warnings`, printed once the command's output is written (bad input stays
// one line on stderr).
std::vector<sass::KernelStatics> analyse_kernels(const std::string& binary, const std::string& cubins,
                                                 std::vector<std::string>& warnings) {
  const sass::BinaryAnalysis a = binary.empty() ? sass::analyse_cubin_folder(cubins) : sass::analyse_binary(binary);
  warnings.insert(warnings.end(), a.warnings.begin(), a.warnings.end());
  return a.kernels;
}

#ifdef WARPMODEL_HAVE_CUPTI_CORE

struct ImportOptions {
  std::string report, output, binary;
};

int run_import_ncu(const ImportOptions& o) {
  support::check_output_file("-o", o.output, {{"report", o.report}, {"--binary", o.binary}});
  support::check_input_file(o.report, cupti::kMaxNcuCsvBytes);
  cupti::NcuImportOptions options;
  std::vector<std::string> binary_warnings;  // printed once the import is written
  options.origin = o.report;
  options.binary = o.binary;
  std::vector<std::string> argv = {"warpmodel", "import-ncu", o.report, "-o", o.output};
  if (!o.binary.empty()) {
    argv.insert(argv.end(), {"--binary", o.binary});
    const sass::BinaryAnalysis a = sass::analyse_binary(o.binary);
    binary_warnings = a.warnings;
    for (const auto& k : a.kernels) options.kernels.push_back({k.name, k.demangled});
    for (const auto& k : a.ptx_only_kernels) options.kernels.push_back({k, sass::demangle(k)});
  }
  options.command = support::command_line(argv);
  // Streamed, file to file: the import's memory does not grow with the CSV (ncu_import.hpp).
  const cupti::NcuFileImport imported = cupti::import_ncu_file(o.report, options, o.output);
  for (const auto& w : binary_warnings) std::cerr << "warpmodel import-ncu: warning: " << w << "\n";
  for (const auto& w : imported.warnings) std::cerr << "warpmodel import-ncu: warning: " << w << "\n";
  if (const std::string missing = cupti::missing_metrics_warning(imported.missing_model_metrics, o.report);
      !missing.empty())
    std::cerr << "warpmodel import-ncu: warning: " << missing << "\n";
  std::cout << "import-ncu: " << imported.launches << " launch(es) of " << imported.kernels << " kernel(s) from ncu's "
            << (imported.layout == cupti::NcuCsvLayout::Wide ? "raw page (one row per launch)"
                                                             : "metric rows (one per launch x metric)")
            << ", " << imported.metrics << " metrics; wrote " << o.output << "\n";
  return kExitOk;
}

#else

int run_import_ncu(const struct ImportOptions&) {
  std::cerr << "warpmodel import-ncu: this build has no profiles/cupti core\n";
  return kExitInternal;
}

#endif

struct PredictAppOptions {
  std::string profile, device, binary, cubins, model = kDefaultModel, format = "table", output;
  bool group = false;
  std::vector<std::string> what_ifs;  // --what-if KEY=VALUE
};

// The folder of cubins `profile -- APP` kept, named in the profile ("cubins", relative to it).
std::string cubins_of_profile(const nlohmann::json& j, const std::string& profile_path) {
  if (!j.is_object() || !j.contains("cubins") || !j.at("cubins").is_string()) return "";
  const fs::path folder = fs::path(profile_path).parent_path() / j.at("cubins").get<std::string>();
  std::error_code ec;
  return fs::is_directory(folder, ec) ? folder.string() : "";
}

// Whether the profile says it is incomplete, and why (an application that failed part way): read
// before any work, so that a malformed "complete" is refused first.
std::string incomplete_reason(const nlohmann::json& j, const std::string& origin) {
  if (!j.is_object() || !j.contains("complete")) return "";
  if (!j.at("complete").is_boolean())
    throw InputError(origin + ": field 'complete': expected true or false, got " + j.at("complete").dump().substr(0, 40));
  if (j.at("complete").get<bool>()) return "";
  if (!j.contains("incomplete_reason") || j.at("incomplete_reason").is_null()) return "the application failed";
  if (!j.at("incomplete_reason").is_string())
    throw InputError(origin + ": field 'incomplete_reason': expected a string, got " +
                     j.at("incomplete_reason").dump().substr(0, 40));
  const std::string reason = j.at("incomplete_reason").get<std::string>();
  return reason.empty() ? "the application failed" : reason;
}

// What predict-app and roofline share: the profile, device and SASS read, every launch predicted.
struct AppRun {
  sass::CounterFile counters;
  std::string incomplete;  // why the profile is incomplete ("" when complete)
  DeviceProfile device;
  std::vector<sass::KernelStatics> kernels;
  sass::AppPrediction prediction;
  std::vector<std::string> warnings;  // printed after the output
};

AppRun predict_app_run(const PredictAppOptions& o, const char* command) {
  sass::AppPredictionOptions options;
  for (const auto& w : o.what_ifs) options.what_ifs.push_back(sass::parse_what_if(w));  // bad input first
  const auto variant = parse_variant(o.model);
  if (!variant) throw InputError("--model: unknown model '" + o.model + "' (known: " + variant_names() + ")");
  const nlohmann::json profile_json = read_json_file(o.profile);
  AppRun r;
  r.counters = sass::counters_from_json(profile_json, o.profile);
  if (r.counters.launches.empty()) throw InputError(o.profile + ": the profile holds no launches");
  r.incomplete = incomplete_reason(profile_json, o.profile);
  r.device = load_device_profile(o.device);
  std::string cubins = o.cubins;
  if (o.binary.empty() && cubins.empty()) {
    cubins = cubins_of_profile(profile_json, o.profile);
    if (cubins.empty())
      throw InputError("where is the SASS? give --binary APP (the application, a library, .o or .cubin) "
                       "or --cubins DIR (the PREFIX.cubins folder of `warpmodel profile -- APP`)");
  }
  support::progress(command, "analysing the SASS of " + (o.binary.empty() ? cubins : o.binary) +
                                 " (cuobjdump, nvdisasm; WARPMODEL_SASS_CACHE keeps the dumps between runs)");
  r.kernels = analyse_kernels(o.binary, cubins, r.warnings);
  support::progress(command, "predicting " + std::to_string(r.counters.launches.size()) + " launch(es)");
  options.profile_gpu = sass::profile_gpu_name(profile_json);
  r.prediction = sass::predict_application(r.counters, r.kernels, r.device, *variant, o.group,
                                           o.binary.empty() ? cubins : o.binary, options);
  if (!r.incomplete.empty())
    r.warnings.push_back(o.profile + " is incomplete (" + r.incomplete + "): the launches after the failure are missing");
  if (!r.prediction.gpu_warning.empty()) r.warnings.push_back(r.prediction.gpu_warning);
  return r;
}

int run_predict_app(const PredictAppOptions& o) {
  check_output(o.output, {{"--profile", o.profile}, {"--device", o.device}, {"--binary", o.binary}});
  const AppRun r = predict_app_run(o, "predict-app");
  const sass::AppPrediction& prediction = r.prediction;
  const DeviceProfile& device = r.device;
  const std::string& incomplete = r.incomplete;

  std::string text;
  if (o.format == "json") {
    nlohmann::json j = sass::to_json(prediction);
    j["complete"] = incomplete.empty();
    j["interval_source"] = prediction.interval_source.empty() ? nlohmann::json(nullptr) : nlohmann::json(prediction.interval_source);
    j["gain_threshold_pct"] = prediction.gain_threshold_pct;
    j["gain_threshold_source"] = prediction.gain_threshold_source;
    text = j.dump(2) + "\n";
  } else {
    const TableFormat format = o.format == "csv"        ? TableFormat::Csv
                               : o.format == "markdown" ? TableFormat::Markdown
                                                        : TableFormat::Text;
    if (format != TableFormat::Csv) {
      const std::string bullet = format == TableFormat::Markdown ? "- " : "";
      text += bullet + "profile: " + o.profile + (incomplete.empty() ? "" : " (INCOMPLETE: " + incomplete + ")") + "\n";
      text += bullet + "device: " + device.name + " (" + o.device + ")\n";
      text += bullet + "model: " + prediction.model + "\n";
      text += bullet + "SASS: " + prediction.sass + "\n";
      text += bullet + "80 % interval: " +
              (prediction.interval_source.empty()
                   ? std::string("none (the device profile has no hopper_intervals: `warpmodel validate --from DIR` "
                                 "writes them; they are the hopper variant's)")
                   : "the predicted time divided by 1 + the 90th and 10th percentiles of held-out errors of its bound (" +
                         prediction.interval_source + ")") +
              "\n";
      text += bullet + "reliable gain: above " + format_number(prediction.gain_threshold_pct, 3) + " % (" +
              prediction.gain_threshold_source + ")\n";
      if (!prediction.energy_source.empty())
        text += bullet + "predicted energy: E = P_static t + sum count_i e_i at the predicted time (docs/energy.md; " +
                prediction.energy_source + ")\n";
      if (!prediction.gpu_warning.empty()) text += bullet + "WARNING: " + prediction.gpu_warning + "\n";
      text += bullet + "best block: the block shape `sweep` ranks first (grid re-derived from grid x block; the "
              "launch's work spread over each shape's warps), \"no reliable gain\" where its predicted gain is at or below the "
              "reliable-gain threshold; predicted gain = 1 - "
              "its time / the profiled shape's; \"not recommended\" where a guardrail says the sweep's assumptions do not hold\n";
      text += bullet + "speed of light: the two largest shares of the measured ceilings the launch reached (counters / "
              "measured time against device.json's rates; every share in --format csv|json); without the bound: the "
              "predicted time with the predicted bound's resource free, and the gain\n\n";
    }
    text += sass::app_prediction_table(prediction, format).render(format);
    if (format != TableFormat::Csv) {
      if (format == TableFormat::Markdown && !prediction.notes.empty()) text += "\n";
      for (const auto& n : prediction.notes) text += (format == TableFormat::Markdown ? "- note: " : "note: ") + n + "\n";
    }
  }
  emit(o.output, text);
  for (const auto& w : r.warnings) std::cerr << "warpmodel predict-app: warning: " << w << "\n";
  return kExitOk;
}

struct RooflineOptions {
  std::string profile, device, binary, cubins, model = kDefaultModel, prefix = "roofline";
};

// scripts/plot_roofline.py: from the source tree CMake configured, else beside the program (or in
// its ../share/warpmodel), else "".
std::string find_plot_roofline() {
  std::vector<fs::path> candidates;
#ifdef WARPMODEL_SCRIPTS_DIR
  candidates.emplace_back(fs::path(WARPMODEL_SCRIPTS_DIR) / "plot_roofline.py");
#endif
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    candidates.push_back(self.parent_path() / "plot_roofline.py");
    candidates.push_back(self.parent_path().parent_path() / "share" / "warpmodel" / "plot_roofline.py");
  }
  for (const auto& c : candidates)
    if (fs::is_regular_file(c, ec)) return c.string();
  return "";
}

int run_roofline(const RooflineOptions& o) {
  const std::string csv = o.prefix + ".csv", png = o.prefix + ".png";
  // A prefix names files to make: a folder or a device node is no prefix (their .csv would land beside them).
  std::error_code ec;
  if (o.prefix.empty() || (fs::exists(o.prefix, ec) && !fs::is_regular_file(o.prefix, ec)) ||
      o.prefix.back() == '/')
    throw InputError("-o " + o.prefix + ": expected a prefix of files to write (PREFIX.csv, PREFIX.png), such as DIR/app");
  check_output(csv, {{"--profile", o.profile}, {"--device", o.device}, {"--binary", o.binary}});
  check_output(png, {{"--profile", o.profile}, {"--device", o.device}, {"--binary", o.binary}});
  PredictAppOptions p;
  p.profile = o.profile;
  p.device = o.device;
  p.binary = o.binary;
  p.cubins = o.cubins;
  p.model = o.model;
  const AppRun r = predict_app_run(p, "roofline");
  const std::vector<sass::RooflinePoint> points = sass::roofline_points(r.counters, r.kernels, r.prediction);
  emit(csv, sass::roofline_table(points).render(TableFormat::Csv));
  const auto drawn = std::count_if(points.begin(), points.end(),
                                   [](const sass::RooflinePoint& x) { return x.intensity_flop_per_byte.has_value(); });
  const auto estimated = std::count_if(points.begin(), points.end(), [](const sass::RooflinePoint& x) {
    return x.intensity_flop_per_byte && x.flops_source == "estimated";
  });
  std::cout << "roofline: " << points.size() << " launch(es), " << drawn << " with FLOPs and DRAM bytes to draw"
            << (estimated ? " (" + std::to_string(estimated) + " with FLOPs estimated from the SASS mix)" : std::string())
            << "; wrote " << csv << "\n";
  const std::string script = find_plot_roofline();
  const std::string draw = "python3 " + (script.empty() ? std::string("scripts/plot_roofline.py") : script) + " " +
                           support::shell_quote(o.device) + " --points " + support::shell_quote(csv) + " -o " +
                           support::shell_quote(png);
  const bool python = !script.empty() && std::system("python3 -c 'import matplotlib' >/dev/null 2>&1") == 0;
  if (!python) {
    std::cout << "roofline: " << (script.empty() ? "scripts/plot_roofline.py not found" : "python3 with matplotlib not found")
              << "; draw it with: " << draw << "\n";
  } else if (const int status = std::system((draw + " >/dev/null").c_str()); status != 0) {
    std::cerr << "warpmodel roofline: warning: " << draw << " failed (status " << status << "); " << csv
              << " is written\n";
  } else {
    std::cout << "roofline: wrote " << png << "\n";
  }
  for (const auto& w : r.warnings) std::cerr << "warpmodel roofline: warning: " << w << "\n";
  return kExitOk;
}

}  // namespace

void add_app_commands(CLI::App& app, Action& action) {
  auto pa = std::make_shared<PredictAppOptions>();
  CLI::App* predict_cmd = app.add_subcommand(
      "predict-app", "every launch of an application's profile (profile -- APP, or import-ncu) predicted, measured "
                     "against predicted, with the bound and the best launch shape (no GPU)");
  predict_cmd->add_option("--profile", pa->profile, "the profile (warpmodel.profile/1)")->required()->check(path_name());
  predict_cmd->add_option("--device", pa->device, "device profile (warpmodel.device/1, from characterize)")
      ->required()
      ->check(path_name());
  CLI::Option* binary =
      predict_cmd->add_option("--binary", pa->binary, "the application (or .a/.o/.cubin) with the kernels' SASS")
          ->check(path_name());
  CLI::Option* cubins = predict_cmd->add_option(
      "--cubins", pa->cubins, "a folder of .cubin files (default: the PREFIX.cubins folder the profile names)")
      ->check(path_name());
  binary->excludes(cubins);
  predict_cmd->add_option("--model", pa->model, model_option_help(false));
  predict_cmd->add_flag("--group", pa->group, "one row per kernel and launch shape (median times), largest total first");
  predict_cmd->add_option("--format", pa->format, "table, markdown, csv or json")
      ->check(CLI::IsMember({"table", "markdown", "csv", "json"}));
  predict_cmd->add_option("-o,--output", pa->output, "write to this file (atomically) instead of standard output")
      ->check(path_name());
  predict_cmd->add_option("--what-if", pa->what_ifs,
                          "predict each launch with a change, repeatable: a counter scaled (dram_bytes=0.5x), a hit "
                          "rate moved (l1_hit_rate=+20 points), occupancy (registers=64, shared_memory=49152 per "
                          "block); keys: " + sass::what_if_keys())
      ->allow_extra_args(false);
  predict_cmd->callback([&action, pa] {
    action = [pa] { return guarded("predict-app", [&] { return run_predict_app(*pa); }); };
  });

  auto ro = std::make_shared<RooflineOptions>();
  CLI::App* roofline_cmd = app.add_subcommand(
      "roofline", "an application's launches on the device's measured roofline: PREFIX.csv (FLOPs per DRAM byte, "
                  "FLOP/s, bound per launch) and PREFIX.png (scripts/plot_roofline.py; no GPU)");
  roofline_cmd->add_option("--profile", ro->profile, "the profile (warpmodel.profile/1)")->required()->check(path_name());
  roofline_cmd->add_option("--device", ro->device, "device profile (warpmodel.device/1, from characterize)")
      ->required()
      ->check(path_name());
  CLI::Option* roofline_binary =
      roofline_cmd->add_option("--binary", ro->binary, "the application (or .a/.o/.cubin) with the kernels' SASS")
          ->check(path_name());
  CLI::Option* roofline_cubins =
      roofline_cmd->add_option("--cubins", ro->cubins, "a folder of .cubin files (default: the profile's)")
          ->check(path_name());
  roofline_binary->excludes(roofline_cubins);
  roofline_cmd->add_option("--model", ro->model, model_option_help(false));
  roofline_cmd->add_option("-o,--output", ro->prefix, "PREFIX of PREFIX.csv and PREFIX.png (default: roofline)")
      ->check(path_name());
  roofline_cmd->callback([&action, ro] {
    action = [ro] { return guarded("roofline", [&] { return run_roofline(*ro); }); };
  });

#ifdef WARPMODEL_HAVE_CUPTI_CORE
  auto imp = std::make_shared<ImportOptions>();
  CLI::App* import_cmd = app.add_subcommand(
      "import-ncu", "Nsight Compute's CSV (ncu --csv --metrics ..., or --page raw) as a warpmodel.profile/1 file for "
                    "kernel-profile --counters and predict-app (no GPU)");
  import_cmd->add_option("report", imp->report, "the CSV ncu printed (use ncu's --log-file to keep it apart from the "
                                                "application's output)")
      ->required()
      ->check(path_name());
  import_cmd->add_option("-o,--output", imp->output, "the profile to write (JSON, atomically)")->required()->check(path_name());
  import_cmd->add_option("--binary", imp->binary,
                         "the application (or .a/.o/.cubin) whose kernels ncu profiled: maps ncu's demangled names to "
                         "mangled ones")
      ->check(path_name());
  import_cmd->callback([&action, imp] {
    action = [imp] { return guarded("import-ncu", [&] { return run_import_ncu(*imp); }); };
  });
#endif
}

}  // namespace warpmodel::cli
