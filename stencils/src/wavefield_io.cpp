#include "warpmodel/stencils/wavefield_io.hpp"

#include <bit>
#include <cstdint>
#include <cstring>
#include <iomanip>
#include <sstream>
#include <stdexcept>

namespace warpmodel::stencils {
namespace {

static_assert(std::endian::native == std::endian::little, "the VTI writer emits the host's bytes as LittleEndian");

std::string attribute(const std::string& xml, std::size_t from, const std::string& name) {
  const std::string key = name + "=\"";
  const std::size_t a = xml.find(key, from);
  if (a == std::string::npos) throw std::invalid_argument("VTI: missing attribute " + name);
  const std::size_t b = xml.find('"', a + key.size());
  if (b == std::string::npos) throw std::invalid_argument("VTI: unterminated attribute " + name);
  return xml.substr(a + key.size(), b - a - key.size());
}

}  // namespace

std::string vti_document(const Grid& g, const std::vector<NamedField>& fields) {
  std::ostringstream xml;
  xml << "<?xml version=\"1.0\"?>\n"
      << "<VTKFile type=\"ImageData\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n"
      << "  <ImageData WholeExtent=\"0 " << g.nx - 1 << " 0 " << g.ny - 1 << " 0 " << g.nz - 1
      << "\" Origin=\"0 0 0\" Spacing=\"" << std::setprecision(17) << g.h << " " << g.h << " " << g.h << "\">\n"
      << "    <Piece Extent=\"0 " << g.nx - 1 << " 0 " << g.ny - 1 << " 0 " << g.nz - 1 << "\">\n"
      << "      <PointData Scalars=\"" << (fields.empty() ? "" : fields.front().name) << "\">\n";
  std::uint64_t offset = 0;
  for (const auto& f : fields) {
    if (!f.values || f.values->size() != g.size()) throw std::invalid_argument("VTI: field " + f.name + " does not match the grid");
    xml << "        <DataArray type=\"Float32\" Name=\"" << f.name << "\" format=\"appended\" offset=\"" << offset
        << "\"/>\n";
    offset += sizeof(std::uint64_t) + f.values->size() * sizeof(float);
  }
  xml << "      </PointData>\n    </Piece>\n  </ImageData>\n  <AppendedData encoding=\"raw\">\n   _";
  std::string out = xml.str();
  for (const auto& f : fields) {
    const std::uint64_t bytes = f.values->size() * sizeof(float);
    out.append(reinterpret_cast<const char*>(&bytes), sizeof bytes);
    out.append(reinterpret_cast<const char*>(f.values->data()), bytes);
  }
  out += "\n  </AppendedData>\n</VTKFile>\n";
  return out;
}

VtiImage parse_vti(const std::string& bytes) {
  const std::size_t data = bytes.find("<AppendedData encoding=\"raw\">");
  if (bytes.rfind("<?xml", 0) != 0 || data == std::string::npos ||
      bytes.find("header_type=\"UInt64\"") == std::string::npos)
    throw std::invalid_argument("VTI: not an ImageData file with raw appended data and UInt64 headers");
  const std::size_t underscore = bytes.find('_', data);
  if (underscore == std::string::npos) throw std::invalid_argument("VTI: no appended data marker");
  VtiImage img;
  std::istringstream extent(attribute(bytes, 0, "WholeExtent"));
  std::size_t e[6];
  for (auto& v : e)
    if (!(extent >> v)) throw std::invalid_argument("VTI: bad WholeExtent");
  img.grid = {e[1] - e[0] + 1, e[3] - e[2] + 1, e[5] - e[4] + 1, std::stod(attribute(bytes, 0, "Spacing"))};
  std::size_t pos = 0;
  while ((pos = bytes.find("<DataArray", pos)) != std::string::npos && pos < data) {
    const std::string name = attribute(bytes, pos, "Name");
    const std::uint64_t offset = std::stoull(attribute(bytes, pos, "offset"));
    const std::size_t at = underscore + 1 + offset;
    std::uint64_t n = 0;
    if (at + sizeof n > bytes.size()) throw std::invalid_argument("VTI: truncated data of " + name);
    std::memcpy(&n, bytes.data() + at, sizeof n);
    if (n != img.grid.size() * sizeof(float) || at + sizeof n + n > bytes.size())
      throw std::invalid_argument("VTI: data of " + name + " does not match the extent");
    std::vector<float> values(img.grid.size());
    std::memcpy(values.data(), bytes.data() + at + sizeof n, n);
    img.names.push_back(name);
    img.fields.push_back(std::move(values));
    ++pos;
  }
  if (img.fields.empty()) throw std::invalid_argument("VTI: no DataArray");
  return img;
}

std::string trace_csv(const std::vector<TraceSample>& samples) {
  std::ostringstream out;
  out << "step,time_s,pressure\n" << std::setprecision(9);
  for (const auto& s : samples) out << s.step << ',' << s.time_s << ',' << s.pressure << '\n';
  return out.str();
}

}  // namespace warpmodel::stencils
