// The ADI shallow-water solver (stencils/adi, warpmodel_adi_gpu) as a Workload: one launch per
// kernel of a step (build-x, solve-x, ..., in the solver's order), or one named kernel.
#pragma once

#include <memory>

#include "warpmodel/cupti/workload.hpp"
#include "warpmodel/cupti/workload_factory.hpp"

namespace warpmodel::cupti {

// --kernel-name (kernels of the step, a list; default all), --variant (thread-per-line,
// block-per-line, block-per-line/pcr, block-per-line/cr-pcr, a list or all; default thread-per-line),
// --precision (double, single; default double), --size N (N x N cells, default 1024). The launch
// geometry is the solver's own, so --block is refused. Throws std::invalid_argument.
std::unique_ptr<Workload> make_adi_workload(const WorkloadRequest& request);

}  // namespace warpmodel::cupti
