// xz (LZMA2) for the large measurement files under results/: validation-measurements.json.xz and
// ubench.csv.xz hold numbers that change on every re-measure, so git cannot store a new version as a
// small delta; xz stores each in about half of what git's own compression takes (docs/results-layout.md).
// Readers and writers handle a ".xz" name transparently (read_input_file, write_file_atomically).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace warpmodel::support {

// Whether `path` names an xz file (by its extension).
bool is_xz_path(const std::filesystem::path& path);

// `path` itself if it exists, else `path` with ".xz" appended if that exists, else `path`: where a
// reader finds DIR/validation-measurements.json, stored plain or compressed.
std::filesystem::path plain_or_xz(const std::filesystem::path& path);

// The data of an xz stream, at most `max_bytes` of it; throws InputError naming `origin` when the
// stream is corrupt, truncated, or would decompress to more than `max_bytes`.
std::string xz_decompress(std::string_view compressed, std::uintmax_t max_bytes, const std::string& origin);

// `data` as an xz stream (preset 9e, CRC64: what `xz -9e` writes, and Python's lzma module with the
// same preset): the same input gives the same bytes.
std::string xz_compress(std::string_view data);

}  // namespace warpmodel::support
