// Bounds for numeric options, checked while parsing: "--top: must be >= 0 (got -5)" (CLI11 puts the
// option's name first) instead of CLI11's range with 300-digit limits; and the check of file names.
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

// Integer options (counts, indices, sizes): decimal digits only, in [min, max]. One parser for every
// such option, so that --top and --launch-index refuse the same text the same way ("1e3", "5e-324",
// "", "99999999999999999999" included); the largest count is 2^31 - 1.
inline constexpr long long kLargestCount = 2147483647;
inline CLI::Validator integer_in(long long min, long long max) {
  const std::string rule =
      max == kLargestCount ? ">= " + std::to_string(min) : "in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
  return CLI::Validator(
      [rule, min, max](std::string& text) -> std::string {
        std::size_t digits = text.size() > 0 && (text[0] == '-' || text[0] == '+') ? 1 : 0;
        const bool integer = text.size() > digits &&
                             text.find_first_not_of("0123456789", digits) == std::string::npos;
        if (!integer) return "expected an integer " + rule + ", got '" + text + "'";
        // Beyond 18 digits no value is in range: no conversion needed to say so.
        const bool negative = text[0] == '-';
        const std::string magnitude = text.substr(digits);
        const long long value = magnitude.size() > 18 ? (negative ? min - 1 : max + 1)
                                                      : (negative ? -std::stoll(magnitude) : std::stoll(magnitude));
        if (value < min || value > max)
          return "must be " + (max == kLargestCount && value > max ? "<= " + std::to_string(max) : rule) + " (got " +
                 text + ")";
        return {};
      },
      "INT " + rule);
}
inline CLI::Validator integer_at_least(long long min) { return integer_in(min, kLargestCount); }

// A file or folder name: an empty one is refused here (it would otherwise read as "no option",
// or name no file at all).
inline CLI::Validator path_name() {
  return CLI::Validator(
      [](std::string& text) -> std::string { return text.empty() ? "expected a file or folder name, got ''" : ""; },
      "PATH");
}

}  // namespace warpmodel::cli
