// The external validation set read and predicted (external_set.hpp). Output: external_set_report.cpp.
#include "warpmodel/sass/external_set.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>

#include "warpmodel/json_io.hpp"
#include "warpmodel/model.hpp"
#include "warpmodel/sass/app_prediction.hpp"
#include "warpmodel/sass/merge.hpp"
#include "warpmodel/sass/tools.hpp"
#include "warpmodel/support/progress.hpp"
#include "warpmodel/support/statistics.hpp"
#include "warpmodel/support/text.hpp"

namespace warpmodel::sass {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string text_field(const json& j, const char* key, const std::string& where, bool required = true) {
  if (!j.contains(key) || j[key].is_null()) {
    if (required) throw InputError(where + ": no field '" + key + "' (expected a string)");
    return "";
  }
  if (!j[key].is_string()) throw InputError(where + ": field '" + key + "': expected a string, got " + j[key].dump().substr(0, 40));
  return j[key].get<std::string>();
}

// A folder of its own under the system's temporary folder, removed with everything in it.
struct ScratchFolder {
  fs::path path;
  ScratchFolder() {
    std::string pattern = (fs::temp_directory_path() / "warpmodel-external-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw InputError("cannot create a temporary folder under " + fs::temp_directory_path().string());
    path = pattern;
  }
  ~ScratchFolder() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;
};

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

// "65536" for a 1D shape, "64x64" for 2D, "8x8x4" for 3D (predict-app's spelling).
std::string shape(const Dim3& d) {
  if (d.z == 1 && d.y == 1) return std::to_string(d.x);
  if (d.z == 1) return std::to_string(d.x) + "x" + std::to_string(d.y);
  return std::to_string(d.x) + "x" + std::to_string(d.y) + "x" + std::to_string(d.z);
}

// The SM clock of the profile's NVML readings above zero (their mean), or "not recorded".
std::string clock_text(const json& p) {
  double sum = 0;
  int n = 0;
  for (const char* key : {"sm_clock_mhz", "sm_clock_mhz_after"})
    if (p.contains(key) && p[key].is_number() && p[key].get<double>() > 0 && std::isfinite(p[key].get<double>()))
      sum += p[key].get<double>(), ++n;
  return n ? fixed(sum / n, 1) : "not recorded";
}

// "13000" (the runtime's number) -> "13.0"; "13.0" stays.
std::string cuda_text(const json& v) {
  std::string text = v.is_string() ? v.get<std::string>() : v.is_number() ? std::to_string(v.get<long long>()) : "";
  if (text.size() >= 4 && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    const long long n = std::stoll(text);
    return std::to_string(n / 1000) + "." + std::to_string(n % 1000 / 10);
  }
  return text;
}

// A measurement command with the work folder's absolute path (on the GPU machine) as .work/.
std::string relative_command(const std::string& command) {
  static const std::regex work(R"((^|[\s'"=])/[^\s'"]*/\.work/)");
  return std::regex_replace(command, work, "$1.work/");
}

std::string shell_quote(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./-_") ==
                        std::string::npos)
    return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\"'\"'") : std::string(1, c);
  return out + "'";
}

}  // namespace

const json& ExternalBundle::last_run() const {
  static const json none = json::object();
  return runs.empty() ? none : runs.back();
}

