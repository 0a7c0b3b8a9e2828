#include "stats.hpp"

#include <cmath>
#include <stdexcept>

namespace warpmodel::ubench {

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

Fit linear_fit(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size() || x.size() < 2) throw std::invalid_argument("linear_fit: need >= 2 paired points");
  const double n = static_cast<double>(x.size());
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    mx += x[i];
    my += y[i];
  }
  mx /= n;
  my /= n;
  double sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxx += (x[i] - mx) * (x[i] - mx);
    sxy += (x[i] - mx) * (y[i] - my);
  }
  Fit f;
  if (sxx == 0) throw std::invalid_argument("linear_fit: all x equal");
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

}  // namespace warpmodel::ubench
