// Validation: predicted against measured cycles for a set of measured launches, per model variant,
// with the hopper variant's constants fitted on a training half and every error reported on the
// held-out half. Pure computation: reading the measurements is validation_io, writing the tables
// is report.hpp.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "warpmodel/device_profile.hpp"
#include "warpmodel/kernel_profile.hpp"
#include "warpmodel/prediction.hpp"

namespace warpmodel {

// One measured launch: which kernel, which shape, what it cost, and its kernel profile (the model's input).
struct ValidationCase {
  std::string family;        // "stencil", "adi" or "corpus": which sweep measured it
  std::string kernel_class;  // what it stresses ("streaming", "naive-loop", ...; the family for stencils and ADI):
                             // the unit of leave-one-class-out validation
  std::string kernel;  // e.g. "intz-reg order 8", "solve-x thread-per-line double"
  std::string size;    // e.g. "512^3", "2048^2"
  std::string shape;   // launch shape label, e.g. "32x4x1 @16 warps/SM"
  std::optional<double> warps_per_sm;  // the thesis's column (tables 4.5-4.7), where the sweep sets it
  KernelProfile profile;
  double duration_ns = 0;                  // kernel duration (CUPTI activity or CUDA events)
  double sm_clock_mhz = 0;                 // SM clock recorded during the run
  std::optional<double> sm_cycles_elapsed;  // sm__cycles_elapsed.max, where profiled

