// The vendor's published tensor-core figures per GPU model (spec sheets), which the tensor rows'
// measured whole-GPU rate is held against (fraction_of_spec). Plain C++, no CUDA.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace warpmodel::ubench {

struct GpuSpec {
  std::string product;                     // e.g. "NVIDIA H100 SXM5 80GB"
  std::vector<std::string> runtime_names;  // the names cudaGetDeviceProperties gives this model
  int sm_count = 0;
  // Tera-operations per second with 2:4 sparsity, as the sheet prints them (a multiply-add counts 2;
  // FLOP/s for the floating types), by type: tf32, f16, bf16, e4m3, e5m2, s8.
  std::map<std::string, double> sparse_tera_ops;
  std::string source;                      // where the figures are published
};

// Every model in the table.
const std::vector<GpuSpec>& gpu_specs();

// The model whose runtime name is `name` exactly, or nullptr (no published figures here).
const GpuSpec* find_gpu_spec(const std::string& name);

// The spec of a rate key: "<type>" is the dense figure (the sheets' footnote: "specifications 1/2
// lower without sparsity"), "<type>_sparse" the sheet's own; nullopt where the sheet has none.
std::optional<double> spec_tera_ops(const GpuSpec& spec, const std::string& key);

}  // namespace warpmodel::ubench
