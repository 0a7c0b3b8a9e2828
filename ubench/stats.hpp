// Reductions of repeated measurements: mean and GUM type-A standard uncertainty (s / sqrt(n)),
// least-squares slope with its standard uncertainty.
#pragma once

#include <vector>

namespace warpmodel::ubench {

struct Estimate {
  double mean = 0;
  double stddev = 0;       // sample standard deviation (n - 1)
  double uncertainty = 0;  // GUM type A: stddev / sqrt(n)
  int n = 0;
};

Estimate estimate(const std::vector<double>& samples);

struct Fit {
  double slope = 0, intercept = 0;
  double slope_uncertainty = 0;  // standard error of the slope
};

Fit linear_fit(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace warpmodel::ubench
