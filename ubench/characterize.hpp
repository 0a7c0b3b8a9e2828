// `warpmodel characterize`: the plan (every declared microbenchmark, plan.hpp), run and reduced by
// the harness (harness.hpp), written by the writers (writers.hpp) into a DeviceProfile
// (device.json), the raw series (ubench.csv) and a report laid out like thesis tables 4.3/4.4
// (ubench.md).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "device_query.hpp"

namespace warpmodel::ubench {

struct CharacterizeOptions {
  int reps = 50;                // repetitions kept per point (>= 50 for the thesis's table 4.4)
  std::string self_exe;         // this program, for the SASS check (cuobjdump -sass)
  std::string command;          // the exact command line, for provenance
  std::string commit;           // git commit of the sources
  std::vector<std::string> stages;  // --only: "core", "tensor" (empty: every stage)
  std::string base_device_json;     // the output folder's device.json before this run ("" = none)
  std::function<void(const std::string&)> log;  // progress lines (stderr)
};

struct CharacterizeOutputs {
  std::vector<std::string> stages;  // the stages measured
  std::string device_json;
  std::string csv, markdown;                // the core stage's (ubench.csv.xz, ubench.md)
  std::string tensor_csv, tensor_markdown;  // the tensor stage's (tensor.csv.xz, tensor.md)
  std::string energy_markdown;              // the energy stage's (energy-per-op.md)
  std::vector<std::string> warnings;
  std::string profile_error;  // non-empty: device_from_json rejected device.json (a bug)
  double seconds = 0;
};

// Throws support::cuda::CudaError on a CUDA failure, std::invalid_argument for an unknown stage.
CharacterizeOutputs characterize(const GpuInfo& gpu, const CharacterizeOptions& options);

// "NVIDIA H200" -> "h200": the results folder name.
std::string gpu_slug(const std::string& name);

}  // namespace warpmodel::ubench
