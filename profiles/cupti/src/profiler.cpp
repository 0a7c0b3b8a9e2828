// profile(): warm-up, timed runs (Activity API), then the Range Profiler (profiler.hpp).
#include "warpmodel/cupti/profiler.hpp"

#include <cuda_profiler_api.h>
#include <cuda_runtime_api.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <cmath>
#include <cstdlib>
#include <ctime>
#include <limits>
#include <map>

#include "cupti_internal.hpp"
#include "range_profiler.hpp"
#include "device_query.hpp"
#include "kernels.hpp"
#include "l2_flush.hpp"
#include "nvml.hpp"
#include "warpmodel/support/cuda.hpp"
#include "warpmodel/support/statistics.hpp"

namespace warpmodel::cupti {
namespace {

using detail::check;
using detail::evaluate;
using detail::range_name;
using detail::RangeProfiler;
using detail::ranges_in;

void say(const ProfileOptions& o, const std::string& line) {
  if (o.log) o.log(line);
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return date;
}

// The user-range name of launch i: unique, so a range cannot be mistaken for another.
std::string user_range_name(const Workload& w, std::size_t i) { return std::to_string(i) + ":" + w.launch_label(i); }

// The timed runs: every launch `runs` times, each run from restored inputs; durations matched to
// launches by the external correlation id pushed around each launch. With `cold`, L2 is flushed
// before each launch (the flush kernel carries no correlation id, so it is not timed).
void time_launches(Workload& w, int runs, std::vector<LaunchRecord>& launches, detail::L2Flusher* cold) {
  const std::size_t n = w.launch_count();
  std::vector<detail::KernelActivity> seen;
  {
    detail::KernelTimer timer;
    for (int r = 0; r < runs; ++r) {
      w.restore_inputs();
      support::cuda::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (restore)");
      for (std::size_t i = 0; i < n; ++i) {
        if (cold) cold->flush();
        timer.push(static_cast<std::uint64_t>(r) * n + i + 1);
        w.launch(i);
        timer.pop();
      }
      support::cuda::check(cudaGetLastError(), "kernel launch");
    }
    seen = timer.collect();
  }
  std::vector<std::vector<const detail::KernelActivity*>> by_launch(n);
  for (const auto& k : seen) {
    if (k.external_id == 0) continue;  // restore kernels and the like
    const std::size_t i = (k.external_id - 1) % n;
    by_launch[i].push_back(&k);
  }
  for (std::size_t i = 0; i < n; ++i) {
    LaunchRecord& l = launches[i];
    if (by_launch[i].size() != static_cast<std::size_t>(runs))
      throw RangeOverflowError("launch " + std::to_string(i) + " (" + w.launch_label(i) + ") started " +
                               std::to_string(by_launch[i].size() / std::max(runs, 1)) +
                               " kernels per run where the workload declared one; each launch must start exactly one "
                               "kernel so that ranges match launches");
    const detail::KernelActivity& k = *by_launch[i].front();
    l.kernel = k.name;
    l.demangled = demangle(k.name);
    for (int d = 0; d < 3; ++d) {
      l.grid[d] = k.grid[d];
      l.block[d] = k.block[d];
    }
    if (static_cast<long long>(k.cluster[0]) * k.cluster[1] * k.cluster[2] > 1)
      l.cluster = std::array<int, 3>{k.cluster[0], k.cluster[1], k.cluster[2]};
    l.registers_per_thread = k.registers_per_thread;
    l.shared_memory_per_block_bytes = k.static_shared_bytes + k.dynamic_shared_bytes;
    for (const auto* run : by_launch[i]) l.duration_ns_runs.push_back(static_cast<double>(run->end_ns - run->start_ns));
    l.duration_ns = support::median(l.duration_ns_runs);
  }
}

}  // namespace

ChipMetrics ChipMetrics::for_device(int device) { return for_context(detail::current_context(device), device); }

std::string configured_commit() {
#ifdef WARPMODEL_GIT_COMMIT_CONFIGURED
  return WARPMODEL_GIT_COMMIT_CONFIGURED;
#else
  return "";
#endif
}

ReplayMode effective_replay(const ProfileOptions& o) {
  if (o.replay) return *o.replay;
  return o.mode == RangeMode::User ? ReplayMode::User : ReplayMode::Kernel;
}

ProfileReport profile(Workload& w, const ProfileOptions& o) {
  if (const auto injected = injected_profiler([](const char* v) { return std::getenv(v); }))
    throw OtherClientError(other_client_message(*injected));
  if (o.plan.collect.empty()) throw MetricNameError("no metrics to collect");
  if (o.timing_runs < 1) throw std::invalid_argument("timing_runs must be >= 1");
  const ReplayMode replay = effective_replay(o);
  if (o.mode == RangeMode::User && replay == ReplayMode::Kernel)
    throw std::invalid_argument("user ranges need user replay: CUPTI's kernel replay cannot replay a range of launches");
  if (o.flush_l2 && replay != ReplayMode::User)
    throw std::invalid_argument(
        "flushing L2 before each pass needs user replay (--replay user): kernel replay runs its passes inside CUPTI");
  if (o.flush_l2_before_each_launch && (o.mode != RangeMode::User || replay != ReplayMode::User))
    throw std::invalid_argument(
        "flushing L2 before each launch needs user ranges and user replay: the flush must run between ranges");
  const bool flush_passes = o.flush_l2 || o.flush_l2_before_each_launch;

  std::vector<ubench::GpuInfo> gpus;
  try {
    gpus = ubench::query_gpus();
  } catch (const support::cuda::NoGpuError&) {
    throw;
  }
  if (o.device < 0 || o.device >= static_cast<int>(gpus.size()))
    throw support::cuda::NoGpuError("no GPU " + std::to_string(o.device) + " (" + std::to_string(gpus.size()) + " present)");
  const ubench::GpuInfo& gpu = gpus[static_cast<std::size_t>(o.device)];
  const CUcontext ctx = detail::current_context(o.device);

  ProfileReport report;
  report.workload = w.description();
  report.device.name = gpu.name;
  report.device.cc_major = gpu.cc_major;
  report.device.cc_minor = gpu.cc_minor;
  report.device.sm_count = gpu.sm_count;
  report.device.l2_cache_bytes = gpu.l2_cache_bytes;
  report.device.global_memory_bytes = gpu.global_memory_bytes;
  report.device.max_sm_clock_mhz = gpu.sm_clock_mhz;

  // Permission and chip first, before any work: a user without permission learns it at once.
  say(o, "querying the chip and counter availability");
  const ChipMetrics chip = ChipMetrics::for_device(o.device);
  report.device.chip = chip.chip();

  say(o, "setting up " + w.description());
  w.setup();
  const std::size_t n = w.launch_count();
  if (n == 0) throw std::invalid_argument("the workload has no launches");
  const std::size_t max_ranges = o.max_ranges ? o.max_ranges : n;
  // Warm-up: module loading (lazy), first-touch page mapping, instruction cache.
  w.restore_inputs();
  for (std::size_t i = 0; i < n; ++i) w.launch(i);
  support::cuda::check(cudaDeviceSynchronize(), "warm-up run");

  ubench::Nvml nvml;
  nvml.bind(ubench::gpu::pci_bus_id(o.device));
  if (const auto s = nvml.sample()) report.provenance.sm_clock_mhz = s->sm_mhz;

  report.launches.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    report.launches[i].launch_index = i;
    report.launches[i].label = w.launch_label(i);
  }
  std::unique_ptr<detail::L2Flusher> flusher;
  if (flush_passes) flusher = std::make_unique<detail::L2Flusher>(static_cast<std::size_t>(gpu.l2_cache_bytes));
  say(o, "timing " + std::to_string(o.timing_runs) + " run(s) with the Activity API" +
             (o.flush_l2_before_each_launch ? ", L2 flushed before each launch" : ""));
  time_launches(w, o.timing_runs, report.launches, o.flush_l2_before_each_launch ? flusher.get() : nullptr);

