#include "warpmodel/fwi/inversion.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace warpmodel::fwi {

// --- the update kernels ---

ShotRecord residual(const ShotRecord& modelled, const ShotRecord& observed) {
  if (modelled.nt != observed.nt || modelled.receivers != observed.receivers)
    throw std::invalid_argument("the observed gather does not match the modelled one");
  ShotRecord r = modelled;
  for (std::size_t k = 0; k < r.samples.size(); ++k) r.samples[k] -= observed.samples[k];
  return r;
}

void acumulador(const std::vector<double>& g, std::vector<double>& sum) {
  for (std::size_t c = 0; c < g.size(); ++c) sum[c] += g[c];
}

double paral_max(const std::vector<double>& g) {
  double m = 0;
  for (double v : g) m = std::max(m, std::fabs(v));
  return m;
}

void grad_scal(std::vector<double>& g, double k) {
  for (double& v : g) v *= k;
}

double scale_grad(const std::vector<double>& a, const std::vector<double>& b) {
  double sum = 0;
  for (std::size_t c = 0; c < a.size(); ++c) sum += a[c] * b[c];
  return sum;
}

void new_model(const std::vector<double>& c, const std::vector<double>& direction, double t, double v_min, double v_max,
               std::vector<double>& out) {
  out.resize(c.size());
  for (std::size_t k = 0; k < c.size(); ++k) out[k] = std::clamp(c[k] + t * direction[k], v_min, v_max);
}

// --- misfit and gradient ---

namespace {
double half_squared_norm(const ShotRecord& r) {
  double sum = 0;
  for (double v : r.samples) sum += v * v;
  return 0.5 * sum;
}

void check_observed(const Experiment& s, const std::vector<ShotRecord>& observed) {
  if (observed.size() != s.acquisition.source_i.size())
    throw std::invalid_argument("observed data for " + std::to_string(observed.size()) + " shots, the acquisition has " +
                                std::to_string(s.acquisition.source_i.size()));
}
}  // namespace

std::vector<ShotRecord> model_data(const Experiment& s, const Cpml& cpml, const std::vector<double>& velocity) {
  std::vector<ShotRecord> data;
  for (int shot = 0; shot < static_cast<int>(s.acquisition.source_i.size()); ++shot)
    data.push_back(model_shot(s, cpml, velocity, shot));
  return data;
}

double misfit(const Experiment& s, const Cpml& cpml, const std::vector<double>& velocity,
              const std::vector<ShotRecord>& observed) {
  check_observed(s, observed);
  double e = 0;
  for (int shot = 0; shot < static_cast<int>(observed.size()); ++shot)
    e += half_squared_norm(residual(model_shot(s, cpml, velocity, shot), observed[shot]));
  return e;
}

double misfit_and_gradient(const Experiment& s, const Cpml& cpml, const std::vector<double>& velocity,
                           const std::vector<ShotRecord>& observed, std::vector<double>& gradient) {
  check_observed(s, observed);
  gradient.assign(s.grid.size(), 0.0);
  std::vector<double> shot_gradient(s.grid.size());
  Film film;
  double e = 0;
  for (int shot = 0; shot < static_cast<int>(observed.size()); ++shot) {
    const ShotRecord r = residual(model_shot(s, cpml, velocity, shot, &film), observed[shot]);
    e += half_squared_norm(r);
    std::fill(shot_gradient.begin(), shot_gradient.end(), 0.0);
    adjoint_shot(s, cpml, velocity, shot, film, r, shot_gradient);
    acumulador(shot_gradient, gradient);
  }
  return e;
}

// --- models ---

std::vector<double> layered_model(const Grid& g, const CpmlParameters& cpml) {
  const Interior in = interior(g, cpml);
  const double depth = in.j1 - in.j0;  // interior rows below the surface
  std::vector<double> v(g.size());
  for (int j = 0; j < g.nz; ++j)
    for (int i = 0; i < g.nx; ++i) {
      // Depth below the first interior row, as a fraction of the interior; the layers run on into
      // the CPML (left, right and below) unchanged.
      const double z = (j - in.j0) / depth;
      const double across = std::clamp((i - in.i0) / double(in.i1 - in.i0), 0.0, 1.0);
      const double dipping = 0.55 + 0.15 * across;
      double c = 1800;
      if (z >= 0.22) c = 2200;
      if (z >= 0.40) c = 2700;
      if (z >= dipping) c = 3300;
      v[g.index(i, j)] = c;
    }
  return v;
}

std::vector<double> smoothed(const Grid& g, const std::vector<double>& model, int radius) {
  if (model.size() != g.size()) throw std::invalid_argument("the model does not match the grid");
  std::vector<double> out(model.size());
  for (int j = 0; j < g.nz; ++j)
    for (int i = 0; i < g.nx; ++i) {
      double sum = 0;
      int count = 0;
      for (int jj = std::max(0, j - radius); jj <= std::min(g.nz - 1, j + radius); ++jj)
        for (int ii = std::max(0, i - radius); ii <= std::min(g.nx - 1, i + radius); ++ii) {
          sum += model[g.index(ii, jj)];
          ++count;
        }
      out[g.index(i, j)] = sum / count;
    }
  return out;
}

