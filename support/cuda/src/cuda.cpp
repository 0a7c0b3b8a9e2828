#include "warpmodel/support/cuda.hpp"

#include <dlfcn.h>

namespace warpmodel::support::cuda {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw CudaError(std::string(what) + ": " + cudaGetErrorString(e));
}

void check_launch(const char* kernel) { check(cudaGetLastError(), std::string("launch of ") + kernel); }

namespace {
// Whether the driver library can be loaded at all (the runtime reports a missing driver as
// "CUDA driver version is insufficient", which reads like an old driver).
bool driver_library_present() {
  void* handle = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (!handle) return false;
  dlclose(handle);
  return true;
}
}  // namespace

std::string no_gpu_message(cudaError_t e) {
  if (e == cudaSuccess) return "no CUDA GPU found (the runtime reports 0 devices); this subcommand needs an NVIDIA GPU";
  if ((e == cudaErrorInsufficientDriver || e == cudaErrorNoDevice) && !driver_library_present())
    return "no NVIDIA driver found (libcuda.so.1 cannot be loaded); this subcommand needs an NVIDIA GPU and its "
           "driver (nvidia-smi should list the GPU)";
  if (e == cudaErrorInsufficientDriver)
    return std::string("the NVIDIA driver is older than this program's CUDA runtime (") + cudaGetErrorString(e) +
           "); install a driver for CUDA 13 or newer";
  return std::string("no CUDA GPU found (") + cudaGetErrorString(e) +
         "); this subcommand needs an NVIDIA GPU and its driver (check nvidia-smi)";
}

int require_gpu() {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) throw NoGpuError(no_gpu_message(e));
  return count;
}

std::string device_name(int device) {
  require_gpu();
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  return prop.name;
}

void* driver_entry_point(const char* symbol, int version) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult found{};
  check(cudaGetDriverEntryPointByVersion(symbol, &p, static_cast<unsigned>(version), cudaEnableDefault, &found),
        std::string("cudaGetDriverEntryPointByVersion(") + symbol + ")");
  if (found != cudaDriverEntryPointSuccess || !p)
    throw CudaError(std::string("the driver has no ") + symbol + " (CUDA " + std::to_string(version / 1000) + "." +
                    std::to_string(version % 1000 / 10) + " or later needed)");
  return p;
}

Stream::Stream() { check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreateWithFlags"); }
Stream::~Stream() {
  if (stream_) cudaStreamDestroy(stream_);
}
void Stream::synchronize() const { check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize"); }

EventPair::EventPair() {
  check(cudaEventCreate(&start_), "cudaEventCreate");
  check(cudaEventCreate(&stop_), "cudaEventCreate");
}
EventPair::~EventPair() {
  cudaEventDestroy(start_);
  cudaEventDestroy(stop_);
}
void EventPair::start(cudaStream_t s) { check(cudaEventRecord(start_, s), "cudaEventRecord"); }
void EventPair::stop(cudaStream_t s) { check(cudaEventRecord(stop_, s), "cudaEventRecord"); }
double EventPair::elapsed_seconds() {
  check(cudaEventSynchronize(stop_), "cudaEventSynchronize");
  float ms = 0;
  check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
  return ms * 1e-3;
}

}  // namespace warpmodel::support::cuda
