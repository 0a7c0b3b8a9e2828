// The hopper variant's equations, H.1-H.12: a per-wave bound model for sm_80/sm_90 GPUs built on
// what `warpmodel characterize` and CUPTI measure, instead of the G80-Kepler assumptions of eqs
// 4.1-4.26 (one scheduler per SM, a single departure queue, no L2 bandwidth limit).
//
// Why not MWP-CWP: on an H200 the 2009-2016 variants' MWP/CWP terms cancel against #Rep in an
// occupancy sweep (N/MWP and #Rep scale inversely), which flattens the predicted curve. Here each
// wave of resident warps is priced by the slowest of its resources, and the number of whole waves
// carries the occupancy dependence:
//
//   H.1   waves: full waves of N warps per SM, then one partial wave (its own N and SM count); N from
//         the occupancy rules (whole blocks), not a forced or achieved N
//   H.2   T_issue     = ceil(n / P) x #inst                     P sub-partitions, 1 warp-inst/clk each
//   H.3   T_sfu       = ceil(n / P) x #SFU_inst x warp_size / (SFU lanes / P)
//   H.4   T_dependent = #inst x lat_dep / ILP                   one warp's dependent chain
//   H.5   AMAT        = (1 - m1) L1 + m1 (1 - m2) L2 + m1 m2 avg_DRAM_lat   (two-level, by the names)
//         avg_DRAM_lat = DRAM_lat + (lines - 1) x Delta       lines = sectors per request / 4 (eq 4.10)
//   H.6   T_mem_lat   = #mem_inst / MLP x batch_lat             one warp's round trips; a batch of MLP
//                                                              loads waits for its slowest (expected max)
//   H.7   T_l1        = n x bytes_l1 / (L1/shared bytes per clk per SM)
//   H.8   T_l2        = n x bytes_l2 / (L2 bytes per clk per SM)
//   H.9   T_dram      = n x bytes_dram / (DRAM bytes per clk shared by the wave's SMs)
//   H.10  T_comp = max(H.2, H.3, H.4);  T_mem = H.6 + max(H.7, H.8, H.9)
//   H.11  T_wave = T_comp + T_mem
//   H.12  cycles = launch_cycles + scale x (full_waves x T_wave(N) + T_wave(partial)) + wave_cycles x waves
//
// H.10-H.11 are additive: a wave's warps pay their round trips, then the bytes through the narrowest
// level, and issue does not hide them. The first form tried, T_wave = max of all the bounds (a
// roofline per wave), under-predicted the latency-bound stencils by 2x: on the H200 validation sweep
// (results/h200/validation.md, 340 launches) it gave a held-out MAPE of 45 %, the additive form 26 %.
// The bandwidths are measured (dram copy, L2 read, shared read); lat_dep is the measured dependent
// FFMA latency, not the thesis's avg_inst_lat (the slowest op). launch_cycles, scale and wave_cycles
// (the fixed cost of a wave of blocks: launch, ramp-up, drain) are the only fitted constants
// (`warpmodel validate`, Eigen least squares on a training half); unfitted they are 0, 1, 0.
#pragma once

#include <algorithm>
#include <cmath>

