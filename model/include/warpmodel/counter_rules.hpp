// The rules that turn profiler counters (CUPTI or Nsight Compute names) into the kernel profile's
// traffic fields: one place for `kernel-profile --counters` (profiles/sass merge.cpp) and for
// `validate`'s reader of sweeps measured before the profile carried these fields (json_io.cpp).
#pragma once

#include <algorithm>
#include <functional>
#include <optional>
#include <string>

namespace warpmodel::counter_rules {

// A counter's launch total by name; nullopt when the profile lacks it.
using Lookup = std::function<std::optional<double>(const std::string& name)>;

struct Derived {
  double total = 0;        // over the launch (divide by the launched warps for a per-warp field)
  std::string expression;  // how it was computed, for `sources`
};

inline constexpr double kSectorBytes = 32;
inline constexpr const char* kL2ReadSectors = "lts__t_sectors_op_read.sum";
inline constexpr const char* kL2WriteSectors = "lts__t_sectors_op_write.sum";
inline constexpr const char* kL2AtomSectors = "lts__t_sectors_op_atom.sum";
inline constexpr const char* kL2RedSectors = "lts__t_sectors_op_red.sum";
inline constexpr const char* kL1Wavefronts = "l1tex__data_pipe_lsu_wavefronts.sum";
inline constexpr const char* kLocalLoads = "smsp__inst_executed_op_local_ld.sum";
inline constexpr const char* kLocalLoadSectors = "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum";
inline constexpr const char* kLocalLoadRequests = "l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum";
inline constexpr const char* kLocalStoreSectors = "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum";
inline constexpr const char* kLocalStoreRequests = "l1tex__t_requests_pipe_lsu_mem_local_op_st.sum";
inline constexpr const char* kGlobalStoreSectors = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum";
inline constexpr const char* kGlobalStoreRequests = "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum";
inline constexpr const char* kL1RedSectors = "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum";
inline constexpr const char* kL1AtomSectors = "l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum";
inline constexpr const char* kBusiestSliceRedSectors = "lts__t_sectors_op_red.max";
inline constexpr const char* kBusiestSliceAtomSectors = "lts__t_sectors_op_atom.max";

// CUPTI's warp stall reasons, each counted as smsp__average_warps_issue_stalled_<reason>_per_issue_
// active.ratio: the warps in that state per cycle in which the sub-partition issued. A resident warp
// is in one state each cycle ("selected": the one issuing), so their sum is the resident warps per
// issue-active cycle. The 16 reasons of sm_90 (every launch of both GPUs' validation sweeps has all
// 16); the metric sets "model" and "stalls" ask for them.
inline constexpr const char* kStallReasons[] = {
    "long_scoreboard", "barrier", "short_scoreboard", "wait",  "math_pipe_throttle", "lg_throttle",
    "mio_throttle",    "not_selected", "selected",     "drain", "membar",             "no_instruction",
    "dispatch_stall",  "tex_throttle", "branch_resolving", "sleeping"};
inline std::string stall_metric(const std::string& reason) {
  return "smsp__average_warps_issue_stalled_" + reason + "_per_issue_active.ratio";
}

// The share of the resident warps' cycles spent waiting at a barrier: the barrier reason over the
// sum of all reasons present, in [0, 1]; absent without the barrier and the selected reasons (a
// profile that did not ask for the stall reasons).
inline std::optional<Derived> barrier_wait_share(const Lookup& counter) {
  const auto barrier = counter(stall_metric("barrier")), selected = counter(stall_metric("selected"));
  if (!barrier || !selected) return std::nullopt;
  double all = 0;
  for (const char* reason : kStallReasons) all += counter(stall_metric(reason)).value_or(0);
  if (!(all > 0)) return std::nullopt;
  return Derived{std::clamp(*barrier / all, 0.0, 1.0), stall_metric("barrier") + " / (the sum of the smsp__average_warps_issue_stalled_"
                                                          "<reason>_per_issue_active.ratio present)"};
}

// The L2 traffic of the kernel's own requests: (read + write + atom + red sectors) x 32 B; absent
// without the read and write sectors. (lts__t_bytes.sum also counts L2 activity that is not the
// kernel's: a one-block kernel touching 12 KB showed 1.4 MB on the H100; it is the fallback.)
inline std::optional<Derived> l2_request_bytes(const Lookup& counter) {
  const auto read = counter(kL2ReadSectors), write = counter(kL2WriteSectors);
  if (!read || !write) return std::nullopt;
  const double atom = counter(kL2AtomSectors).value_or(0), red = counter(kL2RedSectors).value_or(0);
  return Derived{(*read + *write + atom + red) * kSectorBytes,
                 "(lts__t_sectors_op_read + _op_write + _op_atom + _op_red).sum x 32 B"};
}

// The written part: stores and reductions written through L1 to L2 (hopper H.8).
inline std::optional<Derived> l2_written_bytes(const Lookup& counter) {
  const auto write = counter(kL2WriteSectors);
  if (!write) return std::nullopt;
  return Derived{*write * kSectorBytes, std::string(kL2WriteSectors) + " x 32 B"};
}

// The global atomics' lane operations (hopper H.15): the L1's red + atom sectors, which count one
// per lane where the lanes of a request share a word (a 32-lane atomicAdd to one word: 32 sectors;
// a shuffle reduction's one-lane atomicAdd: 1), and one per distinct sector otherwise.
inline std::optional<Derived> atomic_lane_ops(const Lookup& counter) {
  const auto red = counter(kL1RedSectors), atom = counter(kL1AtomSectors);
  if (!red && !atom) return std::nullopt;
  return Derived{red.value_or(0) + atom.value_or(0), "(l1tex__t_sectors_pipe_lsu_mem_global_op_red + _op_atom).sum"};
}

// The busiest L2 slice's atomic operations (hopper H.15): the red and atom sectors of the slice that
// counts most (the .max rollup over the L2 slices). The slice that holds a word performs every atomic
// on it, one sector per operation: on the H200 a histogram into 8 bins (one sector) counted 231,024
// on one slice, exactly the L1's red sectors, and a grid-wide sum likewise; the other slices count
// only the far partition's forwarded copies. max(red) + max(atom) bounds the slice's total from
// above, exactly where a kernel uses one of the two.
inline std::optional<Derived> busiest_slice_atomic_sectors(const Lookup& counter) {
  const auto red = counter(kBusiestSliceRedSectors), atom = counter(kBusiestSliceAtomSectors);
  if (!red && !atom) return std::nullopt;
  return Derived{red.value_or(0) + atom.value_or(0), "lts__t_sectors_op_red.max + lts__t_sectors_op_atom.max"};
}

// Sectors per request of one kind of access: sectors / requests, absent without either or with no
// request. Local loads (hopper H.8b: spills 4, data-indexed arrays up to 32), local stores (H.9c,
// alike) and global stores
// (H.8c: 4 for a warp writing one line, 32 for a column).
inline std::optional<Derived> sectors_per_request(const Lookup& counter, const char* sectors_name,
                                                  const char* requests_name) {
  const auto sectors = counter(sectors_name), requests = counter(requests_name);
  if (!sectors || !requests || !(*requests > 0)) return std::nullopt;
  return Derived{*sectors / *requests, std::string(sectors_name) + " / " + requests_name};
}
inline std::optional<Derived> local_load_sectors_per_request(const Lookup& counter) {
  return sectors_per_request(counter, kLocalLoadSectors, kLocalLoadRequests);
}
inline std::optional<Derived> local_store_sectors_per_request(const Lookup& counter) {
  return sectors_per_request(counter, kLocalStoreSectors, kLocalStoreRequests);
}
inline std::optional<Derived> store_sectors_per_request(const Lookup& counter) {
  return sectors_per_request(counter, kGlobalStoreSectors, kGlobalStoreRequests);
}

}  // namespace warpmodel::counter_rules
