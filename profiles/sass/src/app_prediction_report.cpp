// predict-app's output: the table (text, markdown, CSV) and JSON (app_prediction.hpp). Nothing here
// computes.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "warpmodel/sass/app_prediction.hpp"

namespace warpmodel::sass {
namespace {

using nlohmann::json;

// "65536" for a 1D shape, "64x64" for 2D, "8x8x4" for 3D: what a user types.
std::string shape(const Dim3& d) {
  if (d.z == 1 && d.y == 1) return std::to_string(d.x);
  if (d.z == 1) return std::to_string(d.x) + "x" + std::to_string(d.y);
  return std::to_string(d.x) + "x" + std::to_string(d.y) + "x" + std::to_string(d.z);
}

std::string fixed(const std::optional<double>& v, int decimals, const char* suffix = "", bool sign = false) {
  if (!v || !std::isfinite(*v)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, sign ? "%+.*f%s" : "%.*f%s", decimals, *v, suffix);
  return buf;
}

std::string raw(const std::optional<double>& v) {
  if (!v || !std::isfinite(*v)) return "";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", *v);
  return buf;
}

std::string best_shape(const AppPredictionRow& r) {
  if (!r.not_recommended.empty()) return "not recommended: " + r.not_recommended;
  if (!r.best_block) return "-";
  // The profiled shape ranked first, or a gain within the uncertainty of a shape change: one wording,
  // so that the same kernel and shape read the same whichever shape the sweep ranked first.
  if (r.reliable_gain && !*r.reliable_gain) return "no reliable gain";
  return shape(*r.best_block) + " (grid " + shape(*r.best_grid) + ")";
}

json optional_number(const std::optional<double>& v) {
  return v && std::isfinite(*v) ? json(*v) : json(nullptr);
}

// "35.20 us (41 %)": an alternative's time and gain; why it does not apply, or "-".
std::string alternative_cell(const AppPredictionRow::Alternative* a) {
  if (!a) return "-";
  if (!a->predicted_us) return a->why.empty() ? "-" : "n/a: " + a->why;
  return fixed(a->predicted_us, 2, " us") + " (" + fixed(a->gain_pct, 1, " %") + ")";
}

const AppPredictionRow::Alternative* bound_removed(const AppPredictionRow& r) {
  for (const auto& a : r.bound_removed)
    if (a.what == r.bound) return &a;
  return nullptr;
}

// The row's note: why it is incomplete, the guardrails that do not withhold the pick (those that do
// are in the best-block cell), and the SASS-alone time when fields fell back to static estimates.
std::string note_cell(const AppPredictionRow& r) {
  std::vector<std::string> parts;
  if (!r.note.empty()) parts.push_back(r.note);
  for (const auto& g : r.guardrails)
    if (g.withholds.empty()) parts.push_back(g.note);
  if (!r.static_fields.empty())
    parts.push_back("static estimates for " + std::to_string(r.static_fields.size()) + " field(s)" +
                    (r.static_only_us ? "; the SASS alone predicts " + fixed(r.static_only_us, 2, " us") : ""));
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out;
}

std::string joined(const std::vector<std::string>& items, const char* separator) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : separator) + i;
  return out;
}

std::optional<double> share_pct(const AppPredictionRow& r, const std::string& key) {
  for (const auto& c : r.speed_of_light)
    if (c.key == key) return 100.0 * c.share;
  return std::nullopt;
}

json alternatives_json(const std::vector<AppPredictionRow::Alternative>& as) {
  json out = json::array();
  for (const auto& a : as)
    out.push_back({{"what", a.what},
                   {"predicted_us", optional_number(a.predicted_us)},
                   {"gain_pct", optional_number(a.gain_pct)},
                   {"why", a.why}});
  return out;
}

std::string launches_cell(const AppPredictionRow& r, bool grouped) {
  if (!grouped) return std::to_string(r.launch_indices.front());
  return std::to_string(r.launch_indices.size());
}

json dims(const Dim3& d) { return json::array({d.x, d.y, d.z}); }

}  // namespace

