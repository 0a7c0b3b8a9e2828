// The coefficients of one cell of one sweep line (thesis sections 4.3-4.5 and 6.3, "SetMA", "SetMO",
// "LcElim"), shared by the CPU reference and the GPU build kernel. Written for the x-sweep; the
// y-sweep is the same code in its own frame (sweep_view.hpp).
//
// A line of n cells has 2n-1 unknowns, interleaved zeta_0, p_0, zeta_1, ..., p_{n-2}, zeta_{n-1}
// (p_i on the face between cells i and i+1; the faces at both ends are walls with p = 0).
//   mass row i (4.5.3, multiplied by 2 dx):  -p_{i-1} + B zeta_i + p_i = dma_i          B = 4 dx/dt
//   momentum row i (4.5.2, 4.5.4):  l* p_{i-1} + a* zeta_i + b* p_i + c* zeta_{i+1} + r* p_{i+1} = d*
// The penta-diagonal terms l*, r* are removed with the neighbouring mass rows ("LcElim", folded
// into the build as in the thesis's S14/S24), leaving a tridiagonal system stored as the thesis
// does: dma (mass rows; a = -1, b = B, c = +1 are constants and not stored) and amo, bmo, cmo, dmo
// (momentum rows: amo zeta_i + bmo p_i + cmo zeta_{i+1} = dmo).
//
// Where the document disagrees with itself (each is tested in tests/adi/test_reference.cpp):
//  * Eq 4.3.2 prints p^{n-1/2}_{j,k-1} in the last term of the mass equation; it is q (the y-flux
//    divergence, as in the term before it and in 4.5.3). We use q: with p the closed basin would not
//    conserve its volume. Test: VolumeIsConservedToRounding.
//  * Eq 4.5.4 prints the convective coefficients as products, l* = -p_j p_{j-1} / (4 dx h_j) and
//    r* = p_{j+1} p_j / (4 dx h_{j+1}). The discretisation they come from (4.4.4) averages the
//    fluxes, (p_{j+1} + p_j)/2, so the coefficient of p^{n+1}_{j+1} is (p_{j+1} + p_j)/(4 dx h_{j+1});
//    the products are also dimensionally wrong (m^2/s^2 instead of 1/s). We use the sums.
//    Test: MomentumRowReproducesEquation444.
//  * The cross-momentum term (4.4.5) reads p on the neighbouring lines and h on a 2x2 stencil.
//    At the basin's walls the thesis uses "zeta_{j,k} for a land neighbour" (listing 6.2); we apply
//    that rule to h and p alike. There the wall flux q = 0 makes the term vanish anyway.
#pragma once

#include "warpmodel/adi/hd.hpp"
#include "warpmodel/adi/parameters.hpp"
#include "warpmodel/adi/sweep_view.hpp"

