// `warpmodel profile` and `warpmodel metrics`: per-launch hardware metrics through CUPTI's Range
// Profiler (profiles/cupti, README "CUPTI collection"), of a built-in workload (--kernel) or of any
// application (`profile [OPTIONS] -- APP [ARGS...]`, by injection: README "Your own kernels").
//
// Exit codes: 2 bad input (unknown metric with the closest names, nvprof name with no modern
// equivalent, bad workload option, unwritable output, APP not found, APP launched no kernel or
// none matched), 3 no GPU, 4 counters not permitted or held by another CUPTI client (ncu, nsys),
// 5 APP failed (what was seen is written, marked incomplete), 1 a CUPTI/CUDA failure. Otherwise
// nothing is written unless the whole collection succeeded; files are written atomically.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "commands.hpp"
#include "exit_codes.hpp"
#include "options.hpp"
#include "warpmodel/cupti/ncu_compare.hpp"
#include "warpmodel/json_io.hpp"
#include "warpmodel/report.hpp"
#include "warpmodel/support/input_file.hpp"
#include "warpmodel/support/provenance.hpp"
#include "warpmodel/support/text.hpp"

#ifdef WARPMODEL_HAVE_CUPTI
#include "nvml.hpp"
#include "warpmodel/cupti/application.hpp"
#include "warpmodel/cupti/metrics.hpp"
#include "warpmodel/cupti/profiler.hpp"
#include "warpmodel/cupti/workload_factory.hpp"
#include "warpmodel/support/cuda.hpp"
#endif

