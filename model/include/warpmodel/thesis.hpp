// The thesis reproduced: its K40 inputs (shipped in model/data/) and its worked example
// (eqs 4.32-4.51), recomputed by the thesis-2016 variant and set beside the printed values.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "warpmodel/device_profile.hpp"
#include "warpmodel/kernel_profile.hpp"
#include "warpmodel/prediction.hpp"

namespace warpmodel {

// model/data/k40-thesis.device.json and model/data/stencil-order2-k40-thesis.kernel.json, built in.
DeviceProfile thesis_k40_device();
KernelProfile thesis_order2_kernel();
const char* thesis_k40_device_json();
const char* thesis_order2_kernel_json();

// One printed number of the worked example against warpmodel's value for it.
struct ThesisRow {
  std::string quantity;
  std::string equation;
  double printed = 0;
  double recomputed = 0;
  double tolerance = 0;  // up to one unit of the last printed digit: the thesis rounds some values, truncates others
  std::string reading;   // which reading the recomputed value follows, and why it differs if it does
  bool matches() const;
};

// One cell of tables 4.5 / 4.7.
struct ThesisCell {
  std::string table;  // "4.5" or "4.7"
  int order = 0;
  int warps = 0;
  double printed = 0;
  std::optional<double> recomputed;        // set only where every input is in the thesis
  std::optional<double> with_fixed_inputs;  // order 2: the 8-warp inputs with N changed (not a reproduction)
  std::string status;                       // "reproduced", or which inputs are missing
};

struct ThesisReproduction {
  Prediction prediction;  // thesis-2016 on the shipped inputs
  std::vector<ThesisRow> rows;
  std::vector<ThesisCell> cells;
};

ThesisReproduction reproduce_thesis();

}  // namespace warpmodel
