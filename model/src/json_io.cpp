#include "warpmodel/json_io.hpp"

#include "warpmodel/architecture_specs.hpp"

#include "warpmodel/counter_rules.hpp"
#include "warpmodel/input_ranges.hpp"
#include "warpmodel/traffic.hpp"

#include "warpmodel/support/text.hpp"
#include "warpmodel/support/xz.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <utility>
#include <cmath>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <fstream>
#include <set>
#include <sstream>
#include <unistd.h>

#include "warpmodel/model.hpp"

namespace warpmodel {

namespace {

using nlohmann::json;

std::string describe(const json& v) {
  std::string s = v.dump();
  if (s.size() > 40) s = s.substr(0, 37) + "...";
  return s;
}

// Reads one JSON object field by field, remembering which keys it consumed so that `finish()`
// can reject unknown (usually misspelt) keys.
class ObjectReader {
 public:
  ObjectReader(const json& j, std::string origin, std::string path)
      : j_(j), origin_(std::move(origin)), path_(std::move(path)) {
    if (!j_.is_object()) fail_at(path_.empty() ? "(top level)" : path_, "expected a JSON object, got " + describe(j_));
  }

  [[noreturn]] void fail(const std::string& key, const std::string& what) const { fail_at(field(key), what); }

  bool has(const char* key) const { return j_.contains(key) && !j_.at(key).is_null(); }

  const json& at(const char* key) {
    seen_.insert(key);
    if (!has(key)) fail(key, "missing field (expected " + expected_.value_or("a value") + ")");
    return j_.at(key);
  }

  double number(const char* key, double min, bool min_exclusive, double max, const std::string& expected) {
    expected_ = expected;
    const json& v = at(key);
    expected_.reset();
    if (!v.is_number()) fail(key, "expected " + expected + ", got " + describe(v));
    const double x = v.get<double>();
    if (!std::isfinite(x) || x < min || (min_exclusive && x == min))
      fail(key, "expected " + expected + ", got " + describe(v));
    if (x > max)
      fail(key, "expected " + expected + (max == kLargest ? " no larger than 1e15" : "") + ", got " + describe(v));
    return x;
  }
  // Counts and latencies beyond 1e15 are typing errors, and would overflow the model's products.
  static constexpr double kLargest = 1e15;
  double positive(const char* key) { return number(key, 0, true, kLargest, "a positive number"); }
  double non_negative(const char* key) { return number(key, 0, false, kLargest, "a number >= 0"); }
  double ratio(const char* key) { return number(key, 0, false, 1, "a ratio between 0 and 1"); }
  int integer(const char* key, long long min, const std::string& expected, long long max = 2147483647) {
    const double x = number(key, static_cast<double>(min), false, static_cast<double>(max), expected);
    if (x != std::floor(x)) fail(key, "expected " + expected + ", got " + describe(j_.at(key)));
    return static_cast<int>(x);
  }
  int positive_int(const char* key) { return integer(key, 1, "a positive integer"); }
  int non_negative_int(const char* key) { return integer(key, 0, "an integer >= 0"); }
  // An integer in [min, max]: a count or a limit of the hardware (input_ranges.hpp).
  int integer_in(const char* key, long long min, long long max) {
    return integer(key, min, "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]", max);
  }
  int integer_in_or(const char* key, long long min, long long max, int fallback) {
    seen_.insert(key);
    return has(key) ? integer_in(key, min, max) : fallback;
  }
  // A physical quantity in its plausible range (input_ranges.hpp).
  double in_range(const char* key, const PlausibleRange& range) {
    expected_ = range.describe();
    const json& v = at(key);
    expected_.reset();
    if (!v.is_number() || !range.contains(v.get<double>()))
      fail(key, "expected " + range.describe() + (v.is_number() ? " (its plausible range, docs/input-checks.md)" : "") +
                    ", got " + describe(v));
    return v.get<double>();
  }
  std::optional<double> optional_in_range(const char* key, const PlausibleRange& range) {
    seen_.insert(key);
    return has(key) ? std::optional(in_range(key, range)) : std::nullopt;
  }

  // Optional fields: absent (or null) gives the fallback; present must be valid.
  template <typename T, typename Read>
  T or_default(const char* key, T fallback, Read read) {
    seen_.insert(key);
    return has(key) ? static_cast<T>((this->*read)(key)) : fallback;
  }
  std::optional<double> optional_positive(const char* key) {
    return or_default<std::optional<double>>(key, std::nullopt, &ObjectReader::positive);
  }
  double non_negative_or(const char* key, double fallback) {
    return or_default(key, fallback, &ObjectReader::non_negative);
  }
  int non_negative_int_or(const char* key, int fallback) {
    return or_default(key, fallback, &ObjectReader::non_negative_int);
  }
  int positive_int_or(const char* key, int fallback) { return or_default(key, fallback, &ObjectReader::positive_int); }

  std::string string(const char* key) {
    expected_ = "a string";
    const json& v = at(key);
    expected_.reset();
    if (!v.is_string() || v.get<std::string>().empty()) fail(key, "expected a non-empty string, got " + describe(v));
    return v.get<std::string>();
  }

  bool boolean(const char* key) {
    expected_ = "true or false";
    const json& v = at(key);
    expected_.reset();
    if (!v.is_boolean()) fail(key, "expected true or false, got " + describe(v));
    return v.get<bool>();
  }
  bool boolean_or(const char* key, bool fallback) { return or_default(key, fallback, &ObjectReader::boolean); }

  ObjectReader object(const char* key) {
    expected_ = "an object";
    const json& v = at(key);
    expected_.reset();
    return ObjectReader(v, origin_, field(key));
  }
  std::optional<ObjectReader> optional_object(const char* key) {
    seen_.insert(key);
    if (!has(key)) return std::nullopt;
    return object(key);
  }

  // Grid, block and domain: [x, y, z] (1 to 3 positive integers) or one positive integer, each no
  // larger than max_x (x) or max_yz (y, z), and all of them together no more than max_count.
  Dim3 dim3(const char* key, long long max_x, long long max_yz, long long max_count) {
    expected_ = "[x, y, z]";
    const json& v = at(key);
    expected_.reset();
    const std::string expected = "a positive integer or [x, y, z] of positive integers (x <= " + std::to_string(max_x) +
                                 ", y and z <= " + std::to_string(max_yz) + ")";
    std::vector<long long> parts;
    if (v.is_number_integer()) {
      parts.push_back(v.get<long long>());
    } else if (v.is_array() && !v.empty() && v.size() <= 3) {
      for (const json& e : v) {
        if (!e.is_number_integer()) fail(key, "expected " + expected + ", got " + describe(v));
        parts.push_back(e.get<long long>());
      }
    } else {
      fail(key, "expected " + expected + ", got " + describe(v));
    }
    for (std::size_t i = 0; i < parts.size(); ++i)
      if (parts[i] <= 0 || parts[i] > (i == 0 ? max_x : max_yz)) fail(key, "expected " + expected + ", got " + describe(v));
    Dim3 d;
    d.x = parts[0];
    if (parts.size() > 1) d.y = parts[1];
    if (parts.size() > 2) d.z = parts[2];
    // Each part is below 2^31, so the product is exact in a double.
    if (static_cast<double>(d.x) * static_cast<double>(d.y) * static_cast<double>(d.z) > static_cast<double>(max_count))
      fail(key, "expected at most " + std::to_string(max_count) + " in all (x * y * z), got " + describe(v));
    return d;
  }
  std::optional<Dim3> optional_dim3(const char* key, long long max_x, long long max_yz, long long max_count) {
    seen_.insert(key);
    return has(key) ? std::optional(dim3(key, max_x, max_yz, max_count)) : std::nullopt;
  }

  std::vector<double> array_in_range(const char* key, const PlausibleRange& range) {
    const json& v = at(key);
    const std::string expected = "an array, each element " + range.describe();
    if (!v.is_array()) fail(key, "expected " + expected + ", got " + describe(v));
    std::vector<double> out;
    for (const json& e : v) {
      if (!e.is_number() || !range.contains(e.get<double>()))
        fail(key, "expected " + expected + ", got element " + describe(e));
      out.push_back(e.get<double>());
    }
    return out;
  }

  // Free-form string map (provenance, sources): scalar values are kept as text.
  std::map<std::string, std::string> string_map(const char* key) {
    seen_.insert(key);
    std::map<std::string, std::string> out;
    if (!has(key)) return out;
    const json& v = j_.at(key);
    if (!v.is_object()) fail(key, "expected an object of strings, got " + describe(v));
    for (const auto& [k, e] : v.items()) {
      if (e.is_string())
        out[k] = e.get<std::string>();
      else if (e.is_primitive())
        out[k] = e.dump();
      else
        fail(std::string(key) + "." + k, "expected a string or number, got " + describe(e));
    }
    return out;
  }

  void ignore(const char* key) { seen_.insert(key); }

  // Rejects keys nobody read, suggesting the nearest known one.
  void finish() const {
    for (const auto& [k, v] : j_.items()) {
      if (seen_.count(k)) continue;
      std::string best;
      std::size_t best_d = 4;
      for (const auto& s : seen_) {
        const std::size_t d = support::edit_distance(k, s);
        if (d < best_d) best_d = d, best = s;
      }
      fail(k, "unknown field" + (best.empty() ? std::string() : " (did you mean '" + best + "'?)"));
    }
  }

