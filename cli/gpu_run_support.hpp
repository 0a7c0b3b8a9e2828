// What the GPU run commands (run-stencil, run-adi, run-fwi) share, in CUDA builds: the provenance of
// a measured run, and --energy (support/energy: NVML's counter around repeated regions, a power
// trace, idle power apart, 95 % Student-t intervals; docs/energy.md).
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "device_query.hpp"
#include "nvml.hpp"
#include "warpmodel/energy/meter.hpp"
#include "warpmodel/energy/nvml.hpp"
#include "warpmodel/support/provenance.hpp"

namespace warpmodel::cli {

// Where a run's numbers came from, in the fields every measured record here carries (gpu, driver,
// cuda, sm_clock_mhz, date, commit, command): the GPU (device 0, the runtime's current device),
// NVML's driver string, the CUDA runtime version, that GPU's maximum SM clock, and the time the run ended.
inline nlohmann::json run_provenance(const std::string& gpu_name, const std::string& command) {
  const std::vector<ubench::GpuInfo> gpus = ubench::query_gpus();
  const ubench::Nvml nvml;
  const int runtime = gpus.front().runtime_version;  // e.g. 13000
  return {{"gpu", gpu_name},
          {"driver", nvml.driver_version().empty() ? std::to_string(gpus.front().driver_version) : nvml.driver_version()},
          {"cuda", std::to_string(runtime / 1000) + "." + std::to_string(runtime % 1000 / 10)},
          {"sm_clock_mhz", gpus.front().sm_clock_mhz},
          {"date", support::utc_now()},
          {"commit", support::source_commit()},
          {"command", command}};
}

// NVML for the current CUDA device (bound by PCI bus id). available() false: why_unavailable() is
// the one line to print (exit 3, before anything runs).
inline std::unique_ptr<energy::NvmlPower> nvml_for_current_device() {
  int device = 0;
  char pci[32] = {0};
  if (cudaGetDevice(&device) != cudaSuccess || cudaDeviceGetPCIBusId(pci, sizeof pci, device) != cudaSuccess) pci[0] = 0;
  return std::make_unique<energy::NvmlPower>(pci);
}

struct EnergyReport {
  nlohmann::json json;  // energy::energy_json
  std::string summary;  // one line
};

// Measures `region` (which waits for its GPU work) `samples` times: `steps` steps of `points` points each.
inline EnergyReport measure_region_energy(energy::NvmlPower& nvml, const std::function<void()>& region, double steps,
                                          double points, int samples) {
  energy::EnergyOptions o;
  o.samples = samples;
  const energy::EnergyResult r = energy::measure_energy(nvml, region, o);
  const energy::EnergyPerWork w = energy::per_work(r, steps, points);
  return {energy::energy_json(r, w, nvml.board()), energy::energy_summary(r, w)};
}

}  // namespace warpmodel::cli
