// The external validation set's tables: launches.csv, apps.csv, summary.md and validation.md's
// section (external_set.hpp). Nothing here computes a prediction.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "warpmodel/sass/external_set.hpp"
#include "warpmodel/support/text.hpp"

namespace warpmodel::sass {
namespace {

using nlohmann::json;

const std::vector<std::string> kHalves = {"development", "held-out"};

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}
std::string pct(double v) { return fixed(v, 1) + " %"; }
std::string signed_pct(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%+.1f %%", v);
  return buf;
}

// A cell that stays on one line of a Markdown table, cut at `width` characters.
std::string cell(const std::string& text, std::size_t width = 90) {
  return text.size() <= width ? text : text.substr(0, width - 3) + "...";
}

std::vector<const ExternalLaunch*> worst(const ExternalSet& set, const std::string& half, std::size_t count) {
  std::vector<const ExternalLaunch*> out;
  for (const auto& l : set.launches)
    if (l.half == half && l.error_pct && l.measured_us >= kExternalShortLaunchUs) out.push_back(&l);
  std::sort(out.begin(), out.end(), [](const ExternalLaunch* a, const ExternalLaunch* b) {
    if (std::abs(*a->error_pct) != std::abs(*b->error_pct)) return std::abs(*a->error_pct) > std::abs(*b->error_pct);
    return std::tie(a->app, a->kernel, a->grid, a->block) < std::tie(b->app, b->kernel, b->grid, b->block);
  });
  if (out.size() > count) out.resize(count);
  return out;
}

std::set<std::string> bounds_scored(const ExternalSet& set) {
  std::set<std::string> out;
  for (const auto& l : set.launches)
    if (l.error_pct && l.measured_us >= kExternalShortLaunchUs) out.insert(l.bound.empty() ? "-" : l.bound);
  return out;
}

// The bound whose launches >= 20 us of a half miss most (largest MAPE; at least 3 launches when one has).
std::string worst_bound(const ExternalSet& set, const std::string& half) {
  std::string name;
  double mape = -1, signed_error = 0;
  std::size_t count = 0;
  bool enough = false;
  for (const auto& b : bounds_scored(set)) {
    const auto a = external_accuracy(external_errors(set, half, true, b == "-" ? "" : b));
    if (!a) continue;
    const bool big = a->count >= 3;
    if ((big && !enough) || (big == enough && a->mape > mape))
      name = b, mape = a->mape, signed_error = a->mean_signed, count = a->count, enough = big;
  }
  if (name.empty()) return "-";
  return name + " " + signed_pct(signed_error) + " (MAPE " + pct(mape) + ", " + std::to_string(count) + (count == 1 ? " launch)" : " launches)");
}

Table accuracy_table(const ExternalSet& set, bool with_worst) {
  Table t;
  t.headers = {"launches", "half", "count", "MAPE", "median abs error", "within 10 %", "within 25 %", "under-predicted",
               "mean signed error"};
  if (with_worst) t.headers.push_back("worst bound (mean signed error)");
  for (bool long_launches : {true, false}) {
    for (const std::string half : {"development", "held-out", ""}) {
      const auto a = external_accuracy(external_errors(set, half, long_launches));
      std::vector<std::string> row = {long_launches ? ">= 20 us" : "< 20 us", half.empty() ? "both" : half};
      if (!a) {
        row.insert(row.end(), {"0", "-", "-", "-", "-", "-", "-"});
      } else {
        row.insert(row.end(), {std::to_string(a->count), pct(a->mape), pct(a->median_abs), pct(a->within_10),
                               pct(a->within_25), pct(a->under), signed_pct(a->mean_signed)});
      }
      if (with_worst) row.push_back(long_launches && !half.empty() ? worst_bound(set, half) : "-");
      t.rows.push_back(row);
    }
  }
  return t;
}

Table bound_table(const ExternalSet& set) {
  Table t;
  t.headers = {"bound"};
  for (const auto& h : kHalves)
    for (const char* c : {"count", "MAPE", "mean signed", "under-predicted"}) t.headers.push_back(h + " " + c);
  for (const auto& b : bounds_scored(set)) {
    std::vector<std::string> row = {b};
    for (const auto& h : kHalves) {
      std::vector<double> errors;
      for (const auto& l : set.launches)
        if (l.error_pct && l.half == h && l.measured_us >= kExternalShortLaunchUs && (l.bound.empty() ? "-" : l.bound) == b)
          errors.push_back(*l.error_pct);
      const auto a = external_accuracy(errors);
      if (!a) row.insert(row.end(), {"0", "-", "-", "-"});
      else row.insert(row.end(), {std::to_string(a->count), pct(a->mape), signed_pct(a->mean_signed), pct(a->under)});
    }
    t.rows.push_back(row);
  }
  return t;
}

Table app_table(const ExternalSet& set) {
  Table t;
  t.headers = {"application", "suite", "half", "status", "distinct launches", ">= 20 us", "MAPE >= 20 us",
               "median signed >= 20 us", "worst launch >= 20 us"};
  std::vector<const ExternalAppResult*> apps;
  for (const auto& a : set.apps) apps.push_back(&a);
  auto lower = [](std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
  };
  std::stable_sort(apps.begin(), apps.end(), [&](const ExternalAppResult* a, const ExternalAppResult* b) {
    return std::make_pair(a->app->half, lower(a->app->name)) < std::make_pair(b->app->half, lower(b->app->name));
  });
  for (const auto* a : apps) {
    std::vector<double> errors;
    const ExternalLaunch* worst_launch = nullptr;
    for (const auto& l : set.launches)
      if (l.app == a->app->name && l.error_pct && l.measured_us >= kExternalShortLaunchUs) {
        errors.push_back(*l.error_pct);
        if (!worst_launch || std::abs(*l.error_pct) > std::abs(*worst_launch->error_pct)) worst_launch = &l;
      }
    const auto acc = external_accuracy(errors);
    t.rows.push_back({a->app->name, a->app->suite, a->app->half, a->status, a->scored() ? std::to_string(a->distinct) : "-",
                      a->scored() ? std::to_string(a->distinct_long) : "-", acc ? pct(acc->mape) : "-",
                      acc ? signed_pct(acc->median_signed) : "-",
                      worst_launch ? cell(worst_launch->kernel, 50) + " " + signed_pct(*worst_launch->error_pct) + " (" +
                                         (worst_launch->bound.empty() ? "-" : worst_launch->bound) + ")"
                                   : "-"});
  }
  return t;
}

std::string fmt_optional(const std::optional<double>& v, int decimals) { return v ? fixed(*v, decimals) : ""; }

std::string suites_line(const ExternalSet& set) {
  std::vector<std::string> parts;
  for (const auto& s : set.suites)
    parts.push_back(s.suite + " " + s.repository + " at " + (s.commit.empty() ? "an unrecorded commit" : s.commit));
  return "Sources: " + support::join(parts, "; ") + ".";
}

}  // namespace

