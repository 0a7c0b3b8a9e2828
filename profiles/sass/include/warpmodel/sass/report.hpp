// Output of the static analysis: the per-kernel table (text, markdown, CSV) and JSON
// ("warpmodel.sass/1"). Nothing here computes.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "warpmodel/report.hpp"
#include "warpmodel/sass/analysis.hpp"
#include "warpmodel/sass/tools.hpp"

namespace warpmodel::sass {

inline constexpr const char* kSassSchema = "warpmodel.sass/1";

// "void ns::kernel<2>(float const*, int)" -> "ns::kernel<2>": the name without return type and
// parameter list, for tables.
std::string short_kernel_name(const std::string& demangled);

// One row per kernel. CSV gets every count (and the mangled name); text/markdown a readable subset.
Table statics_table(const std::vector<KernelStatics>& kernels, TableFormat format);

nlohmann::json to_json(const KernelStatics& k);
nlohmann::json to_json(const BinaryAnalysis& a);

}  // namespace warpmodel::sass
