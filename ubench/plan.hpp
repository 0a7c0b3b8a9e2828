// The plan of a `characterize` run: the declared benchmarks (registry.hpp) with their axes, in
// registry order, and the repetitions. What runs is decided here; how it runs and is reduced is the
// harness's (harness.hpp); what is printed is the writers' (writers.hpp).
#pragma once

#include <string>
#include <vector>

#include "registry.hpp"

namespace warpmodel::ubench {

struct Plan {
  int reps = 50;                                // repetitions kept per point (after the warm-up)
  std::vector<std::string> stages;             // the stages planned ("core", "tensor")
  std::vector<const Declaration*> benchmarks;  // registry order

  // The planned benchmarks of one method, in registry order.
  std::vector<const Declaration*> of(Method method) const;
  const Declaration* find(const std::string& name) const;
};

// The stages `characterize --only` knows, in order.
const std::vector<std::string>& known_stages();

// The declared benchmarks of these stages (empty: every stage), and the clock-read cost every stage
// subtracts. Throws std::invalid_argument naming an unknown stage.
Plan make_plan(int reps, const std::vector<std::string>& stages = {});

}  // namespace warpmodel::ubench
