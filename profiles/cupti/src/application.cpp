// The parent's side of `profile -- APP` and the contract with the injected library
// (application.hpp). Plain C++, no CUPTI.
#include "warpmodel/cupti/application.hpp"

#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>
#include <sstream>

#include "warpmodel/json_io.hpp"
#include "warpmodel/support/provenance.hpp"
#include "warpmodel/support/text.hpp"

extern char** environ;

namespace warpmodel::cupti {
namespace {

using nlohmann::json;

// "void ns::(anonymous namespace)::kernel<4>(int*)" -> "ns::(anonymous namespace)::kernel<4>".
std::string short_name(const std::string& demangled) {
  const std::string anonymous = "(anonymous namespace)", placeholder = "{anonymous}";
  std::string s = demangled;
  for (auto at = s.find(anonymous); at != std::string::npos; at = s.find(anonymous))
    s.replace(at, anonymous.size(), placeholder);
  int depth = 0;
  std::size_t start = 0, end = s.size();
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '<') ++depth;
    else if (s[i] == '>' && depth > 0) --depth;
    else if (s[i] == ' ' && depth == 0) start = i + 1;  // after a return type
    else if (s[i] == '(' && depth == 0) {
      end = i;
      break;
    }
  }
  s = s.substr(start, end - start);
  for (auto at = s.find(placeholder); at != std::string::npos; at = s.find(placeholder))
    s.replace(at, placeholder.size(), anonymous);
  return s;
}

double number_or_nan(const json& v) {
  return v.is_number() ? v.get<double>() : std::numeric_limits<double>::quiet_NaN();
}

std::array<int, 3> dims(const json& v, const std::string& where) {
  if (!v.is_array() || v.size() != 3) throw InputError(where + ": expected [x, y, z]");
  return {v[0].get<int>(), v[1].get<int>(), v[2].get<int>()};
}

std::string driver_text(int version) {
  if (version <= 0) return "";
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

}  // namespace

json to_json(const InjectionConfig& c) {
  return {{"metrics", c.metrics},
          {"kernel_regex", c.kernel_regex},
          {"launch_skip", c.launch_skip},
          {"launch_count", c.launch_count ? json(*c.launch_count) : json(nullptr)},
          {"records", c.records},
          {"cubins", c.cubins}};
}

InjectionConfig injection_config_from_json(const json& j, const std::string& origin) {
  auto field = [&](const char* name) -> const json& {
    if (!j.is_object() || !j.contains(name)) throw InputError(origin + ": missing field '" + name + "'");
    return j.at(name);
  };
  InjectionConfig c;
  try {
    c.metrics = field("metrics").get<std::vector<std::string>>();
    c.kernel_regex = field("kernel_regex").get<std::string>();
    c.launch_skip = field("launch_skip").get<std::size_t>();
    if (!field("launch_count").is_null()) c.launch_count = field("launch_count").get<std::size_t>();
    c.records = field("records").get<std::string>();
    c.cubins = field("cubins").get<std::string>();
  } catch (const json::exception& e) {
    throw InputError(origin + ": a field has the wrong type (" + e.what() + ")");
  }
  if (c.records.empty()) throw InputError(origin + ": field 'records' is empty");
  return c;
}

