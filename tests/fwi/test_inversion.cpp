// The inversion (Algorithm 1) on the layered model, from its smoothed version: the misfit falls
// at every iteration and the recovered model is closer to the true one than the start (L2 norm
// over the interior), with every velocity inside the clamp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "fwi_cases.hpp"

namespace warpmodel::fwi {
namespace {

TEST(Inversion, MisfitFallsAndTheModelApproachesTheTruth) {
  // 100 x 50 with a 15-point CPML (70 x 34 interior points, 1750 m x 850 m), 3 shots, 1.6 s.
  const Experiment s = test::small_experiment(100, 50, 15, 400, 3);
  const Cpml cpml = make_cpml(s);
  const std::vector<double> truth = layered_model(s.grid, s.cpml);
  const std::vector<double> start = smoothed(s.grid, truth, 4);
  const std::vector<ShotRecord> observed = model_data(s, cpml, truth);
  InversionOptions o;
  o.iterations = 6;
  o.v_min = 1500;
  o.v_max = 4000;
  const InversionResult r = invert(s, start, observed, o, &truth, [](const IterationRecord& it) {
    std::printf("[fwi] iteration %d: misfit %.4e, model error %.2f m/s rms (%.3f %% of |c_true|), largest update "
                "%.1f m/s, %d line-search runs\n",
                it.iteration, it.misfit, it.error.rms, 100 * it.error.relative, it.max_update, it.misfit_evaluations);
  });
  ASSERT_TRUE(r.stopped.empty()) << r.stopped;
  ASSERT_EQ(r.history.size(), 7u);
  for (std::size_t k = 1; k < r.history.size(); ++k) EXPECT_LT(r.history[k].misfit, r.history[k - 1].misfit) << k;
  EXPECT_LT(r.history.back().misfit, 0.25 * r.history.front().misfit);
  EXPECT_LT(r.history.back().error.rms, r.history.front().error.rms);
  const ModelError start_error = model_error(s.grid, s.cpml, start, truth);
  const ModelError end_error = model_error(s.grid, s.cpml, r.velocity, truth);
  std::printf("[fwi] misfit %.4e -> %.4e (x %.3f) in %zu iterations; ||c - c_true|| %.2f -> %.2f m/s rms\n",
              r.history.front().misfit, r.history.back().misfit, r.history.back().misfit / r.history.front().misfit,
              r.history.size() - 1, start_error.rms, end_error.rms);
  EXPECT_LT(end_error.rms, start_error.rms);
}

// new_model's clamp holds, the starting model included (projected before the first iteration).
TEST(Inversion, VelocitiesStayInTheClamp) {
  const Experiment s = test::small_experiment(60, 36, 10, 250, 2);
  const Cpml cpml = make_cpml(s);
  const std::vector<double> truth = layered_model(s.grid, s.cpml);
  InversionOptions o;
  o.iterations = 2;
  o.v_min = 2000;  // above the true 1800 m/s
  o.v_max = 3000;  // below the true 3300 m/s
  o.first_step = 400;
  const InversionResult r = invert(s, smoothed(s.grid, truth, 3), model_data(s, cpml, truth), o);
  const auto [lo, hi] = std::minmax_element(r.velocity.begin(), r.velocity.end());
  EXPECT_GE(*lo, 2000.0);
  EXPECT_LE(*hi, 3000.0);
}

// The study's update (no line search): every step moves the model by first_step at most, with no
// line-search runs; on this model the misfit still falls.
TEST(Inversion, FixedStepIsTheStudysUpdate) {
  const Experiment s = test::small_experiment(60, 36, 10, 250, 2);
  const Cpml cpml = make_cpml(s);
  const std::vector<double> truth = layered_model(s.grid, s.cpml);
  InversionOptions o;
  o.iterations = 3;
  o.fixed_step = true;
  o.first_step = 20;
  const InversionResult r = invert(s, smoothed(s.grid, truth, 3), model_data(s, cpml, truth), o);
  ASSERT_EQ(r.history.size(), 4u) << r.stopped;
  for (std::size_t k = 1; k < r.history.size(); ++k) {
    EXPECT_EQ(r.history[k].misfit_evaluations, 0) << k;
    EXPECT_NEAR(r.history[k].max_update, 20.0, 1e-9) << k;
    EXPECT_LT(r.history[k].misfit, r.history[k - 1].misfit) << k;
  }
}

// The update kernels do what the study's do.
TEST(Inversion, UpdateKernels) {
  std::vector<double> g = {1, -4, 2}, sum = {1, 1, 1};
  acumulador(g, sum);
  EXPECT_EQ(sum, (std::vector<double>{2, -3, 3}));
  EXPECT_EQ(paral_max(g), 4.0);
  EXPECT_EQ(scale_grad(g, sum), 2.0 + 12.0 + 6.0);
  grad_scal(g, 0.5);
  EXPECT_EQ(g, (std::vector<double>{0.5, -2, 1}));
  std::vector<double> out;
  new_model({2000, 2000, 2000}, {1, -1, 0}, 600, 1500, 2500, out);
  EXPECT_EQ(out, (std::vector<double>{2500, 1500, 2000}));
  ShotRecord a{2, 1, {3, 4}}, b{2, 1, {1, 5}};
  EXPECT_EQ(residual(a, b).samples, (std::vector<double>{2, -1}));
}

// The study's size (table 4) is stable for the layered model and refused where eq 2.12 fails.
TEST(Inversion, StudySizeAndStability) {
  Experiment s;
  s.acquisition = surface_acquisition(s.grid, s.cpml.width, 5, 2);
  EXPECT_EQ(s.acquisition.receiver_i.size(), 170u);  // N_traza of eq 4.1
  EXPECT_EQ(s.acquisition.source_i.size(), 5u);
  EXPECT_DOUBLE_EQ(s.time.nt * s.time.dt, 2.5);  // tend of table 4
  EXPECT_NO_THROW(validate(s, 4000));
  // The study's Marmousi reaches 4622.66 m/s (figure 16's output): G = 0.740 > 1/sqrt(2) at dt = 4 ms.
  EXPECT_NEAR(courant_number(s, 4622.66), 0.7396, 1e-4);
  EXPECT_THROW(validate(s, 4622.66), std::invalid_argument);
  s.acquisition.source_i[0] = 5;  // inside the left layer
  EXPECT_THROW(validate(s, 3000), std::invalid_argument);
}

}  // namespace
}  // namespace warpmodel::fwi
