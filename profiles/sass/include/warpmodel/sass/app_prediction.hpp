// `warpmodel predict-app`: every launch of an application's profile (warpmodel.profile/1, from
// `profile -- APP` or `import-ncu`) merged with its kernel's SASS (kernel-profile's merge),
// predicted by one model variant, with the launch shape `sweep` ranks first. The computation
// (predict_application) and its output (app_prediction_table, to_json) are apart.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "warpmodel/device_profile.hpp"
#include "warpmodel/prediction.hpp"
#include "warpmodel/report.hpp"
#include "warpmodel/sass/analysis.hpp"
#include "warpmodel/sass/guardrails.hpp"
#include "warpmodel/sass/merge.hpp"
#include "warpmodel/sass/speed_of_light.hpp"
#include "warpmodel/sass/what_if.hpp"

namespace warpmodel::sass {

// A launch measured below this is short: launch overheads (and a counter range's own time) dominate it.
inline constexpr double kShortLaunchUs = 20.0;

struct AppPredictionRow {
  std::string kernel;   // short demangled name
  std::string mangled;
  std::vector<int> launch_indices;  // the profile's launch_index of each launch in the row
  Dim3 grid, block;
  std::optional<double> measured_us;        // the launch's duration (a group: the median)
  double total_measured_us = 0;             // a group: the sum
  std::optional<double> predicted_us;       // (a group: the median of its launches' predictions)
  // Its 80 % interval (intervals.hpp: the held-out errors of its bound), where the device has intervals.
  std::optional<double> predicted_low_us, predicted_high_us;
  std::string interval_basis;               // whose errors: "dram bandwidth: 48 held-out errors, ..."
  std::optional<double> error_pct;          // 100 (predicted - measured) / measured
  std::string bound;                        // what bounds the predicted time
  std::optional<Dim3> best_block, best_grid;  // the shape sweep ranks first
  std::optional<double> best_predicted_us;
  std::optional<double> gain_pct;           // 100 (1 - best / predicted at the profiled shape)
  // gain_pct above the shape-change uncertainty (AppPrediction::gain_threshold_pct): a shape to act on.
  // False when the profiled shape ranks first too.
  std::optional<bool> reliable_gain;
  std::vector<std::string> static_fields;   // kernel-profile fields that fell back to static estimates
  std::string note;                         // why a row has no prediction, or a caveat
  // Recommendations a user can act on (docs/your-kernels.md "Guardrails", "Speed of light", "What-if"):
  std::vector<Guardrail> guardrails;        // what the SASS and the shape say about the sweep's assumptions
  std::string not_recommended;              // why the sweep's pick is withheld ("" when it is not)
  std::optional<double> static_only_us;     // with static_fields: the SASS alone, no counters
  std::vector<CeilingShare> speed_of_light; // achieved shares of the measured ceilings (a group: medians)
  struct Alternative {
    std::string what;                       // "dram_bytes=0.5x", or a bound made free: "dram bandwidth"
    std::optional<double> predicted_us;     // nullopt when it does not apply (`why`)
    std::optional<double> gain_pct;         // 100 (1 - its time / predicted_us)
    std::string why;
  };
  std::vector<Alternative> what_ifs;        // --what-if, in the order given
  std::vector<Alternative> bound_removed;   // each hopper bound made free (removable_bounds order)
  // The predicted energy of the launch (energy.hpp E.1 at the predicted time, capped by E.3 where the
  // profile has the power limit; a group: the median), where the device profile has energy coefficients.
  std::optional<double> predicted_energy_mj;
  // Its dynamic part before E.3's cap (E.1 less the static power over the predicted time): what a
  // report prices again at a measured time.
  std::optional<double> predicted_dynamic_energy_mj;
};

// What predict_application does beyond predicting (all optional).
struct AppPredictionOptions {
  std::string profile_gpu;                  // profile_gpu_name of the profile: the GPU check
  std::vector<WhatIf> what_ifs;             // --what-if
};

struct AppPrediction {
  std::string model;    // the variant's name
  std::string device;   // the device profile's name
  std::string profile;  // the counters' origin
  std::string sass;     // where the SASS came from (binary or cubin folder)
  std::string interval_source;    // the device's hopper_intervals' source ("": no intervals)
  double gain_threshold_pct = 0;  // a predicted gain at or below it is no reliable gain
  std::string gain_threshold_source;
  bool grouped = false;
  std::vector<AppPredictionRow> rows;
  std::vector<std::string> notes;  // once per table: model notes, unfitted constants, ...
  std::string profile_gpu, device_gpu;  // the GPU names compared (guardrails.hpp)
  std::string gpu_warning;              // when they differ, once per table
  std::vector<std::string> what_ifs;    // the --what-if texts, in order
  std::string energy_source;            // the device's energy coefficients' source ("": no energy column)
};

// One row per launch, or per (kernel, grid, block, registers, shared memory) with `group`, in
// the profile's order (groups: by total measured time, largest first). A launch whose kernel is
// not among `kernels` gets a row with a note and no prediction; so does one the model cannot
// evaluate (ModelError). Throws InputError when no launch's kernel is among `kernels` (the wrong
// binary), ModelError when no launch at all can be predicted for the same reason (e.g. a device
// profile the variant cannot use).
AppPrediction predict_application(const CounterFile& counters, const std::vector<KernelStatics>& kernels,
                                  const DeviceProfile& device, ModelVariant variant, bool group,
                                  const std::string& sass_origin, const AppPredictionOptions& options = {});

Table app_prediction_table(const AppPrediction& p, TableFormat format);
nlohmann::json to_json(const AppPrediction& p);

}  // namespace warpmodel::sass