Table external_launches_table(const ExternalSet& set) {
  Table t;
  t.headers = {"app", "suite", "half", "kernel", "grid", "block", "launches", "measured_us", "predicted_us", "error_pct",
               "bound", "note"};
  t.headers.insert(t.headers.end(), kExternalProvenanceColumns.begin(), kExternalProvenanceColumns.end());
  for (const auto& l : set.launches) {
    std::vector<std::string> row = {l.app, l.suite, l.half, l.kernel, l.grid, l.block, std::to_string(l.launches),
                                    fixed(l.measured_us, 3), fmt_optional(l.predicted_us, 3), fmt_optional(l.error_pct, 2),
                                    l.bound, l.note};
    row.insert(row.end(), l.provenance.begin(), l.provenance.end());
    t.rows.push_back(std::move(row));
  }
  return t;
}

Table external_apps_table(const ExternalSet& set) {
  Table t;
  t.headers = {"app", "suite", "half", "status", "reason", "build_exit", "build_seconds", "run_exit", "run_seconds",
               "profiled_launches", "distinct_launches", "distinct_launches_20us", "folder", "build", "run",
               "profile_options", "sass", "repository", "repository_commit"};
  for (const auto& a : set.apps) {
    auto status = [&](const char* key) {
      const auto it = a.app->status.find(key);
      return it == a.app->status.end() ? std::string() : it->second;
    };
    std::string repository, commit;
    for (const auto& s : set.suites)
      if (s.suite == a.app->suite) repository = s.repository, commit = s.commit;
    t.rows.push_back({a.app->name, a.app->suite, a.app->half, a.status, a.reason, status("build_exit"),
                      status("build_seconds"), status("run_exit"), status("run_seconds"),
                      a.scored() ? std::to_string(a.profiled_launches) : "", a.scored() ? std::to_string(a.distinct) : "",
                      a.scored() ? std::to_string(a.distinct_long) : "", a.app->folder, a.app->build, a.app->run,
                      a.app->profile_options, a.app->profile ? a.app->sass : "", repository, commit});
  }
  return t;
}

