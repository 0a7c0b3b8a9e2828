#include <cmath>
#include <stdexcept>

#include "warpmodel/adi/state.hpp"

namespace warpmodel::adi {

State<double> make_hump_state(int nx, int ny, const HumpProblem& problem) {
  if (nx < 1 || ny < 1) throw std::invalid_argument("ADI hump problem: nx and ny must be >= 1");
  State<double> s;
  s.nx = nx;
  s.ny = ny;
  const std::size_t cells = s.cells();
  s.zeta.assign(cells, 0.0);
  s.bed.assign(cells, -problem.depth);
  s.p.assign(cells, 0.0);
  s.q_old.assign(cells, 0.0);
  s.q_new.assign(cells, 0.0);
  const double cx = problem.centre_x * nx, cy = problem.centre_y * ny;
  const double sigma = problem.sigma_fraction * nx;
  for (int k = 0; k < ny; ++k)
    for (int j = 0; j < nx; ++j) {
      const double rx = (j + 0.5 - cx) / sigma, ry = (k + 0.5 - cy) / sigma;
      s.zeta[static_cast<std::size_t>(j) + static_cast<std::size_t>(k) * static_cast<std::size_t>(nx)] =
          problem.amplitude * std::exp(-0.5 * (rx * rx + ry * ry));
    }
  return s;
}

}  // namespace warpmodel::adi
