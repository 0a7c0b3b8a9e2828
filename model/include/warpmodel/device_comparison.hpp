// Device profiles side by side (`warpmodel compare-devices`, README "Compare GPUs"): every measured
// quantity of two or more warpmodel.device/1 profiles, with ratios to the first profile and the spec
// values the profiles carry.
//
// The profiles are read generically, not through the strict device reader: profiles written by
// different versions of `characterize` (or typed from the thesis) are compared where their fields
// agree, and the fields only some of them have are kept and marked as such. A quantity is a numeric
// leaf of `hardware`, `latency_cycles`, `bandwidth_gbs` or `measurements`, named by its dotted path.
// Left out: arrays (series, per-SM lists), strings, and the fields that describe a measurement
// rather than being one: uncertainties (`u`, `u_*`, `*_u_*`, `stddev*`, `*uncertainty*`; the
// uncertainty of a value is kept beside it), counts and set-up (`n`, `repetitions`, `warps_per_block`,
// `sms_measured`, `loads_per_sm`, `bytes_per_launch`, `one_block_per_sm_shared_bytes`), spec values
// (`spec_*`, kept beside the value they are the spec of; `fraction_of_spec` is value / spec) and
// `<x>_ns` beside `<x>_cycles` (the same value at the SM clock).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "warpmodel/report.hpp"

namespace warpmodel {

// One profile to compare: its parsed JSON and where it came from (named in messages and output).
struct DeviceProfileDocument {
  std::string source;  // a path as the user gave it
  nlohmann::json json;
};

struct ComparedDevice {
  std::string name;                // short name, the column header: the profile's name without a
                                   // trailing " (...)" note, else the folder; made unique
  std::string profile_name;        // the profile's own "name" ("" when it has none)
  std::string source;
  std::string compute_capability;  // hardware.compute_capability ("" when absent)
  // Where the profile's numbers came from: its "provenance" fields gpu, driver, cuda_runtime, date,
  // commit and command, and the SM clock the ns were computed at (hardware.sm_clock_mhz); only what
  // the profile has (the thesis's K40: its clock).
  nlohmann::json provenance = nlohmann::json::object();
};

struct ComparedQuantity {
  std::string quantity;  // dotted path, e.g. "latency_cycles.dram"
  std::string unit;      // from the name (quantity_unit)
  // One entry per device, in the devices' order; empty where that profile lacks the quantity.
  std::vector<std::optional<double>> values;
  std::vector<std::optional<double>> uncertainties;  // the value's own uncertainty field, if any
  std::vector<std::optional<double>> specs;          // the spec value beside it, if any

  // values[device] / values[0]; empty when either is missing or values[0] is 0.
  std::optional<double> ratio(std::size_t device) const;
  // Indices of the devices whose profile has the quantity.
  std::vector<std::size_t> present_in() const;
  bool in_every_profile() const { return present_in().size() == values.size(); }
};

struct DeviceComparison {
  std::vector<ComparedDevice> devices;
  // Every quantity of any profile: hardware, latency_cycles, bandwidth_gbs, then measurements;
  // within each, by path.
  std::vector<ComparedQuantity> quantities;
};

// Throws InputError naming the source when a document is not a warpmodel.device/1 profile, when
// fewer than two are given, or when `names` (column headers to use instead of the short names)
// does not have one name per profile.
DeviceComparison compare_devices(const std::vector<DeviceProfileDocument>& profiles,
                                 const std::vector<std::string>& names = {});

// The GPU a device profile's name describes: the name without a trailing note in parentheses
// ("NVIDIA H200 (warpmodel characterize)" -> "NVIDIA H200"); "" for an empty name.
std::string profile_gpu_name(const std::string& profile_name);

// The unit a quantity's name states, from its last component up: *_per_clk_per_sm -> "<what>/clk/SM",
// *_per_clk -> "<what>/clk", cycles, GB/s (gbs), us, ns, MHz, s (seconds), bytes; "" for none, and
// for fractions and ratios. E.g. "measurements.l2_near_far.near_cycles.mean" -> "cycles".
std::string quantity_unit(std::string_view dotted_path);

// Tables (report.hpp's Table). The quantities every profile has, then one table per set of profiles
// that share the rest ("only in: A, B"). Columns: quantity, unit, one value per device, the ratios
// to the first device (where it is in the set), the spec values where any row has one, and with
// `with_uncertainty` the uncertainties.
std::vector<TitledTable> device_comparison_tables(const DeviceComparison& c, bool with_uncertainty = false);
// One table of every quantity (for CSV: one stream that loads as is), with a last column `present_in`
// ("all" or the devices' names joined by "; ").
Table device_comparison_flat_table(const DeviceComparison& c, bool with_uncertainty = false);
// The whole document in a table format: the devices compared, what is left out, then the tables
// (Csv: the flat table only).
std::string render_device_comparison(const DeviceComparison& c, TableFormat format, bool with_uncertainty = false);
// `compare-devices --format json` (warpmodel.device-comparison/1), read by scripts/plot_devices.py.
nlohmann::json to_json(const DeviceComparison& c);

inline constexpr const char* kDeviceComparisonSchema = "warpmodel.device-comparison/1";

}  // namespace warpmodel
