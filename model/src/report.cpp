#include "warpmodel/report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "warpmodel/model.hpp"

namespace warpmodel {
namespace {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += (c == '"') ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string md_field(const std::string& s) {
  std::string out;
  for (char c : s) out += (c == '|') ? std::string("\\|") : std::string(1, c);
  return out;
}

std::string latex_field(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': case '%': case '$': case '#': case '_': case '{': case '}': out += '\\'; out += c; break;
      case '^': out += "\\^{}"; break;
      case '~': out += "\\textasciitilde{}"; break;
      case '\\': out += "\\textbackslash{}"; break;
      case '|': out += "\\textbar{}"; break;
      default: out += c;
    }
  }
  return out;
}

// recomputed - printed, with floating-point dust (below 1e-9 relative) shown as 0.
std::string format_difference(double recomputed, double printed) {
  const double diff = recomputed - printed;
  return format_number(std::fabs(diff) < 1e-9 * std::max(1.0, std::fabs(printed)) ? 0.0 : diff, 6);
}

}  // namespace

std::string format_number(double value, int significant) {
  if (std::isnan(value)) return "-";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buf[64];
  const double mag = std::fabs(value);
  if (mag != 0 && (mag >= 1e12 || mag < 1e-4)) {
    std::snprintf(buf, sizeof buf, "%.*g", significant, value);
    return buf;
  }
  // Fixed notation with enough decimals for `significant` digits, trailing zeros trimmed.
  const int int_digits = mag < 1 ? 1 : static_cast<int>(std::floor(std::log10(mag))) + 1;
  const int decimals = std::max(0, significant - int_digits);
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  std::string s = buf;
  if (s.find('.') != std::string::npos) {
    s.erase(s.find_last_not_of('0') + 1);
    if (s.back() == '.') s.pop_back();
  }
  return s == "-0" ? "0" : s;
}

std::string format_dim3(const Dim3& d) {
  return std::to_string(d.x) + "x" + std::to_string(d.y) + "x" + std::to_string(d.z);
}

std::string Table::render(TableFormat format) const {
  std::ostringstream out;
  if (format == TableFormat::Csv) {
    auto line = [&](const std::vector<std::string>& cells) {
      for (std::size_t i = 0; i < cells.size(); ++i) out << (i ? "," : "") << csv_field(cells[i]);
      out << "\n";
    };
    line(headers);
    for (const auto& r : rows) line(r);
    return out.str();
  }
  if (format == TableFormat::Latex) {  // a booktabs tabular, numbers right-aligned
    out << "\\begin{tabular}{" << std::string(headers.size(), 'l') << "}\n\\toprule\n";
    auto line = [&](const std::vector<std::string>& cells) {
      for (std::size_t i = 0; i < cells.size(); ++i) out << (i ? " & " : "") << latex_field(cells[i]);
      out << " \\\\\n";
    };
    line(headers);
    out << "\\midrule\n";
    for (const auto& r : rows) line(r);
    out << "\\bottomrule\n\\end{tabular}\n";
    return out.str();
  }
  if (format == TableFormat::Markdown) {
    auto line = [&](const std::vector<std::string>& cells) {
      out << "|";
      for (const auto& c : cells) out << " " << md_field(c) << " |";
      out << "\n";
    };
    line(headers);
    out << "|";
    for (std::size_t i = 0; i < headers.size(); ++i) out << "---|";
    out << "\n";
    for (const auto& r : rows) line(r);
    return out.str();
  }
  std::vector<std::size_t> width(headers.size(), 0);
  for (std::size_t i = 0; i < headers.size(); ++i) width[i] = headers[i].size();
  for (const auto& r : rows)
    for (std::size_t i = 0; i < r.size() && i < width.size(); ++i) width[i] = std::max(width[i], r[i].size());
  auto line = [&](const std::vector<std::string>& cells) {
    std::string text;
    for (std::size_t i = 0; i < cells.size(); ++i) {
      text += cells[i];
      if (i + 1 < cells.size()) text += std::string(width[i] - cells[i].size() + 2, ' ');
    }
    out << text << "\n";
  };
  line(headers);
  std::size_t total = 0;
  for (auto w : width) total += w + 2;
  out << std::string(total > 2 ? total - 2 : total, '-') << "\n";
  for (const auto& r : rows) line(r);
  return out.str();
}

