// `warpmodel roofline`: one point per launch of an application's profile on the roofline of the
// device profile's measured ceilings (scripts/plot_roofline.py draws them): FLOPs per DRAM byte
// against FLOP/s, both from the launch's counters and measured duration, with predict-app's bound.
//
// FLOPs: the thread-level FP32/FP64 counters where the profile has them (counted_flops: FADD, FMUL,
// DADD, DMUL once, FFMA and DFMA twice); else the measured warp instructions x the SASS's FLOP share
// (estimated_flops, "estimated"). A launch with no FLOPs or no DRAM bytes has no point on a log-log
// plot: its row keeps empty intensity and FLOP/s cells, and a note.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "warpmodel/report.hpp"
#include "warpmodel/sass/app_prediction.hpp"

namespace warpmodel::sass {

struct RooflinePoint {
  std::string label;  // the short kernel name: "app_example::reduce_sum_kernel<256>"
  int launch_index = 0;
  std::string bound;  // predict-app's bound of the launch ("" without a prediction)
  std::optional<double> flops, dram_bytes, measured_us;
  std::string flops_source;  // "counters", "estimated" (see above), "" (none)
  std::optional<double> intensity_flop_per_byte, flops_per_second;  // absent: not drawable (note)
  std::string note;
};

// The points of every launch of `counters`, with the bounds of `prediction` (an ungrouped
// predict_application of the same counters: its rows in the same order).
std::vector<RooflinePoint> roofline_points(const CounterFile& counters, const std::vector<KernelStatics>& kernels,
                                           const AppPrediction& prediction);

// label,intensity_flop_per_byte,flops_per_second,bound,launch,flops,flops_source,dram_bytes,measured_us,note
Table roofline_table(const std::vector<RooflinePoint>& points);

}  // namespace warpmodel::sass
