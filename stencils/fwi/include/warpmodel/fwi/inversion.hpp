// The inversion (Algorithm 1 of the study): the misfit E(m) = 1/2 ||F(m) - d||^2 (eq 2.1) over all
// shots, its adjoint-state gradient (eq 2.3) and a projected steepest descent (eq 2.2 with H = I)
// whose step comes from a line search, the model clamped to a plausible velocity range. The small
// kernels of the update keep the study's names:
//   residual     Residual      r = modelled - observed, one shot
//   acumulador   acumulador    g' += g (the sum over shots)
//   paral_max    Paral_max     max |g| (normalises the first trial step)
//   grad_scal    Grad_scal     g = k g
//   scale_grad   scale_grad    the dot product (phase 4): the slope g . d of the line search
//   new_model    New_model     c = clamp(c + t d) (Algorithm 1 line 37, projected)
// The misfit of Algorithm 1 (line 17) adds 1/2 ||r||, not squared; eq 2.1's square is used here,
// the function whose gradient eq 2.3 is.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "warpmodel/fwi/propagator.hpp"

namespace warpmodel::fwi {

// --- the update kernels ---
ShotRecord residual(const ShotRecord& modelled, const ShotRecord& observed);
void acumulador(const std::vector<double>& g, std::vector<double>& sum);
double paral_max(const std::vector<double>& g);
void grad_scal(std::vector<double>& g, double k);
double scale_grad(const std::vector<double>& a, const std::vector<double>& b);
void new_model(const std::vector<double>& c, const std::vector<double>& direction, double t, double v_min, double v_max,
               std::vector<double>& out);

// --- misfit and gradient over all shots ---
std::vector<ShotRecord> model_data(const Experiment& s, const Cpml& cpml, const std::vector<double>& velocity);
double misfit(const Experiment& s, const Cpml& cpml, const std::vector<double>& velocity,
              const std::vector<ShotRecord>& observed);
// E(m), and dE/dc (grid size) summed over the shots.
double misfit_and_gradient(const Experiment& s, const Cpml& cpml, const std::vector<double>& velocity,
                           const std::vector<ShotRecord>& observed, std::vector<double>& gradient);

// --- models ---
// Horizontal layers below the free surface (m/s): 1800 to 22 % of the interior depth, then 2200,
// 2700 to a dipping interface (from 55 % to 70 % of the depth across the model), 3300 below.
std::vector<double> layered_model(const Grid& g, const CpmlParameters& cpml);
// A moving average over (2 radius + 1)^2 points, clipped at the grid's edges: the starting model.
std::vector<double> smoothed(const Grid& g, const std::vector<double>& model, int radius);
struct ModelError {
  double rms = 0;       // m/s, over the interior
  double relative = 0;  // ||c - c_true|| / ||c_true||, interior
};
ModelError model_error(const Grid& g, const CpmlParameters& cpml, const std::vector<double>& model,
                       const std::vector<double>& truth);

// --- the inversion ---
struct InversionOptions {
  int iterations = 10;
  double v_min = 1400, v_max = 4000;  // m/s: the clamp of new_model
  double first_step = 100;            // m/s: the largest change of the first trial step
  // Only the interior is updated (the CPML's velocities stay), and none of the first `mute_rows`
  // rows below the surface, where the sources and receivers imprint the gradient.
  int mute_rows = 4;
  int max_halvings = 8;
  // The study's update instead of the line search (Algorithm 1 lines 34-37): c = c - k g with
  // k = first_step / max |g| (Paral_max, Grad_scal), two propagations per shot per iteration and
  // no more, as in its kernel counts (table 5); the misfit need not fall.
  bool fixed_step = false;
};

struct IterationRecord {
  int iteration = 0;  // 0: the starting model
  double misfit = 0;
  ModelError error;
  double max_update = 0;  // m/s, the largest change this iteration made
  double step = 0;        // t of c + t d
  int misfit_evaluations = 0;  // forward runs of all shots in the line search
};

struct InversionResult {
  std::vector<double> velocity;
  std::vector<IterationRecord> history;
  std::string stopped;  // empty, or why it stopped early
};

// Steepest descent with a line search: E(t) along d = -mask g is fitted by the parabola through
// E(0), its slope g . d (scale_grad) and one trial E(t1); its minimum is tried, and the better of
// the two kept; no decrease halves t1 (at most max_halvings times). The next iteration starts from
// the step accepted. The starting model is clamped first. `truth` (optional) gives the model error; `on_iteration` sees each record.
InversionResult invert(const Experiment& s, const std::vector<double>& start, const std::vector<ShotRecord>& observed,
                       const InversionOptions& options, const std::vector<double>* truth = nullptr,
                       const std::function<void(const IterationRecord&)>& on_iteration = {});

}  // namespace warpmodel::fwi