namespace warpmodel::adi {

// Right-hand side of mass row i (eq 4.5.3):
//   dma = p^n_{i-1} - p^n_i - (dx/dy)(q^{n+1/2}_{i,l} - q^{n+1/2}_{i,l-1} + q^{n-1/2}_{i,l} - q^{n-1/2}_{i,l-1})
//         + B zeta^n_i
// from the values (the fluxes outside the basin are 0).
template <class T>
WARPMODEL_ADI_HD T mass_rhs(T flux_west, T flux_east, T cross_new_north, T cross_new_south, T cross_old_north,
                            T cross_old_south, T zeta, const SweepConstants<T>& k) {
  const T cross_divergence = (cross_new_north - cross_new_south) + (cross_old_north - cross_old_south);
  return (flux_west - flux_east) - k.along_over_cross * cross_divergence + k.mass_diagonal * zeta;
}

// The same, read from the view at cell (i, l).
template <class T, class View>
WARPMODEL_ADI_HD T mass_rhs(const View& v, int i, int l, const SweepConstants<T>& k) {
  return mass_rhs(i > 0 ? v.along(i - 1, l) : T(0),  // wall west of the first cell
                  v.along(i, l),                      // stored 0 on the wall east of the last cell
                  v.cross_new(i, l),                  // stored 0 on the wall after the last line
                  l > 0 ? v.cross_new(i, l - 1) : T(0), v.cross_old(i, l), l > 0 ? v.cross_old(i, l - 1) : T(0),
                  v.zeta(i, l), k);
}

// The two rows of cell i after LcElim. For the last cell (no face east of it inside the basin) the
// momentum row is a decoupled dummy (amo = cmo = dmo = 0, bmo = 1): every coefficient array keeps n
// entries per line, and PCR can treat the line as 2n rows.
template <class T>
struct CellRows {
  T dma;
  T amo, bmo, cmo, dmo;
};

template <class T>
struct ConvectiveCoefficients {
  T west;  // l*: coefficient of p^{n+1}_{i-1}
  T east;  // r*: coefficient of p^{n+1}_{i+1}
};

// l* and r* of eq 4.5.4 in the reading of eq 4.4.4 (sums of the old fluxes; see above), from the
// reciprocal depths of the two cells.
template <class T>
WARPMODEL_ADI_HD ConvectiveCoefficients<T> convective_coefficients(T flux_west, T flux, T flux_east, T inv_depth,
                                                                   T inv_depth_east, const SweepConstants<T>& k) {
  return {-(flux + flux_west) * k.inv_4_d_along * inv_depth, (flux_east + flux) * k.inv_4_d_along * inv_depth_east};
}

// 1 / (C^2 h^2) with C = M h^(1/6) and the harmonic depth h^ = sqrt(2 / (1/h0^2 + 1/h1^2)) (4.4.12),
// simplified as in thesis listing 8.2: X^(1/6) X / M^2 with X = 1/h^2 = (1/h0^2 + 1/h1^2) / 2
// (= (h0^2 + h1^2) / (2 h0^2 h1^2), the listing's form). X^(1/6) by adi_sixth_root: a float seed and
// Newton steps, at a fraction of the cost of a double pow on the GPU (the thesis found pow the
// build's most expensive operation, section 8.2.5) and of cbrt(sqrt(X)).
template <class T>
WARPMODEL_ADI_HD T inverse_chezy_depth_squared(T inv_h0, T inv_h1, const SweepConstants<T>& k) {
  const T x = (inv_h0 * inv_h0 + inv_h1 * inv_h1) * T(0.5);
  return x * adi_sixth_root(x) * k.inv_manning_squared;
}

// Every state value the rows of cell i on line l read, with the walls' rules applied: outside the
// basin a flux is 0, and the cross-momentum term reads the cell's own p and h for a land neighbour.
// "east" is cell i+1 (absent for the last cell), "north" and "south" the lines l+1 and l-1.
template <class T>
struct CellStencil {
  T zeta, bed, zeta_east, bed_east;
  T along_west, along, along_east;  // p_{i-1}, p_i, p_{i+1} on line l
  T along_north, along_south;       // p_i on lines l+1 and l-1
  T depth_north, depth_east_north, depth_south, depth_east_south;
  T cross_new, cross_new_east, cross_new_south, cross_new_east_south;  // q on the faces l+1/2 and l-1/2
  T cross_old, cross_old_east, cross_old_south, cross_old_east_south;
};

// All loads of a cell's build, before any of its arithmetic and with no branch between them: the
// walls are selects (predicated loads on the GPU). Why: the GPU build is bound by load latency, and
// loads written inside the physics' branches (convection, friction, LcElim's east mass row) were
// issued in six dependent rounds per cell (SASS of the fused x-sweep, double: a branch before each
// round), the cell's rows waiting for each round in turn.
template <class T, class View>
WARPMODEL_ADI_HD CellStencil<T> load_cell_stencil(const View& v, int i, int l, int n, int lines) {
  const bool east = i + 1 < n, north = l + 1 < lines, south = l > 0;
  CellStencil<T> s;
  s.zeta = v.zeta(i, l);
  s.bed = v.bed(i, l);
  s.zeta_east = east ? v.zeta(i + 1, l) : T(0);
  s.bed_east = east ? v.bed(i + 1, l) : T(0);
  s.along_west = i > 0 ? v.along(i - 1, l) : T(0);
  s.along = v.along(i, l);
  s.along_east = east ? v.along(i + 1, l) : T(0);  // 0 on the east wall of the line
  s.along_north = north ? v.along(i, l + 1) : s.along;
  s.along_south = south ? v.along(i, l - 1) : s.along;
  const T depth = s.zeta - s.bed, depth_east = s.zeta_east - s.bed_east;
  s.depth_north = north ? v.depth(i, l + 1) : depth;
  s.depth_east_north = north && east ? v.depth(i + 1, l + 1) : depth_east;
  s.depth_south = south ? v.depth(i, l - 1) : depth;
  s.depth_east_south = south && east ? v.depth(i + 1, l - 1) : depth_east;
  s.cross_new = v.cross_new(i, l);  // stored 0 on the wall after the last line
  s.cross_new_east = east ? v.cross_new(i + 1, l) : T(0);
  s.cross_new_south = south ? v.cross_new(i, l - 1) : T(0);
  s.cross_new_east_south = south && east ? v.cross_new(i + 1, l - 1) : T(0);
  s.cross_old = v.cross_old(i, l);
  s.cross_old_east = east ? v.cross_old(i + 1, l) : T(0);
  s.cross_old_south = south ? v.cross_old(i, l - 1) : T(0);
  s.cross_old_east_south = south && east ? v.cross_old(i + 1, l - 1) : T(0);
  return s;
}

// SetMA, SetMO and LcElim of cell i from its stencil values (the arithmetic of the thesis's
// equations, in the order the CPU reference and every GPU variant share).
// kInterior: the caller knows that the cell is away from every wall (0 < i < n - 2, a line south of
// it), so the wall tests fold away at compile time (build_cell_pair); the arithmetic is the same.
template <class T, bool kInterior = false>
WARPMODEL_ADI_HD CellRows<T> cell_rows(const CellStencil<T>& s, int i, int n, bool south, const SweepConstants<T>& k) {
  south = kInterior || south;
  CellRows<T> rows;
  rows.dma = mass_rhs(s.along_west, s.along, s.cross_new, s.cross_new_south, s.cross_old, s.cross_old_south, s.zeta, k);
  if (!kInterior && i == n - 1) {
    rows.amo = T(0);
    rows.bmo = T(1);
    rows.cmo = T(0);
    rows.dmo = T(0);
    return rows;
  }
  const T h0 = s.zeta - s.bed;
  const T h1 = s.zeta_east - s.bed_east;
  const T inv_h0 = adi_reciprocal(h0);  // divisions become multiplications (the build is issue-bound)
  const T inv_h1 = adi_reciprocal(h1);
  const T flux = s.along;

  // Time derivative (4.4.2) and gravity (4.4.10): a* = -g (h_i + h_{i+1}) / (2 dx), c* = -a*.
  const T depth_sum = k.linear_depth ? -(s.bed + s.bed_east) : h0 + h1;
  const T gravity = k.g_over_2_d_along * depth_sum;
  T a = -gravity;
  T b = k.inv_dt;
  T c = gravity;
  T d = k.inv_dt * flux;

  ConvectiveCoefficients<T> conv{T(0), T(0)};
  if (k.convection) {
    // Convective term (4.4.4): implicit in p^{n+1}, coefficients from p^n.
    conv = convective_coefficients(s.along_west, flux, s.along_east, inv_h0, inv_h1, k);
    b += conv.east + conv.west;

    // Cross-momentum term (4.4.5-4.4.9), explicit: p^n on the neighbouring lines times the cross
    // velocity at the corners (i+1/2, l+-1/2), v = mean cross flux / mean of four depths.
    const T mean_depth_north = (h0 + s.depth_north + h1 + s.depth_east_north) * T(0.25);
    const T mean_depth_south = (s.depth_south + h0 + s.depth_east_south + h1) * T(0.25);
    const T velocity_north = (s.cross_new + s.cross_new_east) * T(0.5) * adi_reciprocal(mean_depth_north);
    const T velocity_south =
        south ? (s.cross_new_south + s.cross_new_east_south) * T(0.5) * adi_reciprocal(mean_depth_south) : T(0);
    d -= k.inv_2_d_cross * ((s.along_north + flux) * velocity_north - (flux + s.along_south) * velocity_south);
  }

  if (k.friction) {
    // Bed resistance (4.4.11-4.4.12), linearised: implicit in p^{n+1}, with p^ = p^n and q^ the mean
    // of the eight cross fluxes around the face at both levels (0 on the walls).
    const T cross_sum = (s.cross_old + s.cross_old_east) + (s.cross_new + s.cross_new_east) +
                        (south ? (s.cross_old_south + s.cross_old_east_south) + (s.cross_new_south + s.cross_new_east_south)
                               : T(0));
    const T cross_mean = cross_sum * T(0.125);
    b += k.g * adi_sqrt(flux * flux + cross_mean * cross_mean) * inverse_chezy_depth_squared(inv_h0, inv_h1, k);
  }

  // LcElim: l* p_{i-1} through mass row i (p_{i-1} = B zeta_i + p_i - dma_i), r* p_{i+1} through
  // mass row i+1 (p_{i+1} = dma_{i+1} + p_i - B zeta_{i+1}). At the line's ends p_{-1} and p_{n-1}
  // are the wall fluxes 0, known: there is nothing to eliminate.
  if (kInterior || i > 0) {
    a += conv.west * k.mass_diagonal;
    b += conv.west;
    d += conv.west * rows.dma;
  }
  if (kInterior || i < n - 2) {
    const T dma_east = mass_rhs(flux, s.along_east, s.cross_new_east, s.cross_new_east_south, s.cross_old_east,
                                s.cross_old_east_south, s.zeta_east, k);
    c -= conv.east * k.mass_diagonal;
    b += conv.east;
    d -= conv.east * dma_east;
  }
  rows.amo = a;
  rows.bmo = b;
  rows.cmo = c;
  rows.dmo = d;
  return rows;
}

template <class T, class View>
WARPMODEL_ADI_HD CellRows<T> build_cell(const View& v, int i, int l, int n, int lines, const SweepConstants<T>& k) {
  return cell_rows(load_cell_stencil<T>(v, i, l, n, lines), i, n, l > 0, k);
}

// The stencils of cells i and i+1 of line l (i even, n even) from one set of loads, each field's
// values at i and i+1 in one vector load (CellWindow::load_pair). The two cells share most of their
// values (cell i's east is cell i+1's centre): 25 loads for the pair instead of 50. The arithmetic is
// not shared (the SASS of the fused sweep, double: 243 FP64 instructions and 19 MUFU a pair, twice a
// cell's): the two cells' rows are cell_rows twice. Why: the fused build held 72 % of the sweep's
// stall samples, a quarter of them waiting on its 25 loads a cell, at 418 SASS instructions a cell
// (ncu on the H200, results/h200/logs/adi-fused-ncu/). Measured: 354 instructions a cell; the 2048^2
// step 387 -> 386 us in double and 206 -> 197 us in single on the H200 (H100: 425 -> 420, 224 -> 215):
// the double build is bound by its FP64 chains and two lines an SM, not by its loads. Every stencil
// value is the one load_cell_stencil gives, so the rows are the same to the last bit (tested).
// kInterior: the caller knows that the pair is away from every wall (build_cell_pair), so the loads
// are not predicated and the walls' selects fold away.
template <class T, bool kInterior = false, class View>
WARPMODEL_ADI_HD void load_cell_pair_stencils(const View& v, int i, int l, int n, int lines, CellStencil<T>& a,
                                              CellStencil<T>& b) {
  // "east": cell b's; cell a's is b.
  const bool east = kInterior || i + 2 < n, north = kInterior || l + 1 < lines, south = kInterior || l > 0;
  const bool west = kInterior || i > 0;
  const ValuePair<T> zeta = v.load_pair(v.zeta_ptr, i, l), bed = v.load_pair(v.bed_ptr, i, l);
  const ValuePair<T> along = v.load_pair(v.along_ptr, i, l);
  const ValuePair<T> cross_new = v.load_pair(v.cross_new_ptr, i, l), cross_old = v.load_pair(v.cross_old_ptr, i, l);
  const T zeta_2 = east ? v.zeta(i + 2, l) : T(0), bed_2 = east ? v.bed(i + 2, l) : T(0);
  const T along_west = west ? v.along(i - 1, l) : T(0);
  const T along_2 = east ? v.along(i + 2, l) : T(0);  // 0 on the east wall of the line
  const T cross_new_2 = east ? v.cross_new(i + 2, l) : T(0), cross_old_2 = east ? v.cross_old(i + 2, l) : T(0);
  const ValuePair<T> zero{T(0), T(0)};
  const ValuePair<T> along_north = north ? v.load_pair(v.along_ptr, i, l + 1) : along;
  const ValuePair<T> along_south = south ? v.load_pair(v.along_ptr, i, l - 1) : along;
  const ValuePair<T> zeta_north = north ? v.load_pair(v.zeta_ptr, i, l + 1) : zero;
  const ValuePair<T> bed_north = north ? v.load_pair(v.bed_ptr, i, l + 1) : zero;
  const ValuePair<T> zeta_south = south ? v.load_pair(v.zeta_ptr, i, l - 1) : zero;
  const ValuePair<T> bed_south = south ? v.load_pair(v.bed_ptr, i, l - 1) : zero;
  const T zeta_north_2 = north && east ? v.zeta(i + 2, l + 1) : T(0), bed_north_2 = north && east ? v.bed(i + 2, l + 1) : T(0);
  const T zeta_south_2 = south && east ? v.zeta(i + 2, l - 1) : T(0), bed_south_2 = south && east ? v.bed(i + 2, l - 1) : T(0);
  const ValuePair<T> cross_new_south = south ? v.load_pair(v.cross_new_ptr, i, l - 1) : zero;
  const ValuePair<T> cross_old_south = south ? v.load_pair(v.cross_old_ptr, i, l - 1) : zero;
  const T cross_new_south_2 = south && east ? v.cross_new(i + 2, l - 1) : T(0);
  const T cross_old_south_2 = south && east ? v.cross_old(i + 2, l - 1) : T(0);

  // Cell a = i (its east neighbour, i+1, is always inside the line).
  a.zeta = zeta.first;
  a.bed = bed.first;
  a.zeta_east = zeta.second;
  a.bed_east = bed.second;
  a.along_west = along_west;
  a.along = along.first;
  a.along_east = along.second;
  a.along_north = along_north.first;
  a.along_south = along_south.first;
  const T depth_a = a.zeta - a.bed, depth_b = a.zeta_east - a.bed_east;
  a.depth_north = north ? zeta_north.first - bed_north.first : depth_a;
  a.depth_east_north = north ? zeta_north.second - bed_north.second : depth_b;
  a.depth_south = south ? zeta_south.first - bed_south.first : depth_a;
  a.depth_east_south = south ? zeta_south.second - bed_south.second : depth_b;
  a.cross_new = cross_new.first;
  a.cross_new_east = cross_new.second;
  a.cross_new_south = cross_new_south.first;
  a.cross_new_east_south = cross_new_south.second;
  a.cross_old = cross_old.first;
  a.cross_old_east = cross_old.second;
  a.cross_old_south = cross_old_south.first;
  a.cross_old_east_south = cross_old_south.second;

  // Cell b = i + 1.
  b.zeta = zeta.second;
  b.bed = bed.second;
  b.zeta_east = zeta_2;
  b.bed_east = bed_2;
  b.along_west = along.first;
  b.along = along.second;
  b.along_east = along_2;
  b.along_north = along_north.second;
  b.along_south = along_south.second;
  const T depth_c = zeta_2 - bed_2;
  b.depth_north = a.depth_east_north;
  b.depth_east_north = north && east ? zeta_north_2 - bed_north_2 : depth_c;
  b.depth_south = a.depth_east_south;
  b.depth_east_south = south && east ? zeta_south_2 - bed_south_2 : depth_c;
  b.cross_new = cross_new.second;
  b.cross_new_east = cross_new_2;
  b.cross_new_south = cross_new_south.second;
  b.cross_new_east_south = cross_new_south_2;
  b.cross_old = cross_old.second;
  b.cross_old_east = cross_old_2;
  b.cross_old_south = cross_old_south.second;
  b.cross_old_east_south = cross_old_south_2;
}

// The rows of cells i and i+1 of line l (i even, n even): build_cell twice, from one set of loads.
// Pairs away from the walls (all but the first and last pair of a line and the first and last
// line) take a copy of the build with the wall tests folded away: no predicated loads, selects or
// branches on i. Why: in the SASS of the fused sweep (double) a fifth of the build's instructions
// were the walls' selects, zeroings and moves (36 FSEL, 36 CS2R, 79 IMAD.MOV a pair); a trip of the
// build loop (one pair) is 560 instructions with the interior copy against 707 (cuobjdump -sass of
// fused_sweep_kernel<double, 8>). Same arithmetic, so the same rows to the last bit
// (tested). Measured on the H200 against the build before it, same card, same run (median step):
// 2048^2 double 383.5 -> 365.3 us (a sweep 154.6 -> 145.1), 4096^2 single 761 -> 712, 1536 x 2400
// double 399 -> 359; no size slower (results/h200/logs/adi-interior-pairs/).
template <class T, bool kInterior, class View>
WARPMODEL_ADI_HD void build_cell_pair_as(const View& v, int i, int l, int n, int lines, const SweepConstants<T>& k,
                                         CellRows<T>& a, CellRows<T>& b) {
  CellStencil<T> sa, sb;
  load_cell_pair_stencils<T, kInterior>(v, i, l, n, lines, sa, sb);
  a = cell_rows<T, kInterior>(sa, i, n, l > 0, k);
  b = cell_rows<T, kInterior>(sb, i + 1, n, l > 0, k);
}

// Whether the pair (i, i+1) of line l is away from every wall: build_cell_pair_as<T, true> applies.
WARPMODEL_ADI_HD bool cell_pair_is_interior(int i, int l, int n, int lines) {
  return i > 0 && i + 2 < n && l > 0 && l + 1 < lines;
}

// interior: true only where cell_pair_is_interior holds for this pair (the fused sweep passes it for
// a whole warp at once, so that a warp runs one copy); false is right everywhere.
template <class T, class View>
WARPMODEL_ADI_HD void build_cell_pair(const View& v, int i, int l, int n, int lines, const SweepConstants<T>& k,
                                      bool interior, CellRows<T>& a, CellRows<T>& b) {
  if (interior)
    build_cell_pair_as<T, true>(v, i, l, n, lines, k, a, b);
  else
    build_cell_pair_as<T, false>(v, i, l, n, lines, k, a, b);
}

}  // namespace warpmodel::adi
