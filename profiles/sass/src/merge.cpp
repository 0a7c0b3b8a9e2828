#include "warpmodel/sass/merge.hpp"

#include "warpmodel/counter_rules.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "warpmodel/device_profile.hpp"
#include "warpmodel/input_ranges.hpp"
#include "warpmodel/json_io.hpp"
#include "warpmodel/report.hpp"
#include "warpmodel/support/statistics.hpp"
#include "warpmodel/sass/report.hpp"
#include "warpmodel/support/text.hpp"

namespace warpmodel::sass {
namespace {

using nlohmann::json;

std::string fmt(double x) { return format_number(x, 6); }

[[noreturn]] void fail(const std::string& origin, const std::string& field, const std::string& expected) {
  throw InputError(origin + ": " + field + ": expected " + expected);
}

// A grid or block: [x, y, z] or one integer, each part in [1, max_x] (x) or [1, max_yz], the product
// no more than max_count (input_ranges.hpp: CUDA's limits).
Dim3 read_dim3(const json& j, const std::string& origin, const std::string& field, long long max_x, long long max_yz,
               long long max_count) {
  const std::string expected = "[x, y, z] or one integer, positive (x <= " + std::to_string(max_x) + ", y and z <= " +
                               std::to_string(max_yz) + ", " + std::to_string(max_count) + " in all)";
  auto part = [&](const json& v, long long max) {
    if (!v.is_number_integer() || v.get<double>() < 1 || v.get<double>() > static_cast<double>(max))
      fail(origin, field, expected);
    return v.get<long long>();
  };
  if (j.is_number()) return {part(j, max_x), 1, 1};
  if (!j.is_array() || j.empty() || j.size() > 3) fail(origin, field, expected);
  Dim3 d;
  d.x = part(j[0], max_x);
  if (j.size() > 1) d.y = part(j[1], max_yz);
  if (j.size() > 2) d.z = part(j[2], max_yz);
  if (static_cast<double>(d.x) * static_cast<double>(d.y) * static_cast<double>(d.z) > static_cast<double>(max_count))
    fail(origin, field, expected);
  return d;
}

std::optional<int> optional_int(const json& o, const char* key, const std::string& origin, const std::string& where,
                                long long max) {
  if (!o.contains(key) || o.at(key).is_null()) return std::nullopt;
  const json& v = o.at(key);
  if (!v.is_number() || v.get<double>() < 0 || v.get<double>() > static_cast<double>(max) ||
      v.get<double>() != std::floor(v.get<double>()))
    fail(origin, where + "." + key, "an integer in [0, " + std::to_string(max) + "]");
  return static_cast<int>(v.get<double>());
}

std::optional<double> optional_number(const json& o, const char* key) {
  if (!o.contains(key) || !o.at(key).is_number()) return std::nullopt;
  return o.at(key).get<double>();
}

// A number in `range`, null (none) or absent; anything else is refused.
std::optional<double> optional_in_range(const json& o, const char* key, const PlausibleRange& range,
                                        const std::string& origin, const std::string& field) {
  if (!o.contains(key) || o.at(key).is_null()) return std::nullopt;
  const json& v = o.at(key);
  if (!v.is_number() || !range.contains(v.get<double>())) fail(origin, field, range.describe() + " or null, got " + v.dump().substr(0, 40));
  return v.get<double>();
}

struct Metric {
  std::string name;
  double value = 0;
};

std::optional<Metric> first_of(const std::map<std::string, double>& m, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (auto it = m.find(n); it != m.end() && std::isfinite(it->second)) return Metric{n, it->second};
  return std::nullopt;
}

Dim3 parse_dims(const std::string& text, const std::string& key) {
  Dim3 d;
  long long* parts[3] = {&d.x, &d.y, &d.z};
  std::istringstream in(text);
  std::string item;
  int i = 0;
  while (std::getline(in, item, 'x')) {
    if (i == 3 || item.empty() || item.find_first_not_of("0123456789") != std::string::npos || item.size() > 9)
      throw InputError("--launch: " + key + "=" + text + ": expected X, XxY or XxYxZ with positive integers");
    *parts[i++] = std::stoll(item);
    if (*parts[i - 1] < 1) throw InputError("--launch: " + key + "=" + text + ": dimensions must be positive");
  }
  if (i == 0) throw InputError("--launch: " + key + "=: expected X, XxY or XxYxZ");
  return d;
}

std::string static_estimate(const std::string& what) { return "static estimate (" + what + ")"; }

}  // namespace

namespace {

// One warpmodel.profile/1 object's launches, appended to `out`; `where` prefixes field names
// ("profiles[2]." inside a collection).
void read_profile(const json& j, const std::string& origin, const std::string& where, CounterFile& out) {
  if (!j.is_object()) fail(origin, where.empty() ? "(top level)" : where, "an object");
  if (!j.contains("schema") || j.at("schema") != kProfileSchema)
    fail(origin, where + "schema", std::string("\"") + kProfileSchema + "\" (or \"" + kProfileCollectionSchema + "\")");
  const json device = j.contains("device") && j.at("device").is_object() ? j.at("device") : json::object();
  const std::string workload =
      j.contains("workload") && j.at("workload").is_string() ? j.at("workload").get<std::string>() : "";
  // No timed runs: the launches' durations are the counter range's own (profile -- APP, import-ncu).
  const bool counter_range_timed = j.contains("collection") && j.at("collection").is_object() &&
                                   j.at("collection").contains("timing_runs") &&
                                   j.at("collection").at("timing_runs").is_number() &&
                                   j.at("collection").at("timing_runs").get<double>() == 0;
  if (!j.contains("launches") || !j.at("launches").is_array()) fail(origin, where + "launches", "an array of launches");
  std::map<std::string, int> seen;  // launches per kernel, for a missing launch_index
  for (std::size_t i = 0; i < j.at("launches").size(); ++i) {
    const json& l = j.at("launches")[i];
    const std::string at = where + "launches[" + std::to_string(i) + "]";
    if (!l.is_object()) fail(origin, at, "an object");
    CounterLaunch c;
    if (!l.contains("kernel") || !l.at("kernel").is_string() || l.at("kernel").get<std::string>().empty())
      fail(origin, at + ".kernel", "the kernel's (mangled) name");
    c.kernel = l.at("kernel").get<std::string>();
    if (l.contains("demangled") && l.at("demangled").is_string()) c.demangled = l.at("demangled").get<std::string>();
    if (!l.contains("grid")) fail(origin, at + ".grid", "[x, y, z]");
    if (!l.contains("block")) fail(origin, at + ".block", "[x, y, z]");
    c.grid = read_dim3(l.at("grid"), origin, at + ".grid", ranges::kMaxGridX, ranges::kMaxGridYZ, ranges::kMaxBlocks);
    c.block = read_dim3(l.at("block"), origin, at + ".block", ranges::kMaxThreadsPerBlock, ranges::kMaxThreadsPerBlock,
                        ranges::kMaxThreadsPerBlock);
    if (l.contains("cluster") && !l.at("cluster").is_null())
      c.cluster = read_dim3(l.at("cluster"), origin, at + ".cluster", ranges::kMaxClusterBlocks, ranges::kMaxClusterBlocks,
                            ranges::kMaxClusterBlocks);
    const auto index = optional_int(l, "launch_index", origin, at, 1000000000);
    c.launch_index = index ? *index : seen[c.kernel];
    ++seen[c.kernel];
    c.registers_per_thread = optional_int(l, "registers_per_thread", origin, at, ranges::kMaxRegistersPerThread);
    c.shared_memory_per_block_bytes =
        optional_int(l, "shared_memory_per_block_bytes", origin, at, ranges::kMaxSharedBytesPerBlock);
    c.duration_ns = optional_in_range(l, "duration_ns", ranges::kDurationNs, origin, at + ".duration_ns");
    c.duration_from_counter_range = counter_range_timed;
    if (!l.contains("metrics") || !l.at("metrics").is_object())
      fail(origin, at + ".metrics", "an object of metric name -> value");
    // Each value a counter's (a number in its plausible range) or null: a true or a "12" where a
    // number belongs is a broken file, not a metric to skip.
    for (const auto& [name, value] : l.at("metrics").items())
      if (const auto x = optional_in_range(l.at("metrics"), name.c_str(), ranges::kCounter, origin,
                                           at + ".metrics." + name))
        c.metrics[name] = *x;
    c.device = device;
    c.workload = workload;
    c.where = at;
    out.launches.push_back(std::move(c));
  }
}

}  // namespace

CounterFile counters_from_json(const json& j, const std::string& origin) {
  CounterFile f;
  f.origin = origin;
  if (j.is_object() && j.contains("schema") && j.at("schema") == kProfileCollectionSchema) {
    if (!j.contains("profiles") || !j.at("profiles").is_array())
      fail(origin, "profiles", std::string("an array of ") + kProfileSchema + " objects");
    for (std::size_t i = 0; i < j.at("profiles").size(); ++i)
      read_profile(j.at("profiles")[i], origin, "profiles[" + std::to_string(i) + "].", f);
  } else {
    read_profile(j, origin, "", f);
  }
  return f;
}

CounterFile load_counters(const std::filesystem::path& path) {
  return counters_from_json(read_json_file(path), path.string());
}

void add_cluster_statics(KernelProfile& k, const ClusterStatics& s) {
  if (s.barrier_waits <= 0 && s.remote_shared_stores <= 0) return;
  auto& src = k.sources;
  k.cluster_barrier_waits_per_warp = s.barrier_waits;
  src["instructions_per_warp.cluster_barrier_wait"] = "sass: " + std::to_string(s.barrier_waits) + " UCGABAR_WAIT (each once)";
  k.remote_shared_waits_per_warp = s.remote_data_waits;
  src["instructions_per_warp.remote_shared_wait"] =
      "sass: " + std::to_string(s.remote_data_waits) + " mbarrier try-waits of a kernel that pushes with STAS (each once)";
  if (s.remote_shared_stores > 0) {
    k.dsmem_bytes_per_warp = 32.0 * s.remote_store_bytes_per_thread;
    src["memory.dsmem_bytes_per_warp"] = static_estimate("sass: " + std::to_string(s.remote_shared_stores) + " STAS, " +
                                                         std::to_string(s.remote_store_bytes_per_thread) +
                                                         " bytes a thread, 32 lanes");
  }
}

double counter_range_overhead_ns(const CounterFile& both_ways) {
  std::vector<double> differences;
  for (const auto& l : both_ways.launches) {
    const auto range = l.metrics.find("gpu__time_duration.sum");
    if (!l.duration_from_counter_range && l.duration_ns && range != l.metrics.end())
      differences.push_back(range->second - *l.duration_ns);
  }
  if (differences.empty())
    throw InputError(both_ways.origin + ": launches: expected launches timed both ways (duration_ns from timed runs, "
                                        "collection.timing_runs > 0, and the metric gpu__time_duration.sum), found none");
  return std::max(0.0, support::median(differences));
}

LaunchSpec parse_launch_spec(const std::string& text) {
  LaunchSpec spec;
  std::istringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    const auto eq = item.find('=');
    if (eq == std::string::npos)
      throw InputError("--launch: '" + item + "': expected key=value (grid=8x8x8,block=8x8x4[,smem=BYTES][,domain=XxYxZ])");
    const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    if (key == "grid") spec.grid = parse_dims(value, key);
    else if (key == "block") spec.block = parse_dims(value, key);
    else if (key == "domain") spec.domain = parse_dims(value, key);
    else if (key == "smem") {
      if (value.empty() || value.find_first_not_of("0123456789") != std::string::npos || value.size() > 9)
        throw InputError("--launch: smem=" + value + ": expected bytes of dynamic shared memory per block");
      spec.dynamic_shared_bytes = std::stoi(value);
    } else {
      throw InputError("--launch: unknown key '" + key + "' (known: grid, block, smem, domain)");
    }
  }
  if (spec.block && spec.block->count() > 1024) throw InputError("--launch: block has more than 1024 threads");
  return spec;
}

