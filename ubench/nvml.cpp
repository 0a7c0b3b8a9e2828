#include "nvml.hpp"

#include <dlfcn.h>

namespace warpmodel::ubench {
namespace {
using InitFn = int (*)();
using ShutdownFn = int (*)();
using ByPciFn = int (*)(const char*, void**);
using ClockFn = int (*)(void*, int, unsigned*);
using ReasonsFn = int (*)(void*, unsigned long long*);
using DriverFn = int (*)(char*, unsigned);
constexpr int kClockSm = 1, kClockMem = 2;  // nvmlClockType_t
template <class F>
F sym(void* lib, const char* name) {
  return reinterpret_cast<F>(dlsym(lib, name));
}
}  // namespace

Nvml::Nvml() {
  lib_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib_) {
    why_ = "libnvidia-ml.so.1 not loadable";
    return;
  }
  auto init = sym<InitFn>(lib_, "nvmlInit_v2");
  if (!init || init() != 0) {
    why_ = "nvmlInit_v2 failed";
    return;
  }
  handle_ = lib_;
}

Nvml::~Nvml() {
  if (handle_)
    if (auto shut = sym<ShutdownFn>(lib_, "nvmlShutdown")) shut();
  if (lib_) dlclose(lib_);
}

bool Nvml::bind(const std::string& pci) {
  if (!handle_) return false;
  auto by_pci = sym<ByPciFn>(lib_, "nvmlDeviceGetHandleByPciBusId_v2");
  if (!by_pci || by_pci(pci.c_str(), &device_) != 0) {
    device_ = nullptr;
    why_ = "NVML does not know PCI bus id " + pci;
    return false;
  }
  return true;
}

std::optional<ClockSample> Nvml::sample() const {
  if (!available()) return std::nullopt;
  auto clock = sym<ClockFn>(lib_, "nvmlDeviceGetClockInfo");
  if (!clock) return std::nullopt;
  ClockSample s;
  if (clock(device_, kClockSm, &s.sm_mhz) != 0) return std::nullopt;
  clock(device_, kClockMem, &s.mem_mhz);
  auto reasons = sym<ReasonsFn>(lib_, "nvmlDeviceGetCurrentClocksEventReasons");
  if (!reasons) reasons = sym<ReasonsFn>(lib_, "nvmlDeviceGetCurrentClocksThrottleReasons");
  if (reasons && reasons(device_, &s.throttle_reasons) == 0) s.have_reasons = true;
  return s;
}

std::string Nvml::driver_version() const {
  if (!handle_) return "";
  auto drv = sym<DriverFn>(lib_, "nvmlSystemGetDriverVersion");
  char buf[96] = {0};
  if (!drv || drv(buf, sizeof buf) != 0) return "";
  return buf;
}

}  // namespace warpmodel::ubench
