// `warpmodel run-adi`: the ADI shallow-water solver on the GPU (stencils/adi, README "ADI
// shallow-water solver"). Runs the hump problem for --steps steps and prints the time per step and
// per kernel (CUDA events around every kernel of every step, after one untimed warm-up step), then runs
// the same steps again through CUDA graphs (GpuSolver::run) and prints that time per step too.
//   warpmodel run-adi --size 2048 --steps 100 --variant thread-per-line --precision double
// --check compares the final state with the CPU reference; -o FILE writes the run as JSON.
// Bad options: one line, exit 2. No GPU (or no CUDA in the build): one line, exit 3.
#include <cmath>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "options.hpp"
#include "warpmodel/support/provenance.hpp"
#include "exit_codes.hpp"
#include "warpmodel/adi/reference.hpp"
#include "warpmodel/json_io.hpp"

#ifdef WARPMODEL_HAVE_CUDA
#include "gpu_run_support.hpp"
#include "warpmodel/support/cuda.hpp"
#include "warpmodel/adi/gpu_solver.hpp"
#endif

namespace warpmodel::cli {
namespace {

struct RunAdiArgs {
  int size = 256;
  int rows = 0;  // 0: square
  int steps = 100;
  std::string variant = "thread-per-line";
  int partition_cells = 8;
  std::string solver = "cr-pcr";
  std::string precision = "double";
  bool check = false;
  bool energy = false;
  int energy_samples = 30;
  std::string output;
  std::string command;  // as given, for the JSON's provenance
};

#ifdef WARPMODEL_HAVE_CUDA
struct FieldCheck {
  std::string field;
  double max_abs = 0, max_ref = 0;
  bool passed = false;
};

std::vector<FieldCheck> check_against_cpu(const adi::State<double>& gpu, int steps, bool double_precision) {
  adi::State<double> ref = adi::make_hump_state(gpu.nx, gpu.ny);
  adi::reference_run(ref, adi::PhysicalParameters{}, steps);
  std::vector<FieldCheck> out;
  const std::pair<const char*, std::pair<const std::vector<double>*, const std::vector<double>*>> fields[] = {
      {"zeta", {&gpu.zeta, &ref.zeta}}, {"p", {&gpu.p, &ref.p}}, {"q", {&gpu.q_new, &ref.q_new}}};
  for (const auto& [name, arrays] : fields) {
    FieldCheck c{name};
    bool finite = true;
    for (std::size_t i = 0; i < arrays.second->size(); ++i) {
      const double d = std::abs((*arrays.first)[i] - (*arrays.second)[i]);
      finite = finite && std::isfinite(d);
      c.max_abs = std::max(c.max_abs, d);
      c.max_ref = std::max(c.max_ref, std::abs((*arrays.second)[i]));
    }
    // Double: within 1e-12 in the max norm; single: within 1e-4 of the field's max norm.
    c.passed = finite && (double_precision ? c.max_abs <= 1e-12 : c.max_abs <= 1e-4 * c.max_ref);
    out.push_back(c);
  }
  return out;
}

std::string format_us(double seconds) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(2) << seconds * 1e6;
  return s.str();
}

std::string format_gbs(double bytes, double seconds) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(1) << (seconds > 0 ? bytes / seconds / 1e9 : 0.0);
  return s.str();
}

