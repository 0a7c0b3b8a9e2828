#include "warpmodel/validation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <optional>

#include <Eigen/Dense>

#include "warpmodel/hopper_equations.hpp"
#include "warpmodel/intervals.hpp"
#include "warpmodel/model.hpp"
#include "warpmodel/sweep.hpp"
#include "warpmodel/traffic.hpp"
#include "warpmodel/support/statistics.hpp"

namespace warpmodel {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Average ranks (1-based), ties sharing the mean of their positions.
std::vector<double> ranks(const std::vector<double>& v) {
  std::vector<std::size_t> order(v.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    const double mean_rank = (static_cast<double>(i + j) / 2.0) + 1.0;
    for (std::size_t k = i; k <= j; ++k) r[order[k]] = mean_rank;
    i = j + 1;
  }
  return r;
}

// The unfitted hopper terms of one case that H.12 combines: the summed wave time, the number of
// waves, the barriers per warp and the resident blocks per SM (the exposed waves follow from those
// at each turnover exponent).
struct HopperFeatures {
  double waves_time = 0, waves = 0, sync_inst = 0, resident_blocks_per_sm = 1;
};

HopperFeatures hopper_features(const DeviceProfile& device, const KernelProfile& kernel) {
  DeviceProfile unfitted = device;
  unfitted.hopper_calibration.reset();
  const Prediction p = predict_hopper(unfitted, kernel);
  return {p.cycles, hopper_eq::waves(p.full_waves, p.t_last_wave), kernel.sync_inst_per_warp,
          p.occupancy.resident_blocks_per_sm};
}

// H.12's linear constants at one turnover exponent: least squares on the rows divided by their
// measured cycles, so the fit minimises the relative error (the MAPE the validation reports) and
// microsecond kernels weigh as much as millisecond ones. Empty when the rows do not determine them.
struct LinearFit {
  Eigen::VectorXd constants;
  double squared_relative_error = 0;
  Eigen::Index rank = 0;
};
LinearFit fit_linear_constants(const std::vector<HopperFeatures>& features, const std::vector<double>& measured,
                               bool barriers, double turnover_exponent) {
  const Eigen::Index unknowns = barriers ? 4 : 3;
  Eigen::MatrixXd design(static_cast<Eigen::Index>(features.size()), unknowns);
  Eigen::VectorXd target = Eigen::VectorXd::Ones(static_cast<Eigen::Index>(features.size()));
  for (std::size_t r = 0; r < features.size(); ++r) {
    const auto row = static_cast<Eigen::Index>(r);
    const double weight = 1.0 / measured[r];
    const double exposed =
        hopper_eq::exposed_waves(features[r].waves, features[r].resident_blocks_per_sm, turnover_exponent);
    design(row, 0) = weight;
    design(row, 1) = features[r].waves_time * weight;
    design(row, 2) = exposed * weight;
    if (barriers) design(row, 3) = exposed * features[r].sync_inst * weight;
  }
  const Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(design);
  LinearFit fit;
  fit.rank = qr.rank();
  if (fit.rank < unknowns) return fit;
  fit.constants = qr.solve(target);
  fit.squared_relative_error = (design * fit.constants - target).squaredNorm();
  return fit;
}

}  // namespace

double spearman_rank_correlation(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size() || a.size() < 2) return kNaN;
  const std::vector<double> ra = ranks(a), rb = ranks(b);
  const double n = static_cast<double>(a.size());
  const double mean = (n + 1) / 2;
  double sab = 0, saa = 0, sbb = 0;
  for (std::size_t i = 0; i < ra.size(); ++i) {
    sab += (ra[i] - mean) * (rb[i] - mean);
    saa += (ra[i] - mean) * (ra[i] - mean);
    sbb += (rb[i] - mean) * (rb[i] - mean);
  }
  if (saa == 0 || sbb == 0) return kNaN;
  return sab / std::sqrt(saa * sbb);
}

