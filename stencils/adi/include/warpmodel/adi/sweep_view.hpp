// A sweep sees the grid in its own frame: i runs along the line (the implicit direction), l counts
// the lines. Memory holds (i, l) at i * along_stride + l * line_stride, so one view type covers
// the x-sweep (along = x) and the y-sweep (along = y) in either memory layout:
//   along-major (thread-per-line, coalesced when consecutive threads take consecutive lines):
//       along_stride = lines, line_stride = 1
//   line-major  (block-per-line, coalesced when consecutive threads take consecutive cells):
//       along_stride = 1, line_stride = n
// Fields: the along flux at its old level (p^n in the x-sweep, q^{n+1/2} in the y-sweep) on the face
// i+1/2; the cross flux at the two levels the sweep uses (x-sweep: q^{n-1/2}, q^{n+1/2}; y-sweep:
// p^n, p^{n+1}) on the face l+1/2 of cell i; zeta and the bed at cell centres.
#pragma once

#include "warpmodel/adi/hd.hpp"

namespace warpmodel::adi {

// A value the build reads and never writes: through the read-only data cache on the device.
template <class T>
WARPMODEL_ADI_HD T read_only_load(const T* p) {
#if defined(__CUDA_ARCH__)
  return __ldg(p);
#else
  return *p;
#endif
}

// Two neighbouring values p[0], p[1] (p two-element aligned) as one vector load on the device.
template <class T>
struct ValuePair {
  T first, second;
};
template <class T>
WARPMODEL_ADI_HD ValuePair<T> read_only_load_pair(const T* p) {
#if defined(__CUDA_ARCH__)
  if constexpr (sizeof(T) == 8) {
    const double2 v = __ldg(reinterpret_cast<const double2*>(p));
    return {static_cast<T>(v.x), static_cast<T>(v.y)};
  } else {
    const float2 v = __ldg(reinterpret_cast<const float2*>(p));
    return {static_cast<T>(v.x), static_cast<T>(v.y)};
  }
#else
  return {p[0], p[1]};
#endif
}

// The five fields a sweep reads, read at (i, l) as the view `View` addresses them (View::load).
template <class T, class View>
struct SweepFields {
  const T* zeta_ptr;
  const T* bed_ptr;
  const T* along_ptr;
  const T* cross_old_ptr;
  const T* cross_new_ptr;

  WARPMODEL_ADI_HD T zeta(int i, int l) const { return view().load(zeta_ptr, i, l); }
  WARPMODEL_ADI_HD T bed(int i, int l) const { return view().load(bed_ptr, i, l); }
  WARPMODEL_ADI_HD T along(int i, int l) const { return view().load(along_ptr, i, l); }
  WARPMODEL_ADI_HD T cross_old(int i, int l) const { return view().load(cross_old_ptr, i, l); }
  WARPMODEL_ADI_HD T cross_new(int i, int l) const { return view().load(cross_new_ptr, i, l); }
  WARPMODEL_ADI_HD T depth(int i, int l) const { return zeta(i, l) - bed(i, l); }
  WARPMODEL_ADI_HD const View& view() const { return static_cast<const View&>(*this); }
};

// Written {zeta, bed, along, cross_old, cross_new, along_stride, line_stride}.
template <class T>
struct SweepView : SweepFields<T, SweepView<T>> {
  int along_stride;
  int line_stride;

  WARPMODEL_ADI_HD T load(const T* f, int i, int l) const { return read_only_load(f + i * along_stride + l * line_stride); }
};

// A view with one unit stride, seen from one cell (i0, l0): every field's pointer already at that cell,
// so a build of cell (i0, l0) addresses its neighbours as small constant offsets from five pointers
// (i0 - i and l0 - l fold to 0 or +-1 once build_cell is inlined). The fused build read about 36 values
// per cell then (25 since load_cell_stencil); through SweepView each address cost an integer multiply
// and a 64-bit add (ncu on the H200: 40 IADD3, 28 IMAD.X and 32 IMAD.MOV per cell against 36 loads).
// Same values as SweepView, so the same rows to the last bit.
//   kLineMajor (CellWindow): along_stride == 1, `stride` the line stride; the cells i and i+1 of a pair
//     are neighbours in memory, one vector load.
//   !kLineMajor (ColumnWindow): line_stride == 1, `stride` the along stride (fused-cluster's y-sweep on
//     the x frame's row-major arrays, a line being a column: cluster_sweep.hpp); a pair is two rows, two
//     loads (test FusedCluster.ColumnWindowBuildsWhatTheTransposedFrameBuilds).
template <class T, bool kLineMajor>
struct UnitStrideWindow : SweepFields<T, UnitStrideWindow<T, kLineMajor>> {
  long long stride;
  int i0, l0;

  WARPMODEL_ADI_HD static long long offset(long long stride, int i, int l) {
    return kLineMajor ? static_cast<long long>(l) * stride + i : static_cast<long long>(i) * stride + l;
  }
  WARPMODEL_ADI_HD static UnitStrideWindow at(const SweepView<T>& v, int i, int l) {
    const long long s = kLineMajor ? v.line_stride : v.along_stride;
    const long long o = offset(s, i, l);
    return {v.zeta_ptr + o, v.bed_ptr + o, v.along_ptr + o, v.cross_old_ptr + o, v.cross_new_ptr + o, s, i, l};
  }
  WARPMODEL_ADI_HD T load(const T* f, int i, int l) const { return read_only_load(f + offset(stride, i - i0, l - l0)); }
  // Cells i and i+1 of line l of field f. Line-major: one load, (l * stride + i) must be even (i even,
  // the stride even, the arrays' bases aligned as cudaMalloc aligns them).
  WARPMODEL_ADI_HD ValuePair<T> load_pair(const T* f, int i, int l) const {
    if constexpr (kLineMajor)
      return read_only_load_pair(f + offset(stride, i - i0, l - l0));
    else
      return {load(f, i, l), load(f, i + 1, l)};
  }
};

template <class T>
using CellWindow = UnitStrideWindow<T, true>;
template <class T>
using ColumnWindow = UnitStrideWindow<T, false>;

}  // namespace warpmodel::adi
