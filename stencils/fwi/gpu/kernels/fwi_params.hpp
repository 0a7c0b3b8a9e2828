// The arguments of the FWI kernels (fwi_kernels.cuh), plain structs passed by value. Plain C++:
// the CUDA runner, the CPU emulation and the kernels read the same definitions.
#pragma once

namespace warpmodel::fwi::gpu {

// get_CPML_x_half / get_CPML_z_half: a_q, b_q along one axis (eqs 2.20-2.23).
struct CpmlParams {
  float* a = nullptr;
  float* b = nullptr;
  int n = 0;      // points along the axis
  int width = 0;  // the layer, points
  int low = 1;    // a layer at index 0.. (x: left; z: top, only with --cpml-top)
  int high = 1;   // a layer at index n-1.. (right, bottom)
  float h = 0, reflection = 0, velocity = 0, frequency = 0, dt = 0;
};

// One time step of the forward (P) or adjoint (q) propagation, and the gradient over films.
// Arrays are nx * nz, row-major with x fastest (index j nx + i), as the CPU reference's.
struct StepParams {
  int nx = 0, nz = 0;
  float inv_h2 = 0, inv_2h = 0;  // 1 / h^2, 1 / (2 h)
  const float *ax = nullptr, *bx = nullptr, *az = nullptr, *bz = nullptr;  // per column / row
  const float* w = nullptr;         // (c dt)^2
  const float* velocity = nullptr;  // c (the gradient's 2 / (c W))
  // forward: P^{n-1}, P^n -> P^{n+1}; psi read from *_in and written to psi_* (the same arrays in
  // the unfused PSI, which updates in place; two arrays that swap in the fused kernels, whose
  // blocks read their neighbours' old values); zeta in place.
  const float *field_prev = nullptr, *field = nullptr;
  float* field_next = nullptr;
  const float *psi_x_in = nullptr, *psi_z_in = nullptr;
  float *psi_x = nullptr, *psi_z = nullptr;
  float *zeta_x = nullptr, *zeta_z = nullptr;
  // adjoint: q^{k+2}, q^{k+1} -> q^k in field_*; nu (swapping pair) and mu (in place when unfused,
  // a swapping pair when fused).
  const float *nu_x_in = nullptr, *nu_z_in = nullptr;
  float *nu_x = nullptr, *nu_z = nullptr;
  const float *mu_x_in = nullptr, *mu_z_in = nullptr;
  float *mu_x = nullptr, *mu_z = nullptr;
  // the source: wavelet[step] added at source_at (forward), taken out of d2P/dt2 there (gradient)
  long long source_at = -1;
  const float* wavelet = nullptr;
  int step = 0;  // n (forward) or k (adjoint)
  int nt = 0;
  // the receivers: `receivers` consecutive columns from receiver_i0 on row receiver_row; the
  // adjoint adds W r^{k-1} there (residual = that row of samples, or null)
  int receiver_row = 0, receiver_i0 = 0, receivers = 0;
  const float* residual = nullptr;
  // the gradient: on the fly (P^{k+1}, P^k, P^{k-1}) or over the films (Gradiente)
  const float *film_next = nullptr, *film_now = nullptr, *film_prev = nullptr;
  const float *p_film = nullptr, *q_film = nullptr;
  long long frame = 0;  // floats per frame (nx nz)
  float* gradient = nullptr;
};

// The update and reduction kernels (Residual, acumulador, Paral_max, Grad_scal, New_model, scale_grad).
struct VecParams {
  long long n = 0;  // elements
  const float* a = nullptr;
  const float* b = nullptr;
  float* out = nullptr;
  float* out2 = nullptr;
  float scalar = 0;
  // Residual: P^{n+1} at the receivers from the film, minus the observed samples (a)
  const float* film = nullptr;
  long long frame = 0;
  int nx = 0, receiver_row = 0, receiver_i0 = 0, receivers = 0;
  // the update's mask: columns [i0, i1), rows [j0, j1)
  int i0 = 0, i1 = 0, j0 = 0, j1 = 0;
  float v_min = 0, v_max = 0, dt2 = 0;
};

// Threads of the one-block reductions (Paral_max, the second pass of scale_grad) and of the first
// pass's blocks.
inline constexpr int kReductionThreads = 256;
// Blocks of scale_grad's first pass (a grid-stride loop over the data).
inline constexpr int kDotBlocks = 128;

}  // namespace warpmodel::fwi::gpu