std::string external_summary_markdown(const ExternalSet& set) {
  std::ostringstream md;
  md << "# External validation set: measured against predicted\n\n"
     << "Public CUDA applications nobody here wrote, each built from its own sources and run once under "
        "`warpmodel profile -- APP` (`scripts/external_suite.sh`); their profiles are kept in `profiles.json.xz` "
        "and their cubins in `cubins.json.xz`, and `warpmodel validate --from` predicts every launch with the current `"
     << set.model << "` model and this GPU's `device.json` (its constants fitted on the project's corpus only), as "
        "`predict-app` does for a user (docs/validation.md, \"External validation set\"). The halves were fixed in "
        "`scripts/external_suite.list` before any model term saw these applications; the held-out half is scored, "
        "never fitted on (docs/model.md names the one term whose first form was turned down on its score).\n\n"
     << "A distinct launch is one kernel at one grid and block shape within an application (its repeated launches "
        "grouped, median times); the error is (predicted - measured) / measured; + over-predicted, - under-predicted. "
        "Every row is in `launches.csv`, every application in `apps.csv`.\n\n"
     << suites_line(set) << "\n\n";

  md << "## Applications\n\n";
  Table apps;
  apps.headers = {"half", "listed", "built", "scored", "not scored", "distinct launches", "launches >= 20 us",
                  "below 20 us", "no prediction"};
  for (const std::string half : {"development", "held-out", ""}) {
    std::size_t listed = 0, built = 0, scored = 0, launches = 0, big = 0, small = 0, none = 0;
    for (const auto& a : set.apps) {
      if (!half.empty() && a.app->half != half) continue;
      ++listed;
      const auto it = a.app->status.find("build_exit");
      built += it != a.app->status.end() && it->second == "0";
      scored += a.scored();
    }
    for (const auto& l : set.launches) {
      if (!half.empty() && l.half != half) continue;
      ++launches;
      (l.measured_us >= kExternalShortLaunchUs ? big : small) += 1;
      none += !l.error_pct;
    }
    apps.rows.push_back({half.empty() ? "both" : half, std::to_string(listed), std::to_string(built),
                         std::to_string(scored), std::to_string(listed - scored), std::to_string(launches),
                         std::to_string(big), std::to_string(small), std::to_string(none)});
  }
  md << apps.render(TableFormat::Markdown);
  // The applications not scored in full, one line per status and reason (in the list's order).
  std::vector<std::pair<std::string, std::vector<std::string>>> trouble;
  for (const auto& a : set.apps) {
    if (a.status == "ok") continue;
    const std::string why = a.status + (a.reason.empty() ? "" : ": " + a.reason);
    auto it = std::find_if(trouble.begin(), trouble.end(), [&](const auto& t) { return t.first == why; });
    if (it == trouble.end()) it = trouble.insert(trouble.end(), {why, {}});
    it->second.push_back(a.app->name + " (" + a.app->half + ")");
  }
  if (!trouble.empty()) {
    md << "\nNot scored in full:\n\n";
    for (const auto& [why, names] : trouble)
      md << "- " << why << " (" << names.size() << "): " << support::join(names) << "\n";
  }

  md << "\n## Accuracy over distinct launches\n\n" << accuracy_table(set, true).render(TableFormat::Markdown) << "\n";

  for (const auto& half : kHalves) {
    md << "## The ten worst launches >= 20 us: " << half << "\n\n";
    const auto w = worst(set, half, 10);
    if (w.empty()) {
      md << "None scored.\n\n";
      continue;
    }
    Table t;
    t.headers = {"application", "kernel", "grid / block", "measured (us)", "predicted (us)", "error", "bound"};
    for (const auto* l : w)
      t.rows.push_back({l->app, cell(l->kernel), l->grid + " / " + l->block, fixed(l->measured_us, 3),
                        fixed(*l->predicted_us, 3), signed_pct(*l->error_pct), l->bound.empty() ? "-" : l->bound});
    md << t.render(TableFormat::Markdown) << "\n";
  }

  md << "## By bound (launches >= 20 us)\n\n" << bound_table(set).render(TableFormat::Markdown) << "\n";
  md << "## By application\n\n" << app_table(set).render(TableFormat::Markdown) << "\n";

  md << "## Provenance\n\n";
  std::map<std::vector<std::string>, std::vector<std::string>> measured;  // gpu, driver, cuda, clock, commit -> dates
  for (const auto& l : set.launches)
    if (l.provenance.size() == kExternalProvenanceColumns.size())
      measured[{l.provenance[0], l.provenance[1], l.provenance[2], l.provenance[3], l.provenance[5]}].push_back(l.provenance[4]);
  if (measured.empty()) md << "No launch scored yet.\n";
  for (const auto& [key, dates] : measured) {
    const auto [low, high] = std::minmax_element(dates.begin(), dates.end());
    md << "- " << key[0] << ", driver " << key[1] << ", CUDA " << key[2] << ", "
       << (key[3] == "not recorded" ? std::string("SM clock not recorded") : "SM clock " + key[3] + " MHz")
       << ", warpmodel commit " << key[4] << ", measured " << *low << (*high != *low ? " to " + *high : "") << ": "
       << dates.size() << " distinct launches\n";
  }
  md << "- per launch: `measurement_command` in launches.csv (run in the application's folder, apps.csv's `folder`); "
        "per application: its build and run lines, where its SASS came from (`sass`) and the suite's repository and "
        "commit in apps.csv\n"
     << "- predicted by `warpmodel validate --from` with the " << set.model << " model and " << set.device
     << "'s device.json, from profiles.json.xz and cubins.json.xz\n";
  return md.str();
}

