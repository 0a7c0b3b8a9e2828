// Streaming kernels (class "streaming") and the tiny vector add ("launch-bound"): one element (or
// one float4) per thread, nothing but DRAM traffic. Bytes per launch: copy 8n, copy-vec4 8n,
// triad 12n (f32) / 24n (f64), vadd 12n.
#include "common.cuh"

namespace warpmodel::corpus::kernels {

__global__ void copy_f32(const float* __restrict__ in, float* __restrict__ out, int n) {
  const int i = global_x();
  if (i < n) out[i] = in[i];
}

// Four elements per thread through 16-byte accesses (n a multiple of 4): a quarter of the
// instructions and requests of copy_f32 for the same bytes.
__global__ void copy_vec4_f32(const float4* __restrict__ in, float4* __restrict__ out, int n4) {
  const int i = global_x();
  if (i < n4) out[i] = in[i];
}

// STREAM's triad: 2 flops per 12 (f32) or 24 (f64) bytes.
__global__ void triad_f32(float* __restrict__ a, const float* __restrict__ b, const float* __restrict__ c, float s,
                          int n) {
  const int i = global_x();
  if (i < n) a[i] = b[i] + s * c[i];
}

__global__ void triad_f64(double* __restrict__ a, const double* __restrict__ b, const double* __restrict__ c, double s,
                          int n) {
  const int i = global_x();
  if (i < n) a[i] = b[i] + s * c[i];
}

// The textbook first kernel, launched on a few thousand elements: the launch costs more than the work.
__global__ void vadd_f32(const float* a, const float* b, float* c, int n) {
  const int i = global_x();
  if (i < n) c[i] = a[i] + b[i];
}

}  // namespace warpmodel::corpus::kernels

namespace warpmodel::corpus::gpu {

void copy_f32(Geometry g, const float* in, float* out, int n) { kernels::copy_f32<<<g.grid, g.block>>>(in, out, n); }
void copy_vec4_f32(Geometry g, const float* in, float* out, int n) {
  kernels::copy_vec4_f32<<<g.grid, g.block>>>(reinterpret_cast<const float4*>(in), reinterpret_cast<float4*>(out), n / 4);
}
void triad_f32(Geometry g, float* a, const float* b, const float* c, float s, int n) {
  kernels::triad_f32<<<g.grid, g.block>>>(a, b, c, s, n);
}
void triad_f64(Geometry g, double* a, const double* b, const double* c, double s, int n) {
  kernels::triad_f64<<<g.grid, g.block>>>(a, b, c, s, n);
}
void vadd_f32(Geometry g, const float* a, const float* b, float* c, int n) {
  kernels::vadd_f32<<<g.grid, g.block>>>(a, b, c, n);
}

}  // namespace warpmodel::corpus::gpu
