// libwarpmodel_inject.so: the library `warpmodel profile -- APP` injects into APP through the CUDA
// driver's CUDA_INJECTION64_PATH (the mechanism Nsight tools use). The driver loads it when APP
// initialises CUDA and calls InitializeInjection(), which subscribes to CUPTI's callbacks:
//   - driver API launches (cuLaunchKernel, cuLaunchKernelEx, cuLaunchCooperativeKernel and their
//     _ptsz forms; the runtime's launches go through them): every launch is counted and named;
//     a selected one (application.hpp LaunchSelector) is profiled by the Range Profiler, auto
//     range and kernel replay: enabled and started on API entry, stopped, decoded and evaluated on
//     API exit, then disabled (the sequence the in-process collector, profiler.cpp, uses);
//   - module loads: each module's cubin (as loaded: JIT-compiled PTX included) is kept.
// Everything it learns is appended, one JSON line per record and flushed at once, to the records
// file the config names (application.hpp lists the records), so a crash of APP loses nothing that
// was recorded. Fatal conditions (counters not permitted, another CUPTI client, unknown metric
// names) write a "fatal" record and end APP at once: profiling it further would measure nothing.
//
// Everything here runs inside APP, on APP's threads, from inside CUDA calls: no exception leaves a
// callback, no CUDA runtime call is made (APP may use any runtime version, or none), and no lock
// is held while waiting on another thread's launch (a launch selected while another thread's
// profiled launch is in flight is let through unprofiled, with a record saying so).
#include <cuda.h>
#include <cupti.h>  // also the driver API parameter structs (generated_cuda_meta.h)
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cupti_internal.hpp"
#include "nvml.hpp"
#include "range_profiler.hpp"
#include "warpmodel/cupti/application.hpp"
#include "warpmodel/cupti/metrics.hpp"
#include "warpmodel/cupti/profile_report.hpp"
#include "warpmodel/cupti/profiler.hpp"
#include "warpmodel/support/text.hpp"

namespace warpmodel::cupti::injection {
namespace {

using nlohmann::json;

// Room for a few ranges per launch: one is expected; more mean another thread launched a kernel
// while the range was open, and the launch is reported as not profiled rather than misattributed.
constexpr std::size_t kMaxRanges = 4;
constexpr const char* kDuration = "gpu__time_duration.sum";

std::string cuda_error_text(CUresult r) {
  const char* name = nullptr;
  const char* text = nullptr;
  cuGetErrorName(r, &name);
  cuGetErrorString(r, &text);
  return std::string(name ? name : "CUDA error " + std::to_string(static_cast<int>(r))) + (text ? std::string(": ") + text : "");
}

// The records file: one JSON object per line, written whole and flushed (a crash keeps every
// complete line).
class RecordWriter {
 public:
  void open(const std::string& path) {
    file_ = std::fopen(path.c_str(), "a");
    if (!file_) throw std::runtime_error("cannot open the records file " + path + ": " + std::strerror(errno));
  }
  void write(json record) {
    record["pid"] = static_cast<long long>(::getpid());
    const std::string line = record.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
    std::lock_guard<std::mutex> lock(mutex_);
    if (!file_) return;
    std::fwrite(line.data(), 1, line.size(), file_);
    std::fflush(file_);
  }

