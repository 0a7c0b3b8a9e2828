// The external validation set (docs/validation.md, "External validation set"): public CUDA
// applications measured once on a GPU with `warpmodel profile -- APP`, kept in two files per GPU
// (results/<gpu>/external/profiles.json.xz, schema warpmodel.external-profiles/1: per application its
// list line, status, profile and the names of its cubins; cubins.json.xz beside it,
// warpmodel.external-cubins/1: those cubins; both written by scripts/external_bundle.py), and
// predicted here with the current model, as `predict-app` predicts a user's application.
// `warpmodel validate --from DIR` writes the tables (external_set_report.cpp).
//
// A distinct launch is one kernel at one grid and block shape (and registers, shared memory) within
// an application; its repeated launches are grouped: measured and predicted times are their medians,
// the error is (predicted - measured) / measured of the medians. Statistics are over distinct
// launches, apart for those measured at >= 20 us and below.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "warpmodel/device_profile.hpp"
#include "warpmodel/prediction.hpp"
#include "warpmodel/report.hpp"
#include "warpmodel/sass/app_prediction.hpp"

namespace warpmodel::sass {

inline constexpr const char* kExternalProfilesSchema = "warpmodel.external-profiles/1";
inline constexpr const char* kExternalCubinsSchema = "warpmodel.external-cubins/1";
// Launches measured below this are reported apart (launch overheads dominate them).
inline constexpr double kExternalShortLaunchUs = kShortLaunchUs;

struct ExternalSuite {
  std::string suite, repository, commit;
};

// One application of the list, as the file keeps it.
struct ExternalApp {
  std::string name, suite, half, folder, build, run, profile_options;
  std::map<std::string, std::string> status;     // status.txt: build_exit, run_exit, run_reason, run_date, ...
  std::optional<nlohmann::json> profile;          // profile.json whole (warpmodel.profile/1)
  std::map<std::string, std::string> cubins;      // file name -> bytes (the cubins holding a launched kernel)
  std::string sass;                               // where the cubins came from
  std::string profile_missing;                    // why an application that ran has no profile
};

struct ExternalBundle {
  std::string origin;
  std::vector<ExternalSuite> suites;
  std::vector<ExternalApp> apps;
  // Every run record (one per call of scripts/external_suite.sh), each with its date, GPU and UUID: an
  // application's status.run_date names the call, hence the card, that measured it.
  std::vector<nlohmann::json> runs;
  // The last run record's (gpu, driver, cuda, commit, not_run_reason): the provenance of launches whose
  // profile carries none, and why an application built and never run was not run (an empty object
  // without runs).
  const nlohmann::json& last_run() const;
};

// Throws InputError naming the file and the field when `profiles` is not a warpmodel.external-profiles/1
// document or `cubins` not the warpmodel.external-cubins/1 document beside it (the halves checked; every
// cubin an application names there, valid base64 of the size it gives). `cubins` may be null when no
// application names a cubin.
ExternalBundle external_bundle_from_json(const nlohmann::json& profiles, const std::string& origin,
                                         const nlohmann::json& cubins = nullptr, const std::string& cubins_origin = "");

// The provenance columns of a launch row, in order (launches.csv).
inline const std::vector<std::string> kExternalProvenanceColumns = {
    "gpu", "gpu_uuid", "driver", "cuda", "sm_clock_mhz", "measured_date", "measured_commit", "measurement_command"};

struct ExternalLaunch {
  std::string app, suite, half, kernel, grid, block;
  int launches = 0;
  double measured_us = 0;
  std::optional<double> predicted_us, error_pct;
  std::string bound, note;
  std::vector<std::string> provenance;  // kExternalProvenanceColumns' values
};

struct ExternalAppResult {
  const ExternalApp* app = nullptr;
  std::string status;  // ok, app error, timeout, build failed, not run, not kept, profile failed, predict failed
  std::string reason;
  std::size_t profiled_launches = 0, distinct = 0, distinct_long = 0;  // long: measured >= 20 us
  bool scored() const { return status == "ok" || status == "app error"; }
};

struct ExternalSet {
  std::string origin, model, device;
  std::vector<ExternalSuite> suites;
  std::vector<ExternalAppResult> apps;   // the list's order
  std::vector<ExternalLaunch> launches;  // by application, then by each distinct launch's first launch
};

// Every application's launches predicted with `variant` on `device` (its SASS analysed from the kept
// cubins, in a temporary folder). An application whose prediction fails as a whole is "predict failed"
// with the reason; a launch the model cannot evaluate keeps its measured time and a note.
ExternalSet predict_external_set(const ExternalBundle& bundle, const DeviceProfile& device, ModelVariant variant);

// Accuracy over distinct launches (errors in %): MAPE, median |error|, the shares within 10 % and 25 %,
// the share under-predicted, mean and median signed error. Nothing for no launch.
struct ExternalAccuracy {
  std::size_t count = 0;
  double mape = 0, median_abs = 0, within_10 = 0, within_25 = 0, under = 0, mean_signed = 0, median_signed = 0;
};
std::optional<ExternalAccuracy> external_accuracy(const std::vector<double>& errors_pct);

// The scored errors (%) of a half ("development", "held-out", or "" for both), long (>= 20 us) or short.
std::vector<double> external_errors(const ExternalSet& set, const std::string& half, bool long_launches,
                                    const std::string& bound = "");

// --- output (external_set_report.cpp) ---
Table external_launches_table(const ExternalSet& set);  // launches.csv
Table external_apps_table(const ExternalSet& set);      // apps.csv
std::string external_summary_markdown(const ExternalSet& set);  // summary.md
// validation.md's section: accuracy by half, by bound and by application (both halves), sign and worst bound.
std::string external_validation_section(const ExternalSet& set);
nlohmann::json external_summary_json(const ExternalSet& set);  // validation.json's "external"

}  // namespace warpmodel::sass
