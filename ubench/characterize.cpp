#include "characterize.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <iomanip>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "kernels.hpp"
#include "nvml.hpp"
#include "registry.hpp"
#include "sass_check.hpp"
#include "stats.hpp"
#include "warpmodel/json_io.hpp"

namespace warpmodel::ubench {
namespace {

using nlohmann::json;
constexpr int kMaxWarps = 32;

std::string fmt(double v, int prec = 2) {
  if (!std::isfinite(v)) return "n/a";
  std::ostringstream o;
  o << std::fixed << std::setprecision(prec) << v;
  return o.str();
}

std::string fmt_bytes(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB"};
  int u = 0;
  while (b >= 1024 && u < 3) {
    b /= 1024;
    ++u;
  }
  std::ostringstream o;
  o << std::setprecision(4) << b << " " << units[u];
  return o.str();
}

json est_json(const Estimate& e, double mhz) {
  return {{"mean_cycles", e.mean}, {"u_cycles", e.uncertainty}, {"stddev_cycles", e.stddev}, {"n", e.n},
          {"mean_ns", e.mean / mhz * 1e3}, {"u_ns", e.uncertainty / mhz * 1e3}};
}

class Harness {
 public:
  Harness(const GpuInfo& gpu, const CharacterizeOptions& o) : gpu_(gpu), o_(o) {
    csv_ << "benchmark,series,warps,footprint_bytes,rep,raw_cycles,value,unit\n";
  }

  void log(const std::string& s) const {
    if (o_.log) o_.log(s);
  }

  // Per rep: mean over warps (and blocks) of the raw region cycles. Drops warm-up rep 0.
  std::vector<double> per_rep_mean(const gpu::Cycles& c, int units) const {
    const int R = o_.reps + 1;
    std::vector<double> out;
    for (int r = 1; r < R; ++r) {
      double s = 0;
      for (int u = 0; u < units; ++u) s += static_cast<double>(c[static_cast<std::size_t>(u) * R + r]);
      out.push_back(s / units);
    }
    return out;
  }

  // Records a series: raw per-rep region cycles -> per-op cycles. Returns the estimate.
  Estimate reduce(const std::string& name, const std::string& series, int warps, double footprint,
                  const std::vector<double>& raw, double overhead, double chain, double minus = 0) {
    std::vector<double> v;
    int rep = 1;
    for (double r : raw) {
      const double val = (r - overhead) / chain - minus;
      v.push_back(val);
      csv_ << name << "," << series << "," << warps << "," << std::llround(footprint) << "," << rep++ << ","
           << fmt(r, 3) << "," << fmt(val, 4) << ",cycles\n";
    }
    return estimate(v);
  }

  void csv_value(const std::string& name, const std::string& series, int warps, double footprint, int rep,
                 double value, const std::string& unit) {
    csv_ << name << "," << series << "," << warps << "," << std::llround(footprint) << "," << rep << ",," << fmt(value, 4)
         << "," << unit << "\n";
  }

  const GpuInfo& gpu_;
  const CharacterizeOptions& o_;
  std::ostringstream csv_;
};


}  // namespace

std::string gpu_slug(const std::string& name) {
  std::string s;
  for (char c : name) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (s.rfind("nvidia ", 0) == 0) s = s.substr(7);
  std::string out;
  for (char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c))) out += c;
    else if (!out.empty() && out.back() != '-') out += '-';
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "gpu" : out;
}

int fp32_lanes_per_sm(int major, int minor) {
  if (major == 3) return 192;
  if (major == 5) return 128;
  if (major == 6) return minor == 0 ? 64 : 128;
  if (major == 7) return 64;
  if (major == 8) return minor == 0 ? 64 : 128;
  return 128;  // 9.0
}

int sfu_lanes_per_sm(int major, int /*minor*/) {
  if (major == 3) return 32;
  if (major <= 6) return 32;
  return 16;
}

