#include "harness.hpp"

#include <algorithm>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace warpmodel::corpus::detail {

std::vector<std::size_t> sample_indices(std::size_t n, std::size_t count) {
  std::vector<std::size_t> out;
  if (n <= count) {
    for (std::size_t i = 0; i < n; ++i) out.push_back(i);
    return out;
  }
  const std::size_t spaced = count / 2;
  for (std::size_t k = 0; k < spaced; ++k) out.push_back(k * (n - 1) / (spaced - 1));  // 0 .. n - 1
  for (std::size_t k = 0; out.size() < count; ++k) out.push_back(random_bits(0x5A3D1E, k) % n);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

void Comparison::near(std::size_t index, double got, double expected, double magnitude) {
  ++checked_;
  // The smallest normal float keeps a zero magnitude (all-zero terms) from demanding bit equality.
  const double tolerance = rtol_ * std::max(std::abs(magnitude), 1e-30);
  if (!(std::abs(got - expected) <= tolerance)) fail(index, got, expected, tolerance);
}

void Comparison::equal(std::size_t index, double got, double expected) {
  ++checked_;
  if (!(got == expected)) fail(index, got, expected, 0);
}

void Comparison::fail(std::size_t index, double got, double expected, double tolerance) {
  if (wrong_++ == 0) {
    std::ostringstream s;
    s.precision(9);
    s << what_ << "[" << index << "] = " << got << ", expected " << expected;
    if (tolerance > 0) s << " (tolerance " << tolerance << ")";
    first_ = s.str();
  }
}

std::string Comparison::verdict() const {
  if (wrong_ == 0) return "";
  return std::to_string(wrong_) + " of " + std::to_string(checked_) + " checked outputs wrong; first: " + first_;
}

int as_int(long long v, std::string_view what) {
  if (v < 0 || v > std::numeric_limits<int>::max())
    throw std::invalid_argument("corpus: " + std::string(what) + " = " + std::to_string(v) + " does not fit an int");
  return static_cast<int>(v);
}

}  // namespace warpmodel::corpus::detail
