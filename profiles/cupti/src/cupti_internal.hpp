// Shared plumbing of the CUPTI sources (not installed): error checks, the host object, the CUDA
// context, the one-time profiler initialisation, and the Activity API kernel timer.
#pragma once

#include <cuda.h>
#include <cupti.h>
#include <cupti_profiler_host.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace warpmodel::cupti::detail {

// A CUPTI parameter struct, zeroed, with its size set (what CUPTI checks to know the caller's version).
template <class Params>
Params make_params(std::size_t struct_size) {
  Params p{};
  p.structSize = struct_size;
  return p;
}

// Throws the mapped error (profiler.hpp throw_cupti_error) unless r is CUPTI_SUCCESS.
void check(CUptiResult r, const char* call);

struct HostObjectDeleter {
  void operator()(CUpti_Profiler_Host_Object* p) const;
};
using HostObject = std::unique_ptr<CUpti_Profiler_Host_Object, HostObjectDeleter>;
HostObject make_host_object(const std::string& chip, const std::vector<std::uint8_t>& availability);
std::vector<std::uint8_t> config_image(CUpti_Profiler_Host_Object* host, const std::vector<std::string>& metrics,
                                       std::size_t* passes);

// Makes `device` current (primary context) and returns its CUcontext. The driver's cuCtxGetCurrent
// is reached through the runtime (cudaGetDriverEntryPointByVersion), so nothing links libcuda and
// the program still starts on a machine without a driver. Throws support::cuda::NoGpuError.
CUcontext current_context(int device);

// cuptiProfilerInitialize once per process (CUPTI reference-counts it; we never need to undo it
// before exit). Constructing it is idempotent.
struct ProfilerInitialization {
  ProfilerInitialization();
};

// One kernel execution as the Activity API saw it.
struct KernelActivity {
  std::uint64_t external_id = 0;  // the id pushed around the launch; 0 = none
  std::uint32_t correlation_id = 0;
  std::string name;               // mangled
  std::uint64_t start_ns = 0, end_ns = 0;
  int grid[3] = {0, 0, 0}, block[3] = {0, 0, 0};
  int cluster[3] = {0, 0, 0};  // blocks of a thread-block cluster; 0 (or 1) without clusters
  int registers_per_thread = 0;
  long long static_shared_bytes = 0, dynamic_shared_bytes = 0;
};

// Records kernel executions while alive: enables CONCURRENT_KERNEL, RUNTIME (external correlation
// records are emitted for API records) and EXTERNAL_CORRELATION, disables them when destroyed.
// CUPTI's buffer callbacks take no user pointer, so the records land in one process-wide store;
// only one KernelTimer may exist at a time.
class KernelTimer {
 public:
  KernelTimer();
  ~KernelTimer();
  KernelTimer(const KernelTimer&) = delete;
  KernelTimer& operator=(const KernelTimer&) = delete;
  // Tags the API calls made until pop() with `id` (> 0).
  void push(std::uint64_t id);
  void pop();
  // Synchronises, flushes CUPTI's buffers and returns the kernels seen so far, each with the
  // external id of the launch that started it (0 if none was pushed).
  std::vector<KernelActivity> collect();
};

}  // namespace warpmodel::cupti::detail
