// Reductions of repeated measurements, shared by the microbenchmarks, the profiler, the benchmarks
// and the validation: median, mean with its GUM type-A uncertainty, least-squares line.
#pragma once

#include <vector>

namespace warpmodel::support {

// The median (mean of the two middle values for an even count); NaN for no values.
double median(std::vector<double> values);

struct Estimate {
  double mean = 0;
  double stddev = 0;       // sample standard deviation (n - 1)
  double uncertainty = 0;  // GUM type A: stddev / sqrt(n)
  int n = 0;
};
Estimate estimate(const std::vector<double>& samples);

struct LineFit {
  double slope = 0, intercept = 0;
  double slope_uncertainty = 0;  // standard error of the slope (0 for two points)
};
// Throws std::invalid_argument for fewer than 2 paired points or all x equal.
LineFit linear_fit(const std::vector<double>& x, const std::vector<double>& y);

// Relative spread of repeated values: (max - min) / |median|; 0 for fewer than 2 values.
double relative_spread(const std::vector<double>& values);

}  // namespace warpmodel::support
