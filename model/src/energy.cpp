#include "warpmodel/energy.hpp"

#include <algorithm>

namespace warpmodel {

EnergyPrediction launch_energy(const DeviceProfile::EnergyCoefficients& e, const LaunchCounts& c) {
  EnergyPrediction p;
  p.static_joules = e.static_w * c.seconds;  // E.1, first term
  p.terms.push_back({"static", p.static_joules});
  const struct {
    const char* name;
    double count;
    const std::optional<double>& pj;
  } units[] = {{"fp32", c.fp32_ops, e.pj_per_fp32_op},       {"fp64", c.fp64_ops, e.pj_per_fp64_op},
               {"int32", c.int32_ops, e.pj_per_int32_op},
               {"shared", c.shared_bytes, e.pj_per_shared_byte}, {"l2", c.l2_bytes, e.pj_per_l2_byte},
               {"dram", c.dram_bytes, e.pj_per_dram_byte}};
  for (const auto& u : units) {
    if (u.count <= 0) continue;
    if (!u.pj) {
      p.left_out.emplace_back(u.name);
      continue;
    }
    const double joules = u.count * *u.pj * 1e-12;  // E.1, sum_i count_i e_i
    p.terms.push_back({u.name, joules});
    p.dynamic_joules += joules;
  }
  p.counted_dynamic_joules = p.dynamic_joules;
  p.joules = p.static_joules + p.dynamic_joules;
  // E.3: at the limit the board lowers its clocks (and voltage) until it draws P_limit; the dynamic
  // energy is what the limit leaves above the static power.
  if (e.power_limit_w && c.seconds > 0 && p.joules > *e.power_limit_w * c.seconds) {
    p.joules = *e.power_limit_w * c.seconds;
    p.dynamic_joules = std::max(0.0, p.joules - p.static_joules);
    p.at_power_limit = true;
  }
  return p;
}

LaunchCounts launch_counts(const KernelProfile& k, double warps, double seconds) {
  constexpr double kLanes = 32, kWordBytes = 4, kSectorBytes = 32;
  LaunchCounts c;
  c.seconds = seconds;
  c.fp32_ops = k.fp_inst_per_warp * kLanes * warps;
  // E.2b: the L1/shared data pipe's bytes, 128 a wavefront, where the profile counts its wavefronts:
  // shared memory and the L1 of global and local accesses are one SRAM behind one data pipe, so every
  // wavefront is priced at the shared row's energy per byte (a stencil's neighbour loads hit L1 and
  // move 19 wavefronts a warp where its shared instructions are none). Else the shared instructions.
  constexpr double kWavefrontBytes = 128;
  c.shared_bytes = k.l1_wavefronts_per_warp ? *k.l1_wavefronts_per_warp * kWavefrontBytes * warps
                                            : k.shared_inst_per_warp * kLanes * kWordBytes * warps;
  const double l2_per_warp =
      k.l2_bytes_per_warp ? *k.l2_bytes_per_warp : k.mem_inst_per_warp * k.transactions_per_request * kSectorBytes;
  c.l2_bytes = l2_per_warp * warps;
  c.dram_bytes = (k.dram_bytes_per_warp ? *k.dram_bytes_per_warp : l2_per_warp * k.l2_miss_ratio) * warps;
  // E.2c: every executed instruction that is none of the priced kinds (nor a barrier or an MMA) is an
  // integer ALU operation: address arithmetic, moves, compares, branches. Executed counts only: a profile
  // without the executed-instruction counter (the FWI study's metric set) carries the SASS's static
  // count (each instruction once, loops unweighted), which says little of what ran (docs/energy.md).
  if (k.counted("instructions_per_warp.total")) {
    const double other = k.inst_per_warp - k.fp_inst_per_warp - k.sfu_inst_per_warp - k.mem_inst_per_warp -
                         k.shared_inst_per_warp - k.local_load_inst_per_warp - k.sync_inst_per_warp -
                         k.tensor_inst_per_warp;
    c.int32_ops = std::max(0.0, other) * kLanes * warps;
  }
  return c;
}

}  // namespace warpmodel
