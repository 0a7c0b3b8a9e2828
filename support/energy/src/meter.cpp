#include "warpmodel/energy/meter.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace warpmodel::energy {

long long repetitions_for(double region_seconds, double region_joules, double resolution_j, const EnergyOptions& o) {
  // A region below the counter's resolution is priced at the resolution: at least 1 / share repetitions.
  const double joules = region_joules > 0 ? region_joules : resolution_j;
  double reps = std::ceil(resolution_j / o.resolution_share / joules);
  if (region_seconds > 0) reps = std::max(reps, std::ceil(o.min_sample_seconds / region_seconds));
  reps = std::max(reps, 1.0);
  return static_cast<long long>(std::min(reps, static_cast<double>(o.max_repetitions)));
}

std::optional<double> tick_aligned_joules(const std::vector<CounterStep>& steps, double t0, double t1,
                                         long long regions) {
  const CounterStep* first = nullptr;
  const CounterStep* last = nullptr;
  for (const auto& s : steps)
    if (s.seconds >= t0 && s.seconds <= t1) {
      if (!first) first = &s;
      last = &s;
    }
  if (!first || last == first || !(last->seconds > first->seconds) || regions < 1) return std::nullopt;
  const double watts = (last->joules - first->joules) / (last->seconds - first->seconds);
  return watts * (t1 - t0) / static_cast<double>(regions);
}

namespace {

// The background thread that samples the power every `period_s` and reads the energy counter every
// `poll_s` (the times of its steps) until it is destroyed.
class Sampler {
 public:
  Sampler(PowerSource& source, double period_s, double poll_s, std::function<double()> clock)
      : source_(source), period_(period_s), poll_(std::min(poll_s, period_s)), clock_(std::move(clock)) {
    thread_ = std::thread([this] {
      double next_power = -1;
      std::optional<double> last;
      while (!stop_.load()) {
        const double t = clock_();
        if (const std::optional<double> e = source_.total_energy_j(); e && (!last || *e != *last)) {
          if (last) {
            std::lock_guard<std::mutex> lock(mutex_);
            steps_.push_back({t, *e});
          }
          last = e;
        }
        if (t >= next_power) {
          if (const std::optional<double> w = source_.power_w()) {
            std::lock_guard<std::mutex> lock(mutex_);
            trace_.push_back({t, *w});
          }
          next_power = t + period_;
        }
        std::this_thread::sleep_for(std::chrono::duration<double>(poll_));
      }
    });
  }
  ~Sampler() { stop(); }
  void stop() {
    stop_.store(true);
    if (thread_.joinable()) thread_.join();
  }
  std::vector<PowerSample> trace() {
    std::lock_guard<std::mutex> lock(mutex_);
    return trace_;
  }
  std::vector<CounterStep> steps() {
    std::lock_guard<std::mutex> lock(mutex_);
    return steps_;
  }

 private:
  PowerSource& source_;
  double period_, poll_;
  std::function<double()> clock_;
  std::atomic<bool> stop_{false};
  std::mutex mutex_;
  std::vector<PowerSample> trace_;
  std::vector<CounterStep> steps_;
  std::thread thread_;
};

// The median interval between the counter's steps in [from, to]; 0 with fewer than three steps.
double update_interval(const std::vector<CounterStep>& steps, double from, double to) {
  std::vector<double> gaps;
  const CounterStep* previous = nullptr;
  for (const auto& s : steps) {
    if (s.seconds < from || s.seconds > to) continue;
    if (previous) gaps.push_back(s.seconds - previous->seconds);
    previous = &s;
  }
  if (gaps.size() < 2) return 0;
  std::nth_element(gaps.begin(), gaps.begin() + static_cast<long>(gaps.size() / 2), gaps.end());
  return gaps[gaps.size() / 2];
}

double mean_between(const std::vector<PowerSample>& trace, double from, double to, int* count = nullptr) {
  double sum = 0;
  int n = 0;
  for (const auto& s : trace)
    if (s.seconds >= from && s.seconds <= to) sum += s.watts, ++n;
  if (count) *count = n;
  return n ? sum / n : 0.0;
}

// Idle: nothing of ours runs. Windows of o.idle_seconds until two in a row agree within
// o.settle_tolerance (or o.settle_max_seconds have passed); the last window's mean power. Timed by
// the steady clock, not `clock`: a simulated clock does not move while nothing runs.
double settled_idle_power(PowerSource& source, Sampler& sampler, const EnergyOptions& o,
                          const std::function<double()>& clock, double& settle_seconds, bool& settled) {
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  std::optional<double> previous;
  double watts = 0;
  settled = true;
  for (;;) {
    const double from = clock();
    std::this_thread::sleep_for(std::chrono::duration<double>(o.idle_seconds));
    int count = 0;
    watts = mean_between(sampler.trace(), from, clock(), &count);
    if (count == 0)
      if (const auto w = source.power_w()) watts = *w;
    if (o.settle_max_seconds <= 0) break;
    if (previous && std::fabs(watts - *previous) <= o.settle_tolerance * std::max(std::fabs(watts), 1.0)) break;
    if (elapsed() >= o.settle_max_seconds) {
      settled = false;
      break;
    }
    previous = watts;
  }
  settle_seconds = elapsed();
  return watts;
}

}  // namespace

