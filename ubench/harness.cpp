#include "harness.hpp"

#include "warpmodel/energy/meter.hpp"
#include "warpmodel/energy/nvml.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <type_traits>
#include <variant>

#include "constants.hpp"
#include "gpu_specs.hpp"
#include "kernels.hpp"
#include "library_gemm.hpp"
#include "nvml.hpp"
#include "unit_kernels.hpp"
#include "sass_check.hpp"
#include "warpmodel/sass/tools.hpp"
#include "warpmodel/support/cuda.hpp"

namespace warpmodel::ubench {

namespace {

using support::estimate;
using support::linear_fit;
constexpr int kMaxWarps = sizes::kMaxWarpsPerBlock;

// The element at size/2 of the sorted values (the upper of the two middles for an even count): the
// median the committed results were reduced with.
double middle_value(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

class Harness {
 public:
  Harness(const GpuInfo& gpu, const Plan& plan, const HarnessOptions& o) : gpu_(gpu), plan_(plan), o_(o) {}

  Results run() {
    const auto t_begin = std::chrono::steady_clock::now();
    gpu::select_device(gpu_.index);
    describe_gpu();
    Nvml nvml;
    nvml.bind(gpu::pci_bus_id(gpu_.index));
    const auto before = nvml.sample();
    if (!before)
      r_.warnings.push_back("NVML unavailable (" + nvml.why_unavailable() +
                            "): SM clock not recorded; ns use the maximum clock from the runtime");
    r_.driver = nvml.driver_version().empty() ? std::to_string(gpu_.driver_version) : nvml.driver_version();
    r_.stages = plan_.stages;
    check_sass();

    run_clock_cost();
    for (const auto* d : plan_.of(Method::latency_chain)) run_latency_chain(*d);
    for (const auto* d : plan_.of(Method::latency_chain)) add_difference(*d);
    for (const auto* d : plan_.benchmarks)
      if (d->method == Method::block_throughput || d->method == Method::device_throughput) run_throughput(*d);
    run_pointer_chase();
    for (const auto* d : plan_.of(Method::l2_lines)) run_l2_lines(*d);
    for (const auto* d : plan_.of(Method::departure)) run_departure(*d);
    const auto mid = nvml.sample();
    const double clock_for_spec = mid ? mid->sm_mhz : gpu_.sm_clock_mhz;
    for (const auto* d : plan_.of(Method::bandwidth)) run_bandwidth(*d, clock_for_spec);
    run_energy();
    gpu::release_buffers();
    for (const auto* d : plan_.of(Method::launch)) run_launch(*d);
    run_units(nvml);

    const auto after = nvml.sample();
    if (before) r_.clock_before = {true, before->sm_mhz, before->mem_mhz};
    if (after) r_.clock_after = {true, after->sm_mhz, after->mem_mhz};
    r_.sm_clock_mhz = gpu_.sm_clock_mhz;
    if (before && after) {
      r_.sm_clock_mhz = 0.5 * (before->sm_mhz + after->sm_mhz);
      if (before->sm_mhz != after->sm_mhz)
        r_.warnings.push_back("SM clock moved during the run: " + std::to_string(before->sm_mhz) + " -> " +
                              std::to_string(after->sm_mhz) + " MHz (throttling?)");
    }
    finish_memory_levels();
    finish_launch();
    r_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_begin).count();
    return std::move(r_);
  }

 private:
  void log(const std::string& s) const {
    if (o_.log) o_.log(s);
  }

  void describe_gpu() {
    r_.gpu_name = gpu_.name;
    r_.pci_bus_id = gpu::pci_bus_id(gpu_.index);
    r_.cc_major = gpu_.cc_major;
    r_.cc_minor = gpu_.cc_minor;
    r_.sm_count = gpu_.sm_count;
    r_.warp_size = gpu_.warp_size;
    r_.driver_version = gpu_.driver_version;
    r_.runtime_version = gpu_.runtime_version;
    r_.runtime_max_sm_clock_mhz = gpu_.sm_clock_mhz;
    r_.mem_peak_bandwidth_gbs = gpu_.mem_peak_bandwidth_gbs;
    r_.l2_cache_bytes = gpu_.l2_cache_bytes;
    r_.repetitions = plan_.reps;
  }

  // --- the SASS check: every planned declaration against this program's own SASS ---
  void check_sass() {
    try {
      const auto listing = parse_sass(sass::dump_sass(o_.self_exe));
      r_.sass_checked = true;
      r_.sass_source = "cuobjdump -sass of " + o_.self_exe;
      for (const auto* d : plan_.benchmarks) {
        const auto v = check_declaration(*d, listing);
        verdicts_[d->name] = v.valid;
        r_.verdicts.push_back({v.benchmark, v.valid, v.reason});
        if (!v.valid) {
          r_.warnings.push_back("SASS check failed for " + d->name + ": " + v.reason + " (reported invalid)");
          r_.invalid.push_back({d->name, d->result_name(), v.reason});
        }
      }
    } catch (const std::exception& e) {  // sass::ToolMissing, sass::AnalysisError
      r_.sass_source = std::string("not run: ") + e.what();
      r_.warnings.push_back("SASS check not run: " + std::string(e.what()) +
                            "; every benchmark is reported as unchecked");
    }
  }
  // Measured unless the check ran and refused it (an invalid benchmark is never measured silently).
  bool runnable(const std::string& name) const {
    return !r_.sass_checked || (verdicts_.count(name) && verdicts_.at(name));
  }
  std::string sass_status(const std::string& name) const {
    if (!r_.sass_checked) return "unchecked";
    const auto it = verdicts_.find(name);
    if (it == verdicts_.end()) return "undeclared";
    return it->second ? "valid" : "INVALID";
  }

  // --- reductions ---
  void csv(const std::string& benchmark, const std::string& series, int warps, double footprint, long long rep,
           std::optional<double> raw, double value, const std::string& unit) {
    r_.csv.push_back({benchmark, series, warps, footprint, rep, raw, value, unit});
  }

  // Per repetition: the mean over warps (and blocks) of the raw region cycles; drops warm-up rep 0.
  std::vector<double> per_rep_mean(const gpu::Cycles& c, int units) const {
    const int R = plan_.reps + 1;
    std::vector<double> out;
    for (int r = 1; r < R; ++r) {
      double s = 0;
      for (int u = 0; u < units; ++u) s += static_cast<double>(c[static_cast<std::size_t>(u) * R + r]);
      out.push_back(s / units);
    }
    return out;
  }
  // (start, end) pairs [unit][rep][2] -> region cycles [unit][rep].
  static gpu::Cycles regions(const gpu::Cycles& pairs) {
    gpu::Cycles out(pairs.size() / 2);
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = pairs[2 * i + 1] - pairs[2 * i];
    return out;
  }
  // Raw per-rep region cycles -> per-op cycles, each value a CSV row; returns the estimate.
  Estimate reduce(const std::string& name, const std::string& series, int warps, double footprint,
                  const std::vector<double>& raw, double overhead, double chain, double minus = 0) {
    std::vector<double> v;
    int rep = 1;
    for (double x : raw) {
      const double val = (x - overhead) / chain - minus;
      v.push_back(val);
      csv(name, series, warps, footprint, rep++, x, val, "cycles");
    }
    return estimate(v);
  }
  LatencySeries& latency_series(const std::string& name, const std::string& sass) {
    for (auto& s : r_.latency)
      if (s.name == name) return s;
    r_.latency.push_back({name, sass, {}, {}, {}});
    return r_.latency.back();
  }
  double overhead(int warps) const { return clock_cost_.at(static_cast<std::size_t>(warps)); }

  // --- clock-read cost (clock64 at each warp count is what every other row subtracts) ---
  void run_clock_cost() {
    log("clock-read cost, 1..32 warps");
    clock_cost_.assign(kMaxWarps + 1, 0);
    for (const auto* d : plan_.of(Method::clock_cost)) {
      auto& s = latency_series(d->result_name(), sass_status(d->name));
      const auto which = std::get<ClockRead>(d->variant);
      for (int k : d->axes.warps_per_block) {
        const auto e = reduce(d->result_name(), "latency", k, 0, per_rep_mean(gpu::run_clock(which, k, plan_.reps), k), 0, 1);
        s.warps.push_back(k);
        s.by_warps.push_back(e);
        if (which == ClockRead::clock64) clock_cost_[static_cast<std::size_t>(k)] = e.mean;
      }
    }
  }

  // --- one dependent chain per thread, 1 block of each warp count ---
  gpu::Cycles run_chain_kernel(const Declaration& d, int warps) const {
    const int R = plan_.reps;
    return std::visit(
        [&](const auto& v) -> gpu::Cycles {
          using V = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<V, AluKernel>) return gpu::run_alu(v, 1, warps, R);
          else if constexpr (std::is_same_v<V, StoreChain>) return gpu::run_store(v, warps, R);
          else if constexpr (std::is_same_v<V, SharedChase>) return gpu::run_shared_chase(warps, R);
          else if constexpr (std::is_same_v<V, TimedKernel>) return regions(gpu::run_timed(d.kernel, 1, warps, R));
          else throw support::cuda::CudaError(d.name + ": no latency-chain kernel for this declaration");
        },
        d.variant);
  }
  void run_latency_chain(const Declaration& d) {
    if (!runnable(d.name)) return;
    log("latency " + d.name + ", " + d.axes.note);
    LatencySeries s{d.result_name(), sass_status(d.name), {}, {}, {}};
    const LatencySeries* minus = d.minus.empty() ? nullptr : find_measured(d.minus);
    for (int k : d.axes.warps_per_block) {
      const double m = minus ? minus->at(k).value_or(Estimate{}).mean : 0;
      s.warps.push_back(k);
      s.by_warps.push_back(reduce(d.result_name(), "latency", k, 0, per_rep_mean(run_chain_kernel(d, k), k),
                                  overhead(k), d.chain, m));
    }
    if (d.output == Output::barrier) r_.barrier = s;
    else r_.latency.push_back(s);
  }
  const LatencySeries* find_measured(const std::string& declaration) const {
    const auto* d = find_declaration(declaration);
    return d ? r_.find_latency(d->result_name()) : nullptr;
  }
  // A derived latency (store = round trip - selfload): per warp count, u in quadrature.
  void add_difference(const Declaration& d) {
    if (d.difference_of.empty()) return;
    const LatencySeries* a = r_.find_latency(d.result_name());
    const LatencySeries* b = find_measured(d.difference_of);
    if (!a || !b) return;
    const std::string sa = a->sass, sb = b->sass;
    LatencySeries diff{d.difference_result, sa == sb ? sa : sa == "valid" ? sb : sa, {}, {}, {}};
    for (std::size_t i = 0; i < a->warps.size(); ++i) {
      const auto eb = b->at(a->warps[i]);
      if (!eb) continue;
      const Estimate& ea = a->by_warps[i];
      Estimate e;
      e.mean = ea.mean - eb->mean;
      e.uncertainty = std::sqrt(ea.uncertainty * ea.uncertainty + eb->uncertainty * eb->uncertainty);
      e.n = std::min(ea.n, eb->n);
      e.stddev = e.uncertainty * std::sqrt(double(e.n));
      diff.warps.push_back(a->warps[i]);
      diff.by_warps.push_back(e);
      csv(d.difference_result, "latency_difference", a->warps[i], 0, 0, std::nullopt, e.mean, "cycles");
    }
    r_.latency.push_back(diff);
  }

