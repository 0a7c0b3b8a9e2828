// Variant `fused`: one kernel per sweep builds every cell's rows from the state and solves the lines
// at once; the coefficients never leave the SM. Written once and run two ways, as
// partitioned.hpp: by the CUDA kernel (adi_kernels.cuh, Block::sync() = __syncthreads()) and by
// std::threads in tests/adi/test_block_algorithms.cpp, which checks a whole step against the CPU
// reference.
//
// Layout: line-major in both frames (as block-per-line: cell i of line l at i + l * n_along; the
// y-sweep runs on transposed arrays). A block owns `lanes` whole lines, one thread per segment of
// kCells cells (partitioned.hpp). Three phases, so that global memory is only ever touched by
// consecutive threads at consecutive addresses:
//   A. build: thread t builds the cell pairs 2t, 2t + 2T, ... of the block's lines (T threads),
//      reading the state and its neighbouring lines coalesced, and stores four values a cell in
//      shared memory: the mass right-hand side and the momentum row divided by its diagonal (a warp
//      whose pairs are all away from the walls takes the build without wall tests,
//      build_cell_pair_as<T, true>);
//   B. solve: each thread runs the partitioned solve on its segment (adi_segment_fused), reading
//      each row from shared memory when a chain needs it and storing the downward chain over the
//      rows, then zeta and the flux over the chain (a thread touches only its own segment's cells);
//   C. store: thread t writes zeta and the flux of cells t, t + T, ... to global memory, the east
//      wall's flux as 0.
// Shared memory: 4 values per cell, each segment's cells rotated by fused_slot (no bank conflicts,
// no padding), and the reduced system (6 values per segment, partitioned.hpp): 76 KiB for a 2048-cell
// double line.
// Until 8d91bbc the solve copied the segment's five rows into registers and the block kept five
// values a cell and a padding element per segment (106 KiB a 2048-cell double line): the same two
// blocks an SM (the registers), but the A/B on one card (results/h200/logs/adi-shared-solve/,
// results/h100-80gb-hbm3/logs/adi-shared-solve/) gave 2048^2 double steps of 335 against 364 us
// (H200) and 376-380 against 403-405 us (H100), 4096^2 double 1,336 against 1,553 us (H200), and
// 2-3 % slower ones at 1536 x 2400 and with fused/c4 at 2048. Three 2048-cell double lines an SM
// (80 registers) made the sweep a third slower: adi_kernels.cuh. The first measurement (threads
// reading their own segments from global memory, lanes 64 bytes apart) was bound by L1 wavefronts
// at 13 % of DRAM bandwidth.
// The sweep writes into other arrays than it reads (the builds of other blocks read the old lines
// l-1 and l+1), so the solver keeps output buffers. Writing the outputs straight into the other
// frame instead of the four transposes (each sweep storing its flux in both frames, zeta in the
// other; stores `lines` elements apart) was measured slower on the H100 (2048^2 double: 750 us
// per step against 592 us; results/h100-80gb-hbm3/logs/adi-fused/), so the transposes stay. Asked
// again of today's sweeps (H200, results/h200/logs/adi-other-frame/): zeta alone into the other frame
// (two transposes fewer) made the 2048^2 double step 360.8 us against 326.4, zeta and the flux 467.8;
// each array stored across the frame costs a sweep about 38 us, twice the 18 us of its transpose (a
// warp's store touches 32 rows: 32 partial sectors instead of 8 whole ones).
// Nor did a y-sweep on the x-sweep's own row-major arrays pay (commit 1bac40b, variant
// fused-one-frame, reverted): columns as lines in the along-major layout, thread (column, segment)
// building its segment's rows in registers and solving them as the partitioned solve does, no
// transposes at all. Verified (1e-12 of the CPU after 100 steps), but its y-sweep took 382 us at
// 2048^2 double on the H200 against 159 us for this one, so the step 542 us against 391
// (results/h200/logs/adi-one-frame/): a block of the register-resident segments holds only two
// columns (512 threads of 256 segments), so every load of a warp touches 16 rows (16 L1 wavefronts
// for 256 bytes), and one column a block at 4096^2 (32 rows a load; the y-sweep 2,576 us).
// Nor did storing into both frames through thread-block clusters (commit 6bcd940, variant
// fused/cluster, reverted): each sweep wrote zeta into the other frame and its flux into both, no
// transposes; 4 blocks (lines) a cluster so that each column got a whole 32-byte sector, read from
// the other blocks' shared memory after a cluster barrier. Verified (100 steps within 1e-12,
// memcheck and racecheck clean), but at 2048^2 double on the H200 a sweep took 197-200 us against
// 154, so the step 393-406 us against 380-384 although the four transposes (76 us) were gone; 4096^2
// 855-906 us a sweep against 650. Batching the remote loads changed nothing and clusters of 8 (64
// bytes a column) were slower still (216 us): the cost is the clusters themselves (a cluster of
// 106 KiB blocks starts only when four block slots are free in one GPC, and its blocks wait for each
// other at the barriers). Only 1024^2 double gained (104-108 us a step against 110).
// (results/h200/logs/adi-cluster-stores/)
// A y-sweep on the x frame's row-major arrays by clusters of 8 blocks (8 columns, each block 1/8 of the
// rows; the reduced system of a column solved by one block through distributed shared memory) made the
// step 302.5 us against 326.0, but its y-sweep takes 177 against 125 (results/h200/logs/adi-cluster-y/):
// 11 us of block slots (at most 30 clusters of 8 run at once on the H200, 240 of the 264 block slots),
// about 22 of column layout (the same kernel without clusters and without the reduced solve: 128.6 us),
// and a distributed reduced solve costing about 37 where the block-local PCR costs 19. Exchanging the
// reduced rows through L2 in a cooperative grid instead (every slot, no clusters) made it no faster
// (175.4 us), nor did clusters of 4 (32-byte row segments: 205.6) or persistent clusters (183.1)
// (results/h200/logs/adi-cluster-slots/). Not fused's y-sweep (slower in single at 4096^2, and even with
// every slot used and a local-PCR-cheap exchange the step would be about 273 us), but a variant of its
// own since 09b6880: fused-cluster (cluster_sweep.hpp), 300.4 us against fused's 325.6 in one run (291.5 against
// 326.5 at 39ead0b, its y-sweep's slots and exchange made cheaper). fused-cluster's sweeps (its x-sweep is this
// sweep as fused_cluster_sweep_x_kernel) also stop PCR once the reduced rows decouple (PcrLevels::UntilDecoupled,
// partitioned.hpp: 3 levels of 8 at 2048 cells): 2048^2 double step 275.9 us against 286.8, x-sweep 117.6 against
// 123.6 (H200, same card; results/h200/logs/adi-fused-cluster/pcr-levels/ab.md). fused keeps every level, so its
// kernels and the tables measured with them on both GPUs stand.
// Nor did transposing in the sweeps (probes, not kept: results/h200/logs/adi-bands/): the last block
// of a sweep to finish a band of 8 lines (16 in single; an atomic counter a band, release/acquire)
// transposed the band's zeta and flux, read back through L2, into the other frame through its shared
// memory. Verified and sanitizer-clean; with fixed per-thread offsets the 2048^2 double step came to
// parity (326.9-332.0 us against 325.1, each sweep 36-39 us slower), single and every other size
// slower. With the counter and no transpose (timing only) the step took 260 us: without any
// transpose, today's sweeps alone are above the step target of 250 us.
// Nor did starting the first-wave blocks of an SM k x 3-9 us apart, so that one block's loads overlap
// another's solve (probe, results/h200/logs/adi-stagger/): 2048^2 double sweep 128.7-130.9 us against
// 128.7 for the arrival counters alone; the blocks are not held in phase. Nor did solving each line's
// reduced system by one warp (shuffle PCR, two barriers instead of nine; results/h200/logs/adi-warp-reduced/):
// 2048^2 double 324.8 against 327.6 us, though single gained 6 %.
// Nor did prefetching into L2 the lines the block 132, 264 or 528 blocks later builds
// (cp.async.bulk.prefetch.L2 of each field's line at the block's start): at 2048^2 double on the
// H200 a sweep took 153 / 164 / 166 us against 154 without, 4096^2 double 717-729 against 649-652:
// the sweep waits on its own load-to-use chains at 16 warps an SM, not on DRAM
// (results/h200/logs/adi-l2-prefetch/). Nor, in fused-cluster, did each block prefetching its own inputs into L2
// at its start (2048^2 double x-sweep 113.9 -> 124.0 us, y-sweep 144.2 -> 151.8; results/h200/logs/
// adi-fused-cluster/l2-tile/).
// What bounds the sweep (Nsight Compute at 92ac5bc, the 6th step, results/h200/logs/adi-fused-ncu/): 416
// instructions a cell (build 243, solve 145, store 28) issued in 46 % of the slots, 0.84 eligible
// warps of 3.85 a scheduler: latency at 16 warps an SM, a limit the registers (122) and the shared
// memory (77.8 KiB a 2048-cell double block) both set; all slots busy would be 52 us a sweep, not 125.
// Probes at 0cbc616 (results/*/logs/adi-probes/, 2048^2 double): not the FP64
// work (no friction term, 24 % of the sweep's FP64 instructions: 4 % faster), not DRAM (half its
// bandwidth; L1 or L2 prefetch of the next trip: no gain), but L1 capacity and the solve. The build's
// halo loads hit the lines its pair loads brought into L1 (45 % of sectors); with the carveout at 100 %
// (L1 ~23 KiB) the sweep is 11 % slower, more than a third block's warps gain (7 %). The solve is a
// quarter of the sweep (H200: the step 265 us without it, 297 without the PCR levels, 335 with both).
// Where a sweep's 125 us go today (H200, 2048^2 double; probes that each remove one part, not kept:
// results/h200/logs/adi-decomposition/): without the solve 96 us (the reduced system is 15 of its 29), without the
// rows' arithmetic 111, with every block's stencil read from L2-hot lines instead of DRAM 109, without both of
// these 85, without the rows' arithmetic and the solve 84 (the step 243 us), and without the DRAM loads too 54.
// A sweep moves 7 arrays (235 MB; 56 us at adi.md's 4.2 TB/s copy); the 250 us step target with the four transposes
// (76 us) needs sweeps of 87 us, what the sweep's skeleton alone (loads, rows in shared memory, barriers, stores)
// takes: the target needs the transposes gone. The cluster y-sweep's skeleton takes 98 us, so even with its
// arithmetic and solve hidden as well as the x-sweep's a step without transposes would take about 266 us.
// The double reciprocal without its last Newton step (adi_reciprocal: 3 DFMA instead of 5, one refinement
// fewer than CUDA's own) made every double step 1.2-3.1 % faster (2048^2: 320.1 against 328.1 us) and passed
// the 100-step comparisons with the CPU reference; not adopted while the H100's tables cannot be re-measured.
// The floor of this structure's data movement (results/h200/logs/adi-floor/, a standalone program moving a
// sweep's bytes with stand-in arithmetic): 76 us a 2048^2 double sweep (61 element-wise), hiding up to 160
// independent FP64 FMAs a cell pair for free; a persistent pipeline of bulk asynchronous copies into
// shared-memory stages moved the same bytes in 89-90 us. The real sweep's 50 us above that floor are its solve
// and dependent build chains at 16 warps an SM.
#pragma once

