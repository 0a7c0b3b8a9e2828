#include "warpmodel/fwi/gpu_variants.hpp"

#include <stdexcept>

namespace warpmodel::fwi {
namespace {

std::vector<GpuVariantInfo> make_variants() {
  std::vector<GpuVariantInfo> v;
  GpuVariantInfo i{GpuVariant::original, "original", "original",
                   "one kernel per function, a synchronisation after each, the misfit's dot product on the host",
                   49.996, 1.0};
  v.push_back(i);
  i.variant = GpuVariant::shared, i.name = "shared", i.phase = "phase 1";
  i.what = "Propagator_half reads P^n through a shared-memory tile";
  i.study_seconds = 46.422, i.study_speedup = 1.076, i.shared_p = true;
  v.push_back(i);
  i.variant = GpuVariant::fused, i.name = "fused", i.phase = "phase 2";
  i.what = "PSI fused into Propagator_half: psi in shared memory, a barrier between psi and zeta";
  i.study_seconds = 36.866, i.study_speedup = 1.356, i.fused = true;
  v.push_back(i);
  i.variant = GpuVariant::fused_cpml, i.name = "fused-cpml", i.phase = "phase 3";
  i.what = "no synchronisation between kernels; psi and zeta read and written only inside the CPML";
  i.study_seconds = 23.328, i.study_speedup = 2.143, i.cpml_only = true, i.sync_each_kernel = false;
  v.push_back(i);
  i.variant = GpuVariant::dot_gpu, i.name = "dot-gpu", i.phase = "phase 4";
  i.what = "the dot product (scale_grad) on the GPU: a two-pass block reduction";
  i.study_seconds = 23.233, i.study_speedup = 2.151, i.gpu_dot = true;
  v.push_back(i);
  i.variant = GpuVariant::reorganised, i.name = "reorganised", i.phase = "reorganised";
  i.what = "allocations once per inversion; a_q and b_q computed once";
  i.study_seconds = 21.198, i.study_speedup = 2.358, i.allocate_once = true, i.cpml_once = true;
  v.push_back(i);
  i.variant = GpuVariant::gradient_on_the_fly, i.name = "gradient-on-the-fly", i.phase = "phase 5";
  i.what = "the gradient accumulated during the back-propagation: no film of q";
  i.study_seconds = 21.200, i.study_speedup = 2.358, i.gradient_on_the_fly = true;
  v.push_back(i);
  i.variant = GpuVariant::read_only, i.name = "read-only", i.phase = "phase 6";
  i.what = "the fields read through the read-only data path (the study's textures), 32 x 8 blocks";
  i.study_seconds = 20.180, i.study_speedup = 2.477, i.read_only = true, i.block_y = 8;
  v.push_back(i);
  i.variant = GpuVariant::fast_math, i.name = "fast-math", i.phase = "phase 6 + fast math";
  i.what = "phase 6 compiled with --use_fast_math";
  i.study_seconds = 15.150, i.study_speedup = 3.300, i.fast_math = true;
  v.push_back(i);
  return v;
}

}  // namespace

const std::vector<GpuVariantInfo>& gpu_variants() {
  static const std::vector<GpuVariantInfo> list = make_variants();
  return list;
}

const GpuVariantInfo& gpu_variant_info(GpuVariant v) {
  for (const auto& i : gpu_variants())
    if (i.variant == v) return i;
  throw std::logic_error("gpu_variant_info: unknown variant");
}

std::optional<GpuVariant> parse_gpu_variant(std::string_view name) {
  for (const auto& i : gpu_variants())
    if (name == i.name) return i.variant;
  return std::nullopt;
}

std::string gpu_variant_names() {
  std::string s;
  for (const auto& i : gpu_variants()) s += (s.empty() ? "" : ", ") + std::string(i.name);
  return s;
}

}  // namespace warpmodel::fwi
