// ncu's CSV as a warpmodel.profile/1 report (ncu_import.hpp).
#include "warpmodel/cupti/ncu_import.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <set>
#include <stdexcept>
#include <unordered_set>

#include "warpmodel/cupti/metrics.hpp"
#include "warpmodel/input_ranges.hpp"
#include "warpmodel/cupti/ncu_compare.hpp"
#include "warpmodel/json_io.hpp"
#include "warpmodel/support/provenance.hpp"
#include "warpmodel/support/input_file.hpp"
#include "warpmodel/support/text.hpp"

namespace warpmodel::cupti {
namespace {

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }
bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  for (auto at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
}

std::string without_spaces(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), ' '), s.end());
  return s;
}

// One parameter type, written the same way by every demangler: "const float *" and
// "float const*" -> "floatconst*".
std::string canonical_type(std::string t) {
  while (!t.empty() && t.front() == ' ') t.erase(t.begin());
  while (!t.empty() && t.back() == ' ') t.pop_back();
  for (const std::string q : {"const", "volatile"}) {
    if (starts_with(t, q + " ")) {
      t.erase(0, q.size() + 1);
      const auto pointer = t.find_first_of("*&");
      t.insert(pointer == std::string::npos ? t.size() : pointer, " " + q);
    }
  }
  return without_spaces(t);
}

// A demangled or ncu-printed kernel name, split for comparison.
struct Signature {
  std::string qualified;             // "ns::{anon}::kernel<4>", no return type, no spaces
  std::optional<std::string> params;  // "floatconst*,float*,longlong"; none when not printed
};

Signature signature(std::string name) {
  replace_all(name, "(anonymous namespace)", "{anon}");
  replace_all(name, "<unnamed>", "{anon}");
  // ncu prints an anonymous namespace as "unnamed>" (the '<' lost), at the start or after "::".
  if (starts_with(name, "unnamed>")) name.replace(0, 8, "{anon}");
  replace_all(name, "::unnamed>", "::{anon}");
  Signature s;
  int angle = 0;
  std::size_t open = std::string::npos;
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (name[i] == '<') ++angle;
    else if (name[i] == '>' && angle > 0) --angle;
    else if (name[i] == '(' && angle == 0) {
      open = i;
      break;
    }
  }
  std::string head = name.substr(0, open);
  // Drop a return type ("void kernel<2>"): what precedes the last space outside template arguments.
  angle = 0;
  std::size_t last_space = std::string::npos;
  for (std::size_t i = 0; i < head.size(); ++i) {
    if (head[i] == '<') ++angle;
    else if (head[i] == '>' && angle > 0) --angle;
    else if (head[i] == ' ' && angle == 0 && i + 1 < head.size()) last_space = i;
  }
  while (!head.empty() && head.back() == ' ') head.pop_back();
  if (last_space != std::string::npos && last_space < head.size()) head = head.substr(last_space + 1);
  s.qualified = without_spaces(head);
  if (open != std::string::npos) {
    std::string params;
    std::string current;
    auto add = [&params](const std::string& type) {
      if (!params.empty()) params += ',';
      params += canonical_type(type);
    };
    int depth = 0;
    for (std::size_t i = open + 1; i < name.size(); ++i) {
      const char c = name[i];
      if ((c == '(' || c == '<')) ++depth;
      if ((c == ')' || c == '>') && depth > 0) {
        --depth;
        current += c;
        continue;
      }
      if (c == ')' && depth == 0) break;
      if (c == ',' && depth == 0) {
        add(current);
        current.clear();
        continue;
      }
      current += c;
    }
    if (!current.empty() || !params.empty()) add(current);
    if (params == "void") params.clear();
    s.params = params;
  }
  return s;
}

// Whether `full` ends with `tail` at a "::" boundary (or is it).
bool qualified_suffix(const std::string& full, const std::string& tail) {
  if (full == tail) return true;
  return ends_with(full, "::" + tail);
}