namespace warpmodel::cli {
namespace {

struct ProfileArgs {
  std::string kernel;
  std::string size, block, order, variant, adi_kernel, precision;
  int copies = 1, barriers = 32;
  std::vector<std::string> metrics;
  std::string range = "auto";
  std::string replay;  // "" = kernel for auto ranges, user for user ranges
  std::size_t max_ranges = 0;
  int timing_runs = 5;
  bool flush_l2 = false;
  bool flush_l2_each_launch = false;
  int device = 0;
  std::string output;
  bool launch_only = false;
  std::string command;
  // An application instead of a workload: everything after `--`.
  std::vector<std::string> app;
  std::string kernel_regex;
  std::size_t launch_skip = 0;
  std::optional<std::size_t> launch_count;
  std::vector<std::string> workload_options_given;  // refused with an application
  std::vector<std::string> app_options_given;       // refused with a workload
};

struct CompareArgs {
  std::string from;
  std::string output;
};

struct MetricsArgs {
  bool list = false;
  std::string filter;
  std::string chip;
  int device = 0;
  std::vector<std::string> sets;
  bool legacy = false;
  std::string format = "text";
  std::string command;
};

#ifdef WARPMODEL_HAVE_CUPTI

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// Runs `body`, mapping the profiler's errors to one line and an exit code.
int guarded(const char* sub, const std::function<int()>& body) {
  try {
    return body();
  } catch (const support::cuda::NoGpuError& e) {
    std::cerr << "warpmodel " << sub << ": " << e.what() << "\n";
    return kExitNoGpu;
  } catch (const cupti::PermissionError& e) {
    std::cerr << "warpmodel " << sub << ": " << e.what() << "\n";
    return kExitNoPermission;
  } catch (const cupti::OtherClientError& e) {
    std::cerr << "warpmodel " << sub << ": " << e.what() << "\n";
    return kExitNoPermission;
  } catch (const cupti::MetricNameError& e) {
    std::cerr << "warpmodel " << sub << ": " << e.what() << "\n";
    return kExitBadInput;
  } catch (const std::invalid_argument& e) {
    std::cerr << "warpmodel " << sub << ": " << e.what() << "\n";
    return kExitBadInput;
  } catch (const InputError& e) {
    std::cerr << "warpmodel " << sub << ": " << e.what() << "\n";
    return kExitBadInput;
  } catch (const cupti::RangeOverflowError& e) {
    std::cerr << "warpmodel " << sub << ": " << e.what() << "\n";
    return kExitInternal;
  } catch (const cupti::CuptiError& e) {
    std::cerr << "warpmodel " << sub << ": CUPTI: " << e.what() << "\n";
    return kExitInternal;
  }
}

// Can files be created beside `prefix`? Checked before measuring.
void require_writable(const std::filesystem::path& prefix) {
  std::filesystem::path dir = prefix.parent_path();
  if (dir.empty()) dir = ".";
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  const auto probe = dir / (".warpmodel-probe-" + std::to_string(::getpid()));
  {
    std::ofstream f(probe);
    if (!f) throw InputError(dir.string() + ": output folder is not writable; choose another with --output");
  }
  std::filesystem::remove(probe, ec);
}

cupti::WorkloadRequest workload_request(const ProfileArgs& a) {
  cupti::WorkloadRequest r;
  r.kernel = a.kernel;
  r.size = a.size;
  r.block = a.block;
  r.copies = a.copies;
  r.barriers = a.barriers;
  r.order = a.order;
  r.variant = a.variant;
  r.adi_kernel = a.adi_kernel;
  r.precision = a.precision;
  return r;
}

int run_application_profile(const ProfileArgs& a);

int run_profile(const ProfileArgs& a) {
  return guarded("profile", [&] {
    if (a.flush_l2_each_launch && !a.app.empty())
      throw InputError("--flush-l2-each-launch: for a built-in workload (--kernel) only; an application's launches "
                       "are its own (run it under ncu, whose --cache-control all flushes before each kernel)");
    if (!a.app.empty()) return run_application_profile(a);
    if (!a.app_options_given.empty())
      throw InputError(support::join(a.app_options_given, ", ") + ": for an application (-- APP) only");
    if (a.flush_l2_each_launch && (a.range != "user" || a.launch_only))
      throw InputError("--flush-l2-each-launch: needs --range user (the flush runs between the ranges), and under "
                       "--launch-only ncu's own --cache-control all does it");
    auto workload = cupti::make_workload(workload_request(a));
    if (a.launch_only) {
      // Under ncu: no collection here (ncu is the CUPTI client), the launches once.
      const std::string wrong = cupti::run_launches_only(*workload, a.device, a.flush_l2);
      std::cout << "launched " << workload->launch_count() << " kernel(s) of " << workload->description()
                << (wrong.empty() ? "; outputs verified" : "; " + wrong) << "\n";
      return wrong.empty() ? kExitOk : kExitInternal;
    }
    if (const auto injected = cupti::injected_profiler([](const char* v) { return std::getenv(v); }))
      throw cupti::OtherClientError(cupti::other_client_message(*injected));
    const std::filesystem::path prefix = a.output.empty() ? "profile-" + a.kernel : a.output;
    require_writable(prefix);
    // The device's chip validates the names (and gives the pass count) before anything runs.
    const cupti::ChipMetrics chip = cupti::ChipMetrics::for_device(a.device);
    cupti::ProfileOptions o;
    o.plan = chip.resolve(a.metrics.empty() ? std::vector<std::string>{"model"} : a.metrics);
    o.mode = a.range == "user" ? cupti::RangeMode::User : cupti::RangeMode::Auto;
    if (!a.replay.empty()) o.replay = a.replay == "user" ? cupti::ReplayMode::User : cupti::ReplayMode::Kernel;
    o.max_ranges = a.max_ranges;
    o.timing_runs = a.timing_runs;
    o.flush_l2 = a.flush_l2;
    o.flush_l2_before_each_launch = a.flush_l2_each_launch;
    o.device = a.device;
    o.command = a.command;
    if (const char* c = std::getenv("WARPMODEL_GIT_COMMIT")) o.commit = c;
    o.log = [](const std::string& s) { std::cerr << "profile: " << s << "\n"; };
    const cupti::ProfileReport report = cupti::profile(*workload, o);
    const std::string wrong = workload->verify();
    if (!wrong.empty()) {
      std::cerr << "warpmodel profile: the workload's outputs are wrong after profiling (" << wrong
                << "); nothing written\n";
      return kExitInternal;
    }
    const std::string json_path = prefix.string() + ".json", csv_path = prefix.string() + ".csv";
    write_file_atomically(json_path, cupti::to_json(report).dump(2) + "\n");
    write_file_atomically(csv_path, cupti::to_csv(report));
    Table t;
    t.headers = {"launch", "kernel", "duration (us)", "metric", "value"};
    for (const auto& l : report.launches) {
      bool first = true;
      auto row = [&](const std::string& metric, double v) {
        t.rows.push_back({first ? std::to_string(l.launch_index) : "", first ? l.label : "",
                          first ? format_number(l.duration_ns / 1000.0, 6) : "", metric, format_number(v, 10)});
        first = false;
      };
      for (const auto& [m, v] : l.metrics) row(m, v);
      for (const auto& [m, v] : l.derived) row(m + " (nvprof)", v);
    }
    std::cout << t.render(TableFormat::Text);
    std::cout << "profile: " << report.workload << " on " << report.device.name << " (" << report.device.chip << "), "
              << report.collection.passes << " pass(es); wrote " << json_path << " and " << csv_path << "\n";
    return kExitOk;
  });
}

namespace fs = std::filesystem;

// The injected library, beside this executable (the build puts it there).
fs::path injection_library() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  const fs::path lib = (ec ? fs::path(".") : self.parent_path()) / cupti::kInjectionLibraryName;
  if (!fs::is_regular_file(lib, ec))
    throw std::runtime_error(lib.string() + " not found: the injected library is built with warpmodel (target "
                                            "warpmodel_inject) and must sit beside the warpmodel executable");
  return lib;
}

// A folder for the run's config, records and cubins beside PREFIX (the same file system, so the
// cubins can be moved into PREFIX.cubins), removed when it goes out of scope.
struct StagingFolder {
  fs::path path;
  explicit StagingFolder(const fs::path& prefix) {
    path = fs::path(prefix.string() + ".warpmodel-run-" + std::to_string(::getpid()));
    std::error_code ec;
    fs::remove_all(path, ec);
    fs::create_directories(path / "cubins", ec);
    if (ec) throw InputError(path.string() + ": cannot create the run's folder (" + ec.message() + ")");
  }
  ~StagingFolder() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  StagingFolder(const StagingFolder&) = delete;
  StagingFolder& operator=(const StagingFolder&) = delete;
};

int run_application_profile(const ProfileArgs& a) {
  if (!a.app_options_given.empty() || a.app.empty()) throw std::logic_error("run_application_profile without APP");
  if (!a.kernel.empty())
    throw InputError("--kernel names a built-in workload and -- an application: give one of them");
  if (!a.workload_options_given.empty())
    throw InputError(support::join(a.workload_options_given, ", ") +
                     ": for the built-in workloads (--kernel) only; an application is profiled with auto ranges and "
                     "kernel replay, its launches chosen with --kernel-regex, --launch-skip, --launch-count");
  // Before anything runs: the application, the options, the output folder, the environment.
  try {
    cupti::resolve_application(a.app.front());
  } catch (const cupti::ApplicationNotFound& e) {
    std::cerr << "warpmodel profile: " << e.what() << "\n";
    return kExitBadInput;
  }
  if (a.launch_count && *a.launch_count == 0) throw InputError("--launch-count must be at least 1");
  cupti::LaunchSelector(a.kernel_regex, a.launch_skip, a.launch_count);  // an invalid regex: InputError
  if (const auto injected = cupti::injected_profiler([](const char* v) { return std::getenv(v); }))
    throw cupti::OtherClientError(cupti::application_other_client_message(*injected));
  const fs::path prefix = a.output.empty() ? "profile-" + fs::path(a.app.front()).filename().string() : a.output;
  require_writable(prefix);
  const fs::path library = injection_library();
  support::cuda::require_gpu();  // initialises the driver here, creates no context; NoGpuError: exit 3

  const StagingFolder staging(prefix);
  cupti::InjectionConfig config;
  config.metrics = a.metrics.empty() ? std::vector<std::string>{"model"} : a.metrics;
  config.kernel_regex = a.kernel_regex;
  config.launch_skip = a.launch_skip;
  config.launch_count = a.launch_count;
  config.records = fs::absolute(staging.path / "records.jsonl").string();
  config.cubins = fs::absolute(staging.path / "cubins").string();
  const fs::path config_path = staging.path / "config.json";
  write_file_atomically(config_path, cupti::to_json(config).dump(2) + "\n");
  std::vector<std::string> quoted;
  for (const auto& w : a.app) quoted.push_back(support::shell_quote(w));
  const std::string app_command = support::join(quoted, " ");

  std::cerr << "warpmodel profile: running " << app_command << " with " << library.filename().string()
            << " injected (" << (a.kernel_regex.empty() ? "every kernel" : "kernels matching '" + a.kernel_regex + "'")
            << (a.launch_skip ? ", skipping " + std::to_string(a.launch_skip) : "")
            << (a.launch_count ? ", at most " + std::to_string(*a.launch_count) + " launch(es)" : "") << ")\n";
  const cupti::ProcessOutcome outcome =
      cupti::run_application(a.app, {{"CUDA_INJECTION64_PATH", fs::absolute(library).string()},
                                     {cupti::kInjectConfigVariable, fs::absolute(config_path).string()}});

  cupti::AssemblyInputs in;
  in.app_command = app_command;
  in.command = a.command;
  in.cubins = prefix.filename().string() + ".cubins";
  in.requested = config.metrics;
  in.config = config;
  in.records_origin = (staging.path / "records.jsonl").string();
  const auto records = support::read_text_file(staging.path / "records.jsonl");
  cupti::ApplicationProfile result = cupti::assemble_application_profile(records.value_or(""), outcome, in);
  // The first few warnings, then how many more (a busy multi-threaded APP can produce one per launch).
  constexpr std::size_t kWarningsShown = 8;
  for (std::size_t i = 0; i < result.warnings.size() && i < kWarningsShown; ++i)
    std::cerr << "warpmodel profile: warning: " << result.warnings[i] << "\n";
  if (result.warnings.size() > kWarningsShown)
    std::cerr << "warpmodel profile: warning: ... and " << result.warnings.size() - kWarningsShown
              << " more like these\n";
  using Status = cupti::ApplicationProfile::Status;
  switch (result.status) {
    case Status::Fatal:
      std::cerr << "warpmodel profile: " << result.message << "; nothing written\n";
      return result.exit_code == 4   ? kExitNoPermission
             : result.exit_code == 2 ? kExitBadInput
                                     : kExitInternal;
    case Status::NoCuda:
      if (!records && outcome.exit_code && *outcome.exit_code == cupti::kInjectionAbortStatus) {
        std::cerr << "warpmodel profile: the injected library could not start in APP (its message is above); nothing "
                     "written\n";
        return kExitInternal;
      }
      [[fallthrough]];
    case Status::NoLaunch:
    case Status::NothingMatched:
      std::cerr << "warpmodel profile: " << result.message << "; nothing written\n";
      return outcome.succeeded() ? kExitBadInput : kExitAppFailed;
    case Status::Profiled:
      break;
  }
  cupti::ProfileReport& report = result.report;
  if (const ubench::Nvml nvml; !nvml.driver_version().empty()) report.provenance.driver = nvml.driver_version();
  if (const char* c = std::getenv("WARPMODEL_GIT_COMMIT")) report.provenance.commit = c;
  // The cubins first (PREFIX.json names them), then the profile.
  const fs::path cubins = prefix.string() + ".cubins";
  std::error_code ec;
  fs::remove_all(cubins, ec);
  if (!result.modules.empty()) {
    fs::rename(staging.path / "cubins", cubins, ec);
    if (ec) throw InputError(cubins.string() + ": cannot keep the cubins there (" + ec.message() + ")");
  }
  const std::string json_path = prefix.string() + ".json", csv_path = prefix.string() + ".csv";
  write_file_atomically(json_path, cupti::to_json(report).dump(2) + "\n");
  write_file_atomically(csv_path, cupti::to_csv(report));

  // The summary goes to stderr: stdout is APP's.
  Table t;
  t.headers = {"launch", "kernel", "grid", "block", "duration (us)"};
  for (const auto& l : report.launches)
    t.rows.push_back({std::to_string(l.launch_index), l.label,
                      std::to_string(l.grid[0]) + "x" + std::to_string(l.grid[1]) + "x" + std::to_string(l.grid[2]),
                      std::to_string(l.block[0]) + "x" + std::to_string(l.block[1]) + "x" + std::to_string(l.block[2]),
                      format_number(l.duration_ns / 1000.0, 6)});
  std::cerr << t.render(TableFormat::Text);
  std::cerr << "warpmodel profile: APP " << outcome.describe() << "; " << report.launches.size()
            << " launch(es) profiled on " << report.device.name << " (" << report.device.chip << "), "
            << report.collection.passes << " pass(es) each; wrote " << json_path << ", " << csv_path
            << (result.modules.empty() ? "" : " and " + cubins.string() + " (" + std::to_string(result.modules.size()) +
                                                  " cubin(s))")
            << "\n";
  if (!report.complete) {
    std::cerr << "warpmodel profile: APP " << outcome.describe() << ": the profile holds the "
              << report.launches.size() << " launch(es) seen before, marked incomplete\n";
    return kExitAppFailed;
  }
  return kExitOk;
}

TableFormat table_format(const std::string& f) {
  return f == "markdown" ? TableFormat::Markdown : f == "csv" ? TableFormat::Csv : TableFormat::Text;
}

Table legacy_table() {
  Table t;
  t.headers = {"nvprof name", "Perfworks expression", "unit", "note"};
  for (const auto& r : cupti::legacy_table_rows()) t.rows.push_back({r.nvprof_name, r.expression, r.unit, r.note});
  return t;
}

int run_metrics(const MetricsArgs& a) {
  return guarded("metrics", [&] {
    const TableFormat format = table_format(a.format);
    if (a.legacy) {
      std::cout << (format == TableFormat::Markdown ? cupti::legacy_metrics_markdown() : legacy_table().render(format));
      return kExitOk;
    }
    cupti::ChipMetrics chip = [&] {
      if (!a.chip.empty()) return cupti::ChipMetrics::for_chip(a.chip);
      try {
        return cupti::ChipMetrics::for_device(a.device);
      } catch (const support::cuda::NoGpuError& e) {
        throw support::cuda::NoGpuError(std::string(e.what()) + " (name a chip with --chip, e.g. --chip GH100, to query offline)");
      }
    }();
    if (a.list) {
      const std::string filter = lower(a.filter);
      Table t;
      t.headers = {"metric", "type", "unit", "description"};
      auto metrics = chip.base_metrics();
      std::stable_sort(metrics.begin(), metrics.end(),
                       [](const auto& x, const auto& y) { return lower(x.name) < lower(y.name); });
      for (const auto& m : metrics)
        if (filter.empty() || lower(m.name).find(filter) != std::string::npos ||
            lower(m.description).find(filter) != std::string::npos)
          t.rows.push_back({m.name, m.type, m.dim_unit, m.description});
      std::cout << t.render(format);
      if (format == TableFormat::Text)
        std::cout << t.rows.size() << " base metrics on " << chip.chip()
                  << "; collect one with a roll-up: counters .sum/.avg/.max/.min (+ .per_second, "
                     ".pct_of_peak_sustained_active, ...), ratios .pct/.ratio, throughputs .avg.pct_of_peak_sustained_elapsed\n";
    }
    std::vector<std::string> sets = a.sets;
    if (sets.empty() && !a.list)
      for (const auto& s : cupti::metric_sets()) sets.push_back(s.name);
    for (const auto& s : sets) {
      const cupti::MetricPlan plan = chip.resolve({s});
      const std::size_t passes = chip.passes(plan.collect);
      Table t;
      t.headers = {"metric", "source"};
      for (const auto& m : plan.collect) t.rows.push_back({m, "perfworks"});
      for (const auto& d : plan.derived) t.rows.push_back({d.name, "nvprof: " + d.definition->expression()});
      if (const cupti::MetricSet* set = cupti::find_metric_set(s))
        std::cout << "set " << set->name << ": " << set->description << "\n";
      std::cout << t.render(format);
      std::cout << s << ": " << plan.collect.size() << " Perfworks metrics, " << passes << " pass(es) on " << chip.chip()
                << (a.chip.empty() ? "" : " (offline, no counter availability image)") << "\n";
    }
    return kExitOk;
  });
}

#else  // no CUPTI in this build

int no_cupti(const char* sub) {
  std::cerr << "warpmodel " << sub << ": this build has no CUDA/CUPTI support (configured with "
               "WARPMODEL_ENABLE_CUDA=OFF or without CUPTI); rebuild with the CUDA toolkit to use GPU subcommands\n";
  return kExitNoGpu;
}
int run_profile(const ProfileArgs&) { return no_cupti("profile"); }
int run_metrics(const MetricsArgs&) { return no_cupti("metrics"); }

#endif

// compare-ncu only reads files: every build has it (bad input reaches main: one line, exit 2).
int run_compare(const CompareArgs& a) {
  // PREFIX.md and PREFIX.json: new names or files, none of them a file of the folder compared.
  std::vector<support::NamedInput> inputs;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(a.from, ec)) inputs.push_back({"", entry.path()});
  for (const char* extension : {".md", ".json"}) support::check_output_file("-o", a.output + extension, inputs);
  const cupti::ComparisonDocument doc = cupti::compare_ncu_directory(a.from);
  // Both documents are rendered before either is written.
  write_file_atomically(a.output + ".md", doc.markdown);
  write_file_atomically(a.output + ".json", doc.json.dump(2) + "\n");
  std::cout << "compare-ncu: " << doc.workloads << " workload(s); largest work-counter difference "
            << format_number(doc.max_counter_difference_pct, 4) << " %, percentage difference "
            << format_number(doc.max_percentage_difference_pp, 4) << " pp, timing difference "
            << format_number(doc.max_timing_difference, 4) << "; " << (doc.all_ok ? "all agree" : "NOT all agree")
            << "; wrote " << a.output << ".md and .json\n";
  return kExitOk;
}

}  // namespace

