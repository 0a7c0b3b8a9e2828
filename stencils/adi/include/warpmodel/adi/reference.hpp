// The CPU reference of the ADI solver (thesis chapter 6, "ShallowWater_gold"): for each line, build
// the mass and momentum rows (coefficients.hpp), remove the penta-diagonal terms (LcElim), solve
// with the Thomas algorithm (tridiagonal.hpp), write zeta and the along flux. Double precision is
// the reference; single precision is instantiated too, to predict what float does on the GPU.
#pragma once

#include "warpmodel/adi/parameters.hpp"
#include "warpmodel/adi/state.hpp"

namespace warpmodel::adi {

// One full step: x-sweep (zeta n -> n+1/2, p n -> n+1, q at n-1/2 and n+1/2 explicit), then
// y-sweep (zeta n+1/2 -> n+1, q n+1/2 -> n+3/2, p at n and n+1 explicit). Afterwards the state holds
// zeta^{n+1}, p^{n+1}, q_old = q^{n+1/2}, q_new = q^{n+3/2}.
template <class T>
void reference_step(State<T>& state, const PhysicalParameters& physics);

template <class T>
void reference_run(State<T>& state, const PhysicalParameters& physics, int steps) {
  for (int s = 0; s < steps; ++s) reference_step(state, physics);
}

// Throws std::invalid_argument when the state's arrays do not match nx * ny or nx, ny < 1.
template <class T>
void check_state(const State<T>& state);

}  // namespace warpmodel::adi
