#include "warpmodel/fwi/cpml.hpp"

#include <cmath>
#include <numbers>

namespace warpmodel::fwi {
namespace {

// n points along the axis; `low` and `high` say whether the first and last `width` carry a layer.
CpmlProfile profile(const Experiment& s, int n, bool low, bool high) {
  const int w = s.cpml.width;
  const double L = w * s.grid.h;
  const double d0 = cpml_d0(s.cpml, s.grid.h);
  CpmlProfile p;
  p.a.assign(n, 0.0);
  p.b.assign(n, 1.0);
  for (int k = 0; k < n; ++k) {
    double x = 0;  // distance into the layer from its inner edge, m
    if (low && k < w)
      x = (w - k) * s.grid.h;
    else if (high && k > n - 1 - w)
      x = (k - (n - 1 - w)) * s.grid.h;
    if (x <= 0) continue;
    const double d = d0 * s.cpml_velocity * (x / L) * (x / L);     // eq 2.22
    const double alpha = std::numbers::pi * s.frequency * (L - x) / L;  // eq 2.23
    const double b = std::exp(-(d + alpha) * s.time.dt);           // eq 2.21
    const double denominator = s.cpml.reading == AqReading::Corrected ? d + alpha : d - alpha;
    p.a[k] = d / denominator * (b - 1.0);  // eq 2.20 (see cpml.hpp for the sign)
    p.b[k] = b;
    if (k >= 1 && k <= n - 2 && p.a[k] != 0.0) p.active.push_back(k);
  }
  return p;
}

}  // namespace

double cpml_d0(const CpmlParameters& p, double h) { return 3.0 * std::log(1.0 / p.reflection) / (2.0 * p.width * h); }

CpmlProfile get_cpml_x_half(const Experiment& s) { return profile(s, s.grid.nx, true, true); }

CpmlProfile get_cpml_z_half(const Experiment& s) { return profile(s, s.grid.nz, s.cpml.top, true); }

double kernel_sum(double a, double b) { return a / (1.0 - b); }

}  // namespace warpmodel::fwi
