// Shared by bench_adi and bench_tridiagonal: CUDA event timing, medians, and the provenance that
// goes into the Google Benchmark JSON context (GPU, driver, runtime, clocks, commit, command).
#pragma once

#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "warpmodel/support/cuda.hpp"
#include "warpmodel/support/provenance.hpp"
#include "warpmodel/support/statistics.hpp"

namespace warpmodel::adi::bench {

using support::median;
using support::cuda::EventPair;

inline int device_attribute(cudaDeviceAttr a) {
  int v = 0, d = 0;
  cudaGetDevice(&d);
  cudaDeviceGetAttribute(&v, a, d);
  return v;
}

// Provenance into the JSON "context" object. Returns false (and prints one line) without a GPU.
inline bool add_gpu_context(int argc, char** argv) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) return false;
  cudaDeviceProp p{};
  support::cuda::check(cudaGetDeviceProperties(&p, 0), "cudaGetDeviceProperties");
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  benchmark::AddCustomContext("gpu_name", p.name);
  benchmark::AddCustomContext("gpu_sm_count", std::to_string(p.multiProcessorCount));
  benchmark::AddCustomContext("gpu_max_sm_clock_mhz", std::to_string(device_attribute(cudaDevAttrClockRate) / 1000));
  benchmark::AddCustomContext("gpu_memory_clock_mhz", std::to_string(device_attribute(cudaDevAttrMemoryClockRate) / 1000));
  benchmark::AddCustomContext("gpu_l2_bytes", std::to_string(p.l2CacheSize));
  benchmark::AddCustomContext("cuda_driver_version", std::to_string(driver));
  benchmark::AddCustomContext("cuda_runtime_version", std::to_string(runtime));
  if (const char* c = std::getenv("WARPMODEL_GIT_COMMIT")) benchmark::AddCustomContext("git_commit", c);
  if (const char* c = std::getenv("WARPMODEL_SM_CLOCK")) benchmark::AddCustomContext("nvidia_smi_clocks", c);
  benchmark::AddCustomContext("command", support::command_line(argc, argv));
  return true;
}

}  // namespace warpmodel::adi::bench