Table app_prediction_table(const AppPrediction& p, TableFormat format) {
  Table t;
  const bool csv = format == TableFormat::Csv;
  if (csv) {
    t.headers = {"kernel",       "mangled",        "launches",      "launch_indices", "grid",       "block",
                 "measured_us",  "total_measured_us", "predicted_us", "error_pct",      "bound",      "best_block",
                 "best_grid",    "best_predicted_us", "gain_pct",   "static_fields",  "note"};
    for (const auto& [resource, key] : speed_of_light_resources()) t.headers.push_back("sol_" + key + "_pct");
    t.headers.insert(t.headers.end(), {"not_recommended", "guardrails", "guardrail_notes", "static_only_us",
                                       "without_bound_us", "without_bound_gain_pct", "gpu_warning"});
    for (const auto& w : p.what_ifs) t.headers.insert(t.headers.end(), {"what_if[" + w + "]_us", "what_if[" + w + "]_gain_pct"});
    for (const auto& r : p.rows) {
      std::string indices, fields;
      for (int i : r.launch_indices) {
        if (!indices.empty()) indices += ' ';
        indices += std::to_string(i);
      }
      for (const auto& f : r.static_fields) {
        if (!fields.empty()) fields += ' ';
        fields += f;
      }
      t.rows.push_back({r.kernel, r.mangled, std::to_string(r.launch_indices.size()), indices, shape(r.grid),
                        shape(r.block), raw(r.measured_us), raw(r.total_measured_us), raw(r.predicted_us),
                        raw(r.error_pct), r.bound, r.best_block ? shape(*r.best_block) : "",
                        r.best_grid ? shape(*r.best_grid) : "", raw(r.best_predicted_us), raw(r.gain_pct), fields,
                        r.note});
      std::vector<std::string>& row = t.rows.back();
      for (const auto& [resource, key] : speed_of_light_resources()) row.push_back(raw(share_pct(r, key)));
      std::vector<std::string> kinds, notes;
      for (const auto& g : r.guardrails) kinds.push_back(g.kind), notes.push_back(g.note);
      const auto* removed = bound_removed(r);
      row.insert(row.end(), {r.not_recommended, joined(kinds, " "), joined(notes, "; "), raw(r.static_only_us),
                             removed ? raw(removed->predicted_us) : "", removed ? raw(removed->gain_pct) : "",
                             p.gpu_warning});
      for (const auto& w : r.what_ifs) row.insert(row.end(), {raw(w.predicted_us), raw(w.gain_pct)});
    }
    // The interval and the reliable gain, last.
    t.headers.insert(t.headers.end(), {"predicted_low_us", "predicted_high_us", "interval_basis", "reliable_gain",
                                       "gain_threshold_pct"});
    for (std::size_t i = 0; i < p.rows.size(); ++i) {
      const AppPredictionRow& r = p.rows[i];
      t.rows[i].insert(t.rows[i].end(), {raw(r.predicted_low_us), raw(r.predicted_high_us), r.interval_basis,
                                         r.reliable_gain ? (*r.reliable_gain ? "1" : "0") : "",
                                         raw(p.gain_threshold_pct)});
    }
    // The predicted energy, last, where the device profile has energy coefficients.
    if (!p.energy_source.empty()) {
      t.headers.push_back("predicted_energy_mj");
      t.headers.push_back("predicted_dynamic_energy_mj");
      for (std::size_t i = 0; i < p.rows.size(); ++i) {
        t.rows[i].push_back(raw(p.rows[i].predicted_energy_mj));
        t.rows[i].push_back(raw(p.rows[i].predicted_dynamic_energy_mj));
      }
    }
    return t;
  }
  if (p.grouped)
    t.headers = {"kernel", "launches", "grid / block", "total measured (us)", "measured (us)", "predicted (us)",
                 "error", "bound", "speed of light", "best block", "predicted gain", "without the bound"};
  else
    t.headers = {"launch", "kernel", "grid / block", "measured (us)", "predicted (us)", "error", "bound",
                 "speed of light", "best block", "predicted gain", "without the bound"};
  for (const auto& w : p.what_ifs) t.headers.push_back("what-if " + w);
  t.headers.push_back("note");
  // The 80 % interval beside the predicted time, where the device profile has intervals.
  const bool intervals = !p.interval_source.empty();
  const auto interval_at = std::find(t.headers.begin(), t.headers.end(), "predicted (us)") - t.headers.begin() + 1;
  if (intervals) t.headers.insert(t.headers.begin() + interval_at, "80 % interval (us)");
  const bool energy = !p.energy_source.empty();
  if (energy) t.headers.insert(t.headers.end() - 1, "predicted energy (mJ)");
  for (const auto& r : p.rows) {
    std::vector<std::string> row;
    if (p.grouped) row = {r.kernel, launches_cell(r, true)};
    else row = {launches_cell(r, false), r.kernel};
    row.push_back(shape(r.grid) + " / " + shape(r.block));
    if (p.grouped) row.push_back(fixed(r.total_measured_us, 2));
    row.insert(row.end(), {fixed(r.measured_us, 2), fixed(r.predicted_us, 2), fixed(r.error_pct, 1, " %", true),
                           r.bound.empty() ? "-" : r.bound, speed_of_light_summary(r.speed_of_light), best_shape(r),
                           r.not_recommended.empty() ? fixed(r.gain_pct, 1, " %") : "-",
                           alternative_cell(bound_removed(r))});
    for (const auto& w : r.what_ifs) row.push_back(alternative_cell(&w));
    if (energy) row.push_back(fixed(r.predicted_energy_mj, 4));
    row.push_back(note_cell(r));
    if (intervals)
      row.insert(row.begin() + interval_at, r.predicted_low_us ? fixed(r.predicted_low_us, 2) + "-" +
                                                                   fixed(r.predicted_high_us, 2)
                                                             : "-");
    t.rows.push_back(std::move(row));
  }
  return t;
}

