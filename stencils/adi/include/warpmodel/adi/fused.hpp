// Variant `fused`: one kernel per sweep that builds each cell's rows from the state and solves the
// line at once (issue 15). Nothing but the state touches global memory: no coefficient arrays, no
// transposes. Written once and run two ways, as partitioned.hpp: by the CUDA kernel
// (adi_kernels.cuh, Block::sync() = __syncthreads()) and by std::threads in
// tests/adi/test_block_algorithms.cpp, which checks a whole step against the CPU reference.
//
// Both sweeps read the state where it lies (cell (j, k) at j + k nx, state.hpp):
//   x-sweep: lines are the rows, line-major (along stride 1, line stride nx). Thread t of a block
//     is segment t % P of line t / P: a thread's kCells cells are contiguous, the block's lines
//     consecutive rows.
//   y-sweep: lines are the columns, along-major (along stride nx, line stride 1). Thread t is
//     segment t / lanes of column t % lanes: consecutive threads take consecutive columns, so each
//     load of a warp reads `lanes` consecutive values of 32 / lanes rows (whole 32-byte sectors
//     from 4 doubles / 8 floats on).
// Each thread builds its segment's rows (build_cell, coefficients.hpp: the neighbouring cells and
// lines come from the state through the read-only path, mostly L1 hits) and runs the partitioned
// solve (adi_segment_partitioned). A sweep writes its zeta and flux into other arrays than it reads
// (the builds of neighbouring blocks still read the old values), so the solver rotates buffers.
// Traffic of a step: each sweep reads zeta, bed, the along flux and the cross flux at two levels
// and writes zeta and the along flux: 14 arrays, against 8 for the state alone.
#pragma once

#include "warpmodel/adi/coefficients.hpp"
#include "warpmodel/adi/partitioned.hpp"
#include "warpmodel/adi/sweep_view.hpp"

namespace warpmodel::adi {

// The segment's rows built from the state: cell c0 + j of line `line`.
template <class T>
struct BuiltRows {
  const SweepView<T>* view;
  const SweepConstants<T>* constants;
  int c0;
  int line;
  int n_along;
  int lines;
  WARPMODEL_ADI_HD CellRows<T> operator()(int j) const {
    return build_cell(*view, c0 + j, line, n_along, lines, *constants);
  }
};

// Threads of one fused block: `lanes` lines of `segments` segments each.
struct FusedThread {
  int segment;
  int lane;  // the block's line this thread works on
  SegmentSlots slots;
};

// Along-major (y-sweep): lane fastest; line-major (x-sweep): segment fastest.
WARPMODEL_ADI_HD FusedThread fused_thread(int t, int segments, int lanes, bool along_major) {
  if (along_major) return {t / lanes, t % lanes, SegmentSlots{t % lanes, lanes}};
  return {t % segments, t / segments, SegmentSlots{(t / segments) * segments, 1}};
}

// One thread of block `block_index` of a fused sweep over `lines` lines of n_along cells.
template <class T, int kCells, class Block>
WARPMODEL_ADI_HD void adi_sweep_fused(const Block& block, int block_index, int t, int lanes, int n_along, int lines,
                                      const SweepView<T>& view, const SweepConstants<T>& constants, T* shared,
                                      T* zeta_out, T* flux_out) {
  const int segments = n_along / kCells;
  const bool along_major = view.line_stride == 1 && view.along_stride != 1;
  const FusedThread me = fused_thread(t, segments, lanes, along_major);
  const int line = block_index * lanes + me.lane;
  const int c0 = me.segment * kCells;
  const long long first = static_cast<long long>(c0) * view.along_stride + static_cast<long long>(line) * view.line_stride;
  adi_segment_partitioned<T, kCells>(block, me.segment, segments, me.slots, segments * lanes,
                                     BuiltRows<T>{&view, &constants, c0, line, n_along, lines},
                                     constants.mass_diagonal, shared,
                                     SegmentOutput<T>{zeta_out, flux_out, first, view.along_stride});
}

// Lines per block of a fused sweep: as the partitioned solve (partitioned_lanes), and a divisor of
// the number of lines (both are powers of two up to 32 and multiples of 32 respectively).
inline int fused_lanes(int n_along, int cells, int lines) {
  int lanes = partitioned_lanes(n_along, cells);
  while (lanes > 1 && lines % lanes != 0) lanes /= 2;
  return lanes;
}

}  // namespace warpmodel::adi
