// Metric sets, the nvprof -> Perfworks table and name resolution (metrics.hpp).
//
// Sources for the translations: Nsight Compute's "Metrics Comparison" table (nvprof metric ->
// Nsight Compute metric), checked name by name against CUPTI's host API for GH100 (the test
// LegacyTable.EveryTranslationExistsOnGH100 does that on every build). Where nvprof used another
// unit (fraction instead of percent, GB/s instead of bytes/s) the factor restores nvprof's unit,
// and the note says so.
#include "warpmodel/cupti/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <sstream>

#include "warpmodel/counter_rules.hpp"
#include "warpmodel/support/text.hpp"

namespace warpmodel::cupti {
namespace {

// Short builders so each table row reads as one line.
LegacyMetric same(std::string nvprof, std::string perfworks, std::string unit, std::string note = {}) {
  LegacyMetric m;
  m.nvprof_name = std::move(nvprof);
  m.numerator = {{std::move(perfworks), 1}};
  m.unit = std::move(unit);
  m.note = std::move(note);
  return m;
}
LegacyMetric scaled(std::string nvprof, std::string perfworks, double factor, std::string unit, std::string note) {
  LegacyMetric m = same(std::move(nvprof), std::move(perfworks), std::move(unit), std::move(note));
  m.factor = factor;
  return m;
}
LegacyMetric sum(std::string nvprof, std::vector<WeightedMetric> terms, std::string unit, std::string note = {}) {
  LegacyMetric m;
  m.nvprof_name = std::move(nvprof);
  m.numerator = std::move(terms);
  m.unit = std::move(unit);
  m.note = std::move(note);
  return m;
}
LegacyMetric ratio(std::string nvprof, std::vector<WeightedMetric> num, std::vector<WeightedMetric> den, double factor,
                   std::string unit, std::string note = {}) {
  LegacyMetric m = sum(std::move(nvprof), std::move(num), std::move(unit), std::move(note));
  m.denominator = std::move(den);
  m.factor = factor;
  return m;
}
LegacyMetric rejected(std::string nvprof, std::string why) {
  LegacyMetric m;
  m.nvprof_name = std::move(nvprof);
  m.rejected = std::move(why);
  return m;
}
LegacyMetric sass(LegacyMetric m) {
  m.needs_sass_patching = true;
  return m;
}

// The nvprof stall reasons, as the percentage of active warps stalled for that reason per issue
// cycle (nvprof: "percentage of stalls occurring because ..."). Perfworks splits some reasons in two.
std::vector<WeightedMetric> stalls(std::initializer_list<const char*> reasons) {
  std::vector<WeightedMetric> v;
  for (const char* r : reasons) v.push_back({std::string("smsp__warp_issue_stalled_") + r + "_per_warp_active.pct", 1});
  return v;
}

std::vector<LegacyMetric> build_legacy_table() {
  const std::string replay_reason =
      "Volta and later GPUs do not replay instructions for divergent memory accesses; the extra work shows as "
      "extra L1TEX wavefronts/sectors instead (e.g. l1tex__data_pipe_lsu_wavefronts.sum), so no counter measures "
      "this overhead";
  const std::string subp_reason =
      "counted per L2 sub-partition of a Fermi/Kepler L2 slice, which sm_90's L2 does not have; the whole-L2 total "
      "is lts__t_sectors_op_read.sum / lts__t_sectors_op_write.sum";
  std::vector<LegacyMetric> t = {
      scaled("achieved_occupancy", "sm__warps_active.avg.pct_of_peak_sustained_active", 0.01, "fraction",
             "nvprof: active warps per active cycle / maximum warps, as a fraction (Perfworks gives percent)"),
      sum("atomic_transactions",
          {{"l1tex__t_set_accesses_pipe_lsu_mem_global_op_atom.sum", 1},
           {"l1tex__t_set_accesses_pipe_lsu_mem_global_op_red.sum", 1}},
          "count"),
      sass(same("branch_efficiency", "smsp__sass_average_branch_targets_threads_uniform.pct", "percent")),
      same("branch", "smsp__inst_executed_op_branch.sum", "warp instructions", "nvprof event"),
      sum("cf_executed", {{"smsp__inst_executed_pipe_cbu.sum", 1}, {"smsp__inst_executed_pipe_adu.sum", 1}},
          "warp instructions"),
      same("cta_launched", "sm__ctas_launched.sum", "blocks", "nvprof event"),
      sass(same("divergent_branch", "smsp__sass_branch_targets_threads_divergent.sum", "count", "nvprof event")),
      same("dram_read_bytes", "dram__bytes_read.sum", "bytes"),
      scaled("dram_read_throughput", "dram__bytes_read.sum.per_second", 1e-9, "GB/s", "1 GB = 1e9 bytes"),
      same("dram_read_transactions", "dram__sectors_read.sum", "32-byte sectors"),
      same("dram_utilization", "dram__throughput.avg.pct_of_peak_sustained_elapsed", "percent",
           "percent of peak, not nvprof's 0-10 level"),
      same("dram_write_bytes", "dram__bytes_write.sum", "bytes"),
      scaled("dram_write_throughput", "dram__bytes_write.sum.per_second", 1e-9, "GB/s", "1 GB = 1e9 bytes"),
      same("dram_write_transactions", "dram__sectors_write.sum", "32-byte sectors"),
      rejected("ecc_throughput", "ECC traffic is not exposed as a Perfworks counter on sm_90"),
      rejected("ecc_transactions", "ECC traffic is not exposed as a Perfworks counter on sm_90"),
      same("elapsed_cycles_sm", "sm__cycles_elapsed.sum", "cycles", "nvprof event"),
      same("eligible_warps_per_cycle", "smsp__warps_eligible.avg.per_cycle_active", "warps",
           "per warp scheduler (SMSP); nvprof's figure was per SM scheduler of its architecture"),
      sass(ratio("flop_count_dp",
                 {{"smsp__sass_thread_inst_executed_op_dadd_pred_on.sum", 1},
                  {"smsp__sass_thread_inst_executed_op_dmul_pred_on.sum", 1},
                  {"smsp__sass_thread_inst_executed_op_dfma_pred_on.sum", 2}},
                 {}, 1, "flops")),
      sass(ratio("flop_count_sp",
                 {{"smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", 1},
                  {"smsp__sass_thread_inst_executed_op_fmul_pred_on.sum", 1},
                  {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", 2}},
                 {}, 1, "flops")),
      sass(same("gld_efficiency", "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct", "percent",
                "requested bytes / transferred sector bytes")),
      same("gld_request", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "requests", "nvprof event"),
      scaled("gld_throughput", "l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum.per_second", 1e-9, "GB/s",
             "bytes of the 32-B sectors L1TEX serves for global loads; 1 GB = 1e9 bytes"),
      same("gld_transactions", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "32-byte sectors",
           "a transaction is a 32-byte sector on sm_70+ (nvprof on Kepler counted 128-byte L1 lines where L1 cached)"),
      same("gld_transactions_per_request", "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio",
           "sectors per request"),
      ratio("global_hit_rate",
            {{"l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum", 1},
             {"l1tex__t_sectors_pipe_lsu_mem_global_op_st_lookup_hit.sum", 1}},
            {{"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 1}, {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", 1}},
            100, "percent", "global loads and stores, by sector"),
      same("global_load_requests", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "requests"),
      same("global_store_requests", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "requests"),
      sass(same("gst_efficiency", "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct", "percent",
                "requested bytes / transferred sector bytes")),
      same("gst_request", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "requests", "nvprof event"),
      scaled("gst_throughput", "l1tex__t_bytes_pipe_lsu_mem_global_op_st.sum.per_second", 1e-9, "GB/s",
             "1 GB = 1e9 bytes"),
      same("gst_transactions", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "32-byte sectors"),
      same("gst_transactions_per_request", "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_st.ratio",
           "sectors per request"),
      rejected("global_cache_replay_overhead", replay_reason),
      rejected("global_replay_overhead", replay_reason),
      same("inst_executed", "smsp__inst_executed.sum", "warp instructions"),
      same("inst_issued", "smsp__inst_issued.sum", "warp instructions"),
      ratio("inst_per_warp", {{"smsp__inst_executed.sum", 1}}, {{"smsp__warps_launched.sum", 1}}, 1,
            "warp instructions per warp", "instructions executed / warps launched"),
      rejected("inst_replay_overhead", replay_reason),
      same("ipc", "sm__inst_executed.avg.per_cycle_active", "warp instructions per cycle", "per SM"),
      same("issue_slot_utilization", "smsp__issue_active.avg.pct_of_peak_sustained_active", "percent"),
      same("issued_ipc", "sm__inst_issued.avg.per_cycle_active", "warp instructions per cycle", "per SM"),
      same("l1_cache_global_hit_rate", "l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct", "percent",
           "global loads, by sector (nvprof on Kepler/Maxwell: by 128-byte request)"),
      ratio("l1_cache_local_hit_rate",
            {{"l1tex__t_sectors_pipe_lsu_mem_local_op_ld_lookup_hit.sum", 1},
             {"l1tex__t_sectors_pipe_lsu_mem_local_op_st_lookup_hit.sum", 1}},
            {{"l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", 1}, {"l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum", 1}},
            100, "percent", "local loads and stores, by sector"),
      same("l1_global_load_hit", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum", "32-byte sectors",
           "nvprof event (counted 128-byte lines on Fermi)"),
      same("l1_global_load_miss", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum", "32-byte sectors",
           "nvprof event (counted 128-byte lines on Fermi)"),
      same("l1_local_load_hit", "l1tex__t_sectors_pipe_lsu_mem_local_op_ld_lookup_hit.sum", "32-byte sectors",
           "nvprof event"),
      same("l1_local_load_miss", "l1tex__t_sectors_pipe_lsu_mem_local_op_ld_lookup_miss.sum", "32-byte sectors",
           "nvprof event"),
      same("l1_local_store_hit", "l1tex__t_sectors_pipe_lsu_mem_local_op_st_lookup_hit.sum", "32-byte sectors",
           "nvprof event"),
      same("l1_local_store_miss", "l1tex__t_sectors_pipe_lsu_mem_local_op_st_lookup_miss.sum", "32-byte sectors",
           "nvprof event"),
      same("l1_shared_bank_conflict", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum", "conflicts",
           "nvprof event"),
      sum("l2_read_transactions",
          {{"lts__t_sectors_op_read.sum", 1}, {"lts__t_sectors_op_atom.sum", 1}, {"lts__t_sectors_op_red.sum", 1}},
          "32-byte sectors"),
      rejected("l2_subp0_read_sector_queries", subp_reason),
      rejected("l2_subp0_write_sector_queries", subp_reason),
      rejected("l2_subp1_read_sector_queries", subp_reason),
      rejected("l2_subp1_write_sector_queries", subp_reason),
      same("l2_tex_hit_rate", "lts__t_sector_hit_rate.pct", "percent", "all L2 sector lookups"),
      same("l2_tex_read_hit_rate", "lts__t_sector_op_read_hit_rate.pct", "percent"),
      same("l2_tex_write_hit_rate", "lts__t_sector_op_write_hit_rate.pct", "percent"),
      sum("l2_write_transactions",
          {{"lts__t_sectors_op_write.sum", 1}, {"lts__t_sectors_op_atom.sum", 1}, {"lts__t_sectors_op_red.sum", 1}},
          "32-byte sectors"),
      same("ldst_fu_utilization", "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active", "percent",
           "percent of peak, not nvprof's 0-10 level"),
      same("local_load_transactions", "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", "32-byte sectors"),
      same("local_store_transactions", "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum", "32-byte sectors"),
      same("shared_ld_bank_conflict", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "conflicts",
           "nvprof event"),
      same("shared_load", "smsp__inst_executed_op_shared_ld.sum", "warp instructions", "nvprof event"),
      same("shared_load_transactions", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "wavefronts"),
      ratio("shared_load_transactions_per_request", {{"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", 1}},
            {{"smsp__inst_executed_op_shared_ld.sum", 1}}, 1, "wavefronts per request"),
      rejected("shared_replay_overhead", replay_reason),
      same("shared_st_bank_conflict", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "conflicts",
           "nvprof event"),
      same("shared_store", "smsp__inst_executed_op_shared_st.sum", "warp instructions", "nvprof event"),
      same("shared_store_transactions", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "wavefronts"),
      ratio("shared_store_transactions_per_request", {{"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", 1}},
            {{"smsp__inst_executed_op_shared_st.sum", 1}}, 1, "wavefronts per request"),
      sass(same("shared_efficiency", "smsp__sass_average_data_bytes_per_wavefront_mem_shared.pct", "percent")),
      same("shared_utilization", "l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed",
           "percent", "percent of peak, not nvprof's 0-10 level"),
      same("sm_efficiency", "smsp__cycles_active.avg.pct_of_peak_sustained_elapsed", "percent"),
      same("special_fu_utilization", "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active", "percent",
           "percent of peak, not nvprof's 0-10 level"),
      sum("stall_constant_memory_dependency", stalls({"imc_miss"}), "percent"),
      sum("stall_exec_dependency", stalls({"short_scoreboard", "wait"}), "percent"),
      sum("stall_inst_fetch", stalls({"no_instruction"}), "percent"),
      sum("stall_memory_dependency", stalls({"long_scoreboard"}), "percent"),
      sum("stall_memory_throttle", stalls({"drain", "lg_throttle"}), "percent"),
      sum("stall_not_selected", stalls({"not_selected"}), "percent"),
      sum("stall_other", stalls({"misc", "dispatch_stall"}), "percent"),
      sum("stall_pipe_busy", stalls({"math_pipe_throttle", "mio_throttle"}), "percent"),
      sum("stall_sync", stalls({"barrier", "membar"}), "percent"),
      sum("stall_texture", stalls({"tex_throttle"}), "percent"),
      same("tex_cache_hit_rate", "l1tex__t_sector_hit_rate.pct", "percent"),
      scaled("warp_execution_efficiency", "smsp__thread_inst_executed_per_inst_executed.ratio", 100.0 / 32.0,
             "percent", "active threads per warp instruction / 32"),
      same("warps_launched", "smsp__warps_launched.sum", "warps", "nvprof event"),
  };
  std::sort(t.begin(), t.end(), [](const LegacyMetric& a, const LegacyMetric& b) { return a.nvprof_name < b.nvprof_name; });
  return t;
}

std::vector<std::string> stall_metrics() {
  std::vector<std::string> v;
  for (const char* r : counter_rules::kStallReasons) v.push_back(counter_rules::stall_metric(r));
  return v;
}
// `metrics` followed by the 16 stall reasons.
std::vector<std::string> with_stall_metrics(std::vector<std::string> metrics) {
  const std::vector<std::string> stalls = stall_metrics();
  metrics.insert(metrics.end(), stalls.begin(), stalls.end());
  return metrics;
}

std::vector<MetricSet> build_sets() {
  return {
      {"model",
       "what the models read (README \"Kernel profile\"): instructions, warps, global requests and sectors, "
       "L1/L2 hit rates, DRAM and L2 bytes, achieved occupancy, cycles, shared-memory bank conflicts and "
       "wavefronts, barrier (ADU pipe) and SFU (XU pipe) instructions, async copies, L2 sectors by operation, L1 data-pipe wavefronts, local loads' and stores' requests and sectors, the 16 stall reasons (hopper H.1c's barrier share), tensor-pipe instructions (H.17); where the chip has it, the bytes sent to other SMs' shared memory (H.18c)",
       // One metric set: every counter `predict --model hopper` reads, the stall reasons of
       // H.1c (launch.barrier_wait_share) among them.
       with_stall_metrics({
           "smsp__inst_executed.sum",
           "smsp__inst_issued.sum",
           "smsp__warps_launched.sum",
           "smsp__inst_executed_op_global_ld.sum",
           "smsp__inst_executed_op_global_st.sum",
           "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
           "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
           "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
           "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
           "l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct",
           "lts__t_sector_hit_rate.pct",
           "dram__bytes_read.sum",
           "dram__bytes_write.sum",
           "sm__warps_active.avg.pct_of_peak_sustained_active",
           "sm__cycles_elapsed.avg",
           "sm__cycles_elapsed.max",
           "smsp__cycles_active.avg",
           "smsp__inst_executed_op_shared_ld.sum",
           "smsp__inst_executed_op_shared_st.sum",
           "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
           "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
           "smsp__inst_executed_op_local_ld.sum",
           "smsp__inst_executed_op_local_st.sum",
           // Local loads' sectors per request: spills (4) or data-indexed arrays (up to 32; hopper H.8b).
           "l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum",
           "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum",
           // And the local stores' (hopper H.9c: a data-indexed array's lines go back to DRAM a
           // sector at a time).
           "l1tex__t_requests_pipe_lsu_mem_local_op_st.sum",
           "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum",
           // Barriers: BAR.SYNC issues to the ADU pipe on sm_90 (measured: 32 __syncthreads per
           // thread raised smsp__inst_executed_pipe_adu.sum by 33 per warp and left the CBU pipe
           // unchanged); no counter counts BAR alone, the ADU pipe also runs a few other
           // instructions (3 per warp in the copy kernel). CBU: branches and convergence.
           "smsp__inst_executed_pipe_adu.sum",
           "smsp__inst_executed_pipe_cbu.sum",
           "smsp__inst_executed_op_branch.sum",
           "smsp__inst_executed_pipe_xu.sum",
           "gpu__time_duration.sum",
           // Everything else `predict --model hopper` reads (one metric set): asynchronous
           // copies (LDGSTS and TMA loads are not op_global_ld), L2 traffic, shared wavefronts.
           "smsp__inst_executed_op_ldgsts.sum",
           "smsp__inst_executed_op_tma_ld.sum",
           "lts__t_bytes.sum",
           "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
           // The L2's written sectors (H.8 prices them at the L2 write rate) and every LSU data-pipe
           // wavefront (H.7: the L1 moves one wavefront per clock; a scattered request takes many).
           "lts__t_sectors_op_write.sum",
           "l1tex__data_pipe_lsu_wavefronts.sum",
           // The L2 traffic of the kernel's own requests (H.8): sectors by operation; lts__t_bytes.sum
           // also counts L2 activity that is not the kernel's.
           "lts__t_sectors_op_read.sum",
           "lts__t_sectors_op_atom.sum",
           "lts__t_sectors_op_red.sum",
           // The global atomics' lane operations (H.15: the L2 performs adds to one word one after
           // another): the L1 counts a sector per lane where the lanes share a word.
           "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum",
           "l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum",
           // The busiest L2 slice's atomic sectors (H.15): a slice performs the atomics on the words
           // it holds one after another, so atomics that crowd onto a few words (a histogram of 8
           // bins, a grid-wide sum) wait on one slice however many slices the GPU has.
           "lts__t_sectors_op_red.max",
           "lts__t_sectors_op_atom.max",
       }),
       // Collected where the chip offers them (optional: a profile without them still predicts).
       // The tensor pipe's warp instructions, every MMA kind (HMMA, IMMA, DMMA, the GMMA of sm_90;
       // hopper H.17 takes each one's FLOPs from its SASS shape; GA100 .. GB202 count it); the bytes
       // the SM sends into other SMs' shared memory (distributed shared memory, hopper H.18c; sm_90
       // and later).
       {"smsp__inst_executed_pipe_tensor.sum", "l1tex__m_l1tex2xbar_write_bytes_mem_dshared.sum"}},
      {"stalls",
       "the warps in each stall state per issue-active cycle (the 16 reasons of sm_90): hopper H.1c reads the "
       "barrier share (launch.barrier_wait_share); the model set holds them too",
       stall_metrics()},
      {"seed-003",
       "the nvprof metrics read in the FWI 2D profiling study (../shared/notes/003-fwi2d-profiling.md), translated; "
       "stall reasons as nvprof named them",
       {"achieved_occupancy", "gld_transactions", "gst_transactions", "gld_throughput", "gst_throughput",
        "shared_load_transactions", "shared_store_transactions", "dram_read_throughput", "dram_write_throughput",
        "gld_efficiency", "gst_efficiency", "stall_exec_dependency", "stall_memory_dependency", "stall_sync",
        "stall_inst_fetch", "stall_not_selected", "stall_pipe_busy", "stall_memory_throttle",
        "stall_constant_memory_dependency", "stall_texture", "stall_other"}},
      {"seed-002",
       "the counters read in the ADI shallow-water study (../shared/notes/002-adi-shallow-water.md): gld/gst "
       "efficiency, L1 hit rate, IPC, instructions issued/executed, branches, local load/store hit/miss, L2 "
       "queries, shared loads/stores, bank conflicts",
       {"gld_efficiency", "gst_efficiency", "l1_cache_global_hit_rate", "ipc", "inst_issued", "inst_executed",
        "branch", "divergent_branch", "l1_local_load_hit", "l1_local_load_miss", "l1_local_store_hit",
        "l1_local_store_miss", "l2_read_transactions", "l2_write_transactions", "shared_load", "shared_store",
        "l1_shared_bank_conflict"}},
  };
}

// SASS-patched entries of a set are dropped when the Range Profiler cannot collect them; the set's
// description names them.
std::vector<MetricSet> collectable_sets() {
  std::vector<MetricSet> sets = build_sets();
  if (range_profiler_collects_sass_metrics()) return sets;
  for (auto& s : sets) {
    std::vector<std::string> kept, dropped;
    for (const auto& m : s.metrics) {
      const LegacyMetric* l = find_legacy_metric(m);
      const bool needs_sass = l ? l->needs_sass_patching : is_sass_patched_metric(m);
      (needs_sass ? dropped : kept).push_back(m);
    }
    if (!dropped.empty()) {
      s.description += "; not collected (SASS-patched, beyond the Range Profiler):";
      for (const auto& d : dropped) s.description += " " + d;
    }
    s.metrics = std::move(kept);
  }
  return sets;
}

std::string format_weight(double w) {
  std::ostringstream o;
  o << w;
  return o.str();
}

std::string join_terms(const std::vector<WeightedMetric>& terms) {
  std::string s;
  for (std::size_t i = 0; i < terms.size(); ++i) {
    if (i) s += " + ";
    if (terms[i].weight != 1) s += format_weight(terms[i].weight) + " * ";
    s += terms[i].metric;
  }
  return s;
}

std::string base_of(std::string_view name) {
  const auto dot = name.find('.');
  return std::string(name.substr(0, dot));
}

}  // namespace

const std::vector<LegacyMetric>& legacy_metrics() {
  static const std::vector<LegacyMetric> table = build_legacy_table();
  return table;
}

const LegacyMetric* find_legacy_metric(std::string_view nvprof_name) {
  for (const auto& m : legacy_metrics())
    if (m.nvprof_name == nvprof_name) return &m;
  return nullptr;
}

const std::vector<MetricSet>& metric_sets() {
  static const std::vector<MetricSet> sets = collectable_sets();
  return sets;
}

const MetricSet* find_metric_set(std::string_view name) {
  for (const auto& s : metric_sets())
    if (s.name == name) return &s;
  return nullptr;
}

bool is_sass_patched_metric(std::string_view perfworks_name) {
  return perfworks_name.find("__sass_") != std::string_view::npos;
}

// Measured on the H200 (CUDA 13.0, driver 580.159.04): the Range Profiler returned
// smsp__sass_inst_executed_op_global_ld.sum = 2,097,152 for a copy of 2^26 floats, the exact
// warp count and equal to the hardware counter smsp__inst_executed_op_global_ld.sum, and
// smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct = 100 for that coalesced copy
// (README "CUPTI collection"). CUPTI patches the kernel's SASS for these itself.
bool range_profiler_collects_sass_metrics() { return true; }

std::vector<std::string> LegacyMetric::inputs() const {
  std::vector<std::string> v;
  for (const auto* terms : {&numerator, &denominator})
    for (const auto& t : *terms)
      if (std::find(v.begin(), v.end(), t.metric) == v.end()) v.push_back(t.metric);
  return v;
}

std::string LegacyMetric::expression() const {
  if (is_rejected()) return "";
  std::ostringstream o;
  const bool bracket_numerator = numerator.size() > 1 && (factor != 1 || !denominator.empty());
  if (factor != 1) o << format_weight(factor) << " * ";
  if (bracket_numerator) o << '(';
  o << join_terms(numerator);
  if (bracket_numerator) o << ')';
  if (!denominator.empty()) {
    o << " / ";
    if (denominator.size() > 1) o << '(' << join_terms(denominator) << ')';
    else o << join_terms(denominator);
  }
  return o.str();
}

double LegacyMetric::evaluate(const std::map<std::string, double>& values) const {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (is_rejected()) return nan;
  auto total = [&](const std::vector<WeightedMetric>& terms, double& out) {
    out = 0;
    for (const auto& t : terms) {
      const auto it = values.find(t.metric);
      if (it == values.end()) return false;
      out += t.weight * it->second;
    }
    return true;
  };
  double num = 0, den = 1;
  if (!total(numerator, num)) return nan;
  if (!denominator.empty()) {
    if (!total(denominator, den)) return nan;
    if (den == 0) return nan;
  }
  return factor * num / den;
}

std::vector<LegacyTableRow> legacy_table_rows() {
  std::vector<LegacyTableRow> rows;
  for (const auto& m : legacy_metrics()) {
    LegacyTableRow r{m.nvprof_name, m.is_rejected() ? "(none)" : m.expression(), m.unit,
                     m.is_rejected() ? "rejected: " + m.rejected : m.note};
    if (m.needs_sass_patching && !range_profiler_collects_sass_metrics())
      r.note = "rejected: SASS-patched metric, beyond the Range Profiler" + (r.note.empty() ? "" : "; " + r.note);
    rows.push_back(std::move(r));
  }
  return rows;
}

std::string legacy_metrics_markdown() {
  std::ostringstream o;
  o << "# nvprof metric names in warpmodel\n\n"
       "Generated by `warpmodel metrics --legacy --format markdown` from profiles/cupti/src/metrics.cpp (the test "
       "LegacyTable.DocumentIsInSync keeps this file equal to it). `warpmodel profile --metrics NAME` accepts each "
       "translated name, collects the Perfworks metrics of its expression and reports the value under `derived` "
       "(JSON) / source `nvprof` (CSV), in the unit shown. A rejected name stops the run with its reason.\n\n";
  o << "| nvprof name | Perfworks expression | unit | note |\n|---|---|---|---|\n";
  for (const auto& r : legacy_table_rows())
    o << "| " << r.nvprof_name << " | " << r.expression << " | " << r.unit << " | " << r.note << " |\n";
  return o.str();
}

std::vector<std::string> split_list(std::string_view text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto comma = text.find(',', start);
    const auto end = comma == std::string_view::npos ? text.size() : comma;
    std::string item(text.substr(start, end - start));
    const auto first = item.find_first_not_of(" \t");
    const auto last = item.find_last_not_of(" \t");
    if (first != std::string::npos) out.push_back(item.substr(first, last - first + 1));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

std::vector<std::string> closest_names(std::string_view wanted, const std::vector<std::string>& candidates,
                                       std::size_t count) {
  // Rank by the distance of the base names (before the first '.': the counter), then of the
  // whole names (the roll-up), so "dram__bytes_red.sum" finds "dram__bytes_read.sum" before
  // "dram__bytes.sum".
  const std::string wanted_base = base_of(wanted);
  struct Scored {
    std::size_t base, whole;
    const std::string* name;
  };
  std::vector<Scored> scored;
  scored.reserve(candidates.size());
  for (const auto& c : candidates)
    scored.push_back({support::edit_distance(wanted_base, base_of(c)), support::edit_distance(wanted, c), &c});
  const std::size_t n = std::min(count, scored.size());
  std::partial_sort(scored.begin(), scored.begin() + static_cast<std::ptrdiff_t>(n), scored.end(),
                    [](const Scored& a, const Scored& b) {
                      if (a.base != b.base) return a.base < b.base;
                      if (a.whole != b.whole) return a.whole < b.whole;
                      return *a.name < *b.name;
                    });
  std::vector<std::string> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(*scored[i].name);
  return out;
}

MetricPlan resolve_metrics(const std::vector<std::string>& request,
                           const std::function<bool(const std::string&)>& is_valid_perfworks,
                           const std::function<std::vector<std::string>()>& candidates, bool allow_sass) {
  MetricPlan plan;
  std::set<std::string> collected, derived;
  auto collect = [&](const std::string& m) {
    if (collected.insert(m).second) plan.collect.push_back(m);
  };
  auto reject_sass = [&](const std::string& name, const std::string& metric) {
    throw MetricNameError("metric '" + name + "' needs " + metric +
                          ", a SASS-patched metric: Nsight Compute and CUPTI's SASS Metrics API make it by "
                          "instrumenting the kernel, the Range Profiler's hardware counters cannot; use ncu for it");
  };
  // Expand sets first so that "model,foo" works.
  std::vector<std::string> names, optional;
  for (const auto& entry : request)
    for (const auto& item : split_list(entry)) {
      plan.requested.push_back(item);
      if (const MetricSet* s = find_metric_set(item)) {
        names.insert(names.end(), s->metrics.begin(), s->metrics.end());
        optional.insert(optional.end(), s->optional_metrics.begin(), s->optional_metrics.end());
      } else {
        names.push_back(item);
      }
    }
  if (names.empty()) throw MetricNameError("no metrics requested; name a set (model, stalls, seed-003, seed-002) or metrics");
  for (const auto& name : names) {
    if (const LegacyMetric* l = find_legacy_metric(name)) {
      if (l->is_rejected())
        throw MetricNameError("nvprof metric '" + name + "' has no Perfworks equivalent: " + l->rejected);
      for (const auto& in : l->inputs()) {
        if (!allow_sass && is_sass_patched_metric(in)) reject_sass(name, in);
        collect(in);
      }
      if (derived.insert(name).second) plan.derived.push_back({name, l});
      continue;
    }
    if (is_valid_perfworks(name)) {
      if (!allow_sass && is_sass_patched_metric(name)) reject_sass(name, name);
      collect(name);
      continue;
    }
    // Unknown: suggest among the chip's names, the legacy names and the set names.
    std::vector<std::string> pool = candidates ? candidates() : std::vector<std::string>{};
    for (const auto& l : legacy_metrics()) pool.push_back(l.nvprof_name);
    for (const auto& s : metric_sets()) pool.push_back(s.name);
    std::string msg = "unknown metric '" + name + "'; closest valid names:";
    auto close = closest_names(name, pool, 3);
    // Keep the roll-up the user asked for (".max", ".avg.per_second", ...) where the suggested
    // counter has it.
    const auto dot = name.find('.');
    if (dot != std::string::npos)
      for (auto& c : close) {
        const std::string with_suffix = base_of(c) + name.substr(dot);
        if (with_suffix != c && is_valid_perfworks(with_suffix)) c = with_suffix;
      }
    for (std::size_t i = 0; i < close.size(); ++i) msg += (i ? ", " : " ") + close[i];
    msg += " (`warpmodel metrics --list --filter TEXT` lists the device's metrics)";
    throw MetricNameError(msg);
  }
  // A set's optional metrics: collected where the chip has them, listed as unavailable otherwise.
  for (const auto& name : optional) {
    if (collected.count(name)) continue;
    if (is_valid_perfworks(name) && (allow_sass || !is_sass_patched_metric(name))) collect(name);
    else if (std::find(plan.unavailable.begin(), plan.unavailable.end(), name) == plan.unavailable.end())
      plan.unavailable.push_back(name);
  }
  return plan;
}

}  // namespace warpmodel::cupti
