// The 3D acoustic stencil (stencils/gpu, warpmodel_stencils_gpu) as a Workload: one launch = one
// time step = one kernel (DevicePropagator::step()).
#pragma once

#include <memory>

#include "warpmodel/cupti/workload.hpp"
#include "warpmodel/cupti/workload_factory.hpp"

namespace warpmodel::cupti {

// --order (2..16, a list or all; default 8), --variant (naive, readonly, shared, intz, intz-reg,
// intz-reg/cp-async, a list or all; default intz-reg): one launch per (variant, order), each a
// propagator of its own;
// --size N or NXxNYxNZ (default 256), --block (default the family's 32x4). Throws
// std::invalid_argument naming the bad option.
std::unique_ptr<Workload> make_stencil_workload(const WorkloadRequest& request);

}  // namespace warpmodel::cupti
