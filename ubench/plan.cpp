#include "plan.hpp"

#include <algorithm>
#include <stdexcept>

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

const std::vector<std::string>& known_stages() {
  static const std::vector<std::string> stages = {kStageCore, kStageTensor, kStageEnergy};
  return stages;
}

Plan make_plan(int reps, const std::vector<std::string>& stages) {
  Plan p;
  p.reps = reps;
  for (const auto& s : stages)
    if (std::find(known_stages().begin(), known_stages().end(), s) == known_stages().end())
      throw std::invalid_argument("unknown stage '" + s + "' (known: core, tensor, energy)");
  for (const auto& s : known_stages())
    if (stages.empty() || std::find(stages.begin(), stages.end(), s) != stages.end()) p.stages.push_back(s);
  for (const auto& d : declarations())
    if (d.stage.empty() || std::find(p.stages.begin(), p.stages.end(), d.stage) != p.stages.end())
      p.benchmarks.push_back(&d);
  return p;
}

}  // namespace warpmodel::ubench
