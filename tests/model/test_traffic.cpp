// The shape-aware traffic model (model/traffic.hpp) on access patterns whose sector counts and
// reuse are worked out by hand in each test.
#include <gtest/gtest.h>

#include "warpmodel/json_io.hpp"
#include "warpmodel/sweep.hpp"
#include "warpmodel/thesis.hpp"
#include "warpmodel/traffic.hpp"

namespace warpmodel {
namespace {

// A float array at parameter 0x210 with a row pitch of param:0x220 elements (a large value, so
// rows never share a sector): a[(y + dy) * pitch + x + dx] with x, y the global thread indices.
AddressPolynomial element(long long bytes, long long x_stride, long long y_stride_rows, long long dx = 0,
                          long long dy = 0) {
  AddressPolynomial a = {{1, {"param:0x210"}}};
  if (x_stride) {
    a.push_back({bytes * x_stride, {"tid.x"}});
    a.push_back({bytes * x_stride, {"ctaid.x", "ntid.x"}});
  }
  if (y_stride_rows) {
    a.push_back({bytes * y_stride_rows, {"param:0x220", "tid.y"}});
    a.push_back({bytes * y_stride_rows, {"ctaid.y", "ntid.y", "param:0x220"}});
  }
  if (dx) a.push_back({bytes * dx, {}});
  if (dy) a.push_back({bytes * dy, {"param:0x220"}});
  return a;
}

MemoryAccess load(AddressPolynomial address, int bytes = 4, int depth = 0) {
  MemoryAccess m;
  m.kind = AccessKind::load;
  m.opcode = "LDG.E";
  m.bytes_per_thread = bytes;
  m.loop_depth = depth;
  m.address = std::move(address);
  return m;
}

LaunchConfig launch(long long bx, long long by, long long gx = 64, long long gy = 64) {
  LaunchConfig l;
  l.block = {bx, by, 1};
  l.grid = {gx, gy, 1};
  return l;
}

double sectors(const MemoryAccess& m, const LaunchConfig& l) {
  return shape_traffic(AccessPatterns{{m}, "test"}, l).load_sectors_per_request;
}

// H.16's share: a gather out[i] = x[idx[i]] has a coalesced index load (4 sectors) and a scattered
// one (taken as 32); measured at 18 sectors per request, the scattered one moves 32 / 36 of them.
TEST(Traffic, GatherLoadSectorShare) {
  MemoryAccess index = load(element(4, 1, 0));
  MemoryAccess gathered = load(element(4, 1, 0));
  gathered.address.reset();  // from the loaded index
  gathered.address_from_loaded_data = true;
  EXPECT_NEAR(gather_load_sector_share(AccessPatterns{{index, gathered}, "t"}, 2, 18), 32.0 / 36, 1e-12);
  EXPECT_DOUBLE_EQ(gather_load_sector_share(AccessPatterns{{index}, "t"}, 1, 4), 0) << "no gather";
  // An access the analysis cannot follow, but not from loaded data (a tiled loop, a predicated
  // pointer update), is irregular and no gather.
  MemoryAccess unfollowed = gathered;
  unfollowed.address_from_loaded_data = false;
  EXPECT_DOUBLE_EQ(gather_load_sector_share(AccessPatterns{{index, unfollowed}, "t"}, 2, 18), 0);
  // A loaded but warp-uniform offset that leaves the address affine is no gather either.
  MemoryAccess row = index;
  row.address_from_loaded_data = true;
  EXPECT_DOUBLE_EQ(gather_load_sector_share(AccessPatterns{{index, row}, "t"}, 2, 4), 0);
  // A CSR row's contiguous values behind a row pointer count as scattered: capped at all of them.
  EXPECT_DOUBLE_EQ(gather_load_sector_share(AccessPatterns{{gathered, gathered}, "t"}, 2, 13), 1);
  // Stores never count.
  MemoryAccess store = gathered;
  store.kind = AccessKind::store;
  EXPECT_DOUBLE_EQ(gather_load_sector_share(AccessPatterns{{index, store}, "t"}, 1, 4), 0);
}

// H.6b's loads: inside a loop, at an address no loop moves (mean[j] reloaded beside data[i][j]).
TEST(Traffic, LoopInvariantLoads) {
  MemoryAccess mean = load(element(4, 1, 0), 4, 1);
  EXPECT_TRUE(is_loop_invariant_load(mean));
  MemoryAccess walking = mean;  // data[i * cols + j]: i is the loop's carried value
  walking.address->push_back({4, {"param:0x224", "u:j0x280:R12"}});
  EXPECT_FALSE(is_loop_invariant_load(walking));
  MemoryAccess floored = mean;  // a loop-carried value inside a floor moves the address too
  floored.address->push_back({4, {"floor((tid.x + u:j0x280:R12)/32)"}});
  EXPECT_FALSE(is_loop_invariant_load(floored));
  EXPECT_FALSE(is_loop_invariant_load(load(element(4, 1, 0), 4, 0))) << "not in a loop: read once";
  MemoryAccess strong = mean;
  strong.opcode = "LDG.E.STRONG.GPU";  // volatile: read from L2 every time
  EXPECT_FALSE(is_loop_invariant_load(strong));
  MemoryAccess irregular = mean;
  irregular.address.reset();
  EXPECT_FALSE(is_loop_invariant_load(irregular));
  MemoryAccess store = mean;
  store.kind = AccessKind::store;
  EXPECT_FALSE(is_loop_invariant_load(store));
  // Shares, loop-weighted: both in one loop: 1/2. With a load outside the loop and a measured 9 loads
  // per warp, the loop runs 4 times (1 + 2 x 4 = 9): 4 / 9.
  EXPECT_DOUBLE_EQ(loop_invariant_load_share(AccessPatterns{{mean, walking}, "t"}, 2), 0.5);
  EXPECT_NEAR(loop_invariant_load_share(AccessPatterns{{load(element(4, 1, 0)), mean, walking}, "t"}, 9), 4.0 / 9, 1e-9);
  EXPECT_DOUBLE_EQ(loop_invariant_load_share(AccessPatterns{{walking}, "t"}, 1), 0);
}

// H.5d: a naive matrix product's loop, unrolled twice. B[k][col] and B[k+1][col] are a row pitch
// (a parameter) apart: they walk to a new line each iteration, and every block along y (the address
// holds no y index) reads the same lines. A[row][k] and A[row][k+1] are 4 bytes apart: the same
// line. The load of C before the loop is outside it.
TEST(Traffic, LineWalkingLoadsAreUnrolledCopiesAPitchApart) {
  const std::string k = "u:j0x2b0:R14";
  const AddressPolynomial b0 = {{1, {"param:0x218"}}, {4, {"tid.x"}}, {4, {"ctaid.x", "ntid.x"}}, {1, {k}}};
  AddressPolynomial b1 = b0;
  b1.push_back({4, {"param:0x22c"}});
  const AddressPolynomial a0 = {{1, {"param:0x210"}}, {4, {"param:0x230", "tid.y"}}, {1, {"u:j0x2b0:UR8"}}};
  AddressPolynomial a1 = a0;
  a1.push_back({4, {}});
  const LaunchConfig l = launch(16, 16, 16, 16);
  const AccessPatterns loop{{load(b0, 4, 1), load(a0, 4, 1), load(b1, 4, 1), load(a1, 4, 1)}, "t"};
  const LineWalkingLoads walking = line_walking_loads(loop, l, 4);
  EXPECT_DOUBLE_EQ(walking.share, 0.5);
  EXPECT_DOUBLE_EQ(walking.concurrent_sharers, 16) << "the 16 blocks along y share B's lines";
  // Outside the loop the copies do not count; a copy 64 bytes away stays in the line.
  AddressPolynomial a_far = a0;
  a_far.push_back({128, {}});
  EXPECT_DOUBLE_EQ(line_walking_loads(AccessPatterns{{load(b0), load(b1)}, "t"}, l, 2).share, 0);
  a1.back().coefficient = 64;
  EXPECT_DOUBLE_EQ(line_walking_loads(AccessPatterns{{load(a0, 4, 1), load(a1, 4, 1)}, "t"}, l, 2).share, 0);
  EXPECT_DOUBLE_EQ(line_walking_loads(AccessPatterns{{load(a0, 4, 1), load(a_far, 4, 1)}, "t"}, l, 2).share, 1);
  // A load with no copy (a rolled loop) is recognised by its movement per trip, where the analysis
  // followed the loop: a pitch or 128 bytes walk, 64 bytes stay in the line every other trip.
  MemoryAccess rolled = load(b0, 4, 1);
  EXPECT_DOUBLE_EQ(line_walking_loads(AccessPatterns{{rolled}, "t"}, l, 1).share, 0) << "movement unknown";
  rolled.stride_per_trip = AddressPolynomial{{4, {"param:0x22c"}}};
  EXPECT_DOUBLE_EQ(line_walking_loads(AccessPatterns{{rolled}, "t"}, l, 1).share, 1);
  rolled.stride_per_trip = AddressPolynomial{{128, {}}};
  EXPECT_DOUBLE_EQ(line_walking_loads(AccessPatterns{{rolled}, "t"}, l, 1).share, 1);
  rolled.stride_per_trip = AddressPolynomial{{64, {}}};
  EXPECT_DOUBLE_EQ(line_walking_loads(AccessPatterns{{rolled}, "t"}, l, 1).share, 0);
}

// H.5d needs sharers: a thread that walks down its own column (knn's insertion sort, dist[row *
// pitch + x] with row the loop counter; 16 blocks of 256 threads along x) reads lines no other warp
// reads, so the hits the counters show there are its own reuse and the load does not count as
// walking. The lines are shared, and the load walks, when a warp's lanes cover less than a line
// (blocks 8 wide), when another block reads them (a grid dimension the address does not index), or
// when another load reads them a neighbour's step away (a stencil's x + 1 or y + 1).
TEST(Traffic, LineWalkingLoadsNeedLinesSharedWithOtherWarps) {
  const std::string row = "u:j0x2d0:R15";
  AddressPolynomial column = element(4, 1, 0);
  column.push_back({4, {"param:0x228", row}});
  AddressPolynomial next_row = column;
  next_row.push_back({4, {"param:0x228"}});
  const AccessPatterns walk{{load(column, 4, 2), load(next_row, 4, 2)}, "t"};
  EXPECT_DOUBLE_EQ(line_walking_loads(walk, launch(256, 1, 16, 1), 2).share, 0) << "each warp's own lines";
  EXPECT_DOUBLE_EQ(line_walking_loads(walk, launch(8, 32, 16, 1), 2).share, 1) << "8 lanes cover 32 bytes";
  EXPECT_DOUBLE_EQ(line_walking_loads(walk, launch(256, 1, 16, 4), 2).share, 1) << "4 blocks along y share them";
  AddressPolynomial right = column;  // in[x + 1]: the neighbouring thread's element
  right.push_back({4, {}});
  const AccessPatterns stencil_x{{load(column, 4, 2), load(next_row, 4, 2), load(right, 4, 2)}, "t"};
  EXPECT_DOUBLE_EQ(line_walking_loads(stencil_x, launch(256, 1, 16, 1), 3).share, 1);
  AddressPolynomial plane = element(4, 1, 1);  // in[(y + 1) * pitch + x]: the warp above's line
  plane.push_back({4, {"param:0x228", row}});
  AddressPolynomial plane_up = plane, plane_next = plane;
  plane_up.push_back({4, {"param:0x220"}});
  plane_next.push_back({4, {"param:0x228"}});
  const LaunchConfig rows = launch(32, 8, 16, 16);
  EXPECT_DOUBLE_EQ(line_walking_loads(AccessPatterns{{load(plane, 4, 2), load(plane_next, 4, 2)}, "t"}, rows, 2).share, 0);
  EXPECT_DOUBLE_EQ(
      line_walking_loads(AccessPatterns{{load(plane, 4, 2), load(plane_next, 4, 2), load(plane_up, 4, 2)}, "t"}, rows, 3)
          .share,
      1);
}

TEST(Traffic, CoalescedRowWalkIsFourSectorsForFloatsAtEveryWarpShape) {
  // 32 consecutive floats: 128 bytes, 4 sectors. 8x32: 4 rows of 8 floats (32 bytes each).
  // 16x16: 2 rows of 16 floats (2 sectors each).
  const MemoryAccess m = load(element(4, 1, 1));
  EXPECT_DOUBLE_EQ(sectors(m, launch(32, 8)), 4);
  EXPECT_DOUBLE_EQ(sectors(m, launch(8, 32)), 4);
  EXPECT_DOUBLE_EQ(sectors(m, launch(16, 16)), 4);
  EXPECT_DOUBLE_EQ(sectors(m, launch(256, 1)), 4);
  // Doubles: 32 x 8 bytes = 8 sectors; 8x32: 4 rows of 64 bytes.
  const MemoryAccess d = load(element(8, 1, 1), 8);
  EXPECT_DOUBLE_EQ(sectors(d, launch(32, 8)), 8);
  EXPECT_DOUBLE_EQ(sectors(d, launch(8, 32)), 8);
  // 4x8 floats: 8 rows of 16 bytes, each in its own sector.
  EXPECT_DOUBLE_EQ(sectors(m, launch(4, 8)), 8);
}

TEST(Traffic, ColumnWalkIsOneSectorPerDistinctThreadX) {
  // a[x * pitch + k]: every lane of a 32-wide warp in its own row (32 sectors); an 8x32 warp has 8
  // distinct x (the 4 y share them): 8 sectors, the 2.1x the issue measured for the rank-k update.
  AddressPolynomial column = {{1, {"param:0x210"}}, {4, {"param:0x220", "tid.x"}}, {4, {"ctaid.x", "ntid.x", "param:0x220"}}};
  const MemoryAccess m = load(column);
  EXPECT_DOUBLE_EQ(sectors(m, launch(32, 8)), 32);
  EXPECT_DOUBLE_EQ(sectors(m, launch(8, 32)), 8);
  EXPECT_DOUBLE_EQ(sectors(m, launch(256, 1)), 32);
}

TEST(Traffic, BroadcastIsOneSectorPerDistinctRow) {
  // a[y * pitch + k]: the same element for every x: 1 sector at 32x8, 4 at 8x32 (4 rows a warp).
  const MemoryAccess m = load(element(4, 0, 1));
  EXPECT_DOUBLE_EQ(sectors(m, launch(32, 8)), 1);
  EXPECT_DOUBLE_EQ(sectors(m, launch(8, 32)), 4);
  EXPECT_DOUBLE_EQ(sectors(m, launch(1024, 1)), 1);
}

TEST(Traffic, StridedWalkCountsTheSpan) {
  // Every second float: 32 lanes span 256 bytes, 8 sectors; every 8th float: one sector a lane.
  EXPECT_DOUBLE_EQ(sectors(load(element(4, 2, 1)), launch(32, 1, 64, 1)), 8);
  EXPECT_DOUBLE_EQ(sectors(load(element(4, 8, 1)), launch(32, 1, 64, 1)), 32);
  // A misaligned walk (a[x - 1]) straddles one more sector.
  EXPECT_DOUBLE_EQ(sectors(load(element(4, 1, 1, -1)), launch(32, 8)), 5);
}

AccessPatterns five_point_stencil() {
  // Centre, left, right, up, down, in that program order.
  return {{load(element(4, 1, 1)), load(element(4, 1, 1, -1)), load(element(4, 1, 1, 1)), load(element(4, 1, 1, 0, -1)),
           load(element(4, 1, 1, 0, 1))},
          "five-point stencil"};
}

// H.9b's input: how many sectors of its line each sector's request asked for. A row walk of floats
// at 32x8 takes whole lines (4 sectors), at 16x16 half lines, at 8x32 one sector of each of 4 lines.
TEST(Traffic, SectorsByTheirLinesFill) {
  const MemoryAccess m = load(element(4, 1, 1));
  const auto fill = [&](long long bx, long long by) {
    const ShapeTraffic t = shape_traffic(AccessPatterns{{m}, "t"}, launch(bx, by));
    return std::vector<double>(std::begin(t.load_sectors_by_line_fill), std::end(t.load_sectors_by_line_fill));
  };
  EXPECT_EQ(fill(32, 8), (std::vector<double>{0, 0, 0, 1}));
  EXPECT_EQ(fill(16, 16), (std::vector<double>{0, 1, 0, 0}));
  EXPECT_EQ(fill(8, 32), (std::vector<double>{1, 0, 0, 0}));
  // The five-point stencil at 32x8: centre, up, down whole lines (3 x 4 sectors a warp); left and
  // right 5 sectors in 2 lines: one line whole (4), the neighbour's 1 sector: per warp 12 + 2 x (4 + 1)
  // = 22 sectors, 2 of them alone in their line.
  const ShapeTraffic tile = shape_traffic(five_point_stencil(), launch(32, 8));
  EXPECT_NEAR(tile.load_sectors_by_line_fill[0], 2.0 / 22, 1e-12);
  EXPECT_NEAR(tile.load_sectors_by_line_fill[3], 20.0 / 22, 1e-12);
  // Stores are not loads' segments (their DRAM rate is not priced: hopper H.9b).
  MemoryAccess store = m;
  store.kind = AccessKind::store;
  const ShapeTraffic stored = shape_traffic(AccessPatterns{{store}, "t"}, launch(8, 32));
  for (double share : stored.load_sectors_by_line_fill) EXPECT_DOUBLE_EQ(share, 0);
}

TEST(Traffic, TwoDimensionalTileWithHaloReusesRowsInsideTheBlock) {
  // One block (block 0: x 0..31, y 0..7 at 32x8), warps = rows.
  //   centre: 8 warps x 4 sectors, no hit (32 sectors)
  //   left:   5 sectors a warp (bytes -4..123), its 4 own-row sectors hit: 32 hits of 40
  //   right:  5 sectors a warp (bytes 4..131): 32 hits of 40
  //   up:     rows -1..6: rows 0..6 hit: 28 of 32;  down: rows 1..8: 28 of 32
  // hit rate 120 / 176; sectors per request (4 + 5 + 5 + 4 + 4) / 5 = 4.4.
  const ShapeTraffic tile = shape_traffic(five_point_stencil(), launch(32, 8));
  EXPECT_NEAR(tile.load_l1_hit_rate, 120.0 / 176.0, 1e-12);
  EXPECT_NEAR(tile.load_sectors_per_request, 4.4, 1e-12);
  // 256x1: one row of 8 warps. centre 32 sectors, no hit; left: warp 0 hits 4 of 5, the others all
  // 5 (the previous warp's last sector): 39 of 40; right: 39 of 40 (warp 7's sector 32 is new);
  // up and down: other rows, no hit. 78 / 176.
  const ShapeTraffic row = shape_traffic(five_point_stencil(), launch(256, 1));
  EXPECT_NEAR(row.load_l1_hit_rate, 78.0 / 176.0, 1e-12);
}

TEST(Traffic, BlocksResidentOnOneSmShareTheirSectors) {
  // The broadcast load at 256x1 on a 2x64 grid: the blocks SM 0 holds (0, 2, 4 with 2 SMs) all
  // have ctaid.x = 0 and rows 0, 1, 2 (ctaid.y): distinct rows, no reuse among blocks; the column
  // walk's blocks (x 0..255 for every block) share every sector.
  const MemoryAccess column = load({{1, {"param:0x210"}}, {4, {"tid.x"}}});
  const AccessPatterns p{{column}, "x only"};
  const LaunchConfig l = launch(256, 1, 2, 64);
  EXPECT_DOUBLE_EQ(shape_traffic(p, l, 1, {2, 1}).load_l1_hit_rate, 0);
  // Three blocks: the second and third hit all 32 sectors the first touched: 64 of 96.
  EXPECT_NEAR(shape_traffic(p, l, 1, {2, 3}).load_l1_hit_rate, 64.0 / 96.0, 1e-12);
}

TEST(Traffic, LoopTripFactorReproducesTheMeasuredLoads) {
  AccessPatterns p{{load(element(4, 1, 1)), load(element(4, 1, 1), 4, 1), load(element(4, 0, 1), 4, 1)}, "loop"};
  // 1 + 2 T = 21 -> T = 10.
  EXPECT_NEAR(loop_trip_factor(p, 21), 10, 1e-9);
  EXPECT_DOUBLE_EQ(loop_trip_factor(p, 2), 1);  // fewer than the static count: no loop weighting
}

KernelProfile measured_profile(const LaunchConfig& l) {
  KernelProfile k;
  k.name = "column walk";
  k.launch = l;
  k.inst_per_warp = 100;
  k.mem_inst_per_warp = 2;
  k.global_load_inst_per_warp = 2;
  k.transactions_per_request = 30;  // measured at the reference
  k.l1_miss_ratio = 0.6;
  k.l2_miss_ratio = 0.5;
  k.l2_bytes_per_warp = 1000;
  k.l2_write_bytes_per_warp = 100;
  k.ilp = 2;
  return k;
}

TEST(Traffic, DerivedCountersAreAnchoredAtTheMeasurement) {
  const DeviceProfile d = thesis_k40_device();
  AddressPolynomial column = {{1, {"param:0x210"}}, {4, {"param:0x220", "tid.x"}}, {4, {"ctaid.x", "ntid.x", "param:0x220"}}};
  MemoryAccess irregular;
  irregular.kind = AccessKind::load;
  irregular.opcode = "LDG.E";
  const AccessPatterns p{{load(column), irregular}, "column walk and a gather"};
  const KernelProfile k = measured_profile(launch(32, 8, 64, 64));
  // At its own shape the reference gets its measurement back.
  const KernelProfile same = derive_profile_at_launch(d, k, p, k.launch);
  EXPECT_NEAR(same.transactions_per_request, 30, 1e-9);
  EXPECT_NEAR(same.l1_miss_ratio, 0.6, 1e-9);
  EXPECT_NEAR(*same.l2_bytes_per_warp, 1000, 1e-6);
  // At 8x32 the column walk drops from 32 to 8 sectors; the gather keeps what the measurement leaves
  // for it: 30 x 2 = 32 + x -> x = 28; at 8x32 (8 + 28) / 2 = 18.
  std::vector<DerivedCounter> how;
  const KernelProfile narrow = derive_profile_at_launch(d, k, p, launch(8, 32, 256, 16), &how);
  EXPECT_NEAR(narrow.transactions_per_request, 18, 1e-9);
  EXPECT_FALSE(how.empty());
  EXPECT_EQ(narrow.sources.count("memory.transactions_per_request"), 1u);
  // A measurement under the addresses' count does not scale below one sector a request.
  KernelProfile one = k;
  one.transactions_per_request = 1;
  const AccessPatterns column_only{{load(column)}, "column walk"};
  EXPECT_DOUBLE_EQ(derive_profile_at_launch(d, one, column_only, launch(8, 32, 256, 16)).transactions_per_request, 1);
  // Without patterns it is profile_at_launch.
  const KernelProfile kept = derive_profile_at_launch(d, k, AccessPatterns{}, launch(8, 32, 256, 16));
  EXPECT_DOUBLE_EQ(kept.transactions_per_request, 30);
}

MemoryAccess access(AccessKind kind, AddressPolynomial address, int depth = 0) {
  MemoryAccess m = load(std::move(address), 4, depth);
  m.kind = kind;
  m.opcode = kind == AccessKind::store ? "STG.E" : kind == AccessKind::atomic ? "REDG.E.ADD.STRONG.GPU" : "LDG.E";
  return m;
}

TEST(Traffic, PerBlockAccessesAreKnownByTheirAddress) {
  using K = AccessKind;
  const AddressPolynomial block_sum = {{1, {"param:0x218"}}, {4, {"ctaid.x"}}};
  EXPECT_TRUE(is_per_block_access(access(K::store, block_sum))) << "block_sums[blockIdx.x] = s";
  EXPECT_TRUE(is_per_block_access(access(K::store, {{1, {"param:0x218"}}}))) << "*sum = s by one thread";
  EXPECT_FALSE(is_per_block_access(access(K::store, element(4, 1, 0)))) << "out[i]: every thread";
  EXPECT_FALSE(is_per_block_access(access(K::atomic, {{1, {"param:0x218"}}}))) << "atomicAdd(sum, v) by all";
  EXPECT_FALSE(is_per_block_access(access(K::store, {{1, {"param:0x218"}}, {4, {"u:0x2070:R25"}}})))
      << "an index reloaded from local memory may be the thread's";
  const AddressPolynomial flush = {{1, {"param:0x218"}}, {4, {"tid.x"}}, {4, {"u:j0x2f0:R7"}}};
  EXPECT_TRUE(is_per_block_access(access(K::atomic, flush, 1))) << "for (b = tid; b < 256; b += blockDim.x)";
  EXPECT_FALSE(is_per_block_access(access(K::atomic, flush, 0))) << "outside loops: one per thread";
  AddressPolynomial grid_stride = flush;
  grid_stride.push_back({4, {"ctaid.x", "ntid.x"}});
  EXPECT_FALSE(is_per_block_access(access(K::load, grid_stride, 1))) << "each block its own range";
  const AddressPolynomial warp_row = {{1, {"param:0x210"}}, {4, {"floor((ntid.x*tid.y + tid.x)/32)", "param:0x220"}},
                                      {4, {"u:j0x640:UR4"}}};
  EXPECT_TRUE(is_per_block_access(access(K::load, warp_row, 1))) << "a thread index inside a floor";
  EXPECT_FALSE(is_per_block_access(access(K::load, {{1, {"param:0x210"}}, {4, {"ntid.x", "u:j0x640:UR4"}}}, 1)))
      << "no thread index: every thread reads the same word";
  EXPECT_FALSE(is_per_block_access(access(K::load, {{1, {"param:0x210"}}, {4, {"tid.x"}}, {4, {"u:0x640:R4"}}}, 1)))
      << "an unfollowed value other than a loop counter may hold the block index";
  MemoryAccess irregular = access(K::load, {}, 1);
  irregular.address.reset();
  EXPECT_FALSE(is_per_block_access(irregular));
}

// A block-sum reduction: a coalesced load in[i] (4 sectors a warp) and block_sums[blockIdx.x]
// written by one thread of each block (1 sector, 1 / warps per block of a warp's requests).
TEST(Traffic, PerBlockStoresFollowTheNumberOfBlocks) {
  const MemoryAccess in = load(element(4, 1, 0));
  const MemoryAccess block_sum = access(AccessKind::store, {{1, {"param:0x218"}}, {4, {"ctaid.x"}}});
  const MemoryAccess out = access(AccessKind::store, element(4, 1, 0));
  // Beside a per-thread store out[i] (4 sectors a warp), the 2-warp block's sum is 0.5 of 4.5.
  EXPECT_NEAR(shape_traffic(AccessPatterns{{in, out, block_sum}, "t"}, launch(64, 1, 65536, 1))
                  .per_block_store_sector_share,
              0.5 / 4.5, 1e-12);
  const AccessPatterns p{{in, block_sum}, "block sums"};
  EXPECT_DOUBLE_EQ(shape_traffic(p, launch(64, 1, 65536, 1)).per_block_store_sector_share, 1);
  EXPECT_DOUBLE_EQ(shape_traffic(p, launch(64, 1, 65536, 1)).per_block_load_share, 0);

  KernelProfile k = measured_profile(launch(64, 1, 65536, 1));
  k.mem_inst_per_warp = 1.5;
  k.global_load_inst_per_warp = 1;
  k.transactions_per_request = 4;
  k.l1_miss_ratio = 1;
  k.l2_write_bytes_per_warp = 16;  // 32 bytes a 2-warp block
  k.l2_bytes_per_warp = 128 + 16;
  // 1024-thread blocks, the same 4 M elements: 16 x fewer blocks, so 16 x fewer block sums, while
  // profile_at_launch would keep 16 bytes a warp. The loads are per thread: 128 bytes a warp stay.
  std::vector<DerivedCounter> how;
  const KernelProfile wide = derive_profile_at_launch(thesis_k40_device(), k, p, launch(1024, 1, 4096, 1), &how);
  EXPECT_NEAR(*wide.l2_write_bytes_per_warp, 1, 1e-9);
  EXPECT_NEAR(*wide.l2_bytes_per_warp, 129, 1e-9);
  EXPECT_NEAR(*wide.global_load_inst_per_warp, 1, 1e-12);
  // At its own shape the reference gets its measurement back.
  EXPECT_NEAR(*derive_profile_at_launch(thesis_k40_device(), k, p, k.launch).l2_bytes_per_warp, 144, 1e-9);
}

// A shared-memory histogram's flush: each block adds its 256 bins with a block-stride loop, so a
// warp of a 1024-thread block issues only 1/16 of what one of a 64-thread block does.
TEST(Traffic, PerBlockLoopsFollowTheNumberOfBlocks) {
  const MemoryAccess keys = load(element(4, 1, 0));
  const MemoryAccess flush =
      access(AccessKind::atomic, {{1, {"param:0x218"}}, {4, {"tid.x"}}, {4, {"u:j0x2f0:R7"}}}, 1);
  const AccessPatterns p{{keys, flush}, "shared histogram"};
  KernelProfile k = measured_profile(launch(64, 1, 65536, 1));
  k.global_load_inst_per_warp = 1;
  k.transactions_per_request = 4;
  k.l1_miss_ratio = 1;
  k.l2_write_bytes_per_warp = 0;
  k.atomic_lane_ops_per_warp = 16;      // 4 requests of 4 sectors: 256 bins / 2 warps
  k.l2_bytes_per_warp = 128 + 16 * 32;  // the keys' 4 sectors, the atomics' 16
  const KernelProfile wide = derive_profile_at_launch(thesis_k40_device(), k, p, launch(1024, 1, 4096, 1));
  EXPECT_NEAR(*wide.atomic_lane_ops_per_warp, 1, 1e-12);
  EXPECT_NEAR(*wide.l2_bytes_per_warp, 128 + 32, 1e-9);
  // A grid-stride version of the same loop (each block its own bins) keeps its count a warp.
  MemoryAccess strided = flush;
  strided.address->push_back({4, {"ctaid.x", "ntid.x"}});
  const KernelProfile kept =
      derive_profile_at_launch(thesis_k40_device(), k, AccessPatterns{{keys, strided}, "g"}, launch(1024, 1, 4096, 1));
  EXPECT_NEAR(*kept.atomic_lane_ops_per_warp, 16, 1e-12);
}

// An n-body kernel: me = bodies[i] (its block's own bodies), then a loop over tiles that every
// block reads the same way (tile[tid] = bodies[base + tid]). At its first trip the tile is block 0's
// own bodies again; that is not reuse. Its reuse is the other resident blocks' same tile.
TEST(Traffic, PerBlockSweepsReuseOnlyWhatOtherBlocksRead) {
  const MemoryAccess me = load(element(16, 1, 0), 16);
  const MemoryAccess tile = load({{1, {"param:0x210"}}, {16, {"tid.x"}}, {16, {"u:j0x180:R7"}}}, 16, 1);
  const AccessPatterns p{{me, tile}, "n-body"};
  // One block on the SM: no hits at all (weights 1 and 1: the tile's 8 sectors a warp are half).
  EXPECT_DOUBLE_EQ(shape_traffic(p, launch(64, 1, 128, 1), 1, {132, 1}).load_l1_hit_rate, 0);
  // Four blocks: the me loads are the blocks' own (no hits); the tile's last three blocks hit all the
  // first one read: 3/4 of the tile's sectors, 3/8 of all.
  EXPECT_NEAR(shape_traffic(p, launch(64, 1, 528, 1), 1, {132, 4}).load_l1_hit_rate, 3.0 / 8.0, 1e-12);
}

// A shared-memory tiled GEMM's tile loads (the addresses ptxas gives for TK = 32): A's tile
// by x TK starts at the block's row, B's TK x bx at its column; e = the linear thread index.
TEST(Traffic, CooperativeTilesFollowTheirReplication) {
  const std::string e = "floor((ntid.x*tid.y + tid.x)/32)", eb = "floor((ntid.x*tid.y + tid.x)/(ntid.x))";
  const MemoryAccess a_tile = load({{4, {"ctaid.y", "ntid.y", "param:0x230"}}, {-128, {e}}, {4, {e, "param:0x230"}},
                                    {4, {"ntid.x", "tid.y"}}, {1, {"param:0x210"}}, {4, {"tid.x"}}, {4, {"u:j0x640:UR4"}}},
                                   4, 1);
  const MemoryAccess b_tile = load({{4, {"ctaid.x", "ntid.x"}}, {-4, {eb, "ntid.x"}}, {4, {eb, "param:0x22c"}},
                                    {4, {"ntid.x", "tid.y"}}, {1, {"param:0x218"}}, {4, {"tid.x"}}, {4, {"u:j0xec0:UR4"}}},
                                   4, 1);
  EXPECT_EQ(cooperative_tile_origin(a_tile), "y");
  EXPECT_EQ(cooperative_tile_origin(b_tile), "x");
  EXPECT_EQ(cooperative_tile_origin(load(element(4, 1, 1), 4, 1)), "") << "a per-thread row walk";
  MemoryAccess outside = a_tile;
  outside.loop_depth = 0;
  EXPECT_EQ(cooperative_tile_origin(outside), "") << "not in a loop";

  const AccessPatterns p{{a_tile, b_tile}, "tiled gemm"};
  // 1024^3 at 32x8: grid 32 x 128. Per thread and k-step A takes TK / bx = 1 load, B TK / by = 4:
  // the mix is 1 : 4. At 16x16 (grid 64 x 64) A is read twice as often (gridDim.x 64 / 32), B half:
  // (1 x 2 + 4 x 0.5) / 5 = 0.8 (the H200 measured 0.78 to 0.88 of the 32x8 L2 bytes over 512^3 to
  // 2048^3).
  const LaunchConfig reference = launch(32, 8, 32, 128);
  EXPECT_NEAR(cooperative_tile_factor(p, reference, launch(16, 16, 64, 64)), 0.8, 1e-12);
  // 32x32 (grid 32 x 32): (1 x 1 + 4 x 0.25) / 5 = 0.4 (measured 0.37 to 0.43); 8x32 (grid 128 x 32):
  // 1 (0.91 to 1.02).
  EXPECT_NEAR(cooperative_tile_factor(p, reference, launch(32, 32, 32, 32)), 0.4, 1e-12);
  EXPECT_NEAR(cooperative_tile_factor(p, reference, launch(8, 32, 128, 32)), 1.0, 1e-12);
  EXPECT_DOUBLE_EQ(cooperative_tile_factor(AccessPatterns{{load(element(4, 1, 1), 4, 1)}, "x"}, reference,
                                           launch(16, 16, 64, 64)),
                   1);

  // The derived L2 reads and loads per warp of the 32x32 launch (as many warps as the reference):
  // 0.4 x the reference's.
  KernelProfile k = measured_profile(reference);
  k.global_load_inst_per_warp = 10;
  k.mem_inst_per_warp = 11;
  k.l2_write_bytes_per_warp = 0;
  k.l2_bytes_per_warp = 1000;
  const KernelProfile wide = derive_profile_at_launch(thesis_k40_device(), k, p, launch(32, 32, 32, 32));
  EXPECT_NEAR(*wide.global_load_inst_per_warp, 10 * 0.4, 1e-9);
  EXPECT_NEAR(*wide.l2_bytes_per_warp, 1000 * 0.4, 1e-6);
}

TEST(Traffic, SweepListsWhereEachShapesCountersCameFrom) {
  const DeviceProfile d = thesis_k40_device();
  KernelProfile k = measured_profile(launch(32, 8, 64, 64));
  k.launch.domain = Dim3{2048, 512, 1};
  AddressPolynomial column = {{1, {"param:0x210"}}, {4, {"param:0x220", "tid.x"}}, {4, {"ctaid.x", "ntid.x", "param:0x220"}}};
  k.access_patterns = AccessPatterns{{load(column)}, "column walk"};
  const std::vector<Dim3> shapes = {{32, 8, 1}, {8, 32, 1}};
  const SweepResult r = sweep_launch_shapes(d, k, ModelVariant::Thesis2016, shapes);
  ASSERT_EQ(r.ranked.size(), 2u);
  for (const SweepEntry& e : r.ranked) {
    if (e.block == Dim3{32, 8, 1}) {
      EXPECT_EQ(e.counters, "measured");
      EXPECT_DOUBLE_EQ(e.profile.transactions_per_request, 30);
    } else {
      EXPECT_EQ(e.counters, "derived");
      EXPECT_NEAR(e.profile.transactions_per_request, 30.0 * 8 / 32, 1e-9);
    }
  }
}

TEST(Traffic, AccessPatternsRoundTripThroughKernelJson) {
  KernelProfile k = measured_profile(launch(32, 8));
  MemoryAccess irregular;
  irregular.opcode = "STG.E";
  irregular.kind = AccessKind::store;
  irregular.loop_depth = 2;
  irregular.address_from_loaded_data = true;
  k.access_patterns = AccessPatterns{{load(element(4, 1, 1, -1)), irregular}, "round trip"};
  const KernelProfile back = kernel_from_json(to_json(k), "round trip");
  ASSERT_TRUE(back.access_patterns);
  ASSERT_EQ(back.access_patterns->accesses.size(), 2u);
  EXPECT_EQ(back.access_patterns->accesses[0].address, k.access_patterns->accesses[0].address);
  EXPECT_FALSE(back.access_patterns->accesses[1].address);
  EXPECT_EQ(back.access_patterns->accesses[1].kind, AccessKind::store);
  EXPECT_EQ(back.access_patterns->accesses[1].loop_depth, 2);
  EXPECT_TRUE(back.access_patterns->accesses[1].address_from_loaded_data);
  EXPECT_FALSE(back.access_patterns->accesses[0].address_from_loaded_data);
  // A wrong kind is refused with the field named.
  nlohmann::json j = to_json(k);
  j["access_patterns"]["accesses"][0]["kind"] = "prefetch";
  try {
    (void)kernel_from_json(j, "bad.json");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("access_patterns.accesses[0].kind"), std::string::npos) << e.what();
  }
  j = to_json(k);
  j["access_patterns"]["accesses"][1]["address_from_loaded_data"] = "yes";
  try {
    (void)kernel_from_json(j, "bad.json");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("address_from_loaded_data"), std::string::npos) << e.what();
  }
}