json to_json(const AppPrediction& p) {
  json rows = json::array();
  for (const auto& r : p.rows) {
    json row = {{"kernel", r.kernel},
                {"mangled", r.mangled},
                {"launch_indices", r.launch_indices},
                {"grid", dims(r.grid)},
                {"block", dims(r.block)},
                {"measured_us", optional_number(r.measured_us)},
                {"total_measured_us", r.total_measured_us},
                {"predicted_us", optional_number(r.predicted_us)},
                {"error_pct", optional_number(r.error_pct)},
                {"bound", r.bound},
                {"best_block", r.best_block ? dims(*r.best_block) : json(nullptr)},
                {"best_grid", r.best_grid ? dims(*r.best_grid) : json(nullptr)},
                {"best_predicted_us", optional_number(r.best_predicted_us)},
                {"gain_pct", optional_number(r.gain_pct)},
                {"static_fields", r.static_fields},
                {"note", r.note}};
    json guardrails = json::array(), sol = json::object();
    for (const auto& g : r.guardrails)
      guardrails.push_back({{"kind", g.kind}, {"note", g.note}, {"withholds", g.withholds.empty() ? json(nullptr) : json(g.withholds)}});
    for (const auto& c : r.speed_of_light) sol[c.key] = c.share;
    row["guardrails"] = guardrails;
    row["not_recommended"] = r.not_recommended.empty() ? json(nullptr) : json(r.not_recommended);
    row["static_only_us"] = optional_number(r.static_only_us);
    row["speed_of_light"] = sol;
    row["what_ifs"] = alternatives_json(r.what_ifs);
    row["bound_removed"] = alternatives_json(r.bound_removed);
    row["predicted_low_us"] = optional_number(r.predicted_low_us);
    row["predicted_high_us"] = optional_number(r.predicted_high_us);
    row["interval_basis"] = r.interval_basis.empty() ? json(nullptr) : json(r.interval_basis);
    row["reliable_gain"] = r.reliable_gain ? json(*r.reliable_gain) : json(nullptr);
    row["gain_threshold_pct"] = p.gain_threshold_pct;
    if (!p.energy_source.empty()) {
      row["predicted_energy_mj"] = optional_number(r.predicted_energy_mj);
      row["predicted_dynamic_energy_mj"] = optional_number(r.predicted_dynamic_energy_mj);
    }
    rows.push_back(std::move(row));
  }
  return {{"model", p.model},   {"device", p.device}, {"profile", p.profile}, {"sass", p.sass},
          {"grouped", p.grouped}, {"rows", rows},      {"notes", p.notes},
          {"profile_gpu", p.profile_gpu}, {"device_gpu", p.device_gpu},
          {"gpu_warning", p.gpu_warning.empty() ? json(nullptr) : json(p.gpu_warning)}, {"what_ifs", p.what_ifs}};
}

}  // namespace warpmodel::sass
