// The partitioned solve of the ADI lines (variant `partitioned`): many threads per line, in the
// thread-per-line (S1) layout. Written once and run two ways, as block_algorithms.hpp: by the CUDA
// kernel (Block::sync() = __syncthreads()) and by std::threads in tests/adi/test_block_algorithms.cpp.
//
// Algorithm: the partition method of H. H. Wang, "A parallel method for tridiagonal equations",
// ACM TOMS 7(2), 1981, in the form of Laszlo, Giles, Appleyard, "Manycore algorithms for batch
// scalar and block tridiagonal solvers", ACM TOMS 42(4), 2016 (each thread eliminates its own
// segment from both ends, a small reduced system couples the segments, back substitution), here
// on the ADI line with the mass pivots folded in (tridiagonal.hpp) so that a row costs one
// reciprocal per cell, and with the reduced system solved by one CR step and PCR in shared memory.
//
// A line of n cells is cut into P = n / kCells segments of kCells cells; thread (segment s, line l)
// owns cells c0 = s kCells .. c1 = c0 + kCells - 1, i.e. unknowns zeta_c0, p_c0, ..., zeta_c1, p_c1.
// The segment touches the rest of the line only through p_{c0-1} (in mass row c0) and zeta_{c1+1}
// (in momentum row c1). Its reduced unknowns are its first and last unknowns, Z_s = zeta_c0 and
// Q_s = p_c1 (Q_{P-1} is the wall flux, 0 by the last line's dummy momentum row).
//  Phase 1, two independent chains per thread (registers only):
//   * downward, Z_s kept as a parameter: momentum row c0 gives p_c0 + cp zeta_{c0+1} = dp with
//     cp = cmo / bmo, dp = (dmo - amo Z_s) / bmo (folded Thomas with an infinite first pivot), then
//     folded_thomas_forward row by row; every dp is affine in Z_s (dp = dp0 + dpz Z_s). Its last row,
//     Q_s + cp Z_{s+1} = dp0 + dpz Z_s, is the reduced row of Q_s:  -dpz Z_s + Q_s + cp Z_{s+1} = dp0.
//   * upward, Q_s kept as a parameter: mass row c1 gives f = B, h = dma_c1 - Q_s, then
//     folded_thomas_upward row by row (h affine in Q_s: h = h0 + hq Q_s) up to mass row c0,
//     f zeta_c0 - p_{c0-1} = h, i.e. the reduced row of Z_s:  Z_s - Q_{s-1}/f - (hq/f) Q_s = h0/f
//     (no Q_{-1} term in segment 0: the west wall).
//  Phase 2, the reduced system (2P unknowns, tridiagonal in Z_0, Q_0, Z_1, Q_1, ...): one CR step
//   substitutes Z_s = delta_s - alpha_s Q_{s-1} - tau_s Q_s into the Q rows, leaving P rows in Q
//   only (each thread reads its neighbour's Z row from shared memory):
//     a = -sigma alpha_s, b = 1 - sigma tau_s - gamma alpha_{s+1}, c = -gamma tau_{s+1},
//     d = eps - sigma delta_s - gamma delta_{s+1}     (sigma = -dpz, gamma = cp, eps = dp0),
//   which PCR solves (log2 P levels on rows divided by b, solve_reduced_system); then Z_s and Z_{s+1}
//   follow from the Z rows.
//  Phase 3, back substitution from the stored downward chain (cp, dp0, dpz, dma per cell):
//     p_c1 = dp0 + dpz Z_s - cp Z_{s+1};  zeta_j = (g_j - p_j) / e_j with e_j = B + cp_{j-1},
//     g_j = dma_j + dp_{j-1};  p_{j-1} = dp_{j-1} - cp_{j-1} zeta_j   (j = c1 .. c0+1).
// Every coefficient is read from global memory once, into registers; the reduced system lives in
// shared memory. Traffic: the five coefficient arrays read, zeta and the flux written (nothing
// else touches global memory). Arithmetic: three reciprocals per cell (two chains, one back).
// All elimination is without pivoting, as Thomas and PCR in this solver: the mass rows are
// strongly diagonally dominant (B = 4 dx/dt), and the tests check agreement with the CPU Thomas.
#pragma once