std::vector<Split> split_training_held_out(const std::vector<ValidationCase>& cases) {
  std::map<std::string, std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < cases.size(); ++i) groups[cases[i].group()].push_back(i);
  std::vector<Split> split(cases.size(), Split::HeldOut);
  std::size_t group_ordinal = 0;
  for (auto& [name, members] : groups) {
    std::stable_sort(members.begin(), members.end(),
                     [&](std::size_t a, std::size_t b) { return cases[a].shape < cases[b].shape; });
    // Groups start on alternate halves, so groups of one case (an ADI kernel at a size only one
    // variant runs) are split between training and held-out too.
    for (std::size_t k = 0; k < members.size(); ++k)
      split[members[k]] = (k + group_ordinal) % 2 == 0 ? Split::Training : Split::HeldOut;
    ++group_ordinal;
  }
  return split;
}

DeviceProfile::HopperCalibration fit_hopper_calibration(const DeviceProfile& device,
                                                        const std::vector<ValidationCase>& cases,
                                                        const std::vector<Split>& split) {
  std::vector<HopperFeatures> features;
  std::vector<double> measured;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (split[i] != Split::Training) continue;
    features.push_back(hopper_features(device, cases[i].profile));
    measured.push_back(cases[i].measured_cycles());
  }
  // barrier_cycles is fitted only when some training kernel has barriers (else its column is 0).
  const bool barriers = std::any_of(features.begin(), features.end(),
                                    [](const HopperFeatures& f) { return f.waves > 0 && f.sync_inst > 0; });
  const Eigen::Index unknowns = barriers ? 4 : 3;
  if (static_cast<Eigen::Index>(features.size()) < unknowns + 1)
    throw ModelError("hopper calibration: " + std::to_string(features.size()) + " training cases cannot fit " +
                     std::to_string(unknowns) + " constants; measure more launch shapes");
  // The turnover exponent is not linear in H.12: the linear constants are fitted at each exponent of
  // a grid over [0, 1] (steps of 0.05) and the exponent with the least squared relative error kept,
  // among those whose scale is positive. With no case to spare for it the exponent stays 0.
  const bool fit_exponent = static_cast<Eigen::Index>(features.size()) >= unknowns + 2;
  const int kExponentSteps = fit_exponent ? 20 : 0;
  std::optional<LinearFit> best;
  double best_exponent = 0;
  Eigen::Index rank = 0;
  for (int step = 0; step <= kExponentSteps; ++step) {
    const double exponent = fit_exponent ? static_cast<double>(step) / kExponentSteps : 0.0;
    LinearFit fit = fit_linear_constants(features, measured, barriers, exponent);
    rank = std::max(rank, fit.rank);
    if (fit.rank < unknowns || !(fit.constants(1) > 0)) continue;
    if (!best || fit.squared_relative_error < best->squared_relative_error) {
      best = std::move(fit);
      best_exponent = exponent;
    }
  }
  if (rank < unknowns)
    throw ModelError("hopper calibration: the training cases do not determine the constants (rank " +
                     std::to_string(rank) + " of " + std::to_string(unknowns) + ")");
  if (!best)
    throw ModelError("hopper calibration: the fitted scale is not positive at any turnover exponent; the model's "
                     "wave times do not follow the measurements");
  const Eigen::VectorXd& c = best->constants;
  DeviceProfile::HopperCalibration cal;
  cal.launch_cycles = c(0);
  cal.scale = c(1);
  cal.wave_cycles = c(2);
  cal.barrier_cycles = barriers ? c(3) : 0.0;
  cal.turnover_exponent = best_exponent;
  cal.fitted_on = std::to_string(features.size()) + " training cases (least squares, H.12)";
  return cal;
}

