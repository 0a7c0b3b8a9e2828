// The harness: runs a plan on one GPU (each benchmark by its declared method), drops the warm-up
// repetition, subtracts the clock-read cost, reduces the repetitions to mean and GUM type-A
// uncertainty, applies the SASS check's verdicts (an invalid benchmark is reported, never measured)
// and returns plain reduced results (results.hpp). It prints nothing.
#pragma once

#include <functional>
#include <string>

#include "device_query.hpp"
#include "plan.hpp"
#include "results.hpp"

namespace warpmodel::ubench {

struct HarnessOptions {
  std::string self_exe;  // this program, for the SASS check (cuobjdump -sass)
  std::function<void(const std::string&)> log;  // progress lines
};

// Throws support::cuda::CudaError on a CUDA failure.
Results run_plan(const GpuInfo& gpu, const Plan& plan, const HarnessOptions& options);

}  // namespace warpmodel::ubench
