// Reading and writing the model's value types as JSON. The schema is documented in README.md
// ("JSON schema"). Readers are strict: a missing, mistyped, out-of-range or unknown field raises
// InputError with one line naming the file, the field and what was expected.
#pragma once

#include <filesystem>
#include <functional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "warpmodel/device_profile.hpp"
#include "warpmodel/kernel_profile.hpp"
#include "warpmodel/prediction.hpp"
#include "warpmodel/validation.hpp"
#include "warpmodel/support/input_file.hpp"  // InputError, the bounded reader

namespace warpmodel {

inline constexpr const char* kDeviceSchema = "warpmodel.device/1";
inline constexpr const char* kKernelSchema = "warpmodel.kernel/1";
inline constexpr const char* kValidationSchema = "warpmodel.validation-measurements/1";

// `origin` names the input in messages (a file path, or "<stdin>").
DeviceProfile device_from_json(const nlohmann::json& j, const std::string& origin);
KernelProfile kernel_from_json(const nlohmann::json& j, const std::string& origin);

// The deepest nesting any reader accepts. warpmodel's own files nest at most 6 levels (ncu and
// CUPTI reports as read here about as many); anything deeper is refused before it is parsed.
inline constexpr int kMaxJsonDepth = 64;
// Throws InputError when `text` opens more than max_depth arrays/objects at once (strings skipped).
void check_json_nesting(std::string_view text, const std::string& origin, int max_depth = kMaxJsonDepth);
// Parses a whole text (nesting checked first); malformed JSON becomes InputError ("<origin>: not valid JSON: ...").
nlohmann::json parse_json_text(const std::string& text, const std::string& origin);
// Reads and parses a file; unreadable files become InputError.
nlohmann::json read_json_file(const std::filesystem::path& path);

DeviceProfile load_device_profile(const std::filesystem::path& path);
KernelProfile load_kernel_profile(const std::filesystem::path& path);

// The measured launches `warpmodel validate` compares against (README "Validation"): a
// "cases" array, each with family, kernel, size, shape, optional warps_per_sm, duration_ns,
// sm_clock_mhz, optional sm_cycles_elapsed and the launch's kernel profile under "profile".
std::vector<ValidationCase> validation_cases_from_json(const nlohmann::json& j, const std::string& origin);
nlohmann::json to_json(const ValidationCase& c);
// The provenance of the run that measured a case of that family and kernel: a measurements file
// merged from several runs (`validate --measure --families`, `--corpus-kernels`) holds the newest
// run's record at the top and the earlier ones, newest first, under "earlier_parts"; a case comes
// from the newest part whose families_measured (absent: every family) include its family and, for
// the corpus, whose corpus_kernels_measured (absent: every kernel) include its kernel. The top-level
// record where none matches (and where the file has no parts); an empty object without a record.
nlohmann::json measuring_run(const nlohmann::json& measurements, const std::string& family, const std::string& kernel);
// Whether one run's record (a measurements file's "provenance" or one of its earlier_parts) measured
// the cases of that family and kernel: the rule measuring_run and the sweep's merge share.
bool run_measured(const nlohmann::json& run, const std::string& family, const std::string& kernel);

nlohmann::json to_json(const DeviceProfile& d);
nlohmann::json to_json(const DeviceProfile::HopperCalibration& c);
nlohmann::json to_json(const DeviceProfile::ErrorQuantiles& q);
nlohmann::json to_json(const DeviceProfile::HopperIntervals& intervals);  // device.json's "hopper_intervals"
nlohmann::json to_json(const KernelProfile& k);
nlohmann::json to_json(const AccessPatterns& p);
// The "access_patterns" object of a kernel profile (or of an access-patterns.json kernel), checked
// field by field like every reader here.
AccessPatterns access_patterns_from_json(const nlohmann::json& j, const std::string& origin);
nlohmann::json to_json(const Occupancy& o);
nlohmann::json to_json(const Prediction& p);  // unused terms (NaN) become null

// Writes `text` to `path` atomically: a temporary file beside it, then rename. Throws
// InputError naming the path when the folder is not writable, or when `path` is there and is not a
// regular file (a folder, a device node).
void write_file_atomically(const std::filesystem::path& path, const std::string& text);
// The same, the text written by `write` as it goes (an output larger than memory should hold); if
// `write` throws, the temporary file is removed and nothing is replaced.
void write_file_atomically(const std::filesystem::path& path, const std::function<void(std::ostream&)>& write);

}  // namespace warpmodel