ClassScore score_errors(const std::string& kernel_class, const std::vector<double>& signed_errors) {
  ClassScore s;
  s.kernel_class = kernel_class;
  s.cases = signed_errors.size();
  if (signed_errors.empty()) {
    s.mape = s.median_abs_error = s.mean_signed_error = s.within_10_percent = s.within_25_percent = kNaN;
    return s;
  }
  std::vector<double> abs_errors;
  for (double e : signed_errors) abs_errors.push_back(std::fabs(e));
  const double n = static_cast<double>(signed_errors.size());
  s.mape = std::accumulate(abs_errors.begin(), abs_errors.end(), 0.0) / n;
  s.median_abs_error = support::median(abs_errors);
  s.mean_signed_error = std::accumulate(signed_errors.begin(), signed_errors.end(), 0.0) / n;
  s.within_10_percent = std::count_if(abs_errors.begin(), abs_errors.end(), [](double e) { return e <= 0.10; }) / n;
  s.within_25_percent = std::count_if(abs_errors.begin(), abs_errors.end(), [](double e) { return e <= 0.25; }) / n;
  return s;
}

namespace {

// One hopper prediction scored against case i's measured cycles (the error text when it cannot).
ValidationRow hopper_row(const DeviceProfile& fitted, const KernelProfile& profile, const ValidationCase& c,
                         std::size_t case_index) {
  ValidationRow row;
  row.case_index = case_index;
  row.variant = ModelVariant::Hopper;
  row.split = Split::HeldOut;
  row.measured_cycles = c.measured_cycles();
  try {
    const Prediction p = predict(ModelVariant::Hopper, fitted, profile);
    row.predicted_cycles = p.cycles;
    row.signed_error = (p.cycles - row.measured_cycles) / row.measured_cycles;
    row.bound = p.bound;
  } catch (const ModelError& err) {
    row.error = err.what();
    row.predicted_cycles = row.signed_error = kNaN;
  }
  return row;
}

// Hopper predictions of `cases` with `fitted` (its calibration set), appended to `e`.
void predict_held_out(const DeviceProfile& fitted, const std::vector<ValidationCase>& cases,
                      const std::vector<std::size_t>& which, HeldOutEvaluation& e) {
  for (std::size_t i : which) {
    e.rows.push_back(hopper_row(fitted, cases[i].profile, cases[i], i));
    e.row_class.push_back(cases[i].kernel_class);
  }
}

// Per-class and pooled scores of the evaluation's rows.
void score_rows(HeldOutEvaluation& e) {
  std::map<std::string, std::vector<double>> by_class;
  std::vector<double> all;
  for (std::size_t r = 0; r < e.rows.size(); ++r) {
    if (!e.rows[r].error.empty()) continue;
    by_class[e.row_class[r]].push_back(e.rows[r].signed_error);
    all.push_back(e.rows[r].signed_error);
  }
  for (const auto& [name, errors] : by_class) e.classes.push_back(score_errors(name, errors));
  e.pooled = score_errors("pooled", all);
}

}  // namespace

HeldOutEvaluation leave_one_class_out(const DeviceProfile& device, const std::vector<ValidationCase>& cases) {
  HeldOutEvaluation e;
  e.name = "leave-one-class-out";
  e.description = "for each class, the hopper constants fitted on every case of the other classes predict that class";
  std::map<std::string, std::vector<std::size_t>> members;
  for (std::size_t i = 0; i < cases.size(); ++i) members[cases[i].kernel_class].push_back(i);
  for (const auto& [name, held] : members) {
    std::vector<Split> split(cases.size(), Split::Training);
    for (std::size_t i : held) split[i] = Split::HeldOut;
    DeviceProfile fitted = device;
    try {
      fitted.hopper_calibration = fit_hopper_calibration(device, cases, split);
    } catch (const ModelError& err) {
      e.description += "; class " + name + " skipped (" + err.what() + ")";
      continue;
    }
    e.calibrations.emplace_back(name, *fitted.hopper_calibration);
    predict_held_out(fitted, cases, held, e);
  }
  score_rows(e);
  return e;
}

DeviceProfile::HopperCalibration fit_hopper_calibration_on_all(const DeviceProfile& device,
                                                               const std::vector<ValidationCase>& cases) {
  DeviceProfile::HopperCalibration c =
      fit_hopper_calibration(device, cases, std::vector<Split>(cases.size(), Split::Training));
  c.fitted_on = std::to_string(cases.size()) + " measured launches of " + device.name + " (every case; least squares, H.12)";
  return c;
}

