#include "registry.hpp"

#include <algorithm>
#include <tuple>

#include "constants.hpp"

namespace warpmodel::ubench {
namespace {

using namespace sizes;

// Loop bookkeeping tolerated in the loop-timed regions (throughput kernels): the counter, its
// compare and branch, and the moves ptxas adds around them. The check counts the static body.
const std::string kLoopRegex =
    "IADD3|VIADD|UIADD3|IMAD\\.IADD|ISETP\\..*|UISETP\\..*|BRA|BSSY|BSYNC|P?LOP3\\.LUT|R2UR|MOV|HFMA2\\.MMA|IMAD\\.MOV.*";
// The memory-pipe kernels also consume every loaded value (LOP3) and may reload the buffer
// pointer from the parameter bank (LDC) inside the region.
const std::string kMemoryLoopRegex = kLoopRegex + "|LDC(\\..*)?|ULDC(\\..*)?|IMAD(\\..*)?|LEA(\\..*)?";
// What a `fence.acq_rel.gpu` compiles to on sm_90 (the stop read then waits for the stores), and
// the one S2R SR_TID.X ptxas may hoist from the result write (lane == 0) to before the fence: once
// per repetition, after the loop, hidden by the fence's wait.
const std::string kFenceRegex = "MEMBAR\\..*|ERRBAR|CGAERRBAR|CCTL\\..*|S2R";

std::vector<int> warps_1_to(int n) {
  std::vector<int> w;
  for (int k = 1; k <= n; ++k) w.push_back(k);
  return w;
}
const std::vector<int> kAllWarps = warps_1_to(kMaxWarpsPerBlock);
const std::vector<int> kThroughputWarps = {1, 2, 4, 8, 16, 32};

// 4 KiB .. 4 GiB in steps of x1.5 / x2, plus 208, 224, 240 KiB to resolve the L1 at the largest
// carveout (README "Memory latency").
std::vector<std::size_t> chase_footprints() {
  constexpr std::size_t kMax = std::size_t(4) << 30;
  std::vector<std::size_t> f;
  for (std::size_t x = 4096; x <= kMax; x *= 2) {
    f.push_back(x);
    if (x < kMax) f.push_back(x * 3 / 2);
  }
  for (std::size_t x : {208u << 10, 224u << 10, 240u << 10}) f.push_back(x);
  std::sort(f.begin(), f.end());
  return f;
}

Declaration latency_row(std::string name, std::string group, std::string kernel, std::string ptx, KernelVariant v,
                        std::string sass, int count, std::string allowed, int chain, std::vector<int> warps) {
  Declaration d;
  d.name = std::move(name);
  d.group = std::move(group);
  d.kernel = std::move(kernel);
  d.ptx = std::move(ptx);
  d.method = Method::latency_chain;
  d.variant = v;
  d.sass_regex = std::move(sass);
  d.sass_count = count;
  d.allowed_regex = std::move(allowed);
  d.chain = chain;
  d.axes.warps_per_block = std::move(warps);
  d.axes.note = "1 block of 1..32 warps";
  return d;
}

// A memory-pipe throughput row: TimedKernel, a loop of kMemorySteps x `per_step` operations.
Declaration rate_row(std::string name, std::string result, std::string group, std::string kernel, std::string ptx,
                     Method method, std::string sass, int per_step, std::string allowed, Rate rate,
                     std::vector<int> warps, std::string note) {
  Declaration d;
  d.name = std::move(name);
  d.result = std::move(result);
  d.group = std::move(group);
  d.kernel = std::move(kernel);
  d.ptx = std::move(ptx);
  d.method = method;
  d.variant = TimedKernel{};
  d.sass_regex = std::move(sass);
  d.sass_count = per_step;
  d.allowed_regex = allowed.empty() ? kMemoryLoopRegex : allowed + "|" + kMemoryLoopRegex;
  d.chain = per_step;
  d.rate = rate;
  d.axes.warps_per_block = std::move(warps);
  d.axes.every_sm = true;
  d.axes.note = std::move(note);
  d.output = Output::throughput;
  return d;
}

Declaration bandwidth_row(std::string name, std::string kernel, BandwidthKind kind, std::string ptx,
                          std::string sass, int count) {
  Declaration d;
  d.name = std::move(name);
  d.group = "bandwidth";
  d.kernel = std::move(kernel);
  d.ptx = std::move(ptx);
  d.method = Method::bandwidth;
  d.variant = kind;
  d.sass_region = SassRegion::whole_kernel;
  d.sass_regex = std::move(sass);
  d.sass_count = count;
  d.allowed_regex = ".*";  // the loop and its address arithmetic; the memory op is what is counted
  d.output = Output::special;
  d.axes.note = "every SM, CUDA events around each launch";
  return d;
}

// The two rows of an ALU op of ubench.def: its latency chain and its throughput loop.
void add_alu_rows(std::vector<Declaration>& d, int alu, const std::string& name, const std::string& ptx,
                  const std::string& sass_regex, int sass_per_op, const std::string& allowed_regex, int chain,
                  double spec, const std::string& minus) {
  Declaration lat = latency_row(name, "alu", "ubench_lat_" + name, ptx, AluKernel{alu, false}, sass_regex,
                                chain * sass_per_op, allowed_regex, chain, kAllWarps);
  lat.spec_per_clk_sm = spec;
  lat.minus = minus;
  lat.alu_index = alu;
  d.push_back(lat);
  Declaration thr;
  thr.name = name + ".throughput";
  thr.result = name;
  thr.group = "alu_throughput";
  thr.kernel = "ubench_thr_" + name;
  thr.ptx = ptx;
  thr.method = Method::block_throughput;
  thr.variant = AluKernel{alu, true};
  thr.sass_regex = sass_regex;
  thr.sass_count = kThroughputUnroll * sass_per_op * kThroughputIlp;
  thr.allowed_regex = allowed_regex.empty() ? kLoopRegex : allowed_regex + "|" + kLoopRegex;
  thr.chain = chain;
  thr.ilp = kThroughputIlp;
  thr.spec_per_clk_sm = spec;
  thr.alu_index = alu;
  thr.rate = Rate{"ops", 32.0 * chain * kThroughputIlp, true, 0, 0};
  thr.axes.warps_per_block = {32};
  thr.axes.every_sm = true;
  thr.axes.note = "32 warps x 1 block per SM, 8 independent chains per thread";
  thr.output = Output::throughput;
  d.push_back(thr);
}


// --- the Hopper units (stage "tensor", unit_kernels.cu) ---
// Bookkeeping the unit kernels' timed regions may hold around the declared instruction: the loop,
// address and tile-index arithmetic (uniform datapath included), the single-thread issue (ELECT,
// VOTEU, BRA.U.ANY), the modulo's reciprocal (I2F, MUFU.RCP, F2I), the parameter and shared-window
// reads (LDC, S2R, S2UR).
const std::string kUnitBookkeeping =
    kLoopRegex + "|S2R|S2UR|CS2R|LDC(\\..*)?|ULDC(\\..*)?|U?LEA(\\.HI)?(\\..*)?|U?SHF\\..*|ULOP3\\.LUT|U?IMAD(\\..*)?"
                 "|UIADD3(\\.X)?|IADD3\\.X|U?SEL|UMOV|ELECT|VOTEU\\..*|BRA\\.U\\.ANY|I2F\\..*|F2I\\..*|MUFU\\.RCP|U?PRMT"
                 "|UIMAD(\\..*)?";

Declaration unit_row(std::string name, std::string section, std::string result, std::string kernel, std::string ptx,
                     Method method, std::string sass, int count, std::string also, int also_count, std::string allowed,
                     std::vector<int> warps, std::vector<int> clusters, std::string note) {
  Declaration d;
  d.name = std::move(name);
  d.group = section;
  d.section = std::move(section);
  d.result = std::move(result);
  d.kernel = std::move(kernel);
  d.ptx = std::move(ptx);
  d.method = method;
  d.variant = UnitKernel{};
  d.stage = kStageTensor;
  d.sass_regex = std::move(sass);
  d.sass_count = count;
  d.also_regex = std::move(also);
  d.also_count = also_count;
  d.allowed_regex = std::move(allowed);
  d.axes.warps_per_block = std::move(warps);
  d.axes.clusters = std::move(clusters);
  d.axes.every_sm = method == Method::unit_throughput;
  d.axes.note = std::move(note);
  d.output = Output::unit;
  return d;
}
// A latency row: `chain` operations per timed region, one block (or cluster) of `warps` warps.
Declaration unit_latency_row(std::string name, std::string section, std::string result, std::string kernel,
                             std::string ptx, std::string sass, int chain, int per_op, std::string also,
                             int also_per_op, std::string allowed, int warps, std::vector<int> clusters,
                             std::string note) {
  Declaration d = unit_row(std::move(name), std::move(section), std::move(result), std::move(kernel), std::move(ptx),
                           Method::unit_latency, std::move(sass), chain * per_op, std::move(also),
                           chain * also_per_op, std::move(allowed), {warps}, std::move(clusters), std::move(note));
  d.chain = chain;
  return d;
}
// A rate row: `steps` loop trips a region, each doing `per_step` units per warp.
Declaration unit_rate_row(std::string name, std::string section, std::string result, std::string kernel,
                          std::string ptx, std::string sass, int count, std::string also, int also_count,
                          std::string allowed, std::string unit, double per_step, int steps, std::vector<int> warps,
                          std::vector<int> clusters, std::string spec_key, std::string note) {
  Declaration d = unit_row(std::move(name), std::move(section), std::move(result), std::move(kernel), std::move(ptx),
                           Method::unit_throughput, std::move(sass), count, std::move(also), also_count,
                           std::move(allowed), std::move(warps), std::move(clusters), std::move(note));
  d.steps = steps;
  d.chain = steps;
  d.rate = Rate{std::move(unit), per_step * steps, true, 0, 0};
  d.spec_key = std::move(spec_key);
  return d;
}

void add_tensor_stage(std::vector<Declaration>& d) {
  // Tensor cores (tensor.def): per row a latency chain and a throughput loop. Rates in ops (2 per
  // multiply-add; FLOP for the floating types), the sparse ones counted at their dense twin's shape.
  // The loop's counter set-up (UMOV) and a parameter read (LDC: the sparse metadata) may sit in the region.
  const std::string kTensorLoop = "UMOV|LDC|S2R|" + kLoopRegex;
  const std::string kWgmmaLoop = "WARPGROUP\\.ARRIVE|WARPGROUP\\.DEPBAR\\.LE|" + kTensorLoop;
#define UBENCH_MMA(op, dtype, T, constraint, ptx, sass_regex, sass_per_op, allowed_regex, ops_per_op, spec)          \
  {                                                                                                          \
    const std::string result = std::string(#op) + "." #dtype;                                                \
    const std::string key = std::string(#dtype) + (std::string(#op) == "mma_sp" ? "_sparse" : "");           \
    const std::string allowed = std::string(allowed_regex).empty() ? "LDC" : std::string(allowed_regex) + "|LDC";  \
    Declaration lat = unit_latency_row(result, "tensor_cores", result, "ubench_mma_lat_" #op "_" #dtype, ptx,     \
                                       sass_regex, kMmaChain, sass_per_op, "", 0, allowed, 1, {},                  \
                                       "1 warp, 64 dependent mma (the accumulator carries the chain)");           \
    lat.spec_per_clk_sm = spec;                                                                              \
    lat.spec_key = key;                                                                                      \
    d.push_back(lat);                                                                                        \
    Declaration thr = unit_rate_row(result + ".throughput", "tensor_cores", result, "ubench_mma_thr_" #op "_" #dtype, \
                                    ptx, sass_regex, kMmaIlp * sass_per_op, "", 0,                            \
                                    allowed + "|" + kTensorLoop, "ops",                                         \
                                    double(kMmaIlp) * ops_per_op, kMmaSteps, {4, 8, 16}, {}, key,                 \
                                    "1 block per SM on every SM, 4-16 warps, 8 independent accumulators per warp"); \
    thr.spec_per_clk_sm = spec;                                                                              \
    d.push_back(thr);                                                                                        \
  }
#define UBENCH_WGMMA(op, dtype, T, constraint, instruction, tail, sass_regex, ops_per_op, spec)                \
  {                                                                                                          \
    const std::string result = std::string(#op) + "." #dtype;                                                \
    const std::string key = std::string(#dtype) + (std::string(#op) == "wgmma_sp" ? "_sparse" : "");         \
    const std::string ptx = std::string(instruction) + " d, desc_a, desc_b, " + tail + ";";                   \
    Declaration lat = unit_latency_row(result, "tensor_cores", result, "ubench_wgmma_lat_" #op "_" #dtype, ptx,   \
                                       sass_regex, kWgmmaChain, 1, "WARPGROUP\\.DEPBAR\\.LE", 1,                   \
                                       "WARPGROUP\\.ARRIVE|WARPGROUP\\.DEPBAR\\.LE|LDC", 4, {},                    \
                                       "1 warpgroup, 16 x (fence, wgmma, commit, wait 0)");                       \
    lat.spec_per_clk_sm = spec;                                                                              \
    lat.spec_key = key;                                                                                      \
    d.push_back(lat);                                                                                        \
    Declaration thr = unit_rate_row(result + ".throughput", "tensor_cores", result,                           \
                                    "ubench_wgmma_thr_" #op "_" #dtype, ptx, sass_regex, kWgmmaBatch,            \
                                    "WARPGROUP\\.DEPBAR\\.LE", 2, kWgmmaLoop, "ops",                           \
                                    double(kWgmmaBatch) * ops_per_op / 4, kWgmmaSteps, {4, 8, 12}, {}, key,       \
                                    "1 block per SM on every SM, 1-3 warpgroups, each 8 wgmma per commit group, " \
                                    "one group in flight");                                                   \
    thr.spec_per_clk_sm = spec;                                                                              \
    d.push_back(thr);                                                                                        \
  }
#include "tensor.def"

  // TMA (cp.async.bulk.tensor): 1D boxes of 256 x 4 B (1 KiB), 2D boxes of 64 x 64 floats (16 KiB).
  const std::string kWaitTx = "SYNCS\\.PHASECHK\\.TRANS64\\.TRYWAIT";
  const std::string kLoadIssue = "SYNCS\\.ARRIVE\\.TRANS64|" + kWaitTx + "|" + kUnitBookkeeping;
  const std::string kStoreWait = "UTMACMDFLUSH|CCTL\\.IVALL|DEPBAR\\.LE|" + kUnitBookkeeping;
  const std::string l2_note = "1 warp (one thread issues), 32 copies one after another, L2-resident source";
  const std::string stream_note = "1 block of 1 warp per SM on every SM (one thread issues), 1 GiB from or to DRAM";
  for (const auto& [dims, box, bytes, stages, steps] :
       {std::tuple{"1d", "256 x 4 B", kTma1dBoxElements * 4, kCopyStages1d, 7680},
        std::tuple{"2d", "64 x 64 x 4 B", kTma2dBoxRows * kTma2dBoxFloats * 4, kCopyStages, 480}}) {
    const std::string D = std::string(dims) == "1d" ? "1D" : "2D";
    const std::string load_ptx = std::string("cp.async.bulk.tensor.") + dims +
                                 ".shared::cluster.global.mbarrier::complete_tx::bytes (box " + box + "), mbarrier wait";
    const std::string store_ptx = std::string("cp.async.bulk.tensor.") + dims + ".global.shared::cta.bulk_group (box " +
                                  box + "), commit, wait_group";
    d.push_back(unit_latency_row(std::string("tma_load_") + dims, "tma", std::string("load_") + dims,
                                 std::string("ubench_tma_load_") + dims + "_lat", load_ptx, "UTMALDG\\." + D, kCopyChain,
                                 1, kWaitTx, 1, kLoadIssue, 1, {}, l2_note));
    d.push_back(unit_latency_row(std::string("tma_store_") + dims, "tma", std::string("store_") + dims,
                                 std::string("ubench_tma_store_") + dims + "_lat", store_ptx, "UTMASTG\\." + D,
                                 kCopyChain, 1, "UTMACMDFLUSH", 1, kStoreWait, 1, {}, l2_note + " (destination)"));
    d.push_back(unit_rate_row(std::string("tma_load_") + dims + ".bandwidth", "tma", std::string("load_") + dims,
                              std::string("ubench_tma_load_") + dims + "_bw", load_ptx, "UTMALDG\\." + D, 1, kWaitTx, 1,
                              kLoadIssue, "bytes", bytes, steps, {1}, {}, "dram",
                              stream_note + ", " + std::to_string(stages) + " copies in flight per block"));
    d.push_back(unit_rate_row(std::string("tma_store_") + dims + ".bandwidth", "tma", std::string("store_") + dims,
                              std::string("ubench_tma_store_") + dims + "_bw", store_ptx, "UTMASTG\\." + D, 1,
                              "UTMACMDFLUSH", 1, kStoreWait, "bytes", bytes, steps, {1}, {}, "dram",
                              stream_note + ", " + std::to_string(stages) + " stores reading shared memory at once"));
  }

  // Bulk copies (cp.async.bulk, no tensor map) and cp.async (LDGSTS).
  const std::string bulk_ptx = "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes (16 KiB), mbarrier wait";
  d.push_back(unit_latency_row("bulk_load", "async_copy", "bulk_load", "ubench_bulk_load_lat", bulk_ptx, "UBLKCP\\.S\\.G",
                               kCopyChain, 1, kWaitTx, 1, kLoadIssue, 1, {}, l2_note));
  d.push_back(unit_rate_row("bulk_load.bandwidth", "async_copy", "bulk_load", "ubench_bulk_load_bw", bulk_ptx,
                            "UBLKCP\\.S\\.G", 1, kWaitTx, 1, kLoadIssue, "bytes", kBulkCopyBytes, 480, {1}, {}, "dram",
                            stream_note + ", 8 copies in flight per block"));
  const std::string cp_async_ptx = "cp.async.cg.shared.global [s], [g], 16; cp.async.commit_group; cp.async.wait_group";
  const std::string kCpAsyncWait = "LDGDEPBAR|DEPBAR\\.LE|LDS|" + kUnitBookkeeping;  // LDS: @!PT LDS RZ, [RZ] ptxas puts before LDGSTS
  d.push_back(unit_latency_row("cp_async", "async_copy", "cp_async", "ubench_cp_async_lat", cp_async_ptx,
                               "LDGSTS\\.E\\.BYPASS\\.128", kCpAsyncChain, 1, "DEPBAR\\.LE", 1, kCpAsyncWait, 1, {},
                               "1 warp: 16 B per lane from L2, committed and waited for, 64 times"));
  d.push_back(unit_rate_row("cp_async.bandwidth", "async_copy", "cp_async", "ubench_cp_async_bw", cp_async_ptx,
                            "LDGSTS\\.E\\.BYPASS\\.128", kCpAsyncPerStage, "DEPBAR\\.LE", 2, kCpAsyncWait, "bytes",
                            double(kCpAsyncPerStage) * 16 * 32, 480, {kCpAsyncThreads / 32}, {}, "dram",
                            "1 block of 256 threads per SM on every SM, 16 KiB a stage, 4 stages in flight, 1 GiB from DRAM"));

  // Clusters: distributed shared memory and the cluster barrier, clusters of 2, 4, 8, 16 blocks (16
  // is non-portable: cudaFuncAttributeNonPortableClusterSizeAllowed).
  const std::vector<int> clusters = {2, 4, 8, 16};
  d.push_back(unit_latency_row("dsmem_load", "cluster", "dsmem_load", "ubench_dsmem_chase",
                               "ld.shared::cluster.u32 %0, [%0]; (a chase through the next block's shared memory)",
                               "LD\\.E", kDsmemChain, 1, "", 0, "MOV|S2R", 1, clusters,
                               "one cluster, 1 warp per block, each block chasing through the next block's words"));
  d.push_back(unit_rate_row("dsmem_read.bandwidth", "cluster", "dsmem_read", "ubench_dsmem_read",
                            "ld.shared::cluster.v4.u32 (16 B per lane) of the next block's shared memory",
                            "LD\\.E\\.128", kDsmemUnroll, "", 0, "LOP3\\.LUT|IMAD\\.IADD|MOV|" + kUnitBookkeeping,
                            "bytes", double(kDsmemUnroll) * 512, kDsmemSteps, {8, 32}, clusters, "",
                            "1 block per SM in whole clusters, 8 or 32 warps, 8 independent 512-B requests a step"));
  // What barrier.cluster compiles to: a test of the launch's cluster size (1: a plain BAR.SYNC, the
  // other branch), then UCGABAR_ARV / UCGABAR_WAIT and CCTL.IVALL (the wait's acquire); the default
  // arrive has release semantics and adds MEMBAR.ALL.GPU, ERRBAR, CGAERRBAR before it.
  const std::string kClusterBranch = "BRA|ISETP\\..*|LDC|NOP|BAR\\.SYNC\\.DEFER_BLOCKING|CCTL\\.IVALL|UCGABAR_WAIT";
  for (const auto& [name, kernel, ptx, allowed] :
       {std::tuple{"cluster_barrier", "ubench_cluster_barrier", "barrier.cluster.arrive.aligned; barrier.cluster.wait.aligned;",
                   "MEMBAR\\.ALL\\.GPU|ERRBAR|CGAERRBAR|" + kClusterBranch},
        std::tuple{"cluster_barrier_relaxed", "ubench_cluster_barrier_relaxed",
                   "barrier.cluster.arrive.relaxed.aligned; barrier.cluster.wait.aligned;", kClusterBranch}}) {
    const std::string result = std::string(name) == "cluster_barrier" ? "barrier" : "barrier_relaxed";
    for (int warps : {1, 32}) {
      Declaration b = unit_latency_row(std::string(name) + (warps == 1 ? "" : ".32_warps"), "cluster",
                                       result + (warps == 1 ? "" : "_32_warps"), kernel, ptx, "UCGABAR_ARV",
                                       kClusterBarrierChain, 1, "UCGABAR_WAIT", 1, allowed, warps, clusters,
                                       "one cluster of " + std::to_string(warps) + "-warp blocks, 32 arrive + wait pairs");
      d.push_back(b);
    }
  }
}

std::vector<Declaration> build() {
  std::vector<Declaration> d;

  // --- clock-read cost (thesis listings 4.1/4.2; clock64 is what every other row subtracts) ---
  for (const auto& [name, kernel, ptx, which] :
       {std::tuple{"clock64", "ubench_clock64", "mov.u64 %0, %clock64; mov.u64 %1, %clock64;", ClockRead::clock64},
        std::tuple{"clock_register", "ubench_clock32", "mov.u32 %0, %clock; mov.u32 %1, %clock; (listing 4.1)",
                   ClockRead::clock32_register},
        std::tuple{"clock_function", "ubench_clock_fn", "clock(); clock(); (listing 4.2)", ClockRead::clock_function}}) {
    Declaration c = latency_row(name, "clock", kernel, ptx, which, "", 0, "", 1, kAllWarps);
    c.method = Method::clock_cost;
    c.stage = "";  // every stage subtracts it
    d.push_back(c);
  }

  // --- ALU (ubench.def): a latency row and a throughput row per op ---
  int alu = 0;
#define UBENCH_ALU(name, T, constraint, ptx, sass_regex, sass_per_op, allowed_regex, chain, spec, minus) \
  add_alu_rows(d, alu++, #name, ptx, sass_regex, sass_per_op, allowed_regex, chain, spec, minus);
#include "ubench.def"

  // --- shared-memory pointer chase ---
  d.push_back(latency_row("shared_load", "shared", "ubench_shared_chase", "ld.shared.u32 %0, [%0];", SharedChase{},
                          "LDS", kSharedChaseChain, "", kSharedChaseChain, kAllWarps));

  // --- global pointer chase: the footprint curve and the warp series at fixed footprints. The chase
  // ends with one LOP3 that consumes the last load, so the stop read waits for it. ---
  for (const auto& [op, opcode, series] :
       {std::tuple{CacheOp::ca, "LDG\\.E\\.64\\.STRONG\\.SM", std::vector<ChaseSeries>{{"l1_hit", 16u << 10, true}}},
        std::tuple{CacheOp::cg, "LDG\\.E\\.64\\.STRONG\\.GPU",
                   std::vector<ChaseSeries>{{"l2_hit", 4u << 20, true},
                                            {"global_load", std::size_t(1) << 30, true},
                                            {"global_load_uncoalesced", std::size_t(1) << 30, false}}}}) {
    const std::string o = op == CacheOp::ca ? "ca" : "cg";
    Declaration c = latency_row("chase_" + o, "global", "ubench_chase_" + o, "ld.global." + o + ".u64 %0, [%0];", op,
                                opcode, kGlobalChaseChain, "LOP3\\.LUT", kGlobalChaseChain, kAllWarps);
    c.method = Method::pointer_chase;
    c.output = Output::special;
    c.axes.footprints_bytes = chase_footprints();
    c.axes.warp_series = series;
    c.axes.note = "footprint 4 KiB..4 GiB; warps 1..32";
    d.push_back(c);
  }
  {
    Declaration c = latency_row("l2_lines", "l2_lines", "ubench_l2_lines",
                                "ld.global.cg.u64 %0, [%0]; (one load per timed region)", TimedKernel{},
                                "LDG\\.E\\.64\\.STRONG\\.GPU", 1, "LOP3\\.LUT", 1, {1});
    c.variant = std::monostate{};
    c.method = Method::l2_lines;
    c.output = Output::special;
    c.axes.note = "one warp pinned on each SM by %smid; 4 MiB footprint, every load timed";
    d.push_back(c);
  }

  // --- store latency (listings 4.8/4.9) as a round trip "st [p], p; ld p, [p]" minus the same
  // chain without the store. The store opcode is counted; the loads of the chain too (also_regex). ---
  struct StoreSpace {
    const char* space;  // "shared" or "global"
    StoreChain roundtrip, selfload;
    const char *store_ptx, *load_ptx, *store_sass, *load_sass;
  };
  for (const auto& sp : {StoreSpace{"shared", StoreChain::shared_roundtrip, StoreChain::shared_selfload,
                                    "st.shared.u32 [%0], %0;", "ld.shared.u32 %0, [%0];", "STS", "LDS"},
                         StoreSpace{"global", StoreChain::global_roundtrip, StoreChain::global_selfload,
                                    "st.global.u64 [%0], %0;", "ld.global.cg.u64 %0, [%0];", "STG\\.E\\.64",
                                    "LDG\\.E\\.64\\.STRONG\\.GPU"}}) {
    const std::string space = sp.space, load = sp.load_sass;
    Declaration trip = latency_row("store_" + space, "store", "ubench_store_" + space,
                                   std::string(sp.store_ptx) + " " + sp.load_ptx, sp.roundtrip, sp.store_sass,
                                   kStoreChain, load + "|LOP3\\.LUT", kStoreChain, kAllWarps);
    trip.also_regex = load;
    trip.also_count = kStoreChain;
    trip.result = space + "_store_roundtrip";
    trip.difference_of = "selfload_" + space;
    trip.difference_result = space + "_store";
    d.push_back(trip);
    Declaration self = latency_row("selfload_" + space, "store", "ubench_selfload_" + space, sp.load_ptx, sp.selfload,
                                   load, kStoreChain, "LOP3\\.LUT", kStoreChain, kAllWarps);
    self.result = space + "_selfload";
    d.push_back(self);
  }
  {
    Declaration dep = latency_row("departure", "departure", "ubench_departure",
                                  "ld.global.cg.u32 %0, [%1]; add.u32 %2, %2, %0;", std::monostate{},
                                  "LDG\\.E\\.STRONG\\.GPU", 1, "IMAD\\.IADD|IADD3", 1, kAllWarps);
    dep.method = Method::departure;
    dep.output = Output::special;
    dep.axes.note = "warps per block 1..32; coalesced / uncoalesced";
    d.push_back(dep);
  }

  // --- L1/LSU load throughput: 32 independent weak loads (LDG.E, cached in L1) per loop
  // step, every value consumed (LOP3) inside the loop so the stop read waits for the last load;
  // L1-resident footprints (<= 16 KiB), the carveout at the largest L1. ---
  const std::string loads_note = "1 block per SM on every SM, 1..32 warps; L1-resident footprint";
  const double loads_per_warp = double(kMemoryOpsPerStep) * kMemorySteps;
  d.push_back(rate_row("global_load_broadcast", "", "lsu_load", "ubench_ldg_broadcast",
                       "ld.global.u32 %0, [base + 4 k]; (all lanes one word: 1 sector per request)",
                       Method::block_throughput, "LDG\\.E", kMemoryOpsPerStep, "",
                       Rate{"requests", loads_per_warp, true, 1, 0}, kThroughputWarps, loads_note));
  d.push_back(rate_row("global_load_coalesced", "", "lsu_load", "ubench_ldg_coalesced",
                       "ld.global.u32 %0, [base + 128 k + 4 lane]; (4 sectors per request)", Method::block_throughput,
                       "LDG\\.E", kMemoryOpsPerStep, "", Rate{"requests", loads_per_warp, true, 4, 0},
                       kThroughputWarps, loads_note));
  d.push_back(rate_row("global_load_coalesced_16b", "", "lsu_load", "ubench_ldg_coalesced_16b",
                       "ld.global.v4.u32 {..}, [base + 512 k + 16 lane]; (16 sectors per request)",
                       Method::block_throughput, "LDG\\.E\\.128", kMemoryOpsPerStep, "",
                       Rate{"requests", loads_per_warp, true, 16, 0}, kThroughputWarps, loads_note));
  d.push_back(rate_row("global_load_scattered", "", "lsu_load", "ubench_ldg_scattered",
                       "ld.global.u32 %0, [base + 128 lane + 4 k]; (32 lines, 32 sectors per request)",
                       Method::block_throughput, "LDG\\.E", kMemoryOpsPerStep, "",
                       Rate{"requests", loads_per_warp, true, 32, 0}, kThroughputWarps, loads_note));

  // --- stores through L1 to L2: 4-byte stores, each warp its own 4 KiB region (16.5 MiB on 132
  // SMs, resident in L2); a fence before the stop read, so the region ends when they are in L2. ---
  const std::string stores_note = "1 block per SM on every SM, 1..32 warps; footprint in L2; fence before the stop read";
  d.push_back(rate_row("global_store_coalesced", "", "store_throughput", "ubench_stg_coalesced",
                       "st.global.u32 [region + 128 k + 4 lane], v; (4 sectors per request)",
                       Method::block_throughput, "STG\\.E", kMemoryOpsPerStep, kFenceRegex,
                       Rate{"requests", loads_per_warp, true, 4, 128}, kThroughputWarps, stores_note));
  d.push_back(rate_row("global_store_scattered", "", "store_throughput", "ubench_stg_scattered",
                       "st.global.u32 [region + 128 lane + 4 k], v; (one sector per lane: 32 per request)",
                       Method::block_throughput, "STG\\.E", kMemoryOpsPerStep, kFenceRegex,
                       Rate{"requests", loads_per_warp, true, 32, 128}, kThroughputWarps, stores_note));

  // --- atomics: red.global (no return: what atomicAdd with an unused result compiles to) with a
  // fence before the stop read; atom.shared with the result consumed. The address is offset by a
  // run-time zero so ptxas cannot prove it warp-uniform: for a provably uniform address and a
  // constant operand it aggregates the warp's adds into one RED (VOTEU.ANY + POPC). ---
  const double atomics_per_warp = 32.0 * kAtomicOpsPerStep * kAtomicSteps;
  d.push_back(rate_row("global_atomic_same_address", "", "atomic", "ubench_red_global_same",
                       "red.global.add.u32 [word], 1; (every thread of the grid, one word)",
                       Method::device_throughput, "REDG\\.E\\.ADD\\.STRONG\\.GPU", kAtomicOpsPerStep, kFenceRegex,
                       Rate{"ops", atomics_per_warp, false, 0, 0}, {32},
                       "32 warps x 1 block per SM on every SM; ops per clock of the whole GPU"));
  d.push_back(rate_row("global_atomic_same_address_f32", "", "atomic", "ubench_red_global_same_f32",
                       "red.global.add.f32 [word], 1.0; (every thread of the grid, one word)",
                       Method::device_throughput, "REDG\\.E\\.ADD\\.F32\\.FTZ\\.RN\\.STRONG\\.GPU", kAtomicOpsPerStep, kFenceRegex,
                       Rate{"ops", atomics_per_warp, false, 0, 0}, {32},
                       "32 warps x 1 block per SM on every SM; ops per clock of the whole GPU"));
  d.push_back(rate_row("global_atomic_distinct", "", "atomic", "ubench_red_global_distinct",
                       "red.global.add.u32 [word + 4 tid], 1; (each thread its own word, L2-resident)",
                       Method::device_throughput, "REDG\\.E\\.ADD\\.STRONG\\.GPU", kAtomicOpsPerStep, kFenceRegex,
                       Rate{"ops", atomics_per_warp, false, 0, 0}, {32},
                       "32 warps x 1 block per SM on every SM; ops per clock of the whole GPU"));
  d.push_back(rate_row("shared_atomic_same_address", "", "atomic", "ubench_atom_shared_same",
                       "atom.shared.add.u32 %0, [word], 1; (every thread of the block, one word)",
                       Method::block_throughput, "ATOMS\\.ADD", kAtomicOpsPerStep, "",
                       Rate{"ops", atomics_per_warp, true, 0, 0}, {32}, "32 warps x 1 block per SM on every SM"));
  d.push_back(rate_row("shared_atomic_distinct", "", "atomic", "ubench_atom_shared_distinct",
                       "atom.shared.add.u32 %0, [word + 4 tid], 1; (each thread its own word, no bank conflict)",
                       Method::block_throughput, "ATOMS\\.ADD", kAtomicOpsPerStep, "",
                       Rate{"ops", atomics_per_warp, true, 0, 0}, {32}, "32 warps x 1 block per SM on every SM"));
  {
    Declaration a = latency_row("global_atomic_latency", "atomic", "ubench_atom_global_latency",
                                "atom.global.add.u32 %0, [word], %0; (one lane; the result is the next operand)",
                                TimedKernel{}, "ATOMG\\.E\\.ADD\\.STRONG\\.GPU", kAtomicChain,
                                "LOP3\\.LUT|LDC(\\..*)?", kAtomicChain, {1});
    a.result = "global_atomic";
    a.axes.note = "1 warp, 1 lane active";
    d.push_back(a);
  }

  // --- local memory (LDL hitting L1): a per-thread array whose address is given to the asm, so it
  // stays in local memory; indices that ptxas cannot resolve (a chase, a run-time offset). ---
  {
    Declaration l = latency_row("local_load", "local", "ubench_local_chase", "ld.local.u32 %0, [%0];", TimedKernel{},
                                "LDL", kLocalChaseChain, "LOP3\\.LUT", kLocalChaseChain, kAllWarps);
    l.axes.note = "1 block of 1..32 warps; 128 B of local memory per thread";
    d.push_back(l);
  }
  d.push_back(rate_row("local_load.throughput", "local_load", "local", "ubench_local_loads",
                       "ld.local.u32 %0, [base + 4 k]; (k < 8; all lanes one index: 4 sectors per request)",
                       Method::block_throughput, "LDL", kLocalThroughputWords, "",
                       Rate{"requests", loads_per_warp, true, 4, 0}, kThroughputWarps,
                       "1 block per SM on every SM, 1..32 warps; 32 B of local memory per thread"));

  // --- barriers: kBarrierChain straight-line bar.sync 0 (no loop, so no loop overhead) ---
  {
    Declaration b = latency_row("barrier", "barrier", "ubench_barrier", "bar.sync 0;", TimedKernel{},
                                "BAR\\.SYNC\\.DEFER_BLOCKING", kBarrierChain, "", kBarrierChain, kAllWarps);
    b.output = Output::barrier;
    b.axes.note = "1 block of 1..32 warps";
    d.push_back(b);
  }

  // --- bandwidth (CUDA events) ---
  d.push_back(bandwidth_row("dram_read", "ubench_bw_read", BandwidthKind::dram_read, "__ldcg(float4), 2 GiB",
                            "LDG\\.E\\.128\\.STRONG\\.GPU", 1));
  d.push_back(bandwidth_row("dram_write", "ubench_bw_write", BandwidthKind::dram_write, "float4 store, 2 GiB",
                            "STG\\.E\\.128", 1));
  d.push_back(bandwidth_row("dram_copy", "ubench_bw_copy", BandwidthKind::dram_copy, "float4 copy, 2 x 1 GiB",
                            "STG\\.E\\.128", 1));
  // In place (hopper H.9d): the lines a kernel reads written back to the same addresses; GB/s of the
  // bytes read and written, as dram_copy's.
  d.push_back(bandwidth_row("dram_inplace", "ubench_bw_inplace", BandwidthKind::dram_inplace,
                            "float4 read and written back in place, 2 GiB (read + written bytes)", "STG\\.E\\.128", 1));
  d.push_back(bandwidth_row("l2_read", "ubench_bw_l2_read", BandwidthKind::l2_read,
                            "__ldcg(float4) over 16 MiB, 256 passes", "LDG\\.E\\.128\\.STRONG\\.GPU", 1));
  d.push_back(bandwidth_row("l2_write", "ubench_bw_l2_write", BandwidthKind::l2_write,
                            "float4 store over 16 MiB, 256 passes", "STG\\.E\\.128", 1));
  // Random sectors (a gather's traffic, hopper H.16): bytes = 32 per load.
  d.push_back(bandwidth_row("dram_random_read", "ubench_bw_random_read", BandwidthKind::dram_random_read,
                            "__ldcg(float) at a hashed sector of 256 MiB (32 B moved per load)",
                            "LDG\\.E\\.STRONG\\.GPU", 1));
  d.push_back(bandwidth_row("l2_random_read", "ubench_bw_random_read", BandwidthKind::l2_random_read,
                            "__ldcg(float) at a hashed sector of 16 MiB, resident in L2 (32 B moved per load)",
                            "LDG\\.E\\.STRONG\\.GPU", 1));
  // Its write twin (hopper H.9c: a data-indexed per-thread array's sectors going back to DRAM): 8
  // lanes write each hashed sector whole, so the L2 evicts whole sectors; bytes = 32 per sector.
  d.push_back(bandwidth_row("dram_random_write", "ubench_bw_random_write", BandwidthKind::dram_random_write,
                            "st.global.f32, 8 lanes writing each of 2^24 hashed sectors of 256 MiB whole (32 B per sector)",
                            "STG\\.E", 1));
  // Row segments (hopper H.9b): the same bytes from DRAM, each warp taking a 32-, 64- or 128-byte
  // segment of 4, 2 or 1 rows; the neighbouring blocks take the rest of each line. The loop is
  // unrolled 4 times (4 loads or stores, each copy with its exit test).
  struct RowSegment {
    const char* bytes;
    const char* block;
    BandwidthKind read, write;
  };
  for (const RowSegment& r : {RowSegment{"32", "8 x 32", BandwidthKind::dram_read_rows_32b, BandwidthKind::dram_write_rows_32b},
                              RowSegment{"64", "16 x 16", BandwidthKind::dram_read_rows_64b, BandwidthKind::dram_write_rows_64b},
                              RowSegment{"128", "32 x 8", BandwidthKind::dram_read_rows_128b, BandwidthKind::dram_write_rows_128b}}) {
    const std::string walk = std::string(" a[y * 8192 + x] down the rows, blocks of ") + r.block + ", 1 GiB";
    d.push_back(bandwidth_row(std::string("dram_read_rows_") + r.bytes + "b", "ubench_bw_read_rows", r.read,
                              "ld.global.f32" + walk, "LDG\\.E", 4));
    d.push_back(bandwidth_row(std::string("dram_write_rows_") + r.bytes + "b", "ubench_bw_write_rows", r.write,
                              "st.global.f32" + walk, "STG\\.E", 4));
  }
  // Scattered sectors (hopper H.8c): a naive transpose's store, each request writing 4, 8, 16 or 32
  // bytes of a sector in each of 32, 16, 8 or 4 lines of a matrix resident in L2; the warps after
  // it write the rest of those sectors. GB/s of the bytes written (not of the sectors).
  struct SectorFill {
    const char* bytes;
    BandwidthKind kind;
  };
  for (const SectorFill& f : {SectorFill{"4", BandwidthKind::l2_write_sectors_4b},
                              SectorFill{"8", BandwidthKind::l2_write_sectors_8b},
                              SectorFill{"16", BandwidthKind::l2_write_sectors_16b},
                              SectorFill{"32", BandwidthKind::l2_write_sectors_32b}})
    d.push_back(bandwidth_row(std::string("l2_write_sectors_") + f.bytes + "b", "ubench_bw_l2_write_sectors", f.kind,
                              std::string("st.global.f32 down a column: ") + f.bytes +
                                  " B of a sector in each of the request's lines, 16 MiB resident in L2, 64 passes",
                              "STG\\.E", 1));
  d.push_back(bandwidth_row("shared_read", "ubench_bw_shared", BandwidthKind::shared_read,
                            "ld.shared.v4.f32, 32 KiB per block", "LDS\\.128", 8));

  // --- energy per operation: NVML's counter around the throughput and bandwidth kernels above ---
  {
    const struct {
      const char* name;
      const char* of;
      EnergyCount counts;
    } rows[] = {{"energy_fp32", "fp32_fma.throughput", EnergyCount::fp32_op},
                {"energy_fp64", "fp64_fma.throughput", EnergyCount::fp64_op},
                {"energy_int32", "int32_rotate.throughput", EnergyCount::int32_op},
                {"energy_shared", "shared_read", EnergyCount::shared_byte},
                {"energy_l2", "l2_read", EnergyCount::l2_byte},
                {"energy_dram", "dram_read", EnergyCount::dram_byte}};
    for (const auto& row : rows) {
      const Declaration* target = nullptr;
      for (const auto& x : d)
        if (x.name == row.of) target = &x;
      Declaration e;
      e.name = row.name;
      e.group = "energy";
      e.stage = kStageEnergy;
      e.kernel = target ? target->kernel : "";
      e.ptx = std::string("the kernel of ") + row.of;
      e.method = Method::energy;
      e.variant = EnergyOf{row.of, row.counts};
      e.output = Output::special;
      e.axes.note = std::string("NVML's total-energy counter around repeated runs of ") + row.of +
                    "'s kernel (every SM), 30 readings; per " + energy_count_name(row.counts) +
                    " above the static power";
      d.push_back(e);
    }
  }

  // --- launch overhead: an empty kernel (nothing but EXIT) ---
  {
    Declaration l;
    l.name = "launch";
    l.group = "launch";
    l.kernel = "ubench_empty";
    l.ptx = "(empty kernel)";
    l.method = Method::launch;
    l.sass_region = SassRegion::whole_kernel;
    l.sass_regex = "EXIT";
    l.sass_count = 1;
    l.allowed_regex = "BRA|LDC";  // the self-branch after EXIT; the stack-pointer load ptxas puts first
    l.output = Output::special;
    l.axes.waves.clear();
    for (int w = 1; w <= kLaunchMaxWaves; ++w) l.axes.waves.push_back(w);
    l.axes.note = "1 block of 32 threads; grids of 1..64 waves of one block per SM";
    d.push_back(l);
  }

  add_tensor_stage(d);
  // The best library GEMM beside the wgmma row (FP16 in, FP32 accumulate): cuBLASLt's kernels, not ours.
  {
    Declaration g;
    g.name = "library_gemm";
    g.group = "library_gemm";
    g.section = "library_gemm";
    g.result = "cublaslt_f16";
    g.kernel = "cublasLtMatmul";
    g.ptx = "cublasLtMatmul: D = A^T B, A and B FP16, D FP16, CUBLAS_COMPUTE_32F; the fastest of the heuristic's algorithms";
    g.method = Method::library_gemm;
    g.stage = kStageTensor;
    g.sass_region = SassRegion::library;
    g.output = Output::unit;
    g.spec_key = "f16";
    g.axes.gemm_sizes = {4096, 8192, 16384};
    g.axes.note = "square sizes 4096, 8192, 16384; 8 heuristic candidates, 5 timed launches each (CUDA events)";
    d.push_back(g);
  }
  return d;
}

}  // namespace

const char* energy_count_name(EnergyCount c) {
  switch (c) {
    case EnergyCount::fp32_op: return "fp32_op";
    case EnergyCount::fp64_op: return "fp64_op";
    case EnergyCount::int32_op: return "int32_op";
    case EnergyCount::shared_byte: return "shared_byte";
    case EnergyCount::l2_byte: return "l2_byte";
    case EnergyCount::dram_byte: return "dram_byte";
  }
  return "?";
}

const std::vector<Declaration>& declarations() {
  static const std::vector<Declaration> d = build();
  return d;
}

const Declaration* find_declaration(const std::string& name) {
  for (const auto& d : declarations())
    if (d.name == name) return &d;
  return nullptr;
}

const std::vector<LatencyReportRow>& latency_report_rows() {
  static const std::vector<LatencyReportRow> rows = {
      {"clock64", "-", "-"},
      {"clock_register", "16 ± 0.57", "20 ± 0.57"},
      {"clock_function", "16 ± 0.57", "20 ± 0.57"},
      {"fp32_add", "12 ± 0.57", "10 ± 0.61"},
      {"fp32_sub", "12", "11"},
      {"fp32_mul", "12", "11"},
      {"fp32_fma", "-", "-"},
      {"fp32_div_approx", "-", "-"},
      {"fp32_div_full", "206", "222"},
      {"fp32_div_rn", "-", "-"},
      {"fp64_add", "-", "-"},
      {"fp64_fma", "-", "-"},
      {"sfu_rcp", "-", "-"},
      {"sfu_sqrt", "-", "-"},
      {"sfu_ex2", "-", "-"},
      {"sfu_sin", "-", "-"},
      {"shared_load", "45 ± 0.57", "45 ± 0.60"},
      {"shared_store", "12 (lone store, issue)", "14 (lone store, issue)"},
      {"shared_store_roundtrip", "-", "-"},
      {"shared_selfload", "-", "-"},
      {"l1_hit", "29 (eq 4.27)", "29 (eq 4.27)"},
      {"l2_hit", "215.5 (eq 4.28)", "212 (eq 4.28)"},
      {"global_load", "402 ± 5.88", "395 ± 6.17"},
      {"global_load_uncoalesced", "-", "-"},
      {"global_store", "21 (lone store, issue)", "20 (lone store, issue)"},
      {"global_store_roundtrip", "-", "-"},
      {"global_selfload", "-", "-"},
      {"local_load", "-", "-"},
      {"global_atomic", "-", "-"},
  };
  return rows;
}

const std::vector<GroupTitle>& throughput_groups() {
  static const std::vector<GroupTitle> groups = {
      {"alu_throughput", "Issue throughput (32 warps x 1 block per SM, 8 independent chains)"},
      {"lsu_load", "L1/LSU load throughput (1 block per SM on every SM, L1-resident)"},
      {"store_throughput", "Store throughput through L1 to L2 (1 block per SM on every SM)"},
      {"atomic", "Atomic throughput (32 warps x 1 block per SM on every SM)"},
      {"local", "Local-memory load throughput (LDL hitting L1)"},
  };
  return groups;
}

}  // namespace warpmodel::ubench
