// The GPU variants of the FWI: the study's optimisation phases (table 28, docs/fwi.md), cumulative,
// one name each. Plain C++ (no CUDA): the program parses and lists them without a GPU, and the
// CPU emulation of the kernels and the CUDA runner read the same switches.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpmodel::fwi {

enum class GpuVariant {
  original,             // the study's kernels, a synchronisation after each, the misfit's dot product on the host
  shared,               // phase 1: Propagator_half reads P^n through shared memory
  fused,                // phase 2: PSI fused into Propagator_half (psi in shared memory, a barrier)
  fused_cpml,           // phase 3: no synchronisation between kernels; psi, zeta only inside the CPML
  dot_gpu,              // phase 4: the dot product (scale_grad) on the GPU, a two-pass block reduction
  reorganised,          // allocations once per inversion; a_q, b_q once
  gradient_on_the_fly,  // phase 5: the gradient accumulated during the back-propagation (no film of q)
  read_only,            // phase 6: the fields read through the read-only (texture) data path, 32 x 8 blocks
  fast_math,            // phase 6 + --use_fast_math
};

struct GpuVariantInfo {
  GpuVariant variant;
  const char* name;   // --variant NAME
  const char* phase;  // the study's row of table 28
  const char* what;   // one line
  // The study's whole-FWI time and speedup over its original (GTX 970, table 28).
  double study_seconds;
  double study_speedup;
  // The switches, cumulative in the order above.
  bool shared_p = false;             // Propagator_half's P^n tile in shared memory
  bool fused = false;                // one kernel for PSI + Propagator_half (and their adjoints)
  bool cpml_only = false;            // psi, zeta (mu, nu) read and written only where a_q != 0
  bool sync_each_kernel = true;      // cudaDeviceSynchronize after every launch
  bool gpu_dot = false;              // the misfit's dot product on the GPU (else residual to the host)
  bool allocate_once = false;        // work arrays allocated once per inversion (else per iteration)
  bool cpml_once = false;            // get_CPML_x/z_half once per inversion (else before each propagation)
  bool gradient_on_the_fly = false;  // no film of q; Gradiente inside the back-propagation
  bool read_only = false;            // read-only fields through ld.global.nc (the texture path)
  bool fast_math = false;            // kernels compiled with --use_fast_math
  int block_x = 32, block_y = 16;    // the study's blocks (32 x 8 from phase 6)
};

// Every variant, in the study's order.
const std::vector<GpuVariantInfo>& gpu_variants();
const GpuVariantInfo& gpu_variant_info(GpuVariant v);
std::optional<GpuVariant> parse_gpu_variant(std::string_view name);
// "original, shared, ..." for messages.
std::string gpu_variant_names();

}  // namespace warpmodel::fwi