std::string list(const std::vector<std::string>& names) { return support::join(names, "; ", 6); }

// Metric columns that are counters (not device attributes or launch facts).
bool is_counter_column(const std::string& name) {
  if (name.find("__") == std::string::npos) return false;
  for (const char* prefix : {"device__", "launch__", "profiler__", "nvlink__", "numa__", "c2clink__"})
    if (starts_with(name, prefix)) return false;
  return true;
}

std::optional<double> metric(const NcuLaunch& l, const char* name) {
  const auto it = l.metrics.find(name);
  if (it == l.metrics.end() || !std::isfinite(it->second)) return std::nullopt;
  return it->second;
}

std::string text_field(const NcuLaunch& l, const char* metric_or_column) {
  if (const auto t = l.text.find(metric_or_column); t != l.text.end()) return t->second;
  if (const auto f = l.fields.find(metric_or_column); f != l.fields.end()) return f->second;
  return "";
}

std::string number_text(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", x);
  return buf;
}

// A whole number in [min, max] (a count, a size, a shape), or InputError naming the launch and the
// metric: whatever the importer writes, its readers (kernel-profile, predict-app) accept.
long long whole_in(double value, long long min, long long max, const std::string& where, const std::string& what) {
  if (!(value >= static_cast<double>(min) && value <= static_cast<double>(max)) || value != std::floor(value))
    throw InputError(where + ": " + what + ": expected an integer in [" + std::to_string(min) + ", " +
                     std::to_string(max) + "], got " + number_text(value));
  return static_cast<long long>(value);
}

// Grid or block: "(x, y, z)", else the per-dimension launch metrics, else the total as x; each
// dimension and their product within `max_x`, `max_yz`, `max_count`.
std::optional<std::array<int, 3>> launch_dims(const NcuLaunch& l, const char* column, const char* prefix,
                                              const char* total, long long max_x, long long max_yz,
                                              long long max_count, const std::string& where) {
  std::optional<std::array<double, 3>> dims;
  std::string from = column;
  if (const auto f = l.fields.find(column); f != l.fields.end() && !f->second.empty() && f->second != "n/a") {
    const auto d = parse_ncu_dim3(f->second);
    if (!d) throw InputError(where + ": \"" + std::string(column) + "\": expected \"(x, y, z)\" of positive integers, got '" +
                             f->second.substr(0, 40) + "'");
    dims = std::array<double, 3>{double((*d)[0]), double((*d)[1]), double((*d)[2])};
  }
  const std::string p = prefix;
  if (!dims) {
    const auto x = metric(l, (p + "x").c_str()), y = metric(l, (p + "y").c_str()), z = metric(l, (p + "z").c_str());
    if (x && y && z) dims = std::array<double, 3>{*x, *y, *z}, from = p + "x/y/z";
  }
  if (!dims) {
    if (const auto t = metric(l, total)) dims = std::array<double, 3>{*t, 1, 1}, from = total;
  }
  if (!dims) return std::nullopt;
  std::array<int, 3> out{};
  for (std::size_t i = 0; i < 3; ++i)
    out[i] = static_cast<int>(whole_in((*dims)[i], 1, i == 0 ? max_x : max_yz, where, from));
  if (double(out[0]) * out[1] * out[2] > double(max_count))
    throw InputError(where + ": " + from + ": expected at most " + std::to_string(max_count) + " in all, got " +
                     number_text(double(out[0]) * out[1] * out[2]));
  return out;
}

bool is_time_unit(std::string_view u) {
  for (const char* t : {"nsecond", "usecond", "msecond", "second", "ns", "us", "ms", "s"})
    if (u == t) return true;
  return false;
}
bool is_byte_unit(std::string_view u) {
  for (const char* b : {"byte", "Kbyte", "Mbyte", "Gbyte", "Tbyte", "KiB", "MiB", "GiB", "TiB"})
    if (u == b) return true;
  return false;
}

