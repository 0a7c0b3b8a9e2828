#include "warpmodel/architecture_specs.hpp"

#include <algorithm>
#include <utility>
#include <map>
#include <functional>
#include <array>

namespace warpmodel {
namespace {

constexpr std::array<const char*, 6> kTensorTypes = {"fp16", "bf16", "tf32", "fp8", "int8", "fp64"};

struct TensorSpec {
  int major, minor;
  const char* type;
  double flops_per_clock_per_sm;  // dense
};

// A100 (108 SMs at 1410 MHz): 312 TFLOPS fp16/bf16, 156 tf32, 624 TOPS int8, 19.5 TFLOPS fp64.
// H100 SXM (132 SMs; 1830 MHz for the 16-bit figures, 1980 for fp64): 989 TFLOPS fp16/bf16, 495
// tf32, 1979 fp8 and int8, 67 fp64. Dense figures (the sparse ones are twice these). The H200 has
// the H100's SMs.
constexpr TensorSpec kTensorSpecs[] = {
    {8, 0, "fp16", 2048}, {8, 0, "bf16", 2048}, {8, 0, "tf32", 1024}, {8, 0, "int8", 4096}, {8, 0, "fp64", 128},
    {9, 0, "fp16", 4096}, {9, 0, "bf16", 4096}, {9, 0, "tf32", 2048}, {9, 0, "fp8", 8192}, {9, 0, "int8", 8192},
    {9, 0, "fp64", 256},
};

struct GpcSpec {
  int major, minor;
  int gpcs;  // the full chip's GPCs (GH100: 8 of 9 TPCs each)
};
constexpr GpcSpec kGpcSpecs[] = {{9, 0, 8}};

}  // namespace

std::span<const char* const> tensor_types() { return kTensorTypes; }

bool is_tensor_type(const std::string& type) {
  return std::any_of(kTensorTypes.begin(), kTensorTypes.end(), [&](const char* t) { return type == t; });
}

std::optional<double> spec_tensor_flops_per_clock_per_sm(int cc_major, int cc_minor, const std::string& type) {
  for (const TensorSpec& s : kTensorSpecs)
    if (s.major == cc_major && s.minor == cc_minor && type == s.type) return s.flops_per_clock_per_sm;
  return std::nullopt;
}

std::optional<std::vector<int>> spec_sms_per_gpc(int cc_major, int cc_minor, int sm_count) {
  for (const GpcSpec& s : kGpcSpecs) {
    if (s.major != cc_major || s.minor != cc_minor || sm_count <= 0) continue;
    // TPCs of two SMs, dealt round-robin to the GPCs; an odd SM goes to the first GPC.
    const int tpcs = sm_count / 2;
    std::vector<int> sms(static_cast<std::size_t>(s.gpcs), 0);
    for (int t = 0; t < tpcs; ++t) sms[static_cast<std::size_t>(t % s.gpcs)] += 2;
    sms[0] += sm_count % 2;
    sms.erase(std::remove(sms.begin(), sms.end(), 0), sms.end());
    return sms;
  }
  return std::nullopt;
}

std::optional<std::vector<int>> gpc_layout_from_cluster_occupancy(int sm_count, const std::map<int, int>& clusters_by_size) {
  constexpr int kMaxGpcSms = 32, kMaxGpcs = 64;
  if (sm_count <= 0 || clusters_by_size.empty()) return std::nullopt;
  for (const auto& [size, count] : clusters_by_size)
    if (size < 1 || count < 0) return std::nullopt;
  // Depth-first over non-increasing GPC sizes; used[c] counts the clusters of size c placed so far
  // and may never exceed the measured count.
  std::vector<int> layout, best;
  std::map<int, int> used;
  const auto score = [](const std::vector<int>& l) {  // odd GPCs first, then the spread
    int odd = 0;
    for (int x : l) odd += x % 2;
    return std::make_pair(odd, l.front() - l.back());
  };
  int visited = 0;
  std::function<void(int, int)> search = [&](int left, int largest) {
    if (++visited > 2000000) return;  // a table no layout explains: give up rather than search on
    if (left == 0) {
      for (const auto& [size, count] : clusters_by_size)
        if (used[size] != count) return;
      if (best.empty() || score(layout) < score(best)) best = layout;
      return;
    }
    if (static_cast<int>(layout.size()) == kMaxGpcs) return;
    // What is still to place must be placeable: GPCs of at most `largest` SMs holding `left` SMs give
    // at most left / c clusters of c, and none of a size above `largest`.
    for (const auto& [size, count] : clusters_by_size) {
      const int missing = count - used[size];
      if (missing > left / size || (size > largest && missing > 0)) return;
    }
    for (int s = std::min(largest, left); s >= 1; --s) {
      bool fits = true;
      for (const auto& [size, count] : clusters_by_size)
        if (used[size] + s / size > count) fits = false;
      if (!fits) continue;
      for (const auto& [size, count] : clusters_by_size) used[size] += s / size;
      layout.push_back(s);
      search(left - s, s);
      layout.pop_back();
      for (const auto& [size, count] : clusters_by_size) used[size] -= s / size;
    }
  };
  search(sm_count, kMaxGpcSms);
  if (best.empty()) return std::nullopt;
  return best;
}

}  // namespace warpmodel
