// One variant's kernels as function pointers with their study names: the CUDA build fills a set
// with the kernels' host stubs (src/kernels_*.cu), the CPU emulation with the same templates
// compiled as host functions (emulation/). The runner (src/fwi_runner.hpp) launches what a set holds.
#pragma once

#include <string>

#include "fwi_params.hpp"

namespace warpmodel::fwi::gpu {

using CpmlKernel = void (*)(CpmlParams);
using StepKernel = void (*)(StepParams);
using VecKernel = void (*)(VecParams);

template <class Fn>
struct KernelRef {
  Fn fn = nullptr;
  std::string name;       // the study's name, with the phase's suffix (Prop_psi_sh_less, ..._fm)
  bool barriers = false;  // __syncthreads inside (the emulation runs such blocks as fibers)
  const void* function() const { return reinterpret_cast<const void*>(fn); }
  explicit operator bool() const { return fn != nullptr; }
};

struct KernelSet {
  KernelRef<CpmlKernel> cpml_x, cpml_z;  // get_CPML_x_half, get_CPML_z_half
  // unfused (original, shared): PSI, Propagator_half and their adjoints
  KernelRef<StepKernel> psi, propagator_half, psi_adjoint, propagator_half_adjoint;
  // fused (phase 2 on): Prop_psi and its adjoint (with the gradient from phase 5)
  KernelRef<StepKernel> prop_psi, prop_psi_adjoint;
  KernelRef<StepKernel> gradiente;  // over the films (before phase 5)
  KernelRef<VecKernel> residual, acumulador, paral_max, grad_scal, new_model, scale_grad, scale_grad_final;
};

}  // namespace warpmodel::fwi::gpu