HeldOutEvaluation cross_device(const DeviceProfile& fit_device, const std::vector<ValidationCase>& fit_cases,
                               const DeviceProfile& device, const std::vector<ValidationCase>& cases) {
  HeldOutEvaluation e;
  e.name = "cross-gpu";
  e.description = "the hopper constants fitted on every case of " + fit_device.name + " predict every case of " +
                  device.name + " (with its own device profile)";
  DeviceProfile fitted = device;
  fitted.hopper_calibration = fit_hopper_calibration_on_all(fit_device, fit_cases);
  e.calibrations.emplace_back(fit_device.name, *fitted.hopper_calibration);
  std::vector<std::size_t> all(cases.size());
  std::iota(all.begin(), all.end(), 0);
  predict_held_out(fitted, cases, all, e);
  score_rows(e);
  return e;
}

namespace {

// A derived counter beside the shape's measured one: within 10 % (5 points for hit rates).
void check_counters(const KernelProfile& kept, const KernelProfile& derived, const KernelProfile& measured,
                    std::size_t case_index, std::vector<CrossShapeEvaluation::CounterCheck>& out) {
  auto relative = [](double a, double m) { return m > 0 ? std::abs(a - m) / m <= 0.10 : std::abs(a) < 1e-9; };
  auto points = [](double a, double m) { return std::abs(a - m) <= 0.05; };
  auto add = [&](const char* name, double k, double d, double m, bool hit_rate) {
    CrossShapeEvaluation::CounterCheck c{case_index, name, k, d, m, false, false};
    c.derived_close = hit_rate ? points(d, m) : relative(d, m);
    c.kept_close = hit_rate ? points(k, m) : relative(k, m);
    out.push_back(c);
  };
  add("transactions_per_request", kept.transactions_per_request, derived.transactions_per_request,
      measured.transactions_per_request, false);
  add("l1_hit_rate", 1 - kept.l1_miss_ratio, 1 - derived.l1_miss_ratio, 1 - measured.l1_miss_ratio, true);
  // Bytes per launch, not per warp: the shapes launch different numbers of warps.
  const double warps = static_cast<double>(measured.launch.grid.count()) *
                       std::ceil(static_cast<double>(measured.launch.block.count()) / 32.0);
  if (kept.l2_bytes_per_warp && derived.l2_bytes_per_warp && measured.l2_bytes_per_warp)
    add("l2_bytes", *kept.l2_bytes_per_warp * warps, *derived.l2_bytes_per_warp * warps,
        *measured.l2_bytes_per_warp * warps, false);
  // DRAM bytes are the footprint: derived = kept (traffic.hpp), listed so that what that costs shows.
  if (kept.dram_bytes_per_warp && derived.dram_bytes_per_warp && measured.dram_bytes_per_warp)
    add("dram_bytes", *kept.dram_bytes_per_warp * warps, *derived.dram_bytes_per_warp * warps,
        *measured.dram_bytes_per_warp * warps, false);
}

}  // namespace

