// Nsight Compute's CSV, both layouts (ncu_csv.hpp).
#include "warpmodel/cupti/ncu_csv.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <set>

#include "warpmodel/json_io.hpp"

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
  return std::strtod(plain.c_str(), nullptr);
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

NcuReport parse_ncu_csv(std::string_view text, const std::string& origin) {
  NcuReport report;
  std::vector<Column> columns;
  std::size_t id_column = 0, kernel_column = 0;
  std::optional<std::size_t> name_column, unit_column, value_column;  // long layout
  bool units_row_possible = false;
  std::vector<std::string> units;  // wide layout: the units row
  std::map<std::string, std::size_t> launch_by_id;
  std::set<std::string> unknown_units;
  std::size_t line_number = 0;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t newline = text.find('\n', at);
    std::string_view line = text.substr(at, newline == std::string_view::npos ? std::string_view::npos : newline - at);
    at = newline == std::string_view::npos ? text.size() + 1 : newline + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || starts_with(line, "==")) continue;  // ==PROF==, ==WARNING==, ==ERROR==
    if (columns.empty()) {
      if (!starts_with(line, "\"ID\",") && line != "\"ID\"") continue;  // before the header: not ncu's table
      const CsvRecord header = parse_csv_line(line, line_number, origin);
      for (const auto& h : header.fields) columns.push_back({h, is_metric_column(h)});
      for (std::size_t i = 0; i < columns.size(); ++i) {
        const std::string& h = columns[i].name;
        if (h == "Kernel Name") kernel_column = i;
        else if (h == "Metric Name") name_column = i;
        else if (h == "Metric Unit") unit_column = i;
        else if (h == "Metric Value") value_column = i;
      }
      if (columns[kernel_column].name != "Kernel Name")
        fail(origin, line_number, 1, "the header has no \"Kernel Name\" column");
      if (name_column || value_column) {
        if (!name_column || !value_column)
          fail(origin, line_number, 1, "the header has \"Metric Name\" or \"Metric Value\" but not both");
        report.layout = NcuCsvLayout::Long;
      } else {
        report.layout = NcuCsvLayout::Wide;
        units_row_possible = true;
      }
      continue;
    }
    const CsvRecord row = parse_csv_line(line, line_number, origin);
    check_field_count(row, columns.size(), origin);
    const std::string& id = row.fields[id_column];
    if (units_row_possible) {
      units_row_possible = false;
      if (id.empty()) {
        units = row.fields;
        continue;
      }
    }
    if (id.empty()) fail(origin, line_number, row.columns[id_column], "the row has no ID");
    if (report.layout == NcuCsvLayout::Wide) {
      if (const auto seen = launch_by_id.find(id); seen != launch_by_id.end())
        fail(origin, line_number, row.columns[id_column],
             "ID " + id + " appears twice (first on line " + std::to_string(report.launches[seen->second].line) + ")");
      NcuLaunch launch;
      launch.id = id;
      launch.line = line_number;
      launch.kernel_name = row.fields[kernel_column];
      for (std::size_t i = 0; i < columns.size(); ++i) {
        if (i == id_column || i == kernel_column) continue;
        if (columns[i].metric)
          store_value(launch, columns[i].name, i < units.size() ? units[i] : "", row.fields[i], unknown_units);
        else
          launch.fields[columns[i].name] = row.fields[i];
      }
      launch_by_id[id] = report.launches.size();
      report.launches.push_back(std::move(launch));
      continue;
    }
    // Long layout: the rows of one ID make one launch.
    auto found = launch_by_id.find(id);
    if (found == launch_by_id.end()) {
      NcuLaunch launch;
      launch.id = id;
      launch.line = line_number;
      launch.kernel_name = row.fields[kernel_column];
      for (std::size_t i = 0; i < columns.size(); ++i) {
        const std::string& h = columns[i].name;
        if (i == id_column || i == kernel_column || i == *name_column || i == *value_column ||
            (unit_column && i == *unit_column) || h == "Section Name" || starts_with(h, "Rule ") ||
            starts_with(h, "Estimated Speedup"))
          continue;
        launch.fields[h] = row.fields[i];
      }
      found = launch_by_id.emplace(id, report.launches.size()).first;
      report.launches.push_back(std::move(launch));
    }
    NcuLaunch& launch = report.launches[found->second];
    if (row.fields[kernel_column] != launch.kernel_name)
      fail(origin, line_number, row.columns[kernel_column],
           "ID " + id + " names kernel '" + row.fields[kernel_column] + "' here and '" + launch.kernel_name +
               "' on line " + std::to_string(launch.line));
    const std::string& metric = row.fields[*name_column];
    if (metric.empty()) fail(origin, line_number, row.columns[*name_column], "the row has no metric name");
    store_value(launch, metric, unit_column ? row.fields[*unit_column] : "", row.fields[*value_column], unknown_units);
  }
  if (columns.empty())
    throw InputError(origin + ": no ncu CSV header (a line starting with \"ID\") found; expected the output of "
                              "`ncu --csv ...` or `ncu --import R.ncu-rep --csv --page raw`");
  for (const auto& u : unknown_units)
    report.warnings.push_back("unknown unit '" + u + "': values in it are kept as printed");
  return report;
}

}  // namespace warpmodel::cupti
