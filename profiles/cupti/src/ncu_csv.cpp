// Nsight Compute's CSV, both layouts (ncu_csv.hpp).
#include "warpmodel/cupti/ncu_csv.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <utility>

#include "warpmodel/json_io.hpp"
#include "warpmodel/support/input_file.hpp"

namespace warpmodel::cupti {
namespace {

[[noreturn]] void fail(const std::string& origin, std::size_t line, std::size_t column, const std::string& what) {
  throw InputError(origin + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + what);
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// A count unit ncu prints (with or without a K/M/G/T prefix).
bool is_count_unit(std::string_view u) {
  static const std::set<std::string_view> counts = {
      "cycle", "inst", "warp", "sector", "request", "thread", "block", "register", "pass", "SM", "cluster",
      "transaction", "wavefront", "instance", "CTA", "tpc", "quad", "pixel", "prim", "texel", "sample", "TPC", "GPC"};
  return counts.count(u) > 0;
}

std::optional<double> si_prefix(char c) {
  switch (c) {
    case 'K': return 1e3;
    case 'M': return 1e6;
    case 'G': return 1e9;
    case 'T': return 1e12;
    default: return std::nullopt;
  }
}

// Nanoseconds per unit of time, for the units ncu prints.
std::optional<double> nanoseconds_per(std::string_view u) {
  if (u == "nsecond" || u == "ns") return 1.0;
  if (u == "usecond" || u == "us") return 1e3;
  if (u == "msecond" || u == "ms") return 1e6;
  if (u == "second" || u == "s") return 1e9;
  return std::nullopt;
}

// The factor of one part of a unit ("Kbyte", "cycle", "usecond") to its base, time in ns.
std::optional<double> part_factor(std::string_view u) {
  if (u.empty() || u == "%") return 1.0;
  if (u == "byte") return 1.0;
  if (u.size() == 5 && u.substr(1) == "byte") return si_prefix(u[0]);  // Kbyte, Mbyte, Gbyte, Tbyte
  if (u == "KiB") return 1024.0;
  if (u == "MiB") return 1024.0 * 1024;
  if (u == "GiB") return 1024.0 * 1024 * 1024;
  if (u == "TiB") return 1024.0 * 1024 * 1024 * 1024;
  if (const auto ns = nanoseconds_per(u)) return ns;
  if (u == "hz" || u == "Hz") return 1.0;
  if (u.size() == 3 && (u.substr(1) == "hz" || u.substr(1) == "Hz")) return si_prefix(u[0]);  // Khz, Mhz, Ghz
  if (is_count_unit(u)) return 1.0;
  if (u.size() > 1 && is_count_unit(u.substr(1))) return si_prefix(u[0]);  // Kcycle, Minst, Gwarp
  return std::nullopt;
}

struct Column {
  std::string name;
  bool metric = false;
};

bool is_metric_column(const std::string& header) { return header.find("__") != std::string::npos; }

void check_field_count(const CsvRecord& r, std::size_t expected, const std::string& origin) {
  if (r.fields.size() == expected) return;
  if (r.fields.size() < expected) {
    const std::size_t column = r.columns.empty() ? 1 : r.columns.back() + r.fields.back().size() + 2;
    fail(origin, r.line, column,
         "the row has " + std::to_string(r.fields.size()) + " fields where the header has " + std::to_string(expected) +
             " (a truncated file, or a line that is not ncu's CSV; write ncu's output with --log-file)");
  }
  fail(origin, r.line, r.columns[expected],
       "the row has " + std::to_string(r.fields.size()) + " fields where the header has " + std::to_string(expected));
}

// Stores one value of `metric` for `launch`: a number in base units, text, or nothing.
void store_value(NcuLaunch& launch, const std::string& metric, const std::string& unit, const std::string& value,
                 std::set<std::string>& unknown_units) {
  if (launch.metrics.count(metric) || launch.text.count(metric)) return;  // the first of repeated rows wins
  if (value.empty() || value == "n/a") return;
  const auto number = parse_ncu_number(value);
  if (!number) {
    launch.text[metric] = value;
    return;
  }
  launch.units[metric] = unit;
  const auto factor = ncu_unit_factor(unit);
  if (!factor) unknown_units.insert(unit);
  launch.metrics[metric] = *number * factor.value_or(1.0);
}

// Names and values go into JSON, which holds UTF-8 only: a line that is not is refused where it breaks.
void check_utf8(const std::string& line, std::size_t line_number, const std::string& origin) {
  if (const auto bad = support::first_invalid_utf8(line)) {
    char byte[8];
    std::snprintf(byte, sizeof byte, "0x%02x", static_cast<unsigned char>(line[*bad]));
    fail(origin, line_number, *bad + 1, std::string("byte ") + byte + " is not UTF-8 (ncu writes UTF-8)");
  }
}

}  // namespace

CsvRecord parse_csv_line(std::string_view line, std::size_t line_number, const std::string& origin) {
  CsvRecord r;
  r.line = line_number;
  std::size_t i = 0;
  while (true) {
    const std::size_t start = i;
    std::string field;
    if (i < line.size() && line[i] == '"') {
      ++i;
      bool closed = false;
      while (i < line.size()) {
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            field += '"';
            i += 2;
            continue;
          }
          closed = true;
          ++i;
          break;
        }
        field += line[i++];
      }
      if (!closed) fail(origin, line_number, start + 1, "a quoted field is never closed (a truncated file?)");
      if (i < line.size() && line[i] != ',')
        fail(origin, line_number, i + 1, "text after the closing quote of a field");
    } else {
      while (i < line.size() && line[i] != ',') {
        if (line[i] == '"') fail(origin, line_number, i + 1, "a quote inside an unquoted field");
        field += line[i++];
      }
    }
    r.fields.push_back(std::move(field));
    r.columns.push_back(start + 1);
    if (i >= line.size()) break;
    ++i;  // the comma
  }
  return r;
}