  const std::string& origin() const { return origin_; }

 private:
  std::string field(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }
  [[noreturn]] void fail_at(const std::string& field_path, const std::string& what) const {
    throw InputError(origin_ + ": field '" + field_path + "': " + what);
  }

  const json& j_;
  std::string origin_;
  std::string path_;
  std::set<std::string> seen_;
  std::optional<std::string> expected_;
};

void check_schema(ObjectReader& r, const char* schema) {
  r.ignore("schema");
  if (r.has("schema")) {
    const std::string s = r.string("schema");
    if (s != schema) r.fail("schema", std::string("expected \"") + schema + "\", got \"" + s + "\"");
  }
}

void read_limit_overrides(ObjectReader r, ArchLimits& a) {
  using namespace ranges;
  a.max_threads_per_block = r.integer_in_or("max_threads_per_block", 1, kMaxThreadsPerBlock, a.max_threads_per_block);
  a.max_threads_per_sm = r.integer_in_or("max_threads_per_sm", 1, kMaxThreadsPerSm, a.max_threads_per_sm);
  a.max_blocks_per_sm = r.integer_in_or("max_blocks_per_sm", 1, kMaxBlocksPerSm, a.max_blocks_per_sm);
  a.registers_per_sm = r.integer_in_or("registers_per_sm", 1, kMaxRegistersPerSm, a.registers_per_sm);
  a.max_registers_per_block = r.integer_in_or("max_registers_per_block", 1, kMaxRegistersPerSm, a.max_registers_per_block);
  a.max_registers_per_thread =
      r.integer_in_or("max_registers_per_thread", 1, kMaxRegistersPerThread, a.max_registers_per_thread);
  a.register_allocation_unit = r.integer_in_or("register_allocation_unit", 1, kMaxRegistersPerSm, a.register_allocation_unit);
  a.sub_partitions_per_sm = r.integer_in_or("sub_partitions_per_sm", 1, kMaxLanesPerSm, a.sub_partitions_per_sm);
  a.shared_memory_per_sm_bytes =
      r.integer_in_or("shared_memory_per_sm_bytes", 0, kMaxSharedBytesPerSm, a.shared_memory_per_sm_bytes);
  a.shared_memory_per_block_bytes =
      r.integer_in_or("shared_memory_per_block_bytes", 0, kMaxSharedBytesPerSm, a.shared_memory_per_block_bytes);
  a.shared_memory_per_block_optin_bytes =
      r.integer_in_or("shared_memory_per_block_optin_bytes", 0, kMaxSharedBytesPerSm, a.shared_memory_per_block_optin_bytes);
  a.shared_memory_allocation_unit =
      r.integer_in_or("shared_memory_allocation_unit", 1, kMaxSharedBytesPerSm, a.shared_memory_allocation_unit);
  a.shared_memory_reserved_per_block_bytes = r.integer_in_or("shared_memory_reserved_per_block_bytes", 0,
                                                             kMaxSharedBytesPerSm, a.shared_memory_reserved_per_block_bytes);
  r.finish();
}

// The measured bandwidths of a device profile: the key under "bandwidth_gbs" (and the measurement's
// name in characterize's output, "/bandwidth/<key>/gbs") and the field it fills.
constexpr std::pair<const char*, std::optional<double> DeviceProfile::*> kBandwidthFields[] = {
    {"dram_read", &DeviceProfile::dram_read_bandwidth_gbs},
    {"dram_write", &DeviceProfile::dram_write_bandwidth_gbs},
    {"dram_copy", &DeviceProfile::dram_copy_bandwidth_gbs},
    {"l2_read", &DeviceProfile::l2_read_bandwidth_gbs},
    {"shared_read", &DeviceProfile::shared_read_bandwidth_gbs},
    {"l2_write", &DeviceProfile::l2_write_bandwidth_gbs},
    {"dram_random_read", &DeviceProfile::dram_random_read_bandwidth_gbs},
    {"l2_random_read", &DeviceProfile::l2_random_read_bandwidth_gbs},
    {"dram_random_write", &DeviceProfile::dram_random_write_bandwidth_gbs},
    {"dram_inplace", &DeviceProfile::dram_inplace_bandwidth_gbs},
    {"dram_read_rows_32b", &DeviceProfile::dram_read_rows_32b_gbs},
    {"dram_read_rows_64b", &DeviceProfile::dram_read_rows_64b_gbs},
    {"dram_read_rows_128b", &DeviceProfile::dram_read_rows_128b_gbs},
    {"dram_write_rows_32b", &DeviceProfile::dram_write_rows_32b_gbs},
    {"dram_write_rows_64b", &DeviceProfile::dram_write_rows_64b_gbs},
    {"dram_write_rows_128b", &DeviceProfile::dram_write_rows_128b_gbs},
    {"l2_write_sectors_4b", &DeviceProfile::l2_write_sectors_4b_gbs},
    {"l2_write_sectors_8b", &DeviceProfile::l2_write_sectors_8b_gbs},
    {"l2_write_sectors_16b", &DeviceProfile::l2_write_sectors_16b_gbs},
    {"l2_write_sectors_32b", &DeviceProfile::l2_write_sectors_32b_gbs},
    {"dsmem", &DeviceProfile::dsmem_bandwidth_gbs}};

json nan_to_null(double x) { return std::isfinite(x) ? json(x) : json(nullptr); }
json dim3_json(const Dim3& d) { return json::array({d.x, d.y, d.z}); }

// characterize's "measurements" block carries the measured rates the hopper variant needs; a
// profile that states them itself ("bandwidth_gbs", "latency_cycles.fp32_dependent") wins. A rate
// that is there but not a number in its plausible range is refused like any other field.
void fill_rates_from_measurements(const json& top, const std::string& origin, DeviceProfile& d) {
  if (!top.contains("measurements") || !top.at("measurements").is_object()) return;
  const json& m = top.at("measurements");
  auto fill = [&](std::optional<double>& field, const std::string& ptr, const PlausibleRange& range) {
    const json::json_pointer pointer(ptr);
    if (field || !m.contains(pointer) || m.at(pointer).is_null()) return;
    const json& v = m.at(pointer);
    if (!v.is_number() || !range.contains(v.get<double>())) {
      std::string dotted = "measurements" + ptr;
      std::replace(dotted.begin(), dotted.end(), '/', '.');
      throw InputError(origin + ": field '" + dotted + "': expected " + range.describe() +
                       (v.is_number() ? " (its plausible range, docs/input-checks.md)" : "") + ", got " + describe(v));
    }
    field = v.get<double>();
  };
  fill(d.fp32_dependent_latency_cycles, "/latency/fp32_fma/warps_1/mean_cycles", ranges::kLatencyCycles);
  fill(d.dram_scattered_latency_cycles, "/latency/global_load_uncoalesced/warps_1/mean_cycles", ranges::kLatencyCycles);
  for (const auto& [key, member] : kBandwidthFields)
    fill(d.*member, "/bandwidth/" + std::string(key) + "/gbs", ranges::kMeasuredBandwidthGbs);
  fill(d.fp32_ops_per_clock_per_sm, "/throughput/fp32_fma/ops_per_clk_per_sm", ranges::kOpsPerClockPerSm);
  fill(d.fp64_ops_per_clock_per_sm, "/throughput/fp64_fma/ops_per_clk_per_sm", ranges::kOpsPerClockPerSm);
  fill(d.sfu_ops_per_clock_per_sm, "/throughput/sfu_ex2/ops_per_clk_per_sm", ranges::kOpsPerClockPerSm);
  fill(d.block_dispatch_cycles, "/launch/block_dispatch_cycles", ranges::kLatencyCycles);
  fill(d.same_address_atomic_ops_per_clock, "/throughput/global_atomic_same_address/ops_per_clk",
       ranges::kAtomicOpsPerClock);
  fill(d.same_address_atomic_f32_ops_per_clock, "/throughput/global_atomic_same_address_f32/ops_per_clk",
       ranges::kAtomicOpsPerClock);
  // The tensor stage (characterize --only tensor, ubench/writers.cpp): the cluster rows at the smallest
  // cluster (2 blocks: one SM-to-SM round trip, what H.18b prices per wait), the default (release)
  // barrier arrive as cooperative_groups' cluster.sync() issues it.
  fill(d.cluster_barrier_latency_cycles, "/cluster/barrier/cluster_2/latency_cycles", ranges::kLatencyCycles);
  fill(d.dsmem_latency_cycles, "/cluster/dsmem_load/cluster_2/latency_cycles", ranges::kLatencyCycles);
  fill(d.dsmem_bandwidth_gbs, "/cluster/dsmem_read/cluster_2/gbs", ranges::kMeasuredBandwidthGbs);
  // H.17's rate per input type: the faster of the warpgroup MMA and mma.sync rows (the tensor pipe's
  // rate is what its best instruction reaches); FP8 from e4m3 (e5m2 runs at the same rate), no FP64 row.
  static constexpr std::pair<const char*, const char*> kTensorRows[] = {
      {"fp16", "f16"}, {"bf16", "bf16"}, {"tf32", "tf32"}, {"fp8", "e4m3"}, {"int8", "s8"}};
  for (const auto& [type, row] : kTensorRows) {
    std::optional<double> wgmma, mma_sync;
    fill(wgmma, "/tensor_cores/wgmma/" + std::string(row) + "/ops_per_clk_per_sm", ranges::kTensorFlopsPerClockPerSm);
    fill(mma_sync, "/tensor_cores/mma_sync/" + std::string(row) + "/ops_per_clk_per_sm",
         ranges::kTensorFlopsPerClockPerSm);
    if ((wgmma || mma_sync) && !d.tensor_flops_per_clock_per_sm.count(type))
      d.tensor_flops_per_clock_per_sm[type] = std::max(wgmma.value_or(0), mma_sync.value_or(0));
    if (mma_sync && !d.mma_sync_flops_per_clock_per_sm.count(type)) d.mma_sync_flops_per_clock_per_sm[type] = *mma_sync;
  }
  // The GPC layout (H.18a) from the tensor stage's cluster occupancy, one block per SM, where the
  // profile states none (hardware.sms_per_gpc wins): architecture_specs.hpp inverts the counts.
  const json::json_pointer occupancy("/cluster/max_active_clusters");
  if (d.sms_per_gpc.empty() && m.contains(occupancy) && m.at(occupancy).is_object()) {
    std::map<int, int> counts;
    for (const auto& [key, v] : m.at(occupancy).items()) {
      const std::string field = origin + ": field 'measurements.cluster.max_active_clusters." + key + "': ";
      int size = 0;
      if (key.rfind("cluster_", 0) == 0 && key.size() > 8 && key.size() <= 10 &&
          std::all_of(key.begin() + 8, key.end(), [](unsigned char c) { return std::isdigit(c); }))
        size = std::stoi(key.substr(8));
      if (size < 1 || size > 16) throw InputError(field + "expected a key cluster_1 to cluster_16");
      if (!v.is_number_integer() || v.get<long long>() < 0 || v.get<long long>() > d.sm_count)
        throw InputError(field + "expected an integer from 0 to sm_count (" + std::to_string(d.sm_count) + "), got " +
                         describe(v));
      counts[size] = static_cast<int>(v.get<long long>());
    }
    if (auto layout = gpc_layout_from_cluster_occupancy(d.sm_count, counts)) d.sms_per_gpc = *layout;
  }
}

// "hardware.sms_per_gpc": the SMs of each GPC, which add up to sm_count.
std::vector<int> sms_per_gpc_from(ObjectReader& hw, int sm_count) {
  hw.ignore("sms_per_gpc");
  if (!hw.has("sms_per_gpc")) return {};
  const json& v = hw.at("sms_per_gpc");
  const std::string expected = "an array of at most " + std::to_string(ranges::kMaxGpcs) +
                               " positive integers (the SMs of each GPC) adding up to sm_count (" +
                               std::to_string(sm_count) + ")";
  if (!v.is_array() || v.empty() || v.size() > static_cast<std::size_t>(ranges::kMaxGpcs))
    hw.fail("sms_per_gpc", "expected " + expected + ", got " + describe(v));
  std::vector<int> out;
  long long sum = 0;
  for (const json& e : v) {
    if (!e.is_number_integer() || e.get<long long>() < 1 || e.get<long long>() > sm_count)
      hw.fail("sms_per_gpc", "expected " + expected + ", got " + describe(v));
    out.push_back(static_cast<int>(e.get<long long>()));
    sum += out.back();
  }
  if (sum != sm_count) hw.fail("sms_per_gpc", "expected " + expected + ", got " + describe(v));
  return out;
}

// An object of tensor types (architecture_specs.hpp) to numbers in `range`; unknown types refused
// with the closest name.
std::map<std::string, double> tensor_map_from(ObjectReader& r, const PlausibleRange& range) {
  std::map<std::string, double> out;
  for (const char* type : tensor_types())
    if (auto v = r.optional_in_range(type, range)) out[type] = *v;
  r.finish();
  return out;
}

// One bound's (or the pooled) error percentiles: e10 <= e50 <= e90, each a plausible signed error.
DeviceProfile::ErrorQuantiles error_quantiles_from(ObjectReader& q) {
  DeviceProfile::ErrorQuantiles out;
  out.e10 = q.in_range("e10", ranges::kSignedError);
  out.e50 = q.in_range("e50", ranges::kSignedError);
  out.e90 = q.in_range("e90", ranges::kSignedError);
  if (!(out.e10 <= out.e50 && out.e50 <= out.e90))
    q.fail("e50", "expected e10 <= e50 <= e90, got " + std::to_string(out.e10) + ", " + std::to_string(out.e50) +
                      ", " + std::to_string(out.e90));
  out.cases = static_cast<std::size_t>(q.integer_in("cases", 1, ranges::kMaxIntervalCases));
  q.finish();
  return out;
}

// "hopper_intervals" (device_profile.hpp, written by `warpmodel validate`): the quantile levels are
// those the keys name, and every number is in its plausible range.
DeviceProfile::HopperIntervals hopper_intervals_from(ObjectReader& iv, const std::string& origin) {
  DeviceProfile::HopperIntervals out;
  iv.ignore("source");
  if (iv.has("source")) out.source = iv.string("source");
  const json& levels = iv.at("quantiles");
  if (levels != json::array({0.1, 0.5, 0.9}))
    iv.fail("quantiles", "expected [0.1, 0.5, 0.9] (the levels of e10, e50 and e90), got " + describe(levels));
  out.widen = iv.in_range("widen", ranges::kIntervalWiden);
  out.min_cases = static_cast<std::size_t>(iv.integer_in("min_cases", 1, ranges::kMaxIntervalCases));
  const json& bounds = iv.at("by_bound");
  if (!bounds.is_object() || bounds.size() > static_cast<std::size_t>(ranges::kMaxIntervalBounds))
    iv.fail("by_bound", "expected an object of at most " + std::to_string(ranges::kMaxIntervalBounds) +
                            " bounds, each {\"e10\", \"e50\", \"e90\", \"cases\"}, got " + describe(bounds));
  for (const auto& [bound, q] : bounds.items()) {
    if (bound.empty() || bound.size() > 64)
      iv.fail("by_bound", "expected bound names of 1 to 64 characters, got '" + bound.substr(0, 80) + "'");
    ObjectReader r(q, origin, "hopper_intervals.by_bound." + bound);
    out.by_bound[bound] = error_quantiles_from(r);
  }
  ObjectReader pooled = iv.object("pooled");
  out.pooled = error_quantiles_from(pooled);
  if (auto shape = iv.optional_object("shape_change")) out.shape_change = error_quantiles_from(*shape);
  iv.finish();
  return out;
}

// "energy" (device_profile.hpp): the static power and the per-unit energies, each in its plausible range.
DeviceProfile::EnergyCoefficients energy_from(ObjectReader& e) {
  DeviceProfile::EnergyCoefficients out;
  out.static_w = e.in_range("static_w", ranges::kPowerW);
  out.pj_per_fp32_op = e.optional_in_range("pj_per_fp32_op", ranges::kEnergyPerUnitPj);
  out.pj_per_fp64_op = e.optional_in_range("pj_per_fp64_op", ranges::kEnergyPerUnitPj);
  out.pj_per_int32_op = e.optional_in_range("pj_per_int32_op", ranges::kEnergyPerUnitPj);
  out.pj_per_shared_byte = e.optional_in_range("pj_per_shared_byte", ranges::kEnergyPerUnitPj);
  out.pj_per_l2_byte = e.optional_in_range("pj_per_l2_byte", ranges::kEnergyPerUnitPj);
  out.pj_per_dram_byte = e.optional_in_range("pj_per_dram_byte", ranges::kEnergyPerUnitPj);
  out.power_limit_w = e.optional_in_range("power_limit_w", ranges::kPowerW);
  e.ignore("source");
  if (e.has("source")) out.source = e.string("source");
  e.finish();
  return out;
}

}  // namespace

DeviceProfile device_from_json(const json& j, const std::string& origin) {
  ObjectReader top(j, origin, "");
  check_schema(top, kDeviceSchema);
  DeviceProfile d;
  d.name = top.string("name");

  ObjectReader hw = top.object("hardware");
  const std::string cc = hw.string("compute_capability");
  int major = 0, minor = 0;
  char dot = 0;
  std::istringstream cc_in(cc);
  if (!(cc_in >> major >> dot >> minor) || dot != '.' || !cc_in.eof())
    hw.fail("compute_capability", "expected \"major.minor\" such as \"9.0\", got \"" + cc + "\"");
  try {
    d.limits = arch_limits_for(major, minor);
  } catch (const std::invalid_argument& e) {
    hw.fail("compute_capability", e.what());
  }
  d.cc_major = major;
  d.cc_minor = minor;
  d.sm_count = hw.integer_in("sm_count", 1, ranges::kMaxSmCount);
  d.sm_clock_mhz = hw.in_range("sm_clock_mhz", ranges::kClockMhz);
  d.simd_width = hw.integer_in("simd_width", 1, ranges::kMaxLanesPerSm);
  d.sfu_width = hw.integer_in_or("sfu_width", 0, ranges::kMaxLanesPerSm, 0);
  d.limits.warp_size = hw.integer_in_or("warp_size", 1, ranges::kMaxWarpSize, 32);
  d.mem_peak_bandwidth_gbs = hw.in_range("mem_peak_bandwidth_gbs", ranges::kPeakBandwidthGbs);
  if (auto limits = hw.optional_object("limits")) read_limit_overrides(*limits, d.limits);
  d.sms_per_gpc = sms_per_gpc_from(hw, d.sm_count);
  hw.finish();

  const PlausibleRange& latency = ranges::kLatencyCycles;
  ObjectReader lat = top.object("latency_cycles");
  d.fp_latency_cycles = lat.in_range("fp", latency);
  d.sfu_latency_cycles = lat.optional_in_range("sfu", latency);
  d.shared_load_latency_cycles = lat.optional_in_range("shared_load", latency);
  d.l1_hit_latency_cycles = lat.in_range("l1_hit", latency);
  d.l2_hit_latency_cycles = lat.in_range("l2_hit", latency);
  d.dram_latency_cycles = lat.in_range("dram", latency);
  d.dram_scattered_latency_cycles = lat.optional_in_range("dram_scattered", latency);
  d.departure_delay_coalesced_cycles = lat.in_range("departure_delay_coalesced", latency);
  d.departure_delay_uncoalesced_cycles = lat.optional_in_range("departure_delay_uncoalesced", latency);
  d.departure_delay_sequential_cycles = lat.optional_in_range("departure_delay_sequential", latency);
  d.fp32_dependent_latency_cycles = lat.optional_in_range("fp32_dependent", latency);
  d.block_dispatch_cycles = lat.optional_in_range("block_dispatch", latency);
  d.cluster_barrier_latency_cycles = lat.optional_in_range("cluster_barrier", latency);
  d.dsmem_latency_cycles = lat.optional_in_range("dsmem", latency);
  lat.finish();

  if (auto bw = top.optional_object("bandwidth_gbs")) {
    for (const auto& [key, member] : kBandwidthFields) d.*member = bw->optional_in_range(key, ranges::kMeasuredBandwidthGbs);
    bw->finish();
  }
  if (auto atomics = top.optional_object("atomic_ops_per_clock")) {
    d.same_address_atomic_ops_per_clock = atomics->optional_in_range("same_address_u32", ranges::kAtomicOpsPerClock);
    d.same_address_atomic_f32_ops_per_clock = atomics->optional_in_range("same_address_f32", ranges::kAtomicOpsPerClock);
    atomics->finish();
  }
  if (auto tensor = top.optional_object("tensor_flops_per_clock_per_sm"))
    d.tensor_flops_per_clock_per_sm = tensor_map_from(*tensor, ranges::kTensorFlopsPerClockPerSm);
  if (auto tensor = top.optional_object("mma_sync_flops_per_clock_per_sm"))
    d.mma_sync_flops_per_clock_per_sm = tensor_map_from(*tensor, ranges::kTensorFlopsPerClockPerSm);
  if (auto cal = top.optional_object("hopper_calibration")) {
    DeviceProfile::HopperCalibration c;
    c.launch_cycles = cal->in_range("launch_cycles", ranges::kCalibrationCycles);
    c.scale = cal->in_range("scale", ranges::kCalibrationScale);
    c.wave_cycles = cal->in_range("wave_cycles", ranges::kCalibrationCycles);
    c.barrier_cycles = cal->has("barrier_cycles") ? cal->in_range("barrier_cycles", ranges::kCalibrationCycles)
                                                  : (cal->ignore("barrier_cycles"), 0.0);
    c.turnover_exponent = cal->has("turnover_exponent")
                              ? cal->number("turnover_exponent", 0, false, 4, "an exponent in [0, 4]")
                              : (cal->ignore("turnover_exponent"), 0.0);
    c.counter_range_overhead_ns = cal->has("counter_range_overhead_ns")
                                      ? cal->in_range("counter_range_overhead_ns", ranges::kCounterRangeOverheadNs)
                                      : (cal->ignore("counter_range_overhead_ns"), 0.0);
    cal->ignore("fitted_on");
    if (cal->has("fitted_on")) c.fitted_on = cal->string("fitted_on");
    cal->finish();
    d.hopper_calibration = c;
  }
  if (auto iv = top.optional_object("hopper_intervals")) d.hopper_intervals = hopper_intervals_from(*iv, origin);
  if (auto e = top.optional_object("energy")) d.energy = energy_from(*e);

  top.ignore("global_load_latency_by_warps");
  if (top.has("global_load_latency_by_warps"))
    d.global_load_latency_by_warps = top.array_in_range("global_load_latency_by_warps", ranges::kLatencyCycles);
  d.provenance = top.string_map("provenance");
  top.ignore("measurements");  // free-form detail written by `characterize` (full tables, curves)
  top.finish();
  fill_rates_from_measurements(j, origin, d);
  // characterize's energy rows, where the profile does not state its coefficients itself.
  const json::json_pointer energy_at("/measurements/energy/coefficients");
  if (!d.energy && j.contains(energy_at) && j.at(energy_at).is_object()) {
    ObjectReader e(j.at(energy_at), origin, "measurements.energy.coefficients");
    d.energy = energy_from(e);
    d.energy->source = "characterize's energy rows (measurements.energy)";
    // The board's power limit, read with the rows (E.3); profiles measured before it was read lack it.
    const json::json_pointer limit_at("/measurements/energy/board");
    if (j.contains(limit_at) && j.at(limit_at).is_object()) {
      ObjectReader board(j.at(limit_at), origin, "measurements.energy.board");
      d.energy->power_limit_w = board.optional_in_range("power_limit_w", ranges::kPowerW);
      board.finish();
    }
  }
  return d;
}

// An address polynomial, [[8, ["tid.x"]], ...], or null / absent (nullopt). Its size is bounded
// (input_ranges.hpp): the traffic model evaluates it for every thread an SM holds.
std::optional<AddressPolynomial> polynomial_or_null(ObjectReader& a, const char* key) {
  using namespace ranges;
  a.ignore(key);
  if (!a.has(key)) return std::nullopt;
  const json& terms = a.at(key);
  if (!terms.is_array()) a.fail(key, "expected an array of [coefficient, [symbols]] terms or null");
  if (terms.size() > static_cast<std::size_t>(kMaxAddressTerms))
    a.fail(key, "expected at most " + std::to_string(kMaxAddressTerms) + " terms, got " + std::to_string(terms.size()));
  AddressPolynomial poly;
  const std::string coefficient_range = "|coefficient| <= 2^48";
  for (const json& t : terms) {
    if (!t.is_array() || t.size() != 2 || !t[0].is_number_integer() || !t[1].is_array())
      a.fail(key, "expected terms [coefficient, [symbols]], got " + describe(t));
    const double magnitude = std::fabs(t[0].get<double>());
    if (magnitude > static_cast<double>(kMaxAddressCoefficient))
      a.fail(key, "expected terms [coefficient, [symbols]] with " + coefficient_range + ", got " + describe(t));
    AddressTerm term{t[0].get<long long>(), {}};
    if (t[1].size() > static_cast<std::size_t>(kMaxSymbolsPerTerm))
      a.fail(key, "expected at most " + std::to_string(kMaxSymbolsPerTerm) + " symbols per term, got " + describe(t));
    for (const json& sym : t[1]) {
      if (!sym.is_string() || sym.get_ref<const std::string&>().empty() ||
          sym.get_ref<const std::string&>().size() > static_cast<std::size_t>(kMaxSymbolLength))
        a.fail(key, "expected symbol names of 1 to " + std::to_string(kMaxSymbolLength) + " characters, got " +
                        describe(sym));
      term.symbols.push_back(sym.get<std::string>());
    }
    poly.push_back(std::move(term));
  }
  return poly;
}

// "access_patterns": {"source": "...", "accesses": [{"offset": 304, "opcode": "LDG.E.64",
// "kind": "load", "bytes_per_thread": 8, "loop_depth": 1, "address_from_loaded_data": true (absent: false),
// "address": [[8, ["tid.x"]], ...] or null, "stride_per_trip": the same or absent}]}
AccessPatterns access_patterns_from(ObjectReader& r) {
  AccessPatterns p;
  if (r.has("source")) p.source = r.string("source");
  r.ignore("source");
  const json& list = r.at("accesses");
  if (!list.is_array()) r.fail("accesses", "expected an array of memory accesses");
  if (list.size() > static_cast<std::size_t>(ranges::kMaxAccesses))
    r.fail("accesses", "expected at most " + std::to_string(ranges::kMaxAccesses) + " memory accesses per kernel, got " +
                           std::to_string(list.size()));
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string key = "accesses[" + std::to_string(i) + "]";
    ObjectReader a(list[i], r.origin(), "access_patterns." + key);
    MemoryAccess m;
    m.offset = static_cast<std::uint32_t>(a.non_negative_int("offset"));
    m.opcode = a.string("opcode");
    const std::string kind = a.string("kind");
    if (kind == "load") m.kind = AccessKind::load;
    else if (kind == "store") m.kind = AccessKind::store;
    else if (kind == "atomic") m.kind = AccessKind::atomic;
    else a.fail("kind", "expected load, store or atomic, got '" + kind + "'");
    m.bytes_per_thread = a.integer_in("bytes_per_thread", 1, ranges::kMaxAccessBytesPerThread);
    m.loop_depth = a.integer_in("loop_depth", 0, ranges::kMaxLoopDepth);
    m.address_from_loaded_data = a.boolean_or("address_from_loaded_data", false);
    m.address = polynomial_or_null(a, "address");
    m.stride_per_trip = polynomial_or_null(a, "stride_per_trip");
    // Symbols the traffic model cannot evaluate ("param:zz", a floor dividing by 10^30).
    for (const auto* poly : {&m.address, &m.stride_per_trip})
      if (*poly)
        if (const std::string why = address_symbols_problem(**poly); !why.empty())
          a.fail(poly == &m.address ? "address" : "stride_per_trip", why);
    a.finish();
    p.accesses.push_back(std::move(m));
  }
  // "first_thread_loop": {"begin": 832, "end": 4416, "indices": ["ctaid.x", "tid.x"],
  // "instructions_outside": 77, "global_loads_outside": 2} (absent: none; hopper H.1d)
  if (auto f = r.optional_object("first_thread_loop")) {
    FirstThreadLoop loop;
    loop.begin = static_cast<std::uint32_t>(f->non_negative_int("begin"));
    loop.end = static_cast<std::uint32_t>(f->non_negative_int("end"));
    if (loop.end <= loop.begin) f->fail("end", "expected an offset after begin (" + std::to_string(loop.begin) + ")");
    const json& indices = f->at("indices");
    if (!indices.is_array() || indices.empty() || indices.size() > 6)
      f->fail("indices", "expected 1 to 6 of tid.x|y|z and ctaid.x|y|z");
    for (const json& i : indices) {
      static const std::set<std::string> kIndices = {"tid.x", "tid.y", "tid.z", "ctaid.x", "ctaid.y", "ctaid.z"};
      if (!i.is_string() || !kIndices.count(i.get<std::string>()))
        f->fail("indices", "expected tid.x|y|z or ctaid.x|y|z, got " + describe(i));
      loop.indices.push_back(i.get<std::string>());
    }
    loop.instructions_outside = f->integer_in("instructions_outside", 0, ranges::kMaxStaticInstructions);
    loop.global_loads_outside = f->integer_in("global_loads_outside", 0, loop.instructions_outside);
    f->finish();
    p.first_thread_loop = std::move(loop);
  }
  // "threads_under_constant_bound": 769 (absent: no such exit; hopper H.1e)
  if (r.has("threads_under_constant_bound"))
    p.threads_under_constant_bound = r.integer_in("threads_under_constant_bound", 1, 2147483647);
  const auto addressed = std::count_if(p.accesses.begin(), p.accesses.end(), [](const MemoryAccess& m) { return m.address.has_value(); });
  if (addressed > ranges::kMaxAddressedAccesses)
    r.fail("accesses", "expected at most " + std::to_string(ranges::kMaxAddressedAccesses) +
                           " accesses with an address per kernel (the traffic model walks each for every thread), got " +
                           std::to_string(addressed));
  r.finish();
  return p;
}