const KernelStatics& select_kernel(const std::vector<KernelStatics>& kernels, const std::string& query,
                                   const std::string& binary) {
  std::vector<const KernelStatics*> exact, partial;
  for (const auto& k : kernels) {
    const std::string brief = short_kernel_name(k.demangled);
    if (k.name == query || k.demangled == query || brief == query) exact.push_back(&k);
    else if (k.name.find(query) != std::string::npos || k.demangled.find(query) != std::string::npos)
      partial.push_back(&k);
  }
  const auto& matches = exact.empty() ? partial : exact;
  if (matches.size() == 1) return *matches.front();
  if (matches.size() > 1) {
    std::vector<std::string> names;
    for (const auto* k : matches)
      names.push_back(short_kernel_name(k->demangled) + (k->cubin.empty() ? "" : " [" + k->cubin + "]"));
    throw InputError("--kernel '" + query + "' matches " + std::to_string(matches.size()) + " kernels in " + binary +
                     ": " + support::join(names, ", ", 8) + "; name one exactly (mangled or demangled)");
  }
  std::vector<std::pair<std::size_t, std::string>> ranked;
  for (const auto& k : kernels) {
    const std::string brief = short_kernel_name(k.demangled);
    const std::string last = brief.substr(brief.rfind("::") == std::string::npos ? 0 : brief.rfind("::") + 2);
    ranked.emplace_back(std::min(support::edit_distance(query, brief), support::edit_distance(query, last)), brief);
  }
  std::sort(ranked.begin(), ranked.end());
  std::vector<std::string> closest;
  for (std::size_t i = 0; i < ranked.size() && i < 5; ++i) closest.push_back(ranked[i].second);
  throw InputError("--kernel '" + query + "': no such kernel in " + binary +
                   (closest.empty() ? std::string(" (it has no kernels)")
                                    : "; closest: " + support::join(closest, ", ", 8)) +
                   " (warpmodel sass-analyze " + binary + " lists them all)");
}

