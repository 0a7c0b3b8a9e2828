// The GPU acoustic propagator: five memory variants of one time step, each for every
// spatial order (a template parameter), chosen at run time by (variant, order) from a table.
//
// Stable interface, read by the CUPTI profiling and the validation sweep:
//   - variants(), gpu_orders(), plan_block() ... (warpmodel/stencils/launch_plan.hpp): the names
//     and the geometry rules, no GPU needed;
//   - kernel_handle(): the __global__ function of a (variant, order[, depth, loader]) for
//     cudaFuncGetAttributes / cudaOccupancy* / matching CUPTI's kernel names;
//   - DevicePropagator: owns the device buffers; step() enqueues exactly ONE kernel launch (the
//     source is added inside the kernel), so profiling one step profiles one kernel.
//
// Layout on the device: x rows padded to a multiple of 32 floats (LaunchGeometry::pitch); the
// copies to and from the host convert. Three pressure buffers rotate (p(n-1), p(n), p(n+1)):
// the kernel reads p(n-1), p(n) and vel2 = (v dt / h)^2 and writes every point of p(n+1)
// (Dirichlet layers with 0): 16 bytes per point at least.
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "warpmodel/stencils/acoustic.hpp"
#include "warpmodel/stencils/launch_plan.hpp"

namespace warpmodel::stencils::gpu {

struct KernelHandle {
  const void* function = nullptr;  // the __global__ function (host stub)
  std::string name;                // readable, e.g. "intz_reg_tma_kernel<4, 2>" (radius, depth)
  std::string mangled_name;        // as the driver and CUPTI report it (cudaFuncGetName)
};

// Throws std::invalid_argument naming the valid choices. pipeline_depth 0 = the default.
KernelHandle kernel_handle(Variant variant, int order, int pipeline_depth = 0,
                           IntzRegLoader loader = IntzRegLoader::tma);
// Every instantiated kernel (variants x orders x intz-reg depths and loaders).
std::vector<KernelHandle> all_kernels();

// Device limits of the current device (cudaGetDeviceProperties).
DeviceLimits current_device_limits();

// The whole geometry of one launch on the current device: plan_block, then the occupancy of the
// chosen kernel (cudaOccupancyMaxActiveBlocksPerMultiprocessor) for the automatic z chunk.
LaunchGeometry plan_launch(const StencilLaunch& launch);
// Resident blocks per SM for this launch (registers, shared memory, threads).
int resident_blocks_per_sm(const StencilLaunch& launch);

class DevicePropagator {
 public:
  // setup: grid, order, dt (0 = 0.9 x the stability limit, see validated()), source; velocity
  // in m/s (logical layout, nx * ny * nz). launch.order and the sizes are taken from setup.
  DevicePropagator(const PropagationSetup& setup, const std::vector<float>& velocity, StencilLaunch launch);
  ~DevicePropagator();
  DevicePropagator(const DevicePropagator&) = delete;
  DevicePropagator& operator=(const DevicePropagator&) = delete;

  // Another variant, block, order, ... on the same grid and buffers. An order whose stability
  // limit the current dt exceeds is refused (std::invalid_argument).
  void relaunch(StencilLaunch launch);

  // Replaces p(n-1) and p(n) (logical layout); the step count stays.
  void set_fields(const std::vector<float>& previous, const std::vector<float>& current);

  // Enqueues one step (one kernel launch) on stream(); asynchronous.
  void step();
  // `steps` steps, then waits for the device.
  void run(int steps);
  void synchronize();

  // p(n), logical layout (waits for the device).
  std::vector<float> pressure() const;
  // Enqueues a copy of p(n) at (i, j, k) to `device_destination` (device memory, 4 bytes) on
  // stream(): a receiver trace without a host round trip per step.
  void sample_to(std::size_t i, std::size_t j, std::size_t k, float* device_destination);
  // Fills the buffer the next step writes with NaN (every byte 0xff): a point the kernel fails
  // to write stays NaN. For tests.
  void poison_next();

  int steps_done() const { return steps_; }
  const PropagationSetup& setup() const { return setup_; }
  const StencilLaunch& launch() const { return launch_; }
  const LaunchGeometry& geometry() const { return geometry_; }
  KernelHandle kernel() const;
  cudaStream_t stream() const { return stream_; }

 private:
  void upload(float* device, const std::vector<float>& host, const char* what);  // stream-ordered, waited for
  struct Impl;
  PropagationSetup setup_;
  std::vector<float> velocity_;
  StencilLaunch launch_;
  LaunchGeometry geometry_;
  int steps_ = 0;
  cudaStream_t stream_ = nullptr;
  std::unique_ptr<Impl> impl_;
};

// Times a device-to-device cudaMemcpyAsync of `bytes` bytes with CUDA events: the median of
// `repetitions` copies after one warm-up; returns seconds per copy. The copy bandwidth is
// 2 x bytes / seconds (read + write).
double time_device_copy_seconds(std::size_t bytes, int repetitions);

// run-stencil's loop: `steps` steps, each timed with CUDA events; after each, optionally the
// pressure at a receiver point (sampled on the device, downloaded once at the end) and, every
// `snapshot_every` steps, the whole field handed to `on_snapshot` (step number, logical layout).
struct ReceiverPoint {
  std::size_t i = 0, j = 0, k = 0;
};
struct RunOptions {
  int steps = 1;
  std::optional<ReceiverPoint> receiver;
  int snapshot_every = 0;  // 0: no snapshots
  std::function<void(int step, const std::vector<float>& pressure)> on_snapshot;
};
struct TimedRun {
  double kernel_seconds = 0;            // summed over the steps
  std::vector<float> receiver_samples;  // one per step, when a receiver was given
};
TimedRun run_timed(DevicePropagator& propagator, const RunOptions& options);

}  // namespace warpmodel::stencils::gpu
