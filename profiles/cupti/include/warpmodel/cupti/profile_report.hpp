// The result of profiling a workload: one record per kernel launch with its launch shape, its
// duration (Activity API) and its metric values (Range Profiler), plus the device and provenance.
// Value types and their writers (JSON `warpmodel.profile/1`, CSV); plain C++, no CUPTI.
//
// JSON (README "CUPTI collection"):
//   { "schema": "warpmodel.profile/1", "workload": "...", "complete": true, "device": {...}, "provenance": {...},
//     "collection": {"range_mode", "replay_mode", "passes", "metrics": [...], "derived": {name: expression}},
//     "launches": [ { "kernel", "demangled", "label", "launch_index", "grid", "block",
//                     "registers_per_thread", "shared_memory_per_block_bytes", "duration_ns",
//                     "duration_ns_runs", "metrics": {perfworks: value}, "derived": {nvprof: value} } ] }
// A profiled application (`profile -- APP`) adds "application" {command, exit_code | signal},
// "incomplete_reason" when "complete" is false, "cubins" (the folder of its modules' cubins,
// relative to the JSON file), and per launch "application_launch_index" and "process_id".
// CSV: long ("tidy") form, one row per launch x metric, so pandas reads it directly and
//   df.pivot_table(index=["workload", "launch_index", "kernel"], columns="metric", values="value")
// gives one row per launch. Columns: see kCsvHeader.
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace warpmodel::cupti {

inline constexpr const char* kProfileSchema = "warpmodel.profile/1";
inline constexpr const char* kCsvHeader =
    "workload,launch_index,label,kernel,demangled,grid_x,grid_y,grid_z,block_x,block_y,block_z,"
    "registers_per_thread,shared_memory_per_block_bytes,duration_ns,metric,value,source,expression";

struct LaunchRecord {
  std::string kernel;     // mangled name, as the Activity API reports it
  std::string demangled;  // demangled with the C++ ABI
  std::string label;      // the workload's name for this launch ("solve-x", "order 4 smem")
  std::size_t launch_index = 0;
  std::array<int, 3> grid{0, 0, 0}, block{0, 0, 0};
  // Blocks of a thread-block cluster (the Activity API's clusterX/Y/Z); absent without clusters.
  std::optional<std::array<int, 3>> cluster;
  int registers_per_thread = 0;
  long long shared_memory_per_block_bytes = 0;  // static + dynamic
  double duration_ns = 0;                       // median of the timed runs
  std::vector<double> duration_ns_runs;         // every timed run, in order
  std::map<std::string, double> metrics;        // Perfworks name -> value (NaN if CUPTI gave none)
  std::map<std::string, double> derived;        // nvprof name -> value, computed from `metrics`
  // A profiled application's launches: the launch's number among all of its process's kernel
  // launches (profiled or not, from 0), and the process.
  std::optional<std::size_t> application_launch_index;
  std::optional<long long> process_id;
};

struct DeviceSummary {
  std::string name;  // "NVIDIA H200"
  std::string chip;  // CUPTI's chip name, "GH100"
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  long long l2_cache_bytes = 0;
  long long global_memory_bytes = 0;
  double max_sm_clock_mhz = 0;
};

struct Provenance {
  std::string gpu, driver, cuda;  // driver: NVML's string (e.g. "580.159.04"); cuda: runtime version "13.0"
  double sm_clock_mhz = 0;        // NVML SM clock just before collection (0 when NVML is unavailable);
                                  // for `profile -- APP`, just after its first profiled launch
  double sm_clock_mhz_after = 0;  // and just after (APP: its last profiled launch)
  std::string date;               // UTC, ISO 8601
  std::string commit;             // git short hash (+dirty)
  std::string command;            // the command line
  std::string cupti_version;      // CUPTI API version number
};

struct CollectionInfo {
  std::string range_mode;   // "auto" (AutoRange) or "user" (UserRange)
  std::string replay_mode;  // "kernel" (KernelReplay) or "user" (UserReplay)
  std::size_t passes = 0;   // replay passes the configuration needed
  std::size_t max_ranges = 0;
  bool l2_flushed_before_each_pass = false;
  bool l2_flushed_before_each_launch = false;  // timed runs and passes alike (ncu's --cache-control all)
  int timing_runs = 0;
  std::vector<std::string> metrics;              // Perfworks names collected
  std::map<std::string, std::string> derived;    // nvprof name -> expression
  std::vector<std::string> requested;            // the request as given
};

// How a profiled application ended (`profile -- APP`).
struct ApplicationRun {
  std::string command;            // APP and its arguments, shell-quoted
  std::optional<int> exit_code;   // it exited with this status
  std::optional<int> signal;      // or a signal ended it
  bool succeeded() const { return exit_code && *exit_code == 0; }
};

struct ProfileReport {
  std::string workload;  // what ran, e.g. "copy n=67108864 block=256"
  DeviceSummary device;
  Provenance provenance;
  CollectionInfo collection;
  std::vector<LaunchRecord> launches;
  // false: the launches seen before the application failed, not all of its launches.
  bool complete = true;
  std::string incomplete_reason;
  std::optional<ApplicationRun> application;
  std::string cubins;  // folder of the loaded modules' cubins, relative to the JSON file ("" = none)
};

nlohmann::json to_json(const ProfileReport& r);
// One launch as to_json(ProfileReport) writes it under "launches".
nlohmann::json to_json(const LaunchRecord& l);
// Reads what to_json writes (strict on the fields it needs); `origin` names the input in errors
// (warpmodel::InputError).
ProfileReport profile_report_from_json(const nlohmann::json& j, const std::string& origin);
// The CSV text (header kCsvHeader, then one row per launch x metric: Perfworks metrics first with
// source "perfworks", then derived nvprof values with source "nvprof" and their expression).
std::string to_csv(const ProfileReport& r);

// C++ ABI demangling; the input when it is not a mangled name.
std::string demangle(const std::string& mangled);
// Quotes a CSV field when it holds a comma, quote or newline (RFC 4180).
std::string csv_field(const std::string& s);

}  // namespace warpmodel::cupti