namespace {

// The card that measured an application: the UUID of the run record (one per call) its status.run_date
// names; profiles carry no UUID of their own, and one folder's applications may span several cards.
std::string gpu_uuid_of(const ExternalApp& app, const std::vector<json>& runs) {
  const auto run_date = app.status.find("run_date");
  if (run_date != app.status.end())
    for (const json& run : runs)
      if (run.is_object() && run.value("date", std::string()) == run_date->second && run.contains("gpu_uuid") &&
          run["gpu_uuid"].is_string())
        return run["gpu_uuid"].get<std::string>();
  return "not recorded";
}

// The provenance columns of an application's launches: its profile's own record, else the last run
// record's with the application's run date and the `warpmodel profile` command of its list line.
std::vector<std::string> provenance_cells(const ExternalApp& app, const ExternalBundle& bundle) {
  const json& last_run = bundle.last_run();
  const std::string uuid = gpu_uuid_of(app, bundle.runs);
  const json p = app.profile && app.profile->contains("provenance") ? (*app.profile)["provenance"] : json();
  auto has = [](const json& j, const char* key) { return j.is_object() && j.contains(key) && !j[key].is_null(); };
  if (has(p, "gpu") && has(p, "driver") && has(p, "cuda") && has(p, "date") && has(p, "commit") && has(p, "command")) {
    auto s = [&](const char* key) { return p[key].is_string() ? p[key].get<std::string>() : p[key].dump(); };
    return {s("gpu"), uuid, s("driver"), cuda_text(p["cuda"]), clock_text(p), s("date"), s("commit"), relative_command(s("command"))};
  }
  for (const char* key : {"gpu", "driver", "cuda", "commit"})
    if (!has(last_run, key))
      throw InputError(bundle.origin + ": application " + app.name + ": its profile has no provenance and the last run record no '" +
                       key + "'");
  const auto run_date = app.status.find("run_date");
  if (run_date == app.status.end())
    throw InputError(bundle.origin + ": application " + app.name + ": no status.run_date for the provenance of its launches");
  auto s = [&](const char* key) { return last_run[key].is_string() ? last_run[key].get<std::string>() : last_run[key].dump(); };
  const std::string options = app.profile_options.empty() || app.profile_options == "-" ? "" : " " + app.profile_options;
  return {s("gpu"), uuid, s("driver"), cuda_text(last_run["cuda"]), "not recorded", run_date->second, s("commit"),
          "warpmodel profile -o .work/" + app.name + "/profile" + options + " -- bash -c " + shell_quote(app.run)};
}

std::string status_of(const ExternalApp& app, const std::string& key) {
  const auto it = app.status.find(key);
  return it == app.status.end() ? "" : it->second;
}

bool has_status(const ExternalApp& app, const std::string& key) { return app.status.count(key) > 0; }

}  // namespace

