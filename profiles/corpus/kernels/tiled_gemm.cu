// Shared-memory tiled GEMM (class "tiled-gemm"): C = alpha A B + beta C, thread (col, row), any
// block shape. Each block covers blockDim.y rows x blockDim.x columns of C and walks K in tiles of
// TK: a blockDim.y x TK tile of A and a TK x blockDim.x tile of B are staged in shared memory by
// all threads (coalesced), then each thread does TK FMAs from shared memory. 2 M N K flops;
// A is read N / blockDim.x times and B M / blockDim.y times (mostly from L2).
//
// The A tile's rows are padded to TK + 1 words, so a warp spanning several rows (blocks narrower
// than 32) reads distinct banks. The B tile's layout is the variable:
//   row_major:          Bs[k][col], read by consecutive lanes at consecutive words: conflict free;
//   transposed:         Bs[col][k] with a TK = 32-word row, as users write it to make each thread's
//                       column contiguous: consecutive lanes read words 32 apart, all in one bank
//                       (a 32-way conflict for blocks 32 or more wide; 16-way at 16, 8-way at 8);
//   transposed_padded:  the same with TK + 1 = 33-word rows: conflict free.
#include "common.cuh"

namespace warpmodel::corpus::kernels {

enum class BTile { row_major, transposed, transposed_padded };

template <class T, int TK, BTile Layout>
__host__ __device__ constexpr int b_row_words(int block_x) {
  return Layout == BTile::row_major ? block_x : Layout == BTile::transposed ? TK : TK + 1;
}

// Dynamic shared memory: the A tile (by x (TK + 1)) and the B tile.
template <class T, int TK, BTile Layout>
std::size_t gemm_tiled_shared_bytes(dim3 block) {
  const int b_words = Layout == BTile::row_major ? TK * static_cast<int>(block.x)
                                                 : static_cast<int>(block.x) * b_row_words<T, TK, Layout>(block.x);
  return sizeof(T) * (static_cast<std::size_t>(block.y) * (TK + 1) + static_cast<std::size_t>(b_words));
}

template <class T, int TK, BTile Layout>
__device__ __forceinline__ void gemm_tiled(const T* __restrict__ A, const T* __restrict__ B, T* __restrict__ C, int M,
                                           int N, int K, T alpha, T beta) {
  const int bx = blockDim.x, by = blockDim.y, tx = threadIdx.x, ty = threadIdx.y;
  const int tid = ty * bx + tx, threads = bx * by;
  const int row0 = blockIdx.y * by, col0 = blockIdx.x * bx;
  constexpr int a_ld = TK + 1;
  const int b_ld = b_row_words<T, TK, Layout>(bx);
  T* As = dynamic_shared<T>();
  T* Bs = As + by * a_ld;
  T acc = 0;
  // Threads outside C stay: they help load the tiles and meet every barrier.
  for (int k0 = 0; k0 < K; k0 += TK) {
    for (int e = tid; e < by * TK; e += threads) {
      const int r = e / TK, c = e % TK;
      As[r * a_ld + c] = (row0 + r < M && k0 + c < K) ? A[(row0 + r) * K + k0 + c] : T(0);
    }
    for (int e = tid; e < TK * bx; e += threads) {
      const int r = e / bx, c = e % bx;  // consecutive threads: consecutive columns of B
      const T b = (k0 + r < K && col0 + c < N) ? B[(k0 + r) * N + col0 + c] : T(0);
      if (Layout == BTile::row_major)
        Bs[r * b_ld + c] = b;
      else
        Bs[c * b_ld + r] = b;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TK; ++k) {
      const T b = Layout == BTile::row_major ? Bs[k * b_ld + tx] : Bs[tx * b_ld + k];
      acc += As[ty * a_ld + k] * b;
    }
    __syncthreads();
  }
  const int row = row0 + ty, col = col0 + tx;
  if (row < M && col < N) C[row * N + col] = alpha * acc + beta * C[row * N + col];
}

constexpr int kTileF32 = 32, kTileF64 = 16;  // f64: 16-deep tiles keep a 256x1 block under 48 KB

__global__ void gemm_tiled_f32(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M,
                               int N, int K, float alpha, float beta) {
  gemm_tiled<float, kTileF32, BTile::row_major>(A, B, C, M, N, K, alpha, beta);
}
__global__ void gemm_tiled_bt_f32(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M,
                                  int N, int K, float alpha, float beta) {
  gemm_tiled<float, kTileF32, BTile::transposed>(A, B, C, M, N, K, alpha, beta);
}
__global__ void gemm_tiled_bt_padded_f32(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                                         int M, int N, int K, float alpha, float beta) {
  gemm_tiled<float, kTileF32, BTile::transposed_padded>(A, B, C, M, N, K, alpha, beta);
}
__global__ void gemm_tiled_f64(const double* __restrict__ A, const double* __restrict__ B, double* __restrict__ C, int M,
                               int N, int K, double alpha, double beta) {
  gemm_tiled<double, kTileF64, BTile::row_major>(A, B, C, M, N, K, alpha, beta);
}

}  // namespace warpmodel::corpus::kernels

namespace warpmodel::corpus::gpu {

using kernels::BTile;
using kernels::gemm_tiled_shared_bytes;
using kernels::kTileF32;
using kernels::kTileF64;

void gemm_tiled_f32(Geometry g, const float* A, const float* B, float* C, int M, int N, int K, float alpha, float beta) {
  kernels::gemm_tiled_f32<<<g.grid, g.block, gemm_tiled_shared_bytes<float, kTileF32, BTile::row_major>(g.block)>>>(
      A, B, C, M, N, K, alpha, beta);
}
void gemm_tiled_bt_f32(Geometry g, const float* A, const float* B, float* C, int M, int N, int K, float alpha,
                       float beta) {
  kernels::gemm_tiled_bt_f32<<<g.grid, g.block, gemm_tiled_shared_bytes<float, kTileF32, BTile::transposed>(g.block)>>>(
      A, B, C, M, N, K, alpha, beta);
}
void gemm_tiled_bt_padded_f32(Geometry g, const float* A, const float* B, float* C, int M, int N, int K, float alpha,
                              float beta) {
  kernels::gemm_tiled_bt_padded_f32<<<g.grid, g.block,
                                      gemm_tiled_shared_bytes<float, kTileF32, BTile::transposed_padded>(g.block)>>>(
      A, B, C, M, N, K, alpha, beta);
}
void gemm_tiled_f64(Geometry g, const double* A, const double* B, double* C, int M, int N, int K, double alpha,
                    double beta) {
  kernels::gemm_tiled_f64<<<g.grid, g.block, gemm_tiled_shared_bytes<double, kTileF64, BTile::row_major>(g.block)>>>(
      A, B, C, M, N, K, alpha, beta);
}

}  // namespace warpmodel::corpus::gpu