  // --- throughput: one block per SM on every SM ---
  void run_throughput(const Declaration& d) {
    if (!runnable(d.name)) return;
    log("throughput " + d.name + ", " + d.axes.note);
    const int R = plan_.reps;
    const int blocks = gpu_.sm_count;
    RateSeries s{d.result_name(), d.group, d.rate.unit, d.rate.per_sm, d.rate.sectors_per_unit, d.rate.bytes_per_unit,
                 d.spec_per_clk_sm, sass_status(d.name), {}, {}};
    // A kernel whose registers do not fit 32 warps in a block runs the axis up to what fits; the
    // rate is then the last point's (writers record its warps_per_block).
    const int max_warps = std::holds_alternative<AluKernel>(d.variant) ? sizes::kMaxWarpsPerBlock
                                                                       : gpu::timed_max_warps_per_block(d.kernel);
    for (int warps : d.axes.warps_per_block) {
      if (warps > max_warps) {
        log("throughput " + d.name + ": " + std::to_string(warps) + " warps skipped, its registers fit at most " +
            std::to_string(max_warps) + " warps per block");
        continue;
      }
      const gpu::Cycles c = std::holds_alternative<AluKernel>(d.variant)
                                ? gpu::run_alu(std::get<AluKernel>(d.variant), blocks, warps, R)
                                : gpu::run_timed(d.kernel, blocks, warps, R);
      const double units_per_block = double(warps) * d.rate.per_warp;
      std::vector<double> rate;
      for (int r = 1; r <= R; ++r) {
        double sum = 0, longest = 0;
        for (int b = 0; b < blocks; ++b) {
          // The block's time: first start to last end over its warps (%clock64 is per SM). Taking
          // the longest single-warp region instead overstates the rate: the scheduler runs warps
          // partly one after another.
          long long t0 = 0, t1 = 0;
          for (int w = 0; w < warps; ++w) {
            const std::size_t i = ((static_cast<std::size_t>(b) * warps + w) * (R + 1) + r) * 2;
            t0 = w == 0 ? c[i] : std::min(t0, c[i]);
            t1 = w == 0 ? c[i + 1] : std::max(t1, c[i + 1]);
          }
          const double cycles = double(t1 - t0) - overhead(warps);
          sum += units_per_block / cycles;
          longest = std::max(longest, cycles);
        }
        // Per SM: the mean over the SMs' rates. Whole GPU: all the work over the longest SM's time
        // (the SMs start together; their clocks run at one frequency but are not aligned).
        rate.push_back(d.rate.per_sm ? sum / blocks : units_per_block * blocks / longest);
        csv(d.name, "throughput", warps, 0, r, std::nullopt, rate.back(), s.key());
      }
      s.warps.push_back(warps);
      s.by_warps.push_back(estimate(rate));
    }
    r_.rates.push_back(s);
  }

