#include "warpmodel/stencils/device_layout.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace warpmodel::stencils {

std::array<float, kMaxStencilRadius + 1> stencil_weights_float(int order) {
  const std::vector<double> w = second_derivative_weights(order);
  std::array<float, kMaxStencilRadius + 1> out{};
  out[0] = static_cast<float>(3.0 * w[0]);
  for (std::size_t d = 1; d < w.size(); ++d) out[d] = static_cast<float>(w[d]);
  return out;
}

std::vector<float> to_padded(const std::vector<float>& field, const Grid& g, std::size_t pitch) {
  if (field.size() != g.size()) throw std::invalid_argument("field size does not match the grid");
  std::vector<float> out(pitch * g.ny * g.nz, 0.0f);
  for (std::size_t row = 0; row < g.ny * g.nz; ++row)
    for (std::size_t i = 0; i < g.nx; ++i) out[row * pitch + i] = field[row * g.nx + i];
  return out;
}

std::vector<float> from_padded(const std::vector<float>& padded, const Grid& g, std::size_t pitch) {
  if (padded.size() != pitch * g.ny * g.nz) throw std::invalid_argument("padded field size does not match the grid");
  std::vector<float> out(g.size());
  for (std::size_t row = 0; row < g.ny * g.nz; ++row)
    for (std::size_t i = 0; i < g.nx; ++i) out[row * g.nx + i] = padded[row * pitch + i];
  return out;
}

std::vector<float> velocity_term_padded(const std::vector<float>& velocity, const Grid& g, double dt,
                                        std::size_t pitch) {
  if (velocity.size() != g.size()) throw std::invalid_argument("velocity model size does not match the grid");
  std::vector<float> out(pitch * g.ny * g.nz, 0.0f);
  for (std::size_t row = 0; row < g.ny * g.nz; ++row)
    for (std::size_t i = 0; i < g.nx; ++i) {
      const double c = double(velocity[row * g.nx + i]) * dt / g.h;
      out[row * pitch + i] = static_cast<float>(c * c);
    }
  return out;
}

float source_amplitude(const PropagationSetup& s, const std::vector<float>& velocity, int steps_done) {
  const double v = velocity.at(s.grid.index(s.source_i, s.source_j, s.source_k));
  const double vdt = v * s.dt;
  return static_cast<float>(vdt * vdt * ricker(steps_done * s.dt - 1.0 / s.peak_frequency_hz, s.peak_frequency_hz));
}

double relative_l2(const std::vector<float>& a, const std::vector<double>& reference) {
  if (a.size() != reference.size()) throw std::invalid_argument("relative_l2: sizes differ");
  double diff = 0, norm = 0;
  for (std::size_t n = 0; n < a.size(); ++n) {
    if (!std::isfinite(a[n])) return std::numeric_limits<double>::infinity();
    const double d = double(a[n]) - reference[n];
    diff += d * d;
    norm += reference[n] * reference[n];
  }
  return norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
}

}  // namespace warpmodel::stencils
