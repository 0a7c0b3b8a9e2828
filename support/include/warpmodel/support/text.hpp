// Small text helpers every module needs: trimming, joining, closest-name suggestions ("did you
// mean"), and reading a whole file. Plain C++, no dependencies.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpmodel::support {

// `s` without leading and trailing white space (space, tab, CR, LF).
std::string trim(std::string_view s);

// The items separated by `separator`; after `limit` items, ", ... (N more)".
std::string join(const std::vector<std::string>& items, std::string_view separator = ", ",
                 std::size_t limit = static_cast<std::size_t>(-1));

// Levenshtein distance (insertions, deletions, substitutions each cost 1).
std::size_t edit_distance(std::string_view a, std::string_view b);

// Up to `count` candidates closest to `query` by edit distance (ties in the candidates' order),
// nearest first. Used for "unknown X; did you mean Y" messages.
std::vector<std::string> closest_names(std::string_view query, const std::vector<std::string>& candidates,
                                       std::size_t count = 3);

// The whole file as bytes, or nothing when it cannot be opened (the caller says why in its own terms).
std::optional<std::string> read_text_file(const std::filesystem::path& path);

// The bytes of standard base64 text (RFC 4648: A-Z a-z 0-9 + /, '=' padding to a multiple of 4;
// what Python's base64.b64encode writes), or nothing when `text` is not that.
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace warpmodel::support
