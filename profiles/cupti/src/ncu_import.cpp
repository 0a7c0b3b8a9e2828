// ncu's CSV as a warpmodel.profile/1 report (ncu_import.hpp).
#include "warpmodel/cupti/ncu_import.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "warpmodel/cupti/metrics.hpp"
#include "warpmodel/cupti/ncu_compare.hpp"
#include "warpmodel/json_io.hpp"
#include "warpmodel/support/provenance.hpp"
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

// Grid or block: "(x, y, z)", else the per-dimension launch metrics, else the total as x.
std::optional<std::array<int, 3>> launch_dims(const NcuLaunch& l, const char* column, const char* prefix,
                                              const char* total) {
  if (const auto f = l.fields.find(column); f != l.fields.end())
    if (const auto d = parse_ncu_dim3(f->second)) return std::array<int, 3>{int((*d)[0]), int((*d)[1]), int((*d)[2])};
  const std::string p = prefix;
  const auto x = metric(l, (p + "x").c_str()), y = metric(l, (p + "y").c_str()), z = metric(l, (p + "z").c_str());
  if (x && y && z && *x >= 1 && *y >= 1 && *z >= 1) return std::array<int, 3>{int(*x), int(*y), int(*z)};
  if (const auto t = metric(l, total); t && *t >= 1) return std::array<int, 3>{int(*t), 1, 1};
  return std::nullopt;
}

std::string text_field(const NcuLaunch& l, const char* metric_or_column) {
  if (const auto t = l.text.find(metric_or_column); t != l.text.end()) return t->second;
  if (const auto f = l.fields.find(metric_or_column); f != l.fields.end()) return f->second;
  return "";
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
  if (ncu.launches.empty())
    throw InputError(o.origin + ": no profiled launch in the file (did ncu profile any kernel? check its ==PROF== "
                                "lines and --kernel-name / --launch-skip filters)");
  NcuImport out;
  ProfileReport& r = out.report;
  const NcuLaunch& first = ncu.launches.front();
  const std::string process = first.fields.count("Process Name") ? first.fields.at("Process Name") : "";
  r.workload = "ncu import of " + o.origin + (process.empty() ? "" : " (" + process + ")");
  // The device, from the device attributes of the raw page where printed, else the CC column.
  r.device.name = text_field(first, "device__attribute_display_name");
  if (const std::string cc = text_field(first, "CC"); !cc.empty()) {
    const auto dot = cc.find('.');
    try {
      r.device.cc_major = std::stoi(cc.substr(0, dot));
      if (dot != std::string::npos) r.device.cc_minor = std::stoi(cc.substr(dot + 1));
    } catch (const std::exception&) {
      out.warnings.push_back("compute capability '" + cc + "' not understood");
    }
  } else if (const auto major = metric(first, "device__attribute_compute_capability_major")) {
    r.device.cc_major = static_cast<int>(*major);
    r.device.cc_minor = static_cast<int>(metric(first, "device__attribute_compute_capability_minor").value_or(0));
  }
  r.device.sm_count = static_cast<int>(metric(first, "device__attribute_multiprocessor_count")
                                           .value_or(metric(first, "launch__sm_count").value_or(0)));
  r.device.l2_cache_bytes = static_cast<long long>(metric(first, "device__attribute_l2_cache_size").value_or(0));
  r.device.global_memory_bytes = static_cast<long long>(metric(first, "device__attribute_total_memory").value_or(0));
  r.device.max_sm_clock_mhz = metric(first, "device__attribute_max_gpu_frequency_khz").value_or(0) / 1000.0;
  r.provenance.gpu = r.device.name;
  r.provenance.date = support::utc_now();
  r.provenance.commit = support::source_commit();
  r.provenance.command = o.command;
  r.collection.range_mode = "ncu";
  r.collection.replay_mode = "ncu";

  std::set<std::string> collected;
  std::set<std::string> unmapped_reported;
  for (std::size_t i = 0; i < ncu.launches.size(); ++i) {
    const NcuLaunch& l = ncu.launches[i];
    const std::string where = o.origin + ":" + std::to_string(l.line) + " (ID " + l.id + ")";
    LaunchRecord rec;
    rec.launch_index = i;
    rec.label = "ncu ID " + l.id;
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
        if (unmapped_reported.insert(l.kernel_name).second)
          out.warnings.push_back("kernel '" + l.kernel_name + "' (" + where + ") not mapped to a kernel of " +
                                 o.binary + ": " + why);
      }
    } else {
      rec.kernel = rec.demangled = l.kernel_name;
    }
    const auto grid = launch_dims(l, "Grid Size", "launch__grid_dim_", "launch__grid_size");
    const auto block = launch_dims(l, "Block Size", "launch__block_dim_", "launch__block_size");
    if (!grid || !block)
      throw InputError(where + ": the launch has no " + std::string(!grid ? "grid" : "block") +
                       " size (neither a \"Grid Size\"/\"Block Size\" column nor launch__grid_size/launch__block_size)");
    rec.grid = *grid;
    rec.block = *block;
    rec.registers_per_thread = static_cast<int>(metric(l, "launch__registers_per_thread").value_or(0));
    const auto static_shared = metric(l, "launch__shared_mem_per_block_static");
    const auto dynamic_shared = metric(l, "launch__shared_mem_per_block_dynamic");
    rec.shared_memory_per_block_bytes = static_cast<long long>(static_shared.value_or(0) + dynamic_shared.value_or(0));
    rec.duration_ns = metric(l, "gpu__time_duration.sum").value_or(std::nan(""));
    if (std::isfinite(rec.duration_ns)) rec.duration_ns_runs = {rec.duration_ns};
    if (const auto pid = text_field(l, "Process ID"); !pid.empty())
      if (const auto n = parse_ncu_number(pid)) rec.process_id = static_cast<long long>(*n);
    for (const auto& [name, value] : l.metrics)
      if (is_counter_column(name)) {
        rec.metrics[name] = value;
        collected.insert(name);
      }
    r.launches.push_back(std::move(rec));
  }
  if (o.kernels.empty() && !r.launches.empty() && !starts_with(r.launches.front().kernel, "_Z"))
    out.warnings.push_back("kernel names are demangled as ncu prints them; give --binary APP (or run ncu with "
                           "--print-kernel-base mangled) so that kernel-profile and predict-app find their SASS");
  r.collection.metrics.assign(collected.begin(), collected.end());

  // The model set's metrics that some launch lacks.
  if (const MetricSet* model = find_metric_set("model")) {
    for (const auto& m : model->metrics) {
      const bool everywhere = std::all_of(r.launches.begin(), r.launches.end(), [&](const LaunchRecord& l) {
        const auto it = l.metrics.find(m);
        return it != l.metrics.end() && std::isfinite(it->second);
      });
      if (!everywhere) out.missing_model_metrics.push_back(m);
    }
  }
  for (const auto& w : ncu.warnings) out.warnings.push_back(w);
  return out;
}

std::string missing_metrics_warning(const NcuImport& import, const std::string& origin) {
  const auto& m = import.missing_model_metrics;
  if (m.empty()) return "";
  return origin + " lacks " + std::to_string(m.size()) + " of the `model` set's metrics (in at least one launch): " +
         support::join(m, ", ") +
         "; kernel-profile falls back to static estimates for the fields they feed (collect them with ncu --metrics; "
         "`warpmodel metrics --set model` lists the set)";
}

}  // namespace warpmodel::cupti
