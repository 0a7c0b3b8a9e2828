// Matrix-vector products (class "matvec", and gemv-fewrows in "latency"), written with
// __restrict__ and a register accumulator: what differs is which way the threads walk A.
// Each reads the rows x cols matrix once: 4 rows cols bytes, 2 rows cols flops.
#include "common.cuh"

namespace warpmodel::corpus::kernels {

// y = A x, thread per row walking along its row: at each step the 32 lanes of a warp read 32
// different rows, a sector each (the L1 keeps the rest of each line for the next 7 steps).
__global__ void gemv_row_f32(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y, int rows,
                             int cols) {
  const int i = global_x();
  if (i >= rows) return;
  const float* row = A + static_cast<long long>(i) * cols;
  float sum = 0.0f;
  for (int j = 0; j < cols; ++j) sum += row[j] * x[j];
  y[i] = sum;
}

// y = A^T x, thread per column walking down it: the warp reads 128 contiguous bytes per step.
__global__ void gemv_col_f32(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y, int rows,
                             int cols) {
  const int j = global_x();
  if (j >= cols) return;
  float sum = 0.0f;
  for (int i = 0; i < rows; ++i) sum += A[i * cols + j] * x[i];
  y[j] = sum;
}

// y = A x, a warp per row: lanes stride along the row (coalesced), then a shuffle reduction. The
// domain is 32 threads per row and blocks are whole warps, so a warp never straddles two rows and
// leaves (or stays) as a whole.
__global__ void gemv_warp_f32(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y, int rows,
                              int cols) {
  const int t = global_x();
  const int row = t / 32, lane = t % 32;
  if (row >= rows) return;
  const float* a = A + static_cast<long long>(row) * cols;
  float sum = 0.0f;
  for (int j = lane; j < cols; j += 32) sum += a[j] * x[j];
  sum = warp_sum(sum);
  if (lane == 0) y[row] = sum;
}

}  // namespace warpmodel::corpus::kernels

namespace warpmodel::corpus::gpu {

void gemv_row_f32(Geometry g, const float* A, const float* x, float* y, int rows, int cols) {
  kernels::gemv_row_f32<<<g.grid, g.block>>>(A, x, y, rows, cols);
}
void gemv_col_f32(Geometry g, const float* A, const float* x, float* y, int rows, int cols) {
  kernels::gemv_col_f32<<<g.grid, g.block>>>(A, x, y, rows, cols);
}
void gemv_warp_f32(Geometry g, const float* A, const float* x, float* y, int rows, int cols) {
  kernels::gemv_warp_f32<<<g.grid, g.block>>>(A, x, y, rows, cols);
}

}  // namespace warpmodel::corpus::gpu
