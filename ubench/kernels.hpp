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

namespace warpmodel::ubench::gpu {

void select_device(int index);
std::string pci_bus_id(int index);

// Raw clock differences, laid out [block][warp][rep] (lane 0 of each warp writes).
using Cycles = std::vector<long long>;

// ALU chain kernels, by index into ubench.def. throughput=false: one dependent chain per thread;
// throughput=true: 8 independent chains per thread, all warps of a block released together by a
// barrier; returns absolute (start, end) %clock64 pairs, laid out [block][warp][rep][2].
int alu_count();
Cycles run_alu(int alu_index, bool throughput, int blocks, int warps, int reps);

// Clock-read cost: which = 0: two %clock64 reads (the overhead subtracted everywhere);
// 1: two %clock reads (thesis listing 4.1); 2: two clock() calls (listing 4.2).
Cycles run_clock(int which, int warps, int reps);

// Shared-memory pointer chase (ld.shared.u32, conflict-free), 1 block of `warps` warps.
Cycles run_shared_chase(int warps, int reps);

// Store latency as a round trip (thesis listings 4.8/4.9): 1 block of `warps` warps, each thread
// chains "st [p], p; ld p, [p]" on its own word (which = 0: shared, 2: global with ld.global.cg),
// or the same chain without the store (which = 1: shared, 3: global): the baseline subtracted.
Cycles run_store(int which, int warps, int reps);

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
  // cache_op: "ca" or "cg". coalesced: all lanes of a warp chase the same node (one request);
  // otherwise every lane chases its own node (32 lines per request). threads = blocks x warps x 32.
  Cycles run(const std::string& cache_op, bool coalesced, int blocks, int warps, int warmup_steps, int reps);
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
// one load of never-touched lines (coalesced: 1 line of 128 B per warp; uncoalesced: 32 lines per
// warp, one per lane), consumes it, and reads the clock. Returns [rep][warp] pairs (start, end).
struct Departure {
  std::vector<long long> start, end;
};
Departure run_departure(bool coalesced, int warps, int reps);

// Bandwidth kernels, timed with CUDA events over `reps` launches; returns seconds per launch and
// the bytes moved by one launch. kind: dram_read, dram_write, dram_copy, l2_read, shared_read.
struct Bandwidth {
  std::vector<double> seconds;
  double bytes = 0;
};
Bandwidth run_bandwidth(const std::string& kind, int sm_count, int reps);

// Releases cached device buffers.
void release_buffers();

}  // namespace warpmodel::ubench::gpu
