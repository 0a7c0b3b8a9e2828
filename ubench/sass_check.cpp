#include "sass_check.hpp"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <sstream>

namespace warpmodel::ubench {
namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

bool is_clock_read(const SassInstruction& i) {
  return i.operands.find("SR_CLOCKLO") != std::string::npos;
}

}  // namespace

SassListing parse_sass(const std::string& text) {
  SassListing out;
  std::istringstream in(text);
  std::string line, current;
  // cuobjdump: "Function : NAME"; nvdisasm: ".text.NAME:" section labels.
  static const std::regex function_re(R"(^\s*Function\s*:\s*(\S+))");
  static const std::regex section_re(R"(^\s*\.text\.([A-Za-z_$][\w$.]*):\s*$)");
  // "/*0120*/   @!P0 LDG.E.64 R2, desc[UR4][R2.64] ;  /* 0x... */" (encoding comment optional)
  static const std::regex inst_re(R"(^\s*/\*[0-9a-fA-F]+\*/\s*(?:\{\s*)?(@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_.]*)\s*([^;]*);)");
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, function_re) || std::regex_search(line, m, section_re)) {
      current = m[1].str();
      out[current];
      continue;
    }
    if (current.empty()) continue;
    if (std::regex_search(line, m, inst_re)) out[current].push_back({trim(m[1].str()), m[2].str(), trim(m[3].str())});
  }
  return out;
}

SassVerdict check_declaration(const Declaration& d, const SassListing& listing) {
  SassVerdict v;
  v.benchmark = d.name;
  v.expected = d.sass_count;
  const auto it = listing.find(d.kernel);
  if (it == listing.end()) {
    v.reason = "kernel " + d.kernel + " not found in the SASS listing";
    return v;
  }
  const auto& ins = it->second;
  std::vector<std::size_t> clocks;
  for (std::size_t i = 0; i < ins.size(); ++i)
    if (is_clock_read(ins[i])) clocks.push_back(i);
  if (clocks.size() != 2) {
    v.reason = "expected 2 clock reads in " + d.kernel + ", found " + std::to_string(clocks.size());
    return v;
  }
  const std::regex want(d.sass_regex.empty() ? std::string("$^") : d.sass_regex);
  const std::regex allowed(d.allowed_regex.empty() ? std::string("NOP") : "NOP|" + d.allowed_regex);
  std::map<std::string, int> unexpected;
  const std::regex also(d.also_regex.empty() ? std::string("$^") : d.also_regex);
  int also_found = 0;
  for (std::size_t i = clocks[0] + 1; i < clocks[1]; ++i) {
    const auto& op = ins[i].opcode;
    ++v.region[op];
    if (!d.also_regex.empty() && std::regex_match(op, also)) ++also_found;
    if (!d.sass_regex.empty() && std::regex_match(op, want)) ++v.found;
    else if (!std::regex_match(op, allowed)) ++unexpected[op];
  }
  std::ostringstream why;
  if (v.found != v.expected)
    why << "timed region holds " << v.found << " x " << (d.sass_regex.empty() ? "(nothing)" : d.sass_regex)
        << ", declared " << v.expected;
  if (!d.also_regex.empty() && also_found != d.also_count) {
    if (why.tellp() > 0) why << "; ";
    why << "timed region holds " << also_found << " x " << d.also_regex << ", declared " << d.also_count;
  }
  if (!unexpected.empty()) {
    if (why.tellp() > 0) why << "; ";
    why << "unexpected instructions in the timed region:";
    for (const auto& [op, n] : unexpected) why << " " << op << " x" << n;
  }
  v.valid = why.tellp() == 0;
  if (v.valid) {
    std::ostringstream ok;
    ok << v.found << " x " << (d.sass_regex.empty() ? "(empty region)" : d.sass_regex);
    if (!d.also_regex.empty()) ok << " and " << also_found << " x " << d.also_regex;
    v.reason = ok.str();
  } else {
    v.reason = why.str();
  }
  return v;
}

std::vector<SassVerdict> check_all(const SassListing& listing) {
  std::vector<SassVerdict> out;
  for (const auto& d : declarations()) out.push_back(check_declaration(d, listing));
  return out;
}

std::optional<std::string> find_cuobjdump() {
  namespace fs = std::filesystem;
  std::vector<fs::path> candidates;
  if (const char* env = std::getenv("WARPMODEL_CUOBJDUMP")) candidates.emplace_back(env);
  if (const char* path = std::getenv("PATH")) {
    std::istringstream p(path);
    std::string dir;
    while (std::getline(p, dir, ':'))
      if (!dir.empty()) candidates.push_back(fs::path(dir) / "cuobjdump");
  }
  candidates.emplace_back("/usr/local/cuda/bin/cuobjdump");
#ifdef WARPMODEL_CUOBJDUMP_HINT
  candidates.emplace_back(WARPMODEL_CUOBJDUMP_HINT);
#endif
  std::error_code ec;
  for (const auto& c : candidates)
    if (fs::is_regular_file(c, ec)) return c.string();
  return std::nullopt;
}

std::optional<std::string> dump_sass(const std::string& binary, std::string* error) {
  const auto tool = find_cuobjdump();
  if (!tool) {
    if (error) *error = "cuobjdump not found (set WARPMODEL_CUOBJDUMP or run scripts/setup.sh)";
    return std::nullopt;
  }
  const std::string cmd = "'" + *tool + "' -sass '" + binary + "' 2>/dev/null";
  FILE* pipe = ::popen(cmd.c_str(), "r");
  if (!pipe) {
    if (error) *error = "cannot run " + *tool;
    return std::nullopt;
  }
  std::string text;
  std::array<char, 65536> buf{};
  std::size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) text.append(buf.data(), n);
  const int rc = ::pclose(pipe);
  if (rc != 0 || text.empty()) {
    if (error) *error = *tool + " -sass " + binary + " failed (status " + std::to_string(rc) + ")";
    return std::nullopt;
  }
  return text;
}

}  // namespace warpmodel::ubench
