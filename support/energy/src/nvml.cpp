#include "warpmodel/energy/nvml.hpp"

#include <dlfcn.h>

namespace warpmodel::energy {
namespace {

// NVML's C API (nvml.h, which the build does not need): every call returns nvmlReturn_t, 0 = success.
using InitFn = int (*)();
using ShutdownFn = int (*)();
using ByPciFn = int (*)(const char*, void**);          // nvmlDeviceGetHandleByPciBusId_v2
using ByIndexFn = int (*)(unsigned, void**);           // nvmlDeviceGetHandleByIndex_v2
using EnergyFn = int (*)(void*, unsigned long long*);  // nvmlDeviceGetTotalEnergyConsumption: mJ
using UintFn = int (*)(void*, unsigned*);              // nvmlDeviceGetPowerUsage, ...EnforcedPowerLimit: mW
using ClockFn = int (*)(void*, int, unsigned*);        // nvmlDeviceGetClockInfo: MHz
using NameFn = int (*)(void*, char*, unsigned);        // nvmlDeviceGetName
using DriverFn = int (*)(char*, unsigned);             // nvmlSystemGetDriverVersion
constexpr int kClockSm = 1, kClockMem = 2;             // nvmlClockType_t

template <class F>
F sym(void* lib, const char* name) {
  return lib ? reinterpret_cast<F>(dlsym(lib, name)) : nullptr;
}

}  // namespace

NvmlPower::NvmlPower(const std::string& pci_bus_id) {
  lib_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib_) {
    why_ = "NVML is not available: libnvidia-ml.so.1 cannot be loaded (it comes with the NVIDIA driver)";
    return;
  }
  const auto init = sym<InitFn>(lib_, "nvmlInit_v2");
  if (!init || init() != 0) {
    why_ = "NVML is not available: nvmlInit_v2 failed";
    return;
  }
  initialised_ = true;
  void* device = nullptr;
  if (!pci_bus_id.empty()) {
    const auto by_pci = sym<ByPciFn>(lib_, "nvmlDeviceGetHandleByPciBusId_v2");
    if (!by_pci || by_pci(pci_bus_id.c_str(), &device) != 0) {
      why_ = "NVML does not know the GPU at PCI bus id " + pci_bus_id;
      return;
    }
  } else {
    const auto by_index = sym<ByIndexFn>(lib_, "nvmlDeviceGetHandleByIndex_v2");
    if (!by_index || by_index(0, &device) != 0) {
      why_ = "NVML finds no GPU";
      return;
    }
  }
  unsigned long long mj = 0;
  const auto energy = sym<EnergyFn>(lib_, "nvmlDeviceGetTotalEnergyConsumption");
  if (!energy || energy(device, &mj) != 0) {
    why_ = "this GPU has no NVML total-energy counter (nvmlDeviceGetTotalEnergyConsumption: Volta and later)";
    return;
  }
  device_ = device;
}

NvmlPower::~NvmlPower() {
  if (initialised_)
    if (const auto shut = sym<ShutdownFn>(lib_, "nvmlShutdown")) shut();
  if (lib_) dlclose(lib_);
}

std::optional<double> NvmlPower::total_energy_j() {
  unsigned long long mj = 0;
  const auto energy = sym<EnergyFn>(lib_, "nvmlDeviceGetTotalEnergyConsumption");
  if (!device_ || !energy || energy(device_, &mj) != 0) return std::nullopt;
  return static_cast<double>(mj) * 1e-3;
}

std::optional<double> NvmlPower::power_w() {
  unsigned mw = 0;
  const auto power = sym<UintFn>(lib_, "nvmlDeviceGetPowerUsage");
  if (!device_ || !power || power(device_, &mw) != 0) return std::nullopt;
  return static_cast<double>(mw) * 1e-3;
}

BoardState NvmlPower::board() const {
  BoardState b;
  if (!device_) return b;
  char text[96] = {0};
  if (const auto name = sym<NameFn>(lib_, "nvmlDeviceGetName"); name && name(device_, text, sizeof text) == 0) b.name = text;
  char driver[96] = {0};
  if (const auto drv = sym<DriverFn>(lib_, "nvmlSystemGetDriverVersion"); drv && drv(driver, sizeof driver) == 0)
    b.driver = driver;
  unsigned v = 0;
  if (const auto limit = sym<UintFn>(lib_, "nvmlDeviceGetEnforcedPowerLimit"); limit && limit(device_, &v) == 0)
    b.power_limit_w = v * 1e-3;
  if (const auto clock = sym<ClockFn>(lib_, "nvmlDeviceGetClockInfo")) {
    if (clock(device_, kClockSm, &v) == 0) b.sm_clock_mhz = v;
    if (clock(device_, kClockMem, &v) == 0) b.memory_clock_mhz = v;
  }
  return b;
}

}  // namespace warpmodel::energy
