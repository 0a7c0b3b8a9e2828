#include "warpmodel/sass/listing.hpp"

#include "warpmodel/support/text.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <sstream>
#include <string_view>
#include <utility>

namespace warpmodel::sass {
namespace {

using support::trim;

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

bool is_hex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }

// Splits "desc[UR6][R4.64], R2" at commas outside brackets and braces.
std::vector<std::string> split_operands(const std::string& text) {
  std::vector<std::string> out;
  std::string current;
  int depth = 0;
  for (char c : text) {
    if (c == '[' || c == '{' || c == '(') ++depth;
    if (c == ']' || c == '}' || c == ')') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(trim(current));
      current.clear();
    } else {
      current += c;
    }
  }
  if (!trim(current).empty()) out.push_back(trim(current));
  return out;
}

// Opcodes whose operands name a code address: branches, calls and the reconvergence point of BSSY.
// WARPSYNC.COLLECTIVE names where its collective ends ("WARPSYNC.COLLECTIVE R9, 0x4c0": the slow path
// of a warp shuffle the compiler cannot prove converged); plain WARPSYNC takes a mask, not an address.
bool names_code_address(const std::string& base, const std::string& opcode) {
  return base == "BRA" || base == "BRX" || base == "JMP" || base == "CALL" || base == "BSSY" || base == "BREAK" ||
         base == "BPT" || opcode == "WARPSYNC.COLLECTIVE";
}

// Parses the body of an instruction line after "/*0120*/". Returns false when it is not one.
bool parse_instruction(std::uint32_t offset, const std::string& rest, Instruction& out,
                       std::string& unresolved_label) {
  std::string body = trim(rest);
  if (!body.empty() && body[0] == '{') body = trim(body.substr(1));  // dual-issue brace (older SMs)
  const auto semicolon = body.find(';');
  if (semicolon == std::string::npos) return false;
  body = trim(body.substr(0, semicolon));
  if (body.empty()) return false;
  std::istringstream words(body);
  std::string first;
  words >> first;
  out = Instruction{};
  out.offset = offset;
  if (first[0] == '@') {
    out.guard = first;
    if (!(words >> first)) return false;
  }
  if (first.empty() || !std::isupper(static_cast<unsigned char>(first[0]))) return false;
  out.opcode = first;
  std::string operands;
  std::getline(words, operands);
  out.operands = split_operands(operands);
  unresolved_label.clear();
  if (names_code_address(out.base(), out.opcode)) {
    // Targets: "0x1d0" (cuobjdump) or "`(.L_x_1)" (nvdisasm); the last operand that is one.
    for (auto it = out.operands.rbegin(); it != out.operands.rend(); ++it) {
      const std::string& o = *it;
      if (starts_with(o, "0x") && o.size() > 2 && std::all_of(o.begin() + 2, o.end(), is_hex)) {
        out.target = static_cast<std::uint32_t>(std::stoul(o.substr(2), nullptr, 16));
        break;
      }
      if (starts_with(o, "`(") && o.back() == ')') {
        unresolved_label = o.substr(2, o.size() - 3);
        break;
      }
    }
  }
  return true;
}

}  // namespace

std::string Instruction::base() const { return opcode.substr(0, opcode.find('.')); }

bool Instruction::has_modifier(const std::string& modifier) const {
  std::size_t pos = 0;
  const std::string needle = modifier[0] == '.' ? modifier : "." + modifier;
  while ((pos = opcode.find(needle, pos)) != std::string::npos) {
    const std::size_t end = pos + needle.size();
    if (end == opcode.size() || opcode[end] == '.') return true;
    pos = end;
  }
  return false;
}

