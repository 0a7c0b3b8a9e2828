#include "warpmodel/stencils/acoustic.hpp"

#include <algorithm>
#include <cstdint>
#include <cmath>
#include <numbers>
#include <stdexcept>

namespace warpmodel::stencils {

bool is_supported_order(int order) { return order >= 2 && order <= 16 && order % 2 == 0; }

std::vector<double> second_derivative_weights(int order) {
  const std::vector<long double> w = second_derivative_weights_long(order);
  return {w.begin(), w.end()};
}

std::vector<long double> second_derivative_weights_long(int order) {
  if (!is_supported_order(order))
    throw std::invalid_argument("order " + std::to_string(order) + " is not supported (use an even order 2..16)");
  const int r = order / 2;
  const int n = 2 * r + 1;  // points x_0..x_{n-1} = -r..r, evaluated at 0
  std::vector<long double> x(n);
  for (int i = 0; i < n; ++i) x[i] = i - r;
  // Fornberg: delta[m][nu] for derivative order m <= 2, using points 0..nn.
  const int max_m = 2;
  using Table = std::vector<std::vector<long double>>;
  std::vector<Table> d(max_m + 1, Table(n, std::vector<long double>(n, 0.0L)));
  d[0][0][0] = 1.0L;
  long double c1 = 1.0L;
  for (int nn = 1; nn < n; ++nn) {
    long double c2 = 1.0L;
    for (int nu = 0; nu < nn; ++nu) {
      const long double c3 = x[nn] - x[nu];
      c2 *= c3;
      for (int m = 0; m <= std::min(nn, max_m); ++m)
        d[m][nn][nu] = (x[nn] * d[m][nn - 1][nu] - (m > 0 ? m * d[m - 1][nn - 1][nu] : 0.0)) / c3;
    }
    for (int m = 0; m <= std::min(nn, max_m); ++m)
      d[m][nn][nn] = c1 / c2 * ((m > 0 ? m * d[m - 1][nn - 1][nn - 1] : 0.0) - x[nn - 1] * d[m][nn - 1][nn - 1]);
    c1 = c2;
  }
  std::vector<long double> w(r + 1);
  for (int k = 0; k <= r; ++k) w[k] = d[2][n - 1][r + k];  // symmetric: weight of offset +k
  return w;
}

double ricker(double t, double f) {
  const double a = std::numbers::pi * std::numbers::pi * f * f * t * t;
  return (1.0 - 2.0 * a) * std::exp(-a);
}

double courant_limit(int order) {
  const std::vector<double> w = second_derivative_weights(order);
  double symbol = w[0];
  for (std::size_t k = 1; k < w.size(); ++k) symbol += 2.0 * w[k] * ((k % 2) ? -1.0 : 1.0);
  return 2.0 / std::sqrt(3.0 * std::fabs(symbol));
}

std::vector<float> two_layer_velocity(const Grid& g) {
  std::vector<float> v(g.size());
  for (std::size_t k = 0; k < g.nz; ++k)
    for (std::size_t j = 0; j < g.ny; ++j)
      for (std::size_t i = 0; i < g.nx; ++i)
        v[g.index(i, j, k)] = (k + 1 > g.nz / 2) ? 4700.0f : 1500.0f;  // listing 3.1: iz > Nz/2 - 1
  return v;
}

std::vector<float> constant_velocity(const Grid& g, float v) { return std::vector<float>(g.size(), v); }

PropagationSetup validated(PropagationSetup s, double max_velocity) {
  if (!is_supported_order(s.order))
    throw std::invalid_argument("--order " + std::to_string(s.order) + ": use an even order 2..16");
  const std::size_t r = s.order / 2;
  const Grid& g = s.grid;
  if (g.nx < 2 * r + 1 || g.ny < 2 * r + 1 || g.nz < 2 * r + 1)
    throw std::invalid_argument("grid " + std::to_string(g.nx) + "x" + std::to_string(g.ny) + "x" +
                                std::to_string(g.nz) + " is too small for order " + std::to_string(s.order));
  if (s.source_i < r || s.source_i >= g.nx - r || s.source_j < r || s.source_j >= g.ny - r || s.source_k < r ||
      s.source_k >= g.nz - r)
    throw std::invalid_argument("source position is on the Dirichlet boundary or outside the grid");
  const double dt_max = courant_limit(s.order) * g.h / max_velocity;
  if (s.dt == 0) s.dt = 0.9 * dt_max;
  if (!(s.dt > 0) || s.dt > dt_max)
    throw std::invalid_argument("dt = " + std::to_string(s.dt) + " s is unstable for order " + std::to_string(s.order) +
                                " at " + std::to_string(max_velocity) + " m/s and h = " + std::to_string(g.h) +
                                " m: the limit is " + std::to_string(dt_max) + " s");
  return s;
}

ReferencePropagator::ReferencePropagator(const PropagationSetup& setup, std::vector<float> velocity)
    : setup_(setup),
      weights_(second_derivative_weights(setup.order)),
      velocity_(std::move(velocity)),
      prev_(setup.grid.size(), 0.0),
      cur_(setup.grid.size(), 0.0),
      next_(setup.grid.size(), 0.0) {
  if (velocity_.size() != setup.grid.size()) throw std::invalid_argument("velocity model size does not match the grid");
}

namespace {
bool in_dirichlet_layer(const Grid& g, std::size_t r, std::size_t i, std::size_t j, std::size_t k) {
  return i < r || j < r || k < r || i >= g.nx - r || j >= g.ny - r || k >= g.nz - r;
}
}  // namespace

void ReferencePropagator::set_fields(const std::vector<float>& previous, const std::vector<float>& current) {
  const Grid& g = setup_.grid;
  if (previous.size() != g.size() || current.size() != g.size())
    throw std::invalid_argument("set_fields: field size does not match the grid");
  const std::size_t r = setup_.order / 2;
  for (std::size_t k = 0; k < g.nz; ++k)
    for (std::size_t j = 0; j < g.ny; ++j)
      for (std::size_t i = 0; i < g.nx; ++i) {
        const std::size_t c = g.index(i, j, k);
        const bool edge = in_dirichlet_layer(g, r, i, j, k);
        prev_[c] = edge ? 0.0 : previous[c];
        cur_[c] = edge ? 0.0 : current[c];
        next_[c] = 0.0;
      }
}

std::vector<float> random_field(const Grid& g, int order, unsigned seed) {
  std::vector<float> f(g.size(), 0.0f);
  std::uint64_t state = 0x9e3779b97f4a7c15ull * (seed + 1);
  const std::size_t r = order / 2;
  for (std::size_t k = 0; k < g.nz; ++k)
    for (std::size_t j = 0; j < g.ny; ++j)
      for (std::size_t i = 0; i < g.nx; ++i) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;  // LCG: cheap at 512^3
        const float u = float(state >> 40) * (2.0f / float(1ull << 24)) - 1.0f;
        if (!in_dirichlet_layer(g, r, i, j, k)) f[g.index(i, j, k)] = u;
      }
  return f;
}

void ReferencePropagator::step() {
  const Grid& g = setup_.grid;
  const std::size_t r = setup_.order / 2;
  const double dt = setup_.dt;
  for (std::size_t k = r; k < g.nz - r; ++k)
    for (std::size_t j = r; j < g.ny - r; ++j)
      for (std::size_t i = r; i < g.nx - r; ++i) {
        const std::size_t c = g.index(i, j, k);
        const double vdt = double(velocity_[c]) * dt;
        next_[c] = 2.0 * cur_[c] - prev_[c] + vdt * vdt * laplacian_at(cur_, g, weights_, i, j, k);
      }
  const std::size_t s = g.index(setup_.source_i, setup_.source_j, setup_.source_k);
  const double vdt = double(velocity_[s]) * dt;
  const double t = steps_ * dt - 1.0 / setup_.peak_frequency_hz;
  next_[s] += vdt * vdt * ricker(t, setup_.peak_frequency_hz);
  std::swap(prev_, cur_);
  std::swap(cur_, next_);
  ++steps_;
}

}  // namespace warpmodel::stencils
