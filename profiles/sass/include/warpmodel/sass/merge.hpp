// `warpmodel kernel-profile`: one launch's KernelProfile ("warpmodel.kernel/1", the file
// `warpmodel predict` reads) from the static analysis of the binary and, when given, the CUPTI
// counters of that launch. Every field's entry in KernelProfile::sources says where it came from.
//
// The counters file is what `warpmodel profile` (profiles/cupti) writes:
//
//   { "schema": "warpmodel.profile/1",
//     "device": {...}, "provenance": {...},                  // free-form objects
//     "launches": [ { "kernel": "<mangled>", "demangled": "<demangled>", "launch_index": 0,
//                     "grid": [x,y,z], "block": [x,y,z], "registers_per_thread": n,
//                     "shared_memory_per_block_bytes": n, "duration_ns": n,
//                     "metrics": { "<perfworks metric name>": value, ... } } ] }
//
// grid/block may also be one integer; a metric whose value is not a number (null: not collected)
// counts as missing; other keys (label, derived, collection, ...) are ignored. launch_index is the
// launch's number as `warpmodel profile` wrote it (when absent: its rank among the kernel's
// launches). A collection { "schema": "warpmodel.profile-collection/1", "profiles": [ <profile>,
// ... ] } (results/h200/metrics.json) is read as all its profiles' launches, each with its own
// device object.
//
// Counters -> KernelProfile (per warp = divided by W = smsp__warps_launched.sum; the first name
// of each list that the launch holds is used; a field none of whose names is present falls back
// to its static value, and its source says so):
//
// | field                                 | counters                                                                    |
// |---------------------------------------|-----------------------------------------------------------------------------|
// | (W, warps)                            | smsp__warps_launched.sum; else grid x ceil(block/32) from the launch        |
// | instructions_per_warp.total           | smsp__inst_executed.sum / W                                                 |
// | instructions_per_warp.memory          | (smsp__inst_executed_op_global_ld.sum + smsp__inst_executed_op_global_st.sum) / W; |
// |                                       | else (l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum + _op_st.sum) / W     |
// | instructions_per_warp.global_load     | smsp__inst_executed_op_global_ld.sum / W; else static LDG + LD               |
// | instructions_per_warp.async_copy      | (smsp__inst_executed_op_ldgsts.sum + smsp__inst_executed_op_tma_ld.sum) / W;  |
// |                                       | else static LDGSTS + TMA                                                    |
// | instructions_per_warp.fp              | sum of smsp__sass_thread_inst_executed_op_{fadd,fmul,ffma,dadd,dmul,dfma,hadd,hmul,hfma}_pred_on.sum / 32 / W |
// | instructions_per_warp.sfu             | smsp__inst_executed_pipe_xu.sum / W (the XU pipe: MUFU and conversions)     |
// | instructions_per_warp.sync            | 0 when the kernel has no BAR instruction; else                              |
// |                                       | smsp__inst_executed_op_barrier.sum / W; else smsp__inst_executed_pipe_adu.sum |
// |                                       | / W (sm_90 has no barrier counter; BAR issues to the ADU pipe). Not the CBU |
// |                                       | pipe: it also runs branches and convergence instructions                    |
// | instructions_per_warp.shared          | (smsp__inst_executed_op_shared_ld.sum + smsp__inst_executed_op_shared_st.sum) / W |
// | memory.l2_bytes_per_warp              | (lts__t_sectors_op_read + op_write + op_atom + op_red).sum x 32 / W; else   |
// |                                       | lts__t_bytes.sum / W; else lts__t_sectors.sum x 32 / W; else not set        |
// | memory.dram_bytes_per_warp            | (dram__bytes_read.sum + dram__bytes_write.sum) / W; else not set            |
// | memory.dram_write_bytes_per_warp      | dram__bytes_write.sum / W, beside dram_bytes_per_warp; else not set          |
// | instructions_per_warp.local_load      | smsp__inst_executed_op_local_ld.sum / W; else the SASS's LDL count          |
// | memory.l1_wavefronts_per_warp         | l1tex__data_pipe_lsu_wavefronts.sum / W; else not set                       |
// | memory.local_load_sectors_per_request | l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum / l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum; else not set |
// | memory.local_store_sectors_per_request | l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum / l1tex__t_requests_pipe_lsu_mem_local_op_st.sum; else not set |
// | memory.l2_write_bytes_per_warp        | lts__t_sectors_op_write.sum x 32 / W, beside l2_bytes_per_warp; else not set |
// | memory.transactions_per_request       | l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum / l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum |
// | memory.l1_miss_ratio                  | 1 - l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct / 100; else      |
// |                                       | 1 - l1tex__t_sector_hit_rate.pct / 100                                      |
// | memory.l2_miss_ratio                  | 1 - lts__t_sector_hit_rate.pct / 100; else 1 - lts__t_sector_op_read_hit_rate.pct / 100 |
// | memory.bank_conflicts_per_warp        | l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum / W; else (_op_ld.sum + _op_st.sum) / W |
// | launch.active_warps_per_sm            | sm__warps_active.avg.pct_of_peak_sustained_active x max warps per SM / 100  |
// |                                       | (max warps: --device profile, else the counters' device object:             |
// |                                       | max_warps_per_sm, max_threads_per_sm / 32 or compute_capability); else      |
// |                                       | sm__warps_active.avg.per_cycle_active                                       |
// | launch.barrier_wait_share             | smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio / the sum  |
// |                                       | of the 16 stall reasons' ratios present (metric set "model"); else not set  |
// | launch.grid/block/registers/shared    | the launch record (registers and static shared memory else res-usage)       |
// | launch.cluster                        | the launch record's cluster (the Activity API's clusterX/Y/Z, ncu's         |
// |                                       | launch__cluster_dim_x/y/z), where the launch had clusters                   |
// | instructions_per_warp.tensor          | smsp__inst_executed_pipe_tensor.sum / W; else the SASS's MMA count           |
// | tensor_flops_per_warp                 | instructions_per_warp.tensor x the SASS's static FLOPs per MMA by input type |
// |                                       | (analysis.hpp tensor_work)                                                  |
// | instructions_per_warp.cluster_barrier_wait, .remote_shared_wait | the SASS's UCGABAR_WAIT, and its mbarrier      |
// |                                       | try-waits where it pushes with STAS (each once; no counter counts them)      |
// | memory.dsmem_bytes_per_warp           | l1tex__m_l1tex2xbar_write_bytes_mem_dshared.sum / W; else the SASS's STAS    |
// |                                       | bytes x 32 lanes                                                            |
//
// Static fields (always from the binary): parallelism.static_instructions and basic_blocks,
// parallelism.ilp (eq 4.26, or the dependency ILP with --ilp dependency),
// parallelism.stall_cycles_per_instruction (control bits, analysis.hpp), parallelism.mlp
// (mlp_mean), memory.data_size_bytes (mean global load width).
//
// Without counters the dynamic fields are static estimates, labelled "static estimate" in sources:
// per-warp counts = the static counts (each instruction once: loops not unrolled, every branch
// taken; shared = LDS + STS + LDSM + ATOMS); transactions_per_request = mean global load bytes x 32 lanes / 32-byte sectors (fully
// coalesced); l1/l2 miss ratios = 1 (no cache hits assumed); bank conflicts 0; active warps from
// the occupancy calculator; L2/DRAM bytes not set (the model derives them).
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "warpmodel/kernel_profile.hpp"
#include "warpmodel/sass/analysis.hpp"

