// The adjoint-state gradient (eq 2.3, propagator.hpp's transposed step) is the gradient of the
// discrete misfit (eq 2.1): against central finite differences of the misfit at single grid points
// (the interior, under the sources, inside the side, bottom and corner layers) and along a random
// direction over the whole model.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "fwi_cases.hpp"

namespace warpmodel::fwi {
namespace {

struct GradientCase {
  Experiment s = test::small_experiment(48, 36, 10, 250, 2);
  Cpml cpml = make_cpml(s);
  std::vector<double> truth = layered_model(s.grid, s.cpml);
  std::vector<double> model = smoothed(s.grid, truth, 3);
  std::vector<ShotRecord> observed = model_data(s, cpml, truth);
  std::vector<double> gradient;
  double e = misfit_and_gradient(s, cpml, model, observed, gradient);

  // (E(m + eps d) - E(m - eps d)) / (2 eps)
  double central_difference(const std::vector<double>& d, double eps) const {
    std::vector<double> plus = model, minus = model;
    for (std::size_t c = 0; c < d.size(); ++c) plus[c] += eps * d[c], minus[c] -= eps * d[c];
    return (misfit(s, cpml, plus, observed) - misfit(s, cpml, minus, observed)) / (2 * eps);
  }
};

TEST(Gradient, MatchesFiniteDifferencesAtGridPoints) {
  const GradientCase k;
  ASSERT_GT(k.e, 0.0);
  const int source_i = k.s.acquisition.source_i[0];
  const struct {
    const char* where;
    int i, j;
  } points[] = {{"interior", 24, 18}, {"below a source", source_i, 3}, {"left layer", 5, 14},
                {"bottom layer", 24, 31}, {"bottom-right corner", 43, 32}};
  double worst = 0;
  for (const auto& p : points) {
    std::vector<double> d(k.s.grid.size(), 0.0);
    const std::size_t c = k.s.grid.index(p.i, p.j);
    d[c] = 1.0;
    const double fd = k.central_difference(d, 1.0);  // 1 m/s on about 2000
    const double error = std::fabs(k.gradient[c] - fd) / std::fabs(fd);
    std::printf("[fwi] gradient at (%d,%d), %s: adjoint %.6e, finite difference %.6e, relative error %.2e\n", p.i, p.j,
                p.where, k.gradient[c], fd, error);
    EXPECT_LE(error, 0.01) << p.where;
    worst = std::max(worst, error);
  }
  std::printf("[fwi] gradient against central differences: worst relative error %.2e %%\n", 100 * worst);
}

TEST(Gradient, MatchesTheDirectionalDerivative) {
  const GradientCase k;
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> d(k.s.grid.size());
  for (double& v : d) v = u(rng);
  double adjoint = 0;
  for (std::size_t c = 0; c < d.size(); ++c) adjoint += k.gradient[c] * d[c];
  const double fd = k.central_difference(d, 0.5);
  const double error = std::fabs(adjoint - fd) / std::fabs(fd);
  std::printf("[fwi] directional derivative along a random direction: adjoint %.6e, finite difference %.6e, "
              "relative error %.2e\n", adjoint, fd, error);
  EXPECT_LE(error, 0.01);
}

// Outside the layers the gradient is the study's: eq 2.3 (Algorithm 1 line 32) cross-correlates the
// back-propagated residual with d2P/dt2, so it vanishes where the forward field never arrived.
TEST(Gradient, VanishesWhereTheWaveNeverArrived) {
  Experiment s = test::small_experiment(120, 36, 10, 60, 1);  // 0.24 s: the wave travels < 25 points
  s.acquisition = {{30}, 2, {30}, 2};
  const Cpml cpml = make_cpml(s);
  const std::vector<double> truth = layered_model(s.grid, s.cpml), model = smoothed(s.grid, truth, 3);
  std::vector<double> g;
  misfit_and_gradient(s, cpml, model, model_data(s, cpml, truth), g);
  double near = 0, far = 0;
  for (int j = 1; j < s.grid.nz - 1; ++j) {
    for (int i = 20; i < 40; ++i) near = std::max(near, std::fabs(g[s.grid.index(i, j)]));
    for (int i = 80; i < 110; ++i) far = std::max(far, std::fabs(g[s.grid.index(i, j)]));
  }
  EXPECT_GT(near, 0.0);
  EXPECT_EQ(far, 0.0);
}

}  // namespace
}  // namespace warpmodel::fwi