  // --- global memory: footprint curves, the carveout check and the warp series ---
  void run_pointer_chase() {
    const auto chases = plan_.of(Method::pointer_chase);
    if (chases.empty()) return;
    const int R = plan_.reps;
    MemoryLevels& m = r_.memory;
    // The L1 is sized with an explicit carveout: 0 % shared memory = the largest L1 the SM allows.
    m.carveout_percent = 0;
    gpu::ChaseBuffer::set_carveout(m.carveout_percent);
    std::size_t max_footprint = 0;
    std::vector<std::size_t> footprints;
    for (const auto* d : chases) {
      for (auto f : d->axes.footprints_bytes) {
        footprints.push_back(f);
        max_footprint = std::max(max_footprint, f);
      }
      for (const auto& s : d->axes.warp_series) max_footprint = std::max(max_footprint, s.footprint_bytes);
    }
    std::sort(footprints.begin(), footprints.end());
    footprints.erase(std::unique(footprints.begin(), footprints.end()), footprints.end());
    chase_ = std::make_unique<gpu::ChaseBuffer>(max_footprint);  // kept for the near/far kernel
    gpu::ChaseBuffer& chase = *chase_;
    auto stride_for = [](std::size_t f) {  // <= 4 Mi nodes
      std::size_t s = sizes::kChaseNodeBytes;
      while (f / s > (std::size_t(1) << 22)) s *= 2;
      return s;
    };
    auto op_name = [](CacheOp op) { return std::string(op == CacheOp::ca ? "ca" : "cg"); };
    log("global pointer chase over " + std::to_string(footprints.size()) + " footprints (ca, cg)");
    std::uint64_t& seed = seed_;
    for (std::size_t f : footprints) {
      const std::size_t nodes = chase.build(f, stride_for(f), seed++);
      const int warmup = static_cast<int>(std::min<std::size_t>(nodes, 8192));
      FootprintPoint p{f, stride_for(f), nodes, std::nullopt, std::nullopt};
      for (const auto* d : chases) {
        if (!runnable(d->name)) continue;
        const auto op = std::get<CacheOp>(d->variant);
        const auto raw = per_rep_mean(chase.run(op, true, 1, 1, warmup, R), 1);
        const auto e = reduce(d->name, "footprint", 1, double(f), raw, overhead(1), d->chain);
        (op == CacheOp::ca ? p.ca : p.cg) = e;
      }
      m.curve.push_back(p);
    }
    // Does the carveout move the latencies? L1 hit (ca, 16 KiB) and L2 hit (cg, 4 MiB), 1 warp, with
    // the driver's default carveout and with the one used above.
    for (const int pc : {-1, m.carveout_percent}) {
      gpu::ChaseBuffer::set_carveout(pc);
      for (const auto& [op, f] : std::vector<std::pair<CacheOp, std::size_t>>{{CacheOp::ca, 16u << 10}, {CacheOp::cg, 4u << 20}}) {
        const std::string name = "chase_" + op_name(op);
        if (!runnable(name)) continue;
        const std::size_t nodes = chase.build(f, sizes::kChaseNodeBytes, seed++);
        const auto raw = per_rep_mean(chase.run(op, true, 1, 1, static_cast<int>(std::min<std::size_t>(nodes, 8192)), R), 1);
        const auto e = reduce(name, pc < 0 ? "carveout_default" : "carveout_" + std::to_string(pc), 1, double(f), raw,
                              overhead(1), sizes::kGlobalChaseChain);
        m.carveout_check.push_back({pc, op_name(op), f, e});
      }
    }
    gpu::ChaseBuffer::set_carveout(m.carveout_percent);
    // Warp series at fixed footprints (the DRAM coalesced series is the thesis's global-load series of eq 4.25).
    for (const auto* d : chases) {
      if (!runnable(d->name)) continue;
      const auto op = std::get<CacheOp>(d->variant);
      for (const auto& s : d->axes.warp_series) {
        log("warp series " + s.result);
        const std::size_t nodes = chase.build(s.footprint_bytes, stride_for(s.footprint_bytes), seed++);
        const int warmup = s.footprint_bytes <= (64u << 20) ? static_cast<int>(std::min<std::size_t>(nodes, 8192)) : 0;
        LatencySeries series{s.result, sass_status(d->name), {}, {}, {}};
        for (int k : d->axes.warps_per_block) {
          const auto raw = per_rep_mean(chase.run(op, s.coalesced, 1, k, warmup, R), k);
          series.warps.push_back(k);
          series.by_warps.push_back(
              reduce(s.result, "latency", k, double(s.footprint_bytes), raw, overhead(k), d->chain));
        }
        r_.latency.push_back(series);
      }
    }
  }

