// CPU side of the stencil application: Fornberg weights, stability limits, and the measured
// convergence order of the spatial operator on a smooth manufactured field.
#include <cmath>
#include <cstdio>
#include <numbers>

#include <gtest/gtest.h>

#include "warpmodel/stencils/acoustic.hpp"

namespace warpmodel::stencils {
namespace {

TEST(FornbergWeights, LowOrdersMatchTheClassicalFormulas) {
  auto w2 = second_derivative_weights(2);
  ASSERT_EQ(w2.size(), 2u);
  EXPECT_NEAR(w2[0], -2.0, 1e-14);
  EXPECT_NEAR(w2[1], 1.0, 1e-14);
  auto w4 = second_derivative_weights(4);
  EXPECT_NEAR(w4[0], -5.0 / 2, 1e-14);
  EXPECT_NEAR(w4[1], 4.0 / 3, 1e-14);
  EXPECT_NEAR(w4[2], -1.0 / 12, 1e-14);
  auto w8 = second_derivative_weights(8);  // -205/72, 8/5, -1/5, 8/315, -1/560
  EXPECT_NEAR(w8[0], -205.0 / 72, 1e-13);
  EXPECT_NEAR(w8[4], -1.0 / 560, 1e-15);
}

// Moments: sum w k^p over -r..r is 0 for p = 0 and 2 for p = 2, and 0 for even p = 4..order.
TEST(FornbergWeights, MomentsForEveryOrder) {
  for (int order = 2; order <= 16; order += 2) {
    const auto w = second_derivative_weights(order);
    for (int p = 0; p <= order; p += 2) {
      long double moment = p == 0 ? w[0] : 0, scale = p == 0 ? std::fabs(w[0]) : 0;
      for (std::size_t k = 1; k < w.size(); ++k) {
        moment += 2.0L * w[k] * std::pow((long double)k, p);
        scale += 2.0L * std::fabs(w[k]) * std::pow((long double)k, p);
      }
      // Relative to the size of the terms: k^16 reaches 2.8e14 at order 16.
      EXPECT_NEAR((double)moment, p == 2 ? 2.0 : 0.0, 1e-13 * (double)scale) << "order " << order << " moment " << p;
    }
  }
  EXPECT_THROW(second_derivative_weights(3), std::invalid_argument);
  EXPECT_THROW(second_derivative_weights(18), std::invalid_argument);
}

// Thesis table 3.2, 3D row: 1/sqrt(3) at order 2, 1/2 at order 4; higher orders are stricter.
TEST(Stability, CourantLimitMatchesTable32AndDecreasesWithOrder) {
  EXPECT_NEAR(courant_limit(2), 1 / std::sqrt(3.0), 1e-14);
  EXPECT_NEAR(courant_limit(4), 0.5, 1e-14);
  for (int order = 4; order <= 16; order += 2) EXPECT_LT(courant_limit(order), courant_limit(order - 2));
}

TEST(Stability, UnstableDtIsRefusedAndZeroPicksOne) {
  PropagationSetup s;
  s.grid = {50, 50, 50, 10.0};
  s.order = 8;
  s.source_i = s.source_j = 25, s.source_k = 10;
  const PropagationSetup auto_dt = validated(s, 4700);
  EXPECT_NEAR(auto_dt.dt, 0.9 * courant_limit(8) * 10.0 / 4700, 1e-15);
  s.dt = 2 * courant_limit(8) * 10.0 / 4700;
  try {
    validated(s, 4700);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("unstable"), std::string::npos);
  }
  s.dt = 0;
  s.source_k = 2;  // inside the order-8 boundary layer
  EXPECT_THROW(validated(s, 4700), std::invalid_argument);
}

// The Laplacian of sin(ax + by + cz) is -(a^2 + b^2 + c^2) sin(...). The error at a point, as h
// halves, must fall as h^order: the fitted slope of log(error) against log(h) is the order.
double measured_order(int order) {
  const auto w = second_derivative_weights_long(order);
  const std::size_t r = w.size() - 1, n = 2 * r + 1;
  // The stencil is centred on a fixed point xc, so the phase (and the error's sign) does not move with h.
  const long double a = 1.1L, b = 0.7L, c = 0.9L, xc = 0.3L;
  // kh between about 0.7 and 0.2: asymptotic, and far above long-double round-off (order 16's error
  // at kh = 0.2 is already near 1e-18, so the high orders use the coarser end).
  const std::vector<long double> hs = order >= 12 ? std::vector<long double>{0.6L, 0.5L, 0.4L}
                                                  : std::vector<long double>{0.4L, 0.3L, 0.2L};
  std::vector<double> log_h, log_err;
  for (long double h : hs) {
    Grid g{n, n, n, static_cast<double>(h)};
    std::vector<long double> f(g.size());
    for (std::size_t k = 0; k < n; ++k)
      for (std::size_t j = 0; j < n; ++j)
        for (std::size_t i = 0; i < n; ++i)
          f[g.index(i, j, k)] = std::sin(a * (xc + ((long double)i - r) * h) + b * (xc + ((long double)j - r) * h) +
                                         c * (xc + ((long double)k - r) * h));
    const long double centre = (a + b + c) * xc;
    const long double exact = -(a * a + b * b + c * c) * std::sin(centre);
    // Grid::h is double; rescale so the operator sees the exact long-double spacing.
    const long double approx = laplacian_at(f, g, w, r, r, r) * (long double)g.h * g.h / (h * h);
    log_h.push_back(std::log((double)h));
    log_err.push_back(std::log((double)std::fabs(approx - exact)));
  }
  // Least-squares slope.
  double mh = 0, me = 0;
  for (std::size_t i = 0; i < hs.size(); ++i) mh += log_h[i], me += log_err[i];
  mh /= hs.size(), me /= hs.size();
  double num = 0, den = 0;
  for (std::size_t i = 0; i < hs.size(); ++i) num += (log_h[i] - mh) * (log_err[i] - me), den += (log_h[i] - mh) * (log_h[i] - mh);
  return num / den;
}

class ConvergenceOrder : public ::testing::TestWithParam<int> {};
TEST_P(ConvergenceOrder, MatchesNominalOrder) {
  const int order = GetParam();
  const double measured = measured_order(order);
  RecordProperty("measured_order", std::to_string(measured));
  std::printf("order %d: measured convergence order %.3f\n", order, measured);
  EXPECT_NEAR(measured, order, 0.35) << "order " << order;
}
INSTANTIATE_TEST_SUITE_P(Orders, ConvergenceOrder, ::testing::Values(2, 4, 6, 8, 12, 16));

TEST(ReferencePropagator, SymmetricSourceGivesSymmetricFieldAndBoundaryStaysZero) {
  PropagationSetup s;
  s.grid = {21, 21, 21, 10.0};
  s.order = 4;
  s.source_i = s.source_j = s.source_k = 10;
  s = validated(s, 2000);
  ReferencePropagator prop(s, constant_velocity(s.grid, 2000));
  prop.run(40);
  const auto& p = prop.pressure();
  const Grid& g = s.grid;
  double peak = 0;
  for (std::size_t k = 0; k < g.nz; ++k)
    for (std::size_t j = 0; j < g.ny; ++j)
      for (std::size_t i = 0; i < g.nx; ++i) {
        const double v = p[g.index(i, j, k)];
        ASSERT_TRUE(std::isfinite(v));
        peak = std::max(peak, std::fabs(v));
        EXPECT_NEAR(v, p[g.index(g.nx - 1 - i, j, k)], 1e-12 * (1 + std::fabs(v)));
        EXPECT_NEAR(v, p[g.index(j, i, k)], 1e-12 * (1 + std::fabs(v)));  // x <-> y symmetry
        if (i < 2 || j < 2 || k < 2 || i >= g.nx - 2 || j >= g.ny - 2 || k >= g.nz - 2) {
          EXPECT_EQ(v, 0.0);
        }
      }
  EXPECT_GT(peak, 0);
}

TEST(VelocityModel, TwoLayersSplitAtHalfDepth) {
  const Grid g{4, 4, 50, 10.0};
  const auto v = two_layer_velocity(g);
  EXPECT_EQ(v[g.index(0, 0, 24)], 1500.0f);
  EXPECT_EQ(v[g.index(3, 3, 25)], 4700.0f);
}

TEST(Ricker, PeakAndZeroCrossings) {
  const double f = 20;
  EXPECT_DOUBLE_EQ(ricker(0, f), 1.0);
  const double t0 = 1 / (std::numbers::pi * f * std::sqrt(2.0));  // 1 - 2 pi^2 f^2 t^2 = 0
  EXPECT_NEAR(ricker(t0, f), 0.0, 1e-15);
  EXPECT_LT(ricker(2 * t0, f), 0);
}

}  // namespace
}  // namespace warpmodel::stencils