 private:
  std::mutex mutex_;
  std::FILE* file_ = nullptr;
};

// What one GPU needs to profile a launch: its chip's metric plan, host object and config image.
struct DeviceSetup {
  ChipMetrics chip;
  MetricPlan plan;
  detail::HostObject host;
  std::vector<std::uint8_t> config_image;
  std::size_t passes = 0;
  // The SM clock after each profiled launch (the run's provenance); unbound where NVML is missing.
  std::unique_ptr<ubench::Nvml> nvml;
};

// A profiled launch between its API entry and exit.
struct InFlight {
  std::unique_lock<std::mutex> lock;  // the one profiled launch at a time
  std::optional<detail::RangeProfiler> profiler;
  std::vector<std::uint8_t> counter_data;
  const DeviceSetup* device = nullptr;
  std::string kernel, demangled;
  std::size_t application_launch_index = 0;
  CUfunction function = nullptr;
  CUstream stream = nullptr;
  int grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  unsigned dynamic_shared_bytes = 0;
};

struct State {
  InjectionConfig config;
  RecordWriter records;
  std::optional<LaunchSelector> selector;
  std::mutex selector_mutex;
  std::atomic<std::size_t> launches{0}, profiled{0};
  std::mutex names_mutex;
  std::set<std::string> kernels_seen;
  std::mutex devices_mutex;
  std::map<int, std::unique_ptr<DeviceSetup>> devices;
  std::mutex launch_mutex;
  std::mutex modules_mutex;
  std::set<std::pair<std::size_t, std::uint64_t>> modules_kept;  // (size, hash) of the cubins written
  std::atomic<unsigned> next_module{0};
  std::atomic<bool> attribute_warning{false};
  CUpti_SubscriberHandle subscriber = nullptr;
};

State& state() {
  static State* s = new State;  // never destroyed: callbacks may still come during exit
  return *s;
}

// Writes the fatal record and ends APP: nothing further would be measured.
[[noreturn]] void fatal(int exit_code, const std::string& message) {
  json r = {{"event", "fatal"}, {"exit_code", exit_code}, {"message", message}};
  state().records.write(r);
  std::fprintf(stderr, "warpmodel profile (in the application): %s\n", message.c_str());
  std::fflush(stderr);
  ::_exit(kInjectionAbortStatus);
}

void warn(const std::string& message) { state().records.write({{"event", "warning"}, {"message", message}}); }

void launch_failed(const InFlight& f, const std::string& message) {
  state().records.write({{"event", "launch_failed"},
                         {"application_launch_index", f.application_launch_index},
                         {"kernel", f.kernel},
                         {"message", message}});
}

int device_attribute(CUdevice device, CUdevice_attribute attribute) {
  int v = 0;
  return cuDeviceGetAttribute(&v, attribute, device) == CUDA_SUCCESS ? v : 0;
}

// The device's profiling setup, made at its first profiled launch (in `context`, current).
const DeviceSetup& device_setup(CUcontext context, CUdevice device) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.devices_mutex);
  if (auto it = s.devices.find(device); it != s.devices.end()) return *it->second;
  auto setup = std::make_unique<DeviceSetup>();
  setup->chip = ChipMetrics::for_context(context, device);  // PermissionError here without permission
  setup->plan = setup->chip.resolve(s.config.metrics.empty() ? std::vector<std::string>{"model"} : s.config.metrics);
  // The launch's duration: measured in the same replay as its counters.
  if (std::find(setup->plan.collect.begin(), setup->plan.collect.end(), kDuration) == setup->plan.collect.end())
    setup->plan.collect.push_back(kDuration);
  setup->host = detail::make_host_object(setup->chip.chip(), setup->chip.counter_availability());
  setup->config_image = detail::config_image(setup->host.get(), setup->plan.collect, &setup->passes);
  setup->nvml = std::make_unique<ubench::Nvml>();
  char pci_bus_id[32] = {};
  if (cuDeviceGetPCIBusId(pci_bus_id, sizeof pci_bus_id, device) != CUDA_SUCCESS)
    warn("cuDeviceGetPCIBusId failed: the profile records no SM clock");
  else if (!setup->nvml->bind(pci_bus_id))
    warn("NVML cannot read this GPU's SM clock (" + setup->nvml->why_unavailable() + "): the profile records no SM clock");

  char name[256] = {};
  if (cuDeviceGetName(name, sizeof name, device) != CUDA_SUCCESS) std::snprintf(name, sizeof name, "device %d", device);
  std::size_t memory = 0;
  if (cuDeviceTotalMem(&memory, device) != CUDA_SUCCESS) memory = 0;
  json derived = json::object();
  for (const auto& d : setup->plan.derived) derived[d.name] = d.definition->expression();
  s.records.write(
      {{"event", "device"},
       {"device", static_cast<int>(device)},
       {"name", name},
       {"chip", setup->chip.chip()},
       {"compute_capability",
        std::to_string(device_attribute(device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)) + "." +
            std::to_string(device_attribute(device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR))},
       {"sm_count", device_attribute(device, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)},
       {"l2_cache_bytes", device_attribute(device, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)},
       {"global_memory_bytes", memory},
       {"max_sm_clock_mhz", device_attribute(device, CU_DEVICE_ATTRIBUTE_CLOCK_RATE) / 1000.0},
       {"metrics", setup->plan.collect},
       {"derived", derived},
       {"passes", setup->passes}});
  return *s.devices.emplace(device, std::move(setup)).first->second;
}

