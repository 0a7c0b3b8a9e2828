// `warpmodel run-fwi`: the 2D acoustic full-waveform inversion with CPML (stencils/fwi,
// docs/fwi.md). Builds the layered model, records its shot gathers (the observed data), starts from
// its smoothed version and runs K iterations; prints per iteration the misfit (eq 2.1) and the
// model error (||c - c_true|| over the interior).
//   warpmodel run-fwi --cpu [--shots 5] [--iterations 10] [-o history.json]      the CPU reference
//   warpmodel run-fwi --variant NAME|all [--check] [--energy] [-o run.json]     the GPU variants
// The study's size by default (table 4: 210 x 68, h 25 m, 625 steps of 4 ms, 3 Hz, 5 shots, a
// 20-point CPML). The GPU variants are the study's optimisation phases (gpu_variants.hpp), timed
// (the whole inversion, repeated; each kernel with CUDA events), checked against the CPU reference
// (--check) and energy-measured (--energy). Bad options: one line, exit 2; no GPU: exit 3.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "exit_codes.hpp"
#include "options.hpp"
#include "warpmodel/fwi/gpu_variants.hpp"
#include "warpmodel/fwi/inversion.hpp"
#include "warpmodel/json_io.hpp"
#include "warpmodel/support/provenance.hpp"

#ifdef WARPMODEL_HAVE_FWI_GPU
#include <cmath>

#include "gpu_run_support.hpp"
#include "warpmodel/fwi/gpu/check.hpp"
#include "warpmodel/fwi/gpu/device_fwi.hpp"
#include "warpmodel/support/cuda.hpp"
#include "warpmodel/support/statistics.hpp"
#endif

