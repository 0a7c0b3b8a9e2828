// Naive loops (class "naive-loop"): the inner loop accumulates into memory through pointers that
// may alias (no __restrict__), as in PolyBench's GPU ports. The compiler must keep the store in
// every iteration and cannot move the next iteration's loads above it, so each iteration is a
// load, a store and a dependent chain through memory.
#include "common.cuh"

namespace warpmodel::corpus::kernels {

// C = beta C + alpha A B, thread (col, row). Per thread K iterations of: load A[row][k] (the same
// word for the warp), load B[k][col] (coalesced), store C. 2 M N K flops; K stores per element.
template <class T>
__device__ __forceinline__ void gemm_naive(const T* A, const T* B, T* C, int M, int N, int K, T alpha, T beta) {
  const int col = global_x(), row = global_y();
  if (row >= M || col >= N) return;
  C[row * N + col] *= beta;
  for (int k = 0; k < K; ++k) C[row * N + col] += alpha * A[row * K + k] * B[k * N + col];
}

__global__ void gemm_naive_f32(const float* A, const float* B, float* C, int M, int N, int K, float alpha, float beta) {
  gemm_naive(A, B, C, M, N, K, alpha, beta);
}
__global__ void gemm_naive_f64(const double* A, const double* B, double* C, int M, int N, int K, double alpha,
                               double beta) {
  gemm_naive(A, B, C, M, N, K, alpha, beta);
}

// C = beta C + alpha A A^T (PolyBench syrk), thread (j, i): A[j][k] is a different row for every
// lane, 32 sectors per warp load. 2 N^2 K flops.
__global__ void syrk_naive_f32(const float* A, float* C, int N, int K, float alpha, float beta) {
  const int j = global_x(), i = global_y();
  if (i >= N || j >= N) return;
  C[i * N + j] *= beta;
  for (int k = 0; k < K; ++k) C[i * N + j] += alpha * A[i * K + k] * A[j * K + k];
}

// y = A x, thread per row, accumulating in y[i] (PolyBench atax's first kernel): the row walk is
// uncoalesced (a sector per lane), x[j] is one word for the warp.
__global__ void gemv_naive_f32(const float* A, const float* x, float* y, int rows, int cols) {
  const int i = global_x();
  if (i >= rows) return;
  y[i] = 0.0f;
  for (int j = 0; j < cols; ++j) y[i] += A[i * cols + j] * x[j];
}

// y = A^T x, thread per column, accumulating in y[j] (PolyBench bicg): coalesced.
__global__ void gemvt_naive_f32(const float* A, const float* x, float* y, int rows, int cols) {
  const int j = global_x();
  if (j >= cols) return;
  y[j] = 0.0f;
  for (int i = 0; i < rows; ++i) y[j] += A[i * cols + j] * x[i];
}

// Column means (PolyBench correlation/covariance's first kernel): thread per column walking down
// it, a coalesced load and a store per row.
__global__ void colmean_naive_f32(const float* data, float* mean, int rows, int cols) {
  const int j = global_x();
  if (j >= cols) return;
  mean[j] = 0.0f;
  for (int i = 0; i < rows; ++i) mean[j] += data[i * cols + j];
  mean[j] /= static_cast<float>(rows);
}

// Column standard deviations (correlation's second kernel): mean[j] may alias stddev, so it is
// reloaded with data[i][j] in every iteration.
__global__ void colstd_naive_f32(const float* data, const float* mean, float* stddev, int rows, int cols) {
  const int j = global_x();
  if (j >= cols) return;
  stddev[j] = 0.0f;
  for (int i = 0; i < rows; ++i) stddev[j] += (data[i * cols + j] - mean[j]) * (data[i * cols + j] - mean[j]);
  stddev[j] = sqrtf(stddev[j] / static_cast<float>(rows));
}

}  // namespace warpmodel::corpus::kernels

namespace warpmodel::corpus::gpu {

void gemm_naive_f32(Geometry g, const float* A, const float* B, float* C, int M, int N, int K, float alpha, float beta) {
  kernels::gemm_naive_f32<<<g.grid, g.block>>>(A, B, C, M, N, K, alpha, beta);
}
void gemm_naive_f64(Geometry g, const double* A, const double* B, double* C, int M, int N, int K, double alpha,
                    double beta) {
  kernels::gemm_naive_f64<<<g.grid, g.block>>>(A, B, C, M, N, K, alpha, beta);
}
void syrk_naive_f32(Geometry g, const float* A, float* C, int N, int K, float alpha, float beta) {
  kernels::syrk_naive_f32<<<g.grid, g.block>>>(A, C, N, K, alpha, beta);
}
void gemv_naive_f32(Geometry g, const float* A, const float* x, float* y, int rows, int cols) {
  kernels::gemv_naive_f32<<<g.grid, g.block>>>(A, x, y, rows, cols);
}
void gemvt_naive_f32(Geometry g, const float* A, const float* x, float* y, int rows, int cols) {
  kernels::gemvt_naive_f32<<<g.grid, g.block>>>(A, x, y, rows, cols);
}
void colmean_naive_f32(Geometry g, const float* data, float* mean, int rows, int cols) {
  kernels::colmean_naive_f32<<<g.grid, g.block>>>(data, mean, rows, cols);
}
void colstd_naive_f32(Geometry g, const float* data, const float* mean, float* stddev, int rows, int cols) {
  kernels::colstd_naive_f32<<<g.grid, g.block>>>(data, mean, stddev, rows, cols);
}

}  // namespace warpmodel::corpus::gpu
