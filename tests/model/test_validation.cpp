// Validation analysis: split, fit of the hopper constants, error summaries, Spearman, launch-shape
// choice, and the measurement file reader.
#include <cmath>

#include <gtest/gtest.h>

#include "round_profiles.hpp"
#include "warpmodel/counter_rules.hpp"
#include "warpmodel/json_io.hpp"
#include "warpmodel/model.hpp"
#include "warpmodel/report.hpp"
#include "warpmodel/validation.hpp"

namespace warpmodel {
namespace {

using testing::round_device;
using testing::round_kernel;

TEST(Spearman, HandComputedCases) {
  EXPECT_DOUBLE_EQ(spearman_rank_correlation({1, 2, 3, 4}, {10, 20, 30, 40}), 1.0);
  EXPECT_DOUBLE_EQ(spearman_rank_correlation({1, 2, 3, 4}, {4, 3, 2, 1}), -1.0);
  // ties share ranks: a -> 1, 2.5, 2.5, 4; sum of products 4.5 over sqrt(4.5 x 5)
  EXPECT_NEAR(spearman_rank_correlation({1, 2, 2, 3}, {1, 2, 3, 4}), 4.5 / std::sqrt(22.5), 1e-12);
  EXPECT_TRUE(std::isnan(spearman_rank_correlation({1}, {1})));
  EXPECT_TRUE(std::isnan(spearman_rank_correlation({2, 2, 2}, {1, 2, 3})));
}

// Cases of two kernels at six warps-per-SM settings each (held by shared memory, as the sweep does),
// "measured" as an exact function of the unfitted hopper model and H.12's constants, so the fit
// must recover them.
std::vector<ValidationCase> synthetic_cases(double launch, double scale, double wave_cycles, double barrier_cycles = 0,
                                            double turnover_exponent = 0) {
  const DeviceProfile d = round_device();
  std::vector<ValidationCase> cases;
  for (int kernel = 0; kernel < 2; ++kernel) {
    for (int warps : {8, 16, 24, 32, 40, 48}) {
      ValidationCase c;
      c.family = "stencil";
      c.kernel = kernel == 0 ? "memory-bound" : "compute-bound";
      c.size = "64^3";
      c.shape = "256x1x1 @" + std::to_string(warps);
      c.warps_per_sm = warps;
      c.profile = round_kernel();
      c.profile.inst_per_warp = kernel == 0 ? 20 : 300;
      c.profile.sfu_inst_per_warp = 0;
      c.profile.sync_inst_per_warp = kernel == 0 ? 0 : 2;
      c.profile.launch.grid = {2400, 1, 1};  // the same work at every setting
      c.profile.launch.shared_memory_per_block_bytes = (233472 / (warps / 8)) / 128 * 128 - 1024;
      const Prediction p = predict_hopper(d, c.profile);
      // H.12 by hand: each wave's fixed costs exposed at (resident blocks per SM)^-exponent.
      const double waves = (p.full_waves + (p.t_last_wave > 0 ? 1 : 0)) *
                           std::pow(std::max(1.0, p.occupancy.resident_blocks_per_sm), -turnover_exponent);
      const double measured_cycles =
          launch + scale * p.cycles + wave_cycles * waves + barrier_cycles * waves * c.profile.sync_inst_per_warp;
      c.sm_clock_mhz = 1000;
      c.duration_ns = measured_cycles;  // 1 cycle = 1 ns at 1000 MHz
      cases.push_back(c);
    }
  }
  return cases;
}

TEST(Validation, SplitAlternatesInsideEachGroup) {
  const auto cases = synthetic_cases(0, 1, 0);
  const auto split = split_training_held_out(cases);
  int training_per_kernel[2] = {0, 0}, held_out_per_kernel[2] = {0, 0};
  for (std::size_t i = 0; i < cases.size(); ++i)
    (split[i] == Split::Training ? training_per_kernel : held_out_per_kernel)[cases[i].kernel == "compute-bound"]++;
  EXPECT_EQ(training_per_kernel[0], 3);
  EXPECT_EQ(held_out_per_kernel[0], 3);
  EXPECT_EQ(training_per_kernel[1], 3);
  EXPECT_EQ(held_out_per_kernel[1], 3);
}

TEST(Validation, FitRecoversTheConstantsAndHeldOutErrorVanishes) {
  const ValidationResult v = validate(round_device(), synthetic_cases(800, 1.25, 12, 7));
  EXPECT_NEAR(v.calibration.launch_cycles, 800, 1e-6);
  EXPECT_NEAR(v.calibration.scale, 1.25, 1e-9);
  EXPECT_NEAR(v.calibration.wave_cycles, 12, 1e-6);
  EXPECT_NEAR(v.calibration.barrier_cycles, 7, 1e-6);
  const auto hopper = std::find_if(v.summaries.begin(), v.summaries.end(),
                                   [](const VariantSummary& s) { return s.variant == ModelVariant::Hopper; });
  ASSERT_NE(hopper, v.summaries.end());
  EXPECT_EQ(hopper->cases, 6u);  // the held-out half only
  EXPECT_LT(hopper->mape, 1e-9);
  EXPECT_NEAR(hopper->spearman, 1.0, 1e-12);
  EXPECT_EQ(v.rows.size(), 12 * all_variants().size());
}

// Launches whose fixed per-wave costs shrink with the resident blocks per SM (1 to 6 blocks of 8
// warps here) as B^-0.5: the grid search over the exponent finds 0.5 and the linear constants with it.
TEST(Validation, FitRecoversTheTurnoverExponent) {
  auto cases = synthetic_cases(800, 1.25, 3000, 70, 0.5);
  const auto more = synthetic_cases(800, 1.25, 3000, 70, 0.5);
  for (auto c : more) {  // a second copy of each kernel, so both halves hold every B
    c.kernel += " again";
    cases.push_back(c);
  }
  const ValidationResult v = validate(round_device(), cases);
  EXPECT_NEAR(v.calibration.turnover_exponent, 0.5, 1e-12);
  EXPECT_NEAR(v.calibration.launch_cycles, 800, 1e-3);
  EXPECT_NEAR(v.calibration.scale, 1.25, 1e-9);
  EXPECT_NEAR(v.calibration.wave_cycles, 3000, 1e-3);
  EXPECT_NEAR(v.calibration.barrier_cycles, 70, 1e-3);
  // Generated without the exponent, the fit keeps 0.
  EXPECT_NEAR(validate(round_device(), synthetic_cases(800, 1.25, 3000, 70)).calibration.turnover_exponent, 0, 1e-12);
}

TEST(Validation, ErrorsAreSignedRelativeToMeasured) {
  auto cases = synthetic_cases(0, 1, 0);
  // double every measurement after fitting on exact ones would halve... instead: a constant offset
  // on the held-out half only cannot be fitted away, so the held-out error is exactly that offset.
  const auto split = split_training_held_out(cases);
  for (std::size_t i = 0; i < cases.size(); ++i)
    if (split[i] == Split::HeldOut) cases[i].duration_ns *= 2;
  const ValidationResult v = validate(round_device(), cases);
  for (const auto& r : v.rows)
    if (r.variant == ModelVariant::Hopper && r.split == Split::HeldOut) EXPECT_NEAR(r.signed_error, -0.5, 1e-9);
  const auto& hopper = v.summaries[3];
  EXPECT_NEAR(hopper.mape, 0.5, 1e-9);
  EXPECT_NEAR(hopper.median_abs_error, 0.5, 1e-9);
  EXPECT_NEAR(hopper.max_abs_error, 0.5, 1e-9);
}

TEST(Validation, FitNeedsEnoughTrainingCases) {
  auto cases = synthetic_cases(0, 1, 0);
  cases.resize(3);  // 2 training cases for 2 constants
  EXPECT_THROW(validate(round_device(), cases), ModelError);
}

TEST(Validation, ShapeChoiceHitRateAndSlowdown) {
  auto cases = synthetic_cases(0, 1, 0);
  // Make the measured-fastest shape of the memory-bound kernel one the model ranks last (8 warps:
  // the most waves), 10% faster than anything measured. It must be a held-out case, so that the
  // fit (training half) stays exact and the compute-bound kernel's choice stays right.
  const auto split = split_training_held_out(cases);
  double best = INFINITY;
  std::string perturbed;
  for (const auto& c : cases)
    if (c.kernel == "memory-bound") best = std::min(best, c.duration_ns);
  for (std::size_t i = 0; i < cases.size(); ++i)
    if (cases[i].kernel == "memory-bound" && split[i] == Split::HeldOut &&
        (perturbed.empty() || cases[i].warps_per_sm < 16)) {
      perturbed = cases[i].shape;
    }
  for (auto& c : cases)
    if (c.shape == perturbed && c.kernel == "memory-bound") c.duration_ns = best / 1.1;
  const ValidationResult v = validate(round_device(), cases);
  for (const auto& s : v.shape_summaries) {
    if (s.variant != ModelVariant::Hopper) continue;
    EXPECT_EQ(s.groups, 2u);
    EXPECT_DOUBLE_EQ(s.top1_hit_rate, 0.5);
  }
  for (const auto& c : v.shape_choices) {
    if (c.variant != ModelVariant::Hopper || c.group.find("memory-bound") == std::string::npos) continue;
    EXPECT_EQ(c.measured_best, perturbed);
    EXPECT_NE(c.predicted_best, perturbed);
    EXPECT_NEAR(c.slowdown, 0.1, 1e-9);
  }
}

TEST(HeldOut, ScoresByHand) {
  const ClassScore s = score_errors("c", {0.05, -0.2, 0.3, -0.1});
  EXPECT_EQ(s.cases, 4u);
  EXPECT_NEAR(s.mape, 0.1625, 1e-12);
  EXPECT_NEAR(s.median_abs_error, 0.15, 1e-12);
  EXPECT_NEAR(s.mean_signed_error, 0.0125, 1e-12);
  EXPECT_DOUBLE_EQ(s.within_10_percent, 0.5);
  EXPECT_DOUBLE_EQ(s.within_25_percent, 0.75);
}

// Three classes follow H.12 exactly with the same constants: each class, predicted by constants
// fitted on the other two, is exact. A fourth class measured twice as slow cannot be fitted away
// when it is held out: its mean signed error is -50 %, which shows it never saw its own rows.
TEST(HeldOut, LeaveOneClassOutNeverFitsTheClassItScores) {
  std::vector<ValidationCase> cases;
  for (const char* name : {"a", "b", "c", "slow"}) {
    for (ValidationCase c : synthetic_cases(800, 1.25, 12, 7)) {
      c.kernel_class = name;
      c.kernel += std::string(" ") + name;
      if (std::string(name) == "slow") c.duration_ns *= 2;
      cases.push_back(c);
    }
  }
  const HeldOutEvaluation e = leave_one_class_out(round_device(), cases);
  ASSERT_EQ(e.classes.size(), 4u);
  ASSERT_EQ(e.calibrations.size(), 4u);
  EXPECT_EQ(e.rows.size(), cases.size());
  for (const ClassScore& s : e.classes) {
    if (s.kernel_class == "slow") {
      EXPECT_NEAR(s.mean_signed_error, -0.5, 0.05) << "fitted on a, b, c only";
    } else {
      EXPECT_EQ(s.cases, 12u);
      EXPECT_GT(std::fabs(s.mean_signed_error), 0.01) << s.kernel_class << ": the slow class is in its fit";
    }
  }
  EXPECT_EQ(e.pooled.cases, cases.size());
  for (const auto& [name, cal] : e.calibrations)
    if (name == "slow") EXPECT_NEAR(cal.scale, 1.25, 1e-6);
}

TEST(HeldOut, CrossDeviceUsesTheOtherSweepsConstantsAndItsOwnProfile) {
  const auto fit = synthetic_cases(800, 1.25, 12, 7);
  // The same launches on a GPU whose time follows the same constants: exact.
  HeldOutEvaluation e = cross_device(round_device(), fit, round_device(), fit);
  EXPECT_LT(e.pooled.mape, 1e-9);
  ASSERT_EQ(e.calibrations.size(), 1u);
  EXPECT_NEAR(e.calibrations[0].second.scale, 1.25, 1e-9);
  // Measured 10 % slower there: the constants of the first GPU under-predict by 1/1.1 - 1.
  auto slower = fit;
  for (auto& c : slower) c.duration_ns *= 1.1;
  e = cross_device(round_device(), fit, round_device(), slower);
  EXPECT_NEAR(e.pooled.mean_signed_error, 1 / 1.1 - 1, 1e-9);
  EXPECT_EQ(fit_hopper_calibration_on_all(round_device(), fit).fitted_on.find("12 measured launches"), 0u);
}

// Cross-shape on the synthetic sweep: the six "shapes" of each kernel differ only in shared memory
// (warps per SM), so the reference's counts describe every shape exactly and the derived
// predictions equal the ones from each case's own counters.
TEST(HeldOut, CrossShapeFromTheReferenceCountersOfEachGroup) {
  std::vector<ValidationCase> cases;
  for (const char* name : {"a", "b", "c"})
    for (ValidationCase c : synthetic_cases(800, 1.25, 12, 7)) {
      c.kernel_class = name;
      c.kernel += std::string(" ") + name;
      cases.push_back(c);
    }
  const HeldOutEvaluation loco = leave_one_class_out(round_device(), cases);
  const CrossShapeEvaluation x = cross_shape(round_device(), cases, loco);
  EXPECT_EQ(x.groups, 6u);                // 2 kernels x 3 classes, one size each
  EXPECT_EQ(x.from_reference.cases, 30u);  // 5 non-reference shapes per group
  EXPECT_NEAR(x.from_reference.mape, x.from_own_counters.mape, 1e-12);
  EXPECT_DOUBLE_EQ(x.best_within_5_percent_reference, x.best_within_5_percent_own);
  EXPECT_EQ(x.rows.size(), cases.size());
  for (const auto& g : x.per_group) EXPECT_EQ(g.reference_shape, "256x1x1 @8") << "the first shape measured";
  // Variants that are other code (another static instruction count) are not shapes of the reference.
  std::vector<ValidationCase> variants = cases;
  for (std::size_t i = 1; i < 6; ++i) variants[i].profile.static_instructions = 99;  // group 1's other "shapes"
  const CrossShapeEvaluation v = cross_shape(round_device(), variants, leave_one_class_out(round_device(), variants));
  EXPECT_EQ(v.groups, 5u);
  EXPECT_EQ(v.from_reference.cases, 25u);
}

TEST(ValidationJson, CasesRoundTripAndErrorsNameTheField) {
  const auto cases = synthetic_cases(100, 1, 0);
  nlohmann::json j = {{"schema", kValidationSchema}, {"provenance", {{"gpu", "test"}}}, {"cases", nlohmann::json::array()}};
  for (const auto& c : cases) j["cases"].push_back(to_json(c));
  const auto back = validation_cases_from_json(j, "m.json");
  ASSERT_EQ(back.size(), cases.size());
  EXPECT_EQ(to_json(back[3]), to_json(cases[3]));

  j["cases"][2].erase("duration_ns");
  try {
    validation_cases_from_json(j, "m.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "m.json: field 'cases[2].duration_ns': missing field (expected a number of ns in [1, 1e15])");
  }
  j["cases"] = nlohmann::json::array();
  EXPECT_THROW(validation_cases_from_json(j, "m.json"), InputError);
}

// validate reads launch.barrier_wait_share from a case's raw counters when its stored profile lacks
// it (sweeps measured before the field): the barrier reason over the sum of the reasons present.
TEST(ValidationJson, BarrierShareComesFromTheCasesStallReasons) {
  const auto cases = synthetic_cases(100, 1, 0);
  nlohmann::json j = {{"schema", kValidationSchema}, {"provenance", {{"gpu", "test"}}}, {"cases", nlohmann::json::array()}};
  j["cases"].push_back(to_json(cases[0]));
  j["cases"].push_back(to_json(cases[1]));
  const auto stall = [](const char* reason) { return counter_rules::stall_metric(reason); };
  j["cases"][0]["counters"] = {{stall("barrier"), 15.0}, {stall("selected"), 1.0}, {stall("long_scoreboard"), 0.5},
                               {stall("wait"), 0.5}, {"unrelated.sum", 7.0}};
  j["cases"][1]["counters"] = {{stall("long_scoreboard"), 3.0}, {stall("selected"), 1.0}};  // no barrier reason
  const auto back = validation_cases_from_json(j, "m.json");
  ASSERT_TRUE(back[0].profile.launch.barrier_wait_share.has_value());
  EXPECT_DOUBLE_EQ(*back[0].profile.launch.barrier_wait_share, 15.0 / 17.0);
  EXPECT_NE(back[0].profile.sources.at("launch.barrier_wait_share").find("stalled_barrier"), std::string::npos);
  EXPECT_FALSE(back[1].profile.launch.barrier_wait_share.has_value());
  // A stored share is kept; one out of [0, 1] is refused with the field's name.
  j["cases"][0]["profile"]["launch"]["barrier_wait_share"] = 0.25;
  EXPECT_DOUBLE_EQ(*validation_cases_from_json(j, "m.json")[0].profile.launch.barrier_wait_share, 0.25);
  j["cases"][0]["profile"]["launch"]["barrier_wait_share"] = 1.5;
  try {
    validation_cases_from_json(j, "m.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("barrier_wait_share"), std::string::npos) << e.what();
  }
}

TEST(Report, LatexEscapesAndValidationTablesRender) {
  Table t;
  t.headers = {"a_b", "50%"};
  t.rows = {{"x & y", "512^3"}};
  const std::string tex = t.render(TableFormat::Latex);
  EXPECT_NE(tex.find("a\\_b & 50\\%"), std::string::npos) << tex;
  EXPECT_NE(tex.find("x \\& y & 512\\^{}3"), std::string::npos) << tex;
  const ValidationResult v = validate(round_device(), synthetic_cases(800, 1.25, 12));
  const auto layout = validation_layout_tables(v);
  ASSERT_EQ(layout.size(), 1u);  // one family and size
  EXPECT_EQ(layout[0].table.rows.size(), 12u);
  EXPECT_EQ(validation_summary_table(v).rows.size(), all_variants().size());
}

}  // namespace
}  // namespace warpmodel
