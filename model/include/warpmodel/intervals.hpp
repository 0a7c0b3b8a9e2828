// Prediction intervals of the hopper variant from held-out errors, and how often they hold.
//
// A held-out prediction's signed error is e = (predicted - measured) / measured. From the errors of
// predictions that never saw their kernel's class (leave-one-class-out), the 10th, 50th and 90th
// percentiles per bound give a prediction p of that bound the interval
// [p / (1 + e90'), p / (1 + e10')], where e10' and e90' are e10 and e90 moved away from e50 by the
// factor `widen` (1: the plain 80 % quantiles). Bounds with fewer than min_cases errors take the
// pooled percentiles. The factor is chosen so that the intervals cover 80 % of the nested
// leave-one-class-out predictions (each class against intervals from the other classes only).
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "warpmodel/device_profile.hpp"
#include "warpmodel/prediction.hpp"

namespace warpmodel {

inline constexpr double kIntervalLowQuantile = 0.1;
inline constexpr double kIntervalMedianQuantile = 0.5;
inline constexpr double kIntervalHighQuantile = 0.9;
inline constexpr double kIntervalTargetCoverage = 0.8;
inline constexpr std::size_t kIntervalMinCases = 20;
// A widened lower error stops here: the interval's upper end is then 100 x the prediction.
inline constexpr double kIntervalLowestError = -0.99;

// The q-quantile of v by linear interpolation between order statistics (numpy's default, R's type 7);
// NaN when v is empty.
double quantile(std::vector<double> v, double q);
// The 10th, 50th and 90th percentiles of `errors` and their count.
DeviceProfile::ErrorQuantiles error_quantiles(const std::vector<double>& errors);

// One held-out prediction's error: its class (the unit held out), the bound of its predicted wave, e.
struct Residual {
  std::string kernel_class;
  std::string bound;
  double signed_error = 0;
};

// The percentiles per bound and pooled, with the widening factor; `source` says what the residuals were.
DeviceProfile::HopperIntervals fit_intervals(const std::vector<Residual>& residuals, double widen = 1,
                                             std::size_t min_cases = kIntervalMinCases, const std::string& source = "");

// The errors a prediction of `bound` may have, widened: e10' <= e <= e90'.
struct ErrorBounds {
  double low = 0, high = 0;
  bool pooled = false;     // the bound had fewer than min_cases residuals (or none)
  std::size_t cases = 0;   // the residuals behind them
};
ErrorBounds error_bounds(const DeviceProfile::HopperIntervals& intervals, const std::string& bound);
inline bool covers(const ErrorBounds& b, double signed_error) { return signed_error >= b.low && signed_error <= b.high; }

// A prediction's interval as factors of the predicted time: [p x low_factor, p x high_factor].
struct PredictionInterval {
  double low_factor = 1, high_factor = 1;
  ErrorBounds errors;
  std::string bound;   // the bound whose errors were used ("" when pooled for want of one)
  std::string basis;   // "dram bandwidth: 48 held-out cases" / "pooled: 1027 held-out cases (...)"
};
PredictionInterval interval_for(const DeviceProfile::HopperIntervals& intervals, const std::string& bound);
// The interval of a prediction with the device's intervals: hopper predictions only, and only when the
// device profile carries intervals.
std::optional<PredictionInterval> prediction_interval(const DeviceProfile& device, const Prediction& p);

// How many of a set of held-out errors fall inside their bound's interval.
struct Coverage {
  std::string name;  // a class, an evaluation, "pooled"
  std::size_t cases = 0, covered = 0;
  double share() const;  // NaN without cases
};
Coverage coverage(const DeviceProfile::HopperIntervals& intervals, const std::vector<Residual>& residuals,
                  const std::string& name);

// Nested leave-one-class-out coverage: each class's residuals against intervals fitted on the other
// classes' residuals. With `widen` given, every class's intervals take it; without, each class's factor
// is chosen (choose_widen) on the other classes alone, so that nothing the class's coverage is scored
// by has seen that class (1 where the other classes are one).
struct NestedCoverage {
  Coverage pooled;
  std::vector<Coverage> classes;              // by class name
  std::map<std::string, double> widen_by_class;  // the factor each class's intervals used
};
NestedCoverage nested_coverage(const std::vector<Residual>& residuals, std::optional<double> widen,
                               std::size_t min_cases = kIntervalMinCases);

// The smallest factor on the grid 0.5, 0.55, ..., 4 whose nested coverage (fixed factor) reaches
// `target`; 4 when none does. NaN with fewer than two classes (nothing to nest).
double choose_widen(const std::vector<Residual>& residuals, double target = kIntervalTargetCoverage,
                    std::size_t min_cases = kIntervalMinCases);

// A shape pick's predicted gain g = 1 - predicted time at the pick / at the profiled shape is reliable
// when the measured ratio is below 1 at the shape-change errors' 10th percentile: the measured ratio
// is predicted ratio / (1 + d), so g > -d10. NaN without shape-change quantiles.
double reliable_gain_threshold(const std::optional<DeviceProfile::ErrorQuantiles>& shape_change);
// Below this predicted gain a shape is a tie within the model's resolution (a device profile without
// shape-change quantiles).
inline constexpr double kTieGain = 0.005;

}  // namespace warpmodel
