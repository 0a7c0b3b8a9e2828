// fused-cluster's y-sweep kernel (cluster_sweep.hpp says what it does and why): one cluster of kColumns
// blocks per kColumns columns, launched with the cluster dimension (cluster_sweep.cu, cudaLaunchKernelEx).
#pragma once

#include <cooperative_groups.h>

#include "adi_kernels.cuh"
#include "cuda_check.cuh"
#include "warpmodel/adi/cluster_sweep.hpp"
#include "warpmodel/adi/fused.hpp"
#include "warpmodel/adi/partitioned.hpp"
#include "warpmodel/adi/sweep_view.hpp"

namespace warpmodel::adi::gpu {

// Distributed shared memory without the cluster barrier's fences: a value is pushed into another block's
// shared memory by st.async, which counts its bytes on an mbarrier of that block; the block waits on its own
// mbarrier for the bytes it expects. Why: barrier.cluster.arrive's release is a MEMBAR.ALL.GPU and its wait
// an invalidation of the SM's L1 (CCTL.IVALL, also under the other block of the SM, mid-build): with the
// exchange's two cluster barriers relaxed (a timing-only probe) the 2048^2 double y-sweep took 162.8 us
// against 168.7 (results/h200/logs/adi-fused-cluster/slots/ab.md, variant rel); this exchange made it 161.0
// against 169.0, the step 289.4 against 299.2, 4096^2 single 650.8 against 675.4 (H200, same card, medians of
// two alternated runs; results/h200/logs/adi-fused-cluster/exchange/ab.md, memcheck and racecheck clean).
__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
// The address of the same shared-memory location in block `rank` of the cluster.
__device__ __forceinline__ unsigned cluster_address(unsigned address, unsigned rank) {
  unsigned remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(address), "r"(rank));
  return remote;
}
__device__ __forceinline__ void mbarrier_init(unsigned bar, unsigned arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(arrivals) : "memory");
}
// One arrival that also announces `bytes` to come (the phase completes when they have all landed).
__device__ __forceinline__ void mbarrier_arrive_expect_bytes(unsigned bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbarrier_wait_phase0(unsigned bar) {
  unsigned done = 0;
  while (!done)
    asm volatile(
        "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
        : "=r"(done)
        : "r"(bar)
        : "memory");
}
// value -> remote_address (another block's shared memory), its bytes counted on remote_bar there.
template <class T>
__device__ __forceinline__ void push_to_block(unsigned remote_address, T value, unsigned remote_bar) {
  if constexpr (sizeof(T) == 8)
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.f64 [%0], %1, [%2];" ::"r"(remote_address),
                 "d"(static_cast<double>(value)), "r"(remote_bar)
                 : "memory");
  else
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.f32 [%0], %1, [%2];" ::"r"(remote_address),
                 "f"(static_cast<float>(value)), "r"(remote_bar)
                 : "memory");
}
__device__ __forceinline__ void cluster_arrive_relaxed() {
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
}
__device__ __forceinline__ void cluster_wait() { asm volatile("barrier.cluster.wait.aligned;" ::: "memory"); }

// The parts of a block's shared memory the exchange fills (cluster_shared_layout): `reduced`, `z` (slots by
// cluster_z_slot), and the two mbarriers counting their bytes.
template <class T>
struct ClusterExchange {
  T* reduced;
  T* z;
  unsigned rows_bar, z_bar;  // shared addresses
};

// Bytes each mbarrier of block `rank` waits for: the 6 P values of its column's rows; the Z values of its
// segments in every column, and of the next block's first segment unless it is the last block.
template <class T>
__device__ unsigned exchanged_row_bytes(int segments) {
  return static_cast<unsigned>(6 * segments * sizeof(T));
}
template <class T, int kColumns>
__device__ unsigned exchanged_z_bytes(int segments_per_column, int rank) {
  const int values = kColumns * segments_per_column + (rank + 1 < kColumns ? kColumns : 0);
  return static_cast<unsigned>(values * sizeof(T));
}

// Phase 2 across the cluster. Segment g (of P) of column w sends its reduced rows to block w, the column's
// owner; that block's thread t (the block has P threads) solves the column as solve_reduced_system does
// within a block and sends Z_t to the block holding segment t (and, for a block's first segment, to the block
// before, as the Z after its last); each segment then reads Z_g and Z_{g+1} from its own block. The caller
// has waited for every block of the cluster to start (their mbarriers initialised) before this.
template <class T, int kColumns>
__device__ SegmentEnds<T> solve_reduced_system_in_cluster(const DeviceBlock& block, const ClusterExchange<T>& ex,
                                                          int rank, int w, int s, int segments_per_column,
                                                          const ReducedRows<T>& rows) {
  const int S = segments_per_column, P = kColumns * S, g = rank * S + s;
  const unsigned owner = static_cast<unsigned>(w);
  const unsigned owner_bar = cluster_address(ex.rows_bar, owner);
  const T values[6] = {rows.alpha, rows.tau, rows.delta, rows.sigma, rows.gamma, rows.eps};
#pragma unroll
  for (int k = 0; k < 6; ++k)
    push_to_block(cluster_address(shared_address(ex.reduced + k * P + g), owner), values[k], owner_bar);
  mbarrier_wait_phase0(ex.rows_bar);  // this block's column: every segment's rows are here
  const int t = static_cast<int>(threadIdx.x);
  const T* reduced = ex.reduced;
  const ReducedRows<T> column_rows{reduced[t],         reduced[P + t],     reduced[2 * P + t],
                                   reduced[3 * P + t], reduced[4 * P + t], reduced[5 * P + t]};
  block.sync();  // every row read before solve_reduced_system reuses the memory
  const T z_t =
      solve_reduced_system<T, PcrLevels::UntilDecoupled>(block, t, P, SegmentSlots{0, 1}, P, column_rows, ex.reduced).z;
  // Z_t goes to the block of segment t, in this block's column (rank: the column this block owns), and, for
  // a block's first segment, to the block before as the Z after its last.
  const int to = t / S;
  push_to_block(cluster_address(shared_address(ex.z + cluster_z_slot(rank, t % S, S)), static_cast<unsigned>(to)),
                z_t, cluster_address(ex.z_bar, static_cast<unsigned>(to)));
  if (t % S == 0 && to > 0)
    push_to_block(cluster_address(shared_address(ex.z + cluster_z_slot(rank, S, S)), static_cast<unsigned>(to - 1)),
                  z_t, cluster_address(ex.z_bar, static_cast<unsigned>(to - 1)));
  mbarrier_wait_phase0(ex.z_bar);
  return {ex.z[cluster_z_slot(w, s, S)], g + 1 < P ? ex.z[cluster_z_slot(w, s + 1, S)] : T(0)};
}

