// Host-side preparation shared by the GPU propagator and its CPU emulation: the arrays in the
// padded device layout (x rows of `pitch` floats), the float coefficients, (v dt / h)^2, and the
// source amplitude of each step, all defined to match ReferencePropagator exactly.
#pragma once

#include <array>
#include <cstddef>
#include <vector>

#include "warpmodel/stencils/acoustic.hpp"

namespace warpmodel::stencils {

inline constexpr int kMaxStencilRadius = 8;

// weight[0] = 3 w0 (the centre weight of the 3D operator), weight[d] = w_d, rest 0.
std::array<float, kMaxStencilRadius + 1> stencil_weights_float(int order);

// Logical (nx * ny * nz, index (k ny + j) nx + i) <-> padded (index (k ny + j) pitch + i; the
// padding columns are 0).
std::vector<float> to_padded(const std::vector<float>& field, const Grid& g, std::size_t pitch);
std::vector<float> from_padded(const std::vector<float>& padded, const Grid& g, std::size_t pitch);
template <typename Real>
std::vector<float> to_padded_float(const std::vector<Real>& field, const Grid& g, std::size_t pitch) {
  std::vector<float> f(field.begin(), field.end());
  return to_padded(f, g, pitch);
}

// (v dt / h)^2 in the padded layout: the kernels compute p(n+1) = 2 p - p(n-1) + vel2 * sum_d w_d (...).
std::vector<float> velocity_term_padded(const std::vector<float>& velocity, const Grid& g, double dt,
                                        std::size_t pitch);

// What the step that makes p(n+1) from p(n) (n = steps already done) adds at the source point:
// (v_s dt)^2 ricker(n dt - 1/f), as ReferencePropagator::step.
float source_amplitude(const PropagationSetup& s, const std::vector<float>& velocity, int steps_done);

// Relative L2 difference ||a - b|| / ||b|| over the logical grid (NaN in a counts as failure:
// the result is then infinite).
double relative_l2(const std::vector<float>& a, const std::vector<double>& reference);

}  // namespace warpmodel::stencils