KernelProfile kernel_from_json(const json& j, const std::string& origin) {
  ObjectReader top(j, origin, "");
  check_schema(top, kKernelSchema);
  KernelProfile k;
  k.name = top.string("name");

  ObjectReader launch = top.object("launch");
  using namespace ranges;
  k.launch.grid = launch.dim3("grid", kMaxGridX, kMaxGridYZ, kMaxBlocks);
  k.launch.block = launch.dim3("block", kMaxThreadsPerBlock, kMaxThreadsPerBlock, kMaxThreadsPerBlock);
  k.launch.registers_per_thread = launch.integer_in_or("registers_per_thread", 0, kMaxRegistersPerThread, 0);
  k.launch.shared_memory_per_block_bytes =
      launch.integer_in_or("shared_memory_per_block_bytes", 0, kMaxSharedBytesPerBlock, 0);
  k.launch.active_warps_per_sm = launch.optional_in_range("active_warps_per_sm", kActiveWarpsPerSm);
  if (launch.has("barrier_wait_share"))
    k.launch.barrier_wait_share = launch.number("barrier_wait_share", 0, false, 1, "a share in [0, 1]");
  k.launch.total_warps = launch.optional_positive("total_warps");
  k.launch.domain = launch.optional_dim3("domain", kMaxGridX, kMaxGridX, kMaxDomainPoints);
  k.launch.cluster = launch.optional_dim3("cluster", kMaxClusterBlocks, kMaxClusterBlocks, kMaxClusterBlocks);
  k.timed_by_counter_range = launch.boolean_or("timed_by_counter_range", false);
  launch.finish();

  ObjectReader inst = top.object("instructions_per_warp");
  k.inst_per_warp = inst.positive("total");
  k.mem_inst_per_warp = inst.non_negative("memory");
  k.fp_inst_per_warp = inst.non_negative_or("fp", 0);
  k.sfu_inst_per_warp = inst.non_negative_or("sfu", 0);
  k.sync_inst_per_warp = inst.non_negative_or("sync", 0);
  k.uncoalesced_mem_inst_per_warp = inst.non_negative_or("uncoalesced_memory", 0);
  k.divergent_inst_per_warp = inst.non_negative_or("divergent", 0);
  k.shared_inst_per_warp = inst.non_negative_or("shared", 0);
  inst.ignore("global_load");
  if (inst.has("global_load")) k.global_load_inst_per_warp = inst.non_negative("global_load");
  k.async_copy_inst_per_warp = inst.non_negative_or("async_copy", 0);
  k.local_load_inst_per_warp = inst.non_negative_or("local_load", 0);
  k.tensor_inst_per_warp = inst.non_negative_or("tensor", 0);
  inst.ignore("cluster_barrier_wait");
  if (inst.has("cluster_barrier_wait")) k.cluster_barrier_waits_per_warp = inst.non_negative("cluster_barrier_wait");
  inst.ignore("remote_shared_wait");
  if (inst.has("remote_shared_wait")) k.remote_shared_waits_per_warp = inst.non_negative("remote_shared_wait");
  if (k.mem_inst_per_warp > k.inst_per_warp)
    inst.fail("memory", "expected at most instructions_per_warp.total (" + std::to_string(k.inst_per_warp) + ")");
  if (k.uncoalesced_mem_inst_per_warp > k.mem_inst_per_warp)
    inst.fail("uncoalesced_memory", "expected at most instructions_per_warp.memory");
  if (k.global_load_inst_per_warp && *k.global_load_inst_per_warp > k.mem_inst_per_warp)
    inst.fail("global_load", "expected at most instructions_per_warp.memory (loads are part of it)");
  inst.finish();

  ObjectReader par = top.object("parallelism");
  k.ilp = par.optional_in_range("ilp", kParallelism);
  k.mlp = par.in_range("mlp", kParallelism);
  k.static_instructions = par.optional_positive("static_instructions");
  k.basic_blocks = par.optional_positive("basic_blocks");
  k.stall_cycles_per_inst = par.optional_in_range("stall_cycles_per_instruction", kStallCyclesPerInstruction);
  par.finish();

  ObjectReader mem = top.object("memory");
  k.transactions_per_request = mem.number("transactions_per_request", 1, false, 1e6, "a number >= 1");
  k.transactions_per_uncoalesced_request =
      mem.has("transactions_per_uncoalesced_request")
          ? mem.number("transactions_per_uncoalesced_request", 1, false, 1e6, "a number >= 1")
          : (mem.ignore("transactions_per_uncoalesced_request"), 32.0);
  k.l1_miss_ratio = mem.ratio("l1_miss_ratio");
  k.l2_miss_ratio = mem.ratio("l2_miss_ratio");
  k.data_size_bytes = mem.integer_in_or("data_size_bytes", 1, kMaxAccessBytesPerThread, 4);
  k.bank_conflicts_per_warp = mem.non_negative_or("bank_conflicts_per_warp", 0);
  mem.ignore("l2_bytes_per_warp");
  mem.ignore("dram_bytes_per_warp");
  if (mem.has("l2_bytes_per_warp")) k.l2_bytes_per_warp = mem.non_negative("l2_bytes_per_warp");
  if (mem.has("dram_bytes_per_warp")) k.dram_bytes_per_warp = mem.non_negative("dram_bytes_per_warp");
  mem.ignore("l1_wavefronts_per_warp");
  if (mem.has("l1_wavefronts_per_warp")) k.l1_wavefronts_per_warp = mem.non_negative("l1_wavefronts_per_warp");
  mem.ignore("local_load_sectors_per_request");
  if (mem.has("local_load_sectors_per_request"))
    k.local_load_sectors_per_request = mem.number("local_load_sectors_per_request", 1, false, 1e6, "a number >= 1");
  mem.ignore("local_store_sectors_per_request");
  if (mem.has("local_store_sectors_per_request"))
    k.local_store_sectors_per_request = mem.number("local_store_sectors_per_request", 1, false, 1e6, "a number >= 1");
  mem.ignore("store_sectors_per_request");
  if (mem.has("store_sectors_per_request"))
    k.store_sectors_per_request = mem.number("store_sectors_per_request", 0, false, 1e6, "a number >= 0");
  mem.ignore("atomic_lane_ops_per_warp");
  if (mem.has("atomic_lane_ops_per_warp")) k.atomic_lane_ops_per_warp = mem.non_negative("atomic_lane_ops_per_warp");
  mem.ignore("dsmem_bytes_per_warp");
  if (mem.has("dsmem_bytes_per_warp")) k.dsmem_bytes_per_warp = mem.non_negative("dsmem_bytes_per_warp");
  mem.ignore("busiest_slice_atomics_per_warp");
  if (mem.has("busiest_slice_atomics_per_warp"))
    k.busiest_slice_atomics_per_warp = mem.non_negative("busiest_slice_atomics_per_warp");
  mem.ignore("l2_write_bytes_per_warp");
  if (mem.has("l2_write_bytes_per_warp")) {
    if (!k.l2_bytes_per_warp) mem.fail("l2_write_bytes_per_warp", "needs l2_bytes_per_warp (all L2 traffic) beside it");
    k.l2_write_bytes_per_warp = mem.non_negative("l2_write_bytes_per_warp");
  }
  mem.ignore("dram_write_bytes_per_warp");
  if (mem.has("dram_write_bytes_per_warp")) {
    if (!k.dram_bytes_per_warp) mem.fail("dram_write_bytes_per_warp", "needs dram_bytes_per_warp (reads + writes) beside it");
    k.dram_write_bytes_per_warp = mem.non_negative("dram_write_bytes_per_warp");
    if (*k.dram_write_bytes_per_warp > *k.dram_bytes_per_warp)
      mem.fail("dram_write_bytes_per_warp", "expected at most dram_bytes_per_warp (reads + writes)");
  }
  mem.finish();

  if (auto tensor = top.optional_object("tensor_flops_per_warp"))
    k.tensor_flops_per_warp = tensor_map_from(*tensor, ranges::kTensorFlopsPerWarp);
  if (auto tensor = top.optional_object("mma_sync_flops_per_warp")) {
    k.mma_sync_flops_per_warp = tensor_map_from(*tensor, ranges::kTensorFlopsPerWarp);
    for (const auto& [type, flops] : k.mma_sync_flops_per_warp) {
      const auto all = k.tensor_flops_per_warp.find(type);
      if (all == k.tensor_flops_per_warp.end() || flops > all->second * (1 + 1e-9))
        tensor->fail(type, "expected at most tensor_flops_per_warp." + type + " (its warp-level part)");
    }
  }
  if (auto patterns = top.optional_object("access_patterns")) k.access_patterns = access_patterns_from(*patterns);
  k.sources = top.string_map("sources");
  top.finish();
  return k;
}

