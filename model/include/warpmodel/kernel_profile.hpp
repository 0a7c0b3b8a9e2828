// KernelProfile: what the model knows about one kernel launch (thesis table 4.1).
// Instruction counts are per warp; ratios are fractions in [0, 1].
#pragma once

#include <map>
#include <optional>
#include <string>

#include "warpmodel/access_patterns.hpp"

namespace warpmodel {

struct Dim3 {
  long long x = 1, y = 1, z = 1;
  long long count() const { return x * y * z; }
  bool operator==(const Dim3&) const = default;
};

struct LaunchConfig {
  Dim3 grid;
  Dim3 block;
  int registers_per_thread = 0;
  int shared_memory_per_block_bytes = 0;  // static + dynamic
  // N forced from outside (the thesis's "warps per SM" columns, or achieved occupancy from
  // CUPTI). When absent N comes from the occupancy calculator.
  std::optional<double> active_warps_per_sm;
  // The share of the resident warps' cycles spent waiting at a barrier (CUPTI's stall reasons:
  // stalled_barrier over the sum of all reasons), in [0, 1]. Read by hopper H.1c: in a one-wave
  // launch a warp that waits at a barrier carries none of the work while it waits.
  std::optional<double> barrier_wait_share;
  // #total_warps forced from outside: the warps that do useful work rather than all launched
  // (thesis table 4.7 counts floor(50^3 / 32) = 3906 instead of the 4096 launched).
  std::optional<double> total_warps;
  // Points the grid covers, one thread per point; `sweep` re-derives the grid from it.
  std::optional<Dim3> domain;
  // Blocks of a thread-block cluster (cudaLaunchAttributeClusterDimension, __cluster_dims__); absent
  // or 1 x 1 x 1: no clusters. A cluster's blocks start together in one GPC (hopper H.18).
  std::optional<Dim3> cluster;
};

struct KernelProfile {
  std::string name;
  LaunchConfig launch;

  // --- dynamic instructions per warp ---
  double inst_per_warp = 0;                // #inst
  double mem_inst_per_warp = 0;            // #mem_inst (global loads and stores)
  double fp_inst_per_warp = 0;             // #FP_inst
  double sfu_inst_per_warp = 0;            // #SFU_inst
  double sync_inst_per_warp = 0;           // #sync_insts (barriers)
  double uncoalesced_mem_inst_per_warp = 0;  // Hong & Kim's #Uncoal_Mem_insts; the rest are coalesced
  double divergent_inst_per_warp = 0;      // instructions executed extra by divergent branches (O_CFdiv)
  double bank_conflicts_per_warp = 0;      // extra shared-memory wavefronts per warp (O_bank)
  double shared_inst_per_warp = 0;         // shared-memory loads and stores (LDS/STS), hopper variant
  // Global loads alone (LDG, LD), hopper variant: a warp waits for a load's result, not for a store
  // (stores are posted). When absent the hopper variant counts every memory instruction as a load.
  std::optional<double> global_load_inst_per_warp;
  // Asynchronous copies into shared memory (LDGSTS, TMA loads), hopper variant: they return no
  // register, so a warp keeps issuing while they are in flight and waits at a pipeline barrier.
  double async_copy_inst_per_warp = 0;
  // Local-memory loads (LDL: spills, dynamically indexed per-thread arrays), hopper variant: a round
  // trip like a global load (the warp waits for the register), through L1 and, on a miss, L2.
  double local_load_inst_per_warp = 0;
  // Sectors per local-load request (CUPTI l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum / _requests_
  // ..._op_ld.sum). Local memory interleaves a thread's words across the warp, so a request whose
  // lanes read the same slot of their arrays (a spill) takes 4 sectors, and one whose lanes index
  // their arrays by data scatters over up to 32 (hopper H.8b). Absent without those counters.
  std::optional<double> local_load_sectors_per_request;
  // Sectors per local-store request (CUPTI l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum / _requests_
  // ..._op_st.sum), read as the loads' count: a spill or a cleared array writes 4 or 8 sectors a
  // request, an array indexed by data up to 32 (hopper H.9c: the lines such stores dirty go back to
  // DRAM a sector at a time). Absent without those counters.
  std::optional<double> local_store_sectors_per_request;
  // Sectors per global-store request (CUPTI l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum /
  // _requests_..._op_st.sum): 4 for a warp writing one line, 32 for one writing a column. Hopper H.8c
  // trusts the SASS's picture of the stores only where it agrees with this count. Absent without
  // those counters.
  std::optional<double> store_sectors_per_request;

  // --- parallelism within a warp ---
  std::optional<double> ilp;               // ILP; when absent, eq 4.26 from the two counts below
  std::optional<double> static_instructions;  // #total_instructions of eq 4.26 (from the CFG)
  std::optional<double> basic_blocks;         // #basic_blocks of eq 4.26
  double mlp = 1;                          // MLP
  // Clocks one warp waits between instructions by the compiler's schedule (the SASS control bits'
  // stall counts, mean over the kernel's instructions), hopper variant; when absent it uses the
  // dependent FFMA latency / ILP.
  std::optional<double> stall_cycles_per_inst;