// What a metric's name says its unit must be: durations are times, byte counts bytes, percentages
// percent ("" where the name does not say, or the unit is a rate). A value printed in another unit
// is refused: 52 Tbyte is no duration.
const char* expected_unit_kind(const std::string& metric, const std::string& unit) {
  if (unit.empty() || unit.find('/') != std::string::npos || metric.find("per_second") != std::string::npos) return "";
  if (metric.find("__time_duration") != std::string::npos) return is_time_unit(unit) ? "" : "a time (ns, usecond, ...)";
  if (metric.find("bytes") != std::string::npos && metric.find(".pct") == std::string::npos &&
      metric.find("pct_of_peak") == std::string::npos && metric.find(".ratio") == std::string::npos)
    return is_byte_unit(unit) ? "" : "bytes (byte, Kbyte, MiB, ...)";
  if (metric.ends_with(".pct") || metric.find("pct_of_peak") != std::string::npos) return unit == "%" ? "" : "%";
  return "";
}

// The device, from the first launch's device attributes (the raw page) or its CC column.
void read_device(const NcuLaunch& first, ProfileReport& r, std::vector<std::string>& warnings, const std::string& where) {
  r.device.name = text_field(first, "device__attribute_display_name");
  if (const std::string cc = text_field(first, "CC"); !cc.empty()) {
    const auto dot = cc.find('.');
    const auto major = parse_ncu_number(cc.substr(0, dot));
    const auto minor = dot == std::string::npos ? std::optional<double>(0) : parse_ncu_number(cc.substr(dot + 1));
    if (major && minor && *major >= 0 && *major < 100 && *minor >= 0 && *minor < 100) {
      r.device.cc_major = static_cast<int>(*major);
      r.device.cc_minor = static_cast<int>(*minor);
    } else {
      warnings.push_back("compute capability '" + cc + "' not understood");
    }
  } else if (const auto major = metric(first, "device__attribute_compute_capability_major")) {
    r.device.cc_major = static_cast<int>(whole_in(*major, 0, 99, where, "device__attribute_compute_capability_major"));
    r.device.cc_minor = static_cast<int>(whole_in(metric(first, "device__attribute_compute_capability_minor").value_or(0),
                                                  0, 99, where, "device__attribute_compute_capability_minor"));
  }
  const char* sms = metric(first, "device__attribute_multiprocessor_count") ? "device__attribute_multiprocessor_count"
                                                                            : "launch__sm_count";
  r.device.sm_count = static_cast<int>(whole_in(metric(first, sms).value_or(0), 0, ranges::kMaxSmCount, where, sms));
  r.device.l2_cache_bytes =
      whole_in(metric(first, "device__attribute_l2_cache_size").value_or(0), 0, 1LL << 50, where, "device__attribute_l2_cache_size");
  r.device.global_memory_bytes = whole_in(metric(first, "device__attribute_total_memory").value_or(0), 0, 1LL << 60,
                                          where, "device__attribute_total_memory");
  if (const auto khz = metric(first, "device__attribute_max_gpu_frequency_khz")) {
    if (!ranges::kClockMhz.contains(*khz / 1000.0))
      throw InputError(where + ": device__attribute_max_gpu_frequency_khz: expected " + ranges::kClockMhz.describe() +
                       " (x 1000 kHz), got " + number_text(*khz));
    r.device.max_sm_clock_mhz = *khz / 1000.0;
  }
}

// What every launch of an import adds up to: the metrics collected, the kernels named, the model
// set's metrics some launch lacks, the warnings.
struct ImportTally {
  std::set<std::string> collected;
  std::set<std::string> model_metrics_missing;
  std::unordered_set<std::string> unmapped_reported;
  std::size_t unmapped_not_reported = 0;
  std::unordered_set<std::size_t> kernels;  // hashes of the kernel names (a count, in little memory)
  std::size_t launches = 0;
  std::vector<std::string> warnings;
};

