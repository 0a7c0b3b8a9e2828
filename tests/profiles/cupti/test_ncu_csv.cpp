// The one reader of Nsight Compute's CSV (ncu_csv.hpp) on real ncu output
// (fixtures/ncu-comparison/ncu-0.csv, ncu 2025.3.1 on the H200), on the real files of the example
// program in ncu's two layouts (fixtures/app-example), and on tampered copies of both.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <algorithm>
#include <sstream>
#include <functional>
#include <filesystem>
#include <string>

#include "warpmodel/cupti/ncu_csv.hpp"
#include "warpmodel/json_io.hpp"
#include "warpmodel/support/text.hpp"

namespace wc = warpmodel::cupti;
namespace fs = std::filesystem;

namespace {

const fs::path kFixtures = WARPMODEL_CUPTI_FIXTURES;

std::string fixture(const std::string& relative) {
  const auto text = warpmodel::support::read_text_file(kFixtures / relative);
  if (!text) throw std::runtime_error("missing fixture " + relative);
  return *text;
}

// The InputError message of parsing `text` ("" when it parses).
std::string parse_error(const std::string& text) {
  try {
    wc::parse_ncu_csv(text, "t.csv");
  } catch (const warpmodel::InputError& e) {
    return e.what();
  }
  return "";
}

// `text` with the first `from` replaced by `to` (the tampering must hit: a test that tampers
// nothing cannot fail).
std::string tamper(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  if (at == std::string::npos) throw std::runtime_error("tamper: '" + from + "' not found");
  return text.replace(at, from.size(), to);
}

std::size_t line_of(const std::string& text, const std::string& needle) {
  const auto at = text.find(needle);
  return static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<long>(at), '\n')) + 1;
}

}  // namespace

