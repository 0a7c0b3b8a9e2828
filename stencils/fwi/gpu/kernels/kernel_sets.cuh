// Builds a variant's KernelSet from the kernel templates (fwi_kernels.cuh). Included by the CUDA
// translation units (src/kernels_fwi.cu, src/kernels_fwi_fast_math.cu) and the emulation.
#pragma once

#include "fwi_kernels.cuh"
#include "kernel_set.hpp"
#include "warpmodel/fwi/gpu_variants.hpp"

namespace warpmodel::fwi::gpu::kernels {

// Base is 0, or kFastMath for the translation unit compiled with --use_fast_math (which holds
// only the fast-math variant's kernels).
template <int Base>
KernelSet make_kernel_set(const GpuVariantInfo& v) {
  KernelSet s;
  const std::string fm = (Base & kFastMath) ? "_fm" : "";
  s.cpml_x = {&get_cpml_x_half<Base>, "get_CPML_x_half" + fm, false};
  s.cpml_z = {&get_cpml_z_half<Base>, "get_CPML_z_half" + fm, false};
  s.residual = {&residual<Base>, "Residual" + fm, false};
  s.acumulador = {&acumulador<Base>, "acumulador" + fm, false};
  s.paral_max = {&paral_max<Base>, "Paral_max" + fm, true};
  s.grad_scal = {&grad_scal<Base>, "Grad_scal" + fm, false};
  s.new_model = {&new_model<Base>, "New_model" + fm, false};
  s.scale_grad = {&scale_grad<Base>, "scale_grad" + fm, true};
  s.scale_grad_final = {&scale_grad_final<Base>, "scale_grad_final" + fm, true};
  if constexpr ((Base & kFastMath) != 0) {
    constexpr int F = Base | kCpmlOnly | kReadOnly;
    s.prop_psi = {&prop_psi<F>, "Prop_psi_ro_less" + fm, true};
    s.prop_psi_adjoint = {&prop_psi_adjoint<F | kGradient>, "Prop_psi_ro_less_adjoint+p" + fm, true};
  } else {
    if (!v.fused) {
      s.psi = {&psi<Base>, "PSI", false};
      s.psi_adjoint = {&psi_adjoint<Base>, "PSI_adjoint", false};
      if (v.shared_p) {
        s.propagator_half = {&propagator_half<Base | kSharedP>, "Propagator_half_sh", true};
        s.propagator_half_adjoint = {&propagator_half_adjoint<Base | kSharedP>, "Propagator_half_adjoint_sh", true};
      } else {
        s.propagator_half = {&propagator_half<Base>, "Propagator_half", false};
        s.propagator_half_adjoint = {&propagator_half_adjoint<Base>, "Propagator_half_adjoint", false};
      }
    } else if (!v.cpml_only) {
      s.prop_psi = {&prop_psi<Base>, "Prop_psi_sh", true};
      s.prop_psi_adjoint = {&prop_psi_adjoint<Base>, "Prop_psi_sh_adjoint", true};
    } else if (!v.read_only) {
      s.prop_psi = {&prop_psi<Base | kCpmlOnly>, "Prop_psi_sh_less", true};
      if (v.gradient_on_the_fly)
        s.prop_psi_adjoint = {&prop_psi_adjoint<Base | kCpmlOnly | kGradient>, "Prop_psi_sh_less_adjoint+p", true};
      else
        s.prop_psi_adjoint = {&prop_psi_adjoint<Base | kCpmlOnly>, "Prop_psi_sh_less_adjoint", true};
    } else {
      s.prop_psi = {&prop_psi<Base | kCpmlOnly | kReadOnly>, "Prop_psi_ro_less", true};
      s.prop_psi_adjoint = {&prop_psi_adjoint<Base | kCpmlOnly | kReadOnly | kGradient>, "Prop_psi_ro_less_adjoint+p",
                            true};
    }
  }
  if (!v.gradient_on_the_fly) s.gradiente = {&gradiente<Base>, "Gradiente" + fm, false};
  return s;
}

}  // namespace warpmodel::fwi::gpu::kernels