namespace warpmodel::cli {
namespace {

namespace fwi = warpmodel::fwi;

struct RunFwiArgs {
  bool cpu = false;
  int nx = 210, nz = 68, nt = 625;  // table 4
  double dt = 0.004, h = 25, frequency = 3;
  int cpml = 20;
  bool cpml_top = false;
  int shots = 5, iterations = 10;
  int depth = 2;   // row of the sources and receivers
  int smooth = 4;  // radius of the starting model's moving average, points
  double v_min = 1400, v_max = 4000, first_step = 100;
  int mute_rows = 4;
  bool fixed_step = false;
  std::string variant;  // the GPU variants: a name, a comma-separated list or all
  int repetitions = 3;
  bool check = false;
  bool energy = false;
  int energy_samples = 30;
  std::string output;
  std::string command;
};

// --variant: "all", a name or a comma-separated list, in the study's order of phases.
std::vector<fwi::GpuVariant> parse_variants(const std::string& text) {
  std::vector<fwi::GpuVariant> out;
  if (text == "all") {
    for (const auto& v : fwi::gpu_variants()) out.push_back(v.variant);
    return out;
  }
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = text.find(',', start);
    const std::string name = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const auto v = fwi::parse_gpu_variant(name);
    if (!v) throw std::invalid_argument("--variant '" + name + "': expected all or " + fwi::gpu_variant_names());
    if (std::find(out.begin(), out.end(), *v) == out.end()) out.push_back(*v);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

// One shot's film is (nt + 1) nx nz doubles; refuse what could never be held.
constexpr double kMaxFilmBytes = 4.0 * 1024 * 1024 * 1024;

fwi::Experiment experiment_of(const RunFwiArgs& a) {
  fwi::Experiment s;
  s.grid = {a.nx, a.nz, a.h};
  s.time = {a.nt, a.dt};
  s.frequency = a.frequency;
  s.cpml.width = a.cpml;
  s.cpml.top = a.cpml_top;
  s.cpml_velocity = a.v_max;  // eq 2.22's v_max: fixed for the whole run (a_q, b_q computed once)
  const fwi::Interior in = fwi::interior(s.grid, s.cpml);
  if (in.i1 - in.i0 < 3 || in.j1 - in.j0 < 3)
    throw std::invalid_argument("grid " + std::to_string(a.nx) + "x" + std::to_string(a.nz) +
                                " leaves fewer than 3 x 3 points inside a " + std::to_string(a.cpml) + "-point CPML");
  if (a.shots > in.i1 - in.i0)
    throw std::invalid_argument("--shots " + std::to_string(a.shots) + ": more shots than the " +
                                std::to_string(in.i1 - in.i0) + " interior columns");
  s.acquisition = fwi::surface_acquisition(s.grid, a.cpml, a.shots, a.depth);
  // The CPU reference's film of doubles; the GPU variants' films (floats) are checked against the
  // GPU's free memory (run_fwi_gpu).
  const double film = 8.0 * (a.nt + 1.0) * a.nx * a.nz;
  if (a.cpu && film > kMaxFilmBytes) {
    char gib[32];
    std::snprintf(gib, sizeof gib, "%.4g", film / (1024.0 * 1024 * 1024));
    throw std::invalid_argument(std::string("one shot's film ((nt + 1) nx nz doubles) would take ") + gib +
                                " GiB; at most 4 GiB");
  }
  if (!(a.v_min < a.v_max)) throw std::invalid_argument("--v-min must be below --v-max");
  fwi::validate(s, std::max(a.v_max, 3300.0));  // the clamp's top and the layered model's fastest layer
  if (a.mute_rows + 1 >= in.j1)
    throw std::invalid_argument("--mute-rows " + std::to_string(a.mute_rows) + " leaves no interior row to update");
  return s;
}

nlohmann::json record_json(const fwi::IterationRecord& r, double first_misfit, double seconds) {
  return {{"iteration", r.iteration},
          {"misfit", r.misfit},
          {"misfit_relative", first_misfit > 0 ? r.misfit / first_misfit : 0.0},
          {"model_error_rms", r.error.rms},
          {"model_error_relative", r.error.relative},
          {"max_update", r.max_update},
          {"step", r.step},
          {"line_search_runs", r.misfit_evaluations},
          {"seconds", seconds}};
}

int run_fwi_gpu(const RunFwiArgs& a, const fwi::Experiment& s, const std::vector<fwi::GpuVariant>& variants);

int run_fwi(const RunFwiArgs& a) {
  if (a.cpu == !a.variant.empty()) {
    std::cerr << "warpmodel run-fwi: pass --cpu (the CPU reference) or --variant NAME|all (the GPU variants: "
              << fwi::gpu_variant_names() << "), not " << (a.cpu ? "both" : "neither") << "\n";
    return kExitBadInput;
  }
  fwi::Experiment s;
  std::vector<fwi::GpuVariant> variants;
  try {
    s = experiment_of(a);
    if (!a.cpu) variants = parse_variants(a.variant);
    if (a.cpu && (a.check || a.energy))
      throw std::invalid_argument(std::string(a.check ? "--check" : "--energy") + " goes with --variant (the GPU variants)");
  } catch (const std::invalid_argument& e) {
    std::cerr << "warpmodel run-fwi: " << e.what() << "\n";
    return kExitBadInput;
  }
  if (!a.cpu) return run_fwi_gpu(a, s, variants);
  const auto started = std::chrono::steady_clock::now();
  auto seconds = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(); };
  const fwi::Cpml cpml = fwi::make_cpml(s);
  const std::vector<double> truth = fwi::layered_model(s.grid, s.cpml);
  const std::vector<double> start = fwi::smoothed(s.grid, truth, a.smooth);
  const fwi::Interior in = fwi::interior(s.grid, s.cpml);
  std::printf("run-fwi (CPU reference, double): %dx%d, h %g m, %d steps of %g s, Ricker %g Hz; G = c dt / h <= %.3f "
              "(eq 2.12: <= 0.707)\n",
              s.grid.nx, s.grid.nz, s.grid.h, s.time.nt, s.time.dt, s.frequency,
              fwi::courant_number(s, std::max(a.v_max, 3300.0)));
  std::printf("CPML %d points (left, right, bottom%s), R %g, d0 %.4g /m, v_max %g m/s; %d shots and %zu receivers on "
              "row %d; interior %dx%d\n",
              s.cpml.width, s.cpml.top ? ", top" : "; free surface on top", s.cpml.reflection,
              fwi::cpml_d0(s.cpml, s.grid.h), s.cpml_velocity, a.shots, s.acquisition.receiver_i.size(), a.depth,
              in.i1 - in.i0, in.j1 - in.j0);
  std::printf("layered model (1800/2200/2700/3300 m/s); start: its average over %d x %d points; clamp [%g, %g] m/s; "
              "%s\n",
              2 * a.smooth + 1, 2 * a.smooth + 1, a.v_min, a.v_max,
              a.fixed_step ? "fixed steps (the study's update)" : "steepest descent with a line search");
  const std::vector<fwi::ShotRecord> observed = fwi::model_data(s, cpml, truth);
  std::printf("%9s %14s %10s %16s %10s %14s %6s %9s\n", "iteration", "misfit", "/ start", "model error m/s",
              "relative", "max update m/s", "runs", "seconds");
  fwi::InversionOptions o;
  o.iterations = a.iterations;
  o.v_min = a.v_min;
  o.v_max = a.v_max;
  o.first_step = a.first_step;
  o.mute_rows = a.mute_rows;
  o.fixed_step = a.fixed_step;
  nlohmann::json history = nlohmann::json::array();
  double first_misfit = 0;
  const fwi::InversionResult result = fwi::invert(s, start, observed, o, &truth, [&](const fwi::IterationRecord& r) {
    if (r.iteration == 0) first_misfit = r.misfit;
    const double t = seconds();
    std::printf("%9d %14.6e %10.4f %16.3f %9.3f%% %14.2f %6d %9.2f\n", r.iteration, r.misfit,
                first_misfit > 0 ? r.misfit / first_misfit : 0.0, r.error.rms, 100 * r.error.relative, r.max_update,
                r.misfit_evaluations, t);
    std::fflush(stdout);
    history.push_back(record_json(r, first_misfit, t));
  });
  if (!result.stopped.empty()) std::printf("stopped after %zu iterations: %s\n", result.history.size() - 1, result.stopped.c_str());

  if (!a.output.empty()) {
    nlohmann::json j;
    j["schema"] = "warpmodel.fwi-run/1";
    j["command"] = a.command;
    j["provenance"] = {{"device", "cpu"},
                       {"variant", "cpu-reference"},
                       {"date", support::utc_now()},
                       {"commit", support::source_commit()},
                       {"command", a.command}};
    nlohmann::json shots = nlohmann::json::array();
    for (int i : s.acquisition.source_i) shots.push_back(i);
    j["experiment"] = {{"nx", s.grid.nx},
                       {"nz", s.grid.nz},
                       {"h", s.grid.h},
                       {"nt", s.time.nt},
                       {"dt", s.time.dt},
                       {"frequency", s.frequency},
                       {"cpml", {{"width", s.cpml.width},
                                 {"top", s.cpml.top},
                                 {"reflection", s.cpml.reflection},
                                 {"d0", fwi::cpml_d0(s.cpml, s.grid.h)},
                                 {"velocity", s.cpml_velocity},
                                 {"a_q", "d/(d+alpha) (b-1)"}}},
                       {"source_columns", shots},
                       {"source_row", s.acquisition.source_j},
                       {"receivers", s.acquisition.receiver_i.size()},
                       {"receiver_row", s.acquisition.receiver_j}};
    j["model"] = {{"true", "layered"}, {"start", "moving average"}, {"smooth_radius", a.smooth}};
    j["options"] = {{"iterations", a.iterations}, {"v_min", a.v_min},         {"v_max", a.v_max},
                    {"first_step", a.first_step}, {"mute_rows", a.mute_rows},
                    {"update", a.fixed_step ? "fixed step" : "line search"}};
    j["history"] = history;
    j["stopped"] = result.stopped;
    j["seconds"] = seconds();
    try {
      write_file_atomically(a.output, j.dump(2) + "\n");
    } catch (const std::exception& e) {
      std::cerr << "warpmodel run-fwi: " << e.what() << "\n";
      return kExitBadInput;
    }
    std::printf("wrote the history to %s\n", a.output.c_str());
  }
  return kExitOk;
}

#ifdef WARPMODEL_HAVE_FWI_GPU
// The study's eq 4.1 (MB = 2^20 bytes): the memory of its original FWI, for comparison with what the
// variants allocate.
double study_memory_mb(const fwi::Experiment& s) {
  const double nx = s.grid.nx, nz = s.grid.nz, nt = s.time.nt, ns = double(s.acquisition.source_i.size());
  const double traces = double(s.acquisition.receiver_i.size());
  return 32.0 / (1024.0 * 1024.0 * 8.0) *
         (ns * nt * traces + nt + 11 * nx * nz + nx * nt + 2 * nx * nz * nt + 4 * nx + 4 * nz + nt * traces);
}

std::vector<float> to_float(const std::vector<double>& v) { return {v.begin(), v.end()}; }

nlohmann::json interval_stats(const std::vector<double>& x) {
  const support::Estimate e = support::estimate(x);
  return {{"median", support::median(x)},
          {"mean", e.mean},
          {"min", *std::min_element(x.begin(), x.end())},
          {"max", *std::max_element(x.begin(), x.end())},
          {"runs", x}};
}

int run_fwi_gpu(const RunFwiArgs& a, const fwi::Experiment& s, const std::vector<fwi::GpuVariant>& variants) {
  try {
    support::cuda::require_gpu();
  } catch (const support::cuda::NoGpuError& e) {
    std::cerr << "warpmodel run-fwi: " << e.what() << "\n";
    return kExitNoGpu;
  }
  std::unique_ptr<energy::NvmlPower> nvml;
  if (a.energy) {  // before anything runs: NVML must be there
    nvml = nvml_for_current_device();
    if (!nvml->available()) {
      std::cerr << "warpmodel run-fwi: --energy: " << nvml->why_unavailable() << "\n";
      return kExitNoGpu;
    }
  }
  namespace fg = fwi::gpu;
  const std::string gpu_name = support::cuda::device_name();
  {
    // The most any variant holds: the films of P (nt + 1 frames) and q (nt + 3) and about 20 arrays
    // of the grid, in floats (the original; phase 5 takes the film of q out).
    const double points = double(s.grid.size());
    const double need = 4.0 * points * (2.0 * s.time.nt + 4 + 20);
    std::size_t free_bytes = 0, total_bytes = 0;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess && need > 0.95 * double(free_bytes)) {
      char text[200];
      std::snprintf(text, sizeof text,
                    "the variants need up to %.3g GiB of GPU memory at %dx%d with %d steps (two films of floats); the "
                    "GPU has %.3g GiB free: use fewer --nt or a smaller grid",
                    need / 1073741824.0, s.grid.nx, s.grid.nz, s.time.nt, double(free_bytes) / 1073741824.0);
      std::cerr << "warpmodel run-fwi: " << text << "\n";
      return kExitBadInput;
    }
  }
  const std::vector<double> truth = fwi::layered_model(s.grid, s.cpml);
  const std::vector<double> start = fwi::smoothed(s.grid, truth, a.smooth);
  const std::vector<float> truth_f = to_float(truth), start_f = to_float(start);
  fg::FwiRunOptions o;
  o.iterations = a.iterations, o.first_step = a.first_step, o.v_min = a.v_min, o.v_max = a.v_max;
  o.mute_rows = a.mute_rows;
  const int shots = static_cast<int>(s.acquisition.source_i.size());
  const double steps_per_evaluation = double(shots) * (2.0 * s.time.nt + 1);  // forward nt, adjoint nt + 1
  std::printf("run-fwi (GPU variants, single precision) on the %s: %dx%d, h %g m, %d steps of %g s, Ricker %g Hz; "
              "CPML %d points; %d shots, %zu receivers\n",
              gpu_name.c_str(), s.grid.nx, s.grid.nz, s.grid.h, s.time.nt, s.time.dt, s.frequency, s.cpml.width, shots,
              s.acquisition.receiver_i.size());
  std::printf("%d fixed-step iterations (the study's update, first step %g m/s), timed %d times after a warm-up "
              "evaluation; then one evaluation with CUDA events around every kernel%s\n",
              a.iterations, a.first_step, a.repetitions, a.check ? "; checked against the CPU reference" : "");
  std::fflush(stdout);
  try {
    // The CPU reference (double) for --check: shot 0's gather, and the misfit and gradient at the start.
    std::vector<fwi::ShotRecord> observed_ref;
    std::vector<double> gradient_ref;
    double misfit_ref = 0;
    if (a.check) {
      const fwi::Cpml cpml = fwi::make_cpml(s);
      observed_ref = fwi::model_data(s, cpml, truth);
      misfit_ref = fwi::misfit_and_gradient(s, cpml, start, observed_ref, gradient_ref);
    }
    std::vector<std::vector<float>> observed;
    nlohmann::json rows = nlohmann::json::array();
    // The record, rewritten after every variant so that a run stopped by a time limit keeps the
    // variants it measured ("complete": false until the last one).
    const auto write_run = [&](const nlohmann::json& fast_math, bool complete) {
      if (a.output.empty()) return;
      nlohmann::json j;
      j["schema"] = "warpmodel.fwi-gpu-run/1";
      j["command"] = a.command;
      j["provenance"] = run_provenance(gpu_name, a.command);
      nlohmann::json shot_columns = nlohmann::json::array();
      for (int i : s.acquisition.source_i) shot_columns.push_back(i);
      j["experiment"] = {{"nx", s.grid.nx},     {"nz", s.grid.nz},       {"h", s.grid.h},
                         {"nt", s.time.nt},     {"dt", s.time.dt},       {"frequency", s.frequency},
                         {"cpml", s.cpml.width}, {"cpml_top", s.cpml.top}, {"source_columns", shot_columns},
                         {"receivers", s.acquisition.receiver_i.size()}, {"study_memory_mb", study_memory_mb(s)}};
      j["options"] = {{"iterations", a.iterations}, {"repetitions", a.repetitions}, {"first_step", a.first_step},
                      {"v_min", a.v_min},           {"v_max", a.v_max},             {"mute_rows", a.mute_rows},
                      {"update", "fixed step (the study's)"}, {"precision", "single"}};
      j["timing"] =
          "wall clock (steady_clock) around each whole inversion after a warm-up evaluation, median of the repetitions; "
          "per kernel: CUDA events around every launch of one more evaluation";
      j["variants"] = rows;
      if (!fast_math.is_null()) j["fast_math"] = fast_math;
      j["complete"] = complete;
      write_file_atomically(a.output, j.dump(1) + "\n");
      if (complete) std::printf("wrote the run to %s\n", a.output.c_str());
    };
    std::optional<double> original_seconds;
    std::map<fwi::GpuVariant, double> final_norm;
    bool all_passed = true;
    std::printf("%-20s %-20s %12s %10s %9s %9s %8s %10s %10s %s\n", "variant", "phase", "s/inversion", "s/iter",
                "speedup", "study", "GPU use", "MiB", "misfit", a.check ? "check" : "");
    for (fwi::GpuVariant v : variants) {
      const fwi::GpuVariantInfo& info = fwi::gpu_variant_info(v);
      fg::DeviceFwi f(s, v);
      // The observed data: the first variant's forward model of the layered model, for every variant.
      if (observed.empty()) observed = f.model_data(truth_f);
      f.misfit_and_gradient(start_f, observed, nullptr);  // warm-up: module load, first allocations
      std::vector<double> seconds;
      fg::FwiRunResult result;
      for (int r = 0; r < a.repetitions; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        result = f.invert(start_f, observed, o);
        seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      }
      // One evaluation with every kernel timed: the kernels' share and the GPU's use (kernel time
      // over wall time, the study's "utilización de la GPU"; the events add a little to the wall).
      f.time_kernels(true);
      f.reset_kernel_timings();
      const int launches_before = f.launches();
      const auto t0 = std::chrono::steady_clock::now();
      f.misfit_and_gradient(start_f, observed, nullptr);
      const std::vector<fg::KernelTiming> kernels = f.kernel_timings();
      const double evaluation_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const int launches_per_evaluation = f.launches() - launches_before;
      f.time_kernels(false);
      double kernel_total = 0;
      for (const auto& k : kernels) kernel_total += k.total_seconds;
      const double median = support::median(seconds);
      if (v == fwi::GpuVariant::original) original_seconds = median;
      double norm = 0;
      for (float c : result.velocity) norm += double(c) * c;
      final_norm[v] = std::sqrt(norm);
      nlohmann::json row = {{"variant", info.name},
                            {"phase", info.phase},
                            {"what", info.what},
                            {"block", {info.block_x, info.block_y}},
                            {"study_seconds", info.study_seconds},
                            {"study_speedup", info.study_speedup},
                            {"inversion_seconds", interval_stats(seconds)},
                            {"seconds_per_iteration", median / std::max(a.iterations, 1)},
                            {"evaluation_seconds", evaluation_seconds},
                            {"kernel_seconds_per_evaluation", kernel_total},
                            {"gpu_utilisation", evaluation_seconds > 0 ? kernel_total / evaluation_seconds : 0.0},
                            {"launches_per_evaluation", launches_per_evaluation},
                            {"propagation_steps_per_evaluation", steps_per_evaluation},
                            {"device_bytes_peak", f.peak_bytes()},
                            {"misfit", result.misfit},
                            {"steps", result.steps},
                            {"stopped", result.stopped},
                            {"final_model_l2_norm", final_norm[v]}};
      nlohmann::json kernel_rows = nlohmann::json::array();
      for (const auto& k : kernels)
        kernel_rows.push_back({{"name", k.name},
                               {"calls", k.calls},
                               {"total_s", k.total_seconds},
                               {"mean_s", k.mean_seconds},
                               {"median_s", k.median_seconds},
                               {"share", kernel_total > 0 ? k.total_seconds / kernel_total : 0.0}});
      row["kernels"] = kernel_rows;
      std::string verdict;
      if (a.check) {
        const fg::CheckTolerance tol = fg::check_tolerance(info.fast_math);
        std::vector<float> gradient;
        std::vector<std::vector<float>> observed_cpu;
        for (const auto& r : observed_ref) observed_cpu.push_back(to_float(r.samples));
        const std::vector<std::vector<float>> gathers = f.model_data(truth_f);
        const double e = f.misfit_and_gradient(start_f, observed_cpu, &gradient);
        const fg::CheckResult c = fg::compare(gathers[0], observed_ref[0].samples, e, misfit_ref, gradient, gradient_ref, tol);
        row["check"] = {{"gather_relative_l2", c.gather},       {"misfit_relative", c.misfit},
                        {"gradient_cosine_gap", c.cosine_gap},  {"gradient_norm_relative", c.norm},
                        {"tolerance", {{"gather", tol.gather}, {"misfit", tol.misfit}, {"cosine_gap", tol.cosine_gap},
                                       {"norm", tol.norm}}},
                        {"passed", c.passed}};
        char text[96];
        std::snprintf(text, sizeof text, "%s (gather %.1e, misfit %.1e, 1-cos %.1e)", c.passed ? "ok" : "FAILED", c.gather,
                      c.misfit, c.cosine_gap);
        verdict = text;
        all_passed = all_passed && c.passed;
      }
      if (nvml) {
        const EnergyReport e = measure_region_energy(
            *nvml, [&] { f.misfit_and_gradient(start_f, observed, nullptr); }, steps_per_evaluation,
            double(s.grid.size()), a.energy_samples);
        row["energy"] = e.json;
        row["energy"]["region"] = "one gradient evaluation (every shot forward and back; the model and the observed data uploaded first)";
        verdict += (verdict.empty() ? "" : "; ") + e.summary;
      }
      char speedup[32] = "-";
      if (original_seconds) std::snprintf(speedup, sizeof speedup, "%.3fx", *original_seconds / median);
      if (original_seconds) row["speedup_over_original"] = *original_seconds / median;
      std::printf("%-20s %-20s %12.4f %10.5f %9s %8.3fx %7.1f%% %10.2f %10.4g %s\n", info.name, info.phase, median,
                  median / std::max(a.iterations, 1), speedup, info.study_speedup,
                  100.0 * (evaluation_seconds > 0 ? kernel_total / evaluation_seconds : 0.0),
                  double(f.peak_bytes()) / (1024.0 * 1024.0), result.misfit.empty() ? 0.0 : result.misfit.back(),
                  verdict.c_str());
      std::fflush(stdout);
      rows.push_back(row);
      write_run(nullptr, false);
    }
    std::printf("the study's eq 4.1 at this size: %.3f MB (its original; phase 5 takes one film out)\n", study_memory_mb(s));
    nlohmann::json fast_math;
    if (final_norm.count(fwi::GpuVariant::fast_math) && final_norm.count(fwi::GpuVariant::read_only)) {
      const double fm = final_norm[fwi::GpuVariant::fast_math], ro = final_norm[fwi::GpuVariant::read_only];
      std::printf("fast math: the final model's L2 norm %.6g against %.6g without it (%.4f %%; the study's table 27: "
                  "1.7746e4 against 1.7751e4)\n",
                  fm, ro, 100.0 * std::fabs(fm - ro) / ro);
      fast_math = {{"final_norm_fast_math", fm}, {"final_norm_read_only", ro}, {"relative_difference", std::fabs(fm - ro) / ro}};
    }
    write_run(fast_math, true);
    return all_passed ? kExitOk : kExitInternal;
  } catch (const support::cuda::CudaError& e) {
    std::cerr << "warpmodel run-fwi: CUDA error: " << e.what() << "\n";
    return kExitInternal;
  } catch (const std::invalid_argument& e) {
    std::cerr << "warpmodel run-fwi: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const std::runtime_error& e) {  // the energy counter stopped answering
    std::cerr << "warpmodel run-fwi: --energy: " << e.what() << "\n";
    return kExitNoGpu;
  }
}
#else
int run_fwi_gpu(const RunFwiArgs&, const fwi::Experiment&, const std::vector<fwi::GpuVariant>&) {
  return no_cuda_in_this_build("run-fwi --variant");
}
#endif

}  // namespace