CrossShapeEvaluation cross_shape(const DeviceProfile& device, const std::vector<ValidationCase>& cases,
                                 const HeldOutEvaluation& loco) {
  CrossShapeEvaluation out;
  std::map<std::string, DeviceProfile::HopperCalibration> constants(loco.calibrations.begin(), loco.calibrations.end());
  std::map<std::size_t, double> own_prediction;  // case -> LOCO prediction from its own counters
  for (const ValidationRow& r : loco.rows)
    if (r.error.empty()) own_prediction[r.case_index] = r.predicted_cycles;
  // Groups in the order their first case was measured; the first case is the reference.
  std::vector<std::string> order;
  std::map<std::string, std::vector<std::size_t>> members;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (!members.count(cases[i].group())) order.push_back(cases[i].group());
    members[cases[i].group()].push_back(i);
  }
  std::vector<double> errors_reference, errors_derived, errors_own, slow_reference, slow_derived, slow_own;
  std::size_t within_reference = 0, within_derived = 0, within_own = 0;
  for (const std::string& g : order) {
    // Launch shapes of the same code only: a group's "shapes" can be variants that are different
    // kernels (the ADI solves' thread-per-line and block-per-line), whose counters say nothing of
    // each other. The same code has the same static instruction and basic-block counts.
    const ValidationCase& reference = cases[members[g].front()];
    std::vector<std::size_t> m;
    // Where the profiles name their kernel's symbol, it must be the same too (two instantiations of a
    // template can have the same counts: the ADI build kernel for either layout).
    auto symbol = [](const ValidationCase& c) {
      const auto it = c.profile.sources.find("kernel");
      return it == c.profile.sources.end() ? std::string() : it->second.substr(0, it->second.find(' '));
    };
    for (std::size_t i : members[g])
      if (cases[i].profile.static_instructions == reference.profile.static_instructions &&
          cases[i].profile.basic_blocks == reference.profile.basic_blocks && symbol(cases[i]) == symbol(reference))
        m.push_back(i);
    if (m.size() < 2) continue;
    const auto cal = constants.find(reference.kernel_class);
    if (cal == constants.end()) continue;  // its class could not be fitted without it
    DeviceProfile fitted = device;
    fitted.hopper_calibration = cal->second;
    const bool has_patterns = reference.profile.access_patterns.has_value();
    struct Pick {
      std::size_t case_index;
      double from_reference, from_derived, from_own;
    };
    std::vector<Pick> picks;
    for (std::size_t i : m) {
      // The shape's own block, grid, registers, shared memory; the reference's work conserved.
      const KernelProfile shaped = profile_at_launch(reference.profile, cases[i].profile.launch);
      const ValidationRow row = hopper_row(fitted, shaped, cases[i], i);
      out.rows.push_back(row);
      // The same with the memory counters derived from the addresses (the reference's when none).
      const KernelProfile derived =
          has_patterns ? derive_profile_at_launch(device, reference.profile, *reference.profile.access_patterns,
                                                  cases[i].profile.launch)
                       : shaped;
      const ValidationRow derived_row = hopper_row(fitted, derived, cases[i], i);
      if (has_patterns) out.derived_rows.push_back(derived_row);
      if (has_patterns && i != m.front()) check_counters(shaped, derived, cases[i].profile, i, out.counter_checks);
      const auto own = own_prediction.find(i);
      if (!row.error.empty() || !derived_row.error.empty() || own == own_prediction.end()) continue;
      picks.push_back({i, row.predicted_cycles, derived_row.predicted_cycles, own->second});
      if (i != m.front()) {
        errors_reference.push_back(row.signed_error);
        errors_derived.push_back(derived_row.signed_error);
        errors_own.push_back((own->second - row.measured_cycles) / row.measured_cycles);
      }
    }
    if (picks.size() < 2) continue;
    auto best_by = [&](auto key) {
      return std::min_element(picks.begin(), picks.end(), [&](const Pick& a, const Pick& b) { return key(a) < key(b); })->case_index;
    };
    const std::size_t measured_best = best_by([&](const Pick& p) { return cases[p.case_index].measured_cycles(); });
    const std::size_t by_reference = best_by([](const Pick& p) { return p.from_reference; });
    const std::size_t by_derived = best_by([](const Pick& p) { return p.from_derived; });
    const std::size_t by_own = best_by([](const Pick& p) { return p.from_own; });
    const double best = cases[measured_best].measured_cycles();
    CrossShapeEvaluation::Group gr;
    gr.group = g;
    gr.kernel_class = reference.kernel_class;
    gr.reference_shape = reference.shape;
    gr.measured_best = cases[measured_best].shape;
    gr.picked_reference = cases[by_reference].shape;
    gr.picked_derived = cases[by_derived].shape;
    gr.picked_own = cases[by_own].shape;
    gr.slowdown_reference = cases[by_reference].measured_cycles() / best - 1;
    gr.slowdown_derived = cases[by_derived].measured_cycles() / best - 1;
    gr.slowdown_own = cases[by_own].measured_cycles() / best - 1;
    // The derived pick against the reference shape, and every shape's ratio to the reference (its
    // prediction then has no error of its own to divide by: only groups whose reference predicted).
    gr.gain_derived = gr.change_derived = kNaN;
    const auto ref = std::find_if(picks.begin(), picks.end(), [&](const Pick& p) { return p.case_index == m.front(); });
    if (ref != picks.end()) {
      const double ref_measured = cases[ref->case_index].measured_cycles();
      const auto pick = std::find_if(picks.begin(), picks.end(), [&](const Pick& p) { return p.case_index == by_derived; });
      gr.gain_derived = 1 - pick->from_derived / ref->from_derived;
      gr.change_derived = cases[by_derived].measured_cycles() / ref_measured - 1;
      for (const Pick& p : picks)
        if (p.case_index != ref->case_index)
          out.ratio_residuals.push_back({reference.kernel_class, (p.from_derived / ref->from_derived) /
                                                                     (cases[p.case_index].measured_cycles() / ref_measured) -
                                                                 1});
    }
    within_reference += gr.slowdown_reference <= 0.05;
    within_derived += gr.slowdown_derived <= 0.05;
    within_own += gr.slowdown_own <= 0.05;
    out.groups_with_patterns += has_patterns;
    slow_reference.push_back(gr.slowdown_reference);
    slow_derived.push_back(gr.slowdown_derived);
    slow_own.push_back(gr.slowdown_own);
    out.per_group.push_back(gr);
  }
  out.groups = out.per_group.size();
  out.from_reference = score_errors("from the reference shape's counters", errors_reference);
  out.from_reference_derived = score_errors("from the reference, memory counters derived per shape", errors_derived);
  out.from_own_counters = score_errors("from each shape's own counters", errors_own);
  auto mean = [](const std::vector<double>& v) { return v.empty() ? kNaN : std::accumulate(v.begin(), v.end(), 0.0) / v.size(); };
  auto share = [&](std::size_t n) { return out.groups ? static_cast<double>(n) / out.groups : kNaN; };
  out.best_within_5_percent_reference = share(within_reference);
  out.best_within_5_percent_derived = share(within_derived);
  out.best_within_5_percent_own = share(within_own);
  out.mean_slowdown_reference = mean(slow_reference);
  out.mean_slowdown_derived = mean(slow_derived);
  out.mean_slowdown_own = mean(slow_own);
  return out;
}