// One ncu launch as a LaunchRecord, checked: a kernel name, a shape, registers, shared memory and
// a duration its readers accept, counters that are numbers >= 0 in units their names allow.
LaunchRecord import_launch(const NcuLaunch& l, std::size_t index, const NcuImportOptions& o, ImportTally& tally) {
  const std::string where = o.origin + ":" + std::to_string(l.line) + " (ID " + l.id + ")";
  LaunchRecord rec;
  rec.launch_index = index;
  rec.label = "ncu ID " + l.id;
  if (l.kernel_name.empty()) throw InputError(where + ": \"Kernel Name\": expected the kernel's name, got an empty field");
  if (starts_with(l.kernel_name, "_Z")) {
    rec.kernel = l.kernel_name;
    rec.demangled = demangle(l.kernel_name);
  } else if (!o.kernels.empty()) {
    std::string why;
    const int k = match_ncu_kernel_name(l.kernel_name, o.kernels, &why);
    if (k >= 0) {
      rec.kernel = o.kernels[static_cast<std::size_t>(k)].mangled;
      rec.demangled = o.kernels[static_cast<std::size_t>(k)].demangled;
    } else {
      rec.kernel = rec.demangled = l.kernel_name;
      // The first few names, then a count: a file of a thousand unknown kernels is one problem.
      constexpr std::size_t kNamesReported = 8;
      if (!tally.unmapped_reported.count(l.kernel_name)) {
        if (tally.unmapped_reported.size() < kNamesReported) {
          tally.unmapped_reported.insert(l.kernel_name);
          tally.warnings.push_back("kernel '" + l.kernel_name + "' (" + where + ") not mapped to a kernel of " + o.binary +
                                   ": " + why);
        } else {
          ++tally.unmapped_not_reported;
        }
      }
    }
  } else {
    rec.kernel = rec.demangled = l.kernel_name;
  }
  const auto grid = launch_dims(l, "Grid Size", "launch__grid_dim_", "launch__grid_size", ranges::kMaxGridX,
                                ranges::kMaxGridYZ, ranges::kMaxBlocks, where);
  const auto block = launch_dims(l, "Block Size", "launch__block_dim_", "launch__block_size", ranges::kMaxThreadsPerBlock,
                                 ranges::kMaxThreadsPerBlock, ranges::kMaxThreadsPerBlock, where);
  if (!grid || !block)
    throw InputError(where + ": the launch has no " + std::string(!grid ? "grid" : "block") +
                     " size (neither a \"Grid Size\"/\"Block Size\" column nor launch__grid_size/launch__block_size)");
  rec.grid = *grid;
  rec.block = *block;
  // Thread-block clusters (Nsight Compute's launch__cluster_dim_x/y/z, 0 without clusters).
  {
    std::array<int, 3> cluster{1, 1, 1};
    const char* axes[3] = {"launch__cluster_dim_x", "launch__cluster_dim_y", "launch__cluster_dim_z"};
    for (int d = 0; d < 3; ++d)
      if (const auto v = metric(l, axes[d]); v && *v >= 1)
        cluster[static_cast<std::size_t>(d)] =
            static_cast<int>(whole_in(*v, 1, ranges::kMaxClusterBlocks, where, axes[d]));
    if (static_cast<long long>(cluster[0]) * cluster[1] * cluster[2] > 1) rec.cluster = cluster;
  }
  rec.registers_per_thread = static_cast<int>(whole_in(metric(l, "launch__registers_per_thread").value_or(0), 0,
                                                       ranges::kMaxRegistersPerThread, where, "launch__registers_per_thread"));
  const double static_shared = metric(l, "launch__shared_mem_per_block_static").value_or(0);
  const double dynamic_shared = metric(l, "launch__shared_mem_per_block_dynamic").value_or(0);
  rec.shared_memory_per_block_bytes = whole_in(static_shared + dynamic_shared, 0, ranges::kMaxSharedBytesPerBlock, where,
                                               "launch__shared_mem_per_block_static + _dynamic");
  // Units first: a duration printed in bytes is refused as such, not as a duration out of range.
  for (const auto& [name, unit] : l.units)
    if (const char* kind = expected_unit_kind(name, unit); *kind && is_counter_column(name))
      throw InputError(where + ": " + name + ": expected a value in " + kind + ", got one in '" + unit + "'");
  rec.duration_ns = std::nan("");
  if (const auto duration = metric(l, "gpu__time_duration.sum")) {
    if (!ranges::kDurationNs.contains(*duration))
      throw InputError(where + ": gpu__time_duration.sum: expected " + ranges::kDurationNs.describe() + ", got " +
                       number_text(*duration) + " ns");
    rec.duration_ns = *duration;
    rec.duration_ns_runs = {rec.duration_ns};
  }
  if (const auto pid = text_field(l, "Process ID"); !pid.empty())
    if (const auto n = parse_ncu_number(pid); n && *n >= 0 && *n <= 4294967295.0 && *n == std::floor(*n))
      rec.process_id = static_cast<long long>(*n);
  for (const auto& [name, value] : l.metrics) {
    if (!is_counter_column(name)) continue;
    if (!ranges::kCounter.contains(value))
      throw InputError(where + ": " + name + ": expected " + ranges::kCounter.describe() + ", got " + number_text(value));
    rec.metrics[name] = value;
    tally.collected.insert(name);
  }
  // A counter printed as something else than a number ("12,34", "0x10", "NaN") is refused, not
  // dropped: the model would silently fall back to static estimates for it.
  for (const auto& [name, value] : l.text)
    if (is_counter_column(name))
      throw InputError(where + ": " + name + ": expected a number (ncu prints 1,234,567.5, or n/a for none), got '" +
                       value.substr(0, 40) + "'");
  if (const MetricSet* model = find_metric_set("model"))
    for (const auto& m : model->metrics)
      if (!rec.metrics.count(m)) tally.model_metrics_missing.insert(m);
  tally.kernels.insert(std::hash<std::string>{}(rec.kernel));
  ++tally.launches;
  return rec;
}

