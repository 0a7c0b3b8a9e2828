// predict-app's output: the table (text, markdown, CSV) and JSON (app_prediction.hpp). Nothing here
// computes.
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

// Below this predicted gain another shape is a tie within the model's resolution, not advice.
constexpr double kMeaningfulGainPct = 0.5;

std::string best_shape(const AppPredictionRow& r) {
  if (!r.best_block) return "-";
  if (*r.best_block == r.block) return "as profiled";
  if (r.gain_pct && *r.gain_pct < kMeaningfulGainPct) return "none better";
  return shape(*r.best_block) + " (grid " + shape(*r.best_grid) + ")";
}

std::string launches_cell(const AppPredictionRow& r, bool grouped) {
  if (!grouped) return std::to_string(r.launch_indices.front());
  return std::to_string(r.launch_indices.size());
}

json optional_number(const std::optional<double>& v) {
  return v && std::isfinite(*v) ? json(*v) : json(nullptr);
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
    }
    return t;
  }
  if (p.grouped)
    t.headers = {"kernel", "launches", "grid / block", "total measured (us)", "measured (us)", "predicted (us)",
                 "error", "bound", "best block", "predicted gain", "note"};
  else
    t.headers = {"launch", "kernel", "grid / block", "measured (us)", "predicted (us)", "error", "bound", "best block",
                 "predicted gain", "note"};
  for (const auto& r : p.rows) {
    std::vector<std::string> row;
    if (p.grouped) row = {r.kernel, launches_cell(r, true)};
    else row = {launches_cell(r, false), r.kernel};
    row.push_back(shape(r.grid) + " / " + shape(r.block));
    if (p.grouped) row.push_back(fixed(r.total_measured_us, 2));
    row.insert(row.end(), {fixed(r.measured_us, 2), fixed(r.predicted_us, 2), fixed(r.error_pct, 1, " %", true),
                           r.bound.empty() ? "-" : r.bound, best_shape(r), fixed(r.gain_pct, 1, " %"),
                           r.note.empty() ? "" : r.note});
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
    rows.push_back(std::move(row));
  }
  return {{"model", p.model},   {"device", p.device}, {"profile", p.profile}, {"sass", p.sass},
          {"grouped", p.grouped}, {"rows", rows},      {"notes", p.notes}};
}

}  // namespace warpmodel::sass
