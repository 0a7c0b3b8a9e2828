// hong-kim-2009: Hong & Kim, "An Analytical Model for a GPU Architecture with Memory-level and
// Thread-level Parallelism Awareness", ISCA 2009. Equation names as in the paper; the numbers in
// brackets are the paper's, as public reimplementations cite them (not checked against the print).
// No caches: every memory instruction pays Mem_L.
#include <algorithm>
#include <string>

#include "mwp_cwp_core.hpp"
#include "warpmodel/equations.hpp"
#include "warpmodel/model.hpp"

namespace warpmodel {

Prediction predict_hong_kim_2009(const DeviceProfile& device, const KernelProfile& kernel) {
  Prediction p;
  p.variant = ModelVariant::HongKim2009;
  p.occupancy = detail::checked_occupancy(device, kernel);
  const Occupancy& occ = p.occupancy;
  const double n = occ.n;

  const double mem_insts = kernel.mem_inst_per_warp;
  const double uncoal_insts = kernel.uncoalesced_mem_inst_per_warp;
  const double coal_insts = kernel.coalesced_mem_inst_per_warp();
  const double mem_ld = device.dram_latency_cycles;
  const double del_coal = device.departure_delay_coalesced_cycles;
  double del_uncoal = del_coal;
  if (uncoal_insts > 0) {
    if (!device.departure_delay_uncoalesced_cycles)
      throw ModelError("device '" + device.name + "': latency_cycles.departure_delay_uncoalesced is needed by "
                       "hong-kim-2009 for a kernel with uncoalesced memory instructions");
    del_uncoal = *device.departure_delay_uncoalesced_cycles;
  }

  // [10]-[14] memory latency of one warp, weighted over coalesced and uncoalesced instructions.
  const double mem_l_uncoal = mem_ld + (kernel.transactions_per_uncoalesced_request - 1.0) * del_uncoal;
  const double mem_l_coal = mem_ld;
  const double weight_uncoal = mem_insts > 0 ? uncoal_insts / mem_insts : 0.0;
  const double weight_coal = 1.0 - weight_uncoal;
  p.mem_l = mem_l_uncoal * weight_uncoal + mem_l_coal * weight_coal;

  // [15]-[17], [6], [7] MWP.
  p.departure_delay = del_uncoal * kernel.transactions_per_uncoalesced_request * weight_uncoal + del_coal * weight_coal;
  p.mwp_without_bw = p.mem_l / p.departure_delay;
  const double load_bytes_per_warp = eq::transaction_size(kernel.data_size_bytes, device.warp_size());
  p.bw_per_warp_gbs = eq::bw_per_warp_gbs(device.sm_clock_mhz / 1000.0, load_bytes_per_warp, p.mem_l);
  p.mwp_peak_bw = eq::mwp_peak_bw(device.mem_peak_bandwidth_gbs, p.bw_per_warp_gbs, occ.active_sms);
  p.mwp = eq::mwp(p.mwp_without_bw, p.mwp_peak_bw, n);

  // [18], [19] one warp's periods. #Issue_cycles is 4 in the paper: a 32-thread warp on 8 SPs.
  // Generalised as warp_size / SIMD_width, the SM-wide issue cost of one warp instruction.
  const double issue_cycles = double(device.warp_size()) / device.simd_width;
  p.comp_cycles = issue_cycles * kernel.inst_per_warp;
  p.mem_cycles = mem_l_uncoal * uncoal_insts + mem_l_coal * coal_insts;
  p.cwp_full = eq::cwp_full(p.mem_cycles, p.comp_cycles);  // [8]
  p.cwp = eq::cwp(p.cwp_full, n);                          // [9]

  // [22]-[24] the three cases, tested in the paper's order. Comp_cycles/#Mem_insts is the
  // computation between two memory periods; a kernel without memory instructions has one period.
  const double comp_per_mem_period = p.comp_cycles / std::max(mem_insts, 1.0);
  const double rep = occ.rep;
  double exec_per_rep;
  if (p.mwp == n && p.cwp == n) {
    p.model_case = ModelCase::NotEnoughWarps;
    exec_per_rep = p.mem_cycles + p.comp_cycles + comp_per_mem_period * (p.mwp - 1.0);
  } else if (p.cwp >= p.mwp || p.comp_cycles > p.mem_cycles) {
    p.model_case = ModelCase::MemoryBound;
    exec_per_rep = p.mem_cycles * n / p.mwp + comp_per_mem_period * (p.mwp - 1.0);
  } else {
    p.model_case = ModelCase::ComputeBound;
    exec_per_rep = p.mem_l + p.comp_cycles * n;
  }
  // The paper's second condition sends a compute-heavy kernel (Comp_cycles > Mem_cycles) down the
  // memory formula too; the case label then says "memory-bound" although computation dominates.
  if (p.model_case == ModelCase::MemoryBound && p.cwp < p.mwp)
    p.notes.push_back("case [23] taken through Comp_cycles > Mem_cycles with CWP < MWP");

  // [26], [27] barriers: each costs the departure of MWP-1 warps, per resident block and repetition.
  p.o_sync = p.departure_delay * (p.mwp - 1.0) * kernel.sync_inst_per_warp * occ.resident_blocks_per_sm * rep;
  p.cycles = exec_per_rep * rep + p.o_sync;
  p.seconds = p.cycles / (device.sm_clock_mhz * 1e6);
  return p;
}

}  // namespace warpmodel
