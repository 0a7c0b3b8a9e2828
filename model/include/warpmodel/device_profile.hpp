// DeviceProfile: what the model knows about a GPU.
// Hardware specifications (thesis table 4.2) plus measured latencies (thesis table 4.3).
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace warpmodel {

// Per-SM resource limits that decide occupancy. One row per compute capability, from the CUDA
// occupancy rules (the CUDA C Programming Guide's table of technical specifications).
struct ArchLimits {
  int warp_size = 32;
  int max_threads_per_block = 1024;
  int max_threads_per_sm = 2048;
  int max_blocks_per_sm = 16;
  int registers_per_sm = 65536;
  int max_registers_per_block = 65536;
  int max_registers_per_thread = 255;
  int register_allocation_unit = 256;  // registers are given to a warp in units of this many
  int sub_partitions_per_sm = 4;       // the register file is split among the warp schedulers
  int shared_memory_per_sm_bytes = 49152;
  int shared_memory_per_block_bytes = 49152;        // without opt-in
  int shared_memory_per_block_optin_bytes = 49152;  // with cudaFuncSetAttribute opt-in
  int shared_memory_allocation_unit = 256;
  int shared_memory_reserved_per_block_bytes = 0;   // 1 KiB on sm_80 and later

  int max_warps_per_sm() const { return max_threads_per_sm / warp_size; }
};

// Limits for compute capability major.minor (3.5 .. 9.0, 10.0, 10.3, 12.0, 12.1); throws
// std::invalid_argument otherwise.
ArchLimits arch_limits_for(int cc_major, int cc_minor);
// The compute capabilities arch_limits_for knows, as "major.minor".
std::vector<std::string> known_compute_capabilities();

struct DeviceProfile {
  std::string name;

  // --- hardware specifications (thesis table 4.2) ---
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;                   // #SMs
  double sm_clock_mhz = 0;            // freq
  int simd_width = 0;                 // FP32 lanes per SM (SIMD_width; 192 on Kepler, 128 on Hopper)
  int sfu_width = 0;                  // special-function lanes per SM (0: unknown)
  double mem_peak_bandwidth_gbs = 0;  // mem_peak_bandwidth, GB/s (1e9 B/s)
  ArchLimits limits;

  // --- measured latencies, clock cycles (thesis table 4.3 / warpmodel characterize) ---
  double fp_latency_cycles = 0;  // avg_inst_lat
  std::optional<double> sfu_latency_cycles;
  std::optional<double> shared_load_latency_cycles;
  double l1_hit_latency_cycles = 0;
  double l2_hit_latency_cycles = 0;
  double dram_latency_cycles = 0;                        // DRAM_lat (Mem_LD in Hong & Kim)
  double departure_delay_coalesced_cycles = 0;           // Delta
  std::optional<double> departure_delay_uncoalesced_cycles;
  // The same slope with the warps' lines consecutive instead of scrambled (characterize's
  // departure_sequential; hopper H.6's departures of regular loads). Absent: Delta.
  std::optional<double> departure_delay_sequential_cycles;
  // One warp's chase over 1 GiB with every lane on its own node: a load whose 32 lanes read 32
  // unrelated lines from DRAM (`characterize`'s global_load_uncoalesced, 1 warp; hopper H.5c).
  // Absent: such loads wait DRAM_lat.
  std::optional<double> dram_scattered_latency_cycles;
  // Global-load latency measured with 1, 2, ... warps per block (input of eq 4.25). Optional.
  std::vector<double> global_load_latency_by_warps;

  // --- measured rates (warpmodel characterize; used by the hopper variant only) ---
  // Read from the device JSON's "bandwidth_gbs" / "latency_cycles.fp32_dependent" when present,
  // else from characterize's "measurements" block (bandwidth.<name>.gbs, latency.fp32_fma).
  std::optional<double> fp32_dependent_latency_cycles;  // back-to-back dependent FFMA, 1 warp
  std::optional<double> dram_read_bandwidth_gbs;
  std::optional<double> dram_write_bandwidth_gbs;
  std::optional<double> dram_copy_bandwidth_gbs;        // read + write bytes counted
  std::optional<double> l2_read_bandwidth_gbs;
  std::optional<double> shared_read_bandwidth_gbs;      // the L1/shared data path
  std::optional<double> l2_write_bandwidth_gbs;         // stores written through L1 into L2 (hopper H.8)
  // Reads of one sector at a random place (a gather), 32 B counted per load: DRAM over 256 MiB and L2
  // over a resident 16 MiB (hopper H.16: the sectors of loads at data-dependent addresses).
  std::optional<double> dram_random_read_bandwidth_gbs;
  std::optional<double> l2_random_read_bandwidth_gbs;
  // Whole sectors written at random places of 256 MiB, 32 B counted per sector: the write-back of a
  // data-indexed per-thread array's lines (hopper H.9c). Absent: such writes at the streaming rate.
  std::optional<double> dram_random_write_bandwidth_gbs;
  std::optional<double> dram_inplace_bandwidth_gbs;   // read + written bytes of lines written back in place (H.9d)
  // A 2D read whose warps take 32-, 64- or 128-byte segments of rows (blocks 8x32, 16x16, 32x8; the
  // neighbouring blocks read the rest of each line): the DRAM rate by the bytes of a line one request
  // asks for (hopper H.9b).
  std::optional<double> dram_read_rows_32b_gbs;
  std::optional<double> dram_read_rows_64b_gbs;
  std::optional<double> dram_read_rows_128b_gbs;
  // The same walk, storing: measured and reported, not read by hopper (hopper_equations.hpp H.9b).
  std::optional<double> dram_write_rows_32b_gbs;
  std::optional<double> dram_write_rows_64b_gbs;
  std::optional<double> dram_write_rows_128b_gbs;
  // A store whose request writes 4, 8, 16 or 32 bytes of a sector in each of 32, 16, 8 or 4 lines (a
  // naive transpose's column), into a matrix resident in L2: GB/s of the bytes written (hopper H.8c).
  std::optional<double> l2_write_sectors_4b_gbs;
  std::optional<double> l2_write_sectors_8b_gbs;
  std::optional<double> l2_write_sectors_16b_gbs;
  std::optional<double> l2_write_sectors_32b_gbs;
  // Measured arithmetic throughput, thread operations per clock per SM (characterize's
  // measurements.throughput: fp32_fma, fp64_fma, sfu_ex2 ops_per_clk_per_sm): the ceilings of
  // predict-app's speed of light. Not read by the model; absent on profiles without them.
  std::optional<double> fp32_ops_per_clock_per_sm;
  std::optional<double> fp64_ops_per_clock_per_sm;
  std::optional<double> sfu_ops_per_clock_per_sm;
  // What-if (predict-app's potential gains): hopper terms priced at zero, by the names Prediction::bound
  // uses ("dram bandwidth", "issue", "memory latency", ...). Empty in every device profile read from a
  // file.
  std::vector<std::string> free_terms;
  // Clocks an SM needs per block it is handed (the launch microbenchmark's slope of time over
  // blocks per SM); hopper H.13. Absent on profiles from characterize versions before it.
  std::optional<double> block_dispatch_cycles;
  // Global atomics on one word from every thread of the grid (red.global.add), adds per clock of
  // the whole GPU: the L2 performs them one after another (hopper H.15). Integer and float adds
  // run at different rates; absent on profiles from characterize versions before them.
  std::optional<double> same_address_atomic_ops_per_clock;      // red.global.add.u32
  std::optional<double> same_address_atomic_f32_ops_per_clock;  // red.global.add.f32

  // Tensor cores (hopper H.17): dense multiply-add throughput, FLOPs (2 a multiply-add; int8: 2
  // operations) per clock per SM, by the MMA's input type (tensor_types.hpp: fp16, bf16, tf32, fp8,
  // int8, fp64), as a microbenchmark of back-to-back MMAs measures it. A type not measured falls back
  // to the architecture's specification (tensor_types.hpp), with a note saying so.
  std::map<std::string, double> tensor_flops_per_clock_per_sm;
  // The warp-level MMAs' own rate (mma.sync, WMMA), by type, where it was measured: on sm_90 about half
  // the warpgroup MMAs' (tensor_flops_per_clock_per_sm is the faster of the two). H.17 prices a kernel's
  // mma_sync_flops_per_warp at it.
  std::map<std::string, double> mma_sync_flops_per_clock_per_sm;

  // Thread-block clusters (hopper H.18). The SMs of each GPC (a cluster's blocks all run in one GPC),
  // as `characterize` finds them; empty: the architecture's GPC count with the SMs spread evenly
  // (tensor_types.hpp's spec_sms_per_gpc), or no placement limit where that is not known.
  std::vector<int> sms_per_gpc;
  // A barrier.cluster arrive + wait round trip, and a load from another block's shared memory
  // (distributed shared memory), SM clock cycles; absent: the term is 0, with a note.
  std::optional<double> cluster_barrier_latency_cycles;
  std::optional<double> dsmem_latency_cycles;
  // Distributed shared memory, the whole GPU's GB/s of one block's stores into another's shared
  // memory (every SM pushing at once); absent: no H.18c term.
  std::optional<double> dsmem_bandwidth_gbs;

  // Constants of the hopper variant fitted by `warpmodel validate` on a training half (absent:
  // launch 0, scale 1, wave 0, barrier 0, i.e. the unfitted model). See hopper_equations.hpp (H.12).
  struct HopperCalibration {
    double launch_cycles = 0;   // fixed cost per launch
    double scale = 1;           // multiplies the summed wave times
    double wave_cycles = 0;     // fixed cost of each wave of blocks (launch, ramp-up, drain)
    double barrier_cycles = 0;  // cost of one barrier per warp to its wave (arrival skew, release)
    // H.12: a wave's fixed costs (wave_cycles, barrier_cycles) are exposed in proportion to
    // blocks_per_sm^-turnover_exponent: the other resident blocks keep the SM busy while one block
    // drains and the next starts. 0: every wave pays them in full (profiles fitted before it).
    double turnover_exponent = 0;
    std::string fitted_on;      // what it was fitted on (provenance)
    // H.12b: what a counter range adds to a launch's time beyond the Activity API's kernel timestamps
    // the constants above are fitted to (the Range Profiler's gpu__time_duration in kernel replay, as
    // `profile -- APP` and Nsight Compute time a launch), ns. Measured, not fitted: `validate --from`
    // reads DIR/profiler-floor.json (one small kernel timed both ways). 0: not measured, no H.12b.
    double counter_range_overhead_ns = 0;
  };
  std::optional<HopperCalibration> hopper_calibration;

  // The hopper variant's 80 % prediction intervals, written by `warpmodel validate` beside the
  // constants (intervals.hpp): the 10th, 50th and 90th percentiles of held-out signed errors
  // e = (predicted - measured) / measured, per bound, widened about the median by `widen` so that
  // they cover 80 % of the nested leave-one-class-out predictions; a prediction p of that bound
  // lies in [p / (1 + e90'), p / (1 + e10')]. Absent: predictions carry no interval.
  struct ErrorQuantiles {
    double e10 = 0, e50 = 0, e90 = 0;
    std::size_t cases = 0;  // residuals they come from
  };
  struct HopperIntervals {
    std::string source;       // what the residuals were (provenance)
    double widen = 1;         // offsets of e10 and e90 from e50 scaled by this
    std::size_t min_cases = 20;  // a bound with fewer residuals takes the pooled quantiles
    std::map<std::string, ErrorQuantiles> by_bound;
    ErrorQuantiles pooled;
    // The ratio of one shape's predicted time to another's against the measured ratio, from the
    // cross-shape evaluation: d = predicted ratio / measured ratio - 1 (a shape pick's uncertainty).
    std::optional<ErrorQuantiles> shape_change;
  };
  std::optional<HopperIntervals> hopper_intervals;

  // Energy per operation (`characterize`'s energy rows, docs/energy.md): the board's static power
  // (no kernel running) and the energy above it per unit of work, as energy.hpp's launch_energy reads
  // them. Absent on profiles without them (then no energy is predicted); a coefficient that was not
  // measured is absent and its term is left out of the sum.
  struct EnergyCoefficients {
    double static_w = 0;
    std::optional<double> pj_per_fp32_op, pj_per_fp64_op;       // per thread operation
    std::optional<double> pj_per_int32_op;                      // per thread operation (E.2c)
    std::optional<double> pj_per_shared_byte, pj_per_l2_byte;   // per byte moved
    std::optional<double> pj_per_dram_byte;                     // per DRAM byte beyond the L2 byte it also is
    std::optional<double> power_limit_w;  // the board's enforced power limit, read by NVML (E.3); absent: no cap
    std::string source;
  };
  std::optional<EnergyCoefficients> energy;

  // Free-form provenance (GPU, driver, CUDA, date, commit, command, source of each number).
  std::map<std::string, std::string> provenance;

  int warp_size() const { return limits.warp_size; }
};

}  // namespace warpmodel
