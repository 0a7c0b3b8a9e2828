// Shape-aware memory traffic: what a kernel's memory counters would be at a launch shape it has not
// run with, from the address each global memory instruction computes.
//
// The choice. Counters such as global-load sectors per request and the L1 hit rate move with the
// block shape because the shape decides which threads share a warp and a block: a warp of a 32x8
// block walks 32 consecutive x, one of an 8x32 block four rows of 8. Where the address of each
// load and store is affine in the thread indices (most kernels: a[y * pitch + x], a column walk
// a[x * n + k], a broadcast a[row * n + k]), the SASS gives it exactly (profiles/sass
// address_analysis), and a warp's sectors and a block's reuse follow by evaluating the address at
// the 32 lanes of every warp of one block: no fitting. The measured launch anchors the result:
// derived = measured at the reference shape, moved by what the addresses say changes between the
// reference and the target (a ratio for sector counts and bytes, a difference for hit rates). So
// whatever the address model leaves out (the other blocks' reuse, cache capacity, irregular
// accesses) stays as measured instead of being guessed.
//
// Where it stops applying: addresses that depend on loaded data (gathers, pointer chasing, CSR)
// or on operations kept out of the affine algebra (a thread index shifted right, masked, divided)
// are "irregular": their share of the requests keeps the reference's sectors per request. Reuse is
// counted among the blocks one SM holds at once (occupancy) within one iteration of each loop (the
// loop counters are evaluated at their first value), as if their warps ran in step; reuse across
// iterations, and L1 capacity, are in the anchor only. Instruction counts per warp are conserved
// launch-wide (profile_at_launch) except the per-block accesses' (is_per_block_access), which follow
// the number of blocks, and the loop loads of a kernel with cooperative tiles
// (cooperative_tile_factor), which follow the tiles' replication; other counts that move with the
// block size stay as measured.
// DRAM bytes are the kernel's footprint and stay as measured.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "warpmodel/access_patterns.hpp"
#include "warpmodel/device_profile.hpp"
#include "warpmodel/kernel_profile.hpp"

