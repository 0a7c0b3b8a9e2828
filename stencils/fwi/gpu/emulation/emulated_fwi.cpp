// Compiled with WARPMODEL_STENCIL_EMULATION: the kernels' source becomes host functions.
#include "emulated_fwi.hpp"

#include <algorithm>
#include <map>
#include <memory>

#include "../kernels/kernel_sets.cuh"
#include "../src/fwi_runner.hpp"
#include "emulator.hpp"

namespace warpmodel::fwi::gpu {
namespace {

namespace emu = warpmodel::stencils::emu;

// Host memory registered with the emulation (every kernel access is checked against it).
class EmulatedBackend {
 public:
  ~EmulatedBackend() {
    for (auto& [p, buffer] : buffers_) emu::unregister_buffer(p);
  }
  float* alloc(long long n) {
    auto buffer = std::make_unique<float[]>(static_cast<std::size_t>(n));  // zeroed
    float* p = buffer.get();
    emu::register_buffer(p, static_cast<std::size_t>(n) * sizeof(float), true);
    sizes_[p] = n;
    buffers_[p] = std::move(buffer);
    return p;
  }
  void release(float* p) {
    emu::unregister_buffer(p);
    buffers_.erase(p);
    sizes_.erase(p);
  }
  void zero(float* p, long long n) {
    check(p, n);
    std::fill(p, p + n, 0.0f);
  }
  void upload(float* device, const float* host, std::size_t n) {
    check(device, static_cast<long long>(n));
    std::copy(host, host + n, device);
  }
  void download(float* host, const float* device, std::size_t n) {
    check(device, static_cast<long long>(n));
    std::copy(device, device + n, host);
  }
  template <class Fn, class P>
  void launch(const KernelRef<Fn>& k, const Shape& s, const P& params) {
    emu::LaunchConfig cfg;
    cfg.grid = {s.grid_x, s.grid_y, 1};
    cfg.block = {s.block_x, s.block_y, 1};
    cfg.shared_bytes = s.shared_bytes;
    cfg.uses_barriers = k.barriers;
    cfg.shuffle_seed = ++seed_;
    emu::launch(cfg, [&] { k.fn(params); });
  }
  void synchronize() {}

 private:
  // A copy within one allocation (the CUDA runtime would refuse anything else).
  void check(const float* p, long long n) const {
    for (const auto& [base, size] : sizes_)
      if (p >= base && p + n <= base + size) return;
    throw emu::EmulationError("a copy or memset outside every allocation");
  }
  std::map<const float*, std::unique_ptr<float[]>> buffers_;
  std::map<const float*, long long> sizes_;
  unsigned seed_ = 0;
};

KernelSet emulated_kernel_set(const GpuVariantInfo& info) {
  return info.fast_math ? kernels::make_kernel_set<kernels::kFastMath>(info) : kernels::make_kernel_set<0>(info);
}

}  // namespace

struct EmulatedFwi::Impl {
  Impl(const Experiment& s, GpuVariant v)
      : info(gpu_variant_info(v)), runner(backend, s, info, emulated_kernel_set(info)) {}
  EmulatedBackend backend;
  GpuVariantInfo info;
  FwiRunner<EmulatedBackend> runner;
};

EmulatedFwi::EmulatedFwi(const Experiment& s, GpuVariant v) : impl_(std::make_unique<Impl>(s, v)) {}
EmulatedFwi::~EmulatedFwi() = default;

std::vector<std::vector<float>> EmulatedFwi::model_data(const std::vector<float>& velocity) {
  return impl_->runner.model_data(velocity);
}

double EmulatedFwi::misfit_and_gradient(const std::vector<float>& velocity,
                                        const std::vector<std::vector<float>>& observed, std::vector<float>* gradient) {
  return impl_->runner.misfit_and_gradient(velocity, observed, gradient);
}

FwiRunResult EmulatedFwi::invert(const std::vector<float>& start, const std::vector<std::vector<float>>& observed,
                                 const FwiRunOptions& options) {
  return impl_->runner.invert(start, observed, options);
}

std::vector<RecordedLaunch> EmulatedFwi::record_and_replay(const std::vector<float>& velocity,
                                                           const std::vector<std::vector<float>>& observed) {
  std::vector<RecordedLaunch> out;
  for (const auto& r : impl_->runner.record_launches(velocity, observed)) {
    r.launch();
    out.push_back({r.name, r.function});
  }
  return out;
}

int EmulatedFwi::launches() const { return impl_->runner.launches(); }
long long EmulatedFwi::peak_bytes() const { return impl_->runner.peak_bytes(); }

}  // namespace warpmodel::fwi::gpu
