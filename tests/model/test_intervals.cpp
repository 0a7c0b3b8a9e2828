// Prediction intervals (intervals.hpp) and the harmful-pick count (validation.hpp) on hand-made
// residuals whose percentiles, coverage and widening factors can be worked out by hand.
#include <cmath>

#include <gtest/gtest.h>

#include "warpmodel/intervals.hpp"
#include "warpmodel/json_io.hpp"
#include "warpmodel/thesis.hpp"
#include "warpmodel/validation.hpp"

namespace warpmodel {
namespace {

using nlohmann::json;

// Errors -0.10, -0.09, ..., +0.10 (21 of them) of one bound and class.
std::vector<Residual> ramp(const std::string& kernel_class, const std::string& bound) {
  std::vector<Residual> out;
  for (int i = -10; i <= 10; ++i) out.push_back({kernel_class, bound, i / 100.0});
  return out;
}

TEST(Intervals, QuantilesInterpolateBetweenOrderStatistics) {
  const std::vector<double> v = {10, 1, 9, 2, 8, 3, 7, 4, 6, 5};  // numpy: 1.9, 5.5, 9.1
  EXPECT_NEAR(quantile(v, 0.1), 1.9, 1e-12);
  EXPECT_NEAR(quantile(v, 0.5), 5.5, 1e-12);
  EXPECT_NEAR(quantile(v, 0.9), 9.1, 1e-12);
  EXPECT_DOUBLE_EQ(quantile({3.0}, 0.1), 3.0);
  EXPECT_TRUE(std::isnan(quantile({}, 0.5)));
  const DeviceProfile::ErrorQuantiles q = error_quantiles({-0.2, -0.1, 0, 0.1, 0.2});
  EXPECT_NEAR(q.e10, -0.16, 1e-12);
  EXPECT_NEAR(q.e50, 0, 1e-12);
  EXPECT_NEAR(q.e90, 0.16, 1e-12);
  EXPECT_EQ(q.cases, 5u);
}

// Per bound where a bound has min_cases errors; the pooled percentiles for the others.
TEST(Intervals, PerBoundWithAPooledFallback) {
  std::vector<Residual> r = ramp("a", "dram bandwidth");
  for (double e : {0.3, 0.4, 0.5}) r.push_back({"a", "issue", e});
  const DeviceProfile::HopperIntervals iv = fit_intervals(r, 1, 20, "hand-made");
  ASSERT_EQ(iv.by_bound.size(), 2u);
  EXPECT_NEAR(iv.by_bound.at("dram bandwidth").e10, -0.08, 1e-12);
  EXPECT_NEAR(iv.by_bound.at("dram bandwidth").e90, 0.08, 1e-12);
  EXPECT_EQ(iv.pooled.cases, 24u);

  const PredictionInterval dram = interval_for(iv, "dram bandwidth");
  EXPECT_FALSE(dram.errors.pooled);
  EXPECT_EQ(dram.errors.cases, 21u);
  // [p / (1 + e90), p / (1 + e10)]
  EXPECT_NEAR(dram.low_factor, 1 / 1.08, 1e-12);
  EXPECT_NEAR(dram.high_factor, 1 / 0.92, 1e-12);
  EXPECT_EQ(dram.bound, "dram bandwidth");

  // Three errors are too few: the pooled percentiles, and the basis says so.
  const PredictionInterval issue = interval_for(iv, "issue");
  EXPECT_TRUE(issue.errors.pooled);
  EXPECT_EQ(issue.errors.cases, 24u);
  EXPECT_NEAR(issue.errors.high, quantile({-0.1, -0.09, -0.08, -0.07, -0.06, -0.05, -0.04, -0.03, -0.02, -0.01, 0,
                                            0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.09, 0.1, 0.3, 0.4, 0.5},
                                           0.9),
              1e-12);
  EXPECT_NE(issue.basis.find("pooled"), std::string::npos) << issue.basis;
  EXPECT_TRUE(interval_for(iv, "a bound never seen").errors.pooled);
}

// Widening moves e10 and e90 away from the median by the factor.
TEST(Intervals, WideningAboutTheMedian) {
  std::vector<Residual> r;
  for (int i = -10; i <= 10; ++i) r.push_back({"a", "issue", 0.05 + i / 100.0});  // median +0.05
  const ErrorBounds plain = error_bounds(fit_intervals(r, 1), "issue");
  const ErrorBounds wide = error_bounds(fit_intervals(r, 2), "issue");
  EXPECT_NEAR(plain.low, -0.03, 1e-12);
  EXPECT_NEAR(plain.high, 0.13, 1e-12);
  EXPECT_NEAR(wide.low, 0.05 - 2 * 0.08, 1e-12);
  EXPECT_NEAR(wide.high, 0.05 + 2 * 0.08, 1e-12);
  // Never below -0.99: the upper end of the time stays finite.
  EXPECT_DOUBLE_EQ(error_bounds(fit_intervals(r, 20), "issue").low, kIntervalLowestError);
}

TEST(Intervals, CoverageCountsErrorsInsideTheirBoundsInterval) {
  const DeviceProfile::HopperIntervals iv = fit_intervals(ramp("a", "issue"), 1);  // [-0.08, +0.08]
  const std::vector<Residual> scored = {{"b", "issue", -0.08}, {"b", "issue", 0.0}, {"b", "issue", 0.081},
                                        {"b", "issue", -0.5}};
  const Coverage c = coverage(iv, scored, "b");
  EXPECT_EQ(c.cases, 4u);
  EXPECT_EQ(c.covered, 2u);
  EXPECT_DOUBLE_EQ(c.share(), 0.5);
  EXPECT_TRUE(std::isnan(Coverage{}.share()));
}

// Two classes with the same five errors: each class's nested intervals come from the other's, so
// e10 = -0.16 and e90 = +0.16 cover 3 of 5; covering 80 % needs the +-0.2 errors, a factor 1.25.
TEST(Intervals, NestedCoverageAndTheWideningThatCalibratesIt) {
  std::vector<Residual> r;
  for (const char* c : {"x", "y"})
    for (double e : {-0.2, -0.1, 0.0, 0.1, 0.2}) r.push_back({c, "issue", e});
  const NestedCoverage plain = nested_coverage(r, 1.0);
  ASSERT_EQ(plain.classes.size(), 2u);
  EXPECT_EQ(plain.pooled.cases, 10u);
  EXPECT_EQ(plain.pooled.covered, 6u);
  EXPECT_NEAR(choose_widen(r), 1.25, 1e-9);
  EXPECT_EQ(nested_coverage(r, 1.25).pooled.covered, 10u);
  // Chosen without the class: on one other class there is nothing to nest, so the plain percentiles.
  const NestedCoverage own = nested_coverage(r, std::nullopt);
  EXPECT_EQ(own.pooled.covered, 6u);
  EXPECT_DOUBLE_EQ(own.widen_by_class.at("x"), 1.0);
  // Three such classes: each class's intervals come from two copies of the errors (e10 = -0.2,
  // e90 = +0.2), which cover every error: the factor 1 is the smallest on the grid covering 80 %.
  std::vector<Residual> three = r;
  for (double e : {-0.2, -0.1, 0.0, 0.1, 0.2}) three.push_back({"w", "issue", e});
  EXPECT_NEAR(choose_widen(three), 1.0, 1e-9);
  const NestedCoverage chosen = nested_coverage(three, std::nullopt);
  EXPECT_EQ(chosen.pooled.covered, 15u);
  EXPECT_NEAR(chosen.widen_by_class.at("w"), 1.25, 1e-9);  // from x and y alone
  // A class's errors never price themselves: a class far from the others is not covered.
  std::vector<Residual> biased = r;
  for (int i = 0; i < 5; ++i) biased.push_back({"z", "issue", 0.9});
  const NestedCoverage b = nested_coverage(biased, 1.0);
  EXPECT_EQ(b.classes.back().name, "z");
  EXPECT_EQ(b.classes.back().covered, 0u);
  // One class: nothing to nest.
  EXPECT_TRUE(std::isnan(choose_widen(ramp("a", "issue"))));
}

TEST(Intervals, ReliableGainThresholdFromTheShapeChangeErrors) {
  DeviceProfile::ErrorQuantiles q;
  q.e10 = -0.2;
  q.e50 = 0;
  q.e90 = 0.1;
  q.cases = 100;
  EXPECT_DOUBLE_EQ(reliable_gain_threshold(q), 0.2);
  q.e10 = 0.05;  // the model never under-predicts a ratio: any gain is reliable
  EXPECT_DOUBLE_EQ(reliable_gain_threshold(q), 0.0);
  EXPECT_TRUE(std::isnan(reliable_gain_threshold(std::nullopt)));
}

// Only hopper predictions get the device's intervals.
TEST(Intervals, PredictionIntervalIsHoppersOnly) {
  DeviceProfile d;
  Prediction p;
  p.variant = ModelVariant::Hopper;
  p.bound = "issue";
  EXPECT_FALSE(prediction_interval(d, p));
  d.hopper_intervals = fit_intervals(ramp("a", "issue"), 1);
  ASSERT_TRUE(prediction_interval(d, p));
  EXPECT_NEAR(prediction_interval(d, p)->low_factor, 1 / 1.08, 1e-12);
  p.variant = ModelVariant::Thesis2016;
  EXPECT_FALSE(prediction_interval(d, p));
}

json k40_with_intervals() {
  json d = json::parse(thesis_k40_device_json());
  DeviceProfile::HopperIntervals iv = fit_intervals(ramp("a", "issue"), 1.4, 20, "hand-made");
  iv.shape_change = error_quantiles({-0.3, -0.1, 0, 0.05, 0.2});
  d["hopper_intervals"] = to_json(iv);
  return d;
}

std::string device_error(const json& j) {
  try {
    device_from_json(j, "dev.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Intervals, DeviceJsonRoundTripAndRangeChecks) {
  const json j = k40_with_intervals();
  const DeviceProfile d = device_from_json(j, "dev.json");
  ASSERT_TRUE(d.hopper_intervals);
  EXPECT_DOUBLE_EQ(d.hopper_intervals->widen, 1.4);
  EXPECT_EQ(d.hopper_intervals->source, "hand-made");
  EXPECT_NEAR(d.hopper_intervals->by_bound.at("issue").e90, 0.08, 1e-12);
  ASSERT_TRUE(d.hopper_intervals->shape_change);
  EXPECT_EQ(d.hopper_intervals->shape_change->cases, 5u);
  EXPECT_EQ(to_json(device_from_json(to_json(d), "rt")), to_json(d));

  json bad = j;
  bad["hopper_intervals"]["by_bound"]["issue"]["e10"] = 0.5;  // above e50
  EXPECT_NE(device_error(bad).find("expected e10 <= e50 <= e90"), std::string::npos) << device_error(bad);
  bad = j;
  bad["hopper_intervals"]["pooled"]["e90"] = 1000;
  EXPECT_NE(device_error(bad).find("field 'hopper_intervals.pooled.e90': expected a number in [-0.99, 100]"),
            std::string::npos)
      << device_error(bad);
  bad = j;
  bad["hopper_intervals"]["quantiles"] = json::array({0.05, 0.5, 0.95});
  EXPECT_NE(device_error(bad).find("expected [0.1, 0.5, 0.9]"), std::string::npos) << device_error(bad);
  bad = j;
  bad["hopper_intervals"]["widen"] = 0;
  EXPECT_NE(device_error(bad).find("hopper_intervals.widen"), std::string::npos) << device_error(bad);
  bad = j;
  bad["hopper_intervals"]["by_bound"]["issue"]["cases"] = 0;
  EXPECT_NE(device_error(bad).find("hopper_intervals.by_bound.issue.cases"), std::string::npos) << device_error(bad);
  bad = j;
  bad["hopper_intervals"]["by_bound"]["issue"]["e11"] = 0;
  EXPECT_NE(device_error(bad).find("e11"), std::string::npos) << device_error(bad);
}

CrossShapeEvaluation::Group group(const std::string& name, const std::string& kernel_class, const std::string& pick,
                                  double gain, double change) {
  CrossShapeEvaluation::Group g;
  g.group = name;
  g.kernel_class = kernel_class;
  g.reference_shape = "32x8";
  g.picked_derived = pick;
  g.gain_derived = gain;
  g.change_derived = change;
  return g;
}

// A pick more than 10 % slower than the profiled shape is harmful; withheld picks stay at the
// reference shape, and those that would have run more than 10 % faster are counted.
TEST(HarmfulPicks, CountShareLargestBeforeAndAfterWithholding) {
  CrossShapeEvaluation s;
  s.per_group = {group("g1", "a", "32x8", 0, 0),          // the reference itself
                 group("g2", "a", "64x4", 0.05, 0.30),   // small gain, 30 % slower: harmful, withheld below
                 group("g3", "a", "128x2", 0.40, 0.12),  // large gain, 12 % slower: harmful either way
                 group("g4", "b", "16x16", 0.03, -0.20), // small gain, 20 % faster: withheld, a loss
                 group("g5", "b", "8x32", 0.30, 0.10)};  // exactly 10 %: not harmful
  const HarmfulPicks all = harmful_picks(s);
  EXPECT_EQ(all.groups, 5u);
  EXPECT_EQ(all.moved, 4u);
  EXPECT_EQ(all.harmful, 2u);
  EXPECT_DOUBLE_EQ(all.share, 0.4);
  EXPECT_DOUBLE_EQ(all.largest, 0.30);
  EXPECT_EQ(all.largest_group, "g2");
  EXPECT_EQ(all.largest_pick, "64x4 instead of 32x8");
  EXPECT_EQ(all.withheld, 0u);

  const HarmfulPicks reliable = harmful_picks(s, {{"a", 0.2}, {"b", 0.2}});
  EXPECT_EQ(reliable.moved, 2u);
  EXPECT_EQ(reliable.withheld, 2u);
  EXPECT_EQ(reliable.withheld_faster, 1u);
  EXPECT_EQ(reliable.harmful, 1u);
  EXPECT_DOUBLE_EQ(reliable.largest, 0.12);
}

// Each class's threshold comes from the other classes' shape-change errors.
TEST(HarmfulPicks, NestedThresholdsLeaveTheClassOut) {
  CrossShapeEvaluation s;
  s.per_group = {group("g1", "a", "32x8", 0, 0), group("g2", "b", "32x8", 0, 0)};
  for (double e : {-0.5, -0.5, -0.5}) s.ratio_residuals.push_back({"a", e});
  for (double e : {-0.1, 0.0, 0.1}) s.ratio_residuals.push_back({"b", e});
  const auto t = nested_gain_thresholds(s);
  EXPECT_NEAR(t.at("a"), 0.08, 1e-12);  // b's errors: e10 = -0.08
  EXPECT_NEAR(t.at("b"), 0.5, 1e-12);   // a's errors
}

}  // namespace
}  // namespace warpmodel