// The report without its launches: device, provenance, collection (the metrics of every launch).
ProfileReport report_header(const NcuLaunch& first, const NcuImportOptions& o, const ImportTally& tally,
                            std::vector<std::string>& warnings) {
  ProfileReport r;
  const std::string process = first.fields.count("Process Name") ? first.fields.at("Process Name") : "";
  r.workload = "ncu import of " + o.origin + (process.empty() ? "" : " (" + process + ")");
  read_device(first, r, warnings, o.origin + ":" + std::to_string(first.line) + " (ID " + first.id + ")");
  r.provenance.gpu = r.device.name;
  r.provenance.date = support::utc_now();
  r.provenance.commit = support::source_commit();
  r.provenance.command = o.command;
  r.collection.range_mode = "ncu";
  r.collection.replay_mode = "ncu";
  r.collection.metrics.assign(tally.collected.begin(), tally.collected.end());
  return r;
}

// The warnings of a whole import, in the order they are printed.
std::vector<std::string> import_warnings(const ImportTally& tally, const std::vector<std::string>& device_warnings,
                                         const std::string& first_kernel, const NcuImportOptions& o,
                                         const std::vector<std::string>& reader_warnings) {
  std::vector<std::string> out = device_warnings;
  out.insert(out.end(), tally.warnings.begin(), tally.warnings.end());
  if (tally.unmapped_not_reported)
    out.push_back("... and " + std::to_string(tally.unmapped_not_reported) + " more kernel name(s) not mapped to a kernel of " +
                  o.binary);
  if (o.kernels.empty() && !starts_with(first_kernel, "_Z"))
    out.push_back("kernel names are demangled as ncu prints them; give --binary APP (or run ncu with "
                  "--print-kernel-base mangled) so that kernel-profile and predict-app find their SASS");
  out.insert(out.end(), reader_warnings.begin(), reader_warnings.end());
  return out;
}