LaunchSelector::LaunchSelector(const std::string& regex, std::size_t skip, std::optional<std::size_t> count)
    : skip_(skip), count_(count) {
  if (!regex.empty()) {
    try {
      regex_.emplace(regex, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      throw InputError("--kernel-regex '" + regex + "': not a valid regular expression (ECMAScript: " + e.what() + ")");
    }
  }
}

LaunchSelector::Verdict LaunchSelector::next(const std::string& mangled, const std::string& demangled) {
  if (regex_ && !std::regex_search(mangled, *regex_) && !std::regex_search(demangled, *regex_))
    return Verdict::NotMatched;
  ++matched_;
  if (matched_ <= skip_) return Verdict::Skipped;
  if (count_ && profiled_ >= *count_) return Verdict::Done;
  ++profiled_;
  return Verdict::Profile;
}

std::string ProcessOutcome::describe() const {
  if (exit_code) return "exited with status " + std::to_string(*exit_code);
  if (signal) {
    const char* name = ::strsignal(*signal);
    return "was killed by signal " + std::to_string(*signal) + (name ? std::string(" (") + name + ")" : "");
  }
  return "ended in an unknown way";
}

ApplicationProfile assemble_application_profile(const std::string& records, const ProcessOutcome& outcome,
                                                const AssemblyInputs& in) {
  ApplicationProfile out;
  ProfileReport& r = out.report;
  bool saw_process = false, saw_device = false;
  std::optional<json> exit_counts;
  std::size_t failed_launches = 0;  // launches APP made that the injection could not profile
  std::string first_failure;
  std::set<std::string> seen;
  std::set<std::string> devices;
  std::map<std::string, int> occurrences;
  // Whole lines only: the last may have been cut short by a crash.
  std::vector<std::string> lines;
  {
    std::istringstream s(records);
    for (std::string line; std::getline(s, line);) lines.push_back(line);
  }
  const bool ends_cleanly = records.empty() || records.back() == '\n';
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    if (line.empty()) continue;
    const std::string where = in.records_origin + ":" + std::to_string(i + 1);
    json e;
    try {
      e = json::parse(line);
    } catch (const json::exception&) {
      if (i + 1 == lines.size() && !ends_cleanly) {
        out.warnings.push_back("the last record was cut short (APP ended while writing it); dropped");
        break;
      }
      throw InputError(where + ": not a record of the injected library (not one JSON object)");
    }
    if (!e.is_object() || !e.contains("event") || !e.at("event").is_string())
      throw InputError(where + ": a record without \"event\"");
    const std::string event = e.at("event").get<std::string>();
    const long long pid = e.value("pid", 0LL);
    try {
      if (event == "process") {
        saw_process = true;
        if (r.provenance.cupti_version.empty()) r.provenance.cupti_version = e.value("cupti_version", std::string());
        // The CUDA version the driver supports (the parent adds NVML's driver version).
        if (r.provenance.cuda.empty()) r.provenance.cuda = driver_text(e.value("driver_version", 0));
      } else if (event == "device") {
        const std::string name = e.value("name", std::string());
        devices.insert(name + " (device " + std::to_string(e.value("device", 0)) + ")");
        if (!saw_device) {
          saw_device = true;
          r.device.name = name;
          r.device.chip = e.value("chip", std::string());
          const std::string cc = e.value("compute_capability", std::string("0.0"));
          std::sscanf(cc.c_str(), "%d.%d", &r.device.cc_major, &r.device.cc_minor);
          r.device.sm_count = e.value("sm_count", 0);
          r.device.l2_cache_bytes = e.value("l2_cache_bytes", 0LL);
          r.device.global_memory_bytes = e.value("global_memory_bytes", 0LL);
          r.device.max_sm_clock_mhz = e.value("max_sm_clock_mhz", 0.0);
          r.collection.metrics = e.value("metrics", std::vector<std::string>());
          r.collection.derived = e.value("derived", std::map<std::string, std::string>());
          r.collection.passes = e.value("passes", std::size_t{0});
        }
      } else if (event == "module") {
        out.modules.push_back(e.value("file", std::string()));
      } else if (event == "kernel") {
        const std::string k = e.value("kernel", std::string());
        if (seen.insert(k).second) out.kernels_seen.push_back(k);
      } else if (event == "launch") {
        LaunchRecord l;
        l.kernel = e.at("kernel").get<std::string>();
        l.demangled = e.value("demangled", l.kernel);
        l.launch_index = r.launches.size();
        l.label = short_name(l.demangled) + " #" + std::to_string(occurrences[l.kernel]++);
        l.grid = dims(e.at("grid"), where + ": grid");
        l.block = dims(e.at("block"), where + ": block");
        l.registers_per_thread = e.value("registers_per_thread", 0);
        l.shared_memory_per_block_bytes = e.value("static_shared_bytes", 0LL) + e.value("dynamic_shared_bytes", 0LL);
        l.duration_ns = e.contains("duration_ns") ? number_or_nan(e.at("duration_ns")) : std::nan("");
        if (std::isfinite(l.duration_ns)) l.duration_ns_runs = {l.duration_ns};
        if (e.contains("metrics"))
          for (const auto& [k, v] : e.at("metrics").items()) l.metrics[k] = number_or_nan(v);
        if (e.contains("derived"))
          for (const auto& [k, v] : e.at("derived").items()) l.derived[k] = number_or_nan(v);
        // The run's SM clock: read after its first profiled launch and after its last (injection.cpp).
        if (e.contains("sm_clock_mhz") && e.at("sm_clock_mhz").is_number()) {
          if (r.provenance.sm_clock_mhz == 0) r.provenance.sm_clock_mhz = e.at("sm_clock_mhz").get<double>();
          r.provenance.sm_clock_mhz_after = e.at("sm_clock_mhz").get<double>();
        }
        l.application_launch_index = e.value("application_launch_index", std::size_t{0});
        l.process_id = pid;
        if (seen.insert(l.kernel).second) out.kernels_seen.push_back(l.kernel);
        r.launches.push_back(std::move(l));
      } else if (event == "launch_failed") {
        if (failed_launches++ == 0) first_failure = e.value("message", std::string());
        out.warnings.push_back("launch " + std::to_string(e.value("application_launch_index", 0)) + " of " +
                               short_name(demangle(e.value("kernel", std::string()))) + " (process " +
                               std::to_string(pid) + ") not profiled: " + e.value("message", std::string()));
      } else if (event == "warning") {
        out.warnings.push_back(e.value("message", std::string()) + " (process " + std::to_string(pid) + ")");
      } else if (event == "fatal") {
        out.status = ApplicationProfile::Status::Fatal;
        out.exit_code = e.value("exit_code", 1);
        out.message = e.value("message", std::string("the injected library stopped the application"));
        return out;
      } else if (event == "exit") {
        exit_counts = e;
      }
    } catch (const json::exception& x) {
      throw InputError(where + ": a malformed '" + event + "' record (" + x.what() + ")");
    }
  }
  if (devices.size() > 1)
    out.warnings.push_back("the launches ran on " + std::to_string(devices.size()) + " GPUs (" +
                           support::join({devices.begin(), devices.end()}) + "); the profile's device is the first");

  const std::string app = "APP (" + in.app_command + ")";
  if (r.launches.empty()) {
    if (!saw_process) {
      out.status = ApplicationProfile::Status::NoCuda;
      out.message = app + " " + outcome.describe() + " without initialising CUDA: no kernel to profile";
    } else if (out.kernels_seen.empty()) {
      out.status = ApplicationProfile::Status::NoLaunch;
      out.message = app + " " + outcome.describe() +
                    " and launched no CUDA kernel (kernels launched from CUDA graphs are not seen)";
    } else {
      out.status = ApplicationProfile::Status::NothingMatched;
      std::vector<std::string> names;
      std::size_t matching = 0;
      std::optional<std::regex> re;
      if (!in.config.kernel_regex.empty()) re.emplace(in.config.kernel_regex, std::regex::ECMAScript);
      for (const auto& k : out.kernels_seen) {
        const std::string d = demangle(k);
        names.push_back(short_name(d));
        if (!re || std::regex_search(k, *re) || std::regex_search(d, *re)) ++matching;
      }
      const std::string launched = "; APP launched " + support::join(names, ", ", 10);
      if (matching == 0) {
        out.message = "no kernel matches --kernel-regex '" + in.config.kernel_regex + "'" + launched;
      } else {
        std::string counts;
        if (exit_counts)
          counts = " (" + std::to_string(exit_counts->value("matched", 0)) + " matching launch(es) in all)";
        // Launches that ran but could not be profiled (APP's own error, say) are not skipped ones.
        if (failed_launches > 0)
          out.message = "no matching launch could be profiled: " + std::to_string(failed_launches) +
                        " failed (the first: " + first_failure + ")" + counts + launched;
        else
          out.message = "--launch-skip " + std::to_string(in.config.launch_skip) + " skipped every matching launch" +
                        counts + launched;
      }
    }
    return out;
  }

  r.workload = "application: " + in.app_command;
  r.complete = outcome.succeeded();
  if (!r.complete)
    r.incomplete_reason = "APP " + outcome.describe() + "; the " + std::to_string(r.launches.size()) +
                          " launch(es) profiled before are kept, later ones are missing";
  r.application = ApplicationRun{in.app_command, outcome.exit_code, outcome.signal};
  r.cubins = out.modules.empty() ? "" : in.cubins;
  r.collection.range_mode = "auto";
  r.collection.replay_mode = "kernel";
  r.collection.max_ranges = 1;
  r.collection.timing_runs = 0;
  r.collection.requested = in.requested;
  r.provenance.gpu = r.device.name;
  r.provenance.date = support::utc_now();
  r.provenance.commit = support::source_commit();
  r.provenance.command = in.command;
  return out;
}