std::vector<ValidationCase> validation_cases_from_json(const json& j, const std::string& origin) {
  ObjectReader top(j, origin, "");
  check_schema(top, kValidationSchema);
  // Provenance: free-form (strings, numbers, and the earlier parts of a merged sweep); the analysis
  // copies it as it is.
  (void)top.optional_object("provenance");
  top.ignore("skipped");  // configurations the sweep could not launch, with the reason (free-form)
  const json& list = top.at("cases");
  if (!list.is_array() || list.empty()) top.fail("cases", "expected a non-empty array of measured launches");
  std::vector<ValidationCase> cases;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string path = "cases[" + std::to_string(i) + "]";
    ObjectReader r(list[i], origin, path);
    ValidationCase c;
    c.family = r.string("family");
    c.kernel_class = r.has("class") ? r.string("class") : c.family;
    c.kernel = r.string("kernel");
    c.size = r.string("size");
    c.shape = r.string("shape");
    c.warps_per_sm = r.optional_in_range("warps_per_sm", ranges::kActiveWarpsPerSm);
    c.duration_ns = r.in_range("duration_ns", ranges::kDurationNs);
    c.sm_clock_mhz = r.in_range("sm_clock_mhz", ranges::kClockMhz);
    c.sm_cycles_elapsed = r.optional_in_range("sm_cycles_elapsed", ranges::kElapsedCycles);
    r.ignore("occupancy_padding_bytes");  // how the sweep held warps_per_sm (free-form detail)
    r.ignore("profile");
    r.ignore("counters");  // the raw CUPTI counters the profile was merged from (diagnostics)
    c.profile = kernel_from_json(r.at("profile"), origin + " " + path + ".profile");
    // Sweeps measured before the profile carried the L2's written bytes and the L1 wavefronts still
    // hold the counters: the same rules as `kernel-profile --counters` (profiles/sass merge.cpp).
    if (r.has("counters") && r.at("counters").is_object()) {
      const json& counters = r.at("counters");
      const counter_rules::Lookup total = [&](const std::string& name) -> std::optional<double> {
        if (!counters.contains(name) || counters.at(name).is_null()) return std::nullopt;
        const json& value = counters.at(name);
        if (!value.is_number() || !ranges::kCounter.contains(value.get<double>()))
          r.fail("counters." + name, "expected " + ranges::kCounter.describe() + ", got " + describe(value));
        return value.get<double>();
      };
      // Fewer than one warp launched is no launch: the per-warp counts would be infinite.
      auto warps = total("smsp__warps_launched.sum");
      if (warps && *warps < 1) warps.reset();
      auto per_warp = [&](const char* name) -> std::optional<double> {
        const auto value = total(name);
        if (!value || !warps || !(*warps > 0)) return std::nullopt;
        return *value / *warps;
      };
      if (const auto l2 = counter_rules::l2_request_bytes(total); l2 && warps && *warps > 0) {
        c.profile.l2_bytes_per_warp = l2->total / *warps;
        c.profile.sources["memory.l2_bytes_per_warp"] =
            "cupti: " + l2->expression + " / smsp__warps_launched.sum (the case's counters)";
      }
      if (const auto written = counter_rules::l2_written_bytes(total);
          written && warps && *warps > 0 && !c.profile.l2_write_bytes_per_warp && c.profile.l2_bytes_per_warp) {
        c.profile.l2_write_bytes_per_warp = written->total / *warps;
        c.profile.sources["memory.l2_write_bytes_per_warp"] =
            "cupti: " + written->expression + " / smsp__warps_launched.sum (the case's counters)";
      }
      if (auto local = per_warp(counter_rules::kLocalLoads); local && c.profile.local_load_inst_per_warp == 0 &&
                                                                        !c.profile.sources.count("instructions_per_warp.local_load")) {
        c.profile.local_load_inst_per_warp = *local;
        c.profile.sources["instructions_per_warp.local_load"] = "cupti: smsp__inst_executed_op_local_ld.sum / smsp__warps_launched.sum (the case's counters)";
      }
      if (const auto atomics = counter_rules::atomic_lane_ops(total);
          atomics && warps && *warps > 0 && !c.profile.atomic_lane_ops_per_warp) {
        c.profile.atomic_lane_ops_per_warp = atomics->total / *warps;
        c.profile.sources["memory.atomic_lane_ops_per_warp"] =
            "cupti: " + atomics->expression + " / smsp__warps_launched.sum (the case's counters)";
      }
      if (const auto busiest = counter_rules::busiest_slice_atomic_sectors(total);
          busiest && warps && *warps > 0 && !c.profile.busiest_slice_atomics_per_warp) {
        c.profile.busiest_slice_atomics_per_warp = busiest->total / *warps;
        c.profile.sources["memory.busiest_slice_atomics_per_warp"] =
            "cupti: (" + busiest->expression + ") / smsp__warps_launched.sum (the case's counters)";
      }
      // Sectors per request (H.8b, H.9c, H.8c), where the case's profile does not state them.
      const auto sectors_per_request = [&](std::optional<double>& field, const std::string& name,
                                           const std::optional<counter_rules::Derived>& ratio) {
        if (!ratio || field) return;
        field = ratio->total;
        c.profile.sources[name] = "cupti: " + ratio->expression + " (the case's counters)";
      };
      sectors_per_request(c.profile.local_load_sectors_per_request, "memory.local_load_sectors_per_request",
                          counter_rules::local_load_sectors_per_request(total));
      sectors_per_request(c.profile.local_store_sectors_per_request, "memory.local_store_sectors_per_request",
                          counter_rules::local_store_sectors_per_request(total));
      sectors_per_request(c.profile.store_sectors_per_request, "memory.store_sectors_per_request",
                          counter_rules::store_sectors_per_request(total));
      if (const auto share = counter_rules::barrier_wait_share(total); share && !c.profile.launch.barrier_wait_share) {
        c.profile.launch.barrier_wait_share = share->total;
        c.profile.sources["launch.barrier_wait_share"] = "cupti: " + share->expression + " (the case's counters)";
      }
      if (auto wavefronts = per_warp(counter_rules::kL1Wavefronts); wavefronts && !c.profile.l1_wavefronts_per_warp) {
        c.profile.l1_wavefronts_per_warp = *wavefronts;
        c.profile.sources["memory.l1_wavefronts_per_warp"] = "cupti: l1tex__data_pipe_lsu_wavefronts.sum / smsp__warps_launched.sum (the case's counters)";
      }
    }
    r.finish();
    cases.push_back(std::move(c));
  }
  top.finish();
  return cases;
}

