// Pieces every variant shares: the Dirichlet test, the source and the update itself, written
// once so the five variants differ only in where their operands come from.
#pragma once

#include "portability.cuh"
#include "stencil_params.hpp"

namespace warpmodel::stencils::gpu::kernels {

// Points within `R` of a face keep p = 0 (Dirichlet; the reference never updates them).
template <int R>
WM_DEVICE bool is_interior(const StencilParams& p, int i, int j, int k) {
  return i >= R && i < p.nx - R && j >= R && j < p.ny - R && k >= R && k < p.nz - R;
}

// p(n+1) = 2 p(n) - p(n-1) + (v dt / h)^2 L p(n); `operator_sum` is L p(n) h^2 (the weighted sum).
WM_DEVICE float leapfrog(float centre, float previous, float vel2, float operator_sum) {
  return 2.0f * centre - previous + vel2 * operator_sum;
}

// The source is added after the update, at one point (as the CPU reference does).
WM_DEVICE float with_source(const StencilParams& p, float value, int i, int j, int k) {
  return (i == p.source_i && j == p.source_j && k == p.source_k) ? value + p.source_amplitude : value;
}

}  // namespace warpmodel::stencils::gpu::kernels
