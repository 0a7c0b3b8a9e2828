// predict-app's guardrails (guardrails.hpp).
#include "warpmodel/sass/guardrails.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include <nlohmann/json.hpp>

namespace warpmodel::sass {
namespace {

std::string shape_text(long long x, long long y, long long z) {
  if (y == 1 && z == 1) return std::to_string(x);
  if (z == 1) return std::to_string(x) + "x" + std::to_string(y);
  return std::to_string(x) + "x" + std::to_string(y) + "x" + std::to_string(z);
}

std::string lower_trimmed(const std::string& s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  std::string t = s.substr(first, s.find_last_not_of(" \t") - first + 1);
  std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return t;
}

}  // namespace

std::vector<long long> template_integer_arguments(const std::string& mangled) {
  // Itanium: an integer literal is L <builtin type> <number> E; the integer types' codes below
  // (a, h: signed/unsigned char; s, t: short; i, j: int; l, m: long; x, y: long long).
  static const std::string kIntegerTypes = "ahstijlmxy";
  std::vector<long long> out;
  for (std::size_t i = 0; i + 3 < mangled.size(); ++i) {
    if (mangled[i] != 'L' || kIntegerTypes.find(mangled[i + 1]) == std::string::npos) continue;
    std::size_t j = i + 2;
    while (j < mangled.size() && std::isdigit(static_cast<unsigned char>(mangled[j]))) ++j;
    if (j == i + 2 || j >= mangled.size() || mangled[j] != 'E' || j - i - 2 > 18) continue;
    out.push_back(std::stoll(mangled.substr(i + 2, j - i - 2)));
    i = j;
  }
  return out;
}

std::optional<Guardrail> fixed_block_size(const KernelStatics& k, const Dim3& block) {
  if (const auto& r = k.thread_limits.required_threads) {
    const std::string shape = shape_text(r->x, r->y, r->z);
    return Guardrail{"fixed_block_size", "block fixed at " + shape + " threads by .reqntid",
                     "compiled for exactly " + shape + " threads (.reqntid)"};
  }
  if (block.count() <= 1) return std::nullopt;
  for (const long long v : template_integer_arguments(k.name)) {
    const bool matches = v == block.count() || (v > 1 && (v == block.x || (block.y > 1 && v == block.y) ||
                                                          (block.z > 1 && v == block.z)));
    if (!matches) continue;
    const std::string arg = std::to_string(v);
    return Guardrail{"fixed_block_size",
                     "block size " + arg + " is a template argument of the kernel (<" + arg + ">)",
                     "the block size is the template argument <" + arg + ">"};
  }
  return std::nullopt;
}

std::optional<Guardrail> launch_bounds(const KernelStatics& k, const Dim3& block) {
  const auto& m = k.thread_limits.max_threads;
  if (!m) return std::nullopt;
  (void)block;
  return Guardrail{"launch_bounds",
                   "__launch_bounds__(" + std::to_string(m->count()) + ") (" +
                       (k.thread_limits_source.empty() ? std::string("cubin") : k.thread_limits_source) +
                       "): registers allotted for at most " + std::to_string(m->count()) +
                       " threads; no larger block tried",
                   ""};
}

std::optional<Guardrail> unused_block_dimension(const KernelStatics& k, const Dim3& block) {
  for (const auto& [extent, dim] : {std::pair{block.y, 'y'}, std::pair{block.z, 'z'}}) {
    if (extent <= 1 || k.reads(std::string("tid.") + dim)) continue;
    const std::string why = std::string("the kernel does not read threadIdx.") + dim +
                            ": reshaping the block is not work-conserving";
    return Guardrail{"unused_block_dimension",
                     "block." + std::string(1, dim) + " = " + std::to_string(extent) + " but " + why +
                         " (every " + dim + "-row repeats the x-rows' work)",
                     why};
  }
  return std::nullopt;
}

std::optional<Guardrail> grid_not_from_block(const KernelStatics& k, const Dim3& grid) {
  for (const char* c : {"x", "y", "z"})
    if (k.reads(std::string("nctaid.") + c))
      return Guardrail{"grid_not_from_block",
                       std::string("grid-stride loop (reads gridDim.") + c +
                           "): the grid is not derived from the block; the sweep keeps the profiled grid " +
                           shape_text(grid.x, grid.y, grid.z),
                       ""};
  if (!k.reads("ctaid.x") && !k.reads("ctaid.y") && !k.reads("ctaid.z"))
    return Guardrail{"grid_not_from_block",
                     "the kernel never reads blockIdx: every block does the same work, the grid is not about the "
                     "domain; the sweep keeps the profiled grid " + shape_text(grid.x, grid.y, grid.z),
                     ""};
  return std::nullopt;
}

int static_shared_bytes(const KernelStatics& k) {
  if (!k.resources) return 0;
  int reserved = 0;
  if (k.arch.rfind("sm_", 0) == 0) try {
      reserved = std::stoi(k.arch.substr(3)) >= 80 ? 1024 : 0;
    } catch (const std::exception&) {
    }
  return std::max(0, k.resources->shared_bytes - reserved);
}

std::optional<Guardrail> block_sized_shared_memory(const KernelStatics& k, const Dim3& block,
                                                   std::optional<int> shared_per_block) {
  if (!shared_per_block || block.count() <= 0) return std::nullopt;
  const int static_bytes = static_shared_bytes(k);
  const long long dynamic = *shared_per_block - static_bytes;
  if (dynamic <= 0 || dynamic % block.count() != 0) return std::nullopt;
  const long long per_thread = dynamic / block.count();
  return Guardrail{"block_sized_shared_memory",
                   "dynamic shared memory " + std::to_string(dynamic) + " B = " + std::to_string(per_thread) + " B x " +
                       std::to_string(block.count()) + " threads: sized from the block; the sweep gives each shape " +
                       std::to_string(per_thread) + " B per thread",
                   ""};
}

std::vector<Guardrail> launch_guardrails(const KernelStatics& k, const Dim3& grid, const Dim3& block,
                                         std::optional<int> shared_per_block) {
  std::vector<Guardrail> out;
  for (auto g : {fixed_block_size(k, block), launch_bounds(k, block), unused_block_dimension(k, block),
                 grid_not_from_block(k, grid), block_sized_shared_memory(k, block, shared_per_block)})
    if (g) out.push_back(std::move(*g));
  return out;
}

SweepOptions sweep_options_for(const KernelStatics& k, const Dim3& grid, const Dim3& block,
                               std::optional<int> shared_per_block) {
  SweepOptions o;
  o.keep_grid = grid_not_from_block(k, grid).has_value();
  if (block_sized_shared_memory(k, block, shared_per_block)) {
    o.fixed_shared_bytes = static_shared_bytes(k);
    o.shared_bytes_per_thread = static_cast<double>(*shared_per_block - o.fixed_shared_bytes) / block.count();
  }
  if (k.thread_limits.max_threads) o.max_threads = k.thread_limits.max_threads->count();
  return o;
}

std::string profile_gpu_name(const nlohmann::json& profile) {
  if (!profile.is_object()) return "";
  for (const char* object : {"device", "provenance"}) {
    const char* key = std::string(object) == "device" ? "name" : "gpu";
    if (profile.contains(object) && profile.at(object).is_object() && profile.at(object).contains(key) &&
        profile.at(object).at(key).is_string() && !profile.at(object).at(key).get<std::string>().empty())
      return profile.at(object).at(key).get<std::string>();
  }
  return "";
}

std::string device_gpu_name(const DeviceProfile& device) {
  if (const auto it = device.provenance.find("gpu"); it != device.provenance.end() && !it->second.empty())
    return it->second;
  std::string name = device.name;
  if (const auto paren = name.find(" ("); paren != std::string::npos) name = name.substr(0, paren);
  return name;
}

std::string gpu_mismatch_warning(const std::string& profile_gpu, const std::string& device_gpu) {
  if (profile_gpu.empty() || device_gpu.empty() || lower_trimmed(profile_gpu) == lower_trimmed(device_gpu)) return "";
  return "the profile was measured on " + profile_gpu + ", the device profile describes " + device_gpu +
         ": the predictions are for the device profile's GPU, the measured times and counters for the other";
}

}  // namespace warpmodel::sass
