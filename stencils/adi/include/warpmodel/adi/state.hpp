// The state of the staggered grid between two ADI steps, and the fixed test problem.
//
// Closed basin of nx x ny water cells (land all round). Cell (j, k) has index j + k * nx (x fastest).
//   zeta[j, k]  surface elevation at the cell centre, level n
//   bed[j, k]   bed level d (negative below the datum); the water depth is h = zeta - bed
//   p[j, k]     x-flux density on the face (j+1/2, k), level n; p[nx-1, k] is the east wall: always 0
//   q_old[j, k] y-flux density on the face (j, k+1/2), level n-1/2; q[j, ny-1] is the north wall: 0
//   q_new[j, k] the same at level n+1/2
// The west and south walls (faces j = -1/2, k = -1/2) are not stored: their flux is 0.
// Every array has nx * ny entries, so all of them transpose alike.
#pragma once

#include <cstddef>
#include <vector>

namespace warpmodel::adi {

template <class T>
struct State {
  int nx = 0;
  int ny = 0;
  std::vector<T> zeta, bed, p, q_old, q_new;

  std::size_t cells() const { return static_cast<std::size_t>(nx) * static_cast<std::size_t>(ny); }
};

// The fixed initial state used for the GPU tests and the benchmarks (the thesis gives none):
// constant depth, fluid at rest, a Gaussian hump of the surface centred off the middle so that the
// x- and y-fluxes differ. All lengths in cells scale with the grid, so every size sees the same
// shape: centre (0.4 nx, 0.55 ny), standard deviation nx / 16 cells.
struct HumpProblem {
  double depth = 10.0;       // m, still-water depth (bed = -depth)
  double amplitude = 0.1;    // m, height of the hump
  double centre_x = 0.4;     // fraction of the basin
  double centre_y = 0.55;
  double sigma_fraction = 1.0 / 16.0;  // standard deviation as a fraction of nx (in cells)
};

State<double> make_hump_state(int nx, int ny, const HumpProblem& problem = {});

// Converts between precisions (the GPU single-precision path starts from the same state).
template <class To, class From>
State<To> convert_state(const State<From>& s) {
  State<To> r;
  r.nx = s.nx;
  r.ny = s.ny;
  auto conv = [](const std::vector<From>& v) { return std::vector<To>(v.begin(), v.end()); };
  r.zeta = conv(s.zeta);
  r.bed = conv(s.bed);
  r.p = conv(s.p);
  r.q_old = conv(s.q_old);
  r.q_new = conv(s.q_new);
  return r;
}

// Total water volume above the datum divided by the cell area: sum of zeta. The closed basin
// conserves it exactly up to rounding (the mass rows telescope).
template <class T>
double total_elevation(const State<T>& s) {
  double sum = 0;
  for (T z : s.zeta) sum += static_cast<double>(z);
  return sum;
}

}  // namespace warpmodel::adi
