// sass-analyze and kernel-profile: the static analysis of a binary's kernels (profiles/sass), and
// its merge with CUPTI counters into the KernelProfile that `predict` reads. CPU only: they run
// cuobjdump/nvdisasm, never the GPU.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>

#include "commands.hpp"
#include "tool_errors.hpp"
#include "options.hpp"
#include "exit_codes.hpp"
#include "warpmodel/json_io.hpp"
#include "warpmodel/traffic.hpp"
#include "warpmodel/sass/merge.hpp"
#include "warpmodel/sass/report.hpp"
#include "warpmodel/sass/tools.hpp"
#include "warpmodel/support/input_file.hpp"
#include "warpmodel/support/provenance.hpp"
#include "warpmodel/support/text.hpp"

namespace warpmodel::cli {
namespace {

// Where the SASS comes from: a binary (the tools run on it) or dumps made earlier.
struct SourceOptions {
  std::string binary = "/proc/self/exe";  // this program: it embeds the project's kernels
  std::string sass, cfg, res_usage;       // --sass/--cfg/--res-usage instead of a binary
};

void add_source_options(CLI::App* cmd, SourceOptions& o, bool binary_positional) {
  CLI::Option* binary = binary_positional
                            ? cmd->add_option("binary", o.binary, "executable, .a, .o or .cubin (default: this program)")
                            : cmd->add_option("--binary", o.binary, "executable, .a, .o or .cubin (default: this program)");
  binary->check(path_name());
  CLI::Option* sass =
      cmd->add_option("--sass", o.sass, "analyse a `cuobjdump -sass` listing instead of a binary")->check(path_name());
  cmd->add_option("--cfg", o.cfg, "with --sass: its `nvdisasm -bbcfg -poff` CFG")->needs(sass)->check(path_name());
  cmd->add_option("--res-usage", o.res_usage, "with --sass: its `cuobjdump -res-usage` output")
      ->needs(sass)
      ->check(path_name());
  sass->excludes(binary);
}

// The files a source reads, for the -o check.
std::vector<support::NamedInput> source_inputs(const SourceOptions& o) {
  if (o.sass.empty()) return {{"binary", o.binary}};
  return {{"--sass", o.sass}, {"--cfg", o.cfg}, {"--res-usage", o.res_usage}};
}

sass::BinaryAnalysis analyse(const SourceOptions& o) {
  if (o.sass.empty()) {
    // The tools run in child processes, where /proc/self is theirs: resolve it here.
    std::error_code ec;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
    return sass::analyse_binary(o.binary == "/proc/self/exe" && !ec ? self.string() : o.binary);
  }
  sass::CubinDump dump;  // cubin left empty: the listing file names it
  dump.sass = support::read_input_file(o.sass);
  if (!o.cfg.empty()) dump.cfg_dot = support::read_input_file(o.cfg);
  if (!o.res_usage.empty()) dump.res_usage = support::read_input_file(o.res_usage);
  sass::BinaryAnalysis a;
  a.binary = o.sass;
  try {
    a.kernels = sass::analyse_dump(dump);
  } catch (const std::logic_error& e) {  // std::stoi and friends on a number the listing cannot hold
    throw InputError(o.sass + ": not a `cuobjdump -sass` listing (with its --cfg and --res-usage) this reader "
                              "understands: a number in it is out of range or malformed (" + std::string(e.what()) + ")");
  }
  if (a.kernels.empty()) throw InputError(o.sass + ": no kernel found (expected `cuobjdump -sass` output)");
  if (o.cfg.empty()) a.warnings.push_back("no --cfg: basic blocks from branch targets");
  // A --cfg or --res-usage that names none of the listing's kernels is the wrong file, not a kernel
  // without registers or blocks.
  const auto any = [&](auto has) { return std::any_of(a.kernels.begin(), a.kernels.end(), has); };
  if (!o.cfg.empty() && !any([](const sass::KernelStatics& k) { return k.blocks_source == "nvdisasm -bbcfg"; }))
    throw InputError(o.cfg + ": no control-flow graph of any kernel of " + o.sass +
                     " (expected `nvdisasm -bbcfg -poff` output of the same cubin: subgraph \"cluster_NAME\" blocks)");
  if (!o.res_usage.empty() && !any([](const sass::KernelStatics& k) { return k.resources.has_value(); }))
    throw InputError(o.res_usage + ": no resource usage of any kernel of " + o.sass +
                     " (expected `cuobjdump -res-usage` output of the same cubin: 'Function NAME:' then 'REG:N ...')");
  for (const auto& k : a.kernels)
    if (k.resources && (k.resources->registers < 0 || k.resources->registers > 255 || k.resources->shared_bytes < 0 ||
                        k.resources->shared_bytes > (16 << 20)))
      throw InputError(o.res_usage + ": kernel " + k.name + ": REG " + std::to_string(k.resources->registers) +
                       ", SHARED " + std::to_string(k.resources->shared_bytes) +
                       ": expected registers in [0, 255] and shared memory in [0, 16 MiB]");
  return a;
}


struct AnalyzeOptions {
  SourceOptions source;
  std::string format = "table", kernel, output;
  bool addresses = false;
};

// --addresses: every global access of each kernel with the address the SASS computes (the input of
// the shape-aware traffic model, model/traffic.hpp).
std::string addresses_text(const std::vector<sass::KernelStatics>& kernels) {
  std::ostringstream out;
  for (const auto& k : kernels) {
    out << k.demangled << "\n  " << k.access_patterns.source << "\n";
    for (const MemoryAccess& a : k.access_patterns.accesses)
      out << "  " << std::hex << std::setw(6) << std::setfill('0') << a.offset << std::dec << std::setfill(' ') << "  "
          << a.opcode << "  depth " << a.loop_depth << "  " << format_address(a.address) << "\n";
    out << "\n";
  }
  return out.str();
}

int run_sass_analyze(const AnalyzeOptions& o) {
  check_output(o.output, source_inputs(o.source));
  sass::BinaryAnalysis a = analyse(o.source);
  if (!o.kernel.empty()) {
    std::vector<sass::KernelStatics> chosen;
    for (const auto& k : a.kernels)
      if (k.name.find(o.kernel) != std::string::npos || k.demangled.find(o.kernel) != std::string::npos)
        chosen.push_back(k);
    if (chosen.empty()) (void)sass::select_kernel(a.kernels, o.kernel, a.binary);  // throws with close matches
    a.kernels = std::move(chosen);
  }
  std::string text;
  if (o.addresses) {
    text = o.format == "json" ? sass::access_patterns_document(a).dump(1) + "\n" : addresses_text(a.kernels);
  } else if (o.format == "json") {
    text = sass::to_json(a).dump(2) + "\n";
  } else {
    const TableFormat format = o.format == "csv"        ? TableFormat::Csv
                               : o.format == "markdown" ? TableFormat::Markdown
                                                        : TableFormat::Text;
    if (format == TableFormat::Text)
      text = a.binary + ": " + std::to_string(a.kernels.size()) + " kernels (ILP_4.26 = inst/BBs; ILP_dep = inst / "
             "longest RAW chain per block; MLP = independent global loads before first use)\n\n";
    text += sass::statics_table(a.kernels, format).render(format);
  }
  emit(o.output, text);
  // Warnings once the output is written: bad input stays one line on stderr.
  for (const auto& w : a.warnings) std::cerr << "warpmodel sass-analyze: warning: " << w << "\n";
  return kExitOk;
}

struct KernelProfileOptions {
  SourceOptions source;
  std::string kernel, counters, launch, ilp = "thesis", device, output;
  std::optional<int> launch_index;
};

int run_kernel_profile(const KernelProfileOptions& o) {
  std::vector<support::NamedInput> inputs = source_inputs(o.source);
  inputs.insert(inputs.end(), {{"--counters", o.counters}, {"--device", o.device}});
  check_output(o.output, inputs);
  const sass::BinaryAnalysis a = analyse(o.source);
  // Warnings are printed once the profile is written: bad input stays one line on stderr.
  std::vector<std::string> warnings = a.warnings;
  sass::MergeInputs in;
  in.statics = &sass::select_kernel(a.kernels, o.kernel, a.binary);
  // Dumps given for other kernels than this one: the wrong files for it, not a kernel without blocks.
  if (!o.source.cfg.empty() && in.statics->blocks_source != "nvdisasm -bbcfg")
    throw InputError(o.source.cfg + ": no control-flow graph of " + in.statics->name +
                     " (expected `nvdisasm -bbcfg -poff` output of its cubin)");
  if (!o.source.res_usage.empty() && !in.statics->resources)
    throw InputError(o.source.res_usage + ": no resource usage of " + in.statics->name +
                     " (expected `cuobjdump -res-usage` output of its cubin)");
  in.binary = a.binary;
  in.launch_spec = o.launch.empty() ? sass::LaunchSpec{} : sass::parse_launch_spec(o.launch);
  in.ilp = o.ilp == "dependency" ? sass::IlpChoice::Dependency : sass::IlpChoice::Thesis;
  std::optional<sass::CounterFile> counters;
  if (!o.counters.empty()) {
    counters = sass::load_counters(o.counters);
    in.launch = &sass::select_launch(*counters, *in.statics, o.launch_index);
    in.counters_origin = o.counters;
  } else if (o.launch_index) {
    throw InputError("--launch-index needs --counters");
  }
  if (!o.device.empty()) in.max_warps_per_sm = load_device_profile(o.device).limits.max_warps_per_sm();

  const KernelProfile profile = sass::make_kernel_profile(in);
  if (counters) {
    // One line naming the fields the counters could not feed (their sources say which counter).
    std::vector<std::string> fallbacks;
    for (const auto& [field, source] : profile.sources)
      if (source.find("falls back to static") != std::string::npos) fallbacks.push_back(field);
    if (!fallbacks.empty())
      warnings.push_back(std::to_string(fallbacks.size()) + " field(s) from static estimates, their counters not in " +
                         o.counters + ": " + support::join(fallbacks) + " (see each field's entry in \"sources\")");
  }
  const nlohmann::json j = to_json(profile);
  // What predict reads: counters in range still make a profile out of range (1e18 instructions over
  // one warp), which is the counters' fault, said in their name.
  kernel_from_json(j, "the kernel profile made from " + (o.counters.empty() ? a.binary : o.counters));
  emit(o.output, j.dump(2) + "\n");
  for (const auto& w : warnings) std::cerr << "warpmodel kernel-profile: warning: " << w << "\n";
  return kExitOk;
}

}  // namespace

void add_kernel_profile_command(CLI::App& app, Action& action) {
  auto analyze = std::make_shared<AnalyzeOptions>();
  CLI::App* a = app.add_subcommand(
      "sass-analyze", "per-kernel static counts of a binary's SASS: instructions by kind, basic blocks, ILP, MLP, "
                      "registers, shared memory, spills (cuobjdump/nvdisasm; no GPU)");
  add_source_options(a, analyze->source, true);
  a->add_option("--kernel", analyze->kernel, "only kernels whose name contains this");
  a->add_option("--format", analyze->format, "table, csv, markdown or json")
      ->check(CLI::IsMember({"table", "csv", "markdown", "json"}));
  a->add_option("-o,--output", analyze->output, "write to this file (atomically) instead of standard output")
      ->check(path_name());
  a->add_flag("--addresses", analyze->addresses,
              "list every global load, store and atomic with the address its threads compute (the shape-aware "
              "traffic model's input), instead of the counts");
  a->callback([&action, analyze] {
    action = [analyze] { return guarded("sass-analyze", [&] { return run_sass_analyze(*analyze); }); };
  });

  auto profile = std::make_shared<KernelProfileOptions>();
  CLI::App* k = app.add_subcommand(
      "kernel-profile", "a KernelProfile (warpmodel.kernel/1, read by predict) for one launch: static analysis of the "
                        "binary merged with CUPTI counters from `warpmodel profile` (no GPU)");
  add_source_options(k, profile->source, false);
  k->add_option("--kernel", profile->kernel, "kernel name: mangled, demangled, or a unique part of it")->required();
  k->add_option("--counters", profile->counters,
                "counters from `warpmodel profile` (warpmodel.profile/1, or a collection such as "
                "results/h200/metrics.json)")
      ->check(path_name());
  k->add_option("--launch-index", profile->launch_index, "which launch of the kernel in --counters (default: its first)")
      ->check(integer_at_least(0));
  k->add_option("--launch", profile->launch,
                "grid=X[xYxZ],block=X[xYxZ][,smem=BYTES][,domain=XxYxZ]: the launch (needed without --counters; "
                "overrides the counters' grid/block)");
  k->add_option("--ilp", profile->ilp, "parallelism.ilp: thesis (eq 4.26, #inst/#BBs) or dependency")
      ->check(CLI::IsMember({"thesis", "dependency"}));
  k->add_option("--device", profile->device, "device profile (warpmodel.device/1): warps per SM for achieved occupancy")
      ->check(path_name());
  k->add_option("-o,--output", profile->output, "write to this file (atomically) instead of standard output")
      ->check(path_name());
  k->callback([&action, profile] {
    action = [profile] { return guarded("kernel-profile", [&] { return run_kernel_profile(*profile); }); };
  });
}

}  // namespace warpmodel::cli
