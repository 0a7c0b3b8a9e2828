#include "writers.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <stdexcept>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "constants.hpp"
#include "registry.hpp"
#include "warpmodel/architecture_specs.hpp"

namespace warpmodel::ubench {
namespace {

using nlohmann::json;

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

json finite_or_null(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

json est_json(const Estimate& e, double mhz) {
  return {{"mean_cycles", e.mean}, {"u_cycles", e.uncertainty}, {"stddev_cycles", e.stddev}, {"n", e.n},
          {"mean_ns", e.mean / mhz * 1e3}, {"u_ns", e.uncertainty / mhz * 1e3}};
}

// The headline numbers of the profile, from the reduced results.
struct Headline {
  double l1_hit = NAN, l2_hit = NAN, dram = NAN, dram_u = 0, dram_tlb = NAN;
  double fp = NAN, sfu = NAN, shared = NAN, delta_coalesced = NAN, delta_uncoalesced = NAN, delta_sequential = NAN;
  double l1_eq427 = NAN, l2_eq428 = NAN, eq425_coalesced = NAN, eq425_uncoalesced = NAN;
};

double mean_at(const Results& r, const std::string& name, int warps) {
  const auto* s = r.find_latency(name);
  if (!s) return NAN;
  const auto e = s->at(warps);
  return e ? e->mean : NAN;
}

// Thesis eq 4.25 over a 1..32-warp series: sum of successive differences / (#warps - 1).
double eq425(const Results& r, const std::string& name) {
  const auto* s = r.find_latency(name);
  if (!s || s->by_warps.size() < 2) return NAN;
  double sum = 0;
  for (std::size_t i = 1; i < s->by_warps.size(); ++i) sum += s->by_warps[i].mean - s->by_warps[i - 1].mean;
  return sum / double(s->by_warps.size() - 1);
}

Headline headline(const Results& r) {
  Headline h;
  h.l1_hit = mean_at(r, "l1_hit", 1);
  h.l2_hit = mean_at(r, "l2_hit", 1);
  if (r.memory.dram) {
    h.dram = r.memory.dram->mean;
    h.dram_u = r.memory.dram->uncertainty;
  }
  h.dram_tlb = r.memory.dram_tlb_missing;
  h.fp = mean_at(r, "fp32_div_full", 1);  // the thesis's avg_inst_lat: the slowest stencil op (div.full)
  h.sfu = mean_at(r, "sfu_rcp", 1);
  h.shared = mean_at(r, "shared_load", 1);
  for (const auto& d : r.departure) {
    if (d.name == "departure_coalesced") h.delta_coalesced = d.delta_cycles;
    if (d.name == "departure_uncoalesced") h.delta_uncoalesced = d.delta_cycles;
    if (d.name == "departure_sequential") h.delta_sequential = d.delta_cycles;
  }
  // Thesis indirect estimates (eqs 4.27, 4.28). No chain of register moves survives ptxas (see
  // ubench.def), so the FP32 add latency stands in for the register latency.
  const double register_stand_in = mean_at(r, "fp32_add", 1);
  h.l1_eq427 = 0.5 * (h.shared + register_stand_in);
  h.l2_eq428 = 0.5 * (mean_at(r, "global_load", 1) + h.l1_eq427);
  h.eq425_coalesced = eq425(r, "global_load");
  h.eq425_uncoalesced = eq425(r, "global_load_uncoalesced");
  return h;
}

double positive_or_one(double v) { return std::isfinite(v) && v > 0 ? v : 1.0; }

std::string clock_text(const ClockReading& c) { return c.available ? std::to_string(c.sm_mhz) : "n/a"; }

const InvalidBenchmark* invalid_result(const Results& r, const std::string& result) {
  for (const auto& i : r.invalid)
    if (i.result == result || i.name == result) return &i;
  return nullptr;
}

// The stage a benchmark belongs to ("" for the clock cost, which every stage measures; core for a
// name the registry does not know).
std::string stage_of(const std::string& benchmark) {
  const auto* d = find_declaration(benchmark);
  return d ? d->stage : std::string(kStageCore);
}

bool is_tensor_stage(const std::string& benchmark) { return stage_of(benchmark) == kStageTensor; }

json rate_json(const RateSeries& s) {
  const Estimate& e = s.by_warps.back();  // the last warp count of the axis: 32 warps per SM
  json j = {{s.key(), e.mean}, {"u", e.uncertainty}, {"n", e.n}};
  if (s.group == "alu_throughput") {  // the keys the committed results and the model read
    j["spec_ops_per_clk_per_sm"] = s.spec_per_clk_sm > 0 ? json(s.spec_per_clk_sm) : json(nullptr);
    j["fraction_of_spec"] = s.spec_per_clk_sm > 0 ? json(e.mean / s.spec_per_clk_sm) : json(nullptr);
    return j;
  }
  const std::string per = s.per_sm ? "_per_clk_per_sm" : "_per_clk";
  if (s.sectors_per_unit > 0) j["sectors" + per] = e.mean * s.sectors_per_unit;
  if (s.bytes_per_unit > 0) j["bytes" + per] = e.mean * s.bytes_per_unit;
  j["warps_per_block"] = s.warps.back();
  if (s.warps.size() > 1) {
    json by = json::array();
    for (std::size_t i = 0; i < s.warps.size(); ++i)
      by.push_back({{"warps", s.warps[i]}, {s.key(), s.by_warps[i].mean}, {"u", s.by_warps[i].uncertainty}});
    j["by_warps"] = by;
  }
  j["sass"] = s.sass;
  return j;
}

}  // namespace

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

std::vector<std::string> profile_warnings(const Results& r) {
  const Headline h = headline(r);
  std::vector<std::string> w;
  for (const auto& [v, what] : std::vector<std::pair<double, std::string>>{{h.fp, "fp (div.full)"},
                                                                           {h.l1_hit, "l1_hit"},
                                                                           {h.l2_hit, "l2_hit"},
                                                                           {h.dram, "dram"},
                                                                           {h.delta_coalesced, "departure_delay_coalesced"}})
    if (!(std::isfinite(v) && v > 0))
      w.push_back(what + " not measured (or <= 0); written as 1 so the profile stays readable");
  return w;
}

namespace {
// The core stage's document: the profile the model reads and the core tables under `measurements`.
// measurements.energy: the energy stage's rows and the coefficients the model reads (docs/energy.md).
json energy_section(const Results& r) {
  json rows = json::object();
  for (const auto& e : r.energy)
    rows[e.name] = {{"of", e.of},
                    {"counts", e.counts},
                    {"count_per_region", e.count_per_region},
                    {"joules_per_region", e.joules},
                    {"joules_half_width", e.joules_half_width},
                    {"seconds_per_region", e.seconds},
                    {"seconds_half_width", e.seconds_half_width},
                    {"watts", e.watts},
                    {"idle_w", e.idle_w},
                    {"idle_settle_seconds", e.idle_settle_seconds},
                    {"repetitions_per_reading", e.repetitions},
                    {"readings", e.readings},
                    {"sass", e.sass}};
  const EnergyCoefficients c = energy_coefficients(r.energy);
  json coefficients = {{"static_w", c.static_w}};
  for (const auto& [unit, pj] : c.pj_per) coefficients["pj_per_" + unit] = pj;
  json board = json::object();
  if (r.energy_power_limit_w) board["power_limit_w"] = *r.energy_power_limit_w;  // read, not changed (E.3)
  return {{"rows", rows},
                    {"board", board},
                    {"coefficients", coefficients},
                    {"notes", c.notes},
                    {"method",
                     "NVML's total-energy counter around repeated runs of each row's kernel (every SM), readings "
                     "sized so that its 1 mJ resolution is at most 1 % of one, 95 % Student-t intervals; static_w: "
                     "the board's power with no kernel running, the lowest of the rows' idle readings (the settled board); pj_per_<unit> = "
                     "(E - static_w t) / count per region, the DRAM byte beyond the L2 byte it also is (docs/energy.md)"}};
}

json core_document(const Results& r) {
  const Headline h = headline(r);
  const double mhz = r.sm_clock_mhz;
  json dev;
  dev["schema"] = "warpmodel.device/1";
  dev["name"] = r.gpu_name + " (warpmodel characterize)";
  dev["hardware"] = {{"compute_capability", std::to_string(r.cc_major) + "." + std::to_string(r.cc_minor)},
                     {"sm_count", r.sm_count},
                     {"sm_clock_mhz", mhz},
                     {"simd_width", fp32_lanes_per_sm(r.cc_major, r.cc_minor)},
                     {"sfu_width", sfu_lanes_per_sm(r.cc_major, r.cc_minor)},
                     {"warp_size", r.warp_size},
                     {"mem_peak_bandwidth_gbs", r.mem_peak_bandwidth_gbs}};
  json latj = {{"fp", positive_or_one(h.fp)},
               {"l1_hit", positive_or_one(h.l1_hit)},
               {"l2_hit", positive_or_one(h.l2_hit)},
               {"dram", positive_or_one(h.dram)},
               {"departure_delay_coalesced", positive_or_one(h.delta_coalesced)}};
  if (std::isfinite(h.sfu) && h.sfu > 0) latj["sfu"] = h.sfu;
  if (std::isfinite(h.shared) && h.shared > 0) latj["shared_load"] = h.shared;
  if (std::isfinite(h.delta_uncoalesced) && h.delta_uncoalesced > 0) latj["departure_delay_uncoalesced"] = h.delta_uncoalesced;
  if (std::isfinite(h.delta_sequential) && h.delta_sequential > 0) latj["departure_delay_sequential"] = h.delta_sequential;
  dev["latency_cycles"] = latj;
  if (const auto* g = r.find_latency("global_load")) {
    json series = json::array();
    bool ok = true;
    for (const auto& e : g->by_warps) {
      ok = ok && e.mean > 0;
      series.push_back(e.mean);
    }
    if (ok) dev["global_load_latency_by_warps"] = series;
  }

  json prov = {{"gpu", r.gpu_name},
               {"pci_bus_id", r.pci_bus_id},
               {"driver", r.driver},
               {"cuda_driver_api", std::to_string(r.driver_version)},
               {"cuda_runtime", std::to_string(r.runtime_version)},
               {"sm_clock_mhz_before", clock_text(r.clock_before)},
               {"sm_clock_mhz_after", clock_text(r.clock_after)},
               {"mem_clock_mhz_before", r.clock_before.available ? std::to_string(r.clock_before.mem_mhz) : "n/a"},
               {"sm_clock_mhz_max_runtime", fmt(r.runtime_max_sm_clock_mhz, 0)},
               {"date", r.date},
               {"commit", r.commit.empty() ? "unknown" : r.commit},
               {"command", r.command},
               {"repetitions", std::to_string(r.repetitions)},
               {"sass_check", r.sass_source},
               {"latency_cycles.fp", "fp32 div.full.ftz latency, 1 warp (the thesis's avg_inst_lat: the slowest stencil op)"},
               {"latency_cycles.sfu", "rcp.approx.ftz (MUFU.RCP) latency, 1 warp, FMUL latency subtracted"},
               {"latency_cycles.shared_load", "ld.shared.u32 pointer chase, 1 warp"},
               {"latency_cycles.l1_hit", "ld.global.ca pointer chase, 16 KiB footprint, 1 warp"},
               {"latency_cycles.l2_hit", "ld.global.cg pointer chase, 4 MiB footprint, 1 warp (mix of near and far L2)"},
               {"latency_cycles.dram", "ld.global.cg pointer chase, 512 MiB footprint, 1 warp"},
               {"latency_cycles.departure_delay_coalesced", "direct method: completion-time slope over 1..32 warps"},
               {"latency_cycles.departure_delay_uncoalesced", "direct method, 32 lines per request"},
               {"latency_cycles.departure_delay_sequential",
                "direct method, one line per warp, the warps' lines consecutive (coalesced: scrambled lines)"},
               {"global_load_latency_by_warps", "ld.global.cg chase, 1 GiB footprint, coalesced, 1..32 warps"},
               {"sm_clock_mhz", "NVML SM clock, mean of before and after the run"}};
  if (!r.clock_before.available) prov["sm_clock_mhz"] = "maximum SM clock from the runtime (NVML unavailable)";
  dev["provenance"] = prov;

  json meas;
  meas["note"] = "warpmodel characterize: per-op cycles, clock64 read cost subtracted, mean and GUM type-A "
                 "uncertainty (s/sqrt(n)) over the repetitions; ns at the recorded SM clock. Rates per SM clock "
                 "cycle at the recorded SM clock.";
  json table = json::object();
  for (const auto& s : r.latency) {
    json by = json::object();
    if (const auto e = s.at(1)) by["warps_1"] = est_json(*e, mhz);
    if (const auto e = s.at(32)) by["warps_32"] = est_json(*e, mhz);
    by["sass"] = s.sass;
    if (s.medians.size() == s.warps.size() && !s.medians.empty() && by.contains("warps_1") && by.contains("warps_32")) {
      by["warps_1"]["median_cycles"] = s.medians.front();
      by["warps_32"]["median_cycles"] = s.medians.back();
    }
    table[s.name] = by;
  }
  for (const auto& i : r.invalid) {
    const auto* d = find_declaration(i.name);
    if (d && d->output == Output::latency && !table.contains(i.result))
      table[i.result] = {{"sass", "INVALID"}, {"reason", i.reason}};
  }
  meas["latency"] = table;

  json throughput = json::object();
  for (const auto& s : r.rates)
    if (!s.by_warps.empty()) throughput[s.name] = rate_json(s);
  meas["throughput"] = throughput;

  json curve = json::array();
  for (const auto& p : r.memory.curve) {
    json point = {{"footprint_bytes", p.footprint_bytes}, {"stride_bytes", p.stride_bytes}, {"nodes", p.nodes}};
    if (p.ca) point["ca"] = {{"mean_cycles", p.ca->mean}, {"u_cycles", p.ca->uncertainty}};
    if (p.cg) point["cg"] = {{"mean_cycles", p.cg->mean}, {"u_cycles", p.cg->uncertainty}};
    curve.push_back(point);
  }
  meas["footprint_curve"] = curve;
  json carveout_check = json::array();
  for (const auto& c : r.memory.carveout_check)
    carveout_check.push_back({{"carveout_percent", c.carveout_percent < 0 ? json("driver default") : json(c.carveout_percent)},
                              {"op", c.op},
                              {"footprint_bytes", c.footprint_bytes},
                              {"mean_cycles", c.latency.mean},
                              {"u_cycles", c.latency.uncertainty}});
  const MemoryLevels& m = r.memory;
  meas["capacity"] = {{"l1_bytes_detected", finite_or_null(m.l1_capacity_bytes)},
                      {"l2_bytes_detected", finite_or_null(m.l2_capacity_bytes)},
                      {"l2_bytes_runtime", r.l2_cache_bytes},
                      {"l1_level_cycles", m.l1_level},
                      {"l2_level_cycles", m.l2_level},
                      {"dram_level_cycles", m.dram_level},
                      {"dram_tlb_missing_cycles", m.dram_tlb_missing},
                      {"carveout_check", carveout_check},
                      {"l1_carveout", "cudaFuncAttributePreferredSharedMemoryCarveout = " +
                                          std::to_string(m.carveout_percent) +
                                          " % on both chase kernels (0 = the largest L1)"},
                      {"method", "largest footprint whose chase latency stays below the midpoint of the two "
                                 "adjacent plateaus (ca curve for L1, cg curve for L2)"}};
  meas["thesis_indirect"] = {{"l1_hit_eq_4_27", h.l1_eq427},
                             {"l2_hit_eq_4_28", h.l2_eq428},
                             {"register_stand_in", "fp32_add latency (the mov chain is removed by ptxas)"},
                             {"l1_hit_direct", h.l1_hit},
                             {"l2_hit_direct", h.l2_hit}};
  json departure = json::object();
  for (const auto& d : r.departure)
    departure[d.name] = {{"method", "slope of the completion time of one load per warp, k = 1..32 warps"},
                         {"delta_cycles", d.delta_cycles},
                         {"u_cycles", d.u_cycles},
                         {"intercept_cycles", d.intercept_cycles},
                         {"completion_cycles_by_warps", d.completion_by_warps},
                         {"median_completion_cycles_by_warps", d.median_by_warps},
                         {"repetitions", d.repetitions}};
  departure["thesis_eq_4_25_coalesced"] = h.eq425_coalesced;
  departure["thesis_eq_4_25_uncoalesced"] = h.eq425_uncoalesced;
  meas["departure_delay"] = departure;

  json near_far = json::object();
  if (r.near_far.measured) {
    const NearFarL2& nf = r.near_far;
    auto spread = [](const std::optional<Spread>& s) -> json {
      if (!s) return nullptr;
      return {{"min", s->min}, {"median", s->median}, {"max", s->max}, {"mean", s->mean}};
    };
    auto plateau = [](const Plateau& p) {
      return json{{"mean", p.estimate.mean}, {"u", p.estimate.uncertainty}, {"stddev", p.estimate.stddev},
                  {"median", p.median}, {"n", p.estimate.n}};
    };
    json per_sm = json::array();
    for (const auto& s : nf.per_sm)
      per_sm.push_back({{"smid", s.smid}, {"mean_cycles", s.mean}, {"median_cycles", s.median},
                        {"near_fraction", s.near_fraction}, {"near_mean_cycles", s.near_mean},
                        {"far_mean_cycles", s.far_mean}});
    near_far = {{"method", "one warp pinned on each SM (%smid; the first of 4 x SMs single-warp blocks that lands "
                           "there), ld.global.cg chase over 4 MiB (16384 lines of 256 B, prewarmed into L2), 2048 "
                           "loads each timed on its own (clock64, load, dependent LOP3, clock64; clock64 cost "
                           "subtracted), same lines from every SM; 2-means on the pooled loads after dropping the "
                           "slowest 1 %"},
                {"sms_measured", nf.per_sm.size()},
                {"loads_per_sm", nf.loads_per_sm},
                {"near_cycles", plateau(nf.near)},
                {"far_cycles", plateau(nf.far)},
                {"threshold_cycles", nf.threshold_cycles},
                {"dropped_above_cycles", nf.dropped_above_cycles},
                {"near_fraction_pooled", nf.near_fraction_pooled},
                {"per_sm_mean_cycles", spread(nf.per_sm_mean)},
                {"per_sm_near_mean_cycles", spread(nf.per_sm_near_mean)},
                {"per_sm_far_mean_cycles", spread(nf.per_sm_far_mean)},
                {"per_sm", per_sm}};
  }
  meas["l2_near_far"] = near_far;
  meas["store_latency"] = {
      {"method", "round trip: each thread chains 'st [p], p; ld p, [p]' on its own word (shared: ld.shared.u32; "
                 "global: st.global.u64 + ld.global.cg.u64, 256 B per warp), 256 steps; minus the same chain "
                 "without the store ('selfload'); per step, clock64 cost subtracted"},
      {"k40_note", "the thesis's K40 rows time a lone store between two clock reads (its issue cost), "
                   "not its completion"}};
  json bandwidth = json::object();
  for (const auto& b : r.bandwidth)
    bandwidth[b.kind] = {{"gbs", b.gbs.mean}, {"u_gbs", b.gbs.uncertainty}, {"n", b.gbs.n},
                         {"bytes_per_launch", b.bytes_per_launch},
                         {"spec_gbs", b.spec_gbs ? json(*b.spec_gbs) : json(nullptr)},
                         {"fraction_of_spec", b.spec_gbs ? json(b.gbs.mean / *b.spec_gbs) : json(nullptr)},
                         {"spec_source", b.spec_source}};
  meas["bandwidth"] = bandwidth;

  if (r.barrier) {
    json by = json::array(), u = json::array();
    for (const auto& e : r.barrier->by_warps) {
      by.push_back(e.mean);
      u.push_back(e.uncertainty);
    }
    const auto at32 = r.barrier->at(32);
    meas["barrier"] = {{"cycles_by_warps", by},
                       {"u_cycles_by_warps", u},
                       {"warps", r.barrier->warps},
                       {"cycles_32_warps", at32 ? json(at32->mean) : json(nullptr)},
                       {"sass", r.barrier->sass},
                       {"method", "one block of 1..32 warps: 64 bar.sync 0 in a row between two clock64 reads "
                                  "(no loop, so no loop overhead), clock64 cost subtracted, per barrier"}};
  }
  if (r.launch.measured) {
    const LaunchResult& l = r.launch;
    meas["launch"] = {
        {"empty_kernel_us", l.empty_kernel_us},
        {"empty_kernel_mean_us", l.empty_kernel_us_estimate.mean},
        {"empty_kernel_u_us", l.empty_kernel_us_estimate.uncertainty},
        {"back_to_back_us", l.back_to_back_us},
        {"back_to_back_mean_us", l.back_to_back_us_estimate.mean},
        {"back_to_back_u_us", l.back_to_back_us_estimate.uncertainty},
        {"block_dispatch_cycles", l.block_dispatch_cycles},
        {"block_dispatch_u_cycles", l.block_dispatch_u},
        {"block_dispatch_intercept_us", l.block_dispatch_intercept_us},
        {"wave_cycles", l.wave_cycles},
        {"wave_u_cycles", l.wave_u},
        {"wave_intercept_us", l.wave_intercept_us},
        {"waves", l.waves},
        {"grid_32_threads_us", l.dispatch_us},
        {"grid_one_block_per_sm_us", l.wave_us},
        {"one_block_per_sm_shared_bytes", l.one_block_per_sm_shared_bytes},
        {"method",
         "CUDA events. empty_kernel_us: median of single launches of an empty 1-block kernel (32 threads); "
         "back_to_back_us: per launch in a stream of 1000 back-to-back empty launches (median over repetitions); "
         "block_dispatch_cycles: least-squares slope of the empty kernel's duration (SM cycles at the recorded "
         "clock) over w for grids of w x SMs blocks of 32 threads, w = 1..64 (cycles per block per SM; many blocks "
         "are resident at once); wave_cycles: the same slope with one block per SM forced by the opt-in maximum "
         "of dynamic shared memory, so the w waves run one after another: the cost of one wave without the "
         "launch's fixed cost (the intercept)"}};
  }
  json sass = json::object();
  for (const auto& v : r.verdicts)
    if (stage_of(v.benchmark) == kStageCore) sass[v.benchmark] = {{"valid", v.valid}, {"reason", v.reason}};
  meas["sass_check"] = sass;
  meas["warnings"] = r.warnings;
  meas["wall_seconds"] = r.seconds;
  dev["measurements"] = meas;
  return dev;
}
}  // namespace


namespace {

// The measurements sections the tensor stage writes (and a core-only run keeps from the old profile).
const std::vector<std::string>& unit_sections() {
  static const std::vector<std::string> s = {"tensor_cores", "tma", "async_copy", "cluster", "library_gemm",
                                             "tensor_stage"};
  return s;
}

json estimate_or_null(const std::optional<Estimate>& e, double scale = 1) {
  return e ? json(e->mean * scale) : json(nullptr);
}
json& at_path(json& root, const std::string& dotted) {  // "wgmma.f16" -> root["wgmma"]["f16"]
  json* j = &root;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = dotted.find('.', start);
    json& next = (*j)[dotted.substr(start, dot == std::string::npos ? std::string::npos : dot - start)];
    if (!next.is_object()) next = json::object();
    j = &next;
    if (dot == std::string::npos) return *j;
    start = dot + 1;
  }
}
// "valid" only when every row written into the entry is.
void merge_sass(json& entry, const std::string& sass) {
  if (!entry.contains("sass") || entry["sass"] == "valid") entry["sass"] = sass;
}
// The per-second figure of a rate in the unit its entry shows: tera-ops per second or GB/s.
std::string per_second_key(const UnitSeries& s) { return s.unit == "ops" ? "tera_ops_per_s" : "gbs"; }
double per_second_scale(const UnitSeries& s) { return s.unit == "ops" ? 1e-12 : 1e-9; }

void write_rate(json& e, const UnitSeries& s, const UnitPoint& p, const std::vector<const UnitPoint*>& axis) {
  const std::string key = s.unit + "_per_clk_per_sm", ps = per_second_key(s);
  const double scale = per_second_scale(s);
  e[key] = p.value.mean;
  e["u_" + key] = p.value.uncertainty;
  if (s.spec_per_clk_sm > 0) e["spec_" + key] = s.spec_per_clk_sm;
  e[ps] = estimate_or_null(p.per_second, scale);
  e["u_" + ps] = p.per_second ? json(p.per_second->uncertainty * scale) : json(nullptr);
  if (s.spec_per_second) {
    e["spec_" + ps] = *s.spec_per_second * scale;
    e["fraction_of_spec"] = p.per_second ? json(p.per_second->mean / *s.spec_per_second) : json(nullptr);
  } else if (!s.spec_source.empty() || s.spec_per_clk_sm > 0) {  // a spec row without a figure for this GPU
    e["spec_" + ps] = nullptr;
    e["fraction_of_spec"] = nullptr;
  }
  if (!s.spec_source.empty()) e["spec_source"] = s.spec_source;
  e["warps_per_block"] = p.warps;
  e["sms_measured"] = p.blocks;  // one block per SM
  if (axis.size() > 1) {
    json by = json::array();
    for (const auto* q : axis)
      by.push_back({{"warps", q->warps}, {key, q->value.mean}, {"u_" + key, q->value.uncertainty},
                    {ps, estimate_or_null(q->per_second, scale)}});
    e["by_warps"] = by;
  }
}

json units_json(const Results& r) {
  json out = json::object();
  out["tensor_cores"] = {
      {"method", "mma.sync/mma.sp: 1 warp, a chain of 64 dependent MMAs (latency); 1 block per SM on every SM of "
                 "4-16 warps, 8 independent accumulators per warp (rate). wgmma/wgmma.sp m64n256: 1 warpgroup, 16 x "
                 "(fence, wgmma, commit, wait 0) (latency); 1-3 warpgroups per SM, 8 wgmma per commit group, one group "
                 "in flight (rate), A and B from shared memory. ops = 2 x M x N x K (FLOP for floating types; a 2:4-sparse "
                 "op counted at its dense shape). ops_per_clk_per_sm: %clock64, mean over the SMs, the best warp count; "
                 "tera_ops_per_s: the whole GPU, CUDA events around 5 launches; fraction_of_spec: tera_ops_per_s over the "
                 "GPU's spec sheet (dense: half the sheet's sparse figure)"}};
  out["tma"] = {{"method", "latency: 1 warp, one thread starting 32 copies one after another (each waited for on an "
                           "mbarrier; stores: commit, wait_group 0), L2-resident; bandwidth: 1 block of 1 warp per SM, "
                           "one thread keeps 8 (2D, 16 KiB boxes) or 64 (1D, 1 KiB boxes) copies in flight over a 1 GiB "
                           "buffer (DRAM)"}};
  out["async_copy"] = {{"method", "cp_async: cp.async.cg 16 B per lane (LDGSTS); bulk_load: cp.async.bulk 16 KiB "
                                  "(UBLKCP); latency and bandwidth as the TMA rows"}};
  out["cluster"] = {{"method", "per cluster size: dsmem_load: a chase through the next block's shared memory "
                               "(ld.shared::cluster, 1 warp per block, one cluster); dsmem_read: 16-B loads of the next "
                               "block's shared memory, 1 block per SM in whole clusters; barrier: 32 "
                               "barrier.cluster.arrive + wait pairs (release/acquire; _relaxed: arrive.relaxed), one "
                               "cluster of 1- or 32-warp blocks, cycles per pair"}};
  if (!r.cluster_occupancy.empty()) {
    json counts = json::object();
    for (const auto& [size, clusters] : r.cluster_occupancy) counts["cluster_" + std::to_string(size)] = clusters;
    out["cluster"]["max_active_clusters"] = counts;
    out["cluster"]["max_active_clusters_method"] =
        "cudaOccupancyMaxActiveClusters of ubench_dsmem_read with one block per SM (dynamic shared memory over half "
        "the SM's), clusters of 1 to 16 blocks; a cluster lives in one GPC, so the counts give the GPC layout "
        "(hardware.sms_per_gpc when the profile states none)";
  }
  for (const auto& s : r.units) {
    json& section = out[s.section];
    json& entry = at_path(section, s.result);
    entry["ptx"] = s.ptx;
    merge_sass(entry, s.sass);
    if (!s.clustered) {
      if (s.latency) {
        if (!s.points.empty()) {
          entry["latency_cycles"] = s.points.front().value.mean;
          entry["u_latency_cycles"] = s.points.front().value.uncertainty;
        }
      } else if (const UnitPoint* b = s.best()) {
        std::vector<const UnitPoint*> axis;
        for (const auto& p : s.points) axis.push_back(&p);
        write_rate(entry, s, *b, axis);
      }
      continue;
    }
    std::vector<int> clusters;
    for (const auto& p : s.points)
      if (std::find(clusters.begin(), clusters.end(), p.cluster) == clusters.end()) clusters.push_back(p.cluster);
    for (int c : clusters) {
      json& e = entry["cluster_" + std::to_string(c)];
      if (s.latency) {
        for (const auto& p : s.points)
          if (p.cluster == c) {
            e["latency_cycles"] = p.value.mean;
            e["u_latency_cycles"] = p.value.uncertainty;
          }
      } else if (const UnitPoint* b = s.best(c)) {
        std::vector<const UnitPoint*> axis;
        for (const auto& p : s.points)
          if (p.cluster == c) axis.push_back(&p);
        write_rate(e, s, *b, axis);
      }
    }
  }
  const LibraryGemmResult& g = r.library_gemm;
  json lib = {{"method", g.description.empty() ? json(nullptr) : json(g.description)},
              {"library", g.library}};
  if (g.measured) {
    const LibraryGemmPoint* best = nullptr;
    json by = json::array();
    for (const auto& p : g.sizes) {
      if (!best || p.tera_ops_per_second.mean > best->tera_ops_per_second.mean) best = &p;
      by.push_back({{"size", p.size}, {"tera_ops_per_s", p.tera_ops_per_second.mean},
                    {"u_tera_ops_per_s", p.tera_ops_per_second.uncertainty}, {"algorithms_timed", p.algorithms_timed}});
    }
    lib["tera_ops_per_s"] = best->tera_ops_per_second.mean;
    lib["u_tera_ops_per_s"] = best->tera_ops_per_second.uncertainty;
    lib["best_size"] = best->size;
    lib["by_size"] = by;
    lib["spec_tera_ops_per_s"] = g.spec_tera_ops ? json(*g.spec_tera_ops) : json(nullptr);
    lib["fraction_of_spec"] = g.spec_tera_ops ? json(best->tera_ops_per_second.mean / *g.spec_tera_ops) : json(nullptr);
    lib["spec_source"] = g.spec_source;
    // The wgmma FP16 row beside it: >= 0.9 means the microbenchmark's peak is within 10 % of the library's.
    const UnitSeries* w = r.find_unit("tensor_cores", "wgmma.f16", false);
    const UnitPoint* wb = w ? w->best() : nullptr;
    lib["wgmma_f16_ratio"] = wb && wb->per_second
                                 ? json(wb->per_second->mean * 1e-12 / best->tera_ops_per_second.mean)
                                 : json(nullptr);
  } else {
    lib["not_measured"] = g.why_not;
  }
  out["library_gemm"] = {{"cublaslt_f16", lib}};
  auto clock = [](const ClockReading& c) { return c.available ? json(c.sm_mhz) : json(nullptr); };
  json warnings = json::array();
  for (const auto& w : r.warnings) warnings.push_back(w);
  out["tensor_stage"] = {{"sm_clock_mhz_before", clock(r.units_clock_before)},
                         {"sm_clock_mhz_after", clock(r.units_clock_after)},
                         {"clock64_cycles_1_warp", mean_at(r, "clock64", 1)},
                         {"repetitions", r.repetitions},
                         {"skipped", r.units_skipped.empty() ? json(nullptr) : json(r.units_skipped)},
                         {"warnings", warnings}};
  return out;
}

}  // namespace

std::vector<std::string> tensor_stage_quantities() {
  std::vector<std::string> out;
  auto add = [&](const std::string& q) {
    if (std::find(out.begin(), out.end(), q) == out.end()) out.push_back(q);
  };
  for (const auto& d : declarations()) {
    if (d.stage != kStageTensor) continue;
    const std::string base = "measurements." + d.section + "." + d.result_name();
    if (d.method == Method::library_gemm) {
      for (const char* leaf : {"tera_ops_per_s", "fraction_of_spec", "wgmma_f16_ratio"}) add(base + "." + leaf);
      continue;
    }
    std::vector<std::string> entries;
    if (d.axes.clusters.empty()) entries.push_back(base);
    for (int c : d.axes.clusters) entries.push_back(base + ".cluster_" + std::to_string(c));
    std::vector<std::string> leaves = {"latency_cycles"};
    if (d.method == Method::unit_throughput)
      leaves = d.rate.unit == "ops" ? std::vector<std::string>{"ops_per_clk_per_sm", "tera_ops_per_s", "fraction_of_spec"}
               : d.spec_key.empty() ? std::vector<std::string>{"bytes_per_clk_per_sm", "gbs"}
                                    : std::vector<std::string>{"bytes_per_clk_per_sm", "gbs", "fraction_of_spec"};
    for (const auto& e : entries)
      for (const auto& leaf : leaves) add(e + "." + leaf);
  }
  return out;
}

std::string write_device_json(const Results& r, const std::string& base) {
  const bool core = r.ran(kStageCore);
  json previous = base.empty() ? json() : json::parse(base);
  if (!core && !previous.is_object())
    throw std::invalid_argument("write_device_json: a run without the core stage needs the profile it adds to");
  json dev = core ? core_document(r) : previous;
  json& meas = dev["measurements"];
  if (!meas.is_object()) meas = json::object();
  if (!meas.contains("sass_check") || !meas["sass_check"].is_object()) meas["sass_check"] = json::object();
  json& prov = dev["provenance"];
  if (!prov.is_object()) prov = json::object();
  const json no_object = json::object();
  const json& old = previous.is_object() && previous.contains("measurements") && previous["measurements"].is_object()
                        ? previous["measurements"]
                        : no_object;
  // The stages beside core write their sections, verdicts and provenance (<stage>_stage.*) when they
  // ran; a run without them keeps what the profile had.
  struct Added {
    const char* stage;
    std::vector<std::string> sections;
    json (*written)(const Results&);  // the sections as this run writes them (one absent: not written)
  };
  const Added added[] = {
      {kStageTensor, unit_sections(), units_json},
      {kStageEnergy, {"energy"}, [](const Results& run) {
         return run.energy.empty() ? json::object() : json{{"energy", energy_section(run)}};
       }}};
  for (const Added& a : added) {
    const std::string prefix = std::string(a.stage) + "_stage.";
    if (r.ran(a.stage)) {
      const json written = a.written(r);
      for (const auto& section : a.sections) {
        meas.erase(section);
        if (written.contains(section)) meas[section] = written.at(section);
      }
      for (const auto& v : r.verdicts)
        if (stage_of(v.benchmark) == a.stage) meas["sass_check"][v.benchmark] = {{"valid", v.valid}, {"reason", v.reason}};
      prov[prefix + "date"] = r.date;
      prov[prefix + "commit"] = r.commit.empty() ? "unknown" : r.commit;
      prov[prefix + "command"] = r.command;
      prov[prefix + "driver"] = r.driver;
      prov[prefix + "gpu"] = r.gpu_name;
      prov[prefix + "sass_check"] = r.sass_source;
    } else if (core) {  // a core run keeps what this stage measured before, with its verdicts and provenance
      for (const auto& section : a.sections)
        if (old.contains(section)) meas[section] = old[section];
      if (old.contains("sass_check") && old["sass_check"].is_object())
        for (const auto& [name, verdict] : old["sass_check"].items())
          if (stage_of(name) == a.stage) meas["sass_check"][name] = verdict;
      if (previous.contains("provenance") && previous["provenance"].is_object())
        for (const auto& [key, value] : previous["provenance"].items())
          if (key.rfind(prefix, 0) == 0) prov[key] = value;
    }
  }
  return dev.dump(2) + "\n";
}

namespace {
std::string csv_text(const std::vector<CsvRow>& rows) {
  std::ostringstream csv;
  csv << "benchmark,series,warps,footprint_bytes,rep,raw_cycles,value,unit\n";
  for (const auto& row : rows)
    csv << row.benchmark << "," << row.series << "," << row.warps << "," << std::llround(row.footprint_bytes) << ","
        << row.rep << "," << (row.raw_cycles ? fmt(*row.raw_cycles, 3) : "") << "," << fmt(row.value, 4) << ","
        << row.unit << "\n";
  return csv.str();
}
}  // namespace

std::string write_csv(const Results& r) { return csv_text(r.csv); }
std::string write_unit_csv(const Results& r) { return csv_text(r.unit_csv); }

std::string write_energy_markdown(const Results& r) {
  std::ostringstream md;
  md << "# Energy per operation: " << r.gpu_name << "\n\n"
     << "`" << r.command << "` on " << r.date << ", commit " << (r.commit.empty() ? "unknown" : r.commit) << ", driver "
     << r.driver << ". NVML's total-energy counter around repeated runs of each row's kernel on every SM, 30 readings "
        "with a 95 % Student-t interval; the GPU's power limit and clocks read, never set. Rows: ubench/registry.cpp; "
        "method and the launch energy the model predicts from them: docs/energy.md.\n\n";
  if (r.energy.empty()) {
    md << "Not measured:";
    for (const auto& w : r.warnings)
      if (w.find("energy") != std::string::npos) md << " " << w << ".";
    md << "\n";
    return md.str();
  }
  const EnergyCoefficients c = energy_coefficients(r.energy);
  md << "| row | kernel of | unit | J per region | s per region | W | idle W | settled after s | pJ per unit above static |\n"
        "|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& e : r.energy) {
    const auto pj = c.pj_per.find(e.counts);
    md << "| " << e.name << " | " << e.of << " | " << e.counts << " | " << fmt(e.joules, 4) << " ± "
       << fmt(e.joules_half_width, 2) << " | " << fmt(e.seconds, 4) << " | " << fmt(e.watts, 4) << " | "
       << fmt(e.idle_w, 4) << " | " << fmt(e.idle_settle_seconds, 2) << " | "
       << (pj == c.pj_per.end() ? std::string("-") : fmt(pj->second, 4) + " ± " + fmt(c.pj_half_width.at(e.counts), 2))
       << " |\n";
  }
  md << "\nStatic power (no kernel running, the lowest of the rows' idle readings, each read once two 1 s windows agree within 2 %, at most 20 s after the row before): " << fmt(c.static_w, 4) << " W.";
  for (const auto& n : c.notes) md << " " << n << ".";
  md << "\n";
  return md.str();
}

