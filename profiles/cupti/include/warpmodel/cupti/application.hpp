// `warpmodel profile -- APP`: profiling any application by injection (README "Your own kernels").
//
//   warpmodel (parent)                         APP (child), with libwarpmodel_inject.so injected
//   ------------------                         ---------------------------------------------------
//   writes InjectionConfig (JSON) to a         the CUDA driver loads the library named by
//   staging folder; runs APP with              CUDA_INJECTION64_PATH and calls its InitializeInjection;
//   CUDA_INJECTION64_PATH and                  it reads the config and appends one JSON line per event
//   WARPMODEL_INJECT_CONFIG set; waits         to the records file (flushed at once, so a crash keeps
//                                              what was seen) and writes each loaded module's cubin
//   reads the records, assembles the           to the cubin folder
//   ProfileReport (assemble_application_profile), writes PREFIX.json/.csv and PREFIX.cubins
//
// This header is the contract between the two and the parent's plain C++ part (no CUPTI): the
// config, which launches are profiled (LaunchSelector, used by the child), the record lines, the
// assembly, and running the application.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <regex>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "warpmodel/cupti/profile_report.hpp"

namespace warpmodel::cupti {

// The environment variable that names the config file for the injected library.
inline constexpr const char* kInjectConfigVariable = "WARPMODEL_INJECT_CONFIG";
// The injection library's file name; `warpmodel` looks for it beside its own executable.
inline constexpr const char* kInjectionLibraryName = "libwarpmodel_inject.so";
// The status with which the injected library ends APP after a fatal record (the parent reads the
// record, not this status).
inline constexpr int kInjectionAbortStatus = 86;

struct InjectionConfig {
  std::vector<std::string> metrics;  // the request (sets, Perfworks or nvprof names), resolved by the child
  std::string kernel_regex;          // ECMAScript, searched in the mangled and the demangled name ("" = all)
  std::size_t launch_skip = 0;       // matching launches to let pass first
  std::optional<std::size_t> launch_count;  // matching launches to profile after those (none = all)
  std::string records;               // the records file (JSON lines, appended)
  std::string cubins;                // the folder for the modules' cubins
};
nlohmann::json to_json(const InjectionConfig& c);
// Throws InputError naming `origin` and the field.
InjectionConfig injection_config_from_json(const nlohmann::json& j, const std::string& origin);

// Which launches are profiled, in launch order: those whose mangled or demangled name contains a
// match of the regex, after the first `skip` of them, at most `count` of them (ncu's -k regex:,
// --launch-skip, --launch-count).
class LaunchSelector {
 public:
  // Throws InputError for an invalid regex.
  LaunchSelector(const std::string& regex, std::size_t skip, std::optional<std::size_t> count);
  enum class Verdict { Profile, Skipped, NotMatched, Done };
  // Counts the launch and says what to do with it.
  Verdict next(const std::string& mangled, const std::string& demangled);
  std::size_t matched() const { return matched_; }

 private:
  std::optional<std::regex> regex_;
  std::size_t skip_ = 0;
  std::optional<std::size_t> count_;
  std::size_t matched_ = 0, profiled_ = 0;
};

// One record line, as the child writes them (every object has "event" and "pid"):
//   {"event":"process", "cupti_version", "driver_version"}       the library is initialised
//   {"event":"device", "device", "name", "chip", "compute_capability", "sm_count", "l2_cache_bytes",
//    "global_memory_bytes", "max_sm_clock_mhz", "metrics":[...], "derived":{name: expression},
//    "passes"}                                                    a context's device, set up for profiling
//   {"event":"module", "file", "bytes"}                           a loaded module's cubin, kept
//   {"event":"kernel", "kernel"}                                  a kernel name seen for the first time
//   {"event":"launch", "application_launch_index", "kernel", "demangled", "grid", "block",
//    "registers_per_thread", "static_shared_bytes", "dynamic_shared_bytes", "duration_ns",
//    "metrics":{...}, "derived":{...}, "sm_clock_mhz"}            a profiled launch (NVML's SM clock
//                                                                 just after it, where NVML reads it)
//   {"event":"launch_failed", "application_launch_index", "kernel", "message"}   not profiled, why
//   {"event":"warning", "message"}
//   {"event":"fatal", "exit_code", "message"}                     the child stops APP (exit code: ours)
//   {"event":"exit"}                                              APP's process is exiting normally

// What the parent knows about how APP ended.
struct ProcessOutcome {
  std::optional<int> exit_code;  // exited with this status
  std::optional<int> signal;     // or was ended by this signal
  bool succeeded() const { return exit_code && *exit_code == 0; }
  std::string describe() const;  // "exited with status 3", "was killed by signal 11 (Segmentation fault)"
};

struct AssemblyInputs {
  std::string app_command;       // APP and its arguments, shell-quoted
  std::string command;           // the warpmodel command line, for provenance
  std::string cubins;            // the cubin folder's name relative to PREFIX.json ("" = none kept)
  std::vector<std::string> requested;  // the metric request, for provenance
  InjectionConfig config;        // for messages (regex, skip, count)
  std::string records_origin;    // the records file, for messages
};

// What the parent makes of the records.
struct ApplicationProfile {
  enum class Status {
    Profiled,        // launches recorded; `report` complete or not
    Fatal,           // the child refused (fatal record): nothing to write; `exit_code` and `message`
    NoCuda,          // APP never initialised CUDA (no process record)
    NoLaunch,        // CUDA initialised, no kernel launched
    NothingMatched,  // kernels launched, none profiled (regex, skip)
  };
  Status status = Status::Profiled;
  ProfileReport report;
  int exit_code = 0;                  // Fatal: the code the child asked for
  std::string message;                // one line for the statuses other than Profiled
  std::vector<std::string> warnings;  // launch_failed and warning records, a truncated last line
  std::vector<std::string> kernels_seen;
  std::vector<std::string> modules;   // cubin files kept
};

// Builds the profile from the records' text. A last line cut short (the process died while writing
// it) is dropped with a warning; any other unreadable line is an InputError naming the line. The
// report is incomplete (complete = false) when APP did not succeed.
ApplicationProfile assemble_application_profile(const std::string& records, const ProcessOutcome& outcome,
                                                const AssemblyInputs& inputs);

// "another CUPTI client holds the GPU's profiler (<detail>): ..." with the way out for an
// application (ncu's own CSV and import-ncu).
std::string application_other_client_message(const std::string& detail);

// Running APP.
class ApplicationNotFound : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
// The path exec would run for `app`: with a '/' the file itself, else the first PATH entry that
// has it. Throws ApplicationNotFound (one line: not found, not a file, or not executable).
std::string resolve_application(const std::string& app);
// Runs argv (argv[0] resolved) with `environment` added to the current environment, standard
// streams inherited, and waits for it. SIGINT and SIGQUIT are ignored by the caller while it waits
// (a Ctrl-C reaches APP, which may end; the caller still writes what was recorded).
ProcessOutcome run_application(const std::vector<std::string>& argv, const std::map<std::string, std::string>& environment);

}  // namespace warpmodel::cupti
