#include "plan.hpp"

namespace warpmodel::ubench {

std::vector<const Declaration*> Plan::of(Method method) const {
  std::vector<const Declaration*> out;
  for (const auto* d : benchmarks)
    if (d->method == method) out.push_back(d);
  return out;
}

const Declaration* Plan::find(const std::string& name) const {
  for (const auto* d : benchmarks)
    if (d->name == name) return d;
  return nullptr;
}

Plan make_plan(int reps) {
  Plan p;
  p.reps = reps;
  for (const auto& d : declarations()) p.benchmarks.push_back(&d);
  return p;
}

}  // namespace warpmodel::ubench
