// predict-app's computation and output (app_prediction.hpp).
#include "warpmodel/sass/app_prediction.hpp"

#include "warpmodel/energy.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "warpmodel/intervals.hpp"
#include "warpmodel/json_io.hpp"
#include "warpmodel/model.hpp"
#include "warpmodel/sass/report.hpp"
#include "warpmodel/support/statistics.hpp"
#include "warpmodel/support/text.hpp"
#include "warpmodel/sweep.hpp"

namespace warpmodel::sass {
namespace {

// A launch predicted on its own: the merged profile, the prediction, the sweep's best shape.
struct LaunchPrediction {
  const CounterLaunch* launch = nullptr;
  const KernelStatics* statics = nullptr;
  std::optional<KernelProfile> profile;
  std::optional<Prediction> prediction;
  std::optional<SweepEntry> best;
  std::string error;  // why there is no prediction
  std::vector<Guardrail> guardrails;
  std::optional<double> static_only_seconds;
  std::vector<CeilingShare> speed_of_light;
  std::vector<AppPredictionRow::Alternative> what_ifs, bound_removed;
};

std::string bound_of(const Prediction& p) {
  if (!p.bound.empty()) return p.bound;
  return std::string(to_string(p.model_case));
}

std::vector<std::string> static_fields(const KernelProfile& k) {
  std::vector<std::string> out;
  for (const auto& [field, source] : k.sources)
    if (source.find("falls back to static") != std::string::npos) out.push_back(field);
  return out;
}

// One alternative prediction of a launch: its time and gain against the launch's prediction.
AppPredictionRow::Alternative alternative(const std::string& what, const Prediction& base,
                                          const std::optional<Prediction>& changed, const std::string& why) {
  AppPredictionRow::Alternative a;
  a.what = what;
  a.why = why;
  if (changed && std::isfinite(changed->seconds)) {
    a.predicted_us = changed->seconds * 1e6;
    if (base.seconds > 0) a.gain_pct = 100.0 * (1.0 - changed->seconds / base.seconds);
  }
  return a;
}

// The guardrails, the SASS-alone prediction, the what-ifs and the bounds made free of a launch
// already predicted (lp.profile, lp.prediction); the sweep unless a guardrail withholds it.
void recommendations(LaunchPrediction& lp, const std::vector<KernelStatics>& kernels, const MergeInputs& in,
                     const DeviceProfile& device, ModelVariant variant, const AppPredictionOptions& options) {
  (void)kernels;
  const CounterLaunch& l = *lp.launch;
  const KernelStatics& s = *lp.statics;
  lp.guardrails = launch_guardrails(s, l.grid, l.block, l.shared_memory_per_block_bytes);
  // Fields the counters could not feed: the same launch from the SASS alone, to show how much the
  // counters move the prediction.
  if (!static_fields(*lp.profile).empty()) {
    MergeInputs alone = in;
    alone.launch = nullptr;
    alone.launch_spec.grid = l.grid;
    alone.launch_spec.block = l.block;
    const int static_shared = static_shared_bytes(s);
    if (l.shared_memory_per_block_bytes && *l.shared_memory_per_block_bytes > static_shared)
      alone.launch_spec.dynamic_shared_bytes = *l.shared_memory_per_block_bytes - static_shared;
    try {
      lp.static_only_seconds = predict(variant, device, make_kernel_profile(alone)).seconds;
    } catch (const ModelError&) {
      // no SASS-alone time: the row keeps its note without it
    } catch (const InputError&) {
    }
  }
  for (const auto& w : options.what_ifs) {
    KernelProfile k = *lp.profile;
    std::string why = apply_what_if(w, k);
    std::optional<Prediction> p;
    if (why.empty()) try {
        p = predict(variant, device, k);
      } catch (const ModelError& e) {
        why = e.what();
      }
    lp.what_ifs.push_back(alternative(w.text, *lp.prediction, p, why));
  }
  if (variant == ModelVariant::Hopper)
    for (const auto& bound : removable_bounds()) {
      DeviceProfile free = device;
      free.free_terms = {bound};
      std::optional<Prediction> p;
      std::string why;
      try {
        p = predict(variant, free, *lp.profile);
      } catch (const ModelError& e) {
        why = e.what();
      }
      lp.bound_removed.push_back(alternative(bound, *lp.prediction, p, why));
    }
  if (std::any_of(lp.guardrails.begin(), lp.guardrails.end(), [](const Guardrail& g) { return !g.withholds.empty(); }))
    return;
  const std::vector<Dim3> shapes = candidate_block_shapes(device, kernel_domain(*lp.profile));
  const SweepResult sweep = sweep_launch_shapes(device, *lp.profile, variant, shapes,
                                                sweep_options_for(s, l.grid, l.block, l.shared_memory_per_block_bytes));
  if (!sweep.ranked.empty()) lp.best = sweep.ranked.front();
}

}  // namespace

AppPrediction predict_application(const CounterFile& counters, const std::vector<KernelStatics>& kernels,
                                  const DeviceProfile& device, ModelVariant variant, bool group,
                                  const std::string& sass_origin, const AppPredictionOptions& options) {
  AppPrediction out;
  out.profile_gpu = options.profile_gpu;
  out.device_gpu = device_gpu_name(device);
  out.gpu_warning = gpu_mismatch_warning(out.profile_gpu, out.device_gpu);
  for (const auto& w : options.what_ifs) out.what_ifs.push_back(w.text);
  out.model = std::string(to_string(variant));
  // A shape pick is advice only beyond the uncertainty of a shape change: the cross-shape evaluation's
  // errors of the ratio between shapes (device.json's hopper_intervals.shape_change), else the model's
  // resolution.
  const auto* shape_change = variant == ModelVariant::Hopper && device.hopper_intervals
                                 ? &device.hopper_intervals->shape_change : nullptr;
  if (shape_change && *shape_change && std::isfinite(reliable_gain_threshold(*shape_change))) {
    out.gain_threshold_pct = 100.0 * reliable_gain_threshold(*shape_change);
    out.gain_threshold_source = "the 10th percentile of the shape-change errors of validate's cross-shape evaluation (" +
                                std::to_string((*shape_change)->cases) + " shapes)";
  } else {
    out.gain_threshold_pct = 100.0 * kTieGain;
    out.gain_threshold_source = "the model's resolution (the device profile has no shape-change errors)";
  }
  if (variant == ModelVariant::Hopper && device.hopper_intervals) out.interval_source = device.hopper_intervals->source;
  if (device.energy) out.energy_source = device.energy->source.empty() ? "the device profile's energy" : device.energy->source;
  out.device = device.name;
  out.profile = counters.origin;
  out.sass = sass_origin;
  out.grouped = group;
  std::map<std::string, const KernelStatics*> by_mangled, by_demangled;
  for (const auto& k : kernels) {
    by_mangled.emplace(k.name, &k);
    by_demangled.emplace(k.demangled, &k);
  }
  std::vector<LaunchPrediction> predicted;
  std::set<std::string> notes;
  std::map<std::string, std::size_t> model_errors;  // message -> launches
  for (const auto& l : counters.launches) {
    LaunchPrediction lp;
    lp.launch = &l;
    lp.speed_of_light = speed_of_light(l, device);
    if (auto it = by_mangled.find(l.kernel); it != by_mangled.end()) lp.statics = it->second;
    else if (auto d = by_demangled.find(l.demangled); !l.demangled.empty() && d != by_demangled.end())
      lp.statics = d->second;
    if (!lp.statics) {
      lp.error = "no SASS of this kernel in " + sass_origin;
      predicted.push_back(std::move(lp));
      continue;
    }
    MergeInputs in;
    in.statics = lp.statics;
    in.binary = sass_origin;
    in.launch = &l;
    in.counters_origin = counters.origin;
    in.max_warps_per_sm = device.limits.max_warps_per_sm();
    try {
      lp.profile = make_kernel_profile(in);
      lp.prediction = predict(variant, device, *lp.profile);
      for (const auto& n : lp.prediction->notes) notes.insert(n);
      recommendations(lp, kernels, in, device, variant, options);
    } catch (const ModelError& e) {
      lp.error = std::string("the model cannot evaluate it: ") + e.what();
      ++model_errors[e.what()];
      lp.prediction.reset();
    }
    predicted.push_back(std::move(lp));
  }
  if (!predicted.empty() &&
      std::none_of(predicted.begin(), predicted.end(), [](const LaunchPrediction& p) { return p.statics != nullptr; })) {
    std::vector<std::string> wanted, have;
    for (const auto& p : predicted)
      if (const std::string n = short_kernel_name(p.launch->demangled.empty() ? p.launch->kernel : p.launch->demangled);
          std::find(wanted.begin(), wanted.end(), n) == wanted.end())
        wanted.push_back(n);
    for (const auto& k : kernels) have.push_back(short_kernel_name(k.demangled));
    // The same short names on both sides: the profile names its kernels otherwise than their symbols
    // (ncu's own demangling, as import-ncu keeps it without --binary), so say that, with a full name.
    const bool same_names = std::any_of(wanted.begin(), wanted.end(), [&](const std::string& n) {
      return std::find(have.begin(), have.end(), n) != have.end();
    });
    if (same_names) {
      const CounterLaunch& l = *predicted.front().launch;
      if (l.kernel.rfind("_Z", 0) != 0)
        throw InputError(counters.origin + " names its kernels as ncu printed them ('" + l.kernel +
                         "'), not by their symbols in " + sass_origin + " (mangled, as '" + kernels.front().name +
                         "'): import the CSV again with `warpmodel import-ncu --binary APP` (or run ncu with "
                         "--print-kernel-base mangled)");
      const std::string name = short_kernel_name(l.demangled.empty() ? demangle(l.kernel) : l.demangled);
      const auto same = std::find_if(kernels.begin(), kernels.end(),
                                     [&](const KernelStatics& k) { return short_kernel_name(k.demangled) == name; });
      throw InputError("none of the profile's kernels is in " + sass_origin + " by its symbol: the profile's " + name +
                       " is " + l.kernel + ", " + sass_origin + "'s is " +
                       (same == kernels.end() ? std::string("another") : same->name) +
                       " (other code); give the binary the profile was measured with (--binary) or its cubins (--cubins)");
    }
    throw InputError("none of the profile's kernels (" + support::join(wanted, ", ", 5) + ") is in " + sass_origin +
                     (have.empty() ? std::string(" (it has no kernels)") : " (it has " + support::join(have, ", ", 5) + ")") +
                     "; give the application's binary (--binary) or the profile's cubins (--cubins)");
  }
  const bool none = std::none_of(predicted.begin(), predicted.end(),
                                 [](const LaunchPrediction& p) { return p.prediction.has_value(); });
  if (none && model_errors.size() == 1 && model_errors.begin()->second == predicted.size())
    throw ModelError(model_errors.begin()->first);

  // Rows: one per launch, or one per kernel and launch shape.
  using Key = std::tuple<std::string, long long, long long, long long, long long, long long, long long, int, int>;
  std::map<Key, std::size_t> row_of;
  std::vector<std::vector<const LaunchPrediction*>> members;
  for (const auto& p : predicted) {
    const CounterLaunch& l = *p.launch;
    const Key key{l.kernel, l.grid.x, l.grid.y, l.grid.z, l.block.x, l.block.y, l.block.z,
                  l.registers_per_thread.value_or(-1), l.shared_memory_per_block_bytes.value_or(-1)};
    if (group) {
      auto [it, fresh] = row_of.emplace(key, members.size());
      if (fresh) members.emplace_back();
      members[it->second].push_back(&p);
    } else {
      members.push_back({&p});
    }
  }
  for (const auto& m : members) {
    const LaunchPrediction& first = *m.front();
    const CounterLaunch& l = *first.launch;
    AppPredictionRow row;
    row.kernel = short_kernel_name(l.demangled.empty() ? demangle(l.kernel) : l.demangled);
    row.mangled = l.kernel;
    row.grid = l.grid;
    row.block = l.block;
    std::vector<double> measured, predicted_us;
    for (const auto* p : m) {
      row.launch_indices.push_back(p->launch->launch_index);
      if (p->launch->duration_ns && std::isfinite(*p->launch->duration_ns)) {
        measured.push_back(*p->launch->duration_ns / 1000.0);
        row.total_measured_us += measured.back();
      }
      if (p->prediction) predicted_us.push_back(p->prediction->seconds * 1e6);
    }
    if (!measured.empty()) row.measured_us = support::median(measured);
    if (!predicted_us.empty()) row.predicted_us = support::median(predicted_us);
    if (device.energy) {
      std::vector<double> millijoules, dynamic;
      for (const auto* p : m)
        if (p->prediction && p->profile) {
          const EnergyPrediction e = launch_energy(
              *device.energy, launch_counts(*p->profile, p->prediction->occupancy.total_warps, p->prediction->seconds));
          millijoules.push_back(1e3 * e.joules);
          dynamic.push_back(1e3 * e.counted_dynamic_joules);
        }
      if (!millijoules.empty()) row.predicted_energy_mj = support::median(millijoules);
      if (!dynamic.empty()) row.predicted_dynamic_energy_mj = support::median(dynamic);
    }
    if (row.measured_us && row.predicted_us && *row.measured_us > 0)
      row.error_pct = 100.0 * (*row.predicted_us - *row.measured_us) / *row.measured_us;
    // Speed of light: each resource's median share over the row's launches.
    for (const auto& [resource, key] : speed_of_light_resources()) {
      std::vector<double> shares;
      for (const auto* p : m)
        for (const auto& c : p->speed_of_light)
          if (c.key == key) shares.push_back(c.share);
      if (!shares.empty()) row.speed_of_light.push_back({resource, key, support::median(shares)});
    }
    row.guardrails = first.guardrails;
    for (const auto& g : first.guardrails)
      if (row.not_recommended.empty() && !g.withholds.empty()) row.not_recommended = g.withholds;
    if (first.static_only_seconds) row.static_only_us = *first.static_only_seconds * 1e6;
    row.what_ifs = first.what_ifs;
    row.bound_removed = first.bound_removed;
    if (first.prediction) {
      row.bound = bound_of(*first.prediction);
      row.static_fields = static_fields(*first.profile);
      if (first.best) {
        row.best_block = first.best->block;
        row.best_grid = first.best->grid;
        row.best_predicted_us = first.best->prediction.seconds * 1e6;
        row.gain_pct = 100.0 * (1.0 - first.best->prediction.seconds / first.prediction->seconds);
        row.reliable_gain = *row.gain_pct > out.gain_threshold_pct && !(first.best->block == l.block);
      }
      if (const auto iv = prediction_interval(device, *first.prediction); iv && row.predicted_us) {
        row.predicted_low_us = *row.predicted_us * iv->low_factor;
        row.predicted_high_us = *row.predicted_us * iv->high_factor;
        row.interval_basis = iv->basis;
      }
      // A short launch timed by a counter range (profile -- APP, import-ncu) that the device profile
      // cannot price (hopper H.12b unmeasured): its measured time holds the range's own time (a few-block
      // kernel: 2.4 to 3.9 us by the range, about 1.5 us by the Activity API), its prediction does not.
      if (first.profile && first.profile->timed_by_counter_range && row.measured_us &&
          *row.measured_us < kShortLaunchUs &&
          !(device.hopper_calibration && device.hopper_calibration->counter_range_overhead_ns > 0))
        row.note = "timed by a counter range, which adds its own time to a launch this short; not priced until "
                   "`characterize_gpu.sh --only profiler-floor` measures it (H.12b)";
    } else {
      row.note = first.error;
    }
    out.rows.push_back(std::move(row));
  }
  if (group)
    std::stable_sort(out.rows.begin(), out.rows.end(), [](const AppPredictionRow& a, const AppPredictionRow& b) {
      return a.total_measured_us > b.total_measured_us;
    });
  // The fields the counters could not feed, once per set of fields, with the kernels concerned
  // (kernel-profile's sources say which counter each lacked).
  std::map<std::vector<std::string>, std::vector<std::string>> kernels_by_fields;
  std::set<std::string> listed;
  for (const auto& r : out.rows)
    if (!r.static_fields.empty() && listed.insert(r.mangled).second) kernels_by_fields[r.static_fields].push_back(r.kernel);
  out.notes.assign(notes.begin(), notes.end());
  for (const auto& [fields, names] : kernels_by_fields)
    out.notes.push_back("static estimates (their counters are not in the profile) for " + support::join(fields) + ": " +
                        (names.size() == listed.size() && listed.size() > 1 ? "every kernel" : support::join(names)));
  return out;
}

}  // namespace warpmodel::sass
