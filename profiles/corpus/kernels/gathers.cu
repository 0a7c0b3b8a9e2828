// Irregular gathers (class "gather"): CSR sparse matrix-vector products and a random gather.
// SpMV moves 8 bytes per nonzero (value, column) plus a random 4-byte gather of x each.
#include "common.cuh"

namespace warpmodel::corpus::kernels {

// Thread per row: each lane walks its own row (uncoalesced), gathering x at random columns.
__global__ void spmv_csr_scalar_f32(const int* __restrict__ row_ptr, const int* __restrict__ col,
                                    const float* __restrict__ val, const float* __restrict__ x, float* __restrict__ y,
                                    int rows) {
  const int r = global_x();
  if (r >= rows) return;
  float sum = 0.0f;
  for (int k = row_ptr[r]; k < row_ptr[r + 1]; ++k) sum += val[k] * x[col[k]];
  y[r] = sum;
}

// A warp per row (Bell and Garland's CSR-vector): lanes stride along the row, then shuffle. The
// domain is 32 threads per row and blocks are whole warps, so warps leave (or stay) whole.
__global__ void spmv_csr_vector_f32(const int* __restrict__ row_ptr, const int* __restrict__ col,
                                    const float* __restrict__ val, const float* __restrict__ x, float* __restrict__ y,
                                    int rows) {
  const int t = global_x();
  const int r = t / 32, lane = t % 32;
  if (r >= rows) return;
  float sum = 0.0f;
  for (int k = row_ptr[r] + lane; k < row_ptr[r + 1]; k += 32) sum += val[k] * x[col[k]];
  sum = warp_sum(sum);
  if (lane == 0) y[r] = sum;
}

// out[i] = in[idx[i]], random indices: a 32-byte sector fetched per 4 bytes used (12n bytes
// streamed, n sectors gathered).
__global__ void gather_f32(const float* __restrict__ in, const std::uint32_t* __restrict__ idx, float* __restrict__ out,
                           int n) {
  const int i = global_x();
  if (i < n) out[i] = in[idx[i]];
}

}  // namespace warpmodel::corpus::kernels

namespace warpmodel::corpus::gpu {

void spmv_csr_scalar_f32(Geometry g, const int* row_ptr, const int* col, const float* val, const float* x, float* y,
                         int rows) {
  kernels::spmv_csr_scalar_f32<<<g.grid, g.block>>>(row_ptr, col, val, x, y, rows);
}
void spmv_csr_vector_f32(Geometry g, const int* row_ptr, const int* col, const float* val, const float* x, float* y,
                         int rows) {
  kernels::spmv_csr_vector_f32<<<g.grid, g.block>>>(row_ptr, col, val, x, y, rows);
}
void gather_f32(Geometry g, const float* in, const std::uint32_t* idx, float* out, int n) {
  kernels::gather_f32<<<g.grid, g.block>>>(in, idx, out, n);
}

}  // namespace warpmodel::corpus::gpu
