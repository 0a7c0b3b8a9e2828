#include "gpu_specs.hpp"

namespace warpmodel::ubench {

// Sources. The vendor's pages (https://www.nvidia.com/en-us/data-center/h100/ and
// https://www.nvidia.com/en-us/data-center/h200/, "Technical Specifications", values marked "with
// sparsity"; the H100 PCIe also in its product brief PB-11133-001) were not in the searchable
// corpus; the figures were found through the search tool as reproduced from them:
//   H100 SXM5 and PCIe: the datasheet table with its footnote ("* Shown with sparsity.
//     Specifications 1/2 lower without sparsity"), archive-lib.hpctech.co.jp/gpuproduct/nvidia-h100.html;
//     the SXM5's dense figures and their 1830 MHz also in the Hopper whitepaper's table as quoted at
//     glennklockwood.com/garden/processors/h100 (FP16 989.4 dense, 1978.9 sparse);
//   H200 SXM and NVL: the H200 page's figures as quoted at morphllm.com/nvidia-h200 ("3,958 TFLOPS
//     of FP8 ... 1,979 TFLOPS each of FP16 and BFLOAT16 with sparsity ... INT8 is likewise 3,958
//     TOPS"; the NVL "3,341 FP8 TFLOPS and 1,671 FP16 TFLOPS (with sparsity)").
// A type a source does not give is left out (no fraction of spec for it): the H200's TF32 figure was
// not among the quoted ones.
const std::vector<GpuSpec>& gpu_specs() {
  static const std::vector<GpuSpec> specs = {
      {"NVIDIA H100 SXM5 80GB",
       {"NVIDIA H100 80GB HBM3", "NVIDIA H100 SXM5 80GB"},
       132,
       {{"tf32", 989}, {"f16", 1979}, {"bf16", 1979}, {"e4m3", 3958}, {"e5m2", 3958}, {"s8", 3958}},
       "NVIDIA H100 datasheet (nvidia.com/en-us/data-center/h100), H100 SXM column"},
      {"NVIDIA H100 PCIe 80GB",
       {"NVIDIA H100 PCIe"},
       114,
       {{"tf32", 756}, {"f16", 1513}, {"bf16", 1513}, {"e4m3", 3026}, {"e5m2", 3026}, {"s8", 3026}},
       "NVIDIA H100 datasheet (nvidia.com/en-us/data-center/h100), H100 PCIe column; product brief PB-11133-001"},
      {"NVIDIA H200 SXM 141GB",
       {"NVIDIA H200"},
       132,
       {{"f16", 1979}, {"bf16", 1979}, {"e4m3", 3958}, {"e5m2", 3958}, {"s8", 3958}},
       "NVIDIA H200 page (nvidia.com/en-us/data-center/h200), H200 SXM column"},
      {"NVIDIA H200 NVL 141GB",
       {"NVIDIA H200 NVL"},
       132,
       {{"f16", 1671}, {"bf16", 1671}, {"e4m3", 3341}, {"e5m2", 3341}},
       "NVIDIA H200 page (nvidia.com/en-us/data-center/h200), H200 NVL column"},
  };
  return specs;
}

const GpuSpec* find_gpu_spec(const std::string& name) {
  for (const auto& s : gpu_specs())
    for (const auto& n : s.runtime_names)
      if (n == name) return &s;
  return nullptr;
}

std::optional<double> spec_tera_ops(const GpuSpec& spec, const std::string& key) {
  const std::string suffix = "_sparse";
  const bool sparse = key.size() > suffix.size() && key.compare(key.size() - suffix.size(), suffix.size(), suffix) == 0;
  const auto it = spec.sparse_tera_ops.find(sparse ? key.substr(0, key.size() - suffix.size()) : key);
  if (it == spec.sparse_tera_ops.end()) return std::nullopt;
  return sparse ? it->second : it->second / 2;
}

}  // namespace warpmodel::ubench
