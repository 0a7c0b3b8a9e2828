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

template <class T>
struct SweepView {
  const T* zeta_ptr;
  const T* bed_ptr;
  const T* along_ptr;
  const T* cross_old_ptr;
  const T* cross_new_ptr;
  int along_stride;
  int line_stride;

  WARPMODEL_ADI_HD T load(const T* f, int i, int l) const {
#if defined(__CUDA_ARCH__)
    return __ldg(f + i * along_stride + l * line_stride);  // read-only during a build
#else
    return f[i * along_stride + l * line_stride];
#endif
  }
  WARPMODEL_ADI_HD T zeta(int i, int l) const { return load(zeta_ptr, i, l); }
  WARPMODEL_ADI_HD T bed(int i, int l) const { return load(bed_ptr, i, l); }
  WARPMODEL_ADI_HD T along(int i, int l) const { return load(along_ptr, i, l); }
  WARPMODEL_ADI_HD T cross_old(int i, int l) const { return load(cross_old_ptr, i, l); }
  WARPMODEL_ADI_HD T cross_new(int i, int l) const { return load(cross_new_ptr, i, l); }
  WARPMODEL_ADI_HD T depth(int i, int l) const { return zeta(i, l) - bed(i, l); }
};

}  // namespace warpmodel::adi