  // --- memory behaviour ---
  double transactions_per_request = 1;     // avg_trans_warp (gld_transactions_per_request)
  double transactions_per_uncoalesced_request = 32;  // #Uncoal_per_mw
  double l1_miss_ratio = 1;                // 1 - L1 global hit rate
  double l2_miss_ratio = 1;                // 1 - L2 hit rate for L1 misses
  int data_size_bytes = 4;                 // bytes each thread loads per request (eq 4.20)
  // Measured traffic per warp (CUPTI: lts__t_sectors x 32 / warps, dram__bytes / warps). When
  // absent the hopper variant derives them from the request counts and the miss ratios.
  std::optional<double> l2_bytes_per_warp;
  std::optional<double> dram_bytes_per_warp;
  // The written part of dram_bytes_per_warp (CUPTI dram__bytes_write / warps): the hopper variant
  // prices reads and writes at their own measured rates.
  std::optional<double> dram_write_bytes_per_warp;
  // The written part of l2_bytes_per_warp (CUPTI lts__t_sectors_op_write x 32 / warps): stores and
  // reductions reach L2 through the write-through L1 at the L2's write rate (hopper H.8).
  std::optional<double> l2_write_bytes_per_warp;
  // L1/shared data-pipe wavefronts per warp (CUPTI l1tex__data_pipe_lsu_wavefronts.sum / warps): the
  // L1 moves one wavefront per clock, and a request whose lanes touch many sectors takes many (hopper
  // H.7). When absent H.7 derives the data-path bytes from the request and sector counts.
  std::optional<double> l1_wavefronts_per_warp;
  // Global atomic and reduction lane operations per warp (CUPTI l1tex__t_sectors_pipe_lsu_mem_global
  // _op_red + _op_atom / warps: the L1 counts one sector per lane when the lanes share a word, so a
  // 32-lane atomicAdd to one word is 32 and a one-lane one is 1): the adds the L2 performs (hopper
  // H.15). Absent without those counters.
  std::optional<double> atomic_lane_ops_per_warp;
  // The atomics of the busiest L2 slice per warp (CUPTI lts__t_sectors_op_red.max + _op_atom.max /
  // warps): the slice that holds a word performs every atomic on it, one after another, so atomics
  // that crowd onto a few words wait on that slice (hopper H.15, for any addresses: a histogram's
  // data-dependent bins as well as a grid-wide sum). Absent without those counters.
  std::optional<double> busiest_slice_atomics_per_warp;

  // The global loads and stores as the SASS addresses them (profiles/sass address_analysis): lets
  // sweep and validate derive the memory counters at another launch shape (traffic.hpp). Absent when
  // the kernel's SASS was not analysed.
  std::optional<AccessPatterns> access_patterns;

  // Tensor-core work per warp (hopper H.17): dense FLOPs of the warp's MMA instructions (2 a
  // multiply-add), by input type (tensor_types.hpp: fp16, bf16, tf32, fp8, int8, fp64). The
  // kernel-profile writer takes the MMA instructions from the tensor pipe's counters and each
  // instruction's FLOPs from its SASS shape (HMMA.16816: 4096 a warp). Empty: no tensor work.
  std::map<std::string, double> tensor_flops_per_warp;
  // The part of tensor_flops_per_warp that warp-level MMAs issue (mma.sync, WMMA: SASS HMMA, IMMA, ...),
  // priced at the mma.sync rate where the device profile has it; the rest are warpgroup MMAs (wgmma).
  std::map<std::string, double> mma_sync_flops_per_warp;
  double tensor_inst_per_warp = 0;  // MMA instructions (HMMA, HGMMA, IMMA, DMMA, ...), for reference

  // Thread-block clusters (hopper H.18): the cluster-wide waits one warp passes (barrier.cluster
  // waits; waits for values other blocks of the cluster push into its shared memory), and the bytes
  // a warp stores into other blocks' shared memory (distributed shared memory). Absent: a launch with
  // clusters waits once (a block that used distributed shared memory must wait for its cluster
  // before it exits) and its remote bytes are not priced.
  std::optional<double> cluster_barrier_waits_per_warp;
  std::optional<double> remote_shared_waits_per_warp;
  std::optional<double> dsmem_bytes_per_warp;

  // How the launch this profile is compared with was timed (hopper H.12b): by a counter range (the
  // Range Profiler's or Nsight Compute's gpu__time_duration, as `profile -- APP` and `import-ncu` give
  // it) rather than by the Activity API's kernel timestamps the fitted constants are fitted to. The
  // prediction then adds the device's measured counter-range overhead, so that it and the measured
  // time are the same kind of number.
  bool timed_by_counter_range = false;

  // Where each number came from ("thesis eq 4.35", "cupti smsp__inst_executed.sum", ...).
  std::map<std::string, std::string> sources;

  double coalesced_mem_inst_per_warp() const { return mem_inst_per_warp - uncoalesced_mem_inst_per_warp; }
  // Whether `field` ("instructions_per_warp.total", ...) was counted on the device, not estimated.
  bool counted(const std::string& field) const {
    const auto it = sources.find(field);
    return it != sources.end() && it->second.rfind("cupti:", 0) == 0;
  }
};

}  // namespace warpmodel
