// The FWI's GPU variants on the GPU (label gpu; exit 77, skipped, without one): each against the
// double-precision CPU reference within gpu/check.hpp's tolerances (shot gather, misfit, gradient),
// the fixed-step misfit history of the original and the fast-math variants, the recorded launches
// the profiler replays, and phase 5's memory (one film less).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "fwi_cases.hpp"
#include "warpmodel/fwi/gpu/check.hpp"
#include "warpmodel/fwi/gpu/device_fwi.hpp"

namespace warpmodel::fwi {
namespace {

using gpu::DeviceFwi;

struct Case {
  Experiment s = test::small_experiment(96, 64, 12, 300, 2);
  Cpml cpml = make_cpml(s);
  std::vector<double> truth = layered_model(s.grid, s.cpml);
  std::vector<double> start = smoothed(s.grid, truth, 3);
  std::vector<ShotRecord> observed_ref = model_data(s, cpml, truth);
};

std::vector<float> to_float(const std::vector<double>& v) { return {v.begin(), v.end()}; }

class GpuFwiVariants : public ::testing::TestWithParam<GpuVariant> {};

TEST_P(GpuFwiVariants, MatchTheCpuReference) {
  const Case k;
  const GpuVariantInfo& info = gpu_variant_info(GetParam());
  DeviceFwi f(k.s, GetParam());
  const auto gathers = f.model_data(to_float(k.truth));
  std::vector<std::vector<float>> observed;
  for (const auto& r : k.observed_ref) observed.push_back(to_float(r.samples));
  std::vector<float> g;
  const double e = f.misfit_and_gradient(to_float(k.start), observed, &g);
  std::vector<double> g_ref;
  const double e_ref = misfit_and_gradient(k.s, k.cpml, k.start, k.observed_ref, g_ref);
  const gpu::CheckTolerance tol = gpu::check_tolerance(info.fast_math);
  const gpu::CheckResult c = gpu::compare(gathers[0], k.observed_ref[0].samples, e, e_ref, g, g_ref, tol);
  std::printf("[fwi-gpu] %s: gather %.2e, misfit %.2e, 1 - cos %.2e, norm %.2e\n", info.name, c.gather, c.misfit,
              c.cosine_gap, c.norm);
  EXPECT_LE(c.gather, tol.gather);
  EXPECT_LE(c.misfit, tol.misfit);
  EXPECT_LE(c.cosine_gap, tol.cosine_gap);
  EXPECT_LE(c.norm, tol.norm);
}

INSTANTIATE_TEST_SUITE_P(Phases, GpuFwiVariants,
                         ::testing::Values(GpuVariant::original, GpuVariant::shared, GpuVariant::fused,
                                           GpuVariant::fused_cpml, GpuVariant::dot_gpu, GpuVariant::reorganised,
                                           GpuVariant::gradient_on_the_fly, GpuVariant::read_only,
                                           GpuVariant::fast_math),
                         [](const ::testing::TestParamInfo<GpuVariant>& i) {
                           std::string n = gpu_variant_info(i.param).name;
                           for (char& ch : n)
                             if (ch == '-') ch = '_';
                           return n;
                         });

TEST(GpuFwi, FixedStepHistoryMatchesTheCpuReference) {
  const Case k;
  InversionOptions o;
  o.iterations = 3;
  o.fixed_step = true;
  const InversionResult ref = invert(k.s, k.start, k.observed_ref, o);
  std::vector<std::vector<float>> observed;
  for (const auto& r : k.observed_ref) observed.push_back(to_float(r.samples));
  for (GpuVariant v : {GpuVariant::original, GpuVariant::fast_math}) {
    DeviceFwi f(k.s, v);
    gpu::FwiRunOptions g;
    g.iterations = o.iterations;
    const gpu::FwiRunResult run = f.invert(to_float(k.start), observed, g);
    ASSERT_EQ(run.misfit.size(), ref.history.size()) << run.stopped;
    for (std::size_t it = 0; it < run.misfit.size(); ++it) {
      const double rel = std::fabs(run.misfit[it] - ref.history[it].misfit) / ref.history[it].misfit;
      std::printf("[fwi-gpu] %s iteration %zu: misfit %.6e (reference %.6e, relative %.2e)\n", gpu_variant_info(v).name, it,
                  run.misfit[it], ref.history[it].misfit, rel);
      EXPECT_LE(rel, v == GpuVariant::fast_math ? 1e-2 : 1e-3);
    }
  }
}

TEST(GpuFwi, RecordedLaunchesReplayAndPhaseFiveDropsAFilm) {
  const Case k;
  std::vector<std::vector<float>> observed;
  for (const auto& r : k.observed_ref) observed.push_back(to_float(r.samples));
  DeviceFwi before(k.s, GpuVariant::reorganised), after(k.s, GpuVariant::gradient_on_the_fly);
  const auto launches = before.record_launches(to_float(k.start), observed);
  ASSERT_FALSE(launches.empty());
  for (std::size_t i = 0; i < launches.size(); ++i) before.replay(i);
  before.synchronize();
  after.misfit_and_gradient(to_float(k.start), observed, nullptr);
  const long long film = static_cast<long long>(k.s.grid.size()) * (k.s.time.nt + 3) * 4;
  // Phase 5 keeps three buffers of q instead of its film.
  EXPECT_EQ(before.peak_bytes() - after.peak_bytes(), film - 3LL * static_cast<long long>(k.s.grid.size()) * 4);
}

}  // namespace
}  // namespace warpmodel::fwi