std::vector<std::string> missing_in_order(const ImportTally& tally) {
  std::vector<std::string> out;
  if (const MetricSet* model = find_metric_set("model"))
    for (const auto& m : model->metrics)
      if (tally.model_metrics_missing.count(m)) out.push_back(m);
  return out;
}

[[noreturn]] void no_launch(const std::string& origin) {
  throw InputError(origin + ": no profiled launch in the file (did ncu profile any kernel? check its ==PROF== "
                            "lines and --kernel-name / --launch-skip filters)");
}

// `line` indented by `spaces` after every line break (and before the first), as nlohmann's dump
// indents an element at that depth.
std::string indented(const std::string& text, const std::string& spaces) {
  std::string out = spaces;
  for (char c : text) {
    out += c;
    if (c == '\n') out += spaces;
  }
  return out;
}

}  // namespace

int match_ncu_kernel_name(const std::string& ncu_name, const std::vector<KernelSymbol>& candidates, std::string* why) {
  for (std::size_t i = 0; i < candidates.size(); ++i)
    if (candidates[i].mangled == ncu_name) return static_cast<int>(i);
  const std::string identifier = kernel_identifier(ncu_name);
  std::vector<std::size_t> same;
  for (std::size_t i = 0; i < candidates.size(); ++i)
    if (kernel_identifier(candidates[i].demangled) == identifier) same.push_back(i);
  if (same.empty()) {
    if (why) {
      std::vector<std::string> identifiers;
      for (const auto& c : candidates) identifiers.push_back(kernel_identifier(c.demangled));
      std::sort(identifiers.begin(), identifiers.end());
      identifiers.erase(std::unique(identifiers.begin(), identifiers.end()), identifiers.end());
      const auto closest = support::closest_names(identifier, identifiers);
      *why = "no kernel named '" + identifier + "'" + (closest.empty() ? "" : " (closest: " + list(closest) + ")");
    }
    return -1;
  }
  if (same.size() == 1) return static_cast<int>(same.front());
  const Signature wanted = signature(ncu_name);
  auto narrow = [&](const std::vector<std::size_t>& from, auto keep) {
    std::vector<std::size_t> out;
    for (std::size_t i : from)
      if (keep(signature(candidates[i].demangled))) out.push_back(i);
    return out;
  };
  std::vector<std::size_t> left = same;
  if (wanted.params) {
    auto by_params = narrow(left, [&](const Signature& s) { return s.params == wanted.params; });
    if (!by_params.empty()) left = std::move(by_params);
  }
  if (left.size() > 1) {
    auto by_name = narrow(left, [&](const Signature& s) { return qualified_suffix(s.qualified, wanted.qualified); });
    if (!by_name.empty()) left = std::move(by_name);
  }
  if (left.size() == 1) return static_cast<int>(left.front());
  if (why) {
    std::vector<std::string> names;
    for (std::size_t i : left) names.push_back(candidates[i].demangled);
    *why = "it could be any of " + std::to_string(left.size()) + " kernels: " + list(names);
  }
  return -1;
}

NcuImport import_ncu(const NcuReport& ncu, const NcuImportOptions& o) {
  if (ncu.launches.empty()) no_launch(o.origin);
  NcuImport out;
  ImportTally tally;
  std::vector<LaunchRecord> launches;
  for (std::size_t i = 0; i < ncu.launches.size(); ++i) launches.push_back(import_launch(ncu.launches[i], i, o, tally));
  std::vector<std::string> device_warnings;
  out.report = report_header(ncu.launches.front(), o, tally, device_warnings);
  out.report.launches = std::move(launches);
  out.missing_model_metrics = missing_in_order(tally);
  out.warnings = import_warnings(tally, device_warnings, out.report.launches.front().kernel, o, ncu.warnings);
  return out;
}

