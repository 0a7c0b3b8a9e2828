// Reading what a user hands warpmodel: one bounded reader for every input file (device and kernel
// profiles, measurements, CUPTI and ncu reports, SASS listings), the one check of every output name
// (-o), and the one exception for bad input. The limits and their reasons: docs/input-checks.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace warpmodel {

// Bad input: a malformed, out-of-range or unreadable file, or a bad option. The program reports it
// as one line on standard error naming the file (or option), the field and what was expected, and
// exits 2 (README "Exit codes"). Every library of the project throws it for its input.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace warpmodel

namespace warpmodel::support {

// The largest input read whole: 256 MiB, twenty times the largest committed input (a validation
// sweep's measurements, 12 MB). A JSON document takes about ten times its size once parsed.
inline constexpr std::uintmax_t kMaxInputFileBytes = std::uintmax_t{256} << 20;

// "12.5 MB", "3 KB", "17 bytes": a size in messages.
std::string describe_size(std::uintmax_t bytes);

// Checks that `path` names something warpmodel can read as a file: not empty, existing, readable,
// and a regular file or a pipe (a character device such as /dev/zero, a folder or a socket is
// refused), no larger than `max_bytes` when its size is known. Throws InputError naming the path.
void check_input_file(const std::filesystem::path& path, std::uintmax_t max_bytes = kMaxInputFileBytes);

// The whole of an input file, after check_input_file: text in UTF-8 (a byte that is not UTF-8 is
// refused with its line), never more than `max_bytes` (a pipe is read up to the limit). Throws
// InputError naming the path.
std::string read_input_file(const std::filesystem::path& path, std::uintmax_t max_bytes = kMaxInputFileBytes);

// "a folder", "a character device", "a regular file", ... what `status` says a path is, for messages.
std::string describe_file_type(const std::filesystem::file_status& status);

// An input the program reads, by the option (or argument) that named it: {"--device", "d.json"}.
using NamedInput = std::pair<std::string, std::filesystem::path>;

// Checks that `path`, given by `option` ("-o"), may be written as a file: a new name or an existing
// regular file (never a folder or a device node, which a rename would replace), and not one of
// `inputs` under any name (writing it would destroy what is being read). Throws InputError.
void check_output_file(const std::string& option, const std::filesystem::path& path,
                       const std::vector<NamedInput>& inputs = {});
// The same for an output folder: a new name (created when written) or an existing folder.
void check_output_folder(const std::string& option, const std::filesystem::path& path);

// Where `text` stops being UTF-8 (the offset of the first byte that is not part of a valid
// sequence: stray continuation bytes, overlong forms, surrogates, truncated sequences), if it does.
std::optional<std::size_t> first_invalid_utf8(std::string_view text);

// "line 3, byte 0xff" for the invalid byte at `offset` of `text`, for messages.
std::string describe_invalid_byte(std::string_view text, std::size_t offset);

}  // namespace warpmodel::support
