// What `warpmodel profile` runs: a small interface over "set up buffers, launch one kernel, put
// the inputs back". The profiler drives it; each kernel family adapts to it (builtin_workloads.hpp
// for the test kernels, stencil_workload.hpp, adi_workload.hpp).
//
// Contract:
//  - setup() is called once, on the current CUDA device, before anything else; launch_count()
//    and launch_label() may depend on it.
//  - launch(i) launches exactly one kernel (asynchronously, on any stream of the device); the profiler
//    counts on it: one launch = one profiled range. A launch that starts more kernels overflows
//    the configured ranges and the profile is refused (RangeOverflowError), never truncated.
//  - restore_inputs() puts every buffer a launch reads back to its state after setup(). The profiler
//    calls it before every timed run and before every user-replay pass, so an in-place kernel sees
//    the same inputs in every pass. (Kernel replay saves and restores device memory itself.)
#pragma once

#include <cstddef>
#include <string>

namespace warpmodel::cupti {

class Workload {
 public:
  virtual ~Workload() = default;
  // One line naming what runs, e.g. "stencil order=4 variant=smem size=512x512x512 block=32x8".
  virtual std::string description() const = 0;
  virtual void setup() = 0;
  virtual std::size_t launch_count() const = 0;
  // The name of launch i, e.g. "solve-x" (used for user ranges and in the outputs).
  virtual std::string launch_label(std::size_t i) const = 0;
  virtual void launch(std::size_t i) = 0;
  virtual void restore_inputs() = 0;
  // Checks the outputs after the last run, given that every run started from restored inputs;
  // returns "" when they are right, else what is wrong. Default: nothing to check.
  virtual std::string verify() { return ""; }
};

}  // namespace warpmodel::cupti
