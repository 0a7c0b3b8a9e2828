#include "warpmodel/intervals.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "warpmodel/report.hpp"  // format_number

namespace warpmodel {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The widening grid of choose_widen: 0.5, 0.55, ..., 4.
constexpr double kWidenLowest = 0.5, kWidenStep = 0.05, kWidenHighest = 4.0;

// How far e lies from the median in units of the quantile offset on its side: e is inside the
// interval widened by w when this is <= w.
double normalised_offset(const DeviceProfile::ErrorQuantiles& q, double e) {
  const double span = e >= q.e50 ? q.e90 - q.e50 : q.e50 - q.e10;
  const double offset = std::fabs(e - q.e50);
  if (offset == 0) return 0;
  return span > 0 ? offset / span : std::numeric_limits<double>::infinity();
}

const DeviceProfile::ErrorQuantiles& quantiles_for(const DeviceProfile::HopperIntervals& intervals,
                                                   const std::string& bound, bool& pooled) {
  const auto it = intervals.by_bound.find(bound);
  pooled = it == intervals.by_bound.end() || it->second.cases < intervals.min_cases;
  return pooled ? intervals.pooled : it->second;
}

std::vector<Residual> without_class(const std::vector<Residual>& residuals, const std::string& name) {
  std::vector<Residual> out;
  for (const Residual& r : residuals)
    if (r.kernel_class != name) out.push_back(r);
  return out;
}

std::vector<Residual> of_class(const std::vector<Residual>& residuals, const std::string& name) {
  std::vector<Residual> out;
  for (const Residual& r : residuals)
    if (r.kernel_class == name) out.push_back(r);
  return out;
}

std::vector<std::string> class_names(const std::vector<Residual>& residuals) {
  std::vector<std::string> names;
  for (const Residual& r : residuals) names.push_back(r.kernel_class);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

// Each residual's normalised offset from its bound's median under intervals fitted on `fit`.
std::vector<double> offsets(const std::vector<Residual>& fit, const std::vector<Residual>& scored,
                            std::size_t min_cases) {
  const DeviceProfile::HopperIntervals iv = fit_intervals(fit, 1, min_cases);
  std::vector<double> out;
  for (const Residual& r : scored) {
    if (!std::isfinite(r.signed_error)) continue;
    bool pooled = false;
    out.push_back(normalised_offset(quantiles_for(iv, r.bound, pooled), r.signed_error));
  }
  return out;
}

// The smallest grid factor covering `target` of the offsets (kWidenHighest when none does).
double smallest_covering(std::vector<double> offs, double target) {
  if (offs.empty()) return kNaN;
  std::sort(offs.begin(), offs.end());
  const auto steps = static_cast<int>(std::lround((kWidenHighest - kWidenLowest) / kWidenStep));
  for (int s = 0; s <= steps; ++s) {
    const double w = std::round((kWidenLowest + s * kWidenStep) * 100) / 100;  // 1.45, not 1.4500000000000002
    // A tolerance so that 1.4 on the grid covers an offset of exactly 1.4.
    const auto covered = std::upper_bound(offs.begin(), offs.end(), w + 1e-12) - offs.begin();
    if (static_cast<double>(covered) >= target * static_cast<double>(offs.size()) - 1e-9) return w;
  }
  return kWidenHighest;
}

}  // namespace

double quantile(std::vector<double> v, double q) {
  v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return !std::isfinite(x); }), v.end());
  if (v.empty()) return kNaN;
  std::sort(v.begin(), v.end());
  const double h = (static_cast<double>(v.size()) - 1) * std::clamp(q, 0.0, 1.0);
  const auto lo = static_cast<std::size_t>(std::floor(h));
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (h - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

DeviceProfile::ErrorQuantiles error_quantiles(const std::vector<double>& errors) {
  DeviceProfile::ErrorQuantiles q;
  q.e10 = quantile(errors, kIntervalLowQuantile);
  q.e50 = quantile(errors, kIntervalMedianQuantile);
  q.e90 = quantile(errors, kIntervalHighQuantile);
  q.cases = static_cast<std::size_t>(std::count_if(errors.begin(), errors.end(), [](double e) { return std::isfinite(e); }));
  return q;
}

DeviceProfile::HopperIntervals fit_intervals(const std::vector<Residual>& residuals, double widen, std::size_t min_cases,
                                             const std::string& source) {
  DeviceProfile::HopperIntervals iv;
  iv.source = source;
  iv.widen = widen;
  iv.min_cases = min_cases;
  std::map<std::string, std::vector<double>> by_bound;
  std::vector<double> all;
  for (const Residual& r : residuals) {
    if (!std::isfinite(r.signed_error)) continue;
    by_bound[r.bound].push_back(r.signed_error);
    all.push_back(r.signed_error);
  }
  for (const auto& [bound, errors] : by_bound) iv.by_bound[bound] = error_quantiles(errors);
  iv.pooled = error_quantiles(all);
  return iv;
}

ErrorBounds error_bounds(const DeviceProfile::HopperIntervals& intervals, const std::string& bound) {
  bool pooled = false;
  const DeviceProfile::ErrorQuantiles& q = quantiles_for(intervals, bound, pooled);
  ErrorBounds b;
  b.pooled = pooled;
  b.cases = q.cases;
  b.low = std::max(kIntervalLowestError, q.e50 - intervals.widen * (q.e50 - q.e10));
  b.high = q.e50 + intervals.widen * (q.e90 - q.e50);
  return b;
}

PredictionInterval interval_for(const DeviceProfile::HopperIntervals& intervals, const std::string& bound) {
  PredictionInterval out;
  out.errors = error_bounds(intervals, bound);
  out.low_factor = 1 / (1 + out.errors.high);
  out.high_factor = 1 / (1 + out.errors.low);
  out.bound = out.errors.pooled ? std::string() : bound;
  out.basis = out.errors.pooled
                  ? "all bounds pooled: " + std::to_string(out.errors.cases) + " held-out errors (" +
                        (bound.empty() ? std::string("no bound") : bound) + " has fewer than " +
                        std::to_string(intervals.min_cases) + ")"
                  : bound + ": " + std::to_string(out.errors.cases) + " held-out errors";
  if (intervals.widen != 1) out.basis += ", widened x" + format_number(intervals.widen, 3);
  return out;
}

std::optional<PredictionInterval> prediction_interval(const DeviceProfile& device, const Prediction& p) {
  if (p.variant != ModelVariant::Hopper || !device.hopper_intervals) return std::nullopt;
  return interval_for(*device.hopper_intervals, p.bound);
}

double Coverage::share() const { return cases ? static_cast<double>(covered) / static_cast<double>(cases) : kNaN; }

Coverage coverage(const DeviceProfile::HopperIntervals& intervals, const std::vector<Residual>& residuals,
                  const std::string& name) {
  Coverage c;
  c.name = name;
  for (const Residual& r : residuals) {
    if (!std::isfinite(r.signed_error)) continue;
    ++c.cases;
    c.covered += covers(error_bounds(intervals, r.bound), r.signed_error);
  }
  return c;
}

NestedCoverage nested_coverage(const std::vector<Residual>& residuals, std::optional<double> widen,
                               std::size_t min_cases) {
  NestedCoverage out;
  out.pooled.name = "pooled";
  for (const std::string& name : class_names(residuals)) {
    const std::vector<Residual> others = without_class(residuals, name);
    if (others.empty()) continue;  // nothing to fit this class's intervals on
    double w = widen ? *widen : choose_widen(others, kIntervalTargetCoverage, min_cases);
    if (!std::isfinite(w)) w = 1;  // one other class: nothing to choose a factor on, the plain percentiles
    out.widen_by_class[name] = w;
    const Coverage c = coverage(fit_intervals(others, w, min_cases), of_class(residuals, name), name);
    out.pooled.cases += c.cases;
    out.pooled.covered += c.covered;
    out.classes.push_back(c);
  }
  return out;
}

double choose_widen(const std::vector<Residual>& residuals, double target, std::size_t min_cases) {
  const std::vector<std::string> names = class_names(residuals);
  if (names.size() < 2) return kNaN;
  std::vector<double> all;
  for (const std::string& name : names) {
    const std::vector<double> o = offsets(without_class(residuals, name), of_class(residuals, name), min_cases);
    all.insert(all.end(), o.begin(), o.end());
  }
  return smallest_covering(std::move(all), target);
}

double reliable_gain_threshold(const std::optional<DeviceProfile::ErrorQuantiles>& shape_change) {
  if (!shape_change || !std::isfinite(shape_change->e10)) return kNaN;
  return std::max(0.0, -shape_change->e10);
}

}  // namespace warpmodel
