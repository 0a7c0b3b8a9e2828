#include "warpmodel/support/text.hpp"

#include <algorithm>
#include <fstream>
#include <numeric>
#include <sstream>

namespace warpmodel::support {

std::string trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(first, last - first + 1));
}

std::string join(const std::vector<std::string>& items, std::string_view separator, std::size_t limit) {
  std::string out;
  for (std::size_t i = 0; i < items.size() && i < limit; ++i) {
    if (i) out += separator;
    out += items[i];
  }
  if (items.size() > limit) out += std::string(separator) + "... (" + std::to_string(items.size() - limit) + " more)";
  return out;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

std::vector<std::string> closest_names(std::string_view query, const std::vector<std::string>& candidates,
                                       std::size_t count) {
  std::vector<std::pair<std::size_t, std::size_t>> ranked;  // (distance, index)
  for (std::size_t i = 0; i < candidates.size(); ++i) ranked.emplace_back(edit_distance(query, candidates[i]), i);
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::string> out;
  for (std::size_t i = 0; i < ranked.size() && out.size() < count; ++i) {
    const std::string& name = candidates[ranked[i].second];
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  }
  return out;
}

std::optional<std::string> read_text_file(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return text.str();
}

std::optional<std::string> base64_decode(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  const auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (std::size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    // '=' only at the end: "xx==" (one byte) or "xxx=" (two).
    const int pad = last ? (text[i + 3] == '=') + (text[i + 2] == '=' && text[i + 3] == '=') : 0;
    int v[4];
    for (int k = 0; k < 4 - pad; ++k)
      if ((v[k] = value(text[i + k])) < 0) return std::nullopt;
    for (int k = 4 - pad; k < 4; ++k) v[k] = 0;
    const unsigned bits = (unsigned(v[0]) << 18) | (unsigned(v[1]) << 12) | (unsigned(v[2]) << 6) | unsigned(v[3]);
    out.push_back(static_cast<char>(bits >> 16));
    if (pad < 2) out.push_back(static_cast<char>((bits >> 8) & 0xff));
    if (pad < 1) out.push_back(static_cast<char>(bits & 0xff));
  }
  return out;
}

}  // namespace warpmodel::support
