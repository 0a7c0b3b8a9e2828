// Prediction: every intermediate term of an MWP-CWP evaluation, so each can be checked by hand.
// A term a variant does not use is NaN (written as null in JSON, "-" in tables).
#pragma once

#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace warpmodel {

inline constexpr double kUnused = std::numeric_limits<double>::quiet_NaN();

enum class ModelVariant { HongKim2009, GpuPerf2012, Thesis2016, Hopper };

// The three cases of Hong & Kim (2009), section 3 of the thesis: which resource bounds the time.
enum class ModelCase {
  MemoryBound,     // MWP < CWP: memory periods dominate
  ComputeBound,    // MWP >= CWP: computation dominates
  NotEnoughWarps,  // MWP == CWP == N: too few warps to hide either
};

enum class OccupancyLimiter { Warps, Blocks, Registers, SharedMemory, Grid, Forced };

std::string_view to_string(ModelVariant v);
std::string_view to_string(ModelCase c);
std::string_view to_string(OccupancyLimiter l);

// Occupancy and work distribution: N, #active_SMs, #Rep (thesis section 4.5.4, Hong & Kim eq for #Rep).
struct Occupancy {
  int warps_per_block = 0;
  int blocks_limit_by_warps = 0;
  int blocks_limit_by_blocks = 0;
  int blocks_limit_by_registers = 0;
  int blocks_limit_by_shared_memory = 0;
  int blocks_per_sm = 0;            // min of the four limits (#Active_blocks_per_SM)
  OccupancyLimiter limiter = OccupancyLimiter::Warps;
  long long total_blocks = 0;       // #Blocks
  double total_warps = 0;           // #total_warps (eq 4.29, whole warps per block)
  int active_sms = 0;               // #active_SMs
  double resident_blocks_per_sm = 0;  // blocks_per_sm, or fewer when the grid is small
  double n = 0;                     // N: concurrently running warps on one SM (eq 4.30)
  double rep = 0;                   // #Rep, fractional: #Blocks / (#Active_blocks_per_SM x #active_SMs)
  long long waves = 0;              // #Rep rounded up: whole waves of blocks
  double occupancy_fraction = 0;    // N / max warps per SM
};

struct Prediction {
  ModelVariant variant = ModelVariant::Thesis2016;
  Occupancy occupancy;

  // instruction and memory parallelism
  double avg_inst_lat = kUnused;
  double ilp = kUnused;
  double itilp_max = kUnused;
  double itilp = kUnused;
  double mlp = kUnused;
  double itmlp = kUnused;

  // memory latency
  double departure_delay = kUnused;  // Delta as used
  double avg_dram_lat = kUnused;     // eq 4.10
  double amat = kUnused;             // eq 4.9 / 4.24
  double mem_l = kUnused;            // Hong & Kim's Mem_L (weighted coalesced/uncoalesced latency)

  // warp parallelism
  double bw_per_warp_gbs = kUnused;
  double mwp_peak_bw = kUnused;
  double mwp_without_bw = kUnused;   // avg_DRAM_lat / Delta
  double mwp = kUnused;
  double cwp_full = kUnused;
  double cwp = kUnused;
  double mwp_cp = kUnused;

  // one warp's work
  double comp_cycles = kUnused;
  double mem_cycles = kUnused;

  // per-SM totals
  double w_parallel = kUnused;
  double o_sync = kUnused;
  double o_sfu = kUnused;
  double o_cfdiv = kUnused;
  double o_bank = kUnused;
  double w_serial = kUnused;
  double t_comp = kUnused;
  double t_mem = kUnused;
  double f_overlap = kUnused;
  double zeta = kUnused;
  double t_overlap = kUnused;