ExternalBundle external_bundle_from_json(const json& j, const std::string& origin, const json& cubins,
                                         const std::string& cubins_origin) {
  const bool have_cubins = !cubins.is_null();
  if (have_cubins && (!cubins.is_object() || !cubins.contains("schema") || cubins["schema"] != kExternalCubinsSchema ||
                      !cubins.contains("applications") || !cubins["applications"].is_object()))
    throw InputError(cubins_origin + ": expected a " + std::string(kExternalCubinsSchema) +
                     " document with \"applications\" (written by scripts/external_bundle.py beside " + origin + ")");
  if (!j.is_object() || !j.contains("schema") || j["schema"] != kExternalProfilesSchema)
    throw InputError(origin + ": expected a " + std::string(kExternalProfilesSchema) +
                     " document (field 'schema'; written by scripts/external_bundle.py)");
  if (!j.contains("applications") || !j["applications"].is_array())
    throw InputError(origin + ": field 'applications': expected an array");
  ExternalBundle b;
  b.origin = origin;
  if (j.contains("suites") && j["suites"].is_array())
    for (std::size_t i = 0; i < j["suites"].size(); ++i) {
      const json& s = j["suites"][i];
      const std::string where = origin + ": suites[" + std::to_string(i) + "]";
      if (!s.is_object()) throw InputError(where + ": expected an object");
      b.suites.push_back({text_field(s, "suite", where), text_field(s, "repository", where), text_field(s, "commit", where, false)});
    }
  if (j.contains("runs") && j["runs"].is_array())
    for (const json& run : j["runs"])
      if (run.is_object()) b.runs.push_back(run);
  for (std::size_t i = 0; i < j["applications"].size(); ++i) {
    const json& a = j["applications"][i];
    const std::string where = origin + ": applications[" + std::to_string(i) + "]";
    if (!a.is_object()) throw InputError(where + ": expected an object");
    ExternalApp app;
    app.name = text_field(a, "app", where);
    const std::string named = where + " (" + app.name + ")";
    app.suite = text_field(a, "suite", named);
    app.half = text_field(a, "half", named);
    if (app.half != "development" && app.half != "held-out")
      throw InputError(named + ": field 'half': '" + app.half + "', expected development or held-out");
    app.folder = text_field(a, "folder", named);
    app.build = text_field(a, "build", named);
    app.run = text_field(a, "run", named);
    app.profile_options = text_field(a, "profile_options", named, false);
    if (a.contains("status")) {
      if (!a["status"].is_object()) throw InputError(named + ": field 'status': expected an object");
      for (const auto& [k, v] : a["status"].items()) {
        if (!v.is_string()) throw InputError(named + ": field 'status." + k + "': expected a string");
        app.status[k] = v.get<std::string>();
      }
    }
    if (a.contains("profile") && !a["profile"].is_null()) {
      if (!a["profile"].is_object()) throw InputError(named + ": field 'profile': expected a warpmodel.profile/1 object or null");
      app.profile = a["profile"];
    }
    if (a.contains("cubins")) {
      if (!a["cubins"].is_array())
        throw InputError(named + ": field 'cubins': expected an array of {\"file\", \"bytes\"}");
      for (std::size_t c = 0; c < a["cubins"].size(); ++c) {
        const json& entry = a["cubins"][c];
        const std::string field = named + ": cubins[" + std::to_string(c) + "]";
        if (!entry.is_object() || !entry.contains("bytes") || !entry["bytes"].is_number_integer() ||
            entry["bytes"].get<long long>() < 0)
          throw InputError(field + ": expected {\"file\": NAME, \"bytes\": SIZE}");
        const std::string file = text_field(entry, "file", field);
        if (file.empty() || file.find('/') != std::string::npos || file.find("..") != std::string::npos ||
            fs::path(file).extension() != ".cubin")
          throw InputError(field + ": '" + file + "' is not a plain .cubin file name");
        const json* data = nullptr;
        if (have_cubins && cubins["applications"].contains(app.name) && cubins["applications"][app.name].is_object() &&
            cubins["applications"][app.name].contains(file))
          data = &cubins["applications"][app.name][file];
        if (!data)
          throw InputError((have_cubins ? cubins_origin : origin + " (no cubins.json.xz beside it)") + ": no cubin " +
                           file + " of application " + app.name + ", which " + origin + " names");
        const std::optional<std::string> bytes =
            data->is_string() ? support::base64_decode(data->get<std::string>()) : std::nullopt;
        if (!bytes)
          throw InputError(cubins_origin + ": field 'applications." + app.name + "." + file + "': expected base64 text");
        if (static_cast<long long>(bytes->size()) != entry["bytes"].get<long long>())
          throw InputError(cubins_origin + ": cubin " + file + " of application " + app.name + " holds " +
                           std::to_string(bytes->size()) + " bytes, " + origin + " says " +
                           std::to_string(entry["bytes"].get<long long>()) + " (files from different runs?)");
        app.cubins[file] = *bytes;
      }
    }
    app.sass = text_field(a, "sass", named, false);
    app.profile_missing = text_field(a, "profile_missing", named, false);
    if (std::any_of(b.apps.begin(), b.apps.end(), [&](const ExternalApp& o) { return o.name == app.name; }))
      throw InputError(named + ": listed twice");
    b.apps.push_back(std::move(app));
  }
  return b;
}

std::optional<ExternalAccuracy> external_accuracy(const std::vector<double>& errors) {
  if (errors.empty()) return std::nullopt;
  ExternalAccuracy a;
  a.count = errors.size();
  std::vector<double> absolute;
  for (double e : errors) {
    absolute.push_back(std::abs(e));
    a.mape += std::abs(e);
    a.mean_signed += e;
    a.within_10 += std::abs(e) <= 10.0;
    a.within_25 += std::abs(e) <= 25.0;
    a.under += e < 0;
  }
  const double n = static_cast<double>(errors.size());
  a.mape /= n;
  a.mean_signed /= n;
  a.within_10 *= 100.0 / n;
  a.within_25 *= 100.0 / n;
  a.under *= 100.0 / n;
  a.median_abs = support::median(absolute);
  a.median_signed = support::median(errors);
  return a;
}

std::vector<double> external_errors(const ExternalSet& set, const std::string& half, bool long_launches,
                                    const std::string& bound) {
  std::vector<double> out;
  for (const auto& l : set.launches)
    if (l.error_pct && (half.empty() || l.half == half) && (l.measured_us >= kExternalShortLaunchUs) == long_launches &&
        (bound.empty() || l.bound == bound))
      out.push_back(*l.error_pct);
  return out;
}