#include <cstddef>

#include "warpmodel/adi/coefficients.hpp"
#include "warpmodel/adi/partitioned.hpp"
#include "warpmodel/adi/sweep_view.hpp"

namespace warpmodel::adi {

// sm_90's opt-in limit of shared memory per block (cudaDevAttrMaxSharedMemoryPerBlockOptin, 227 KiB):
// validate() assumes it; the solver asks the device.
constexpr std::size_t kFusedMaxSharedBytes = 227 * 1024;

// Shared-memory slot of cell c of the block's lines (c = lane * n_along + i) in each per-cell array:
// the cells of a segment stay together (thread = segment in the solve), rotated within it by one
// cell every 128 bytes of segments. Shared memory serves 128 bytes at once (32 floats: a warp; 16
// doubles: each half warp), and the rotation puts those of the solve (cell j of consecutive
// segments), of the build (cells 2t and 2t + 1) and of the store (consecutive cells) in different
// banks (test Fused.SlotsAreConflictFree), where a padding element per segment did it before: the
// arrays now fill whole 128-byte lines, 64 KiB for a 2048-cell double line.
template <class T, int kCells>
WARPMODEL_ADI_HD int fused_slot(int c) {
  constexpr int kSegmentsPerRotation = 128 / (kCells * static_cast<int>(sizeof(T)));
  static_assert(kSegmentsPerRotation >= 1 && (kCells & (kCells - 1)) == 0,
                "a segment of at most 128 bytes and a power of two cells");
  const int segment = c / kCells;
  return segment * kCells + (c + segment / kSegmentsPerRotation) % kCells;
}

// T elements of shared memory a fused block needs: four per-cell arrays (the mass right-hand side and
// the momentum row divided by its diagonal) and the reduced system.
inline int fused_shared_elements(int lanes, int n_along, int cells) {
  return 4 * lanes * n_along + partitioned_shared_elements(n_along / cells, lanes);
}

// The per-cell arrays of a fused block (each `cells` elements, cell c at fused_slot(c)):
//   built:  dma, amo/bmo, cmo/bmo, dmo/bmo  (build; bmo is then 1)
//   solve:  dma, cp, dp0, dpz               (the downward chain over each momentum row it has used)
//   solved: zeta, flux                      (back substitution, over dma and cp)
// A built cell's rows into the per-cell arrays at `at`: dma, and the momentum row divided by its diagonal.
template <class T>
WARPMODEL_ADI_HD void put_built_cell(T* coef, int cells, int at, const CellRows<T>& rows) {
  const T inv_bmo = adi_reciprocal(rows.bmo);
  coef[at] = rows.dma;
  coef[cells + at] = rows.amo * inv_bmo;
  coef[2 * cells + at] = rows.cmo * inv_bmo;
  coef[3 * cells + at] = rows.dmo * inv_bmo;
}

// One segment's view of them, for the thread that solves it; Slots maps a block cell to its slot
// (fused_slot here; fused-cluster's y-sweep has its own layout, cluster_sweep.hpp).
template <class T, int kCells>
struct FusedSlots {
  WARPMODEL_ADI_HD int operator()(int c) const { return fused_slot<T, kCells>(c); }
};

template <class T, int kCells, class Slots = FusedSlots<T, kCells>>
struct FusedSegment {
  T* coef;
  int cells;
  int first;  // the segment's first cell (block-wide index)
  Slots slots;
  WARPMODEL_ADI_HD int slot(int j) const { return slots(first + j); }
  WARPMODEL_ADI_HD T dma(int j) const { return coef[slot(j)]; }
  WARPMODEL_ADI_HD CellRows<T> operator()(int j) const {
    const int at = slot(j);
    return {coef[at], coef[cells + at], T(1), coef[2 * cells + at], coef[3 * cells + at]};
  }
  WARPMODEL_ADI_HD DownwardRow<T> chain(int j) const {
    const int at = slot(j);
    return {coef[cells + at], coef[2 * cells + at], coef[3 * cells + at]};
  }
  WARPMODEL_ADI_HD void store_chain(int j, const DownwardRow<T>& row) const {
    const int at = slot(j);
    coef[cells + at] = row.cp;
    coef[2 * cells + at] = row.dp0;
    coef[3 * cells + at] = row.dpz;
  }
  WARPMODEL_ADI_HD void store_zeta(int j, T value) const { coef[slot(j)] = value; }
  WARPMODEL_ADI_HD void store_flux(int j, T value) const { coef[cells + slot(j)] = value; }
};

// Phase 1 of adi_segment_fused: both chains over the segment's rows; its two reduced rows.
template <class T, int kCells, class Segment>
WARPMODEL_ADI_HD ReducedRows<T> fused_segment_chains(const Segment& seg, T mass_diagonal, bool has_west) {
  DownwardRow<T> down[kCells];
  down[0] = downward_first(seg(0));
  UpwardRow<T> up = upward_last(seg.dma(kCells - 1), mass_diagonal);
WARPMODEL_ADI_UNROLL
  for (int j = 1; j < kCells; ++j) {
    const int u = kCells - 1 - j;
    down[j] = downward_next(seg(j), down[j - 1], mass_diagonal);
    up = upward_next(seg(u), up, mass_diagonal);
    if (u <= j) {  // rows u and j: read by both chains now
      seg.store_chain(u, down[u]);
      if (u != j) seg.store_chain(j, down[j]);
    }
  }
  return reduced_rows(up, down[kCells - 1], has_west);
}

// Phase 3 of adi_segment_fused: zeta over dma, the flux over the momentum row's first array.
template <class T, int kCells, class Segment>
WARPMODEL_ADI_HD void fused_segment_back_substitute(const Segment& seg, T mass_diagonal, SegmentEnds<T> ends,
                                                    bool last_segment) {
  back_substitute<T, kCells>([&](int j) { return seg.chain(j); }, [&](int j) { return seg.dma(j); }, mass_diagonal,
                             ends, last_segment, seg);
}

// The partitioned solve (partitioned.hpp) of one segment whose rows are in shared memory: each row is
// read when a chain needs it, and row k's DownwardRow goes over its momentum row as soon as both
// chains have read it (after step max(k, kCells-1-k)), so only the chain rows still waiting are in
// registers; back substitution reads them back. Why: the block then needs four values a cell and no
// copy of the rows in registers (72 KiB a 2048-cell double line at e3abcd8, instead of 106), which was
// meant to let three lines in an SM; the pair build's registers did not allow that (adi_kernels.cuh), but at
// two lines the smaller blocks alone made the 2048^2 double step 8 % faster (the header above).
template <class T, int kCells, PcrLevels kLevels, class Block>
WARPMODEL_ADI_HD void adi_segment_fused(const Block& block, int segment, int segments, SegmentSlots index, int slots,
                                        const FusedSegment<T, kCells>& seg, T mass_diagonal, T* reduced) {
  const ReducedRows<T> rows = fused_segment_chains<T, kCells>(seg, mass_diagonal, segment > 0);
  const SegmentEnds<T> ends = solve_reduced_system<T, kLevels>(block, segment, segments, index, slots, rows, reduced);
  fused_segment_back_substitute<T, kCells>(seg, mass_diagonal, ends, segment + 1 == segments);
}

// Thread t of a fused block: segment t % P of the block's line t / P.
struct FusedThread {
  int segment;
  int lane;
};
WARPMODEL_ADI_HD FusedThread fused_thread(int t, int segments) { return {t % segments, t / segments}; }

// Lines per block for lines of n_along cells: at most 256 threads (two blocks per SM at 128
// registers a thread in double: fused_min_blocks, adi_kernels.cuh) unless one line alone needs
// more, shared memory within `max_shared_bytes`, a divisor of the number of lines, and at least
// `min_blocks` blocks (the solver asks for two per SM: at 256^2, 8 lines a block left 100 of 132
// SMs idle). 0: a line does not fit.
inline int fused_lanes(int n_along, int cells, int lines, std::size_t element, std::size_t max_shared_bytes,
                       int min_blocks = 1) {
  const int segments = n_along / cells;
  if (segments > partitioned_max_threads(cells)) return 0;
  if (static_cast<std::size_t>(fused_shared_elements(1, n_along, cells)) * element > max_shared_bytes) return 0;
  int lanes = 1;
  while (lanes * 2 <= kPartitionedMaxLanes && lanes * 2 * segments <= 256 && lines % (lanes * 2) == 0 &&
         lines / (lanes * 2) >= min_blocks &&
         static_cast<std::size_t>(fused_shared_elements(lanes * 2, n_along, cells)) * element <= max_shared_bytes)
    lanes *= 2;
  return lanes;
}

// One thread of block `block_index` of a fused sweep over `lines` line-major lines of n_along
// cells (view.along_stride == 1, view.line_stride == n_along; outputs addressed alike). kLevels:
// fused runs every PCR level, fused-cluster's x-sweep stops once the rows decouple (partitioned.hpp).
template <class T, int kCells, PcrLevels kLevels = PcrLevels::All, class Block>
WARPMODEL_ADI_HD void adi_sweep_fused(const Block& block, int block_index, int t, int lanes, int n_along, int lines,
                                      const SweepView<T>& view, const SweepConstants<T>& constants, T* shared,
                                      T* zeta_out, T* flux_out) {
  const int segments = n_along / kCells;
  const int threads = segments * lanes;
  const int cells = lanes * n_along;
  const int line0 = block_index * lanes;
  T* coef = shared;  // four per-cell arrays (FusedSegment)
  T* reduced = shared + 4 * cells;

  // A. Build, coalesced: thread t builds the cell pairs (2t, 2t+1), (2t + 2T, 2t + 2T + 1), ...
  // (kCells cells), each pair from one set of vector loads (build_cell_pair; n_along is a multiple
  // of 32, so a pair never straddles two lines and its loads are 2-element aligned). Measured before
  // the pairs, one cell a trip: unrolling the loop (all loads in flight at once) gained nothing in
  // double and cost a third in single on the H100 (registers); software pipelining (the next cell's
  // loads issued before this cell's arithmetic, commit 4b6355b) gained nothing in double and cost
  // 6 % in single on the H200 (results/h200/logs/adi-fused-pipelined/).
  for (int c = 2 * t; c < cells; c += 2 * threads) {
    const int lane = lanes == 1 ? 0 : c / n_along, i = c - lane * n_along;
    const int l = line0 + lane;
    CellRows<T> rows[2];
    // One copy of the build per warp: the copy without wall tests only where every pair of the warp
    // is inside (a warp with a wall pair taking both copies one after the other cost 5 % at 256^2).
    build_cell_pair(CellWindow<T>::at(view, i, l), i, l, n_along, lines, constants,
                    block.all_in_warp(cell_pair_is_interior(i, l, n_along, lines)), rows[0], rows[1]);
WARPMODEL_ADI_UNROLL
    for (int h = 0; h < 2; ++h) put_built_cell(coef, cells, fused_slot<T, kCells>(c + h), rows[h]);
  }
  block.sync();

  // B. Solve; zeta over dma, the flux over the momentum row's first array.
  const FusedThread me = fused_thread(t, segments);
  adi_segment_fused<T, kCells, kLevels>(block, me.segment, segments, SegmentSlots{me.lane * segments, 1}, threads,
                                        FusedSegment<T, kCells>{coef, cells, me.lane * n_along + me.segment * kCells, {}},
                                        constants.mass_diagonal, reduced);
  block.sync();

  // C. Store, coalesced.
  for (int c = t; c < cells; c += threads) {
    const int lane = lanes == 1 ? 0 : c / n_along, i = c - lane * n_along;
    const long long at = static_cast<long long>(line0 + lane) * view.line_stride + i;
    const int slot = fused_slot<T, kCells>(c);
    zeta_out[at] = coef[slot];
    flux_out[at] = i < n_along - 1 ? coef[cells + slot] : T(0);  // the east wall
  }
}

}  // namespace warpmodel::adi
