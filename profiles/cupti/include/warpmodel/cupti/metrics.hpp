// What to collect: named metric sets, the table that translates legacy nvprof names into Perfworks
// metrics, and the resolution of a user's list (set names, Perfworks names, nvprof names) into the
// Perfworks metrics CUPTI collects plus the nvprof-named values derived from them.
// Plain C++: no CUPTI, no CUDA. Whether a Perfworks name exists on a chip is asked of CUPTI's host
// API (host_metrics.hpp); this file only knows names.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace warpmodel::cupti {

// An unknown or untranslatable metric name. what() is one line; for unknown names it ends with the
// closest valid names.
class MetricNameError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct MetricSet {
  std::string name;         // "model", "stalls", "seed-003", "seed-002"
  std::string description;  // one line: where the list comes from
  std::vector<std::string> metrics;  // Perfworks names or legacy nvprof names from the table
  // Perfworks names collected where the chip offers them and skipped where it does not (counters
  // that only some architectures have, such as the tensor pipe's by MMA kind).
  std::vector<std::string> optional_metrics;
};

// The named sets, in a fixed order.
const std::vector<MetricSet>& metric_sets();
const MetricSet* find_metric_set(std::string_view name);

// One weighted Perfworks input of a derived value.
struct WeightedMetric {
  std::string metric;  // Perfworks name
  double weight = 1;
};

// One row of the legacy table. A translated name is computed as
//   value = factor * sum(weight_i * numerator_i) / sum(weight_j * denominator_j)
// (denominator empty = 1), which covers a renamed counter, a sum of counters, a ratio and a change
// of unit. A rejected name has an empty numerator and a reason.
struct LegacyMetric {
  std::string nvprof_name;
  std::vector<WeightedMetric> numerator;
  std::vector<WeightedMetric> denominator;
  double factor = 1;
  std::string unit;     // the unit of the derived value (nvprof's, where it differs from Perfworks' it says so)
  std::string note;     // how the reading differs from nvprof's, if it does
  std::string rejected;  // non-empty: no modern equivalent, and why
  // Needs a SASS-patched metric (smsp__sass_*): the Range Profiler's hardware counters cannot
  // collect it (see range_profiler_collects_sass_metrics()).
  bool needs_sass_patching = false;

  bool is_rejected() const { return !rejected.empty(); }
  std::vector<std::string> inputs() const;  // numerator then denominator metrics, no duplicates
  std::string expression() const;           // e.g. "0.01 * sm__warps_active.avg.pct_of_peak_sustained_active"
  // Evaluates from collected Perfworks values; NaN when an input is missing or the denominator is 0.
  double evaluate(const std::map<std::string, double>& perfworks_values) const;
};

// The whole table, sorted by nvprof name (README and profiles/cupti/legacy_metrics.md show it).
const std::vector<LegacyMetric>& legacy_metrics();
const LegacyMetric* find_legacy_metric(std::string_view nvprof_name);

// SASS-patched metrics (names containing "__sass_") are produced by Nsight Compute and CUPTI's SASS
// Metrics API by instrumenting the kernel's code; the Range Profiler programs hardware counters only.
bool is_sass_patched_metric(std::string_view perfworks_name);
// Whether this build lets the Range Profiler be asked for them (false: they are rejected with a
// reason). Measured on the H200, see README "CUPTI collection".
bool range_profiler_collects_sass_metrics();

// A derived (legacy) value to report beside the raw Perfworks values.
struct DerivedMetric {
  std::string name;        // the nvprof name as requested
  const LegacyMetric* definition = nullptr;
};

// What a request resolves to: the unique Perfworks names to collect (in first-seen order), and the
// nvprof names to derive from them.
struct MetricPlan {
  std::vector<std::string> collect;
  std::vector<DerivedMetric> derived;
  std::vector<std::string> requested;  // the request, as given (for provenance)
  std::vector<std::string> unavailable;  // optional metrics of a requested set the chip does not offer
};

// Resolves a list of entries, each a set name, a legacy nvprof name or a Perfworks name
// (comma-separated lists are split). `is_valid_perfworks` says whether a Perfworks name exists
// on the target chip; `candidates` gives the chip's valid names for suggestions (called only when
// a name is unknown: building the list asks CUPTI for every metric).
// Throws MetricNameError: unknown name (with the closest names), rejected legacy name (with the
// reason), SASS-patched metric when the Range Profiler cannot collect it.
// `allow_sass` lets SASS-patched names through (an experiment; off unless the Range Profiler is
// known to collect them).
MetricPlan resolve_metrics(const std::vector<std::string>& request,
                           const std::function<bool(const std::string&)>& is_valid_perfworks,
                           const std::function<std::vector<std::string>()>& candidates,
                           bool allow_sass = range_profiler_collects_sass_metrics());

// The closest names to `wanted` among `candidates` (edit distance on the part before the first
// '.', then on the whole name; ties by name), at most `count`.
std::vector<std::string> closest_names(std::string_view wanted, const std::vector<std::string>& candidates,
                                       std::size_t count = 3);

// The legacy table as rows (nvprof name, Perfworks expression, unit, note), for
// `warpmodel metrics --legacy` and profiles/cupti/legacy_metrics.md.
struct LegacyTableRow {
  std::string nvprof_name, expression, unit, note;
};
std::vector<LegacyTableRow> legacy_table_rows();
// The markdown document profiles/cupti/legacy_metrics.md (a test keeps the file in sync).
std::string legacy_metrics_markdown();

// Splits "a,b , c" into {"a","b","c"} (empty items dropped).
std::vector<std::string> split_list(std::string_view text);

}  // namespace warpmodel::cupti
