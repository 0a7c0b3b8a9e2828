// `warpmodel profile` and `warpmodel metrics`: per-launch hardware metrics through CUPTI's Range
// Profiler (profiles/cupti, README "CUPTI collection").
//
// Exit codes: 2 bad input (unknown metric with the closest names, nvprof name with no modern
// equivalent, bad workload option, unwritable output), 3 no GPU, 4 counters not permitted or held
// by another CUPTI client (ncu, nsys), 1 a CUPTI/CUDA failure. Nothing is written unless the whole
// collection succeeded; files are written atomically.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "commands.hpp"
#include "options.hpp"
#include "warpmodel/support/provenance.hpp"
#include "exit_codes.hpp"
#include "warpmodel/json_io.hpp"
#include "warpmodel/report.hpp"

#include "warpmodel/cupti/ncu_compare.hpp"

#ifdef WARPMODEL_HAVE_CUPTI
#include "warpmodel/support/cuda.hpp"
#include "warpmodel/cupti/metrics.hpp"
#include "warpmodel/cupti/profiler.hpp"
#include "warpmodel/cupti/workload_factory.hpp"
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
  int device = 0;
  std::string output;
  bool launch_only = false;
  std::string command;
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

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

#ifdef WARPMODEL_HAVE_CUPTI

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

int run_profile(const ProfileArgs& a) {
  return guarded("profile", [&] {
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
      "profile", "collect hardware metrics per kernel launch with CUPTI's Range Profiler, write PREFIX.json and "
                 "PREFIX.csv (GPU subcommand)");
  prof->add_option("--kernel", p->kernel,
                   "workload: copy, saxpy, barrier (built-in test kernels), stencil, adi, corpus (profiles/corpus)")
      ->required();
  prof->add_option("--size", p->size,
                   "problem size: elements (copy/saxpy/barrier), N or NXxNYxNZ (stencil), N (adi), a size label or "
                   "small/medium/large (corpus)");
  prof->add_option("--block", p->block, "block shape, e.g. 256 or 32x8");
  prof->add_option("--order", p->order, "stencil: spatial order(s): 8, a list 2,4,8 or all");
  prof->add_option("--variant", p->variant,
                   "stencil/adi/corpus: kernel variant(s), a list or all (stencil: naive, readonly, shared, intz, "
                   "intz-reg, intz-reg/cp-async; adi: thread-per-line, block-per-line/pcr, block-per-line/cr-pcr; "
                   "corpus: kernel names, profiles/corpus/README.md)");
  prof->add_option("--kernel-name", p->adi_kernel, "adi: which kernel(s) (e.g. solve-x); default every kernel of a step");
  prof->add_option("--precision", p->precision, "adi: single or double");
  prof->add_option("--copies", p->copies, "copy: launches of the kernel (default 1)")->check(at_least(1));
  prof->add_option("--barriers", p->barriers, "barrier: __syncthreads per thread: 0, 1, 8 or 32 (default 32)");
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
      ->check(at_least(0));
  prof->add_option("--timing-runs", p->timing_runs, "timed runs per launch for duration_ns (median; default 5)")
      ->check(at_least(1));
  prof->add_flag("--flush-l2", p->flush_l2,
                 "write L2 back and evict the workload's lines before each replay pass (needs user replay) or "
                 "before the launches (--launch-only)");
  prof->add_option("--device", p->device, "CUDA device index (see `warpmodel devices`)")->check(at_least(0));
  prof->add_option("-o,--output", p->output, "output prefix (default profile-<kernel>): writes PREFIX.json, PREFIX.csv");
  prof->add_flag("--launch-only", p->launch_only,
                 "run the launches once between cudaProfilerStart/Stop and collect nothing (to run under ncu "
                 "--profile-from-start off)");
  prof->callback([&action, p] {
    p->command = support::this_process_command_line();
    action = [p] { return run_profile(*p); };
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
  met->add_option("--device", m->device, "CUDA device index")->check(at_least(0));
  met->add_option("--format", m->format, "text, markdown or csv")->check(CLI::IsMember({"text", "markdown", "csv"}));
  met->callback([&action, m] {
    m->command = support::this_process_command_line();
    action = [m] { return run_metrics(*m); };
  });

  auto c = std::make_shared<CompareArgs>();
  CLI::App* cmp = app.add_subcommand(
      "compare-ncu", "compare saved `profile` reports with Nsight Compute's raw CSV (cupti-N.json, cupti-N-repeat.json, "
                     "ncu-N.csv in one folder, as the gpu test CuptiVsNcu writes them); no GPU needed");
  cmp->add_option("--from", c->from, "the folder")->required();
  cmp->add_option("-o,--output", c->output, "output prefix: writes PREFIX.md and PREFIX.json")->required();
  cmp->callback([&action, c] { action = [c] { return run_compare(*c); }; });
}

}  // namespace warpmodel::cli
