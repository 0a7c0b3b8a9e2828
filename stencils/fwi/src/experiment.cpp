#include "warpmodel/fwi/experiment.hpp"

#include <cmath>
#include <cstdio>
#include <numbers>
#include <stdexcept>
#include <string>

namespace warpmodel::fwi {
namespace {
std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", v);
  return text;
}
}  // namespace

Interior interior(const Grid& g, const CpmlParameters& cpml) {
  return {cpml.width, g.nx - cpml.width, cpml.top ? cpml.width : 1, g.nz - cpml.width};
}

Acquisition surface_acquisition(const Grid& g, int cpml_width, int shots, int depth_row) {
  Acquisition a;
  a.source_j = a.receiver_j = depth_row;
  const int i0 = cpml_width, i1 = g.nx - cpml_width;  // interior columns [i0, i1)
  for (int s = 0; s < shots; ++s) {
    // Evenly spread, a half interval in from each side: 5 shots over 170 columns at 37, 71, ...
    const double at = i0 + (s + 0.5) * double(i1 - i0) / shots;
    a.source_i.push_back(static_cast<int>(std::floor(at)));
  }
  for (int i = i0; i < i1; ++i) a.receiver_i.push_back(i);
  return a;
}

double courant_number(const Experiment& s, double velocity) { return velocity * s.time.dt / s.grid.h; }

void validate(const Experiment& s, double max_velocity) {
  const Grid& g = s.grid;
  auto fail = [](const std::string& why) { throw std::invalid_argument(why); };
  if (s.cpml.width < 2) fail("the CPML must be at least 2 points wide (got " + std::to_string(s.cpml.width) + ")");
  if (!(g.h > 0) || !std::isfinite(g.h)) fail("the grid spacing must be > 0");
  if (!(s.time.dt > 0) || !std::isfinite(s.time.dt)) fail("dt must be > 0");
  if (s.time.nt < 1) fail("nt must be >= 1");
  if (!(s.frequency > 0) || !std::isfinite(s.frequency)) fail("the source frequency must be > 0");
  if (!(s.cpml.reflection > 0 && s.cpml.reflection < 1)) fail("the CPML's nominal reflection must be in (0, 1)");
  if (!(s.cpml_velocity > 0) || !std::isfinite(s.cpml_velocity)) fail("the CPML velocity must be > 0");
  const Interior in = interior(g, s.cpml);
  if (in.i1 - in.i0 < 3 || in.j1 - in.j0 < 3)
    fail("grid " + std::to_string(g.nx) + "x" + std::to_string(g.nz) + " leaves fewer than 3 x 3 points inside a " +
         std::to_string(s.cpml.width) + "-point CPML");
  const Acquisition& a = s.acquisition;
  if (a.source_i.empty()) fail("no shots");
  if (a.receiver_i.empty()) fail("no receivers");
  auto inside = [&](int i, int j) { return i >= in.i0 && i < in.i1 && j >= in.j0 && j < in.j1; };
  for (int i : a.source_i)
    if (!inside(i, a.source_j))
      fail("source (" + std::to_string(i) + "," + std::to_string(a.source_j) + ") is not inside the CPML's interior");
  for (int i : a.receiver_i)
    if (!inside(i, a.receiver_j))
      fail("receiver (" + std::to_string(i) + "," + std::to_string(a.receiver_j) + ") is not inside the CPML's interior");
  if (!(max_velocity > 0) || !std::isfinite(max_velocity)) fail("the velocities must be > 0");
  const double G = courant_number(s, max_velocity);
  if (G > 1.0 / std::numbers::sqrt2)
    fail("G = c dt / h = " + number(G) + " at " + number(max_velocity) + " m/s breaks eq 2.12 (G <= 0.7071): dt must be " +
         "at most " + number(g.h / (std::numbers::sqrt2 * max_velocity)) + " s");
}

double ricker(double t, double f) {
  const double a = std::numbers::pi * std::numbers::pi * f * f * t * t;
  return (1.0 - 2.0 * a) * std::exp(-a);
}

double source_sample(const Experiment& s, int n) { return ricker(n * s.time.dt - 1.0 / s.frequency, s.frequency); }

}  // namespace warpmodel::fwi
