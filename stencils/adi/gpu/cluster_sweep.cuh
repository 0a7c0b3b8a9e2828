// fused-cluster's y-sweep kernel (cluster_sweep.hpp says what it does and why): one cluster of
// kClusterColumns blocks per kClusterColumns columns, launched with the cluster dimension
// (gpu_solver.cu, cudaLaunchKernelEx).
#pragma once

#include <cooperative_groups.h>

#include "adi_kernels.cuh"
#include "cuda_check.cuh"
#include "warpmodel/adi/cluster_sweep.hpp"
#include "warpmodel/adi/fused.hpp"
#include "warpmodel/adi/partitioned.hpp"
#include "warpmodel/adi/sweep_view.hpp"

namespace warpmodel::adi::gpu {

// Phase 2 across the cluster. Segment g of the column owned by block `owner` sends its reduced rows
// there; that block's thread t (the block has P threads, one per segment of a column) solves the column
// as solve_reduced_system does within a block and publishes Z_t; the segment reads Z_g and Z_{g+1}
// back. Two cluster barriers: the probe's three-barrier form (each segment doing its own CR step) was
// 4 us a sweep slower (results/h200/logs/adi-cluster-y/, cy8 against cy8b). `reduced`: 6 P elements,
// `z`: P, in every block. Returns after barrier_arrive: the caller waits (barrier_wait) before exiting,
// so that no block's shared memory goes while another block still reads it.
template <class T>
__device__ SegmentEnds<T> solve_reduced_system_in_cluster(cooperative_groups::cluster_group& cluster,
                                                          const DeviceBlock& block, int owner, int g, int segments,
                                                          const ReducedRows<T>& rows, T* reduced, T* z) {
  const int P = segments;
  T* gathered = cluster.map_shared_rank(reduced, owner);
  gathered[g] = rows.alpha;
  gathered[P + g] = rows.tau;
  gathered[2 * P + g] = rows.delta;
  gathered[3 * P + g] = rows.sigma;
  gathered[4 * P + g] = rows.gamma;
  gathered[5 * P + g] = rows.eps;
  cluster.sync();
  const int t = static_cast<int>(threadIdx.x);
  const ReducedRows<T> column_rows{reduced[t],         reduced[P + t],     reduced[2 * P + t],
                                   reduced[3 * P + t], reduced[4 * P + t], reduced[5 * P + t]};
  block.sync();  // every row read before solve_reduced_system reuses the memory
  z[t] = solve_reduced_system(block, t, P, SegmentSlots{0, 1}, P, column_rows, reduced).z;
  cluster.sync();
  const T* owner_z = cluster.map_shared_rank(z, owner);
  const SegmentEnds<T> ends{owner_z[g], g + 1 < P ? owner_z[g + 1] : T(0)};
  cluster.barrier_arrive();
  return ends;
}

// One y-sweep on row-major arrays: view = {zeta, bed, q, p old, p new} with along_stride = the row length
// `lines` and line_stride = 1; n_along = ny rows. Block b: columns b / W * W .. + W - 1, rows of its rank.
template <class T, int kCells>
__global__ void __launch_bounds__(partitioned_max_threads(kCells), fused_min_blocks<T, kCells>())
    cluster_sweep_kernel(SweepView<T> view, SweepConstants<T> constants, T* __restrict__ zeta_out,
                         T* __restrict__ flux_out, int n_along, int lines) {
  constexpr int kW = kClusterColumns;
  extern __shared__ __align__(16) unsigned char shared_raw[];
  cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
  const DeviceBlock block{};
  // Every block of the cluster must have started before another writes its shared memory.
  cluster.barrier_arrive();
  const int rank = static_cast<int>(cluster.block_rank());
  const int col0 = static_cast<int>(blockIdx.x) / kW * kW;
  const int rows = n_along / kW;  // R
  const int row0 = rank * rows;
  const int cells = kW * rows;  // block cell c = w R + r
  const int segments_per_column = rows / kCells;
  const int threads = kW * segments_per_column;
  const int t = static_cast<int>(threadIdx.x);
  T* coef = reinterpret_cast<T*>(shared_raw);
  T* reduced = coef + 4 * cells;
  T* z = reduced + 6 * (n_along / kCells);

  // A. Build. Lane L of a warp takes column L % W of group L / W (G = 32 / W groups); warp trip k takes
  // rows band(k / 4) * 8G + 8g + 2 (k % 4) (+1): a half warp's rows are 8 apart (other segments, other
  // banks). Where R is not a multiple of 8G: pair e of column e % W.
  constexpr int kGroups = 32 / kW;
  const bool banded = rows % (8 * kGroups) == 0 && threads % 32 == 0;
  const int pairs = banded ? 4 * (rows / (8 * kGroups)) * 32 : kW * rows / 2;
  for (int e = t; e < pairs; e += threads) {
    const int lane = e % 32, k = e / 32, group = lane / kW;
    const int w = banded ? lane % kW : e % kW;
    const int r = banded ? (k / 4) * 8 * kGroups + 8 * group + 2 * (k % 4) : 2 * (e / kW);
    const int i = row0 + r, l = col0 + w;
    CellRows<T> built[2];
    build_cell_pair(ColumnWindow<T>::at(view, i, l), i, l, n_along, lines, constants,
                    block.all_in_warp(cell_pair_is_interior(i, l, n_along, lines)), built[0], built[1]);
#pragma unroll
    for (int h = 0; h < 2; ++h)
      put_built_cell(coef, cells, cluster_slot_in_column<T, kCells>(w * rows + r + h, w), built[h]);
  }
  block.sync();

  // B. Solve: thread t = w S + s takes segment s of column w (its cells w R + s kCells ..).
  const int w = t / segments_per_column, s = t % segments_per_column;
  const int g = rank * segments_per_column + s, segments = n_along / kCells;
  const FusedSegment<T, kCells, ColumnSlots<T, kCells>> seg{coef, cells, t * kCells, {w}};
  const ReducedRows<T> reduced_rows = fused_segment_chains<T, kCells>(seg, constants.mass_diagonal, g > 0);
  cluster.barrier_wait();
  const SegmentEnds<T> ends =
      solve_reduced_system_in_cluster(cluster, block, w, g, segments, reduced_rows, reduced, z);
  fused_segment_back_substitute<T, kCells>(seg, constants.mass_diagonal, ends, g + 1 == segments);
  block.sync();

  // C. Store, a row's W columns at once (rows banded as the build's).
  for (int e = t; e < cells; e += threads) {
    const int lane = e % 32, k = e / 32, group = lane / kW;
    const int cw = banded ? lane % kW : e % kW;
    const int r = banded ? (k / 8) * 8 * kGroups + 8 * group + k % 8 : e / kW;
    const int slot = cluster_slot_in_column<T, kCells>(cw * rows + r, cw);
    const long long at = static_cast<long long>(row0 + r) * lines + col0 + cw;
    zeta_out[at] = coef[slot];
    flux_out[at] = row0 + r < n_along - 1 ? coef[cells + slot] : T(0);  // the north wall
  }
  cluster.barrier_wait();  // the phase-2 arrive: no block leaves while another reads its Z
}

}  // namespace warpmodel::adi::gpu
