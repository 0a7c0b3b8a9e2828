#include "energy_rows.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace warpmodel::ubench {

EnergyCoefficients energy_coefficients(const std::vector<EnergyRowResult>& rows) {
  EnergyCoefficients c;
  if (rows.empty()) return c;
  // The settled board: a row's idle reading comes seconds after the previous row's load, and the board
  // cools down for longer than that (an H100's L2 row read 222 W idle after the shared row, above its own
  // 180 W load, where the first row read 129 W and the stencil runs 128-141 W), so the lowest reading,
  // not the mean, is the power with no kernel running.
  c.static_w = rows.front().idle_w;
  for (const auto& r : rows) c.static_w = std::min(c.static_w, r.idle_w);
  c.measured = true;
  std::map<std::string, double> joules_per_unit, half_width_per_unit;
  for (const auto& r : rows)
    if (r.count_per_region > 0) {
      joules_per_unit[r.counts] = (r.joules - c.static_w * r.seconds) / r.count_per_region;
      half_width_per_unit[r.counts] = r.joules_half_width / r.count_per_region;
    }
  if (joules_per_unit.count("dram_byte") && joules_per_unit.count("l2_byte")) {
    joules_per_unit["dram_byte"] -= joules_per_unit["l2_byte"];
    half_width_per_unit["dram_byte"] = std::hypot(half_width_per_unit["dram_byte"], half_width_per_unit["l2_byte"]);
  }
  for (const auto& [unit, joules] : joules_per_unit) {
    if (joules > 0) {
      c.pj_per[unit] = joules * 1e12;
      c.pj_half_width[unit] = half_width_per_unit[unit] * 1e12;
    } else {
      char text[160];
      std::snprintf(text, sizeof text, "%s left out: %.3g pJ (the row drew no more than the static power)", unit.c_str(),
                    joules * 1e12);
      c.notes.emplace_back(text);
    }
  }
  return c;
}

}  // namespace warpmodel::ubench
