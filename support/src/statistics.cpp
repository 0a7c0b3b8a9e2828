#include "warpmodel/support/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace warpmodel::support {

double median(std::vector<double> v) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

Estimate estimate(const std::vector<double>& s) {
  Estimate e;
  e.n = static_cast<int>(s.size());
  if (s.empty()) return e;
  double sum = 0;
  for (double v : s) sum += v;
  e.mean = sum / e.n;
  if (e.n > 1) {
    double ss = 0;
    for (double v : s) ss += (v - e.mean) * (v - e.mean);
    e.stddev = std::sqrt(ss / (e.n - 1));
    e.uncertainty = e.stddev / std::sqrt(static_cast<double>(e.n));
  }
  return e;
}

LineFit linear_fit(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size() || x.size() < 2) throw std::invalid_argument("linear_fit: need >= 2 paired points");
  const double n = static_cast<double>(x.size());
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < x.size(); ++i) mx += x[i], my += y[i];
  mx /= n;
  my /= n;
  double sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxx += (x[i] - mx) * (x[i] - mx);
    sxy += (x[i] - mx) * (y[i] - my);
  }
  if (sxx == 0) throw std::invalid_argument("linear_fit: all x equal");
  LineFit f;
  f.slope = sxy / sxx;
  f.intercept = my - f.slope * mx;
  if (x.size() > 2) {
    double sse = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double r = y[i] - (f.intercept + f.slope * x[i]);
      sse += r * r;
    }
    f.slope_uncertainty = std::sqrt(sse / (n - 2) / sxx);
  }
  return f;
}

double relative_spread(const std::vector<double>& values) {
  if (values.size() < 2) return 0;
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  const double mid = std::fabs(median(values));
  return mid > 0 ? (*hi - *lo) / mid : 0;
}

}  // namespace warpmodel::support
