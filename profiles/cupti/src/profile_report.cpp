// JSON and CSV writers for ProfileReport (profile_report.hpp).
#include "warpmodel/cupti/profile_report.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <sstream>
#include <type_traits>

#include "warpmodel/input_ranges.hpp"
#include "warpmodel/json_io.hpp"

namespace warpmodel::cupti {
namespace {

using nlohmann::json;

json number_or_null(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

json values_json(const std::map<std::string, double>& values) {
  json j = json::object();
  for (const auto& [k, v] : values) j[k] = number_or_null(v);
  return j;
}

// Fifteen significant digits: exact for integral counters below 1e15, no exponent noise for ratios.
std::string format_value(double v) {
  if (!std::isfinite(v)) return "";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.15g", v);
  return buf;
}

// Field access with one-line errors naming the origin and the field.
const json& field(const json& j, const char* name, const std::string& where) {
  if (!j.is_object() || !j.contains(name)) throw InputError(where + ": missing field '" + name + "'");
  return j.at(name);
}
template <class T>
T get(const json& j, const char* name, const std::string& where) {
  const json& v = field(j, name, where);
  try {
    return v.get<T>();
  } catch (const json::exception&) {
    throw InputError(where + ": field '" + name + "' has the wrong type");
  }
}
// An optional field: the fallback when it is absent, null or of another type. A number must fit
// the type (a count of 1e300 or -1 is not converted into one).
template <class T>
T get_or(const json& j, const char* name, T fallback) {
  if (!j.is_object() || !j.contains(name) || j.at(name).is_null()) return fallback;
  const json& v = j.at(name);
  if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
    if (!v.is_number()) return fallback;
    const double x = v.get<double>();
    if (!std::isfinite(x)) return fallback;
    if constexpr (std::is_integral_v<T>) {
      if (!v.is_number_integer() || x < static_cast<double>(std::numeric_limits<T>::min()) ||
          x >= static_cast<double>(std::numeric_limits<T>::max()))
        return fallback;
    }
    return v.get<T>();
  } else {
    try {
      return v.get<T>();
    } catch (const json::exception&) {
      return fallback;
    }
  }
}

// Metric name -> value: a number in the plausible range of a counter, or null (no value).
std::map<std::string, double> values_from_json(const json& j, const std::string& where) {
  std::map<std::string, double> m;
  if (!j.is_object()) throw InputError(where + ": expected an object of metric values");
  for (const auto& [k, v] : j.items()) {
    if (v.is_null()) {
      m[k] = std::numeric_limits<double>::quiet_NaN();
      continue;
    }
    if (!v.is_number() || !ranges::kCounter.contains(v.get<double>()))
      throw InputError(where + ": field '" + k + "': expected " + ranges::kCounter.describe() + " or null, got " +
                       v.dump().substr(0, 40));
    m[k] = v.get<double>();
  }
  return m;
}

// [x, y, z] of positive integers no larger than CUDA's grid limits.
std::array<int, 3> dim3_from_json(const json& j, const char* name, const std::string& where) {
  const json& v = field(j, name, where);
  const std::string expected = where + ": field '" + name + "': expected [x, y, z] of integers in [1, " +
                               std::to_string(ranges::kMaxGridX) + "]";
  if (!v.is_array() || v.size() != 3) throw InputError(expected);
  std::array<int, 3> out{};
  for (std::size_t i = 0; i < 3; ++i) {
    if (!v[i].is_number_integer() || v[i].get<double>() < 1 || v[i].get<double>() > static_cast<double>(ranges::kMaxGridX))
      throw InputError(expected + ", got " + v.dump().substr(0, 40));
    out[i] = v[i].get<int>();
  }
  return out;
}

}  // namespace

std::string demangle(const std::string& mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && out ? std::string(out.get()) : mangled;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}

json to_json(const LaunchRecord& l) {
  json out = {{"kernel", l.kernel},
              {"demangled", l.demangled},
              {"label", l.label},
              {"launch_index", l.launch_index},
              {"grid", l.grid},
              {"block", l.block},
              {"registers_per_thread", l.registers_per_thread},
              {"shared_memory_per_block_bytes", l.shared_memory_per_block_bytes},
              {"duration_ns", number_or_null(l.duration_ns)},
              {"duration_ns_runs", l.duration_ns_runs},
              {"metrics", values_json(l.metrics)},
              {"derived", values_json(l.derived)}};
  if (l.cluster) out["cluster"] = *l.cluster;
  if (l.application_launch_index) out["application_launch_index"] = *l.application_launch_index;
  if (l.process_id) out["process_id"] = *l.process_id;
  return out;
}

json to_json(const ProfileReport& r) {
  json launches = json::array();
  for (const auto& l : r.launches) launches.push_back(to_json(l));
  const auto& d = r.device;
  const auto& p = r.provenance;
  const auto& c = r.collection;
  json out = {{"schema", kProfileSchema},
          {"workload", r.workload},
          {"complete", r.complete},
          {"device",
           {{"name", d.name},
            {"chip", d.chip},
            {"compute_capability", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor)},
            {"sm_count", d.sm_count},
            {"l2_cache_bytes", d.l2_cache_bytes},
            {"global_memory_bytes", d.global_memory_bytes},
            {"max_sm_clock_mhz", d.max_sm_clock_mhz}}},
          {"provenance",
           {{"gpu", p.gpu},
            {"driver", p.driver},
            {"cuda", p.cuda},
            {"sm_clock_mhz", p.sm_clock_mhz},
            {"sm_clock_mhz_after", p.sm_clock_mhz_after},
            {"date", p.date},
            {"commit", p.commit},
            {"command", p.command},
            {"cupti_version", p.cupti_version}}},
          {"collection",
           {{"range_mode", c.range_mode},
            {"replay_mode", c.replay_mode},
            {"passes", c.passes},
            {"max_ranges", c.max_ranges},
            {"l2_flushed_before_each_pass", c.l2_flushed_before_each_pass},
            {"l2_flushed_before_each_launch", c.l2_flushed_before_each_launch},
            {"timing_runs", c.timing_runs},
            {"metrics", c.metrics},
            {"derived", c.derived},
            {"requested", c.requested}}},
          {"launches", launches}};
  if (!r.complete) out["incomplete_reason"] = r.incomplete_reason;
  if (r.application) {
    json a = {{"command", r.application->command}};
    if (r.application->exit_code) a["exit_code"] = *r.application->exit_code;
    if (r.application->signal) a["signal"] = *r.application->signal;
    out["application"] = a;
  }
  if (!r.cubins.empty()) out["cubins"] = r.cubins;
  return out;
}

