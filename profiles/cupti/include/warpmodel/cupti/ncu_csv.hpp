// Nsight Compute's CSV output, read once for every use (the CUPTI-vs-ncu comparison and
// `warpmodel import-ncu`). Plain C++, no CUPTI.
//
// ncu prints two layouts:
//   wide ("--page raw", also `ncu --import R.ncu-rep --csv --page raw`): a header row ("ID",
//        "Process ID", ..., "Kernel Name", ..., one column per metric), a units row (empty ID),
//        then one row per profiled launch;
//   long ("--csv --metrics a,b" and the details page): a header row ending in "Metric Name",
//        "Metric Unit", "Metric Value" (newer versions add rule columns), then one row per launch
//        x metric; the launch is the "ID" column.
// Both may be preceded by "==PROF==" / "==WARNING==" lines, which are skipped. Every field is
// quoted; numbers carry thousands separators ("1,234,567.5"); values are in the unit printed
// beside them (with --print-units base: byte, ns, cycle, ...; else auto-scaled: Kbyte, usecond,
// Mcycle, ...) and are converted here to base units (byte, ns, counts, per second).
//
// Strict where the file is broken (an unbalanced quote, a row whose field count differs from the
// header's, a truncated last line, no header): InputError "<origin>:<line>:<column>: ...".
// Lenient where ncu itself varies: unknown columns are kept; a value that is not a number
// ("n/a", empty, "CachePreferNone") is no metric value (kept as text where not empty/n/a); an
// unknown unit keeps the value as printed and is reported in NcuReport::warnings.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace warpmodel::cupti {

// One CSV record (RFC 4180: fields separated by commas, optionally quoted, "" inside quotes is a
// quote): its fields, its 1-based line number and the 1-based column where each field starts.
struct CsvRecord {
  std::size_t line = 0;
  std::vector<std::string> fields;
  std::vector<std::size_t> columns;
};

// Splits one line into fields. Throws InputError "<origin>:<line>:<column>: ..." for a quote that
// is never closed or text after a closing quote.
CsvRecord parse_csv_line(std::string_view line, std::size_t line_number, const std::string& origin);

// "1,234,567.5" -> 1234567.5; "-3", "1e9", "12.5" as written. Anything else (including "n/a", "",
// misplaced separators "12,34") -> nothing.
std::optional<double> parse_ncu_number(std::string_view text);

// The factor that converts a value printed in `unit` to warpmodel's base units: bytes (SI
// Kbyte/Mbyte/Gbyte/Tbyte = 1e3.., binary KiB/MiB/GiB/TiB = 2^10..), nanoseconds (nsecond, usecond,
// msecond, second and ns, us, ms, s), hertz, counts (cycle, inst, warp, sector, request, thread,
// block, register, ... and those with a K/M/G/T prefix), percent (%); a rate "X/Y" is converted
// part by part with time in the denominator per second (Gbyte/second -> byte/second,
// cycle/nsecond -> cycle/second). "" = 1. Nothing for a unit it does not know.
std::optional<double> ncu_unit_factor(std::string_view unit);

enum class NcuCsvLayout { Wide, Long };

// One profiled launch.
struct NcuLaunch {
  std::string id;            // ncu's "ID" column (unique per launch in a report)
  std::size_t line = 0;      // where it starts in the file
  std::string kernel_name;   // "Kernel Name" as printed (demangled, function-only or mangled)
  std::map<std::string, std::string> fields;  // the other non-metric columns: "Grid Size", "CC", ...
  std::map<std::string, double> metrics;      // metric -> value in base units
  std::map<std::string, std::string> units;   // metric -> unit as printed
  std::map<std::string, std::string> text;    // metrics whose value is text ("CachePreferNone")
};

struct NcuReport {
  NcuCsvLayout layout = NcuCsvLayout::Wide;
  std::vector<NcuLaunch> launches;     // in the file's order
  std::vector<std::string> warnings;   // e.g. unknown units
};

// Parses ncu's CSV (either layout). Throws InputError for a broken file (see above), for no
// header, and for a long layout without the "Metric Name"/"Metric Value" columns.
NcuReport parse_ncu_csv(std::string_view text, const std::string& origin);

// The same reader, a launch at a time, from lines it is handed one by one: what it holds is one
// launch, never the file (import-ncu's memory does not grow with the file). A launch's metric rows
// must be together, as ncu prints them (an ID that comes back after another's rows is refused). A
// UTF-8 byte-order mark before the header is skipped; a line that is not UTF-8 is refused.
class NcuCsvReader {
 public:
  // Puts the next line (without its '\n') in `line`; false at the end of the input.
  using LineSource = std::function<bool(std::string& line)>;
  NcuCsvReader(LineSource lines, std::string origin);

  // The next launch in the file's order, nothing after the last. Throws InputError.
  std::optional<NcuLaunch> next();
  NcuCsvLayout layout() const { return layout_; }
  // Unknown units, once next() has returned nothing.
  std::vector<std::string> warnings() const;

 private:
  bool read_header();
  NcuLaunch start_long_launch(const CsvRecord& row);

  LineSource lines_;
  std::string origin_;
  std::string line_;
  std::size_t line_number_ = 0;
  bool header_read_ = false, ended_ = false;
  NcuCsvLayout layout_ = NcuCsvLayout::Wide;
  std::vector<std::string> columns_;
  std::vector<bool> metric_columns_;
  std::size_t id_column_ = 0, kernel_column_ = 0;
  std::optional<std::size_t> name_column_, unit_column_, value_column_;  // long layout
  bool units_row_possible_ = false;
  std::vector<std::string> units_;                 // wide layout: the units row
  std::map<std::string, std::size_t> seen_ids_;    // ID -> the line it started on
  std::optional<NcuLaunch> open_;                  // long layout: the launch whose rows are being read
  std::set<std::string> unknown_units_;
};

// "(256, 1, 1)" -> {256, 1, 1}; nothing when it is not three positive integers in parentheses.
std::optional<std::vector<long long>> parse_ncu_dim3(std::string_view text);

}  // namespace warpmodel::cupti
