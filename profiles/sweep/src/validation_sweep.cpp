#include "warpmodel/sweep/validation_sweep.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <optional>
#include <stdexcept>

#include "warpmodel/adi/gpu_solver.hpp"
#include "warpmodel/adi/state.hpp"
#include "warpmodel/corpus/corpus.hpp"
#include "warpmodel/corpus/workload.hpp"
#include "warpmodel/cupti/profiler.hpp"
#include "warpmodel/cupti/workload_factory.hpp"
#include "warpmodel/json_io.hpp"
#include "warpmodel/sass/merge.hpp"
#include "warpmodel/sass/tools.hpp"
#include "warpmodel/stencils/acoustic.hpp"
#include "warpmodel/stencils/gpu/propagator.hpp"
#include "warpmodel/stencils/launch_plan.hpp"
#include "warpmodel/support/cuda.hpp"
#ifdef WARPMODEL_SWEEP_HAS_FWI
#include "warpmodel/fwi/gpu/device_fwi.hpp"
#include "warpmodel/fwi/inversion.hpp"
#endif

namespace warpmodel::sweep {
namespace {

namespace st = warpmodel::stencils;
using nlohmann::json;

// One launch of something that already exists on the device, as a CUPTI workload.
class LaunchWorkload : public cupti::Workload {
 public:
  LaunchWorkload(std::string description, std::vector<std::string> labels, std::function<void(std::size_t)> launch,
                 std::function<void()> restore)
      : description_(std::move(description)), labels_(std::move(labels)), launch_(std::move(launch)),
        restore_(std::move(restore)) {}
  std::string description() const override { return description_; }
  void setup() override {}
  std::size_t launch_count() const override { return labels_.size(); }
  std::string launch_label(std::size_t i) const override { return labels_.at(i); }
  void launch(std::size_t i) override { launch_(i); }
  void restore_inputs() override {
    if (restore_) restore_();
  }

