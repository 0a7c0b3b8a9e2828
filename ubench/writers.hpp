// The writers: device.json (a warpmodel.device/1 profile with the full tables under
// `measurements`), ubench.csv (every raw series) and ubench.md (thesis tables 4.3/4.4 layout plus a
// table per group). They read only the harness's reduced results (results.hpp).
#pragma once

#include <string>
#include <vector>

#include "results.hpp"

namespace warpmodel::ubench {

// Warnings about the profile itself (a required latency not measured, written as 1 so the profile
// stays readable). The caller adds them to the results' warnings before writing.
std::vector<std::string> profile_warnings(const Results& results);

// device.json. `base`: the profile in the output folder before this run ("" = none). A run of the
// core stage writes the whole profile afresh and keeps the tensor and energy stages' sections of
// `base`; a run of the tensor or energy stage alone rewrites only its sections (tensor:
// measurements.tensor_cores, tma, async_copy, cluster, library_gemm; energy: measurements.energy;
// their SASS verdicts and provenance.<stage>_stage.*) in `base`, which it then needs
// (std::invalid_argument without it).
std::string write_device_json(const Results& results, const std::string& base = "");
// The core stage's raw series (ubench.csv) and report (ubench.md).
std::string write_csv(const Results& results);
std::string write_markdown(const Results& results);
// The tensor stage's raw series (tensor.csv) and report (tensor.md).
std::string write_unit_csv(const Results& results);
std::string write_tensor_markdown(const Results& results);
// The energy stage's report (energy-per-op.md): its rows and the coefficients.
std::string write_energy_markdown(const Results& results);

// The tensor stage's headline quantities, by their dotted paths in device.json as write_device_json
// writes them ("measurements.tensor_cores.wgmma.f16.tera_ops_per_s", ...), in registry order:
// compare-devices lists each for every profile, "not measured" where a profile lacks it.
std::vector<std::string> tensor_stage_quantities();

// FP32 lanes and SFU lanes per SM by compute capability (CUDA programming guide throughput table).
int fp32_lanes_per_sm(int cc_major, int cc_minor);
int sfu_lanes_per_sm(int cc_major, int cc_minor);

}  // namespace warpmodel::ubench
