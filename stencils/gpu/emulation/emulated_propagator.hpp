// The propagator of propagator.hpp with its kernels run by the CPU emulation (emulator.hpp): the
// same kernel source, launch geometry, argument and buffer rotation as DevicePropagator, on host
// memory. CI checks every variant and order against the double-precision reference with it.
#pragma once

#include <vector>

#include "warpmodel/stencils/acoustic.hpp"
#include "warpmodel/stencils/launch_plan.hpp"

namespace warpmodel::stencils::gpu {

class EmulatedPropagator {
 public:
  // The occupancy that the automatic z chunk would read off a GPU is given here.
  EmulatedPropagator(const PropagationSetup& setup, const std::vector<float>& velocity, StencilLaunch launch,
                     const DeviceLimits& limits = {}, int resident_blocks_per_sm = 2);
  ~EmulatedPropagator();
  EmulatedPropagator(const EmulatedPropagator&) = delete;
  EmulatedPropagator& operator=(const EmulatedPropagator&) = delete;

  // Replaces p(n-1) and p(n) (logical layout); the step count stays.
  void set_fields(const std::vector<float>& previous, const std::vector<float>& current);
  void step();
  void run(int steps) {
    for (int n = 0; n < steps; ++n) step();
  }
  std::vector<float> pressure() const;
  void poison_next();  // the buffer the next step writes: all NaN
  int steps_done() const { return steps_; }
  const LaunchGeometry& geometry() const { return geometry_; }
  const PropagationSetup& setup() const { return setup_; }
  unsigned shuffle_seed = 1;  // order of the fibers between barriers

 private:
  PropagationSetup setup_;
  std::vector<float> velocity_;
  StencilLaunch launch_;
  LaunchGeometry geometry_;
  std::vector<float> pressure_[3], vel2_;
  int prev_ = 0, cur_ = 1, next_ = 2;
  int steps_ = 0;
};

}  // namespace warpmodel::stencils::gpu