TEST(Traffic, FirstThreadLoopRoundTripsAndBadOnesAreRefused) {
  KernelProfile k = measured_profile(launch(32, 8));
  k.access_patterns = AccessPatterns{{load(element(4, 1, 1, -1))}, "round trip", FirstThreadLoop{0x340, 0x1140, {"ctaid.x", "tid.x"}, 98, 3}};
  const KernelProfile back = kernel_from_json(to_json(k), "round trip");
  ASSERT_TRUE(back.access_patterns && back.access_patterns->first_thread_loop);
  EXPECT_EQ(*back.access_patterns->first_thread_loop, *k.access_patterns->first_thread_loop);
  const auto refused = [&](const char* field, const nlohmann::json& value) {
    nlohmann::json j = to_json(k);
    j["access_patterns"]["first_thread_loop"][field] = value;
    try {
      (void)kernel_from_json(j, "bad.json");
      ADD_FAILURE() << field << " accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("first_thread_loop.") + field), std::string::npos) << e.what();
    }
  };
  refused("end", 0x300);  // before begin
  refused("indices", nlohmann::json::array({"warp.x"}));
  refused("global_loads_outside", 99);  // more than its instructions
  // H.1e's bound round-trips too, and a bound of no thread is refused.
  k.access_patterns->threads_under_constant_bound = 769;
  EXPECT_EQ(kernel_from_json(to_json(k), "round trip").access_patterns->threads_under_constant_bound, 769);
  nlohmann::json j = to_json(k);
  j["access_patterns"]["threads_under_constant_bound"] = 0;
  EXPECT_THROW((void)kernel_from_json(j, "bad.json"), InputError);
}