  void finish_memory_levels() {
    MemoryLevels& m = r_.memory;
    auto level = [&](bool ca, double lo, double hi) -> double {
      std::vector<double> v;
      for (const auto& p : m.curve) {
        const auto& e = ca ? p.ca : p.cg;
        if (e && p.footprint_bytes >= lo && p.footprint_bytes <= hi) v.push_back(e->mean);
      }
      return middle_value(v);
    };
    m.l1_level = level(true, 4096, 16384);
    m.l2_level = level(false, 1 << 20, 8 << 20);
    m.dram_level = level(false, double(std::size_t(512) << 20), double(std::size_t(2) << 30));
    auto capacity = [&](bool ca, double threshold) -> double {
      double last = NAN;
      for (const auto& p : m.curve) {
        const auto& e = ca ? p.ca : p.cg;
        if (!e) continue;
        if (e->mean < threshold) last = double(p.footprint_bytes);
        else break;
      }
      return last;
    };
    m.l1_capacity_bytes = capacity(true, 0.5 * (m.l1_level + m.l2_level));
    m.l2_capacity_bytes = capacity(false, 0.5 * (m.l2_level + m.dram_level));
    std::size_t largest = 0;
    for (const auto& p : m.curve) {
      if (p.footprint_bytes == (std::size_t(512) << 20) && p.cg) m.dram = p.cg;
      largest = std::max(largest, p.footprint_bytes);
    }
    for (const auto& p : m.curve)
      if (p.footprint_bytes == largest && p.cg) m.dram_tlb_missing = p.cg->mean;
  }