// One y-sweep on row-major arrays: view = {zeta, bed, q, p old, p new} with along_stride = the row length
// `lines` and line_stride = 1; n_along = ny rows. Block b: columns b / W * W .. + W - 1, rows of its rank.
template <class T, int kCells, int kColumns>
__global__ void __launch_bounds__(partitioned_max_threads(kCells), fused_min_blocks<T, kCells>())
    cluster_sweep_kernel(SweepView<T> view, SweepConstants<T> constants, T* __restrict__ zeta_out,
                         T* __restrict__ flux_out, int n_along, int lines) {
  constexpr int kW = kColumns;
  extern __shared__ __align__(16) unsigned char shared_raw[];
  const DeviceBlock block{};
  const int rank = static_cast<int>(cooperative_groups::this_cluster().block_rank());
  const int col0 = static_cast<int>(blockIdx.x) / kW * kW;
  const int rows = n_along / kW;  // R
  const int row0 = rank * rows;
  const int cells = kW * rows;  // block cell c = w R + r
  const int segments_per_column = rows / kCells;
  const int t = static_cast<int>(threadIdx.x);
  T* coef = reinterpret_cast<T*>(shared_raw);
  const ClusterSharedLayout layout = cluster_shared_layout(n_along, kCells, kW);
  ClusterExchange<T> ex{};
  ex.reduced = coef + layout.reduced;
  ex.z = coef + layout.z;
  ex.rows_bar = shared_address(coef + layout.barriers);  // 8-byte aligned (cluster_sweep.hpp)
  ex.z_bar = ex.rows_bar + 8;
  if (t == 0) {
    mbarrier_init(ex.rows_bar, 1);
    mbarrier_init(ex.z_bar, 1);
    mbarrier_arrive_expect_bytes(ex.rows_bar, exchanged_row_bytes<T>(n_along / kCells));
    mbarrier_arrive_expect_bytes(ex.z_bar, exchanged_z_bytes<T, kW>(segments_per_column, rank));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  // Every block of the cluster must have started, its mbarriers initialised, before another pushes into it.
  cluster_arrive_relaxed();

  // A. Build: kCells / 2 pairs a thread, a warp's lanes on W consecutive columns (ClusterTrips).
  const ClusterTrips<kCells, kW> trips(t, rows);
#pragma unroll 1
  for (unsigned j = 0; j < kCells / 2; ++j) {
    const auto [w, r] = trips.build_pair(j);
    const int i = row0 + r, l = col0 + w;
    CellRows<T> built[2];
    build_cell_pair(ColumnWindow<T>::at(view, i, l), i, l, n_along, lines, constants,
                    block.all_in_warp(cell_pair_is_interior(i, l, n_along, lines)), built[0], built[1]);
#pragma unroll
    for (int h = 0; h < 2; ++h)
      put_built_cell(coef, cells, cluster_slot_in_column<T, kCells, kW>(w * rows + r + h, w), built[h]);
  }
  block.sync();

  // B. Solve: thread t = w S + s takes segment s of column w (its cells w R + s kCells ..).
  const int w = t / segments_per_column, s = t % segments_per_column;
  const int g = rank * segments_per_column + s, segments = n_along / kCells;
  const FusedSegment<T, kCells, ColumnSlots<T, kCells, kW>> seg{coef, cells, t * kCells, {w}};
  const ReducedRows<T> reduced_rows = fused_segment_chains<T, kCells>(seg, constants.mass_diagonal, g > 0);
  cluster_wait();
  const SegmentEnds<T> ends =
      solve_reduced_system_in_cluster<T, kW>(block, ex, rank, w, s, segments_per_column, reduced_rows);
  // No block leaves while a push to another may still be on its way: each arrives once its own Z are in,
  // so the last wait below passes only when every block has everything it was sent.
  cluster_arrive_relaxed();
  fused_segment_back_substitute<T, kCells>(seg, constants.mass_diagonal, ends, g + 1 == segments);
  block.sync();

  // C. Store, a row's W columns at once (ClusterTrips).
  const long long block_origin = static_cast<long long>(row0) * lines + col0;
#pragma unroll
  for (unsigned j = 0; j < kCells; ++j) {
    const auto [cw, r] = trips.store_cell(j);
    const int slot = cluster_slot_in_column<T, kCells, kW>(cw * rows + r, cw);
    const long long at = block_origin + static_cast<long long>(r) * lines + cw;
    zeta_out[at] = coef[slot];
    flux_out[at] = row0 + r < n_along - 1 ? coef[cells + slot] : T(0);  // the north wall
  }
  cluster_wait();
}

}  // namespace warpmodel::adi::gpu