namespace warpmodel {

// "8*tid.x + 8*param:0x22c*tid.y + param:0x210 - 4", or "irregular".
std::string format_address(const std::optional<AddressPolynomial>& address);

// Value of each leaf symbol for one thread of block 0 (a floor symbol has none of its own: it is its
// inner polynomial's floor, which evaluate_address computes): the launch's blockDim and gridDim, parameters at 2^40 + 2^32 x (word index): pointers 4 GiB apart
// and 256-byte aligned, and a pitch read from a parameter far larger than any block (separate rows
// never share a sector), "u:" symbols 0.
unsigned long long symbol_value(const std::string& symbol, const Dim3& thread, const LaunchConfig& launch);
// The polynomial at one thread, in 128-bit arithmetic (parameters are near 2^40 so that products of
// three stay exact; only differences of addresses matter).
__extension__ typedef unsigned __int128 WideAddress;
WideAddress evaluate_address(const AddressPolynomial& address, const Dim3& thread, const LaunchConfig& launch);
// Why evaluate_address could not evaluate `address` ("" when it can): a symbol it cannot read
// ("param:" without a number, a floor dividing by a number beyond 64 bits) or coefficients whose
// product overflows. The access-pattern reader refuses such an address.
std::string address_symbols_problem(const AddressPolynomial& address);

// The blocks one SM holds at once: the reuse that L1 sees is among them (blocks are dealt to the
// SMs round robin, so SM 0 holds blocks 0, sm_count, 2 sm_count, ...).
struct SmResidency {
  long long sm_count = 1;
  long long blocks_per_sm = 1;
};
// blocks_per_sm from the occupancy calculator for the launch (at most the grid's share of an SM).
SmResidency sm_residency(const DeviceProfile& device, const LaunchConfig& launch);

// What the regular accesses give at one launch shape. Weights: an instruction at loop depth d
// counts loop_trip^d times (the loop_trip that reproduces the measured loads per warp).
struct ShapeTraffic {
  double load_sectors_per_request = 0;   // distinct 32-byte sectors per warp-level load, weighted mean
  double store_sectors_per_request = 0;  // the same for stores and atomics
  // Share of load sectors that an earlier access of the blocks resident on one SM touched (the
  // same instruction in an earlier warp or block, or an earlier instruction): L1 hits by reuse.
  double load_l1_hit_rate = 0;
  // Share of the regular loads' sectors whose 128-byte line the request touched in 1, 2, 3 or 4
  // sectors (a warp of an 8x32 block reads one sector of each of 4 lines: all in [0]); hopper H.9b.
  double load_sectors_by_line_fill[4] = {0, 0, 0, 0};
  // Per regular store request (weighted mean), the sectors that go at a lone sector's rate (the only
  // sector of their 128-byte line in the request, H.8c, or written in part in a line the request
  // writes fewer than 4 sectors of, H.8g), by the bytes the request writes in them: [0] up to 4, [1]
  // up to 8, [2] up to 16, [3] up to 32 (a naive transpose's column store at 32x8: 32 in [0]).
  double store_lone_sectors_by_fill[4] = {0, 0, 0, 0};
  double regular_load_weight = 0, irregular_load_weight = 0;
  double regular_store_weight = 0, irregular_store_weight = 0;
  // Shares of the per-block accesses (is_per_block_access) among the warp's loads (by instruction
  // and by sector, an irregular load taken at the regular loads' mean sectors), its stores' sectors
  // and its atomics (by instruction). A store outside loops counts once per block: 1 / warps per
  // block of a warp's requests.
  double per_block_load_share = 0, per_block_load_sector_share = 0;
  double per_block_store_sector_share = 0, per_block_atomic_share = 0;
};
ShapeTraffic shape_traffic(const AccessPatterns& patterns, const LaunchConfig& launch, double loop_trip = 1,
                           SmResidency residency = {});

// The per-level trip count T with sum over loads of T^depth = the measured global loads per warp
// (1 when no load sits in a loop or the measurement is smaller than the static count).
double loop_trip_factor(const AccessPatterns& patterns, double global_load_inst_per_warp);

// A gather: an access whose address the analysis cannot follow because it comes from loaded data
// (x[col[j]]). An irregular access whose address is not from loaded data is not one.
inline bool is_gather(const MemoryAccess& a) { return !a.address && a.address_from_loaded_data; }

// The share of a kernel's global-load sectors that its gathers move, from the loads' loop weights
// alone: a gather is taken as scattered (32 sectors per request, one per lane), the measured sectors
// per request of all loads as the mean, so the share is
// min(1, gather weight x 32 / (all load weight x transactions_per_request)). A CSR matrix's
// contiguous row data (loaded at j = row_ptr[r] ..) counts as scattered too, unless the row start is
// a word the warp's lanes share (row_ptr[tid.y], row_ptr[t / 32]: the analysis keeps that address,
// the start a symbol "ld(P)"). 0 without gathers. Hopper takes this as the bound of the share the
// regular loads' sectors leave (H.16a) and prices the gathers' sectors at the random-sector rates (H.16).
double gather_load_sector_share(const AccessPatterns& patterns, double global_load_inst_per_warp,
                                double transactions_per_request);

// The stores that write back what the kernel read: a store whose address (SASS) is the address of a
// load of the same kernel at the same loop depth (rf[i] = rf[i] * c[i]; a swap of two grids). The
// loop-weighted share of the stores with an address (as loop_invariant_load_share weighs loads); 0
// without stores. Hopper prices their DRAM bytes at the in-place rate (H.9d).
double inplace_store_share(const AccessPatterns& patterns, double global_load_inst_per_warp);

// A line-walking load: a load in a loop whose address moves to another 128-byte line in every
// iteration (B[k][col] of a naive matrix product, walking k). The SASS says so in two ways: the
// address's movement in one trip of its loop (stride_per_trip, where the analysis follows the
// loop-carried pointer) is a pitch (a term holding a parameter or the launch's sizes) or at least a
// line's 128 bytes; or, where ptxas unrolled the loop, another copy of the load at the same loop depth
// (the same thread, block and loop-counter terms) sits that far away. Each iteration asks for lines
// no earlier iteration touched, so no warp finds them in a cache before the first of their sharers
// has fetched them (hopper H.5d). A loop whose pointer the analysis does not follow, and that is not
// unrolled, is not recognised (the tile loads of a tiled GEMM's k loop are not, today).
// `concurrent_sharers` is, per load, the blocks of the grid that read the same lines: the grid's
// extent along every dimension the address holds neither the thread nor the block index of.
// A walking load whose lines no other warp reads is not counted: no other block reads them, every
// dimension the block spans indexes the address, a warp's lanes along x cover a line or more, and no
// other load reads them a neighbour's step away (a stencil's x + 1, y + 1). Its counted L1 hits are
// the warp's own reuse (knn's insertion sort walks the first k rows of its own column again in every
// trip of its outer loop: 84 % L1 hits, and H.5d's misses priced it at +372 %).
struct LineWalkingLoads {
  double share = 0;               // loop-weighted share of the loads (as loop_invariant_load_share)
  double concurrent_sharers = 1;  // their loop-weighted mean of the blocks sharing each line
};
LineWalkingLoads line_walking_loads(const AccessPatterns& patterns, const LaunchConfig& launch,
                                    double global_load_inst_per_warp);

// A load that reads the same address in every iteration of the loops around it: its address is
// affine in the thread, block and launch indices and the parameters only (no loop-carried or other
// unfollowed "u:" value), it sits in a loop, and it may be cached in L1 (not a .STRONG load, which
// reads the coherent L2). ptxas reloads such an operand each iteration when a store of the loop may
// alias it. After the first iteration it hits L1 (H.6b).
bool is_loop_invariant_load(const MemoryAccess& a);

// The share of a kernel's global loads (weighted by their loops as gather_load_sector_share does)
// that are loop-invariant; 0 without any.
double loop_invariant_load_share(const AccessPatterns& patterns, double global_load_inst_per_warp);

// An access whose count per block does not depend on the block's size, so that its launch-wide
// count follows the number of blocks (profile_at_launch conserves the launch-wide count of all
// others). Two address shapes say so:
//  - a plain store outside loops whose address holds no thread index: one thread of each block
//    writes it (block_sums[blockIdx.x] = s), since every thread writing one word would race;
//  - an access inside a loop whose address holds a thread index but no block index and no value
//    the analysis did not follow except loop counters: every block sweeps the same range with its
//    threads (for (b = tid; b < 256; b += blockDim.x): a shared histogram's flush, an n-body tile),
//    so a block of twice the threads takes half the trips each.
// An atomic outside loops with no thread index is not one (every thread's atomicAdd(sum, v) is
// legal). Where it stops: a loop of fixed trip count with such an address (each thread of every
// block walking the same table a fixed number of times) would be read as a block-wide sweep.
bool is_per_block_access(const MemoryAccess& a);

// A cooperative tile load: a load inside a loop whose address splits the block's linear thread index
// into a tile row and column (a floor of a thread-index expression: `e / TK`, `e % TK` of
// `for (e = tid; e < by * TK; e += threads)`) and starts at the block's origin along some grid
// dimensions (`ctaid.y * ntid.y`). The threads of a block load a tile together; it spans the block's
// own extent along those origin dimensions and a fixed one along the others (a tiled GEMM's A tile:
// blockDim.y rows x TK). So each element is loaded once per block along the grid dimensions the
// address does not start at: A is read gridDim.x times, B gridDim.y times.
// The origin dimensions of each such load ("y", "x", "xy"); empty when it is not one.
std::string cooperative_tile_origin(const MemoryAccess& a);

// The factor by which a kernel's loads inside loops change launch-wide between two launches, when
// its loop loads are cooperative tiles (1 without any): each tile family f (a set O of origin
// dimensions) moves with prod over d outside O of gridDim.d (its replication), and the families
// mix at the reference as their per-thread trip counts, prod over d in O of blockDim.d / threads
// (the tile's extent along its origin dimensions over the block's threads). The fixed extents (TK)
// are taken equal across the families, and the loop's irregular loads (the unrolled main loop that
// the address analysis does not follow) as the same tiles.
double cooperative_tile_factor(const AccessPatterns& patterns, const LaunchConfig& reference,
                               const LaunchConfig& target);

// One derived counter, for the sweep's and validate's rows.
struct DerivedCounter {
  std::string name;  // "transactions_per_request", "l1_miss_ratio", ...
  double reference = 0, derived = 0;
  std::string how;
};

// The profile of `reference` launched as `target`: work conserved as profile_at_launch does, and
// the shape-dependent memory counters (sectors per request, L1 miss ratio, L2 read and write bytes,
// L1 wavefronts) derived from the access patterns, anchored at the reference's measurement.
// Without patterns (or with only irregular ones) it is profile_at_launch. `derivation`, when given,
// receives one entry per derived counter.
KernelProfile derive_profile_at_launch(const DeviceProfile& device, const KernelProfile& reference,
                                       const AccessPatterns& patterns, const LaunchConfig& target,
                                       std::vector<DerivedCounter>* derivation = nullptr);

}  // namespace warpmodel