std::string external_validation_section(const ExternalSet& set) {
  std::ostringstream md;
  std::size_t scored = 0;
  for (const auto& a : set.apps) scored += a.scored();
  md << "## External validation set (" << set.model << ")\n\n"
     << "Public CUDA applications (" << set.apps.size() << " listed, " << scored
     << " scored) profiled once with `profile -- APP` on this GPU and predicted here from `external/profiles.json.xz` "
        "and `cubins.json.xz` "
        "with the constants above (fitted on the project's corpus only); the development half may guide model "
        "terms, the held-out half is only scored. Per launch and per application: `external/summary.md`, "
        "`external/launches.csv`, `external/apps.csv`. + over-predicted, - under-predicted.\n\n"
     << accuracy_table(set, true).render(TableFormat::Markdown) << "\n"
     << "By bound (launches >= 20 us):\n\n"
     << bound_table(set).render(TableFormat::Markdown) << "\n"
     << "By application:\n\n"
     << app_table(set).render(TableFormat::Markdown) << "\n";
  return md.str();
}

json external_summary_json(const ExternalSet& set) {
  json out = json::object();
  out["model"] = set.model;
  std::size_t scored = 0;
  for (const auto& a : set.apps) scored += a.scored();
  out["applications"] = {{"listed", set.apps.size()}, {"scored", scored}};
  for (const std::string half : {"development", "held-out"}) {
    for (bool long_launches : {true, false}) {
      const auto a = external_accuracy(external_errors(set, half, long_launches));
      json j = nullptr;
      if (a)
        j = {{"count", a->count},         {"mape_pct", a->mape},         {"median_abs_pct", a->median_abs},
             {"within_10_pct", a->within_10}, {"within_25_pct", a->within_25}, {"under_predicted_pct", a->under},
             {"mean_signed_pct", a->mean_signed}};
      if (a && long_launches) j["worst_bound"] = worst_bound(set, half);
      out[half][long_launches ? "at_least_20us" : "below_20us"] = j;
    }
  }
  return out;
}

}  // namespace warpmodel::sass
