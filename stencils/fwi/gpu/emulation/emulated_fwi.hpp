// The FWI's GPU variants with their kernels run by the CPU emulation of blocks and barriers
// (stencils/gpu/emulation/emulator.hpp): the same kernel source, launch sequence, buffer rotation
// and film indexing as DeviceFwi (device_fwi.hpp), on host memory. CI checks every variant against
// the double-precision CPU reference with it. Slow (every thread of a block with a barrier is a
// fiber): small grids only.
#pragma once

#include <memory>
#include <vector>

#include "warpmodel/fwi/experiment.hpp"
#include "warpmodel/fwi/gpu/fwi_run.hpp"
#include "warpmodel/fwi/gpu_variants.hpp"

namespace warpmodel::fwi::gpu {

class EmulatedFwi {
 public:
  EmulatedFwi(const Experiment& s, GpuVariant variant);
  ~EmulatedFwi();
  EmulatedFwi(const EmulatedFwi&) = delete;
  EmulatedFwi& operator=(const EmulatedFwi&) = delete;

  // Every shot's gather, [shot][n R + r] = P^{n+1} at receiver r.
  std::vector<std::vector<float>> model_data(const std::vector<float>& velocity);
  // 1/2 sum ||r||^2, and dE/dc over the shots into `gradient` when given.
  double misfit_and_gradient(const std::vector<float>& velocity, const std::vector<std::vector<float>>& observed,
                             std::vector<float>* gradient);
  FwiRunResult invert(const std::vector<float>& start, const std::vector<std::vector<float>>& observed,
                      const FwiRunOptions& options);
  // The kernels of one gradient evaluation, each recorded once and launched again (the profiler's
  // workload does this on the GPU).
  std::vector<RecordedLaunch> record_and_replay(const std::vector<float>& velocity,
                                                const std::vector<std::vector<float>>& observed);
  int launches() const;  // kernels launched so far
  long long peak_bytes() const;  // the most device memory its arrays held at once

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace warpmodel::fwi::gpu
