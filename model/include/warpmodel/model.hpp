// The model engine's entry points: pick a variant by name, predict one launch.
#pragma once

#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

#include "warpmodel/device_profile.hpp"
#include "warpmodel/kernel_profile.hpp"
#include "warpmodel/prediction.hpp"

namespace warpmodel {

// A launch the model cannot evaluate (a block that does not fit on an SM, a missing latency a
// variant needs). The message names what is wrong and what to supply.
class ModelError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// hong-kim-2009: Hong & Kim, ISCA 2009 (Mem_L with coalesced/uncoalesced departure delays, three cases, #Rep).
Prediction predict_hong_kim_2009(const DeviceProfile& device, const KernelProfile& kernel);
// gpuperf-2012: Sim et al., PPoPP 2012, as the thesis restates it in eqs 4.1-4.22.
Prediction predict_gpuperf_2012(const DeviceProfile& device, const KernelProfile& kernel);
// thesis-2016: the seed thesis's adaptation (eqs 4.23-4.26) of gpuperf-2012.
Prediction predict_thesis_2016(const DeviceProfile& device, const KernelProfile& kernel);
// hopper: per-wave resource bounds from measured rates (hopper_equations.hpp, H.1-H.12), sm_80+.
Prediction predict_hopper(const DeviceProfile& device, const KernelProfile& kernel);

Prediction predict(ModelVariant variant, const DeviceProfile& device, const KernelProfile& kernel);

std::span<const ModelVariant> all_variants();
std::optional<ModelVariant> parse_variant(std::string_view name);
std::string variant_names();  // "hong-kim-2009, gpuperf-2012, thesis-2016, hopper"

}  // namespace warpmodel
