// The host side of every corpus kernel: one function per __global__ function, which launches it
// exactly once with the given grid and block (and the dynamic shared memory the kernel needs for
// that block) on the default stream. The caller checks the launch (support::cuda::check_launch).
// Included by the kernels' .cu files (nvcc, C++17) and by the workloads (host compiler, C++20).
//
// Matrices are row-major: `rows` rows of `cols` contiguous columns. Indices are int: every buffer
// holds fewer than 2^31 elements (the workloads check).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace warpmodel::corpus::gpu {

struct Geometry {
  dim3 grid, block;
};

// Kernel parameters passed by value (they live in the constant bank, as users' small tables do).
constexpr int kPolyDegree = 128;
struct PolyF32 {
  float c[kPolyDegree + 1];  // p(x) = c[0] + c[1] x + ... + c[128] x^128
};
struct PolyF64 {
  double c[kPolyDegree + 1];
};
constexpr int kStencilRadius = 4;  // the 1D stencils: 9 points, input padded by 4 on each side
struct Stencil9 {
  float w[2 * kStencilRadius + 1];
};
struct Conv3x3 {
  float w[9];
};
struct Conv3x3x3 {
  float w[27];
};
constexpr int kStencilTilesPerBlock = 8;  // stencil1d-cpasync: tiles (of block size) per block
constexpr int kRegPressureAccumulators = 48;

// ---- setup and restore (not corpus kernels): deterministic fills, random.hpp
void fill_uniform(float* p, std::size_t n, std::uint64_t seed, float lo, float width);
void fill_uniform(double* p, std::size_t n, std::uint64_t seed, double lo, double width);
void fill_keys(std::uint32_t* p, std::size_t n, std::uint64_t seed, std::uint32_t modulus, std::uint32_t group);
void fill_row_pointers(int* p, int rows, int per_row);            // p[r] = r x per_row, r = 0..rows
void fill_chase_cycle(std::uint32_t* next, unsigned bits);        // next[scramble(j)] = scramble(j + 1 mod 2^bits)

// ---- streaming
void copy_f32(Geometry g, const float* in, float* out, int n);
void copy_vec4_f32(Geometry g, const float* in, float* out, int n);  // n a multiple of 4
void triad_f32(Geometry g, float* a, const float* b, const float* c, float s, int n);
void triad_f64(Geometry g, double* a, const double* b, const double* c, double s, int n);
void vadd_f32(Geometry g, const float* a, const float* b, float* c, int n);

// ---- naive loops (no __restrict__: a load and a store per iteration)
// C (M x N) = beta C + alpha A (M x K) B (K x N)
void gemm_naive_f32(Geometry g, const float* A, const float* B, float* C, int M, int N, int K, float alpha, float beta);
void gemm_naive_f64(Geometry g, const double* A, const double* B, double* C, int M, int N, int K, double alpha,
                    double beta);
// C (N x N) = beta C + alpha A (N x K) A^T
void syrk_naive_f32(Geometry g, const float* A, float* C, int N, int K, float alpha, float beta);
void gemv_naive_f32(Geometry g, const float* A, const float* x, float* y, int rows, int cols);   // y = A x
void gemvt_naive_f32(Geometry g, const float* A, const float* x, float* y, int rows, int cols);  // y = A^T x
void colmean_naive_f32(Geometry g, const float* data, float* mean, int rows, int cols);
void colstd_naive_f32(Geometry g, const float* data, const float* mean, float* stddev, int rows, int cols);

// ---- matrix-vector
void gemv_row_f32(Geometry g, const float* A, const float* x, float* y, int rows, int cols);   // y = A x
void gemv_col_f32(Geometry g, const float* A, const float* x, float* y, int rows, int cols);   // y = A^T x
void gemv_warp_f32(Geometry g, const float* A, const float* x, float* y, int rows, int cols);  // y = A x

// ---- shared-memory tiled GEMM: C = alpha A B + beta C
void gemm_tiled_f32(Geometry g, const float* A, const float* B, float* C, int M, int N, int K, float alpha, float beta);
void gemm_tiled_bt_f32(Geometry g, const float* A, const float* B, float* C, int M, int N, int K, float alpha,
                       float beta);
void gemm_tiled_bt_padded_f32(Geometry g, const float* A, const float* B, float* C, int M, int N, int K, float alpha,
                              float beta);
void gemm_tiled_f64(Geometry g, const double* A, const double* B, double* C, int M, int N, int K, double alpha,
                    double beta);

// ---- tensor-core GEMM tiles: C (M x N, FP32) = A B, A M x K row-major, B as N x K row-major (K
// contiguous); FP16 and BF16 elements as their 16 bits, FP8 E4M3 as its byte. M, N and K multiples
// of the block's tile (corpus::shape_problem), K of 64 (128 for FP8).
void fill_eighths_f16(std::uint16_t* p, std::size_t n, std::uint64_t seed);  // eighths_f32 (random.hpp)
void fill_eighths_bf16(std::uint16_t* p, std::size_t n, std::uint64_t seed);
void fill_eighths_e4m3(std::uint8_t* p, std::size_t n, std::uint64_t seed);
void gemm_wmma_f16(Geometry g, const std::uint16_t* A, const std::uint16_t* B, float* C, int M, int N, int K);
void gemm_mma_bf16(Geometry g, const std::uint16_t* A, const std::uint16_t* B, float* C, int M, int N, int K);
void gemm_wgmma_f16(Geometry g, const std::uint16_t* A, const std::uint16_t* B, float* C, int M, int N, int K);  // sm_90a
void gemm_wgmma_e4m3(Geometry g, const std::uint8_t* A, const std::uint8_t* B, float* C, int M, int N, int K);  // sm_90a