TEST(Traffic, FloorSymbolsEvaluatePerLane) {
  // a[lane] with lane = tid.x % 32 = tid.x - 32 floor(tid.x / 32), as the address analysis writes a
  // mask: every warp of a 64x1 block reads the same 32 floats (4 sectors); the second warp hits all 4.
  const AddressPolynomial lane = {{1, {"param:0x210"}}, {4, {"tid.x"}}, {-128, {"floor((tid.x)/32)"}}};
  const ShapeTraffic t = shape_traffic(AccessPatterns{{load(lane)}, "lane"}, launch(64, 1, 1, 1));
  EXPECT_DOUBLE_EQ(t.load_sectors_per_request, 4);
  EXPECT_DOUBLE_EQ(t.load_l1_hit_rate, 0.5);
  // Nested and negative terms: floor((4*tid.x + 3)/8) at tid.x = 5 is 2; the public evaluator agrees.
  const AddressPolynomial nested = {{1, {"floor((4*tid.x + 3)/8)"}}, {-1, {"floor((floor((tid.x)/2) - 1)/2)"}}};
  // tid.x = 5: floor(23/8) = 2; floor((2 - 1)/2) = 0 -> 2. tid.x = 0: floor(3/8) = 0; floor(-1/2) = -1 -> 1.
  LaunchConfig l = launch(32, 1, 1, 1);
  EXPECT_EQ(static_cast<long long>(evaluate_address(nested, {5, 0, 0}, l)), 2);
  EXPECT_EQ(static_cast<long long>(evaluate_address(nested, {0, 0, 0}, l)), 1);
  // A divisor that holds a floor of its own: tid.x / (ntid.x / 8) = tid.x / 4 in a 32-thread block.
  const AddressPolynomial floor_divisor = {{1, {"floor((tid.x)/(floor((ntid.x)/8)))"}}};
  for (long long x : {0, 5, 13, 31})
    EXPECT_EQ(static_cast<long long>(evaluate_address(floor_divisor, {x, 0, 0}, l)), x / 4) << "tid.x = " << x;
}

