// hopper: the per-wave bound model of hopper_equations.hpp (H.1-H.12), for sm_80 and later.
// Needs the measured rates that `warpmodel characterize` writes (dependent FFMA latency, DRAM copy,
// L2 read and shared read bandwidth; DRAM read and write when present); without them it says which
// ones are missing.
#include <cmath>
#include <string>
#include <vector>

#include "mwp_cwp_core.hpp"
#include "warpmodel/architecture_specs.hpp"
#include "warpmodel/hopper_equations.hpp"
#include "warpmodel/model.hpp"
#include "warpmodel/sweep.hpp"
#include "warpmodel/traffic.hpp"

namespace warpmodel {
namespace {

constexpr double kSectorBytes = 32, kWavefrontBytes = 128;

struct Rates {
  double dependent_latency = 0;           // cycles
  double l1_bytes_per_clock = 0;          // per SM
  double l2_bytes_per_clock = 0;          // whole device: the measured L2 read bandwidth
  double dram_read_bytes_per_clock = 0;   // whole device
  double dram_write_bytes_per_clock = 0;  // whole device
  double dram_copy_bytes_per_clock = 0;   // whole device, read + write bytes (when no split is known)
  double l2_write_bytes_per_clock = 0;    // whole device; 0: not measured (writes at the read rate)
  double block_dispatch_cycles = 0;       // per block per SM; 0: not measured (no H.13 term)
  double slice_atomic_ops_per_clock = 0;  // one L2 slice, for the kernel's atomics; 0: no H.15 term
  double l2_random_bytes_per_clock = 0;   // whole device, 32 B per random sector; 0: no H.16 term
  double dram_random_bytes_per_clock = 0;  // whole device, 32 B per random sector; 0: no H.16 term
  double dram_random_write_bytes_per_clock = 0;  // whole device, 32 B per random sector; 0: no H.9c term
  double dram_inplace_bytes_per_clock = 0;       // whole device, read + written bytes in place; 0: no H.9d term
  // Store sectors alone in their line, written 4, 8, 16 or 32 bytes at a time, per clock (whole
  // device); all 0: no H.8c term.
  double lone_store_sectors_per_clock[4] = {0, 0, 0, 0};
  double dsmem_bytes_per_clock = 0;  // whole device; 0: no H.18c term
};

// The kernel's demands on the tensor pipe and its cluster (H.17, H.18), per warp.
struct ClusterAndTensor {
  double tensor_clocks_per_warp = 0;   // H.17: sum_t F_t / R_t, at the whole SM's tensor rate
  double cluster_barrier_waits = 0;    // H.18b
  double remote_shared_waits = 0;
  double barrier_latency = 0, dsmem_latency = 0;  // cycles; 0: not measured
};

Rates measured_rates(const DeviceProfile& d) {
  std::vector<std::string> missing;
  if (!d.fp32_dependent_latency_cycles) missing.push_back("latency_cycles.fp32_dependent");
  if (!d.dram_copy_bandwidth_gbs) missing.push_back("bandwidth_gbs.dram_copy");
  if (!d.l2_read_bandwidth_gbs) missing.push_back("bandwidth_gbs.l2_read");
  if (!d.shared_read_bandwidth_gbs) missing.push_back("bandwidth_gbs.shared_read");
  if (!missing.empty()) {
    std::string list;
    for (const auto& m : missing) list += (list.empty() ? "" : ", ") + m;
    throw ModelError("device '" + d.name + "': the hopper model needs measured rates (" + list +
                     "); run `warpmodel characterize` on the GPU, or use another --model (--model thesis-2016 runs on "
                     "printed inputs such as the thesis's K40)");
  }
  Rates r;
  r.dependent_latency = *d.fp32_dependent_latency_cycles;
  r.l1_bytes_per_clock = hopper_eq::bytes_per_clock(*d.shared_read_bandwidth_gbs, d.sm_clock_mhz) / d.sm_count;
  r.l2_bytes_per_clock = hopper_eq::bytes_per_clock(*d.l2_read_bandwidth_gbs, d.sm_clock_mhz);
  r.dram_copy_bytes_per_clock = hopper_eq::bytes_per_clock(*d.dram_copy_bandwidth_gbs, d.sm_clock_mhz);
  // Without a read or write measurement that direction runs at the copy rate.
  r.dram_read_bytes_per_clock =
      d.dram_read_bandwidth_gbs ? hopper_eq::bytes_per_clock(*d.dram_read_bandwidth_gbs, d.sm_clock_mhz) : r.dram_copy_bytes_per_clock;
  r.dram_write_bytes_per_clock =
      d.dram_write_bandwidth_gbs ? hopper_eq::bytes_per_clock(*d.dram_write_bandwidth_gbs, d.sm_clock_mhz) : r.dram_copy_bytes_per_clock;
  if (d.l2_write_bandwidth_gbs)
    r.l2_write_bytes_per_clock = hopper_eq::bytes_per_clock(*d.l2_write_bandwidth_gbs, d.sm_clock_mhz);
  r.block_dispatch_cycles = d.block_dispatch_cycles.value_or(0);
  if (d.l2_write_sectors_4b_gbs && d.l2_write_sectors_8b_gbs && d.l2_write_sectors_16b_gbs && d.l2_write_sectors_32b_gbs) {
    const double gbs[4] = {*d.l2_write_sectors_4b_gbs, *d.l2_write_sectors_8b_gbs, *d.l2_write_sectors_16b_gbs,
                           *d.l2_write_sectors_32b_gbs};
    for (int k = 0; k < 4; ++k)
      r.lone_store_sectors_per_clock[k] = hopper_eq::bytes_per_clock(gbs[k], d.sm_clock_mhz) / (4 << k);
  }
  if (d.l2_random_read_bandwidth_gbs && d.dram_random_read_bandwidth_gbs) {
    r.l2_random_bytes_per_clock = hopper_eq::bytes_per_clock(*d.l2_random_read_bandwidth_gbs, d.sm_clock_mhz);
    r.dram_random_bytes_per_clock = hopper_eq::bytes_per_clock(*d.dram_random_read_bandwidth_gbs, d.sm_clock_mhz);
  }
  if (d.dram_random_write_bandwidth_gbs)
    r.dram_random_write_bytes_per_clock = hopper_eq::bytes_per_clock(*d.dram_random_write_bandwidth_gbs, d.sm_clock_mhz);
  if (d.dram_inplace_bandwidth_gbs)
    r.dram_inplace_bytes_per_clock = hopper_eq::bytes_per_clock(*d.dram_inplace_bandwidth_gbs, d.sm_clock_mhz);
  if (d.dsmem_bandwidth_gbs) r.dsmem_bytes_per_clock = hopper_eq::bytes_per_clock(*d.dsmem_bandwidth_gbs, d.sm_clock_mhz);
  return r;
}

// H.17: the clocks one warp's MMAs take at the whole SM's tensor rate, each input type at its
// measured rate, else the specification's (said in a note), else not priced (said too). The warp-level
// MMAs' share (mma.sync, WMMA) runs at their own measured rate where the profile has it: on sm_90 the
// warpgroup MMAs reach about twice theirs.
double tensor_clocks_per_warp(const DeviceProfile& d, const KernelProfile& k, std::vector<std::string>& notes) {
  double clocks = 0;
  for (auto [type, flops] : k.tensor_flops_per_warp) {
    if (!(flops > 0)) continue;
    double rate = 0;
    if (const auto it = d.tensor_flops_per_clock_per_sm.find(type); it != d.tensor_flops_per_clock_per_sm.end()) {
      rate = it->second;
    } else if (const auto spec = spec_tensor_flops_per_clock_per_sm(d.cc_major, d.cc_minor, type)) {
      rate = *spec;
      notes.push_back("hopper: tensor " + type + " at " + std::to_string(static_cast<int>(rate)) +
                      " FLOPs per clock per SM, the sm_" + std::to_string(d.cc_major) + std::to_string(d.cc_minor) +
                      " specification (spec, not measured: tensor_flops_per_clock_per_sm." + type +
                      " absent from the device profile) (H.17)");
    } else {
      notes.push_back("hopper: the kernel's " + type + " tensor work is not priced: no measured tensor_flops_per_clock_per_sm." +
                      type + " and no specification for sm_" + std::to_string(d.cc_major) + std::to_string(d.cc_minor) +
                      "; T_tensor leaves it out (H.17)");
      continue;
    }
    const auto warp_level = k.mma_sync_flops_per_warp.find(type);
    const auto warp_rate = d.mma_sync_flops_per_clock_per_sm.find(type);
    if (warp_level != k.mma_sync_flops_per_warp.end() && warp_rate != d.mma_sync_flops_per_clock_per_sm.end()) {
      const double own = std::min(warp_level->second, flops);
      clocks += hopper_eq::tensor_clocks_per_warp(own, warp_rate->second);
      flops -= own;
    }
    clocks += hopper_eq::tensor_clocks_per_warp(flops, rate);
  }
  return clocks;
}

// H.18: the blocks of a cluster launch, 0 without clusters (or clusters of one block).
double cluster_blocks(const KernelProfile& k) {
  if (!k.launch.cluster || k.launch.cluster->count() <= 1) return 0;
  return static_cast<double>(k.launch.cluster->count());
}

// H.18b: the cluster-wide waits on one warp's path and their measured round trips.
ClusterAndTensor cluster_waits(const DeviceProfile& d, const KernelProfile& k, std::vector<std::string>& notes) {
  ClusterAndTensor c;
  if (cluster_blocks(k) == 0) return c;
  // A block that used distributed shared memory must wait for its cluster before it exits: at least
  // one barrier wait where the profile does not count them.
  c.cluster_barrier_waits = k.cluster_barrier_waits_per_warp.value_or(1);
  c.remote_shared_waits = k.remote_shared_waits_per_warp.value_or(0);
  if (!k.cluster_barrier_waits_per_warp)
    notes.push_back("hopper: the kernel profile does not count its cluster waits (instructions_per_warp.cluster_barrier_wait): "
                    "taken as one barrier wait a warp (H.18b)");
  c.barrier_latency = d.cluster_barrier_latency_cycles.value_or(0);
  c.dsmem_latency = d.dsmem_latency_cycles.value_or(0);
  if ((c.cluster_barrier_waits > 0 && !d.cluster_barrier_latency_cycles) ||
      (c.remote_shared_waits > 0 && !d.dsmem_latency_cycles))
    notes.push_back("hopper: no measured cluster barrier or distributed shared memory latency in the device profile "
                    "(latency_cycles.cluster_barrier, latency_cycles.dsmem): T_cluster_sync counts 0 for them (H.18b); "
                    "re-run `warpmodel characterize`");
  return c;
}

// Bytes one warp moves through each level: measured (CUPTI) when the profile has them, else from
// the request counts: sectors of 32 B per request, L1 misses go to L2, L2 misses to DRAM. DRAM
// bytes are split into reads and writes when the profile says how many were written; otherwise
// they all run at the copy rate (read_bytes holds them, write_bytes is 0).
struct WarpTraffic {
  double l1 = 0, l2 = 0, l2_write = 0, dram_read = 0, dram_write = 0;
  double l2_scattered_read = 0;  // H.8b: local loads' scattered sectors read from L2
  double dram_scattered_write = 0;  // H.9c: the DRAM writes of local lines dirtied by scattered stores
  double l2_scattered_write = 0;    // H.8h: the written bytes (sent) of the scattered local stores
  bool dram_split = false;
};

// H.15 without the busiest slice's counters: the kernel's atomics (at least one) all name one word
// for the whole grid, i.e. their SASS addresses hold only kernel parameters, block and grid sizes and
// constants; then one slice performs every lane's add.
bool atomics_on_one_word(const KernelProfile& k) {
  if (!k.access_patterns) return false;
  bool any = false;
  for (const MemoryAccess& a : k.access_patterns->accesses) {
    if (a.kind != AccessKind::atomic) continue;
    if (!a.address) return false;  // irregular: the words it touches are not known
    for (const AddressTerm& t : *a.address)
      for (const std::string& s : t.symbols)
        if (s.rfind("param:", 0) != 0 && s.rfind("ntid.", 0) != 0 && s.rfind("nctaid.", 0) != 0) return false;
    any = true;
  }
  return any;
}

// The rate at which one slice performs the kernel's atomics: the measured same-address rate, the
// float one when an atomic of the SASS is a 32-bit float add (.F32) and the profile has it, else the
// integer one; 0 when neither was measured.
double slice_atomic_rate(const DeviceProfile& d, const KernelProfile& k) {
  bool float_add = false;
  if (k.access_patterns)
    for (const MemoryAccess& a : k.access_patterns->accesses)
      if (a.kind == AccessKind::atomic && a.opcode.find(".F32") != std::string::npos) float_add = true;
  if (float_add && d.same_address_atomic_f32_ops_per_clock) return *d.same_address_atomic_f32_ops_per_clock;
  return d.same_address_atomic_ops_per_clock.value_or(0);
}

// The global store instructions per warp: the memory instructions that are not loads (CUPTI's global
// st); none where the loads are not counted apart (every memory instruction is then a load).
double global_store_inst_per_warp(const KernelProfile& k) {
  return std::max(0.0, k.mem_inst_per_warp - k.global_load_inst_per_warp.value_or(k.mem_inst_per_warp));
}

// H.8f: the bytes a lane stores, from the SASS's first store (4 where the SASS is absent).
int first_store_bytes_per_lane(const KernelProfile& k) {
  if (k.access_patterns)
    for (const MemoryAccess& a : k.access_patterns->accesses)
      if (a.kind == AccessKind::store) return a.bytes_per_thread;
  return 4;
}

WarpTraffic warp_traffic(const KernelProfile& k) {
  WarpTraffic t;
  const double global_bytes = k.mem_inst_per_warp * k.transactions_per_request * kSectorBytes;
  // H.7: the data pipe's measured wavefronts (one 128-byte wavefront per clock) when the profile has
  // them; else the bytes the requests name: sectors of global requests, a wavefront per shared
  // instruction and per bank conflict.
  t.l1 = k.l1_wavefronts_per_warp
             ? *k.l1_wavefronts_per_warp * kWavefrontBytes
             : global_bytes + (k.shared_inst_per_warp + k.bank_conflicts_per_warp) * kWavefrontBytes;
  t.l2 = k.l2_bytes_per_warp.value_or(global_bytes * k.l1_miss_ratio);
  // H.8e: the counted writes in the bytes the stores sent, the units of the L2's measured rates.
  const double counted_write = std::min(t.l2, k.l2_write_bytes_per_warp.value_or(0));
  t.l2_write = hopper_eq::l2_written_bytes_sent(counted_write);
  t.l2 -= counted_write - t.l2_write;
  const double dram = k.dram_bytes_per_warp.value_or(t.l2 * k.l2_miss_ratio);
  t.dram_split = k.dram_bytes_per_warp && k.dram_write_bytes_per_warp;
  t.dram_write = t.dram_split ? *k.dram_write_bytes_per_warp : 0;
  t.dram_read = dram - t.dram_write;
  // H.8b: the L2 reads the global loads' L1 misses do not explain are the local loads' (capped by
  // their sectors), of which the scattered requests carry their share.
  if (k.local_load_sectors_per_request && k.local_load_inst_per_warp > 0 && k.l2_bytes_per_warp) {
    const double global_miss_bytes = k.global_load_inst_per_warp.value_or(k.mem_inst_per_warp) *
                                     k.transactions_per_request * kSectorBytes * k.l1_miss_ratio;
    const double local_bytes = k.local_load_inst_per_warp * *k.local_load_sectors_per_request * kSectorBytes;
    const double local_l2_read = std::clamp(t.l2 - t.l2_write - global_miss_bytes, 0.0, local_bytes);
    t.l2_scattered_read =
        hopper_eq::scattered_local_sector_share(*k.local_load_sectors_per_request) * local_l2_read;
  }
  // H.9c: the DRAM writes the global stores do not explain are the local lines' write-backs, of which
  // the scattered local stores dirtied their share. H.8h: the L2 writes the global stores do not
  // explain are the local stores', of which the scattered requests carry the same share.
  if (k.local_store_sectors_per_request) {
    const double global_store_bytes = global_store_inst_per_warp(k) * k.store_sectors_per_request.value_or(4) *
                                      kSectorBytes;  // uncounted: a line a store
    const double scattered_share = hopper_eq::scattered_local_sector_share(*k.local_store_sectors_per_request);
    if (t.dram_split) t.dram_scattered_write = scattered_share * std::max(0.0, t.dram_write - global_store_bytes);
    if (k.l2_write_bytes_per_warp)
      t.l2_scattered_write = scattered_share * std::max(0.0, t.l2_write - global_store_bytes);
  }
  return t;
}

// H.16's demand: the sectors per warp that loads at data-dependent addresses send past L1, and the
// share of them that hit L2.
struct GatherDemand {
  double sectors_per_warp = 0;
  double l2_hit_share = 0;
};

// H.8c's demand: the regular stores' sectors per request (SASS, at this launch shape) and the shares
// of them alone in their line, by the bytes written (4, 8, 16, 32), over all stores (irregular ones
// count as not alone).
struct LoneStoreSectors {
  double sectors_per_request = 0;
  double share[4] = {0, 0, 0, 0};
  double total_share() const { return share[0] + share[1] + share[2] + share[3]; }
};

struct WaveTerms {
  double issue = 0, sfu = 0, schedule = 0, mem_latency = 0, l1 = 0, l2 = 0, dram = 0, dispatch = 0, slice_atomics = 0,
         gather = 0, tensor = 0, cluster_sync = 0, dsmem = 0;
  double warp = 0, pipe = 0, data = 0, wave = 0;
  std::string bound;
};

// H.16a, H.8d: the regular loads' sectors per warp (SASS at the launch shape), the irregular loads'
// share of the instructions taken out.
double regular_load_sectors_of(const ShapeTraffic& shape, double global_loads) {
  const double weight = shape.regular_load_weight + shape.irregular_load_weight;
  return weight > 0 ? global_loads * shape.regular_load_weight / weight * shape.load_sectors_per_request : 0;
}

// H.1d: the kernel's region that only the grid's first thread runs, where the guard tests every index
// the launch spreads threads over (a block.y > 1 that it does not test runs the region in each row).
const FirstThreadLoop* first_thread_loop_of(const KernelProfile& k) {
  if (!k.access_patterns || !k.access_patterns->first_thread_loop) return nullptr;
  const FirstThreadLoop& f = *k.access_patterns->first_thread_loop;
  const auto tested = [&](const std::string& index) {
    return std::find(f.indices.begin(), f.indices.end(), index) != f.indices.end();
  };
  const Dim3& g = k.launch.grid;
  const Dim3& b = k.launch.block;
  const std::pair<long long, const char*> extents[] = {{b.x, "tid.x"},   {b.y, "tid.y"},   {b.z, "tid.z"},
                                                       {g.x, "ctaid.x"}, {g.y, "ctaid.y"}, {g.z, "ctaid.z"}};
  for (const auto& [extent, index] : extents)
    if (extent > 1 && !tested(index)) return nullptr;
  return &f;
}

// H.1e: the blocks that hold the threads passing an exit at a constant bound, where that is fewer
// than the 1-D launch's blocks (the bound counts the global index blockIdx.x * blockDim.x + threadIdx.x).
std::optional<long long> working_blocks_under_bound(const KernelProfile& k) {
  if (!k.access_patterns || !k.access_patterns->threads_under_constant_bound) return std::nullopt;
  const LaunchConfig& l = k.launch;
  if (l.grid.y != 1 || l.grid.z != 1 || l.block.y != 1 || l.block.z != 1 || l.block.x <= 0) return std::nullopt;
  const long long threads = *k.access_patterns->threads_under_constant_bound;
  const long long blocks = (threads + l.block.x - 1) / l.block.x;
  if (blocks >= l.grid.x) return std::nullopt;
  return blocks;
}

// H.2-H.11 for a wave of n warps on each of `sms` SMs.
WaveTerms wave_terms(const DeviceProfile& d, const KernelProfile& k, const Rates& r, const WarpTraffic& counted,
                     double stall_per_inst, double loads, double batch_latency, double slice_atomics_per_warp,
                     const GatherDemand& gather, const LoneStoreSectors& lone, double lone_load_l2_share, double inplace_share,
                     const ClusterAndTensor& ct, double n, double sms, double blocks_per_sm) {
  const double p = d.limits.sub_partitions_per_sm;
  WaveTerms w;
  w.issue = hopper_eq::t_issue(n, p, k.inst_per_warp);                                                    // H.2
  w.sfu = hopper_eq::t_sfu(n, p, k.sfu_inst_per_warp, d.warp_size(), d.sfu_width > 0 ? d.sfu_width : 16);  // H.3
  w.schedule = hopper_eq::t_schedule(k.inst_per_warp, stall_per_inst);                                     // H.4
  w.mem_latency = hopper_eq::t_mem_latency(loads, k.mlp, batch_latency);                                   // H.6
  w.l1 = hopper_eq::t_bandwidth(n, counted.l1, r.l1_bytes_per_clock);                                      // H.7
  // H.8-H.9: the wave's SMs share the L2 and DRAM bandwidths; one SM cannot draw more through
  // L2 than its own L1 data path moves (a one-block kernel is not given 1/#SMs of the L2).
  const auto l2_share = [&](double device_rate) { return std::min(device_rate / sms, r.l1_bytes_per_clock); };
  const double l2_read_rate = l2_share(r.l2_bytes_per_clock);
  // H.8c: the store sectors alone in their line leave H.8's written bytes (the same share of the
  // counted ones) and are priced at their own measured rate.
  WarpTraffic traffic = counted;
  double lone_store_time = 0;
  if (r.lone_store_sectors_per_clock[0] > 0 && lone.total_share() > 0 && k.global_load_inst_per_warp) {
    const double store_sectors = global_store_inst_per_warp(k) * lone.sectors_per_request;
    double sectors_by_fill[4], rates_per_sm[4];
    for (int f = 0; f < 4; ++f) {
      sectors_by_fill[f] = store_sectors * lone.share[f];
      rates_per_sm[f] = r.lone_store_sectors_per_clock[f] / sms;
    }
    lone_store_time = hopper_eq::t_lone_store_sectors(n, sectors_by_fill, rates_per_sm);
    const double moved = traffic.l2_write * lone.total_share();
    traffic.l2_write -= moved;
    traffic.l2 -= moved;
  }
  // H.8h: the scattered local stores' sectors leave H.8's written bytes for the lone sector's rate.
  if (traffic.l2_scattered_write > 0 && r.lone_store_sectors_per_clock[0] > 0) {
    lone_store_time += hopper_eq::t_scattered_local_stores(n, traffic.l2_scattered_write,
                                                           r.lone_store_sectors_per_clock[0] / sms);
    traffic.l2_write -= traffic.l2_scattered_write;
    traffic.l2 -= traffic.l2_scattered_write;
  }
  // H.8: writes at the L2's write rate when it was measured, else every byte at the read rate.
  w.l2 = r.l2_write_bytes_per_clock > 0
             ? hopper_eq::t_l2(n, traffic.l2 - traffic.l2_write, l2_read_rate, traffic.l2_write, l2_share(r.l2_write_bytes_per_clock))
             : hopper_eq::t_bandwidth(n, traffic.l2, l2_read_rate);
  // H.8b, H.8d: scattered local reads and the load sectors alone in their line at the random-sector
  // rate, when it was measured.
  const double l2_random_read =
      traffic.l2_scattered_read + lone_load_l2_share * std::max(0.0, traffic.l2 - traffic.l2_write);
  if (l2_random_read > 0 && r.l2_random_bytes_per_clock > 0) {
    const double written = r.l2_write_bytes_per_clock > 0 ? traffic.l2_write : 0;
    w.l2 = hopper_eq::t_with_scattered_reads(n, traffic.l2 - written, l2_read_rate, l2_random_read,
                                             l2_share(r.l2_random_bytes_per_clock), written,
                                             r.l2_write_bytes_per_clock > 0 ? l2_share(r.l2_write_bytes_per_clock) : 1);
  }
  w.l2 += lone_store_time;  // H.8c
  // H.16d: the gathered sectors that hit L2 take the slices' random-sector rate within H.8 (at most
  // the L2 reads not already priced at that rate).
  if (gather.sectors_per_warp > 0 && r.l2_random_bytes_per_clock > 0) {
    const double streamed_reads = std::max(0.0, traffic.l2 - traffic.l2_write - l2_random_read);
    const double hits = hopper_eq::gathered_l2_hit_bytes(gather.sectors_per_warp, gather.l2_hit_share);
    w.l2 += hopper_eq::t_gathered_l2_hits(n, std::min(streamed_reads, hits), l2_read_rate,
                                          l2_share(r.l2_random_bytes_per_clock));
  }
  // H.9: the wave's SMs share DRAM; an SM draws no more from DRAM than its share of the L2 read rate.
  const auto per_sm = [&](double device_rate) { return std::min(device_rate / sms, l2_read_rate); };
  w.dram = traffic.dram_split ? hopper_eq::t_dram(n, traffic.dram_read, per_sm(r.dram_read_bytes_per_clock),
                                                  traffic.dram_write, per_sm(r.dram_write_bytes_per_clock))
                              : hopper_eq::t_bandwidth(n, traffic.dram_read, per_sm(r.dram_copy_bytes_per_clock));
  // H.9d: the written bytes that go back to lines the kernel read, and those reads, at the in-place
  // rate, where it was measured.
  if (traffic.dram_split && inplace_share > 0 && r.dram_inplace_bytes_per_clock > 0)
    w.dram = hopper_eq::t_dram_inplace(n, traffic.dram_read, per_sm(r.dram_read_bytes_per_clock), traffic.dram_write,
                                       per_sm(r.dram_write_bytes_per_clock), inplace_share,
                                       per_sm(r.dram_inplace_bytes_per_clock));
  // H.8b in DRAM: the reads behind the scattered local reads (their share of the L2 reads) at the
  // random-sector DRAM rate.
  if (traffic.l2_scattered_read > 0 && traffic.dram_split && r.dram_random_bytes_per_clock > 0) {
    const double l2_read = traffic.l2 - traffic.l2_write;
    const double scattered = l2_read > 0 ? traffic.dram_read * std::min(1.0, traffic.l2_scattered_read / l2_read) : 0;
    w.dram = hopper_eq::t_with_scattered_reads(n, traffic.dram_read, per_sm(r.dram_read_bytes_per_clock), scattered,
                                               per_sm(r.dram_random_bytes_per_clock), traffic.dram_write,
                                               per_sm(r.dram_write_bytes_per_clock));
  }
  // H.9c: and the scattered local stores' write-backs at the random-sector DRAM write rate.
  if (traffic.dram_scattered_write > 0 && r.dram_random_write_bytes_per_clock > 0)
    w.dram += hopper_eq::t_scattered_writes(n, traffic.dram_scattered_write, per_sm(r.dram_write_bytes_per_clock),
                                            per_sm(r.dram_random_write_bytes_per_clock));
  w.slice_atomics = hopper_eq::t_slice_atomics(n * sms, slice_atomics_per_warp, r.slice_atomic_ops_per_clock);  // H.15
  w.gather = hopper_eq::t_gather(n, gather.sectors_per_warp, gather.l2_hit_share, r.l2_random_bytes_per_clock / sms,
                                 r.dram_random_bytes_per_clock / sms);  // H.16
  w.dispatch = hopper_eq::t_dispatch(blocks_per_sm, r.block_dispatch_cycles);  // H.13
  w.tensor = hopper_eq::t_tensor(n, p, ct.tensor_clocks_per_warp);                // H.17
  w.cluster_sync = hopper_eq::t_cluster_sync(ct.cluster_barrier_waits, ct.barrier_latency, ct.remote_shared_waits,
                                             ct.dsmem_latency);  // H.18b
  w.dsmem = hopper_eq::t_dsmem(n, k.dsmem_bytes_per_warp.value_or(0), r.dsmem_bytes_per_clock / d.sm_count);  // H.18c
  // What-if (DeviceProfile::free_terms, predict-app's potential gains): a named term costs nothing.
  for (const std::string& name : d.free_terms) {
    double* term = name == "issue"                 ? &w.issue
                   : name == "sfu pipe"            ? &w.sfu
                   : name == "warp schedule"       ? &w.schedule
                   : name == "memory latency"      ? &w.mem_latency
                   : name == "l1/shared data path" ? &w.l1
                   : name == "l2 bandwidth"        ? &w.l2
                   : name == "dram bandwidth"      ? &w.dram
                   : name == "l2 slice atomics"    ? &w.slice_atomics
                   : name == "gather sectors"      ? &w.gather
                   : name == "block dispatch"      ? &w.dispatch
                   : name == "tensor pipe"         ? &w.tensor
                   : name == "cluster sync"        ? &w.cluster_sync
                   : name == "distributed shared memory" ? &w.dsmem
                                                   : nullptr;
    if (term) *term = 0;
  }
  w.warp = hopper_eq::t_warp(w.schedule, w.mem_latency, w.cluster_sync);  // H.10
  w.pipe = hopper_eq::t_pipe(w.issue, w.sfu, w.tensor);
  w.data = hopper_eq::t_data(w.l1, w.l2, w.dram, w.slice_atomics, w.gather, w.dsmem);
  w.wave = hopper_eq::t_wave(w.warp, w.pipe, w.data, w.dispatch);             // H.11
  const char* warp_part = w.cluster_sync > std::max(w.mem_latency, w.schedule) ? "cluster sync"
                          : w.mem_latency > w.schedule                        ? "memory latency"
                                                                              : "warp schedule";
  const std::pair<double, const char*> named[] = {{w.issue, "issue"},
                                                  {w.sfu, "sfu pipe"},
                                                  {w.tensor, "tensor pipe"},
                                                  {w.warp, warp_part},
                                                  {w.l1, "l1/shared data path"},
                                                  {w.l2, "l2 bandwidth"},
                                                  {w.dram, "dram bandwidth"},
                                                  {w.slice_atomics, "l2 slice atomics"},
                                                  {w.gather, "gather sectors"},
                                                  {w.dsmem, "distributed shared memory"},
                                                  // H.11b: dispatch bounds the wave only where it outlasts the rest.
                                                  {w.dispatch >= w.wave ? w.dispatch : -1, "block dispatch"}};
  double best = -1;
  for (const auto& [value, name] : named)
    if (value > best) best = value, w.bound = name;
  return w;
}

}  // namespace

Prediction predict_hopper(const DeviceProfile& device, const KernelProfile& kernel) {
  // H.1e: the threads past an exit at a constant bound leave at once, so the blocks holding the
  // ones that pass carry the launch's counted work: the launch is priced as those blocks.
  if (const auto working = working_blocks_under_bound(kernel)) {
    LaunchConfig target = kernel.launch;
    target.grid.x = *working;
    KernelProfile concentrated = profile_at_launch(kernel, target);
    concentrated.access_patterns->threads_under_constant_bound.reset();
    Prediction p = predict_hopper(device, concentrated);
    p.notes.push_back("hopper: " + std::to_string(*kernel.access_patterns->threads_under_constant_bound) + " of " +
                      std::to_string(kernel.launch.grid.count() * kernel.launch.block.count()) +
                      " threads pass the exit at a constant bound (SASS): priced as the " + std::to_string(*working) +
                      " blocks that hold them, with the launch's counted work (H.1e)");
    return p;
  }
  Prediction p;
  p.variant = ModelVariant::Hopper;
  // H.1 counts whole blocks: N comes from the occupancy rules. A forced N (the thesis's columns) or
  // CUPTI's achieved occupancy (a fraction of blocks) would split waves that the hardware does not.
  KernelProfile whole_blocks = kernel;
  whole_blocks.launch.active_warps_per_sm.reset();
  p.occupancy = detail::checked_occupancy(device, whole_blocks);
  if (kernel.launch.active_warps_per_sm)
    p.notes.push_back("hopper: N from the occupancy rules (whole blocks); launch.active_warps_per_sm is read only as the working warps of a one-wave launch (H.1b)");
  const Occupancy& occ = p.occupancy;
  Rates rates = measured_rates(device);
  // H.15: the atomics of the busiest L2 slice, counted; without that counter, every lane's add when
  // all of the kernel's atomics name one word (the SASS addresses); else none.
  double slice_atomics_per_warp = 0;
  if (kernel.busiest_slice_atomics_per_warp) {
    slice_atomics_per_warp = *kernel.busiest_slice_atomics_per_warp;
  } else if (atomics_on_one_word(kernel)) {
    if (kernel.atomic_lane_ops_per_warp)
      slice_atomics_per_warp = *kernel.atomic_lane_ops_per_warp;
    else
      p.notes.push_back("hopper: the kernel's atomics all add to one word, but the profile has no atomic lane count "
                        "(memory.atomic_lane_ops_per_warp): T_slice_atomics = 0 (H.15)");
  }
  if (slice_atomics_per_warp > 0) {
    rates.slice_atomic_ops_per_clock = slice_atomic_rate(device, kernel);
    if (!(rates.slice_atomic_ops_per_clock > 0))
      p.notes.push_back("hopper: the kernel's atomics crowd onto an L2 slice, but the device profile has no measured "
                        "same-address atomic rate: T_slice_atomics = 0 (H.15); re-run `warpmodel characterize`");
  }
  const DeviceProfile::HopperCalibration cal = device.hopper_calibration.value_or(DeviceProfile::HopperCalibration{});
  if (!device.hopper_calibration) p.notes.push_back("hopper: unfitted (launch 0, scale 1, wave 0, barrier 0, turnover exponent 0)");
  if (!device.l2_write_bandwidth_gbs)
    p.notes.push_back("hopper: no measured L2 write bandwidth in the device profile: L2 writes at the read rate (H.8); "
                      "re-run `warpmodel characterize`");
  if (!device.block_dispatch_cycles)
    p.notes.push_back("hopper: no measured block dispatch cost in the device profile: T_dispatch = 0 (H.13); "
                      "re-run `warpmodel characterize`");
  // H.4: the control bits' stall count when the profile has it, else lat_dep / ILP.
  double stall_per_inst = 0;
  if (kernel.stall_cycles_per_inst) {
    stall_per_inst = *kernel.stall_cycles_per_inst;
  } else {
    const std::optional<double> ilp = detail::stated_or_eq_4_26_ilp(kernel);
    if (!ilp) p.notes.push_back("hopper: no stall count and no ILP in the kernel profile; used ILP = 1");
    p.ilp = ilp.value_or(1);  // no parallelism information: the conservative reading
    stall_per_inst = hopper_eq::stall_from_ilp(rates.dependent_latency, p.ilp);
  }
  // H.6: the loads a warp waits for; every memory instruction when the profile does not separate them.
  // Local loads (LDL) are round trips too: the warp waits for the register they fill.
  const double global_loads = kernel.global_load_inst_per_warp.value_or(kernel.mem_inst_per_warp);
  const double loads = global_loads + kernel.local_load_inst_per_warp;
  if (!kernel.global_load_inst_per_warp)
    p.notes.push_back("hopper: no instructions_per_warp.global_load; every memory instruction counted as a load");
  p.stall_cycles_per_inst = stall_per_inst;  // the clocks per instruction H.4 charges
  // H.5c, H.6d: the share of the load sectors that gathers scatter one to a line wait the scattered latency
  // (the same share H.16 prices at the random-sector rates).
  p.scattered_load_share = 0;
  if (kernel.access_patterns)
    p.scattered_load_share =
        gather_load_sector_share(*kernel.access_patterns, global_loads, kernel.transactions_per_request);
  // The loads' and stores' requests at this launch's shape (SASS addresses), for H.16a-b, H.9b and
  // H.8c. The shares are per request: one block's warps tell them (no other block's reuse is needed,
  // and evaluating every resident block made `validate` 15x slower).
  const bool rows_measured =
      device.dram_read_rows_32b_gbs && device.dram_read_rows_64b_gbs && device.dram_read_rows_128b_gbs;
  const bool lone_stores_measured = rates.lone_store_sectors_per_clock[0] > 0;
  const bool random_reads_measured = rates.l2_random_bytes_per_clock > 0;  // H.8d
  std::optional<ShapeTraffic> shape;
  if (kernel.access_patterns &&
      (rows_measured || lone_stores_measured || random_reads_measured || p.scattered_load_share > 0))
    shape = shape_traffic(*kernel.access_patterns, kernel.launch,
                          loop_trip_factor(*kernel.access_patterns, global_loads), SmResidency{});
  // H.16a: the regular loads' sectors (SASS) out of the measured ones; the rest are the gathers'.
  const double load_sectors = global_loads * kernel.transactions_per_request;
  double regular_load_sectors = 0;
  if (shape && p.scattered_load_share > 0) {
    regular_load_sectors = regular_load_sectors_of(*shape, global_loads);
    p.scattered_load_share = hopper_eq::gather_sector_share(p.scattered_load_share, load_sectors, regular_load_sectors);
  }
  // H.6d: the regular loads' lines leave at the sequential departure delay, the gathers' at Delta.
  p.departure_delay = hopper_eq::departure_delay(device.departure_delay_coalesced_cycles,
                                                 device.departure_delay_sequential_cycles.value_or(0),
                                                 p.scattered_load_share);
  p.avg_dram_lat = hopper_eq::avg_dram_lat(device.dram_latency_cycles, kernel.transactions_per_request,
                                           p.departure_delay);  // H.5
  const WarpTraffic traffic = warp_traffic(kernel);
  p.l2_scattered_read_bytes = traffic.l2_scattered_read;  // H.8b (the averaged warp's)
  p.dram_scattered_write_bytes = traffic.dram_scattered_write;  // H.9c
  p.l2_scattered_write_bytes = traffic.l2_scattered_write;  // H.8h
  // H.5b: the L2 misses a load waits for, from the DRAM bytes when the profile counts them.
  const double l1_miss_load_bytes = kernel.global_load_inst_per_warp.value_or(0) * kernel.transactions_per_request *
                                    kSectorBytes * kernel.l1_miss_ratio;
  // Only where the global loads are all the reads: local loads (spills) also read DRAM, and their
  // sectors are not in the counts the denominator is made of.
  const double l2_miss = kernel.dram_bytes_per_warp && kernel.local_load_inst_per_warp == 0
                             ? hopper_eq::l2_latency_miss_ratio(kernel.l2_miss_ratio, traffic.dram_read, l1_miss_load_bytes)
                             : kernel.l2_miss_ratio;
  p.amat = hopper_eq::amat(device.l1_hit_latency_cycles, kernel.l1_miss_ratio, device.l2_hit_latency_cycles, l2_miss,
                           p.avg_dram_lat);
  // H.6b: the global loads that re-read one address every iteration (SASS), as a share of the loads H.6 counts.
  p.reused_load_share = 0;
  if (kernel.access_patterns && loads > 0) {
    p.reused_load_share =
        loop_invariant_load_share(*kernel.access_patterns, global_loads) * global_loads / loads;
  }
  // H.17, H.18b: the tensor pipe's clocks per warp and the cluster's waits.
  ClusterAndTensor ct = cluster_waits(device, kernel, p.notes);
  ct.tensor_clocks_per_warp = tensor_clocks_per_warp(device, kernel, p.notes);
  // H.18a: a cluster launch holds whole clusters in each GPC, which can leave block slots empty:
  // the wave's blocks per SM B' and the waves come from the clusters at once.
  double resident_blocks = occ.resident_blocks_per_sm;
  if (const double c = cluster_blocks(kernel); c > 0) {
    std::vector<int> gpcs = device.sms_per_gpc;
    if (gpcs.empty()) {
      if (auto spec = spec_sms_per_gpc(device.cc_major, device.cc_minor, device.sm_count)) {
        gpcs = *spec;
        p.notes.push_back("hopper: the SMs of each GPC from the sm_" + std::to_string(device.cc_major) +
                          std::to_string(device.cc_minor) + " specification, spread evenly (spec, not measured: "
                          "hardware.sms_per_gpc absent from the device profile) (H.18a)");
      } else {
        p.notes.push_back("hopper: no GPC layout for the device (hardware.sms_per_gpc) and none in the specification "
                          "tables: clusters placed by the block slots alone (H.18a)");
      }
    }
    if (!gpcs.empty()) {
      p.clusters_at_once = hopper_eq::clusters_at_once(gpcs, occ.blocks_per_sm, c);
      if (!(p.clusters_at_once > 0))
        throw ModelError("kernel '" + kernel.name + "': a cluster of " + std::to_string(static_cast<long long>(c)) +
                         " blocks at " + std::to_string(occ.blocks_per_sm) + " a SM fits in no GPC of " + device.name +
                         " (its largest has " + std::to_string(*std::max_element(gpcs.begin(), gpcs.end())) +
                         " SMs): it cannot launch; use smaller clusters or fewer resources a block");
      resident_blocks = std::min(resident_blocks, hopper_eq::cluster_blocks_per_sm(p.clusters_at_once, c, device.sm_count,
                                                                                   occ.blocks_per_sm));
    }
  }
  // H.1: full waves at N warps per SM on every active SM, then the partial wave.
  const hopper_eq::WaveSplit split =
      hopper_eq::split_waves(static_cast<double>(occ.total_blocks), resident_blocks, occ.active_sms);
  p.full_waves = split.full_waves;
  p.last_wave_sms = split.last_wave_sms;
  p.last_wave_warps_per_sm = split.last_wave_blocks_per_sm * occ.warps_per_block;

  // Whether the launch runs in one wave (H.1b, H.1c, H.5d).
  const bool one_wave = split.full_waves + (split.last_wave_blocks > 0 ? 1 : 0) <= 1;

  // H.5d: in a one-wave launch, the loads that walk to a new line every iteration (SASS) miss L1
  // whatever the counters say, and wait DRAM as often as any of their concurrent sharers does (H.6c).
  hopper_eq::WalkingLoads walking;
  if (kernel.access_patterns && one_wave && loads > 0) {
    const LineWalkingLoads found = line_walking_loads(*kernel.access_patterns, kernel.launch, global_loads);
    walking = {found.share * global_loads / loads, found.concurrent_sharers};
  }
  p.line_walking_load_share = walking.share;
  // H.6, H.6b: a warp issuing `warp_loads` loads waits for batches of min(MLP, loads) of them.
  const auto mlp_of = [&](double warp_loads) { return std::min(kernel.mlp, std::max(1.0, warp_loads)); };
  const double dram_lat = hopper_eq::scattered_dram_latency(
      device.dram_latency_cycles, device.dram_scattered_latency_cycles.value_or(0), p.scattered_load_share);
  const auto batch_latency_walking = [&](double warp_loads, const hopper_eq::WalkingLoads& walks) {
    const double mlp = mlp_of(warp_loads);
    return hopper_eq::batch_latency_lockstep(mlp, p.reused_load_share, walks, device.l1_hit_latency_cycles,
                                             kernel.l1_miss_ratio, device.l2_hit_latency_cycles, l2_miss, dram_lat) +
           hopper_eq::batch_departures(mlp, kernel.transactions_per_request, kernel.l1_miss_ratio, p.departure_delay);
  };
  const auto batch_latency_of = [&](double warp_loads) { return batch_latency_walking(warp_loads, walking); };
  p.mlp = mlp_of(loads);
  p.batch_latency = batch_latency_of(loads);

  // H.1d: code only the grid's first thread runs (SASS), around a loop: the instructions and loads
  // the counters saw beyond every warp's path outside it are one warp's path. Only where the guard
  // tests every index the launch spreads threads over (else more than one thread runs it).
  double t_first_thread = 0;
  if (const auto first = first_thread_loop_of(kernel)) {
    const double warps = static_cast<double>(occ.total_blocks) * occ.warps_per_block;
    const double inst = hopper_eq::first_thread_count(kernel.inst_per_warp, first->instructions_outside, warps);
    const double first_loads = hopper_eq::first_thread_count(loads, first->global_loads_outside, warps);
    // Its loads wait as the counters' hit rates say: no other warp walks its lines (H.5d is about
    // the warps of a wave sharing them).
    t_first_thread = hopper_eq::t_warp(
        hopper_eq::t_schedule(inst, stall_per_inst),
        hopper_eq::t_mem_latency(first_loads, mlp_of(first_loads), batch_latency_walking(first_loads, {})));
    p.t_first_thread = t_first_thread;
  }

  // H.16: the gathers' share (SASS) of the load sectors that leave L1 (the requests' sectors times the
  // L1 miss ratio; not CUPTI's L2 bytes, which count DRAM fills as well).
  // H.16b: the gathers' sectors that leave L1, the regular loads' misses (SASS reuse) taken first.
  GatherDemand gather;
  if (kernel.access_patterns && rates.dram_random_bytes_per_clock > 0) {
    gather.sectors_per_warp =
        shape ? hopper_eq::gather_missing_sectors(load_sectors * kernel.l1_miss_ratio, regular_load_sectors,
                                                  shape->load_l1_hit_rate, p.scattered_load_share * load_sectors)
              : p.scattered_load_share * load_sectors * kernel.l1_miss_ratio;
    gather.l2_hit_share = 1 - kernel.l2_miss_ratio;
  }

  // H.9b: the DRAM read rate of the loads' line segments.
  p.dram_read_efficiency = 1;
  if (shape && rows_measured) {
    const double weight = shape->regular_load_weight + shape->irregular_load_weight;
    p.dram_read_efficiency = hopper_eq::dram_segment_efficiency(
        shape->load_sectors_by_line_fill, weight > 0 ? shape->regular_load_weight / weight : 0,
        *device.dram_read_rows_32b_gbs, *device.dram_read_rows_64b_gbs, *device.dram_read_rows_128b_gbs);
    rates.dram_read_bytes_per_clock *= p.dram_read_efficiency;
    rates.dram_copy_bytes_per_clock *= p.dram_read_efficiency;  // unsplit bytes: taken as reads
  }

  // H.8c: the store sectors alone in their line, as shares of all stores' sectors (irregular stores,
  // whose addresses are not known, are taken at the regular ones' sectors per request, none alone),
  // where the SASS's sectors per store request agree with the measured ones.
  LoneStoreSectors lone;
  if (shape && lone_stores_measured && shape->store_sectors_per_request > 0 &&
      hopper_eq::sass_sectors_agree(shape->store_sectors_per_request, kernel.store_sectors_per_request)) {
    const double regular = shape->regular_store_weight / (shape->regular_store_weight + shape->irregular_store_weight);
    lone.sectors_per_request = shape->store_sectors_per_request;
    for (int f = 0; f < 4; ++f)
      lone.share[f] = regular * shape->store_lone_sectors_by_fill[f] / shape->store_sectors_per_request;
  }
  // H.8f: none found there, the counted store sectors per request still tell scattered stores.
  if (lone.total_share() == 0 && lone_stores_measured && kernel.store_sectors_per_request) {
    lone.sectors_per_request = *kernel.store_sectors_per_request;
    lone.share[hopper_eq::lone_store_fill_index(first_store_bytes_per_lane(kernel))] =
        hopper_eq::lone_store_share_from_counters(*kernel.store_sectors_per_request);
  }
  p.lone_store_sector_share = lone.total_share();

  // H.8d: the regular loads' sectors alone in their line (SASS, at this launch shape), where the SASS's
  // sectors per load request agree with the measured ones, as a share of the L2 read bytes.
  p.lone_load_l2_share = 0;
  if (shape && random_reads_measured && shape->load_sectors_per_request > 0 &&
      hopper_eq::sass_sectors_agree(shape->load_sectors_per_request, kernel.transactions_per_request)) {
    const double regular_sectors = regular_load_sectors_of(*shape, global_loads);
    // Only requests that scatter like the microbenchmark's: H.8b's reading of the sectors per request
    // (8 a coalesced request, 32 a scattered one). An 8 x 32 block's warp reads a sector in each of 4
    // lines, coalesced in this reading: its neighbours read the rest of each line.
    const double lone_share = load_sectors > 0 ? regular_sectors * shape->load_sectors_by_line_fill[0] *
                                                     hopper_eq::scattered_local_sector_share(shape->load_sectors_per_request) /
                                                     load_sectors
                                               : 0;
    p.lone_load_l2_share = hopper_eq::lone_load_l2_share(std::min(1.0, lone_share), load_sectors, kernel.l1_miss_ratio,
                                                         std::max(0.0, traffic.l2 - traffic.l2_write));
  }

  // H.9d: the stores that write back lines the kernel read (SASS).
  p.inplace_store_share = kernel.access_patterns ? inplace_store_share(*kernel.access_patterns, global_loads) : 0.0;

  // H.1b: a launch that runs in one wave, and whose measured active warps per SM (CUPTI's achieved
  // occupancy) stay under the wave's resident warps: the warps that exit early leave the work to the
  // others, so the wave runs `working` warps, each carrying the resident warps' share of the work
  // (totals conserved; hopper_equations.hpp says why only one wave). H.1c: less the warps waiting at
  // a barrier (the stall reasons' barrier share).
  const auto wave = [&](double resident_warps, double sms, double blocks_per_sm) {
    double working = resident_warps;
    if (one_wave && kernel.launch.active_warps_per_sm)
      working = std::clamp(*kernel.launch.active_warps_per_sm, std::min(1.0, resident_warps), resident_warps);
    if (one_wave && kernel.launch.barrier_wait_share)
      working = hopper_eq::warps_not_at_barrier(working, *kernel.launch.barrier_wait_share);
    if (one_wave) p.working_warps_per_sm = working;  // several waves: not read (kUnused)
    const double f = resident_warps / working;
    // The working warp's batches: up to MLP of its f-fold loads.
    const double batch_latency = batch_latency_of(loads * f);
    if (one_wave) p.mlp = mlp_of(loads * f), p.batch_latency = batch_latency;
    if (f == 1)
      return wave_terms(device, kernel, rates, traffic, stall_per_inst, loads, batch_latency, slice_atomics_per_warp,
                        gather, lone, p.lone_load_l2_share, p.inplace_store_share, ct, resident_warps, sms, blocks_per_sm);
    KernelProfile concentrated = kernel;
    scale_per_warp_counts(concentrated, f);
    GatherDemand concentrated_gather = gather;
    concentrated_gather.sectors_per_warp *= f;
    ClusterAndTensor concentrated_ct = ct;  // the MMAs move with the work; the waits are each warp's own
    concentrated_ct.tensor_clocks_per_warp *= f;
    return wave_terms(device, concentrated, rates, warp_traffic(concentrated), stall_per_inst, loads * f, batch_latency,
                      slice_atomics_per_warp * f, concentrated_gather, lone, p.lone_load_l2_share, p.inplace_store_share,
                      concentrated_ct,
                      working, sms, blocks_per_sm);
  };
  const WaveTerms full = wave(resident_blocks * occ.warps_per_block, occ.active_sms, resident_blocks);
  p.t_issue = full.issue;
  p.t_sfu = full.sfu;
  p.t_schedule = full.schedule;
  p.t_mem_latency = full.mem_latency;
  p.t_l1_data = full.l1;
  p.t_l2_bandwidth = full.l2;
  p.t_dram_bandwidth = full.dram;
  p.t_block_dispatch = full.dispatch;
  p.t_slice_atomics = full.slice_atomics;
  p.t_gather = full.gather;
  p.t_tensor = full.tensor;
  p.t_cluster_sync = full.cluster_sync;
  p.t_dsmem = full.dsmem;
  p.t_warp = full.warp;
  p.t_pipe = full.pipe;
  p.t_data = full.data;
  p.t_wave = full.wave;
  p.bound = full.bound;
  p.t_last_wave = 0;
  if (split.last_wave_blocks > 0) {
    const WaveTerms last = wave(p.last_wave_warps_per_sm, split.last_wave_sms, split.last_wave_blocks_per_sm);
    p.t_last_wave = last.wave;
    if (split.full_waves == 0) p.bound = last.bound;
  }
  // H.1d: the wave holding block 0 (the first; the partial one in a launch of one) lasts at least
  // its first thread's path.
  if (t_first_thread > (split.full_waves > 0 ? p.t_wave : p.t_last_wave)) {
    (split.full_waves > 0 ? p.t_wave : p.t_last_wave) = t_first_thread;
    p.bound = "first thread";
    p.notes.push_back("hopper: a loop only the grid's first thread runs (SASS) sets the launch's time (H.1d)");
  }
  p.model_case = full.data > full.pipe ? ModelCase::MemoryBound : ModelCase::ComputeBound;
  p.t_counter_range = hopper_eq::t_counter_range(cal, kernel.timed_by_counter_range, device.sm_clock_mhz);  // H.12b
  p.cycles = p.t_counter_range + hopper_eq::cycles(cal, p.full_waves, p.t_wave, p.t_last_wave, kernel.sync_inst_per_warp,
                               resident_blocks);  // H.12
  p.seconds = p.cycles / (device.sm_clock_mhz * 1e6);
  return p;
}

}  // namespace warpmodel