int run_adi(const RunAdiArgs& a) {
  adi::SolverConfig config;
  config.n = a.size;
  config.ny = a.rows;
  config.variant = *adi::parse_variant(a.variant);
  config.block_solver = *adi::parse_block_solver(a.solver);
  config.partition_cells = a.partition_cells;
  config.precision = *adi::parse_precision(a.precision);
  if (const std::string why = adi::validate(config); !why.empty()) {
    std::cerr << "warpmodel run-adi: " << why << "\n";
    return kExitBadInput;
  }
  if (a.steps < 1) {
    std::cerr << "warpmodel run-adi: --steps must be >= 1\n";
    return kExitBadInput;
  }
  try {
    support::cuda::require_gpu();
  } catch (const support::cuda::NoGpuError& e) {
    std::cerr << "warpmodel run-adi: " << e.what() << "\n";
    return kExitNoGpu;
  }
  std::unique_ptr<energy::NvmlPower> nvml;
  if (a.energy) {  // before anything runs: NVML must be there
    nvml = nvml_for_current_device();
    if (!nvml->available()) {
      std::cerr << "warpmodel run-adi: --energy: " << nvml->why_unavailable() << "\n";
      return kExitNoGpu;
    }
  }
  adi::TimedRun run;
  std::vector<FieldCheck> checks;
  std::optional<EnergyReport> energy;
  double graph_step_seconds = 0;
  bool graph_same_state = false;
  try {
    adi::GpuSolver solver(config);
    const adi::State<double> initial = adi::make_hump_state(config.n, config.rows());
    solver.step();  // warm-up: module load, caches; then start over from the initial state
    solver.upload(initial);
    run = adi::run_timed(solver, a.steps);
    const adi::State<double> final_state = solver.download();
    if (a.check) checks = check_against_cpu(final_state, a.steps, config.precision == adi::Precision::Double);
    // The same run again through CUDA graphs (no launch gaps; no per-kernel times inside a graph): it
    // must end in the same state, to the bit.
    solver.upload(initial);
    graph_step_seconds = adi::run_graph_timed(solver, a.steps);
    const adi::State<double> graph_state = solver.download();
    graph_same_state = graph_state.zeta == final_state.zeta && graph_state.p == final_state.p &&
                       graph_state.q_old == final_state.q_old && graph_state.q_new == final_state.q_new;
    if (nvml) {
      // The energy of --steps steps through the graphs (the timed run above), from the initial state.
      solver.upload(initial);
      solver.capture_run_graphs();
      energy = measure_region_energy(
          *nvml, [&] { solver.run(a.steps); solver.synchronize(); }, a.steps,
          double(config.n) * double(config.rows()), a.energy_samples);
    }
  } catch (const support::cuda::CudaError& e) {
    std::cerr << "warpmodel run-adi: CUDA error: " << e.what() << "\n";
    return kExitInternal;
  } catch (const std::runtime_error& e) {  // the energy counter stopped answering
    std::cerr << "warpmodel run-adi: --energy: " << e.what() << "\n";
    return kExitNoGpu;
  }

  const std::string label = adi::variant_label(config);
  std::cout << "run-adi: " << label << ", " << a.precision << ", " << config.n << " x " << config.rows() << ", " << a.steps
            << " steps (dx " << config.physics.dx << " m, dt " << config.physics.dt << " s), " << run.gpu_name << "\n";
  std::cout << std::left << std::setw(20) << "kernel" << std::right << std::setw(12) << "mean (us)" << std::setw(14)
            << "median (us)" << std::setw(12) << "eff. GB/s" << std::setw(9) << "share" << "\n";
  const adi::KernelTiming& step = run.kernels.back();
  for (const auto& k : run.kernels) {
    std::ostringstream share;
    share << std::fixed << std::setprecision(1) << 100.0 * k.mean_seconds / step.mean_seconds << " %";
    std::cout << std::left << std::setw(20) << k.name << std::right << std::setw(12) << format_us(k.mean_seconds)
              << std::setw(14) << format_us(k.median_seconds) << std::setw(12)
              << format_gbs(k.effective_bytes, k.median_seconds) << std::setw(9) << share.str() << "\n";
  }
  std::cout << "time per step: " << format_us(step.mean_seconds) << " us mean, " << format_us(step.median_seconds)
            << " us median; effective bandwidth " << format_gbs(step.effective_bytes, step.median_seconds)
            << " GB/s (sum over kernels, " << step.effective_bytes / 1e6 << " MB per step), state only "
            << format_gbs(run.state_bytes, step.median_seconds) << " GB/s (" << run.state_bytes / 1e6 << " MB)\n";
  std::cout << "through CUDA graphs (two steps a graph, GpuSolver::run): " << format_us(graph_step_seconds)
            << " us per step (mean over the " << a.steps << " steps), state only "
            << format_gbs(run.state_bytes, graph_step_seconds) << " GB/s; final state "
            << (graph_same_state ? "identical to the run above" : "DIFFERENT from the run above (FAILED)") << "\n";
  if (energy) std::cout << energy->summary << " (" << config.n << " x " << config.rows() << " cells a step)\n";
  bool all_passed = graph_same_state;
  for (const auto& c : checks) {
    std::cout << "check " << c.field << ": max |gpu - cpu| = " << c.max_abs << " (field max " << c.max_ref << ") "
              << (c.passed ? "ok" : "FAILED") << "\n";
    all_passed = all_passed && c.passed;
  }

  if (!a.output.empty()) {
    nlohmann::json j;
    j["schema"] = "warpmodel.adi-run/1";
    j["command"] = a.command;
    j["gpu"] = run.gpu_name;
    j["provenance"] = run_provenance(run.gpu_name, a.command);
    j["variant"] = a.variant;
    if (config.variant == adi::Variant::BlockPerLine) j["solver"] = a.solver;
    if (config.variant == adi::Variant::Partitioned || adi::is_fused_family(config.variant))
      j["partition_cells"] = a.partition_cells;
    j["precision"] = a.precision;
    j["n"] = config.n;
    j["ny"] = config.rows();
    j["steps"] = a.steps;
    j["physics"] = {{"dx", config.physics.dx}, {"dy", config.physics.dy}, {"dt", config.physics.dt},
                    {"g", config.physics.g}, {"manning", config.physics.manning}};
    j["state_bytes_per_step"] = run.state_bytes;
    for (const auto& k : run.kernels)
      j["kernels"].push_back({{"name", k.name},
                              {"mean_s", k.mean_seconds},
                              {"median_s", k.median_seconds},
                              {"min_s", k.min_seconds},
                              {"effective_bytes", k.effective_bytes}});
    j["graph"] = {{"mean_step_s", graph_step_seconds}, {"same_final_state", graph_same_state}};
    if (energy) j["energy"] = energy->json;
    for (const auto& c : checks)
      j["check"].push_back({{"field", c.field}, {"max_abs", c.max_abs}, {"max_ref", c.max_ref}, {"passed", c.passed}});
    try {
      write_file_atomically(a.output, j.dump(2) + "\n");
    } catch (const std::exception& e) {
      std::cerr << "warpmodel run-adi: " << e.what() << "\n";
      return kExitBadInput;
    }
  }
  return all_passed ? kExitOk : kExitInternal;
}
#else
int run_adi(const RunAdiArgs&) {
  return no_cuda_in_this_build("run-adi");
}
#endif

}  // namespace