namespace {

// "/* 0x000fe20000000800 */" alone on a line: an encoding word, not an instruction.
std::optional<std::uint64_t> encoding_only_line(const std::string& t) {
  if (!starts_with(t, "/*") || t.size() < 8 || t.substr(t.size() - 2) != "*/") return std::nullopt;
  const std::string inner = trim(t.substr(2, t.size() - 4));
  if (!starts_with(inner, "0x") || inner.size() < 3 || inner.size() > 18) return std::nullopt;
  if (!std::all_of(inner.begin() + 2, inner.end(), is_hex)) return std::nullopt;
  return std::stoull(inner.substr(2), nullptr, 16);
}

// The control-bit layout read above is that of the 128-bit encodings (sm_70 onwards); an older or
// unknown architecture keeps no stall counts.
bool control_bits_known(const std::string& arch) {
  if (!starts_with(arch, "sm_")) return false;
  try {
    return std::stoi(arch.substr(3)) >= 70;
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace

std::vector<KernelListing> parse_sass_listing(const std::string& text) {
  std::vector<KernelListing> out;
  std::istringstream in(text);
  std::string line, arch;
  // nvdisasm listings name branch targets by label; labels are resolved when the function ends.
  std::map<std::string, std::uint32_t> labels;
  std::vector<std::pair<std::size_t, std::string>> pending;  // (instruction index, label)
  std::vector<std::string> labels_waiting;                    // labels seen before their instruction
  auto finish_function = [&] {
    if (out.empty()) return;
    for (const auto& [index, label] : pending)
      if (auto it = labels.find(label); it != labels.end()) out.back().instructions[index].target = it->second;
    labels.clear();
    pending.clear();
    labels_waiting.clear();
  };
  auto start_function = [&](const std::string& name) {
    finish_function();
    out.push_back({name, arch, {}});
  };
  // cuobjdump prints a 128-bit instruction's first 64-bit word after it and the second (control)
  // word on the next line; this is the instruction waiting for its control word.
  Instruction* awaiting_control = nullptr;
  while (std::getline(in, line)) {
    const std::string t = trim(line);
    if (t.empty()) continue;
    if (std::optional<std::uint64_t> word = encoding_only_line(t)) {
      if (awaiting_control && control_bits_known(arch)) awaiting_control->stall_cycles = static_cast<int>((*word >> 41) & 0xF);
      awaiting_control = nullptr;
      continue;
    }
    awaiting_control = nullptr;
    if (starts_with(t, "code for sm_")) {  // cuobjdump: "code for sm_90"
      arch = t.substr(std::string("code for ").size());
      continue;
    }
    if (starts_with(t, ".target")) {  // nvdisasm: ".target sm_90"
      arch = trim(t.substr(7));
      continue;
    }
    if (starts_with(t, "Function :")) {  // cuobjdump
      start_function(trim(t.substr(10)));
      continue;
    }
    if (starts_with(t, ".text.") && t.back() == ':') {  // nvdisasm section label
      start_function(t.substr(6, t.size() - 7));
      continue;
    }
    if (t.size() > 1 && t.back() == ':' && t.find_first_of(" \t") == std::string::npos && !out.empty()) {
      labels_waiting.push_back(t.substr(0, t.size() - 1));  // nvdisasm label: ".L_x_12:"
      continue;
    }
    if (out.empty() || !starts_with(t, "/*")) continue;
    const auto close = t.find("*/");
    if (close == std::string::npos || close < 3) continue;
    const std::string address = t.substr(2, close - 2);
    if (!std::all_of(address.begin(), address.end(), is_hex)) continue;  // encoding lines: "/* 0x000f... */"
    Instruction ins;
    std::string label;
    if (!parse_instruction(static_cast<std::uint32_t>(std::stoul(address, nullptr, 16)), t.substr(close + 2), ins,
                           label))
      continue;
    for (const auto& l : labels_waiting) labels[l] = ins.offset;
    labels_waiting.clear();
    if (!label.empty()) pending.emplace_back(out.back().instructions.size(), label);
    out.back().instructions.push_back(std::move(ins));
    awaiting_control = &out.back().instructions.back();
  }
  finish_function();
  return out;
}

namespace {
// The "NAME:123" and "NAME[0]:123" fields of a -res-usage line (NAME in capitals and '_'), scanned by
// hand: a regex would recurse once per character of a long run. Values beyond 18 digits are skipped.
std::vector<std::pair<std::string, long long>> resource_fields(const std::string& t) {
  std::vector<std::pair<std::string, long long>> out;
  auto upper = [](char c) { return (c >= 'A' && c <= 'Z') || c == '_'; };
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  for (std::size_t i = 0; i < t.size();) {
    if (!upper(t[i]) || (i > 0 && upper(t[i - 1]))) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < t.size() && upper(t[j])) ++j;
    if (j < t.size() && t[j] == '[') {  // CONSTANT[0]
      std::size_t k = j + 1;
      while (k < t.size() && digit(t[k])) ++k;
      if (k > j + 1 && k < t.size() && t[k] == ']') j = k + 1;
    }
    std::size_t k = j + 1;
    while (k < t.size() && digit(t[k])) ++k;
    if (j < t.size() && t[j] == ':' && k > j + 1) {
      if (k - j - 1 <= 18) out.emplace_back(t.substr(i, j - i), std::stoll(t.substr(j + 1, k - j - 1)));
      i = k;
    } else {
      i = j;
    }
  }
  return out;
}
}  // namespace

std::map<std::string, ResourceUsage> parse_resource_usage(const std::string& text) {
  std::map<std::string, ResourceUsage> out;
  std::istringstream in(text);
  std::string line;
  ResourceUsage* current = nullptr;
  while (std::getline(in, line)) {
    const std::string t = trim(line);
    if (starts_with(t, "Function ") && t.back() == ':') {
      current = &out[trim(t.substr(9, t.size() - 10))];
      continue;
    }
    if (!current) continue;
    bool any = false;
    for (const auto& [name, value] : resource_fields(t)) {
      current->fields[name] = value;
      any = true;
    }
    if (!any) continue;
    // An int holds every real value; a larger one reads as -1, which the readers refuse.
    auto field = [&](const char* key) {
      const auto it = current->fields.find(key);
      return it == current->fields.end() ? 0 : it->second > 2147483647 ? -1 : static_cast<int>(it->second);
    };
    current->registers = field("REG");
    current->stack_bytes = field("STACK");
    current->shared_bytes = field("SHARED");
    current->local_bytes = field("LOCAL");
    current->constant_bank0_bytes = field("CONSTANT[0]");
    current = nullptr;  // one line of fields per function
  }
  return out;
}

namespace {
// Where each instruction entry "0040:\ \ \ S2R ..." of a node's label starts, with its offset (a run of
// lowercase hex digits, ':', then one or more "\ "), scanned by hand (a regex recursed per character).
std::vector<std::pair<std::size_t, std::uint32_t>> label_offsets(const std::string& line) {
  std::vector<std::pair<std::size_t, std::uint32_t>> out;
  auto hex = [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); };
  for (std::size_t i = 0; i < line.size();) {
    if (!hex(line[i])) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < line.size() && hex(line[j])) ++j;
    std::size_t k = j + 1;
    while (j < line.size() && line[j] == ':' && k <= line.size() && line.compare(k, 2, "\\ ") == 0) k += 2;
    if (k > j + 1) {
      if (j - i <= 8) out.emplace_back(i, static_cast<std::uint32_t>(std::stoul(line.substr(i, j - i), nullptr, 16)));
      i = k;
    } else {
      i = j;
    }
  }
  return out;
}

// An edge line, "\"from\":port:compass -> \"to\"...": its two node names.
std::optional<std::pair<std::string, std::string>> edge_of(const std::string& line) {
  auto word = [&](std::size_t& at) {
    const std::size_t start = at;
    while (at < line.size() && (std::isalnum(static_cast<unsigned char>(line[at])) != 0 || line[at] == '_')) ++at;
    return at > start;
  };
  auto quoted = [&](std::size_t& at, std::string& name) {
    if (at >= line.size() || line[at] != '"') return false;
    const std::size_t close = line.find('"', at + 1);
    if (close == std::string::npos || close == at + 1) return false;
    name = line.substr(at + 1, close - at - 1);
    at = close + 1;
    return true;
  };
  auto spaces = [&](std::size_t& at) {
    while (at < line.size() && std::isspace(static_cast<unsigned char>(line[at])) != 0) ++at;
  };
  std::size_t at = 0;
  std::string from, to;
  if (!quoted(at, from) || at >= line.size() || line[at++] != ':' || !word(at) || at >= line.size() || line[at++] != ':' ||
      !word(at))
    return std::nullopt;
  spaces(at);
  if (line.compare(at, 2, "->") != 0) return std::nullopt;
  at += 2;
  spaces(at);
  if (!quoted(at, to)) return std::nullopt;
  return std::pair{from, to};
}
}  // namespace

