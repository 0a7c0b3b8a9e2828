// predict-app's guardrails: what a launch's SASS and shape say about the sweep's assumptions (the
// launch's work conserved, the grid re-derived from grid x block, the block free to change, shared
// memory fixed per block). Each detector reads the kernel's static analysis (analysis.hpp) and the
// profiled launch, and returns a note for the row when its assumption does not hold; docs/your-kernels.md
// "Guardrails" lists them.
//
//   detector                    reads                                              the sweep then
//   fixed_block_size            a template integer argument equal to the block      recommends nothing
//                               size (reduce<256> at 256 threads), .reqntid
//   launch_bounds               __launch_bounds__ / .maxntid                       tries shapes within it
//   unused_block_dimension      block.y (z) > 1 and no read of tid.y (z)          recommends nothing
//   grid_not_from_block         a read of nctaid (gridDim: a grid-stride loop), or keeps the profiled grid
//                               no read of ctaid (blockIdx: every block alike)
//   block_sized_shared_memory   dynamic shared memory a whole multiple of the     gives each shape that
//                               block's threads                                   many bytes per thread
//   gpu_mismatch                the profile's GPU against the device profile's    (a warning, no change)
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "warpmodel/device_profile.hpp"
#include "warpmodel/kernel_profile.hpp"
#include "warpmodel/sass/analysis.hpp"
#include "warpmodel/sweep.hpp"

namespace warpmodel::sass {

struct Guardrail {
  std::string kind;  // the detector: "fixed_block_size", "launch_bounds", ...
  std::string note;  // one clause for the row
  // Why the sweep's pick is withheld ("" when it is not): the best-block cell reads
  // "not recommended: <this>".
  std::string withholds;
};

// The integer template arguments of a mangled name, in order: _ZN11app_example17reduce_sum_kernelILi256EEEvPKiPix
// -> {256} (literals L<type><digits>E of the integer types; negative ones, Ln, are skipped).
std::vector<long long> template_integer_arguments(const std::string& mangled);

std::optional<Guardrail> fixed_block_size(const KernelStatics& k, const Dim3& block);
std::optional<Guardrail> launch_bounds(const KernelStatics& k, const Dim3& block);
std::optional<Guardrail> unused_block_dimension(const KernelStatics& k, const Dim3& block);
std::optional<Guardrail> grid_not_from_block(const KernelStatics& k, const Dim3& grid);
// `shared_per_block`: the launch's shared memory per block (static + dynamic), as profiled.
std::optional<Guardrail> block_sized_shared_memory(const KernelStatics& k, const Dim3& block,
                                                   std::optional<int> shared_per_block);

// The kernel's own static shared memory per block: res-usage's SHARED less the 1 KiB ptxas counts
// there for the system's use on sm_80 and later (a kernel without __shared__ shows SHARED:1024 on
// sm_90), which the profiles' shared_memory_per_block_bytes do not include.
int static_shared_bytes(const KernelStatics& k);

// Every detector above for one launch, in that order.
std::vector<Guardrail> launch_guardrails(const KernelStatics& k, const Dim3& grid, const Dim3& block,
                                         std::optional<int> shared_per_block);

// The sweep options the guardrails imply for a launch (keep the grid, shared memory per thread,
// the launch bounds).
SweepOptions sweep_options_for(const KernelStatics& k, const Dim3& grid, const Dim3& block,
                               std::optional<int> shared_per_block);

// The GPU a profile was measured on: its "device"."name", else "provenance"."gpu" ("" when neither).
std::string profile_gpu_name(const nlohmann::json& profile);
// The GPU a device profile describes: provenance "gpu", else its name without a " (...)" suffix.
std::string device_gpu_name(const DeviceProfile& device);
// The warning when the two differ (names compared without case and surrounding spaces); "" when
// they agree or either is unknown.
std::string gpu_mismatch_warning(const std::string& profile_gpu, const std::string& device_gpu);

}  // namespace warpmodel::sass