Table prediction_table(std::span<const Prediction> predictions) {
  Table t;
  t.headers = {"term", "eq"};
  for (const auto& p : predictions) t.headers.emplace_back(to_string(p.variant));
  // A term no listed variant uses ("-" everywhere) is left out.
  auto add = [&](const char* name, const char* eq, auto get) {
    std::vector<std::string> row{name, eq};
    bool used = false;
    for (const auto& p : predictions) {
      row.push_back(get(p));
      used = used || row.back() != "-";
    }
    if (used) t.rows.push_back(std::move(row));
  };
  auto num = [](double Prediction::*field) { return [field](const Prediction& p) { return format_number(p.*field); }; };
  auto occ_num = [](auto field) {
    return [field](const Prediction& p) { return format_number(static_cast<double>(p.occupancy.*field)); };
  };
  add("blocks/SM: fit (limiter)", "occ", [](const Prediction& p) {
    return std::to_string(p.occupancy.blocks_per_sm) + " (" + std::string(to_string(p.occupancy.limiter)) + ")";
  });
  add("blocks/SM: resident", "occ", occ_num(&Occupancy::resident_blocks_per_sm));
  add("N (warps/SM)", "4.30", occ_num(&Occupancy::n));
  add("#active_SMs", "4.5.4", occ_num(&Occupancy::active_sms));
  add("#total_warps", "4.29", occ_num(&Occupancy::total_warps));
  add("#Rep", "HK", occ_num(&Occupancy::rep));
  add("waves", "HK", occ_num(&Occupancy::waves));
  for (const PredictionTerm& term : prediction_terms()) add(term.label, term.equation, num(term.member));
  add("bound", "H.10", [](const Prediction& p) { return p.bound.empty() ? std::string("-") : p.bound; });
  // The MWP-CWP variants' verdict; hopper's is its bound above (its case would be a second, coarser one).
  add("case", "", [](const Prediction& p) {
    return p.variant == ModelVariant::Hopper ? std::string("-") : std::string(to_string(p.model_case));
  });
  add("cycles", "4.1", num(&Prediction::cycles));
  add("time (us)", "", [](const Prediction& p) { return format_number(p.seconds * 1e6, 6); });
  return t;
}

Table sweep_table(const SweepResult& sweep, std::size_t top) {
  Table t;
  t.headers = {"rank", "block", "grid", "threads", "blocks/SM", "N", "limiter", "waves", "bound", "cycles", "time_us",
               "sectors/request", "L1 hit %", "L2 bytes/warp", "memory counters"};
  const std::size_t n = std::min(top, sweep.ranked.size());
  for (std::size_t i = 0; i < n; ++i) {
    const SweepEntry& e = sweep.ranked[i];
    const Occupancy& o = e.prediction.occupancy;
    const KernelProfile& k = e.profile;
    t.rows.push_back({std::to_string(i + 1), format_dim3(e.block), format_dim3(e.grid), std::to_string(e.block.count()),
                      std::to_string(o.blocks_per_sm), format_number(o.n), std::string(to_string(o.limiter)),
                      std::to_string(o.waves),
                      // hopper's bound; the MWP-CWP variants' case
                      e.prediction.bound.empty() ? std::string(to_string(e.prediction.model_case)) : e.prediction.bound,
                      format_number(e.prediction.cycles), format_number(e.prediction.seconds * 1e6, 6),
                      format_number(k.transactions_per_request, 4), format_number(100 * (1 - k.l1_miss_ratio), 3),
                      k.l2_bytes_per_warp ? format_number(*k.l2_bytes_per_warp, 5) : "-", e.counters});
  }
  return t;
}