// A function attribute of the launched function, which may be a CUfunction or (launched by the
// runtime since CUDA 12) a CUkernel cast to one.
std::optional<int> function_attribute(CUfunction f, CUfunction_attribute attribute) {
  int v = 0;
  if (cuFuncGetAttribute(&v, attribute, f) == CUDA_SUCCESS) return v;
  CUfunction in_context = nullptr;
  if (cuKernelGetFunction(&in_context, reinterpret_cast<CUkernel>(f)) == CUDA_SUCCESS &&
      cuFuncGetAttribute(&v, attribute, in_context) == CUDA_SUCCESS)
    return v;
  return std::nullopt;
}

bool launch_parameters(CUpti_CallbackId cbid, const void* params, InFlight& f);

// The shape of a launch, from the parameters of whichever launch function it was.
template <class Params>
void classic_shape(const void* p, InFlight& f) {
  const auto* params = static_cast<const Params*>(p);
  f.function = params->f;
  f.grid[0] = static_cast<int>(params->gridDimX);
  f.grid[1] = static_cast<int>(params->gridDimY);
  f.grid[2] = static_cast<int>(params->gridDimZ);
  f.block[0] = static_cast<int>(params->blockDimX);
  f.block[1] = static_cast<int>(params->blockDimY);
  f.block[2] = static_cast<int>(params->blockDimZ);
  f.dynamic_shared_bytes = params->sharedMemBytes;
  f.stream = params->hStream;
}

template <class Params>
void extended_shape(const void* p, InFlight& f) {
  const auto* params = static_cast<const Params*>(p);
  f.function = params->f;
  const CUlaunchConfig* c = params->config;
  if (!c) return;
  f.stream = c->hStream;
  f.grid[0] = static_cast<int>(c->gridDimX);
  f.grid[1] = static_cast<int>(c->gridDimY);
  f.grid[2] = static_cast<int>(c->gridDimZ);
  f.block[0] = static_cast<int>(c->blockDimX);
  f.block[1] = static_cast<int>(c->blockDimY);
  f.block[2] = static_cast<int>(c->blockDimZ);
  f.dynamic_shared_bytes = c->sharedMemBytes;
}

bool launch_shape(CUpti_CallbackId cbid, const void* params, InFlight& f) {
  // The _ptsz forms launch into the per-thread default stream when given none.
  const bool per_thread = cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz ||
                          cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz ||
                          cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz;
  const bool known = launch_parameters(cbid, params, f);
  if (known && per_thread && f.stream == nullptr) f.stream = CU_STREAM_PER_THREAD;
  return known;
}

bool launch_parameters(CUpti_CallbackId cbid, const void* params, InFlight& f) {
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel: classic_shape<cuLaunchKernel_params>(params, f); return true;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: classic_shape<cuLaunchKernel_ptsz_params>(params, f); return true;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
      classic_shape<cuLaunchCooperativeKernel_params>(params, f);
      return true;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
      classic_shape<cuLaunchCooperativeKernel_ptsz_params>(params, f);
      return true;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx: extended_shape<cuLaunchKernelEx_params>(params, f); return true;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
      extended_shape<cuLaunchKernelEx_ptsz_params>(params, f);
      return true;
    default: return false;
  }
}

constexpr CUpti_CallbackId kLaunchCallbacks[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,          CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz};

