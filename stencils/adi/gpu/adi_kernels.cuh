// The kernels of one ADI step (private to warpmodel_adi_gpu; the host side is gpu_solver.cu).
#pragma once

#include <cuda_pipeline.h>

#include <cstddef>

#include "cuda_check.cuh"
#include "warpmodel/adi/block_algorithms.hpp"
#include "warpmodel/adi/coefficients.hpp"
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
// Along-major arrays: row i of line l at i * n + l, so the threads of a warp read consecutive
// addresses at every step. A line's rows form a dependent chain and there are only n lines, so at
// most n threads: latency, not bandwidth, is the enemy. Hence:
//  * each thread eliminates its line from both ends at once (solve_line_two_ended): two independent
//    chains of n/2 rows, interleaved by the compiler, instead of one of n;
//  * reciprocals without the division's slow-path branch (adi_reciprocal), which would stop that
//    interleaving; the back substitution multiplies by reciprocals that are off the chain;
//  * coefficients stream into shared memory with cp.async, kStages chunks of kChunk rows ahead of the
//    arithmetic (a thread copies and reads only its own column: no barrier needed);
//  * blocks are narrow (8..32 lines) so that every SM gets lines.
// Traffic: forward reads amo, bmo, cmo, dmo, dma and writes the eliminated rows (c1, d1); backward
// reads c1, d1, dma and writes zeta and the flux.
constexpr int kThomasChunk = 16;
constexpr int kThomasStages = 4;
constexpr int kThomasArrays = 5;
constexpr int kThomasDirections = 2;

inline std::size_t thomas_shared_bytes(int lanes, std::size_t element) {
  return static_cast<std::size_t>(kThomasDirections) * kThomasStages * kThomasArrays * kThomasChunk * lanes * element;
}

