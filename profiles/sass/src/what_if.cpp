// predict-app's what-ifs (what_if.hpp).
#include "warpmodel/sass/what_if.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "warpmodel/support/input_file.hpp"
#include "warpmodel/support/text.hpp"

namespace warpmodel::sass {
namespace {

using Kind = WhatIf::Kind;

// key -> whether it takes a factor ("0.5x"), a hit rate ("+20", "80") or an integer.
const std::map<std::string, Kind>& keys() {
  static const std::map<std::string, Kind> kKeys = {
      {"dram_bytes", Kind::Factor},          {"l2_bytes", Kind::Factor},
      {"l1_wavefronts", Kind::Factor},       {"instructions", Kind::Factor},
      {"memory_instructions", Kind::Factor}, {"shared_instructions", Kind::Factor},
      {"sfu_instructions", Kind::Factor},    {"bank_conflicts", Kind::Factor},
      {"sectors_per_request", Kind::Factor}, {"l1_hit_rate", Kind::Percent},
      {"l2_hit_rate", Kind::Percent},        {"registers", Kind::Integer},
      {"shared_memory", Kind::Integer}};
  return kKeys;
}

// A finite number filling `text` entirely.
std::optional<double> number(const std::string& text) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text.front()))) return std::nullopt;
  try {
    std::size_t used = 0;
    const double v = std::stod(text, &used);
    if (used != text.size() || !std::isfinite(v)) return std::nullopt;
    return v;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

void scale(std::optional<double>& v, double f) {
  if (v) *v *= f;
}

// Keeps the L1 miss ratio's effect on L2 reads (and the L2's on DRAM reads) where they are measured:
// the read bytes of the lower level follow the misses of the upper one.
void rescale_reads(std::optional<double>& total, const std::optional<double>& written, double from_miss, double to_miss) {
  if (!total || !(from_miss > 0)) return;
  const double w = written.value_or(0);
  *total = w + (*total - w) * (to_miss / from_miss);
}

}  // namespace

std::string what_if_keys() {
  std::vector<std::string> names;
  for (const auto& [k, kind] : keys()) names.push_back(k);
  return support::join(names, ", ", names.size());
}

WhatIf parse_what_if(const std::string& text) {
  const std::string where = "--what-if " + text + ": ";
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw InputError(where + "expected KEY=VALUE (keys: " + what_if_keys() + ")");
  WhatIf w;
  w.text = text;
  w.key = text.substr(0, eq);
  const std::string value = text.substr(eq + 1);
  const auto it = keys().find(w.key);
  if (it == keys().end()) throw InputError(where + "unknown key '" + w.key + "' (keys: " + what_if_keys() + ")");
  switch (it->second) {
    case Kind::Factor: {
      const auto f = value.size() > 1 && value.back() == 'x' ? number(value.substr(0, value.size() - 1)) : std::nullopt;
      if (!f || *f < 0 || *f > 1000)
        throw InputError(where + "expected a factor between 0x and 1000x such as 0.5x, got '" + value + "'");
      w.kind = Kind::Factor;
      w.value = *f;
      break;
    }
    case Kind::Percent:
    case Kind::Points: {
      const bool relative = !value.empty() && (value[0] == '+' || value[0] == '-');
      const auto v = number(value);
      if (!v || (relative ? std::abs(*v) > 100 : (*v < 0 || *v > 100)))
        throw InputError(where + "expected points such as +20 or -10, or a hit rate in percent from 0 to 100, got '" +
                         value + "'");
      w.kind = relative ? Kind::Points : Kind::Percent;
      w.value = *v;
      break;
    }
    case Kind::Integer: {
      const auto v = number(value);
      const bool registers = w.key == "registers";
      const double high = registers ? 255 : 1 << 20;
      if (!v || *v != std::floor(*v) || *v < (registers ? 1 : 0) || *v > high)
        throw InputError(where + "expected " +
                         (registers ? std::string("registers per thread, an integer from 1 to 255")
                                    : std::string("bytes of shared memory per block, an integer from 0 to 1048576")) +
                         ", got '" + value + "'");
      w.kind = Kind::Integer;
      w.value = *v;
      break;
    }
  }
  return w;
}

std::string apply_what_if(const WhatIf& w, KernelProfile& k) {
  const double f = w.value;
  auto hit_rate = [&](double miss) {
    const double hit = w.kind == Kind::Points ? (1 - miss) * 100 + w.value : w.value;
    return 1 - std::clamp(hit, 0.0, 100.0) / 100;
  };
  if (w.key == "dram_bytes") {
    if (!k.dram_bytes_per_warp) return "no measured DRAM bytes";
    scale(k.dram_bytes_per_warp, f);
    scale(k.dram_write_bytes_per_warp, f);
  } else if (w.key == "l2_bytes") {
    if (!k.l2_bytes_per_warp) return "no measured L2 bytes";
    scale(k.l2_bytes_per_warp, f);
    scale(k.l2_write_bytes_per_warp, f);
  } else if (w.key == "l1_wavefronts") {
    if (!k.l1_wavefronts_per_warp) return "no measured L1 wavefronts";
    scale(k.l1_wavefronts_per_warp, f);
  } else if (w.key == "instructions") {
    k.inst_per_warp = std::max(k.inst_per_warp * f, k.mem_inst_per_warp);
  } else if (w.key == "memory_instructions") {
    k.mem_inst_per_warp *= f;
    k.uncoalesced_mem_inst_per_warp *= f;
    scale(k.global_load_inst_per_warp, f);
    k.inst_per_warp = std::max(k.inst_per_warp, k.mem_inst_per_warp);
  } else if (w.key == "shared_instructions") {
    k.shared_inst_per_warp *= f;
  } else if (w.key == "sfu_instructions") {
    k.sfu_inst_per_warp *= f;
  } else if (w.key == "bank_conflicts") {
    k.bank_conflicts_per_warp *= f;
  } else if (w.key == "sectors_per_request") {
    k.transactions_per_request = std::max(1.0, k.transactions_per_request * f);
  } else if (w.key == "l1_hit_rate") {
    const double miss = hit_rate(k.l1_miss_ratio);
    rescale_reads(k.l2_bytes_per_warp, k.l2_write_bytes_per_warp, k.l1_miss_ratio, miss);
    k.l1_miss_ratio = miss;
  } else if (w.key == "l2_hit_rate") {
    const double miss = hit_rate(k.l2_miss_ratio);
    rescale_reads(k.dram_bytes_per_warp, k.dram_write_bytes_per_warp, k.l2_miss_ratio, miss);
    k.l2_miss_ratio = miss;
  } else if (w.key == "registers") {
    k.launch.registers_per_thread = static_cast<int>(w.value);
    k.launch.active_warps_per_sm.reset();
  } else if (w.key == "shared_memory") {
    k.launch.shared_memory_per_block_bytes = static_cast<int>(w.value);
    k.launch.active_warps_per_sm.reset();
  }
  return "";
}

const std::vector<std::string>& removable_bounds() {
  static const std::vector<std::string> kBounds = {
      "issue",        "sfu pipe",       "warp schedule",    "memory latency", "l1/shared data path",
      "l2 bandwidth", "dram bandwidth", "l2 slice atomics", "gather sectors", "block dispatch"};
  return kBounds;
}

}  // namespace warpmodel::sass