ProfileReport profile_report_from_json(const json& j, const std::string& origin) {
  if (get<std::string>(j, "schema", origin) != kProfileSchema)
    throw InputError(origin + ": field 'schema' must be \"" + std::string(kProfileSchema) + "\"");
  ProfileReport r;
  r.workload = get<std::string>(j, "workload", origin);
  r.complete = get_or<bool>(j, "complete", true);
  r.incomplete_reason = get_or<std::string>(j, "incomplete_reason", "");
  r.cubins = get_or<std::string>(j, "cubins", "");
  if (j.contains("application") && j.at("application").is_object()) {
    const json& a = j.at("application");
    ApplicationRun run;
    run.command = get_or<std::string>(a, "command", "");
    if (a.contains("exit_code") && a.at("exit_code").is_number_integer()) run.exit_code = a.at("exit_code").get<int>();
    if (a.contains("signal") && a.at("signal").is_number_integer()) run.signal = a.at("signal").get<int>();
    r.application = run;
  }
  const json& d = field(j, "device", origin);
  r.device.name = get_or<std::string>(d, "name", "");
  r.device.chip = get_or<std::string>(d, "chip", "");
  const std::string cc = get_or<std::string>(d, "compute_capability", "0.0");
  std::sscanf(cc.c_str(), "%d.%d", &r.device.cc_major, &r.device.cc_minor);
  r.device.sm_count = get_or<int>(d, "sm_count", 0);
  r.device.l2_cache_bytes = get_or<long long>(d, "l2_cache_bytes", 0);
  r.device.global_memory_bytes = get_or<long long>(d, "global_memory_bytes", 0);
  r.device.max_sm_clock_mhz = get_or<double>(d, "max_sm_clock_mhz", 0);
  const json& p = field(j, "provenance", origin);
  r.provenance.gpu = get_or<std::string>(p, "gpu", "");
  r.provenance.driver = get_or<std::string>(p, "driver", "");
  r.provenance.cuda = get_or<std::string>(p, "cuda", "");
  r.provenance.sm_clock_mhz = get_or<double>(p, "sm_clock_mhz", 0);
  r.provenance.sm_clock_mhz_after = get_or<double>(p, "sm_clock_mhz_after", 0);
  r.provenance.date = get_or<std::string>(p, "date", "");
  r.provenance.commit = get_or<std::string>(p, "commit", "");
  r.provenance.command = get_or<std::string>(p, "command", "");
  r.provenance.cupti_version = get_or<std::string>(p, "cupti_version", "");
  const json& c = field(j, "collection", origin);
  r.collection.range_mode = get_or<std::string>(c, "range_mode", "");
  r.collection.replay_mode = get_or<std::string>(c, "replay_mode", "");
  r.collection.passes = get_or<std::size_t>(c, "passes", 0);
  r.collection.max_ranges = get_or<std::size_t>(c, "max_ranges", 0);
  r.collection.l2_flushed_before_each_pass = get_or<bool>(c, "l2_flushed_before_each_pass", false);
  r.collection.l2_flushed_before_each_launch = get_or<bool>(c, "l2_flushed_before_each_launch", false);
  r.collection.timing_runs = get_or<int>(c, "timing_runs", 0);
  r.collection.metrics = get_or<std::vector<std::string>>(c, "metrics", {});
  r.collection.derived = get_or<std::map<std::string, std::string>>(c, "derived", {});
  r.collection.requested = get_or<std::vector<std::string>>(c, "requested", {});
  const json& launches = field(j, "launches", origin);
  if (!launches.is_array()) throw InputError(origin + ": field 'launches' must be an array");
  for (std::size_t i = 0; i < launches.size(); ++i) {
    const json& l = launches[i];
    const std::string where = origin + ": launches[" + std::to_string(i) + "]";
    LaunchRecord rec;
    rec.kernel = get<std::string>(l, "kernel", where);
    rec.demangled = get_or<std::string>(l, "demangled", rec.kernel);
    rec.label = get_or<std::string>(l, "label", "");
    const json& index = field(l, "launch_index", where);
    if (!index.is_number_integer() || index.get<double>() < 0 || index.get<double>() > 1e12)
      throw InputError(where + ": field 'launch_index': expected an integer >= 0, got " + index.dump().substr(0, 40));
    rec.launch_index = index.get<std::size_t>();
    rec.grid = dim3_from_json(l, "grid", where);
    rec.block = dim3_from_json(l, "block", where);
    if (l.contains("cluster") && !l.at("cluster").is_null()) rec.cluster = dim3_from_json(l, "cluster", where);
    rec.registers_per_thread = get_or<int>(l, "registers_per_thread", 0);
    rec.shared_memory_per_block_bytes = get_or<long long>(l, "shared_memory_per_block_bytes", 0);
    rec.duration_ns = get_or<double>(l, "duration_ns", std::numeric_limits<double>::quiet_NaN());
    rec.duration_ns_runs = get_or<std::vector<double>>(l, "duration_ns_runs", {});
    if (!std::isnan(rec.duration_ns) && !ranges::kDurationNs.contains(rec.duration_ns))
      throw InputError(where + ": field 'duration_ns': expected " + ranges::kDurationNs.describe() + " or null, got " +
                       l.at("duration_ns").dump());
    rec.metrics = values_from_json(field(l, "metrics", where), where + ".metrics");
    if (l.contains("derived")) rec.derived = values_from_json(l.at("derived"), where + ".derived");
    if (l.contains("application_launch_index") && l.at("application_launch_index").is_number_unsigned())
      rec.application_launch_index = l.at("application_launch_index").get<std::size_t>();
    if (l.contains("process_id") && l.at("process_id").is_number_integer())
      rec.process_id = l.at("process_id").get<long long>();
    r.launches.push_back(std::move(rec));
  }
  return r;
}

std::string to_csv(const ProfileReport& r) {
  std::ostringstream o;
  o << kCsvHeader << "\n";
  for (const auto& l : r.launches) {
    std::ostringstream prefix;
    prefix << csv_field(r.workload) << ',' << l.launch_index << ',' << csv_field(l.label) << ',' << csv_field(l.kernel)
           << ',' << csv_field(l.demangled) << ',' << l.grid[0] << ',' << l.grid[1] << ',' << l.grid[2] << ','
           << l.block[0] << ',' << l.block[1] << ',' << l.block[2] << ',' << l.registers_per_thread << ','
           << l.shared_memory_per_block_bytes << ',' << format_value(l.duration_ns) << ',';
    for (const auto& [name, value] : l.metrics)
      o << prefix.str() << csv_field(name) << ',' << format_value(value) << ",perfworks,\n";
    for (const auto& [name, value] : l.derived) {
      const auto e = r.collection.derived.find(name);
      o << prefix.str() << csv_field(name) << ',' << format_value(value) << ",nvprof,"
        << csv_field(e == r.collection.derived.end() ? "" : e->second) << "\n";
    }
  }
  return o.str();
}

}  // namespace warpmodel::cupti
