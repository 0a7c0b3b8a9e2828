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

namespace warpmodel::adi::bench {

inline void cuda_check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

// A pair of events recorded around GPU work; elapsed_seconds() waits for the stop event.
class EventPair {
 public:
  EventPair() {
    cuda_check(cudaEventCreate(&start_), "cudaEventCreate");
    cuda_check(cudaEventCreate(&stop_), "cudaEventCreate");
  }
  ~EventPair() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
  void start(cudaStream_t s) { cuda_check(cudaEventRecord(start_, s), "cudaEventRecord"); }
  void stop(cudaStream_t s) { cuda_check(cudaEventRecord(stop_, s), "cudaEventRecord"); }
  double elapsed_seconds() {
    cuda_check(cudaEventSynchronize(stop_), "cudaEventSynchronize");
    float ms = 0;
    cuda_check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
    return ms * 1e-3;
  }

 private:
  cudaEvent_t start_{}, stop_{};
};

inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

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
  cuda_check(cudaGetDeviceProperties(&p, 0), "cudaGetDeviceProperties");
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
  std::string command;
  for (int i = 0; i < argc; ++i) {
    if (i > 0) command += ' ';
    command.append(argv[i]);
  }
  benchmark::AddCustomContext("command", command);
  return true;
}

}  // namespace warpmodel::adi::bench
