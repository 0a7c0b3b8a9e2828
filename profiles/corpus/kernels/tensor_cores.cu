// Tensor-core GEMM tiles (class "tensor-core"), the warp-wide MMAs of sm_90: C (M x N, FP32) = A B,
// A M x K row-major, B given as N x K row-major (K contiguous: the "TN" layout tensor-core GEMMs
// take), FP32 accumulation. The warpgroup MMAs (wgmma) are in tensor_cores_wgmma.cu (sm_90a).
//
// Each warp computes a 32 x 32 tile of C; a block of bx x by threads is bx / 32 x by warps, a
// (32 by) x bx tile of C (so the domain is nx x ny / 32 threads). The block walks K in 32-deep
// stages: all its threads copy the A rows and B rows of the stage into shared memory with 16-byte
// loads, then each warp runs its MMAs from shared memory:
//   gemm_wmma_f16:     nvcuda::wmma 16x16x16 fragments (2 x 2 accumulators per warp, 8 MMAs a stage);
//   gemm_mma_bf16:     mma.sync.m16n8k16 BF16 with ldmatrix.x4 operands (2 x 4 MMAs per 16 of K).
// Both compile to HMMA.16816.F32 (the BF16 one to HMMA.16816.F32.BF16). Rows in shared memory are
// padded to 40 elements (80 bytes), so the 8 row addresses of an ldmatrix hit distinct banks.
//
// The inputs are multiples of 1/8 in [-1, 1) (fill_eighths_*: exact in FP16, BF16 and FP8 E4M3),
// so every product is a multiple of 1/64 and every partial sum is exact in FP32: the references
// can hold the results to a tight tolerance whatever order the tensor cores add in.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <mma.h>

#include <cstdint>

#include "../src/random.hpp"
#include "common.cuh"

namespace warpmodel::corpus::kernels {

__global__ void fill_eighths_f16(std::uint16_t* p, std::size_t n, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    p[i] = __half_as_ushort(__float2half_rn(eighths_f32(seed, i)));
}
__global__ void fill_eighths_bf16(std::uint16_t* p, std::size_t n, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    p[i] = __bfloat16_as_ushort(__float2bfloat16_rn(eighths_f32(seed, i)));
}
__global__ void fill_eighths_e4m3(std::uint8_t* p, std::size_t n, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    p[i] = static_cast<std::uint8_t>(__nv_cvt_float_to_fp8(eighths_f32(seed, i), __NV_SATFINITE, __NV_E4M3));
}

constexpr int kWarpTile = 32;          // C rows and columns per warp
constexpr int kStageK = 32;            // K per shared-memory stage
constexpr int kStageLd = kStageK + 8;  // a staged row, in 16-bit elements (80 bytes)

// Dynamic shared memory: the stage's A rows (32 by) and B rows (bx), kStageLd 16-bit elements each.
std::size_t warp_tile_shared_bytes(dim3 block) {
  return sizeof(std::uint16_t) * kStageLd * (std::size_t(kWarpTile) * block.y + block.x);
}

// Rows [row0, row0 + rows) x K columns [k0, k0 + 32) of a K-contiguous matrix into shared memory,
// 16 bytes (8 elements) a thread at a time: 4 chunks a row.
__device__ __forceinline__ void stage_rows(const std::uint16_t* __restrict__ g, int K, int row0, int rows, int k0,
                                           std::uint16_t* s, int tid, int threads) {
  for (int c = tid; c < rows * 4; c += threads) {
    const int r = c / 4, q = c % 4;
    *reinterpret_cast<uint4*>(s + r * kStageLd + q * 8) =
        *reinterpret_cast<const uint4*>(g + std::size_t(row0 + r) * K + k0 + q * 8);
  }
}

__global__ void gemm_wmma_f16(const std::uint16_t* __restrict__ A, const std::uint16_t* __restrict__ B,
                              float* __restrict__ C, int M, int N, int K) {
  using namespace nvcuda;
  const int tid = threadIdx.y * blockDim.x + threadIdx.x, threads = blockDim.x * blockDim.y;
  const int block_rows = kWarpTile * blockDim.y, block_cols = blockDim.x;
  const int row0 = blockIdx.y * block_rows, col0 = blockIdx.x * block_cols;
  const int warp_row = threadIdx.y * kWarpTile, warp_col = (threadIdx.x / 32) * kWarpTile;
  std::uint16_t* As = dynamic_shared<std::uint16_t>();
  std::uint16_t* Bs = As + block_rows * kStageLd;
  const __half* Ah = reinterpret_cast<const __half*>(As);
  const __half* Bh = reinterpret_cast<const __half*>(Bs);
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][2];
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[i][j], 0.0f);
  for (int k0 = 0; k0 < K; k0 += kStageK) {
    stage_rows(A, K, row0, block_rows, k0, As, tid, threads);
    stage_rows(B, K, col0, block_cols, k0, Bs, tid, threads);
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kStageK; kk += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a[2];
      wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> b[2];  // B[n][k]: K x N column-major
#pragma unroll
      for (int i = 0; i < 2; ++i) wmma::load_matrix_sync(a[i], Ah + (warp_row + 16 * i) * kStageLd + kk, kStageLd);
#pragma unroll
      for (int j = 0; j < 2; ++j) wmma::load_matrix_sync(b[j], Bh + (warp_col + 16 * j) * kStageLd + kk, kStageLd);
#pragma unroll
      for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 2; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 2; ++j)
      wmma::store_matrix_sync(C + std::size_t(row0 + warp_row + 16 * i) * N + col0 + warp_col + 16 * j, acc[i][j], N,
                              wmma::mem_row_major);
}