  double measured_cycles() const { return duration_ns * sm_clock_mhz * 1e-3; }
  std::string group() const { return family + " | " + kernel + " | " + size; }  // a shape choice is made per group
};

enum class Split { Training, HeldOut };

// Alternating split inside each group (cases sorted by shape), so both halves see every kernel
// and size: shapes alternate between training and held-out, the first group starting with
// training, the second with held-out, and so on (groups of one case are split across groups).
std::vector<Split> split_training_held_out(const std::vector<ValidationCase>& cases);

// H.12 fitted by linear least squares (Eigen, column-pivoting QR) on the training cases:
// measured = launch + scale x W + wave_cycles x waves, with W the summed wave time and the waves
// from the unfitted model, each case weighted by 1 / measured so that the relative error is
// minimised. Throws ModelError when the
// training set cannot determine the constants (fewer than 3 cases, or a singular design).
DeviceProfile::HopperCalibration fit_hopper_calibration(const DeviceProfile& device,
                                                        const std::vector<ValidationCase>& cases,
                                                        const std::vector<Split>& split);

struct ValidationRow {
  std::size_t case_index = 0;
  ModelVariant variant = ModelVariant::Thesis2016;
  Split split = Split::HeldOut;
  double predicted_cycles = 0;
  double measured_cycles = 0;
  double signed_error = 0;  // (predicted - measured) / measured
  std::string bound;        // hopper: the term that set the time; others: the MWP-CWP case
  std::string error;        // the variant could not evaluate this case (ModelError text); then no numbers
};

struct VariantSummary {
  ModelVariant variant = ModelVariant::Thesis2016;
  std::size_t cases = 0;  // held-out cases evaluated
  double mape = 0;        // mean absolute percentage error, held-out
  double median_abs_error = 0;
  double max_abs_error = 0;
  double spearman = 0;  // rank correlation of predicted and measured cycles, held-out
};

// The launch shape the model ranks first for a kernel and size, against the measured fastest.
struct ShapeChoice {
  ModelVariant variant = ModelVariant::Thesis2016;
  std::string group;
  std::string predicted_best;
  std::string measured_best;
  double slowdown = 0;  // measured time of the predicted choice / measured best - 1
};

struct ShapeChoiceSummary {
  ModelVariant variant = ModelVariant::Thesis2016;
  std::size_t groups = 0;
  double top1_hit_rate = 0;          // predicted choice == measured best
  double within_5_percent_rate = 0;  // predicted choice within 5% of the measured best
};

// Scores of a set of hopper predictions that were all held out from the fit that priced them.
struct ClassScore {
  std::string kernel_class;  // the class, or "pooled"
  std::size_t cases = 0;
  double mape = 0;
  double median_abs_error = 0;
  double mean_signed_error = 0;  // the bias: + over-predicted, - under-predicted
  double within_10_percent = 0;  // share of cases with |error| <= 10 %
  double within_25_percent = 0;
};
ClassScore score_errors(const std::string& kernel_class, const std::vector<double>& signed_errors);

// A held-out evaluation of the hopper variant: every row was predicted with constants fitted on
// rows that exclude it (leave-one-class-out: every other class; cross-GPU: another GPU's sweep).
struct HeldOutEvaluation {
  std::string name;         // "leave-one-class-out", "cross-gpu"
  std::string description;  // what was fitted on what, what was predicted
  std::vector<ValidationRow> rows;     // case_index into `cases`; hopper only
  std::vector<std::string> row_class;  // the class of each row
  std::vector<ClassScore> classes;     // one per class, by class name
  ClassScore pooled;
  // The constants each part was predicted with: per held-out class, or one entry for cross-GPU.
  std::vector<std::pair<std::string, DeviceProfile::HopperCalibration>> calibrations;
};

// Leave-one-class-out: for every class (ValidationCase::kernel_class), the constants are fitted on
// all other classes' cases and that class is predicted. Classes whose complement cannot determine
// the constants are skipped with a note in `description`.
HeldOutEvaluation leave_one_class_out(const DeviceProfile& device, const std::vector<ValidationCase>& cases);

// Cross-GPU: the constants fitted on every case of one GPU's sweep (with that GPU's profile)
// predict every case of another GPU's sweep (with the other GPU's own profile).
HeldOutEvaluation cross_device(const DeviceProfile& fit_device, const std::vector<ValidationCase>& fit_cases,
                               const DeviceProfile& device, const std::vector<ValidationCase>& cases);

// Cross-shape, the "before tuning" use: per kernel and size, the per-warp counts of one reference
// launch (the first shape the sweep measured) predict every shape of the same code (the same kernel
// symbol where the profiles name it, the same static instruction and basic-block counts: variants
// that are other kernels are left out), each with its own launch (block,
// grid, registers, shared memory), as `sweep` does; beside it the same cases predicted from each
// shape's own measured counters. Constants: each class's leave-one-class-out constants, so no
// prediction is scored by constants fitted on its own class.
//
// A third column, where the reference's profile carries its access patterns (traffic.hpp): the
// reference's counters with the shape-dependent memory counters derived for each shape
// (derive_profile_at_launch). Each derived counter is checked against the shape's measured one.
struct CrossShapeEvaluation {
  std::size_t groups = 0;                  // kernels x sizes with at least two shapes
  ClassScore from_reference;               // the non-reference shapes predicted from the reference counters
  ClassScore from_reference_derived;       // the same, memory counters derived from the addresses
  ClassScore from_own_counters;            // the same cases from their own counters
  double best_within_5_percent_reference = 0;  // share of groups whose predicted best shape is within 5 %
  double best_within_5_percent_derived = 0;    // of the measured best, from the reference / derived /
  double best_within_5_percent_own = 0;        // own counters
  double mean_slowdown_reference = 0;          // mean measured slowdown of the picked shape
  double mean_slowdown_derived = 0;
  double mean_slowdown_own = 0;
  std::size_t groups_with_patterns = 0;  // groups whose reference has access patterns
  struct Group {
    std::string group, kernel_class, reference_shape, measured_best, picked_reference, picked_derived, picked_own;
    double slowdown_reference = 0, slowdown_derived = 0, slowdown_own = 0;
    // The derived pick against the profiled (reference) shape: its predicted gain, 1 - predicted at
    // the pick / predicted at the reference, and its measured change, measured at the pick / measured
    // at the reference - 1 (+: the pick ran slower than the shape it replaces).
    double gain_derived = 0, change_derived = 0;
  };
  std::vector<Group> per_group;
  // Shape changes' errors (derived memory counters): for each non-reference shape, predicted ratio
  // to the reference / measured ratio - 1; the uncertainty of a shape pick.
  struct RatioResidual {
    std::string kernel_class;
    double error = 0;
  };
  std::vector<RatioResidual> ratio_residuals;
  std::vector<ValidationRow> rows;          // every case of a multi-shape group, predicted from the reference counters
  std::vector<ValidationRow> derived_rows;  // the same with derived memory counters (groups with patterns)
  // One row per non-reference launch and counter: the reference's value (work conserved), the value
  // derived for this shape, and the shape's measured value.
  struct CounterCheck {
    std::size_t case_index = 0;
    std::string counter;  // "transactions_per_request", "l1_hit_rate", "l2_bytes", "dram_bytes" (per launch)
    double kept = 0, derived = 0, measured = 0;
    bool derived_close = false, kept_close = false;  // within 10 % (5 points for hit rates)
  };
  std::vector<CounterCheck> counter_checks;
};
CrossShapeEvaluation cross_shape(const DeviceProfile& device, const std::vector<ValidationCase>& cases,
                                 const HeldOutEvaluation& leave_one_class_out);

// Picks measured slower than the shape they replace: per group, the shape the model ranks first from
// the reference's counters with derived memory counters (picked_derived) against the profiled
// (reference) shape; a pick more than kHarmfulSlowdown slower is harmful. With thresholds, a pick whose
// predicted gain is at or below its class's threshold is withheld (the reference shape stays).
inline constexpr double kHarmfulSlowdown = 0.10;
struct HarmfulPicks {
  std::size_t groups = 0;    // kernels x sizes
  std::size_t moved = 0;     // picks other than the reference (after withholding)
  std::size_t harmful = 0;   // picks measured more than 10 % slower than the reference
  std::size_t withheld = 0;  // picks other than the reference withheld as inside the uncertainty
  std::size_t withheld_faster = 0;  // of those, picks measured more than 10 % faster than the reference
  double share = 0;          // harmful / groups
  double largest = 0;        // the largest measured slowdown of a harmful pick (0: none)
  std::string largest_group, largest_pick;
};
HarmfulPicks harmful_picks(const CrossShapeEvaluation& shapes,
                           const std::map<std::string, double>& gain_threshold_by_class = {});
// Per class, the reliable-gain threshold (intervals.hpp) from the other classes' shape-change errors,
// so that no class's picks are withheld by a threshold that saw them.
std::map<std::string, double> nested_gain_thresholds(const CrossShapeEvaluation& shapes);

// The constants fitted on every case (no held-out half): what a device profile carries for users.
DeviceProfile::HopperCalibration fit_hopper_calibration_on_all(const DeviceProfile& device,
                                                               const std::vector<ValidationCase>& cases);

struct ValidationResult {
  std::vector<ValidationCase> cases;
  std::vector<Split> split;
  DeviceProfile::HopperCalibration calibration;  // fitted on the training half
  std::vector<ValidationRow> rows;               // every case x every variant
  std::vector<VariantSummary> summaries;         // held-out only
  std::vector<ShapeChoice> shape_choices;        // every group x every variant
  std::vector<ShapeChoiceSummary> shape_summaries;
  std::vector<ClassScore> held_out_classes;  // hopper on the held-out half, per class (the worst class shows)
};

// Spearman's rank correlation (average ranks for ties); NaN for fewer than 2 points or no spread.
double spearman_rank_correlation(const std::vector<double>& a, const std::vector<double>& b);

// The whole evaluation: split, fit, predict every case with every variant, summarise.
ValidationResult validate(const DeviceProfile& device, std::vector<ValidationCase> cases);

}  // namespace warpmodel
