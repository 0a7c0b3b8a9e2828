// The energy of a timed region, as seed 004 measures it (NVML, 30 runs, a 95 % Student-t interval):
// the board's total-energy counter read around repetitions of the region, a power trace sampled by a
// background thread, and the idle power measured first and reported apart. Plain C++: the source of
// energy and power is an interface (NVML on a GPU, nvml.hpp; a stand-in in the tests).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "warpmodel/energy/student_t.hpp"

namespace warpmodel::energy {

// Where energy and power come from.
class PowerSource {
 public:
  virtual ~PowerSource() = default;
  // The board's energy counter (J since the driver loaded); nullopt when it cannot be read.
  virtual std::optional<double> total_energy_j() = 0;
  // The board's power draw now (W).
  virtual std::optional<double> power_w() = 0;
  // The counter's resolution: NVML counts millijoules.
  virtual double counter_resolution_j() const { return 1e-3; }
};

struct PowerSample {
  double seconds = 0;  // since the measurement started
  double watts = 0;
};

struct EnergyOptions {
  int samples = 30;                  // readings of the counter (seed 004: 30 runs)
  double level = 0.95;               // the confidence level of the intervals
  double idle_seconds = 1.0;         // power sampled with nothing running, first (one window)
  // Settling: windows of idle_seconds are repeated until two in a row agree within settle_tolerance
  // of their mean, at most settle_max_seconds (0: one window). NVML's power reading averages about a
  // second, so one window read straight after a load still holds it: an H100 read 182-222 W "idle"
  // just after an energy row where, settled (2-3 s), it reads 124 W.
  double settle_max_seconds = 0.0;
  double settle_tolerance = 0.02;
  // Then the region repeated this long before any reading: NVML's power reading is an average over
  // about a second, and the board takes that long to reach its steady draw (an H100's sampled power
  // climbed from 157 to 660 W over a stencil's 2.5 s of readings without it).
  double warmup_seconds = 1.0;
  double resolution_share = 0.01;    // the counter's resolution at most this share of a reading
  double min_sample_seconds = 0.05;  // and a reading at least this long
  // The counter moves in steps: an H100's every ~100 ms (a stencil's 83 ms readings held one step or
  // two, 57 or 128 J; the ADI's 36 ms readings alternated 17 and 35 J). A reading therefore lasts at
  // least this many of its update intervals (measured during the warm-up), at most max_sample_seconds,
  // and its energy is taken between the first and the last step inside it (tick-aligned, below): two
  // steps at least an interval apart, timed to the poll (1 ms), so that 3 intervals keep a reading's
  // error near 1 % while 30 readings of a 100 ms counter take 9 s.
  // 0: neither (readings sized by the resolution and min_sample_seconds, the difference around each).
  double update_intervals_per_reading = 3;
  double max_sample_seconds = 1.0;
  double sampling_period_s = 0.01;   // the power trace's period
  double counter_poll_s = 0.001;     // how often the background thread reads the counter (its steps' times)
  long long max_repetitions = 1000000;
};

// How many repetitions of a region that takes `region_seconds` and `region_joules` make one reading:
// the fewest with resolution <= share x reading and duration >= min_sample_seconds (at least 1).
// measure_energy grows the repetitions until a reading meets this with the counter's quantisation
// counted (resolution / share + 2 counts), so a region far below the resolution is sized right.
long long repetitions_for(double region_seconds, double region_joules, double resolution_j, const EnergyOptions& o);

struct EnergyResult {
  int samples = 0;
  long long repetitions = 0;      // regions per reading
  double idle_w = 0;              // mean power before the region ran (apart: not subtracted below)
  double idle_settle_seconds = 0;  // how long the idle phase lasted (settling included)
  bool idle_settled = true;        // false: settle_max_seconds passed before two windows agreed
  double warmup_seconds = 0;      // how long the region ran before the readings
  std::vector<double> seconds;    // per region, one per reading
  std::vector<double> joules;     // per region, one per reading (tick_aligned_joules, else counter difference / repetitions)
  std::vector<double> sampled_watts;  // per reading: the power trace's mean over it (0: no sample fell in it)
  Interval region_seconds, region_joules, mean_watts;  // mean_watts: joules / seconds per reading
  Interval trace_watts;           // the power trace over the readings (its samples' mean and interval)
  std::vector<PowerSample> trace;  // the whole trace, idle part included
  double counter_resolution_j = 0;
  double smallest_reading_j = 0;  // the least counter difference of a reading
  // The counter's steps: the median interval between them during the warm-up (0: fewer than three
  // steps seen), and how many readings took their energy between steps inside them (the rest: the
  // counter difference around the reading, quantised by a step at either end).
  double counter_update_interval_s = 0;
  int tick_aligned_readings = 0;
};

// A reading's energy per region from the counter's steps inside it: the counter went from e_a at its
// first step inside [t0, t1] to e_b at its last, so the board drew (e_b - e_a) / (t_b - t_a) watts while
// the regions ran; a region's energy is that power times its time. nullopt with fewer than two steps
// inside. `steps`: (seconds, joules) at each change of the counter, in time order.
struct CounterStep {
  double seconds = 0, joules = 0;
};
std::optional<double> tick_aligned_joules(const std::vector<CounterStep>& steps, double t0, double t1, long long regions);

// Measures `region`, which must wait for its own GPU work before it returns. Throws
// std::runtime_error when the source cannot read the counter. `clock` gives seconds (steady).
EnergyResult measure_energy(PowerSource& source, const std::function<void()>& region, const EnergyOptions& options = {},
                            const std::function<double()>& clock = {});

// Per unit of work: a region does `steps` steps of `points` points each.
struct EnergyPerWork {
  Interval joules_per_step;
  Interval points_per_joule;
  Interval efficiency;  // performance over average power (seed 004): points per second per watt
  Interval mean_watts;
};
EnergyPerWork per_work(const EnergyResult& r, double steps, double points_per_step, double level = 0.95);

// The board's state, read (never changed): power limit and clocks, for the provenance.
struct BoardState {
  std::string name, driver;
  std::optional<double> power_limit_w;
  std::optional<double> sm_clock_mhz, memory_clock_mhz;
};

// The one writer of an energy measurement in the commands' JSON (docs/energy.md): the readings,
// the intervals, the per-work figures, the idle power, the board, and the trace (at most
// `max_trace_points`, evenly thinned).
nlohmann::json energy_json(const EnergyResult& r, const EnergyPerWork& w, const BoardState& board,
                           std::size_t max_trace_points = 400);

// One line for the terminal: "energy: 1.234 mJ per step (+- 0.5 %), 5.6 Gpoints/J, 310 W mean (idle 70 W), ...".
std::string energy_summary(const EnergyResult& r, const EnergyPerWork& w);

}  // namespace warpmodel::energy