Table thesis_rows_table(const ThesisReproduction& r) {
  Table t;
  t.headers = {"quantity", "eq", "thesis", "recomputed", "difference", "verdict", "reading"};
  for (const auto& row : r.rows)
    t.rows.push_back({row.quantity, row.equation, format_number(row.printed), format_number(row.recomputed),
                      format_difference(row.recomputed, row.printed), row.matches() ? "match" : "DIFFERS", row.reading});
  return t;
}

Table thesis_cells_table(const ThesisReproduction& r) {
  Table t;
  t.headers = {"table", "order", "warps/SM", "thesis", "recomputed", "difference", "8-warp inputs, N changed", "status"};
  for (const auto& c : r.cells) {
    const std::string rec = c.recomputed ? format_number(*c.recomputed) : "-";
    const std::string diff = c.recomputed ? format_difference(*c.recomputed, c.printed) : "-";
    const std::string fixed = c.with_fixed_inputs ? format_number(*c.with_fixed_inputs) : "-";
    t.rows.push_back({c.table, std::to_string(c.order), std::to_string(c.warps), format_number(c.printed), rec, diff,
                      fixed, c.status});
  }
  return t;
}

namespace {

std::string percent(double fraction) { return std::isnan(fraction) ? "-" : format_number(100 * fraction, 3) + "%"; }
std::string split_name(Split s) { return s == Split::Training ? "training" : "held-out"; }

}  // namespace

Table validation_rows_table(const ValidationResult& v) {
  Table t;
  t.headers = {"family", "kernel", "size", "shape", "warps_per_sm", "split", "model", "measured_cycles",
               "sm_cycles_elapsed", "predicted_cycles", "signed_error", "abs_error", "bound", "error"};
  for (const auto& r : v.rows) {
    const ValidationCase& c = v.cases[r.case_index];
    t.rows.push_back({c.family, c.kernel, c.size, c.shape, c.warps_per_sm ? format_number(*c.warps_per_sm) : "",
                      split_name(r.split), std::string(to_string(r.variant)), format_number(r.measured_cycles, 10),
                      c.sm_cycles_elapsed ? format_number(*c.sm_cycles_elapsed, 10) : "",
                      r.error.empty() ? format_number(r.predicted_cycles, 10) : "",
                      r.error.empty() ? format_number(r.signed_error, 6) : "",
                      r.error.empty() ? format_number(std::fabs(r.signed_error), 6) : "", r.bound, r.error});
  }
  return t;
}