 private:
  std::string description_;
  std::vector<std::string> labels_;
  std::function<void(std::size_t)> launch_;
  std::function<void()> restore_;
};

struct Context {
  const SweepPlan& plan;
  std::string binary;
  sass::BinaryAnalysis statics;
  cupti::MetricPlan metrics;
  const std::function<void(const std::string&)>& log;
  json cases = json::array();
  std::vector<std::string> skipped;
  cupti::Provenance first_provenance;  // GPU, driver, CUDA of the first profile
  std::string gpu_name;
};

// Counters beyond the `model` set (which holds everything a model reads, the stall reasons
// of hopper H.1c among them), kept raw in each case: candidates for terms the model does not read yet
// (atomics and reductions, local memory, L2 sectors by operation, the FP64 and LSU pipes, the LSU's
// data wavefronts and input requests, active lanes). Some have joined the model set since; a name
// asked for twice is collected once.
const std::vector<std::string> kCandidateMetrics = {
    "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum",  "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum",
    "smsp__inst_executed_op_shared_atom.sum",            "l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum",     "l1tex__t_requests_pipe_lsu_mem_local_op_st.sum",
    "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum",     "lts__t_sectors_op_read.sum",
    "lts__t_sectors_op_write.sum",                       "lts__t_sectors_op_atom.sum",
    "lts__t_sectors_op_red.sum",                         "smsp__inst_executed_pipe_fp64.sum",
    "smsp__inst_executed_pipe_lsu.sum",                  "l1tex__data_pipe_lsu_wavefronts.sum",
    "l1tex__lsuin_requests.sum",                         "smsp__thread_inst_executed.sum",
    // The L2's sectors over its slices: the busiest against the total (a slice that every block
    // crowds onto), for terms beyond the atomics' H.15.
    "lts__t_sectors.sum",                                "lts__t_sectors.max",
};
std::vector<std::string> sweep_metrics() {
  std::vector<std::string> request{"model"};
  request.insert(request.end(), kCandidateMetrics.begin(), kCandidateMetrics.end());
  return request;
}

// The launch record as the kernel-profile merge reads it (profiles/sass merge.hpp).
sass::CounterLaunch counters_of(const cupti::LaunchRecord& r) {
  sass::CounterLaunch c;
  c.kernel = r.kernel;
  c.demangled = r.demangled;
  c.grid = {r.grid[0], r.grid[1], r.grid[2]};
  c.block = {r.block[0], r.block[1], r.block[2]};
  if (r.cluster) c.cluster = Dim3{(*r.cluster)[0], (*r.cluster)[1], (*r.cluster)[2]};
  c.registers_per_thread = r.registers_per_thread;
  c.shared_memory_per_block_bytes = static_cast<int>(r.shared_memory_per_block_bytes);
  c.duration_ns = r.duration_ns;
  for (const auto& [name, value] : r.metrics)
    if (std::isfinite(value)) c.metrics[name] = value;
  return c;
}

// Profiles the workload and appends one validation case per launch. `domain`, when given, is the
// thread space every launch covers: it becomes the profile's launch.domain, from which `sweep`
// re-derives the grid of other block shapes.
void measure(Context& cx, cupti::Workload& w, const std::vector<json>& labels,
             const std::optional<Dim3>& domain = std::nullopt) {
  cupti::ProfileOptions o;
  o.plan = cx.metrics;
  o.mode = cx.plan.cold_l2 ? cupti::RangeMode::User : cupti::RangeMode::Auto;  // user ranges: replay is the user's
  o.flush_l2_before_each_launch = cx.plan.cold_l2;
  o.timing_runs = cx.plan.timing_runs;
  const cupti::ProfileReport report = cupti::profile(w, o);
  if (cx.gpu_name.empty()) {
    cx.gpu_name = report.device.name;
    cx.first_provenance = report.provenance;
  }
  // NVML's SM clock around the profile; the runtime's maximum when NVML cannot say.
  const double clock = report.provenance.sm_clock_mhz > 0 && report.provenance.sm_clock_mhz_after > 0
                           ? 0.5 * (report.provenance.sm_clock_mhz + report.provenance.sm_clock_mhz_after)
                           : report.device.max_sm_clock_mhz;
  for (std::size_t i = 0; i < report.launches.size(); ++i) {
    const cupti::LaunchRecord& r = report.launches[i];
    const sass::KernelStatics& statics = sass::select_kernel(cx.statics.kernels, r.kernel, cx.binary);
    const sass::CounterLaunch counters = counters_of(r);
    sass::MergeInputs in;
    in.statics = &statics;
    in.binary = cx.binary;
    in.launch = &counters;
    in.counters_origin = "CUPTI (warpmodel validate --measure)";
    in.max_warps_per_sm = 64;  // sm_90
    KernelProfile profile = sass::make_kernel_profile(in);
    if (domain) {
      profile.launch.domain = *domain;
      profile.sources["launch.domain"] = "the corpus registry (profiles/corpus): one thread per point";
    }
    profile.name = labels[i]["kernel"].get<std::string>() + ", " + labels[i]["size"].get<std::string>() + ", " +
                   labels[i]["shape"].get<std::string>();
    json c = labels[i];
    c["duration_ns"] = r.duration_ns;
    c["sm_clock_mhz"] = clock;
    if (auto it = r.metrics.find("sm__cycles_elapsed.max"); it != r.metrics.end() && std::isfinite(it->second))
      c["sm_cycles_elapsed"] = it->second;
    c["profile"] = to_json(profile);
    c["counters"] = counters.metrics;  // raw, so that a later merge or model can be checked offline
    cx.cases.push_back(std::move(c));
  }
}

// The padding that holds `launch` at `target_blocks` resident blocks per SM, or -1 when the kernel
// cannot reach that many (registers, threads or its own shared memory allow fewer).
long long padding_for(st::StencilLaunch launch, int target_blocks) {
  launch.occupancy_padding_bytes = 0;
  const int natural = st::gpu::resident_blocks_per_sm(launch);
  if (natural < target_blocks) return -1;
  if (natural == target_blocks) return 0;
  // 228 KiB of shared memory per SM on sm_90, 1 KiB reserved per block: start near the answer and
  // walk in 256-byte steps (the allocation unit is 128 B).
  const long long own = static_cast<long long>(st::plan_block(launch, st::gpu::current_device_limits()).dynamic_shared_bytes);
  long long pad = std::max(0LL, 228LL * 1024 / target_blocks - 1024 - own - 2048);
  for (int guard = 0; guard < 200; ++guard) {
    launch.occupancy_padding_bytes = static_cast<std::size_t>(pad);
    int resident = 0;
    try {
      resident = st::gpu::resident_blocks_per_sm(launch);
    } catch (const std::exception&) {
      resident = 0;  // over the per-block maximum
    }
    if (resident == target_blocks) return pad;
    pad += resident > target_blocks ? 256 : -256;
    if (pad < 0) return -1;
  }
  return -1;
}

void stencil_sweep(Context& cx) {
  for (int n : cx.plan.stencil_sizes) {
    st::PropagationSetup setup;
    setup.grid = {static_cast<std::size_t>(n), static_cast<std::size_t>(n), static_cast<std::size_t>(n), 10.0};
    setup.order = 16;  // dt from the strictest order, so every order is stable on the same grid
    setup.source_i = setup.source_j = setup.source_k = static_cast<std::size_t>(n / 2);
    const auto velocity = st::two_layer_velocity(setup.grid);
    st::StencilLaunch first;
    first.order = 16;
    first.nx = first.ny = first.nz = static_cast<std::size_t>(n);
    st::gpu::DevicePropagator prop(setup, velocity, first);
    prop.set_fields(st::random_field(setup.grid, 16, 1), st::random_field(setup.grid, 16, 2));
    const std::string size = std::to_string(n) + "^3";
    for (int order : cx.plan.orders) {
      for (const std::string& variant : cx.plan.variants) {
        for (const StencilShape& shape : cx.plan.shapes) {
          for (int warps : cx.plan.warps_per_sm) {
            st::StencilLaunch l;
            l.order = order;
            l.variant = st::parse_variant(variant);
            l.block = {shape.x, shape.y, 1};
            l.nx = l.ny = l.nz = static_cast<std::size_t>(n);
            const std::string shape_name = st::to_string(l.block) + " @" + std::to_string(warps) + " warps/SM";
            const std::string what = "stencil " + variant + " order " + std::to_string(order) + ", " + size + ", " + shape_name;
            const int warps_per_block = static_cast<int>(l.block.volume() / 32);
            if (warps % warps_per_block != 0) {
              cx.skipped.push_back(what + ": " + std::to_string(warps) + " warps is not a whole number of blocks");
              continue;
            }
            long long pad = -1;
            try {
              pad = padding_for(l, warps / warps_per_block);
            } catch (const std::exception& e) {
              cx.skipped.push_back(what + ": " + e.what());
              continue;
            }
            if (pad < 0) {
              cx.skipped.push_back(what + ": the kernel cannot hold that many warps per SM");
              continue;
            }
            l.occupancy_padding_bytes = static_cast<std::size_t>(pad);
            prop.relaunch(l);
            LaunchWorkload w("stencil " + what, {variant + " order " + std::to_string(order)},
                             [&prop](std::size_t) { prop.step(); }, {});
            json label = {{"family", "stencil"},
                          {"kernel", variant + " order " + std::to_string(order)},
                          {"size", size},
                          {"shape", shape_name},
                          {"warps_per_sm", warps},
                          {"occupancy_padding_bytes", pad}};
            measure(cx, w, {label});
            cx.log(what + ": measured");
          }
        }
      }
    }
  }
}

void adi_sweep(Context& cx) {
  for (int n : cx.plan.adi_sizes) {
    const adi::State<double> initial = adi::make_hump_state(n, n);
    for (const std::string& precision : cx.plan.adi_precisions) {
      for (const std::string& variant : cx.plan.adi_variants) {
        adi::SolverConfig config;
        const auto slash = variant.find('/');
        config.variant = *adi::parse_variant(variant.substr(0, slash));
        if (slash != std::string::npos) config.block_solver = *adi::parse_block_solver(variant.substr(slash + 1));
        config.precision = *adi::parse_precision(precision);
        config.n = n;
        const std::string what = "adi " + variant + " " + precision + " " + std::to_string(n) + "^2";
        if (const std::string why = adi::validate(config); !why.empty()) {
          cx.skipped.push_back(what + ": " + why);
          continue;
        }
        adi::GpuSolver solver(config);
        solver.upload(initial);
        const std::vector<std::string>& sequence = solver.kernel_sequence();
        std::vector<json> labels;
        for (const auto& k : sequence)
          labels.push_back({{"family", "adi"},
                            {"kernel", k + " " + precision},
                            {"size", std::to_string(n) + "^2"},
                            {"shape", adi::variant_label(config)}});
        LaunchWorkload w(what, sequence, [&](std::size_t i) { solver.launch(sequence.at(i)); },
                         [&] { solver.upload(initial); });
        measure(cx, w, labels);
        cx.log(what + ": measured " + std::to_string(sequence.size()) + " kernels");
      }
    }
  }
}

// Each FWI variant's distinct kernels of one gradient evaluation (the step kernels at step nt / 2,
// DeviceFwi::record_launches), at each size; a kernel several variants share (Residual, the update's)
// is measured once per size. One variant's arrays alive at a time (two films at 8192 x 256 are 10 GB).
void fwi_sweep(Context& cx) {
#ifdef WARPMODEL_SWEEP_HAS_FWI
  for (const std::string& size_text : cx.plan.fwi_sizes) {
    const std::vector<long long> size = cupti::parse_extent(size_text, "fwi size");
    fwi::Experiment s;
    s.grid = {static_cast<int>(size[0]), static_cast<int>(size[1]), 25.0};
    s.acquisition = fwi::surface_acquisition(s.grid, s.cpml.width, 5, 2);
    const std::vector<double> truth = fwi::layered_model(s.grid, s.cpml);
    const std::vector<double> start = fwi::smoothed(s.grid, truth, 4);
    const std::vector<float> truth_f(truth.begin(), truth.end()), start_f(start.begin(), start.end());
    std::vector<std::vector<float>> observed;
    std::vector<std::string> measured;
    for (const std::string& name : cx.plan.fwi_variants) {
      const auto v = fwi::parse_gpu_variant(name);
      const std::string what = "fwi " + name + " " + size_text;
      if (!v) {
        cx.skipped.push_back(what + ": not a variant");
        continue;
      }
      const fwi::GpuVariantInfo& info = fwi::gpu_variant_info(*v);
      fwi::gpu::DeviceFwi f(s, *v);
      if (observed.empty()) observed = f.model_data(truth_f);
      const std::vector<fwi::gpu::RecordedLaunch> recorded = f.record_launches(start_f, observed);
      std::vector<std::size_t> fresh;
      std::vector<std::string> names;
      std::vector<json> labels;
      for (std::size_t i = 0; i < recorded.size(); ++i) {
        if (std::find(measured.begin(), measured.end(), recorded[i].name) != measured.end()) continue;
        measured.push_back(recorded[i].name);
        fresh.push_back(i);
        names.push_back(recorded[i].name);
        labels.push_back({{"family", "fwi"},
                          {"kernel", recorded[i].name},
                          {"size", size_text},
                          {"shape", "as launched by " + name + " (step kernels " + std::to_string(info.block_x) + "x" +
                                        std::to_string(info.block_y) + ")"}});
      }
      if (fresh.empty()) continue;
      LaunchWorkload w(what, names, [&](std::size_t i) { f.replay(fresh.at(i)); }, {});
      measure(cx, w, labels);
      cx.log(what + ": measured " + std::to_string(fresh.size()) + " kernels");
    }
  }
#else
  if (!cx.plan.fwi_sizes.empty()) cx.skipped.push_back("fwi: this build has no FWI GPU library");
#endif
}

// Every corpus kernel x size x declared shape (profiles/corpus), one workload alive at a time. A
// case whose outputs are wrong after profiling is not kept; it goes to `skipped` with the verdict,
// as does one that cannot launch or fails on the device. Missing GPU or profiling permission
// still ends the sweep.
void corpus_sweep(Context& cx) {
  if (!cx.plan.corpus) return;
  std::string list;
  for (const auto& name : cx.plan.corpus_kernels) list += (list.empty() ? "" : ",") + name;
  const std::vector<const corpus::KernelDecl*> kernels = corpus::select_kernels(list.empty() ? "all" : list);
  auto first = [](std::size_t all, std::size_t limit) { return limit == 0 ? all : std::min(all, limit); };
  std::size_t measured = 0, failed = 0;
  std::vector<std::string> wrong;
  for (const corpus::KernelDecl* k : kernels) {
    for (std::size_t si = 0; si < first(k->sizes.size(), cx.plan.corpus_sizes); ++si) {
      for (std::size_t hi = 0; hi < first(k->shapes.size(), cx.plan.corpus_shapes); ++hi) {
        const corpus::Size& size = k->sizes[si];
        const corpus::Shape shape = k->shapes[hi];
        const std::string what = "corpus " + k->name + ", " + size.label + ", " + shape.label();
        const std::size_t before = cx.cases.size();
        // Drops what measure() appended for this configuration (it is not kept unverified).
        auto drop = [&] { cx.cases.erase(cx.cases.begin() + static_cast<std::ptrdiff_t>(before), cx.cases.end()); };
        try {
          const auto w = corpus::make_corpus_workload(*k, size, shape);
          const json label = {{"family", "corpus"},
                              {"class", k->klass},
                              {"kernel", k->name},
                              {"size", size.label},
                              {"shape", shape.label()}};
          measure(cx, *w, {label}, corpus::domain(*k, size));
          if (const std::string verdict = w->verify(); !verdict.empty()) {
            drop();
            cx.skipped.push_back(what + ": outputs wrong, not kept: " + verdict);
            cx.log(what + ": OUTPUTS WRONG, not kept: " + verdict);
            wrong.push_back(what);
            continue;
          }
          ++measured;
          cx.log(what + ": measured");
        } catch (const support::cuda::NoGpuError&) {
          throw;
        } catch (const cupti::PermissionError&) {
          throw;
        } catch (const cupti::OtherClientError&) {
          throw;
        } catch (const std::exception& e) {
          drop();
          cx.skipped.push_back(what + ": failed, not measured: " + e.what());
          cx.log(what + ": FAILED, not measured: " + e.what());
          ++failed;
        }
      }
    }
  }
  cx.log("corpus: " + std::to_string(measured) + " launches measured, " + std::to_string(wrong.size()) +
         " with wrong outputs, " + std::to_string(failed) + " failed (all listed under skipped)");
  for (const auto& w : wrong) cx.log("corpus: outputs wrong, not kept: " + w);
}

// The commit the program was built from: WARPMODEL_GIT_COMMIT when the caller sets it (a copied
// tree's git metadata can be stale, as on a GPU machine it was copied to), else the one configured at build time.
std::string commit_of_sources() {
  const char* env = std::getenv("WARPMODEL_GIT_COMMIT");
  return env && *env ? std::string(env) : cupti::configured_commit();
}

}  // namespace

SweepOutcome run_validation_sweep(const SweepPlan& plan, const std::string& binary, const std::string& command,
                                  const std::function<void(const std::string&)>& log) {
  const auto t0 = std::chrono::steady_clock::now();
  // The GPU and the profiling permission first: a machine without either learns it at once.
  const cupti::ChipMetrics chip = cupti::ChipMetrics::for_device(0);
  Context cx{plan, binary, sass::analyse_binary(binary), {}, log, json::array(), {}, {}, {}};
  cx.metrics = chip.resolve(sweep_metrics());
  log("static analysis of " + binary + ": " + std::to_string(cx.statics.kernels.size()) + " kernels; metrics: " +
      std::to_string(cx.metrics.collect.size()));
  stencil_sweep(cx);
  adi_sweep(cx);
  fwi_sweep(cx);
  corpus_sweep(cx);

  SweepOutcome out;
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::time_t now = std::time(nullptr);
  char date[64];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  json skipped = json::array();
  for (const auto& s : cx.skipped) skipped.push_back(s);
  out.measurements = {{"schema", kValidationSchema},
                      {"provenance",
                       {{"gpu", cx.gpu_name},
                        {"chip", chip.chip()},
                        {"driver", cx.first_provenance.driver},
                        {"cuda", cx.first_provenance.cuda},
                        {"date", date},
                        {"command", command},
                        {"commit", commit_of_sources()},
                        {"binary", binary},
                        {"metrics", std::string("CUPTI Range Profiler (") +
                                        (plan.cold_l2 ? "user range, user replay, L2 written back and emptied before every launch"
                                                      : "auto range, kernel replay") +
                                        "): model set (the stall reasons among them) + profiles/sweep kCandidateMetrics (raw in each case's counters)"},
                        {"duration", std::string("CUPTI Activity API, median of the timed runs") +
                                         (plan.cold_l2 ? ", L2 written back and emptied before every launch" : "")},
                        {"l2_before_each_launch", plan.cold_l2 ? kL2Cold : kL2Warm},
                        {"sm_clock_mhz", "NVML, mean of before and after each configuration's profile"},
                        {"wall_seconds", out.seconds}}},
                      {"cases", cx.cases},
                      {"skipped", skipped}};
  out.skipped = cx.skipped;
  return out;
}

bool measured_cold(const json& measurements) {
  const json::json_pointer at("/provenance/l2_before_each_launch");
  return measurements.contains(at) && measurements.at(at).is_string() && measurements.at(at).get<std::string>() == kL2Cold;
}

json merge_measurements(const json& earlier, const json& fresh, const std::vector<std::string>& families,
                        const std::vector<std::string>& corpus_kernels) {
  // The fresh run's record says what it measured; a case it measured (run_measured, the rule validate
  // reads the records by) replaces the earlier file's: a family measured anew, and of the corpus, where
  // only some kernels were measured, only those kernels' cases.
  json fresh_run = {{"families_measured", families}};
  if (!corpus_kernels.empty()) fresh_run["corpus_kernels_measured"] = corpus_kernels;
  auto replaced = [&](const std::string& family, const std::string& kernel) { return run_measured(fresh_run, family, kernel); };
  json merged = fresh;
  json cases = json::array();
  std::vector<std::string> kept_families;
  if (earlier.contains("cases") && earlier.at("cases").is_array())
    for (const auto& c : earlier.at("cases")) {
      const std::string f = c.contains("family") && c.at("family").is_string() ? c.at("family").get<std::string>() : "";
      const std::string k = c.contains("kernel") && c.at("kernel").is_string() ? c.at("kernel").get<std::string>() : "";
      if (!replaced(f, k)) {
        cases.push_back(c);
        if (std::find(kept_families.begin(), kept_families.end(), f) == kept_families.end()) kept_families.push_back(f);
      }
    }
  for (const auto& c : fresh.at("cases")) cases.push_back(c);
  merged["cases"] = cases;
  json skipped = fresh.contains("skipped") ? fresh.at("skipped") : json::array();
  if (earlier.contains("skipped") && earlier.at("skipped").is_array())
    for (const auto& s : earlier.at("skipped")) {
      // Each entry starts with its family and, for the corpus, its kernel ("corpus NAME, SIZE, ...").
      if (!s.is_string()) continue;
      const std::string text = s.get<std::string>();
      const std::string family = text.substr(0, text.find(' '));
      const std::string rest = text.size() > family.size() ? text.substr(family.size() + 1) : "";
      if (!replaced(family, rest.substr(0, rest.find_first_of(", :")))) skipped.push_back(s);
    }
  merged["skipped"] = skipped;
  json parts = json::array();
  if (earlier.contains("provenance") && earlier.at("provenance").is_object()) {
    json earlier_provenance = earlier.at("provenance");
    json older = earlier_provenance.contains("earlier_parts") ? earlier_provenance.at("earlier_parts") : json::array();
    earlier_provenance.erase("earlier_parts");
    earlier_provenance["families_kept"] = kept_families;
    parts.push_back(earlier_provenance);
    for (const auto& p : older) parts.push_back(p);
  }
  merged["provenance"].update(fresh_run);
  merged["provenance"]["earlier_parts"] = parts;
  return merged;
}

}  // namespace warpmodel::sweep