void add_profile_commands(CLI::App& app, Action& action) {
  auto p = std::make_shared<ProfileArgs>();
  CLI::App* prof = app.add_subcommand(
      "profile", "collect hardware metrics per kernel launch with CUPTI's Range Profiler, of a built-in workload "
                 "(--kernel) or of any application (-- APP [ARGS...]), write PREFIX.json and PREFIX.csv (GPU subcommand)");
  prof->add_option("--kernel", p->kernel,
                   "workload: copy, saxpy, barrier (built-in test kernels), stencil, adi, corpus (profiles/corpus), fwi");
  prof->add_option("app", p->app, "-- APP [ARGS...]: the application to run and profile (everything after --)")
      ->expected(-1);
  CLI::Option* regex = prof->add_option(
      "--kernel-regex", p->kernel_regex,
      "APP: profile only kernels whose mangled or demangled name contains a match (ECMAScript regex)");
  CLI::Option* skip = prof->add_option("--launch-skip", p->launch_skip, "APP: let this many matching launches pass first")
                           ->check(integer_at_least(0));
  CLI::Option* count = prof->add_option("--launch-count", p->launch_count, "APP: profile at most this many launches")
                            ->check(integer_at_least(0));
  prof->add_option("--size", p->size,
                   "problem size: elements (copy/saxpy/barrier), N or NXxNYxNZ (stencil), N or NXxNY (adi; NXxNY: fused), a size label or "
                   "small/medium/large (corpus), NXxNZ (fwi, default 210x68)");
  prof->add_option("--block", p->block, "block shape, e.g. 256 or 32x8");
  prof->add_option("--order", p->order, "stencil: spatial order(s): 8, a list 2,4,8 or all");
  prof->add_option("--variant", p->variant,
                   "stencil/adi/corpus: kernel variant(s), a list or all (stencil: naive, readonly, shared, intz, "
                   "intz-reg, intz-reg/cp-async; adi: thread-per-line, block-per-line/pcr, block-per-line/cr-pcr, partitioned, "
                   "partitioned/c16, fused, fused/c4, fused/c16; "
                   "corpus: kernel names, profiles/corpus/README.md; fwi: original, shared, fused, fused-cpml, dot-gpu, "
                   "reorganised, gradient-on-the-fly, read-only, fast-math)");
  prof->add_option("--kernel-name", p->adi_kernel,
                   "adi, fwi: which kernel(s) (e.g. solve-x, or sweep-x for fused; Prop_psi_sh_less for fwi); default "
                   "every kernel of a step (adi) or of a gradient evaluation (fwi)");
  prof->add_option("--precision", p->precision, "adi: single or double");
  prof->add_option("--copies", p->copies, "copy: launches of the kernel (default 1)")->check(integer_at_least(1));
  prof->add_option("--barriers", p->barriers, "barrier: __syncthreads per thread: 0, 1, 8 or 32 (default 32)")
      ->check(integer_at_least(0));
  prof->add_option("--metrics", p->metrics,
                   "metric sets (model, seed-003, seed-002), Perfworks names or nvprof names, comma-separated "
                   "(default model)");
  prof->add_option("--range", p->range, "auto (auto range, kernel replay) or user (user range, user replay)")
      ->check(CLI::IsMember({"auto", "user"}));
  prof->add_option("--replay", p->replay,
                   "kernel (CUPTI replays each kernel) or user (the workload is re-run per pass); default: kernel "
                   "with --range auto, user with --range user")
      ->check(CLI::IsMember({"kernel", "user"}));
  prof->add_option("--max-ranges", p->max_ranges, "ranges the counter data holds (default: the workload's launches)")
      ->check(integer_at_least(0));
  prof->add_option("--timing-runs", p->timing_runs, "timed runs per launch for duration_ns (median; default 5)")
      ->check(integer_at_least(1));
  prof->add_flag("--flush-l2", p->flush_l2,
                 "write L2 back and evict the workload's lines before each replay pass (needs user replay) or "
                 "before the launches (--launch-only)");
  prof->add_flag("--flush-l2-each-launch", p->flush_l2_each_launch,
                 "write L2 back and evict the workload's lines before every launch, in the timed runs and in every "
                 "pass (Nsight Compute's --cache-control all; the protocol of `validate --measure`); needs --range user");
  prof->add_option("--device", p->device, "CUDA device index (see `warpmodel devices`)")->check(integer_at_least(0));
  prof->add_option("-o,--output", p->output, "output prefix (default profile-<kernel>): writes PREFIX.json, PREFIX.csv")
      ->check(path_name());
  prof->add_flag("--launch-only", p->launch_only,
                 "run the launches once between cudaProfilerStart/Stop and collect nothing (to run under ncu "
                 "--profile-from-start off)");
  prof->callback([&action, p, prof, regex, skip, count] {
    p->command = support::this_process_command_line();
    // Options of the other mode, refused by run_profile with one line.
    for (const CLI::Option* o : prof->get_options()) {
      const std::string name = o->get_name(false, true);
      const std::string flag = name.substr(0, name.find(','));
      if (o->count() == 0 || o == regex || o == skip || o == count || flag == "--metrics" || flag == "-o" ||
          flag == "--output" || flag == "--help" || flag == "--kernel" || flag == "app" || flag.empty())
        continue;
      p->workload_options_given.push_back(flag);
    }
    for (const CLI::Option* o : {regex, skip, count})
      if (o->count() > 0) p->app_options_given.push_back(o->get_name(false, true));
    if (p->app.empty()) p->workload_options_given.clear();
    else p->app_options_given.clear();
    action = [p] {
      // PREFIX.json and PREFIX.csv: new names or files, never the application run (before it runs).
      if (!p->output.empty())
        for (const char* extension : {".json", ".csv"})
          support::check_output_file("-o", p->output + extension,
                                     p->app.empty() ? std::vector<support::NamedInput>{}
                                                    : std::vector<support::NamedInput>{{"APP", p->app.front()}});
      if (p->kernel.empty() && p->app.empty()) {
        std::cerr << "warpmodel profile: name a built-in workload (--kernel copy|saxpy|barrier|stencil|adi) or an "
                     "application after -- (warpmodel profile [OPTIONS] -- APP [ARGS...])\n";
        return kExitBadInput;
      }
      return run_profile(*p);
    };
  });

  auto m = std::make_shared<MetricsArgs>();
  CLI::App* met = app.add_subcommand(
      "metrics", "what the GPU's profiler offers: --list its metrics, --set a set's metrics and pass count, --legacy "
                 "the nvprof translation table");
  met->add_flag("--list", m->list, "list the base metrics of the device (or of --chip)");
  met->add_option("--filter", m->filter, "with --list: only metrics whose name or description contains this text");
  met->add_option("--set", m->sets, "a metric set or list (model, seed-003, seed-002, or names): its metrics and passes");
  met->add_flag("--legacy", m->legacy, "print the nvprof -> Perfworks translation table");
  met->add_option("--chip", m->chip, "query a chip by name (e.g. GH100) with CUPTI's host API: no GPU needed");
  met->add_option("--device", m->device, "CUDA device index")->check(integer_at_least(0));
  met->add_option("--format", m->format, "text, markdown or csv")->check(CLI::IsMember({"text", "markdown", "csv"}));
  met->callback([&action, m] {
    m->command = support::this_process_command_line();
    action = [m] { return run_metrics(*m); };
  });

  auto c = std::make_shared<CompareArgs>();
  CLI::App* cmp = app.add_subcommand(
      "compare-ncu", "compare saved `profile` reports with Nsight Compute's raw CSV (cupti-N.json, cupti-N-repeat.json, "
                     "ncu-N.csv in one folder, as the gpu test CuptiVsNcu writes them); no GPU needed");
  cmp->add_option("--from", c->from, "the folder")->required()->check(path_name());
  cmp->add_option("-o,--output", c->output, "output prefix: writes PREFIX.md and PREFIX.json")->required()->check(path_name());
  cmp->callback([&action, c] { action = [c] { return run_compare(*c); }; });
}

}  // namespace warpmodel::cli
