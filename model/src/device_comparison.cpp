#include "warpmodel/device_comparison.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <utility>

#include "warpmodel/json_io.hpp"
#include "warpmodel/support/text.hpp"

namespace warpmodel {
namespace {

using nlohmann::json;

// The top-level objects whose numeric leaves are quantities, in the order they are listed.
constexpr std::array<const char*, 4> kSections = {"hardware", "latency_cycles", "bandwidth_gbs", "measurements"};

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }
bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}
bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

// Fields that describe a measurement rather than being one (see the header): never a row.
bool is_uncertainty_key(std::string_view key) {
  return key == "u" || starts_with(key, "u_") || contains(key, "_u_") || starts_with(key, "stddev") ||
         contains(key, "uncertainty");
}
bool is_skipped_key(std::string_view key, const json& siblings) {
  static const std::set<std::string_view> kCountsAndSetup = {
      "n", "repetitions", "warps_per_block", "sms_measured", "loads_per_sm", "bytes_per_launch",
      "one_block_per_sm_shared_bytes"};
  if (is_uncertainty_key(key) || kCountsAndSetup.contains(key)) return true;
  if (starts_with(key, "spec_") || key == "fraction_of_spec") return true;  // in the spec column instead
  // x_ns beside x_cycles is the same measurement at the SM clock.
  if (ends_with(key, "_ns")) return siblings.contains(std::string(key.substr(0, key.size() - 3)) + "_cycles");
  return false;
}

std::optional<double> number_at(const json& object, const std::string& key) {
  if (!object.contains(key)) return std::nullopt;
  const json& v = object.at(key);
  if (!v.is_number()) return std::nullopt;
  const double x = v.get<double>();
  return std::isfinite(x) ? std::optional<double>(x) : std::nullopt;
}

// The sibling holding a value's uncertainty, by the names `characterize` writes: u_<leaf> (gbs:
// u_gbs), <stem>_u_<unit> (empty_kernel_us: empty_kernel_u_us), u_<unit> for mean_<unit> and
// delta_<unit> (mean_cycles: u_cycles), and u for a mean or the rate a throughput entry was reduced
// in (its sectors and bytes are that rate times a constant).
std::optional<double> uncertainty_of(const std::string& leaf, const json& siblings) {
  if (auto u = number_at(siblings, "u_" + leaf)) return u;
  const std::size_t last = leaf.rfind('_');
  if (last != std::string::npos) {
    const std::string unit = leaf.substr(last + 1);
    if (auto u = number_at(siblings, leaf.substr(0, last) + "_u_" + unit)) return u;
    if (starts_with(leaf, "mean_") || starts_with(leaf, "delta_"))
      if (auto u = number_at(siblings, "u_" + leaf.substr(leaf.find('_') + 1))) return u;
  }
  static const std::set<std::string> kReducedIn = {"mean", "ops_per_clk_per_sm", "ops_per_clk", "requests_per_clk_per_sm"};
  if (kReducedIn.contains(leaf)) return number_at(siblings, "u");
  return std::nullopt;
}

struct Leaf {
  double value = 0;
  std::optional<double> uncertainty, spec;
};

// (section rank, dotted path): the listing order.
using LeafKey = std::pair<std::size_t, std::string>;

void flatten(const json& object, const std::string& path, std::size_t section, std::map<LeafKey, Leaf>& out) {
  for (const auto& [key, value] : object.items()) {
    if (is_skipped_key(key, object)) continue;
    const std::string child = path + "." + key;
    if (value.is_object()) {
      flatten(value, child, section, out);
    } else if (auto x = number_at(object, key)) {  // arrays, strings, booleans and nulls are not quantities
      out[{section, child}] = Leaf{*x, uncertainty_of(key, object), number_at(object, "spec_" + key)};
    }
  }
}

