// The one argument every stencil kernel takes (by value, so it lives in the constant bank and the
// coefficients are FFMA operands without a load). Plain struct: host code, the CUDA kernels and
// the CPU emulation of the kernels share it.
#pragma once

namespace warpmodel::stencils::gpu {

inline constexpr int kMaxRadius = 8;

struct StencilParams {
  const float* prev;  // p(n-1)
  const float* cur;   // p(n)
  const float* vel2;  // (v dt / h)^2
  float* next;        // p(n+1): every point written, the Dirichlet layers with 0
  int nx, ny, nz;
  int pitch;          // floats per padded x row (a multiple of 32)
  int z_chunk;        // z-marching variants: planes per block
  // Source, added after the update at one point: next[s] += (v dt)^2 ricker(t).
  int source_i, source_j, source_k;
  float source_amplitude;
  // weight[0] = 3 w0 (the centre weight of the 3D operator), weight[d] = w_d (Fornberg, d = 1..radius).
  float weight[kMaxRadius + 1];
};

}  // namespace warpmodel::stencils::gpu