void add_adi_commands(CLI::App& app, Action& action) {
  auto args = std::make_shared<RunAdiArgs>();
  CLI::App* c = app.add_subcommand("run-adi",
                                   "run the ADI shallow-water solver (MIKE 21 HD style) on the GPU and time each "
                                   "kernel of a step (GPU subcommand)");
  c->add_option("--size", args->size, "cells per side (per row), a multiple of 32 (block-per-line: <= 1024)")
      ->check(integer_at_least(32));
  c->add_option("--rows", args->rows, "rows of a non-square grid, a multiple of 32 (fused and fused-cluster only; default: --size)")
      ->check(integer_at_least(32));
  c->add_option("--steps", args->steps, "time steps (default 100)")->check(integer_at_least(1));
  c->add_option("--variant", args->variant,
                "thread-per-line (S1, Thomas), block-per-line (S2), partitioned (many threads per line), fused "
                "(build and partitioned solve in one kernel per sweep, no coefficient arrays) or fused-cluster "
                "(fused without transposes: the y-sweep by thread-block clusters; rows a multiple of 64, <= 4096)")
      ->check(CLI::IsMember({"thread-per-line", "block-per-line", "partitioned", "fused", "fused-cluster"}));
  c->add_option("--partition-cells", args->partition_cells,
                "partitioned: cells per thread, 8 or 16; fused: 4, 8 or 16; fused-cluster: 8 (default 8)")
      ->check(CLI::IsMember({4, 8, 16}));
  c->add_option("--solver", args->solver, "block-per-line solver: pcr or cr-pcr (default cr-pcr)")
      ->check(CLI::IsMember({"pcr", "cr-pcr"}));
  c->add_option("--precision", args->precision, "double or single")->check(CLI::IsMember({"double", "single"}));
  c->add_flag("--check", args->check, "compare the final state with the CPU reference (slow for large sizes)");
  c->add_flag("--energy", args->energy,
              "also measure the energy of --steps steps through the graphs with NVML: J per step, points per joule, "
              "mean W, efficiency, over --energy-samples readings with 95 % intervals (docs/energy.md)");
  c->add_option("--energy-samples", args->energy_samples, "readings of the energy counter (default 30, as seed 004)")
      ->check(integer_in(2, 10000));
  c->add_option("-o,--output", args->output, "also write the run as JSON to this file (written atomically)")
      ->check(path_name());
  c->callback([&action, args] {
    args->command = support::this_process_command_line();
    action = [args] {
      check_output(args->output, {});  // before the GPU is touched, in every build
      return run_adi(*args);
    };
  });
}

}  // namespace warpmodel::cli