bool run_measured(const json& run, const std::string& family, const std::string& kernel) {
  auto lists = [&](const char* key, const std::string& item) {
    if (!run.contains(key) || !run[key].is_array()) return true;  // absent: the run measured them all
    for (const auto& v : run[key])
      if (v.is_string() && v.get<std::string>() == item) return true;
    return false;
  };
  return run.is_object() && lists("families_measured", family) &&
         (family != "corpus" || lists("corpus_kernels_measured", kernel));
}

json measuring_run(const json& measurements, const std::string& family, const std::string& kernel) {
  if (!measurements.is_object() || !measurements.contains("provenance") || !measurements["provenance"].is_object())
    return json::object();
  const json& top = measurements["provenance"];
  if (run_measured(top, family, kernel)) return top;
  if (top.contains("earlier_parts") && top["earlier_parts"].is_array())
    for (const auto& part : top["earlier_parts"])
      if (run_measured(part, family, kernel)) return part;
  return top;
}

json to_json(const ValidationCase& c) {
  json out = {{"family", c.family},       {"kernel", c.kernel},           {"size", c.size},
              {"shape", c.shape},         {"duration_ns", c.duration_ns}, {"sm_clock_mhz", c.sm_clock_mhz},
              {"profile", to_json(c.profile)}};
  if (!c.kernel_class.empty() && c.kernel_class != c.family) out["class"] = c.kernel_class;
  if (c.warps_per_sm) out["warps_per_sm"] = *c.warps_per_sm;
  if (c.sm_cycles_elapsed) out["sm_cycles_elapsed"] = *c.sm_cycles_elapsed;
  return out;
}