  // --- near/far L2: every load of a 4 MiB chase timed on its own, from one warp on each SM ---
  void run_l2_lines(const Declaration& d) {
    if (!runnable(d.name)) return;
    log("near/far L2: per-load latency from each of " + std::to_string(gpu_.sm_count) + " SMs");
    const std::size_t f = 4u << 20;
    if (!chase_) chase_ = std::make_unique<gpu::ChaseBuffer>(f);
    chase_->build(f, sizes::kChaseNodeBytes, seed_++);
    chase_->prewarm();
    const int steps = 2048;
    std::vector<std::vector<double>> per_sm(static_cast<std::size_t>(gpu_.sm_count));
    std::vector<double> pooled;
    for (int sm = 0; sm < gpu_.sm_count; ++sm) {
      const auto c = chase_->run_lines(sm, steps, 4 * gpu_.sm_count);
      if (c[0] < 0) continue;  // no block landed on this SM
      for (long long x : c) per_sm[sm].push_back(double(x) - overhead(1));
      pooled.insert(pooled.end(), per_sm[sm].begin(), per_sm[sm].end());
    }
    chase_.reset();
    if (pooled.size() <= 100) return;
    // Two plateaus: 2-means on the pooled per-load latencies, the slowest 1 % left out first (a
    // refresh or a TLB walk now and then; documented in the README).
    std::vector<double> sorted = pooled;
    std::sort(sorted.begin(), sorted.end());
    const double p99 = sorted[sorted.size() * 99 / 100];
    std::vector<double> kept;
    for (double x : pooled)
      if (x <= p99) kept.push_back(x);
    double c_lo = sorted.front(), c_hi = p99;
    for (int it = 0; it < 100; ++it) {
      double s0 = 0, s1 = 0;
      int n0 = 0, n1 = 0;
      const double cut = 0.5 * (c_lo + c_hi);
      for (double x : kept) (x < cut ? (s0 += x, ++n0) : (s1 += x, ++n1));
      if (n0 == 0 || n1 == 0) break;
      c_lo = s0 / n0;
      c_hi = s1 / n1;
    }
    const double cut = 0.5 * (c_lo + c_hi);
    std::vector<double> lo, hi;
    for (double x : kept) (x < cut ? lo : hi).push_back(x);
    NearFarL2& nf = r_.near_far;
    nf.measured = true;
    nf.footprint_bytes = f;
    nf.loads_per_sm = steps;
    nf.near = {estimate(lo), middle_value(lo)};
    nf.far = {estimate(hi), middle_value(hi)};
    nf.threshold_cycles = cut;
    nf.dropped_above_cycles = p99;
    nf.near_fraction_pooled = double(lo.size()) / double(kept.size());
    std::vector<double> sm_means, sm_near, sm_far;
    for (int sm = 0; sm < gpu_.sm_count; ++sm) {
      if (per_sm[sm].empty()) continue;
      std::vector<double> a, b;
      for (double x : per_sm[sm])
        if (x <= p99) (x < cut ? a : b).push_back(x);
      const auto e = estimate(per_sm[sm]);
      const double frac = double(a.size()) / double(a.size() + b.size());
      const double na = a.empty() ? NAN : estimate(a).mean, fb = b.empty() ? NAN : estimate(b).mean;
      sm_means.push_back(e.mean);
      if (std::isfinite(na)) sm_near.push_back(na);
      if (std::isfinite(fb)) sm_far.push_back(fb);
      nf.per_sm.push_back({sm, e.mean, middle_value(per_sm[sm]), frac, na, fb});
      csv("l2_near_far", "sm_mean", 1, double(f), sm, std::nullopt, e.mean, "cycles");
      csv("l2_near_far", "sm_median", 1, double(f), sm, std::nullopt, middle_value(per_sm[sm]), "cycles");
      csv("l2_near_far", "sm_near_fraction", 1, double(f), sm, std::nullopt, frac, "fraction");
      csv("l2_near_far", "sm_near_mean", 1, double(f), sm, std::nullopt, na, "cycles");
      csv("l2_near_far", "sm_far_mean", 1, double(f), sm, std::nullopt, fb, "cycles");
    }
    // Pooled histogram, 4-cycle bins (rep = lower bin edge in cycles).
    std::map<long long, int> hist;
    for (double x : pooled) ++hist[static_cast<long long>(std::floor(x / 4)) * 4];
    for (const auto& [edge, count] : hist) csv("l2_near_far", "histogram_4cyc", 1, double(f), edge, std::nullopt, count, "loads");
    auto spread = [](std::vector<double> v) -> std::optional<Spread> {
      if (v.empty()) return std::nullopt;
      std::sort(v.begin(), v.end());
      return Spread{v.front(), v[v.size() / 2], v.back(), estimate(v).mean};
    };
    nf.per_sm_mean = spread(sm_means);
    nf.per_sm_near_mean = spread(sm_near);
    nf.per_sm_far_mean = spread(sm_far);
    const std::string st = sass_status(d.name);
    r_.latency.push_back({"l2_near", st, {1}, {nf.near.estimate}, {}});
    r_.latency.push_back({"l2_far", st, {1}, {nf.far.estimate}, {}});
  }

  // --- departure delay, direct: the completion-time slope of one cold load per warp ---
  void run_departure(const Declaration& d) {
    if (!runnable(d.name)) return;
    // The completion time of one cold load per warp varies by ~10 % from repetition to repetition
    // (DRAM state), so the departure series takes 8x the repetitions (u shrinks by sqrt(8)); the
    // median is reported beside the mean; no repetition is dropped.
    const int Rd = 8 * plan_.reps;
    using gpu::DepartureLines;
    for (const DepartureLines placement :
         {DepartureLines::coalesced, DepartureLines::uncoalesced, DepartureLines::sequential}) {
      const std::string name = placement == DepartureLines::coalesced     ? "departure_coalesced"
                               : placement == DepartureLines::uncoalesced ? "departure_uncoalesced"
                                                                          : "departure_sequential";
      log("departure delay (direct), " + name);
      DepartureFit fit{name, NAN, NAN, NAN, {}, {}, Rd};
      LatencySeries series{name, sass_status(d.name), {}, {}, {}};
      std::vector<double> ks;
      for (int k : d.axes.warps_per_block) {
        const auto run = gpu::run_departure(placement, k, Rd);
        std::vector<double> comp;
        for (int r = 1; r <= Rd; ++r) {
          long long s = run.start[static_cast<std::size_t>(r) * k], e = run.end[static_cast<std::size_t>(r) * k];
          for (int w = 0; w < k; ++w) {
            s = std::min(s, run.start[static_cast<std::size_t>(r) * k + w]);
            e = std::max(e, run.end[static_cast<std::size_t>(r) * k + w]);
          }
          comp.push_back(double(e - s));
        }
        const auto est = reduce(name, "completion", k, 0, comp, overhead(k), 1);
        series.warps.push_back(k);
        series.by_warps.push_back(est);
        series.medians.push_back(middle_value(comp) - overhead(k));
        ks.push_back(k);
        fit.completion_by_warps.push_back(est.mean);
      }
      fit.median_by_warps = series.medians;
      const auto line = linear_fit(ks, fit.completion_by_warps);
      fit.delta_cycles = line.slope;
      fit.u_cycles = line.slope_uncertainty;
      fit.intercept_cycles = line.intercept;
      r_.departure.push_back(fit);
      r_.latency.push_back(series);
    }
  }

