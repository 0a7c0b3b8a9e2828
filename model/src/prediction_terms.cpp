// The one list of Prediction's terms (prediction.hpp): the order is the printed table's, thesis
// eqs 4.1-4.26 first, then the hopper variant's H.1-H.18.
#include <array>

#include "warpmodel/prediction.hpp"

namespace warpmodel {
namespace {

using P = Prediction;
constexpr std::array kTerms{
    PredictionTerm{"avg_inst_lat", "avg_inst_lat", "", &P::avg_inst_lat},
    PredictionTerm{"ILP", "ILP", "4.5/4.26", &P::ilp},
    PredictionTerm{"ITILP_max", "ITILP_max", "4.6", &P::itilp_max},
    PredictionTerm{"ITILP", "ITILP", "4.4", &P::itilp},
    PredictionTerm{"departure_delay", "departure delay", "4.25", &P::departure_delay},
    PredictionTerm{"avg_DRAM_lat", "avg_DRAM_lat", "4.10", &P::avg_dram_lat},
    PredictionTerm{"AMAT", "AMAT", "4.9/4.24", &P::amat},
    PredictionTerm{"Mem_L", "Mem_L", "HK", &P::mem_l},
    PredictionTerm{"BW_per_warp_gbs", "BW_per_warp (GB/s)", "4.19", &P::bw_per_warp_gbs},
    PredictionTerm{"MWP_peak_bw", "MWP_peak_bw", "4.18", &P::mwp_peak_bw},
    PredictionTerm{"MWP_without_bw", "MWP without BW", "4.17", &P::mwp_without_bw},
    PredictionTerm{"MWP", "MWP", "4.17", &P::mwp},
    PredictionTerm{"comp_cycles", "comp_cycles", "4.15", &P::comp_cycles},
    PredictionTerm{"mem_cycles", "mem_cycles", "4.16", &P::mem_cycles},
    PredictionTerm{"CWP_full", "CWP_full", "4.14", &P::cwp_full},
    PredictionTerm{"CWP", "CWP", "4.13", &P::cwp},
    PredictionTerm{"MWP_cp", "MWP_cp", "4.12", &P::mwp_cp},
    PredictionTerm{"MLP", "MLP", "", &P::mlp},
    PredictionTerm{"ITMLP", "ITMLP", "4.11", &P::itmlp},
    PredictionTerm{"W_parallel", "W_parallel", "4.3", &P::w_parallel},
    PredictionTerm{"O_sync", "O_sync", "4.7", &P::o_sync},
    PredictionTerm{"O_SFU", "O_SFU", "4.7", &P::o_sfu},
    PredictionTerm{"O_CFdiv", "O_CFdiv", "4.7", &P::o_cfdiv},
    PredictionTerm{"O_bank", "O_bank", "4.7", &P::o_bank},
    PredictionTerm{"W_serial", "W_serial", "4.7", &P::w_serial},
    PredictionTerm{"T_comp", "T_comp", "4.2", &P::t_comp},
    PredictionTerm{"T_mem", "T_mem", "4.8", &P::t_mem},
    PredictionTerm{"zeta", "zeta", "4.22", &P::zeta},
    PredictionTerm{"F_overlap", "F_overlap", "4.22", &P::f_overlap},
    PredictionTerm{"T_overlap", "T_overlap", "4.21", &P::t_overlap},
    PredictionTerm{"full_waves", "full waves", "H.1", &P::full_waves},
    PredictionTerm{"last_wave_warps_per_sm", "partial wave: warps/SM", "H.1", &P::last_wave_warps_per_sm},
    PredictionTerm{"last_wave_sms", "partial wave: SMs", "H.1", &P::last_wave_sms},
    PredictionTerm{"working_warps_per_sm", "one wave: working warps/SM", "H.1b", &P::working_warps_per_sm},
    PredictionTerm{"T_issue", "T_issue", "H.2", &P::t_issue},
    PredictionTerm{"T_sfu", "T_sfu", "H.3", &P::t_sfu},
    PredictionTerm{"stall_cycles_per_inst", "stall per instruction", "H.4", &P::stall_cycles_per_inst},
    PredictionTerm{"T_schedule", "T_schedule", "H.4", &P::t_schedule},
    PredictionTerm{"line_walking_load_share", "loads walking lines (lockstep)", "H.5d", &P::line_walking_load_share},
    PredictionTerm{"reused_load_share", "loads reusing one address", "H.6b", &P::reused_load_share},
    PredictionTerm{"batch_latency", "batch latency", "H.6", &P::batch_latency},
    PredictionTerm{"T_mem_latency", "T_mem_latency", "H.6", &P::t_mem_latency},
    PredictionTerm{"T_l1", "T_l1", "H.7", &P::t_l1_data},
    PredictionTerm{"l2_scattered_read_bytes", "scattered local reads (B/warp)", "H.8b", &P::l2_scattered_read_bytes},
    PredictionTerm{"lone_store_sector_share", "store sectors alone in a line", "H.8c", &P::lone_store_sector_share},
    PredictionTerm{"l2_scattered_write_bytes", "scattered local writes (B/warp)", "H.8h", &P::l2_scattered_write_bytes},
    PredictionTerm{"lone_load_l2_share", "L2 reads of load sectors alone in a line", "H.8d", &P::lone_load_l2_share},
    PredictionTerm{"inplace_store_share", "stores writing back lines read (in place)", "H.9d", &P::inplace_store_share},
    PredictionTerm{"T_l2", "T_l2", "H.8", &P::t_l2_bandwidth},
    PredictionTerm{"scattered_load_share", "loads scattered one to a line", "H.5c", &P::scattered_load_share},
    PredictionTerm{"dram_read_efficiency", "DRAM read efficiency", "H.9b", &P::dram_read_efficiency},
    PredictionTerm{"dram_scattered_write_bytes", "scattered local write-backs (B/warp)", "H.9c",
                   &P::dram_scattered_write_bytes},
    PredictionTerm{"T_dram", "T_dram", "H.9", &P::t_dram_bandwidth},
    PredictionTerm{"T_dispatch", "T_dispatch", "H.13", &P::t_block_dispatch},
    PredictionTerm{"T_slice_atomics", "T_slice_atomics", "H.15", &P::t_slice_atomics},
    PredictionTerm{"T_gather", "T_gather", "H.16", &P::t_gather},
    PredictionTerm{"T_tensor", "T_tensor", "H.17", &P::t_tensor},
    PredictionTerm{"clusters_at_once", "clusters at once", "H.18a", &P::clusters_at_once},
    PredictionTerm{"T_cluster_sync", "T_cluster_sync", "H.18b", &P::t_cluster_sync},
    PredictionTerm{"T_dsmem", "T_dsmem", "H.18c", &P::t_dsmem},
    PredictionTerm{"T_warp", "T_warp", "H.10", &P::t_warp},
    PredictionTerm{"T_pipe", "T_pipe", "H.10", &P::t_pipe},
    PredictionTerm{"T_data", "T_data", "H.10", &P::t_data},
    PredictionTerm{"T_wave", "T_wave", "H.11", &P::t_wave},
    PredictionTerm{"T_last_wave", "T_last_wave (partial wave)", "H.11", &P::t_last_wave},
    PredictionTerm{"T_first_thread", "T_first_thread (the grid's first thread alone)", "H.1d", &P::t_first_thread},
    PredictionTerm{"T_counter_range", "T_counter_range (timed by a counter range)", "H.12b", &P::t_counter_range},
};

}  // namespace

std::span<const PredictionTerm> prediction_terms() { return kTerms; }

}  // namespace warpmodel