// API entry: count and name the launch; for a selected one, start its range.
void launch_entered(CUpti_CallbackId cbid, const CUpti_CallbackData* cb) {
  State& s = state();
  *cb->correlationData = 0;
  auto f = std::make_unique<InFlight>();
  f->application_launch_index = s.launches.fetch_add(1);
  if (!launch_shape(cbid, cb->functionParams, *f)) return;
  const char* symbol = cb->symbolName;
  if (!symbol || !*symbol) {
    if (const char* name = nullptr; cuFuncGetName(&name, f->function) == CUDA_SUCCESS && name) symbol = name;
  }
  f->kernel = symbol ? symbol : "(unnamed kernel)";
  f->demangled = demangle(f->kernel);
  {
    std::lock_guard<std::mutex> lock(s.names_mutex);
    if (s.kernels_seen.insert(f->kernel).second) s.records.write({{"event", "kernel"}, {"kernel", f->kernel}});
  }
  LaunchSelector::Verdict verdict;
  {
    std::lock_guard<std::mutex> lock(s.selector_mutex);
    verdict = s.selector->next(f->kernel, f->demangled);
  }
  if (verdict != LaunchSelector::Verdict::Profile) return;
  if (!cb->context) {
    launch_failed(*f, "no CUDA context is current for the launch");
    return;
  }
  f->lock = std::unique_lock<std::mutex>(s.launch_mutex, std::try_to_lock);
  if (!f->lock.owns_lock()) {
    launch_failed(*f, "another thread's profiled launch was in flight (launches from several threads are profiled "
                      "one at a time)");
    return;
  }
  // A launch into a stream being captured only records a graph node: nothing runs to profile, and
  // synchronising now would break the capture.
  CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
  if (cuStreamIsCapturing(f->stream, &capture) == CUDA_SUCCESS && capture != CU_STREAM_CAPTURE_STATUS_NONE) {
    launch_failed(*f, "launched into a stream being captured into a CUDA graph (graph launches are not profiled)");
    return;
  }
  // The kernels APP launched before must end first: the range must hold this kernel alone, and the
  // replay's memory snapshot must not be written by another kernel meanwhile.
  if (const CUresult r = cuCtxSynchronize(); r != CUDA_SUCCESS) {
    launch_failed(*f, "cuCtxSynchronize before the launch: " + cuda_error_text(r));
    return;
  }
  CUdevice device = 0;
  if (const CUresult r = cuCtxGetDevice(&device); r != CUDA_SUCCESS) {
    launch_failed(*f, "cuCtxGetDevice: " + cuda_error_text(r));
    return;
  }
  try {
    f->device = &device_setup(cb->context, device);
    // Kernel replay: CUPTI runs every pass inside this launch, saving and restoring device memory.
    f->profiler.emplace(cb->context);
    f->counter_data = f->profiler->counter_data_image(f->device->plan.collect, kMaxRanges);
    f->profiler->set_config(f->device->config_image, f->counter_data, RangeMode::Auto, ReplayMode::Kernel, kMaxRanges);
    f->profiler->start();
  } catch (const CuptiError& e) {
    launch_failed(*f, std::string("CUPTI: ") + e.what());
    return;  // the profiler, if enabled, is disabled here
  }
  *cb->correlationData = reinterpret_cast<std::uint64_t>(f.release());
}