namespace warpmodel::sass {

inline constexpr const char* kProfileSchema = "warpmodel.profile/1";
inline constexpr const char* kProfileCollectionSchema = "warpmodel.profile-collection/1";

struct CounterLaunch {
  std::string kernel;     // mangled
  std::string demangled;  // may be empty
  int launch_index = 0;
  Dim3 grid, block;
  std::optional<Dim3> cluster;  // blocks of a thread-block cluster, where the launch had clusters
  std::optional<int> registers_per_thread;
  std::optional<int> shared_memory_per_block_bytes;
  std::optional<double> duration_ns;
  // duration_ns is a counter range's gpu__time_duration (the profile's collection.timing_runs is 0:
  // `profile -- APP`, `import-ncu`), not the Activity API's timestamps (hopper H.12b).
  bool duration_from_counter_range = false;
  std::map<std::string, double> metrics;  // numeric values only
  nlohmann::json device = nlohmann::json::object();  // the profile's device object
  std::string workload;                              // the profile's workload, when it names one
  std::string where;                                 // "launches[3]" or "profiles[1].launches[0]"
};

struct CounterFile {
  std::string origin;
  std::vector<CounterLaunch> launches;
};

// Throws warpmodel::InputError (one line: file, field, what was expected).
CounterFile counters_from_json(const nlohmann::json& j, const std::string& origin);
CounterFile load_counters(const std::filesystem::path& path);

// A kernel's thread-block-cluster statics from its SASS (analysis.hpp: UCGABAR_WAIT, STAS and its bytes
// per thread, the mbarrier waits for values other blocks push), as hopper H.18 reads them: each wait
// once per warp, and 32 lanes x the STAS bytes as the warp's bytes into other blocks (a static
// estimate, replaced by the measured l1tex__m_l1tex2xbar_write_bytes_mem_dshared where a profile has it).
// Nothing for a kernel with neither waits nor remote stores.
struct ClusterStatics {
  int barrier_waits = 0, remote_shared_stores = 0, remote_store_bytes_per_thread = 0, remote_data_waits = 0;
};
void add_cluster_statics(KernelProfile& k, const ClusterStatics& s);

// Hopper H.12b's measurement: a small kernel timed both ways in one `warpmodel profile --kernel copy`
// run (profiler-floor.json): by the Activity API (duration_ns, the median of its timed runs) and by the
// counter range (its metric gpu__time_duration.sum). The median over its launches of the second less
// the first, ns (0 where the range is the shorter). Throws InputError naming the file where no launch
// was timed both ways.
double counter_range_overhead_ns(const CounterFile& both_ways);

// --launch "grid=8x8x8,block=8x8x4[,smem=BYTES][,domain=50x50x50]" (dimensions "X", "XxY", "XxYxZ").
struct LaunchSpec {
  std::optional<Dim3> grid, block, domain;
  std::optional<int> dynamic_shared_bytes;
};
LaunchSpec parse_launch_spec(const std::string& text);  // throws InputError naming --launch

enum class IlpChoice { Thesis, Dependency };

struct MergeInputs {
  const KernelStatics* statics = nullptr;  // required
  std::string binary;                      // for sources
  const CounterLaunch* launch = nullptr;   // optional
  std::string counters_origin;             // for sources
  LaunchSpec launch_spec;
  IlpChoice ilp = IlpChoice::Thesis;
  std::optional<double> max_warps_per_sm;  // from a device profile, for achieved occupancy
};

// Throws InputError when the launch configuration is unknown (no counters and no --launch).
KernelProfile make_kernel_profile(const MergeInputs& in);

// The kernel `query` names: exactly (mangled, demangled or short name), else as a substring of
// those. Throws InputError for no match (listing the closest names) or several (listing them).
const KernelStatics& select_kernel(const std::vector<KernelStatics>& kernels, const std::string& query,
                                   const std::string& binary);
// The launch of `kernel` in the counters (its first, or the first with launch_index). Throws
// InputError listing the kernels the file holds when there is none.
const CounterLaunch& select_launch(const CounterFile& counters, const KernelStatics& kernel,
                                   std::optional<int> launch_index);

}  // namespace warpmodel::sass
