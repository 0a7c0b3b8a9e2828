// The FWI's GPU variants on the GPU (CUDA runtime, single precision): the study's phases as
// selectable variants (gpu_variants.hpp), one host code with the CPU emulation (fwi_runner.hpp).
// No CUDA types here: the program and the profiler include it.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "warpmodel/fwi/experiment.hpp"
#include "warpmodel/fwi/gpu/fwi_run.hpp"
#include "warpmodel/fwi/gpu_variants.hpp"

namespace warpmodel::fwi::gpu {

class DeviceFwi {
 public:
  // Throws std::invalid_argument (receivers not on consecutive columns) or support::cuda errors.
  DeviceFwi(const Experiment& s, GpuVariant variant);
  ~DeviceFwi();
  DeviceFwi(const DeviceFwi&) = delete;
  DeviceFwi& operator=(const DeviceFwi&) = delete;

  std::vector<std::vector<float>> model_data(const std::vector<float>& velocity);
  double misfit_and_gradient(const std::vector<float>& velocity, const std::vector<std::vector<float>>& observed,
                             std::vector<float>* gradient);
  FwiRunResult invert(const std::vector<float>& start, const std::vector<std::vector<float>>& observed,
                      const FwiRunOptions& options, const std::function<void(int, double)>& on_iteration = {});

  // CUDA events around every launch while on; kernel_timings() waits for the GPU and returns the
  // times since the last reset, by kernel name, largest total first.
  void time_kernels(bool on);
  std::vector<KernelTiming> kernel_timings();
  void reset_kernel_timings();

  // The profiler's workload: one gradient evaluation recording each distinct kernel once (step
  // kernels at step nt / 2); replay(i) launches recorded kernel i again, alone, asynchronously.
  std::vector<RecordedLaunch> record_launches(const std::vector<float>& velocity,
                                              const std::vector<std::vector<float>>& observed);
  void replay(std::size_t i);
  void synchronize();
  int launches() const;  // kernels launched so far
  long long peak_bytes() const;  // the most device memory its arrays held at once

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace warpmodel::fwi::gpu