void check_json_nesting(std::string_view text, const std::string& origin, int max_depth) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth)
        throw InputError(origin + ": not valid input: JSON nested deeper than " + std::to_string(max_depth) +
                         " levels (at byte " + std::to_string(i) + "); warpmodel's files nest a few levels");
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
}

json parse_json_text(const std::string& text, const std::string& origin) {
  // Depth first: a parser (or a recursive walk over its result) must never meet unbounded nesting.
  check_json_nesting(text, origin, kMaxJsonDepth);
  try {
    return json::parse(text);
  } catch (const json::exception& e) {  // parse_error, and out_of_range for numbers like 1e99999
    std::string what = e.what();
    if (auto pos = what.find("] "); pos != std::string::npos) what = what.substr(pos + 2);
    throw InputError(origin + ": not valid JSON: " + what);
  }
}

json read_json_file(const std::filesystem::path& path) {
  return parse_json_text(support::read_input_file(path), path.string());
}

DeviceProfile load_device_profile(const std::filesystem::path& path) {
  return device_from_json(read_json_file(path), path.string());
}

KernelProfile load_kernel_profile(const std::filesystem::path& path) {
  return kernel_from_json(read_json_file(path), path.string());
}

json to_json(const DeviceProfile::HopperCalibration& c) {
  json out = {{"launch_cycles", c.launch_cycles},
              {"scale", c.scale},
              {"wave_cycles", c.wave_cycles},
              {"barrier_cycles", c.barrier_cycles},
              {"turnover_exponent", c.turnover_exponent}};
  if (c.counter_range_overhead_ns > 0) out["counter_range_overhead_ns"] = c.counter_range_overhead_ns;
  if (!c.fitted_on.empty()) out["fitted_on"] = c.fitted_on;
  return out;
}

