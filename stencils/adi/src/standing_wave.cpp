#include "warpmodel/adi/standing_wave.hpp"

#include <cmath>
#include <numbers>
#include <stdexcept>

#include "warpmodel/adi/reference.hpp"

namespace warpmodel::adi {

StandingWaveResult run_standing_wave(int cells, double courant, double periods, const StandingWave& wave) {
  if (cells < 2 || courant <= 0 || periods <= 0) throw std::invalid_argument("standing wave: bad resolution");
  const double k = 2.0 * std::numbers::pi / wave.length;
  const double celerity = std::sqrt(wave.g * wave.depth);
  const double omega = k * celerity;
  const double end_time = periods * 2.0 * std::numbers::pi / omega;
  StandingWaveResult r;
  r.cells = cells;
  r.dx = wave.length / cells;
  r.steps = static_cast<int>(std::ceil(end_time / (courant * r.dx / celerity)));
  r.dt = end_time / r.steps;

  PhysicalParameters physics;
  physics.dx = r.dx;
  physics.dy = r.dx;
  physics.dt = r.dt;
  physics.g = wave.g;
  physics.convection = false;
  physics.friction = false;
  physics.linear_depth = true;

  State<double> s;
  s.nx = cells;
  s.ny = 1;
  s.zeta.resize(s.cells());
  s.bed.assign(s.cells(), -wave.depth);
  s.p.assign(s.cells(), 0.0);
  s.q_old.assign(s.cells(), 0.0);
  s.q_new.assign(s.cells(), 0.0);
  for (int j = 0; j < cells; ++j) s.zeta[static_cast<std::size_t>(j)] = 0.5 * wave.height * std::cos(k * (j + 0.5) * r.dx);
  reference_run(s, physics, r.steps);

  for (int j = 0; j < cells; ++j) {
    const double exact = 0.5 * wave.height * std::cos(k * (j + 0.5) * r.dx) * std::cos(omega * end_time);
    r.max_zeta_error = std::max(r.max_zeta_error, std::abs(s.zeta[static_cast<std::size_t>(j)] - exact));
  }
  for (int j = 0; j + 1 < cells; ++j) {
    const double exact = wave.depth * 0.5 * wave.height * (omega / (k * wave.depth)) * std::sin(k * (j + 1) * r.dx) *
                         std::sin(omega * end_time);
    r.max_flux_error = std::max(r.max_flux_error, std::abs(s.p[static_cast<std::size_t>(j)] - exact));
  }
  return r;
}

double observed_order(const std::vector<double>& dx, const std::vector<double>& error) {
  if (dx.size() != error.size() || dx.size() < 2) throw std::invalid_argument("observed_order: need >= 2 points");
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  const double n = static_cast<double>(dx.size());
  for (std::size_t i = 0; i < dx.size(); ++i) {
    if (dx[i] <= 0 || error[i] <= 0) throw std::invalid_argument("observed_order: dx and errors must be > 0");
    const double x = std::log(dx[i]), y = std::log(error[i]);
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
  }
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

}  // namespace warpmodel::adi
