// CUPTI Host API: what a chip offers, validation, configuration images and pass counts; and the
// mapping of CUPTI failures to the errors the CLI reports (profiler.hpp). No CUDA runtime: the
// injected library (libwarpmodel_inject.so) links this too.
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>
#include <cuda.h>

#include <algorithm>
#include <memory>
#include <stdexcept>

#include "cupti_internal.hpp"
#include "warpmodel/cupti/profiler.hpp"

namespace warpmodel::cupti {

std::string permission_message(const std::string& call) {
  return "profiling counters are not permitted for this user (CUPTI_ERROR_INSUFFICIENT_PRIVILEGES in " + call +
         "): run as root or with CAP_SYS_ADMIN, or allow all users: put 'options nvidia "
         "NVreg_RestrictProfilingToAdminUsers=0' in /etc/modprobe.d/nvidia-profiling.conf and reload the nvidia "
         "module (https://developer.nvidia.com/ERR_NVGPUCTRPERM)";
}

std::string other_client_message(const std::string& detail) {
  return "another CUPTI client holds the GPU's profiler (" + detail +
         "): `warpmodel profile` collects the counters itself, so do not run it under ncu, nsys or another "
         "profiler; to profile the same launches with ncu use `warpmodel profile ... --launch-only`";
}

[[noreturn]] void throw_cupti_error(int code, const std::string& call) {
  const auto r = static_cast<CUptiResult>(code);
  const char* text = nullptr;
  if (cuptiGetResultString(r, &text) != CUPTI_SUCCESS || !text) text = "unknown CUPTI error";
  switch (r) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
      throw PermissionError(permission_message(call));
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
    case CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED:
    case CUPTI_ERROR_HARDWARE_BUSY:
      throw OtherClientError(other_client_message(call + " returned " + text), call + " returned " + text);
    default:
      throw CuptiError(call + " failed: " + text);
  }
}

std::optional<std::string> injected_profiler(const std::function<const char*(const char*)>& getenv) {
  for (const char* var : {"CUDA_INJECTION64_PATH", "CUDA_INJECTION32_PATH"}) {
    const char* v = getenv(var);
    if (v && *v) return std::string(var) + "=" + v + ", as ncu and nsys set it";
  }
  return std::nullopt;
}