CharacterizeOutputs characterize(const GpuInfo& gpu, const CharacterizeOptions& o) {
  const auto t_begin = std::chrono::steady_clock::now();
  CharacterizeOutputs out;
  Harness h(gpu, o);
  gpu::select_device(gpu.index);

  // --- clocks and provenance, before ---
  Nvml nvml;
  nvml.bind(gpu::pci_bus_id(gpu.index));
  const auto clk_before = nvml.sample();
  if (!clk_before) out.warnings.push_back("NVML unavailable (" + nvml.why_unavailable() +
                                          "): SM clock not recorded; ns use the maximum clock from the runtime");

  // --- SASS check ---
  std::map<std::string, SassVerdict> verdicts;
  std::string sass_error;
  const auto sass_text = dump_sass(o.self_exe, &sass_error);
  const bool sass_checked = sass_text.has_value();
  if (sass_checked) {
    for (auto& v : check_all(parse_sass(*sass_text))) verdicts[v.benchmark] = v;
  } else {
    out.warnings.push_back("SASS check not run: " + sass_error + "; every benchmark is reported as unchecked");
  }
  auto sass_ok = [&](const std::string& name) {
    const auto it = verdicts.find(name);
    return it != verdicts.end() && it->second.valid;
  };
  auto sass_status = [&](const std::string& name) -> std::string {
    if (!sass_checked) return "unchecked";
    const auto it = verdicts.find(name);
    if (it == verdicts.end()) return "undeclared";
    return it->second.valid ? "valid" : "INVALID";
  };
  for (const auto& [name, v] : verdicts)
    if (!v.valid) out.warnings.push_back("SASS check failed for " + name + ": " + v.reason + " (reported invalid)");

  const int R = o.reps;
  // Latency estimates per benchmark and warps: lat[name][k-1].
  std::map<std::string, std::vector<Estimate>> lat;

  // --- clock-read cost (the overhead subtracted everywhere) ---
  h.log("clock-read cost, 1..32 warps");
  std::vector<double> overhead(kMaxWarps + 1, 0);
  for (const char* name : {"clock64", "clock_register", "clock_function"}) {
    const int which = std::string(name) == "clock64" ? 0 : std::string(name) == "clock_register" ? 1 : 2;
    for (int k = 1; k <= kMaxWarps; ++k) {
      const auto raw = h.per_rep_mean(gpu::run_clock(which, k, R), k);
      const auto e = h.reduce(name, "latency", k, 0, raw, 0, 1);
      lat[name].push_back(e);
      if (which == 0) overhead[k] = e.mean;
    }
  }

  // --- ALU latency (1 block, 1..32 warps) and throughput ---
  h.log("ALU latency and throughput");
  json throughput = json::object();
  for (const auto& d : declarations()) {
    if (d.group != "alu") continue;
    if (sass_checked && !sass_ok(d.name)) continue;  // invalid: never measured silently
    for (int k = 1; k <= kMaxWarps; ++k) {
      const auto raw = h.per_rep_mean(gpu::run_alu(d.alu_index, false, 1, k, R), k);
      double minus = 0;
      if (!d.minus.empty() && lat.count(d.minus)) minus = lat[d.minus][k - 1].mean;
      lat[d.name].push_back(h.reduce(d.name, "latency", k, 0, raw, overhead[k], d.chain, minus));
    }
  }
  for (const auto& d : declarations()) {
    if (d.group != "alu_throughput") continue;
    if (sass_checked && !sass_ok(d.name)) continue;
    const int blocks = gpu.sm_count, warps = 32;
    const auto c = gpu::run_alu(d.alu_index, true, blocks, warps, R);
    std::vector<double> rate;
    for (int r = 1; r <= R; ++r) {
      double sum = 0;
      for (int b = 0; b < blocks; ++b) {
        // The block's time: first start to last end over its warps (%clock64 is per SM). Taking the
        // longest single-warp region instead overstates the rate: the scheduler runs warps partly
        // one after another.
        long long t0 = 0, t1 = 0;
        for (int w = 0; w < warps; ++w) {
          const std::size_t i = ((static_cast<std::size_t>(b) * warps + w) * (R + 1) + r) * 2;
          t0 = w == 0 ? c[i] : std::min(t0, c[i]);
          t1 = w == 0 ? c[i + 1] : std::max(t1, c[i + 1]);
        }
        sum += double(warps) * 32 * d.chain * d.ilp / double(t1 - t0 - overhead[32]);
      }
      rate.push_back(sum / blocks);
      h.csv_value(d.name, "throughput", warps, 0, r, rate.back(), "ops_per_clk_per_sm");
    }
    const auto e = estimate(rate);
    throughput[d.name.substr(0, d.name.find('.'))] = {
        {"ops_per_clk_per_sm", e.mean}, {"u", e.uncertainty}, {"n", e.n},
        {"spec_ops_per_clk_per_sm", d.spec_per_clk_sm > 0 ? json(d.spec_per_clk_sm) : json(nullptr)},
        {"fraction_of_spec", d.spec_per_clk_sm > 0 ? json(e.mean / d.spec_per_clk_sm) : json(nullptr)}};
  }

  // --- shared memory ---
  h.log("shared-memory chase");
  for (int k = 1; k <= kMaxWarps; ++k) {
    const auto* d = find_declaration("shared_load");
    const auto raw = h.per_rep_mean(gpu::run_shared_chase(k, R), k);
    lat["shared_load"].push_back(h.reduce("shared_load", "latency", k, 0, raw, overhead[k], d->chain));
  }

  // --- store latency: round trip "st [p], p; ld p, [p]" minus the same chain without the store ---
  h.log("store latency (shared, global), 1..32 warps");
  for (const auto& [space, which_store] : std::vector<std::pair<std::string, int>>{{"shared", 0}, {"global", 2}}) {
    const std::string st_name = "store_" + space, ld_name = "selfload_" + space;
    if (sass_checked && (!sass_ok(st_name) || !sass_ok(ld_name))) continue;
    const auto* d = find_declaration(st_name);
    for (int k = 1; k <= kMaxWarps; ++k) {
      const auto trip = h.reduce(space + "_store_roundtrip", "latency", k, 0,
                                 h.per_rep_mean(gpu::run_store(which_store, k, R), k), overhead[k], d->chain);
      const auto base = h.reduce(space + "_selfload", "latency", k, 0,
                                 h.per_rep_mean(gpu::run_store(which_store + 1, k, R), k), overhead[k], d->chain);
      lat[space + "_store_roundtrip"].push_back(trip);
      lat[space + "_selfload"].push_back(base);
      Estimate diff;
      diff.mean = trip.mean - base.mean;
      diff.uncertainty = std::sqrt(trip.uncertainty * trip.uncertainty + base.uncertainty * base.uncertainty);
      diff.stddev = diff.uncertainty * std::sqrt(double(std::min(trip.n, base.n)));
      diff.n = std::min(trip.n, base.n);
      lat[space + "_store"].push_back(diff);
      h.csv_value(space + "_store", "latency_difference", k, 0, 0, diff.mean, "cycles");
    }
  }

  // --- global memory: footprint curves and warp series ---
  // The L1 is sized with an explicit carveout: 0 % shared memory = the largest L1 the SM allows.
  const int kChaseCarveoutPercent = 0;
  gpu::ChaseBuffer::set_carveout(kChaseCarveoutPercent);
  const std::size_t kMaxFootprint = 4ull << 30;
  gpu::ChaseBuffer chase(kMaxFootprint);
  auto stride_for = [](std::size_t f) {
    std::size_t s = 256;
    while (f / s > (std::size_t(1) << 22)) s *= 2;
    return s;
  };
  json curve = json::array();
  std::map<std::string, std::vector<std::pair<double, Estimate>>> curves;
  std::vector<std::size_t> footprints;
  for (std::size_t f = 4096; f <= kMaxFootprint; f *= 2) {
    footprints.push_back(f);
    if (f * 3 / 2 <= kMaxFootprint && f < kMaxFootprint) footprints.push_back(f * 3 / 2);
  }
  for (std::size_t f : {208u << 10, 224u << 10, 240u << 10}) footprints.push_back(f);  // L1 (max carveout) resolution
  std::sort(footprints.begin(), footprints.end());
  h.log("global pointer chase over " + std::to_string(footprints.size()) + " footprints (ca, cg)");
  std::uint64_t seed = 12345;
  for (std::size_t f : footprints) {
    const std::size_t nodes = chase.build(f, stride_for(f), seed++);
    const int warmup = static_cast<int>(std::min<std::size_t>(nodes, 8192));
    json point = {{"footprint_bytes", f}, {"stride_bytes", stride_for(f)}, {"nodes", nodes}};
    for (const std::string op : {"ca", "cg"}) {
      const std::string name = "chase_" + op;
      if (sass_checked && !sass_ok(name)) continue;
      const auto raw = h.per_rep_mean(chase.run(op, true, 1, 1, warmup, R), 1);
      const auto e = h.reduce(name, "footprint", 1, double(f), raw, overhead[1], 256);
      curves[op].push_back({double(f), e});
      point[op] = {{"mean_cycles", e.mean}, {"u_cycles", e.uncertainty}};
    }
    curve.push_back(point);
  }
  // Does the carveout move the latencies? L1 hit (ca, 16 KiB) and L2 hit (cg, 4 MiB), 1 warp, with
  // the driver's default carveout and with the one used above.
  json carveout_check = json::array();
  for (const int pc : {-1, kChaseCarveoutPercent}) {
    gpu::ChaseBuffer::set_carveout(pc);
    for (const auto& [op, f] : std::vector<std::pair<std::string, std::size_t>>{{"ca", 16u << 10}, {"cg", 4u << 20}}) {
      if (sass_checked && !sass_ok("chase_" + op)) continue;
      const std::size_t nodes = chase.build(f, 256, seed++);
      const auto raw = h.per_rep_mean(chase.run(op, true, 1, 1, static_cast<int>(std::min<std::size_t>(nodes, 8192)), R), 1);
      const auto e = h.reduce("chase_" + op, pc < 0 ? "carveout_default" : "carveout_" + std::to_string(pc), 1,
                              double(f), raw, overhead[1], 256);
      carveout_check.push_back({{"carveout_percent", pc < 0 ? json("driver default") : json(pc)}, {"op", op},
                                {"footprint_bytes", f}, {"mean_cycles", e.mean}, {"u_cycles", e.uncertainty}});
    }
  }
  gpu::ChaseBuffer::set_carveout(kChaseCarveoutPercent);
  auto at_footprint = [&](const std::string& op, double f) {
    for (const auto& [x, e] : curves[op])
      if (x == f) return e;
    return Estimate{NAN, 0, 0, 0};
  };
  // Warp series at fixed footprints: L1 (ca, 16 KiB), L2 (cg, 4 MiB), DRAM (cg, 1 GiB; coalesced and
  // uncoalesced). The DRAM coalesced series is the thesis's global-load series of eq 4.25.
  struct SeriesSpec {
    std::string name, op;
    std::size_t footprint;
    bool coalesced;
  };
  const std::vector<SeriesSpec> series = {{"l1_hit", "ca", 16u << 10, true},
                                          {"l2_hit", "cg", 4u << 20, true},
                                          {"global_load", "cg", std::size_t(1) << 30, true},
                                          {"global_load_uncoalesced", "cg", std::size_t(1) << 30, false}};
  for (const auto& s : series) {
    if (sass_checked && !sass_ok("chase_" + s.op)) continue;
    h.log("warp series " + s.name);
    const std::size_t nodes = chase.build(s.footprint, stride_for(s.footprint), seed++);
    const int warmup = s.footprint <= (64u << 20) ? static_cast<int>(std::min<std::size_t>(nodes, 8192)) : 0;
    for (int k = 1; k <= kMaxWarps; ++k) {
      const auto raw = h.per_rep_mean(chase.run(s.op, s.coalesced, 1, k, warmup, R), k);
      lat[s.name].push_back(h.reduce(s.name, "latency", k, double(s.footprint), raw, overhead[k], 256));
    }
  }

  // --- near/far L2: every load of a 4 MiB chase timed on its own, from one warp on each SM ---
  json near_far = json::object();
  if (!sass_checked || sass_ok("l2_lines")) {
    h.log("near/far L2: per-load latency from each of " + std::to_string(gpu.sm_count) + " SMs");
    const std::size_t f = 4u << 20;
    chase.build(f, 256, seed++);
    chase.prewarm();
    const int steps = 2048;
    std::vector<std::vector<double>> per_sm(gpu.sm_count);
    std::vector<double> pooled;
    for (int sm = 0; sm < gpu.sm_count; ++sm) {
      const auto c = chase.run_lines(sm, steps, 4 * gpu.sm_count);
      if (c[0] < 0) continue;  // no block landed on this SM
      for (long long x : c) per_sm[sm].push_back(double(x) - overhead[1]);
      pooled.insert(pooled.end(), per_sm[sm].begin(), per_sm[sm].end());
    }
    if (pooled.size() > 100) {
      // Two plateaus: 2-means on the pooled per-load latencies, the slowest 1 % left out first
      // (a refresh or a TLB walk now and then; documented in the README).
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
      auto median = [](std::vector<double> v) {
        if (v.empty()) return double(NAN);
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
      };
      const auto e_lo = estimate(lo), e_hi = estimate(hi);
      json per_sm_json = json::array();
      std::vector<double> sm_means, sm_near, sm_far;
      for (int sm = 0; sm < gpu.sm_count; ++sm) {
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
        per_sm_json.push_back({{"smid", sm}, {"mean_cycles", e.mean}, {"median_cycles", median(per_sm[sm])},
                               {"near_fraction", frac}, {"near_mean_cycles", na}, {"far_mean_cycles", fb}});
        h.csv_value("l2_near_far", "sm_mean", 1, double(f), sm, e.mean, "cycles");
        h.csv_value("l2_near_far", "sm_median", 1, double(f), sm, median(per_sm[sm]), "cycles");
        h.csv_value("l2_near_far", "sm_near_fraction", 1, double(f), sm, frac, "fraction");
        h.csv_value("l2_near_far", "sm_near_mean", 1, double(f), sm, na, "cycles");
        h.csv_value("l2_near_far", "sm_far_mean", 1, double(f), sm, fb, "cycles");
      }
      // Pooled histogram, 4-cycle bins (rep = lower bin edge in cycles).
      std::map<long long, int> hist;
      for (double x : pooled) ++hist[static_cast<long long>(std::floor(x / 4)) * 4];
      for (const auto& [edge, count] : hist) h.csv_value("l2_near_far", "histogram_4cyc", 1, double(f), int(edge), count, "loads");
      auto spread = [&](std::vector<double> v) -> json {
        if (v.empty()) return nullptr;
        std::sort(v.begin(), v.end());
        return {{"min", v.front()}, {"median", v[v.size() / 2]}, {"max", v.back()}, {"mean", estimate(v).mean}};
      };
      lat["l2_near"].push_back(e_lo);
      lat["l2_far"].push_back(e_hi);
      near_far = {{"method", "one warp pinned on each SM (%smid; the first of 4 x SMs single-warp blocks that lands "
                             "there), ld.global.cg chase over 4 MiB (16384 lines of 256 B, prewarmed into L2), 2048 "
                             "loads each timed on its own (clock64, load, dependent LOP3, clock64; clock64 cost "
                             "subtracted), same lines from every SM; 2-means on the pooled loads after dropping the "
                             "slowest 1 %"},
                  {"sms_measured", sm_means.size()},
                  {"loads_per_sm", steps},
                  {"near_cycles", {{"mean", e_lo.mean}, {"u", e_lo.uncertainty}, {"stddev", e_lo.stddev},
                                   {"median", median(lo)}, {"n", e_lo.n}}},
                  {"far_cycles", {{"mean", e_hi.mean}, {"u", e_hi.uncertainty}, {"stddev", e_hi.stddev},
                                  {"median", median(hi)}, {"n", e_hi.n}}},
                  {"threshold_cycles", cut},
                  {"dropped_above_cycles", p99},
                  {"near_fraction_pooled", double(lo.size()) / double(kept.size())},
                  {"per_sm_mean_cycles", spread(sm_means)},
                  {"per_sm_near_mean_cycles", spread(sm_near)},
                  {"per_sm_far_mean_cycles", spread(sm_far)},
                  {"per_sm", per_sm_json}};
    }
  }

  // --- departure delay, direct ---
  json departure = json::object();
  std::map<std::string, double> delta_direct;
  // The completion time of one cold load per warp varies by ~10 % from repetition to repetition
  // (DRAM state), so the departure series takes 8x the repetitions (u shrinks by sqrt(8)); the
  // median is reported beside the mean.
  const int Rd = 8 * R;
  std::map<std::string, std::vector<double>> median_of;
  if (!sass_checked || sass_ok("departure")) {
    for (const bool coal : {true, false}) {
      const std::string name = coal ? "departure_coalesced" : "departure_uncoalesced";
      h.log("departure delay (direct), " + name);
      std::vector<double> ks, completion;
      json raw_series = json::array();
      std::vector<double> medians;
      for (int k = 1; k <= kMaxWarps; ++k) {
        const auto d = gpu::run_departure(coal, k, Rd);
        std::vector<double> comp;
        for (int r = 1; r <= Rd; ++r) {
          long long s = d.start[static_cast<std::size_t>(r) * k], e = d.end[static_cast<std::size_t>(r) * k];
          for (int w = 0; w < k; ++w) {
            s = std::min(s, d.start[static_cast<std::size_t>(r) * k + w]);
            e = std::max(e, d.end[static_cast<std::size_t>(r) * k + w]);
          }
          comp.push_back(double(e - s));
        }
        const auto est = h.reduce(name, "completion", k, 0, comp, overhead[k], 1);
        lat[name].push_back(est);
        std::vector<double> sc = comp;
        std::sort(sc.begin(), sc.end());
        medians.push_back(sc[sc.size() / 2] - overhead[k]);
        median_of[name].push_back(medians.back());
        ks.push_back(k);
        completion.push_back(est.mean);
        raw_series.push_back(est.mean);
      }
      const auto fit = linear_fit(ks, completion);
      delta_direct[name] = fit.slope;
      departure[name] = {{"method", "slope of the completion time of one load per warp, k = 1..32 warps"},
                         {"delta_cycles", fit.slope},
                         {"u_cycles", fit.slope_uncertainty},
                         {"intercept_cycles", fit.intercept},
                         {"completion_cycles_by_warps", raw_series},
                         {"median_completion_cycles_by_warps", medians},
                         {"repetitions", Rd}};
    }
  }
  // Thesis eq 4.25 over the global-load series: sum of successive differences / (#warps - 1).
  auto eq425 = [&](const std::string& name) -> double {
    if (!lat.count(name) || lat[name].size() < 2) return NAN;
    const auto& v = lat[name];
    double sum = 0;
    for (std::size_t i = 1; i < v.size(); ++i) sum += v[i].mean - v[i - 1].mean;
    return sum / double(v.size() - 1);
  };
  departure["thesis_eq_4_25_coalesced"] = eq425("global_load");
  departure["thesis_eq_4_25_uncoalesced"] = eq425("global_load_uncoalesced");

  // --- bandwidth ---
  h.log("bandwidth");
  const auto clk_mid = nvml.sample();
  json bandwidth = json::object();
  const double clock_for_spec = clk_mid ? clk_mid->sm_mhz : gpu.sm_clock_mhz;
  for (const std::string kind : {"dram_read", "dram_write", "dram_copy", "l2_read", "shared_read"}) {
    const auto b = gpu::run_bandwidth(kind, gpu.sm_count, R);
    std::vector<double> gbs;
    int rep = 1;
    for (double s : b.seconds) {
      gbs.push_back(b.bytes / s / 1e9);
      h.csv_value(kind, "bandwidth", 0, b.bytes, rep++, gbs.back(), "GB/s");
    }
    const auto e = estimate(gbs);
    double spec = NAN;
    std::string spec_source;
    if (kind.rfind("dram", 0) == 0) {
      spec = gpu.mem_peak_bandwidth_gbs;
      spec_source = "2 x memory clock x bus width (runtime)";
    } else if (kind == "shared_read") {
      spec = 128.0 * gpu.sm_count * clock_for_spec * 1e6 / 1e9;
      spec_source = "128 B/clk/SM x SMs x SM clock";
    } else {
      spec_source = "no published L2 bandwidth";
    }
    bandwidth[kind] = {{"gbs", e.mean}, {"u_gbs", e.uncertainty}, {"n", e.n}, {"bytes_per_launch", b.bytes},
                       {"spec_gbs", std::isfinite(spec) ? json(spec) : json(nullptr)},
                       {"fraction_of_spec", std::isfinite(spec) ? json(e.mean / spec) : json(nullptr)},
                       {"spec_source", spec_source}};
  }
  gpu::release_buffers();

  // --- clocks after ---
  const auto clk_after = nvml.sample();
  double mhz = gpu.sm_clock_mhz;
  if (clk_before && clk_after) {
    mhz = 0.5 * (clk_before->sm_mhz + clk_after->sm_mhz);
    if (clk_before->sm_mhz != clk_after->sm_mhz)
      out.warnings.push_back("SM clock moved during the run: " + std::to_string(clk_before->sm_mhz) + " -> " +
                             std::to_string(clk_after->sm_mhz) + " MHz (throttling?)");
  }

  // --- capacities from the curves ---
  auto level = [&](const std::string& op, double lo, double hi) -> double {
    std::vector<double> v;
    for (const auto& [f, e] : curves[op])
      if (f >= lo && f <= hi) v.push_back(e.mean);
    std::sort(v.begin(), v.end());
    return v.empty() ? NAN : v[v.size() / 2];
  };
  const double l1_level = level("ca", 4096, 16384);
  const double l2_level = level("cg", 1 << 20, 8 << 20);
  const double dram_level = level("cg", double(std::size_t(512) << 20), double(std::size_t(2) << 30));
  auto capacity = [&](const std::string& op, double threshold) -> double {
    double last = NAN;
    for (const auto& [f, e] : curves[op]) {
      if (e.mean < threshold) last = f;
      else break;
    }
    return last;
  };
  const double l1_capacity = capacity("ca", 0.5 * (l1_level + l2_level));
  const double l2_capacity = capacity("cg", 0.5 * (l2_level + dram_level));

  // --- headline numbers for the profile ---
  auto at = [&](const std::string& name, int k) {
    if (!lat.count(name) || static_cast<int>(lat[name].size()) < k) return Estimate{NAN, 0, 0, 0};
    return lat[name][k - 1];
  };
  const double l1_hit = at("l1_hit", 1).mean, l2_hit = at("l2_hit", 1).mean;
  const Estimate dram_e = at_footprint("cg", double(std::size_t(512) << 20));
  const double dram = dram_e.mean;
  const double dram_tlb = at_footprint("cg", double(kMaxFootprint)).mean;
  const std::string fp_source = "fp32_div_full";  // the thesis's avg_inst_lat: the slowest stencil op (div.full)
  const double fp = at(fp_source, 1).mean;
  const double sfu = at("sfu_rcp", 1).mean;
  const double shared = at("shared_load", 1).mean;
  double delta_c = delta_direct.count("departure_coalesced") ? delta_direct["departure_coalesced"] : NAN;
  double delta_u = delta_direct.count("departure_uncoalesced") ? delta_direct["departure_uncoalesced"] : NAN;

  // Thesis indirect estimates (eqs 4.27, 4.28). The register (mov) benchmark is removed by ptxas
  // (see the SASS check), so the FP32 add latency stands in for the register latency.
  const double reg_standin = at("fp32_add", 1).mean;
  const double l1_eq427 = 0.5 * (shared + reg_standin);
  const double l2_eq428 = 0.5 * (at("global_load", 1).mean + l1_eq427);

  // --- device.json ---
  auto positive_or = [&](double v, const std::string& what) {
    if (std::isfinite(v) && v > 0) return v;
    out.warnings.push_back(what + " not measured (or <= 0); written as 1 so the profile stays readable");
    return 1.0;
  };
  json dev;
  dev["schema"] = "warpmodel.device/1";
  dev["name"] = gpu.name + " (warpmodel characterize)";
  dev["hardware"] = {{"compute_capability", std::to_string(gpu.cc_major) + "." + std::to_string(gpu.cc_minor)},
                     {"sm_count", gpu.sm_count},
                     {"sm_clock_mhz", mhz},
                     {"simd_width", fp32_lanes_per_sm(gpu.cc_major, gpu.cc_minor)},
                     {"sfu_width", sfu_lanes_per_sm(gpu.cc_major, gpu.cc_minor)},
                     {"warp_size", gpu.warp_size},
                     {"mem_peak_bandwidth_gbs", gpu.mem_peak_bandwidth_gbs}};
  json latj = {{"fp", positive_or(fp, "fp (div.full)")},
               {"l1_hit", positive_or(l1_hit, "l1_hit")},
               {"l2_hit", positive_or(l2_hit, "l2_hit")},
               {"dram", positive_or(dram, "dram")},
               {"departure_delay_coalesced", positive_or(delta_c, "departure_delay_coalesced")}};
  if (std::isfinite(sfu) && sfu > 0) latj["sfu"] = sfu;
  if (std::isfinite(shared) && shared > 0) latj["shared_load"] = shared;
  if (std::isfinite(delta_u) && delta_u > 0) latj["departure_delay_uncoalesced"] = delta_u;
  dev["latency_cycles"] = latj;
  json series_json = json::array();
  bool series_ok = lat.count("global_load") > 0;
  for (const auto& e : lat["global_load"]) {
    series_ok = series_ok && e.mean > 0;
    series_json.push_back(e.mean);
  }
  if (series_ok) dev["global_load_latency_by_warps"] = series_json;

  std::time_t now = std::time(nullptr);
  char date[64];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  json prov = {{"gpu", gpu.name},
               {"pci_bus_id", gpu::pci_bus_id(gpu.index)},
               {"driver", nvml.driver_version().empty() ? std::to_string(gpu.driver_version) : nvml.driver_version()},
               {"cuda_driver_api", std::to_string(gpu.driver_version)},
               {"cuda_runtime", std::to_string(gpu.runtime_version)},
               {"sm_clock_mhz_before", clk_before ? std::to_string(clk_before->sm_mhz) : "n/a"},
               {"sm_clock_mhz_after", clk_after ? std::to_string(clk_after->sm_mhz) : "n/a"},
               {"mem_clock_mhz_before", clk_before ? std::to_string(clk_before->mem_mhz) : "n/a"},
               {"sm_clock_mhz_max_runtime", fmt(gpu.sm_clock_mhz, 0)},
               {"date", date},
               {"commit", o.commit.empty() ? "unknown" : o.commit},
               {"command", o.command},
               {"repetitions", std::to_string(R)},
               {"sass_check", sass_checked ? "cuobjdump -sass of " + o.self_exe : "not run: " + sass_error},
               {"latency_cycles.fp", "fp32 div.full.ftz latency, 1 warp (the thesis's avg_inst_lat: the slowest stencil op)"},
               {"latency_cycles.sfu", "rcp.approx.ftz (MUFU.RCP) latency, 1 warp, FMUL latency subtracted"},
               {"latency_cycles.shared_load", "ld.shared.u32 pointer chase, 1 warp"},
               {"latency_cycles.l1_hit", "ld.global.ca pointer chase, 16 KiB footprint, 1 warp"},
               {"latency_cycles.l2_hit", "ld.global.cg pointer chase, 4 MiB footprint, 1 warp (mix of near and far L2)"},
               {"latency_cycles.dram", "ld.global.cg pointer chase, 512 MiB footprint, 1 warp"},
               {"latency_cycles.departure_delay_coalesced", "direct method: completion-time slope over 1..32 warps"},
               {"latency_cycles.departure_delay_uncoalesced", "direct method, 32 lines per request"},
               {"global_load_latency_by_warps", "ld.global.cg chase, 1 GiB footprint, coalesced, 1..32 warps"},
               {"sm_clock_mhz", "NVML SM clock, mean of before and after the run"}};
  if (!clk_before) prov["sm_clock_mhz"] = "maximum SM clock from the runtime (NVML unavailable)";
  dev["provenance"] = prov;

  json meas;
  meas["note"] = "warpmodel characterize: per-op cycles, clock64 read cost subtracted, mean and GUM type-A "
                 "uncertainty (s/sqrt(n)) over the repetitions; ns at the recorded SM clock.";
  auto sass_of = [&](const std::string& name) -> std::string {
    if (name.rfind("departure", 0) == 0) return sass_status("departure");
    if (name == "l1_hit") return sass_status("chase_ca");
    if (name.rfind("l2_hit", 0) == 0 || name.rfind("global_load", 0) == 0) return sass_status("chase_cg");
    if (name == "l2_near" || name == "l2_far") return sass_status("l2_lines");
    for (const std::string sp : {"shared", "global"}) {
      if (name == sp + "_store_roundtrip") return sass_status("store_" + sp);
      if (name == sp + "_selfload") return sass_status("selfload_" + sp);
      if (name == sp + "_store") {
        const auto a = sass_status("store_" + sp), b = sass_status("selfload_" + sp);
        return a == b ? a : a == "valid" ? b : a;
      }
    }
    return sass_status(name);
  };
  json table = json::object();
  for (const auto& [name, v] : lat) {
    json by = json::object();
    if (!v.empty()) by["warps_1"] = est_json(v.front(), mhz);
    if (v.size() >= 32) by["warps_32"] = est_json(v[31], mhz);
    by["sass"] = sass_of(name);
    if (median_of.count(name) && median_of[name].size() >= 32) {
      by["warps_1"]["median_cycles"] = median_of[name].front();
      by["warps_32"]["median_cycles"] = median_of[name][31];
    }
    table[name] = by;
  }
  for (const auto& d : declarations())
    if (d.group == "alu" && sass_checked && !sass_ok(d.name))
      table[d.name] = {{"sass", "INVALID"}, {"reason", verdicts[d.name].reason}};
  meas["latency"] = table;
  meas["throughput"] = throughput;
  meas["footprint_curve"] = curve;
  meas["capacity"] = {{"l1_bytes_detected", std::isfinite(l1_capacity) ? json(l1_capacity) : json(nullptr)},
                      {"l2_bytes_detected", std::isfinite(l2_capacity) ? json(l2_capacity) : json(nullptr)},
                      {"l2_bytes_runtime", gpu.l2_cache_bytes},
                      {"l1_level_cycles", l1_level},
                      {"l2_level_cycles", l2_level},
                      {"dram_level_cycles", dram_level},
                      {"dram_tlb_missing_cycles", dram_tlb},
                      {"carveout_check", carveout_check},
                      {"l1_carveout",
                       "cudaFuncAttributePreferredSharedMemoryCarveout = " + std::to_string(kChaseCarveoutPercent) +
                           " % on both chase kernels (0 = the largest L1)"},
                      {"method", "largest footprint whose chase latency stays below the midpoint of the two "
                                 "adjacent plateaus (ca curve for L1, cg curve for L2)"}};
  meas["thesis_indirect"] = {{"l1_hit_eq_4_27", l1_eq427},
                             {"l2_hit_eq_4_28", l2_eq428},
                             {"register_stand_in", "fp32_add latency (the mov chain is removed by ptxas)"},
                             {"l1_hit_direct", l1_hit},
                             {"l2_hit_direct", l2_hit}};
  meas["departure_delay"] = departure;
  meas["l2_near_far"] = near_far;
  meas["store_latency"] = {
      {"method", "round trip: each thread chains 'st [p], p; ld p, [p]' on its own word (shared: ld.shared.u32; "
                 "global: st.global.u64 + ld.global.cg.u64, 256 B per warp), 256 steps; minus the same chain "
                 "without the store ('selfload'); per step, clock64 cost subtracted"},
      {"k40_note", "the thesis's K40 rows time a lone store between two clock reads (its issue cost), "
                   "not its completion"}};
  meas["bandwidth"] = bandwidth;
  json sass = json::object();
  for (const auto& [name, v] : verdicts) sass[name] = {{"valid", v.valid}, {"reason", v.reason}};
  meas["sass_check"] = sass;
  meas["warnings"] = out.warnings;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_begin).count();
  meas["wall_seconds"] = seconds;
  dev["measurements"] = meas;
  out.seconds = seconds;

  // The model must accept it unchanged.
  try {
    (void)device_from_json(dev, "characterize output");
  } catch (const std::exception& e) {
    out.profile_error = e.what();
    out.warnings.push_back(std::string("the model rejects the profile: ") + e.what());
  }
  out.device_json = dev.dump(2) + "\n";
  out.csv = h.csv_.str();

  // --- ubench.md ---
  std::ostringstream md;
  md << "# Microbenchmarks: " << gpu.name << "\n\n"
     << "`" << o.command << "` on " << date << ", commit " << (o.commit.empty() ? "unknown" : o.commit)
     << ". SM clock (NVML) " << prov["sm_clock_mhz_before"].get<std::string>() << " MHz before, "
     << prov["sm_clock_mhz_after"].get<std::string>() << " MHz after; driver " << prov["driver"].get<std::string>()
     << ", CUDA runtime " << gpu.runtime_version << ". " << R << " repetitions per point; wall time "
     << fmt(seconds, 1) << " s.\n\n"
     << "Per-operation latency in SM cycles (long dependent chains, %clock64 read cost subtracted), mean ± GUM "
        "type-A uncertainty (s/√n), laid out like thesis tables 4.3/4.4, with the thesis's K40 values beside.\n\n"
     << "| micro-benchmark | 1 warp [cycles] | 32 warps [cycles] | 1 warp [ns] | K40 1 warp | K40 32 warps | SASS check |\n"
     << "|---|---|---|---|---|---|---|\n";
  const std::map<std::string, std::pair<std::string, std::string>> k40 = {
      {"clock_register", {"16 ± 0.57", "20 ± 0.57"}}, {"clock_function", {"16 ± 0.57", "20 ± 0.57"}},
      {"register_mov", {"13 ± 0.57", "13 ± 0.63"}},   {"fp32_add", {"12 ± 0.57", "10 ± 0.61"}},
      {"fp32_sub", {"12", "11"}},                     {"fp32_mul", {"12", "11"}},
      {"fp32_div_full", {"206", "222"}},              {"global_load", {"402 ± 5.88", "395 ± 6.17"}},
      {"shared_load", {"45 ± 0.57", "45 ± 0.60"}},    {"l1_hit", {"29 (eq 4.27)", "29 (eq 4.27)"}},
      {"l2_hit", {"215.5 (eq 4.28)", "212 (eq 4.28)"}},
      {"shared_store", {"12 (lone store, issue)", "14 (lone store, issue)"}},
      {"global_store", {"21 (lone store, issue)", "20 (lone store, issue)"}}};
  const std::vector<std::string> order = {"clock64", "clock_register", "clock_function", "register_mov", "fp32_add",
                                          "fp32_sub", "fp32_mul", "fp32_fma", "fp32_div_approx", "fp32_div_full",
                                          "fp32_div_rn", "fp64_add", "fp64_fma", "sfu_rcp", "sfu_sqrt", "sfu_ex2",
                                          "sfu_sin", "shared_load", "shared_store", "shared_store_roundtrip",
                                          "shared_selfload", "l1_hit", "l2_hit", "global_load",
                                          "global_load_uncoalesced", "global_store", "global_store_roundtrip",
                                          "global_selfload"};
  for (const auto& name : order) {
    const auto kk = k40.count(name) ? k40.at(name) : std::make_pair(std::string("-"), std::string("-"));
    const std::string st = table.count(name) ? table[name]["sass"].get<std::string>() : "n/a";
    if (!lat.count(name) || lat[name].size() < 32) {
      md << "| " << name << " | not measured | not measured | | " << kk.first << " | " << kk.second << " | " << st;
      if (verdicts.count(name) && !verdicts[name].valid) md << ": " << verdicts[name].reason;
      md << " |\n";
      continue;
    }
    const auto& a = lat[name][0];
    const auto& b = lat[name][31];
    md << "| " << name << " | " << fmt(a.mean) << " ± " << fmt(a.uncertainty) << " | " << fmt(b.mean) << " ± "
       << fmt(b.uncertainty) << " | " << fmt(a.mean / mhz * 1e3) << " | " << kk.first << " | " << kk.second << " | "
       << st << " |\n";
  }
  md << "\nshared_store / global_store: the store's latency as the extra time a store adds to a dependent "
        "round trip, i.e. (chain of `st [p], p; ld p, [p]`) minus (the same chain without the store, the "
        "`_selfload` row; global: ld.global.cg, so both reach L2); the thesis's K40 rows time a lone store "
        "(its issue), so they are not the same quantity.\n";
  md << "\nclock64 is the read cost subtracted from every other row; clock_register and clock_function are the "
        "thesis's listings 4.1/4.2 (raw, nothing subtracted).\n\n";
  md << "## Latency by level\n\n| quantity | cycles | ns | note |\n|---|---|---|---|\n"
     << "| L1 hit (direct, 16 KiB, ca) | " << fmt(l1_hit) << " | " << fmt(l1_hit / mhz * 1e3) << " | pointer chase |\n"
     << "| L1 hit (thesis eq 4.27) | " << fmt(l1_eq427) << " | | (shared + register)/2, FADD as register |\n"
     << "| L2 hit (direct, 4 MiB, cg) | " << fmt(l2_hit) << " | " << fmt(l2_hit / mhz * 1e3) << " | near/far mix |\n"
     << "| L2 hit (thesis eq 4.28) | " << fmt(l2_eq428) << " | | (global + L1 eq 4.27)/2 |\n"
     << "| DRAM (512 MiB) | " << fmt(dram) << " ± " << fmt(dram_e.uncertainty) << " | " << fmt(dram / mhz * 1e3)
     << " | |\n"
     << "| DRAM (4 GiB, TLB missing) | " << fmt(dram_tlb) << " | " << fmt(dram_tlb / mhz * 1e3) << " | |\n"
     << "| L1 capacity detected | " << (std::isfinite(l1_capacity) ? fmt_bytes(l1_capacity) : "n/a")
     << " | | ca curve; carveout set explicitly: cudaFuncAttributePreferredSharedMemoryCarveout = "
     << kChaseCarveoutPercent << " % (the largest L1) |\n"
     << "| L2 capacity detected | " << (std::isfinite(l2_capacity) ? fmt_bytes(l2_capacity) : "n/a")
     << " | | runtime says " << fmt_bytes(gpu.l2_cache_bytes) << " |\n";
  for (const auto& c : carveout_check)
    md << "| " << (c["op"] == "ca" ? "L1 hit (16 KiB, ca)" : "L2 hit (4 MiB, cg)") << ", carveout "
       << (c["carveout_percent"].is_string() ? c["carveout_percent"].get<std::string>()
                                             : std::to_string(c["carveout_percent"].get<int>()) + " %")
       << " | " << fmt(c["mean_cycles"].get<double>()) << " ± " << fmt(c["u_cycles"].get<double>()) << " | | carveout check |\n";
  md << "\n";
  if (near_far.contains("near_cycles")) {
    const auto& nf = near_far;
    auto g = [&](const json& j, const char* k) { return j.is_null() ? std::string("n/a") : fmt(j[k].get<double>()); };
    md << "## Near and far L2 (per-load latency, one warp on each SM)\n\n"
       << "4 MiB ld.global.cg chase, 2048 loads per SM each timed on its own, the same lines from each of "
       << nf["sms_measured"].get<std::size_t>() << " SMs; 2-means on the pooled loads (slowest 1 % above "
       << fmt(nf["dropped_above_cycles"].get<double>(), 0) << " cycles left out), split at "
       << fmt(nf["threshold_cycles"].get<double>(), 1) << " cycles.\n\n"
       << "| plateau | mean ± u [cycles] | median | stddev | share of loads | ns |\n|---|---|---|---|---|---|\n"
       << "| near L2 | " << fmt(nf["near_cycles"]["mean"].get<double>()) << " ± " << fmt(nf["near_cycles"]["u"].get<double>())
       << " | " << fmt(nf["near_cycles"]["median"].get<double>(), 0) << " | " << fmt(nf["near_cycles"]["stddev"].get<double>())
       << " | " << fmt(nf["near_fraction_pooled"].get<double>(), 3) << " | "
       << fmt(nf["near_cycles"]["mean"].get<double>() / mhz * 1e3) << " |\n"
       << "| far L2 | " << fmt(nf["far_cycles"]["mean"].get<double>()) << " ± " << fmt(nf["far_cycles"]["u"].get<double>())
       << " | " << fmt(nf["far_cycles"]["median"].get<double>(), 0) << " | " << fmt(nf["far_cycles"]["stddev"].get<double>())
       << " | " << fmt(1 - nf["near_fraction_pooled"].get<double>(), 3) << " | "
       << fmt(nf["far_cycles"]["mean"].get<double>() / mhz * 1e3) << " |\n\n"
       << "| over the SMs | min | median | max |\n|---|---|---|---|\n"
       << "| per-SM mean [cycles] | " << g(nf["per_sm_mean_cycles"], "min") << " | " << g(nf["per_sm_mean_cycles"], "median")
       << " | " << g(nf["per_sm_mean_cycles"], "max") << " |\n"
       << "| per-SM near mean [cycles] | " << g(nf["per_sm_near_mean_cycles"], "min") << " | "
       << g(nf["per_sm_near_mean_cycles"], "median") << " | " << g(nf["per_sm_near_mean_cycles"], "max") << " |\n"
       << "| per-SM far mean [cycles] | " << g(nf["per_sm_far_mean_cycles"], "min") << " | "
       << g(nf["per_sm_far_mean_cycles"], "median") << " | " << g(nf["per_sm_far_mean_cycles"], "max") << " |\n\n"
       << "Raw per-SM values (mean, median, near share, near and far means) and the pooled 4-cycle histogram: "
          "`ubench.csv`, benchmark `l2_near_far`.\n\n";
  }
  md << "## Departure delay\n\n| method | coalesced [cycles] | uncoalesced [cycles] |\n|---|---|---|\n"
     << "| thesis eq 4.25 over the 1..32-warp global-load series | " << fmt(eq425("global_load"), 3) << " | "
     << fmt(eq425("global_load_uncoalesced"), 3) << " |\n";
  if (departure.contains("departure_coalesced"))
    md << "| direct: completion-time slope, one load per warp, 1..32 warps | "
       << fmt(departure["departure_coalesced"]["delta_cycles"].get<double>(), 3) << " ± "
       << fmt(departure["departure_coalesced"]["u_cycles"].get<double>(), 3) << " | "
       << fmt(departure["departure_uncoalesced"]["delta_cycles"].get<double>(), 3) << " ± "
       << fmt(departure["departure_uncoalesced"]["u_cycles"].get<double>(), 3) << " |\n";
  md << "| K40 (thesis table 4.3) | 3 | - |\n\n";
  if (median_of.count("departure_coalesced") && median_of["departure_coalesced"].size() >= 32)
    md << "Completion time of one load per warp (" << Rd << " repetitions per point), mean ± u and median: "
       << "coalesced 1 warp " << fmt(lat["departure_coalesced"][0].mean) << " ± " << fmt(lat["departure_coalesced"][0].uncertainty)
       << " (median " << fmt(median_of["departure_coalesced"][0]) << "), 32 warps " << fmt(lat["departure_coalesced"][31].mean)
       << " ± " << fmt(lat["departure_coalesced"][31].uncertainty) << " (median " << fmt(median_of["departure_coalesced"][31])
       << "); uncoalesced 1 warp " << fmt(lat["departure_uncoalesced"][0].mean) << " ± "
       << fmt(lat["departure_uncoalesced"][0].uncertainty) << " (median " << fmt(median_of["departure_uncoalesced"][0])
       << "), 32 warps " << fmt(lat["departure_uncoalesced"][31].mean) << " ± "
       << fmt(lat["departure_uncoalesced"][31].uncertainty) << " (median " << fmt(median_of["departure_uncoalesced"][31])
       << ").\n\n";
  md << "## Bandwidth\n\n| kind | GB/s | fraction of spec | spec |\n|---|---|---|---|\n";
  for (const auto& [kind, b] : bandwidth.items())
    md << "| " << kind << " | " << fmt(b["gbs"].get<double>(), 1) << " ± " << fmt(b["u_gbs"].get<double>(), 1) << " | "
       << (b["fraction_of_spec"].is_null() ? "n/a" : fmt(b["fraction_of_spec"].get<double>(), 3)) << " | "
       << (b["spec_gbs"].is_null() ? "n/a" : fmt(b["spec_gbs"].get<double>(), 1)) << " (" << b["spec_source"].get<std::string>()
       << ") |\n";
  md << "\n## Issue throughput (32 warps x 1 block per SM, 8 independent chains)\n\n"
     << "| op | ops/clk/SM | spec | fraction |\n|---|---|---|---|\n";
  for (const auto& [op, t] : throughput.items())
    md << "| " << op << " | " << fmt(t["ops_per_clk_per_sm"].get<double>(), 2) << " ± " << fmt(t["u"].get<double>(), 2)
       << " | " << (t["spec_ops_per_clk_per_sm"].is_null() ? "n/a" : fmt(t["spec_ops_per_clk_per_sm"].get<double>(), 0))
       << " | " << (t["fraction_of_spec"].is_null() ? "n/a" : fmt(t["fraction_of_spec"].get<double>(), 3)) << " |\n";
  md << "\n## SASS check\n\n| benchmark | verdict | detail |\n|---|---|---|\n";
  if (!sass_checked) md << "| all | unchecked | " << sass_error << " |\n";
  for (const auto& [name, v] : verdicts)
    md << "| " << name << " | " << (v.valid ? "valid" : "INVALID") << " | " << v.reason << " |\n";
  if (!out.warnings.empty()) {
    md << "\n## Warnings\n\n";
    for (const auto& w : out.warnings) md << "- " << w << "\n";
  }
  out.markdown = md.str();
  return out;
}

}  // namespace warpmodel::ubench