ModelError model_error(const Grid& g, const CpmlParameters& cpml, const std::vector<double>& model,
                       const std::vector<double>& truth) {
  const Interior in = interior(g, cpml);
  double diff = 0, norm = 0;
  std::size_t n = 0;
  for (int j = in.j0; j < in.j1; ++j)
    for (int i = in.i0; i < in.i1; ++i) {
      const std::size_t c = g.index(i, j);
      diff += (model[c] - truth[c]) * (model[c] - truth[c]);
      norm += truth[c] * truth[c];
      ++n;
    }
  return {std::sqrt(diff / double(n)), std::sqrt(diff / norm)};
}

// --- the inversion ---

InversionResult invert(const Experiment& s, const std::vector<double>& start, const std::vector<ShotRecord>& observed,
                       const InversionOptions& o, const std::vector<double>* truth,
                       const std::function<void(const IterationRecord&)>& on_iteration) {
  if (start.size() != s.grid.size()) throw std::invalid_argument("the starting model does not match the grid");
  if (truth && truth->size() != s.grid.size()) throw std::invalid_argument("the true model does not match the grid");
  if (!(o.v_min > 0 && o.v_min < o.v_max)) throw std::invalid_argument("the velocity range must have 0 < v_min < v_max");
  validate(s, o.v_max);
  const Cpml cpml = make_cpml(s);  // once: v_max of eq 2.22 is fixed (the study's reorganised version)
  const Grid& g = s.grid;
  // The update's mask: the interior below the muted rows.
  const Interior in = interior(g, s.cpml);
  std::vector<double> mask(g.size(), 0.0);
  for (int j = std::max(in.j0, o.mute_rows + 1); j < in.j1; ++j)
    for (int i = in.i0; i < in.i1; ++i) mask[g.index(i, j)] = 1.0;

  InversionResult result;
  std::vector<double> gradient, direction(g.size(), 0.0), trial, best;
  new_model(start, direction, 0.0, o.v_min, o.v_max, result.velocity);  // the start, projected
  double e0 = misfit_and_gradient(s, cpml, result.velocity, observed, gradient);
  IterationRecord first;
  first.misfit = e0;
  if (truth) first.error = model_error(g, s.cpml, result.velocity, *truth);
  result.history.push_back(first);
  if (on_iteration) on_iteration(first);
  double step = 0;  // t of the last accepted step; 0: none yet
  for (int it = 1; it <= o.iterations; ++it) {
    for (std::size_t c = 0; c < g.size(); ++c) direction[c] = -mask[c] * gradient[c];
    const double largest = paral_max(direction);
    if (!(largest > 0)) {
      result.stopped = "the gradient vanished";
      break;
    }
    const double slope = scale_grad(gradient, direction);  // dE/dt at t = 0, < 0
    double t1 = step > 0 ? step : o.first_step / largest;
    IterationRecord rec;
    rec.iteration = it;
    double best_t = 0, best_e = e0;
    if (o.fixed_step) {
      best_t = o.first_step / largest;
      new_model(result.velocity, direction, best_t, o.v_min, o.v_max, best);
    }
    for (int halving = 0; halving <= o.max_halvings && best_t == 0; ++halving, t1 *= 0.5) {
      new_model(result.velocity, direction, t1, o.v_min, o.v_max, trial);
      const double e1 = misfit(s, cpml, trial, observed);
      ++rec.misfit_evaluations;
      if (e1 < best_e) best_t = t1, best_e = e1, best = trial;
      // The parabola through E(0), E'(0) and E(t1); its minimum, when it has one, within [t1/8, 8 t1].
      const double curvature = (e1 - e0 - slope * t1) / (t1 * t1);
      if (curvature > 0) {
        const double t_star = std::clamp(-slope / (2 * curvature), t1 / 8, 8 * t1);
        new_model(result.velocity, direction, t_star, o.v_min, o.v_max, trial);
        const double e_star = misfit(s, cpml, trial, observed);
        ++rec.misfit_evaluations;
        if (e_star < best_e) best_t = t_star, best_e = e_star, best = trial;
      }
    }
    if (best_t == 0) {
      result.stopped = "the line search found no decrease";
      break;
    }
    rec.step = step = best_t;
    for (std::size_t c = 0; c < g.size(); ++c)
      rec.max_update = std::max(rec.max_update, std::fabs(best[c] - result.velocity[c]));
    result.velocity.swap(best);
    e0 = misfit_and_gradient(s, cpml, result.velocity, observed, gradient);
    rec.misfit = e0;
    if (truth) rec.error = model_error(g, s.cpml, result.velocity, *truth);
    result.history.push_back(rec);
    if (on_iteration) on_iteration(rec);
  }
  return result;
}

}  // namespace warpmodel::fwi