// API exit: stop the range, decode, evaluate, write the launch record.
void launch_exited(const CUpti_CallbackData* cb) {
  if (*cb->correlationData == 0) return;
  std::unique_ptr<InFlight> f(reinterpret_cast<InFlight*>(*cb->correlationData));
  *cb->correlationData = 0;
  State& s = state();
  const CUresult launched = cb->functionReturnValue ? *static_cast<const CUresult*>(cb->functionReturnValue) : CUDA_SUCCESS;
  try {
    const bool all_passes = f->profiler->stop();
    if (launched != CUDA_SUCCESS) {
      launch_failed(*f, "the launch itself failed: " + cuda_error_text(launched));
      return;
    }
    if (const CUresult r = cuCtxSynchronize(); r != CUDA_SUCCESS) {
      launch_failed(*f, "cuCtxSynchronize after the launch: " + cuda_error_text(r));
      return;
    }
    if (!all_passes) {
      launch_failed(*f, "CUPTI's kernel replay did not submit every pass (" + std::to_string(f->device->passes) +
                            " needed)");
      return;
    }
    const std::size_t dropped = f->profiler->decode();
    f->profiler.reset();  // disabled: the context is free for APP's next launch
    const std::size_t ranges = detail::ranges_in(f->counter_data);
    if (ranges != 1 || dropped != 0) {
      launch_failed(*f, std::to_string(ranges) + " range(s) and " + std::to_string(dropped) +
                            " dropped for one launch: another thread launched kernels while it was profiled");
      return;
    }
    const std::vector<double> values = detail::evaluate(f->device->host.get(), f->counter_data, 0, f->device->plan.collect);
    std::map<std::string, double> metrics;
    json metrics_json = json::object();
    for (std::size_t i = 0; i < values.size(); ++i) {
      metrics[f->device->plan.collect[i]] = values[i];
      metrics_json[f->device->plan.collect[i]] = std::isfinite(values[i]) ? json(values[i]) : json(nullptr);
    }
    json derived = json::object();
    for (const auto& d : f->device->plan.derived) {
      const double v = d.definition->evaluate(metrics);
      derived[d.name] = std::isfinite(v) ? json(v) : json(nullptr);
    }
    const auto registers = function_attribute(f->function, CU_FUNC_ATTRIBUTE_NUM_REGS);
    const auto static_shared = function_attribute(f->function, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
    if ((!registers || !static_shared) && !s.attribute_warning.exchange(true))
      warn("cuFuncGetAttribute failed for " + f->kernel +
           ": registers and static shared memory come from the cubin's res-usage instead");
    const double duration = metrics.count(kDuration) ? metrics.at(kDuration) : std::nan("");
    json record = {{"event", "launch"},
                   {"application_launch_index", f->application_launch_index},
                   {"kernel", f->kernel},
                   {"demangled", f->demangled},
                   {"grid", {f->grid[0], f->grid[1], f->grid[2]}},
                   {"block", {f->block[0], f->block[1], f->block[2]}},
                   {"registers_per_thread", registers.value_or(0)},
                   {"static_shared_bytes", static_shared.value_or(0)},
                   {"dynamic_shared_bytes", f->dynamic_shared_bytes},
                   {"duration_ns", std::isfinite(duration) ? json(duration) : json(nullptr)},
                   {"metrics", metrics_json},
                   {"derived", derived}};
    // Read just after the replay's last pass, before the GPU idles down: the clock the launch ran at.
    if (const auto clock = f->device->nvml->sample()) record["sm_clock_mhz"] = clock->sm_mhz;
    s.records.write(record);
    s.profiled.fetch_add(1);
  } catch (const CuptiError& e) {
    launch_failed(*f, std::string("CUPTI: ") + e.what());
  }
}

// 64-bit FNV-1a: identifies a cubin already kept.
std::uint64_t fnv1a(const char* data, std::size_t size) {
  std::uint64_t h = 1469598103934665603ull;
  for (std::size_t i = 0; i < size; ++i) h = (h ^ static_cast<unsigned char>(data[i])) * 1099511628211ull;
  return h;
}

// A loaded module: keep its cubin (written once per distinct image) as <n>.cubin.
void module_loaded(const CUpti_ResourceData* data) {
  State& s = state();
  const auto* module = static_cast<const CUpti_ModuleResourceData*>(data->resourceDescriptor);
  if (!module || !module->pCubin || module->cubinSize == 0) return;
  const bool elf = module->cubinSize >= 4 && std::memcmp(module->pCubin, "\x7f" "ELF", 4) == 0;
  {
    std::lock_guard<std::mutex> lock(s.modules_mutex);
    if (!s.modules_kept.insert({module->cubinSize, fnv1a(module->pCubin, module->cubinSize)}).second) return;
  }
  // <n>.cubin, n the first free number: other processes of APP write into the same folder.
  for (int attempt = 0; attempt < 100000; ++attempt) {
    const std::string file = std::to_string(s.next_module.fetch_add(1)) + (elf ? ".cubin" : ".image");
    const std::string path = s.config.cubins + "/" + file;
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0 && errno == EEXIST) continue;
    if (fd < 0) {
      warn("cannot keep the cubin of module " + std::to_string(module->moduleId) + " (" + path + ": " +
           std::strerror(errno) + ")");
      return;
    }
    std::size_t written = 0;
    while (written < module->cubinSize) {
      const ssize_t n = ::write(fd, module->pCubin + written, module->cubinSize - written);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      written += static_cast<std::size_t>(n);
    }
    ::close(fd);
    if (written != module->cubinSize) {
      warn("cannot write the cubin of module " + std::to_string(module->moduleId) + " to " + path);
      return;
    }
    s.records.write({{"event", "module"}, {"file", file}, {"bytes", module->cubinSize}, {"module_id", module->moduleId}});
    if (!elf) warn(file + " is not an ELF cubin (kept as loaded; the SASS analysis reads .cubin files only)");
    return;
  }
}

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  try {
    if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
      const auto* cb = static_cast<const CUpti_CallbackData*>(data);
      if (cb->callbackSite == CUPTI_API_ENTER) launch_entered(cbid, cb);
      else launch_exited(cb);
    } else if (domain == CUPTI_CB_DOMAIN_RESOURCE && cbid == CUPTI_CBID_RESOURCE_MODULE_LOADED) {
      module_loaded(static_cast<const CUpti_ResourceData*>(data));
    } else if (domain == CUPTI_CB_DOMAIN_STATE && cbid == CUPTI_CBID_STATE_FATAL_ERROR) {
      const auto* st = static_cast<const CUpti_StateData*>(data);
      warn(std::string("CUPTI reported a fatal error and stopped: ") +
           (st->notification.message ? st->notification.message : "(no message)"));
    }
  } catch (const PermissionError& e) {
    fatal(4, e.what());
  } catch (const OtherClientError& e) {
    fatal(4, application_other_client_message(e.detail().empty() ? e.what() : e.detail()));
  } catch (const MetricNameError& e) {
    fatal(2, e.what());
  } catch (const std::exception& e) {
    fatal(1, std::string("internal error in the injected library: ") + e.what());
  } catch (...) {
    fatal(1, "internal error in the injected library");
  }
}