std::string application_other_client_message(const std::string& detail) {
  return "another CUPTI client holds the GPU's profiler (" + detail +
         "): `warpmodel profile -- APP` injects its own, so do not run it under ncu, nsys or another profiler; to "
         "use ncu instead, run `ncu --csv --log-file R.csv --metrics ... APP` and `warpmodel import-ncu R.csv -o "
         "PROFILE.json --binary APP`";
}

std::string resolve_application(const std::string& app) {
  if (app.empty()) throw ApplicationNotFound("no application given after --");
  auto check = [&](const std::string& path, bool searched) -> std::optional<std::string> {
    struct stat st{};
    if (::stat(path.c_str(), &st) != 0) {
      if (searched) return std::nullopt;
      throw ApplicationNotFound(app + ": no such file");
    }
    if (!S_ISREG(st.st_mode)) {
      if (searched) return std::nullopt;
      throw ApplicationNotFound(app + ": not a file");
    }
    if (::access(path.c_str(), X_OK) != 0) {
      if (searched) return std::nullopt;
      throw ApplicationNotFound(app + ": not executable (chmod +x it)");
    }
    return path;
  };
  if (app.find('/') != std::string::npos) return *check(app, false);
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');)
    if (auto found = check((dir.empty() ? "." : dir) + "/" + app, true)) return *found;
  throw ApplicationNotFound(app + ": not found in PATH (give its path, e.g. ./" + app + ")");
}