__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], const std::uint16_t* p) {
  const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(p));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(address));
}

__device__ __forceinline__ void mma_bf16_16816(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

__global__ void gemm_mma_bf16(const std::uint16_t* __restrict__ A, const std::uint16_t* __restrict__ B,
                              float* __restrict__ C, int M, int N, int K) {
  const int tid = threadIdx.y * blockDim.x + threadIdx.x, threads = blockDim.x * blockDim.y;
  const int lane = threadIdx.x % 32;
  const int block_rows = kWarpTile * blockDim.y, block_cols = blockDim.x;
  const int row0 = blockIdx.y * block_rows, col0 = blockIdx.x * block_cols;
  const int warp_row = threadIdx.y * kWarpTile, warp_col = (threadIdx.x / 32) * kWarpTile;
  std::uint16_t* As = dynamic_shared<std::uint16_t>();
  std::uint16_t* Bs = As + block_rows * kStageLd;
  float acc[2][4][4] = {};  // [m16 tile][n8 tile][fragment]
  // ldmatrix.x4: lanes 8q..8q+7 address the rows of 8x8 matrix q. A (16 x 16 of M x K): matrices
  // (rows 0-7, k 0-7), (8-15, 0-7), (0-7, 8-15), (8-15, 8-15) are the fragment's a0..a3. B (two n8
  // tiles of N x K): (n 0-7, k 0-7), (0-7, 8-15), (8-15, 0-7), (8-15, 8-15) are b0, b1 of each.
  const int a_row = (lane % 8) + 8 * ((lane / 8) % 2), a_k = 8 * (lane / 16);
  const int b_row = (lane % 8) + 8 * (lane / 16), b_k = 8 * ((lane / 8) % 2);
  for (int k0 = 0; k0 < K; k0 += kStageK) {
    stage_rows(A, K, row0, block_rows, k0, As, tid, threads);
    stage_rows(B, K, col0, block_cols, k0, Bs, tid, threads);
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kStageK; kk += 16) {
      unsigned a[2][4], b[2][4];
#pragma unroll
      for (int i = 0; i < 2; ++i) ldmatrix_x4(a[i], As + (warp_row + 16 * i + a_row) * kStageLd + kk + a_k);
#pragma unroll
      for (int p = 0; p < 2; ++p) ldmatrix_x4(b[p], Bs + (warp_col + 16 * p + b_row) * kStageLd + kk + b_k);
#pragma unroll
      for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) mma_bf16_16816(acc[i][j], a[i], b[j / 2][2 * (j % 2)], b[j / 2][2 * (j % 2) + 1]);
    }
    __syncthreads();
  }
  // The accumulator fragment: d0, d1 at (row lane / 4, columns 2 (lane % 4) and + 1), d2, d3 8 rows lower.
  const int frag_row = lane / 4, frag_col = 2 * (lane % 4);
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = row0 + warp_row + 16 * i + frag_row + 8 * h, col = col0 + warp_col + 8 * j + frag_col;
        *reinterpret_cast<float2*>(C + std::size_t(row) * N + col) = make_float2(acc[i][j][2 * h], acc[i][j][2 * h + 1]);
      }
}

}  // namespace warpmodel::corpus::kernels

namespace warpmodel::corpus::gpu {

namespace {
dim3 fill_grid(std::size_t n) { return dim3(static_cast<unsigned>(n / 256 < 4096 ? n / 256 + 1 : 4096)); }
}  // namespace

void fill_eighths_f16(std::uint16_t* p, std::size_t n, std::uint64_t seed) {
  kernels::fill_eighths_f16<<<fill_grid(n), 256>>>(p, n, seed);
}
void fill_eighths_bf16(std::uint16_t* p, std::size_t n, std::uint64_t seed) {
  kernels::fill_eighths_bf16<<<fill_grid(n), 256>>>(p, n, seed);
}
void fill_eighths_e4m3(std::uint8_t* p, std::size_t n, std::uint64_t seed) {
  kernels::fill_eighths_e4m3<<<fill_grid(n), 256>>>(p, n, seed);
}

void gemm_wmma_f16(Geometry g, const std::uint16_t* A, const std::uint16_t* B, float* C, int M, int N, int K) {
  kernels::gemm_wmma_f16<<<g.grid, g.block, kernels::warp_tile_shared_bytes(g.block)>>>(A, B, C, M, N, K);
}
void gemm_mma_bf16(Geometry g, const std::uint16_t* A, const std::uint16_t* B, float* C, int M, int N, int K) {
  kernels::gemm_mma_bf16<<<g.grid, g.block, kernels::warp_tile_shared_bytes(g.block)>>>(A, B, C, M, N, K);
}

}  // namespace warpmodel::corpus::gpu