ExternalSet predict_external_set(const ExternalBundle& bundle, const DeviceProfile& device, ModelVariant variant) {
  ExternalSet set;
  set.origin = bundle.origin;
  set.model = std::string(to_string(variant));
  set.device = device.name;
  set.suites = bundle.suites;
  const std::string not_run_reason =
      bundle.last_run().contains("not_run_reason") && bundle.last_run()["not_run_reason"].is_string()
          ? bundle.last_run()["not_run_reason"].get<std::string>()
          : "built only";
  for (const ExternalApp& app : bundle.apps) {
    ExternalAppResult r;
    r.app = &app;
    const std::string run_exit = status_of(app, "run_exit");
    if (app.status.empty()) {
      r.status = "not run";
    } else if (status_of(app, "build_exit") != "0") {
      r.status = "build failed", r.reason = status_of(app, "build_reason");
    } else if (!has_status(app, "run_exit")) {
      r.status = "not run", r.reason = not_run_reason;
    } else if (run_exit == "124" || run_exit == "137") {
      r.status = "timeout", r.reason = status_of(app, "run_reason");
    } else if (!app.profile) {
      r.status = app.profile_missing.empty() ? "profile failed" : "not kept";
      r.reason = app.profile_missing.empty() ? status_of(app, "run_reason") : app.profile_missing;
      if (r.reason.empty()) r.reason = "no profile";
    } else {
      r.status = run_exit == "0" ? "ok" : "app error";
      r.reason = run_exit == "0" ? "" : status_of(app, "run_reason");
    }
    if (r.scored()) {
      const std::string where = bundle.origin + " (" + app.name + ")";
      try {
        const CounterFile counters = counters_from_json(*app.profile, where);
        if (counters.launches.empty()) throw InputError("no launch profiled");
        if (app.cubins.empty()) throw InputError(app.profile_missing.empty() ? "no cubins kept" : app.profile_missing);
        support::progress("validate", "external set: " + app.name + " (" + std::to_string(counters.launches.size()) +
                                          " launches)");
        ScratchFolder scratch;
        for (const auto& [file, bytes] : app.cubins) {
          std::ofstream out(scratch.path / file, std::ios::binary);
          out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
          if (!out) throw InputError("cannot write " + (scratch.path / file).string());
        }
        const BinaryAnalysis analysis = analyse_cubin_folder(scratch.path.string());
        const AppPrediction p =
            predict_application(counters, analysis.kernels, device, variant, true, app.name + "'s cubins");
        const std::vector<std::string> provenance = provenance_cells(app, bundle);
        // Distinct launches in the order of their first launch (predict_application orders groups by time).
        std::vector<const AppPredictionRow*> rows;
        for (const auto& row : p.rows) rows.push_back(&row);
        std::stable_sort(rows.begin(), rows.end(), [](const AppPredictionRow* a, const AppPredictionRow* b) {
          return *std::min_element(a->launch_indices.begin(), a->launch_indices.end()) <
                 *std::min_element(b->launch_indices.begin(), b->launch_indices.end());
        });
        for (const AppPredictionRow* row : rows) {
          if (!row->measured_us) continue;  // a launch without a duration is not scored
          ExternalLaunch l;
          l.app = app.name, l.suite = app.suite, l.half = app.half;
          l.kernel = row->kernel;
          l.grid = shape(row->grid), l.block = shape(row->block);
          l.launches = static_cast<int>(row->launch_indices.size());
          l.measured_us = *row->measured_us;
          l.predicted_us = row->predicted_us;
          if (l.predicted_us && l.measured_us > 0) l.error_pct = 100.0 * (*l.predicted_us - l.measured_us) / l.measured_us;
          l.bound = row->bound;
          l.note = row->note;
          l.provenance = provenance;
          r.profiled_launches += row->launch_indices.size();
          ++r.distinct;
          r.distinct_long += l.measured_us >= kExternalShortLaunchUs;
          set.launches.push_back(std::move(l));
        }
      } catch (const InputError& e) {
        r.status = "predict failed", r.reason = e.what();
      } catch (const ModelError& e) {
        r.status = "predict failed", r.reason = std::string("the model cannot evaluate it: ") + e.what();
      } catch (const AnalysisError& e) {
        r.status = "predict failed", r.reason = std::string("SASS: ") + e.what();
      }
      if (!r.scored()) {  // none of its rows count
        set.launches.erase(std::remove_if(set.launches.begin(), set.launches.end(),
                                          [&](const ExternalLaunch& l) { return l.app == app.name; }),
                           set.launches.end());
        r.profiled_launches = r.distinct = r.distinct_long = 0;
      }
    }
    set.apps.push_back(std::move(r));
  }
  return set;
}

}  // namespace warpmodel::sass
