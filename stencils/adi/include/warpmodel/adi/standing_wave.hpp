// The 1D linear verification problem of the thesis (section 6.6, eqs 6.6.2-6.6.5):
//   zeta_t + h u_x = 0,  u_t + g zeta_x = 0,  h constant,
//   zeta = (H/2) cos(k x) cos(w t),  u = (H/2) (w / (k h)) sin(k x) sin(w t),  w = k sqrt(g h),
// with h = 0.05, H = 0.01, L = 8, k = 2 pi / L ([inferred] w from the dispersion relation of the
// linear equations). The flux of the scheme is p = h u. The basin is one wavelength long, so u = 0
// on both walls, and one cell wide (ny = 1): the y-sweep has single-cell lines, which makes the
// x-sweep plus y-sweep pair exactly Crank-Nicolson in time. It runs through the same code as the 2D
// solver (build_cell, LcElim, Thomas), with convection and friction off and the still-water depth in
// the gravity term (PhysicalParameters::linear_depth).
#pragma once

#include <vector>

namespace warpmodel::adi {

struct StandingWave {
  double depth = 0.05;   // h, m
  double height = 0.01;  // H, m (amplitude H/2)
  double length = 8.0;   // L, m (the basin is one wavelength)
  double g = 9.81;
};

struct StandingWaveResult {
  int cells = 0;
  double dx = 0, dt = 0;
  int steps = 0;
  double max_zeta_error = 0;  // max over cell centres of |zeta - exact| at the final time, m
  double max_flux_error = 0;  // same for p = h u on the interior faces, m^2/s
};

// Runs the problem with `cells` cells for `periods` wave periods with the Courant number
// sqrt(g h) dt / dx ~ courant (dt rounded down so the run ends exactly at the final time).
StandingWaveResult run_standing_wave(int cells, double courant, double periods, const StandingWave& wave = {});

// Least-squares slope of log(error) against log(dx): the observed order of convergence.
double observed_order(const std::vector<double>& dx, const std::vector<double>& error);

}  // namespace warpmodel::adi