std::optional<double> parse_ncu_number(std::string_view s) {
  std::size_t i = 0;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
  const std::size_t digits_start = i;
  std::string plain(s.substr(0, i));
  bool grouped = false;
  std::size_t group = 0;  // digits since the start or the last separator
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == ',')) {
    if (s[i] == ',') {
      // A separator follows 1-3 digits (first group) or exactly 3, and is followed by 3 digits.
      if (group == 0 || group > 3 || (grouped && group != 3)) return std::nullopt;
      grouped = true;
      group = 0;
    } else {
      plain += s[i];
      ++group;
    }
    ++i;
  }
  if (i == digits_start || group == 0 || (grouped && group != 3)) return std::nullopt;
  if (i < s.size() && s[i] == '.') {
    plain += '.';
    ++i;
    const std::size_t fraction = i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) plain += s[i++];
    if (i == fraction) return std::nullopt;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E') && !grouped) {
    plain += s[i++];
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) plain += s[i++];
    const std::size_t exponent = i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) plain += s[i++];
    if (i == exponent) return std::nullopt;
  }
  if (i != s.size()) return std::nullopt;
  // 1e999 is no number ncu prints (it prints "inf" as text, and so is no value either).
  const double value = std::strtod(plain.c_str(), nullptr);
  if (!std::isfinite(value)) return std::nullopt;
  return value;
}

std::optional<double> ncu_unit_factor(std::string_view unit) {
  const std::size_t slash = unit.find('/');
  const std::string_view numerator = unit.substr(0, slash);
  auto factor = part_factor(numerator);
  if (!factor) return std::nullopt;
  std::size_t at = slash;
  while (at != std::string_view::npos) {
    const std::size_t next = unit.find('/', at + 1);
    const std::string_view denominator = unit.substr(at + 1, next == std::string_view::npos ? next : next - at - 1);
    if (const auto ns = nanoseconds_per(denominator)) {
      *factor *= 1e9 / *ns;  // per second
    } else {
      const auto d = part_factor(denominator);
      if (!d || denominator.empty() || denominator == "%") return std::nullopt;
      *factor /= *d;
    }
    at = next;
  }
  return factor;
}