namespace {
// Three decimals, not three significant digits: 0.995 must not print as 1.
std::string rank_correlation(double rho) {
  if (std::isnan(rho)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", rho);
  return buf;
}
}  // namespace

Table validation_summary_table(const ValidationResult& v) {
  Table t;
  t.headers = {"model", "held-out cases", "MAPE", "median |error|", "max |error|", "Spearman", "kernels x sizes",
               "top-1 shape", "shape within 5%"};
  for (std::size_t i = 0; i < v.summaries.size(); ++i) {
    const VariantSummary& s = v.summaries[i];
    const ShapeChoiceSummary& c = v.shape_summaries[i];
    t.rows.push_back({std::string(to_string(s.variant)), std::to_string(s.cases), percent(s.mape),
                      percent(s.median_abs_error), percent(s.max_abs_error), rank_correlation(s.spearman),
                      std::to_string(c.groups), percent(c.top1_hit_rate), percent(c.within_5_percent_rate)});
  }
  return t;
}

Table shape_choice_table(const ValidationResult& v) {
  Table t;
  t.headers = {"kernel | size", "model", "predicted best shape", "measured best shape", "slowdown of the choice"};
  for (const auto& c : v.shape_choices)
    t.rows.push_back({c.group, std::string(to_string(c.variant)), c.predicted_best, c.measured_best, percent(c.slowdown)});
  return t;
}

Table class_score_table(const std::vector<ClassScore>& classes, const std::optional<ClassScore>& pooled) {
  Table t;
  t.headers = {"class", "cases", "MAPE", "median |error|", "mean signed error", "within 10%", "within 25%"};
  auto add = [&](const ClassScore& s) {
    t.rows.push_back({s.kernel_class, std::to_string(s.cases), percent(s.mape), percent(s.median_abs_error),
                      (s.mean_signed_error >= 0 ? "+" : "") + percent(s.mean_signed_error), percent(s.within_10_percent),
                      percent(s.within_25_percent)});
  };
  for (const auto& s : classes) add(s);
  if (pooled) add(*pooled);
  return t;
}

Table held_out_rows_table(const std::vector<ValidationCase>& cases, const HeldOutEvaluation& e,
                          const std::string& evaluation, Table into) {
  if (into.headers.empty())
    into.headers = {"evaluation", "class", "family", "kernel", "size", "shape", "measured_cycles", "predicted_cycles",
                    "signed_error", "abs_error", "bound", "error"};
  for (std::size_t r = 0; r < e.rows.size(); ++r) {
    const ValidationRow& row = e.rows[r];
    const ValidationCase& c = cases[row.case_index];
    const bool ok = row.error.empty();
    into.rows.push_back({evaluation, e.row_class[r], c.family, c.kernel, c.size, c.shape,
                         format_number(row.measured_cycles, 10), ok ? format_number(row.predicted_cycles, 10) : "",
                         ok ? format_number(row.signed_error, 6) : "", ok ? format_number(std::fabs(row.signed_error), 6) : "",
                         row.bound, row.error});
  }
  return into;
}

std::vector<TitledTable> validation_layout_tables(const ValidationResult& v) {
  // rows of one variant, by case
  std::map<std::pair<std::size_t, ModelVariant>, const ValidationRow*> row_of;
  std::vector<ModelVariant> variants;
  for (const auto& r : v.rows) {
    row_of[{r.case_index, r.variant}] = &r;
    if (std::find(variants.begin(), variants.end(), r.variant) == variants.end()) variants.push_back(r.variant);
  }
  std::map<std::string, std::vector<std::size_t>> by_table;  // "family, size" -> cases
  for (std::size_t i = 0; i < v.cases.size(); ++i) by_table[v.cases[i].family + " " + v.cases[i].size].push_back(i);
  std::vector<TitledTable> out;
  for (auto& [title, members] : by_table) {
    std::stable_sort(members.begin(), members.end(), [&](std::size_t a, std::size_t b) {
      const ValidationCase &x = v.cases[a], &y = v.cases[b];
      if (x.kernel != y.kernel) return x.kernel < y.kernel;
      if (x.warps_per_sm.value_or(0) != y.warps_per_sm.value_or(0)) return x.warps_per_sm.value_or(0) < y.warps_per_sm.value_or(0);
      return x.shape < y.shape;
    });
    TitledTable tt;
    tt.title = title;
    tt.table.headers = {"kernel", "warps/SM", "shape", "split", "measured cycles"};
    for (ModelVariant m : variants) tt.table.headers.push_back(std::string(to_string(m)) + " (error)");
    for (std::size_t i : members) {
      const ValidationCase& c = v.cases[i];
      std::vector<std::string> row{c.kernel, c.warps_per_sm ? format_number(*c.warps_per_sm) : "-", c.shape,
                                   split_name(v.split[i]), format_number(c.measured_cycles(), 7)};
      for (ModelVariant m : variants) {
        const ValidationRow* r = row_of[{i, m}];
        row.push_back(!r || !r->error.empty() ? "-"
                                              : format_number(r->predicted_cycles, 7) + " (" +
                                                    (r->signed_error >= 0 ? "+" : "") + percent(r->signed_error) + ")");
      }
      tt.table.rows.push_back(std::move(row));
    }
    out.push_back(std::move(tt));
  }
  return out;
}

}  // namespace warpmodel
