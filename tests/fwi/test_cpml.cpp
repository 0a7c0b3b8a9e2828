// The CPML (eqs 2.17-2.23): its coefficients, what reflects from it, and the reading of eq 2.20.
// The reflection is measured as the study's figure would show it: the pressure near each layer in
// a small model, minus the pressure at the same place and times in a model wide enough that
// nothing comes back from its own boundary within the window. The difference is what the layers
// sent back; it is compared with the largest pressure of the wide run at that point (the incident
// wave).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "fwi_cases.hpp"
#include "warpmodel/fwi/cpml.hpp"
#include "warpmodel/fwi/propagator.hpp"

namespace warpmodel::fwi {
namespace {

using test::constant_model;

struct Reflection {
  double worst = 0;  // max over the watched points of max |p_small - p_wide| / max |p_wide|
  bool finite = true;
  double peak_small = 0;  // max |p| of the small run at the watched points
};

// A constant 2000 m/s medium, the source in the middle of a 60 x 60 interior, a `width`-point
// layer on every side (`top`) or a free surface on top; 1.6 s (400 steps) so that the wave
// reaches every layer and what they return crosses the watched points.
Reflection measure_reflection(AqReading reading, bool top, double nominal_reflection = CpmlParameters{}.reflection,
                              int width = 20) {
  const int inner = 60, margin = 70;
  Experiment small = test::small_experiment(inner + 2 * width, inner + (top ? 2 : 1) * width + (top ? 0 : 1), width, 400, 1);
  small.cpml.top = top;
  small.cpml.reading = reading;
  small.cpml.reflection = nominal_reflection;
  small.cpml_velocity = 2000;
  const Interior in = interior(small.grid, small.cpml);
  const int ci = (in.i0 + in.i1) / 2, cj = (in.j0 + in.j1) / 2;
  small.acquisition = {{ci}, cj, {ci}, cj};
  // Watched: 3 points in from each layer's inner edge, on the source's row or column, and a corner.
  std::vector<std::pair<int, int>> watched = {{in.i0 + 3, cj}, {in.i1 - 4, cj}, {ci, in.j1 - 4}, {in.i0 + 3, in.j1 - 4}};
  if (top) watched.push_back({ci, in.j0 + 3});
  else watched.push_back({ci, 2});  // under the free surface

  Experiment wide = small;
  wide.grid.nx += 2 * margin;
  wide.grid.nz += (top ? 2 : 1) * margin;
  const int shift_z = top ? margin : 0;
  wide.acquisition = {{ci + margin}, cj + shift_z, {ci + margin}, cj + shift_z};
  std::vector<std::size_t> at_small, at_wide;
  for (auto [i, j] : watched) {
    at_small.push_back(small.grid.index(i, j));
    at_wide.push_back(wide.grid.index(i + margin, j + shift_z));
  }
  const ShotRecord p = record_points(small, make_cpml(small), constant_model(small.grid, 2000), 0, at_small);
  Experiment wide_corrected = wide;
  wide_corrected.cpml.reading = AqReading::Corrected;
  const ShotRecord ref = record_points(wide_corrected, make_cpml(wide_corrected), constant_model(wide.grid, 2000), 0, at_wide);
  Reflection r;
  for (int k = 0; k < p.receivers; ++k) {
    double incident = 0, reflected = 0;
    for (int n = 0; n < p.nt; ++n) {
      incident = std::max(incident, std::fabs(ref.at(n, k)));
      reflected = std::max(reflected, std::fabs(p.at(n, k) - ref.at(n, k)));
      r.peak_small = std::max(r.peak_small, std::fabs(p.at(n, k)));
      r.finite = r.finite && std::isfinite(p.at(n, k));
    }
    r.worst = std::max(r.worst, reflected / incident);
  }
  if (!r.finite) r.worst = INFINITY;
  return r;
}

// eq 2.20 as corrected: a <= 0, |a| <= 1 - b, b in (0, 1], the kernel sum -d/(d+alpha) in (-1, 0];
// the layer is where the study puts it (20 points on the left, right and bottom, none on top).
TEST(Cpml, CoefficientsDecayAndAbsorb) {
  Experiment s;
  s.acquisition = surface_acquisition(s.grid, s.cpml.width, 5, 2);
  const Cpml c = make_cpml(s);
  for (const CpmlProfile* p : {&c.x, &c.z})
    for (std::size_t k = 0; k < p->a.size(); ++k) {
      EXPECT_LE(p->a[k], 0.0) << k;
      EXPECT_GT(p->b[k], 0.0) << k;
      EXPECT_LE(p->b[k], 1.0) << k;
      EXPECT_LE(-p->a[k], 1.0 - p->b[k] + 1e-15) << k;
      if (p->a[k] != 0) {
        const double sum = kernel_sum(p->a[k], p->b[k]);
        EXPECT_GE(sum, -1.0) << k;  // -1 on the outer ring, where alpha = 0
        EXPECT_LT(sum, 0.0) << k;
      }
    }
  EXPECT_EQ(c.x.active.size(), 2u * 19u);  // columns 1..19 and 190..208 (0 and 209: the outer ring)
  EXPECT_EQ(c.z.active.size(), 19u);       // rows 48..66: bottom only, eq 2.7's free surface on top
  EXPECT_EQ(c.z.active.front(), 48);
  // The printed reading's kernel sum, d / (alpha - d): positive (amplifying) near the inner edge,
  // and beyond 1 in size around its pole, where d_q crosses alpha_q.
  s.cpml.reading = AqReading::AsPrinted;
  const Cpml printed = make_cpml(s);
  double most_positive = 0, largest = 0;
  for (int i = 1; i < 20; ++i) {
    const double sum = kernel_sum(printed.x.a[i], printed.x.b[i]);
    most_positive = std::max(most_positive, sum);
    largest = std::max(largest, std::fabs(sum));
  }
  std::printf("[fwi] eq 2.20 as printed: kernel sum a/(1-b) up to %+.3g (corrected: in (-1, 0]); largest |sum| %.3g\n",
              most_positive, largest);
  EXPECT_GT(most_positive, 0.0);
  EXPECT_GT(largest, 1.0);
}

// The requirement: what the layers send back is at most 1 % of the incident wave.
TEST(Cpml, ReflectsAtMostOnePercent) {
  const Reflection four_sides = measure_reflection(AqReading::Corrected, true);
  const Reflection surface = measure_reflection(AqReading::Corrected, false);
  std::printf("[fwi] CPML reflection (20 points, R = 1e-4): %.3f %% with a layer on all four sides, %.3f %% "
              "with the free surface on top (of the incident peak, worst of the watched points)\n",
              100 * four_sides.worst, 100 * surface.worst);
  EXPECT_TRUE(four_sides.finite && surface.finite);
  EXPECT_LE(four_sides.worst, 0.01);
  EXPECT_LE(surface.worst, 0.01);
}

// d_0 (eq 2.22) is not in the study: R = 1e-4 is within 25 % of the best of 1e-3 .. 1e-5 at 20 points.
TEST(Cpml, DefaultNominalReflection) {
  double best = 1;
  for (double R : {1e-3, 1e-4, 1e-5}) {
    const Reflection r = measure_reflection(AqReading::Corrected, true, R);
    std::printf("[fwi] CPML reflection, 20 points, four sides, R = %g: %.3f %%\n", R, 100 * r.worst);
    best = std::min(best, r.worst);
  }
  EXPECT_LE(measure_reflection(AqReading::Corrected, true).worst, 1.25 * best);
}

// The measurement sees a boundary that reflects: with d_0 near 0 (R -> 1) the layer is no layer
// and the outer ring (P = 0) sends the wave back.
TEST(Cpml, MeasurementSeesAReflectingBoundary) {
  const Reflection none = measure_reflection(AqReading::Corrected, true, 0.999999);
  std::printf("[fwi] without absorption (R = 0.999999) the same measurement gives %.1f %%\n", 100 * none.worst);
  EXPECT_GT(none.worst, 0.3);
}

// eq 2.20 as printed, d_q / (d_q - alpha_q): it blows up or reflects far more than the corrected one.
TEST(Cpml, PrintedReadingOfAqFails) {
  const Reflection corrected = measure_reflection(AqReading::Corrected, true);
  const Reflection printed = measure_reflection(AqReading::AsPrinted, true);
  if (printed.finite)
    std::printf("[fwi] eq 2.20 as printed: reflection %.3g %% (corrected: %.3f %%), peak |p| %.3g\n",
                100 * printed.worst, 100 * corrected.worst, printed.peak_small);
  else
    std::printf("[fwi] eq 2.20 as printed: the pressure is not finite within 400 steps (corrected: %.3f %%)\n",
                100 * corrected.worst);
  EXPECT_TRUE(!printed.finite || printed.worst > std::max(0.01, 10 * corrected.worst));
}

}  // namespace
}  // namespace warpmodel::fwi