std::optional<std::vector<long long>> parse_ncu_dim3(std::string_view text) {
  if (text.size() < 2 || text.front() != '(' || text.back() != ')') return std::nullopt;
  std::vector<long long> dims;
  std::string_view inner = text.substr(1, text.size() - 2);
  while (!inner.empty() || dims.empty()) {
    const std::size_t comma = inner.find(',');
    std::string_view part = inner.substr(0, comma);
    while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
    while (!part.empty() && part.back() == ' ') part.remove_suffix(1);
    if (part.empty() || part.find_first_not_of("0123456789") != std::string_view::npos || part.size() > 10)
      return std::nullopt;
    dims.push_back(std::stoll(std::string(part)));
    if (dims.back() < 1) return std::nullopt;
    if (comma == std::string_view::npos) break;
    inner.remove_prefix(comma + 1);
  }
  if (dims.size() != 3) return std::nullopt;
  return dims;
}

NcuCsvReader::NcuCsvReader(LineSource lines, std::string origin) : lines_(std::move(lines)), origin_(std::move(origin)) {}

// Finds the header ("ID", ...) past ncu's ==PROF== lines; false when the input ends first.
bool NcuCsvReader::read_header() {
  while (lines_(line_)) {
    ++line_number_;
    if (!line_.empty() && line_.back() == '\r') line_.pop_back();
    // A byte-order mark (an editor's, or a Windows tool's) before the header is no part of it.
    if (starts_with(line_, "\xEF\xBB\xBF")) line_.erase(0, 3);
    check_utf8(line_, line_number_, origin_);
    if (line_.empty() || starts_with(line_, "==")) continue;  // ==PROF==, ==WARNING==, ==ERROR==
    if (!starts_with(line_, "\"ID\",") && line_ != "\"ID\"") continue;  // before the header: not ncu's table
    const CsvRecord header = parse_csv_line(line_, line_number_, origin_);
    for (const auto& h : header.fields) {
      columns_.push_back(h);
      metric_columns_.push_back(is_metric_column(h));
    }
    for (std::size_t i = 0; i < columns_.size(); ++i) {
      const std::string& h = columns_[i];
      if (h == "Kernel Name") kernel_column_ = i;
      else if (h == "Metric Name") name_column_ = i;
      else if (h == "Metric Unit") unit_column_ = i;
      else if (h == "Metric Value") value_column_ = i;
    }
    if (columns_[kernel_column_] != "Kernel Name") fail(origin_, line_number_, 1, "the header has no \"Kernel Name\" column");
    if (name_column_ || value_column_) {
      if (!name_column_ || !value_column_)
        fail(origin_, line_number_, 1, "the header has \"Metric Name\" or \"Metric Value\" but not both");
      layout_ = NcuCsvLayout::Long;
    } else {
      layout_ = NcuCsvLayout::Wide;
      units_row_possible_ = true;
    }
    return true;
  }
  return false;
}

NcuLaunch NcuCsvReader::start_long_launch(const CsvRecord& row) {
  const std::string& id = row.fields[id_column_];
  if (const auto seen = seen_ids_.find(id); seen != seen_ids_.end())
    fail(origin_, row.line, row.columns[id_column_],
         "ID " + id + " comes back after other launches' rows (its rows start on line " + std::to_string(seen->second) +
             "); ncu prints a launch's rows together");
  seen_ids_.emplace(id, row.line);
  NcuLaunch launch;
  launch.id = id;
  launch.line = row.line;
  launch.kernel_name = row.fields[kernel_column_];
  for (std::size_t i = 0; i < columns_.size(); ++i) {
    const std::string& h = columns_[i];
    if (i == id_column_ || i == kernel_column_ || i == *name_column_ || i == *value_column_ ||
        (unit_column_ && i == *unit_column_) || h == "Section Name" || starts_with(h, "Rule ") ||
        starts_with(h, "Estimated Speedup"))
      continue;
    launch.fields[h] = row.fields[i];
  }
  return launch;
}