  // The Range Profiler.
  std::size_t passes = 0;
  const auto host = detail::make_host_object(chip.chip(), chip.counter_availability());
  const std::vector<std::uint8_t> config = detail::config_image(host.get(), o.plan.collect, &passes);
  say(o, std::to_string(o.plan.collect.size()) + " metrics in " + std::to_string(passes) + " pass(es), " +
             (o.mode == RangeMode::Auto ? "auto range / " : "user range / ") +
             (replay == ReplayMode::Kernel ? "kernel replay" : "user replay") +
             (o.flush_l2_before_each_launch ? ", L2 flushed before each launch"
              : o.flush_l2                  ? ", L2 flushed before each pass"
                                            : ""));
  std::vector<std::uint8_t> counter_data;
  std::size_t dropped = 0, submitted_passes = 0;
  {
    RangeProfiler rp(ctx);
    counter_data = rp.counter_data_image(o.plan.collect, max_ranges);
    rp.set_config(config, counter_data, o.mode, replay, max_ranges);
    // Kernel replay runs every pass inside each launch, so one iteration normally submits all;
    // user replay needs one iteration per pass. Each iteration starts from restored inputs.
    bool all_submitted = false;
    const std::size_t pass_limit = passes + 2;
    try {
      while (!all_submitted) {
        if (++submitted_passes > pass_limit)
          throw CuptiError("the Range Profiler asked for more than " + std::to_string(pass_limit) +
                           " passes where the configuration needs " + std::to_string(passes));
        w.restore_inputs();
        if (flusher) flusher->flush();
        support::cuda::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (before a pass)");
        rp.start();
        for (std::size_t i = 0; i < n; ++i) {
          if (i > 0 && o.flush_l2_before_each_launch) flusher->flush();  // outside the ranges
          if (o.mode == RangeMode::User) rp.push(user_range_name(w, i));
          w.launch(i);
          if (o.mode == RangeMode::User) rp.pop();
        }
        support::cuda::check(cudaGetLastError(), "kernel launch under the Range Profiler");
        all_submitted = rp.stop();
      }
      support::cuda::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (after the passes)");
      dropped = rp.decode();
    } catch (const CuptiError& e) {
      // CUPTI may refuse a range beyond the configured count outright rather than drop it.
      if (n > max_ranges)
        throw RangeOverflowError(std::to_string(n) + " launches overflow the " + std::to_string(max_ranges) +
                                 " configured range(s) (" + e.what() + "); nothing was written (raise --max-ranges)");
      throw;
    }
  }
  if (const auto s = nvml.sample()) report.provenance.sm_clock_mhz_after = s->sm_mhz;
  const std::size_t ranges = ranges_in(counter_data);
  if (dropped > 0 || ranges != n)
    throw RangeOverflowError("the counter data holds " + std::to_string(ranges) + " range(s) and " +
                             std::to_string(dropped) + " were dropped, for " + std::to_string(n) +
                             " declared launch(es) with room for " + std::to_string(max_ranges) +
                             " range(s): more kernels ran than ranges were configured; nothing was written (raise "
                             "--max-ranges, or make each launch start one kernel)");
  for (std::size_t r = 0; r < ranges; ++r) {
    if (o.mode == RangeMode::User) {
      const std::string name = range_name(counter_data, r);
      if (name != user_range_name(w, r))
        throw CuptiError("range " + std::to_string(r) + " is named '" + name + "', expected '" + user_range_name(w, r) +
                         "'");
    }
    const auto values = evaluate(host.get(), counter_data, r, o.plan.collect);
    LaunchRecord& l = report.launches[r];
    for (std::size_t m = 0; m < values.size(); ++m) l.metrics[o.plan.collect[m]] = values[m];
    for (const auto& d : o.plan.derived) l.derived[d.name] = d.definition->evaluate(l.metrics);
  }

