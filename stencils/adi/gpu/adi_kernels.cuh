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

// --- solve, thread-per-line (S1): Thomas with the mass pivots folded (tridiagonal.hpp) ----------
// Along-major arrays: row i of line l at i * n + l, so the threads of a warp read consecutive
// addresses at every step. A line's rows form a dependent chain, and there are only n lines, so
// at most n threads: latency, not bandwidth, is the enemy. Each thread therefore streams its
// coefficients into shared memory with cp.async, kStages chunks of kChunk rows ahead of the
// arithmetic (a thread copies and reads only its own column: no barrier needed), and blocks are
// made narrow (lanes = 8..32 lines) so that all SMs get lines.
//   forward:  reads amo, bmo, cmo, dmo at i and dma at i+1; writes cp, dp
//   backward: reads cp, dp at i-1 and dma at i; writes zeta at i and the flux at i
constexpr int kThomasChunk = 16;
constexpr int kThomasStages = 4;
constexpr int kThomasForwardArrays = 5;

inline std::size_t thomas_shared_bytes(int lanes, std::size_t element) {
  return static_cast<std::size_t>(kThomasStages) * kThomasForwardArrays * kThomasChunk * lanes * element;
}

template <class T>
__global__ void __launch_bounds__(32)
    solve_thomas_kernel(Coefficients<T> coef, T* __restrict__ cp_buffer, T* __restrict__ dp_buffer,
                        T* __restrict__ zeta, T* __restrict__ flux, int n, T mass_diagonal) {
  extern __shared__ __align__(16) unsigned char shared_raw[];
  T* shared = reinterpret_cast<T*>(shared_raw);
  const int lanes = blockDim.x;
  const int lane = threadIdx.x;
  const int l = blockIdx.x * lanes + lane;
  const std::size_t stride = static_cast<std::size_t>(n);
  auto slot = [&](int stage, int array, int row) -> T* {
    return shared + ((stage * kThomasForwardArrays + array) * kThomasChunk + row) * lanes + lane;
  };
  const int rows = n - 1;  // momentum rows (one per interior face)
  const int chunks = (rows + kThomasChunk - 1) / kThomasChunk;

  // Forward elimination.
  auto fetch_forward = [&](int chunk) {
    if (chunk < chunks) {
      const int stage = chunk % kThomasStages;
      for (int r = 0; r < kThomasChunk; ++r) {
        const int i = chunk * kThomasChunk + r;
        if (i >= rows) break;
        const std::size_t at = static_cast<std::size_t>(i) * stride + l;
        __pipeline_memcpy_async(slot(stage, 0, r), coef.amo + at, sizeof(T));
        __pipeline_memcpy_async(slot(stage, 1, r), coef.bmo + at, sizeof(T));
        __pipeline_memcpy_async(slot(stage, 2, r), coef.cmo + at, sizeof(T));
        __pipeline_memcpy_async(slot(stage, 3, r), coef.dmo + at, sizeof(T));
        __pipeline_memcpy_async(slot(stage, 4, r), coef.dma + at + stride, sizeof(T));  // dma_{i+1}
      }
    }
    __pipeline_commit();  // an empty group keeps the group count uniform
  };
  for (int c = 0; c < kThomasStages - 1; ++c) fetch_forward(c);
  MassPivot<T> pivot = first_mass_pivot(coef.dma[l], mass_diagonal);
  T cp = T(0), dp = T(0);
  for (int c = 0; c < chunks; ++c) {
    fetch_forward(c + kThomasStages - 1);
    __pipeline_wait_prior(kThomasStages - 1);
    const int stage = c % kThomasStages;
    const int count = min(kThomasChunk, rows - c * kThomasChunk);
    for (int r = 0; r < count; ++r) {
      const int i = c * kThomasChunk + r;
      folded_thomas_forward(*slot(stage, 0, r), *slot(stage, 1, r), *slot(stage, 2, r), *slot(stage, 3, r), pivot,
                            cp, dp);
      const std::size_t at = static_cast<std::size_t>(i) * stride + l;
      cp_buffer[at] = cp;
      dp_buffer[at] = dp;
      pivot = next_mass_pivot(*slot(stage, 4, r), cp, dp, mass_diagonal);
    }
  }
  __pipeline_wait_prior(0);
  __threadfence_block();  // the backward copies read what this thread stored above

  // Back substitution, rows descending: j = rows-1 .. 0. Row j needs (cp_j, dp_j) - carried from
  // the previous iteration (or the forward pass) - and the pivot of cell j, rebuilt from
  // (cp_{j-1}, dp_{j-1}, dma_j) exactly as the forward pass built it.
  T z = pivot.g / pivot.e;
  zeta[static_cast<std::size_t>(n - 1) * stride + l] = z;
  auto fetch_backward = [&](int chunk) {
    if (chunk < chunks) {
      const int stage = chunk % kThomasStages;
      for (int r = 0; r < kThomasChunk; ++r) {
        const int j = rows - 1 - (chunk * kThomasChunk + r);
        if (j < 0) break;
        const std::size_t at = static_cast<std::size_t>(j) * stride + l;
        __pipeline_memcpy_async(slot(stage, 2, r), coef.dma + at, sizeof(T));
        if (j > 0) {
          __pipeline_memcpy_async(slot(stage, 0, r), cp_buffer + at - stride, sizeof(T));
          __pipeline_memcpy_async(slot(stage, 1, r), dp_buffer + at - stride, sizeof(T));
        }
      }
    }
    __pipeline_commit();
  };
  for (int c = 0; c < kThomasStages - 1; ++c) fetch_backward(c);
  for (int c = 0; c < chunks; ++c) {
    fetch_backward(c + kThomasStages - 1);
    __pipeline_wait_prior(kThomasStages - 1);
    const int stage = c % kThomasStages;
    const int count = min(kThomasChunk, rows - c * kThomasChunk);
    for (int r = 0; r < count; ++r) {
      const int j = rows - 1 - (c * kThomasChunk + r);
      const T p = dp - cp * z;
      const T dma = *slot(stage, 2, r);
      MassPivot<T> own = first_mass_pivot(dma, mass_diagonal);
      if (j > 0) {
        cp = *slot(stage, 0, r);
        dp = *slot(stage, 1, r);
        own = next_mass_pivot(dma, cp, dp, mass_diagonal);
      }
      z = (own.g - p) / own.e;
      const std::size_t at = static_cast<std::size_t>(j) * stride + l;
      flux[at] = p;
      zeta[at] = z;
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
