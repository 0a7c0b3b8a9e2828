// Transposes (class "transpose"): out (cols x rows) = in (rows x cols)^T, 8 rows cols bytes.
#include "common.cuh"

namespace warpmodel::corpus::kernels {

// Thread (x, y) copies in[y][x] to out[x][y]: coalesced loads, stores `rows` words apart.
__global__ void transpose_naive_f32(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  const int x = global_x(), y = global_y();
  if (x < cols && y < rows) out[x * rows + y] = in[y * cols + x];
}

// The block's blockDim.y x blockDim.x tile goes through shared memory (rows of bx + Pad words):
// loaded row by row, stored as the output's blockDim.x rows of blockDim.y words, consecutive
// threads on consecutive output words. Reading the tile's column puts consecutive lanes bx + Pad
// words apart: with Pad = 0 and bx a multiple of 32 they share a bank.
template <int Pad>
__device__ __forceinline__ void transpose_tiled(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  float* tile = dynamic_shared<float>();
  const int bx = blockDim.x, by = blockDim.y, ld = bx + Pad;
  const int x0 = blockIdx.x * bx, y0 = blockIdx.y * by;
  const int x = x0 + threadIdx.x, y = y0 + threadIdx.y;
  if (x < cols && y < rows) tile[threadIdx.y * ld + threadIdx.x] = in[y * cols + x];
  __syncthreads();
  const int t = threadIdx.y * bx + threadIdx.x;
  const int r = t / by, c = t % by;  // output row x0 + r (an input column), output column y0 + c (an input row)
  if (x0 + r < cols && y0 + c < rows) out[(x0 + r) * rows + y0 + c] = tile[c * ld + r];
}

__global__ void transpose_smem_f32(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  transpose_tiled<0>(in, out, rows, cols);
}
__global__ void transpose_smem_padded_f32(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  transpose_tiled<1>(in, out, rows, cols);
}

}  // namespace warpmodel::corpus::kernels

namespace warpmodel::corpus::gpu {

void transpose_naive_f32(Geometry g, const float* in, float* out, int rows, int cols) {
  kernels::transpose_naive_f32<<<g.grid, g.block>>>(in, out, rows, cols);
}
void transpose_smem_f32(Geometry g, const float* in, float* out, int rows, int cols) {
  kernels::transpose_smem_f32<<<g.grid, g.block, g.block.x * g.block.y * sizeof(float)>>>(in, out, rows, cols);
}
void transpose_smem_padded_f32(Geometry g, const float* in, float* out, int rows, int cols) {
  kernels::transpose_smem_padded_f32<<<g.grid, g.block, (g.block.x + 1) * g.block.y * sizeof(float)>>>(in, out, rows,
                                                                                                       cols);
}

}  // namespace warpmodel::corpus::gpu
