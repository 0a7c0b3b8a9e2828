// `warpmodel import-ncu`: Nsight Compute's CSV (ncu_csv.hpp) as a warpmodel.profile/1 report,
// the file `kernel-profile --counters` and `predict-app` read. Plain C++, no CUPTI.
//
// Per ncu launch (its "ID"): the kernel's mangled name (see below), grid and block ("Grid Size"/
// "Block Size" "(x, y, z)", else launch__grid_dim_*/launch__block_dim_*, else launch__grid_size/
// launch__block_size as x), registers (launch__registers_per_thread), shared memory
// (launch__shared_mem_per_block_static + _dynamic), duration (gpu__time_duration.sum), and every
// metric column except the device__, launch__, profiler__, nvlink__, numa__ and c2clink__ ones
// (device attributes and launch facts, not counters), in base units.
//
// Kernel names: ncu prints mangled names with `--print-kernel-base mangled` (taken as they are);
// otherwise its own demangling, with or without the parameter list (`--print-kernel-base
// function`), and with namespaces cut or "(anonymous namespace)" shortened. With the kernels of the
// binary (`--binary APP`: the SASS analysis lists mangled and demangled names) such a name is
// mapped to the one kernel it can mean: same function identifier, then same parameter types, then
// same template arguments and qualifying names (compared without spaces, "const T" = "T const").
// A name that stays ambiguous or unknown is kept as printed, with a warning: kernel-profile then
// cannot find its SASS by that name.
#pragma once

#include <string>
#include <vector>

#include "warpmodel/cupti/ncu_csv.hpp"
#include "warpmodel/cupti/profile_report.hpp"

namespace warpmodel::cupti {

struct KernelSymbol {
  std::string mangled, demangled;
};

// The kernel `ncu_name` means among `candidates`: its index, or -1 with `why` saying why not
// (no such function, or the candidates it could be).
int match_ncu_kernel_name(const std::string& ncu_name, const std::vector<KernelSymbol>& candidates, std::string* why);

struct NcuImportOptions {
  std::string origin;                   // the CSV file, for messages and the report
  std::string command;                  // the import command, for provenance
  std::string binary;                   // where `kernels` came from ("" = none given)
  std::vector<KernelSymbol> kernels;    // the binary's kernels, for demangled names
};

struct NcuImport {
  ProfileReport report;
  // The model set's metrics (metric_sets() "model") that no launch has, or that some launches lack.
  std::vector<std::string> missing_model_metrics;
  std::vector<std::string> warnings;  // unmapped names, unknown units, launches without a shape
};

// Throws InputError when the file holds no launch, or a launch has no grid or block.
NcuImport import_ncu(const NcuReport& ncu, const NcuImportOptions& options);

// One line: "<origin> lacks N of the `model` set's metrics (...): a, b, c; kernel-profile falls back
// to static estimates for the fields they feed". Empty when nothing is missing.
std::string missing_metrics_warning(const NcuImport& import, const std::string& origin);

}  // namespace warpmodel::cupti
