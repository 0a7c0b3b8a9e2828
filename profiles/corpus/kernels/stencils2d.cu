// Small 2D and 3D stencils and convolutions (class "stencil-2d"), one output per thread. The
// convolutions and Jacobi copy their border points; the FDTD-2D kernels (PolyBench fdtd-2d's three
// kernels) update their field in place. Bytes: about 8 per point (each input point read once from
// DRAM, its neighbours from L1/L2); the FDTD updates 12 (ey, ex) and 16 (hz).
#include "common.cuh"

namespace warpmodel::corpus::kernels {

__global__ void conv2d_3x3_f32(const float* __restrict__ in, float* __restrict__ out, int rows, int cols,
                               const gpu::Conv3x3 w) {
  const int x = global_x(), y = global_y();
  if (x >= cols || y >= rows) return;
  if (x == 0 || y == 0 || x == cols - 1 || y == rows - 1) {
    out[y * cols + x] = in[y * cols + x];
    return;
  }
  float acc = 0.0f;
#pragma unroll
  for (int dy = -1; dy <= 1; ++dy)
#pragma unroll
    for (int dx = -1; dx <= 1; ++dx) acc = fmaf(w.w[(dy + 1) * 3 + dx + 1], in[(y + dy) * cols + x + dx], acc);
  out[y * cols + x] = acc;
}

__global__ void jacobi2d_5pt_f32(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  const int x = global_x(), y = global_y();
  if (x >= cols || y >= rows) return;
  const int c = y * cols + x;
  if (x == 0 || y == 0 || x == cols - 1 || y == rows - 1)
    out[c] = in[c];
  else
    out[c] = 0.2f * (in[c] + in[c - 1] + in[c + 1] + in[c - cols] + in[c + cols]);
}

// Thread (x, y) of plane blockIdx.z (blocks are one plane deep): 27 loads.
__global__ void conv3d_3x3x3_f32(const float* __restrict__ in, float* __restrict__ out, int planes, int rows, int cols,
                                 const gpu::Conv3x3x3 w) {
  const int x = global_x(), y = global_y(), z = blockIdx.z;
  if (x >= cols || y >= rows || z >= planes) return;
  const int c = (z * rows + y) * cols + x;
  if (x == 0 || y == 0 || z == 0 || x == cols - 1 || y == rows - 1 || z == planes - 1) {
    out[c] = in[c];
    return;
  }
  float acc = 0.0f;
#pragma unroll
  for (int dz = -1; dz <= 1; ++dz)
#pragma unroll
    for (int dy = -1; dy <= 1; ++dy)
#pragma unroll
      for (int dx = -1; dx <= 1; ++dx)
        acc = fmaf(w.w[(dz + 1) * 9 + (dy + 1) * 3 + dx + 1], in[c + (dz * rows + dy) * cols + dx], acc);
  out[c] = acc;
}

// PolyBench fdtd-2d, one time step's three kernels (in place, plain pointers as in its GPU port):
//   ey[0][j] = fict; ey[i][j] -= 0.5 (hz[i][j] - hz[i-1][j])          (i > 0)
//   ex[i][j] -= 0.5 (hz[i][j] - hz[i][j-1])                           (j > 0; column 0 unchanged)
//   hz[i][j] -= 0.7 (ex[i][j+1] - ex[i][j] + ey[i+1][j] - ey[i][j])   (i < rows-1, j < cols-1)
__global__ void fdtd2d_ey_f32(float* ey, const float* hz, int rows, int cols, float fict) {
  const int j = global_x(), i = global_y();
  if (i >= rows || j >= cols) return;
  if (i == 0)
    ey[j] = fict;
  else
    ey[i * cols + j] = ey[i * cols + j] - 0.5f * (hz[i * cols + j] - hz[(i - 1) * cols + j]);
}

__global__ void fdtd2d_ex_f32(float* ex, const float* hz, int rows, int cols) {
  const int j = global_x(), i = global_y();
  if (i >= rows || j >= cols || j == 0) return;
  ex[i * cols + j] = ex[i * cols + j] - 0.5f * (hz[i * cols + j] - hz[i * cols + j - 1]);
}

__global__ void fdtd2d_hz_f32(float* hz, const float* ex, const float* ey, int rows, int cols) {
  const int j = global_x(), i = global_y();
  if (i >= rows - 1 || j >= cols - 1) return;
  hz[i * cols + j] =
      hz[i * cols + j] - 0.7f * (ex[i * cols + j + 1] - ex[i * cols + j] + ey[(i + 1) * cols + j] - ey[i * cols + j]);
}

}  // namespace warpmodel::corpus::kernels

namespace warpmodel::corpus::gpu {

void conv2d_3x3_f32(Geometry g, const float* in, float* out, int rows, int cols, const Conv3x3& w) {
  kernels::conv2d_3x3_f32<<<g.grid, g.block>>>(in, out, rows, cols, w);
}
void jacobi2d_5pt_f32(Geometry g, const float* in, float* out, int rows, int cols) {
  kernels::jacobi2d_5pt_f32<<<g.grid, g.block>>>(in, out, rows, cols);
}
void conv3d_3x3x3_f32(Geometry g, const float* in, float* out, int planes, int rows, int cols, const Conv3x3x3& w) {
  kernels::conv3d_3x3x3_f32<<<g.grid, g.block>>>(in, out, planes, rows, cols, w);
}
void fdtd2d_ey_f32(Geometry g, float* ey, const float* hz, int rows, int cols, float fict) {
  kernels::fdtd2d_ey_f32<<<g.grid, g.block>>>(ey, hz, rows, cols, fict);
}
void fdtd2d_ex_f32(Geometry g, float* ex, const float* hz, int rows, int cols) {
  kernels::fdtd2d_ex_f32<<<g.grid, g.block>>>(ex, hz, rows, cols);
}
void fdtd2d_hz_f32(Geometry g, float* hz, const float* ex, const float* ey, int rows, int cols) {
  kernels::fdtd2d_hz_f32<<<g.grid, g.block>>>(hz, ex, ey, rows, cols);
}

}  // namespace warpmodel::corpus::gpu