std::vector<CfgFunction> parse_cfg_dot(const std::string& text) {
  std::vector<CfgFunction> out;
  std::istringstream in(text);
  std::string line, node;
  while (std::getline(in, line)) {
    if (starts_with(line, "subgraph \"cluster_")) {
      const auto end = line.rfind('"');
      out.push_back({line.substr(18, end - 18), {}, {}});
      node.clear();
      continue;
    }
    if (out.empty()) continue;
    if (line.size() > 2 && line.front() == '"' && line.back() == '"') {  // a node's name, its label follows
      node = line.substr(1, line.size() - 2);
      continue;
    }
    if (starts_with(line, "[label=\"") && !node.empty()) {
      CfgBlock block{node, {}};
      // Instruction entries are "0040:\ \ \ S2R..." at the start of the label, after "\l" or after a
      // record-field port ("<entry>", "|<exit0>").
      for (const auto& [pos, offset] : label_offsets(line)) {
        const std::string_view before(line.data(), pos);
        const bool at_entry = before.size() >= 2 && (before.ends_with("\\l") || before.ends_with(">"));
        if (at_entry) block.offsets.push_back(offset);
      }
      out.back().blocks.push_back(std::move(block));
      node.clear();
      continue;
    }
    if (const auto edge = edge_of(line)) out.back().edges.push_back(*edge);
  }
  return out;
}