ProcessOutcome run_application(const std::vector<std::string>& argv, const std::map<std::string, std::string>& added) {
  if (argv.empty()) throw ApplicationNotFound("no application given after --");
  const std::string path = resolve_application(argv[0]);
  // The environment: ours, with `added` set (replacing the same names).
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) {
    const std::string entry = *e;
    const std::string name = entry.substr(0, entry.find('='));
    if (!added.count(name)) env.push_back(entry);
  }
  for (const auto& [name, value] : added) env.push_back(name + "=" + value);
  std::vector<char*> envp, args;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_copy = argv;
  for (auto& a : argv_copy) args.push_back(a.data());
  args.push_back(nullptr);

  // While APP runs, a Ctrl-C is APP's to handle: this process ignores it (as system() does) so it
  // can still write what was recorded. APP gets the default dispositions back.
  struct sigaction ignore{}, old_int{}, old_quit{};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  ::sigaction(SIGINT, &ignore, &old_int);
  ::sigaction(SIGQUIT, &ignore, &old_quit);
  auto restore = [&] {
    ::sigaction(SIGINT, &old_int, nullptr);
    ::sigaction(SIGQUIT, &old_quit, nullptr);
  };
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGQUIT);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
  pid_t pid = 0;
  const int spawned = ::posix_spawn(&pid, path.c_str(), nullptr, &attr, args.data(), envp.data());
  posix_spawnattr_destroy(&attr);
  if (spawned != 0) {
    restore();
    throw ApplicationNotFound(argv[0] + ": cannot run it (" + std::strerror(spawned) + ")");
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      const int err = errno;
      restore();
      throw std::runtime_error(std::string("waitpid: ") + std::strerror(err));
    }
  }
  restore();
  ProcessOutcome o;
  if (WIFEXITED(status)) o.exit_code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status)) o.signal = WTERMSIG(status);
  return o;
}

}  // namespace warpmodel::cupti
