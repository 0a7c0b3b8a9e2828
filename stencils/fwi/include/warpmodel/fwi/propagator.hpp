// The forward propagator of the study (eqs 2.16-2.19: second order in time and space, the 5-point
// stencil of eq 2.11, CPML memory variables psi and zeta) and its exact discrete adjoint, written as
// the kernels the study names so that each GPU kernel maps onto one function here:
//   psi              PSI              eq 2.18, both axes, where a_q != 0
//   propagator_half  Propagator_half  eq 2.19 (zeta) and eq 2.16 (P^{n+1}) over the interior
//   add_source       (in Propagator_half) the S term of eq 2.16 at the source point
//   psi_adjoint, propagator_half_adjoint, inject_residual: the transposed step (below)
//   gradiente        Gradiente        the cross-correlation of eq 2.3, one time step
// Double precision throughout: this is the reference the GPU variants (single precision, as the
// study's) will be compared with, and the one whose gradient is checked by finite differences.
//
// One step n = 0..nt-1, with P^0 = P^{-1} = 0, psi^{-1} = zeta^{-1} = 0 and W = (c dt)^2:
//   psi_q^n  = b_q psi_q^{n-1} + a_q D_q P^n                                        (2.18)
//   zeta_q^n = b_q zeta_q^{n-1} + a_q (D2_q P^n + D_q psi_q^n)                       (2.19)
//   P^{n+1}  = 2 P^n - P^{n-1} + W (L P^n + sum_q [D_q psi_q^n + zeta_q^n]) + s^n    (2.16)
// with D_q the centred first difference (u_{+1} - u_{-1}) / (2h) (eq 2.16's G^2 (h/2) psi_st is
// W (D_x psi_x + D_z psi_z)), D2_q the second difference and L = D2_x + D2_z (eq 2.11). The shot
// gather records d^n = P^{n+1} at the receivers, n = 0..nt-1.
//
// The adjoint (the transpose of the whole time loop, from the Lagrangian of the misfit
// 1/2 sum_n |M P^{n+1} - d_obs^n|^2) in the variable q = W lambda, run for k = nt..0:
//   nu_q^k  = b_q nu_q^{k+1} + q^{k+1}
//   mu_q^k  = b_q mu_q^{k+1} + D_q^T (q^{k+1} + a_q nu_q^k)
//   q^k     = 2 q^{k+1} - q^{k+2} + W (L q^{k+1} + sum_q [D_q^T (a_q mu_q^k) + D2_q (a_q nu_q^k)])
//             + W M^T r^{k-1}                                     (r = residual, k >= 1)
//   dE/dc  += (2 / (c W)) q^{k+1} (P^{k+1} - 2 P^k + P^{k-1} - s^k)  (k <= nt-1)
// D_q^T = -D_q on fields that vanish on the outer ring. Outside the CPML (a_q = 0) the adjoint step
// is the forward step itself with the residual, scaled by W, as its source: the study's
// back-propagation (Algorithm 1, lines 21-31). Inside the CPML the memory terms are transposed,
// which makes the gradient the exact gradient of the discrete misfit. The last line is eq 2.3 /
// Algorithm 1 line 32: -(1/c^3) int q d2P/dt2 dt, with the factor 2 of d(c^2)/dc and q's sign
// (the residual is injected with +).
#pragma once

#include <cstddef>
#include <vector>

#include "warpmodel/fwi/cpml.hpp"
#include "warpmodel/fwi/experiment.hpp"

namespace warpmodel::fwi {

// W = (c dt)^2 per point: G^2 h^2 of eq 2.16.
std::vector<double> squared_courant_factor(const Experiment& s, const std::vector<double>& velocity);

// --- the forward step (the study's kernels) ---
void psi(const Grid& g, const Cpml& cpml, const double* p, double* psi_x, double* psi_z);
void propagator_half(const Grid& g, const Cpml& cpml, const double* w, const double* p_prev, const double* p,
                     const double* psi_x, const double* psi_z, double* zeta_x, double* zeta_z, double* p_next);
inline void add_source(double* p_next, std::size_t at, double value) { p_next[at] += value; }

// --- the adjoint step ---
// nu^k, then mu^k (which needs a_q nu^k at the neighbours), from q^{k+1}.
void psi_adjoint(const Grid& g, const Cpml& cpml, const double* q, double* mu_x, double* mu_z, double* nu_x,
                 double* nu_z);
// q^k from q^{k+2} (q_prev), q^{k+1} (q) and mu^k, nu^k; q_next may be q_prev (updated in place).
void propagator_half_adjoint(const Grid& g, const Cpml& cpml, const double* w, const double* q_prev, const double* q,
                             const double* mu_x, const double* mu_z, const double* nu_x, const double* nu_z,
                             double* q_next);
// q^k += W M^T r: `residual` holds one sample per receiver (receiver_i at row receiver_j).
void inject_residual(const Grid& g, const Acquisition& acq, const double* w, const double* residual, double* q);
// gradient += (2 / (c W)) q^{k+1} (P^{k+1} - 2 P^k + P^{k-1}), with the source sample taken out of
// P^{k+1} at the source point first (source_value = s^k, at `source_at`).
void gradiente(const Grid& g, const std::vector<double>& velocity, const double* w, const double* q, const double* p_next,
               const double* p, const double* p_prev, std::size_t source_at, double source_value, double* gradient);

// A shot gather: samples[n * receivers + r] = P^{n+1} at receiver r, n = 0..nt-1.
struct ShotRecord {
  int nt = 0, receivers = 0;
  std::vector<double> samples;
  double& at(int n, int r) { return samples[static_cast<std::size_t>(n) * receivers + r]; }
  double at(int n, int r) const { return samples[static_cast<std::size_t>(n) * receivers + r]; }
};

// The pressure at every step of one shot: frames P^0..P^nt (the study's "pelicula" p_s).
struct Film {
  std::size_t frame_size = 0;
  std::vector<double> frames;
  const double* frame(int n) const { return frames.data() + static_cast<std::size_t>(n) * frame_size; }
  double* frame(int n) { return frames.data() + static_cast<std::size_t>(n) * frame_size; }
};

// Forward modelling of shot `shot`: its gather, and the film when `film` is given.
ShotRecord model_shot(const Experiment& s, const Cpml& cpml, const std::vector<double>& velocity, int shot,
                      Film* film = nullptr);
// The same run recording P^{n+1} at any grid points (indices < grid size), one "receiver" each.
ShotRecord record_points(const Experiment& s, const Cpml& cpml, const std::vector<double>& velocity, int shot,
                         const std::vector<std::size_t>& points);

// The back-propagation of one shot's residual (r = modelled - observed, a ShotRecord) against its
// film; adds this shot's dE/dc to `gradient` (grid size).
void adjoint_shot(const Experiment& s, const Cpml& cpml, const std::vector<double>& velocity, int shot, const Film& film,
                  const ShotRecord& residual, std::vector<double>& gradient);

}  // namespace warpmodel::fwi
