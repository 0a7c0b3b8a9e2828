// The declared microbenchmarks, as data: for each, the kernel that runs it, how the harness runs
// and reduces it (its method and axes), the SASS its timed region must hold, and where its result
// goes. The plan (plan.hpp) is built from these rows, the harness (harness.hpp) runs them, the
// writers (writers.hpp) print what the harness reduced. Plain C++ (no CUDA): the SASS check and its
// tests use the rows on machines without a GPU.
//
// Adding a microbenchmark of an existing method: one row in registry.cpp (or ubench.def for an ALU
// op) and its kernel in kernels.cu (with its line in that file's kernel table). Nothing else.
#pragma once

#include <cstddef>
#include <string>
#include <variant>
#include <vector>

namespace warpmodel::ubench {

// How the harness runs a benchmark and reduces its repetitions.
enum class Method {
  clock_cost,         // two clock reads in a row, 1 block of each warp count (subtracted everywhere)
  latency_chain,      // 1 block of each warp count, one dependent chain per thread: per-op cycles
  block_throughput,   // one block per SM on every SM, warps released together: work per clock per SM
  device_throughput,  // one block per SM on every SM: work per clock of the whole GPU
  pointer_chase,      // global pointer chase over footprints, and by warps at fixed footprints
  l2_lines,           // near/far L2: every load of a chase timed on its own, one warp on each SM
  departure,          // one cold load per warp, completion time over 1..32 warps
  bandwidth,          // CUDA events around whole launches: GB/s
  launch,             // CUDA events around empty launches: launch and block-dispatch overhead
  // The Hopper units (stage "tensor", unit_kernels.cu):
  unit_latency,       // one block (or one cluster) of the declared warps: per-op cycles, per cluster size
  unit_throughput,    // every SM (one block each, whole clusters): units per clock per SM (%clock64)
                      // and per second of the whole GPU (CUDA events around kUnitLaunches launches)
  library_gemm,       // the best cuBLASLt GEMM (FP16 in, FP32 accumulate), CUDA events: ops per second
  energy,             // NVML's energy counter around repeated runs of another row's kernel (docs/energy.md)
};

// Which kernel of a family the row runs (the families with their own signatures).
enum class ClockRead { clock64, clock32_register, clock_function };
enum class StoreChain { shared_roundtrip, shared_selfload, global_roundtrip, global_selfload };
enum class CacheOp { ca, cg };
enum class BandwidthKind {
  dram_read, dram_write, dram_copy, l2_read, l2_write, shared_read, dram_random_read, l2_random_read,
  dram_read_rows_32b, dram_read_rows_64b, dram_read_rows_128b,    // row segments of a 2D read (hopper H.9b)
  dram_write_rows_32b, dram_write_rows_64b, dram_write_rows_128b,  // and of a 2D write
  // A store whose request writes 4, 8, 16 or 32 bytes of each of 32, 16, 8 or 4 lines (hopper H.8c)
  l2_write_sectors_4b, l2_write_sectors_8b, l2_write_sectors_16b, l2_write_sectors_32b,
  dram_random_write,  // whole sectors written at random places of 256 MiB (hopper H.9c)
  dram_inplace        // each line read and written back in place (hopper H.9d)
};
struct AluKernel {
  int index = 0;  // row of ubench.def
  bool throughput = false;
};
struct SharedChase {};
// The memory-pipe kernels (LSU, stores, atomics, local memory, barriers): one signature, launched
// by symbol (gpu::run_timed); they write (start, end) %clock64 pairs per warp and repetition.
struct TimedKernel {};
// The Hopper-unit kernels (tensor cores, TMA, clusters, async copies): one signature, launched by
// symbol (gpu::run_unit), in clusters where the row's axes say so.
struct UnitKernel {};
// An energy row: runs the kernel of row `of` (an ALU throughput row or a bandwidth row) repeatedly
// under NVML's energy counter and divides what it drew above the static power by what it counts.
enum class EnergyCount { fp32_op, fp64_op, int32_op, shared_byte, l2_byte, dram_byte };
struct EnergyOf {
  std::string of;      // the declaration whose kernel runs
  EnergyCount counts;  // what one unit of its work is (an FP op per thread, a byte moved)
};
using KernelVariant = std::variant<std::monostate, ClockRead, AluKernel, StoreChain, CacheOp, BandwidthKind,
                                   SharedChase, TimedKernel, UnitKernel, EnergyOf>;
// "fp32_op", "dram_byte", ... (the names device.json's energy coefficients use: pj_per_<name>).
const char* energy_count_name(EnergyCount c);

// Where in the kernel the SASS check looks.
enum class SassRegion {
  between_clock_reads,  // the instructions between the kernel's two SR_CLOCKLO reads
  whole_kernel,         // the whole kernel (event-timed kernels have no clock reads)
  library,              // not ours: a library's kernels (cuBLASLt), nothing to check
};

// A pointer-chase series at one footprint, over the warp axis.
struct ChaseSeries {
  std::string result;  // "l1_hit", "l2_hit", "global_load", "global_load_uncoalesced"
  std::size_t footprint_bytes = 0;
  bool coalesced = true;  // false: every lane chases its own node (32 lines per request)
};

struct Axes {
  std::vector<int> warps_per_block;             // the block sizes measured, in warps
  bool every_sm = false;                        // one block per SM on every SM (else one block)
  std::vector<std::size_t> footprints_bytes;    // pointer chase: the footprint curve
  std::vector<ChaseSeries> warp_series;         // pointer chase: by warps at fixed footprints
  std::vector<int> waves;                       // launch: grids of this many waves
  std::vector<int> clusters;                    // unit rows: cluster sizes in blocks (empty: no cluster)
  std::vector<int> gemm_sizes;                  // library_gemm: square sizes m = n = k
  std::string note;                             // prose for the report
};

// What a throughput row counts, and the rates derived from it.
struct Rate {
  std::string unit = "ops";  // "ops" (one per thread) or "requests" (one per warp instruction)
  double per_warp = 0;       // units one warp's timed region performs
  bool per_sm = true;        // per clock per SM; false: per clock, whole GPU
  double sectors_per_unit = 0;  // > 0: sectors_per_clk... is reported too
  double bytes_per_unit = 0;    // > 0: bytes_per_clk... is reported too
};

// Where the reduced result goes (device.json measurements, ubench.md, ubench.csv).
enum class Output {
  latency,     // measurements.latency.<result> (warps_1, warps_32) and the latency table
  throughput,  // measurements.throughput.<result> and a table per group
  barrier,     // measurements.barrier (cycles_by_warps, cycles_32_warps)
  special,     // the method writes its own section (clock cost, chase, near/far, departure, bandwidth, launch)
  unit,        // measurements.<section>.<result> (tensor_cores, tma, cluster, async_copy, library_gemm)
};

// The stages `characterize --only` selects: "core" (everything the model has always read),
// "tensor" (the Hopper units) and "energy" (energy per operation under NVML's counter: it re-runs
// core kernels but needs none of their results, so it can be added to a profile on its own). The
// clock-read cost belongs to every stage (each subtracts it).
inline constexpr const char* kStageCore = "core";
inline constexpr const char* kStageTensor = "tensor";
inline constexpr const char* kStageEnergy = "energy";

struct Declaration {
  std::string name;    // e.g. "fp32_add", "fp32_add.throughput", "chase_cg"
  std::string group;   // report group: clock, alu, alu_throughput, shared, global, store, departure, lsu_load, ...
  std::string kernel;  // extern "C" kernel symbol
  std::string ptx;     // the PTX body (documentation and the report)
  Method method = Method::latency_chain;
  KernelVariant variant;
  // SASS check: the timed region must hold sass_regex exactly sass_count times, also_regex exactly
  // also_count times, and nothing else beyond allowed_regex (and NOP).
  SassRegion sass_region = SassRegion::between_clock_reads;
  std::string sass_regex;      // "" = the region must be empty
  int sass_count = 0;
  std::string allowed_regex;   // "" = only NOP
  std::string also_regex;      // "" = none
  int also_count = 0;
  int chain = 1;               // operations per timed region per chain (divide by this)
  int ilp = 1;                 // independent chains per thread
  double spec_per_clk_sm = 0;  // architectural rate per SM per clock (sm_90), 0 = none
  std::string minus;           // benchmark whose per-op latency is subtracted ("" = none)
  int alu_index = -1;          // index into ubench.def for the ALU kernels
  Axes axes;
  Rate rate;                   // throughput rows
  Output output = Output::latency;
  std::string result;          // the result's name in the outputs ("" = name); unit rows: a dotted
                               // path inside their section ("wgmma.f16": measurements.tensor_cores.wgmma.f16)
  std::string section;         // Output::unit: the measurements section ("tensor_cores", "tma", ...)
  std::string stage = kStageCore;  // the --only stage it belongs to ("" = every stage: the clock cost)
  int steps = 0;               // unit throughput rows: loop trips (copies) of the timed region
  std::string spec_key;        // the entry of the GPU's spec table its rate is held against
                               // (gpu_specs.hpp: "f16", "f16_sparse", ..., "dram"); "" = none
  // A derived latency: this row's per-op latency minus `difference_of`'s, u in quadrature, written
  // as `difference_result` (the store latency = round trip - the same chain without the store).
  std::string difference_of, difference_result;

  const std::string& result_name() const { return result.empty() ? name : result; }
};

const std::vector<Declaration>& declarations();
const Declaration* find_declaration(const std::string& name);

// The rows of the latency table of ubench.md, in order, with the thesis's K40 values (tables
// 4.3/4.4) where it has them ("-" where not).
struct LatencyReportRow {
  std::string result;
  std::string k40_1_warp, k40_32_warps;
};
const std::vector<LatencyReportRow>& latency_report_rows();

// Report group titles, in report order (the throughput tables of ubench.md).
struct GroupTitle {
  std::string group, title;
};
const std::vector<GroupTitle>& throughput_groups();

}  // namespace warpmodel::ubench
