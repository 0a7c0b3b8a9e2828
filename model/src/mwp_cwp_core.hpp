// The evaluation order shared by gpuperf-2012 and thesis-2016 (eqs 4.1-4.22). The two variants
// differ only in four inputs, which each resolves in its own file and hands over here.
#pragma once

#include <optional>

#include "warpmodel/device_profile.hpp"
#include "warpmodel/kernel_profile.hpp"
#include "warpmodel/prediction.hpp"

namespace warpmodel::detail {

struct SerialTerms {
  double o_sync = 0, o_sfu = 0, o_cfdiv = 0, o_bank = 0;
};

// What a variant decides before the common equations run.
struct VariantInputs {
  double ilp = 1;           // eq 4.5 (gpuperf) or eq 4.26 (thesis)
  double delta = 1;         // departure delay: measured (gpuperf) or eq 4.25 (thesis)
  double avg_dram_lat = 0;  // eq 4.10 with that delta
  double amat = 0;          // eq 4.9 (gpuperf) or eq 4.24 (thesis)
  SerialTerms serial;       // eq 4.7 (gpuperf) or all zero, eq 4.23 (thesis)
};

// Occupancy for the launch, or ModelError when the block cannot run.
Occupancy checked_occupancy(const DeviceProfile& device, const KernelProfile& kernel);

// Evaluates eqs 4.1-4.22 into `p` (whose variant, occupancy and notes the caller has set).
void evaluate_mwp_cwp(const DeviceProfile& device, const KernelProfile& kernel, const VariantInputs& in,
                      Prediction& p);

// The ILP the profile states (the thesis substitutes a rounded one, eq 4.33), else eq 4.26 from
// #total_instructions / #basic_blocks when the profile has both; nothing otherwise.
std::optional<double> stated_or_eq_4_26_ilp(const KernelProfile& kernel);

// The case of Hong & Kim's three that a (MWP, CWP, N) triple falls in.
ModelCase classify(double mwp, double cwp, double n);

}  // namespace warpmodel::detail