  // --- energy per operation (registry.hpp Method::energy, energy_rows.hpp): NVML's counter around
  // repeated runs of another row's kernel, the idle power just before each row ---
  void run_energy() {
    const auto rows = plan_.of(Method::energy);
    if (rows.empty()) return;
    energy::NvmlPower nvml(r_.pci_bus_id);
    if (!nvml.available()) {
      r_.warnings.push_back("energy rows not measured: " + nvml.why_unavailable());
      return;
    }
    // Read, never changed: the model caps a launch's energy at this limit times its time (E.3).
    r_.energy_power_limit_w = nvml.board().power_limit_w;
    for (const auto* d : rows) {
      const auto& of = std::get<EnergyOf>(d->variant);
      const Declaration* target = find_declaration(of.of);
      if (!target || !runnable(d->name)) continue;
      log("energy " + d->name + " (the kernel of " + target->name + ")");
      std::function<void()> region;
      double count = 0;
      if (const auto* alu = std::get_if<AluKernel>(&target->variant)) {
        // 32 warps on every SM, 200 timed regions a launch: milliseconds of arithmetic per region.
        constexpr int kWarps = 32, kRegions = 200;
        const AluKernel k = *alu;
        const int sms = gpu_.sm_count;
        region = [k, sms] { gpu::run_alu(k, sms, kWarps, kRegions); };
        count = double(sms) * kWarps * target->rate.per_warp * (kRegions + 1);  // the warm-up region runs too
      } else if (const auto* kind = std::get_if<BandwidthKind>(&target->variant)) {
        const BandwidthKind k = *kind;
        const int sms = gpu_.sm_count;
        const double bytes = gpu::run_bandwidth(k, sms, 1).bytes;
        region = [k, sms] { gpu::run_bandwidth(k, sms, 1); };
        count = 2 * bytes;  // a warm-up launch and a timed one
      } else {
        continue;
      }
      try {
        // The board settles before each row: static power is read from the rows' idle readings, and a
        // reading taken straight after the row before still holds that row's load (NVML's power is a
        // one-second average).
        constexpr double kSettleMaxSeconds = 20;
        energy::EnergyOptions options;
        options.settle_max_seconds = kSettleMaxSeconds;
        const energy::EnergyResult e = energy::measure_energy(nvml, region, options);
        r_.energy.push_back({d->name, target->name, energy_count_name(of.counts), sass_status(d->name), count,
                             e.region_joules.mean, e.region_joules.half_width, e.region_seconds.mean,
                             e.region_seconds.half_width, e.mean_watts.mean, e.idle_w, e.idle_settle_seconds,
                             e.repetitions, e.samples});
        if (!e.idle_settled)
          r_.warnings.push_back("energy row " + d->name + ": the board's idle power still moved after " +
                                std::to_string(static_cast<int>(kSettleMaxSeconds)) + " s (" + std::to_string(e.idle_w) +
                                " W read)");
        csv(d->name, "joules_per_region", 0, 0, 0, std::nullopt, e.region_joules.mean, "J");
      } catch (const std::runtime_error& e) {
        r_.warnings.push_back("energy row " + d->name + " not measured: " + e.what());
      }
    }
  }

  // --- bandwidth (CUDA events) ---
  void run_bandwidth(const Declaration& d, double clock_for_spec) {
    if (!runnable(d.name)) return;
    log("bandwidth " + d.name);
    const auto b = gpu::run_bandwidth(std::get<BandwidthKind>(d.variant), gpu_.sm_count, plan_.reps);
    std::vector<double> gbs;
    int rep = 1;
    for (double s : b.seconds) {
      gbs.push_back(b.bytes / s / 1e9);
      csv(d.name, "bandwidth", 0, b.bytes, rep++, std::nullopt, gbs.back(), "GB/s");
    }
    BandwidthResult out{d.name, estimate(gbs), b.bytes, std::nullopt, ""};
    if (d.name.rfind("dram", 0) == 0) {
      out.spec_gbs = gpu_.mem_peak_bandwidth_gbs;
      out.spec_source = "2 x memory clock x bus width (runtime)";
    } else if (d.name == "shared_read") {
      out.spec_gbs = 128.0 * gpu_.sm_count * clock_for_spec * 1e6 / 1e9;
      out.spec_source = "128 B/clk/SM x SMs x SM clock";
    } else {
      out.spec_source = "no published L2 bandwidth";
    }
    r_.bandwidth.push_back(out);
  }


