#include "warpmodel/model.hpp"

#include <array>
#include <cmath>
#include <sstream>

namespace warpmodel {

namespace {
constexpr std::array kVariants = {ModelVariant::HongKim2009, ModelVariant::GpuPerf2012, ModelVariant::Thesis2016,
                                  ModelVariant::Hopper};
}

std::string_view to_string(ModelVariant v) {
  switch (v) {
    case ModelVariant::HongKim2009: return "hong-kim-2009";
    case ModelVariant::GpuPerf2012: return "gpuperf-2012";
    case ModelVariant::Thesis2016: return "thesis-2016";
    case ModelVariant::Hopper: return "hopper";
  }
  return "?";
}

std::string_view to_string(ModelCase c) {
  switch (c) {
    case ModelCase::MemoryBound: return "memory-bound (MWP < CWP)";
    case ModelCase::ComputeBound: return "compute-bound (MWP >= CWP)";
    case ModelCase::NotEnoughWarps: return "not enough warps (MWP = CWP = N)";
  }
  return "?";
}

std::string_view to_string(OccupancyLimiter l) {
  switch (l) {
    case OccupancyLimiter::Warps: return "warps";
    case OccupancyLimiter::Blocks: return "blocks";
    case OccupancyLimiter::Registers: return "registers";
    case OccupancyLimiter::SharedMemory: return "shared-memory";
    case OccupancyLimiter::Grid: return "grid";
    case OccupancyLimiter::Forced: return "forced";
  }
  return "?";
}

namespace {
Prediction predict_variant(ModelVariant variant, const DeviceProfile& device, const KernelProfile& kernel) {
  switch (variant) {
    case ModelVariant::HongKim2009: return predict_hong_kim_2009(device, kernel);
    case ModelVariant::GpuPerf2012: return predict_gpuperf_2012(device, kernel);
    case ModelVariant::Thesis2016: return predict_thesis_2016(device, kernel);
    case ModelVariant::Hopper: return predict_hopper(device, kernel);
  }
  throw ModelError("unknown model variant");
}
}  // namespace

Prediction predict(ModelVariant variant, const DeviceProfile& device, const KernelProfile& kernel) {
  Prediction p = predict_variant(variant, device, kernel);
  // The readers keep every input in its plausible range (input_ranges.hpp), which keeps the time
  // finite; a time that is not finite and >= 0 still is never printed as one.
  if (!std::isfinite(p.cycles) || !std::isfinite(p.seconds) || p.cycles < 0 || p.seconds < 0) {
    std::ostringstream why;
    why << to_string(variant) << ": the inputs give no usable time (" << p.cycles
        << " cycles): check the device's and the kernel's values (device " << device.name << ", kernel " << kernel.name
        << ")";
    throw ModelError(why.str());
  }
  return p;
}

std::span<const ModelVariant> all_variants() { return kVariants; }

std::optional<ModelVariant> parse_variant(std::string_view name) {
  for (ModelVariant v : kVariants)
    if (to_string(v) == name) return v;
  return std::nullopt;
}

std::string variant_names() {
  std::string out;
  for (ModelVariant v : kVariants) out += (out.empty() ? "" : ", ") + std::string(to_string(v));
  return out;
}

}  // namespace warpmodel
