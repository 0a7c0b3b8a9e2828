// The hopper variant's equations (hopper_equations.hpp, H.1-H.13) one by one, each on hand-computed
// values; test_hopper.cpp checks them together through predict_hopper.
#include <cmath>

#include <gtest/gtest.h>

#include <map>

#include "warpmodel/architecture_specs.hpp"
#include "warpmodel/hopper_equations.hpp"

namespace warpmodel {
namespace {

namespace eq = hopper_eq;

void expect_split(const eq::WaveSplit& w, double full_waves, double last_wave_blocks, double last_wave_sms,
                  double last_wave_blocks_per_sm) {
  EXPECT_DOUBLE_EQ(w.full_waves, full_waves);
  EXPECT_DOUBLE_EQ(w.last_wave_blocks, last_wave_blocks);
  EXPECT_DOUBLE_EQ(w.last_wave_sms, last_wave_sms);
  EXPECT_DOUBLE_EQ(w.last_wave_blocks_per_sm, last_wave_blocks_per_sm);
}

TEST(HopperEquations, SplitWaves) {
  // H.1: 1000 blocks, 4 per SM on 132 SMs: one wave of 528, then 472 left over all 132 SMs,
  // ceil(472 / 132) = 4 on the busiest.
  expect_split(eq::split_waves(1000, 4, 132), 1, 472, 132, 4);
  // Exactly two waves: no partial wave.
  expect_split(eq::split_waves(1056, 4, 132), 2, 0, 0, 0);
  // Fewer blocks than SMs: one block on each of 10 SMs.
  expect_split(eq::split_waves(10, 4, 132), 0, 10, 10, 1);
  // 200 blocks, 2 per SM on 66 SMs: one wave of 132, 68 left, ceil(68 / 66) = 2 on the busiest.
  expect_split(eq::split_waves(200, 2, 66), 1, 68, 66, 2);
}

TEST(HopperEquations, IssueAndSfu) {
  // H.2: ceil(n / P) x #inst.
  EXPECT_DOUBLE_EQ(eq::t_issue(48, 4, 100), 1200);  // 12 x 100
  EXPECT_DOUBLE_EQ(eq::t_issue(5, 4, 100), 200);    // ceil(1.25) = 2
  EXPECT_DOUBLE_EQ(eq::t_issue(4, 4, 10), 10);      // exactly one warp per scheduler
  // H.3: ceil(n / P) x #SFU x warp_size / (lanes / P) = 12 x 10 x 32 / 4.
  EXPECT_DOUBLE_EQ(eq::t_sfu(48, 4, 10, 32, 16), 960);
  EXPECT_DOUBLE_EQ(eq::t_sfu(48, 4, 0, 32, 16), 0);
}

TEST(HopperEquations, Schedule) {
  // H.4: #inst x stall, never below one instruction per clock.
  EXPECT_DOUBLE_EQ(eq::t_schedule(100, 2.5), 250);
  EXPECT_DOUBLE_EQ(eq::t_schedule(100, 0.3), 100);
  EXPECT_DOUBLE_EQ(eq::stall_from_ilp(24, 4), 6);
}

TEST(HopperEquations, AverageDramLatencyAndAmat) {
  // H.5: DRAM_lat + (sectors / 4 - 1) x Delta, no negative term below one line.
  EXPECT_DOUBLE_EQ(eq::avg_dram_lat(500, 16, 10), 530);
  EXPECT_DOUBLE_EQ(eq::avg_dram_lat(500, 2, 10), 500);
  // (1 - 0.5) 30 + 0.5 ((1 - 0.25) 200 + 0.25 x 600) = 15 + 0.5 x 300
  EXPECT_DOUBLE_EQ(eq::amat(30, 0.5, 200, 0.25, 600), 165);
  EXPECT_DOUBLE_EQ(eq::amat(30, 0, 200, 0.25, 600), 30);  // every load hits L1
}

TEST(HopperEquations, BatchLatencyAndDepartures) {
  // H.6, one load: h1 = 0.5, h12 = 1 - 0.125 = 0.875: 30 x 0.5 + 200 x 0.375 + 600 x 0.125 = AMAT.
  EXPECT_DOUBLE_EQ(eq::batch_latency(1, 30, 0.5, 200, 0.25, 600), 165);
  // Two loads: h1 = 0.25, h12 = 0.875^2 = 0.765625: 7.5 + 200 x 0.515625 + 600 x 0.234375.
  EXPECT_DOUBLE_EQ(eq::batch_latency(2, 30, 0.5, 200, 0.25, 600), 7.5 + 103.125 + 140.625);
  // Departures: 4 loads x 4 lines x 0.5 missing L1 = 8 lines, all but the first Delta apart.
  EXPECT_DOUBLE_EQ(eq::batch_departures(4, 16, 0.5, 10), 70);
  // One line that misses half the time: fewer than one line leaves, no departure delay.
  EXPECT_DOUBLE_EQ(eq::batch_departures(1, 2, 0.5, 10), 0);
  EXPECT_DOUBLE_EQ(eq::batch_departures(2, 4, 1, 10), 10);
}

// H.6b: a column deviation's iteration loads data[i][j] (always from DRAM) and mean[j] (the same
// address every iteration: an L1 hit), m1 = 0.5 overall, m2 = 1. The i.i.d. H.6 lets both hit with
// probability 1/4; with the reused load set apart the other one always misses: one DRAM round trip.
TEST(HopperEquations, BatchLatencyWithLoopInvariantLoads) {
  EXPECT_DOUBLE_EQ(eq::batch_latency(2, 30, 0.5, 200, 1, 600), 30 * 0.25 + 600 * 0.75);
  EXPECT_DOUBLE_EQ(eq::batch_latency_with_reuse(2, 0.5, 30, 0.5, 200, 1, 600), 600);
  EXPECT_DOUBLE_EQ(eq::batch_latency_with_reuse(2, 0, 30, 0.5, 200, 1, 600), eq::batch_latency(2, 30, 0.5, 200, 1, 600))
      << "r = 0 is H.6";
  EXPECT_DOUBLE_EQ(eq::batch_latency_with_reuse(4, 1, 30, 0.5, 200, 1, 600), 30) << "every load reused: L1";
  // The other loads' miss ratio never exceeds 1: 4 loads, 3 reused, m1 = 0.5 -> the fourth misses.
  EXPECT_DOUBLE_EQ(eq::batch_latency_with_reuse(4, 0.75, 30, 0.5, 200, 0.5, 600), 200 * 0.5 + 600 * 0.5);
}

// H.6b with whole loads: one load a batch, half of them a pointer the loop reloads (an L1 hit), the
// other half streamed from DRAM (m1 = 0.5 overall, so every other load misses, m2 = 1): half the
// batches wait for L1 and half for DRAM. The fractional power h^(1/2) = 0 priced them all at DRAM.
TEST(HopperEquations, ABatchHoldsWholeLoads) {
  EXPECT_DOUBLE_EQ(eq::batch_latency_with_reuse(1, 0.5, 30, 0.5, 200, 1, 600), 0.5 * 30 + 0.5 * 600);
  EXPECT_DOUBLE_EQ(eq::whole_loads_power(0.5, 2), 0.25) << "a whole count is the plain power";
  EXPECT_DOUBLE_EQ(eq::whole_loads_power(0.5, 1.5), 0.5 * 0.5 + 0.5 * 0.25);
  EXPECT_DOUBLE_EQ(eq::whole_loads_power(0, 0.5), 0.5) << "half the batches hold no other load";
  EXPECT_DOUBLE_EQ(eq::whole_loads_power(0.3, 0), 1);
}

// H.8e: the naive 256^3 matrix product at 32x8 (corpus sweep, H100) stores 2,105,344 sectors from L1
// and CUPTI counts 3,159,775 written at the L2 (1.50 a sector): the L2's write rate, measured in the
// bytes the microbenchmark's stores sent, prices the sent ones.
TEST(HopperEquations, CountedL2WritesAreReadInTheSectorsTheStoresSent) {
  EXPECT_DOUBLE_EQ(eq::l2_written_bytes_sent(3159775.0 * 32), 3159775.0 * 32 / 1.5);
  EXPECT_NEAR(eq::l2_written_bytes_sent(3159775.0 * 32) / (2105344.0 * 32), 1.0, 0.001);
  EXPECT_DOUBLE_EQ(eq::l2_written_bytes_sent(0), 0);
}

// H.6c: the naive 256^3 matrix product's batch (A[row][k], B[k][col]): half the loads walk lines,
// counted m1 = 0.125 (in-flight hits), m2 = 0.094 (DRAM bytes over the L1-miss bytes), 16 blocks
// share each B line. Cold, one sharer's miss is everyone's: a DRAM round trip each iteration, as
// measured (656 clocks against 672 for DRAM); warm (no DRAM byte): one L2 round trip (363 measured).
TEST(HopperEquations, BatchWithLineWalkingLoadsWaitsForTheFirstSharersMiss) {
  const eq::WalkingLoads walking{0.5, 16};
  EXPECT_DOUBLE_EQ(eq::batch_latency_lockstep(2, 0, walking, 30, 0.125, 200, 0.094, 600), 600);
  EXPECT_DOUBLE_EQ(eq::batch_latency_lockstep(2, 0, walking, 30, 0.125, 200, 0, 600), 200);
  // The i.i.d. H.6 reads the counted hits as hits: a quarter of an L2 round trip.
  EXPECT_LT(eq::batch_latency(2, 30, 0.125, 200, 0.094, 600), 100);
  // One load a batch, half of them walking: q = 1/2. The other half carry no L1 miss
  // (m1' = (0.5 - 0.5) / 0.5 = 0); the walking half misses L2 with m2 = 0.5 (one sharer):
  // P1 = 0.5, P12 = 0.5 + 0.5 x 0.5 = 0.75.
  EXPECT_DOUBLE_EQ(eq::batch_latency_lockstep(1, 0, {0.5, 1}, 30, 0.5, 200, 0.5, 600), 15 + 50 + 150);
  // w = 0 is H.6b, and w = r = 0 is H.6.
  EXPECT_DOUBLE_EQ(eq::batch_latency_lockstep(4, 0.75, {}, 30, 0.5, 200, 0.5, 600),
                   eq::batch_latency_with_reuse(4, 0.75, 30, 0.5, 200, 0.5, 600));
  EXPECT_DOUBLE_EQ(eq::batch_latency_lockstep(2, 0, {}, 30, 0.5, 200, 0.25, 600), eq::batch_latency(2, 30, 0.5, 200, 0.25, 600));
}

// H.9b: rates 600, 800, 1000 for 32-, 64- and 128-byte row segments: efficiencies 0.6, 0.8, 0.9 (3
// sectors: between 2 and 4), 1. Half the sectors alone in their line, half in whole lines:
// e = 1 / (0.5 / 0.6 + 0.5 / 1) = 0.75; with a third of the loads irregular (at 1): 1 / (1/3 + 2/3 x 4/3).
TEST(HopperEquations, DramSegmentEfficiency) {
  EXPECT_DOUBLE_EQ(eq::segment_efficiency(1, 600, 800, 1000), 0.6);
  EXPECT_DOUBLE_EQ(eq::segment_efficiency(2, 600, 800, 1000), 0.8);
  EXPECT_DOUBLE_EQ(eq::segment_efficiency(3, 600, 800, 1000), 0.9);
  EXPECT_DOUBLE_EQ(eq::segment_efficiency(4, 600, 800, 1000), 1);
  EXPECT_DOUBLE_EQ(eq::segment_efficiency(1, 1100, 800, 1000), 1) << "noise above the whole-line rate counts 1";
  EXPECT_DOUBLE_EQ(eq::segment_efficiency(1, 0, 800, 1000), 1) << "not measured";
  const double half[4] = {0.5, 0, 0, 0.5};
  EXPECT_DOUBLE_EQ(eq::dram_segment_efficiency(half, 1, 600, 800, 1000), 0.75);
  EXPECT_DOUBLE_EQ(eq::dram_segment_efficiency(half, 2.0 / 3, 600, 800, 1000), 1 / (1.0 / 3 + 2.0 / 3 * 4.0 / 3));
  const double none[4] = {0, 0, 0, 0};
  EXPECT_DOUBLE_EQ(eq::dram_segment_efficiency(none, 1, 600, 800, 1000), 1) << "no regular load";
}

TEST(HopperEquations, MemoryLatency) {
  EXPECT_DOUBLE_EQ(eq::t_mem_latency(0, 4, 100), 0);
  EXPECT_DOUBLE_EQ(eq::t_mem_latency(12, 4, 100), 300);  // 3 batches of 4
  EXPECT_DOUBLE_EQ(eq::t_mem_latency(3, 17, 100), 100);  // MLP capped at #loads: one batch
}

TEST(HopperEquations, Bandwidths) {
  // H.7: n x bytes / bytes per clock = 48 x 256 / 64.
  EXPECT_DOUBLE_EQ(eq::t_bandwidth(48, 256, 64), 192);
  // H.8: 48 x (128 / 64 + 64 / 32); H.9: 48 x (128 / 32 + 64 / 16).
  EXPECT_DOUBLE_EQ(eq::t_l2(48, 128, 64, 64, 32), 192);
  EXPECT_DOUBLE_EQ(eq::t_dram(48, 128, 32, 64, 16), 384);
  EXPECT_DOUBLE_EQ(eq::t_dram(48, 128, 32, 0, 16), 192);  // no writes
  // H.13: blocks x clocks per block.
  EXPECT_DOUBLE_EQ(eq::t_dispatch(4, 150), 600);
  // 3000 GB/s at 1500 MHz = 2000 bytes per clock.
  EXPECT_DOUBLE_EQ(eq::bytes_per_clock(3000, 1500), 2000);
}

TEST(HopperEquations, BoundsAndWave) {
  // H.10
  EXPECT_DOUBLE_EQ(eq::t_warp(250, 300), 550);
  EXPECT_DOUBLE_EQ(eq::t_pipe(1200, 960), 1200);
  EXPECT_DOUBLE_EQ(eq::t_pipe(100, 960), 960);
  EXPECT_DOUBLE_EQ(eq::t_data(192, 192, 384), 384);
  EXPECT_DOUBLE_EQ(eq::t_data(500, 192, 384), 500);
  // H.11: the 2-norm (3-4-5, 2-3-6-7), with and without dispatch.
  EXPECT_DOUBLE_EQ(eq::t_wave(3, 4, 0), 5);
  EXPECT_DOUBLE_EQ(eq::t_wave(2, 3, 6), 7);
  // H.11b: H.13's dispatch overlaps all three bounds: max(4, sqrt(1 + 4 + 4)) and max(2, sqrt(1 + 4 + 16)).
  EXPECT_DOUBLE_EQ(eq::t_wave(1, 2, 2, 4), 4);
  EXPECT_DOUBLE_EQ(eq::t_wave(1, 2, 4, 2), std::sqrt(21.0));
}

TEST(HopperEquations, WavesAndCycles) {
  EXPECT_DOUBLE_EQ(eq::waves(2, 0), 2);
  EXPECT_DOUBLE_EQ(eq::waves(2, 10), 3);
  // H.12 unfitted (launch 0, scale 1, wave 0, barrier 0): the summed wave times, 2 x 400 + 200.
  DeviceProfile::HopperCalibration c;
  EXPECT_DOUBLE_EQ(eq::cycles(c, 2, 400, 200, 3, 4), 1000);
  // Fitted: 1000 + 0.5 x 1000 + 100 x 3 waves + 20 x 3 waves x 3 barriers.
  c.launch_cycles = 1000;
  c.scale = 0.5;
  c.wave_cycles = 100;
  c.barrier_cycles = 20;
  EXPECT_DOUBLE_EQ(eq::cycles(c, 2, 400, 200, 3, 4), 1980);  // exponent 0: B does not matter
  // No partial wave: 1000 + 0.5 x 800 + 100 x 2 + 20 x 2 x 3.
  EXPECT_DOUBLE_EQ(eq::cycles(c, 2, 400, 0, 3, 1), 1720);
  // The turnover exponent: with 4 resident blocks per SM at a = 0.5 each wave's fixed costs are
  // exposed at 4^-0.5 = 1/2: 1000 + 0.5 x 1000 + (100 + 20 x 3) x 3 waves / 2.
  c.turnover_exponent = 0.5;
  EXPECT_DOUBLE_EQ(eq::cycles(c, 2, 400, 200, 3, 4), 1000 + 500 + 160 * 3 / 2.0);
  // One block per SM exposes them in full; fewer than one (a padded estimate) counts as one.
  EXPECT_DOUBLE_EQ(eq::cycles(c, 2, 400, 200, 3, 1), 1980);
  EXPECT_DOUBLE_EQ(eq::exposed_waves(3, 0.5, 0.5), 3);
}

TEST(HopperEquations, L2MissRatioALoadWaitsFor) {
  // H.5b: a stream whose L2 sector miss ratio reads 0.5 while DRAM supplied every byte the loads'
  // L1 misses asked for: every request waits for DRAM.
  EXPECT_DOUBLE_EQ(eq::l2_latency_miss_ratio(0.5, 262144, 262144), 1);
  // L2 reuse: DRAM supplied a quarter of the requested bytes; the sector ratio 0.2 is the smaller.
  EXPECT_DOUBLE_EQ(eq::l2_latency_miss_ratio(0.2, 100, 400), 0.25);
  // Sector misses beyond the DRAM share are far-partition L2 hits, not DRAM round trips: the DRAM
  // share is read even where the sector ratio is the larger (a 4 MB one-block sum: 20 % sector
  // misses, no DRAM byte, ran at L2 latency).
  EXPECT_DOUBLE_EQ(eq::l2_latency_miss_ratio(0.4, 100, 300), 1.0 / 3);
  EXPECT_DOUBLE_EQ(eq::l2_latency_miss_ratio(0.2, 0, 4 << 20), 0);
  // More DRAM bytes than requested (64-byte fetches of 32-byte requests): capped at 1.
  EXPECT_DOUBLE_EQ(eq::l2_latency_miss_ratio(0.9, 800, 400), 1);
  // No requested bytes counted: the sector ratio.
  EXPECT_DOUBLE_EQ(eq::l2_latency_miss_ratio(0.3, 100, 0), 0.3);
}

TEST(HopperEquations, ScatteredDramLatency) {
  // H.5c: a quarter of the sectors scattered one to a line, at the H200's measured 1,106 clocks
  // against a DRAM_lat of 672: 672 + 0.25 x 434.
  EXPECT_DOUBLE_EQ(eq::scattered_dram_latency(672, 1106, 0.25), 780.5);
  EXPECT_DOUBLE_EQ(eq::scattered_dram_latency(672, 1106, 1), 1106);
  EXPECT_DOUBLE_EQ(eq::scattered_dram_latency(672, 1106, 0), 672);
  EXPECT_DOUBLE_EQ(eq::scattered_dram_latency(672, 1106, 2), 1106);  // a share is at most 1
  EXPECT_DOUBLE_EQ(eq::scattered_dram_latency(672, 0, 1), 672);      // not measured: DRAM_lat
}

TEST(HopperEquations, SameAddressAtomics) {
  // H.15: 64 warps on each of 132 SMs, 32 lane adds per warp, 0.25 adds per clock for the GPU.
  EXPECT_DOUBLE_EQ(eq::t_slice_atomics(64 * 132, 32, 0.25), 64 * 132 * 32 * 4.0);
  EXPECT_DOUBLE_EQ(eq::t_slice_atomics(100, 1, 0), 0);  // not measured: no term
  // H.10: it is one of the data bounds.
  EXPECT_DOUBLE_EQ(eq::t_data(10, 20, 30, 40), 40);
  EXPECT_DOUBLE_EQ(eq::t_data(10, 20, 30), 30);
}

TEST(HopperEquations, ScatteredLocalSectorShare) {
  // H.8b: a coalesced local request takes up to 8 sectors, a scattered one 32.
  EXPECT_DOUBLE_EQ(hopper_eq::scattered_local_sector_share(4), 0);
  EXPECT_DOUBLE_EQ(hopper_eq::scattered_local_sector_share(8), 0);
  EXPECT_DOUBLE_EQ(hopper_eq::scattered_local_sector_share(32), 1);
  // s = 20: half the requests scattered ((20 - 8) / 24), carrying 0.5 x 32 = 16 of the 20 sectors
  // a request reads on average: 0.8.
  EXPECT_DOUBLE_EQ(hopper_eq::scattered_local_sector_share(20), 0.8);
}

// H.6d: regular loads leave at the sequential departure delay, gathers at the scrambled one; without
// a sequential measurement (older profiles) every line at Delta.
TEST(HopperEquations, RegularLoadsDepartAtTheSequentialDelayGathersAtTheScrambledOne) {
  EXPECT_DOUBLE_EQ(hopper_eq::departure_delay(22.7, 11.9, 0), 11.9);
  EXPECT_DOUBLE_EQ(hopper_eq::departure_delay(22.7, 11.9, 1), 22.7);
  EXPECT_NEAR(hopper_eq::departure_delay(22.7, 11.9, 0.25), 11.9 + 0.25 * 10.8, 1e-12);
  EXPECT_DOUBLE_EQ(hopper_eq::departure_delay(22.7, 0, 0), 22.7) << "not measured";
  EXPECT_DOUBLE_EQ(hopper_eq::departure_delay(22.7, 11.9, 2), 22.7) << "the share is clamped to [0, 1]";
}

// H.8c: each fill's sectors at its own rate; the SASS's lone sectors count only where its sectors per
// store request are within a third of the measured ones.
TEST(HopperEquations, LoneStoreSectorsAtTheirOwnRatesWhereTheSassAgreesWithTheCounters) {
  const double sectors[4] = {32, 0, 8, 0}, rates[4] = {0.25, 0.5, 0.5, 1};
  EXPECT_DOUBLE_EQ(hopper_eq::t_lone_store_sectors(10, sectors, rates), 10 * (32 / 0.25 + 8 / 0.5));
  const double unmeasured[4] = {0, 0, 0, 0};
  EXPECT_DOUBLE_EQ(hopper_eq::t_lone_store_sectors(10, sectors, unmeasured), 0);
  EXPECT_TRUE(hopper_eq::sass_sectors_agree(32, 32.0));
  EXPECT_TRUE(hopper_eq::sass_sectors_agree(32, 25.0));
  EXPECT_FALSE(hopper_eq::sass_sectors_agree(32, 4.0)) << "a runtime stride of 1 the SASS took for a pitch";
  EXPECT_FALSE(hopper_eq::sass_sectors_agree(4, 32.0));
  EXPECT_TRUE(hopper_eq::sass_sectors_agree(32, std::nullopt)) << "nothing measured: the SASS alone";
}

// H.9c: the scattered write-backs leave the streaming rate for the random one; nothing without a rate.
TEST(HopperEquations, ScatteredWriteBacksAtTheRandomWriteRate) {
  EXPECT_DOUBLE_EQ(hopper_eq::t_scattered_writes(10, 64, 32, 8), 10 * 64 * (1 / 8.0 - 1 / 32.0));
  EXPECT_DOUBLE_EQ(hopper_eq::t_scattered_writes(10, 0, 32, 8), 0);
  EXPECT_DOUBLE_EQ(hopper_eq::t_scattered_writes(10, 64, 32, 0), 0) << "not measured";
}

// H.17: the tensor pipe. 64 warps on 4 sub-partitions (16 each), a warp's 65,536 dense fp16 FLOPs at
// 4096 an SM per clock: 16 clocks a warp at the SM's rate, 64 at its sub-partition's quarter.
TEST(HopperEquations, TensorPipe) {
  EXPECT_DOUBLE_EQ(eq::tensor_clocks_per_warp(65536, 4096), 16);
  EXPECT_DOUBLE_EQ(eq::t_tensor(64, 4, 16), 16 * 4 * 16);  // ceil(64/4) x 4 x 16 = 1024
  EXPECT_DOUBLE_EQ(eq::t_tensor(5, 4, 16), 2 * 4 * 16);    // 5 warps: 2 on the busiest sub-partition
  EXPECT_DOUBLE_EQ(eq::t_tensor(64, 4, 0), 0);
  EXPECT_DOUBLE_EQ(eq::tensor_clocks_per_warp(65536, 0), 0) << "no rate: not priced";
  // The tensor pipe joins the issue slots and the SFU pipe in T_pipe.
  EXPECT_DOUBLE_EQ(eq::t_pipe(100, 50, 1024), 1024);
  EXPECT_DOUBLE_EQ(eq::t_pipe(100, 50), 100);
}

// H.18a: clusters per GPC. GPCs of 18, 18 and 16 SMs at 2 blocks an SM: clusters of 16 blocks fit
// 2, 2 and 2 (36 and 32 slots); of 8 blocks, 4, 4 and 4; at 1 block an SM, clusters of 16 fit 1 each.
TEST(HopperEquations, ClustersAtOnce) {
  const std::vector<int> gpcs = {18, 18, 16};
  EXPECT_DOUBLE_EQ(eq::clusters_at_once(gpcs, 2, 16), 6);
  EXPECT_DOUBLE_EQ(eq::clusters_at_once(gpcs, 2, 8), 4 + 4 + 4);
  EXPECT_DOUBLE_EQ(eq::clusters_at_once(gpcs, 1, 16), 3);
  EXPECT_DOUBLE_EQ(eq::clusters_at_once({14, 14}, 1, 16), 0) << "a cluster larger than every GPC";
  // 6 clusters of 16 on 52 SMs at 2 a SM: 96 of 104 slots, 96 / 52 blocks an SM.
  EXPECT_DOUBLE_EQ(eq::cluster_blocks_per_sm(6, 16, 52, 2), 96.0 / 52);
  EXPECT_DOUBLE_EQ(eq::cluster_blocks_per_sm(100, 16, 52, 2), 2) << "never more than the occupancy rules";
}

// H.18b, H.18c: the cluster's waits on a warp's path, its remote bytes at the SM-to-SM rate.
TEST(HopperEquations, ClusterSyncAndDistributedSharedMemory) {
  EXPECT_DOUBLE_EQ(eq::t_cluster_sync(2, 300, 2, 200), 2 * 300 + 2 * 200);
  EXPECT_DOUBLE_EQ(eq::t_cluster_sync(1, 0, 0, 0), 0) << "not measured: 0";
  EXPECT_DOUBLE_EQ(eq::t_warp(100, 200, 1000), 1300);
  EXPECT_DOUBLE_EQ(eq::t_dsmem(16, 512, 32), 256);  // 16 warps x 512 B / 32 B per clock
  EXPECT_DOUBLE_EQ(eq::t_dsmem(16, 512, 0), 0);
  EXPECT_DOUBLE_EQ(eq::t_data(10, 20, 30, 0, 0, 256), 256);
}

// A GPU's own GPC layout from its cluster occupancy (one block per SM): the counts a layout gives are
// inverted back to it, an uneven floor-swept layout too; a table no layout explains gives nothing.
std::map<int, int> cluster_counts(const std::vector<int>& layout) {
  std::map<int, int> counts;
  for (int c = 1; c <= 16; ++c)
    for (int sms : layout) counts[c] += sms / c;
  return counts;
}

TEST(ArchitectureSpecs, GpcLayoutFromClusterOccupancy) {
  const std::vector<int> h100 = {18, 18, 16, 16, 16, 16, 16, 16};
  EXPECT_EQ(gpc_layout_from_cluster_occupancy(132, cluster_counts(h100)), h100);
  const std::vector<int> uneven = {18, 18, 18, 16, 16, 16, 16, 14};  // 132 SMs, one GPC short of 16
  EXPECT_EQ(cluster_counts(uneven).at(16), 7);
  EXPECT_EQ(gpc_layout_from_cluster_occupancy(132, cluster_counts(uneven)), uneven);
  EXPECT_EQ(gpc_layout_from_cluster_occupancy(114, cluster_counts({16, 14, 14, 14, 14, 14, 14, 14})),
            (std::vector<int>{16, 14, 14, 14, 14, 14, 14, 14}));
  std::map<int, int> impossible = cluster_counts(h100);
  impossible[16] = 20;  // more clusters of 16 than 132 SMs hold
  EXPECT_FALSE(gpc_layout_from_cluster_occupancy(132, impossible));
  EXPECT_FALSE(gpc_layout_from_cluster_occupancy(132, {}));
}

// The specification fallbacks (architecture_specs.hpp): GH100's 8 GPCs with 132 SMs in TPC pairs
// (66 TPCs: two GPCs of 9, six of 8), the dense tensor rates of A100 and H100, nothing elsewhere.
TEST(ArchitectureSpecs, GpcLayoutsAndTensorRates) {
  EXPECT_EQ(*spec_sms_per_gpc(9, 0, 132), (std::vector<int>{18, 18, 16, 16, 16, 16, 16, 16}));
  EXPECT_EQ(*spec_sms_per_gpc(9, 0, 114), (std::vector<int>{16, 14, 14, 14, 14, 14, 14, 14}));  // H100 PCIe's count
  EXPECT_FALSE(spec_sms_per_gpc(10, 0, 148)) << "not tabulated: no guess";
  EXPECT_EQ(*spec_tensor_flops_per_clock_per_sm(9, 0, "fp16"), 4096);
  EXPECT_EQ(*spec_tensor_flops_per_clock_per_sm(9, 0, "fp64"), 256);
  EXPECT_EQ(*spec_tensor_flops_per_clock_per_sm(8, 0, "tf32"), 1024);
  EXPECT_FALSE(spec_tensor_flops_per_clock_per_sm(8, 0, "fp8")) << "A100 has no fp8 tensor cores";
  EXPECT_FALSE(spec_tensor_flops_per_clock_per_sm(12, 0, "fp16"));
  // 989 TFLOPS fp16 = 132 SMs x 1830 MHz x 4096; 312 = 108 x 1410 x 2048 (the whitepapers' dense peaks).
  EXPECT_NEAR(132 * 1830e6 * 4096 / 1e12, 989.4, 0.1);
  EXPECT_NEAR(108 * 1410e6 * 2048 / 1e12, 311.9, 0.1);
  for (const char* t : tensor_types()) EXPECT_TRUE(is_tensor_type(t));
  EXPECT_FALSE(is_tensor_type("fp32"));
}

// H.16a: the gathers' share of the load sectors is what the regular loads (SASS) leave of the
// measured ones, at most the bound that takes every gather at 32 sectors.
TEST(HopperEquations, GatherShareIsWhatTheRegularLoadsLeave) {
  // A CSR-vector trip: 12 sectors of row data (SASS), 31.5 measured: the gathers read 19.5.
  EXPECT_DOUBLE_EQ(hopper_eq::gather_sector_share(1.0, 31.5, 12), 19.5 / 31.5);
  EXPECT_DOUBLE_EQ(hopper_eq::gather_sector_share(0.5, 31.5, 12), 0.5) << "the bound";
  EXPECT_DOUBLE_EQ(hopper_eq::gather_sector_share(1.0, 31.5, 40), 0) << "regular loads explain every sector";
  EXPECT_DOUBLE_EQ(hopper_eq::gather_sector_share(0, 31.5, 12), 0) << "no gather";
  EXPECT_DOUBLE_EQ(hopper_eq::gather_sector_share(1.0, 0, 0), 0) << "no load";
}

// H.16b: the gathers' L1 misses are the measured misses less the regular loads' (their sectors less
// the reuse the SASS shows), between 0 and the gathers' sectors.
TEST(HopperEquations, GatherMissesAreWhatTheRegularLoadsDoNotMiss) {
  // Row data streamed (no reuse) misses 12 of the 12.4 sectors missed: the gathers 0.4.
  EXPECT_NEAR(hopper_eq::gather_missing_sectors(12.4, 12, 0, 19.5), 0.4, 1e-12);
  // Regular loads that hit half their sectors leave more of the misses to the gathers.
  EXPECT_DOUBLE_EQ(hopper_eq::gather_missing_sectors(12.4, 12, 0.5, 19.5), 6.4);
  EXPECT_DOUBLE_EQ(hopper_eq::gather_missing_sectors(40, 4, 0, 32), 32) << "at most the gathers' sectors";
  EXPECT_DOUBLE_EQ(hopper_eq::gather_missing_sectors(3, 4, 0, 32), 0) << "never below 0";
  EXPECT_DOUBLE_EQ(hopper_eq::gather_missing_sectors(36, 4, 1.5, 32), 32) << "a hit rate above 1 is 1";
}

}  // namespace
}  // namespace warpmodel
