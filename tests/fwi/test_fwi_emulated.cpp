// Every GPU variant of the FWI (stencils/fwi/gpu), its kernels run by the CPU emulation of blocks and
// barriers through the same host code as the GPU (fwi_runner.hpp), against the double-precision CPU
// reference: the shot gathers, the misfit and the gradient of one evaluation, and the fixed-step
// inversion's misfit history. Single precision against double: the tolerances below (docs/fwi.md,
// "GPU variants") leave a margin of about 10 over what the emulation shows.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "emulated_fwi.hpp"
#include "fwi_cases.hpp"

namespace warpmodel::fwi {
namespace {

using gpu::EmulatedFwi;

// Relative tolerances, single against double precision (the fast-math variant included: the
// emulation runs its source with the host's exact math, so its own error shows only on the GPU).
constexpr double kGatherTolerance = 1e-4;      // ||gather - reference|| / ||reference||
constexpr double kMisfitTolerance = 1e-4;      // |E - E_ref| / E_ref
constexpr double kGradientCosine = 1 - 1e-6;   // cos(g, g_ref) at least
constexpr double kGradientNorm = 1e-3;         // | ||g|| / ||g_ref|| - 1 |

// Small enough for the fibers: 40 x 30 with a 6-point CPML, 120 steps, one shot at column 20.
struct Case {
  Experiment s = test::small_experiment(40, 30, 6, 120, 1);
  Cpml cpml = make_cpml(s);
  std::vector<double> truth = layered_model(s.grid, s.cpml);
  std::vector<double> start = smoothed(s.grid, truth, 3);
};

std::vector<float> to_float(const std::vector<double>& v) { return {v.begin(), v.end()}; }

double relative_l2(const std::vector<float>& a, const std::vector<double>& ref) {
  double diff = 0, norm = 0;
  for (std::size_t k = 0; k < ref.size(); ++k) {
    diff += (a[k] - ref[k]) * (a[k] - ref[k]);
    norm += ref[k] * ref[k];
  }
  return std::sqrt(diff / norm);
}

const std::vector<GpuVariant> kEveryVariant = {
    GpuVariant::original,    GpuVariant::shared,      GpuVariant::fused,
    GpuVariant::fused_cpml,  GpuVariant::dot_gpu,     GpuVariant::reorganised,
    GpuVariant::gradient_on_the_fly, GpuVariant::read_only, GpuVariant::fast_math};

class EmulatedVariants : public ::testing::TestWithParam<GpuVariant> {};

std::string variant_name(const ::testing::TestParamInfo<GpuVariant>& info) {
  std::string n = gpu_variant_info(info.param).name;
  for (char& c : n)
    if (c == '-') c = '_';
  return n;
}

TEST_P(EmulatedVariants, GatherMatchesTheCpuReference) {
  const Case k;
  EmulatedFwi fwi(k.s, GetParam());
  const std::vector<std::vector<float>> gathers = fwi.model_data(to_float(k.truth));
  const ShotRecord ref = model_shot(k.s, k.cpml, k.truth, 0);
  ASSERT_EQ(gathers.size(), 1u);
  ASSERT_EQ(gathers[0].size(), ref.samples.size());
  const double error = relative_l2(gathers[0], ref.samples);
  std::printf("[fwi] emulated %s: gather relative L2 %.3e\n", gpu_variant_info(GetParam()).name, error);
  EXPECT_LE(error, kGatherTolerance);
}

TEST_P(EmulatedVariants, MisfitAndGradientMatchTheCpuReference) {
  const Case k;
  EmulatedFwi fwi(k.s, GetParam());
  const std::vector<ShotRecord> observed_ref = model_data(k.s, k.cpml, k.truth);
  std::vector<std::vector<float>> observed;
  for (const auto& r : observed_ref) observed.push_back(to_float(r.samples));
  std::vector<float> gradient;
  const double e = fwi.misfit_and_gradient(to_float(k.start), observed, &gradient);
  std::vector<double> ref_gradient;
  const double e_ref = misfit_and_gradient(k.s, k.cpml, k.start, observed_ref, ref_gradient);
  double dot = 0, norm = 0, norm_ref = 0;
  for (std::size_t c = 0; c < ref_gradient.size(); ++c) {
    dot += gradient[c] * ref_gradient[c];
    norm += double(gradient[c]) * gradient[c];
    norm_ref += ref_gradient[c] * ref_gradient[c];
  }
  const double cosine = dot / std::sqrt(norm * norm_ref), ratio = std::sqrt(norm / norm_ref);
  std::printf("[fwi] emulated %s: misfit %.6e (reference %.6e, relative %.2e), gradient cosine 1 - %.2e, norm ratio %.6f\n",
              gpu_variant_info(GetParam()).name, e, e_ref, std::fabs(e - e_ref) / e_ref, 1 - cosine, ratio);
  ASSERT_GT(e_ref, 0.0);
  EXPECT_LE(std::fabs(e - e_ref) / e_ref, kMisfitTolerance);
  EXPECT_GE(cosine, kGradientCosine);
  EXPECT_LE(std::fabs(ratio - 1), kGradientNorm);
}

INSTANTIATE_TEST_SUITE_P(Phases, EmulatedVariants, ::testing::ValuesIn(kEveryVariant), variant_name);

// The study's update (Paral_max, Grad_scal, New_model) on the emulated GPU and the CPU reference's
// --fixed-step take the same steps: the misfit histories agree.
TEST(EmulatedFwi, FixedStepHistoryMatchesTheCpuReference) {
  Case k;
  k.s.acquisition = surface_acquisition(k.s.grid, k.s.cpml.width, 2, 2);
  const std::vector<ShotRecord> observed_ref = model_data(k.s, k.cpml, k.truth);
  std::vector<std::vector<float>> observed;
  for (const auto& r : observed_ref) observed.push_back(to_float(r.samples));
  InversionOptions o;
  o.iterations = 2;
  o.fixed_step = true;
  o.mute_rows = 3;
  const InversionResult ref = invert(k.s, k.start, observed_ref, o);
  for (GpuVariant v : {GpuVariant::original, GpuVariant::read_only}) {
    EmulatedFwi fwi(k.s, v);
    gpu::FwiRunOptions g;
    g.iterations = o.iterations, g.first_step = o.first_step, g.v_min = o.v_min, g.v_max = o.v_max;
    g.mute_rows = o.mute_rows;
    const gpu::FwiRunResult run = fwi.invert(to_float(k.start), observed, g);
    ASSERT_EQ(run.misfit.size(), ref.history.size()) << run.stopped;
    for (std::size_t it = 0; it < ref.history.size(); ++it) {
      const double rel = std::fabs(run.misfit[it] - ref.history[it].misfit) / ref.history[it].misfit;
      std::printf("[fwi] emulated %s fixed step, iteration %zu: misfit %.6e (reference %.6e, relative %.2e)\n",
                  gpu_variant_info(v).name, it, run.misfit[it], ref.history[it].misfit, rel);
      EXPECT_LE(rel, 1e-3) << gpu_variant_info(v).name << " iteration " << it;
    }
    EXPECT_LT(run.misfit.back(), run.misfit.front());
  }
}

// The profiler's workload: one gradient evaluation records each distinct kernel once, by the
// study's names, and each can be launched again alone.
TEST(EmulatedFwi, RecordedLaunchesAreTheVariantsKernels) {
  const Case k;
  const std::vector<ShotRecord> observed_ref = model_data(k.s, k.cpml, k.truth);
  std::vector<std::vector<float>> observed;
  for (const auto& r : observed_ref) observed.push_back(to_float(r.samples));
  const auto names = [&](GpuVariant v) {
    EmulatedFwi fwi(k.s, v);
    std::string joined;
    for (const auto& r : fwi.record_and_replay(to_float(k.start), observed)) joined += (joined.empty() ? "" : " ") + r.name;
    return joined;
  };
  EXPECT_EQ(names(GpuVariant::original),
            "get_CPML_x_half get_CPML_z_half PSI Propagator_half Residual PSI_adjoint Propagator_half_adjoint "
            "Gradiente acumulador Paral_max Grad_scal New_model");
  EXPECT_EQ(names(GpuVariant::gradient_on_the_fly),
            "get_CPML_x_half get_CPML_z_half Prop_psi_sh_less Residual scale_grad scale_grad_final "
            "Prop_psi_sh_less_adjoint+p acumulador Paral_max Grad_scal New_model");
  EXPECT_EQ(names(GpuVariant::fast_math),
            "get_CPML_x_half_fm get_CPML_z_half_fm Prop_psi_ro_less_fm Residual_fm scale_grad_fm scale_grad_final_fm "
            "Prop_psi_ro_less_adjoint+p_fm acumulador_fm Paral_max_fm Grad_scal_fm New_model_fm");
}

// Phase 5 takes the film of q out: three buffers of q instead of nt + 3 frames.
TEST(EmulatedFwi, GradientOnTheFlyHoldsOneFilmLess) {
  const Case k;
  const std::vector<ShotRecord> observed_ref = model_data(k.s, k.cpml, k.truth);
  std::vector<std::vector<float>> observed;
  for (const auto& r : observed_ref) observed.push_back(to_float(r.samples));
  EmulatedFwi before(k.s, GpuVariant::reorganised), after(k.s, GpuVariant::gradient_on_the_fly);
  before.misfit_and_gradient(to_float(k.start), observed, nullptr);
  after.misfit_and_gradient(to_float(k.start), observed, nullptr);
  const long long n = static_cast<long long>(k.s.grid.size()) * 4;
  EXPECT_EQ(before.peak_bytes() - after.peak_bytes(), n * (k.s.time.nt + 3) - 3 * n);
}

}  // namespace
}  // namespace warpmodel::fwi