std::map<LeafKey, Leaf> quantities_of(const json& profile) {
  std::map<LeafKey, Leaf> leaves;
  for (std::size_t s = 0; s < kSections.size(); ++s)
    if (profile.contains(kSections[s]) && profile.at(kSections[s]).is_object())
      flatten(profile.at(kSections[s]), kSections[s], s, leaves);
  // A measured DRAM bandwidth without a spec of its own is held against the peak the profile states.
  if (const auto peak = number_at(profile.value("hardware", json::object()), "mem_peak_bandwidth_gbs"))
    for (auto& [key, leaf] : leaves)
      if (!leaf.spec && key.second != "hardware.mem_peak_bandwidth_gbs" && contains(key.second, "dram") &&
          quantity_unit(key.second) == "GB/s")
        leaf.spec = peak;
  return leaves;
}

std::string string_at(const json& object, const char* key) {
  return object.is_object() && object.contains(key) && object.at(key).is_string() ? object.at(key).get<std::string>()
                                                                                  : std::string();
}

// The profile's GPU name (profile_gpu_name), else the folder the file is in.
std::string short_name(const std::string& profile_name, const std::string& source) {
  const std::string name = profile_gpu_name(profile_name);
  if (!name.empty()) return name;
  const std::filesystem::path p(source);
  const std::string folder = p.parent_path().filename().string();
  return folder.empty() ? p.stem().string() : folder;
}

void check_is_device_profile(const DeviceProfileDocument& d) {
  const std::string what = "expected a device profile (\"schema\": \"" + std::string(kDeviceSchema) +
                           "\"), such as the device.json `warpmodel characterize` writes";
  if (!d.json.is_object()) throw InputError(d.source + ": not a device profile: " + what);
  const std::string schema = string_at(d.json, "schema");
  if (schema != kDeviceSchema)
    throw InputError(d.source + ": " + (schema.empty() ? "no \"schema\" field" : "schema '" + schema + "'") + ": " + what);
  if (!d.json.contains("hardware") || !d.json.at("hardware").is_object())
    throw InputError(d.source + ": field 'hardware': missing or not an object (" + what + ")");
}

// `significant` digits below 1 as well (format_number counts the digits after the point there: a ratio
// of 0.0599 would read 0.06), trailing zeros trimmed; "-" for a missing value.
std::string cell(const std::optional<double>& x, int significant = 6) {
  if (!x) return "-";
  const double mag = std::fabs(*x);
  if (mag == 0 || mag >= 1 || mag < 1e-4 || !std::isfinite(*x)) return format_number(*x, significant);
  const int leading_zeros = -static_cast<int>(std::floor(std::log10(mag))) - 1;
  return format_number(*x, significant + leading_zeros + 1);
}

std::string names_of(const DeviceComparison& c, const std::vector<std::size_t>& devices, const std::string& separator) {
  std::vector<std::string> names;
  for (std::size_t d : devices) names.push_back(c.devices[d].name);
  return support::join(names, separator);
}

// The table of `rows` over the devices `set` (indices, ascending).
Table comparison_table(const DeviceComparison& c, const std::vector<const ComparedQuantity*>& rows,
                       const std::vector<std::size_t>& set, bool with_uncertainty) {
  auto any = [&](auto member, std::size_t d) {
    return std::any_of(rows.begin(), rows.end(), [&](const ComparedQuantity* q) { return (q->*member)[d].has_value(); });
  };
  const bool has_first = !set.empty() && set.front() == 0;
  std::vector<std::size_t> ratio_devices, spec_devices, u_devices;
  for (std::size_t d : set) {
    if (has_first && d != 0) ratio_devices.push_back(d);
    if (any(&ComparedQuantity::specs, d)) spec_devices.push_back(d);
    if (with_uncertainty && any(&ComparedQuantity::uncertainties, d)) u_devices.push_back(d);
  }
  Table t;
  t.headers = {"quantity", "unit"};
  for (std::size_t d : set) t.headers.push_back(c.devices[d].name);
  for (std::size_t d : u_devices) t.headers.push_back("u " + c.devices[d].name);
  for (std::size_t d : ratio_devices) t.headers.push_back(c.devices[d].name + " / " + c.devices[0].name);
  for (std::size_t d : spec_devices) t.headers.push_back("spec " + c.devices[d].name);
  for (const ComparedQuantity* q : rows) {
    std::vector<std::string> r = {q->quantity, q->unit};
    for (std::size_t d : set) r.push_back(cell(q->values[d]));
    for (std::size_t d : u_devices) r.push_back(cell(q->uncertainties[d], 3));
    for (std::size_t d : ratio_devices) r.push_back(cell(q->ratio(d), 4));
    for (std::size_t d : spec_devices) r.push_back(cell(q->specs[d]));
    t.rows.push_back(std::move(r));
  }
  return t;
}