EnergyResult measure_energy(PowerSource& source, const std::function<void()>& region, const EnergyOptions& o,
                            const std::function<double()>& clock_in) {
  if (o.samples < 2) throw std::invalid_argument("measure_energy: at least 2 samples");
  const auto origin = std::chrono::steady_clock::now();
  const std::function<double()> clock =
      clock_in ? clock_in : [origin] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - origin).count(); };
  const auto counter = [&] {
    const std::optional<double> e = source.total_energy_j();
    if (!e) throw std::runtime_error("the board's total-energy counter cannot be read");
    return *e;
  };
  counter();  // refuse before anything runs
  EnergyResult r;
  r.counter_resolution_j = source.counter_resolution_j();
  Sampler sampler(source, o.sampling_period_s, o.counter_poll_s, clock);
  r.idle_w = settled_idle_power(source, sampler, o, clock, r.idle_settle_seconds, r.idle_settled);
  // Warm up: the region until warmup_seconds have passed (at least once).
  const double warm_from = clock();
  do region();
  while (clock() - warm_from < o.warmup_seconds);
  r.warmup_seconds = clock() - warm_from;
  // The counter's update interval, from its steps during the warm-up: a reading spans several.
  r.counter_update_interval_s = update_interval(sampler.steps(), warm_from, clock());
  const double min_seconds =
      std::max(o.min_sample_seconds,
               std::min(o.max_sample_seconds, o.update_intervals_per_reading * r.counter_update_interval_s));
  // Size the readings: more repetitions until one reading lasts min_seconds and moves the counter by
  // resolution / share plus two counts (its quantisation at either end), so that every reading keeps
  // the resolution within the share.
  const double needed_j = r.counter_resolution_j / o.resolution_share + 2 * r.counter_resolution_j;
  long long reps = 1;
  double e0 = 0, t0 = 0, t1 = 0, e1 = 0;
  for (;;) {
    e0 = counter(), t0 = clock();
    for (long long k = 0; k < reps; ++k) region();
    t1 = clock(), e1 = counter();
    const double diff = e1 - e0, duration = t1 - t0;
    if ((diff >= needed_j && duration >= min_seconds) || reps >= o.max_repetitions) break;
    // Nothing counted yet: double. The counter can stand still over a short region even at 150 W
    // (seen on an H100 over 50 ms); a 100-fold jump then made 30 readings of a 50 ms region last 150 s.
    double grow = 2.0;
    if (diff > 0) grow = 1.05 * needed_j / diff;
    if (duration > 0 && min_seconds > 0) grow = std::max(grow, 1.05 * min_seconds / duration);
    reps = std::min(o.max_repetitions, std::max(2 * reps, static_cast<long long>(std::ceil(reps * grow))));
  }
  r.repetitions = reps;
  // The readings.
  std::vector<std::pair<double, double>> windows;
  r.smallest_reading_j = INFINITY;
  for (int s = 0; s < o.samples; ++s) {
    e0 = counter(), t0 = clock();
    for (long long k = 0; k < r.repetitions; ++k) region();
    t1 = clock(), e1 = counter();
    // Between the counter's steps inside the reading where it has two (the board busy all along);
    // else the difference around it.
    std::optional<double> aligned;
    if (o.update_intervals_per_reading > 0 && r.counter_update_interval_s > 0)
      aligned = tick_aligned_joules(sampler.steps(), t0, t1, r.repetitions);
    r.tick_aligned_readings += aligned.has_value();
    r.joules.push_back(aligned ? *aligned : (e1 - e0) / double(r.repetitions));
    r.seconds.push_back((t1 - t0) / double(r.repetitions));
    r.smallest_reading_j = std::min(r.smallest_reading_j, e1 - e0);
    windows.emplace_back(t0, t1);
  }
  sampler.stop();
  r.trace = sampler.trace();
  r.samples = o.samples;
  std::vector<double> watts, trace_watts;
  for (std::size_t k = 0; k < r.joules.size(); ++k) {
    watts.push_back(r.seconds[k] > 0 ? r.joules[k] / r.seconds[k] : 0.0);
    r.sampled_watts.push_back(mean_between(r.trace, windows[k].first, windows[k].second));
  }
  for (const auto& p : r.trace)
    if (p.seconds >= windows.front().first && p.seconds <= windows.back().second) trace_watts.push_back(p.watts);
  r.region_seconds = confidence_interval(r.seconds, o.level);
  r.region_joules = confidence_interval(r.joules, o.level);
  r.mean_watts = confidence_interval(watts, o.level);
  r.trace_watts = confidence_interval(trace_watts, o.level);
  return r;
}