template <class T>
__global__ void __launch_bounds__(32)
    solve_thomas_kernel(Coefficients<T> coef, T* __restrict__ c1_buffer, T* __restrict__ d1_buffer,
                        T* __restrict__ zeta, T* __restrict__ flux, int n, T mass_diagonal) {
  extern __shared__ __align__(16) unsigned char shared_raw[];
  T* shared = reinterpret_cast<T*>(shared_raw);
  const int lanes = blockDim.x;
  const int lane = threadIdx.x;
  const int l = blockIdx.x * lanes + lane;
  const std::size_t stride = static_cast<std::size_t>(n);
  auto slot = [&](int direction, int stage, int array, int row) -> T* {
    return shared + (((direction * kThomasStages + stage) * kThomasArrays + array) * kThomasChunk + row) * lanes + lane;
  };
  auto at = [&](int row) { return static_cast<std::size_t>(row) * stride + l; };
  auto copy = [&](int direction, int stage, int array, int row, const T* src) {
    __pipeline_memcpy_async(slot(direction, stage, array, row), src, sizeof(T));
  };
  const int rows = n - 1;          // momentum rows
  const int k = rows / 2;          // meeting cell
  const int top_rows = k;          // rows 0 .. k-1, downwards
  const int bottom_rows = rows - k;  // rows n-2 .. k, upwards (>= top_rows)
  const int chunks = (bottom_rows + kThomasChunk - 1) / kThomasChunk;

  // Forward elimination, iteration t: top row t (amo..dmo at t, dma at t+1) and bottom row
  // n-2-t (amo..dmo and dma at n-2-t).
  auto fetch_forward = [&](int chunk) {
    if (chunk < chunks) {
      const int stage = chunk % kThomasStages;
      for (int r = 0; r < kThomasChunk; ++r) {
        const int t = chunk * kThomasChunk + r;
        if (t >= bottom_rows) break;
        if (t < top_rows) {
          const std::size_t a = at(t);
          copy(0, stage, 0, r, coef.amo + a);
          copy(0, stage, 1, r, coef.bmo + a);
          copy(0, stage, 2, r, coef.cmo + a);
          copy(0, stage, 3, r, coef.dmo + a);
          copy(0, stage, 4, r, coef.dma + a + stride);
        }
        const std::size_t b = at(rows - 1 - t);
        copy(1, stage, 0, r, coef.amo + b);
        copy(1, stage, 1, r, coef.bmo + b);
        copy(1, stage, 2, r, coef.cmo + b);
        copy(1, stage, 3, r, coef.dmo + b);
        copy(1, stage, 4, r, coef.dma + b);
      }
    }
    __pipeline_commit();  // an empty group keeps the group count uniform
  };
  for (int c = 0; c < kThomasStages - 1; ++c) fetch_forward(c);
  MassPivot<T> top = first_mass_pivot(coef.dma[at(0)], mass_diagonal);
  UpwardPivot<T> bottom = last_mass_pivot(coef.dma[at(n - 1)], mass_diagonal);
  T cp = T(0), dp = T(0), ap = T(0), dq = T(0);
  for (int c = 0; c < chunks; ++c) {
    fetch_forward(c + kThomasStages - 1);
    __pipeline_wait_prior(kThomasStages - 1);
    const int stage = c % kThomasStages;
    const int count = min(kThomasChunk, bottom_rows - c * kThomasChunk);
    for (int r = 0; r < count; ++r) {
      const int t = c * kThomasChunk + r;
      // Both rows' operands first, then the two chains.
      const T ta = *slot(0, stage, 0, r), tb = *slot(0, stage, 1, r), tc = *slot(0, stage, 2, r);
      const T td = *slot(0, stage, 3, r), tm = *slot(0, stage, 4, r);
      const T ba = *slot(1, stage, 0, r), bb = *slot(1, stage, 1, r), bc = *slot(1, stage, 2, r);
      const T bd = *slot(1, stage, 3, r), bm = *slot(1, stage, 4, r);
      if (t < top_rows) {
        folded_thomas_forward(ta, tb, tc, td, top, cp, dp);
        c1_buffer[at(t)] = cp;
        d1_buffer[at(t)] = dp;
        top = next_mass_pivot(tm, cp, dp, mass_diagonal);
      }
      folded_thomas_upward(ba, bb, bc, bd, bottom, ap, dq);
      const int i = rows - 1 - t;
      c1_buffer[at(i)] = ap;
      d1_buffer[at(i)] = dq;
      bottom = next_upward_pivot(bm, ap, dq, mass_diagonal);
    }
  }
  __pipeline_wait_prior(0);
  __threadfence_block();  // the backward copies read what this thread stored above

  // The chains meet in mass row k (ap, dq hold row k, cp, dp row k-1).
  const T zk = (top.g - dq) / (top.e - ap);
  zeta[at(k)] = zk;

  // Back substitution outwards from k, iteration t: up j = k-1-t needs (cp_{j-1}, dp_{j-1}, dma_j),
  // down j = k+t needs (ap_{j+1}, dq_{j+1}, dma_{j+1}); (cp_j, dp_j) and (ap_j, dq_j) are carried.
  auto fetch_backward = [&](int chunk) {
    if (chunk < chunks) {
      const int stage = chunk % kThomasStages;
      for (int r = 0; r < kThomasChunk; ++r) {
        const int t = chunk * kThomasChunk + r;
        if (t >= bottom_rows) break;
        if (t < top_rows) {
          const int j = k - 1 - t;
          copy(0, stage, 2, r, coef.dma + at(j));
          if (j > 0) {
            copy(0, stage, 0, r, c1_buffer + at(j - 1));
            copy(0, stage, 1, r, d1_buffer + at(j - 1));
          }
        }
        const int j1 = k + t + 1;
        copy(1, stage, 2, r, coef.dma + at(j1));
        if (j1 <= rows - 1) {
          copy(1, stage, 0, r, c1_buffer + at(j1));
          copy(1, stage, 1, r, d1_buffer + at(j1));
        }
      }
    }
    __pipeline_commit();
  };
  for (int c = 0; c < kThomasStages - 1; ++c) fetch_backward(c);
  T z_up = zk, z_down = zk;
  for (int c = 0; c < chunks; ++c) {
    fetch_backward(c + kThomasStages - 1);
    __pipeline_wait_prior(kThomasStages - 1);
    const int stage = c % kThomasStages;
    const int count = min(kThomasChunk, bottom_rows - c * kThomasChunk);
    for (int r = 0; r < count; ++r) {
      const int t = c * kThomasChunk + r;
      const T up_c = *slot(0, stage, 0, r), up_d = *slot(0, stage, 1, r), up_m = *slot(0, stage, 2, r);
      const T dn_c = *slot(1, stage, 0, r), dn_d = *slot(1, stage, 1, r), dn_m = *slot(1, stage, 2, r);
      if (t < top_rows) {
        const int j = k - 1 - t;
        const MassPivot<T> own =
            j > 0 ? next_mass_pivot(up_m, up_c, up_d, mass_diagonal) : first_mass_pivot(up_m, mass_diagonal);
        const T inv_e = adi_reciprocal(own.e);
        const T p = dp - cp * z_up;
        z_up = (own.g - p) * inv_e;
        flux[at(j)] = p;
        zeta[at(j)] = z_up;
        cp = up_c;
        dp = up_d;
      }
      const int j = k + t;
      const UpwardPivot<T> own =
          j + 1 <= rows - 1 ? next_upward_pivot(dn_m, dn_c, dn_d, mass_diagonal) : last_mass_pivot(dn_m, mass_diagonal);
      const T inv_f = adi_reciprocal(own.f);
      const T p = dq - ap * z_down;
      z_down = (own.h + p) * inv_f;
      flux[at(j)] = p;
      zeta[at(j + 1)] = z_down;
      ap = dn_c;
      dq = dn_d;
    }
  }
  __pipeline_wait_prior(0);
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

template <class T>
__global__ void __launch_bounds__(kTile * kTileRows) transpose_kernel(const T* __restrict__ in, T* __restrict__ out,
                                                                       int n) {
  __shared__ T tile[kTile][kTile + 1];
  int x = blockIdx.x * kTile + threadIdx.x;
  int y = blockIdx.y * kTile + threadIdx.y;
  for (int r = 0; r < kTile; r += kTileRows) tile[threadIdx.y + r][threadIdx.x] = in[static_cast<std::size_t>(y + r) * n + x];
  __syncthreads();
  x = blockIdx.y * kTile + threadIdx.x;
  y = blockIdx.x * kTile + threadIdx.y;
  for (int r = 0; r < kTile; r += kTileRows) out[static_cast<std::size_t>(y + r) * n + x] = tile[threadIdx.x][threadIdx.y + r];
}

}  // namespace warpmodel::adi::gpu