  report.collection.range_mode = o.mode == RangeMode::Auto ? "auto" : "user";
  report.collection.replay_mode = replay == ReplayMode::Kernel ? "kernel" : "user";
  report.collection.passes = passes;
  report.collection.max_ranges = max_ranges;
  report.collection.l2_flushed_before_each_pass = flush_passes;
  report.collection.l2_flushed_before_each_launch = o.flush_l2_before_each_launch;
  report.collection.timing_runs = o.timing_runs;
  report.collection.metrics = o.plan.collect;
  for (const auto& d : o.plan.derived) report.collection.derived[d.name] = d.definition->expression();
  report.collection.requested = o.plan.requested;

  Provenance& p = report.provenance;
  p.gpu = gpu.name;
  p.driver = nvml.available() ? nvml.driver_version() : std::to_string(gpu.driver_version);
  p.cuda = std::to_string(gpu.runtime_version / 1000) + "." + std::to_string(gpu.runtime_version % 1000 / 10);
  p.date = utc_now();
  p.commit = o.commit.empty() ? configured_commit() : o.commit;
  p.command = o.command;
  uint32_t cupti_version = 0;
  if (cuptiGetVersion(&cupti_version) == CUPTI_SUCCESS) p.cupti_version = std::to_string(cupti_version);
  return report;
}

std::string run_launches_only(Workload& w, int device, bool flush_l2) {
  detail::current_context(device);
  w.setup();
  w.restore_inputs();
  support::cuda::check(cudaDeviceSynchronize(), "setup");
  if (flush_l2) {
    const auto gpus = ubench::query_gpus();
    detail::L2Flusher(static_cast<std::size_t>(gpus.at(static_cast<std::size_t>(device)).l2_cache_bytes)).flush();
  }
  support::cuda::check(cudaProfilerStart(), "cudaProfilerStart");
  for (std::size_t i = 0; i < w.launch_count(); ++i) w.launch(i);
  support::cuda::check(cudaDeviceSynchronize(), "launches");
  support::cuda::check(cudaProfilerStop(), "cudaProfilerStop");
  return w.verify();
}

}  // namespace warpmodel::cupti
