// Bounds for numeric options, checked while parsing: "--top: must be >= 0 (got -5)" (CLI11 puts the
// option's name first) instead of CLI11's range with 300-digit limits.
#pragma once

#include <cmath>
#include <string>

#include <CLI/CLI.hpp>

namespace warpmodel::cli {

namespace detail {
inline std::string bound_text(double x) {
  std::string s = std::to_string(x);
  if (x == std::floor(x) && std::fabs(x) < 1e15) s = std::to_string(static_cast<long long>(x));
  return s;
}
// Checks that the option's text is a finite number and that `ok(value)` holds; else "must be <rule>".
template <class Ok>
CLI::Validator numeric_bound(const std::string& rule, Ok ok) {
  return CLI::Validator(
      [rule, ok](std::string& text) -> std::string {
        double value = 0;
        try {
          std::size_t used = 0;
          value = std::stod(text, &used);
          if (used != text.size()) return "expected a number " + rule + ", got '" + text + "'";
        } catch (const std::exception&) {
          return "expected a number " + rule + ", got '" + text + "'";
        }
        if (!std::isfinite(value) || !ok(value)) return "must be " + rule + " (got " + text + ")";
        return {};
      },
      rule);
}
}  // namespace detail

inline CLI::Validator at_least(double min) {
  return detail::numeric_bound(">= " + detail::bound_text(min), [min](double v) { return v >= min; });
}
inline CLI::Validator greater_than(double min) {
  return detail::numeric_bound("> " + detail::bound_text(min), [min](double v) { return v > min; });
}
inline CLI::Validator in_range(double lo, double hi) {
  return detail::numeric_bound("in [" + detail::bound_text(lo) + ", " + detail::bound_text(hi) + "]",
                               [lo, hi](double v) { return v >= lo && v <= hi; });
}

}  // namespace warpmodel::cli
