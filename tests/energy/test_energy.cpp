// warpmodel_energy (support/energy): Student's t against tabulated quantiles, the 95 % interval, the
// choice of repetitions (the counter's 1 mJ at most 1 % of a reading), the measurement with a
// stand-in counter and power reading, the per-work figures and the JSON; NVML without a driver.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <cmath>
#include <mutex>

#include "warpmodel/energy/meter.hpp"
#include "warpmodel/energy/nvml.hpp"
#include "warpmodel/energy/student_t.hpp"

namespace warpmodel::energy {
namespace {

TEST(StudentT, QuantilesMatchTheTables) {
  // Two-sided 95 % (p = 0.975) and other levels, from the standard tables (8 to 9 digits).
  const struct {
    double p, dof, t;
  } table[] = {{0.975, 1, 12.70620474}, {0.975, 2, 4.30265273}, {0.975, 5, 2.570581836}, {0.975, 10, 2.228138852},
               {0.975, 29, 2.045229642}, {0.975, 30, 2.042272456}, {0.975, 100, 1.983971519},
               {0.95, 5, 2.015048373},  {0.995, 10, 3.169272667}, {0.9, 3, 1.637744354},  {0.975, 1e7, 1.959964}};
  for (const auto& row : table)
    EXPECT_NEAR(student_t_quantile(row.p, row.dof), row.t, 2e-6 * row.t) << "p " << row.p << ", dof " << row.dof;
}

TEST(StudentT, SymmetricAndTheCdfInvertsIt) {
  EXPECT_DOUBLE_EQ(student_t_quantile(0.5, 7), 0.0);
  EXPECT_NEAR(student_t_quantile(0.025, 29), -2.045229642, 1e-8);
  for (double dof : {1.0, 3.0, 29.0, 250.0})
    for (double p : {0.01, 0.2, 0.6, 0.95, 0.999}) EXPECT_NEAR(student_t_cdf(student_t_quantile(p, dof), dof), p, 1e-10);
  EXPECT_NEAR(incomplete_beta(2, 3, 0.4), 0.5248, 1e-12);  // sum over j = 2..4 of C(4, j) 0.4^j 0.6^(4 - j)
  EXPECT_THROW(student_t_quantile(1.0, 5), std::invalid_argument);
  EXPECT_THROW(student_t_quantile(0.5, 0), std::invalid_argument);
}

TEST(StudentT, ConfidenceIntervalOfASample) {
  const std::vector<double> x = {9.8, 10.2, 10.0, 9.9, 10.1};  // mean 10, s = 0.158114
  const Interval i = confidence_interval(x);
  EXPECT_DOUBLE_EQ(i.mean, 10.0);
  EXPECT_EQ(i.n, 5);
  EXPECT_NEAR(i.t, 2.776445105, 1e-7);
  EXPECT_NEAR(i.half_width, 2.776445105 * 0.158113883 / std::sqrt(5.0), 1e-8);
  EXPECT_EQ(confidence_interval({3.0}).half_width, 0.0);
}

TEST(Energy, RepetitionsKeepTheResolutionUnderOnePercent) {
  EnergyOptions o;
  o.min_sample_seconds = 0;
  EXPECT_EQ(repetitions_for(1e-3, 0.2, 1e-3, o), 1);        // 200 mJ: 1 mJ is 0.5 %
  EXPECT_EQ(repetitions_for(1e-3, 0.05, 1e-3, o), 2);       // 50 mJ: two make 100 mJ
  EXPECT_EQ(repetitions_for(1e-5, 2.5e-4, 1e-3, o), 400);   // 0.25 mJ
  EXPECT_EQ(repetitions_for(1e-5, 0.0, 1e-3, o), 100);      // below the resolution: priced at 1 mJ
  o.min_sample_seconds = 0.05;
  EXPECT_EQ(repetitions_for(1e-4, 1.0, 1e-3, o), 500);      // the duration decides
}

// A board whose counter counts whole millijoules, idle at 70 W and at 250 W while a region runs.
class StandIn : public PowerSource {
 public:
  std::optional<double> total_energy_j() override {
    std::lock_guard<std::mutex> lock(m);
    return std::floor(joules * 1000.0) / 1000.0;
  }
  std::optional<double> power_w() override { return running.load() ? 250.0 : 70.0; }
  void region() {
    running.store(true);
    {
      std::lock_guard<std::mutex> lock(m);
      joules += 2.5e-4;  // 0.25 mJ per region: a quarter of the counter's resolution
      seconds += 1e-6;
    }
    running.store(false);
  }
  double now() {
    std::lock_guard<std::mutex> lock(m);
    return seconds;
  }
  std::mutex m;
  double joules = 1234.5678, seconds = 0;
  std::atomic<bool> running{false};
};

TEST(Energy, MeasuresARegionBelowTheCounterResolution) {
  StandIn board;
  EnergyOptions o;
  o.idle_seconds = 0.05;
  o.min_sample_seconds = 0;
  o.update_intervals_per_reading = 0;  // a simulated clock: the steps' times would be the polls' times
  o.sampling_period_s = 0.001;
  const EnergyResult r = measure_energy(board, [&] { board.region(); }, o, [&] { return board.now(); });
  EXPECT_EQ(r.samples, 30);
  EXPECT_GE(r.repetitions, 408);  // 0.25 mJ each: 100 mJ and two counts of quantisation
  EXPECT_LE(r.repetitions, 2000);
  EXPECT_GE(r.smallest_reading_j, 0.1);
  EXPECT_NEAR(r.region_joules.mean, 2.5e-4, 0.01 * 2.5e-4);
  EXPECT_NEAR(r.region_seconds.mean, 1e-6, 1e-9);
  EXPECT_NEAR(r.mean_watts.mean, 250.0, 2.5);
  EXPECT_DOUBLE_EQ(r.idle_w, 70.0);
  const EnergyPerWork w = per_work(r, 10, 1000);  // a region: 10 steps of 1000 points
  EXPECT_NEAR(w.joules_per_step.mean, 2.5e-5, 0.01 * 2.5e-5);
  EXPECT_NEAR(w.points_per_joule.mean, 1e4 / 2.5e-4, 0.01 * 1e4 / 2.5e-4);
  const nlohmann::json j = energy_json(r, w, BoardState{"stand-in", "0", 300.0, 1980.0, 2619.0});
  for (const char* key : {"idle_w", "joules_per_step", "points_per_joule", "efficiency_points_per_s_per_w",
                          "mean_watts_counter", "repetitions_per_reading", "trace_seconds_watts", "board"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_LE(j["resolution_share_of_smallest_reading"].get<double>(), 0.01);
  EXPECT_EQ(j["board"]["power_limit_w"], 300.0);
  EXPECT_NE(energy_summary(r, w).find("points/J"), std::string::npos);
}

// A board whose counter moves only every 100 ms (it reports the energy of its last update), 150 W
// while 50 ms regions run: a first reading of one region can count nothing at all.
class SlowCounter : public PowerSource {
 public:
  std::optional<double> total_energy_j() override {
    std::lock_guard<std::mutex> lock(m);
    return 150.0 * std::floor(seconds / 0.1) * 0.1;
  }
  std::optional<double> power_w() override { return 150.0; }
  void region() {
    std::lock_guard<std::mutex> lock(m);
    seconds += 0.05;
  }
  double now() {
    std::lock_guard<std::mutex> lock(m);
    return seconds;
  }
  std::mutex m;
  double seconds = 0.03;  // the first region ends at 80 ms, before the counter's first update
};

TEST(Energy, ACounterThatStoodStillDoublesTheRegionsNotAHundredfold) {
  SlowCounter board;
  EnergyOptions o;
  o.idle_seconds = 0;
  o.sampling_period_s = 0.001;
  const EnergyResult r = measure_energy(board, [&] { board.region(); }, o, [&] { return board.now(); });
  // 7.5 J a region is far above 100 mJ: two or four regions a reading, not the 100 that made 30
  // readings of the FWI's 50 ms evaluation last 150 s on an H100.
  EXPECT_GE(r.repetitions, 2);
  EXPECT_LE(r.repetitions, 4);
}

// A board that takes a second to reach its steady draw: 50 ms regions whose energy climbs linearly
// from nothing to 7.5 J over the first second of work, then stays.
class RampingBoard : public PowerSource {
 public:
  std::optional<double> total_energy_j() override {
    std::lock_guard<std::mutex> lock(m);
    return joules;
  }
  std::optional<double> power_w() override { return 150.0; }
  void region() {
    std::lock_guard<std::mutex> lock(m);
    joules += 7.5 * std::min(1.0, busy / 1.0);
    busy += 0.05, seconds += 0.05;
  }
  double now() {
    std::lock_guard<std::mutex> lock(m);
    return seconds;
  }
  std::mutex m;
  double joules = 0, seconds = 0, busy = 0;
};

TEST(Energy, ReadingsStartAfterTheBoardReachedItsSteadyDraw) {
  RampingBoard board;
  EnergyOptions o;
  o.idle_seconds = 0;
  o.sampling_period_s = 0.001;
  const EnergyResult r = measure_energy(board, [&] { board.region(); }, o, [&] { return board.now(); });
  EXPECT_GE(r.warmup_seconds, 1.0);
  EXPECT_DOUBLE_EQ(r.region_joules.mean, 7.5);  // no reading holds the ramp
  o.warmup_seconds = 0;
  RampingBoard cold;
  const EnergyResult early = measure_energy(cold, [&] { cold.region(); }, o, [&] { return cold.now(); });
  EXPECT_LT(early.region_joules.mean, 7.4);  // without it the first readings catch the ramp
}

// A board at a steady 200 W whose counter moves only every 20 ms of real time (the H100's moves about
// every 100 ms: a stencil's 83 ms readings held one step or two, 57 or 128 J). The meter measures the
// interval during the warm-up, makes each reading span three of them, and takes the energy between the
// counter's steps inside the reading: 200 W x the region's time, where the counter difference around
// a reading is off by up to a step (4 J) at either end.
class SteppingCounter : public PowerSource {
 public:
  std::optional<double> total_energy_j() override {
    const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return 200.0 * std::floor(t / 0.02) * 0.02;
  }
  std::optional<double> power_w() override { return 200.0; }
  const std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
};

TEST(Energy, ReadingsSpanTheCounterStepsAndTakeTheEnergyBetweenThem) {
  SteppingCounter board;
  EnergyOptions o;
  o.idle_seconds = 0;
  o.warmup_seconds = 0.3;
  const auto region = [] { std::this_thread::sleep_for(std::chrono::milliseconds(4)); };
  const EnergyResult r = measure_energy(board, region, o);
  EXPECT_NEAR(r.counter_update_interval_s, 0.02, 0.004);
  EXPECT_GE(r.region_seconds.mean * static_cast<double>(r.repetitions), 3 * 0.02 * 0.95);
  EXPECT_GE(r.tick_aligned_readings, 28);  // a reading or two may see one step only on a loaded machine
  EXPECT_NEAR(r.mean_watts.mean, 200.0, 4.0);
  EXPECT_NEAR(r.region_joules.mean, 200.0 * r.region_seconds.mean, 0.02 * 200.0 * r.region_seconds.mean);
  const nlohmann::json j = energy_json(r, per_work(r, 1, 1), BoardState{"stand-in", "0", 300.0, 1980.0, 2619.0});
  EXPECT_NEAR(j["counter_update_interval_s"].get<double>(), 0.02, 0.004);
  EXPECT_EQ(j["tick_aligned_readings"], r.tick_aligned_readings);
}

// tick_aligned_joules: the power between the first and the last step inside the reading, times the
// reading's time per region; fewer than two steps inside: none.
TEST(Energy, TickAlignedJoulesUseTheStepsInsideTheReading) {
  const std::vector<CounterStep> steps = {{0.05, 10.0}, {0.15, 30.0}, {0.25, 50.0}, {0.35, 70.0}, {0.45, 90.0}};
  EXPECT_NEAR(*tick_aligned_joules(steps, 0.1, 0.4, 3), 200.0 * 0.3 / 3, 1e-12);  // steps 0.15 .. 0.35: 200 W
  EXPECT_FALSE(tick_aligned_joules(steps, 0.1, 0.2, 1));  // one step inside
  EXPECT_FALSE(tick_aligned_joules({}, 0.0, 1.0, 1));
}

TEST(Energy, EfficiencyIsPerformanceOverTheSampledPower) {
  EnergyResult r;
  r.samples = 3;
  r.joules = {2.0, 2.0, 2.0};
  r.seconds = {0.01, 0.01, 0.01};
  r.sampled_watts = {100.0, 0.0, 400.0};  // the middle reading has no sample: the counter's 200 W
  const EnergyPerWork w = per_work(r, 4, 100);
  EXPECT_NEAR(w.efficiency.mean, (40000.0 / 100 + 40000.0 / 200 + 40000.0 / 400) / 3, 1e-9);
  EXPECT_NEAR(w.points_per_joule.mean, 200.0, 1e-12);
  EXPECT_NEAR(w.joules_per_step.mean, 0.5, 1e-12);
}

// A board that cools after the last load: 100 W settled, 200 W above that when the idle phase starts,
// the excess halving every 40 ms (an H100 read 182-222 W a second after an energy row, 126 W settled).
class CoolingBoard : public PowerSource {
 public:
  std::optional<double> total_energy_j() override { return 1.0; }
  std::optional<double> power_w() override {
    const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return 100.0 + 200.0 * std::exp2(-t / 0.04);
  }
  const std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
};

TEST(Energy, IdlePowerIsReadOnceTheBoardHasSettled) {
  EnergyOptions o;
  o.idle_seconds = 0.05;
  o.warmup_seconds = 0;
  o.samples = 2;
  o.update_intervals_per_reading = 0;
  o.min_sample_seconds = 0;
  o.max_repetitions = 1;
  o.sampling_period_s = 0.002;
  const auto region = [] {};
  CoolingBoard hot;
  const EnergyResult once = measure_energy(hot, region, o);  // one window: the board still cools
  EXPECT_GT(once.idle_w, 130.0);
  o.settle_max_seconds = 5;
  CoolingBoard board;
  const EnergyResult settled = measure_energy(board, region, o);
  EXPECT_TRUE(settled.idle_settled);
  EXPECT_NEAR(settled.idle_w, 100.0, 3.0);  // two windows within 2 %: the excess below ~2 W
  EXPECT_GE(settled.idle_settle_seconds, 0.2);
  EXPECT_LT(settled.idle_settle_seconds, 2.0);
  o.settle_max_seconds = 0.12;  // not long enough: said so, the last window read
  CoolingBoard short_wait;
  const EnergyResult unsettled = measure_energy(short_wait, region, o);
  EXPECT_FALSE(unsettled.idle_settled);
  EXPECT_GT(unsettled.idle_w, 105.0);
  const nlohmann::json j = energy_json(settled, per_work(settled, 1, 1), BoardState{"stand-in", "0", 300.0, 1980.0, 2619.0});
  EXPECT_EQ(j["idle_settled"], true);
  EXPECT_GE(j["idle_settle_seconds"].get<double>(), 0.2);
}

TEST(Energy, CounterThatCannotBeReadIsRefusedBeforeTheRegionRuns) {
  struct Broken : PowerSource {
    std::optional<double> total_energy_j() override { return std::nullopt; }
    std::optional<double> power_w() override { return std::nullopt; }
  } broken;
  bool ran = false;
  EXPECT_THROW(measure_energy(broken, [&] { ran = true; }), std::runtime_error);
  EXPECT_FALSE(ran);
}

// Without the driver's library NVML says why in one line; with it (a GPU machine) the counter reads.
TEST(Energy, NvmlSaysWhyItIsUnavailable) {
  NvmlPower nvml;
  if (nvml.available()) {
    EXPECT_TRUE(nvml.total_energy_j().has_value());
  } else {
    EXPECT_NE(nvml.why_unavailable().find("NVML"), std::string::npos) << nvml.why_unavailable();
    EXPECT_EQ(nvml.why_unavailable().find('\n'), std::string::npos);
    EXPECT_FALSE(nvml.total_energy_j().has_value());
  }
}

}  // namespace
}  // namespace warpmodel::energy
