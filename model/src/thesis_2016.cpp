// thesis-2016: the seed thesis's adaptation of gpuperf-2012 to a 3D stencil (section 4.4).
// Four changes, each below with its equation:
//   eq 4.23  W_serial = 0, so T_comp = W_parallel
//   eq 4.24  two-level AMAT
//   eq 4.25  departure delay from the 1..32-warp global-load latency series
//   eq 4.26  ILP = #total_instructions / #basic_blocks
// Everything else is eqs 4.1-4.22 (mwp_cwp_core.cpp).
#include <cmath>
#include <string>

#include "mwp_cwp_core.hpp"
#include "warpmodel/equations.hpp"
#include "warpmodel/model.hpp"

namespace warpmodel {
namespace {

// eq 4.26, unless the profile states the ILP the thesis substituted (eq 4.33 rounds 86/18 = 4.78 to 5).
double thesis_ilp(const KernelProfile& k) {
  if (const auto ilp = detail::stated_or_eq_4_26_ilp(k)) return *ilp;
  throw ModelError("kernel '" + k.name + "': thesis-2016 needs parallelism.ilp, or parallelism.static_instructions "
                   "and parallelism.basic_blocks for eq 4.26");
}

// eq 4.25 when the device carries the warp series. The sum telescopes to (last - first)/(n - 1), which
// is noise-dominated and can be <= 0 on a flat series (the K40 endpoints of table 4.3, 402 and 395
// cycles, give -0.23): then the measured departure delay is used instead, and the prediction says so.
double thesis_delta(const DeviceProfile& d, Prediction& p) {
  const auto& series = d.global_load_latency_by_warps;
  if (series.size() >= 2) {
    const double delta = eq::departure_delay_eq_4_25(series);
    if (delta > 0) return delta;
    p.notes.push_back("eq 4.25 gives Delta = " + std::to_string(delta) +
                      " cycles from the warp series (not positive); used latency_cycles.departure_delay_coalesced");
  }
  return d.departure_delay_coalesced_cycles;
}

}  // namespace

Prediction predict_thesis_2016(const DeviceProfile& device, const KernelProfile& kernel) {
  Prediction p;
  p.variant = ModelVariant::Thesis2016;
  p.occupancy = detail::checked_occupancy(device, kernel);

  detail::VariantInputs in;
  in.ilp = thesis_ilp(kernel);                                                                   // eq 4.26
  in.delta = thesis_delta(device, p);                                                            // eq 4.25
  in.avg_dram_lat = eq::avg_dram_lat(device.dram_latency_cycles, kernel.transactions_per_request, in.delta);
  // eq 4.24 with the thesis's own assignment of metrics (section 4.5.2 e-f and eq 4.37): its
  // "miss_ratio_l2" is 1 - l1_cache_global_hit_rate (the L1 miss ratio, 100% on the K40) and its
  // "miss_ratio_l1" is 1 - l2_l1_read_hit_rate (the L2 miss ratio, 5%). Read by the printed names
  // instead, eq 4.37 would give 265.95 cycles, not the printed 498.7 (see tests/model/test_thesis.cpp).
  in.amat = eq::amat_two_level_thesis(device.l1_hit_latency_cycles, /*miss_ratio_l1=*/kernel.l2_miss_ratio,
                                      device.l2_hit_latency_cycles, /*miss_ratio_l2=*/kernel.l1_miss_ratio,
                                      in.avg_dram_lat);
  in.serial = {};  // eq 4.23: W_serial = 0

  detail::evaluate_mwp_cwp(device, kernel, in, p);
  return p;
}

}  // namespace warpmodel
