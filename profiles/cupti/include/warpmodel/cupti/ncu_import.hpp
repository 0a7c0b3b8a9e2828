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

#include <cstdint>
#include <filesystem>
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

// Throws InputError when the file holds no launch, or a launch has no grid or block, or a value its
// readers would refuse: an empty kernel name, a shape beyond CUDA's limits, registers outside [0,
// 255], a duration outside [1 ns, 1e15 ns], a counter that is negative, not a number ("12,34",
// "0x10", "NaN") or in a unit its name does not allow (a duration in bytes).
NcuImport import_ncu(const NcuReport& ncu, const NcuImportOptions& options);

// The largest CSV import-ncu reads: 2 GiB (ncu's raw page of a long application's run is hundreds of
// megabytes; the import streams it, so its memory does not grow with the file).
inline constexpr std::uintmax_t kMaxNcuCsvBytes = std::uintmax_t{2} << 30;

struct NcuFileImport {
  NcuCsvLayout layout = NcuCsvLayout::Wide;
  std::size_t launches = 0, kernels = 0, metrics = 0;
  std::vector<std::string> missing_model_metrics;
  std::vector<std::string> warnings;
};

// import-ncu, file to file: what import_ncu(parse_ncu_csv(...)) writes as to_json(report).dump(2),
// in memory that does not grow with the file. The CSV is read twice (the report's header lists every
// launch's metrics, known only after the last); a pipe is read into memory once instead. Nothing is
// written when the CSV is refused (InputError); `output` is written atomically.
NcuFileImport import_ncu_file(const std::filesystem::path& csv, const NcuImportOptions& options,
                              const std::filesystem::path& output);

// One line: "<origin> lacks N of the `model` set's metrics (...): a, b, c; kernel-profile falls back
// to static estimates for the fields they feed". Empty when nothing is missing.
std::string missing_metrics_warning(const NcuImport& import, const std::string& origin);
std::string missing_metrics_warning(const std::vector<std::string>& missing_model_metrics, const std::string& origin);

}  // namespace warpmodel::cupti