// ---- reductions (1D blocks)
void reduce_shuffle_f32(Geometry g, const float* in, float* block_sums, int n);
void reduce_tree_f32(Geometry g, const float* in, float* block_sums, int n);
void reduce_atomic_f32(Geometry g, const float* in, float* sum, int n);       // *sum zeroed beforehand
void reduce_warp_atomic_f32(Geometry g, const float* in, float* sum, int n);  // *sum zeroed beforehand
// One block: thread t < threads sums in[t], in[t + threads], ... (per_thread of them).
void one_block_sum_f32(Geometry g, const float* in, float* sum, int threads, int per_thread);

// ---- histograms (bins zeroed beforehand); bin = key % bins
void hist_global_8_bins(Geometry g, const std::uint32_t* keys, std::uint32_t* bins, int n);
void hist_global_4096_bins(Geometry g, const std::uint32_t* keys, std::uint32_t* bins, int n);
void hist_shared_256_bins(Geometry g, const std::uint32_t* keys, std::uint32_t* bins, int n);

// ---- transposes: out (cols x rows) = in (rows x cols)^T
void transpose_naive_f32(Geometry g, const float* in, float* out, int rows, int cols);
void transpose_smem_f32(Geometry g, const float* in, float* out, int rows, int cols);
void transpose_smem_padded_f32(Geometry g, const float* in, float* out, int rows, int cols);

// ---- gathers: CSR y = A x (rows x rows), out[i] = in[idx[i]]
void spmv_csr_scalar_f32(Geometry g, const int* row_ptr, const int* col, const float* val, const float* x, float* y,
                         int rows);
void spmv_csr_vector_f32(Geometry g, const int* row_ptr, const int* col, const float* val, const float* x, float* y,
                         int rows);
void gather_f32(Geometry g, const float* in, const std::uint32_t* idx, float* out, int n);

// ---- scans: inclusive, each block of blockDim.x elements on its own
void scan_block_hs_f32(Geometry g, const float* in, float* out, int n);
void scan_block_shuffle_f32(Geometry g, const float* in, float* out, int n);

// ---- compute bound
void poly_f32(Geometry g, const float* x, float* y, int n, const PolyF32& p);
void poly_f64(Geometry g, const double* x, double* y, int n, const PolyF64& p);
void sfu_f32(Geometry g, const float* x, float* y, int n, int rounds);  // y = sum_r sin(t) e^-t + 1/sqrt(1 + t^2), t = x + r/16
void nbody_f32(Geometry g, const float* bodies, float* accel, int n, float softening2);  // float4 (x, y, z, mass) each

// ---- divergence: 1 of 4 paths by keys[i] & 3
void branch_paths_f32(Geometry g, const std::uint32_t* keys, const float* x, float* y, int n);

// ---- latency: chain c starts at start[c] and follows next[] `steps` times; out[c] = where it ends
void pointer_chase_u32(Geometry g, const std::uint32_t* next, const std::uint32_t* start, std::uint32_t* out, int chains,
                       int steps);

// ---- local memory
// keys: 8 words per thread, word w of thread i at w x n + i; mode[i] = 256 x (most frequent 6-bit
// value of its 32 bytes' low 6 bits, lowest on ties) + its count.
void local_hist_u32(Geometry g, const std::uint32_t* keys, std::uint32_t* mode, int n);
// acc[j] = fma(acc[j], in[r n + i], (j + 1) / 64) over r < rounds, then out[i] = sum_j acc[j] w_j,
// w_j = ((j mod 7) - 3) / 8.
void regpressure_f32(Geometry g, const float* in, float* out, int n, int rounds);
void regpressure_spill_f32(Geometry g, const float* in, float* out, int n, int rounds);

// ---- asynchronous copies: out[i] = sum_m w[m] in[i + m], in padded (n + 8 elements)
void stencil1d_f32(Geometry g, const float* in, float* out, int n, const Stencil9& w);
void stencil1d_cpasync_f32(Geometry g, const float* in, float* out, int n, const Stencil9& w);
void stencil1d_tma_f32(Geometry g, const float* in, float* out, int n, const Stencil9& w);  // n a multiple of 4

// ---- small 2D/3D stencils (border points copy the input)
void conv2d_3x3_f32(Geometry g, const float* in, float* out, int rows, int cols, const Conv3x3& w);
void jacobi2d_5pt_f32(Geometry g, const float* in, float* out, int rows, int cols);
void conv3d_3x3x3_f32(Geometry g, const float* in, float* out, int planes, int rows, int cols, const Conv3x3x3& w);
void fdtd2d_ey_f32(Geometry g, float* ey, const float* hz, int rows, int cols, float fict);
void fdtd2d_ex_f32(Geometry g, float* ex, const float* hz, int rows, int cols);
void fdtd2d_hz_f32(Geometry g, float* hz, const float* ex, const float* ey, int rows, int cols);

}  // namespace warpmodel::corpus::gpu
