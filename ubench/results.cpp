#include "results.hpp"

namespace warpmodel::ubench {

std::optional<Estimate> LatencySeries::at(int w) const {
  for (std::size_t i = 0; i < warps.size() && i < by_warps.size(); ++i)
    if (warps[i] == w) return by_warps[i];
  return std::nullopt;
}

const LatencySeries* Results::find_latency(const std::string& name) const {
  for (const auto& s : latency)
    if (s.name == name) return &s;
  return nullptr;
}

const RateSeries* Results::find_rate(const std::string& name) const {
  for (const auto& s : rates)
    if (s.name == name) return &s;
  return nullptr;
}

}  // namespace warpmodel::ubench
