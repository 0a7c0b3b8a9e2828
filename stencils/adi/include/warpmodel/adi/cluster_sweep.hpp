// fused-cluster's y-sweep: the y-sweep on the x frame's row-major arrays, so a step needs no transposes.
// The host- and device-side layout it shares with the solver and the tests; the kernel is in
// gpu/cluster_sweep.cuh.
//
// A cluster of W blocks owns W consecutive columns (the y-sweep's lines; W = 8 or 16, cluster_columns);
// block r of the cluster holds rows [r R, (r+1) R) of all of them (R = ny / W), so a warp's loads and
// stores touch W consecutive values of a row (64 or 128 bytes in double) and need no transpose. Each thread
// runs the partitioned solve (partitioned.hpp) on one segment of kCells rows of one column, its rows in
// shared memory as fused.hpp keeps them. Column w's reduced system (P = ny / kCells segments, spread over the
// cluster's blocks) is solved by block w of the cluster: every segment writes its two reduced rows into that
// block's shared memory (distributed shared memory), that block's P threads solve them as a block-local solve
// would (solve_reduced_system, PCR until the rows decouple: PcrLevels::UntilDecoupled, partitioned.hpp) and
// send each Z to the block of its segment. Every value goes by st.async, counted on an mbarrier of the
// receiving block (gpu/cluster_sweep.cuh says why), so the exchange needs no cluster barrier.
//
// Why (H200, 2048^2 double, results/h200/logs/adi-cluster-y/): the step 302.5 us against the transposing
// fused step's 326.0 on one card; its y-sweep takes 177 against 125 (cluster slots, the column layout and
// the exchange: results/h200/logs/adi-cluster-slots/), but the four transposes (76 us) are gone. Slower in
// single at 2048^2 and 4096^2 there, so a variant of its own, not fused's y-sweep.
#pragma once

#include <cstddef>
#include <string>

#include "warpmodel/adi/hd.hpp"
#include "warpmodel/adi/partitioned.hpp"

