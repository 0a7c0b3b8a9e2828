// Output formats of run-stencil, as documents (bytes); the caller writes them atomically.
//   - VTK ImageData (.vti): XML with the field as raw appended little-endian Float32 and a UInt64
//     size header; ParaView opens it as the thesis did (figure 3.5). Origin 0, spacing h (m).
//   - Receiver trace: CSV `step,time_s,pressure`.
#pragma once

#include <string>
#include <vector>

#include "warpmodel/stencils/acoustic.hpp"

namespace warpmodel::stencils {

struct NamedField {
  std::string name;           // e.g. "pressure"
  const std::vector<float>* values;  // logical layout, nx * ny * nz
};

std::string vti_document(const Grid& g, const std::vector<NamedField>& fields);

struct VtiImage {
  Grid grid;
  std::vector<std::string> names;
  std::vector<std::vector<float>> fields;
};
// Reads what vti_document writes (raw appended Float32, UInt64 header); std::invalid_argument on
// anything else.
VtiImage parse_vti(const std::string& bytes);

struct TraceSample {
  int step;         // the step that produced this value (1 = after the first step)
  double time_s;    // step x dt
  double pressure;
};
std::string trace_csv(const std::vector<TraceSample>& samples);

}  // namespace warpmodel::stencils