json to_json(const DeviceProfile::ErrorQuantiles& q) {
  return {{"e10", q.e10}, {"e50", q.e50}, {"e90", q.e90}, {"cases", q.cases}};
}

json to_json(const DeviceProfile::HopperIntervals& iv) {
  json bounds = json::object();
  for (const auto& [bound, q] : iv.by_bound) bounds[bound] = to_json(q);
  json out = {{"quantiles", {0.1, 0.5, 0.9}}, {"widen", iv.widen}, {"min_cases", iv.min_cases},
              {"by_bound", bounds},           {"pooled", to_json(iv.pooled)}};
  if (iv.shape_change) out["shape_change"] = to_json(*iv.shape_change);
  if (!iv.source.empty()) out["source"] = iv.source;
  return out;
}

json to_json(const DeviceProfile& d) {
  const ArchLimits& a = d.limits;
  json limits = {{"max_threads_per_block", a.max_threads_per_block},
                 {"max_threads_per_sm", a.max_threads_per_sm},
                 {"max_blocks_per_sm", a.max_blocks_per_sm},
                 {"registers_per_sm", a.registers_per_sm},
                 {"max_registers_per_block", a.max_registers_per_block},
                 {"max_registers_per_thread", a.max_registers_per_thread},
                 {"register_allocation_unit", a.register_allocation_unit},
                 {"sub_partitions_per_sm", a.sub_partitions_per_sm},
                 {"shared_memory_per_sm_bytes", a.shared_memory_per_sm_bytes},
                 {"shared_memory_per_block_bytes", a.shared_memory_per_block_bytes},
                 {"shared_memory_per_block_optin_bytes", a.shared_memory_per_block_optin_bytes},
                 {"shared_memory_allocation_unit", a.shared_memory_allocation_unit},
                 {"shared_memory_reserved_per_block_bytes", a.shared_memory_reserved_per_block_bytes}};
  json lat = {{"fp", d.fp_latency_cycles},
              {"l1_hit", d.l1_hit_latency_cycles},
              {"l2_hit", d.l2_hit_latency_cycles},
              {"dram", d.dram_latency_cycles},
              {"departure_delay_coalesced", d.departure_delay_coalesced_cycles}};
  if (d.sfu_latency_cycles) lat["sfu"] = *d.sfu_latency_cycles;
  if (d.shared_load_latency_cycles) lat["shared_load"] = *d.shared_load_latency_cycles;
  if (d.departure_delay_uncoalesced_cycles) lat["departure_delay_uncoalesced"] = *d.departure_delay_uncoalesced_cycles;
  if (d.departure_delay_sequential_cycles) lat["departure_delay_sequential"] = *d.departure_delay_sequential_cycles;
  if (d.dram_scattered_latency_cycles) lat["dram_scattered"] = *d.dram_scattered_latency_cycles;
  if (d.fp32_dependent_latency_cycles) lat["fp32_dependent"] = *d.fp32_dependent_latency_cycles;
  if (d.block_dispatch_cycles) lat["block_dispatch"] = *d.block_dispatch_cycles;
  if (d.cluster_barrier_latency_cycles) lat["cluster_barrier"] = *d.cluster_barrier_latency_cycles;
  if (d.dsmem_latency_cycles) lat["dsmem"] = *d.dsmem_latency_cycles;
  json out = {{"schema", kDeviceSchema},
              {"name", d.name},
              {"hardware",
               {{"compute_capability", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor)},
                {"sm_count", d.sm_count},
                {"sm_clock_mhz", d.sm_clock_mhz},
                {"simd_width", d.simd_width},
                {"sfu_width", d.sfu_width},
                {"warp_size", a.warp_size},
                {"mem_peak_bandwidth_gbs", d.mem_peak_bandwidth_gbs},
                {"limits", limits}}},
              {"latency_cycles", lat}};
  if (!d.sms_per_gpc.empty()) out["hardware"]["sms_per_gpc"] = d.sms_per_gpc;
  if (!d.tensor_flops_per_clock_per_sm.empty()) out["tensor_flops_per_clock_per_sm"] = d.tensor_flops_per_clock_per_sm;
  if (!d.mma_sync_flops_per_clock_per_sm.empty())
    out["mma_sync_flops_per_clock_per_sm"] = d.mma_sync_flops_per_clock_per_sm;
  if (!d.global_load_latency_by_warps.empty()) out["global_load_latency_by_warps"] = d.global_load_latency_by_warps;
  json bw = json::object();
  for (const auto& [key, member] : kBandwidthFields)
    if (d.*member) bw[key] = *(d.*member);
  if (!bw.empty()) out["bandwidth_gbs"] = bw;
  json atomics = json::object();
  if (d.same_address_atomic_ops_per_clock) atomics["same_address_u32"] = *d.same_address_atomic_ops_per_clock;
  if (d.same_address_atomic_f32_ops_per_clock) atomics["same_address_f32"] = *d.same_address_atomic_f32_ops_per_clock;
  if (!atomics.empty()) out["atomic_ops_per_clock"] = atomics;
  if (const auto& c = d.hopper_calibration) out["hopper_calibration"] = to_json(*c);
  if (const auto& iv = d.hopper_intervals) out["hopper_intervals"] = to_json(*iv);
  if (const auto& e = d.energy) {
    json energy = {{"static_w", e->static_w}};
    const std::pair<const char*, const std::optional<double>*> fields[] = {
        {"pj_per_fp32_op", &e->pj_per_fp32_op},         {"pj_per_fp64_op", &e->pj_per_fp64_op},
        {"pj_per_int32_op", &e->pj_per_int32_op},
        {"pj_per_shared_byte", &e->pj_per_shared_byte}, {"pj_per_l2_byte", &e->pj_per_l2_byte},
        {"pj_per_dram_byte", &e->pj_per_dram_byte},     {"power_limit_w", &e->power_limit_w}};
    for (const auto& [key, value] : fields)
      if (*value) energy[key] = **value;
    if (!e->source.empty()) energy["source"] = e->source;
    out["energy"] = energy;
  }
  if (!d.provenance.empty()) out["provenance"] = d.provenance;
  return out;
}

AccessPatterns access_patterns_from_json(const json& j, const std::string& origin) {
  ObjectReader r(j, origin, "access_patterns");
  return access_patterns_from(r);
}

