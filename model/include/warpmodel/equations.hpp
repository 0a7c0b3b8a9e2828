// The MWP-CWP equations, one small function per equation, numbered as in chapter 4 of the
// thesis (seeds/000, eqs 4.1-4.26), which restates Hong & Kim (ISCA 2009) and Sim et al.
// (PPoPP 2012). Latencies and cycle counts are SM clock cycles; bandwidths are GB/s.
// The variants (hong_kim_2009.cpp, gpuperf_2012.cpp, thesis_2016.cpp) compose these.
#pragma once

#include <algorithm>
#include <span>

namespace warpmodel::eq {

// (4.1) T_exec = T_comp + T_mem - T_overlap
inline double t_exec(double t_comp, double t_mem, double t_overlap) { return t_comp + t_mem - t_overlap; }

// (4.2) T_comp = W_parallel + W_serial
inline double t_comp(double w_parallel, double w_serial) { return w_parallel + w_serial; }

// (4.3) W_parallel = #inst x #total_warps / #active_SMs x avg_inst_lat / ITILP
inline double w_parallel(double inst, double total_warps, double active_sms, double avg_inst_lat, double itilp) {
  return inst * total_warps / active_sms * avg_inst_lat / itilp;
}

// (4.4) ITILP = min(ILP x N, ITILP_max)
inline double itilp(double ilp, double n, double itilp_max) { return std::min(ilp * n, itilp_max); }

// (4.6) ITILP_max = avg_inst_lat / (warp_size / SIMD_width)
inline double itilp_max(double avg_inst_lat, double warp_size, double simd_width) {
  return avg_inst_lat / (warp_size / simd_width);
}

// (4.7) W_serial = O_sync + O_SFU + O_CFdiv + O_bank
inline double w_serial(double o_sync, double o_sfu, double o_cfdiv, double o_bank) {
  return o_sync + o_sfu + o_cfdiv + o_bank;
}

// (4.8) T_mem = #mem_inst x #total_warps / (#active_SMs x ITMLP) x AMAT
inline double t_mem(double mem_inst, double total_warps, double active_sms, double itmlp, double amat) {
  return mem_inst * total_warps / (active_sms * itmlp) * amat;
}

// The AMAT functions take their arguments level by level, outwards: (hit_lat_l1, miss_l1,
// [hit_lat_l2, miss_l2,] avg_DRAM_lat), whatever order the printed equation writes its terms in.

// (4.9) AMAT = avg_DRAM_lat x miss_ratio + hit_lat   (one cache level)
inline double amat_one_level(double hit_lat, double miss_ratio, double avg_dram_lat) {
  return avg_dram_lat * miss_ratio + hit_lat;
}

// (4.10) avg_DRAM_lat = DRAM_lat + (avg_trans_warp - 1) x Delta
inline double avg_dram_lat(double dram_lat, double avg_trans_warp, double delta) {
  return dram_lat + (avg_trans_warp - 1.0) * delta;
}

// (4.11) ITMLP = min(MLP x MWP_cp, MWP_peak_bw)
inline double itmlp(double mlp, double mwp_cp, double mwp_peak_bw) { return std::min(mlp * mwp_cp, mwp_peak_bw); }

// (4.12) MWP_cp = min(max(1, CWP - 1), MWP)
inline double mwp_cp(double cwp, double mwp) { return std::min(std::max(1.0, cwp - 1.0), mwp); }

// (4.13) CWP = min(CWP_full, N)
inline double cwp(double cwp_full, double n) { return std::min(cwp_full, n); }

// (4.14) CWP_full = (mem_cycles + comp_cycles) / comp_cycles
inline double cwp_full(double mem_cycles, double comp_cycles) { return (mem_cycles + comp_cycles) / comp_cycles; }

// (4.15) comp_cycles = #inst x avg_inst_lat / ITILP
inline double comp_cycles(double inst, double avg_inst_lat, double itilp) { return inst * avg_inst_lat / itilp; }

// (4.16) mem_cycles = #mem_inst x AMAT / MLP
inline double mem_cycles(double mem_inst, double amat, double mlp) { return mem_inst * amat / mlp; }

// (4.17) MWP = min(avg_DRAM_lat / Delta, MWP_peak_bw, N)
inline double mwp(double mwp_without_bw, double mwp_peak_bw, double n) {
  return std::min({mwp_without_bw, mwp_peak_bw, n});
}
inline double mwp_without_bw(double avg_dram_lat, double delta) { return avg_dram_lat / delta; }

// (4.18) MWP_peak_bw = mem_peak_bandwidth / (BW_per_warp x #active_SMs)
inline double mwp_peak_bw(double mem_peak_bandwidth_gbs, double bw_per_warp_gbs, double active_sms) {
  return mem_peak_bandwidth_gbs / (bw_per_warp_gbs * active_sms);
}

// (4.19) BW_per_warp = freq x transaction_size / avg_DRAM_lat     (GHz x bytes / cycles = GB/s)
inline double bw_per_warp_gbs(double freq_ghz, double transaction_size_bytes, double avg_dram_lat) {
  return freq_ghz * transaction_size_bytes / avg_dram_lat;
}

// (4.20) transaction_size = Data_size x #threads_per_warp
inline double transaction_size(double data_size_bytes, double threads_per_warp) {
  return data_size_bytes * threads_per_warp;
}

// (4.21) T_overlap = min(T_comp x F_overlap, T_mem)
inline double t_overlap(double t_comp, double f_overlap, double t_mem) { return std::min(t_comp * f_overlap, t_mem); }

// (4.22) zeta = 1 if CWP <= MWP else 0;  F_overlap = (N - zeta) / N
inline double zeta(double cwp, double mwp) { return cwp <= mwp ? 1.0 : 0.0; }
inline double f_overlap(double n, double zeta_value) { return (n - zeta_value) / n; }

// (4.24) the thesis's two-level AMAT, as printed:
//   AMAT = avg_DRAM_lat x miss_ratio_l2 + hit_lat_l2 x miss_ratio_l1 + hit_lat_l1
inline double amat_two_level_thesis(double hit_lat_l1, double miss_ratio_l1, double hit_lat_l2, double miss_ratio_l2,
                                    double avg_dram_lat) {
  return avg_dram_lat * miss_ratio_l2 + hit_lat_l2 * miss_ratio_l1 + hit_lat_l1;
}

// A strictly hierarchical two-level AMAT (not in the thesis; shown beside eq 4.24 for contrast):
//   AMAT = hit_lat_l1 + miss_l1 x (hit_lat_l2 + miss_l2 x avg_DRAM_lat)
inline double amat_hierarchical(double hit_lat_l1, double l1_miss, double hit_lat_l2, double l2_miss,
                                double avg_dram_lat) {
  return hit_lat_l1 + l1_miss * (hit_lat_l2 + l2_miss * avg_dram_lat);
}

// (4.25) Delta = sum_{i=1}^{#warps-1} (lat_{i+1} - lat_i) / (#warps - 1)
// The sum telescopes: Delta = (lat_last - lat_first) / (#warps - 1). Needs at least two points.
inline double departure_delay_eq_4_25(std::span<const double> latency_by_warps) {
  double sum = 0;
  for (std::size_t i = 0; i + 1 < latency_by_warps.size(); ++i) sum += latency_by_warps[i + 1] - latency_by_warps[i];
  return sum / static_cast<double>(latency_by_warps.size() - 1);
}

// (4.26) ILP = #total_instructions / #basic_blocks
inline double ilp_eq_4_26(double total_instructions, double basic_blocks) { return total_instructions / basic_blocks; }

}  // namespace warpmodel::eq