  // --- the Hopper units (stage "tensor"): latency chains, rates per SM and per GPU, the library GEMM ---
  void run_units(const Nvml& nvml) {
    const auto latencies = plan_.of(Method::unit_latency), rates = plan_.of(Method::unit_throughput),
               gemms = plan_.of(Method::library_gemm);
    if (latencies.empty() && rates.empty() && gemms.empty()) return;
    std::string why;
    if (!gpu::unit_kernels_supported(why)) {
      r_.units_skipped = why;
      r_.warnings.push_back("tensor stage not run: " + why);
      return;
    }
    spec_ = find_gpu_spec(gpu_.name);
    if (const auto c = nvml.sample()) r_.units_clock_before = {true, c->sm_mhz, c->mem_mhz};
    for (const auto* d : latencies) run_unit_latency(*d);
    for (const auto* d : rates) run_unit_rate(*d);
    if (!rates.empty()) {  // the GPC layout, from the clusters that fit (no kernel runs)
      try {
        r_.cluster_occupancy = gpu::max_active_clusters_one_block_per_sm("ubench_dsmem_read");
      } catch (const support::cuda::CudaError& e) {
        r_.warnings.push_back(std::string("cluster occupancy not measured: ") + e.what());
      }
    }
    for (const auto* d : gemms) run_library_gemm(*d);
    if (const auto c = nvml.sample()) r_.units_clock_after = {true, c->sm_mhz, c->mem_mhz};
  }
  void unit_csv(const std::string& benchmark, const std::string& series, int warps, long long rep,
                std::optional<double> raw, double value, const std::string& unit) {
    r_.unit_csv.push_back({benchmark, series, warps, 0, rep, raw, value, unit});
  }
  UnitSeries unit_series(const Declaration& d, bool latency) const {
    UnitSeries s;
    s.name = d.name;
    s.section = d.section;
    s.result = d.result_name();
    s.latency = latency;
    s.unit = d.rate.unit;
    s.ptx = d.ptx;
    s.sass = sass_status(d.name);
    s.spec_per_clk_sm = d.spec_per_clk_sm;
    s.clustered = !d.axes.clusters.empty();
    if (d.spec_key == "dram") {
      s.spec_per_second = gpu_.mem_peak_bandwidth_gbs * 1e9;
      s.spec_source = "2 x memory clock x bus width (runtime)";
    } else if (!d.spec_key.empty()) {
      const auto t = spec_ ? spec_tera_ops(*spec_, d.spec_key) : std::nullopt;
      if (t) s.spec_per_second = *t * 1e12;
      s.spec_source = !spec_ ? "no published figures for " + gpu_.name + " in ubench/gpu_specs.cpp"
                      : t    ? spec_->source + ", " + d.spec_key + (d.spec_key.find("_sparse") == std::string::npos
                                                                     ? " (dense: half the sheet's sparse figure)"
                                                                     : "")
                             : spec_->product + ": no " + d.spec_key + " figure in its source";
    }
    return s;
  }
  std::vector<int> cluster_axis(const Declaration& d) const {
    return d.axes.clusters.empty() ? std::vector<int>{1} : d.axes.clusters;
  }
  static std::string point_series(const std::string& what, int cluster) {
    return cluster > 1 ? what + "_cluster_" + std::to_string(cluster) : what;
  }
  void run_unit_latency(const Declaration& d) {
    if (!runnable(d.name)) return;
    log("latency " + d.name + ", " + d.axes.note);
    UnitSeries s = unit_series(d, true);
    const int R = plan_.reps;
    for (int cluster : cluster_axis(d)) {
      for (int warps : d.axes.warps_per_block) {
        gpu::UnitRun run;
        try {
          run = gpu::run_unit(d.kernel, cluster, false, warps, R, 0, 1);
        } catch (const support::cuda::CudaError& e) {
          r_.warnings.push_back(d.name + ", cluster of " + std::to_string(cluster) + ": not measured (" + e.what() + ")");
          continue;
        }
        const int units = run.blocks * warps;
        const auto raw = per_rep_mean(regions(run.pairs), units);
        std::vector<double> v;
        long long rep = 1;
        for (double x : raw) {
          v.push_back((x - overhead(warps)) / d.chain);
          unit_csv(d.name, point_series("latency", cluster), warps, rep++, x, v.back(), "cycles");
        }
        s.points.push_back({cluster, warps, estimate(v), std::nullopt, run.blocks});
      }
    }
    r_.units.push_back(s);
  }
  void run_unit_rate(const Declaration& d) {
    if (!runnable(d.name)) return;
    log("throughput " + d.name + ", " + d.axes.note);
    UnitSeries s = unit_series(d, false);
    const int R = plan_.reps;
    const int max_warps = gpu::unit_max_warps_per_block(d.kernel);
    for (int cluster : cluster_axis(d)) {
      for (int warps : d.axes.warps_per_block) {
        if (warps > max_warps) {
          log("throughput " + d.name + ": " + std::to_string(warps) + " warps skipped, its registers fit at most " +
              std::to_string(max_warps) + " warps per block");
          continue;
        }
        gpu::UnitRun run;
        try {
          run = gpu::run_unit(d.kernel, cluster, true, warps, R, d.steps, sizes::kUnitLaunches);
        } catch (const support::cuda::CudaError& e) {
          r_.warnings.push_back(d.name + ", cluster of " + std::to_string(cluster) + ", " + std::to_string(warps) +
                                " warps: not measured (" + e.what() + ")");
          continue;
        }
        const int blocks = run.blocks;
        const double units_per_block = double(warps) * d.rate.per_warp;
        std::vector<double> per_sm, per_second;
        for (int r = 1; r <= R; ++r) {
          double sum = 0;
          for (int b = 0; b < blocks; ++b) {  // the block's time: first start to last end over its warps
            long long t0 = 0, t1 = 0;
            for (int w = 0; w < warps; ++w) {
              const std::size_t i = ((static_cast<std::size_t>(b) * warps + w) * (R + 1) + r) * 2;
              t0 = w == 0 ? run.pairs[i] : std::min(t0, run.pairs[i]);
              t1 = w == 0 ? run.pairs[i + 1] : std::max(t1, run.pairs[i + 1]);
            }
            sum += units_per_block / (double(t1 - t0) - overhead(warps));
          }
          per_sm.push_back(sum / blocks);
          unit_csv(d.name, point_series("per_sm", cluster), warps, r, std::nullopt, per_sm.back(),
                   d.rate.unit + "_per_clk_per_sm");
        }
        // The whole GPU: every launch's work (all repetitions, the warm-up too) over its event time.
        const double units_per_launch = units_per_block * blocks * (R + 1);
        long long launch = 1;
        for (double sec : run.seconds) {
          per_second.push_back(units_per_launch / sec);
          unit_csv(d.name, point_series("per_second", cluster), warps, launch++, std::nullopt, per_second.back(),
                   d.rate.unit + "_per_s");
        }
        s.points.push_back({cluster, warps, estimate(per_sm),
                            per_second.empty() ? std::nullopt : std::optional<Estimate>(estimate(per_second)), blocks});
      }
    }
    r_.units.push_back(s);
  }
  void run_library_gemm(const Declaration& d) {
    log("library GEMM (cuBLASLt), " + d.axes.note);
    LibraryGemmResult g = measure_library_gemm(d.axes.gemm_sizes, sizes::kLibraryGemmAlgorithms,
                                               sizes::kLibraryGemmLaunches);
    g.description = d.ptx;
    const auto t = spec_ ? spec_tera_ops(*spec_, d.spec_key) : std::nullopt;
    g.spec_tera_ops = t;
    g.spec_source = t ? spec_->source + ", f16 (dense)" : "no published figure for " + gpu_.name;
    if (!g.measured) r_.warnings.push_back("library GEMM not measured: " + g.why_not);
    for (const auto& p : g.sizes)
      unit_csv(d.name, "size_" + std::to_string(p.size), 0, 0, std::nullopt, p.tera_ops_per_second.mean, "tera_ops_per_s");
    r_.library_gemm = g;
  }

