// NVML's energy counter and power reading, loaded at run time (dlopen libnvidia-ml.so.1): the
// program builds without the driver's library and says clearly when it is missing. Read only: the
// power limit and the clocks are recorded, never changed.
#pragma once

#include <optional>
#include <string>

#include "warpmodel/energy/meter.hpp"

namespace warpmodel::energy {

class NvmlPower : public PowerSource {
 public:
  // Binds the GPU with this PCI bus id (cudaDeviceGetPCIBusId's text), or NVML's device 0 when empty.
  explicit NvmlPower(const std::string& pci_bus_id = "");
  ~NvmlPower() override;
  NvmlPower(const NvmlPower&) = delete;
  NvmlPower& operator=(const NvmlPower&) = delete;

  bool available() const { return device_ != nullptr; }
  // One line: why NVML cannot measure (no libnvidia-ml.so.1, nvmlInit failed, no such device, no counter).
  const std::string& why_unavailable() const { return why_; }

  std::optional<double> total_energy_j() override;  // nvmlDeviceGetTotalEnergyConsumption (mJ)
  std::optional<double> power_w() override;         // nvmlDeviceGetPowerUsage (mW)
  BoardState board() const;                         // name, driver, enforced power limit, clocks

 private:
  void* lib_ = nullptr;
  bool initialised_ = false;
  void* device_ = nullptr;
  std::string why_;
};

}  // namespace warpmodel::energy