HarmfulPicks harmful_picks(const CrossShapeEvaluation& shapes, const std::map<std::string, double>& gain_threshold_by_class) {
  HarmfulPicks out;
  for (const CrossShapeEvaluation::Group& g : shapes.per_group) {
    if (!std::isfinite(g.gain_derived) || !std::isfinite(g.change_derived)) continue;
    ++out.groups;
    if (g.picked_derived == g.reference_shape) continue;
    if (const auto t = gain_threshold_by_class.find(g.kernel_class);
        t != gain_threshold_by_class.end() && !(g.gain_derived > t->second)) {
      ++out.withheld;
      out.withheld_faster += g.change_derived < -kHarmfulSlowdown;
      continue;
    }
    ++out.moved;
    if (g.change_derived > kHarmfulSlowdown) {
      ++out.harmful;
      if (g.change_derived > out.largest) {
        out.largest = g.change_derived;
        out.largest_group = g.group;
        out.largest_pick = g.picked_derived + " instead of " + g.reference_shape;
      }
    }
  }
  out.share = out.groups ? static_cast<double>(out.harmful) / static_cast<double>(out.groups) : kNaN;
  return out;
}

std::map<std::string, double> nested_gain_thresholds(const CrossShapeEvaluation& shapes) {
  std::map<std::string, double> out;
  for (const CrossShapeEvaluation::Group& g : shapes.per_group) {
    if (out.count(g.kernel_class)) continue;
    std::vector<double> others;
    for (const auto& r : shapes.ratio_residuals)
      if (r.kernel_class != g.kernel_class) others.push_back(r.error);
    const double t = reliable_gain_threshold(error_quantiles(others));
    if (std::isfinite(t)) out[g.kernel_class] = t;
  }
  return out;
}