TEST(Traffic, FormatsAddressesForPeople) {
  EXPECT_EQ(format_address(std::nullopt), "irregular");
  EXPECT_EQ(format_address(AddressPolynomial{{4, {"tid.x"}}, {-4, {}}, {1, {"param:0x210"}}}), "4*tid.x - 4 + param:0x210");
}

// H.8c: a naive transpose's store out[x][y] (x down the pitch, y along the row) writes 4 bytes into
// each of 32 lines at 32x8, 8 bytes into each of 16 at 16x16, 16 into each of 8 at 8x32; a row
// store writes whole lines (no sector alone in its line).
TEST(Traffic, StoreSectorsAloneInTheirLineAreCountedByTheBytesWritten) {
  MemoryAccess column = load({{1, {"param:0x210"}}, {4, {"param:0x220", "tid.x"}}, {4, {"tid.y"}}});
  column.kind = AccessKind::store;
  column.opcode = "STG.E";
  const auto lone = [&](const MemoryAccess& m, const LaunchConfig& l) {
    const ShapeTraffic t = shape_traffic(AccessPatterns{{m}, "test"}, l);
    return std::vector<double>(std::begin(t.store_lone_sectors_by_fill), std::end(t.store_lone_sectors_by_fill));
  };
  EXPECT_EQ(lone(column, launch(32, 8)), (std::vector<double>{32, 0, 0, 0}));
  EXPECT_EQ(lone(column, launch(16, 16)), (std::vector<double>{0, 16, 0, 0}));
  EXPECT_EQ(lone(column, launch(8, 32)), (std::vector<double>{0, 0, 8, 0}));
  EXPECT_EQ(lone(column, launch(4, 64)), (std::vector<double>{0, 0, 0, 4})) << "8 lanes fill a sector";
  MemoryAccess row = column;
  row.address = element(4, 1, 1);
  EXPECT_EQ(lone(row, launch(32, 8)), (std::vector<double>{0, 0, 0, 0}));
  EXPECT_EQ(lone(row, launch(8, 32)), (std::vector<double>{0, 0, 0, 4}))
      << "4 rows of one whole sector each: the 32-byte microbenchmark's request";
  // A 16-byte store per lane down a column: half a sector alone in each of 32 lines. A load at a
  // column's addresses is not counted.
  MemoryAccess wide = column;
  wide.bytes_per_thread = 16;
  wide.opcode = "STG.E.128";
  wide.address = AddressPolynomial{{1, {"param:0x210"}}, {16, {"param:0x220", "tid.x"}}};
  EXPECT_EQ(lone(wide, launch(32, 8)), (std::vector<double>{0, 0, 32, 0}));
  column.kind = AccessKind::load;
  EXPECT_EQ(lone(column, launch(32, 8)), (std::vector<double>{0, 0, 0, 0}));
}

