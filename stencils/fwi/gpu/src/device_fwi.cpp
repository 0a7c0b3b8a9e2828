#include "warpmodel/fwi/gpu/device_fwi.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <map>

#include "fwi_runner.hpp"
#include "warpmodel/support/cuda.hpp"
#include "warpmodel/support/statistics.hpp"

namespace warpmodel::fwi::gpu {

// One per translation unit of kernels (kernels_fwi.cu, kernels_fwi_fast_math.cu).
KernelSet cuda_kernel_set(const GpuVariantInfo& info);
KernelSet cuda_kernel_set_fast_math(const GpuVariantInfo& info);

namespace {

using support::cuda::check;

// The CUDA runtime behind the runner: one non-blocking stream; synchronize() is the study's
// cudaDeviceSynchronize.
class CudaBackend {
 public:
  CudaBackend() { check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreateWithFlags"); }
  ~CudaBackend() {
    cudaStreamSynchronize(stream_);
    for (cudaEvent_t e : events_) cudaEventDestroy(e);
    cudaStreamDestroy(stream_);
  }
  CudaBackend(const CudaBackend&) = delete;
  CudaBackend& operator=(const CudaBackend&) = delete;

  float* alloc(long long n) {
    void* p = nullptr;
    check(cudaMalloc(&p, static_cast<std::size_t>(n) * sizeof(float)), "cudaMalloc");
    check(cudaMemsetAsync(p, 0, static_cast<std::size_t>(n) * sizeof(float), stream_), "cudaMemsetAsync");
    return static_cast<float*>(p);
  }
  void release(float* p) {
    check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
    check(cudaFree(p), "cudaFree");
  }
  void zero(float* p, long long n) {
    check(cudaMemsetAsync(p, 0, static_cast<std::size_t>(n) * sizeof(float), stream_), "cudaMemsetAsync");
  }
  void upload(float* device, const float* host, std::size_t n) {
    check(cudaMemcpyAsync(device, host, n * sizeof(float), cudaMemcpyHostToDevice, stream_), "cudaMemcpyAsync (upload)");
    check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (upload)");
  }
  void download(float* host, const float* device, std::size_t n) {
    check(cudaMemcpyAsync(host, device, n * sizeof(float), cudaMemcpyDeviceToHost, stream_), "cudaMemcpyAsync (download)");
    check(cudaStreamSynchronize(stream_), "kernel execution or download (cudaStreamSynchronize)");
  }
  template <class Fn, class P>
  void launch(const KernelRef<Fn>& k, const Shape& s, const P& params) {
    P copy = params;
    void* args[] = {&copy};
    std::size_t first = 0;
    if (timing_) {
      first = next_event_;
      record(first);
    }
    check(cudaLaunchKernel(k.function(), dim3(s.grid_x, s.grid_y, 1), dim3(s.block_x, s.block_y, 1), args,
                           s.shared_bytes, stream_),
          "cudaLaunchKernel (" + k.name + ")");
    if (timing_) {
      record(first + 1);
      pending_.push_back({k.name, first});
    }
  }
  void synchronize() {
    check(cudaDeviceSynchronize(), "kernel execution (cudaDeviceSynchronize)");
    check(cudaGetLastError(), "kernel execution");
  }

  void time_kernels(bool on) { timing_ = on; }
  std::vector<KernelTiming> timings() {
    synchronize();
    std::map<std::string, std::vector<double>> by_name;
    for (const auto& p : pending_) {
      float ms = 0;
      check(cudaEventElapsedTime(&ms, events_[p.first_event], events_[p.first_event + 1]), "cudaEventElapsedTime");
      by_name[p.name].push_back(ms * 1e-3);
    }
    std::vector<KernelTiming> out;
    for (auto& [name, seconds] : by_name) {
      KernelTiming t;
      t.name = name;
      t.calls = static_cast<long long>(seconds.size());
      for (double x : seconds) t.total_seconds += x;
      t.mean_seconds = t.total_seconds / double(t.calls);
      t.median_seconds = support::median(seconds);
      out.push_back(t);
    }
    std::sort(out.begin(), out.end(), [](const KernelTiming& a, const KernelTiming& b) { return a.total_seconds > b.total_seconds; });
    return out;
  }
  void reset_timings() {
    synchronize();
    pending_.clear();
    next_event_ = 0;
  }

 private:
  void record(std::size_t index) {
    while (events_.size() <= index) {
      cudaEvent_t e{};
      check(cudaEventCreate(&e), "cudaEventCreate");
      events_.push_back(e);
    }
    check(cudaEventRecord(events_[index], stream_), "cudaEventRecord");
    next_event_ = std::max(next_event_, index + 1);
  }
  struct Pending {
    std::string name;
    std::size_t first_event;
  };
  cudaStream_t stream_ = nullptr;
  bool timing_ = false;
  std::vector<cudaEvent_t> events_;
  std::size_t next_event_ = 0;
  std::vector<Pending> pending_;
};

KernelSet kernel_set(const GpuVariantInfo& info) {
  return info.fast_math ? cuda_kernel_set_fast_math(info) : cuda_kernel_set(info);
}

}  // namespace

struct DeviceFwi::Impl {
  Impl(const Experiment& s, GpuVariant v) : info(gpu_variant_info(v)), runner(backend, s, info, kernel_set(info)) {}
  CudaBackend backend;
  GpuVariantInfo info;
  FwiRunner<CudaBackend> runner;
  std::vector<std::function<void()>> replays;
};

DeviceFwi::DeviceFwi(const Experiment& s, GpuVariant v) {
  support::cuda::require_gpu();
  impl_ = std::make_unique<Impl>(s, v);
}
DeviceFwi::~DeviceFwi() = default;

std::vector<std::vector<float>> DeviceFwi::model_data(const std::vector<float>& velocity) {
  return impl_->runner.model_data(velocity);
}

double DeviceFwi::misfit_and_gradient(const std::vector<float>& velocity, const std::vector<std::vector<float>>& observed,
                                      std::vector<float>* gradient) {
  return impl_->runner.misfit_and_gradient(velocity, observed, gradient);
}

FwiRunResult DeviceFwi::invert(const std::vector<float>& start, const std::vector<std::vector<float>>& observed,
                               const FwiRunOptions& options, const std::function<void(int, double)>& on_iteration) {
  return impl_->runner.invert(start, observed, options, on_iteration);
}

void DeviceFwi::time_kernels(bool on) { impl_->backend.time_kernels(on); }
std::vector<KernelTiming> DeviceFwi::kernel_timings() { return impl_->backend.timings(); }
void DeviceFwi::reset_kernel_timings() { impl_->backend.reset_timings(); }

std::vector<RecordedLaunch> DeviceFwi::record_launches(const std::vector<float>& velocity,
                                                      const std::vector<std::vector<float>>& observed) {
  std::vector<RecordedLaunch> out;
  impl_->replays.clear();
  for (const auto& r : impl_->runner.record_launches(velocity, observed)) {
    out.push_back({r.name, r.function});
    impl_->replays.push_back(r.launch);
  }
  return out;
}

void DeviceFwi::replay(std::size_t i) { impl_->replays.at(i)(); }
void DeviceFwi::synchronize() { impl_->backend.synchronize(); }
int DeviceFwi::launches() const { return impl_->runner.launches(); }
long long DeviceFwi::peak_bytes() const { return impl_->runner.peak_bytes(); }

}  // namespace warpmodel::fwi::gpu