json to_json(const AccessPatterns& p) {
  json accesses = json::array();
  for (const MemoryAccess& m : p.accesses) {
    json a = {{"offset", m.offset},
              {"opcode", m.opcode},
              {"kind", m.kind == AccessKind::load ? "load" : m.kind == AccessKind::store ? "store" : "atomic"},
              {"bytes_per_thread", m.bytes_per_thread},
              {"loop_depth", m.loop_depth},
              {"address", nullptr}};
    if (m.address_from_loaded_data) a["address_from_loaded_data"] = true;  // false when absent (most accesses)
    const auto terms = [](const AddressPolynomial& poly) {
      json out = json::array();
      for (const AddressTerm& t : poly) out.push_back(json::array({t.coefficient, t.symbols}));
      return out;
    };
    if (m.address) a["address"] = terms(*m.address);
    if (m.stride_per_trip) a["stride_per_trip"] = terms(*m.stride_per_trip);  // absent: not known
    accesses.push_back(std::move(a));
  }
  json out = {{"accesses", std::move(accesses)}};
  if (!p.source.empty()) out["source"] = p.source;
  if (const auto& f = p.first_thread_loop)
    out["first_thread_loop"] = {{"begin", f->begin},
                                {"end", f->end},
                                {"indices", f->indices},
                                {"instructions_outside", f->instructions_outside},
                                {"global_loads_outside", f->global_loads_outside}};
  if (p.threads_under_constant_bound) out["threads_under_constant_bound"] = *p.threads_under_constant_bound;
  return out;
}

json to_json(const KernelProfile& k) {
  json launch = {{"grid", dim3_json(k.launch.grid)},
                 {"block", dim3_json(k.launch.block)},
                 {"registers_per_thread", k.launch.registers_per_thread},
                 {"shared_memory_per_block_bytes", k.launch.shared_memory_per_block_bytes}};
  if (k.launch.active_warps_per_sm) launch["active_warps_per_sm"] = *k.launch.active_warps_per_sm;
  if (k.launch.barrier_wait_share) launch["barrier_wait_share"] = *k.launch.barrier_wait_share;
  if (k.launch.total_warps) launch["total_warps"] = *k.launch.total_warps;
  if (k.launch.domain) launch["domain"] = dim3_json(*k.launch.domain);
  if (k.launch.cluster) launch["cluster"] = dim3_json(*k.launch.cluster);
  if (k.timed_by_counter_range) launch["timed_by_counter_range"] = true;
  json par = {{"mlp", k.mlp}};
  if (k.ilp) par["ilp"] = *k.ilp;
  if (k.static_instructions) par["static_instructions"] = *k.static_instructions;
  if (k.basic_blocks) par["basic_blocks"] = *k.basic_blocks;
  if (k.stall_cycles_per_inst) par["stall_cycles_per_instruction"] = *k.stall_cycles_per_inst;
  json out = {{"schema", kKernelSchema},
              {"name", k.name},
              {"launch", launch},
              {"instructions_per_warp",
               {{"total", k.inst_per_warp},
                {"memory", k.mem_inst_per_warp},
                {"fp", k.fp_inst_per_warp},
                {"sfu", k.sfu_inst_per_warp},
                {"sync", k.sync_inst_per_warp},
                {"uncoalesced_memory", k.uncoalesced_mem_inst_per_warp},
                {"divergent", k.divergent_inst_per_warp},
                {"shared", k.shared_inst_per_warp},
                {"async_copy", k.async_copy_inst_per_warp},
                {"local_load", k.local_load_inst_per_warp}}},
              {"parallelism", par},
              {"memory",
               {{"transactions_per_request", k.transactions_per_request},
                {"transactions_per_uncoalesced_request", k.transactions_per_uncoalesced_request},
                {"l1_miss_ratio", k.l1_miss_ratio},
                {"l2_miss_ratio", k.l2_miss_ratio},
                {"data_size_bytes", k.data_size_bytes},
                {"bank_conflicts_per_warp", k.bank_conflicts_per_warp}}}};
  if (k.global_load_inst_per_warp) out["instructions_per_warp"]["global_load"] = *k.global_load_inst_per_warp;
  if (k.tensor_inst_per_warp > 0) out["instructions_per_warp"]["tensor"] = k.tensor_inst_per_warp;
  if (k.cluster_barrier_waits_per_warp)
    out["instructions_per_warp"]["cluster_barrier_wait"] = *k.cluster_barrier_waits_per_warp;
  if (k.remote_shared_waits_per_warp) out["instructions_per_warp"]["remote_shared_wait"] = *k.remote_shared_waits_per_warp;
  if (k.dsmem_bytes_per_warp) out["memory"]["dsmem_bytes_per_warp"] = *k.dsmem_bytes_per_warp;
  if (!k.tensor_flops_per_warp.empty()) out["tensor_flops_per_warp"] = k.tensor_flops_per_warp;
  if (!k.mma_sync_flops_per_warp.empty()) out["mma_sync_flops_per_warp"] = k.mma_sync_flops_per_warp;
  if (k.l2_bytes_per_warp) out["memory"]["l2_bytes_per_warp"] = *k.l2_bytes_per_warp;
  if (k.dram_bytes_per_warp) out["memory"]["dram_bytes_per_warp"] = *k.dram_bytes_per_warp;
  if (k.dram_write_bytes_per_warp) out["memory"]["dram_write_bytes_per_warp"] = *k.dram_write_bytes_per_warp;
  if (k.l2_write_bytes_per_warp) out["memory"]["l2_write_bytes_per_warp"] = *k.l2_write_bytes_per_warp;
  if (k.l1_wavefronts_per_warp) out["memory"]["l1_wavefronts_per_warp"] = *k.l1_wavefronts_per_warp;
  if (k.local_load_sectors_per_request)
    out["memory"]["local_load_sectors_per_request"] = *k.local_load_sectors_per_request;
  if (k.local_store_sectors_per_request)
    out["memory"]["local_store_sectors_per_request"] = *k.local_store_sectors_per_request;
  if (k.store_sectors_per_request) out["memory"]["store_sectors_per_request"] = *k.store_sectors_per_request;
  if (k.atomic_lane_ops_per_warp) out["memory"]["atomic_lane_ops_per_warp"] = *k.atomic_lane_ops_per_warp;
  if (k.busiest_slice_atomics_per_warp)
    out["memory"]["busiest_slice_atomics_per_warp"] = *k.busiest_slice_atomics_per_warp;
  if (k.access_patterns) out["access_patterns"] = to_json(*k.access_patterns);
  if (!k.sources.empty()) out["sources"] = k.sources;
  return out;
}

json to_json(const Occupancy& o) {
  return {{"warps_per_block", o.warps_per_block},
          {"blocks_limit_by_warps", o.blocks_limit_by_warps},
          {"blocks_limit_by_blocks", o.blocks_limit_by_blocks},
          {"blocks_limit_by_registers", o.blocks_limit_by_registers},
          {"blocks_limit_by_shared_memory", o.blocks_limit_by_shared_memory},
          {"blocks_per_sm", o.blocks_per_sm},
          {"limiter", std::string(to_string(o.limiter))},
          {"total_blocks", o.total_blocks},
          {"total_warps", o.total_warps},
          {"active_sms", o.active_sms},
          {"resident_blocks_per_sm", o.resident_blocks_per_sm},
          {"N", o.n},
          {"rep", o.rep},
          {"waves", o.waves},
          {"occupancy_fraction", o.occupancy_fraction}};
}

json to_json(const Prediction& p) {
  json terms = json::object();
  for (const PredictionTerm& term : prediction_terms()) terms[term.key] = nan_to_null(p.*term.member);
  return {{"model", std::string(to_string(p.variant))},
          {"occupancy", to_json(p.occupancy)},
          {"terms", terms},
          {"bound", p.bound.empty() ? json(nullptr) : json(p.bound)},
          {"case", std::string(to_string(p.model_case))},
          {"cycles", nan_to_null(p.cycles)},
          {"seconds", nan_to_null(p.seconds)},
          {"notes", p.notes}};
}

void write_file_atomically(const std::filesystem::path& path, const std::function<void(std::ostream&)>& write) {
  namespace fs = std::filesystem;
  // Only a file is replaced: a rename over a folder fails, and over a device node (/dev/null) it
  // would put a file in the device's place.
  std::error_code ec;
  if (const fs::file_status status = fs::status(path, ec); fs::exists(status) && !fs::is_regular_file(status))
    throw InputError(path.string() + ": is " + support::describe_file_type(status) +
                     "; expected the name of a file to write (a new name or a regular file)");
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  fs::create_directories(dir, ec);
  if (ec) throw InputError(dir.string() + ": cannot create the folder (" + ec.message() + "); choose another output");
  const fs::path tmp = dir / ("." + path.filename().string() + ".tmp" + std::to_string(::getpid()));
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out)
      throw InputError(path.string() + ": cannot write the file (" + std::strerror(errno) +
                       "); choose another output");
    try {
      write(out);
    } catch (...) {
      out.close();
      fs::remove(tmp, ec);
      throw;
    }
    out.flush();
    if (!out) {
      out.close();
      fs::remove(tmp, ec);
      throw InputError(path.string() + ": write failed (disk full?)");
    }
  }
  fs::rename(tmp, path, ec);
  if (ec) {
    const std::string why = ec.message();  // before remove() reuses ec
    fs::remove(tmp, ec);
    throw InputError(path.string() + ": cannot replace the file (" + why + ")");
  }
}

void write_file_atomically(const std::filesystem::path& path, const std::string& text) {
  // A ".xz" name is stored compressed (the large measurement files under results/).
  if (support::is_xz_path(path)) {
    const std::string compressed = support::xz_compress(text);
    write_file_atomically(path, [&](std::ostream& out) { out << compressed; });
    return;
  }
  write_file_atomically(path, [&](std::ostream& out) { out << text; });
}

}  // namespace warpmodel