json optional_array(const std::vector<std::optional<double>>& xs) {
  json a = json::array();
  for (const auto& x : xs) a.push_back(x ? json(*x) : json(nullptr));
  return a;
}

}  // namespace

std::string profile_gpu_name(const std::string& profile_name) {
  std::string name = support::trim(profile_name);
  if (!name.empty() && name.back() == ')') {
    int depth = 0;
    for (std::size_t i = name.size(); i-- > 0;) {
      depth += name[i] == ')' ? 1 : name[i] == '(' ? -1 : 0;
      if (depth == 0) {
        name = support::trim(name.substr(0, i));
        break;
      }
    }
  }
  return name;
}

std::optional<double> ComparedQuantity::ratio(std::size_t device) const {
  if (device >= values.size() || !values[device] || !values[0] || *values[0] == 0) return std::nullopt;
  const double r = *values[device] / *values[0];
  return std::isfinite(r) ? std::optional<double>(r) : std::nullopt;  // 1e300 / 1e-300 is no ratio to print
}

std::vector<std::size_t> ComparedQuantity::present_in() const {
  std::vector<std::size_t> out;
  for (std::size_t d = 0; d < values.size(); ++d)
    if (values[d]) out.push_back(d);
  return out;
}

std::string quantity_unit(std::string_view dotted_path) {
  // Walk from the leaf to the section: "latency_cycles.dram" takes its unit from the section's name.
  std::string_view rest = dotted_path;
  while (!rest.empty()) {
    const std::size_t dot = rest.rfind('.');
    const std::string_view name = dot == std::string_view::npos ? rest : rest.substr(dot + 1);
    rest = dot == std::string_view::npos ? std::string_view() : rest.substr(0, dot);
    for (const char* per : {"_per_clk_per_sm", "_per_clk"}) {
      if (ends_with(name, per)) {
        const std::string what(name.substr(0, name.size() - std::string_view(per).size()));
        return what + (std::string_view(per) == "_per_clk" ? "/clk" : "/clk/SM");
      }
    }
    std::vector<std::string_view> tokens;
    for (std::size_t start = 0; start <= name.size();) {
      const std::size_t end = std::min(name.find('_', start), name.size());
      tokens.push_back(name.substr(start, end - start));
      start = end + 1;
    }
    auto has = [&](std::string_view t) { return std::find(tokens.begin(), tokens.end(), t) != tokens.end(); };
    if (has("fraction") || has("ratio")) return "";  // dimensionless, whatever the parent measures
    static const std::array<std::pair<std::string_view, const char*>, 7> kUnits = {
        {{"cycles", "cycles"}, {"gbs", "GB/s"}, {"us", "us"}, {"ns", "ns"}, {"mhz", "MHz"}, {"seconds", "s"},
         {"bytes", "bytes"}}};
    for (const auto& [token, unit] : kUnits)
      if (has(token)) return unit;
  }
  return "";
}