namespace warpmodel::adi {

// Columns of a cluster, and blocks in it: 8 (the largest portable cluster size: a warp's load is 4 rows of 64
// bytes) or 16 (a non-portable size: 2 rows of 128 bytes), chosen by cluster_columns. Cells per thread: 8 only
// (the size the probes measured).
constexpr int kClusterColumnsNarrow = 8;
constexpr int kClusterColumnsWide = 16;
constexpr int kClusterCells = 8;

// The cluster width for ny rows: 16 columns where each block then holds a multiple of 16 segments a column
// (ny 2048 or 4096; cluster_slot_in_column's rotations then keep a row's 16 columns in distinct banks), else 8.
// Why (H200, results/h200/logs/adi-fused-cluster/width-rcp/call2/ab.md, 16 columns against 8 on one card):
// 2048^2 double step 269.4 us against 277.2 (the y-sweep 148.5 against 155.4), 4096^2 single 570.9 against
// 603.6, 4096^2 double the same; but 1024^2 double 89.1 against 76.1 (blocks of 64 rows). Until then, when
// clusters of 16 columns were tried with blocks twice the size (16 columns x 256 rows, one block an SM), they
// were slower: 188.7 us a y-sweep against 176.5 (results/h200/logs/adi-cluster-y/). The solver falls back to 8
// where the GPU cannot run a cluster of 16.
// One launch a sweep, though clusters of 16 leave block slots idle (2048^2 double: 15 clusters at once, 240 of
// 264 slots): giving the last columns to a concurrent launch of clusters of 4 on a second stream made that
// y-sweep 3 us faster (144.6 -> 141.3) and every other size slower (2048^2 single 83.7 -> 88.4 us, 4096^2
// double 638.1 -> 652.3; H200, results/h200/logs/adi-fused-cluster/filler/ab.md).
inline int cluster_columns(int ny, int cells) {
  const int segments_per_column_wide = ny / (kClusterColumnsWide * cells);
  const bool whole_segments = ny % (kClusterColumnsWide * cells) == 0;
  return whole_segments && segments_per_column_wide % 16 == 0 ? kClusterColumnsWide : kClusterColumnsNarrow;
}

// Slot of block cell c = w R + r (column w, row r of the block) in each per-cell array: a segment's cells
// together, rotated as fused_slot does and by one more cell a column, so that the columns of a row (a build's
// or a store's lanes) fall in different banks (the block's segment index adds w (S/2 + 1) to the rotation in
// double: w mod 8 when S = R / 8 is a multiple of 16, as cluster_columns asks of 16 columns); with 16 columns a
// double row is 128 bytes, and columns w and w+8 (the same rotation) are kept apart by swapping the segments
// of each even-odd pair in columns 8-15. The kernel always knows the column of the cell it addresses (a
// thread's segment lies in one column), so it passes w and no integer division by R is left on the device
// (cluster_slot_in_column); cluster_slot derives w for the host and the tests. Until then every slot of the
// build, the chains and the store divided by R at run time (9 divisions in the SASS of
// cluster_sweep_kernel<double, 8>, 1 after): the 2048^2 double y-sweep took 174.9 us against 168.7, the step
// 302.9 against 295.0, 4096^2 double 745.0 against 709.1 (H200, same card, medians of two alternated runs,
// results/h200/logs/adi-fused-cluster/slots/ab.md).
// Unsigned arithmetic: c and the column are never negative, and a signed division or remainder by a power of
// two costs 3-4 instructions where the unsigned one is a shift or a mask (the same slots: test ClusterSlots).
template <class T, int kCells, int kColumns>
WARPMODEL_ADI_HD int cluster_slot_in_column(int c, int column) {
  constexpr unsigned kBytes = kCells * static_cast<unsigned>(sizeof(T));
  constexpr unsigned kSegmentsPerRotation = 128 / kBytes > 0 ? 128 / kBytes : 1;
  const unsigned cell = static_cast<unsigned>(c), w = static_cast<unsigned>(column);
  const unsigned segment = (cell / kCells) ^ (kColumns > 8 ? (w >> 3) & 1u : 0u);
  return static_cast<int>(segment * kCells + (cell + segment / kSegmentsPerRotation + w) % kCells);
}

template <class T, int kCells, int kColumns>
WARPMODEL_ADI_HD int cluster_slot(int c, int rows) {
  return cluster_slot_in_column<T, kCells, kColumns>(c, c / rows);
}

// The slots of one column's cells (FusedSegment's Slots for a thread whose segment is in column w).
template <class T, int kCells, int kColumns>
struct ColumnSlots {
  int column;
  WARPMODEL_ADI_HD int operator()(int c) const { return cluster_slot_in_column<T, kCells, kColumns>(c, column); }
};

// The cells thread t of a block (of T = W R / kCells threads) builds and stores: kCells / 2 pairs and kCells
// cells, trip j being e = t + j T. The build: lane L of a warp takes column L % W of group L / W (G = 32 / W
// groups), warp trip k = e / 32 the rows band(k / 4) * 8G + 8g + 2 (k % 4) (+1): with 8 columns a half warp's
// rows are 8 apart (other segments, other banks), with 16 a half warp is one row's 16 columns
// (cluster_slot_in_column keeps them in distinct banks). The store: band(k / 8) * 8G + 8g + k % 8, a row's W
// columns at once. Where R is not a multiple of 8G (or 32 does not divide T): pair or cell e of column e % W.
// Unsigned, so that every division and remainder by a power of two is a shift or a mask (the signed ones,
// with run-time loop bounds, took about 55 instructions a stored cell in the SASS of
// cluster_sweep_kernel<double, 8, 16>, against 30 now). Measured on the H200 against the signed loops: 2048^2
// single step 152.9 -> 145.6 us, 4096^2 single 575.1 -> 543.6, double within 1 % (2048^2 260.4 -> 260.4;
// results/h200/logs/adi-fused-cluster/pdl/ab.md).
struct ClusterCell {
  int column, row;  // in the block
};
template <int kCells, int kColumns>
struct ClusterTrips {
  static constexpr unsigned kGroups = 32 / kColumns;
  unsigned t, threads, lane, warp, warps, group;
  bool banded;
  WARPMODEL_ADI_HD ClusterTrips(int thread, int rows)
      : t(static_cast<unsigned>(thread)),
        threads(static_cast<unsigned>(kColumns * rows / kCells)),
        lane(t % 32),
        warp(t / 32),
        warps(threads / 32),
        group(lane / kColumns),
        banded(rows % (8 * kGroups) == 0 && threads % 32 == 0) {}
  // Trip j < kCells / 2 of the build: the pair's column and first row.
  WARPMODEL_ADI_HD ClusterCell build_pair(unsigned j) const {
    const unsigned e = t + j * threads, k = warp + j * warps;  // k = e / 32 where banded
    if (banded) return cell(lane % kColumns, (k / 4) * 8 * kGroups + 8 * group + 2 * (k % 4));
    return cell(e % kColumns, 2 * (e / kColumns));
  }
  // Trip j < kCells of the store.
  WARPMODEL_ADI_HD ClusterCell store_cell(unsigned j) const {
    const unsigned e = t + j * threads, k = warp + j * warps;
    if (banded) return cell(lane % kColumns, (k / 8) * 8 * kGroups + 8 * group + k % 8);
    return cell(e % kColumns, e / kColumns);
  }
  WARPMODEL_ADI_HD static ClusterCell cell(unsigned column, unsigned row) {
    return {static_cast<int>(column), static_cast<int>(row)};
  }
};

// Where each part of a block's shared memory starts, in T elements (the kernel's pointers and the launch's
// size from one place): four per-cell arrays of W x R cells (W columns); the reduced rows the cluster's
// segments send (6 P, then the block-local PCR's buffers); the Z the owners send back (W x (S + 1): each
// column's S segments of the block and the next block's first, S = P / W); and 4 elements for the exchange's
// two 8-byte mbarriers (16 bytes in single; the offset before them is a whole number of 8-byte words in either
// precision).
struct ClusterSharedLayout {
  int reduced, z, barriers, total;
};
WARPMODEL_ADI_HD ClusterSharedLayout cluster_shared_layout(int ny, int cells, int columns) {
  const int segments = ny / cells;
  ClusterSharedLayout at{};
  at.reduced = 4 * ny;
  at.z = at.reduced + 6 * segments;
  at.barriers = at.z + columns * (segments / columns + 1);
  at.total = at.barriers + 4;
  return at;
}

// Slot of column w's local segment s (0 .. S, S being the next block's first) in the Z part.
WARPMODEL_ADI_HD int cluster_z_slot(int column, int local_segment, int segments_per_column) {
  return column * (segments_per_column + 1) + local_segment;
}

// T elements of shared memory a block needs for ny rows in clusters of `columns`.
inline int cluster_sweep_shared_elements(int ny, int cells, int columns) {
  return cluster_shared_layout(ny, cells, columns).total;
}

// Empty when fused-cluster's y-sweep takes ny rows of this element size, else why not (one line).
inline std::string cluster_sweep_refusal(int ny, int cells, std::size_t element, std::size_t max_shared_bytes) {
  if (cells != kClusterCells)
    return "fused-cluster: cells per thread must be " + std::to_string(kClusterCells) + ", not " + std::to_string(cells);
  if (ny % (kClusterColumnsNarrow * cells) != 0)
    return "fused-cluster: rows " + std::to_string(ny) + " must be a multiple of " +
           std::to_string(kClusterColumnsNarrow * cells) + " (" + std::to_string(kClusterColumnsNarrow) +
           " blocks of whole " + std::to_string(cells) + "-cell segments a column); variant fused takes any multiple of 32";
  if (ny / cells > partitioned_max_threads(cells))
    return "fused-cluster: rows " + std::to_string(ny) + " need more than " +
           std::to_string(partitioned_max_threads(cells)) + " threads a block (at most " +
           std::to_string(partitioned_max_threads(cells) * cells) + " rows); variant fused takes them";
  if (static_cast<std::size_t>(cluster_sweep_shared_elements(ny, cells, cluster_columns(ny, cells))) * element >
      max_shared_bytes)
    return "fused-cluster: rows " + std::to_string(ny) + " need more than " + std::to_string(max_shared_bytes / 1024) +
           " KiB of shared memory a block";
  return {};
}

}  // namespace warpmodel::adi
