// Per-launch hardware metrics through CUPTI's Host API and Range Profiler (CUDA 13), with kernel
// durations from the Activity API (README "CUPTI collection").
//
//   ChipMetrics: what a chip offers (enumeration, validation, pass counts). Host API only: works for
//                a named chip ("GH100") on a machine without a GPU.
//   profile():   runs a Workload: a warm-up, `timing_runs` timed runs (Activity API, matched to the
//                launches by external correlation ids), then the Range Profiler in one of two modes:
//                  auto: AutoRange + KernelReplay (CUPTI replays each kernel, restoring its memory);
//                  user: UserRange + UserReplay (one range per launch; the whole workload is re-run
//                        for every pass, after Workload::restore_inputs() and, with flush_l2, an
//                        L2 write-back flush; with flush_l2_before_each_launch, before every
//                        launch of the timed runs and of every pass).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "warpmodel/cupti/metrics.hpp"
#include "warpmodel/cupti/profile_report.hpp"
#include "warpmodel/cupti/workload.hpp"

struct CUctx_st;  // CUcontext, without including cuda.h here

namespace warpmodel::cupti {

// Counters not permitted to this user (CUPTI_ERROR_INSUFFICIENT_PRIVILEGES). what(): one line with
// how to grant access.
class PermissionError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
// Another CUPTI client (ncu, nsys, a second profiler) holds the GPU's profiler, or is injected.
// detail(): what showed it (the call and CUPTI's result), for messages of other wording.
class OtherClientError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
  OtherClientError(const std::string& message, std::string detail)
      : std::runtime_error(message), detail_(std::move(detail)) {}
  const std::string& detail() const { return detail_; }

 private:
  std::string detail_;
};
// The counter data did not hold every range: more kernels ran than ranges were configured.
class RangeOverflowError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
// Any other CUPTI failure: the call and CUPTI's message.
class CuptiError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws the class that fits a failed CUPTI call (PermissionError, OtherClientError, CuptiError).
[[noreturn]] void throw_cupti_error(int cupti_result, const std::string& call);
// The one-line messages (exposed for tests).
std::string permission_message(const std::string& call);
std::string other_client_message(const std::string& detail);

// An injected profiler (ncu and nsys set CUDA_INJECTION64_PATH for the processes they start):
// its description, or nothing. `getenv` is a parameter so tests can pass their own environment.
std::optional<std::string> injected_profiler(const std::function<const char*(const char*)>& getenv);

struct MetricInfo {
  std::string name;  // base name, e.g. "dram__bytes_read"
  std::string type;  // "counter", "ratio", "throughput"
  std::string description, hw_unit, dim_unit;
};

class ChipMetrics {
 public:
  // Host API only: no GPU needed.
  static ChipMetrics for_chip(const std::string& chip);
  // The chip of CUDA device `device`, with its counter availability image (needs the GPU and
  // profiling permission).
  static ChipMetrics for_device(int device);
  // The same for a context that exists already (the CUDA driver API only; no runtime): what the
  // injected library uses for each context of the profiled application.
  static ChipMetrics for_context(CUctx_st* context, int device_index);
  static std::vector<std::string> supported_chips();

  const std::string& chip() const { return chip_; }
  std::vector<MetricInfo> base_metrics() const;
  // Roll-ups and sub-metrics of a base metric (".sum", ".avg.per_second", ".pct", ...).
  std::vector<std::string> submetrics(const std::string& base, const std::string& type) const;
  bool is_valid(const std::string& metric) const;
  std::optional<MetricInfo> properties(const std::string& metric) const;
  // Base names with their usual roll-up (counter .sum, ratio .pct, throughput
  // .avg.pct_of_peak_sustained_elapsed): the pool for "closest name" suggestions.
  std::vector<std::string> suggestion_candidates() const;
  // Replay passes the Range Profiler needs for these metrics.
  std::size_t passes(const std::vector<std::string>& metrics) const;
  // A configuration image for these metrics (and its pass count).
  std::vector<std::uint8_t> config_image(const std::vector<std::string>& metrics, std::size_t* passes) const;
  const std::vector<std::uint8_t>& counter_availability() const { return availability_; }

  // Resolves a metric request against this chip (metrics.hpp resolve_metrics).
  MetricPlan resolve(const std::vector<std::string>& request, bool allow_sass = range_profiler_collects_sass_metrics()) const;

 private:
  std::string chip_;
  std::vector<std::uint8_t> availability_;
};

enum class RangeMode { Auto, User };
// Who replays the passes: CUPTI around each kernel (saving and restoring device memory itself), or
// this program, which re-runs the whole workload per pass after Workload::restore_inputs(). User
// ranges need user replay; auto ranges take either.
enum class ReplayMode { Kernel, User };

struct ProfileOptions {
  MetricPlan plan;
  RangeMode mode = RangeMode::Auto;
  // Unset: kernel replay for auto ranges, user replay for user ranges (effective_replay()).
  std::optional<ReplayMode> replay;
  std::size_t max_ranges = 0;  // 0: the workload's launch count
  int timing_runs = 5;
  // User replay: before each pass, write L2's dirty lines back and evict every workload line
  // (src/l2_flush.hpp), so every pass starts from the same cache state.
  bool flush_l2 = false;
  // Before every launch, in the timed runs and in every pass: L2 written back and emptied of the
  // workload's lines, as Nsight Compute does by default (--cache-control all), so that the timed
  // launches and the counted ones start from the same cold L2. Needs user ranges and user replay
  // (the flush runs between the ranges, uncounted). Implies flush_l2.
  bool flush_l2_before_each_launch = false;
  int device = 0;
  std::string command;         // for provenance
  std::string commit;          // for provenance ("" = the configured commit)
  std::function<void(const std::string&)> log;  // progress lines (may be empty)
};

ReplayMode effective_replay(const ProfileOptions& options);

// Runs the workload and collects everything. Throws support::cuda::NoGpuError, PermissionError, OtherClientError,
// RangeOverflowError, CuptiError, or std::runtime_error for CUDA failures.
ProfileReport profile(Workload& workload, const ProfileOptions& options);

// For an external profiler (ncu): setup, restore, optionally the L2 flush of ProfileOptions::flush_l2,
// then the launches once between cudaProfilerStart and cudaProfilerStop, nothing collected here.
// Under `ncu --replay-mode application` every pass is a new process that runs all of this, so with
// flush_l2 every ncu pass starts from the cache state of every `profile --range user --flush-l2`
// pass. Returns the workload's verify().
std::string run_launches_only(Workload& workload, int device, bool flush_l2 = false);

// The commit this library was configured from (git short hash), or "".
std::string configured_commit();

}  // namespace warpmodel::cupti
