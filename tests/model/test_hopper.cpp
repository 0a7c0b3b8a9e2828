// The hopper variant (hopper_equations.hpp, H.1-H.12): hand-computed terms, the shape of an
// occupancy sweep, calibration, and the inputs it needs.
#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>

#include "warpmodel/hopper_equations.hpp"
#include "warpmodel/json_io.hpp"
#include "warpmodel/model.hpp"
#include "warpmodel/sweep.hpp"
#include "round_profiles.hpp"

namespace warpmodel {
namespace {

using testing::round_device;
using testing::round_kernel;

// H.11's 2-norm of H.10's three bounds, written out so each test reads like the equation.
double norm3(double warp, double pipe, double data) { return std::sqrt(warp * warp + pipe * pipe + data * data); }

TEST(Hopper, ComputeBoundTermsByHand) {
  const Prediction p = predict_hopper(round_device(), round_kernel());
  EXPECT_EQ(p.occupancy.n, 64);
  EXPECT_EQ(p.full_waves, 1);
  EXPECT_EQ(p.last_wave_sms, 100);
  EXPECT_EQ(p.last_wave_warps_per_sm, 16);
  EXPECT_DOUBLE_EQ(p.t_issue, 1600);        // H.2: ceil(64/4) x 100
  EXPECT_DOUBLE_EQ(p.t_sfu, 256);      // H.3: 16 x 2 x 32 / (16/4)
  // H.4 without control bits in the profile: 100 x max(1, lat_dep / ILP) = 100 x 4 / 2
  EXPECT_DOUBLE_EQ(p.t_schedule, 200);
  EXPECT_DOUBLE_EQ(p.avg_dram_lat, 600);    // H.5: one line per request, no departure term
  EXPECT_DOUBLE_EQ(p.amat, 400);            // H.5: 0.5 x 200 + 0.5 x 600
  // H.6: a batch of MLP = 4 loads, each an L1 miss and an L2 miss with probability 0.5: the batch
  // waits for DRAM unless all four hit L2 (0.5^4): 200 x 0.0625 + 600 x 0.9375 = 575, plus the
  // departures of 4 x 1 line requests: 3 x 20; 4 / 4 batches. The profile does not separate loads
  // from stores, so all 4 memory instructions count as loads.
  EXPECT_DOUBLE_EQ(p.t_mem_latency, 575 + 60);
  EXPECT_DOUBLE_EQ(p.t_l1_data, 256);       // H.7: 64 x 512 B / 128
  EXPECT_DOUBLE_EQ(p.t_l2_bandwidth, 512);  // H.8: 64 x 512 B / 64
  EXPECT_DOUBLE_EQ(p.t_dram_bandwidth, 512);  // H.9: 64 x 256 B / 32 (no read/write split: copy rate)
  EXPECT_DOUBLE_EQ(p.t_warp, 200 + 635);    // H.10
  EXPECT_DOUBLE_EQ(p.t_pipe, 1600);         // H.10: max(1600, 256)
  EXPECT_DOUBLE_EQ(p.t_data, 512);          // H.10: max(256, 512, 512)
  EXPECT_DOUBLE_EQ(p.t_wave, norm3(835, 1600, 512));  // H.11: 1876.0
  EXPECT_EQ(p.bound, "issue");
  // partial wave, 16 warps: warp path 835 (per warp, unchanged); T_issue = 4 x 100; data max(64, 128, 128)
  EXPECT_DOUBLE_EQ(p.t_last_wave, norm3(835, 400, 128));
  EXPECT_DOUBLE_EQ(p.cycles, norm3(835, 1600, 512) + norm3(835, 400, 128));  // H.12 unfitted: 1 x full + partial
  EXPECT_NEAR(p.seconds, p.cycles / 1e9, 1e-18);
  EXPECT_EQ(p.model_case, ModelCase::ComputeBound);
}

TEST(Hopper, MemoryBoundTermsByHand) {
  KernelProfile k = round_kernel();
  k.inst_per_warp = 20;
  k.sfu_inst_per_warp = 0;
  k.l2_miss_ratio = 0.75;  // DRAM bytes per warp: 512 x 0.75 = 384
  const Prediction p = predict_hopper(round_device(), k);
  EXPECT_DOUBLE_EQ(p.amat, 500);              // 0.25 x 200 + 0.75 x 600
  EXPECT_DOUBLE_EQ(p.t_dram_bandwidth, 768);  // 64 x 384 / 32
  // batch of 4 loads served by L1 or L2 with probability 0.25^4: 200/256 + 600 x 255/256 = 598.4375,
  // and 3 departures of 20
  EXPECT_DOUBLE_EQ(p.t_mem_latency, 658.4375);
  EXPECT_DOUBLE_EQ(p.t_schedule, 40);  // 20 x 4 / 2
  // warp path 40 + 658.4375; T_issue = 16 x 20; DRAM 768
  EXPECT_DOUBLE_EQ(p.t_wave, norm3(698.4375, 320, 768));
  EXPECT_EQ(p.bound, "dram bandwidth");
  EXPECT_DOUBLE_EQ(p.t_last_wave, norm3(698.4375, 80, 192));  // 16 warps: T_issue = 4 x 20, DRAM 16 x 384 / 32
  EXPECT_DOUBLE_EQ(p.cycles, norm3(698.4375, 320, 768) + norm3(698.4375, 80, 192));
  EXPECT_EQ(p.model_case, ModelCase::MemoryBound);
}

// H.1d: a loop only the grid's first thread runs. The round kernel's 8000 warps each run 60 of
// their 100 instructions and 2 of their 4 loads outside it; the rest, 320,000 instructions and 16,000
// loads, are one warp's: 320,000 x 2 (H.4, ILP 2) + 16,000 / 4 x 635 (H.6's batch of the
// by-hand test above) = 3,180,000 clocks, which the first (full) wave lasts.
TEST(Hopper, FirstThreadLoopIsOneWarpsPath) {
  KernelProfile k = round_kernel();
  k.access_patterns = AccessPatterns{{}, "hand", FirstThreadLoop{0x100, 0x400, {"ctaid.x", "tid.x"}, 60, 2}};
  const Prediction p = predict_hopper(round_device(), k);
  EXPECT_DOUBLE_EQ(p.t_first_thread, 320000 * 2 + 16000 / 4 * 635.0);
  EXPECT_DOUBLE_EQ(p.t_wave, p.t_first_thread);
  EXPECT_EQ(p.bound, "first thread");
  EXPECT_DOUBLE_EQ(p.cycles, p.t_first_thread + norm3(835, 400, 128));  // unfitted: full + partial wave
  // A block of two rows whose guard tests no tid.y runs the region in each row: not one thread's.
  k.launch.block = {128, 2, 1};
  const Prediction rows = predict_hopper(round_device(), k);
  EXPECT_TRUE(std::isnan(rows.t_first_thread));
  EXPECT_NE(rows.bound, "first thread");
  // Without the region the launch is the by-hand one.
  k = round_kernel();
  EXPECT_TRUE(std::isnan(predict_hopper(round_device(), k).t_first_thread));
}

// H.1e: 1,000 blocks of 256 threads of which 2,000 pass an exit at a constant bound: the launch is
// priced as the 8 blocks holding them, each warp with 125 times the counted per-warp work.
TEST(Hopper, AnExitAtAConstantBoundLeavesTheWorkToTheBlocksThatPass) {
  KernelProfile k = round_kernel();
  k.access_patterns = AccessPatterns{};
  k.access_patterns->threads_under_constant_bound = 2000;
  const Prediction p = predict_hopper(round_device(), k);
  KernelProfile eight = round_kernel();
  eight.launch.grid = {8, 1, 1};
  scale_per_warp_counts(eight, 125);
  const Prediction expected = predict_hopper(round_device(), eight);
  EXPECT_EQ(p.occupancy.total_blocks, 8);
  EXPECT_DOUBLE_EQ(p.cycles, expected.cycles);
  EXPECT_NE(std::find_if(p.notes.begin(), p.notes.end(),
                         [](const std::string& n) { return n.find("H.1e") != std::string::npos; }),
            p.notes.end());
  // A bound past the launch's threads changes nothing; nor does a 2-D block (the bound is 1-D).
  k.access_patterns->threads_under_constant_bound = 256000;
  EXPECT_DOUBLE_EQ(predict_hopper(round_device(), k).cycles, predict_hopper(round_device(), round_kernel()).cycles);
  k.access_patterns->threads_under_constant_bound = 2000;
  k.launch.block = {128, 2, 1};
  EXPECT_EQ(predict_hopper(round_device(), k).occupancy.total_blocks, 1000);
}

TEST(Hopper, Calibration) {
  DeviceProfile d = round_device();
  d.hopper_calibration = DeviceProfile::HopperCalibration{1000, 2, 10, 5, 0, "test"};
  KernelProfile k = round_kernel();
  k.inst_per_warp = 20;
  k.sfu_inst_per_warp = 0;
  k.l2_miss_ratio = 0.75;
  k.sync_inst_per_warp = 3;
  const Prediction p = predict_hopper(d, k);
  const double waves_time = norm3(698.4375, 320, 768) + norm3(698.4375, 80, 192);
  EXPECT_DOUBLE_EQ(p.t_wave, norm3(698.4375, 320, 768));  // the constants do not enter the waves
  // H.12: two waves, each paying 3 barriers per warp at 5 cycles
  EXPECT_DOUBLE_EQ(p.cycles, 1000 + 2 * waves_time + 10 * 2 + 5 * 2 * 3);
}

// H.12b: a launch timed by a counter range is predicted with the device's measured overhead added (in
// cycles at the SM clock, outside the waves); one timed by the Activity API, or a device without the
// measurement, is predicted as before.
TEST(Hopper, CounterRangeOverheadOnlyForLaunchesTimedByOne) {
  DeviceProfile d = round_device();
  d.hopper_calibration = DeviceProfile::HopperCalibration{1000, 2, 10, 5, 0, "test"};
  KernelProfile k = round_kernel();
  const Prediction activity = predict_hopper(d, k);
  EXPECT_DOUBLE_EQ(activity.t_counter_range, 0);
  k.timed_by_counter_range = true;
  const Prediction unmeasured = predict_hopper(d, k);
  EXPECT_DOUBLE_EQ(unmeasured.t_counter_range, 0);
  EXPECT_DOUBLE_EQ(unmeasured.cycles, activity.cycles);
  d.hopper_calibration->counter_range_overhead_ns = 1500;
  const Prediction ranged = predict_hopper(d, k);
  EXPECT_DOUBLE_EQ(ranged.t_counter_range, 1500 * d.sm_clock_mhz / 1000);
  EXPECT_DOUBLE_EQ(ranged.cycles, activity.cycles + ranged.t_counter_range);
  EXPECT_DOUBLE_EQ(ranged.seconds, activity.seconds + 1500e-9);
  EXPECT_DOUBLE_EQ(ranged.t_wave, activity.t_wave);
  k.timed_by_counter_range = false;
  EXPECT_DOUBLE_EQ(predict_hopper(d, k).cycles, activity.cycles);
}

// H.4: the control bits' stall count, when the profile has it, replaces lat_dep / ILP; a count
// below one instruction per clock is read as one.
TEST(Hopper, StallCountSetsTheWarpSchedule) {
  KernelProfile k = round_kernel();
  k.stall_cycles_per_inst = 2.5;
  EXPECT_DOUBLE_EQ(predict_hopper(round_device(), k).t_schedule, 250);
  k.stall_cycles_per_inst = 0.5;
  EXPECT_DOUBLE_EQ(predict_hopper(round_device(), k).t_schedule, 100);
}

// H.6 waits for loads only: with 2 of the 4 memory instructions loads, MLP caps at 2 and one batch
// of two loads waits 200 x 0.5^2 + 600 x (1 - 0.5^2) = 500 plus one departure of 20. The stores
// still move bytes (H.7).
TEST(Hopper, StoresAreNotRoundTrips) {
  KernelProfile k = round_kernel();
  const Prediction all_loads = predict_hopper(round_device(), k);
  k.global_load_inst_per_warp = 2;
  const Prediction p = predict_hopper(round_device(), k);
  EXPECT_DOUBLE_EQ(p.mlp, 2);
  EXPECT_DOUBLE_EQ(p.t_mem_latency, 520);
  EXPECT_DOUBLE_EQ(p.t_l1_data, all_loads.t_l1_data);
  EXPECT_TRUE(std::none_of(p.notes.begin(), p.notes.end(),
                           [](const std::string& n) { return n.find("global_load") != std::string::npos; }));
  ASSERT_TRUE(std::any_of(all_loads.notes.begin(), all_loads.notes.end(),
                          [](const std::string& n) { return n.find("global_load") != std::string::npos; }));
}

// H.9 with the written bytes known: reads at the read rate, writes at the write rate, each shared by
// the wave's 100 SMs: 64 x (768 / 64 + 256 / 16) = 1792.
TEST(Hopper, DramReadsAndWritesAtTheirOwnRates) {
  DeviceProfile d = round_device();
  d.dram_read_bandwidth_gbs = 6400;   // 64 B/clk per SM
  d.dram_write_bandwidth_gbs = 1600;  // 16 B/clk per SM
  KernelProfile k = round_kernel();
  k.dram_bytes_per_warp = 1024;
  k.dram_write_bytes_per_warp = 256;
  EXPECT_DOUBLE_EQ(predict_hopper(d, k).t_dram_bandwidth, 1792);
  k.dram_write_bytes_per_warp.reset();  // no split: all 1024 bytes at the copy rate, 32 per SM
  EXPECT_DOUBLE_EQ(predict_hopper(d, k).t_dram_bandwidth, 64 * 1024 / 32.0);
}

// H.6: only the lines that miss L1 leave the SM and wait their departure.
TEST(Hopper, DeparturesCountTheLinesThatLeaveTheSmOnly) {
  KernelProfile k = round_kernel();
  k.l1_miss_ratio = 0.25;
  k.transactions_per_request = 16;  // 4 lines per request; a batch of 4 loads: 16 lines, 4 of them leave
  EXPECT_DOUBLE_EQ(hopper_eq::batch_departures(4, 16, 0.25, 20), 3 * 20.0);
  EXPECT_DOUBLE_EQ(hopper_eq::batch_departures(4, 16, 1.0, 20), 15 * 20.0);
  EXPECT_DOUBLE_EQ(hopper_eq::batch_departures(1, 4, 0.0, 20), 0.0);  // an L1 hit departs nowhere
  const Prediction hits = predict_hopper(round_device(), k);
  k.l1_miss_ratio = 1;
  const Prediction misses = predict_hopper(round_device(), k);
  // 4 loads in one batch: the departures differ by (15 - 3) x 20 beside the batch latency's own change
  EXPECT_LT(hits.t_mem_latency, misses.t_mem_latency - 12 * 20.0);
}

// H.8: L2 writes at the L2's write rate when characterize measured it; one SM is not held to
// 1/#SMs of the L2 when it is alone.
TEST(Hopper, L2WritesAtTheirOwnRateAndALoneSmIsNotGivenAShare) {
  DeviceProfile d = round_device();
  KernelProfile k = round_kernel();
  k.l2_bytes_per_warp = 1024;
  k.l2_write_bytes_per_warp = 256;
  k.dram_bytes_per_warp = 0;
  const double before = predict_hopper(d, k).t_l2_bandwidth;
  // H.8e: the 256 counted written bytes are 256 / 1.5 sent.
  EXPECT_DOUBLE_EQ(before, 64 * (768 + 256 / 1.5) / 64.0);  // no write rate: every byte at the read rate
  d.l2_write_bandwidth_gbs = 1600;                          // 16 B/clk per SM with 100 SMs busy
  EXPECT_DOUBLE_EQ(predict_hopper(d, k).t_l2_bandwidth, 64 * (768 / 64.0 + 256 / 1.5 / 16.0));
  // One block on one SM: the whole device's L2 rates, capped by the SM's own L1 path (128 B/clk).
  k.launch.grid = {1, 1, 1};
  const Prediction lone = predict_hopper(d, k);
  EXPECT_DOUBLE_EQ(lone.t_l2_bandwidth, 8 * (768 / 128.0 + 256 / 1.5 / 128.0));
}

// H.7: with the data pipe's wavefronts counted, each is 128 bytes of the L1 path (one per clock).
TEST(Hopper, L1DataPathFromTheCountedWavefronts) {
  KernelProfile k = round_kernel();
  const double from_requests = predict_hopper(round_device(), k).t_l1_data;
  EXPECT_DOUBLE_EQ(from_requests, 64 * (4 * 4 * 32) / 128.0);  // 4 requests x 4 sectors x 32 B
  k.l1_wavefronts_per_warp = 66;  // e.g. lanes walking rows: a wavefront per sector, and then some
  EXPECT_DOUBLE_EQ(predict_hopper(round_device(), k).t_l1_data, 64 * 66.0);
  const KernelProfile back = kernel_from_json(to_json(k), "round-trip");
  EXPECT_EQ(back.l1_wavefronts_per_warp, 66);
}

// H.6: a local load (LDL) is a round trip like a global load.
TEST(Hopper, LocalLoadsAreRoundTrips) {
  KernelProfile k = round_kernel();
  k.global_load_inst_per_warp = 4;
  const double four = predict_hopper(round_device(), k).t_mem_latency;
  k.local_load_inst_per_warp = 4;  // eight loads in batches of MLP 4: twice the round trips
  EXPECT_DOUBLE_EQ(predict_hopper(round_device(), k).t_mem_latency, 2 * four);
  EXPECT_EQ(kernel_from_json(to_json(k), "round-trip").local_load_inst_per_warp, 4);
}

// H.13: the blocks of a wave are handed to an SM one after another, while the resident blocks move
// their data: H.11 takes the narrower of dispatch and the data levels.
TEST(Hopper, BlockDispatchOverlapsTheWave) {
  DeviceProfile d = round_device();
  const KernelProfile k = round_kernel();
  const Prediction without = predict_hopper(d, k);
  EXPECT_DOUBLE_EQ(without.t_block_dispatch, 0);
  d.block_dispatch_cycles = 150;
  const Prediction p = predict_hopper(d, k);
  EXPECT_DOUBLE_EQ(p.t_block_dispatch, 8 * 150.0);  // 8 resident blocks per SM in the full wave
  // H.11b: dispatch 1200 is shorter than the full wave's norm of warp 835, issue slots 1600, data 512
  EXPECT_DOUBLE_EQ(p.t_wave, norm3(835, 1600, 512));
  // partial wave, 2 blocks per SM: dispatch 300 under the norm of 835, issue slots 400, data 128
  EXPECT_DOUBLE_EQ(p.t_last_wave, norm3(835, 400, 128));
  EXPECT_EQ(p.bound, "issue");  // the largest term; dispatch, shorter than the wave, bounds nothing
  // At 400 clocks a block the full wave's 8 blocks take 3200, longer than the rest: dispatch sets it.
  d.block_dispatch_cycles = 400;
  const Prediction slow = predict_hopper(d, k);
  EXPECT_DOUBLE_EQ(slow.t_wave, 3200);
  EXPECT_EQ(slow.bound, "block dispatch");
  d.block_dispatch_cycles = 150;
  const DeviceProfile back = device_from_json(to_json(d), "round-trip");
  EXPECT_EQ(back.block_dispatch_cycles, d.block_dispatch_cycles);
  d.l2_write_bandwidth_gbs = 1600;
  EXPECT_EQ(device_from_json(to_json(d), "round-trip").l2_write_bandwidth_gbs, 1600);
  d.dram_random_read_bandwidth_gbs = 900;
  d.l2_random_read_bandwidth_gbs = 1700;
  const DeviceProfile random_back = device_from_json(to_json(d), "round-trip");
  EXPECT_EQ(random_back.dram_random_read_bandwidth_gbs, 900);
  EXPECT_EQ(random_back.l2_random_read_bandwidth_gbs, 1700);
  d.dram_read_rows_32b_gbs = 1900;
  d.dram_read_rows_64b_gbs = 2100;
  d.dram_read_rows_128b_gbs = 2200;
  d.dram_write_rows_32b_gbs = 1800;
  d.dram_write_rows_64b_gbs = 2600;
  d.dram_write_rows_128b_gbs = 2800;
  const DeviceProfile rows_back = device_from_json(to_json(d), "round-trip");
  EXPECT_EQ(rows_back.dram_read_rows_32b_gbs, 1900);
  EXPECT_EQ(rows_back.dram_read_rows_64b_gbs, 2100);
  EXPECT_EQ(rows_back.dram_read_rows_128b_gbs, 2200);
  EXPECT_EQ(rows_back.dram_write_rows_32b_gbs, 1800);
  EXPECT_EQ(rows_back.dram_write_rows_64b_gbs, 2600);
  EXPECT_EQ(rows_back.dram_write_rows_128b_gbs, 2800);
}

// H.16: a gather's sectors, hits at the L2's random-sector rate and misses at DRAM's, the slower.
TEST(HopperEquations, GatherAtRandomSectorRates) {
  // 10 warps x 4 sectors x 32 B = 1280 B; half hit: 640 B / 64 B per clock = 10, 640 / 16 = 40.
  EXPECT_DOUBLE_EQ(hopper_eq::t_gather(10, 4, 0.5, 64, 16), 40);
  EXPECT_DOUBLE_EQ(hopper_eq::t_gather(10, 4, 1.0, 64, 16), 20) << "every sector in L2";
  EXPECT_DOUBLE_EQ(hopper_eq::t_gather(10, 4, 0.9, 64, 16), 1280 * 0.9 / 64) << "the hits set the pace";
  EXPECT_DOUBLE_EQ(hopper_eq::t_gather(10, 0, 0.5, 64, 16), 0) << "no gather";
  EXPECT_DOUBLE_EQ(hopper_eq::t_gather(10, 4, 0.5, 64, 0), 0) << "not measured: no term";
  // H.16d: 4 gathered sectors of 32 B, half of them hits, are 64 B; 640 B of hits a warp move from
  // 64 B per clock to 16 within H.8: 10 x 640 x (1/16 - 1/64).
  EXPECT_DOUBLE_EQ(hopper_eq::gathered_l2_hit_bytes(4, 0.5), 64);
  EXPECT_DOUBLE_EQ(hopper_eq::t_gathered_l2_hits(10, 640, 64, 16), 300);
  EXPECT_DOUBLE_EQ(hopper_eq::t_gathered_l2_hits(10, 640, 64, 0), 0) << "not measured: no term";
  EXPECT_DOUBLE_EQ(hopper_eq::t_gathered_l2_hits(10, 0, 64, 16), 0) << "no gather";
}

// A gather out[i] = x[idx[i]]: a coalesced index load and one whose address comes from it.
KernelProfile gather_kernel(bool from_loaded_data) {
  KernelProfile k = round_kernel();
  k.global_load_inst_per_warp = 2;
  k.transactions_per_request = 18;  // (4 + 32) / 2
  AccessPatterns patterns;
  MemoryAccess index;
  index.opcode = "LDG.E";
  index.address = AddressPolynomial{{4, {"tid.x"}}, {1, {"param:0x210"}}};
  MemoryAccess gathered;
  gathered.opcode = "LDG.E";
  gathered.address_from_loaded_data = from_loaded_data;  // irregular either way
  patterns.accesses = {index, gathered};
  k.access_patterns = patterns;
  return k;
}

TEST(Hopper, GathersReadAtTheRandomSectorRates) {
  DeviceProfile d = round_device();
  d.l2_random_read_bandwidth_gbs = 3200;   // 3200 B per clock at 1000 MHz: 32 per SM of 100
  d.dram_random_read_bandwidth_gbs = 800;  // 8 per SM
  const Prediction p = predict_hopper(d, gather_kernel(true));
  // 32 of the 36 sectors of the two loads are gathered, all miss L1; half of them miss L2:
  // 64 warps x 32 sectors x 32 B x max(0.5 / 32, 0.5 / 8).
  EXPECT_DOUBLE_EQ(p.t_gather, 64 * 32 * 32 * 0.5 / 8);
  EXPECT_GE(p.t_data, p.t_gather);
  // H.16d: the L2 reads (4 requests of 18 sectors, 2304 B, at 64 B per clock and SM) hold the 512 B
  // of gathered hits, which go at the random rate (32) within H.8; at most the L2 reads H.8 streams.
  EXPECT_DOUBLE_EQ(p.t_l2_bandwidth, 64 * ((2304 - 512) / 64.0 + 512 / 32.0));
  KernelProfile few_reads = gather_kernel(true);
  few_reads.l2_bytes_per_warp = 256;
  EXPECT_DOUBLE_EQ(predict_hopper(d, few_reads).t_l2_bandwidth, 64 * 256 / 32.0);
  // An irregular load whose address is not from loaded data is no gather; nor is anything without
  // the measured rates.
  EXPECT_DOUBLE_EQ(predict_hopper(d, gather_kernel(false)).t_gather, 0);
  EXPECT_DOUBLE_EQ(predict_hopper(round_device(), gather_kernel(true)).t_gather, 0);
}

// H.16a-b through predict_hopper: a warp-per-row CSR product. Its row data (4 sectors a request,
// at a loaded row start the warp shares, SASS) streams and misses L1; its gathers into a vector that
// fits in L1 (20 sectors a request) hit: the counters' L1 misses are the row data's, so no gathered
// sector leaves L1, where the kernel's average miss ratio priced a sixth of them at the random rates.
TEST(Hopper, GathersThatHitL1AreNotPricedAtTheRandomRates) {
  DeviceProfile d = round_device();
  d.l2_random_read_bandwidth_gbs = 3200;
  d.dram_random_read_bandwidth_gbs = 800;
  KernelProfile k = gather_kernel(true);
  (*k.access_patterns).accesses[0].address =
      AddressPolynomial{{4, {"ld(param:0x218 + 4*tid.y)"}}, {4, {"tid.x"}}, {1, {"param:0x210"}}};
  k.transactions_per_request = 12;  // (4 + 20) / 2
  k.l1_miss_ratio = 4.0 / 24;       // the row data's 4 sectors of the 24
  const Prediction p = predict_hopper(d, k);
  EXPECT_DOUBLE_EQ(p.scattered_load_share, 20.0 / 24) << "H.16a: the 20 sectors the row data leaves";
  EXPECT_DOUBLE_EQ(p.t_gather, 0) << "H.16b: every miss is the row data's";
  // Misses beyond the row data's are the gathers': half the gathered sectors.
  k.l1_miss_ratio = 14.0 / 24;
  EXPECT_DOUBLE_EQ(predict_hopper(d, k).t_gather, 64 * 10 * 32 * 0.5 / 8);
}

// H.5c through predict_hopper: the gathered load's 32 of the 36 sectors wait the measured scattered
// latency when they miss L2. One batch of the two loads, both miss L1, L2 misses half: the DRAM term
// of the expected maximum is (1 - 0.5^2) x DRAM_lat'.
TEST(Hopper, GathersWaitTheScatteredDramLatency) {
  DeviceProfile d = round_device();
  const Prediction plain = predict_hopper(d, gather_kernel(true));
  d.dram_scattered_latency_cycles = 1000;  // against DRAM_lat 600
  const Prediction scattered = predict_hopper(d, gather_kernel(true));
  EXPECT_DOUBLE_EQ(scattered.scattered_load_share, 32.0 / 36);
  EXPECT_NEAR(scattered.batch_latency - plain.batch_latency, 0.75 * (32.0 / 36) * 400, 1e-9);
  // An irregular load whose address is not from loaded data is not scattered by this rule.
  const Prediction irregular = predict_hopper(d, gather_kernel(false));
  EXPECT_DOUBLE_EQ(irregular.scattered_load_share, 0);
  EXPECT_DOUBLE_EQ(irregular.batch_latency, predict_hopper(round_device(), gather_kernel(false)).batch_latency);
}

// H.6b through predict_hopper: two loads a warp in one loop, one of them at an address the loop
// does not move; L1 misses half the loads, L2 misses all of what reaches it.
KernelProfile reload_kernel(bool invariant) {
  KernelProfile k = round_kernel();
  k.global_load_inst_per_warp = 2;
  k.mlp = 2;
  k.l1_miss_ratio = 0.5;
  k.l2_miss_ratio = 1;
  MemoryAccess data, mean;
  data.opcode = mean.opcode = "LDG.E";
  data.loop_depth = mean.loop_depth = 1;
  data.address = AddressPolynomial{{4, {"tid.x"}}, {1, {"param:0x210"}}, {4, {"param:0x224", "u:j0x280:R12"}}};
  mean.address = AddressPolynomial{{4, {"tid.x"}}, {1, {"param:0x218"}}};
  if (!invariant) mean.address->push_back({4, {"u:j0x280:R12"}});
  k.access_patterns = AccessPatterns{{data, mean}, "test"};
  return k;
}

TEST(Hopper, LoopInvariantLoadsHitL1AndTheOthersCarryTheMisses) {
  const DeviceProfile d = round_device();
  const Prediction reused = predict_hopper(d, reload_kernel(true));
  EXPECT_DOUBLE_EQ(reused.reused_load_share, 0.5);
  // One batch of 2: the walking load always goes to DRAM (600), plus one line's departure: 2 x 1 x 0.5 - 1 = 0.
  EXPECT_DOUBLE_EQ(reused.batch_latency, 600);
  EXPECT_DOUBLE_EQ(reused.t_mem_latency, 600);
  const Prediction iid = predict_hopper(d, reload_kernel(false));
  EXPECT_DOUBLE_EQ(iid.reused_load_share, 0);
  EXPECT_DOUBLE_EQ(iid.batch_latency, 30 * 0.25 + 600 * 0.75);
}

TEST(Hopper, ForcedWarpsPerSmIsIgnoredForWholeWaves) {
  KernelProfile k = round_kernel();
  const double free_cycles = predict_hopper(round_device(), k).cycles;
  k.launch.active_warps_per_sm = 40.5;  // e.g. CUPTI's achieved occupancy
  const Prediction p = predict_hopper(round_device(), k);
  EXPECT_EQ(p.occupancy.n, 64);
  EXPECT_DOUBLE_EQ(p.cycles, free_cycles);
  ASSERT_FALSE(p.notes.empty());
}

// H.8b: 2 local loads per warp beside 4 global ones. The L2 reads 1536 B a warp: the global loads'
// misses are 512 (4 x 4 sectors x 32 B), so 1024 are the local loads'. Scattered requests carry
// (s - 8) 32 / (24 s) of them, at the random-sector rate (16 B per clock and SM) instead of 64.
TEST(Hopper, ScatteredLocalReadsGoAtTheRandomL2Rate) {
  DeviceProfile d = round_device();
  d.l2_random_read_bandwidth_gbs = 1600;
  d.dram_random_read_bandwidth_gbs = 800;
  KernelProfile k = round_kernel();
  k.global_load_inst_per_warp = 4;
  k.local_load_inst_per_warp = 2;
  k.l2_bytes_per_warp = 1536;
  k.dram_bytes_per_warp = 256;
  EXPECT_DOUBLE_EQ(predict_hopper(d, k).t_l2_bandwidth, 64 * 1536 / 64.0) << "no local sector count: H.8";
  k.local_load_sectors_per_request = 8;  // coalesced (a spill of 8-byte words)
  EXPECT_DOUBLE_EQ(predict_hopper(d, k).t_l2_bandwidth, 64 * 1536 / 64.0);
  k.local_load_sectors_per_request = 32;  // every lane its own sector
  EXPECT_DOUBLE_EQ(predict_hopper(d, k).t_l2_bandwidth, 64 * (512 / 64.0 + 1024 / 16.0));
  EXPECT_DOUBLE_EQ(predict_hopper(d, k).l2_scattered_read_bytes, 1024);
  // DRAM: 192 B read (of 256; 64 written), 2/3 of it behind the scattered L2 reads, at 8 B per clock
  // and SM instead of 32.
  k.dram_write_bytes_per_warp = 64;
  d.dram_read_bandwidth_gbs = 3200;
  d.dram_write_bandwidth_gbs = 3200;
  EXPECT_DOUBLE_EQ(predict_hopper(d, k).t_dram_bandwidth, 64 * (64 / 32.0 + 128 / 8.0 + 64 / 32.0));
  k.local_load_sectors_per_request = 8;
  EXPECT_DOUBLE_EQ(predict_hopper(d, k).t_dram_bandwidth, 64 * (192 / 32.0 + 64 / 32.0));
  k.local_load_sectors_per_request = 32;
  k.local_load_sectors_per_request = 20;  // a mix: 0.8 of the sectors scattered
  EXPECT_NEAR(predict_hopper(d, k).t_l2_bandwidth, 64 * ((1536 - 819.2) / 64.0 + 819.2 / 16.0), 1e-9);
  d.l2_random_read_bandwidth_gbs.reset();
  d.dram_random_read_bandwidth_gbs.reset();
  EXPECT_DOUBLE_EQ(predict_hopper(d, k).t_l2_bandwidth, 64 * 1536 / 64.0) << "no measured random rate";
  EXPECT_DOUBLE_EQ(predict_hopper(d, k).t_dram_bandwidth, 64 * (192 / 32.0 + 64 / 32.0));
}

// H.9c: 256 B of DRAM a warp, 64 of them written, and no global store: the writes are the local
// lines' write-backs, and scattered local stores carry (s - 8) 32 / (24 s) of them, at the random
// write rate (8 B per clock and SM) instead of the streaming one (32).
TEST(Hopper, ScatteredLocalWriteBacksGoAtTheRandomDramWriteRate) {
  DeviceProfile d = round_device();
  d.dram_read_bandwidth_gbs = 3200;
  d.dram_write_bandwidth_gbs = 3200;
  d.dram_random_write_bandwidth_gbs = 800;
  KernelProfile k = round_kernel();
  k.global_load_inst_per_warp = 4;
  k.dram_bytes_per_warp = 256;
  k.dram_write_bytes_per_warp = 64;
  const double streaming = 64 * (192 / 32.0 + 64 / 32.0);
  EXPECT_DOUBLE_EQ(predict_hopper(d, k).t_dram_bandwidth, streaming) << "no local store sector count: H.9";
  k.local_store_sectors_per_request = 8;  // a spill or a cleared array: coalesced
  EXPECT_DOUBLE_EQ(predict_hopper(d, k).t_dram_bandwidth, streaming);
  EXPECT_DOUBLE_EQ(predict_hopper(d, k).dram_scattered_write_bytes, 0);
  k.local_store_sectors_per_request = 32;  // every lane its own sector
  EXPECT_DOUBLE_EQ(predict_hopper(d, k).t_dram_bandwidth, 64 * (192 / 32.0 + 64 / 8.0));
  EXPECT_DOUBLE_EQ(predict_hopper(d, k).dram_scattered_write_bytes, 64);
  k.local_store_sectors_per_request = 20;  // a mix: 0.8 of the sectors scattered
  EXPECT_DOUBLE_EQ(predict_hopper(d, k).t_dram_bandwidth, 64 * (192 / 32.0 + 12.8 / 32.0 + 51.2 / 8.0));
  // Two global stores of a line each (256 B) explain every written byte: nothing moves.
  KernelProfile stores = k;
  stores.mem_inst_per_warp = 6;
  stores.store_sectors_per_request = 4;
  EXPECT_DOUBLE_EQ(predict_hopper(d, stores).t_dram_bandwidth, streaming);
  d.dram_random_write_bandwidth_gbs.reset();
  EXPECT_DOUBLE_EQ(predict_hopper(d, k).t_dram_bandwidth, streaming) << "no measured random write rate";
}

// H.9d: a kernel that writes back half its stores to the lines it read (rf[i] = rf[i] * c[i]; out[i]
// elsewhere) moves those lines' reads and writes at the in-place rate; without the rate, or without
// such a store, H.9 is left as it was.
TEST(Hopper, LinesWrittenBackInPlaceGoAtTheInPlaceRate) {
  DeviceProfile d = round_device();
  d.dram_read_bandwidth_gbs = 3200;
  d.dram_write_bandwidth_gbs = 3200;
  KernelProfile k = round_kernel();
  k.global_load_inst_per_warp = 2;
  k.dram_bytes_per_warp = 256;
  k.dram_write_bytes_per_warp = 128;
  const AddressPolynomial rf = {{1, {"param:0x210"}}, {4, {"tid.x"}}, {4, {"ctaid.x", "ntid.x"}}};
  AddressPolynomial c = rf, out = rf;
  c[0] = {1, {"param:0x218"}};
  out[0] = {1, {"param:0x220"}};
  MemoryAccess load_rf, load_c, store_rf, store_out;
  load_rf.opcode = load_c.opcode = "LDG.E";
  load_rf.address = rf, load_c.address = c;
  load_c.offset = 16;
  store_rf.kind = store_out.kind = AccessKind::store;
  store_rf.opcode = store_out.opcode = "STG.E";
  store_rf.address = rf, store_out.address = out;
  store_rf.offset = 32, store_out.offset = 48;
  k.access_patterns = AccessPatterns{{load_rf, load_c, store_rf, store_out}, "test"};
  const double streaming = 64 * (128 / 32.0 + 128 / 32.0);  // reads 128 B, writes 128 B a warp at 32 B/clk/SM
  EXPECT_DOUBLE_EQ(predict_hopper(d, k).t_dram_bandwidth, streaming) << "no measured in-place rate: H.9";
  EXPECT_DOUBLE_EQ(predict_hopper(d, k).inplace_store_share, 0.5);
  d.dram_inplace_bandwidth_gbs = 1600;  // 16 B/clk/SM: half the streaming rates
  // 64 of the 128 written bytes go back to lines read, with 64 of the read bytes: 128 B at 16 B/clk.
  EXPECT_DOUBLE_EQ(predict_hopper(d, k).t_dram_bandwidth, 64 * (64 / 32.0 + 64 / 32.0 + 128 / 16.0));
  k.access_patterns->accesses[2].address = out;  // no store at a load's address
  EXPECT_DOUBLE_EQ(predict_hopper(d, k).inplace_store_share, 0.0);
  EXPECT_DOUBLE_EQ(predict_hopper(d, k).t_dram_bandwidth, streaming);
}

TEST(HopperEquations, InPlaceBytesNeverExceedTheReads) {
  // All 100 written bytes in place but only 40 read: 40 of each at the in-place rate.
  EXPECT_DOUBLE_EQ(hopper_eq::t_dram_inplace(2, 40, 10, 100, 20, 1.0, 5), 2 * (0 / 10.0 + 60 / 20.0 + 80 / 5.0));
  EXPECT_DOUBLE_EQ(hopper_eq::t_dram_inplace(2, 40, 10, 100, 20, 0.0, 5), hopper_eq::t_dram(2, 40, 10, 100, 20));
}

// One block of `threads` threads, each warp averaging 25 instructions and one global load.
KernelProfile one_block_kernel(long long threads) {
  KernelProfile k = round_kernel();
  k.launch.grid = {1, 1, 1};
  k.launch.block = {threads, 1, 1};
  k.inst_per_warp = 25;
  k.mem_inst_per_warp = 1;
  k.global_load_inst_per_warp = 1;
  k.mlp = 1;
  return k;
}

// H.1b: one block of 4 warps of which one works (a chase of 32 chains in a 128-thread block): the
// counters' per-warp averages are a quarter of the working warp's, and CUPTI's achieved occupancy
// says 1 warp was active.
TEST(Hopper, OneWaveLaunchRunsItsMeasuredWorkingWarps) {
  KernelProfile k = one_block_kernel(128);  // the working warp's 100 instructions, averaged over 4
  const Prediction averaged = predict_hopper(round_device(), k);
  EXPECT_DOUBLE_EQ(averaged.working_warps_per_sm, 4);
  k.launch.active_warps_per_sm = 1;
  const Prediction p = predict_hopper(round_device(), k);
  EXPECT_EQ(p.occupancy.n, 4) << "N stays the occupancy rules'";
  EXPECT_DOUBLE_EQ(p.working_warps_per_sm, 1);
  EXPECT_DOUBLE_EQ(p.t_schedule, 4 * averaged.t_schedule) << "the working warp runs all 100 instructions";
  EXPECT_DOUBLE_EQ(p.t_mem_latency, 4 * averaged.t_mem_latency) << "and all 4 loads";
  EXPECT_DOUBLE_EQ(p.t_issue, 100) << "ceil(1 / 4) x 100 on one scheduler";
  EXPECT_DOUBLE_EQ(p.t_l2_bandwidth, averaged.t_l2_bandwidth) << "the bytes are the same";
  // With MLP 8 the averaged warp's one load is a batch of 1, the working warp's 4 loads one batch of
  // 4 (H.6: the batch is min(MLP, loads) of the warp that runs): its latency is the batch's, not 4
  // batches of 1.
  k.mlp = 8;
  const Prediction mlp_averaged = predict_hopper(round_device(), k);
  EXPECT_DOUBLE_EQ(mlp_averaged.mlp, 4) << "the working warp's loads";
  k.launch.active_warps_per_sm = 4;  // every warp works: batches of its 1 load
  const Prediction all_work = predict_hopper(round_device(), k);
  EXPECT_DOUBLE_EQ(all_work.mlp, 1);
  EXPECT_DOUBLE_EQ(mlp_averaged.t_mem_latency, mlp_averaged.batch_latency) << "one batch of 4";
  EXPECT_GT(mlp_averaged.batch_latency, all_work.batch_latency) << "the maximum of 4 loads' latencies";
  EXPECT_LT(mlp_averaged.t_mem_latency, 4 * all_work.t_mem_latency) << "not 4 batches of 1";
  k.mlp = 1;
  // Never more working warps than resident ones, never fewer than one.
  k.launch.active_warps_per_sm = 7;
  EXPECT_DOUBLE_EQ(predict_hopper(round_device(), k).working_warps_per_sm, 4);
  k.launch.active_warps_per_sm = 0.2;
  EXPECT_DOUBLE_EQ(predict_hopper(round_device(), k).working_warps_per_sm, 1);
}

// H.1c: the one-block sum of the corpus: a block of 32 warps in which 2 sum while 30 wait at the
// barrier (CUPTI: barrier share 0.94); achieved occupancy counts the waiting warps as active.
TEST(Hopper, WarpsWaitingAtABarrierCarryNoneOfTheWork) {
  EXPECT_DOUBLE_EQ(hopper_eq::warps_not_at_barrier(32, 0.9375), 2);
  EXPECT_DOUBLE_EQ(hopper_eq::warps_not_at_barrier(32, 0), 32);
  EXPECT_DOUBLE_EQ(hopper_eq::warps_not_at_barrier(32, 1), 1) << "at least one warp works";
  EXPECT_DOUBLE_EQ(hopper_eq::warps_not_at_barrier(0.5, 0.5), 0.5) << "never more than the working warps";
  KernelProfile k = one_block_kernel(1024);
  k.launch.active_warps_per_sm = 32;
  const Prediction active = predict_hopper(round_device(), k);
  EXPECT_DOUBLE_EQ(active.working_warps_per_sm, 32);
  k.launch.barrier_wait_share = 0.9375;
  const Prediction p = predict_hopper(round_device(), k);
  EXPECT_DOUBLE_EQ(p.working_warps_per_sm, 2);
  EXPECT_DOUBLE_EQ(p.t_schedule, 16 * active.t_schedule) << "each working warp runs 16 warps' share";
  EXPECT_GT(p.cycles, active.cycles);
  // Over several waves the share is not read (as H.1b's occupancy).
  k.launch.grid = {10000, 1, 1};
  EXPECT_TRUE(std::isnan(predict_hopper(round_device(), k).working_warps_per_sm)) << "kUnused";
}

// H.9b through predict_hopper: a 2D copy out[y][x] = in[y][x] at 8x32 reads and writes one sector of
// each of 4 lines a request; at 32x8 whole lines. DRAM-bound with measured bytes.
KernelProfile copy_2d(long long bx, long long by) {
  KernelProfile k = round_kernel();
  k.launch.block = {bx, by, 1};
  k.launch.grid = {1000, 1, 1};
  k.dram_bytes_per_warp = 256;
  k.dram_write_bytes_per_warp = 128;
  AddressPolynomial in = {{1, {"param:0x210"}}, {4, {"tid.x"}}, {4, {"param:0x220", "tid.y"}}};
  AddressPolynomial out = in;
  out[0] = {1, {"param:0x218"}};
  MemoryAccess load, store;
  load.opcode = "LDG.E";
  load.address = in;
  store.opcode = "STG.E";
  store.kind = AccessKind::store;
  store.address = out;
  k.access_patterns = AccessPatterns{{load, store}, "test"};
  return k;
}

TEST(Hopper, DramRatesFollowTheLineSegmentsOfTheRequests) {
  DeviceProfile d = round_device();
  d.dram_read_bandwidth_gbs = 3200;
  d.dram_write_bandwidth_gbs = 3200;
  const Prediction unmeasured = predict_hopper(d, copy_2d(8, 32));
  EXPECT_DOUBLE_EQ(unmeasured.dram_read_efficiency, 1);
  d.dram_read_rows_32b_gbs = 1600;
  d.dram_read_rows_64b_gbs = 2400;
  d.dram_read_rows_128b_gbs = 3200;
  d.dram_write_rows_32b_gbs = 2000;
  d.dram_write_rows_64b_gbs = 3000;
  d.dram_write_rows_128b_gbs = 4000;
  const Prediction narrow = predict_hopper(d, copy_2d(8, 32));
  EXPECT_DOUBLE_EQ(narrow.dram_read_efficiency, 0.5);
  // 64 warps x (128 B read / (0.5 x 32) + 128 B written / 32) per SM: writes keep their rate.
  EXPECT_DOUBLE_EQ(narrow.t_dram_bandwidth, 64 * (128 / 16.0 + 128 / 32.0));
  const Prediction wide = predict_hopper(d, copy_2d(32, 8));
  EXPECT_DOUBLE_EQ(wide.dram_read_efficiency, 1);
  EXPECT_DOUBLE_EQ(wide.t_dram_bandwidth, 64 * (128 / 32.0 + 128 / 32.0));
}

// H.8c's lone-sector rates: 100 sectors of 4 bytes per clock (1 per SM), 8, 16 and 32 bytes alike.
void set_lone_store_rates(DeviceProfile& d) {
  d.l2_write_sectors_4b_gbs = 400;
  d.l2_write_sectors_8b_gbs = 800;
  d.l2_write_sectors_16b_gbs = 1600;
  d.l2_write_sectors_32b_gbs = 3200;
}

// H.8c through predict_hopper: a naive transpose (a row read, a column written) at 32x8 writes 4
// bytes into each of 32 lines a request; those sectors leave H.8 and go at the 4-byte rate.
TEST(Hopper, LoneStoreSectorsGoAtTheirMeasuredRate) {
  DeviceProfile d = round_device();
  d.l2_write_bandwidth_gbs = 1600;  // 16 B/clk per SM
  KernelProfile k = round_kernel();
  k.launch.block = {32, 8, 1};
  k.mem_inst_per_warp = 2;
  k.global_load_inst_per_warp = 1;
  k.l2_bytes_per_warp = 128 + 1536;
  k.l2_write_bytes_per_warp = 1536;  // 32 sectors counted 1.5 times, as CUPTI does on Hopper
  k.dram_bytes_per_warp = 0;
  MemoryAccess row, column;
  row.opcode = "LDG.E";
  row.address = AddressPolynomial{{1, {"param:0x210"}}, {4, {"tid.x"}}, {4, {"param:0x220", "tid.y"}}};
  column.opcode = "STG.E";
  column.kind = AccessKind::store;
  column.address = AddressPolynomial{{1, {"param:0x218"}}, {4, {"param:0x220", "tid.x"}}, {4, {"tid.y"}}};
  k.access_patterns = AccessPatterns{{row, column}, "test"};
  const Prediction unmeasured = predict_hopper(d, k);
  EXPECT_DOUBLE_EQ(unmeasured.t_l2_bandwidth, 64 * (128 / 64.0 + 1024 / 16.0));  // H.8e: 1536 / 1.5 sent
  EXPECT_DOUBLE_EQ(unmeasured.lone_store_sector_share, 0);
  set_lone_store_rates(d);
  const Prediction lone = predict_hopper(d, k);
  EXPECT_DOUBLE_EQ(lone.lone_store_sector_share, 1);
  EXPECT_DOUBLE_EQ(lone.t_l2_bandwidth, 64 * (128 / 64.0 + 32 / 1.0));
  // CUPTI counting 4 sectors a store request says the SASS misread the column (a stride of 1 at run
  // time): H.8 as before.
  k.store_sectors_per_request = 4;
  EXPECT_DOUBLE_EQ(predict_hopper(d, k).t_l2_bandwidth, unmeasured.t_l2_bandwidth);
  k.store_sectors_per_request = 32;
  EXPECT_DOUBLE_EQ(predict_hopper(d, k).t_l2_bandwidth, lone.t_l2_bandwidth);
  // The rates, the sequential departure delay and the measured sectors round-trip.
  d.departure_delay_sequential_cycles = 11.5;
  const DeviceProfile back = device_from_json(to_json(d), "round-trip");
  EXPECT_EQ(back.l2_write_sectors_4b_gbs, 400);
  EXPECT_EQ(back.l2_write_sectors_8b_gbs, 800);
  EXPECT_EQ(back.l2_write_sectors_16b_gbs, 1600);
  EXPECT_EQ(back.l2_write_sectors_32b_gbs, 3200);
  EXPECT_EQ(back.departure_delay_sequential_cycles, 11.5);
  EXPECT_EQ(kernel_from_json(to_json(k), "round-trip").store_sectors_per_request, 32);
}

// H.8h: 1536 B of counted L2 writes a warp (1024 sent, 32 sectors) and no global store: they are the
// local stores', and scattered local requests carry (s - 8) 32 / (24 s) of them, each sector at the
// 4-byte lone rate (1 sector per clock and SM) instead of the write rate (16 B per clock and SM).
TEST(Hopper, ScatteredLocalStoresGoAtTheLoneSectorRate) {
  DeviceProfile d = round_device();
  d.l2_write_bandwidth_gbs = 1600;
  KernelProfile k = round_kernel();
  k.mem_inst_per_warp = 4;
  k.global_load_inst_per_warp = 4;
  k.l2_bytes_per_warp = 128 + 1536;
  k.l2_write_bytes_per_warp = 1536;
  k.dram_bytes_per_warp = 0;
  k.local_store_sectors_per_request = 32;  // every lane its own sector
  const double streaming = 64 * (128 / 64.0 + 1024 / 16.0);
  EXPECT_DOUBLE_EQ(predict_hopper(d, k).t_l2_bandwidth, streaming) << "no lone-sector rate measured: H.8";
  set_lone_store_rates(d);
  EXPECT_DOUBLE_EQ(predict_hopper(d, k).t_l2_bandwidth, 64 * (128 / 64.0 + 32 / 1.0));
  EXPECT_DOUBLE_EQ(predict_hopper(d, k).l2_scattered_write_bytes, 1024);
  k.local_store_sectors_per_request = 20;  // a mix: 0.8 of the sectors scattered
  EXPECT_NEAR(predict_hopper(d, k).t_l2_bandwidth, 64 * (128 / 64.0 + 204.8 / 16.0 + 25.6 / 1.0), 1e-9);
  k.local_store_sectors_per_request = 8;  // a spill or a cleared array: coalesced
  EXPECT_DOUBLE_EQ(predict_hopper(d, k).t_l2_bandwidth, streaming);
  EXPECT_DOUBLE_EQ(predict_hopper(d, k).l2_scattered_write_bytes, 0);
  k.local_store_sectors_per_request.reset();
  EXPECT_DOUBLE_EQ(predict_hopper(d, k).t_l2_bandwidth, streaming) << "no local store sector count";
  // Two global stores of a line each explain 256 of the sent bytes; the other 768 are the local ones.
  k.local_store_sectors_per_request = 32;
  k.mem_inst_per_warp = 6;
  k.store_sectors_per_request = 4;
  EXPECT_DOUBLE_EQ(predict_hopper(d, k).l2_scattered_write_bytes, 768);
  EXPECT_DOUBLE_EQ(predict_hopper(d, k).t_l2_bandwidth, 64 * (128 / 64.0 + 256 / 16.0 + 24 / 1.0));
}

// H.8f through predict_hopper: stores whose addresses the SASS does not give (no access patterns
// here), counted at 32 sectors a request, have their sectors alone in a line: they leave H.8 for the
// 4-byte lone-sector rate. Counted at 4 sectors a request (whole lines) they stay in H.8.
TEST(Hopper, ScatteredStoresTheSassCannotFollowGoAtTheLoneSectorRate) {
  DeviceProfile d = round_device();
  d.l2_write_bandwidth_gbs = 1600;  // 16 B/clk per SM
  set_lone_store_rates(d);
  KernelProfile k = round_kernel();
  k.mem_inst_per_warp = 2;
  k.global_load_inst_per_warp = 1;
  k.l2_bytes_per_warp = 128 + 1536;
  k.l2_write_bytes_per_warp = 1536;  // 32 sectors sent, counted 1.5 times (H.8e)
  k.dram_bytes_per_warp = 0;
  k.store_sectors_per_request = 32;
  const Prediction scattered = predict_hopper(d, k);
  EXPECT_DOUBLE_EQ(scattered.lone_store_sector_share, 1);
  EXPECT_DOUBLE_EQ(scattered.t_l2_bandwidth, 64 * (128 / 64.0 + 32 / 1.0));
  EXPECT_DOUBLE_EQ(hopper_eq::lone_store_share_from_counters(20), 12.0 * 32 / (24 * 20)) << "H.8b's reading";
  k.store_sectors_per_request = 4;
  const Prediction whole_lines = predict_hopper(d, k);
  EXPECT_DOUBLE_EQ(whole_lines.lone_store_sector_share, 0);
  EXPECT_DOUBLE_EQ(whole_lines.t_l2_bandwidth, 64 * (128 / 64.0 + 1024 / 16.0));
  EXPECT_EQ(hopper_eq::lone_store_fill_index(8), 1) << "a double a lane: the 8-byte rate";
}

// H.8d through predict_hopper: a column read (each lane a different line, one sector of each) at 32x8,
// written along the row. Its L2 reads go at the random-sector rate once that was measured; a read of
// one sector in each of 4 lines (8x32) is coalesced in H.8b's reading and stays at the streaming rate.
KernelProfile column_read(long long bx, long long by) {
  KernelProfile k = round_kernel();
  k.launch.block = {bx, by, 1};
  k.mem_inst_per_warp = 2;
  k.global_load_inst_per_warp = 1;
  k.transactions_per_request = bx == 32 ? 32 : 4;  // as CUPTI counts the column read's sectors
  k.l2_bytes_per_warp = k.transactions_per_request * 32 + 128;
  k.l2_write_bytes_per_warp = 128;
  k.dram_bytes_per_warp = 0;
  MemoryAccess column, row;
  column.opcode = "LDG.E";
  column.address = AddressPolynomial{{1, {"param:0x210"}}, {4, {"param:0x220", "tid.x"}}, {4, {"tid.y"}}};
  row.opcode = "STG.E";
  row.kind = AccessKind::store;
  row.address = AddressPolynomial{{1, {"param:0x218"}}, {4, {"tid.x"}}, {4, {"param:0x220", "tid.y"}}};
  k.access_patterns = AccessPatterns{{column, row}, "test"};
  return k;
}

TEST(Hopper, LoadSectorsAloneInTheirLineGoAtTheRandomSectorRate) {
  EXPECT_DOUBLE_EQ(hopper_eq::lone_load_l2_share(1, 32, 1, 1024), 1);
  EXPECT_DOUBLE_EQ(hopper_eq::lone_load_l2_share(1, 32, 0.25, 1024), 0.25) << "only the L1 misses";
  EXPECT_DOUBLE_EQ(hopper_eq::lone_load_l2_share(1, 64, 1, 1024), 1) << "never more than the L2 reads";
  EXPECT_DOUBLE_EQ(hopper_eq::lone_load_l2_share(0, 32, 1, 1024), 0);
  DeviceProfile d = round_device();
  d.l2_write_bandwidth_gbs = 1600;  // 16 B/clk per SM
  const Prediction unmeasured = predict_hopper(d, column_read(32, 8));
  EXPECT_DOUBLE_EQ(unmeasured.t_l2_bandwidth, 64 * (1024 / 64.0 + 128 / 1.5 / 16.0));
  EXPECT_DOUBLE_EQ(unmeasured.lone_load_l2_share, 0);
  d.l2_random_read_bandwidth_gbs = 3200;   // 32 B/clk per SM
  d.dram_random_read_bandwidth_gbs = 1600;  // H.16's pair
  const Prediction lone = predict_hopper(d, column_read(32, 8));
  EXPECT_DOUBLE_EQ(lone.lone_load_l2_share, 1);
  EXPECT_DOUBLE_EQ(lone.t_l2_bandwidth, 64 * (1024 / 32.0 + 128 / 1.5 / 16.0));
  // 8x32: a sector in each of 4 lines a request, as a 2D stencil's row read: streaming rate.
  const Prediction narrow = predict_hopper(d, column_read(8, 32));
  EXPECT_DOUBLE_EQ(narrow.lone_load_l2_share, 0);
  EXPECT_DOUBLE_EQ(narrow.t_l2_bandwidth, 64 * (128 / 64.0 + 128 / 1.5 / 16.0));
  // CUPTI counting 4 sectors a load request says the SASS misread the column: H.8 as before.
  KernelProfile misread = column_read(32, 8);
  misread.transactions_per_request = 4;
  misread.l2_bytes_per_warp = 128 + 128;
  EXPECT_DOUBLE_EQ(predict_hopper(d, misread).lone_load_l2_share, 0);
}

// H.6d through predict_hopper: the batch's lines leave at the sequential delay when it was measured.
TEST(Hopper, RegularLoadsDepartAtTheSequentialDelay) {
  DeviceProfile d = round_device();
  const KernelProfile k = round_kernel();
  const Prediction scrambled = predict_hopper(d, k);
  EXPECT_DOUBLE_EQ(scrambled.departure_delay, d.departure_delay_coalesced_cycles);
  d.departure_delay_sequential_cycles = d.departure_delay_coalesced_cycles / 2;
  const Prediction sequential = predict_hopper(d, k);
  EXPECT_DOUBLE_EQ(sequential.departure_delay, d.departure_delay_coalesced_cycles / 2);
  EXPECT_LT(sequential.batch_latency, scrambled.batch_latency);
}

TEST(Hopper, MeasuredTrafficOverridesTheDerivedOne) {
  KernelProfile k = round_kernel();
  k.dram_bytes_per_warp = 1024;
  const Prediction p = predict_hopper(round_device(), k);
  EXPECT_DOUBLE_EQ(p.t_dram_bandwidth, 64 * 1024 / 32.0);
  EXPECT_DOUBLE_EQ(p.t_l2_bandwidth, 512);  // still derived: 4 x 4 x 32 x 1.0
}

TEST(Hopper, SharedMemoryAndBankConflictsUseTheL1DataPath) {
  KernelProfile k = round_kernel();
  k.shared_inst_per_warp = 6;
  k.bank_conflicts_per_warp = 2;
  const Prediction p = predict_hopper(round_device(), k);
  EXPECT_DOUBLE_EQ(p.t_l1_data, 64 * (512 + 8 * 128) / 128.0);
}

// The issue's warning: in an occupancy sweep the older variants' N/MWP and #Rep cancel. Here a
// latency-bound kernel must get faster with more warps per SM (fewer waves of the same latency),
// and a bandwidth-heavy one must gain much less. N is set the way the validation sweep sets it:
// unused shared memory per block (228 KiB per SM, 1 KiB reserved per block on sm_90).
double cycles_at(KernelProfile k, int warps_per_sm) {
  const long long blocks_per_sm = warps_per_sm / 2;  // blocks of 64 threads
  k.launch.shared_memory_per_block_bytes = static_cast<int>((233472 / blocks_per_sm) / 128 * 128 - 1024);
  const Prediction p = predict_hopper(round_device(), k);
  EXPECT_EQ(p.occupancy.n, warps_per_sm);
  return p.cycles;
}

TEST(Hopper, OccupancySweepHasShape) {
  KernelProfile k = round_kernel();
  k.inst_per_warp = 20;
  k.sfu_inst_per_warp = 0;
  k.mlp = 1;
  k.launch.block = {64, 1, 1};
  k.launch.grid = {100 * 32, 1, 1};  // the same work at every N
  // 3200 blocks of 2 warps on 100 SMs: 8, 16, 32 and 64 warps per SM take 8, 4, 2 and 1 whole
  // waves. 24 and 48 leave a partial wave that H.1 charges as a wave of its own, so 48 warps (two
  // waves, the first fuller) may take longer than 32 (two waves): wave quantisation, not a flat curve.
  EXPECT_GT(cycles_at(k, 48), cycles_at(k, 64));
  EXPECT_LT(cycles_at(k, 24), cycles_at(k, 16));
  double previous = INFINITY;
  std::vector<double> cycles;
  for (int n : {8, 16, 32, 64}) {
    const double c = cycles_at(k, n);
    EXPECT_LE(c, previous) << n << " warps per SM";
    previous = c;
    cycles.push_back(c);
  }
  const double latency_gain = cycles.front() / cycles.back();
  EXPECT_GT(latency_gain, 4.0) << "latency-bound: 8 warps must be much slower than 64";
  // With 32x the DRAM traffic the bytes dominate each wave: more warps help far less.
  k.dram_bytes_per_warp = 32 * 384.0;
  const double bandwidth_gain = cycles_at(k, 8) / cycles_at(k, 64);
  EXPECT_LT(bandwidth_gain, 1.5);
  EXPECT_GT(bandwidth_gain, 1.0);
}

TEST(Hopper, NeedsTheMeasuredRates) {
  DeviceProfile d = round_device();
  d.l2_read_bandwidth_gbs.reset();
  d.fp32_dependent_latency_cycles.reset();
  try {
    predict_hopper(d, round_kernel());
    FAIL() << "expected ModelError";
  } catch (const ModelError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("latency_cycles.fp32_dependent, bandwidth_gbs.l2_read"), std::string::npos) << what;
    EXPECT_NE(what.find("warpmodel characterize"), std::string::npos) << what;
  }
}

// A characterize output carries the rates in its measurements block; a profile's own
// bandwidth_gbs wins over it.
TEST(Hopper, RatesFromCharacterizeMeasurements) {
  nlohmann::json j = to_json(round_device());
  j.erase("bandwidth_gbs");
  j["latency_cycles"].erase("fp32_dependent");
  j["measurements"] = {{"latency", {{"fp32_fma", {{"warps_1", {{"mean_cycles", 4.0}}}}}}},
                       {"bandwidth",
                        {{"dram_copy", {{"gbs", 3000.0}}},
                         {"l2_read", {{"gbs", 6400.0}}},
                         {"shared_read", {{"gbs", 12800.0}}}}}};
  DeviceProfile d = device_from_json(j, "characterize.json");
  EXPECT_EQ(d.fp32_dependent_latency_cycles, 4.0);
  EXPECT_EQ(d.dram_copy_bandwidth_gbs, 3000.0);
  EXPECT_FALSE(d.dram_read_bandwidth_gbs.has_value());
  j["bandwidth_gbs"] = {{"dram_copy", 3500.0}};
  d = device_from_json(j, "characterize.json");
  EXPECT_EQ(d.dram_copy_bandwidth_gbs, 3500.0);
  EXPECT_EQ(d.l2_read_bandwidth_gbs, 6400.0);
}

// H.5b: DRAM supplied every byte the loads' L1 misses asked for (4 loads x 4 sectors x 32 B), so the
// loads wait as if every one missed L2, though the sector miss ratio says 0.5.
TEST(Hopper, LoadsWaitForTheDramShareOfTheirBytes) {
  KernelProfile streamed = round_kernel();
  streamed.global_load_inst_per_warp = 4;
  streamed.dram_bytes_per_warp = 4 * 4 * 32;
  KernelProfile all_missing = round_kernel();
  all_missing.global_load_inst_per_warp = 4;
  all_missing.l2_miss_ratio = 1;
  const Prediction p = predict_hopper(round_device(), streamed);
  // batch of 4 DRAM loads (600) and the departures of 3 more lines (20 each)
  EXPECT_DOUBLE_EQ(p.t_mem_latency, 600 + 60);
  EXPECT_DOUBLE_EQ(p.t_mem_latency, predict_hopper(round_device(), all_missing).t_mem_latency);
  EXPECT_DOUBLE_EQ(p.amat, 600);
  // Local loads also read DRAM, and their bytes are not among the loads' sectors: the sector ratio.
  KernelProfile spilling = streamed;
  spilling.local_load_inst_per_warp = 2;
  EXPECT_LT(predict_hopper(round_device(), spilling).amat, 600);
}

// H.15: a float atomicAdd of every thread into one word. The L1 counts 32 lane adds per warp.
KernelProfile one_word_sum(const std::string& opcode, AddressPolynomial address) {
  KernelProfile k = round_kernel();
  k.global_load_inst_per_warp = 1;
  k.mem_inst_per_warp = 2;
  k.atomic_lane_ops_per_warp = 32;
  AccessPatterns patterns;
  MemoryAccess load;
  load.opcode = "LDG.E";
  load.address = AddressPolynomial{{4, {"tid.x"}}, {1, {"param:0x210"}}};
  MemoryAccess add;
  add.opcode = opcode;
  add.kind = AccessKind::atomic;
  add.address = std::move(address);
  patterns.accesses = {load, add};
  k.access_patterns = patterns;
  return k;
}

TEST(Hopper, AtomicsOnOneWordRunOneAfterAnother) {
  DeviceProfile d = round_device();
  d.same_address_atomic_ops_per_clock = 0.5;
  d.same_address_atomic_f32_ops_per_clock = 0.25;
  const AddressPolynomial one_word{{1, {"param:0x218"}}};
  const Prediction p = predict_hopper(d, one_word_sum("REDG.E.ADD.F32.FTZ.RN.STRONG.GPU", one_word));
  // 64 warps on each of 100 SMs, 32 adds each, 0.25 per clock (the float rate)
  EXPECT_DOUBLE_EQ(p.t_slice_atomics, 64 * 100 * 32 / 0.25);
  EXPECT_DOUBLE_EQ(p.t_data, p.t_slice_atomics);
  EXPECT_EQ(p.bound, "l2 slice atomics");
  // An integer add runs at the integer rate.
  EXPECT_DOUBLE_EQ(predict_hopper(d, one_word_sum("REDG.E.ADD.STRONG.GPU", one_word)).t_slice_atomics,
                   64 * 100 * 32 / 0.5);
  // A word per thread, a word per block, or an address from loaded data: not one word, no term.
  for (const auto& address : {AddressPolynomial{{4, {"tid.x"}}, {1, {"param:0x218"}}},
                              AddressPolynomial{{4, {"ctaid.x"}}, {1, {"param:0x218"}}}}) {
    EXPECT_DOUBLE_EQ(predict_hopper(d, one_word_sum("REDG.E.ADD.STRONG.GPU", address)).t_slice_atomics, 0);
  }
  KernelProfile irregular = one_word_sum("REDG.E.ADD.STRONG.GPU", one_word);
  irregular.access_patterns->accesses[1].address.reset();
  EXPECT_DOUBLE_EQ(predict_hopper(d, irregular).t_slice_atomics, 0);
  // Without the measured rate: no term, and a note says why.
  const Prediction unmeasured = predict_hopper(round_device(), one_word_sum("REDG.E.ADD.STRONG.GPU", one_word));
  EXPECT_DOUBLE_EQ(unmeasured.t_slice_atomics, 0);
  EXPECT_TRUE(std::any_of(unmeasured.notes.begin(), unmeasured.notes.end(),
                          [](const std::string& n) { return n.find("H.15") != std::string::npos; }));
}

// With the busiest slice's counter the addresses need not be known: a histogram's data-dependent
// bins (the SASS address is irregular) wait on the slice that counted the most atomics.
TEST(Hopper, BusiestSliceAtomicsCoverDataDependentAddresses) {
  DeviceProfile d = round_device();
  d.same_address_atomic_ops_per_clock = 0.5;
  d.same_address_atomic_f32_ops_per_clock = 0.25;
  KernelProfile histogram = one_word_sum("REDG.E.ADD.STRONG.GPU", AddressPolynomial{{1, {"param:0x218"}}});
  histogram.access_patterns->accesses[1].address.reset();  // bins[key % 8]: from loaded data
  EXPECT_DOUBLE_EQ(predict_hopper(d, histogram).t_slice_atomics, 0) << "no counter, irregular: no term";
  histogram.busiest_slice_atomics_per_warp = 7;  // 8 bins in one sector: ~7 distinct words per warp
  const Prediction p = predict_hopper(d, histogram);
  EXPECT_DOUBLE_EQ(p.t_slice_atomics, 64 * 100 * 7 / 0.5);  // 64 warps x 100 SMs, the integer rate
  // The counter wins over the SASS rule: a one-word sum whose slice counted fewer (a far
  // partition's copies are not on the busiest slice) is priced at the count.
  KernelProfile sum = one_word_sum("REDG.E.ADD.F32.FTZ.RN.STRONG.GPU", AddressPolynomial{{1, {"param:0x218"}}});
  sum.busiest_slice_atomics_per_warp = 16;
  EXPECT_DOUBLE_EQ(predict_hopper(d, sum).t_slice_atomics, 64 * 100 * 16 / 0.25);
  // Without access patterns the atomic's type is unknown: the integer rate.
  histogram.access_patterns.reset();
  EXPECT_DOUBLE_EQ(predict_hopper(d, histogram).t_slice_atomics, 64 * 100 * 7 / 0.5);
}

TEST(Hopper, AtomicRatesRoundTripAndComeFromCharacterize) {
  nlohmann::json j = to_json(round_device());
  j["measurements"] = {{"throughput",
                        {{"global_atomic_same_address", {{"ops_per_clk", 0.66}}},
                         {"global_atomic_same_address_f32", {{"ops_per_clk", 0.27}}}}}};
  const DeviceProfile d = device_from_json(j, "characterize.json");
  EXPECT_EQ(d.same_address_atomic_ops_per_clock, 0.66);
  EXPECT_EQ(d.same_address_atomic_f32_ops_per_clock, 0.27);
  const nlohmann::json back = to_json(d);
  EXPECT_EQ(back.at("atomic_ops_per_clock").at("same_address_f32"), 0.27);
  EXPECT_EQ(device_from_json(back, "back").same_address_atomic_ops_per_clock, 0.66);
  KernelProfile k = round_kernel();
  k.atomic_lane_ops_per_warp = 3;
  EXPECT_EQ(kernel_from_json(to_json(k), "k").atomic_lane_ops_per_warp, 3.0);
  k.busiest_slice_atomics_per_warp = 2.5;
  EXPECT_EQ(kernel_from_json(to_json(k), "k").busiest_slice_atomics_per_warp, 2.5);
  EXPECT_FALSE(kernel_from_json(to_json(round_kernel()), "k").busiest_slice_atomics_per_warp.has_value());
}

bool has_note(const Prediction& p, const std::string& text) {
  return std::any_of(p.notes.begin(), p.notes.end(), [&](const std::string& n) { return n.find(text) != std::string::npos; });
}

// H.17: a warp's 409,600 dense fp16 FLOPs at the sm_90 specification's 4096 per clock per SM are 100
// clocks a warp at the SM's rate; 64 warps on 4 sub-partitions: 16 x 4 x 100 = 6400, above the
// issue slots' 1600, so the tensor pipe bounds the wave. A measured rate wins over the specification.
TEST(Hopper, TensorPipeBoundsAnMmaKernel) {
  KernelProfile k = round_kernel();
  k.tensor_flops_per_warp["fp16"] = 409600;
  Prediction p = predict_hopper(round_device(), k);
  EXPECT_DOUBLE_EQ(p.t_tensor, 6400);
  EXPECT_DOUBLE_EQ(p.t_pipe, 6400);
  EXPECT_EQ(p.bound, "tensor pipe");
  EXPECT_TRUE(has_note(p, "spec, not measured")) << "the rate came from the specification";
  DeviceProfile measured = round_device();
  measured.tensor_flops_per_clock_per_sm["fp16"] = 2048;  // half the specification: 200 clocks a warp
  p = predict_hopper(measured, k);
  EXPECT_DOUBLE_EQ(p.t_tensor, 12800);
  EXPECT_FALSE(has_note(p, "spec, not measured"));
  // Warp-level MMAs (mma.sync, WMMA) at their own measured rate: a quarter of the fp16 work at 1024 a
  // clock is 100 clocks, the other three quarters (wgmma) at 2048 another 150: 16 x 4 x 250.
  DeviceProfile with_sync = measured;
  with_sync.mma_sync_flops_per_clock_per_sm["fp16"] = 1024;
  KernelProfile mixed = k;
  mixed.mma_sync_flops_per_warp["fp16"] = 102400;
  EXPECT_DOUBLE_EQ(predict_hopper(with_sync, mixed).t_tensor, 16 * 4 * (100 + 150));
  // Without the mma.sync row, every MMA at the one rate (the faster instruction's), as before.
  EXPECT_DOUBLE_EQ(predict_hopper(measured, mixed).t_tensor, 12800);
  // Two types on the one pipe add: 409,600 tf32 FLOPs at the specification's 2048 are 200 more clocks.
  k.tensor_flops_per_warp["tf32"] = 409600;
  EXPECT_DOUBLE_EQ(predict_hopper(measured, k).t_tensor, 16 * 4 * (200 + 200));
  // A GPU whose rate is neither measured nor tabulated: the work is not priced, and a note says so.
  DeviceProfile blackwell = round_device();
  blackwell.cc_major = 10;
  blackwell.limits = arch_limits_for(10, 0);
  p = predict_hopper(blackwell, k);
  EXPECT_DOUBLE_EQ(p.t_tensor, 0);
  EXPECT_TRUE(has_note(p, "tensor work is not priced")) << "sm_100 has no specification row";
  // No tensor work: the term is 0 and the bound is what it was.
  EXPECT_DOUBLE_EQ(predict_hopper(round_device(), round_kernel()).t_tensor, 0);
  EXPECT_EQ(predict_hopper(round_device(), round_kernel()).bound, "issue");
}

// H.18a: blocks of 1024 threads, 2 an SM (64 warp slots), in clusters of 16. GPCs of 18, 18, 16, 16,
// 16 and 16 SMs (100) hold 2 clusters each: 12 clusters, 192 blocks of the 200 slots, 1.92 an SM.
// The 1000 blocks run as 5 waves of 192 and a partial wave of 40.
TEST(Hopper, ClustersFillWholeGpcs) {
  DeviceProfile d = round_device();
  d.sms_per_gpc = {18, 18, 16, 16, 16, 16};
  KernelProfile k = round_kernel();
  k.launch.block = {1024, 1, 1};
  k.launch.cluster = Dim3{16, 1, 1};
  const Prediction p = predict_hopper(d, k);
  EXPECT_EQ(p.occupancy.blocks_per_sm, 2);
  EXPECT_DOUBLE_EQ(p.clusters_at_once, 12);
  EXPECT_DOUBLE_EQ(p.full_waves, 5);
  EXPECT_DOUBLE_EQ(p.t_dram_bandwidth, 1.92 * 32 * 256 / 32);  // H.9 at the wave's 61.44 warps an SM
  EXPECT_FALSE(has_note(p, "spec, not measured")) << "the GPC layout was measured";
  // The same kernel without clusters: 5 full waves of 200 blocks, 64 warps an SM, no cluster term.
  KernelProfile plain = k;
  plain.launch.cluster.reset();
  const Prediction q = predict_hopper(d, plain);
  EXPECT_TRUE(std::isnan(q.clusters_at_once));
  EXPECT_DOUBLE_EQ(q.full_waves, 5);
  EXPECT_DOUBLE_EQ(q.t_dram_bandwidth, 64.0 * 256 / 32);
  // Without a measured layout, sm_90's specification: 8 GPCs, 100 SMs as 14, 14, 12, 12, 12, 12, 12, 12:
  // one cluster of 16 each.
  d.sms_per_gpc.clear();
  const Prediction spec = predict_hopper(d, k);
  EXPECT_DOUBLE_EQ(spec.clusters_at_once, 8);
  EXPECT_TRUE(has_note(spec, "spec, not measured"));
}

TEST(Hopper, AClusterLargerThanEveryGpcCannotLaunch) {
  DeviceProfile d = round_device();
  d.sms_per_gpc = {14, 14, 14, 14, 14, 14, 16};
  KernelProfile k = round_kernel();
  k.launch.block = {1024, 1, 1};
  k.launch.shared_memory_per_block_bytes = 150 * 1024;  // one block an SM
  k.launch.cluster = Dim3{16, 1, 1};
  EXPECT_DOUBLE_EQ(predict_hopper(d, k).clusters_at_once, 1) << "the one GPC of 16 SMs";
  d.sms_per_gpc = {14, 14, 14, 14, 14, 15, 15};
  try {
    predict_hopper(d, k);
    FAIL() << "a cluster of 16 one-block SMs fits in no GPC of 14 or 15";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot launch"), std::string::npos) << e.what();
  }
}

// H.18b: the cluster's waits on one warp's path, each an SM-to-SM round trip, measured; without the
// device's latencies they cost nothing, and a note asks for them.
TEST(Hopper, ClusterWaitsJoinTheWarpsPath) {
  DeviceProfile d = round_device();
  d.sms_per_gpc = {18, 18, 16, 16, 16, 16};
  KernelProfile k = round_kernel();
  k.launch.cluster = Dim3{8, 1, 1};
  k.cluster_barrier_waits_per_warp = 2;
  k.remote_shared_waits_per_warp = 2;
  const Prediction without = predict_hopper(d, k);
  EXPECT_DOUBLE_EQ(without.t_cluster_sync, 0);
  EXPECT_TRUE(has_note(without, "latency_cycles.cluster_barrier"));
  d.cluster_barrier_latency_cycles = 300;
  d.dsmem_latency_cycles = 200;
  const Prediction with = predict_hopper(d, k);
  EXPECT_DOUBLE_EQ(with.t_cluster_sync, 2 * 300 + 2 * 200);
  EXPECT_DOUBLE_EQ(with.t_warp, without.t_warp + 1000);
  // Uncounted waits: one barrier wait a warp, said in a note.
  k.cluster_barrier_waits_per_warp.reset();
  k.remote_shared_waits_per_warp.reset();
  const Prediction one = predict_hopper(d, k);
  EXPECT_DOUBLE_EQ(one.t_cluster_sync, 300);
  EXPECT_TRUE(has_note(one, "taken as one barrier wait"));
  // H.18c: 4096 remote bytes a warp at 3200 GB/s over 100 SMs (32 B a clock each): 64 x 4096 / 32.
  d.dsmem_bandwidth_gbs = 3200;
  k.dsmem_bytes_per_warp = 4096;
  EXPECT_DOUBLE_EQ(predict_hopper(d, k).t_dsmem, 64.0 * 4096 / 32);
}

}  // namespace
}  // namespace warpmodel