NcuFileImport import_ncu_file(const std::filesystem::path& csv, const NcuImportOptions& o,
                              const std::filesystem::path& output) {
  namespace fs = std::filesystem;
  support::check_input_file(csv, kMaxNcuCsvBytes);
  // A pipe cannot be read twice: it is read into memory once (within the limit); a file is streamed.
  std::error_code ec;
  std::optional<std::string> piped;
  if (!fs::is_regular_file(csv, ec)) piped = support::read_input_file(csv, kMaxNcuCsvBytes);
  auto open_reader = [&](std::ifstream& file, std::size_t& at) {
    if (piped) {
      at = 0;
      return NcuCsvReader(
          [&](std::string& line) {
            if (at > piped->size()) return false;
            const std::size_t newline = piped->find('\n', at);
            const std::size_t end = newline == std::string::npos ? piped->size() : newline;
            line.assign(*piped, at, end - at);
            at = end + 1;
            return true;
          },
          o.origin);
    }
    file.open(csv, std::ios::binary);
    if (!file) throw InputError(csv.string() + ": cannot read the file");
    return NcuCsvReader([&](std::string& line) { return static_cast<bool>(std::getline(file, line)); }, o.origin);
  };

  // Pass 1: every launch converted and checked, nothing kept but the tally and the first launch.
  NcuFileImport result;
  ImportTally tally;
  std::optional<NcuLaunch> first;
  std::string first_kernel;
  std::vector<std::string> reader_warnings;
  {
    std::ifstream file;
    std::size_t at = 0;
    NcuCsvReader reader = open_reader(file, at);
    std::size_t index = 0;
    while (auto launch = reader.next()) {
      const LaunchRecord rec = import_launch(*launch, index++, o, tally);
      if (!first) first = std::move(*launch), first_kernel = rec.kernel;
    }
    result.layout = reader.layout();
    reader_warnings = reader.warnings();
  }
  if (!first) no_launch(o.origin);
  std::vector<std::string> device_warnings;
  ProfileReport header = report_header(*first, o, tally, device_warnings);

  // Pass 2: the report, written as nlohmann's dump(2) of the whole would write it, a launch at a time.
  const std::string placeholder = "\n  \"launches\": []";
  const std::string head = to_json(header).dump(2);
  const std::size_t cut = head.find(placeholder);
  if (cut == std::string::npos) throw std::logic_error("import-ncu: the report's \"launches\" not found in its header");
  write_file_atomically(output, [&](std::ostream& out) {
    out << head.substr(0, cut) << "\n  \"launches\": [";
    std::ifstream file;
    std::size_t at = 0;
    NcuCsvReader reader = open_reader(file, at);
    ImportTally again;  // the same checks, a second time: the file must not change in between
    std::size_t index = 0;
    while (auto launch = reader.next()) {
      const LaunchRecord rec = import_launch(*launch, index, o, again);
      out << (index++ ? ",\n" : "\n") << indented(to_json(rec).dump(2), "    ");
    }
    if (again.launches != tally.launches)
      throw InputError(csv.string() + ": the file changed while it was read (" + std::to_string(tally.launches) +
                       " launches, then " + std::to_string(again.launches) + ")");
    out << "\n  ]" << head.substr(cut + placeholder.size()) << "\n";
  });
  result.launches = tally.launches;
  result.kernels = tally.kernels.size();
  result.metrics = tally.collected.size();
  result.missing_model_metrics = missing_in_order(tally);
  result.warnings = import_warnings(tally, device_warnings, first_kernel, o, reader_warnings);
  return result;
}

std::string missing_metrics_warning(const NcuImport& import, const std::string& origin) {
  return missing_metrics_warning(import.missing_model_metrics, origin);
}

std::string missing_metrics_warning(const std::vector<std::string>& m, const std::string& origin) {
  if (m.empty()) return "";
  return origin + " lacks " + std::to_string(m.size()) + " of the `model` set's metrics (in at least one launch): " +
         support::join(m, ", ") +
         "; kernel-profile falls back to static estimates for the fields they feed (collect them with ncu --metrics; "
         "`warpmodel metrics --set model` lists the set)";
}

}  // namespace warpmodel::cupti
