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
// The warpmodel.access-patterns/1 document (`sass-analyze --addresses --format json`, and what
// `validate --measure` writes beside its measurements as access-patterns.json): each kernel's
// access patterns with its static instruction count, which must match a measured case's for
// `validate --from` to use them; provenance: this process's command line, the date, the commit.
nlohmann::json access_patterns_document(const BinaryAnalysis& a);

}  // namespace warpmodel::sass
