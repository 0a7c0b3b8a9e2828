// Small experiments shared by the FWI tests: the study's spacing, time step and source (table 4)
// on grids small enough that each test takes well under a few seconds.
#pragma once

#include <vector>

#include "warpmodel/fwi/inversion.hpp"

namespace warpmodel::fwi::test {

// nx x nz with the study's h = 25 m, dt = 4 ms, f = 3 Hz; a `width`-point CPML; shots and
// receivers on row `depth_row` (receivers on every interior column).
inline Experiment small_experiment(int nx, int nz, int width, int nt, int shots, int depth_row = 2) {
  Experiment s;
  s.grid = {nx, nz, 25.0};
  s.time = {nt, 0.004};
  s.cpml.width = width;
  s.acquisition = surface_acquisition(s.grid, width, shots, depth_row);
  return s;
}

inline std::vector<double> constant_model(const Grid& g, double v) { return std::vector<double>(g.size(), v); }

}  // namespace warpmodel::fwi::test
