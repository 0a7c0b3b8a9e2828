// The rules that turn profiler counters (CUPTI or Nsight Compute names) into the kernel profile's
// traffic fields: one place for `kernel-profile --counters` (profiles/sass merge.cpp) and for
// `validate`'s reader of sweeps measured before the profile carried these fields (json_io.cpp).
#pragma once

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
inline constexpr const char* kL1RedSectors = "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum";
inline constexpr const char* kL1AtomSectors = "l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum";
inline constexpr const char* kBusiestSliceRedSectors = "lts__t_sectors_op_red.max";
inline constexpr const char* kBusiestSliceAtomSectors = "lts__t_sectors_op_atom.max";

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

}  // namespace warpmodel::counter_rules
