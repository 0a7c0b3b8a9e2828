// Compute-bound kernels (class "compute"): FP32 and FP64 polynomials by Horner, the special
// function unit, and all-pairs n-body.
#include "common.cuh"

namespace warpmodel::corpus::kernels {

// p(x) by Horner: 128 dependent FMAs (256 flops) per 8 (f32) or 16 (f64) bytes moved; the
// coefficients are kernel parameters (constant bank operands of the FMAs).
__global__ void poly_f32(const float* __restrict__ x, float* __restrict__ y, int n, const gpu::PolyF32 p) {
  const int i = global_x();
  if (i >= n) return;
  const float v = x[i];
  float acc = p.c[gpu::kPolyDegree];
#pragma unroll
  for (int k = gpu::kPolyDegree - 1; k >= 0; --k) acc = fmaf(acc, v, p.c[k]);
  y[i] = acc;
}

__global__ void poly_f64(const double* __restrict__ x, double* __restrict__ y, int n, const gpu::PolyF64 p) {
  const int i = global_x();
  if (i >= n) return;
  const double v = x[i];
  double acc = p.c[gpu::kPolyDegree];
#pragma unroll
  for (int k = gpu::kPolyDegree - 1; k >= 0; --k) acc = fma(acc, v, p.c[k]);
  y[i] = acc;
}

// Per round: __sinf (MUFU.SIN), __expf (MUFU.EX2) and rsqrtf (MUFU.RSQ), a few FP32 operations
// around them. 3 rounds MUFU per element; t stays in [-1, 3), where __sinf is accurate.
__global__ void sfu_f32(const float* __restrict__ x, float* __restrict__ y, int n, int rounds) {
  const int i = global_x();
  if (i >= n) return;
  const float v = x[i];
  float acc = 0.0f;
  for (int r = 0; r < rounds; ++r) {
    const float t = v + 0.0625f * static_cast<float>(r);
    acc += __sinf(t) * __expf(-t) + rsqrtf(1.0f + t * t);
  }
  y[i] = acc;
}

// All-pairs gravitational acceleration with softening: bodies (x, y, z, mass) staged through
// shared memory a block-sized tile at a time (a barrier per tile); per interaction ~20 flops and
// one MUFU.RSQ. n^2 interactions. A body's own term is zero (dx = dy = dz = 0).
__global__ void nbody_f32(const float4* __restrict__ bodies, float4* __restrict__ accel, int n, float softening2) {
  float4* tile = dynamic_shared<float4>();
  const int i = global_x();
  const float4 me = i < n ? bodies[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  float ax = 0.0f, ay = 0.0f, az = 0.0f;
  for (int base = 0; base < n; base += blockDim.x) {
    const int j = base + threadIdx.x;
    tile[threadIdx.x] = j < n ? bodies[j] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);  // massless past n
    __syncthreads();
    for (int k = 0; k < static_cast<int>(blockDim.x); ++k) {
      const float4 b = tile[k];
      const float dx = b.x - me.x, dy = b.y - me.y, dz = b.z - me.z;
      const float inv = rsqrtf(dx * dx + dy * dy + dz * dz + softening2);
      const float s = b.w * inv * inv * inv;
      ax += dx * s;
      ay += dy * s;
      az += dz * s;
    }
    __syncthreads();
  }
  if (i < n) accel[i] = make_float4(ax, ay, az, 0.0f);
}

}  // namespace warpmodel::corpus::kernels

namespace warpmodel::corpus::gpu {

void poly_f32(Geometry g, const float* x, float* y, int n, const PolyF32& p) {
  kernels::poly_f32<<<g.grid, g.block>>>(x, y, n, p);
}
void poly_f64(Geometry g, const double* x, double* y, int n, const PolyF64& p) {
  kernels::poly_f64<<<g.grid, g.block>>>(x, y, n, p);
}
void sfu_f32(Geometry g, const float* x, float* y, int n, int rounds) {
  kernels::sfu_f32<<<g.grid, g.block>>>(x, y, n, rounds);
}
void nbody_f32(Geometry g, const float* bodies, float* accel, int n, float softening2) {
  kernels::nbody_f32<<<g.grid, g.block, g.block.x * sizeof(float4)>>>(reinterpret_cast<const float4*>(bodies),
                                                                      reinterpret_cast<float4*>(accel), n, softening2);
}

}  // namespace warpmodel::corpus::gpu