namespace warpmodel::fwi {
namespace {
// Data that the start model explains exactly (the waves reach no layer the start model lacks):
// the residual is zero, so every variant's gradient must be zero and finite, also where the grid is
// deeper than it is wide and far deeper than the waves travel (the shape of run-fwi's large size).
class ZeroResidual : public ::testing::TestWithParam<GpuVariant> {};
TEST_P(ZeroResidual, GivesAZeroGradient) {
  const Experiment s = test::small_experiment(48, 96, 8, 40, 1);
  const std::vector<double> truth = layered_model(s.grid, s.cpml);
  const std::vector<float> v(truth.begin(), truth.end());
  gpu::EmulatedFwi fwi(s, GetParam());
  const auto observed = fwi.model_data(v);
  std::vector<float> g;
  const double e = fwi.misfit_and_gradient(v, observed, &g);
  EXPECT_EQ(e, 0.0);
  int bad = 0, nonzero = 0;
  for (float x : g) bad += !std::isfinite(x), nonzero += x != 0.0f;
  EXPECT_EQ(bad, 0);
  EXPECT_EQ(nonzero, 0);
  // A step that overflows single precision (on an H100 a misfit of 1e-41 gave a gradient of
  // round-off and a step of 2.5e39): the inversion stops with the model finite, not NaN.
  auto nearly = observed;
  for (float& x : nearly[0]) x += 1e-3f;
  gpu::FwiRunOptions o;
  o.iterations = 2;
  o.mute_rows = 0;
  o.first_step = 3e38;
  const gpu::FwiRunResult r = fwi.invert(v, nearly, o);
  EXPECT_NE(r.stopped.find("overflows"), std::string::npos) << r.stopped;
  for (float x : r.velocity) ASSERT_TRUE(std::isfinite(x));
}
INSTANTIATE_TEST_SUITE_P(EveryVariant, ZeroResidual, ::testing::ValuesIn(kEveryVariant), variant_name);
}  // namespace
}  // namespace warpmodel::fwi