ValidationResult validate(const DeviceProfile& device, std::vector<ValidationCase> cases) {
  ValidationResult out;
  out.cases = std::move(cases);
  out.split = split_training_held_out(out.cases);
  out.calibration = fit_hopper_calibration(device, out.cases, out.split);
  DeviceProfile fitted = device;
  fitted.hopper_calibration = out.calibration;

  for (ModelVariant v : all_variants()) {
    std::vector<double> predicted, measured, abs_errors;
    std::map<std::string, std::vector<std::size_t>> rows_by_group;
    for (std::size_t i = 0; i < out.cases.size(); ++i) {
      const ValidationCase& c = out.cases[i];
      ValidationRow row;
      row.case_index = i;
      row.variant = v;
      row.split = out.split[i];
      row.measured_cycles = c.measured_cycles();
      try {
        const Prediction p = predict(v, v == ModelVariant::Hopper ? fitted : device, c.profile);
        row.predicted_cycles = p.cycles;
        row.signed_error = (p.cycles - row.measured_cycles) / row.measured_cycles;
        row.bound = p.bound.empty() ? std::string(to_string(p.model_case)) : p.bound;
      } catch (const ModelError& e) {
        row.error = e.what();
        row.predicted_cycles = row.signed_error = kNaN;
      }
      if (row.error.empty()) {
        rows_by_group[c.group()].push_back(out.rows.size());
        if (row.split == Split::HeldOut) {
          predicted.push_back(row.predicted_cycles);
          measured.push_back(row.measured_cycles);
          abs_errors.push_back(std::fabs(row.signed_error));
        }
      }
      out.rows.push_back(row);
    }
    VariantSummary s;
    s.variant = v;
    s.cases = abs_errors.size();
    s.mape = abs_errors.empty() ? kNaN : std::accumulate(abs_errors.begin(), abs_errors.end(), 0.0) / abs_errors.size();
    s.median_abs_error = support::median(abs_errors);
    s.max_abs_error = abs_errors.empty() ? kNaN : *std::max_element(abs_errors.begin(), abs_errors.end());
    s.spearman = spearman_rank_correlation(predicted, measured);
    out.summaries.push_back(s);

    // Launch-shape choice per kernel and size (all of the group's shapes: the fitted constants
    // are the same for every shape of a group, so they hardly move the ranking).
    ShapeChoiceSummary cs;
    cs.variant = v;
    std::size_t hits = 0, within5 = 0;
    for (const auto& [group, members] : rows_by_group) {
      if (members.size() < 2) continue;
      auto by = [&](auto key) {
        return *std::min_element(members.begin(), members.end(),
                                 [&](std::size_t a, std::size_t b) { return key(out.rows[a]) < key(out.rows[b]); });
      };
      const std::size_t pick = by([](const ValidationRow& r) { return r.predicted_cycles; });
      const std::size_t best = by([](const ValidationRow& r) { return r.measured_cycles; });
      ShapeChoice choice;
      choice.variant = v;
      choice.group = group;
      choice.predicted_best = out.cases[out.rows[pick].case_index].shape;
      choice.measured_best = out.cases[out.rows[best].case_index].shape;
      choice.slowdown = out.rows[pick].measured_cycles / out.rows[best].measured_cycles - 1.0;
      hits += choice.slowdown <= 1e-12;  // a tie with the measured best counts as a hit
      within5 += choice.slowdown <= 0.05;
      out.shape_choices.push_back(choice);
      ++cs.groups;
    }
    cs.top1_hit_rate = cs.groups ? static_cast<double>(hits) / cs.groups : kNaN;
    cs.within_5_percent_rate = cs.groups ? static_cast<double>(within5) / cs.groups : kNaN;
    out.shape_summaries.push_back(cs);
  }
  // The hopper variant's held-out half, class by class.
  std::map<std::string, std::vector<double>> by_class;
  for (const ValidationRow& r : out.rows)
    if (r.variant == ModelVariant::Hopper && r.split == Split::HeldOut && r.error.empty())
      by_class[out.cases[r.case_index].kernel_class].push_back(r.signed_error);
  for (const auto& [name, errors] : by_class) out.held_out_classes.push_back(score_errors(name, errors));
  return out;
}

}  // namespace warpmodel
