// The CUDA runtime the same way everywhere: one error type per failure kind, one check, one
// "is there a GPU" answer with a message a user can act on, RAII device buffers, streams and event
// pairs. Compiled by the host compiler or nvcc; links the CUDA runtime (statically in this project,
// so a program starts, and says "no NVIDIA driver", on a machine without one).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace warpmodel::support::cuda {

// A CUDA runtime call failed; what() names the call and the runtime's message.
struct CudaError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// No usable GPU: no NVIDIA driver, a driver older than the runtime, or no device. what() is one
// line saying which and what to do.
struct NoGpuError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Throws CudaError("what: <runtime message>") unless e is cudaSuccess.
void check(cudaError_t e, const char* what);
inline void check(cudaError_t e, const std::string& what) { check(e, what.c_str()); }
// After a kernel launch: the launch's own error (bad configuration, too many resources).
void check_launch(const char* kernel);

// The message for a runtime that found no GPU, from its error (cudaSuccess: "0 devices").
// Distinguishes a missing driver (libcuda.so.1 cannot be loaded) from an old one.
std::string no_gpu_message(cudaError_t e);

// The number of CUDA devices (>= 1), or NoGpuError.
int require_gpu();

// The name the driver gives device `device` ("NVIDIA H200"), or NoGpuError.
std::string device_name(int device = 0);

// A driver function through the runtime's entry point (the runtime is static and the program does
// not link libcuda), as the driver of at least CUDA `version` (12000: 12.0) defines it; CudaError
// naming it when the driver has none. Cast it to the function's PFN type (cudaTypedefs.h).
void* driver_entry_point(const char* symbol, int version);

// cudaMalloc'd memory for `count` elements of T, freed on destruction; moves, does not copy.
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count) check(cudaMalloc(reinterpret_cast<void**>(&data_), count * sizeof(T)), "cudaMalloc");
  }
  ~DeviceBuffer() {
    if (data_) cudaFree(data_);
  }
  DeviceBuffer(DeviceBuffer&& o) noexcept : data_(o.data_), count_(o.count_) { o.data_ = nullptr, o.count_ = 0; }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      if (data_) cudaFree(data_);
      data_ = o.data_, count_ = o.count_;
      o.data_ = nullptr, o.count_ = 0;
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* data() const { return data_; }
  // The memory viewed as another element type (a byte buffer holding float or double data).
  template <class U>
  U* as() const {
    return reinterpret_cast<U*>(data_);
  }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

  // Stream-ordered copies (the stream is synchronised by the download, so the host vector is ready).
  void upload(const std::vector<T>& host, cudaStream_t stream = nullptr) {
    if (host.size() != count_) throw std::invalid_argument("DeviceBuffer::upload: size mismatch");
    check(cudaMemcpyAsync(data_, host.data(), bytes(), cudaMemcpyHostToDevice, stream), "cudaMemcpyAsync (upload)");
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (upload)");
  }
  std::vector<T> download(cudaStream_t stream = nullptr) const {
    std::vector<T> host(count_);
    check(cudaMemcpyAsync(host.data(), data_, bytes(), cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync (download)");
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (download)");
    return host;
  }
  // Every byte set to `byte` (0xFF poisons floats with NaN).
  void fill_bytes(int byte, cudaStream_t stream = nullptr) {
    check(cudaMemsetAsync(data_, byte, bytes(), stream), "cudaMemsetAsync");
  }

 private:
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

// A non-blocking stream, destroyed with its owner.
class Stream {
 public:
  Stream();
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return stream_; }
  void synchronize() const;

 private:
  cudaStream_t stream_ = nullptr;
};

// Two events recorded around GPU work; elapsed_seconds() waits for the stop event.
class EventPair {
 public:
  EventPair();
  ~EventPair();
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
  void start(cudaStream_t stream = nullptr);
  void stop(cudaStream_t stream = nullptr);
  double elapsed_seconds();

 private:
  cudaEvent_t start_{}, stop_{};
};

}  // namespace warpmodel::support::cuda
