#include "mwp_cwp_core.hpp"

#include <string>

#include "warpmodel/equations.hpp"
#include "warpmodel/model.hpp"
#include "warpmodel/occupancy.hpp"

namespace warpmodel::detail {

Occupancy checked_occupancy(const DeviceProfile& device, const KernelProfile& kernel) {
  Occupancy occ = compute_occupancy(device, kernel.launch);
  if (occ.blocks_per_sm == 0) {
    const auto& b = kernel.launch.block;
    throw ModelError("kernel '" + kernel.name + "': a block of " + std::to_string(b.count()) + " threads with " +
                     std::to_string(kernel.launch.registers_per_thread) + " registers/thread and " +
                     std::to_string(kernel.launch.shared_memory_per_block_bytes) +
                     " B shared memory cannot run on " + device.name + " (sm_" + std::to_string(device.cc_major) +
                     std::to_string(device.cc_minor) + "); use a smaller block or fewer resources");
  }
  if (kernel.launch.active_warps_per_sm && *kernel.launch.active_warps_per_sm > device.limits.max_warps_per_sm())
    throw ModelError("kernel '" + kernel.name + "': launch.active_warps_per_sm = " +
                     std::to_string(*kernel.launch.active_warps_per_sm) + " exceeds the " +
                     std::to_string(device.limits.max_warps_per_sm()) + " warps an SM of " + device.name + " holds");
  return occ;
}

std::optional<double> stated_or_eq_4_26_ilp(const KernelProfile& k) {
  if (k.ilp) return *k.ilp;
  if (k.static_instructions && k.basic_blocks && *k.basic_blocks > 0)
    return eq::ilp_eq_4_26(*k.static_instructions, *k.basic_blocks);
  return std::nullopt;
}

ModelCase classify(double mwp, double cwp, double n) {
  if (mwp == n && cwp == n) return ModelCase::NotEnoughWarps;
  return mwp < cwp ? ModelCase::MemoryBound : ModelCase::ComputeBound;
}

void evaluate_mwp_cwp(const DeviceProfile& device, const KernelProfile& kernel, const VariantInputs& in,
                      Prediction& p) {
  const Occupancy& occ = p.occupancy;
  const double n = occ.n;
  const double total_warps = occ.total_warps;
  const double active_sms = occ.active_sms;
  const double warp_size = device.warp_size();

  // Computation: eqs 4.2-4.7.
  p.avg_inst_lat = device.fp_latency_cycles;
  p.ilp = in.ilp;
  p.itilp_max = eq::itilp_max(p.avg_inst_lat, warp_size, device.simd_width);
  p.itilp = eq::itilp(p.ilp, n, p.itilp_max);
  p.w_parallel = eq::w_parallel(kernel.inst_per_warp, total_warps, active_sms, p.avg_inst_lat, p.itilp);
  p.o_sync = in.serial.o_sync;
  p.o_sfu = in.serial.o_sfu;
  p.o_cfdiv = in.serial.o_cfdiv;
  p.o_bank = in.serial.o_bank;
  p.w_serial = eq::w_serial(p.o_sync, p.o_sfu, p.o_cfdiv, p.o_bank);
  p.t_comp = eq::t_comp(p.w_parallel, p.w_serial);

  // Memory latency and warp parallelism: eqs 4.9-4.20 (AMAT and avg_DRAM_lat come from the variant).
  p.departure_delay = in.delta;
  p.avg_dram_lat = in.avg_dram_lat;
  p.amat = in.amat;
  p.mlp = kernel.mlp;
  const double freq_ghz = device.sm_clock_mhz / 1000.0;
  p.bw_per_warp_gbs = eq::bw_per_warp_gbs(freq_ghz, eq::transaction_size(kernel.data_size_bytes, warp_size),
                                          p.avg_dram_lat);
  p.mwp_peak_bw = eq::mwp_peak_bw(device.mem_peak_bandwidth_gbs, p.bw_per_warp_gbs, active_sms);
  p.mwp_without_bw = eq::mwp_without_bw(p.avg_dram_lat, p.departure_delay);
  p.mwp = eq::mwp(p.mwp_without_bw, p.mwp_peak_bw, n);

  // One warp's computation and memory periods, CWP: eqs 4.13-4.16.
  p.comp_cycles = eq::comp_cycles(kernel.inst_per_warp, p.avg_inst_lat, p.itilp);
  p.mem_cycles = eq::mem_cycles(kernel.mem_inst_per_warp, p.amat, p.mlp);
  p.cwp_full = eq::cwp_full(p.mem_cycles, p.comp_cycles);
  p.cwp = eq::cwp(p.cwp_full, n);
  p.mwp_cp = eq::mwp_cp(p.cwp, p.mwp);
  p.itmlp = eq::itmlp(p.mlp, p.mwp_cp, p.mwp_peak_bw);
  p.t_mem = eq::t_mem(kernel.mem_inst_per_warp, total_warps, active_sms, p.itmlp, p.amat);

  // Overlap and total: eqs 4.21, 4.22, 4.1.
  p.zeta = eq::zeta(p.cwp, p.mwp);
  p.f_overlap = eq::f_overlap(n, p.zeta);
  p.t_overlap = eq::t_overlap(p.t_comp, p.f_overlap, p.t_mem);
  p.cycles = eq::t_exec(p.t_comp, p.t_mem, p.t_overlap);
  p.seconds = p.cycles / (device.sm_clock_mhz * 1e6);
  p.model_case = classify(p.mwp, p.cwp, n);
}

}  // namespace warpmodel::detail