namespace detail {

void check(CUptiResult r, const char* call) {
  if (r != CUPTI_SUCCESS) throw_cupti_error(r, call);
}

void HostObjectDeleter::operator()(CUpti_Profiler_Host_Object* p) const {
  auto d = detail::make_params<CUpti_Profiler_Host_Deinitialize_Params>(CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
  d.pHostObject = p;
  cuptiProfilerHostDeinitialize(&d);  // a destructor: nothing useful to do with a failure
}

HostObject make_host_object(const std::string& chip, const std::vector<std::uint8_t>& availability) {
  auto p = detail::make_params<CUpti_Profiler_Host_Initialize_Params>(CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
  p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  p.pChipName = chip.c_str();
  p.pCounterAvailabilityImage = availability.empty() ? nullptr : availability.data();
  check(cuptiProfilerHostInitialize(&p), "cuptiProfilerHostInitialize");
  return HostObject(p.pHostObject);
}

std::vector<std::uint8_t> config_image(CUpti_Profiler_Host_Object* host, const std::vector<std::string>& metrics,
                                       std::size_t* passes) {
  std::vector<const char*> names;
  for (const auto& m : metrics) names.push_back(m.c_str());
  auto add = detail::make_params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
  add.pHostObject = host;
  add.ppMetricNames = names.data();
  add.numMetrics = names.size();
  check(cuptiProfilerHostConfigAddMetrics(&add), "cuptiProfilerHostConfigAddMetrics");
  auto size = detail::make_params<CUpti_Profiler_Host_GetConfigImageSize_Params>(CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
  size.pHostObject = host;
  check(cuptiProfilerHostGetConfigImageSize(&size), "cuptiProfilerHostGetConfigImageSize");
  std::vector<std::uint8_t> image(size.configImageSize);
  auto get = detail::make_params<CUpti_Profiler_Host_GetConfigImage_Params>(CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
  get.pHostObject = host;
  get.configImageSize = image.size();
  get.pConfigImage = image.data();
  check(cuptiProfilerHostGetConfigImage(&get), "cuptiProfilerHostGetConfigImage");
  auto np = detail::make_params<CUpti_Profiler_Host_GetNumOfPasses_Params>(CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE);
  np.configImageSize = image.size();
  np.pConfigImage = image.data();
  check(cuptiProfilerHostGetNumOfPasses(&np), "cuptiProfilerHostGetNumOfPasses");
  if (passes) *passes = np.numOfPasses;
  return image;
}

}  // namespace detail

using detail::check;

ChipMetrics ChipMetrics::for_chip(const std::string& chip) {
  const auto chips = supported_chips();
  if (std::find(chips.begin(), chips.end(), chip) == chips.end()) {
    std::string list;
    for (const auto& c : chips) list += (list.empty() ? "" : " ") + c;
    throw std::invalid_argument("CUPTI does not know chip '" + chip + "'; it knows: " + list);
  }
  ChipMetrics m;
  m.chip_ = chip;
  return m;
}

std::vector<std::string> ChipMetrics::supported_chips() {
  auto p = detail::make_params<CUpti_Profiler_Host_GetSupportedChips_Params>(CUpti_Profiler_Host_GetSupportedChips_Params_STRUCT_SIZE);
  check(cuptiProfilerHostGetSupportedChips(&p), "cuptiProfilerHostGetSupportedChips");
  std::vector<std::string> chips;
  for (std::size_t i = 0; i < p.numChips; ++i) chips.emplace_back(p.ppChipNames[i]);
  return chips;
}

std::vector<MetricInfo> ChipMetrics::base_metrics() const {
  const auto host = detail::make_host_object(chip_, availability_);
  std::vector<MetricInfo> out;
  const std::pair<CUpti_MetricType, const char*> types[] = {
      {CUPTI_METRIC_TYPE_COUNTER, "counter"}, {CUPTI_METRIC_TYPE_RATIO, "ratio"}, {CUPTI_METRIC_TYPE_THROUGHPUT, "throughput"}};
  for (const auto& [type, type_name] : types) {
    auto b = detail::make_params<CUpti_Profiler_Host_GetBaseMetrics_Params>(CUpti_Profiler_Host_GetBaseMetrics_Params_STRUCT_SIZE);
    b.pHostObject = host.get();
    b.metricType = type;
    check(cuptiProfilerHostGetBaseMetrics(&b), "cuptiProfilerHostGetBaseMetrics");
    for (std::size_t i = 0; i < b.numMetrics; ++i) {
      MetricInfo info;
      info.name = b.ppMetricNames[i];
      info.type = type_name;
      auto p = detail::make_params<CUpti_Profiler_Host_GetMetricProperties_Params>(CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE);
      p.pHostObject = host.get();
      p.pMetricName = b.ppMetricNames[i];
      if (cuptiProfilerHostGetMetricProperties(&p) == CUPTI_SUCCESS) {
        info.description = p.pDescription ? p.pDescription : "";
        info.hw_unit = p.pHwUnit ? p.pHwUnit : "";
        info.dim_unit = p.pDimUnit ? p.pDimUnit : "";
      }
      out.push_back(std::move(info));
    }
  }
  std::sort(out.begin(), out.end(), [](const MetricInfo& a, const MetricInfo& b) { return a.name < b.name; });
  return out;
}

std::vector<std::string> ChipMetrics::submetrics(const std::string& base, const std::string& type) const {
  const auto host = detail::make_host_object(chip_, availability_);
  auto p = detail::make_params<CUpti_Profiler_Host_GetSubMetrics_Params>(CUpti_Profiler_Host_GetSubMetrics_Params_STRUCT_SIZE);
  p.pHostObject = host.get();
  p.metricType = type == "ratio" ? CUPTI_METRIC_TYPE_RATIO
                 : type == "throughput" ? CUPTI_METRIC_TYPE_THROUGHPUT
                                        : CUPTI_METRIC_TYPE_COUNTER;
  p.pMetricName = base.c_str();
  check(cuptiProfilerHostGetSubMetrics(&p), "cuptiProfilerHostGetSubMetrics");
  std::vector<std::string> out;
  for (std::size_t i = 0; i < p.numOfSubmetrics; ++i) out.emplace_back(p.ppSubMetrics[i]);
  return out;
}

std::optional<MetricInfo> ChipMetrics::properties(const std::string& metric) const {
  const auto host = detail::make_host_object(chip_, availability_);
  auto p = detail::make_params<CUpti_Profiler_Host_GetMetricProperties_Params>(CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE);
  p.pHostObject = host.get();
  p.pMetricName = metric.c_str();
  if (cuptiProfilerHostGetMetricProperties(&p) != CUPTI_SUCCESS) return std::nullopt;
  MetricInfo info;
  info.name = metric;
  info.type = p.metricType == CUPTI_METRIC_TYPE_RATIO ? "ratio"
              : p.metricType == CUPTI_METRIC_TYPE_THROUGHPUT ? "throughput"
                                                               : "counter";
  info.description = p.pDescription ? p.pDescription : "";
  info.hw_unit = p.pHwUnit ? p.pHwUnit : "";
  info.dim_unit = p.pDimUnit ? p.pDimUnit : "";
  return info;
}

bool ChipMetrics::is_valid(const std::string& metric) const {
  // A name with no roll-up ("dram__bytes_read") names a base metric, which CUPTI cannot
  // collect as such: it needs ".sum", ".avg", ... Only full names are valid here.
  if (metric.find('.') == std::string::npos) return false;
  return properties(metric).has_value();
}

std::vector<std::string> ChipMetrics::suggestion_candidates() const {
  std::vector<std::string> out;
  for (const auto& m : base_metrics()) {
    if (m.type == "counter") out.push_back(m.name + ".sum");
    else if (m.type == "ratio") out.push_back(m.name + ".pct");
    else out.push_back(m.name + ".avg.pct_of_peak_sustained_elapsed");
  }
  return out;
}

std::size_t ChipMetrics::passes(const std::vector<std::string>& metrics) const {
  std::size_t n = 0;
  config_image(metrics, &n);
  return n;
}

std::vector<std::uint8_t> ChipMetrics::config_image(const std::vector<std::string>& metrics, std::size_t* passes) const {
  // A host object accumulates the metrics it is given: one object per configuration.
  const auto host = detail::make_host_object(chip_, availability_);
  return detail::config_image(host.get(), metrics, passes);
}

MetricPlan ChipMetrics::resolve(const std::vector<std::string>& request, bool allow_sass) const {
  // One host object for all the validity checks of this request (each check would otherwise
  // initialise one).
  const auto host = detail::make_host_object(chip_, availability_);
  auto valid = [&](const std::string& metric) {
    if (metric.find('.') == std::string::npos) return false;
    auto p = detail::make_params<CUpti_Profiler_Host_GetMetricProperties_Params>(CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE);
    p.pHostObject = host.get();
    p.pMetricName = metric.c_str();
    return cuptiProfilerHostGetMetricProperties(&p) == CUPTI_SUCCESS;
  };
  return resolve_metrics(request, valid, [this] { return suggestion_candidates(); }, allow_sass);
}

ChipMetrics ChipMetrics::for_context(CUctx_st* context, int device_index) {
  ChipMetrics m;
  detail::ProfilerInitialization init;
  auto chip = detail::make_params<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
  chip.deviceIndex = static_cast<std::size_t>(device_index);
  check(cuptiDeviceGetChipName(&chip), "cuptiDeviceGetChipName");
  m.chip_ = chip.pChipName;
  auto avail = detail::make_params<CUpti_Profiler_GetCounterAvailability_Params>(CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE);
  avail.ctx = context;
  check(cuptiProfilerGetCounterAvailability(&avail), "cuptiProfilerGetCounterAvailability");
  m.availability_.resize(avail.counterAvailabilityImageSize);
  avail.pCounterAvailabilityImage = m.availability_.data();
  check(cuptiProfilerGetCounterAvailability(&avail), "cuptiProfilerGetCounterAvailability");
  return m;
}

}  // namespace warpmodel::cupti