void add_fwi_commands(CLI::App& app, Action& action) {
  auto a = std::make_shared<RunFwiArgs>();
  CLI::App* c = app.add_subcommand("run-fwi",
                                   "run the 2D acoustic full-waveform inversion with CPML on a layered model: the "
                                   "misfit and the model error per iteration (CPU reference: --cpu)");
  c->add_flag("--cpu", a->cpu, "run the CPU reference (double precision, the line search unless --fixed-step)");
  c->add_option("--variant", a->variant,
                "run the GPU variants instead (single precision, the study's fixed steps): all, or one or more of " +
                    fwi::gpu_variant_names() + " (comma-separated)");
  c->add_option("--repetitions", a->repetitions, "--variant: timed inversions per variant (default 3; the median is reported)")
      ->check(integer_in(1, 1000));
  c->add_flag("--check", a->check,
              "--variant: compare each variant with the CPU reference: shot 0's gather, the misfit and the gradient at "
              "the start (tolerances in docs/fwi.md); exit 1 when one is outside");
  c->add_flag("--energy", a->energy,
              "--variant: also measure each variant's energy per gradient evaluation with NVML (docs/energy.md)");
  c->add_option("--energy-samples", a->energy_samples, "readings of the energy counter (default 30, as seed 004)")
      ->check(integer_in(2, 10000));
  c->add_option("--nx", a->nx, "grid points in x, the CPML included (default 210, the study's)")->check(integer_in(5, 100000));
  c->add_option("--nz", a->nz, "grid points in z (depth), the CPML included (default 68)")->check(integer_in(5, 100000));
  c->add_option("--nt", a->nt, "time steps (default 625)")->check(integer_in(1, 10000000));
  c->add_option("--dt", a->dt, "time step in s (default 0.004; eq 2.12 must hold at the fastest velocity)")
      ->check(greater_than(0));
  c->add_option("--spacing", a->h, "grid spacing h = dx = dz in m (default 25)")->check(greater_than(0));
  c->add_option("--frequency", a->frequency, "Ricker peak frequency in Hz (default 3)")->check(greater_than(0));
  c->add_option("--cpml", a->cpml, "CPML width in points (default 20)")->check(integer_in(2, 100000));
  c->add_flag("--cpml-top", a->cpml_top, "an absorbing layer on top too, instead of the free surface of eq 2.7");
  c->add_option("--shots", a->shots, "shots, evenly spread over the interior (default 5)")->check(integer_in(1, 100000));
  c->add_option("--iterations", a->iterations, "iterations of the inversion (default 10)")->check(integer_in(0, 100000));
  c->add_option("--depth", a->depth, "row of the sources and receivers (default 2)")->check(integer_in(1, 100000));
  c->add_option("--smooth", a->smooth, "radius in points of the moving average that makes the starting model (default 4)")
      ->check(integer_in(0, 100000));
  c->add_option("--v-min", a->v_min, "lowest velocity of the clamp, m/s (default 1400)")->check(greater_than(0));
  c->add_option("--v-max", a->v_max, "highest velocity of the clamp and the CPML's v_max, m/s (default 4000)")
      ->check(greater_than(0));
  c->add_option("--first-step", a->first_step, "largest change of the first trial step, m/s (default 100)")
      ->check(greater_than(0));
  c->add_option("--mute-rows", a->mute_rows, "rows below the surface left out of the update (default 4)")
      ->check(integer_in(0, 100000));
  c->add_flag("--fixed-step", a->fixed_step,
              "the study's update: every step changes the model by --first-step at most, no line search");
  c->add_option("-o,--output", a->output, "write the history as JSON with its provenance (written atomically)")
      ->check(path_name());
  c->callback([&action, a] {
    a->command = support::this_process_command_line();
    action = [a] {
      check_output(a->output, {});
      return run_fwi(*a);
    };
  });
}

}  // namespace warpmodel::cli