  // --- launch overhead (CUDA events around empty launches) ---
  // block_dispatch_cycles: the slope of the duration of an empty grid of w x SMs blocks of 32
  // threads over w (many blocks fit an SM at once, so this is the SM's block-dispatch rate);
  // wave_cycles: the same with one block per SM forced by dynamic shared memory, so the waves run
  // one after another and the slope is the cost of one wave, free of the launch's intercept.
  void run_launch(const Declaration& d) {
    if (!runnable(d.name)) return;
    log("launch overhead: empty kernel, back-to-back launches, grids of 1..64 waves");
    LaunchResult& l = r_.launch;
    const int R = std::max(plan_.reps, 20);
    const auto single = gpu::time_single_launches(4 * R);
    const auto b2b = gpu::time_back_to_back_launches(sizes::kBackToBackLaunches, std::max(5, R / 5));
    for (std::size_t i = 0; i < single.size(); ++i) csv("launch", "empty_kernel", 1, 0, long(i) + 1, std::nullopt, single[i], "us");
    for (std::size_t i = 0; i < b2b.size(); ++i) csv("launch", "back_to_back", 1, 0, long(i) + 1, std::nullopt, b2b[i], "us");
    l.empty_kernel_us = support::median(single);
    l.back_to_back_us = support::median(b2b);
    l.empty_kernel_us_estimate = estimate(single);
    l.back_to_back_us_estimate = estimate(b2b);
    l.sm_count = gpu_.sm_count;
    l.one_block_per_sm_shared_bytes = gpu::one_block_per_sm_shared_bytes();
    const int grid_reps = std::max(5, R / 5);
    for (int w : d.axes.waves) {
      const int blocks = w * gpu_.sm_count;
      const double a = support::median(gpu::time_grid_launches(blocks, sizes::kLaunchBlockThreads, 0, grid_reps));
      const double b = support::median(
          gpu::time_grid_launches(blocks, sizes::kLaunchBlockThreads, l.one_block_per_sm_shared_bytes, grid_reps));
      l.waves.push_back(w);
      l.dispatch_us.push_back(a);
      l.wave_us.push_back(b);
      csv("launch", "grid_32_threads", w, 0, blocks, std::nullopt, a, "us");
      csv("launch", "grid_one_block_per_sm", w, 0, blocks, std::nullopt, b, "us");
    }
    l.measured = true;
  }
  // The slopes in SM cycles at the run's SM clock (known once the run is over).
  void finish_launch() {
    LaunchResult& l = r_.launch;
    if (!l.measured || l.waves.size() < 2) return;
    const double sm_mhz = r_.sm_clock_mhz;
    std::vector<double> x, dispatch_cycles, wave_cycles;
    for (std::size_t i = 0; i < l.waves.size(); ++i) {
      x.push_back(l.waves[i]);
      dispatch_cycles.push_back(l.dispatch_us[i] * sm_mhz);  // us x MHz = cycles
      wave_cycles.push_back(l.wave_us[i] * sm_mhz);
    }
    {
      const auto fd = linear_fit(x, dispatch_cycles);
      l.block_dispatch_cycles = fd.slope;
      l.block_dispatch_u = fd.slope_uncertainty;
      l.block_dispatch_intercept_us = fd.intercept / sm_mhz;
      const auto fw = linear_fit(x, wave_cycles);
      l.wave_cycles = fw.slope;
      l.wave_u = fw.slope_uncertainty;
      l.wave_intercept_us = fw.intercept / sm_mhz;
    }
  }

  const GpuInfo& gpu_;
  const Plan& plan_;
  const HarnessOptions& o_;
  Results r_;
  std::map<std::string, bool> verdicts_;
  std::vector<double> clock_cost_;
  std::unique_ptr<gpu::ChaseBuffer> chase_;
  const GpuSpec* spec_ = nullptr;
  std::uint64_t seed_ = 12345;  // chase cycles: a new seed per build, in run order
};

}  // namespace

Results run_plan(const GpuInfo& gpu, const Plan& plan, const HarnessOptions& options) {
  return Harness(gpu, plan, options).run();
}

}  // namespace warpmodel::ubench
