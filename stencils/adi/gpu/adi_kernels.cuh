// The kernels of one ADI step (private to warpmodel_adi_gpu; the host side is gpu_solver.cu).
#pragma once

#include <cuda_pipeline.h>

#include <cstddef>

#include "cuda_check.cuh"
#include "warpmodel/adi/block_algorithms.hpp"
#include "warpmodel/adi/coefficients.hpp"
#include "warpmodel/adi/fused.hpp"
#include "warpmodel/adi/partitioned.hpp"
#include "warpmodel/adi/sweep_view.hpp"
#include "warpmodel/adi/tridiagonal.hpp"

namespace warpmodel::adi::gpu {

// Coefficient arrays of one sweep, n * n each, in the sweep's layout.
template <class T>
struct Coefficients {
  T* dma;
  T* amo;
  T* bmo;
  T* cmo;
  T* dmo;
};

// --- build: SetMA + SetMO + LcElim for every cell (thesis S14/S24 xBuild/yBuild) ---------------
// Fully parallel, one thread per cell. threadIdx.x runs over the index that is contiguous in
// memory (the line for along-major arrays, the cell for line-major ones), so loads and stores are
// coalesced in both layouts.
constexpr int kBuildBlockX = 32;
constexpr int kBuildBlockY = 8;

template <class T, bool kAlongMajor>
__global__ void __launch_bounds__(kBuildBlockX * kBuildBlockY)
    build_kernel(SweepView<T> view, int n, SweepConstants<T> constants, Coefficients<T> out) {
  const int fast = blockIdx.x * blockDim.x + threadIdx.x;
  const int slow = blockIdx.y * blockDim.y + threadIdx.y;
  const int i = kAlongMajor ? slow : fast;
  const int l = kAlongMajor ? fast : slow;
  if (i >= n || l >= n) return;
  const CellRows<T> rows = build_cell(view, i, l, n, n, constants);
  const int at = i * view.along_stride + l * view.line_stride;
  out.dma[at] = rows.dma;
  out.amo[at] = rows.amo;
  out.bmo[at] = rows.bmo;
  out.cmo[at] = rows.cmo;
  out.dmo[at] = rows.dmo;
}

// --- solve, thread-per-line (S1): Thomas from both ends, mass pivots folded (tridiagonal.hpp) --
// Along-major arrays: row i of line l at i * n + l. A line's rows form a dependent chain and there
// are only n lines (n threads), so the kernel is bound by the instruction stream of a few warps
// per SM, not by bandwidth. Hence:
//  * each thread eliminates its line from both ends at once (solve_line_two_ended, meeting cell
//    k = (n-1)/2 + 1): two independent chains of n/2 rows, interleaved, instead of one of n;
//  * branch-free reciprocals (adi_reciprocal) and a branch-free inner loop (the ends of the line are
//    handled by zero-filled copies: B + 0 and dma + 0 are exactly the first pivots);
//  * coefficients stream into shared memory with cp.async, kStages chunks of kChunk rows ahead, in
//    16-byte pieces copied by the whole warp (one instruction moves 32 pieces), so the copies cost
//    a few instructions per row; a block is one warp whose `lanes` (8..32) lines are each computed
//    by 32 / lanes threads (duplicates write the same values), so that every SM gets lines.
// Forward: reads amo, bmo, cmo, dmo, dma, writes the eliminated rows (c1 = cp or ap, d1 = dp or dq);
// backward: reads c1, d1, dma, writes zeta and the flux. The coefficient arrays are one allocation
// in the order amo, bmo, cmo, dmo, dma, and c1, d1 another (array a at base + a * n * n).
constexpr int kThomasChunk = 16;
constexpr int kThomasStages = 4;
constexpr int kThomasArrays = 5;
constexpr int kThomasDirections = 2;
constexpr int kThomasWarp = 32;

inline std::size_t thomas_shared_bytes(int lanes, std::size_t element) {
  return static_cast<std::size_t>(kThomasDirections) * kThomasStages * kThomasArrays * kThomasChunk * lanes * element;
}

template <class T>
__global__ void __launch_bounds__(kThomasWarp)
    solve_thomas_kernel(Coefficients<T> coef, T* __restrict__ c1, T* __restrict__ zeta, T* __restrict__ flux, int n,
                        int lanes, T mass_diagonal) {
  extern __shared__ __align__(16) unsigned char shared_raw[];
  T* shared = reinterpret_cast<T*>(shared_raw);
  constexpr int kPiece = 16 / static_cast<int>(sizeof(T));  // elements per 16-byte piece
  const int tid = threadIdx.x;
  const int lane = tid % lanes;
  const int l0 = blockIdx.x * lanes;
  const int l = l0 + lane;
  const std::size_t stride = static_cast<std::size_t>(n);
  const std::size_t plane = stride * stride;
  T* const d1 = c1 + plane;
  const int pieces = lanes / kPiece;             // 16-byte pieces per (row, array)
  const int items_per_pass = kThomasWarp / pieces;  // (row, array) items one copy instruction covers
  const int my_piece = tid % pieces;
  const int my_item = tid / pieces;
  auto row_of = [&](int direction, int stage, int array, int row) -> T* {
    return shared + (((direction * kThomasStages + stage) * kThomasArrays + array) * kThomasChunk + row) * lanes;
  };
  // One 16-byte piece of row `row` of `array_base` into the slot; a row outside the line is zero-filled.
  auto copy_piece = [&](T* slot, const T* array_base, int row, bool valid) {
    const T* src = valid ? array_base + static_cast<std::size_t>(row) * stride + l0 + my_piece * kPiece : array_base;
    __pipeline_memcpy_async(slot + my_piece * kPiece, src, 16, valid ? 0 : 16);
  };
  const int pairs = (n - 1) / 2;  // n even: top rows 0 .. pairs (pairs + 1), bottom rows n-2 .. pairs + 1
  const int meet = pairs + 1;
  const int chunks = (pairs + kThomasChunk - 1) / kThomasChunk;
  constexpr int kItems = kThomasDirections * kThomasArrays * kThomasChunk;

  // Forward, iteration t: top row t (amo..dmo at t, dma at t + 1), bottom row n-2-t (all at n-2-t).
  auto fetch_forward = [&](int chunk) {
    if (chunk < chunks) {
      const int stage = chunk % kThomasStages;
      for (int q = my_item; q < kItems; q += items_per_pass) {
        const int direction = q / (kThomasArrays * kThomasChunk);
        const int array = (q / kThomasChunk) % kThomasArrays;
        const int r = q % kThomasChunk;
        const int t = chunk * kThomasChunk + r;
        const int row = direction == 0 ? t + (array == 4 ? 1 : 0) : n - 2 - t;
        copy_piece(row_of(direction, stage, array, r), coef.amo + array * plane, row, t < pairs);
      }
    }
    __pipeline_commit();  // an empty group keeps the group count uniform
  };
  for (int c = 0; c < kThomasStages - 1; ++c) fetch_forward(c);
  MassPivot<T> top = first_mass_pivot(coef.dma[l], mass_diagonal);
  UpwardPivot<T> bottom = last_mass_pivot(coef.dma[static_cast<std::size_t>(n - 1) * stride + l], mass_diagonal);
  T cp = T(0), dp = T(0), ap = T(0), dq = T(0);
  std::size_t top_at = l, bottom_at = static_cast<std::size_t>(n - 2) * stride + l;
  for (int c = 0; c < chunks; ++c) {
    fetch_forward(c + kThomasStages - 1);
    __pipeline_wait_prior(kThomasStages - 1);
    __syncwarp();  // pieces copied by the other threads of the warp
    const int stage = c % kThomasStages;
    const int count = min(kThomasChunk, pairs - c * kThomasChunk);
    for (int r = 0; r < count; ++r) {
      const T ta = row_of(0, stage, 0, r)[lane], tb = row_of(0, stage, 1, r)[lane], tc = row_of(0, stage, 2, r)[lane];
      const T td = row_of(0, stage, 3, r)[lane], tm = row_of(0, stage, 4, r)[lane];
      const T ba = row_of(1, stage, 0, r)[lane], bb = row_of(1, stage, 1, r)[lane], bc = row_of(1, stage, 2, r)[lane];
      const T bd = row_of(1, stage, 3, r)[lane], bm = row_of(1, stage, 4, r)[lane];
      folded_thomas_forward(ta, tb, tc, td, top, cp, dp);
      folded_thomas_upward(ba, bb, bc, bd, bottom, ap, dq);
      c1[top_at] = cp;
      d1[top_at] = dp;
      c1[bottom_at] = ap;
      d1[bottom_at] = dq;
      top = next_mass_pivot(tm, cp, dp, mass_diagonal);
      bottom = next_upward_pivot(bm, ap, dq, mass_diagonal);
      top_at += stride;
      bottom_at -= stride;
    }
    __syncwarp();  // every thread is done with this stage before it is refilled
  }
  __pipeline_wait_prior(0);
  // The middle row `pairs` (the top chain's extra one), then the chains meet in mass row `meet`.
  folded_thomas_forward(coef.amo[top_at], coef.bmo[top_at], coef.cmo[top_at], coef.dmo[top_at], top, cp, dp);
  c1[top_at] = cp;
  d1[top_at] = dp;
  top = next_mass_pivot(coef.dma[top_at + stride], cp, dp, mass_diagonal);
  const T z_meet = (top.g - dq) / (top.e - ap);  // (ap, dq): bottom row `meet`
  zeta[top_at + stride] = z_meet;
  __threadfence_block();  // the backward copies read what this warp stored above
  __syncwarp();

  // Back substitution. First the up row `pairs` on its own, with (cp, dp) of row `pairs` carried.
  T z_up;
  {
    const std::size_t at = top_at;  // row pairs
    const MassPivot<T> own = next_mass_pivot(coef.dma[at], c1[at - stride], d1[at - stride], mass_diagonal);
    const T p = dp - cp * z_meet;
    z_up = (own.g - p) * adi_reciprocal(own.e);
    flux[at] = p;
    zeta[at] = z_up;
    cp = c1[at - stride];
    dp = d1[at - stride];
  }
  // Then pairs of rows, iteration t: up j = pairs-1-t needs (cp_{j-1}, dp_{j-1}, dma_j), down
  // j = meet+t needs (ap_{j+1}, dq_{j+1}, dma_{j+1}); rows beyond the line are zero-filled.
  auto fetch_backward = [&](int chunk) {
    if (chunk < chunks) {
      const int stage = chunk % kThomasStages;
      constexpr int kBackItems = kThomasDirections * 3 * kThomasChunk;
      for (int q = my_item; q < kBackItems; q += items_per_pass) {
        const int direction = q / (3 * kThomasChunk);
        const int array = (q / kThomasChunk) % 3;  // 0: c1, 1: d1, 2: dma
        const int r = q % kThomasChunk;
        const int t = chunk * kThomasChunk + r;
        const int j = direction == 0 ? pairs - 1 - t : meet + t;
        const int row = direction == 0 ? (array == 2 ? j : j - 1) : j + 1;
        const bool valid = t < pairs && (array == 2 || (direction == 0 ? j >= 1 : j + 1 <= n - 2));
        copy_piece(row_of(direction, stage, array, r), array == 2 ? coef.dma : c1 + array * plane, row, valid);
      }
    }
    __pipeline_commit();
  };
  for (int c = 0; c < kThomasStages - 1; ++c) fetch_backward(c);
  T z_down = z_meet;
  std::size_t up_at = top_at - stride, down_at = top_at + stride;  // rows pairs-1 and meet
  for (int c = 0; c < chunks; ++c) {
    fetch_backward(c + kThomasStages - 1);
    __pipeline_wait_prior(kThomasStages - 1);
    __syncwarp();
    const int stage = c % kThomasStages;
    const int count = min(kThomasChunk, pairs - c * kThomasChunk);
    for (int r = 0; r < count; ++r) {
      const T uc = row_of(0, stage, 0, r)[lane], ud = row_of(0, stage, 1, r)[lane], um = row_of(0, stage, 2, r)[lane];
      const T dc = row_of(1, stage, 0, r)[lane], dd = row_of(1, stage, 1, r)[lane], dm = row_of(1, stage, 2, r)[lane];
      const MassPivot<T> up = next_mass_pivot(um, uc, ud, mass_diagonal);
      const UpwardPivot<T> down = next_upward_pivot(dm, dc, dd, mass_diagonal);
      const T inv_e = adi_reciprocal(up.e);
      const T inv_f = adi_reciprocal(down.f);
      const T p_up = dp - cp * z_up;
      const T p_down = dq - ap * z_down;
      z_up = (up.g - p_up) * inv_e;
      z_down = (down.h + p_down) * inv_f;
      flux[up_at] = p_up;
      zeta[up_at] = z_up;
      flux[down_at] = p_down;
      zeta[down_at + stride] = z_down;
      cp = uc;
      dp = ud;
      ap = dc;
      dq = dd;
      up_at -= stride;
      down_at += stride;
    }
    __syncwarp();
  }
  __pipeline_wait_prior(0);
}

// --- solve, partitioned: kCells cells per thread, `lanes` lines per block (partitioned.hpp) -----
// Along-major arrays as thread-per-line; thread t is segment t / lanes of line blockIdx.x * lanes +
// t % lanes, so a warp reads lanes consecutive values of 32 / lanes rows per load.
template <class T, int kCells>
__global__ void __launch_bounds__(partitioned_max_threads(kCells))
    solve_partitioned_kernel(Coefficients<T> coef, T* __restrict__ zeta, T* __restrict__ flux, int n, int lanes,
                             T mass_diagonal) {
  extern __shared__ __align__(16) unsigned char shared_raw[];
  const int t = static_cast<int>(threadIdx.x);
  const int lane = t % lanes;
  const StridedLines<T> lines{coef.dma, coef.amo, coef.bmo, coef.cmo, coef.dmo, n};
  adi_lines_partitioned<T, kCells>(DeviceBlock{}, t / lanes, lane, lanes, static_cast<int>(blockIdx.x) * lanes + lane, n,
                                   lines, mass_diagonal, reinterpret_cast<T*>(shared_raw), zeta, flux);
}

// --- fused: build and partitioned solve of a sweep in one kernel (fused.hpp) ---------------------
// Line-major arrays; block b holds `lanes` whole lines; zeta and the flux go to other buffers than
// the view's. Blocks an SM: those the registers allow at 128 registers a thread in double (and in
// single with 16 cells: the pair build and the pending chain rows), 64 in single. Three 2048-cell
// double lines an SM at 80 registers (spilling 136 bytes in the build) made the sweep a third
// slower than two at 122 (a 2048^2 double sweep 172 against 130 us on one H200,
// results/h200/logs/adi-shared-solve/); single at 80 registers lost a block an SM at 4096 cells,
// the step 24 % slower.
template <class T, int kCells>
constexpr int fused_min_blocks() {
  const int blocks = 65536 / (partitioned_max_threads(kCells) * (sizeof(T) == 8 || kCells > 8 ? 128 : 64));
  return blocks > 1 ? blocks : 1;
}

// One block of a fused sweep (fused_sweep_kernel; fused-cluster's x-sweep, gpu/cluster_sweep.cu, with
// PcrLevels::UntilDecoupled).
template <class T, int kCells, PcrLevels kLevels>
__device__ __forceinline__ void fused_sweep_block(const SweepView<T>& view, const SweepConstants<T>& constants,
                                                  T* zeta_out, T* flux_out, int n_along, int lines, int lanes) {
  extern __shared__ __align__(16) unsigned char shared_raw[];
  adi_sweep_fused<T, kCells, kLevels>(DeviceBlock{}, static_cast<int>(blockIdx.x), static_cast<int>(threadIdx.x),
                                      lanes, n_along, lines, view, constants, reinterpret_cast<T*>(shared_raw),
                                      zeta_out, flux_out);
}

template <class T, int kCells>
__global__ void __launch_bounds__(partitioned_max_threads(kCells), fused_min_blocks<T, kCells>())
    fused_sweep_kernel(SweepView<T> view, SweepConstants<T> constants, T* __restrict__ zeta_out,
                       T* __restrict__ flux_out, int n_along, int lines, int lanes) {
  fused_sweep_block<T, kCells, PcrLevels::All>(view, constants, zeta_out, flux_out, n_along, lines, lanes);
}

// --- solve, block-per-line (S2): PCR or CR-PCR in shared memory --------------------------------
// Line-major arrays: cell i of line l at l * n + i; block l, thread i.
template <class T>
__global__ void __launch_bounds__(1024) solve_pcr_kernel(Coefficients<T> coef, T* __restrict__ zeta,
                                                         T* __restrict__ flux, int n, T mass_diagonal) {
  extern __shared__ __align__(16) unsigned char shared_raw[];
  const std::size_t offset = static_cast<std::size_t>(blockIdx.x) * n;
  const LineCoefficients<T> line{coef.dma + offset, coef.amo + offset, coef.bmo + offset, coef.cmo + offset,
                                 coef.dmo + offset};
  adi_line_pcr(DeviceBlock{}, static_cast<int>(threadIdx.x), n, line, mass_diagonal, reinterpret_cast<T*>(shared_raw),
               zeta + offset, flux + offset);
}

template <class T>
__global__ void __launch_bounds__(1024) solve_cr_pcr_kernel(Coefficients<T> coef, T* __restrict__ zeta,
                                                            T* __restrict__ flux, int n, T mass_diagonal,
                                                            T inv_mass_diagonal) {
  extern __shared__ __align__(16) unsigned char shared_raw[];
  const std::size_t offset = static_cast<std::size_t>(blockIdx.x) * n;
  const LineCoefficients<T> line{coef.dma + offset, coef.amo + offset, coef.bmo + offset, coef.cmo + offset,
                                 coef.dmo + offset};
  adi_line_cr_pcr(DeviceBlock{}, static_cast<int>(threadIdx.x), n, line, mass_diagonal, inv_mass_diagonal,
                  reinterpret_cast<T*>(shared_raw), zeta + offset, flux + offset);
}

// --- transpose through a shared-memory tile (32 x 33: the padding column keeps the column reads
// free of bank conflicts; for doubles each half-warp reads 16 distinct bank pairs) --------------
constexpr int kTile = 32;
constexpr int kTileRows = 8;

// `in` holds `height` rows of `width` values (width and height multiples of kTile); `out` gets
// `width` rows of `height`.
template <class T>
__global__ void __launch_bounds__(kTile * kTileRows) transpose_kernel(const T* __restrict__ in, T* __restrict__ out,
                                                                       int width, int height) {
  __shared__ T tile[kTile][kTile + 1];
  int x = blockIdx.x * kTile + threadIdx.x;
  int y = blockIdx.y * kTile + threadIdx.y;
  for (int r = 0; r < kTile; r += kTileRows)
    tile[threadIdx.y + r][threadIdx.x] = in[static_cast<std::size_t>(y + r) * width + x];
  __syncthreads();
  x = blockIdx.y * kTile + threadIdx.x;
  y = blockIdx.x * kTile + threadIdx.y;
  for (int r = 0; r < kTile; r += kTileRows)
    out[static_cast<std::size_t>(y + r) * height + x] = tile[threadIdx.x][threadIdx.y + r];
}

}  // namespace warpmodel::adi::gpu
