// NVML, loaded with dlopen so the program starts on machines without the driver. Read-only: the
// clocks are recorded, never changed.
#pragma once

#include <optional>
#include <string>

namespace warpmodel::ubench {

struct ClockSample {
  unsigned sm_mhz = 0, mem_mhz = 0;
  unsigned long long throttle_reasons = 0;  // nvmlDeviceGetCurrentClocksEventReasons bitmask
  bool have_reasons = false;
};

class Nvml {
 public:
  Nvml();
  ~Nvml();
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;
  bool available() const { return handle_ != nullptr && device_ != nullptr; }
  // Binds to the GPU with this PCI bus id (as cudaDeviceGetPCIBusId gives it).
  bool bind(const std::string& pci_bus_id);
  std::optional<ClockSample> sample() const;
  std::string driver_version() const;
  std::string why_unavailable() const { return why_; }

 private:
  void* lib_ = nullptr;
  void* handle_ = nullptr;  // non-null once nvmlInit succeeded
  void* device_ = nullptr;
  std::string why_;
};

}  // namespace warpmodel::ubench