DeviceComparison compare_devices(const std::vector<DeviceProfileDocument>& profiles,
                                 const std::vector<std::string>& names) {
  if (profiles.size() < 2)
    throw InputError("compare-devices needs two or more device profiles, got " + std::to_string(profiles.size()) +
                     " (e.g. warpmodel compare-devices results/h200/device.json results/h100-80gb-hbm3/device.json)");
  if (!names.empty() && names.size() != profiles.size())
    throw InputError("--names: " + std::to_string(names.size()) + " names for " + std::to_string(profiles.size()) +
                     " profiles (give one name per profile, in the same order)");
  DeviceComparison c;
  std::vector<std::map<LeafKey, Leaf>> leaves;
  std::set<LeafKey> every_key;
  for (const auto& p : profiles) {
    check_is_device_profile(p);
    ComparedDevice d;
    d.profile_name = string_at(p.json, "name");
    d.source = p.source;
    d.compute_capability = string_at(p.json.at("hardware"), "compute_capability");
    if (p.json.contains("provenance") && p.json["provenance"].is_object()) {
      const json& from = p.json["provenance"];
      for (const char* key : {"gpu", "driver", "cuda_runtime", "date", "commit", "command"})
        if (from.contains(key)) d.provenance[key] = from[key];
      if (p.json["hardware"].contains("sm_clock_mhz")) d.provenance["sm_clock_mhz"] = p.json["hardware"]["sm_clock_mhz"];
    }
    d.name = short_name(d.profile_name, p.source);
    c.devices.push_back(std::move(d));
    leaves.push_back(quantities_of(p.json));
    for (const auto& [key, leaf] : leaves.back()) every_key.insert(key);
  }
  if (!names.empty()) {
    for (std::size_t i = 0; i < names.size(); ++i) c.devices[i].name = names[i];
  } else {
    // Two runs of one GPU have the same name: tell them apart by their folders, then by position.
    auto duplicated = [&](std::size_t i) {
      return std::count_if(c.devices.begin(), c.devices.end(), [&](const auto& d) { return d.name == c.devices[i].name; }) > 1;
    };
    std::vector<bool> clash(c.devices.size());
    for (std::size_t i = 0; i < c.devices.size(); ++i) clash[i] = duplicated(i);
    for (std::size_t i = 0; i < c.devices.size(); ++i)
      if (clash[i]) c.devices[i].name += " (" + short_name("", c.devices[i].source) + ")";
    for (std::size_t i = 0; i < c.devices.size(); ++i) clash[i] = duplicated(i);
    for (std::size_t i = 0; i < c.devices.size(); ++i)
      if (clash[i]) c.devices[i].name += " #" + std::to_string(i + 1);
  }
  for (const LeafKey& key : every_key) {
    ComparedQuantity q;
    q.quantity = key.second;
    q.unit = quantity_unit(key.second);
    for (const auto& profile : leaves) {
      const auto it = profile.find(key);
      q.values.push_back(it == profile.end() ? std::nullopt : std::optional<double>(it->second.value));
      q.uncertainties.push_back(it == profile.end() ? std::nullopt : it->second.uncertainty);
      q.specs.push_back(it == profile.end() ? std::nullopt : it->second.spec);
    }
    c.quantities.push_back(std::move(q));
  }
  return c;
}

std::vector<TitledTable> device_comparison_tables(const DeviceComparison& c, bool with_uncertainty) {
  std::vector<std::size_t> everyone(c.devices.size());
  for (std::size_t d = 0; d < everyone.size(); ++d) everyone[d] = d;
  // Group the quantities by the set of profiles that have them: every profile first, then larger sets
  // before smaller ones, each set in device order.
  std::map<std::vector<std::size_t>, std::vector<const ComparedQuantity*>> by_set;
  for (const auto& q : c.quantities) by_set[q.present_in()].push_back(&q);
  std::vector<std::vector<std::size_t>> sets;
  for (const auto& [set, rows] : by_set) sets.push_back(set);
  std::stable_sort(sets.begin(), sets.end(), [](const auto& a, const auto& b) { return a.size() > b.size(); });

  std::vector<TitledTable> out;
  if (!by_set.contains(everyone))
    out.push_back({"In every profile: none", comparison_table(c, {}, everyone, with_uncertainty)});
  for (const auto& set : sets) {
    const auto& rows = by_set.at(set);
    const std::string count = " (" + std::to_string(rows.size()) + (rows.size() == 1 ? " quantity)" : " quantities)");
    const std::string title = set == everyone ? "In every profile" + count : "Only in: " + names_of(c, set, ", ") + count;
    out.push_back({title, comparison_table(c, rows, set, with_uncertainty)});
  }
  return out;
}

