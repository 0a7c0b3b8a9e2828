// Tridiagonal building blocks (thesis chapter 5), shared by the CPU reference, the GPU kernels and
// the host emulation of the block kernels in the tests.
//
// A row is a x_{r-1} + b x_r + c x_{r+1} = d; a = 0 in the first row, c = 0 in the last.
#pragma once

#include "warpmodel/adi/hd.hpp"

namespace warpmodel::adi {

template <class T>
struct TriRow {
  T a, b, c, d;
};

// Thomas algorithm (thesis 5.2, algorithms 1 and 2: one reciprocal per row). x may alias d;
// c_prime is scratch of n entries. Strided so it serves the interleaved layout (stride = batch).
template <class T>
WARPMODEL_ADI_HD void thomas_solve(int n, const T* a, const T* b, const T* c, const T* d, T* c_prime, T* x,
                                   int stride) {
  T r = T(1) / b[0];
  T cp = c[0] * r;
  T dp = d[0] * r;
  c_prime[0] = cp;
  x[0] = dp;
  for (int i = 1; i < n; ++i) {
    const int s = i * stride;
    const T ai = a[s];
    r = T(1) / (b[s] - cp * ai);
    cp = c[s] * r;
    dp = (d[s] - dp * ai) * r;
    c_prime[s] = cp;
    x[s] = dp;
  }
  T xi = dp;
  for (int i = n - 2; i >= 0; --i) {
    const int s = i * stride;
    xi = x[s] - c_prime[s] * xi;
    x[s] = xi;
  }
}

// --- The Thomas algorithm on one ADI line, with the mass pivots folded in ----------------------
// Forward elimination over the interleaved rows zeta_0, p_0, zeta_1, ... would need two dependent
// reciprocals per cell. The mass row of cell i after elimination reads e_i zeta_i + p_i = g_i with
//   e_i = B + cp_{i-1},  g_i = dma_i + dp_{i-1}   (e_0 = B, g_0 = dma_0),
// and the momentum row, multiplied by e_i, gives p_i + cp_i zeta_{i+1} = dp_i with
//   cp_i = cmo_i e_i / (bmo_i e_i - amo_i),  dp_i = (dmo_i e_i - amo_i g_i) / (bmo_i e_i - amo_i).
// Same elimination order and pivots as Thomas on the interleaved system, one reciprocal per cell
// on the dependency chain (which is what bounds the thread-per-line kernel). Back substitution:
//   zeta_{n-1} = g_{n-1} / e_{n-1};  p_i = dp_i - cp_i zeta_{i+1};  zeta_i = (g_i - p_i) / e_i,
// with e_i and g_i recomputed from cp_{i-1}, dp_{i-1} and dma_i exactly as in the forward pass.
template <class T>
struct MassPivot {
  T e;  // coefficient of zeta_i once p_{i-1} is eliminated
  T g;  // right-hand side of that row
};

template <class T>
WARPMODEL_ADI_HD MassPivot<T> first_mass_pivot(T dma0, T mass_diagonal) {
  return {mass_diagonal, dma0};
}

template <class T>
WARPMODEL_ADI_HD MassPivot<T> next_mass_pivot(T dma, T cp_prev, T dp_prev, T mass_diagonal) {
  return {mass_diagonal + cp_prev, dma + dp_prev};
}

// Eliminates zeta_i from momentum row i; returns (cp_i, dp_i).
template <class T>
WARPMODEL_ADI_HD void folded_thomas_forward(T amo, T bmo, T cmo, T dmo, MassPivot<T> pivot, T& cp, T& dp) {
  const T r = adi_reciprocal(bmo * pivot.e - amo);
  cp = cmo * pivot.e * r;
  dp = (dmo * pivot.e - amo * pivot.g) * r;
}

// The same elimination from the bottom of the line. The mass row of cell i, once p_i is eliminated
// with the rows below, reads f_i zeta_i - p_{i-1} = h_i, with
//   f_i = B - ap_i,  h_i = dma_i - dq_i   (f_{n-1} = B, h_{n-1} = dma_{n-1}),
// and momentum row i, multiplied by f_{i+1}, gives p_i + ap_i zeta_i = dq_i with
//   ap_i = amo_i f_{i+1} / (bmo_i f_{i+1} + cmo_i),  dq_i = (dmo_i f_{i+1} - cmo_i h_{i+1}) / (same).
template <class T>
struct UpwardPivot {
  T f;  // coefficient of zeta_i once p_i is eliminated
  T h;  // right-hand side of that row
};

template <class T>
WARPMODEL_ADI_HD UpwardPivot<T> last_mass_pivot(T dma_last, T mass_diagonal) {
  return {mass_diagonal, dma_last};
}

template <class T>
WARPMODEL_ADI_HD UpwardPivot<T> next_upward_pivot(T dma, T ap, T dq, T mass_diagonal) {
  return {mass_diagonal - ap, dma - dq};
}

// Eliminates zeta_{i+1} from momentum row i with the pivot of cell i+1; returns (ap_i, dq_i).
template <class T>
WARPMODEL_ADI_HD void folded_thomas_upward(T amo, T bmo, T cmo, T dmo, UpwardPivot<T> below, T& ap, T& dq) {
  const T r = adi_reciprocal(bmo * below.f + cmo);
  ap = amo * below.f * r;
  dq = (dmo * below.f - cmo * below.h) * r;
}

// Thomas from both ends (the thread-per-line GPU kernel): the top chain eliminates momentum rows
// 0 .. k-1 downwards, the bottom chain rows n-2 .. k upwards, with k = (n-1)/2 + 1 (0 for n = 1),
// so that for even n the top chain has one row more than the bottom one; the two chains are
// independent, so one thread runs them interleaved and the dependent chain is half as long. They
// meet in mass row k: -p_{k-1} + B zeta_k + p_k = dma_k with p_{k-1} = dp_{k-1} - cp_{k-1} zeta_k and
// p_k = dq_k - ap_k zeta_k gives zeta_k = (g_k - dq_k) / (e_k - ap_k). Back substitution runs
// outwards from k, both ways, multiplying by reciprocals that are off the dependency chain:
//   up:   p_j = dp_j - cp_j zeta_{j+1},  zeta_j = (g_j - p_j) / e_j          j = k-1 .. 0
//   down: p_j = dq_j - ap_j zeta_j,      zeta_{j+1} = (h_{j+1} + p_j) / f_{j+1}  j = k .. n-2
// c1, d1 hold (cp, dp) for rows < k and (ap, dq) for rows >= k. This host version is the reference
// for the kernel's arithmetic (tests); the CPU reference solver uses solve_line_folded_thomas.
template <class T, class Rows>
WARPMODEL_ADI_HD void solve_line_two_ended(int n, const Rows& rows, T mass_diagonal, T* c1, T* d1, T* zeta, T* p) {
  const int k = n > 1 ? (n - 1) / 2 + 1 : 0;
  MassPivot<T> top = first_mass_pivot(rows[0].dma, mass_diagonal);
  for (int i = 0; i < k; ++i) {
    folded_thomas_forward(rows[i].amo, rows[i].bmo, rows[i].cmo, rows[i].dmo, top, c1[i], d1[i]);
    top = next_mass_pivot(rows[i + 1].dma, c1[i], d1[i], mass_diagonal);
  }
  UpwardPivot<T> bottom = last_mass_pivot(rows[n - 1].dma, mass_diagonal);
  for (int i = n - 2; i >= k; --i) {
    folded_thomas_upward(rows[i].amo, rows[i].bmo, rows[i].cmo, rows[i].dmo, bottom, c1[i], d1[i]);
    bottom = next_upward_pivot(rows[i].dma, c1[i], d1[i], mass_diagonal);
  }
  const T ap_k = k < n - 1 ? c1[k] : T(0);
  const T dq_k = k < n - 1 ? d1[k] : T(0);
  const T zk = (top.g - dq_k) / (top.e - ap_k);
  zeta[k] = zk;
  T z = zk;
  for (int j = k - 1; j >= 0; --j) {
    const T flux = d1[j] - c1[j] * z;
    const MassPivot<T> own = j > 0 ? next_mass_pivot(rows[j].dma, c1[j - 1], d1[j - 1], mass_diagonal)
                                   : first_mass_pivot(rows[0].dma, mass_diagonal);
    z = (own.g - flux) * adi_reciprocal(own.e);
    p[j] = flux;
    zeta[j] = z;
  }
  z = zk;
  for (int j = k; j <= n - 2; ++j) {
    const T flux = d1[j] - c1[j] * z;
    const UpwardPivot<T> own = j + 1 <= n - 2 ? next_upward_pivot(rows[j + 1].dma, c1[j + 1], d1[j + 1], mass_diagonal)
                                              : last_mass_pivot(rows[n - 1].dma, mass_diagonal);
    z = (own.h + flux) * adi_reciprocal(own.f);
    p[j] = flux;
    zeta[j + 1] = z;
  }
}

// Solves one line of n cells stored contiguously (CPU reference). rows[i] gives dma, amo, bmo, cmo,
// dmo; cp, dp are scratch of n entries; zeta gets n values, p gets n-1 (p[n-1] is left alone).
template <class T, class Rows>
WARPMODEL_ADI_HD void solve_line_folded_thomas(int n, const Rows& rows, T mass_diagonal, T* cp, T* dp, T* zeta, T* p) {
  MassPivot<T> pivot = first_mass_pivot(rows[0].dma, mass_diagonal);
  for (int i = 0; i + 1 < n; ++i) {
    folded_thomas_forward(rows[i].amo, rows[i].bmo, rows[i].cmo, rows[i].dmo, pivot, cp[i], dp[i]);
    pivot = next_mass_pivot(rows[i + 1].dma, cp[i], dp[i], mass_diagonal);
  }
  T z = pivot.g / pivot.e;
  zeta[n - 1] = z;
  for (int i = n - 2; i >= 0; --i) {
    const T flux = dp[i] - cp[i] * z;
    const MassPivot<T> own =
        i > 0 ? next_mass_pivot(rows[i].dma, cp[i - 1], dp[i - 1], mass_diagonal) : first_mass_pivot(rows[0].dma, mass_diagonal);
    z = (own.g - flux) / own.e;
    p[i] = flux;
    zeta[i] = z;
  }
}

// --- Parallel cyclic reduction (thesis 5.3, in the standard form of Zhang, Cohen, Owens 2010) ----
// One reduction of row r with stride s in a system of m rows whose current rows sit in shared
// arrays a, c, d and rb = 1/b (the owner of each row computes its reciprocal once per step):
//   k1 = a_r / b_{r-s},  k2 = c_r / b_{r+s}   (0 beyond the system's ends)
//   a' = -a_{r-s} k1,  c' = -c_{r+s} k2,  b' = b_r - c_{r-s} k1 - a_{r+s} k2,
//   d' = d_r - d_{r-s} k1 - d_{r+s} k2.
// index(r) maps a row to its shared-memory slot (identity, or the even/odd split that keeps the
// interleaved ADI system free of bank conflicts).
template <class T, class Index>
WARPMODEL_ADI_HD TriRow<T> pcr_reduce(const TriRow<T>& own, int r, int s, int m, const T* a, const T* c, const T* d,
                                      const T* rb, Index index) {
  TriRow<T> out{T(0), own.b, T(0), own.d};
  if (r - s >= 0) {
    const int j = index(r - s);
    const T k1 = own.a * rb[j];
    out.a = -a[j] * k1;
    out.b -= c[j] * k1;
    out.d -= d[j] * k1;
  }
  if (r + s < m) {
    const int j = index(r + s);
    const T k2 = own.c * rb[j];
    out.c = -c[j] * k2;
    out.b -= a[j] * k2;
    out.d -= d[j] * k2;
  }
  return out;
}

// One cyclic-reduction step for row r from its neighbours r-1 and r+1 (null when absent).
template <class T>
WARPMODEL_ADI_HD TriRow<T> cr_reduce(const TriRow<T>& own, const TriRow<T>* below, const TriRow<T>* above) {
  TriRow<T> out{T(0), own.b, T(0), own.d};
  if (below) {
    const T k1 = own.a / below->b;
    out.a = -below->a * k1;
    out.b -= below->c * k1;
    out.d -= below->d * k1;
  }
  if (above) {
    const T k2 = own.c / above->b;
    out.c = -above->c * k2;
    out.b -= above->a * k2;
    out.d -= above->d * k2;
  }
  return out;
}

struct IdentityIndex {
  WARPMODEL_ADI_HD int operator()(int r) const { return r; }
};

// Even rows in [0, half), odd rows in [half, 2 half): the thread that owns rows 2t and 2t+1 reads
// slots t +- s/2 (or t, t-1 in the first step), consecutive across a warp, so no bank conflicts.
struct EvenOddIndex {
  int half;
  WARPMODEL_ADI_HD int operator()(int r) const { return (r & 1) ? half + (r >> 1) : (r >> 1); }
};

}  // namespace warpmodel::adi
