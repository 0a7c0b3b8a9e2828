// The Range Profiler wrapper and counter data evaluation (range_profiler.hpp).
#include "range_profiler.hpp"

#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>

#include <limits>

#include "cupti_internal.hpp"

namespace warpmodel::cupti::detail {

RangeProfiler::RangeProfiler(CUcontext ctx) {
  auto p = make_params<CUpti_RangeProfiler_Enable_Params>(CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE);
  p.ctx = ctx;
  check(cuptiRangeProfilerEnable(&p), "cuptiRangeProfilerEnable");
  object_ = p.pRangeProfilerObject;
}

RangeProfiler::~RangeProfiler() {
  auto p = make_params<CUpti_RangeProfiler_Disable_Params>(CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE);
  p.pRangeProfilerObject = object_;
  cuptiRangeProfilerDisable(&p);  // a destructor: nothing useful to do with a failure
}

std::vector<std::uint8_t> RangeProfiler::counter_data_image(const std::vector<std::string>& metrics,
                                                             std::size_t max_ranges) {
  std::vector<const char*> names;
  for (const auto& m : metrics) names.push_back(m.c_str());
  auto s = make_params<CUpti_RangeProfiler_GetCounterDataSize_Params>(
      CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE);
  s.pRangeProfilerObject = object_;
  s.pMetricNames = names.data();
  s.numMetrics = names.size();
  s.maxNumOfRanges = max_ranges;
  s.maxNumRangeTreeNodes = static_cast<std::uint32_t>(max_ranges);
  check(cuptiRangeProfilerGetCounterDataSize(&s), "cuptiRangeProfilerGetCounterDataSize");
  std::vector<std::uint8_t> image(s.counterDataSize);
  auto i = make_params<CUpti_RangeProfiler_CounterDataImage_Initialize_Params>(
      CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE);
  i.pRangeProfilerObject = object_;
  i.counterDataSize = image.size();
  i.pCounterData = image.data();
  check(cuptiRangeProfilerCounterDataImageInitialize(&i), "cuptiRangeProfilerCounterDataImageInitialize");
  return image;
}

void RangeProfiler::set_config(const std::vector<std::uint8_t>& config, std::vector<std::uint8_t>& counter_data,
                               RangeMode mode, ReplayMode replay, std::size_t max_ranges) {
  auto p =
      make_params<CUpti_RangeProfiler_SetConfig_Params>(CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE);
  p.pRangeProfilerObject = object_;
  p.configSize = config.size();
  p.pConfig = config.data();
  p.counterDataImageSize = counter_data.size();
  p.pCounterDataImage = counter_data.data();
  p.range = mode == RangeMode::Auto ? CUPTI_AutoRange : CUPTI_UserRange;
  p.replayMode = replay == ReplayMode::Kernel ? CUPTI_KernelReplay : CUPTI_UserReplay;
  p.maxRangesPerPass = max_ranges;
  p.numNestingLevels = 1;
  p.minNestingLevel = 1;
  p.passIndex = 0;
  p.targetNestingLevel = 1;
  check(cuptiRangeProfilerSetConfig(&p), "cuptiRangeProfilerSetConfig");
}

void RangeProfiler::start() {
  auto p = make_params<CUpti_RangeProfiler_Start_Params>(CUpti_RangeProfiler_Start_Params_STRUCT_SIZE);
  p.pRangeProfilerObject = object_;
  check(cuptiRangeProfilerStart(&p), "cuptiRangeProfilerStart");
}

bool RangeProfiler::stop() {
  auto p = make_params<CUpti_RangeProfiler_Stop_Params>(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
  p.pRangeProfilerObject = object_;
  check(cuptiRangeProfilerStop(&p), "cuptiRangeProfilerStop");
  return p.isAllPassSubmitted != 0;
}

void RangeProfiler::push(const std::string& name) {
  auto p =
      make_params<CUpti_RangeProfiler_PushRange_Params>(CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE);
  p.pRangeProfilerObject = object_;
  p.pRangeName = name.c_str();
  check(cuptiRangeProfilerPushRange(&p), "cuptiRangeProfilerPushRange");
}

void RangeProfiler::pop() {
  auto p = make_params<CUpti_RangeProfiler_PopRange_Params>(CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE);
  p.pRangeProfilerObject = object_;
  check(cuptiRangeProfilerPopRange(&p), "cuptiRangeProfilerPopRange");
}

std::size_t RangeProfiler::decode() {
  auto p =
      make_params<CUpti_RangeProfiler_DecodeData_Params>(CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE);
  p.pRangeProfilerObject = object_;
  check(cuptiRangeProfilerDecodeData(&p), "cuptiRangeProfilerDecodeData");
  return p.numOfRangeDropped;
}

std::size_t ranges_in(const std::vector<std::uint8_t>& counter_data) {
  auto p = make_params<CUpti_RangeProfiler_GetCounterDataInfo_Params>(
      CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE);
  p.pCounterDataImage = counter_data.data();
  p.counterDataImageSize = counter_data.size();
  check(cuptiRangeProfilerGetCounterDataInfo(&p), "cuptiRangeProfilerGetCounterDataInfo");
  return p.numTotalRanges;
}

std::string range_name(const std::vector<std::uint8_t>& counter_data, std::size_t index) {
  auto p = make_params<CUpti_RangeProfiler_CounterData_GetRangeInfo_Params>(
      CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE);
  p.pCounterDataImage = counter_data.data();
  p.counterDataImageSize = counter_data.size();
  p.rangeIndex = index;
  p.rangeDelimiter = "/";
  check(cuptiRangeProfilerCounterDataGetRangeInfo(&p), "cuptiRangeProfilerCounterDataGetRangeInfo");
  return p.rangeName ? p.rangeName : "";
}

std::vector<double> evaluate(CUpti_Profiler_Host_Object* host, const std::vector<std::uint8_t>& counter_data,
                             std::size_t range, const std::vector<std::string>& metrics) {
  std::vector<const char*> names;
  for (const auto& m : metrics) names.push_back(m.c_str());
  std::vector<double> values(metrics.size(), std::numeric_limits<double>::quiet_NaN());
  auto p = make_params<CUpti_Profiler_Host_EvaluateToGpuValues_Params>(
      CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
  p.pHostObject = host;
  p.pCounterDataImage = counter_data.data();
  p.counterDataImageSize = counter_data.size();
  p.rangeIndex = range;
  p.ppMetricNames = names.data();
  p.numMetrics = names.size();
  p.pMetricValues = values.data();
  check(cuptiProfilerHostEvaluateToGpuValues(&p), "cuptiProfilerHostEvaluateToGpuValues");
  return values;
}

ProfilerInitialization::ProfilerInitialization() {
  static bool done = false;
  if (done) return;
  auto p = detail::make_params<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
  check(cuptiProfilerInitialize(&p), "cuptiProfilerInitialize");
  done = true;
}

}  // namespace warpmodel::cupti::detail