Table device_comparison_flat_table(const DeviceComparison& c, bool with_uncertainty) {
  std::vector<const ComparedQuantity*> rows;
  for (const auto& q : c.quantities) rows.push_back(&q);
  std::vector<std::size_t> everyone(c.devices.size());
  for (std::size_t d = 0; d < everyone.size(); ++d) everyone[d] = d;
  Table t = comparison_table(c, rows, everyone, with_uncertainty);
  t.headers.push_back("present_in");
  for (std::size_t i = 0; i < rows.size(); ++i)
    t.rows[i].push_back(rows[i]->in_every_profile() ? "all" : names_of(c, rows[i]->present_in(), "; "));
  return t;
}

std::string render_device_comparison(const DeviceComparison& c, TableFormat format, bool with_uncertainty) {
  if (format == TableFormat::Csv) return device_comparison_flat_table(c, with_uncertainty).render(format);
  const bool md = format == TableFormat::Markdown;
  const std::string h1 = md ? "# " : "", h2 = md ? "## " : "";
  std::string text = h1 + "Device profiles compared\n\n";
  for (std::size_t d = 0; d < c.devices.size(); ++d) {
    const ComparedDevice& dev = c.devices[d];
    text += (md ? "- " : "  ") + dev.name + ": " + (md ? "`" + dev.source + "`" : dev.source);
    std::vector<std::string> about;
    if (!dev.profile_name.empty() && dev.profile_name != dev.name) about.push_back("\"" + dev.profile_name + "\"");
    if (!dev.compute_capability.empty()) about.push_back("compute capability " + dev.compute_capability);
    if (!about.empty()) text += " (" + support::join(about, ", ") + ")";
    text += "\n";
  }
  text += "\nQuantities: the numeric fields of hardware, latency_cycles, bandwidth_gbs and measurements, by their "
          "dotted paths; ratios are to " + c.devices[0].name + "; spec: the spec value the profile gives beside the "
          "measurement (DRAM: hardware.mem_peak_bandwidth_gbs). Left out: arrays, strings, counts and set-up "
          "(n, repetitions, warps_per_block, ...), uncertainties" + std::string(with_uncertainty ? " (in the u columns)" : "") +
          ", x_ns beside x_cycles. Fields only some profiles have are listed after the common ones, "
          "one table per set of profiles (\"Only in: ...\").\n";
  for (const auto& tt : device_comparison_tables(c, with_uncertainty)) {
    text += "\n" + h2 + tt.title + "\n\n";
    if (!tt.table.rows.empty()) text += tt.table.render(format);
  }
  return text;
}

json to_json(const DeviceComparison& c) {
  json devices = json::array();
  for (const auto& d : c.devices)
    devices.push_back({{"name", d.name}, {"profile_name", d.profile_name}, {"source", d.source},
                       {"compute_capability", d.compute_capability}, {"provenance", d.provenance}});
  json quantities = json::array();
  for (const auto& q : c.quantities) {
    std::vector<std::optional<double>> ratios;
    for (std::size_t d = 0; d < q.values.size(); ++d) ratios.push_back(q.ratio(d));
    json present = json::array();
    for (std::size_t d : q.present_in()) present.push_back(c.devices[d].name);
    quantities.push_back({{"quantity", q.quantity}, {"unit", q.unit}, {"values", optional_array(q.values)},
                          {"ratios", optional_array(ratios)}, {"uncertainties", optional_array(q.uncertainties)},
                          {"specs", optional_array(q.specs)}, {"in_every_profile", q.in_every_profile()},
                          {"present_in", present}});
  }
  return {{"schema", kDeviceComparisonSchema}, {"ratios_to", c.devices.empty() ? "" : c.devices[0].name},
          {"devices", devices}, {"quantities", quantities}};
}

}  // namespace warpmodel
