// What the harness hands the writers: plain reduced-result value types (no CUDA, no JSON), each
// holding everything its writer prints. The raw series go along as CSV rows.
#pragma once

#include "energy_rows.hpp"

#include <cmath>
#include <cstddef>
#include <optional>
#include <map>
#include <string>
#include <vector>

#include "warpmodel/support/statistics.hpp"

namespace warpmodel::ubench {

using support::Estimate;

// One row of ubench.csv: benchmark,series,warps,footprint_bytes,rep,raw_cycles,value,unit.
struct CsvRow {
  std::string benchmark, series;
  int warps = 0;
  double footprint_bytes = 0;
  long long rep = 0;
  std::optional<double> raw_cycles;
  double value = 0;
  std::string unit;
};

// Per-op latency over the warp axis (cycles, clock-read cost subtracted).
struct LatencySeries {
  std::string name;  // result name: "fp32_add", "l1_hit", "shared_store", "local_load", "barrier"
  std::string sass;  // valid, INVALID, unchecked
  std::vector<int> warps;
  std::vector<Estimate> by_warps;
  std::vector<double> medians;  // per warp count, where kept (departure); else empty
  // The estimate at `w` warps, if measured.
  std::optional<Estimate> at(int w) const;
};

// A benchmark the SASS check refused: reported, never measured.
struct InvalidBenchmark {
  std::string name, result, reason;
};

// A throughput: units per clock (per SM, or for the whole GPU) over the warp axis.
struct RateSeries {
  std::string name;   // result name ("fp32_add", "global_load_coalesced")
  std::string group;  // report group (registry throughput_groups)
  std::string unit;   // "ops" or "requests"
  bool per_sm = true;
  double sectors_per_unit = 0, bytes_per_unit = 0;
  double spec_per_clk_sm = 0;  // 0 = none
  std::string sass;
  std::vector<int> warps;
  std::vector<Estimate> by_warps;
  // The key of the rate: "ops_per_clk_per_sm", "requests_per_clk_per_sm", "ops_per_clk".
  std::string key() const { return unit + (per_sm ? "_per_clk_per_sm" : "_per_clk"); }
};

// Global pointer chase over footprints (1 warp), and the carveout check.
struct FootprintPoint {
  std::size_t footprint_bytes = 0, stride_bytes = 0, nodes = 0;
  std::optional<Estimate> ca, cg;
};
struct CarveoutPoint {
  int carveout_percent = -1;  // -1: the driver's default
  std::string op;             // "ca" or "cg"
  std::size_t footprint_bytes = 0;
  Estimate latency;
};
struct MemoryLevels {
  std::vector<FootprintPoint> curve;
  std::vector<CarveoutPoint> carveout_check;
  int carveout_percent = 0;  // the carveout the curve was measured with
  double l1_level = NAN, l2_level = NAN, dram_level = NAN, dram_tlb_missing = NAN;
  std::optional<Estimate> dram;  // cg at 512 MiB
  double l1_capacity_bytes = NAN, l2_capacity_bytes = NAN;
};

// Near and far L2.
struct Plateau {
  Estimate estimate;
  double median = NAN;
};
struct SmLines {
  int smid = 0;
  double mean = NAN, median = NAN, near_fraction = NAN, near_mean = NAN, far_mean = NAN;
};
struct Spread {
  double min = NAN, median = NAN, max = NAN, mean = NAN;
};
struct NearFarL2 {
  bool measured = false;
  std::size_t footprint_bytes = 0;
  int loads_per_sm = 0;
  Plateau near, far;
  double threshold_cycles = NAN, dropped_above_cycles = NAN, near_fraction_pooled = NAN;
  std::optional<Spread> per_sm_mean, per_sm_near_mean, per_sm_far_mean;
  std::vector<SmLines> per_sm;
};

// Departure delay, direct method, per access pattern.
struct DepartureFit {
  std::string name;  // departure_coalesced, departure_uncoalesced
  double delta_cycles = NAN, u_cycles = NAN, intercept_cycles = NAN;
  std::vector<double> completion_by_warps, median_by_warps;
  int repetitions = 0;
};

struct BandwidthResult {
  std::string kind;
  Estimate gbs;
  double bytes_per_launch = 0;
  std::optional<double> spec_gbs;
  std::string spec_source;
};

// Launch overhead.
struct LaunchResult {
  bool measured = false;
  double empty_kernel_us = NAN;       // median of single launches
  double back_to_back_us = NAN;       // per launch, median over repetitions
  Estimate empty_kernel_us_estimate, back_to_back_us_estimate;
  std::vector<int> waves;             // grid sizes: waves x SMs blocks
  std::vector<double> dispatch_us;    // median duration per grid, 32-thread blocks
  std::vector<double> wave_us;        // median duration per grid, one block per SM
  double block_dispatch_cycles = NAN, block_dispatch_u = NAN, block_dispatch_intercept_us = NAN;
  double wave_cycles = NAN, wave_u = NAN, wave_intercept_us = NAN;
  int one_block_per_sm_shared_bytes = 0;
  int sm_count = 0;
};

// A Hopper-unit row (tensor cores, TMA, clusters, async copies), per point of its axes: the per-op
// latency (cycles), or the rate per SM (units per %clock64 cycle, the mean over the SMs' blocks) and
// of the whole GPU (units per second, CUDA events around the launches).
struct UnitPoint {
  int cluster = 1;  // blocks per cluster (1: no cluster)
  int warps = 1;    // warps per block
  Estimate value;   // cycles per op, or units per clock per SM
  std::optional<Estimate> per_second;  // rates: units per second of the whole GPU
  int blocks = 0;   // blocks launched
};
struct UnitSeries {
  std::string name;     // declaration name ("wgmma.f16.throughput")
  std::string section;  // measurements section ("tensor_cores", "tma", "cluster", "async_copy")
  std::string result;   // dotted path inside it ("wgmma.f16")
  bool latency = true;  // a latency row (else a rate)
  std::string unit;     // rates: "ops" or "bytes"
  std::string ptx;
  std::string sass;     // valid, INVALID, unchecked
  double spec_per_clk_sm = 0;             // tensor rows: the architectural rate (0: none)
  std::optional<double> spec_per_second;  // the GPU's spec (tensor: ops/s from the spec sheet; streams: DRAM bytes/s)
  std::string spec_source;
  bool clustered = false;                 // points keyed by cluster size
  std::vector<UnitPoint> points;
  // The point a rate is reported at: the highest rate over the axes (of one cluster size when clustered).
  const UnitPoint* best(int cluster = 0) const;
};

// The library GEMM (cuBLASLt) beside the wgmma row.
struct LibraryGemmPoint {
  int size = 0;                   // m = n = k
  Estimate tera_ops_per_second;   // of its fastest algorithm, over the timed launches
  int algorithms_timed = 0;
};
struct LibraryGemmResult {
  bool measured = false;
  std::string why_not;            // when not measured (no cuBLASLt, not this stage)
  std::string library;            // e.g. "cuBLASLt 130001 (libcublasLt.so.13)"
  std::string description;
  std::vector<LibraryGemmPoint> sizes;
  std::optional<double> spec_tera_ops;
  std::string spec_source;
};

struct ClockReading {
  bool available = false;
  unsigned sm_mhz = 0, mem_mhz = 0;
};

// Everything `characterize` measured, reduced.
struct Results {
  // the GPU and the run
  std::string gpu_name, pci_bus_id, driver;
  int cc_major = 0, cc_minor = 0, sm_count = 0, warp_size = 32, driver_version = 0, runtime_version = 0;
  double runtime_max_sm_clock_mhz = 0, mem_peak_bandwidth_gbs = 0;
  long long l2_cache_bytes = 0;
  ClockReading clock_before, clock_after;
  double sm_clock_mhz = 0;  // the clock ns are computed at (NVML mean, else the runtime maximum)
  int repetitions = 0;
  std::string date, commit, command;
  double seconds = 0;
  // the SASS check
  bool sass_checked = false;
  std::string sass_source;  // "cuobjdump -sass of ..." or why it did not run
  struct Verdict {
    std::string benchmark;
    bool valid = false;
    std::string reason;
  };
  std::vector<Verdict> verdicts;
  std::vector<InvalidBenchmark> invalid;
  // the measurements
  std::vector<LatencySeries> latency;
  std::vector<RateSeries> rates;
  std::optional<LatencySeries> barrier;
  MemoryLevels memory;
  NearFarL2 near_far;
  std::vector<DepartureFit> departure;
  std::vector<BandwidthResult> bandwidth;
  LaunchResult launch;
  // The Hopper units (stage "tensor")
  std::vector<std::string> stages = {"core"};  // the stages this run measured ("core", "tensor")
  std::string units_skipped;         // why the tensor stage's rows were not run ("" = they were)
  std::vector<UnitSeries> units;
  std::map<int, int> cluster_occupancy;  // clusters of each size resident at once, one block per SM
  LibraryGemmResult library_gemm;
  ClockReading units_clock_before, units_clock_after;  // NVML around the tensor stage
  std::vector<CsvRow> csv;       // the core stage's raw series (ubench.csv)
  std::vector<CsvRow> unit_csv;  // the tensor stage's (tensor.csv)
  std::vector<EnergyRowResult> energy;  // the energy rows (absent without NVML's energy counter)
  std::optional<double> energy_power_limit_w;  // the board's enforced power limit, read by NVML (E.3)
  std::vector<std::string> warnings;

  const LatencySeries* find_latency(const std::string& name) const;
  const RateSeries* find_rate(const std::string& name) const;
  const UnitSeries* find_unit(const std::string& section, const std::string& result, bool latency) const;
  bool ran(const std::string& stage) const;
};

}  // namespace warpmodel::ubench
