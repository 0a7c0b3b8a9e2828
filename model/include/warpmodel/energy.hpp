// The energy of one launch from its counts (docs/energy.md): AccelWattch's decomposition (Kandiah et
// al., MICRO 2021) in its simplest form, a static power over the launch's time plus a dynamic energy
// per unit of work:
//   E = P_static t + sum_i count_i e_i                                                  (E.1)
// with the counts (FP32 and FP64 thread operations, shared-memory, L2 and DRAM bytes) taken from the
// kernel profile (E.2) and the coefficients P_static and e_i measured by `characterize`'s energy rows
// (device.json "energy"). A board cannot draw more than its power limit for long: past it the GPU
// lowers its clocks and voltage until it draws the limit, so
//   E = min(E.1, P_limit t)                                                             (E.3)
// where the profile has the limit (NVML's enforced limit, read with the energy rows, never changed).
// Plain C++, value types in and out.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "warpmodel/device_profile.hpp"
#include "warpmodel/kernel_profile.hpp"

namespace warpmodel {

// One launch's work.
struct LaunchCounts {
  double seconds = 0;       // the launch's time (predicted or measured)
  double fp32_ops = 0;      // thread operations
  double fp64_ops = 0;
  double int32_ops = 0;     // thread operations of every other ALU instruction (E.2c)
  double shared_bytes = 0;  // bytes moved
  double l2_bytes = 0;
  double dram_bytes = 0;
};

struct EnergyTerm {
  std::string name;  // "static", "fp32", "fp64", "int32", "shared", "l2", "dram"
  double joules = 0;
};

struct EnergyPrediction {
  double joules = 0;
  double static_joules = 0;
  double dynamic_joules = 0;          // above the static power: E.1's sum, or what E.3's limit leaves
  double counted_dynamic_joules = 0;  // E.1's sum over the counted units (before E.3)
  std::vector<EnergyTerm> terms;      // static first, then each counted unit with a coefficient
  std::vector<std::string> left_out;  // counted units without a measured coefficient (their term is 0)
  bool at_power_limit = false;        // E.3 capped E.1 at the limit (joules = P_limit t; terms are E.1's)
};

// E.1, then E.3 where the profile has the board's power limit. A count with no coefficient in the
// profile adds nothing and is named in left_out.
EnergyPrediction launch_energy(const DeviceProfile::EnergyCoefficients& e, const LaunchCounts& c);

// E.2: the counts of a launch of `warps` warps that takes `seconds`, from its profile: FP32 operations
// = FP instructions per warp x 32 lanes (the profile does not split FP64 from FP32, so every FP
// instruction is priced as FP32); E.2c integer operations = the executed instructions per warp that are
// not FP, SFU, memory (global, shared, local), barrier or tensor instructions x 32 lanes (address
// arithmetic, moves, compares, branches, at the integer row's pJ), only where the executed count was
// counted; E.2b L1/shared data-pipe bytes = its counted wavefronts x 128 bytes, else shared-memory
// instructions x 32 lanes x 4 bytes;
// L2 and DRAM bytes the measured per-warp traffic where the profile has it, else L2 = global memory
// instructions x sectors per request x 32 bytes and DRAM = that x the L2 miss ratio.
LaunchCounts launch_counts(const KernelProfile& k, double warps, double seconds);

}  // namespace warpmodel
