// What a GPU (or emulated) FWI run takes and returns: the study's fixed-step inversion
// (stencils/fwi/gpu/src/fwi_runner.hpp), in single precision. Plain C++.
#pragma once

#include <string>
#include <vector>

namespace warpmodel::fwi::gpu {

struct FwiRunOptions {
  int iterations = 10;
  double first_step = 100;  // m/s: the largest change of each step (k = first_step / max |mask g|)
  double v_min = 1400, v_max = 4000;
  int mute_rows = 4;
};

struct FwiRunResult {
  std::vector<double> misfit;  // E at the start and after each iteration (1/2 sum ||r||^2)
  std::vector<double> steps;   // k of each iteration
  std::vector<float> velocity; // the final model
  std::string stopped;         // empty, or why it stopped early
};

// The kernel time of one kernel name over a run (CUDA events around each launch).
struct KernelTiming {
  std::string name;
  long long calls = 0;
  double total_seconds = 0, mean_seconds = 0, median_seconds = 0;
};

// One kernel of a gradient evaluation, recorded for the profiler: launched again, alone.
struct RecordedLaunch {
  std::string name;                 // the study's name with the phase's suffix
  const void* function = nullptr;   // the kernel (host stub), for CUPTI's name and the SASS
};

}  // namespace warpmodel::fwi::gpu