  // hopper variant (hopper_equations.hpp, H.1-H.12): the bounds of one full wave, in cycles
  double full_waves = kUnused;            // H.1: waves with N warps on every active SM
  double last_wave_warps_per_sm = kUnused;  // H.1: warps on the busiest SM of the partial wave (0: none)
  double last_wave_sms = kUnused;         // H.1: SMs the partial wave occupies
  double working_warps_per_sm = kUnused;  // H.1b-c: warps per SM that carry a one-wave launch's work (unset over several waves)
  double t_issue = kUnused;               // H.2
  double stall_cycles_per_inst = kUnused;  // H.4: clocks one warp waits after each instruction
  double t_sfu = kUnused;                 // H.3
  double t_schedule = kUnused;            // H.4: one warp's instructions at the compiler's stall counts
  double line_walking_load_share = kUnused;  // H.5d: loads that walk to a new line every iteration (one wave)
  double reused_load_share = kUnused;     // H.6b: loads that re-read one address every iteration (hit L1)
  double batch_latency = kUnused;         // H.6: a batch of MLP loads, its slowest and its departures
  double t_mem_latency = kUnused;         // H.6
  double t_l1_data = kUnused;             // H.7
  double lone_store_sector_share = kUnused;  // H.8c: store sectors alone in their line (their own L2 rate)
  double lone_load_l2_share = kUnused;  // H.8d: the L2 read bytes of load sectors alone in their line (random rate)
  double inplace_store_share = kUnused;  // H.9d: the stores that write back lines the kernel read (in-place rate)
  double l2_scattered_read_bytes = kUnused;  // H.8b: a warp's local reads from L2 that scattered requests carry
  double l2_scattered_write_bytes = kUnused;  // H.8h: a warp's local writes to L2 that scattered requests carry
  double t_l2_bandwidth = kUnused;        // H.8
  double dram_read_efficiency = kUnused;  // H.9b: the DRAM read rate's share the loads' line segments get
  double scattered_load_share = kUnused;  // H.5c: load sectors scattered one to a line (gathers)
  double dram_scattered_write_bytes = kUnused;  // H.9c: a warp's DRAM writes of lines scattered local stores dirtied
  double t_dram_bandwidth = kUnused;      // H.9
  double t_block_dispatch = kUnused;      // H.13: the wave's blocks handed to one SM, one after another
  double t_first_thread = kUnused;        // H.1d: one warp's path through code only the grid's first thread runs
  double t_slice_atomics = kUnused;       // H.15: the busiest L2 slice's atomics, one after another
  double t_gather = kUnused;              // H.16: the gathered sectors at the random-sector rates
  double t_tensor = kUnused;              // H.17: the warps' MMAs on the sub-partitions' tensor cores
  double clusters_at_once = kUnused;      // H.18a: whole clusters the GPCs hold at once (unset without clusters)
  double t_cluster_sync = kUnused;        // H.18b: one warp's cluster-wide waits, an SM-to-SM round trip each
  double t_dsmem = kUnused;               // H.18c: stores into other blocks' shared memory at the SM-to-SM rate
  double t_warp = kUnused;                // H.10: one warp's path, T_schedule + T_mem_latency + T_cluster_sync
  double t_pipe = kUnused;                // H.10: the issue slots and pipes, max(T_issue, T_sfu, T_tensor)
  double t_data = kUnused;                // H.10: the narrowest memory level, max(T_l1, T_l2, T_dram, T_slice_atomics, T_gather, T_dsmem)
  double t_wave = kUnused;                // H.11: one full wave
  double t_last_wave = kUnused;           // H.11: the partial wave (0: none)
  double t_counter_range = kUnused;       // H.12b: a counter range's own time, where the launch was timed by one (0: not)
  std::string bound;                      // the term that sets t_wave ("dram bandwidth", ...)

  ModelCase model_case = ModelCase::ComputeBound;
  double cycles = kUnused;   // predicted kernel time, SM clock cycles
  double seconds = kUnused;  // cycles / SM clock

  // Readings or fallbacks this evaluation took that a reader should know about.
  std::vector<std::string> notes;
};

// Every numeric term of a Prediction, once: its JSON/CSV key, the label of the printed table, the
// equation it comes from, and the member. The table, JSON and CSV writers all read this list, so
// a term added to Prediction is added here and appears everywhere under one name.
struct PredictionTerm {
  const char* key;       // JSON "terms" key and CSV column: "ITILP", "T_issue"
  const char* label;     // row label of the printed table: "ITILP", "T_issue"
  const char* equation;  // "4.4", "H.2", "HK" (Hong & Kim), "" (an input shown for reference)
  double Prediction::*member;
};
std::span<const PredictionTerm> prediction_terms();

}  // namespace warpmodel
