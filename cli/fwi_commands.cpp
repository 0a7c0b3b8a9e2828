// `warpmodel run-fwi`: the 2D acoustic full-waveform inversion with CPML (stencils/fwi,
// docs/fwi.md). Builds the layered model, records its shot gathers (the observed data), starts from
// its smoothed version and runs K iterations of steepest descent with a line search; prints per
// iteration the misfit (eq 2.1) and the model error (||c - c_true|| over the interior).
//   warpmodel run-fwi --cpu [--shots 5] [--iterations 10] [-o history.json]
// The study's size by default (table 4: 210 x 68, h 25 m, 625 steps of 4 ms, 3 Hz, 5 shots, a
// 20-point CPML). Only the CPU reference exists so far: --cpu is required; the GPU variants are
// planned in docs/fwi.md. Bad options: one line, exit 2.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "exit_codes.hpp"
#include "options.hpp"
#include "warpmodel/fwi/inversion.hpp"
#include "warpmodel/json_io.hpp"
#include "warpmodel/support/provenance.hpp"

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
  std::string output;
  std::string command;
};

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
  const double film = 8.0 * (a.nt + 1.0) * a.nx * a.nz;
  if (film > kMaxFilmBytes) {
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

int run_fwi(const RunFwiArgs& a) {
  if (!a.cpu) {
    std::cerr << "warpmodel run-fwi: only the CPU reference exists so far: pass --cpu (the GPU variants are "
                 "planned in docs/fwi.md)\n";
    return kExitBadInput;
  }
  fwi::Experiment s;
  try {
    s = experiment_of(a);
  } catch (const std::invalid_argument& e) {
    std::cerr << "warpmodel run-fwi: " << e.what() << "\n";
    return kExitBadInput;
  }
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

}  // namespace

void add_fwi_commands(CLI::App& app, Action& action) {
  auto a = std::make_shared<RunFwiArgs>();
  CLI::App* c = app.add_subcommand("run-fwi",
                                   "run the 2D acoustic full-waveform inversion with CPML on a layered model: the "
                                   "misfit and the model error per iteration (CPU reference: --cpu)");
  c->add_flag("--cpu", a->cpu, "run the CPU reference (double precision); required until the GPU variants exist");
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
