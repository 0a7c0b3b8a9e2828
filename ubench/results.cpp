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

const UnitPoint* UnitSeries::best(int cluster) const {
  const UnitPoint* b = nullptr;
  for (const auto& p : points)
    if ((cluster == 0 || p.cluster == cluster) && (!b || p.value.mean > b->value.mean)) b = &p;
  return b;
}

const UnitSeries* Results::find_unit(const std::string& section, const std::string& result, bool is_latency) const {
  for (const auto& u : units)
    if (u.section == section && u.result == result && u.latency == is_latency) return &u;
  return nullptr;
}

bool Results::ran(const std::string& stage) const {
  for (const auto& s : stages)
    if (s == stage) return true;
  return false;
}

}  // namespace warpmodel::ubench