void check(CUptiResult r, const char* call) {
  if (r != CUPTI_SUCCESS) throw_cupti_error(r, call);
}

void at_exit() {
  State& s = state();
  std::size_t matched = 0;
  {
    std::lock_guard<std::mutex> lock(s.selector_mutex);
    if (s.selector) matched = s.selector->matched();
  }
  s.records.write({{"event", "exit"}, {"launches", s.launches.load()}, {"matched", matched}, {"profiled", s.profiled.load()}});
}

}  // namespace
}  // namespace warpmodel::cupti::injection

// Called by the CUDA driver when it loads this library (CUDA_INJECTION64_PATH) during cuInit.
extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  using namespace warpmodel::cupti;
  using namespace warpmodel::cupti::injection;
  static std::atomic<bool> initialised{false};
  if (initialised.exchange(true)) return 1;
  State& s = state();
  const char* config_path = std::getenv(kInjectConfigVariable);
  if (!config_path || !*config_path) {
    std::fprintf(stderr, "%s: %s is not set: this library is injected by `warpmodel profile -- APP`, not by hand\n",
                 kInjectionLibraryName, kInjectConfigVariable);
    return 0;
  }
  try {
    const auto text = warpmodel::support::read_text_file(config_path);
    if (!text) throw std::runtime_error(std::string("cannot read ") + config_path);
    s.config = injection_config_from_json(json::parse(*text), config_path);
    s.records.open(s.config.records);
  } catch (const std::exception& e) {
    // No records file to report to: say it on APP's stderr and end APP (the parent says why).
    std::fprintf(stderr, "%s: %s\n", kInjectionLibraryName, e.what());
    std::fflush(stderr);
    ::_exit(kInjectionAbortStatus);
  }
  try {
    s.selector.emplace(s.config.kernel_regex, s.config.launch_skip, s.config.launch_count);
    auto params = detail::make_params<CUpti_SubscriberParams>(CUpti_SubscriberParams_STRUCT_SIZE);
    char holder[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 1] = {};
    params.subscriberName = "warpmodel profile";
    params.oldSubscriberName = holder;
    params.oldSubscriberSize = sizeof holder - 1;
    const CUptiResult subscribed = cuptiSubscribe_v2(&s.subscriber, on_callback, nullptr, &params);
    if (subscribed == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
      fatal(4, application_other_client_message(std::string("cuptiSubscribe: ") +
                                                (holder[0] ? holder : "another subscriber") + " is attached to APP"));
    check(subscribed, "cuptiSubscribe_v2");
    // Each launch function on its own: one this driver does not offer costs only its launches.
    std::size_t enabled = 0;
    for (const CUpti_CallbackId cbid : kLaunchCallbacks) {
      const CUptiResult r = cuptiEnableCallback(1, s.subscriber, CUPTI_CB_DOMAIN_DRIVER_API, cbid);
      if (r == CUPTI_SUCCESS) ++enabled;
      else warn("cuptiEnableCallback for driver callback id " + std::to_string(cbid) + " failed: launches through it are not seen");
    }
    if (enabled == 0) check(CUPTI_ERROR_UNKNOWN, "cuptiEnableCallback (every launch function)");
    if (cuptiEnableCallback(1, s.subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_MODULE_LOADED) != CUPTI_SUCCESS)
      warn("cuptiEnableCallback (module loaded) failed: no cubins are kept");
    if (cuptiEnableCallback(1, s.subscriber, CUPTI_CB_DOMAIN_STATE, CUPTI_CBID_STATE_FATAL_ERROR) != CUPTI_SUCCESS)
      warn("cuptiEnableCallback (CUPTI's fatal errors) failed: they would go unreported");
    std::uint32_t cupti_version = 0;
    cuptiGetVersion(&cupti_version);
    int driver_version = 0;
    cuDriverGetVersion(&driver_version);
    s.records.write({{"event", "process"}, {"cupti_version", std::to_string(cupti_version)}, {"driver_version", driver_version}});
    std::atexit(at_exit);
  } catch (const OtherClientError& e) {
    fatal(4, application_other_client_message(e.detail().empty() ? e.what() : e.detail()));
  } catch (const PermissionError& e) {
    fatal(4, e.what());
  } catch (const std::exception& e) {
    fatal(1, std::string("cannot set up the injected library: ") + e.what());
  }
  return 1;
}