std::string write_tensor_markdown(const Results& r) {
  std::ostringstream md;
  auto est = [](const Estimate& e, int prec) { return fmt(e.mean, prec) + " ± " + fmt(e.uncertainty, prec); };
  md << "# Hopper units: " << r.gpu_name << "\n\n"
     << "`" << r.command << "` on " << r.date << ", commit " << (r.commit.empty() ? "unknown" : r.commit)
     << ". SM clock (NVML) " << clock_text(r.units_clock_before) << " MHz before the stage, "
     << clock_text(r.units_clock_after) << " MHz after; driver " << r.driver << ". " << r.repetitions
     << " repetitions per point (mean ± s/√n); whole-GPU rates over " << sizes::kUnitLaunches
     << " launches (CUDA events). Rows: ubench/tensor.def and ubench/registry.cpp; method: docs/microbenchmarks.md.\n\n";
  if (!r.units_skipped.empty()) md << "**Not run:** " << r.units_skipped << "\n\n";
  // Tensor cores: one line per (op, type).
  md << "## Tensor cores\n\n"
     << "ops = 2 x M x N x K (FLOP for FP16/BF16/TF32/FP8, integer ops for INT8; sparse rows at their dense shape). "
        "Per SM: %clock64, 1 block per SM on every SM, the best warp count; per GPU: CUDA events; spec: the GPU's "
        "spec sheet (ubench/gpu_specs.cpp), dense = half the sheet's sparse figure.\n\n"
     << "| op | type | latency [cycles] | ops/clk/SM | spec/clk/SM | of spec (clock) | Tops/s (GPU) | spec Tops/s | "
        "of spec | warps | SASS |\n|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& s : r.units) {
    if (s.section != "tensor_cores" || s.latency) continue;
    const auto dot = s.result.find('.');
    const UnitSeries* lat = r.find_unit(s.section, s.result, true);
    const UnitPoint* b = s.best();
    md << "| " << s.result.substr(0, dot) << " | " << s.result.substr(dot + 1) << " | "
       << (lat && !lat->points.empty() ? est(lat->points.front().value, 2) : "not measured") << " | "
       << (b ? est(b->value, 1) : "not measured") << " | " << fmt(s.spec_per_clk_sm, 0) << " | "
       << (b && s.spec_per_clk_sm > 0 ? fmt(b->value.mean / s.spec_per_clk_sm, 3) : "n/a") << " | "
       << (b && b->per_second ? fmt(b->per_second->mean * 1e-12, 1) : "n/a") << " | "
       << (s.spec_per_second ? fmt(*s.spec_per_second * 1e-12, 1) : "n/a") << " | "
       << (b && b->per_second && s.spec_per_second ? fmt(b->per_second->mean / *s.spec_per_second, 3) : "n/a")
       << " | " << (b ? std::to_string(b->warps) : "-") << " | " << s.sass
       << (lat && lat->sass != s.sass ? " (latency: " + lat->sass + ")" : "") << " |\n";
  }
  const LibraryGemmResult& g = r.library_gemm;
  md << "\n## Library GEMM (cuBLASLt) beside wgmma FP16\n\n";
  if (!g.measured) {
    md << "Not measured" << (g.why_not.empty() ? "" : ": " + g.why_not) << ".\n";
  } else {
    md << g.description << "; " << g.library << ".\n\n| m = n = k | Tops/s | algorithms timed |\n|---|---|---|\n";
    double best = 0;
    for (const auto& p : g.sizes) {
      best = std::max(best, p.tera_ops_per_second.mean);
      md << "| " << p.size << " | " << est(p.tera_ops_per_second, 1) << " | " << p.algorithms_timed << " |\n";
    }
    const UnitSeries* w = r.find_unit("tensor_cores", "wgmma.f16", false);
    const UnitPoint* wb = w ? w->best() : nullptr;
    md << "\nwgmma FP16 (m64n256k16, no loads) / best cuBLASLt: "
       << (wb && wb->per_second && best > 0 ? fmt(wb->per_second->mean * 1e-12 / best, 3) : "n/a")
       << " (>= 0.9: the microbenchmark is within 10 % of the library's best)";
    if (g.spec_tera_ops) md << "; cuBLASLt at " << fmt(best / *g.spec_tera_ops, 3) << " of the spec sheet";
    md << ".\n";
  }
  // Copies: TMA and the async copies.
  auto copy_table = [&](const std::string& section, const std::string& title) {
    md << "\n## " << title << "\n\n| copy | latency [cycles] | bytes/clk/SM | GB/s (GPU) | of DRAM spec | SASS |\n"
       << "|---|---|---|---|---|---|\n";
    std::vector<std::string> seen;
    for (const auto& s : r.units) {
      if (s.section != section || std::find(seen.begin(), seen.end(), s.result) != seen.end()) continue;
      seen.push_back(s.result);
      const UnitSeries* lat = r.find_unit(section, s.result, true);
      const UnitSeries* bw = r.find_unit(section, s.result, false);
      const UnitPoint* b = bw ? bw->best() : nullptr;
      md << "| " << s.result << " | " << (lat && !lat->points.empty() ? est(lat->points.front().value, 1) : "not measured")
         << " | " << (b ? est(b->value, 2) : "not measured") << " | "
         << (b && b->per_second ? fmt(b->per_second->mean * 1e-9, 0) : "n/a") << " | "
         << (b && b->per_second && bw->spec_per_second ? fmt(b->per_second->mean / *bw->spec_per_second, 3) : "n/a")
         << " | " << (lat ? lat->sass : "") << (bw && lat ? ", " : "") << (bw ? bw->sass : "") << " |\n";
    }
  };
  copy_table("tma", "TMA (cp.async.bulk.tensor): 1D boxes of 1 KiB, 2D boxes of 16 KiB");
  copy_table("async_copy", "Async copies: cp.async (LDGSTS, 16 B per lane) and cp.async.bulk (16 KiB)");
  // Clusters: one line per cluster size.
  md << "\n## Clusters: distributed shared memory and the cluster barrier\n\n"
     << "| blocks per cluster | DSMEM load latency [cycles] | DSMEM read [B/clk/SM] | DSMEM read [GB/s, GPU] | "
        "barrier, 1 warp [cycles] | relaxed, 1 warp | barrier, 32 warps | relaxed, 32 warps |\n"
        "|---|---|---|---|---|---|---|---|\n";
  auto cell = [&](const std::string& result, bool latency, int c) -> std::string {
    const UnitSeries* s = r.find_unit("cluster", result, latency);
    if (!s) return "not measured";
    const UnitPoint* p = s->best(c);
    if (!p) return "not measured";
    return latency ? est(p->value, 1) : est(p->value, 1) + " (" + std::to_string(p->warps) + " warps)";
  };
  for (int c : {2, 4, 8, 16}) {
    const UnitSeries* read = r.find_unit("cluster", "dsmem_read", false);
    const UnitPoint* rp = read ? read->best(c) : nullptr;
    md << "| " << c << " | " << cell("dsmem_load", true, c) << " | " << cell("dsmem_read", false, c) << " | "
       << (rp && rp->per_second ? fmt(rp->per_second->mean * 1e-9, 0) : "n/a") << " | " << cell("barrier", true, c)
       << " | " << cell("barrier_relaxed", true, c) << " | " << cell("barrier_32_warps", true, c) << " | "
       << cell("barrier_relaxed_32_warps", true, c) << " |\n";
  }
  if (!r.cluster_occupancy.empty()) {
    md << "\nClusters resident at once with one block per SM (cudaOccupancyMaxActiveClusters), by blocks per cluster:";
    for (const auto& [size, clusters] : r.cluster_occupancy) md << " " << size << ": " << clusters << ";";
    if (const auto layout = gpc_layout_from_cluster_occupancy(r.sm_count, r.cluster_occupancy)) {
      md << " the GPC layout they imply (SMs per GPC):";
      for (int sms : *layout) md << " " << sms;
      md << ".\n";
    } else {
      md << " no GPC layout reproduces them.\n";
    }
  }
  md << "\n## SASS check\n\n| benchmark | verdict | detail |\n|---|---|---|\n";
  if (!r.sass_checked) md << "| all | unchecked | " << r.sass_source << " |\n";
  for (const auto& v : r.verdicts)
    if (is_tensor_stage(v.benchmark))
      md << "| " << v.benchmark << " | " << (v.valid ? "valid" : "INVALID") << " | " << v.reason << " |\n";
  if (!r.warnings.empty()) {
    md << "\n## Warnings\n\n";
    for (const auto& w : r.warnings) md << "- " << w << "\n";
  }
  return md.str();
}