namespace warpmodel::hopper_eq {

// H.1 Waves. A wave holds `blocks_per_sm` blocks on each of `active_sms` SMs.
struct WaveSplit {
  double full_waves = 0;            // floor(#Blocks / (blocks_per_sm x active_sms))
  double last_wave_blocks = 0;      // blocks left for the partial wave
  double last_wave_sms = 0;         // min(active_sms, those blocks)
  double last_wave_blocks_per_sm = 0;  // ceil(left / SMs): the busiest SM of the partial wave
};
inline WaveSplit split_waves(double total_blocks, double blocks_per_sm, double active_sms) {
  WaveSplit w;
  const double per_wave = blocks_per_sm * active_sms;
  w.full_waves = std::floor(total_blocks / per_wave + 1e-9);
  w.last_wave_blocks = std::max(0.0, total_blocks - w.full_waves * per_wave);
  if (w.last_wave_blocks > 1e-9) {
    w.last_wave_sms = std::min(active_sms, std::ceil(w.last_wave_blocks - 1e-9));
    w.last_wave_blocks_per_sm = std::min(blocks_per_sm, std::ceil(w.last_wave_blocks / w.last_wave_sms - 1e-9));
  }
  return w;
}

// H.2 T_issue = ceil(n / P) x #inst: each of the P sub-partition schedulers issues one warp
// instruction per clock, and the n warps are spread round-robin over them.
inline double t_issue(double n, double sub_partitions, double inst) {
  return std::ceil(n / sub_partitions - 1e-9) * inst;
}

// H.3 T_sfu = ceil(n / P) x #SFU_inst x warp_size / (SFU lanes / P): a warp's MUFU instruction
// occupies its sub-partition's SFU lanes for warp_size / lanes clocks.
inline double t_sfu(double n, double sub_partitions, double sfu_inst, double warp_size, double sfu_lanes) {
  if (sfu_inst <= 0) return 0;
  return std::ceil(n / sub_partitions - 1e-9) * sfu_inst * warp_size / (sfu_lanes / sub_partitions);
}

// H.4 T_dependent = #inst x lat_dep / ILP: the clocks one warp needs when each group of ILP
// independent instructions waits for the previous group.
inline double t_dependent(double inst, double dependent_latency, double ilp) { return inst * dependent_latency / ilp; }

// H.5 avg_DRAM_lat = DRAM_lat + (lines - 1) x Delta (eq 4.10 with 128-byte lines = 4 sectors), and
// AMAT = (1 - m1) L1 + m1 ((1 - m2) L2 + m2 avg_DRAM_lat), m1 the L1 miss ratio, m2 the L2 miss ratio.
inline double avg_dram_lat(double dram_lat, double sectors_per_request, double delta) {
  return dram_lat + std::max(0.0, sectors_per_request / 4.0 - 1.0) * delta;
}
inline double amat(double l1_lat, double l1_miss, double l2_lat, double l2_miss, double avg_dram_latency) {
  return (1 - l1_miss) * l1_lat + l1_miss * ((1 - l2_miss) * l2_lat + l2_miss * avg_dram_latency);
}

// H.6 T_mem_lat = #mem_inst / MLP x batch_lat: one warp's round trips, MLP loads in flight at a
// time. A batch of m = MLP independent loads completes with its slowest load, so its latency is the
// expected maximum over the batch, not AMAT (the mean): with h1 = 1 - m1 the chance a load hits L1 and
// h12 = 1 - m1 m2 the chance it is served by L1 or L2,
//   batch_lat = L1 h1^m + L2 (h12^m - h1^m) + avg_DRAM_lat (1 - h12^m)
// (m = 1 gives AMAT). MLP is capped at #mem_inst (a warp cannot overlap more loads than it issues;
// the thesis's worked example has MLP 17 > 11 memory instructions).
inline double batch_latency(double batch, double l1_lat, double l1_miss, double l2_lat, double l2_miss,
                            double avg_dram_latency) {
  const double h1 = std::pow(1 - l1_miss, batch);
  const double h12 = std::pow(1 - l1_miss * l2_miss, batch);
  return l1_lat * h1 + l2_lat * (h12 - h1) + avg_dram_latency * (1 - h12);
}
inline double t_mem_latency(double mem_inst, double mlp, double batch_latency_cycles) {
  if (mem_inst <= 0) return 0;
  return mem_inst / std::min(mlp, mem_inst) * batch_latency_cycles;
}

// H.7-H.9 T = n x bytes per warp / bytes per clock per SM.
inline double t_bandwidth(double n, double bytes_per_warp, double bytes_per_clock_per_sm) {
  return n * bytes_per_warp / bytes_per_clock_per_sm;
}
// GB/s at an SM clock in MHz -> bytes per clock.
inline double bytes_per_clock(double gbs, double sm_clock_mhz) { return gbs * 1e3 / sm_clock_mhz; }

// H.10 T_mem = T_mem_lat + max(T_l1, T_l2, T_dram): the round trips, then the narrowest level's bytes
inline double t_mem(double t_mem_latency, double t_l1, double t_l2, double t_dram) {
  return t_mem_latency + std::max({t_l1, t_l2, t_dram});
}

// H.11 T_wave = T_comp + T_mem
inline double t_wave(double t_comp, double t_mem) { return t_comp + t_mem; }

// H.12 cycles = launch_cycles + scale x (full_waves x T_wave(N) + T_wave(partial)) + wave_cycles x waves,
// waves = full_waves + (1 if there is a partial wave)
inline double cycles(double launch_cycles, double scale, double wave_cycles, double full_waves, double t_full_wave,
                     double t_partial_wave) {
  const double waves = full_waves + (t_partial_wave > 0 ? 1.0 : 0.0);
  return launch_cycles + scale * (full_waves * t_full_wave + t_partial_wave) + wave_cycles * waves;
}

}  // namespace warpmodel::hopper_eq
