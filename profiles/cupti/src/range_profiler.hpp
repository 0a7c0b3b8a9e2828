// The Range Profiler of one context (CUPTI's cupti_range_profiler.h), shared by the in-process
// collector (profiler.cpp) and the injected library (injection/injection.cpp), and the evaluation
// of a counter data image with the host API. Not installed.
#pragma once

#include <cuda.h>
#include <cupti_profiler_host.h>
#include <cupti_range_profiler.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "warpmodel/cupti/profiler.hpp"

namespace warpmodel::cupti::detail {

// The Range Profiler object of one context: enabled on construction, disabled on destruction.
// Every call is checked (throws the class throw_cupti_error maps the failure to).
class RangeProfiler {
 public:
  explicit RangeProfiler(CUcontext ctx);
  ~RangeProfiler();
  RangeProfiler(const RangeProfiler&) = delete;
  RangeProfiler& operator=(const RangeProfiler&) = delete;

  // A counter data image for `metrics` with room for `max_ranges` ranges, initialised.
  std::vector<std::uint8_t> counter_data_image(const std::vector<std::string>& metrics, std::size_t max_ranges);
  void set_config(const std::vector<std::uint8_t>& config, std::vector<std::uint8_t>& counter_data, RangeMode mode,
                  ReplayMode replay, std::size_t max_ranges);
  void start();
  // Returns whether every pass has been submitted.
  bool stop();
  void push(const std::string& name);
  void pop();
  // Decodes the hardware's data into the counter data image; returns the ranges dropped.
  std::size_t decode();

 private:
  CUpti_RangeProfiler_Object* object_ = nullptr;
};

// The ranges a counter data image holds, the name of one, and the metrics' values of one.
std::size_t ranges_in(const std::vector<std::uint8_t>& counter_data);
std::string range_name(const std::vector<std::uint8_t>& counter_data, std::size_t index);
std::vector<double> evaluate(CUpti_Profiler_Host_Object* host, const std::vector<std::uint8_t>& counter_data,
                             std::size_t range, const std::vector<std::string>& metrics);

}  // namespace warpmodel::cupti::detail
