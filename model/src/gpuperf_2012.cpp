// gpuperf-2012: Sim, Dasgupta, Kim & Vuduc, "A Performance Analysis Framework for Identifying
// Potential Benefits in GPGPU Applications", PPoPP 2012, as the thesis restates it (eqs 4.1-4.22).
// Equations the thesis does not restate (the W_serial overheads) follow the paper's numbering (6)-(10).
#include <string>

#include "mwp_cwp_core.hpp"
#include "warpmodel/equations.hpp"
#include "warpmodel/model.hpp"

namespace warpmodel {
namespace {

// Gamma of the paper's F_sync: a machine-dependent constant, 64 in the paper's evaluation.
constexpr double kSyncGamma = 64.0;

// Per-SM serial overheads, eq 4.7 / paper eqs (6)-(10). `per_sm` = #total_warps / #active_SMs.
detail::SerialTerms serial_overheads(const DeviceProfile& device, const KernelProfile& k, double per_sm,
                                     double avg_dram_lat, double itilp) {
  detail::SerialTerms s;
  // (7), (8): each barrier costs a fraction of a DRAM latency that grows with the memory share.
  const double f_sync = kSyncGamma * avg_dram_lat * (k.mem_inst_per_warp / k.inst_per_warp);
  s.o_sync = k.sync_inst_per_warp * per_sm * f_sync;
  // (9), (10): SFU instructions beyond what the SFUs absorb alongside the FP pipes.
  if (k.sfu_inst_per_warp > 0) {
    if (device.sfu_width <= 0)
      throw ModelError("device '" + device.name + "': hardware.sfu_width is needed for a kernel with SFU "
                       "instructions (gpuperf-2012 O_SFU); give the SFU lanes per SM");
    const double warp = device.warp_size();
    const double f_sfu = std::min(
        std::max(k.sfu_inst_per_warp / k.inst_per_warp - double(device.sfu_width) / device.simd_width, 0.0), 1.0);
    s.o_sfu = k.sfu_inst_per_warp * per_sm * (warp / device.sfu_width) * f_sfu;
  }
  // The paper measures O_CFdiv and O_bank rather than deriving them. warpmodel prices the extra
  // instructions (divergent-path instructions, bank-conflict replays) like W_parallel (eq 4.3).
  const double cost_per_inst = device.fp_latency_cycles / itilp;
  s.o_cfdiv = k.divergent_inst_per_warp * per_sm * cost_per_inst;
  s.o_bank = k.bank_conflicts_per_warp * per_sm * cost_per_inst;
  return s;
}

}  // namespace

Prediction predict_gpuperf_2012(const DeviceProfile& device, const KernelProfile& kernel) {
  Prediction p;
  p.variant = ModelVariant::GpuPerf2012;
  p.occupancy = detail::checked_occupancy(device, kernel);

  detail::VariantInputs in;
  // ILP as measured for the kernel (eq 4.5 averages it over basic blocks; the profile carries the average).
  if (!kernel.ilp)
    throw ModelError("kernel '" + kernel.name + "': parallelism.ilp is needed by gpuperf-2012 (eq 4.5)");
  in.ilp = *kernel.ilp;
  // Delta: the measured coalesced departure delay.
  in.delta = device.departure_delay_coalesced_cycles;
  in.avg_dram_lat = eq::avg_dram_lat(device.dram_latency_cycles, kernel.transactions_per_request, in.delta);  // 4.10
  // eq 4.9 has one cache level. The paper's cache is the L1 (Fermi caches global loads there),
  // so hit_lat is the L1 hit latency and misses pay the DRAM latency; L2 hits are not modelled.
  in.amat = eq::amat_one_level(device.l1_hit_latency_cycles, kernel.l1_miss_ratio, in.avg_dram_lat);
  const double per_sm = p.occupancy.total_warps / p.occupancy.active_sms;
  const double itilp = eq::itilp(in.ilp, p.occupancy.n,
                                 eq::itilp_max(device.fp_latency_cycles, device.warp_size(), device.simd_width));
  in.serial = serial_overheads(device, kernel, per_sm, in.avg_dram_lat, itilp);

  detail::evaluate_mwp_cwp(device, kernel, in, p);
  return p;
}

}  // namespace warpmodel
