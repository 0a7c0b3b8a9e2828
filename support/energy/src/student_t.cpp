#include "warpmodel/energy/student_t.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace warpmodel::energy {
namespace {

// 1 + d1 / (1 + d2 / (1 + ...)), the continued fraction of A&S 26.5.8, by the modified Lentz method.
double beta_fraction(double a, double b, double x) {
  constexpr double tiny = 1e-300, eps = 1e-15;
  double f = 1.0, c = 1.0, d = 0.0;
  for (int j = 1; j <= 10000; ++j) {
    const int m = j / 2;
    const double dj = j % 2 == 1 ? -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
                                 : m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
    d = 1.0 + dj * d;
    if (std::fabs(d) < tiny) d = tiny;
    c = 1.0 + dj / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1.0 / d;
    const double delta = c * d;
    f *= delta;
    if (std::fabs(delta - 1.0) < eps) return f;
  }
  return f;  // converged to double precision long before, for the arguments used here
}

}  // namespace

double incomplete_beta(double a, double b, double x) {
  if (!(a > 0) || !(b > 0) || !(x >= 0 && x <= 1)) throw std::invalid_argument("incomplete_beta: need a, b > 0 and x in [0, 1]");
  if (x == 0 || x == 1) return x;
  // The fraction converges fast for x below the mean; the symmetry I_x(a, b) = 1 - I_{1-x}(b, a) otherwise.
  if (x > (a + 1) / (a + b + 2)) return 1.0 - incomplete_beta(b, a, 1.0 - x);
  const double log_front = a * std::log(x) + b * std::log1p(-x) - std::log(a) -
                           (std::lgamma(a) + std::lgamma(b) - std::lgamma(a + b));
  return std::exp(log_front) / beta_fraction(a, b, x);
}

double student_t_cdf(double t, double dof) {
  if (!(dof > 0)) throw std::invalid_argument("student_t_cdf: degrees of freedom must be > 0");
  if (std::isinf(t)) return t > 0 ? 1.0 : 0.0;
  // P(|T| > |t|) = I_{dof / (dof + t^2)}(dof / 2, 1 / 2).
  const double tail = 0.5 * incomplete_beta(0.5 * dof, 0.5, dof / (dof + t * t));
  return t >= 0 ? 1.0 - tail : tail;
}

double student_t_quantile(double p, double dof) {
  if (!(p > 0 && p < 1)) throw std::invalid_argument("student_t_quantile: p must be in (0, 1)");
  if (!(dof > 0)) throw std::invalid_argument("student_t_quantile: degrees of freedom must be > 0");
  if (p == 0.5) return 0.0;
  if (p < 0.5) return -student_t_quantile(1.0 - p, dof);
  double lo = 0.0, hi = 1.0;
  while (student_t_cdf(hi, dof) < p) {
    lo = hi;
    hi *= 2.0;
    if (hi > 1e300) return std::numeric_limits<double>::infinity();
  }
  for (int k = 0; k < 200 && hi - lo > 1e-14 * hi; ++k) {  // bisection: the cdf is monotone
    const double mid = 0.5 * (lo + hi);
    (student_t_cdf(mid, dof) < p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

Interval confidence_interval(const std::vector<double>& samples, double level) {
  if (!(level > 0 && level < 1)) throw std::invalid_argument("confidence_interval: level must be in (0, 1)");
  Interval out;
  out.level = level;
  out.n = static_cast<int>(samples.size());
  if (samples.empty()) return out;
  double sum = 0;
  for (double v : samples) sum += v;
  out.mean = sum / out.n;
  if (out.n < 2) return out;
  double ss = 0;
  for (double v : samples) ss += (v - out.mean) * (v - out.mean);
  const double stddev = std::sqrt(ss / (out.n - 1));
  out.t = student_t_quantile(0.5 * (1.0 + level), out.n - 1);
  out.half_width = out.t * stddev / std::sqrt(static_cast<double>(out.n));
  return out;
}

}  // namespace warpmodel::energy
