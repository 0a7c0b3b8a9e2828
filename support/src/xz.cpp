#include "warpmodel/support/xz.hpp"

#include <lzma.h>

#include <stdexcept>

#include "warpmodel/support/input_file.hpp"

namespace warpmodel::support {

bool is_xz_path(const std::filesystem::path& path) { return path.extension() == ".xz"; }

std::filesystem::path plain_or_xz(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) return path;
  std::filesystem::path xz = path;
  xz += ".xz";
  return std::filesystem::exists(xz, ec) ? xz : path;
}

std::string xz_decompress(std::string_view compressed, std::uintmax_t max_bytes, const std::string& origin) {
  lzma_stream stream = LZMA_STREAM_INIT;
  // The decoder's own memory limit: 256 MiB is far above what preset 9e needs (about 65 MiB).
  if (lzma_stream_decoder(&stream, std::uint64_t{256} << 20, LZMA_CONCATENATED) != LZMA_OK)
    throw std::runtime_error("liblzma: cannot start a decoder");
  std::string out;
  char buffer[1 << 16];
  stream.next_in = reinterpret_cast<const std::uint8_t*>(compressed.data());
  stream.avail_in = compressed.size();
  lzma_ret ret = LZMA_OK;
  while (ret == LZMA_OK) {
    stream.next_out = reinterpret_cast<std::uint8_t*>(buffer);
    stream.avail_out = sizeof buffer;
    ret = lzma_code(&stream, LZMA_FINISH);
    out.append(buffer, sizeof buffer - stream.avail_out);
    if (out.size() > max_bytes) {
      lzma_end(&stream);
      throw InputError(origin + ": decompresses to more than " + describe_size(max_bytes) +
                       " (the largest input read whole)");
    }
  }
  lzma_end(&stream);
  if (ret != LZMA_STREAM_END)
    throw InputError(origin + ": not a complete xz stream (" +
                     (ret == LZMA_FORMAT_ERROR ? std::string("not xz data")
                      : ret == LZMA_BUF_ERROR  ? std::string("truncated")
                                               : std::string("corrupt data")) +
                     ")");
  return out;
}

std::string xz_compress(std::string_view data) {
  std::string out(lzma_stream_buffer_bound(data.size()), '\0');
  std::size_t used = 0;
  const lzma_ret ret = lzma_easy_buffer_encode(9 | LZMA_PRESET_EXTREME, LZMA_CHECK_CRC64, nullptr,
                                               reinterpret_cast<const std::uint8_t*>(data.data()), data.size(),
                                               reinterpret_cast<std::uint8_t*>(out.data()), &used, out.size());
  if (ret != LZMA_OK) throw std::runtime_error("liblzma: cannot compress (code " + std::to_string(ret) + ")");
  out.resize(used);
  return out;
}

}  // namespace warpmodel::support
