// The FWI's GPU variants (stencils/fwi, warpmodel_fwi_gpu) as a Workload: one gradient evaluation
// at setup, then one launch per distinct kernel of it (the step kernels at step nt / 2), each
// launched again alone (DeviceFwi::record_launches / replay).
#pragma once

#include <memory>

#include "warpmodel/cupti/workload.hpp"
#include "warpmodel/cupti/workload_factory.hpp"

namespace warpmodel::cupti {

// --variant (original, shared, fused, fused-cpml, dot-gpu, reorganised, gradient-on-the-fly,
// read-only, fast-math, a list or all; default original), --size NXxNZ (default the study's
// 210x68; nt 625, 5 shots, a 20-point CPML), --kernel-name (the study's names, a list; default
// every kernel). --block is the variant's own (refused). Throws std::invalid_argument.
std::unique_ptr<Workload> make_fwi_workload(const WorkloadRequest& request);

}  // namespace warpmodel::cupti
