#include "warpmodel/support/input_file.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "warpmodel/support/xz.hpp"

namespace warpmodel::support {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void refuse(const fs::path& path, const std::string& what) {
  throw InputError(path.string() + ": " + what);
}

}  // namespace

std::string describe_file_type(const fs::file_status& s) {
  switch (s.type()) {
    case fs::file_type::regular: return "a regular file";
    case fs::file_type::directory: return "a folder";
    case fs::file_type::character: return "a character device";
    case fs::file_type::block: return "a block device";
    case fs::file_type::socket: return "a socket";
    case fs::file_type::fifo: return "a pipe";
    case fs::file_type::not_found: return "missing";
    default: return "not a regular file";
  }
}

void check_output_file(const std::string& option, const fs::path& path, const std::vector<NamedInput>& inputs) {
  const std::string named = option.empty() ? path.string() : option + " " + path.string();
  if (path.empty()) throw InputError(option + ": expected the name of a file to write, got an empty name");
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec && ec != std::errc::no_such_file_or_directory)  // a name too long, a loop of links, no permission
    throw InputError(named + ": cannot be created there (" + ec.message() + "); choose another name");
  if (!fs::exists(status)) return;  // a new name (its folder is created when it is written)
  if (!fs::is_regular_file(status))
    throw InputError(named + ": is " + describe_file_type(status) +
                     "; expected the name of a file to write (a new name or a regular file)");
  for (const auto& [input_option, input] : inputs)
    if (!input.empty() && fs::equivalent(path, input, ec) && !ec)
      throw InputError(named + ": is the input " + (input_option.empty() ? input.string() : input_option + " " + input.string()) +
                       "; writing it would destroy what is being read, choose another name");
}

void check_output_folder(const std::string& option, const fs::path& path) {
  if (path.empty()) throw InputError(option + ": expected the name of a folder to write into, got an empty name");
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (fs::exists(status) && !fs::is_directory(status))
    throw InputError(option + " " + path.string() + ": is " + describe_file_type(status) +
                     "; expected a folder to write into (an existing folder or a new name)");
}

std::string describe_size(std::uintmax_t bytes) {
  char text[64];
  if (bytes < 1000) {
    std::snprintf(text, sizeof text, "%ju bytes", bytes);
  } else {
    const char* units[] = {"KB", "MB", "GB", "TB", "PB"};
    double value = static_cast<double>(bytes) / 1000;
    std::size_t unit = 0;
    while (value >= 1000 && unit + 1 < std::size(units)) value /= 1000, ++unit;
    std::snprintf(text, sizeof text, "%.3g %s", value, units[unit]);
  }
  return text;
}

void check_input_file(const fs::path& path, std::uintmax_t max_bytes) {
  if (path.empty()) throw InputError("'': expected the path of a file, got an empty name");
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec || !fs::exists(status))
    refuse(path, "cannot read the file (" + (ec && ec != std::errc::no_such_file_or_directory
                                                 ? ec.message()
                                                 : std::string("does it exist and is it readable?")) + ")");
  // A pipe is read as far as the limit; a device (/dev/zero, a terminal) would never end.
  if (!fs::is_regular_file(status) && !fs::is_fifo(status))
    refuse(path, "is " + describe_file_type(status) + ", not a file; expected the path of a file");
  if (fs::is_regular_file(status)) {
    const std::uintmax_t size = fs::file_size(path, ec);
    if (!ec && size > max_bytes)
      refuse(path, describe_size(size) + ", larger than the " + describe_size(max_bytes) +
                       " an input file may be (docs/input-checks.md)");
  }
}

std::string read_input_file(const fs::path& path, std::uintmax_t max_bytes) {
  check_input_file(path, max_bytes);
  std::ifstream in(path, std::ios::binary);
  if (!in) refuse(path, std::string("cannot read the file (") + std::strerror(errno) + ")");
  std::string text;
  // Read in chunks up to one byte past the limit: a pipe has no size to check beforehand.
  std::string chunk(std::size_t{1} << 20, '\0');
  while (in) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    text.append(chunk.data(), static_cast<std::size_t>(in.gcount()));
    if (text.size() > max_bytes)
      refuse(path, "more than the " + describe_size(max_bytes) + " an input file may be (docs/input-checks.md)");
  }
  if (in.bad()) refuse(path, "cannot read the file (a read error)");
  if (is_xz_path(path)) text = xz_decompress(text, max_bytes, path.string());
  if (const auto bad = first_invalid_utf8(text))
    refuse(path, describe_invalid_byte(text, *bad) + " is not UTF-8; expected a text file in UTF-8");
  return text;
}

std::optional<std::size_t> first_invalid_utf8(std::string_view text) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  std::size_t i = 0;
  while (i < n) {
    const unsigned char c = s[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t length = 0;
    unsigned char low = 0x80, high = 0xbf;  // the second byte's range (RFC 3629, table 3-7 of Unicode)
    if (c >= 0xc2 && c <= 0xdf) length = 2;
    else if (c == 0xe0) length = 3, low = 0xa0;
    else if (c >= 0xe1 && c <= 0xec) length = 3;
    else if (c == 0xed) length = 3, high = 0x9f;  // no surrogates
    else if (c >= 0xee && c <= 0xef) length = 3;
    else if (c == 0xf0) length = 4, low = 0x90;
    else if (c >= 0xf1 && c <= 0xf3) length = 4;
    else if (c == 0xf4) length = 4, high = 0x8f;  // nothing above U+10FFFF
    else return i;
    if (i + length > n) return i;
    if (s[i + 1] < low || s[i + 1] > high) return i;
    for (std::size_t k = 2; k < length; ++k)
      if (s[i + k] < 0x80 || s[i + k] > 0xbf) return i;
    i += length;
  }
  return std::nullopt;
}

std::string describe_invalid_byte(std::string_view text, std::size_t offset) {
  const std::size_t line = 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<long>(
                                                                                                     std::min(offset, text.size())),
                                                                    '\n'));
  char byte[8] = "";
  if (offset < text.size()) std::snprintf(byte, sizeof byte, "0x%02x", static_cast<unsigned char>(text[offset]));
  return "line " + std::to_string(line) + ", byte " + byte;
}

}  // namespace warpmodel::support
