// The CPML coefficients of Pasalic & McGarry (2010), eqs 2.20-2.23 of the study: the kernels
// get_CPML_x_half and get_CPML_z_half, which fill a_q and b_q once per axis.
//
// The layer stretches d/dq into (1/s_q) d/dq with s_q = 1 + d_q / (alpha_q + i omega). In time,
// 1/s_q is the identity plus the convolution with
//     z(t) = -d_q exp(-(d_q + alpha_q) t) H(t),
// and eq 2.15's memory variables are psi_q = z * dP/dq and zeta_q = z * (d2P/dq2 + dpsi_q/dq).
// Convolving over one step with the input held for the step (recursive convolution):
//     psi^n = exp(-(d+alpha) dt) psi^{n-1} + f^n int_0^dt -d exp(-(d+alpha) t) dt
//           = b psi^{n-1} + [d / (d + alpha)] (b - 1) f^n,        b = exp(-(d + alpha) dt),
// so a_q = d_q / (d_q + alpha_q) (b_q - 1): a <= 0, |a| <= 1 - b, and the whole discrete kernel
// sums to a / (1 - b) = -d / (d + alpha), in (-1, 0], as z(t) integrates to. The memory decays and
// the layer only ever absorbs.
//
// Eq 2.20 prints d_q / (d_q - alpha_q): a typo. Its kernel sums to d / (alpha - d), which has a pole
// where the rising d_q meets the falling alpha_q inside the layer (about a quarter of the way in
// at the study's parameters), is positive before it (1/s_q > 1 at low frequency: the layer
// amplifies) and larger than 1 in size around it. AqReading::AsPrinted computes it anyway, for the
// test that shows what it does (tests/fwi: it reflects more or blows up).
#pragma once

#include <vector>

#include "warpmodel/fwi/experiment.hpp"

namespace warpmodel::fwi {

// a_q and b_q along one axis, one value per column (x) or row (z); `active` lists the indices in
// 1..n-2 where a_q != 0, the only ones where psi_q and zeta_q are ever non-zero (the study's
// phase 3 computes them only there).
struct CpmlProfile {
  std::vector<double> a, b;
  std::vector<int> active;
};

// d_0 of eq 2.22 (per metre): 3 ln(1/R) / (2 L), L = width h.
double cpml_d0(const CpmlParameters& p, double h);

// a_q (eq 2.20, in p.reading) and b_q (eq 2.21) from d_q = d_0 v_max (x/L)^2 (eq 2.22) and
// alpha_q = pi f (L - x) / L (eq 2.23), x the distance into the layer from its inner edge: x = L
// on the outer ring, 0 at the first interior point. Outside the layers d = alpha = 0: a = 0, b = 1.
// The study's kernel names are kept ("_half"); the coefficients sit on the grid points, where its
// equations 2.17-2.19 use them.
CpmlProfile get_cpml_x_half(const Experiment& s);
CpmlProfile get_cpml_z_half(const Experiment& s);  // no layer on top unless s.cpml.top

// The sum of one point's discrete memory kernel, a / (1 - b): -d / (d + alpha) when corrected.
double kernel_sum(double a, double b);

struct Cpml {
  CpmlProfile x, z;
};
inline Cpml make_cpml(const Experiment& s) { return {get_cpml_x_half(s), get_cpml_z_half(s)}; }

}  // namespace warpmodel::fwi
