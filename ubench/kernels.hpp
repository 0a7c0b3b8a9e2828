// Host interface of the microbenchmark kernels (kernels.cu). Plain C++: no CUDA types leak out.
// Every timed kernel reads %clock64 (or %clock) before and after its timed region and writes the
// raw difference per warp and per repetition; repetition 0 is a warm-up (instruction cache) and is
// returned like the others: the harness drops it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "registry.hpp"

namespace warpmodel::ubench::gpu {

void select_device(int index);
std::string pci_bus_id(int index);

// Raw clock differences, laid out [block][warp][rep] (lane 0 of each warp writes).
using Cycles = std::vector<long long>;

// ALU chain kernels, by row of ubench.def. Latency: one dependent chain per thread, region cycles
// [block][warp][rep]; throughput: 8 independent chains per thread, all warps of a block released
// together by a barrier, absolute (start, end) %clock64 pairs, laid out [block][warp][rep][2].
int alu_count();
Cycles run_alu(AluKernel kernel, int blocks, int warps, int reps);

// Clock-read cost: two %clock64 reads (the overhead subtracted everywhere), two %clock reads
// (thesis listing 4.1) or two clock() calls (listing 4.2).
Cycles run_clock(ClockRead which, int warps, int reps);

// Shared-memory pointer chase (ld.shared.u32, conflict-free), 1 block of `warps` warps.
Cycles run_shared_chase(int warps, int reps);

// Store latency as a round trip (thesis listings 4.8/4.9): 1 block of `warps` warps, each thread
// chains "st [p], p; ld p, [p]" on its own word (shared, or global with ld.global.cg), or the same
// chain without the store (the selfload baseline that is subtracted).
Cycles run_store(StoreChain which, int warps, int reps);

// The memory-pipe kernels of one signature (LSU loads, stores, atomics, local memory, barriers),
// by symbol: `blocks` blocks of `warps` warps over a zeroed buffer of sizes::kMemoryBufferBytes,
// the carveout at the largest L1. Returns absolute (start, end) %clock64 pairs of every warp's
// timed region, laid out [block][warp][rep][2]. Throws CudaError for an unknown symbol.
Cycles run_timed(const std::string& kernel, int blocks, int warps, int reps);

// The most warps one block of that kernel can hold: its registers per thread decide (ptxas gives the
// 32-deep unrolled float4 loads and the stores 79-130 registers, so fewer than 32 warps fit).
int timed_max_warps_per_block(const std::string& kernel);

// Launch overhead: CUDA-event times, in microseconds, of the empty kernel.
//   one launch of 1 block of 32 threads, each timed on its own, `reps` times;
//   `launches` launches back to back between one event pair, per launch, `reps` times;
//   one launch of `blocks` blocks of `threads` threads with `dynamic_shared_bytes` each, `reps` times.
std::vector<double> time_single_launches(int reps);
std::vector<double> time_back_to_back_launches(int launches, int reps);
std::vector<double> time_grid_launches(int blocks, int threads, int dynamic_shared_bytes, int reps);
// The dynamic shared memory that leaves room for one block per SM only (the opt-in maximum).
int one_block_per_sm_shared_bytes();

// Global-memory pointer chase over a device buffer. Nodes of 256 B (32 pointers, word i of a node
// points to word i of the next node) lie at `stride` bytes over `footprint` bytes, linked in one
// random cycle (Sattolo). Chasing 64-bit pointers with ld.global.{ca,cg}.
class ChaseBuffer {
 public:
  explicit ChaseBuffer(std::size_t max_bytes);
  ~ChaseBuffer();
  ChaseBuffer(const ChaseBuffer&) = delete;
  ChaseBuffer& operator=(const ChaseBuffer&) = delete;
  // Links a random cycle over footprint bytes; returns the number of nodes.
  std::size_t build(std::size_t footprint, std::size_t stride, std::uint64_t seed);
  // coalesced: all lanes of a warp chase the same node (one request); otherwise every lane chases
  // its own node (32 lines per request). threads = blocks x warps x 32.
  Cycles run(CacheOp op, bool coalesced, int blocks, int warps, int warmup_steps, int reps);
  std::size_t nodes() const { return nodes_; }
  // Near/far L2: one warp on SM `target_sm` (the first of grid_blocks single-warp blocks that lands
  // there) chases `steps` nodes from the cycle's first node (.cg) and times every load on its own.
  // Returns per-load raw cycles (clock64 read cost included); all -1 when no block reached the SM.
  std::vector<long long> run_lines(int target_sm, int steps, int grid_blocks);
  void prewarm();  // streams the footprint through L2
  // cudaFuncAttributePreferredSharedMemoryCarveout of both chase kernels (percent of the unified
  // L1/shared storage given to shared memory; 0 = the largest L1).
  static void set_carveout(int percent);

 private:
  void* buf_ = nullptr;
  std::size_t max_ = 0, footprint_ = 0, stride_ = 0, nodes_ = 0;
  std::vector<std::uint32_t> order_;  // cycle order of node indices
};

// Departure delay, direct: one block of `warps` warps; each rep, after a barrier, every warp issues
// one load of never-touched lines (coalesced: 1 line of 128 B per warp at a scrambled place;
// uncoalesced: 32 scrambled lines per warp, one per lane; sequential: 1 line per warp, the warps'
// lines consecutive), consumes it, and reads the clock. Returns [rep][warp] pairs (start, end).
struct Departure {
  std::vector<long long> start, end;
};
enum class DepartureLines { coalesced = 0, uncoalesced = 1, sequential = 2 };  // the kernel's `lines`
Departure run_departure(DepartureLines placement, int warps, int reps);

// Bandwidth kernels, timed with CUDA events over `reps` launches; returns seconds per launch and
// the bytes moved by one launch.
struct Bandwidth {
  std::vector<double> seconds;
  double bytes = 0;
};
Bandwidth run_bandwidth(BandwidthKind kind, int sm_count, int reps);

// Releases cached device buffers.
void release_buffers();

}  // namespace warpmodel::ubench::gpu