#include "warpmodel/adi/coefficients.hpp"
#include "warpmodel/adi/hd.hpp"
#include "warpmodel/adi/tridiagonal.hpp"

namespace warpmodel::adi {

// The five coefficient arrays of a sweep in the along-major layout: value (cell i, line l) at
// i * stride + l. zeta and the flux are addressed the same way.
template <class T>
struct StridedLines {
  const T* dma;
  const T* amo;
  const T* bmo;
  const T* cmo;
  const T* dmo;
  int stride;
};

// Threads of one block: `lanes` lines (fastest, so a warp reads lanes consecutive values per row)
// times P segments. The register-resident segment limits the block size.
constexpr int partitioned_max_threads(int cells) { return cells <= 8 ? 512 : 256; }
constexpr int kPartitionedMaxLanes = 32;

// Lines per block for n cells per line: the largest power of two with lanes * P within the block
// limit (0: P alone is above it, the size is not supported).
inline int partitioned_lanes(int n, int cells) {
  const int segments = n / cells;
  if (segments > partitioned_max_threads(cells)) return 0;
  int lanes = 1;
  while (lanes * 2 <= kPartitionedMaxLanes && lanes * 2 * segments <= partitioned_max_threads(cells)) lanes *= 2;
  return lanes;
}

// Shared memory (T elements): per (segment, line) slot two buffers of three values: the Z row (alpha,
// tau, delta) in the first, then PCR's normalised rows (a, c, d) in both, level by level in turn.
inline int partitioned_shared_elements(int segments, int lanes) { return 6 * segments * lanes; }

// Slot of segment r of this thread's line in the shared reduced system: first + r * step. Along-major
// blocks (lane fastest) put a line's segments `lanes` apart, so a warp's slots are consecutive;
// line-major blocks (segment fastest) put them next to each other. Either way no bank conflicts.
struct SegmentSlots {
  int first;
  int step;
  WARPMODEL_ADI_HD int operator()(int r) const { return first + r * step; }
};

// The segment's rows, read from the five coefficient arrays of the along-major layout.
template <class T>
struct StoredRows {
  const StridedLines<T>* coef;
  long long first;  // index of the segment's first cell
  WARPMODEL_ADI_HD CellRows<T> operator()(int j) const {
    const long long at = first + static_cast<long long>(j) * coef->stride;
    return {coef->dma[at], coef->amo[at], coef->bmo[at], coef->cmo[at], coef->dmo[at]};
  }
};

// Where the segment's results go: cell c0 + j of the line at first + j * step.
template <class T>
struct SegmentOutput {
  T* zeta;
  T* flux;
  long long first;
  long long step;
  WARPMODEL_ADI_HD void store_zeta(int j, T value) const { zeta[first + j * step] = value; }
  WARPMODEL_ADI_HD void store_flux(int j, T value) const { flux[first + j * step] = value; }
};

// --- The solve's pieces, shared by the variants `partitioned` (rows and chain in registers) and
// `fused` (rows and chain in shared memory, fused.hpp) ---------------------------------------------

// Phase 1, downward: momentum row j once zeta_j is eliminated, p_j + cp zeta_{j+1} = dp0 + dpz Z_s.
template <class T>
struct DownwardRow {
  T cp, dp0, dpz;
};

// Row c0: folded Thomas with an infinite first pivot (zeta_c0 = Z_s is the parameter).
template <class T>
WARPMODEL_ADI_HD DownwardRow<T> downward_first(const CellRows<T>& r) {
  const T inv = adi_reciprocal(r.bmo);
  return {r.cmo * inv, r.dmo * inv, -r.amo * inv};
}

// Row j from row j-1 (folded_thomas_forward, affine in Z_s), with the mass pivot of cell j.
template <class T>
WARPMODEL_ADI_HD DownwardRow<T> downward_next(const CellRows<T>& r, const DownwardRow<T>& prev, T mass_diagonal) {
  const MassPivot<T> pivot = next_mass_pivot(r.dma, prev.cp, prev.dp0, mass_diagonal);
  const T inv = adi_reciprocal(r.bmo * pivot.e - r.amo);
  return {r.cmo * pivot.e * inv, (r.dmo * pivot.e - r.amo * pivot.g) * inv, -r.amo * prev.dpz * inv};
}

// Phase 1, upward: mass row j once p_j is eliminated, f zeta_j - p_{j-1} = h0 + hq Q_s.
template <class T>
struct UpwardRow {
  T f, h0, hq;
};

// Mass row c1 (p_c1 = Q_s is the parameter).
template <class T>
WARPMODEL_ADI_HD UpwardRow<T> upward_last(T dma_last, T mass_diagonal) {
  return {mass_diagonal, dma_last, T(-1)};
}

// Mass row u from row u+1 through momentum row u (folded_thomas_upward, affine in Q_s); r is cell u's.
template <class T>
WARPMODEL_ADI_HD UpwardRow<T> upward_next(const CellRows<T>& r, const UpwardRow<T>& below, T mass_diagonal) {
  const T inv = adi_reciprocal(r.bmo * below.f + r.cmo);
  const T ap = r.amo * below.f * inv;
  const T dq0 = (r.dmo * below.f - r.cmo * below.h0) * inv;
  const T dqq = -r.cmo * below.hq * inv;
  const UpwardPivot<T> up = next_upward_pivot(r.dma, ap, dq0, mass_diagonal);
  return {up.f, up.h, -dqq};
}

// The segment's two reduced rows: Z_s + alpha Q_{s-1} + tau Q_s = delta (from the upward chain's
// last row) and sigma Z_s + Q_s + gamma Z_{s+1} = eps (from the downward chain's last row).
template <class T>
struct ReducedRows {
  T alpha, tau, delta;
  T sigma, gamma, eps;
};

template <class T>
WARPMODEL_ADI_HD ReducedRows<T> reduced_rows(const UpwardRow<T>& top, const DownwardRow<T>& last, bool has_west) {
  const T inv_f = adi_reciprocal(top.f);
  return {has_west ? -inv_f : T(0), -top.hq * inv_f, top.h0 * inv_f, -last.dpz, last.cp, last.dp0};
}

// The segment's first zeta and the next segment's (0 after the last segment).
template <class T>
struct SegmentEnds {
  T z, z_next;
};

// How many PCR levels solve_reduced_system runs.
//  All: log2 P, as PCR is written (variants partitioned and fused).
//  UntilDecoupled (fused-cluster): until every row's normalised off-diagonals a, c are negligible,
//   |a| + |c| <= pcr_decoupled_bound<T>(), found by a vote in the barrier each level has anyway
//   (Block::sync_or). Then q_s = d_s up to (|a| + |c|) max|q|, below the rounding of max|q|
//   (2^-60 in double, 2^-30 in float: a 128th and a 64th of an ulp), and further levels would only
//   add rounding. Why: a level multiplies the off-diagonals' ratio to the diagonal by itself (the
//   rows couple their neighbours s and 2s apart through products), so a diagonally dominant system
//   decouples in a few levels. The segments' Q rows are: the coupling of an ADI line decays by about
//   0.38 a cell at the hump problem's 10 m depth (Courant number 2), 4e-4 over an 8-cell segment, and
//   PCR's rows fall to 7e-14 after 2 levels and 2e-27 after 3: 3 levels of the 8 a 2048-cell line
//   runs (5 at 100 m; 512 cells: 3 and 5 of 6, and all 6 at 1000 m; tests/adi/test_block_algorithms.cpp,
//   PcrLevels). Each level is a barrier, a reciprocal and two dependent rounds of shared-memory loads,
//   at 8 warps a block.
enum class PcrLevels { All, UntilDecoupled };

template <class T>
WARPMODEL_ADI_HD constexpr T pcr_decoupled_bound() {
  return sizeof(T) == 8 ? T(1.0 / 1152921504606846976.0) : T(1.0 / 1073741824.0);  // 2^-60, 2^-30
}

template <class T>
WARPMODEL_ADI_HD bool pcr_row_is_decoupled(T a, T c) {
  return (a < T(0) ? -a : a) + (c < T(0) ? -c : c) <= pcr_decoupled_bound<T>();
}

// Phase 2: one CR step substitutes the Z rows into the Q rows, PCR solves the P rows in Q, and Z_s,
// Z_{s+1} follow from the Z rows. `shared`: partitioned_shared_elements(segments, lanes) elements.
template <class T, PcrLevels kLevels = PcrLevels::All, class Block>
WARPMODEL_ADI_HD SegmentEnds<T> solve_reduced_system(const Block& block, int segment, int segments,
                                                     SegmentSlots index, int slots, const ReducedRows<T>& rows,
                                                     T* shared) {
  T* s_alpha = shared;
  T* s_tau = shared + slots;
  T* s_delta = shared + 2 * slots;
  const int slot = index(segment);
  s_alpha[slot] = rows.alpha;
  s_tau[slot] = rows.tau;
  s_delta[slot] = rows.delta;
  block.sync();
  const bool has_next = segment + 1 < segments;
  const T alpha_next = has_next ? s_alpha[index(segment + 1)] : T(0);
  const T tau_next = has_next ? s_tau[index(segment + 1)] : T(0);
  const T delta_next = has_next ? s_delta[index(segment + 1)] : T(0);
  block.sync();
  // PCR on rows normalised to b = 1 (a, c, d stored), in two buffers used in turn: a level writes
  // one while the level before's readers are past its barrier, so one barrier a level; each b
  // inverted by adi_reciprocal, as every other pivot of the solve. Why: with an IEEE division by b
  // (its slow path included) and two barriers a level, every fused step on the H200 was 1.5-4 %
  // slower (2048^2 double 332.3 against 327.3 us, same card,
  // results/h200/logs/adi-probes/run11-pcr-two-buffers/).
  const T b0 = T(1) - rows.sigma * rows.tau - rows.gamma * alpha_next;
  const T inv_b0 = adi_reciprocal(b0);
  T ra = -rows.sigma * rows.alpha * inv_b0, rc = -rows.gamma * tau_next * inv_b0,
    rd = (rows.eps - rows.sigma * rows.delta - rows.gamma * delta_next) * inv_b0;
  int buffer = 0;
  for (int s = 1; s < segments; s <<= 1, buffer ^= 1) {
    T* sa = shared + 3 * buffer * slots;
    T* sc = sa + slots;
    T* sd = sc + slots;
    sa[slot] = ra;
    sc[slot] = rc;
    sd[slot] = rd;
    if constexpr (kLevels == PcrLevels::UntilDecoupled) {
      // Every thread leaves at the same barrier; no one reads this buffer, which the code below reuses.
      if (!block.sync_or(!pcr_row_is_decoupled(ra, rc))) break;
    } else {
      block.sync();
    }
    T na = T(0), nb = T(1), nc = T(0), nd = rd;
    if (segment - s >= 0) {
      const int j = index(segment - s);
      na = -sa[j] * ra;
      nb -= sc[j] * ra;
      nd -= sd[j] * ra;
    }
    if (segment + s < segments) {
      const int j = index(segment + s);
      nc = -sc[j] * rc;
      nb -= sa[j] * rc;
      nd -= sd[j] * rc;
    }
    const T inv = adi_reciprocal(nb);
    ra = na * inv;
    rc = nc * inv;
    rd = nd * inv;
  }
  const T q = rd;
  T* sq = shared + 3 * buffer * slots + 2 * slots;  // the buffer no thread reads any more (also after a break)
  sq[slot] = q;
  block.sync();
  const T q_prev = segment > 0 ? sq[index(segment - 1)] : T(0);
  const T q_next = has_next ? sq[index(segment + 1)] : T(0);
  return {rows.delta - rows.alpha * q_prev - rows.tau * q,
          has_next ? delta_next - alpha_next * q - tau_next * q_next : T(0)};
}

// Phase 3: back substitution through the downward chain; chain(j) is row j's DownwardRow, dma(j)
// cell j's mass right-hand side. Each of out's stores comes after the reads of the cell it
// overwrites (fused.hpp stores over the chain).
template <class T, int kCells, class Chain, class MassRhs, class Output>
WARPMODEL_ADI_HD void back_substitute(const Chain& chain, const MassRhs& dma, T mass_diagonal, SegmentEnds<T> ends,
                                      bool last_segment, const Output& out) {
  const DownwardRow<T> last = chain(kCells - 1);
  T p = last.dp0 + last.dpz * ends.z - last.cp * ends.z_next;
  if (!last_segment) out.store_flux(kCells - 1, p);  // p_{n-1} is the east wall: left alone
WARPMODEL_ADI_UNROLL
  for (int j = kCells - 1; j >= 1; --j) {
    const DownwardRow<T> before = chain(j - 1);
    const T e = mass_diagonal + before.cp;
    const T dp = before.dp0 + before.dpz * ends.z;
    const T zeta_j = (dma(j) + dp - p) * adi_reciprocal(e);
    out.store_zeta(j, zeta_j);
    p = dp - before.cp * zeta_j;
    out.store_flux(j - 1, p);
  }
  out.store_zeta(0, ends.z);
}

// The partitioned solve of one segment (the algorithm above) with its rows and chain in registers:
// `rows(j)` returns the CellRows of cell c0 + j (j < kCells), read from stored coefficients once,
// all before the arithmetic. `segments` segments of this line run in the same block, their slots
// given by `index`; `slots` is the block's number of (segment, line) slots. The east wall face (p of
// the line's last cell) is not written.
template <class T, int kCells, class Block, class Rows, class Output>
WARPMODEL_ADI_HD void adi_segment_partitioned(const Block& block, int segment, int segments, SegmentSlots index,
                                              int slots, const Rows& rows, T mass_diagonal, T* shared,
                                              const Output& out) {
  CellRows<T> row[kCells];
WARPMODEL_ADI_UNROLL
  for (int j = 0; j < kCells; ++j) row[j] = rows(j);
  // The two chains, independent, interleaved.
  DownwardRow<T> down[kCells];
  down[0] = downward_first(row[0]);
  UpwardRow<T> up = upward_last(row[kCells - 1].dma, mass_diagonal);
WARPMODEL_ADI_UNROLL
  for (int j = 1; j < kCells; ++j) {
    down[j] = downward_next(row[j], down[j - 1], mass_diagonal);
    up = upward_next(row[kCells - 1 - j], up, mass_diagonal);
  }
  const SegmentEnds<T> ends = solve_reduced_system(block, segment, segments, index, slots,
                                                   reduced_rows(up, down[kCells - 1], segment > 0), shared);
  back_substitute<T, kCells>([&](int j) { return down[j]; }, [&](int j) { return row[j].dma; }, mass_diagonal, ends,
                             segment + 1 == segments, out);
}

// The stored-coefficient form (variant `partitioned`): thread (segment, lane) of a block of `lanes`
// lines in the along-major layout; zeta and the flux are addressed like the coefficients.
template <class T, int kCells, class Block>
WARPMODEL_ADI_HD void adi_lines_partitioned(const Block& block, int segment, int lane, int lanes, int line, int n,
                                            const StridedLines<T>& coef, T mass_diagonal, T* shared, T* zeta,
                                            T* flux) {
  const long long first = static_cast<long long>(segment) * kCells * coef.stride + line;
  adi_segment_partitioned<T, kCells>(block, segment, n / kCells, SegmentSlots{lane, lanes}, (n / kCells) * lanes,
                                     StoredRows<T>{&coef, first}, mass_diagonal, shared,
                                     SegmentOutput<T>{zeta, flux, first, coef.stride});
}

}  // namespace warpmodel::adi