TEST(NcuCsvLine, QuotesEscapesAndWhereItBreaks) {
  auto r = wc::parse_csv_line(R"("a","b,c","say ""hi""",plain,)", 7, "f");
  ASSERT_EQ(r.fields.size(), 5u);
  EXPECT_EQ(r.fields[1], "b,c");
  EXPECT_EQ(r.fields[2], "say \"hi\"");
  EXPECT_EQ(r.fields[3], "plain");
  EXPECT_EQ(r.fields[4], "");
  EXPECT_EQ(r.columns[1], 5u);
  EXPECT_EQ(r.line, 7u);
  try {
    wc::parse_csv_line(R"("a","unclosed)", 3, "f.csv");
    FAIL();
  } catch (const warpmodel::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("f.csv:3:5: a quoted field is never closed"), std::string::npos) << e.what();
  }
  EXPECT_THROW(wc::parse_csv_line(R"("a"x,"b")", 1, "f"), warpmodel::InputError);
  EXPECT_THROW(wc::parse_csv_line(R"(a"b)", 1, "f"), warpmodel::InputError);
}

TEST(NcuCsvNumbers, ThousandsSeparatorsAndNothingElse) {
  EXPECT_EQ(wc::parse_ncu_number("1,234,567.5"), 1234567.5);
  EXPECT_EQ(wc::parse_ncu_number("65,536"), 65536.0);
  EXPECT_EQ(wc::parse_ncu_number("12.50"), 12.5);
  EXPECT_EQ(wc::parse_ncu_number("-3"), -3.0);
  EXPECT_EQ(wc::parse_ncu_number("1e9"), 1e9);
  EXPECT_EQ(wc::parse_ncu_number("0"), 0.0);
  for (const char* bad : {"", "n/a", "12,34", "1234,567", ",123", "1,,234", "1.2.3", "12 %", "CachePreferNone", "1,234e5", "."})
    EXPECT_FALSE(wc::parse_ncu_number(bad).has_value()) << bad;
}

TEST(NcuCsvUnits, EveryUnitToBaseUnits) {
  const std::pair<const char*, double> known[] = {
      {"", 1},           {"%", 1},          {"byte", 1},         {"Kbyte", 1e3},       {"Mbyte", 1e6},
      {"Gbyte", 1e9},    {"Tbyte", 1e12},   {"KiB", 1024},       {"MiB", 1048576},     {"GiB", 1073741824},
      {"nsecond", 1},    {"usecond", 1e3},  {"msecond", 1e6},    {"second", 1e9},      {"ns", 1},
      {"us", 1e3},       {"ms", 1e6},       {"s", 1e9},          {"cycle", 1},         {"Kcycle", 1e3},
      {"Mcycle", 1e6},   {"inst", 1},       {"Minst", 1e6},      {"warp", 1},          {"sector", 1},
      {"request", 1},    {"Ginst", 1e9},    {"register/thread", 1}, {"byte/block", 1},  {"Kbyte/block", 1e3},
      {"byte/second", 1}, {"Gbyte/second", 1e9}, {"Tbyte/second", 1e12}, {"cycle/nsecond", 1e9}, {"cycle/usecond", 1e6},
      {"inst/cycle", 1}, {"hz", 1},         {"Ghz", 1e9},        {"pass", 1},          {"SM", 1}};
  for (const auto& [unit, factor] : known) {
    const auto f = wc::ncu_unit_factor(unit);
    ASSERT_TRUE(f.has_value()) << unit;
    EXPECT_DOUBLE_EQ(*f, factor) << unit;
  }
  for (const char* unknown : {"furlong", "Xbyte", "byte/furlong", "cycle/%"})
    EXPECT_FALSE(wc::ncu_unit_factor(unknown).has_value()) << unknown;
}

TEST(NcuCsvDims, ShapesInParentheses) {
  EXPECT_EQ(wc::parse_ncu_dim3("(256, 1, 1)"), (std::vector<long long>{256, 1, 1}));
  EXPECT_EQ(wc::parse_ncu_dim3("(32,32,1)"), (std::vector<long long>{32, 32, 1}));
  for (const char* bad : {"256", "(256, 1)", "(0, 1, 1)", "(a, 1, 1)", "", "(1, 1, 1, 1)"})
    EXPECT_FALSE(wc::parse_ncu_dim3(bad).has_value()) << bad;
}

TEST(NcuCsvRealOutput, TheRawPageOfTheH200) {
  const std::string text = fixture("ncu-comparison/ncu-0.csv");
  const wc::NcuReport r = wc::parse_ncu_csv(text, "ncu-0.csv");
  EXPECT_EQ(r.layout, wc::NcuCsvLayout::Wide);
  ASSERT_EQ(r.launches.size(), 1u);
  const wc::NcuLaunch& l = r.launches[0];
  EXPECT_EQ(l.id, "0");
  EXPECT_EQ(l.kernel_name, "unnamed>::copy_kernel(const float *, float *, long long)");
  EXPECT_EQ(l.fields.at("Grid Size"), "(65536, 1, 1)");
  EXPECT_EQ(l.fields.at("CC"), "9.0");
  EXPECT_EQ(l.metrics.at("smsp__warps_launched.sum"), 524288.0);
  EXPECT_EQ(l.metrics.at("dram__bytes_read.sum"), 67120128.0);  // "67,120,128" byte
  EXPECT_EQ(l.units.at("dram__bytes_read.sum"), "byte");
  EXPECT_EQ(l.metrics.at("gpu__time_duration.sum"), 52768.0);   // ns, base unit
  EXPECT_DOUBLE_EQ(l.metrics.at("lts__t_sector_hit_rate.pct"), 50.38);
  EXPECT_EQ(l.metrics.at("launch__registers_per_thread"), 16.0);
  EXPECT_EQ(l.text.at("launch__func_cache_config"), "CachePreferNone");
  EXPECT_EQ(l.text.at("device__attribute_display_name"), "NVIDIA H200");
  EXPECT_TRUE(r.warnings.empty()) << warpmodel::support::join(r.warnings);
}

// The example program's real ncu output in both layouts (two ncu runs of the same program): the
// same launches, shapes and names, and the same work counts (instructions, warps, requests,
// sectors do not move from run to run; times and cache-dependent counts may).
TEST(NcuCsvLayouts, TheSameLaunchesInBothLayouts) {
  const wc::NcuReport raw = wc::parse_ncu_csv(fixture("app-example/ncu-raw.csv"), "raw");
  const wc::NcuReport rows = wc::parse_ncu_csv(fixture("app-example/ncu-long.csv"), "long");
  EXPECT_EQ(raw.layout, wc::NcuCsvLayout::Wide);
  EXPECT_EQ(rows.layout, wc::NcuCsvLayout::Long);
  ASSERT_EQ(raw.launches.size(), 12u) << "two repetitions of the program's 6 launches";
  ASSERT_EQ(rows.launches.size(), 12u);
  for (std::size_t i = 0; i < raw.launches.size(); ++i) {
    const auto& a = raw.launches[i];
    const auto& b = rows.launches[i];
    EXPECT_EQ(a.id, b.id);
    EXPECT_EQ(a.fields.at("Grid Size"), b.fields.at("Grid Size"));
    EXPECT_EQ(a.fields.at("Block Size"), b.fields.at("Block Size"));
    EXPECT_EQ(b.fields.count("Section Name"), 0u) << "a per-row column, not the launch's";
    for (const char* work : {"smsp__inst_executed.sum", "smsp__warps_launched.sum",
                             "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"}) {
      ASSERT_TRUE(a.metrics.count(work) && b.metrics.count(work)) << work << " of " << i;
      EXPECT_EQ(a.metrics.at(work), b.metrics.at(work)) << work << " of " << i;
    }
    // The raw page prints every metric's roll-ups (.min, .max, ...); the metric rows only those asked.
    for (const auto& [metric, value] : b.metrics) {
      if (metric.rfind("launch__", 0) != 0) {
        EXPECT_TRUE(a.metrics.count(metric)) << metric << " of " << i;
      }
    }
  }
  // Durations in base units (ns) whichever unit ncu printed them in.
  EXPECT_GT(rows.launches[0].metrics.at("gpu__time_duration.sum"), 1000.0);
  EXPECT_NEAR(rows.launches[0].metrics.at("gpu__time_duration.sum"), raw.launches[0].metrics.at("gpu__time_duration.sum"),
              0.1 * raw.launches[0].metrics.at("gpu__time_duration.sum"));
  EXPECT_EQ(rows.launches[2].metrics.at("launch__shared_mem_per_block_static"), 1024.0) << "int[256] of the reduction";
}

namespace {
// `text` (an ncu file) with one column of the raw page rewritten: its unit in the units row, and
// every data row's value through `value` (the field as printed -> the new field).
std::string rewrite_raw_column(const std::string& text, const std::string& metric, const std::string& unit,
                               const std::function<std::string(const std::string&)>& value) {
  std::istringstream in(text);
  std::ostringstream out;
  std::string line;
  std::size_t column = std::string::npos, line_number = 0, data = 0;
  auto quoted = [](const std::vector<std::string>& fields) {
    std::string row;
    for (std::size_t i = 0; i < fields.size(); ++i) row += (i ? ",\"" : "\"") + fields[i] + "\"";
    return row;
  };
  while (std::getline(in, line)) {
    ++line_number;
    if (line.rfind("\"", 0) != 0) {
      out << line << "\n";
      continue;
    }
    auto fields = wc::parse_csv_line(line, line_number, "t").fields;
    if (column == std::string::npos) {
      column = static_cast<std::size_t>(std::find(fields.begin(), fields.end(), metric) - fields.begin());
      if (column >= fields.size()) throw std::runtime_error("no column " + metric);
    } else if (data++ == 0) {
      fields[column] = unit;  // the units row
    } else {
      fields[column] = value(fields[column]);
    }
    out << quoted(fields) << "\n";
  }
  return out.str();
}
std::string without_separators(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), ','), s.end());
  return s;
}
}  // namespace

TEST(NcuCsvTampered, ScaledUnitsAndSeparatorsReadTheSame) {
  const std::string raw = fixture("app-example/ncu-raw.csv");
  const auto original = wc::parse_ncu_csv(raw, "a").launches;
  // The raw page with the DRAM-read column printed in Mbyte, every value divided by 1e6.
  const std::string scaled = rewrite_raw_column(raw, "dram__bytes_read.sum", "Mbyte", [](const std::string& v) {
    char text[64];
    std::snprintf(text, sizeof text, "%.6f", std::stod(without_separators(v)) / 1e6);
    return std::string(text);
  });
  const auto launches = wc::parse_ncu_csv(scaled, "b").launches;
  ASSERT_EQ(launches.size(), original.size());
  for (std::size_t i = 0; i < launches.size(); ++i) {
    EXPECT_NEAR(launches[i].metrics.at("dram__bytes_read.sum"), original[i].metrics.at("dram__bytes_read.sum"), 1e-3) << i;
    EXPECT_EQ(launches[i].units.at("dram__bytes_read.sum"), "Mbyte");
  }
  // Without thousands separators: the same numbers.
  const auto plain = wc::parse_ncu_csv(rewrite_raw_column(raw, "dram__bytes_read.sum", "byte", without_separators), "c").launches;
  for (std::size_t i = 0; i < plain.size(); ++i)
    EXPECT_EQ(plain[i].metrics.at("dram__bytes_read.sum"), original[i].metrics.at("dram__bytes_read.sum")) << i;
  // Misplaced separators: not a number, so no value (kept as text), never a wrong one.
  const std::string text = fixture("ncu-comparison/ncu-0.csv");
  const std::string broken = tamper(text, "\"67,120,128\"", "\"6,71,20,128\"");
  const auto l = wc::parse_ncu_csv(broken, "d").launches[0];
  EXPECT_EQ(l.metrics.count("dram__bytes_read.sum"), 0u);
  EXPECT_EQ(l.text.at("dram__bytes_read.sum"), "6,71,20,128");
  // The metric rows: the first duration printed in another unit.
  const std::string rows = fixture("app-example/ncu-long.csv");
  const auto first = wc::parse_ncu_csv(rows, "e").launches[0];
  const double ns = first.metrics.at("gpu__time_duration.sum");
  const std::string row_start = "\"gpu__time_duration.sum\",\"" + first.units.at("gpu__time_duration.sum") + "\",\"";
  const std::size_t at = rows.find(row_start);
  ASSERT_NE(at, std::string::npos);
  const std::size_t value_end = rows.find('"', at + row_start.size());
  char in_ms[64];
  std::snprintf(in_ms, sizeof in_ms, "%.9f", ns / 1e6);
  const std::string tampered = rows.substr(0, at) + "\"gpu__time_duration.sum\",\"msecond\",\"" + in_ms + rows.substr(value_end);
  EXPECT_NEAR(wc::parse_ncu_csv(tampered, "f").launches[0].metrics.at("gpu__time_duration.sum"), ns, 1e-3);
  const std::string unknown = rows.substr(0, at) + "\"gpu__time_duration.sum\",\"fortnight" + rows.substr(at + row_start.size() - 3);
  const auto r = wc::parse_ncu_csv(unknown, "g");
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("unknown unit 'fortnight'"), std::string::npos);
}

TEST(NcuCsvTampered, BrokenFilesNameTheLineAndColumn) {
  const std::string raw = fixture("ncu-comparison/ncu-0.csv");
  const std::size_t data_line = line_of(raw, "\"0\",\"15130\"");
  // A missing field in the data row.
  std::string e = parse_error(tamper(raw, "\"15130\",", ""));
  EXPECT_NE(e.find("t.csv:" + std::to_string(data_line) + ":"), std::string::npos) << e;
  EXPECT_NE(e.find("fields where the header has 367"), std::string::npos) << e;
  // One field too many.
  e = parse_error(tamper(raw, "\"15130\",", "\"15130\",\"extra\","));
  EXPECT_NE(e.find("t.csv:" + std::to_string(data_line) + ":"), std::string::npos) << e;
  // An unbalanced quote.
  e = parse_error(tamper(raw, "\"15130\"", "\"15130"));
  EXPECT_NE(e.find("t.csv:" + std::to_string(data_line) + ":"), std::string::npos) << e;
  // A truncated file: cut in the middle of the data row.
  const std::string truncated = raw.substr(0, raw.find("\"0\",\"15130\"") + 2000);
  e = parse_error(truncated);
  EXPECT_NE(e.find("t.csv:" + std::to_string(data_line) + ":"), std::string::npos) << e;
  // Cut in the middle of a quoted field.
  const std::size_t quote = truncated.rfind("\"") + 1;
  e = parse_error(truncated.substr(0, quote + 2).append("1"));
  EXPECT_FALSE(e.empty());
  // No header at all, or the header without "Kernel Name".
  EXPECT_NE(parse_error("==PROF== No kernels were profiled.\n").find("no ncu CSV header"), std::string::npos);
  EXPECT_NE(parse_error(tamper(raw, "\"Kernel Name\"", "\"Kernel\"")).find("no \"Kernel Name\" column"), std::string::npos);
  // The same launch twice on the raw page.
  const std::string row = raw.substr(raw.find("\"0\",\"15130\""));
  e = parse_error(raw + row);
  EXPECT_NE(e.find("ID 0 appears twice"), std::string::npos) << e;
  // The metric rows without "Metric Value", or one row of another launch's kernel under its ID.
  const std::string rows = fixture("app-example/ncu-long.csv");
  EXPECT_NE(parse_error(tamper(rows, "\"Metric Value\"", "\"Value\"")).find("\"Metric Name\" or \"Metric Value\" but not both"),
            std::string::npos);
  const std::size_t second_row = line_of(rows, "\"dram__bytes_write.sum\"");
  e = parse_error(tamper(rows, "app_example::copy_kernel(const float *, float *, long long)\",\"1\",\"7\",\"(256, 1, 1)\",\"(65536, 1, 1)\",\"0\",\"9.0\",\"Command line profiler metrics\",\"dram__bytes_write.sum\"",
                         "app_example::other(int)\",\"1\",\"7\",\"(256, 1, 1)\",\"(65536, 1, 1)\",\"0\",\"9.0\",\"Command line profiler metrics\",\"dram__bytes_write.sum\""));
  EXPECT_NE(e.find("t.csv:" + std::to_string(second_row) + ":"), std::string::npos) << e;
}
