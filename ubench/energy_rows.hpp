// The energy rows of `characterize` (registry.hpp, Method::energy) reduced to energy per operation:
// for each row, e = (E - P_static t) / count, the energy a region drew above the static power over
// the units of work it did (docs/energy.md). Plain C++ (the harness measures, this divides), tested
// without a GPU.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace warpmodel::ubench {

struct EnergyRowResult {
  std::string name;    // energy_fp32, ...
  std::string of;      // the row whose kernel ran
  std::string counts;  // fp32_op, fp64_op, shared_byte, l2_byte, dram_byte
  std::string sass;    // the SASS check's status of that kernel
  double count_per_region = 0;  // units of work in one region
  double joules = 0, joules_half_width = 0;    // per region (95 % Student t over the readings)
  double seconds = 0, seconds_half_width = 0;  // per region
  double watts = 0;    // mean of the readings' joules / seconds
  double idle_w = 0;   // the board's power with no kernel running, just before this row (settled)
  double idle_settle_seconds = 0;  // how long the board was left to settle before it
  long long repetitions = 0;  // regions per reading
  int readings = 0;
};

struct EnergyCoefficients {
  bool measured = false;
  // The board's power with no kernel of ours running, the lowest of the rows' idle readings (the others
  // were read before the board settled after the previous row): the static (leakage) and constant
  // (fans, memory refresh, idle clocks) power together.
  double static_w = 0;
  std::map<std::string, double> pj_per;  // "fp32_op" -> pJ per thread operation, "dram_byte" -> pJ per byte, ...
  // Each coefficient's 95 % half-width from its row's energy interval alone (the static power's own
  // spread is not in it); the DRAM byte's adds the L2 row's in quadrature, as its coefficient subtracts it.
  std::map<std::string, double> pj_half_width;
  std::vector<std::string> notes;        // a coefficient left out, and why
};

// e_i = (E_i - static_w t_i) / count_i for every row; a DRAM byte also crosses L2, so the DRAM
// coefficient is what a DRAM byte costs beyond an L2 byte (the L2 row's coefficient taken out). A
// coefficient that comes out at or below zero (the row drew no more than the static power) is left
// out with a note, never reported.
EnergyCoefficients energy_coefficients(const std::vector<EnergyRowResult>& rows);

}  // namespace warpmodel::ubench
