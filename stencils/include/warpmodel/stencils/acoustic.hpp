// The 3D acoustic wave equation with constant density (thesis eq 1.2), discretised second order in
// time and order 2..16 in space (thesis section 3.4, eq 3.9 generalised). CPU side only: the
// coefficients, the source, the velocity models, the stability limit and a double-precision
// reference propagator that the GPU variants are checked against.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace warpmodel::stencils {

// Centred second-derivative weights on the points -r..r (r = order / 2), by Fornberg's recursion
// ("Generation of finite difference formulas on arbitrarily spaced grids", 1988), not typed in.
// Returns w[0..r]; the stencil is w[0] f(0) + sum_k w[k] (f(k) + f(-k)), divided by h^2.
std::vector<double> second_derivative_weights(int order);
// The same in long double: lets tests see truncation error below double round-off (order 16).
std::vector<long double> second_derivative_weights_long(int order);

// Spatial orders the propagator supports (radius 1..8).
bool is_supported_order(int order);

// Ricker wavelet, thesis eq 1.1: (1 - 2 pi^2 f^2 t^2) exp(-pi^2 f^2 t^2), centred at t = 0.
double ricker(double t, double peak_frequency_hz);

// Largest stable v_max dt / h for the 3D leapfrog scheme of this order (von Neumann):
// v dt sqrt(3 S) / h <= 2, with S = |w0 + 2 sum_k (-1)^k w_k| the operator's largest symbol.
// Order 2 gives 1/sqrt(3) and order 4 gives 1/2, the 3D row of thesis table 3.2.
double courant_limit(int order);

struct Grid {
  std::size_t nx = 0, ny = 0, nz = 0;
  double h = 10.0;  // grid spacing, m (the thesis's dx = dy = dz = 10 m)
  std::size_t size() const { return nx * ny * nz; }
  std::size_t index(std::size_t i, std::size_t j, std::size_t k) const { return (k * ny + j) * nx + i; }
};

// Velocity models (m/s): the two layers of thesis listing 3.1 (1500 m/s above nz/2, 4700 below)
// and a constant one.
std::vector<float> two_layer_velocity(const Grid& g);
std::vector<float> constant_velocity(const Grid& g, float v);

struct PropagationSetup {
  Grid grid;
  int order = 8;
  double dt = 0;                 // 0: choose 0.9 x the stability limit
  double peak_frequency_hz = 20;
  std::size_t source_i = 0, source_j = 0, source_k = 0;
};

// Checks order, source position and stability; fills dt when 0. Throws std::invalid_argument with
// one line naming the problem (an unstable dt names the limit).
PropagationSetup validated(PropagationSetup s, double max_velocity);

// Double-precision reference. Boundary: Dirichlet, p = 0 on the `radius` outermost layers, which are
// never updated. Each step: p_next = 2 p - p_prev + (v dt)^2 L p, then p_next[source] += (v dt)^2 r(t)
// with t = n dt - 1 / f (the delay of thesis listing 3.2).
class ReferencePropagator {
 public:
  ReferencePropagator(const PropagationSetup& setup, std::vector<float> velocity);
  // Replaces p(n-1) and p(n) (logical layout); the Dirichlet layers are set to 0, as the scheme
  // keeps them. The step count (and so the source's time) stays.
  void set_fields(const std::vector<float>& previous, const std::vector<float>& current);
  void step();
  void run(int steps) {
    for (int n = 0; n < steps; ++n) step();
  }
  const std::vector<double>& pressure() const { return cur_; }
  int steps_done() const { return steps_; }
  const PropagationSetup& setup() const { return setup_; }

 private:
  PropagationSetup setup_;
  std::vector<double> weights_;
  std::vector<float> velocity_;
  std::vector<double> prev_, cur_, next_;
  int steps_ = 0;
};

// A field of uniform random values in [-1, 1] with the Dirichlet layers of `order` at 0
// (deterministic for a seed): test and benchmark input that is neither zeros nor smooth.
std::vector<float> random_field(const Grid& g, int order, unsigned seed);

// The discrete Laplacian of `field` at one interior point (spacing h): the operator the propagator
// applies, exposed for the convergence test.
template <typename Real, typename Weight>
Real laplacian_at(const std::vector<Real>& field, const Grid& g, const std::vector<Weight>& w, std::size_t i,
                  std::size_t j, std::size_t k) {
  const std::size_t sx = 1, sy = g.nx, sz = g.nx * g.ny;
  const std::size_t c = g.index(i, j, k);
  Real sum = Real(3 * w[0]) * field[c];
  for (std::size_t r = 1; r < w.size(); ++r)
    sum += Real(w[r]) * (field[c + r * sx] + field[c - r * sx] + field[c + r * sy] + field[c - r * sy] +
                         field[c + r * sz] + field[c - r * sz]);
  return sum / (Real(g.h) * Real(g.h));
}

}  // namespace warpmodel::stencils