std::string write_markdown(const Results& r) {
  const Headline h = headline(r);
  const double mhz = r.sm_clock_mhz;
  std::ostringstream md;
  md << "# Microbenchmarks: " << r.gpu_name << "\n\n"
     << "`" << r.command << "` on " << r.date << ", commit " << (r.commit.empty() ? "unknown" : r.commit)
     << ". SM clock (NVML) " << clock_text(r.clock_before) << " MHz before, " << clock_text(r.clock_after)
     << " MHz after; driver " << r.driver << ", CUDA runtime " << r.runtime_version << ". " << r.repetitions
     << " repetitions per point; wall time " << fmt(r.seconds, 1) << " s.\n\n"
     << "Per-operation latency in SM cycles (long dependent chains, %clock64 read cost subtracted), mean ± GUM "
        "type-A uncertainty (s/√n), laid out like thesis tables 4.3/4.4, with the thesis's K40 values beside.\n\n"
     << "| micro-benchmark | 1 warp [cycles] | 32 warps [cycles] | 1 warp [ns] | K40 1 warp | K40 32 warps | SASS check |\n"
     << "|---|---|---|---|---|---|---|\n";
  for (const auto& row : latency_report_rows()) {
    const auto* s = r.find_latency(row.result);
    const auto* bad = invalid_result(r, row.result);
    const std::string st = s ? s->sass : bad ? "INVALID" : "n/a";
    if (!s || s->by_warps.empty()) {
      md << "| " << row.result << " | not measured | not measured | | " << row.k40_1_warp << " | " << row.k40_32_warps
         << " | " << st;
      if (bad) md << ": " << bad->reason;
      md << " |\n";
      continue;
    }
    const auto a = s->at(1), b = s->at(32);
    auto cell = [](const std::optional<Estimate>& e) { return e ? fmt(e->mean) + " ± " + fmt(e->uncertainty) : std::string("-"); };
    md << "| " << row.result << " | " << cell(a) << " | " << cell(b) << " | " << (a ? fmt(a->mean / mhz * 1e3) : "-")
       << " | " << row.k40_1_warp << " | " << row.k40_32_warps << " | " << st << " |\n";
  }
  md << "\nshared_store / global_store: the store's latency as the extra time a store adds to a dependent "
        "round trip, i.e. (chain of `st [p], p; ld p, [p]`) minus (the same chain without the store, the "
        "`_selfload` row; global: ld.global.cg, so both reach L2); the thesis's K40 rows time a lone store "
        "(its issue), so they are not the same quantity.\n";
  md << "\nclock64 is the read cost subtracted from every other row; clock_register and clock_function are the "
        "thesis's listings 4.1/4.2 (raw, nothing subtracted). The thesis's register row (listing 4.3, K40 13 / 13 "
        "cycles) has no counterpart: ptxas deletes every chain of register moves (ubench.def). local_load: a "
        "pointer chase through a per-thread local array (LDL, L1 hits); global_atomic: a chain of "
        "atom.global.add on one word, one lane.\n\n";
  const MemoryLevels& m = r.memory;
  md << "## Latency by level\n\n| quantity | cycles | ns | note |\n|---|---|---|---|\n"
     << "| L1 hit (direct, 16 KiB, ca) | " << fmt(h.l1_hit) << " | " << fmt(h.l1_hit / mhz * 1e3) << " | pointer chase |\n"
     << "| L1 hit (thesis eq 4.27) | " << fmt(h.l1_eq427) << " | | (shared + register)/2, FADD as register |\n"
     << "| L2 hit (direct, 4 MiB, cg) | " << fmt(h.l2_hit) << " | " << fmt(h.l2_hit / mhz * 1e3) << " | near/far mix |\n"
     << "| L2 hit (thesis eq 4.28) | " << fmt(h.l2_eq428) << " | | (global + L1 eq 4.27)/2 |\n"
     << "| DRAM (512 MiB) | " << fmt(h.dram) << " ± " << fmt(h.dram_u) << " | " << fmt(h.dram / mhz * 1e3) << " | |\n"
     << "| DRAM (4 GiB, TLB missing) | " << fmt(h.dram_tlb) << " | " << fmt(h.dram_tlb / mhz * 1e3) << " | |\n"
     << "| L1 capacity detected | " << (std::isfinite(m.l1_capacity_bytes) ? fmt_bytes(m.l1_capacity_bytes) : "n/a")
     << " | | ca curve; carveout set explicitly: cudaFuncAttributePreferredSharedMemoryCarveout = "
     << m.carveout_percent << " % (the largest L1) |\n"
     << "| L2 capacity detected | " << (std::isfinite(m.l2_capacity_bytes) ? fmt_bytes(m.l2_capacity_bytes) : "n/a")
     << " | | runtime says " << fmt_bytes(double(r.l2_cache_bytes)) << " |\n";
  for (const auto& c : m.carveout_check)
    md << "| " << (c.op == "ca" ? "L1 hit (16 KiB, ca)" : "L2 hit (4 MiB, cg)") << ", carveout "
       << (c.carveout_percent < 0 ? std::string("driver default") : std::to_string(c.carveout_percent) + " %") << " | "
       << fmt(c.latency.mean) << " ± " << fmt(c.latency.uncertainty) << " | | carveout check |\n";
  md << "\n";
  if (r.near_far.measured) {
    const NearFarL2& nf = r.near_far;
    auto g = [](const std::optional<Spread>& s, double Spread::*field) { return s ? fmt((*s).*field) : std::string("n/a"); };
    md << "## Near and far L2 (per-load latency, one warp on each SM)\n\n"
       << "4 MiB ld.global.cg chase, 2048 loads per SM each timed on its own, the same lines from each of "
       << nf.per_sm.size() << " SMs; 2-means on the pooled loads (slowest 1 % above "
       << fmt(nf.dropped_above_cycles, 0) << " cycles left out), split at " << fmt(nf.threshold_cycles, 1)
       << " cycles.\n\n"
       << "| plateau | mean ± u [cycles] | median | stddev | share of loads | ns |\n|---|---|---|---|---|---|\n"
       << "| near L2 | " << fmt(nf.near.estimate.mean) << " ± " << fmt(nf.near.estimate.uncertainty) << " | "
       << fmt(nf.near.median, 0) << " | " << fmt(nf.near.estimate.stddev) << " | " << fmt(nf.near_fraction_pooled, 3)
       << " | " << fmt(nf.near.estimate.mean / mhz * 1e3) << " |\n"
       << "| far L2 | " << fmt(nf.far.estimate.mean) << " ± " << fmt(nf.far.estimate.uncertainty) << " | "
       << fmt(nf.far.median, 0) << " | " << fmt(nf.far.estimate.stddev) << " | " << fmt(1 - nf.near_fraction_pooled, 3)
       << " | " << fmt(nf.far.estimate.mean / mhz * 1e3) << " |\n\n"
       << "| over the SMs | min | median | max |\n|---|---|---|---|\n"
       << "| per-SM mean [cycles] | " << g(nf.per_sm_mean, &Spread::min) << " | " << g(nf.per_sm_mean, &Spread::median)
       << " | " << g(nf.per_sm_mean, &Spread::max) << " |\n"
       << "| per-SM near mean [cycles] | " << g(nf.per_sm_near_mean, &Spread::min) << " | "
       << g(nf.per_sm_near_mean, &Spread::median) << " | " << g(nf.per_sm_near_mean, &Spread::max) << " |\n"
       << "| per-SM far mean [cycles] | " << g(nf.per_sm_far_mean, &Spread::min) << " | "
       << g(nf.per_sm_far_mean, &Spread::median) << " | " << g(nf.per_sm_far_mean, &Spread::max) << " |\n\n"
       << "Raw per-SM values (mean, median, near share, near and far means) and the pooled 4-cycle histogram: "
          "`ubench.csv`, benchmark `l2_near_far`.\n\n";
  }
  const DepartureFit* dc = nullptr;
  const DepartureFit* du = nullptr;
  const DepartureFit* ds = nullptr;
  for (const auto& d : r.departure)
    (d.name == "departure_coalesced" ? dc : d.name == "departure_uncoalesced" ? du : ds) = &d;
  const auto delta_text = [](const DepartureFit* d) {
    return d ? fmt(d->delta_cycles, 3) + " ± " + fmt(d->u_cycles, 3) : std::string("-");
  };
  md << "## Departure delay\n\nCoalesced: one line per warp at a scrambled place; sequential: one line per warp, "
        "the warps' lines consecutive; uncoalesced: 32 scrambled lines per warp.\n\n"
     << "| method | coalesced [cycles] | uncoalesced [cycles] | sequential [cycles] |\n|---|---|---|---|\n"
     << "| thesis eq 4.25 over the 1..32-warp global-load series | " << fmt(h.eq425_coalesced, 3) << " | "
     << fmt(h.eq425_uncoalesced, 3) << " | - |\n";
  if (dc && du)
    md << "| direct: completion-time slope, one load per warp, 1..32 warps | " << delta_text(dc) << " | "
       << delta_text(du) << " | " << delta_text(ds) << " |\n";
  md << "| K40 (thesis table 4.3) | 3 | - | - |\n\n";
  const auto* sc = r.find_latency("departure_coalesced");
  const auto* su = r.find_latency("departure_uncoalesced");
  if (dc && sc && su && sc->by_warps.size() >= 32 && su->by_warps.size() >= 32 && sc->medians.size() >= 32 &&
      su->medians.size() >= 32)
    md << "Completion time of one load per warp (" << dc->repetitions << " repetitions per point), mean ± u and median: "
       << "coalesced 1 warp " << fmt(sc->by_warps[0].mean) << " ± " << fmt(sc->by_warps[0].uncertainty) << " (median "
       << fmt(sc->medians[0]) << "), 32 warps " << fmt(sc->by_warps[31].mean) << " ± " << fmt(sc->by_warps[31].uncertainty)
       << " (median " << fmt(sc->medians[31]) << "); uncoalesced 1 warp " << fmt(su->by_warps[0].mean) << " ± "
       << fmt(su->by_warps[0].uncertainty) << " (median " << fmt(su->medians[0]) << "), 32 warps "
       << fmt(su->by_warps[31].mean) << " ± " << fmt(su->by_warps[31].uncertainty) << " (median " << fmt(su->medians[31])
       << ").\n\n";
  md << "## Bandwidth\n\n| kind | GB/s | fraction of spec | spec |\n|---|---|---|---|\n";
  for (const auto& b : r.bandwidth)
    md << "| " << b.kind << " | " << fmt(b.gbs.mean, 1) << " ± " << fmt(b.gbs.uncertainty, 1) << " | "
       << (b.spec_gbs ? fmt(b.gbs.mean / *b.spec_gbs, 3) : "n/a") << " | " << (b.spec_gbs ? fmt(*b.spec_gbs, 1) : "n/a")
       << " (" << b.spec_source << ") |\n";

  // One table per throughput group, in registry order.
  for (const auto& g : throughput_groups()) {
    std::vector<const RateSeries*> rows;
    for (const auto& s : r.rates)
      if (s.group == g.group && !s.by_warps.empty()) rows.push_back(&s);
    if (rows.empty()) continue;
    md << "\n## " << g.title << "\n\n";
    if (g.group == "alu_throughput") {
      md << "| op | ops/clk/SM | spec | fraction |\n|---|---|---|---|\n";
      for (const auto* s : rows) {
        const Estimate& e = s->by_warps.back();
        md << "| " << s->name << " | " << fmt(e.mean, 2) << " ± " << fmt(e.uncertainty, 2) << " | "
           << (s->spec_per_clk_sm > 0 ? fmt(s->spec_per_clk_sm, 0) : "n/a") << " | "
           << (s->spec_per_clk_sm > 0 ? fmt(e.mean / s->spec_per_clk_sm, 3) : "n/a") << " |\n";
      }
      continue;
    }
    md << "| benchmark | rate at 32 warps | unit | sectors | bytes | by warps per block | SASS check |\n"
       << "|---|---|---|---|---|---|---|\n";
    for (const auto* s : rows) {
      const Estimate& e = s->by_warps.back();
      std::string by;
      for (std::size_t i = 0; s->warps.size() > 1 && i < s->warps.size(); ++i)
        by += (i ? ", " : "") + std::to_string(s->warps[i]) + ": " + fmt(s->by_warps[i].mean, 3);
      const std::string per = s->per_sm ? "/clk/SM" : "/clk";
      md << "| " << s->name << " | " << fmt(e.mean, 3) << " ± " << fmt(e.uncertainty, 3) << " | " << s->unit << per
         << " | " << (s->sectors_per_unit > 0 ? fmt(e.mean * s->sectors_per_unit, 2) + per : "-") << " | "
         << (s->bytes_per_unit > 0 ? fmt(e.mean * s->bytes_per_unit, 1) + per : "-") << " | "
         << (by.empty() ? "-" : by) << " | " << s->sass << " |\n";
    }
  }
  if (r.barrier) {
    md << "\n## Barriers (`bar.sync 0`, one block of k warps)\n\n| warps | cycles per barrier |\n|---|---|\n";
    for (std::size_t i = 0; i < r.barrier->warps.size(); ++i)
      md << "| " << r.barrier->warps[i] << " | " << fmt(r.barrier->by_warps[i].mean) << " ± "
         << fmt(r.barrier->by_warps[i].uncertainty) << " |\n";
  }
  if (r.launch.measured) {
    const LaunchResult& l = r.launch;
    md << "\n## Launch overhead (CUDA events, empty kernel)\n\n| quantity | value | note |\n|---|---|---|\n"
       << "| one launch, 1 block | " << fmt(l.empty_kernel_us, 2) << " us | median |\n"
       << "| back to back, per launch | " << fmt(l.back_to_back_us, 3) << " us | 1000 launches between two events |\n"
       << "| block dispatch | " << fmt(l.block_dispatch_cycles, 1) << " ± " << fmt(l.block_dispatch_u, 1)
       << " cycles per block per SM | slope over grids of 1..64 x " << l.sm_count << " blocks of 32 threads |\n"
       << "| one wave | " << fmt(l.wave_cycles, 1) << " ± " << fmt(l.wave_u, 1)
       << " cycles | slope with one block per SM forced (" << l.one_block_per_sm_shared_bytes
       << " B dynamic shared memory): the intercept (launch) left out |\n";
  }
  md << "\n## SASS check\n\n| benchmark | verdict | detail |\n|---|---|---|\n";
  if (!r.sass_checked) md << "| all | unchecked | " << r.sass_source << " |\n";
  for (const auto& v : r.verdicts)
    if (!is_tensor_stage(v.benchmark))
      md << "| " << v.benchmark << " | " << (v.valid ? "valid" : "INVALID") << " | " << v.reason << " |\n";
  if (!r.warnings.empty()) {
    md << "\n## Warnings\n\n";
    for (const auto& w : r.warnings) md << "- " << w << "\n";
  }
  return md.str();
}

}  // namespace warpmodel::ubench