std::vector<const CfgFunction*> cfg_of_kernel(const std::vector<CfgFunction>& cfg, const std::string& kernel) {
  std::vector<const CfgFunction*> out;
  for (std::size_t i = 0; i < cfg.size(); ++i) {
    if (cfg[i].name != kernel) continue;
    out.push_back(&cfg[i]);
    for (std::size_t j = i + 1; j < cfg.size() && starts_with(cfg[j].name, "$"); ++j) out.push_back(&cfg[j]);
    break;
  }
  return out;
}

namespace {

// "0x100 0x1 0x1" (cuobjdump) or "128, 1, 1" / "128" (PTX): up to three positive counts.
std::optional<ThreadShape> thread_shape(const std::string& text) {
  std::vector<long long> v;
  std::string word;
  std::istringstream in(text);
  while (in >> word) {
    while (!word.empty() && word.back() == ',') word.pop_back();
    if (word.empty()) continue;
    try {
      std::size_t used = 0;
      const long long x = std::stoll(word, &used, 0);
      if (used != word.size() || x <= 0 || x > (1 << 20)) return std::nullopt;
      v.push_back(x);
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  if (v.empty() || v.size() > 3) return std::nullopt;
  ThreadShape s;
  s.x = v[0];
  if (v.size() > 1) s.y = v[1];
  if (v.size() > 2) s.z = v[2];
  return s;
}

}  // namespace

std::string nv_info_sections(const std::string& elf_text) {
  std::istringstream in(elf_text);
  std::string line, out;
  bool inside = false;
  while (std::getline(in, line)) {
    const std::string t = trim(line);
    // A section's contents start at its name alone on a line (".nv.info.KERNEL"); the section
    // table's rows hold the name after other columns.
    if (!t.empty() && t[0] == '.' && t.find_first_of(" \t") == std::string::npos) inside = starts_with(t, ".nv.info");
    if (inside) out += line + "\n";
  }
  return out;
}

std::map<std::string, ThreadLimits> parse_nv_info(const std::string& elf_text) {
  std::map<std::string, ThreadLimits> out;
  std::istringstream in(elf_text);
  std::string line, kernel, attribute;
  while (std::getline(in, line)) {
    const std::string t = trim(line);
    if (!t.empty() && t[0] == '.' && t.find_first_of(" \t") == std::string::npos) {
      kernel = starts_with(t, ".nv.info.") ? t.substr(9) : "";
      attribute.clear();
      continue;
    }
    if (kernel.empty()) continue;
    if (starts_with(t, "Attribute:")) {
      attribute = trim(t.substr(10));
      continue;
    }
    if (!starts_with(t, "Value:") || (attribute != "EIATTR_MAX_THREADS" && attribute != "EIATTR_REQNTID")) continue;
    if (const auto shape = thread_shape(t.substr(6))) {
      ThreadLimits& limits = out[kernel];
      (attribute == "EIATTR_MAX_THREADS" ? limits.max_threads : limits.required_threads) = *shape;
    }
    attribute.clear();
  }
  return out;
}

std::map<std::string, ThreadLimits> parse_ptx_thread_limits(const std::string& ptx_text) {
  std::map<std::string, ThreadLimits> out;
  std::istringstream in(ptx_text);
  std::string line, kernel;
  while (std::getline(in, line)) {
    const std::string t = trim(line);
    if (const auto entry = t.find(".entry "); entry != std::string::npos) {
      kernel = trim(t.substr(entry + 7));
      kernel = kernel.substr(0, kernel.find_first_of("( \t"));
      continue;
    }
    if (kernel.empty()) continue;
    if (t == "{" || starts_with(t, "{")) {  // the body: the directives come before it
      kernel.clear();
      continue;
    }
    for (const char* directive : {".maxntid", ".reqntid"}) {
      if (!starts_with(t, directive)) continue;
      std::string rest = t.substr(std::string(directive).size());
      if (const auto semicolon = rest.find(';'); semicolon != std::string::npos) rest = rest.substr(0, semicolon);
      if (const auto shape = thread_shape(rest)) {
        ThreadLimits& limits = out[kernel];
        (std::string(directive) == ".maxntid" ? limits.max_threads : limits.required_threads) = *shape;
      }
    }
  }
  return out;
}

std::string demangle(const std::string& symbol) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> d(abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && d ? std::string(d.get()) : symbol;
}

}  // namespace warpmodel::sass
