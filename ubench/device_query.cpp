#include "device_query.hpp"

#include <stdexcept>

#include <cuda_runtime_api.h>

#include "warpmodel/support/cuda.hpp"

namespace warpmodel::ubench {
namespace {

int attribute(cudaDeviceAttr attr, int device) {
  int value = 0;
  if (cudaDeviceGetAttribute(&value, attr, device) != cudaSuccess) return 0;
  return value;
}

}  // namespace

std::vector<GpuInfo> query_gpus() {
  const int count = support::cuda::require_gpu();
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  std::vector<GpuInfo> gpus;
  for (int d = 0; d < count; ++d) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, d) != cudaSuccess) continue;
    GpuInfo g;
    g.index = d;
    g.name = prop.name;
    g.cc_major = prop.major;
    g.cc_minor = prop.minor;
    g.sm_count = prop.multiProcessorCount;
    g.sm_clock_mhz = attribute(cudaDevAttrClockRate, d) / 1000.0;
    g.memory_clock_mhz = attribute(cudaDevAttrMemoryClockRate, d) / 1000.0;
    g.memory_bus_width_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, d);
    g.mem_peak_bandwidth_gbs = 2.0 * g.memory_clock_mhz * 1e6 * (g.memory_bus_width_bits / 8.0) / 1e9;
    g.global_memory_bytes = static_cast<long long>(prop.totalGlobalMem);
    g.l2_cache_bytes = prop.l2CacheSize;
    g.shared_memory_per_sm_bytes = static_cast<int>(prop.sharedMemPerMultiprocessor);
    g.registers_per_sm = prop.regsPerMultiprocessor;
    g.max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
    g.max_blocks_per_sm = prop.maxBlocksPerMultiProcessor;
    g.warp_size = prop.warpSize;
    g.driver_version = driver;
    g.runtime_version = runtime;
    gpus.push_back(g);
  }
  if (gpus.empty()) throw support::cuda::NoGpuError("no CUDA GPU could be queried; check the driver (nvidia-smi)");
  return gpus;
}

}  // namespace warpmodel::ubench