const CounterLaunch& select_launch(const CounterFile& counters, const KernelStatics& kernel,
                                   std::optional<int> launch_index) {
  std::vector<const CounterLaunch*> of_kernel;
  for (const auto& l : counters.launches)
    if (l.kernel == kernel.name || (!l.demangled.empty() && l.demangled == kernel.demangled)) of_kernel.push_back(&l);
  if (of_kernel.empty()) {
    std::vector<std::string> names;
    for (const auto& l : counters.launches) {
      const std::string n = short_kernel_name(l.demangled.empty() ? demangle(l.kernel) : l.demangled);
      if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
    }
    throw InputError(counters.origin + ": no launch of " + short_kernel_name(kernel.demangled) +
                     (names.empty() ? std::string(" (the file holds no launches)")
                                    : "; it holds: " + support::join(names, ", ", 8)));
  }
  if (!launch_index) return *of_kernel.front();
  for (const auto* l : of_kernel)
    if (l->launch_index == *launch_index) return *l;
  throw InputError(counters.origin + ": " + short_kernel_name(kernel.demangled) + " has no launch_index " +
                   std::to_string(*launch_index) + " (" + std::to_string(of_kernel.size()) + " launches)");
}

KernelProfile make_kernel_profile(const MergeInputs& in) {
  if (!in.statics) throw InputError("kernel-profile: no kernel analysed");
  const KernelStatics& s = *in.statics;
  const CounterLaunch* c = in.launch;
  const std::map<std::string, double> none;
  const std::map<std::string, double>& m = c ? c->metrics : none;
  const std::string counters = c ? "cupti (" + in.counters_origin + ", " + c->where + ")" : "";
  KernelProfile k;
  auto& src = k.sources;
  k.name = short_kernel_name(s.demangled);
  src["kernel"] = s.name + " in " + in.binary + " (" + (s.cubin.empty() ? "" : s.cubin + ", ") + s.arch + ")";
  if (c)
    src["counters"] = in.counters_origin + ": " + c->where + " (launch_index " + std::to_string(c->launch_index) + ", " +
                      c->kernel + (c->workload.empty() ? "" : "; workload " + c->workload) + ")";

  // --- launch ---
  const LaunchSpec& spec = in.launch_spec;
  if (!spec.grid && !c)
    throw InputError("kernel-profile: the launch is unknown: give --launch grid=X[xYxZ],block=X[xYxZ] or --counters");
  if (!spec.block && !c)
    throw InputError("kernel-profile: the block shape is unknown: give --launch block=X[xYxZ] or --counters");
  k.launch.grid = spec.grid ? *spec.grid : c->grid;
  src["launch.grid"] = spec.grid ? "--launch" : counters + ": grid";
  k.launch.block = spec.block ? *spec.block : c->block;
  src["launch.block"] = spec.block ? "--launch" : counters + ": block";
  if (spec.domain) {
    k.launch.domain = *spec.domain;
    src["launch.domain"] = "--launch";
  }
  if (c && c->duration_from_counter_range) {
    k.timed_by_counter_range = true;
    src["launch.timed_by_counter_range"] = counters + ": duration_ns is the counter range's gpu__time_duration "
                                           "(collection.timing_runs 0)";
  }
  if (c && c->cluster && c->cluster->count() > 1) {
    k.launch.cluster = *c->cluster;
    src["launch.cluster"] = counters + ": cluster (the Activity API's clusterX/Y/Z)";
  }
  if (c && c->registers_per_thread && *c->registers_per_thread > 0) {
    k.launch.registers_per_thread = *c->registers_per_thread;
    src["launch.registers_per_thread"] = counters + ": registers_per_thread";
  } else if (s.resources) {
    k.launch.registers_per_thread = s.resources->registers;
    src["launch.registers_per_thread"] = "res-usage: REG";
  }
  if (c && c->shared_memory_per_block_bytes && !spec.dynamic_shared_bytes) {
    k.launch.shared_memory_per_block_bytes = *c->shared_memory_per_block_bytes;
    src["launch.shared_memory_per_block_bytes"] = counters + ": shared_memory_per_block_bytes (static + dynamic)";
  } else {
    const int static_shared = s.resources ? s.resources->shared_bytes : 0;
    const int dynamic_shared = spec.dynamic_shared_bytes.value_or(0);
    k.launch.shared_memory_per_block_bytes = static_shared + dynamic_shared;
    src["launch.shared_memory_per_block_bytes"] = "res-usage: SHARED " + std::to_string(static_shared) +
                                                  " (static) + " + std::to_string(dynamic_shared) +
                                                  (spec.dynamic_shared_bytes ? " (--launch smem)" : " dynamic (assumed)");
  }

  // --- warps: the divisor of every per-warp counter ---
  const double launched_warps = static_cast<double>(k.launch.grid.count()) *
                                std::ceil(static_cast<double>(k.launch.block.count()) / 32.0);
  double warps = launched_warps;
  std::string warps_name = "grid x ceil(block/32) = " + fmt(launched_warps) + " warps";
  // Fewer than one warp launched is no count to divide by (the per-warp counts would explode).
  if (auto w = first_of(m, {"smsp__warps_launched.sum", "sm__warps_launched.sum"}); w && w->value >= 1) {
    warps = w->value;
    warps_name = w->name;
  }
  auto per_warp = [&](const Metric& x) { return x.value / warps; };
  auto cupti = [&](const std::string& expression, double value) {
    return "cupti: " + expression + " / " + warps_name + " = " + fmt(value) + " (" + in.counters_origin + ")";
  };
  auto fallback = [&](const std::string& wanted) {
    return c ? " [counter " + wanted + " missing: falls back to static]" : std::string();
  };
  // A per-warp count: the first counter present / W, else the static count, labelled as such.
  auto count_per_warp = [&](const std::string& field, std::initializer_list<const char*> names, double& value,
                            double static_count, const std::string& static_what, const std::string& note = "",
                            bool zero_is_missing = false) {
    if (auto x = first_of(m, names); x && (x->value > 0 || !zero_is_missing)) {
      value = per_warp(*x);
      src[field] = cupti(x->name, value) + note;
    } else {
      value = static_count;
      src[field] = static_estimate("sass: " + static_what) + fallback(*names.begin());
    }
  };
  // A miss ratio: 1 - the first hit rate present (percent), else 1 (no hits assumed).
  auto miss_ratio = [&](const std::string& field, std::initializer_list<const char*> hit_rates, double& value) {
    if (auto x = first_of(m, hit_rates)) {
      value = std::clamp(1.0 - x->value / 100.0, 0.0, 1.0);
      src[field] = "cupti: 1 - " + x->name + " / 100 = " + fmt(value) + " (" + in.counters_origin + ")";
    } else {
      value = 1.0;
      src[field] = static_estimate("no cache hits assumed: 1") + fallback(*hit_rates.begin());
    }
  };

  // --- instructions per warp ---
  count_per_warp("instructions_per_warp.total", {"smsp__inst_executed.sum", "sm__inst_executed.sum"}, k.inst_per_warp,
                 std::max(1, s.static_instructions),
                 std::to_string(s.static_instructions) +
                     " static instructions, each executed once: loops and branches not weighted",
                 "", /*zero_is_missing=*/true);
  const auto ld = first_of(m, {"smsp__inst_executed_op_global_ld.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"});
  const auto st = first_of(m, {"smsp__inst_executed_op_global_st.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"});
  if (ld && st) {
    k.mem_inst_per_warp = (ld->value + st->value) / warps;
    src["instructions_per_warp.memory"] = cupti("(" + ld->name + " + " + st->name + ")", k.mem_inst_per_warp);
  } else {
    k.mem_inst_per_warp = s.mix.global_memory();
    src["instructions_per_warp.memory"] =
        static_estimate("sass: " + std::to_string(s.mix.global_memory()) + " global memory instructions (LDG " +
                        std::to_string(s.mix.ldg) + ", STG " + std::to_string(s.mix.stg) + ", LD/ST/ATOM/LDGSTS " +
                        std::to_string(s.mix.ld + s.mix.st + s.mix.atom + s.mix.ldgsts) + ")") +
        fallback("smsp__inst_executed_op_global_ld.sum/_st.sum");
  }
  if (k.mem_inst_per_warp > k.inst_per_warp) {  // only when static and measured counts are mixed
    src["instructions_per_warp.memory"] += "; capped at instructions_per_warp.total";
    k.mem_inst_per_warp = k.inst_per_warp;
  }
  if (ld && st) {
    k.global_load_inst_per_warp = std::min(ld->value / warps, k.mem_inst_per_warp);
    src["instructions_per_warp.global_load"] = cupti(ld->name, *k.global_load_inst_per_warp);
  } else {
    k.global_load_inst_per_warp = std::min<double>(s.mix.ldg + s.mix.ld, k.mem_inst_per_warp);
    src["instructions_per_warp.global_load"] =
        static_estimate("sass: LDG " + std::to_string(s.mix.ldg) + " + LD " + std::to_string(s.mix.ld)) +
        fallback("smsp__inst_executed_op_global_ld.sum");
  }
  if (auto local = first_of(m, {counter_rules::kLocalLoads})) {
    k.local_load_inst_per_warp = per_warp(*local);
    src["instructions_per_warp.local_load"] = cupti(local->name, k.local_load_inst_per_warp);
  } else {
    k.local_load_inst_per_warp = s.mix.ldl;
    src["instructions_per_warp.local_load"] =
        static_estimate("sass: LDL " + std::to_string(s.mix.ldl)) + fallback(counter_rules::kLocalLoads);
  }
  {
    // LDGSTS (cp.async) and TMA loads (UTMALDG, UBLKCP.S.G) are counted apart from op_global_ld.
    const auto ldgsts = first_of(m, {"smsp__inst_executed_op_ldgsts.sum"});
    const auto tma = first_of(m, {"smsp__inst_executed_op_tma_ld.sum"});
    if (ldgsts || tma) {
      k.async_copy_inst_per_warp = ((ldgsts ? ldgsts->value : 0) + (tma ? tma->value : 0)) / warps;
      const std::string names = ldgsts && tma ? "(" + ldgsts->name + " + " + tma->name + ")" : (ldgsts ? ldgsts : tma)->name;
      src["instructions_per_warp.async_copy"] = cupti(names, k.async_copy_inst_per_warp);
    } else {
      k.async_copy_inst_per_warp = s.mix.ldgsts + s.mix.tma;
      src["instructions_per_warp.async_copy"] =
          static_estimate("sass: LDGSTS " + std::to_string(s.mix.ldgsts) + " + TMA " + std::to_string(s.mix.tma)) +
          fallback("smsp__inst_executed_op_ldgsts.sum");
    }
  }
  {
    double fp_thread = 0;
    std::vector<std::string> names;
    for (const char* op : {"fadd", "fmul", "ffma", "dadd", "dmul", "dfma", "hadd", "hmul", "hfma"}) {
      const std::string name = std::string("smsp__sass_thread_inst_executed_op_") + op + "_pred_on.sum";
      if (auto it = m.find(name); it != m.end()) {
        fp_thread += it->second;
        names.push_back(name);
      }
    }
    if (!names.empty()) {
      k.fp_inst_per_warp = fp_thread / 32.0 / warps;
      src["instructions_per_warp.fp"] =
          cupti("(" + support::join(names, ", ", 9) + ") / 32 threads", k.fp_inst_per_warp) + " (exact without predication or divergence)";
    } else {
      k.fp_inst_per_warp = s.mix.fp();
      src["instructions_per_warp.fp"] =
          static_estimate("sass: " + std::to_string(s.mix.fp()) + " FP32/FP64/FP16 instructions") +
                                        fallback("smsp__sass_thread_inst_executed_op_*_pred_on.sum");
    }
  }
  count_per_warp("instructions_per_warp.sfu", {"smsp__inst_executed_pipe_xu.sum", "sm__inst_executed_pipe_xu.sum"},
                 k.sfu_inst_per_warp, s.mix.sfu, std::to_string(s.mix.sfu) + " MUFU", " (XU pipe: MUFU and conversions)");
  // sm_90 has no barrier-only counter; BAR.SYNC issues to the ADU pipe, which also runs a few other
  // instructions (3 per warp in the copy kernel, profiles/cupti metrics.cpp), so the ADU count is an
  // upper bound that is far closer than the static count for barriers inside loops. A kernel
  // without a BAR instruction executes no barrier, whatever else its ADU pipe runs.
  if (s.mix.bar == 0) {
    k.sync_inst_per_warp = 0;
    src["instructions_per_warp.sync"] = "sass: no BAR instruction in the kernel, 0";
  } else {
    count_per_warp("instructions_per_warp.sync",
                   {"smsp__inst_executed_op_barrier.sum", "sm__inst_executed_op_barrier.sum", "smsp__inst_executed_pipe_adu.sum"},
                   k.sync_inst_per_warp, s.mix.bar, std::to_string(s.mix.bar) + " BAR",
                   " (on sm_90 the ADU pipe: barriers and a few other instructions)");
  }

  {
    const auto lds = first_of(m, {"smsp__inst_executed_op_shared_ld.sum"});
    const auto sts = first_of(m, {"smsp__inst_executed_op_shared_st.sum"});
    if (lds && sts) {
      k.shared_inst_per_warp = (lds->value + sts->value) / warps;
      src["instructions_per_warp.shared"] = cupti("(" + lds->name + " + " + sts->name + ")", k.shared_inst_per_warp);
    } else {
      k.shared_inst_per_warp = s.mix.shared_memory();
      src["instructions_per_warp.shared"] =
          static_estimate("sass: " + std::to_string(s.mix.shared_memory()) + " LDS/STS/LDSM/ATOMS") +
          fallback("smsp__inst_executed_op_shared_ld.sum/_st.sum");
    }
  }

  // --- tensor cores (hopper H.17): the pipe's instructions, each at its SASS shape's FLOPs ---
  if (s.mix.tensor > 0) {
    const auto tensor = first_of(m, {"smsp__inst_executed_pipe_tensor.sum", "sm__inst_executed_pipe_tensor.sum"});
    k.tensor_inst_per_warp = tensor ? tensor->value / warps : s.mix.tensor;
    src["instructions_per_warp.tensor"] =
        tensor ? cupti(tensor->name, k.tensor_inst_per_warp)
               : static_estimate("sass: " + std::to_string(s.mix.tensor) + " MMA instructions") +
                     fallback("smsp__inst_executed_pipe_tensor.sum");
    // Each executed MMA is taken at the kernel's mean static FLOPs per MMA of each type: exact when
    // the kernel has one MMA shape, or its shapes run equally often.
    if (s.tensor_instructions_read > 0) {
      std::string by_type;
      for (const auto& [type, flops] : s.tensor_flops_by_type) {
        k.tensor_flops_per_warp[type] = k.tensor_inst_per_warp * flops / s.mix.tensor;
        by_type += (by_type.empty() ? "" : ", ") + type + " " + fmt(flops);
      }
      for (const auto& [type, flops] : s.mma_sync_flops_by_type)
        k.mma_sync_flops_per_warp[type] = k.tensor_inst_per_warp * flops / s.mix.tensor;
      src["tensor_flops_per_warp"] = "instructions_per_warp.tensor x the SASS's static FLOPs per MMA (" + by_type +
                                     " over " + std::to_string(s.mix.tensor) + " MMA instructions)";
    }
  }
  // --- thread-block clusters (hopper H.18): waits (static, each once) and bytes to other blocks ---
  add_cluster_statics(k, ClusterStatics{s.cluster_barrier_waits, s.remote_shared_stores, s.remote_store_bytes_per_thread,
                                        s.remote_data_waits});
  if (const auto dsmem = first_of(m, {"l1tex__m_l1tex2xbar_write_bytes_mem_dshared.sum"})) {
    k.dsmem_bytes_per_warp = dsmem->value / warps;
    src["memory.dsmem_bytes_per_warp"] = cupti(dsmem->name, *k.dsmem_bytes_per_warp);
  } else if (k.dsmem_bytes_per_warp) {
    src["memory.dsmem_bytes_per_warp"] += fallback("l1tex__m_l1tex2xbar_write_bytes_mem_dshared.sum");
  }

  // --- memory addresses (static): the shape-aware traffic model's input ---
  if (!s.access_patterns.accesses.empty()) {
    k.access_patterns = s.access_patterns;
    src["access_patterns"] = s.access_patterns.source;
  }

  // --- parallelism (static) ---
  k.static_instructions = s.static_instructions;
  k.basic_blocks = s.basic_blocks();
  src["parallelism.static_instructions"] = "sass: " + std::to_string(s.static_instructions) +
                                           " instructions without the end padding (" + in.binary + ")";
  src["parallelism.basic_blocks"] = "sass: " + std::to_string(s.basic_blocks()) + " basic blocks (" + s.blocks_source + ")";
  if (s.basic_blocks() > 0) {
    if (in.ilp == IlpChoice::Thesis) {
      k.ilp = s.thesis_ilp;
      src["parallelism.ilp"] = "sass: " + std::to_string(s.static_instructions) + " instructions / " +
                               std::to_string(s.basic_blocks()) + " basic blocks (eq 4.26) = " + fmt(s.thesis_ilp);
    } else {
      k.ilp = s.dependency_ilp;
      src["parallelism.ilp"] = "sass: dependency ILP (instructions / longest register RAW chain per block, "
                               "instruction-weighted) = " + fmt(s.dependency_ilp) + "; eq 4.26 would give " +
                               fmt(s.thesis_ilp);
    }
  }
  if (s.stall_cycles_per_instruction) {
    k.stall_cycles_per_inst = s.stall_cycles_per_instruction;
    src["parallelism.stall_cycles_per_instruction"] =
        "sass: mean stall count of the control bits over " + std::to_string(s.static_instructions) +
        " instructions = " + fmt(*s.stall_cycles_per_instruction) + " (static: not weighted by execution counts)";
  } else {
    src["parallelism.stall_cycles_per_instruction"] = "not set: the listing has no control bits (before sm_70)";
  }
  k.mlp = std::max(1.0, s.mlp_mean);
  src["parallelism.mlp"] =
      s.mix.ldg + s.mix.ld > 0
          ? "sass: independent global loads before the first use of a result (section 4.5.2 d), mean over basic blocks "
            "weighted by their loads = " + fmt(s.mlp_mean) + " (max " + fmt(s.mlp_max) + ")"
          : "sass: no global loads, MLP = 1";

  // --- memory ---
  const double load_bytes = s.mean_global_load_bytes > 0 ? s.mean_global_load_bytes : 4.0;
  k.data_size_bytes = std::max(1, static_cast<int>(std::lround(load_bytes)));
  src["memory.data_size_bytes"] = s.mean_global_load_bytes > 0
                                      ? "sass: mean global load width " + fmt(s.mean_global_load_bytes) + " bytes per thread"
                                      : "default 4 bytes (no global loads in the kernel)";
  const auto sectors = first_of(m, {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"});
  const auto requests = first_of(m, {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"});
  if (sectors && requests && requests->value > 0 && sectors->value >= requests->value) {
    k.transactions_per_request = sectors->value / requests->value;
    src["memory.transactions_per_request"] =
        "cupti: " + sectors->name + " / " + requests->name + " = " + fmt(k.transactions_per_request) + " (" +
        in.counters_origin + ")";
  } else {
    constexpr double kLanes = 32, kSectorBytes = 32;
    k.transactions_per_request = std::max(1.0, kLanes * load_bytes / kSectorBytes);
    src["memory.transactions_per_request"] =
        static_estimate("fully coalesced: 32 lanes x " + fmt(load_bytes) + " B / 32-byte sectors = " +
                        fmt(k.transactions_per_request)) +
        fallback("l1tex__t_sectors/requests_pipe_lsu_mem_global_op_ld.sum");
  }
  miss_ratio("memory.l1_miss_ratio",
             {"l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct", "l1tex__t_sector_hit_rate.pct"}, k.l1_miss_ratio);
  miss_ratio("memory.l2_miss_ratio", {"lts__t_sector_hit_rate.pct", "lts__t_sector_op_read_hit_rate.pct"},
             k.l2_miss_ratio);
  if (auto x = first_of(m, {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum"})) {
    k.bank_conflicts_per_warp = per_warp(*x);
    src["memory.bank_conflicts_per_warp"] = cupti(x->name, k.bank_conflicts_per_warp);
  } else if (auto ld_c = first_of(m, {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"}),
             st_c = first_of(m, {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"});
             ld_c && st_c) {
    k.bank_conflicts_per_warp = (ld_c->value + st_c->value) / warps;
    src["memory.bank_conflicts_per_warp"] = cupti("(" + ld_c->name + " + " + st_c->name + ")", k.bank_conflicts_per_warp);
  } else {
    k.bank_conflicts_per_warp = 0;
    src["memory.bank_conflicts_per_warp"] =
        static_estimate("none assumed: 0") + fallback("l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum");
  }

  // Measured traffic (the hopper variant); without it the model derives it from the requests.
  // The rules are counter_rules.hpp's (shared with validate's reader of older sweeps).
  const counter_rules::Lookup lookup = [&](const std::string& name) -> std::optional<double> {
    if (auto x = first_of(m, {name.c_str()})) return x->value;
    return std::nullopt;
  };
  // The warps waiting at a barrier (hopper H.1c), when the profile has the stall reasons.
  if (const auto share = counter_rules::barrier_wait_share(lookup)) {
    k.launch.barrier_wait_share = share->total;
    src["launch.barrier_wait_share"] = cupti(share->expression, *k.launch.barrier_wait_share);
  } else if (c) {
    src["launch.barrier_wait_share"] = "not set: no stall reasons among the counters (the model set holds them: --metrics model)";
  }
  if (const auto l2 = counter_rules::l2_request_bytes(lookup)) {
    k.l2_bytes_per_warp = l2->total / warps;
    src["memory.l2_bytes_per_warp"] = cupti(l2->expression, *k.l2_bytes_per_warp);
  } else if (auto x = first_of(m, {"lts__t_bytes.sum"})) {
    k.l2_bytes_per_warp = per_warp(*x);
    src["memory.l2_bytes_per_warp"] = cupti(x->name, *k.l2_bytes_per_warp);
  } else if (auto sectors_l2 = first_of(m, {"lts__t_sectors.sum"})) {
    k.l2_bytes_per_warp = sectors_l2->value * 32.0 / warps;
    src["memory.l2_bytes_per_warp"] = cupti(sectors_l2->name + " x 32 B", *k.l2_bytes_per_warp);
  } else {
    src["memory.l2_bytes_per_warp"] = "not set: the model derives it from the requests and l1_miss_ratio";
  }
  // Sectors per request of local loads (H.8b), local stores (H.9c) and global stores (H.8c): the
  // counter rule's ratio, or the source says what the model does without it.
  const auto sectors_per_request = [&](std::optional<double>& field, const std::string& name, const char* not_set,
                                       const char* sector_counter, const char* request_counter) {
    if (const auto ratio = counter_rules::sectors_per_request(lookup, sector_counter, request_counter)) {
      field = ratio->total;
      src[name] = cupti(ratio->expression, *field);
    } else {
      src[name] = std::string("not set: ") + not_set + fallback(std::string(sector_counter) + ", " + request_counter);
    }
  };
  sectors_per_request(k.local_load_sectors_per_request, "memory.local_load_sectors_per_request",
                      "local loads' L2 reads at the streaming rate (hopper H.8b)", counter_rules::kLocalLoadSectors,
                      counter_rules::kLocalLoadRequests);
  sectors_per_request(k.local_store_sectors_per_request, "memory.local_store_sectors_per_request",
                      "local lines go back to DRAM at the streaming write rate (hopper H.9c)",
                      counter_rules::kLocalStoreSectors, counter_rules::kLocalStoreRequests);
  sectors_per_request(k.store_sectors_per_request, "memory.store_sectors_per_request",
                      "hopper H.8c reads the stores' sectors from the SASS alone", counter_rules::kGlobalStoreSectors,
                      counter_rules::kGlobalStoreRequests);
  if (auto wavefronts = first_of(m, {counter_rules::kL1Wavefronts})) {
    k.l1_wavefronts_per_warp = per_warp(*wavefronts);
    src["memory.l1_wavefronts_per_warp"] = cupti(wavefronts->name, *k.l1_wavefronts_per_warp);
  } else {
    src["memory.l1_wavefronts_per_warp"] = "not set: the L1 data path from requests and sectors" +
                                           fallback(counter_rules::kL1Wavefronts);
  }
  if (const auto atomics = counter_rules::atomic_lane_ops(lookup)) {
    k.atomic_lane_ops_per_warp = atomics->total / warps;
    src["memory.atomic_lane_ops_per_warp"] = cupti(atomics->expression, *k.atomic_lane_ops_per_warp);
  }
  if (const auto busiest = counter_rules::busiest_slice_atomic_sectors(lookup)) {
    k.busiest_slice_atomics_per_warp = busiest->total / warps;
    src["memory.busiest_slice_atomics_per_warp"] = cupti(busiest->expression, *k.busiest_slice_atomics_per_warp);
  }
  if (const auto written = counter_rules::l2_written_bytes(lookup); written && k.l2_bytes_per_warp) {
    k.l2_write_bytes_per_warp = written->total / warps;
    src["memory.l2_write_bytes_per_warp"] = cupti(written->expression, *k.l2_write_bytes_per_warp);
  } else {
    src["memory.l2_write_bytes_per_warp"] = "not set: L2 traffic all at the read rate" + fallback(counter_rules::kL2WriteSectors);
  }
  const auto dram_read = first_of(m, {"dram__bytes_read.sum"});
  const auto dram_write = first_of(m, {"dram__bytes_write.sum"});
  if (dram_read && dram_write) {
    k.dram_bytes_per_warp = (dram_read->value + dram_write->value) / warps;
    src["memory.dram_bytes_per_warp"] =
        cupti("(" + dram_read->name + " + " + dram_write->name + ")", *k.dram_bytes_per_warp);
    k.dram_write_bytes_per_warp = dram_write->value / warps;
    src["memory.dram_write_bytes_per_warp"] = cupti(dram_write->name, *k.dram_write_bytes_per_warp);
  } else {
    src["memory.dram_bytes_per_warp"] = "not set: the model derives it from the L2 traffic and l2_miss_ratio";
  }

  // --- achieved occupancy ---
  const json counters_device = c ? c->device : json::object();
  std::optional<double> max_warps = in.max_warps_per_sm;
  std::string max_warps_from = "the --device profile";
  if (!max_warps) {
    if (auto v = optional_number(counters_device, "max_warps_per_sm")) {
      max_warps = *v;
      max_warps_from = "the counters' device.max_warps_per_sm";
    } else if (auto t = optional_number(counters_device, "max_threads_per_sm")) {
      max_warps = *t / 32.0;
      max_warps_from = "the counters' device.max_threads_per_sm / 32";
    } else if (counters_device.contains("compute_capability") && counters_device.at("compute_capability").is_string()) {
      // "9.0" -> the occupancy rules' warps per SM for that architecture.
      const std::string cc = counters_device.at("compute_capability").get<std::string>();
      int major = 0, minor = 0;
      char dot = 0;
      std::istringstream parse(cc);
      if (parse >> major >> dot >> minor && dot == '.') {
        try {
          max_warps = arch_limits_for(major, minor).max_warps_per_sm();
          max_warps_from = "compute capability " + cc + " (the counters' device)";
        } catch (const std::invalid_argument&) {
          // unknown architecture: leave N to the occupancy calculator
        }
      }
    }
  }
  const auto pct = first_of(m, {"sm__warps_active.avg.pct_of_peak_sustained_active"});
  const auto direct = first_of(m, {"sm__warps_active.avg.per_cycle_active"});
  std::optional<double> active;
  if (pct && max_warps) {
    active = pct->value * *max_warps / 100.0;
    src["launch.active_warps_per_sm"] = "cupti: " + pct->name + " x " + fmt(*max_warps) + " warps per SM (" +
                                        max_warps_from + ") / 100 = " + fmt(*active) + " (" + in.counters_origin + ")";
  } else if (direct) {
    active = direct->value;
    src["launch.active_warps_per_sm"] = "cupti: " + direct->name + " = " + fmt(*active) + " (" + in.counters_origin + ")";
  }
  if (active && *active > 0 && *active <= 64) {
    k.launch.active_warps_per_sm = *active;
  } else {
    src["launch.active_warps_per_sm"] =
        "not set: the model's occupancy calculator gives N" +
        (c ? std::string(" [counter sm__warps_active.avg.pct_of_peak_sustained_active") +
                 (pct && !max_warps ? " present but the warps per SM are unknown: give --device" : " missing") + "]"
           : std::string());
  }
  return k;
}

}  // namespace warpmodel::sass