// H.8g: a sector written in part in a line the request writes 2 or 3 sectors of goes at the lone rate
// too: lulesh's hgc, a double a lane at a 64-byte stride (two 8-byte sectors in each of 16 lines).
// A line the request writes every sector of stays in H.8, in part (layernorm's 4 bytes a lane at a
// 16-byte stride) or whole (a 16-wide block's float row: two whole sectors of a line).
TEST(Traffic, PartSectorsInPartLinesGoAtTheLoneRate) {
  const auto lone = [](const AddressPolynomial& address, int bytes, const LaunchConfig& l) {
    MemoryAccess store = load(address);
    store.kind = AccessKind::store;
    store.opcode = bytes == 8 ? "STG.E.64" : "STG.E";
    store.bytes_per_thread = bytes;
    const ShapeTraffic t = shape_traffic(AccessPatterns{{store}, "test"}, l);
    return std::vector<double>(std::begin(t.store_lone_sectors_by_fill), std::end(t.store_lone_sectors_by_fill));
  };
  EXPECT_EQ(lone({{1, {"param:0x210"}}, {64, {"tid.x"}}}, 8, launch(32, 1)), (std::vector<double>{0, 32, 0, 0}));
  EXPECT_EQ(lone({{1, {"param:0x210"}}, {16, {"tid.x"}}}, 4, launch(32, 1)), (std::vector<double>{0, 0, 0, 0}));
  EXPECT_EQ(lone(element(4, 1, 1), 4, launch(16, 16)), (std::vector<double>{0, 0, 0, 0}));
  // A block of 3 lanes a sector apart: 3 sectors of one line, 4 bytes each.
  EXPECT_EQ(lone({{1, {"param:0x210"}}, {32, {"tid.x"}}}, 4, launch(3, 1)), (std::vector<double>{3, 0, 0, 0}));
}

}  // namespace
}  // namespace warpmodel
