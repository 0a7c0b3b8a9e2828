// What the architecture's specification says where `characterize` has not measured it: the tensor
// cores' dense throughput (hopper H.17) and how the SMs are grouped into GPCs (hopper H.18). Every
// value here is from NVIDIA's published specifications, not measured; the model says so in a note
// whenever it uses one. A measured device-profile field always wins.
#pragma once

#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace warpmodel {

// The MMA input types the tensor fields are keyed by (device tensor_flops_per_clock_per_sm, kernel
// tensor_flops_per_warp): fp16 (with an fp16 or fp32 accumulator), bf16, tf32, fp8 (e4m3, e5m2),
// int8 (operations, counted as FLOPs are), fp64 (DMMA).
std::span<const char* const> tensor_types();
bool is_tensor_type(const std::string& type);

// Dense FLOPs per clock per SM of the tensor cores for `type` on compute capability major.minor
// (2 a multiply-add); nullopt where the table has no entry. Known: 8.0 (A100: fp16/bf16 2048, tf32
// 1024, int8 4096, fp64 128) and 9.0 (H100, H200: fp16/bf16 4096, tf32 2048, fp8 and int8 8192,
// fp64 256), the whitepapers' dense peaks over the SMs and the clock they were quoted at.
std::optional<double> spec_tensor_flops_per_clock_per_sm(int cc_major, int cc_minor, const std::string& type);

// The SMs of each GPC for a GPU of compute capability major.minor with `sm_count` SMs: the
// architecture's GPC count (GH100: 8) with the SMs, two to a TPC, spread as evenly as they go (132
// SMs: 18, 18, 16, 16, 16, 16, 16, 16). Which TPCs a chip has disabled differs from chip to chip,
// so a real GPU can be less even (an H200 ran 15 clusters of 16 two-block SMs at once, this layout
// 16); nullopt where the GPC count is not tabulated.
std::optional<std::vector<int>> spec_sms_per_gpc(int cc_major, int cc_minor, int sm_count);

// The SMs of each GPC of a real GPU, from how many clusters of each size c fit at once with one
// block per SM (cudaOccupancyMaxActiveClusters, characterize's tensor stage): a cluster lives in one
// GPC, so clusters(c) = sum over the GPCs of floor(S_g / c), and sum S_g = sm_count. Sizes are
// searched from the largest down; among the layouts that reproduce every count, the one with the
// fewest odd GPCs (SMs come two to a TPC) and then the most even spread is returned. nullopt when
// no layout of at most 64 GPCs of 1 to 32 SMs reproduces the counts (a table from another GPU).
std::optional<std::vector<int>> gpc_layout_from_cluster_occupancy(int sm_count, const std::map<int, int>& clusters_by_size);

}  // namespace warpmodel
