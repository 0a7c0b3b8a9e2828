// What the CUDA runtime says about the GPUs present. Plain C++ interface; the CUDA runtime is
// linked statically, so a machine without a driver gets a clear "no GPU" instead of a loader error.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace warpmodel::ubench {

struct GpuInfo {
  int index = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  double sm_clock_mhz = 0;        // maximum SM clock the runtime reports
  double memory_clock_mhz = 0;
  int memory_bus_width_bits = 0;
  double mem_peak_bandwidth_gbs = 0;  // 2 x memory clock x bus width (DDR)
  long long global_memory_bytes = 0;
  int l2_cache_bytes = 0;
  int shared_memory_per_sm_bytes = 0;
  int registers_per_sm = 0;
  int max_threads_per_sm = 0;
  int max_blocks_per_sm = 0;
  int warp_size = 0;
  int driver_version = 0;   // e.g. 13000
  int runtime_version = 0;
};

// All GPUs, or support::cuda::NoGpuError (no driver, an old driver, no device: one line saying which).
std::vector<GpuInfo> query_gpus();

}  // namespace warpmodel::ubench