std::optional<NcuLaunch> NcuCsvReader::next() {
  if (ended_) return std::nullopt;
  if (!header_read_) {
    header_read_ = true;
    if (!read_header())
      throw InputError(origin_ + ": no ncu CSV header (a line starting with \"ID\") found; expected the output of "
                                 "`ncu --csv ...` or `ncu --import R.ncu-rep --csv --page raw`");
  }
  while (lines_(line_)) {
    ++line_number_;
    if (!line_.empty() && line_.back() == '\r') line_.pop_back();
    check_utf8(line_, line_number_, origin_);
    if (line_.empty() || starts_with(line_, "==")) continue;
    const CsvRecord row = parse_csv_line(line_, line_number_, origin_);
    check_field_count(row, columns_.size(), origin_);
    const std::string& id = row.fields[id_column_];
    if (units_row_possible_) {
      units_row_possible_ = false;
      if (id.empty()) {
        units_ = row.fields;
        continue;
      }
    }
    if (id.empty()) fail(origin_, line_number_, row.columns[id_column_], "the row has no ID");
    if (layout_ == NcuCsvLayout::Wide) {
      if (const auto seen = seen_ids_.find(id); seen != seen_ids_.end())
        fail(origin_, line_number_, row.columns[id_column_],
             "ID " + id + " appears twice (first on line " + std::to_string(seen->second) + ")");
      seen_ids_.emplace(id, line_number_);
      NcuLaunch launch;
      launch.id = id;
      launch.line = line_number_;
      launch.kernel_name = row.fields[kernel_column_];
      for (std::size_t i = 0; i < columns_.size(); ++i) {
        if (i == id_column_ || i == kernel_column_) continue;
        if (metric_columns_[i])
          store_value(launch, columns_[i], i < units_.size() ? units_[i] : "", row.fields[i], unknown_units_);
        else
          launch.fields[columns_[i]] = row.fields[i];
      }
      return launch;
    }
    // Long layout: the rows of one ID make one launch; the next ID's first row closes it.
    std::optional<NcuLaunch> finished;
    if (open_ && open_->id != id) finished = std::exchange(open_, std::nullopt);
    if (!open_) open_ = start_long_launch(row);
    NcuLaunch& launch = *open_;
    if (row.fields[kernel_column_] != launch.kernel_name)
      fail(origin_, line_number_, row.columns[kernel_column_],
           "ID " + id + " names kernel '" + row.fields[kernel_column_] + "' here and '" + launch.kernel_name +
               "' on line " + std::to_string(launch.line));
    const std::string& metric = row.fields[*name_column_];
    if (metric.empty()) fail(origin_, line_number_, row.columns[*name_column_], "the row has no metric name");
    store_value(launch, metric, unit_column_ ? row.fields[*unit_column_] : "", row.fields[*value_column_], unknown_units_);
    if (finished) return finished;
  }
  ended_ = true;
  return std::exchange(open_, std::nullopt);
}

std::vector<std::string> NcuCsvReader::warnings() const {
  std::vector<std::string> out;
  for (const auto& u : unknown_units_) out.push_back("unknown unit '" + u + "': values in it are kept as printed");
  return out;
}

NcuReport parse_ncu_csv(std::string_view text, const std::string& origin) {
  std::size_t at = 0;
  NcuCsvReader reader(
      [&](std::string& line) {
        if (at > text.size()) return false;
        const std::size_t newline = text.find('\n', at);
        const std::size_t end = newline == std::string_view::npos ? text.size() : newline;
        line.assign(text.substr(at, end - at));
        at = end + 1;
        return true;
      },
      origin);
  NcuReport report;
  while (auto launch = reader.next()) report.launches.push_back(std::move(*launch));
  report.layout = reader.layout();
  report.warnings = reader.warnings();
  return report;
}

}  // namespace warpmodel::cupti
