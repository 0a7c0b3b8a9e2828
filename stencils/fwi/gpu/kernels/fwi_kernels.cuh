// The FWI's GPU kernels, single precision as in the study, written once for both compilers: nvcc
// for the GPU and the host compiler against the CPU emulation of blocks and barriers
// (stencils/gpu/emulation), which CI runs against the double-precision CPU reference
// (stencils/fwi/src/propagator.cpp: each kernel computes what the function of the same name there
// computes). The study's kernel names are kept; the template argument F holds the phase's switches:
//   kSharedP   Propagator_half's P^n (q^{k+1}) tile in shared memory (phase 1)
//   kCpmlOnly  psi, zeta, mu, nu read and written only where a_q != 0 (phase 3); without it the
//              memory variables are read and written at every interior point, as the original
//   kReadOnly  the arrays a kernel only reads go through the read-only data path (phase 6)
//   kGradient  the adjoint kernel accumulates the gradient against the film of P (phase 5)
//   kFastMath  a tag: the instantiations compiled with --use_fast_math (their own symbols)
#pragma once

#include <cmath>

#include "../../../gpu/kernels/portability.cuh"
#include "fwi_params.hpp"

namespace warpmodel::fwi::gpu::kernels {

using namespace warpmodel::stencils::gpu::kernels;  // thread_x, block_sync, load_global, ...

enum : int { kSharedP = 1, kCpmlOnly = 2, kReadOnly = 4, kGradient = 8, kFastMath = 16 };

// A load of an array the kernel never writes: through the read-only path when the phase says so.
template <int F, class T>
WM_DEVICE T ld(const T* p) {
  if constexpr ((F & kReadOnly) != 0)
    return load_readonly(p);
  else
    return load_global(p);
}

// 1 / x rounded to nearest: the gradient's 2 / (c W). Through __frcp_rn on the GPU rather than a
// division, whose IEEE slow path is a subroutine call that the SASS analysis's block leaders
// (profiles/sass) do not reproduce for nvdisasm in these kernels.
WM_DEVICE float reciprocal(float x) {
#if defined(__CUDACC__)
  return __frcp_rn(x);
#else
  return 1.0f / x;
#endif
}

// The points the scheme updates: everything but the outer ring (P = 0 there: the free surface on
// top and the back of each layer).
WM_DEVICE bool interior(const StepParams& p, int i, int j) { return i >= 1 && i < p.nx - 1 && j >= 1 && j < p.nz - 1; }

WM_DEVICE long long at(const StepParams& p, int i, int j) { return static_cast<long long>(j) * p.nx + i; }

// --- get_CPML_x_half, get_CPML_z_half: eqs 2.20-2.23, one thread per column (row) ---

WM_DEVICE void cpml_coefficients(const CpmlParams& p, int k) {
  if (k >= p.n) return;
  float x = 0.0f;  // distance into the layer from its inner edge, m
  if (p.low && k < p.width)
    x = float(p.width - k) * p.h;
  else if (p.high && k > p.n - 1 - p.width)
    x = float(k - (p.n - 1 - p.width)) * p.h;
  float a = 0.0f, b = 1.0f;
  if (x > 0.0f) {
    const float L = float(p.width) * p.h;
    const float d0 = 3.0f * logf(1.0f / p.reflection) / (2.0f * L);            // Collino & Tsogka
    const float d = d0 * p.velocity * powf(x / L, 2.0f);                         // eq 2.22
    const float alpha = 3.14159265358979f * p.frequency * (L - x) / L;          // eq 2.23
    b = expf(-(d + alpha) * p.dt);                                               // eq 2.21
    a = d / (d + alpha) * (b - 1.0f);                                            // eq 2.20, corrected (docs/fwi.md)
  }
  store_global(p.a + k, a);
  store_global(p.b + k, b);
}

template <int F>
WM_KERNEL void get_cpml_x_half(CpmlParams p) {
  cpml_coefficients(p, int(block_x() * block_dim_x() + thread_x()));
}
template <int F>
WM_KERNEL void get_cpml_z_half(CpmlParams p) {
  cpml_coefficients(p, int(block_x() * block_dim_x() + thread_x()));
}

// --- the forward step, unfused: PSI then Propagator_half (original, phase 1) ---

// eq 2.18 at every interior point, in place (a_q = 0, b_q = 1 outside the layers leaves psi at 0).
template <int F>
WM_KERNEL void psi(StepParams p) {
  const int i = int(block_x() * block_dim_x() + thread_x()), j = int(block_y() * block_dim_y() + thread_y());
  if (!interior(p, i, j)) return;
  const long long c = at(p, i, j);
  const float ax = ld<F>(p.ax + i), az = ld<F>(p.az + j);
  store_global(p.psi_x + c, ld<F>(p.bx + i) * load_global(p.psi_x + c) +
                                ax * (ld<F>(p.field + c + 1) - ld<F>(p.field + c - 1)) * p.inv_2h);
  store_global(p.psi_z + c, ld<F>(p.bz + j) * load_global(p.psi_z + c) +
                                az * (ld<F>(p.field + c + p.nx) - ld<F>(p.field + c - p.nx)) * p.inv_2h);
}

// P^n and its four neighbours: from a shared tile (phase 1) or from global memory.
struct Cross {
  float centre, left, right, up, down;
};

// Loads the block's (bw + 2) x (bh + 2) tile of `field` (halo 1, corners unused) when F has kSharedP;
// every thread of the block must call it (it holds a barrier).
template <int F>
WM_DEVICE Cross load_cross(const StepParams& p, const float* field, int i, int j) {
  if constexpr ((F & kSharedP) != 0) {
    const int tx = int(thread_x()), ty = int(thread_y()), bw = int(block_dim_x()), bh = int(block_dim_y());
    const int tw = bw + 2;
    float* tile = dynamic_shared<float>();
    auto inside = [&](int gi, int gj) { return gi >= 0 && gi < p.nx && gj >= 0 && gj < p.nz; };
    auto fetch = [&](int gi, int gj) { return inside(gi, gj) ? ld<F>(field + at(p, gi, gj)) : 0.0f; };
    tile[(ty + 1) * tw + tx + 1] = fetch(i, j);
    if (tx == 0) tile[(ty + 1) * tw] = fetch(i - 1, j);
    if (tx == bw - 1) tile[(ty + 1) * tw + bw + 1] = fetch(i + 1, j);
    if (ty == 0) tile[tx + 1] = fetch(i, j - 1);
    if (ty == bh - 1) tile[(bh + 1) * tw + tx + 1] = fetch(i, j + 1);
    block_sync();
    const int s = (ty + 1) * tw + tx + 1;
    return {tile[s], tile[s - 1], tile[s + 1], tile[s - tw], tile[s + tw]};
  } else {
    if (!interior(p, i, j)) return {0, 0, 0, 0, 0};
    const long long c = at(p, i, j);
    return {ld<F>(field + c), ld<F>(field + c - 1), ld<F>(field + c + 1), ld<F>(field + c - p.nx),
            ld<F>(field + c + p.nx)};
  }
}

// eq 2.19 (zeta) and eq 2.16 (P^{n+1}), the source added at its point.
template <int F>
WM_KERNEL void propagator_half(StepParams p) {
  const int i = int(block_x() * block_dim_x() + thread_x()), j = int(block_y() * block_dim_y() + thread_y());
  const Cross P = load_cross<F>(p, p.field, i, j);
  if (!interior(p, i, j)) return;
  const long long c = at(p, i, j);
  const float ax = ld<F>(p.ax + i), az = ld<F>(p.az + j);
  const float dpsi_x = (load_global(p.psi_x + c + 1) - load_global(p.psi_x + c - 1)) * p.inv_2h;
  const float dpsi_z = (load_global(p.psi_z + c + p.nx) - load_global(p.psi_z + c - p.nx)) * p.inv_2h;
  const float zx = ld<F>(p.bx + i) * load_global(p.zeta_x + c) + ax * ((P.right - 2.0f * P.centre + P.left) * p.inv_h2 + dpsi_x);
  const float zz = ld<F>(p.bz + j) * load_global(p.zeta_z + c) + az * ((P.down - 2.0f * P.centre + P.up) * p.inv_h2 + dpsi_z);
  store_global(p.zeta_x + c, zx);
  store_global(p.zeta_z + c, zz);
  const float laplacian = (P.right + P.left + P.down + P.up - 4.0f * P.centre) * p.inv_h2;
  float next = 2.0f * P.centre - ld<F>(p.field_prev + c) + ld<F>(p.w + c) * (laplacian + dpsi_x + dpsi_z + zx + zz);
  if (c == p.source_at) next += ld<F>(p.wavelet + p.step);
  store_global(p.field_next + c, next);
}

// --- the forward step fused (phases 2-6): Prop_psi ---
// The block's P^n tile with a halo of 2 in shared memory; psi_x for its columns and one more on
// each side, psi_z for its rows and one more above and below (each thread computes the psi of its
// own point, stores it, and the halo's are recomputed from the neighbours' old values: psi_*_in,
// which no block writes in this launch); a barrier; zeta and P^{n+1}.
template <int F>
WM_KERNEL void prop_psi(StepParams p) {
  const int tx = int(thread_x()), ty = int(thread_y()), bw = int(block_dim_x()), bh = int(block_dim_y());
  const int i0 = int(block_x()) * bw, j0 = int(block_y()) * bh, i = i0 + tx, j = j0 + ty;
  const int tid = ty * bw + tx, threads = bw * bh;
  const int tw = bw + 4, th = bh + 4;
  float* sp = dynamic_shared<float>();
  float* sx = sp + tw * th;         // psi_x, (bw + 2) x bh
  float* sz = sx + (bw + 2) * bh;   // psi_z, bw x (bh + 2)
  for (int t = tid; t < tw * th; t += threads) {
    const int gi = i0 - 2 + t % tw, gj = j0 - 2 + t / tw;
    sp[t] = (gi >= 0 && gi < p.nx && gj >= 0 && gj < p.nz) ? ld<F>(p.field + at(p, gi, gj)) : 0.0f;
  }
  block_sync();
  auto P = [&](int li, int lj) { return sp[(lj + 2) * tw + li + 2]; };
  for (int t = tid; t < (bw + 2) * bh; t += threads) {
    const int li = t % (bw + 2) - 1, lj = t / (bw + 2), gi = i0 + li, gj = j0 + lj;
    float v = 0.0f;
    if (interior(p, gi, gj)) {
      const float a = ld<F>(p.ax + gi);
      if ((F & kCpmlOnly) == 0 || a != 0.0f) {
        const long long c = at(p, gi, gj);
        v = ld<F>(p.bx + gi) * ld<F>(p.psi_x_in + c) + a * (P(li + 1, lj) - P(li - 1, lj)) * p.inv_2h;
        if (li >= 0 && li < bw) store_global(p.psi_x + c, v);
      }
    }
    sx[lj * (bw + 2) + li + 1] = v;
  }
  for (int t = tid; t < bw * (bh + 2); t += threads) {
    const int li = t % bw, lj = t / bw - 1, gi = i0 + li, gj = j0 + lj;
    float v = 0.0f;
    if (interior(p, gi, gj)) {
      const float a = ld<F>(p.az + gj);
      if ((F & kCpmlOnly) == 0 || a != 0.0f) {
        const long long c = at(p, gi, gj);
        v = ld<F>(p.bz + gj) * ld<F>(p.psi_z_in + c) + a * (P(li, lj + 1) - P(li, lj - 1)) * p.inv_2h;
        if (lj >= 0 && lj < bh) store_global(p.psi_z + c, v);
      }
    }
    sz[(lj + 1) * bw + li] = v;
  }
  block_sync();
  if (!interior(p, i, j)) return;
  const long long c = at(p, i, j);
  const float centre = P(tx, ty), left = P(tx - 1, ty), right = P(tx + 1, ty), up = P(tx, ty - 1), down = P(tx, ty + 1);
  const float dpsi_x = (sx[ty * (bw + 2) + tx + 2] - sx[ty * (bw + 2) + tx]) * p.inv_2h;
  const float dpsi_z = (sz[(ty + 2) * bw + tx] - sz[ty * bw + tx]) * p.inv_2h;
  float zx = 0.0f, zz = 0.0f;
  const float ax = ld<F>(p.ax + i), az = ld<F>(p.az + j);
  if ((F & kCpmlOnly) == 0 || ax != 0.0f) {
    zx = ld<F>(p.bx + i) * load_global(p.zeta_x + c) + ax * ((right - 2.0f * centre + left) * p.inv_h2 + dpsi_x);
    store_global(p.zeta_x + c, zx);
  }
  if ((F & kCpmlOnly) == 0 || az != 0.0f) {
    zz = ld<F>(p.bz + j) * load_global(p.zeta_z + c) + az * ((down - 2.0f * centre + up) * p.inv_h2 + dpsi_z);
    store_global(p.zeta_z + c, zz);
  }
  const float laplacian = (right + left + down + up - 4.0f * centre) * p.inv_h2;
  float next = 2.0f * centre - ld<F>(p.field_prev + c) + ld<F>(p.w + c) * (laplacian + dpsi_x + dpsi_z + zx + zz);
  if (c == p.source_at) next += ld<F>(p.wavelet + p.step);
  store_global(p.field_next + c, next);
}

// --- the adjoint step, unfused: PSI_adjoint then Propagator_half_adjoint ---

// nu_q^k = b_q nu_q^{k+1} + q^{k+1} where a_q != 0 (0 elsewhere): the value at (gi, gj) from the
// old array, so that a thread can compute its neighbours' too.
template <int F>
WM_DEVICE float nu_x_at(const StepParams& p, int gi, int gj) {
  if (!interior(p, gi, gj) || ld<F>(p.ax + gi) == 0.0f) return 0.0f;
  const long long c = at(p, gi, gj);
  return ld<F>(p.bx + gi) * ld<F>(p.nu_x_in + c) + ld<F>(p.field + c);
}
template <int F>
WM_DEVICE float nu_z_at(const StepParams& p, int gi, int gj) {
  if (!interior(p, gi, gj) || ld<F>(p.az + gj) == 0.0f) return 0.0f;
  const long long c = at(p, gi, gj);
  return ld<F>(p.bz + gj) * ld<F>(p.nu_z_in + c) + ld<F>(p.field + c);
}

// nu^k (into nu_*, from nu_*_in) and mu^k (in place) at every interior point:
//   mu_q^k = b_q mu_q^{k+1} + D_q^T (q^{k+1} + a_q nu_q^k), D_q^T v = (v_{-1} - v_{+1}) / (2h).
template <int F>
WM_KERNEL void psi_adjoint(StepParams p) {
  const int i = int(block_x() * block_dim_x() + thread_x()), j = int(block_y() * block_dim_y() + thread_y());
  if (!interior(p, i, j)) return;
  const long long c = at(p, i, j);
  const float ax = ld<F>(p.ax + i), az = ld<F>(p.az + j);
  // The original reads and writes the memory variables everywhere; they stay 0 outside the layers.
  const float nu_x_old = ld<F>(p.nu_x_in + c), nu_z_old = ld<F>(p.nu_z_in + c), q = ld<F>(p.field + c);
  store_global(p.nu_x + c, ax != 0.0f ? ld<F>(p.bx + i) * nu_x_old + q : 0.0f);
  store_global(p.nu_z + c, az != 0.0f ? ld<F>(p.bz + j) * nu_z_old + q : 0.0f);
  const float mu_x_old = load_global(p.mu_x + c), mu_z_old = load_global(p.mu_z + c);
  float mx = 0.0f, mz = 0.0f;
  if (ax != 0.0f) {
    const float left = ld<F>(p.field + c - 1) + ld<F>(p.ax + i - 1) * nu_x_at<F>(p, i - 1, j);
    const float right = ld<F>(p.field + c + 1) + ld<F>(p.ax + i + 1) * nu_x_at<F>(p, i + 1, j);
    mx = ld<F>(p.bx + i) * mu_x_old + (left - right) * p.inv_2h;
  }
  if (az != 0.0f) {
    const float up = ld<F>(p.field + c - p.nx) + ld<F>(p.az + j - 1) * nu_z_at<F>(p, i, j - 1);
    const float down = ld<F>(p.field + c + p.nx) + ld<F>(p.az + j + 1) * nu_z_at<F>(p, i, j + 1);
    mz = ld<F>(p.bz + j) * mu_z_old + (up - down) * p.inv_2h;
  }
  store_global(p.mu_x + c, mx);
  store_global(p.mu_z + c, mz);
}

// W M^T r^{k-1} at the receivers (the residual's row for this step).
template <int F>
WM_DEVICE float injected(const StepParams& p, int i, int j, float w) {
  if (p.residual == nullptr || j != p.receiver_row || i < p.receiver_i0 || i >= p.receiver_i0 + p.receivers) return 0.0f;
  return w * ld<F>(p.residual + (i - p.receiver_i0));
}

// q^k = 2 q^{k+1} - q^{k+2} + W (L q^{k+1} + sum_q [D_q^T (a_q mu_q^k) + D2_q (a_q nu_q^k)]) + W M^T r^{k-1}.
template <int F>
WM_KERNEL void propagator_half_adjoint(StepParams p) {
  const int i = int(block_x() * block_dim_x() + thread_x()), j = int(block_y() * block_dim_y() + thread_y());
  const Cross q = load_cross<F>(p, p.field, i, j);
  if (!interior(p, i, j)) return;
  const long long c = at(p, i, j);
  const float axm = ld<F>(p.ax + i - 1), ax0 = ld<F>(p.ax + i), axp = ld<F>(p.ax + i + 1);
  const float azm = ld<F>(p.az + j - 1), az0 = ld<F>(p.az + j), azp = ld<F>(p.az + j + 1);
  float sum = (q.right + q.left + q.down + q.up - 4.0f * q.centre) * p.inv_h2;
  sum += (axm * load_global(p.mu_x + c - 1) - axp * load_global(p.mu_x + c + 1)) * p.inv_2h +
         (axp * load_global(p.nu_x + c + 1) - 2.0f * ax0 * load_global(p.nu_x + c) + axm * load_global(p.nu_x + c - 1)) *
             p.inv_h2;
  sum += (azm * load_global(p.mu_z + c - p.nx) - azp * load_global(p.mu_z + c + p.nx)) * p.inv_2h +
         (azp * load_global(p.nu_z + c + p.nx) - 2.0f * az0 * load_global(p.nu_z + c) +
          azm * load_global(p.nu_z + c - p.nx)) *
             p.inv_h2;
  const float w = ld<F>(p.w + c);
  store_global(p.field_next + c, 2.0f * q.centre - ld<F>(p.field_prev + c) + w * sum + injected<F>(p, i, j, w));
}

// --- the adjoint step fused (phases 2-6): Prop_psi_adjoint ---
// q^{k+1}'s tile with a halo of 2; nu^k for the block's points and two more on each side (mu needs
// it at the neighbours), a barrier; mu^k for one more on each side, a barrier; q^k. nu and mu are
// pairs that swap (*_in old, the other new). With kGradient, eq 2.3's term of this step too:
// gradient += (2 / (c W)) q^{k+1} (P^{k+1} - 2 P^k + P^{k-1} - s^k at the source).
template <int F>
WM_KERNEL void prop_psi_adjoint(StepParams p) {
  const int tx = int(thread_x()), ty = int(thread_y()), bw = int(block_dim_x()), bh = int(block_dim_y());
  const int i0 = int(block_x()) * bw, j0 = int(block_y()) * bh, i = i0 + tx, j = j0 + ty;
  const int tid = ty * bw + tx, threads = bw * bh;
  const int tw = bw + 4, th = bh + 4;
  float* sq = dynamic_shared<float>();
  float* snx = sq + tw * th;            // nu_x, (bw + 4) x bh
  float* snz = snx + (bw + 4) * bh;     // nu_z, bw x (bh + 4)
  float* smx = snz + bw * (bh + 4);     // mu_x, (bw + 2) x bh
  float* smz = smx + (bw + 2) * bh;     // mu_z, bw x (bh + 2)
  for (int t = tid; t < tw * th; t += threads) {
    const int gi = i0 - 2 + t % tw, gj = j0 - 2 + t / tw;
    sq[t] = (gi >= 0 && gi < p.nx && gj >= 0 && gj < p.nz) ? ld<F>(p.field + at(p, gi, gj)) : 0.0f;
  }
  block_sync();
  auto Q = [&](int li, int lj) { return sq[(lj + 2) * tw + li + 2]; };
  auto NUX = [&](int li, int lj) { return snx[lj * (bw + 4) + li + 2]; };
  auto NUZ = [&](int li, int lj) { return snz[(lj + 2) * bw + li]; };
  auto MUX = [&](int li, int lj) { return smx[lj * (bw + 2) + li + 1]; };
  auto MUZ = [&](int li, int lj) { return smz[(lj + 1) * bw + li]; };
  for (int t = tid; t < (bw + 4) * bh; t += threads) {
    const int li = t % (bw + 4) - 2, lj = t / (bw + 4), gi = i0 + li, gj = j0 + lj;
    float v = 0.0f;
    if (interior(p, gi, gj)) {
      const float a = ld<F>(p.ax + gi);
      if ((F & kCpmlOnly) == 0 || a != 0.0f) {
        const long long c = at(p, gi, gj);
        const float old = ld<F>(p.nu_x_in + c);
        v = a != 0.0f ? ld<F>(p.bx + gi) * old + Q(li, lj) : 0.0f;
        if (li >= 0 && li < bw) store_global(p.nu_x + c, v);
      }
    }
    snx[t] = v;
  }
  for (int t = tid; t < bw * (bh + 4); t += threads) {
    const int li = t % bw, lj = t / bw - 2, gi = i0 + li, gj = j0 + lj;
    float v = 0.0f;
    if (interior(p, gi, gj)) {
      const float a = ld<F>(p.az + gj);
      if ((F & kCpmlOnly) == 0 || a != 0.0f) {
        const long long c = at(p, gi, gj);
        const float old = ld<F>(p.nu_z_in + c);
        v = a != 0.0f ? ld<F>(p.bz + gj) * old + Q(li, lj) : 0.0f;
        if (lj >= 0 && lj < bh) store_global(p.nu_z + c, v);
      }
    }
    snz[t] = v;
  }
  block_sync();
  for (int t = tid; t < (bw + 2) * bh; t += threads) {
    const int li = t % (bw + 2) - 1, lj = t / (bw + 2), gi = i0 + li, gj = j0 + lj;
    float v = 0.0f;
    if (interior(p, gi, gj)) {
      const float a = ld<F>(p.ax + gi);
      if ((F & kCpmlOnly) == 0 || a != 0.0f) {
        const long long c = at(p, gi, gj);
        const float old = ld<F>(p.mu_x_in + c);
        if (a != 0.0f) {
          const float left = Q(li - 1, lj) + ld<F>(p.ax + gi - 1) * NUX(li - 1, lj);
          const float right = Q(li + 1, lj) + ld<F>(p.ax + gi + 1) * NUX(li + 1, lj);
          v = ld<F>(p.bx + gi) * old + (left - right) * p.inv_2h;
        }
        if (li >= 0 && li < bw) store_global(p.mu_x + c, v);
      }
    }
    smx[t] = v;
  }
  for (int t = tid; t < bw * (bh + 2); t += threads) {
    const int li = t % bw, lj = t / bw - 1, gi = i0 + li, gj = j0 + lj;
    float v = 0.0f;
    if (interior(p, gi, gj)) {
      const float a = ld<F>(p.az + gj);
      if ((F & kCpmlOnly) == 0 || a != 0.0f) {
        const long long c = at(p, gi, gj);
        const float old = ld<F>(p.mu_z_in + c);
        if (a != 0.0f) {
          const float up = Q(li, lj - 1) + ld<F>(p.az + gj - 1) * NUZ(li, lj - 1);
          const float down = Q(li, lj + 1) + ld<F>(p.az + gj + 1) * NUZ(li, lj + 1);
          v = ld<F>(p.bz + gj) * old + (up - down) * p.inv_2h;
        }
        if (lj >= 0 && lj < bh) store_global(p.mu_z + c, v);
      }
    }
    smz[t] = v;
  }
  block_sync();
  if (!interior(p, i, j)) return;
  const long long c = at(p, i, j);
  const float centre = Q(tx, ty);
  float sum = (Q(tx + 1, ty) + Q(tx - 1, ty) + Q(tx, ty + 1) + Q(tx, ty - 1) - 4.0f * centre) * p.inv_h2;
  const float axm = ld<F>(p.ax + i - 1), ax0 = ld<F>(p.ax + i), axp = ld<F>(p.ax + i + 1);
  if ((F & kCpmlOnly) == 0 || axm != 0.0f || ax0 != 0.0f || axp != 0.0f)
    sum += (axm * MUX(tx - 1, ty) - axp * MUX(tx + 1, ty)) * p.inv_2h +
           (axp * NUX(tx + 1, ty) - 2.0f * ax0 * NUX(tx, ty) + axm * NUX(tx - 1, ty)) * p.inv_h2;
  const float azm = ld<F>(p.az + j - 1), az0 = ld<F>(p.az + j), azp = ld<F>(p.az + j + 1);
  if ((F & kCpmlOnly) == 0 || azm != 0.0f || az0 != 0.0f || azp != 0.0f)
    sum += (azm * MUZ(tx, ty - 1) - azp * MUZ(tx, ty + 1)) * p.inv_2h +
           (azp * NUZ(tx, ty + 1) - 2.0f * az0 * NUZ(tx, ty) + azm * NUZ(tx, ty - 1)) * p.inv_h2;
  const float w = ld<F>(p.w + c);
  store_global(p.field_next + c, 2.0f * centre - ld<F>(p.field_prev + c) + w * sum + injected<F>(p, i, j, w));
  if constexpr ((F & kGradient) != 0) {
    if (p.step <= p.nt - 1) {
      float d2p = ld<F>(p.film_next + c) - 2.0f * ld<F>(p.film_now + c) + ld<F>(p.film_prev + c);
      if (c == p.source_at) d2p -= ld<F>(p.wavelet + p.step);
      store_global(p.gradient + c, load_global(p.gradient + c) + 2.0f * reciprocal(ld<F>(p.velocity + c) * w) * centre * d2p);
    }
  }
}

// --- Gradiente over the films (original to reorganised): eq 2.3 for one shot, every step ---
// gradient += (2 / (c W)) sum_k q^{k+1} (P^{k+1} - 2 P^k + P^{k-1} - s^k at the source), k = 0..nt-1,
// with q's frame k holding q^k and P's frame n holding P^n (P^{-1} = P^0 = 0).
template <int F>
WM_KERNEL void gradiente(StepParams p) {
  const int i = int(block_x() * block_dim_x() + thread_x()), j = int(block_y() * block_dim_y() + thread_y());
  if (!interior(p, i, j)) return;
  const long long c = at(p, i, j);
  float sum = 0.0f;
  for (int k = 0; k < p.nt; ++k) {
    const long long prev = (k > 0 ? k - 1 : 0) * p.frame;
    float d2p = ld<F>(p.p_film + (k + 1) * p.frame + c) - 2.0f * ld<F>(p.p_film + k * p.frame + c) + ld<F>(p.p_film + prev + c);
    if (c == p.source_at) d2p -= ld<F>(p.wavelet + k);
    sum += ld<F>(p.q_film + (k + 1) * p.frame + c) * d2p;
  }
  const float w = ld<F>(p.w + c);
  store_global(p.gradient + c, load_global(p.gradient + c) + 2.0f * reciprocal(ld<F>(p.velocity + c) * w) * sum);
}

// --- the update and its reductions ---

WM_DEVICE long long global_index() {
  return static_cast<long long>(block_x()) * block_dim_x() + thread_x();
}

// Residual: r[n R + r] = P^{n+1} at receiver r - observed (a), from the film.
template <int F>
WM_KERNEL void residual(VecParams p) {
  const long long e = global_index();
  if (e >= p.n) return;
  const long long n = e / p.receivers, r = e % p.receivers;
  const long long c = static_cast<long long>(p.receiver_row) * p.nx + p.receiver_i0 + r;
  store_global(p.out + e, ld<F>(p.film + (n + 1) * p.frame + c) - ld<F>(p.a + e));
}

// acumulador: the sum over shots, out += a.
template <int F>
WM_KERNEL void acumulador(VecParams p) {
  const long long e = global_index();
  if (e < p.n) store_global(p.out + e, load_global(p.out + e) + ld<F>(p.a + e));
}

WM_DEVICE bool in_mask(const VecParams& p, long long e) {
  const int i = int(e % p.nx), j = int(e / p.nx);
  return i >= p.i0 && i < p.i1 && j >= p.j0 && j < p.j1;
}

// The block's reduction of one value per thread in shared memory (kReductionThreads threads,
// 1-D blocks); thread 0 gets the result. `max` or sum.
template <bool Max>
WM_DEVICE float block_reduce(float v) {
  float* s = dynamic_shared<float>();
  const int t = int(thread_x());
  s[t] = v;
  block_sync();
  for (int half = kReductionThreads / 2; half > 0; half /= 2) {
    if (t < half) s[t] = Max ? (s[t] > s[t + half] ? s[t] : s[t + half]) : s[t] + s[t + half];
    block_sync();
  }
  return s[0];
}

// Paral_max: max |a| over the mask, one block (the study's kernel), into out[0].
template <int F>
WM_KERNEL void paral_max(VecParams p) {
  float m = 0.0f;
  for (long long e = thread_x(); e < p.n; e += kReductionThreads)
    if (in_mask(p, e)) {
      const float v = fabsf(ld<F>(p.a + e));
      m = v > m ? v : m;
    }
  m = block_reduce<true>(m);
  if (thread_x() == 0) store_global(p.out, m);
}

// Grad_scal: the direction out = -scalar a inside the mask, 0 outside (c - k g of Algorithm 1).
template <int F>
WM_KERNEL void grad_scal(VecParams p) {
  const long long e = global_index();
  if (e < p.n) store_global(p.out + e, in_mask(p, e) ? -p.scalar * ld<F>(p.a + e) : 0.0f);
}

// New_model: c = clamp(c + d, v_min, v_max) in place (out), and W = (c dt)^2 (out2).
template <int F>
WM_KERNEL void new_model(VecParams p) {
  const long long e = global_index();
  if (e >= p.n) return;
  float c = load_global(p.out + e) + ld<F>(p.a + e);
  c = c < p.v_min ? p.v_min : (c > p.v_max ? p.v_max : c);
  store_global(p.out + e, c);
  store_global(p.out2 + e, c * c * p.dt2);
}

// scale_grad, the dot product a . b in two passes (phase 4): kDotBlocks blocks each sum a
// grid-stride share into out[block]; then one block sums those into out2[0].
template <int F>
WM_KERNEL void scale_grad(VecParams p) {
  float s = 0.0f;
  for (long long e = global_index(); e < p.n; e += static_cast<long long>(kDotBlocks) * kReductionThreads)
    s += ld<F>(p.a + e) * ld<F>(p.b + e);
  s = block_reduce<false>(s);
  if (thread_x() == 0) store_global(p.out + block_x(), s);
}
template <int F>
WM_KERNEL void scale_grad_final(VecParams p) {
  float s = 0.0f;
  for (long long e = thread_x(); e < p.n; e += kReductionThreads) s += load_global(p.out + e);
  s = block_reduce<false>(s);
  if (thread_x() == 0) store_global(p.out2, s);
}

}  // namespace warpmodel::fwi::gpu::kernels