EnergyPerWork per_work(const EnergyResult& r, double steps, double points_per_step, double level) {
  if (!(steps > 0) || !(points_per_step > 0)) throw std::invalid_argument("per_work: steps and points must be > 0");
  std::vector<double> jps, ppj, efficiency, watts;
  for (std::size_t k = 0; k < r.joules.size(); ++k) {
    jps.push_back(r.joules[k] / steps);
    ppj.push_back(r.joules[k] > 0 ? steps * points_per_step / r.joules[k] : 0.0);
    // Performance over the average power (seed 004): the sampled power where the trace has it.
    const double w = r.sampled_watts[k] > 0 ? r.sampled_watts[k] : (r.seconds[k] > 0 ? r.joules[k] / r.seconds[k] : 0.0);
    efficiency.push_back(w > 0 && r.seconds[k] > 0 ? steps * points_per_step / r.seconds[k] / w : 0.0);
    watts.push_back(w);
  }
  return {confidence_interval(jps, level), confidence_interval(ppj, level), confidence_interval(efficiency, level),
          confidence_interval(watts, level)};
}

namespace {
nlohmann::json interval_json(const Interval& i) {
  return {{"mean", i.mean}, {"half_width", i.half_width}, {"n", i.n}, {"level", i.level}, {"t", i.t}};
}
std::string relative(const Interval& i) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2g %%", i.mean != 0 ? 100.0 * i.half_width / std::fabs(i.mean) : 0.0);
  return text;
}
}  // namespace

nlohmann::json energy_json(const EnergyResult& r, const EnergyPerWork& w, const BoardState& board,
                           std::size_t max_trace_points) {
  nlohmann::json j;
  j["method"] =
      "NVML total-energy counter (nvmlDeviceGetTotalEnergyConsumption) read around each reading of repeated regions, "
      "after the region ran warmup_seconds; a reading spans several of the counter's update intervals (measured "
      "during the warm-up) and takes its energy between the counter's first and last step inside it (power while "
      "busy x the reading's time; tick_aligned_readings), else the difference around it; "
      "power (nvmlDeviceGetPowerUsage) sampled by a background thread; idle power measured first (windows of idle_seconds until two agree within settle_tolerance, at most settle_max_seconds), not subtracted; "
      "intervals: Student t at the level given, n - 1 degrees of freedom";
  j["readings"] = r.samples;
  j["repetitions_per_reading"] = r.repetitions;
  j["counter_resolution_j"] = r.counter_resolution_j;
  j["smallest_reading_j"] = r.smallest_reading_j;
  j["resolution_share_of_smallest_reading"] = r.smallest_reading_j > 0 ? r.counter_resolution_j / r.smallest_reading_j : 0.0;
  j["idle_w"] = r.idle_w;
  j["idle_settle_seconds"] = r.idle_settle_seconds;
  j["idle_settled"] = r.idle_settled;
  j["warmup_seconds"] = r.warmup_seconds;
  j["counter_update_interval_s"] = r.counter_update_interval_s;
  j["tick_aligned_readings"] = r.tick_aligned_readings;
  j["region_seconds"] = interval_json(r.region_seconds);
  j["region_joules"] = interval_json(r.region_joules);
  j["mean_watts_counter"] = interval_json(r.mean_watts);
  j["mean_watts_sampled"] = interval_json(r.trace_watts);
  j["joules_per_step"] = interval_json(w.joules_per_step);
  j["points_per_joule"] = interval_json(w.points_per_joule);
  j["efficiency_points_per_s_per_w"] = interval_json(w.efficiency);
  nlohmann::json readings = nlohmann::json::array();
  for (std::size_t k = 0; k < r.joules.size(); ++k)
    readings.push_back({{"seconds", r.seconds[k]}, {"joules", r.joules[k]}, {"sampled_watts", r.sampled_watts[k]}});
  j["per_reading"] = readings;
  nlohmann::json b = {{"name", board.name}, {"driver", board.driver}};
  b["power_limit_w"] = board.power_limit_w ? nlohmann::json(*board.power_limit_w) : nlohmann::json(nullptr);
  b["sm_clock_mhz"] = board.sm_clock_mhz ? nlohmann::json(*board.sm_clock_mhz) : nlohmann::json(nullptr);
  b["memory_clock_mhz"] = board.memory_clock_mhz ? nlohmann::json(*board.memory_clock_mhz) : nlohmann::json(nullptr);
  j["board"] = b;
  nlohmann::json trace = nlohmann::json::array();
  const std::size_t stride = std::max<std::size_t>(1, (r.trace.size() + max_trace_points - 1) / std::max<std::size_t>(max_trace_points, 1));
  for (std::size_t k = 0; k < r.trace.size(); k += stride) trace.push_back({r.trace[k].seconds, r.trace[k].watts});
  j["trace_seconds_watts"] = trace;
  return j;
}

std::string energy_summary(const EnergyResult& r, const EnergyPerWork& w) {
  char text[512];
  std::snprintf(text, sizeof text,
                "energy: %.4g J per step (+- %s), %.4g points/J, %.4g points/s/W, %.1f W mean (+- %s; idle %.1f W "
                "apart), %d readings of %lld regions, 95 %% Student-t intervals",
                w.joules_per_step.mean, relative(w.joules_per_step).c_str(), w.points_per_joule.mean, w.efficiency.mean,
                w.mean_watts.mean, relative(w.mean_watts).c_str(), r.idle_w, r.samples, r.repetitions);
  return text;
}

}  // namespace warpmodel::energy
