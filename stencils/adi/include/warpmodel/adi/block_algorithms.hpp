// Bodies of the block-per-line / block-per-system kernels: one block solves one tridiagonal system
// in shared memory, one thread per cell (ADI) or per row pair (batched CR-PCR). Written once and
// run two ways: by the CUDA kernels (Block::sync() = __syncthreads()) and, in the tests, by one
// std::thread per GPU thread with a std::barrier (tests/adi/test_block_algorithms.cpp), so the
// indexing is checked without a GPU. Every barrier is reached by all threads of the block.
#pragma once

#include "warpmodel/adi/hd.hpp"
#include "warpmodel/adi/tridiagonal.hpp"

namespace warpmodel::adi {

// Coefficients of one ADI line, contiguous (line-major layout, already offset to the line).
template <class T>
struct LineCoefficients {
  const T* dma;
  const T* amo;
  const T* bmo;
  const T* cmo;
  const T* dmo;
};

// Shared memory (in T elements) the ADI line kernels need for a line of n cells.
inline int adi_pcr_shared_elements(int n) { return 4 * 2 * n; }
inline int adi_cr_pcr_shared_elements(int n) { return 4 * n; }

// S2 with PCR (thesis 8.4.1): PCR on the whole interleaved system of 2n rows (the last momentum row
// is the decoupled dummy), thread t owning mass row 2t and momentum row 2t+1. Shared arrays hold
// even rows in [0, n) and odd rows in [n, 2n) (EvenOddIndex): no bank conflicts.
template <class T, class Block>
WARPMODEL_ADI_HD void adi_line_pcr(const Block& block, int t, int n, const LineCoefficients<T>& coef, T mass_diagonal,
                                   T* shared, T* zeta, T* flux) {
  const int m = 2 * n;
  T* sa = shared;
  T* sc = shared + m;
  T* sd = shared + 2 * m;
  T* srb = shared + 3 * m;
  const EvenOddIndex index{n};
  TriRow<T> mass{t > 0 ? T(-1) : T(0), mass_diagonal, t < n - 1 ? T(1) : T(0), coef.dma[t]};
  TriRow<T> momentum{coef.amo[t], coef.bmo[t], coef.cmo[t], coef.dmo[t]};
  for (int s = 1; s < m; s <<= 1) {
    sa[t] = mass.a;
    sc[t] = mass.c;
    sd[t] = mass.d;
    srb[t] = T(1) / mass.b;
    sa[n + t] = momentum.a;
    sc[n + t] = momentum.c;
    sd[n + t] = momentum.d;
    srb[n + t] = T(1) / momentum.b;
    block.sync();
    const TriRow<T> next_mass = pcr_reduce(mass, 2 * t, s, m, sa, sc, sd, srb, index);
    const TriRow<T> next_momentum = pcr_reduce(momentum, 2 * t + 1, s, m, sa, sc, sd, srb, index);
    block.sync();
    mass = next_mass;
    momentum = next_momentum;
  }
  zeta[t] = mass.d / mass.b;
  if (t < n - 1) flux[t] = momentum.d / momentum.b;
}

// S2 with CR-PCR (thesis 8.4.2): one cyclic-reduction step removes the mass rows (every other row;
// their coefficients are the constants -1, B, +1, so only dma is read), PCR solves the n-1 flux
// unknowns, and each zeta follows from its mass row: zeta_t = (dma_t + p_{t-1} - p_t) / B.
// The reduced row t comes from momentum row t with mass rows t and t+1:
//   a' = amo/B (0 for t = 0), b' = bmo - amo/B + cmo/B, c' = -cmo/B (0 for the last), 
//   d' = dmo - dma_t amo/B - dma_{t+1} cmo/B.
template <class T, class Block>
WARPMODEL_ADI_HD void adi_line_cr_pcr(const Block& block, int t, int n, const LineCoefficients<T>& coef,
                                      T mass_diagonal, T inv_mass_diagonal, T* shared, T* zeta, T* flux) {
  const int m = n - 1;
  T* sa = shared;
  T* sc = shared + n;
  T* sd = shared + 2 * n;
  T* srb = shared + 3 * n;
  const T dma = coef.dma[t];
  TriRow<T> row{T(0), T(1), T(0), T(0)};
  if (t < m) {
    const T k1 = coef.amo[t] * inv_mass_diagonal;
    const T k2 = coef.cmo[t] * inv_mass_diagonal;
    row.a = t > 0 ? k1 : T(0);
    row.b = coef.bmo[t] - k1 + k2;
    row.c = t < m - 1 ? -k2 : T(0);
    row.d = coef.dmo[t] - dma * k1 - coef.dma[t + 1] * k2;
  }
  for (int s = 1; s < m; s <<= 1) {
    if (t < m) {
      sa[t] = row.a;
      sc[t] = row.c;
      sd[t] = row.d;
      srb[t] = T(1) / row.b;
    }
    block.sync();
    const TriRow<T> next = t < m ? pcr_reduce(row, t, s, m, sa, sc, sd, srb, IdentityIndex{}) : row;
    block.sync();
    row = next;
  }
  const T p = t < m ? row.d / row.b : T(0);
  sd[t] = p;
  block.sync();
  const T p_west = t > 0 ? sd[t - 1] : T(0);
  zeta[t] = (dma + p_west - p) / mass_diagonal;
  if (t < m) flux[t] = p;
}

// --- Batched solvers of the standalone benchmark (contiguous layout: system s at s * n) ---------

inline int batched_pcr_shared_elements(int n) { return 4 * n; }
inline int batched_cr_pcr_shared_elements(int n) { return 4 * (n / 2) + 4 * (n / 2); }

// PCR, one thread per row (n threads).
template <class T, class Block>
WARPMODEL_ADI_HD void batched_pcr(const Block& block, int t, int n, const T* a, const T* b, const T* c, const T* d,
                                  T* shared, T* x) {
  T* sa = shared;
  T* sc = shared + n;
  T* sd = shared + 2 * n;
  T* srb = shared + 3 * n;
  TriRow<T> row{a[t], b[t], c[t], d[t]};
  for (int s = 1; s < n; s <<= 1) {
    sa[t] = row.a;
    sc[t] = row.c;
    sd[t] = row.d;
    srb[t] = T(1) / row.b;
    block.sync();
    const TriRow<T> next = pcr_reduce(row, t, s, n, sa, sc, sd, srb, IdentityIndex{});
    block.sync();
    row = next;
  }
  x[t] = row.d / row.b;
}

// CR-PCR with one CR step (n even): thread t owns rows 2t and 2t+1 (n/2 threads). The odd rows are
// reduced with their even neighbours, PCR solves the n/2 odd unknowns, and the even unknowns
// follow by back substitution, x_{2t} = (d_{2t} - a_{2t} x_{2t-1} - c_{2t} x_{2t+1}) / b_{2t}.
// Even and odd rows live in separate shared arrays: consecutive threads, consecutive slots.
template <class T, class Block>
WARPMODEL_ADI_HD void batched_cr_pcr(const Block& block, int t, int n, const T* a, const T* b, const T* c, const T* d,
                                     T* shared, T* x) {
  const int half = n / 2;
  T* ea = shared;  // even rows: a, b, c, d
  T* eb = shared + half;
  T* ec = shared + 2 * half;
  T* ed = shared + 3 * half;
  T* sa = shared + 4 * half;  // reduced odd rows for PCR: a, c, d, 1/b
  T* sc = sa + half;
  T* sd = sa + 2 * half;
  T* srb = sa + 3 * half;
  const TriRow<T> even{a[2 * t], b[2 * t], c[2 * t], d[2 * t]};
  const TriRow<T> odd{a[2 * t + 1], b[2 * t + 1], c[2 * t + 1], d[2 * t + 1]};
  ea[t] = even.a;
  eb[t] = even.b;
  ec[t] = even.c;
  ed[t] = even.d;
  block.sync();
  const bool has_above = t + 1 < half;
  TriRow<T> above{T(0), T(1), T(0), T(0)};
  if (has_above) above = TriRow<T>{ea[t + 1], eb[t + 1], ec[t + 1], ed[t + 1]};
  TriRow<T> row = cr_reduce(odd, &even, has_above ? &above : static_cast<const TriRow<T>*>(nullptr));
  for (int s = 1; s < half; s <<= 1) {
    sa[t] = row.a;
    sc[t] = row.c;
    sd[t] = row.d;
    srb[t] = T(1) / row.b;
    block.sync();
    const TriRow<T> next = pcr_reduce(row, t, s, half, sa, sc, sd, srb, IdentityIndex{});
    block.sync();
    row = next;
  }
  const T x_odd = row.d / row.b;
  sd[t] = x_odd;
  block.sync();
  const T x_below = t > 0 ? sd[t - 1] : T(0);
  x[2 * t] = (even.d - even.a * x_below - even.c * x_odd) / even.b;
  x[2 * t + 1] = x_odd;
}

}  // namespace warpmodel::adi
