// kernel-profile's merge (merge.hpp): the counters -> KernelProfile table, the static fallbacks and
// their labels in sources, kernel/launch selection, and bad input. The counters here are made-up
// round numbers chosen so each mapped value is easy to check by hand; they are not measurements.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "warpmodel/json_io.hpp"
#include "warpmodel/sass/merge.hpp"
#include "warpmodel/sass/report.hpp"
#include "warpmodel/sass/tools.hpp"

using namespace warpmodel;
using namespace warpmodel::sass;
using nlohmann::json;

namespace {

std::string read(const std::string& name) {
  std::ifstream f(std::string(WARPMODEL_SASS_FIXTURES) + "/" + name);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

const std::vector<KernelStatics>& fixture_kernels() {
  static const std::vector<KernelStatics> ks = analyse_dump(
      {"sm90_ubench", read("sm90_ubench.sass"), read("sm90_ubench.res-usage.txt"), read("sm90_ubench.cfg.dot")});
  return ks;
}

const KernelStatics& lat_mov() { return select_kernel(fixture_kernels(), "ubench_lat_register_mov", "fixture"); }

json counters_json(json metrics) {
  return {{"schema", "warpmodel.profile/1"},
          {"device", {{"name", "synthetic"}, {"max_threads_per_sm", 2048}}},
          {"provenance", {{"note", "made-up values for a unit test"}}},
          {"launches",
           {{{"kernel", "ubench_lat_register_mov"},
             {"demangled", "ubench_lat_register_mov"},
             {"launch_index", 0},
             {"grid", {10, 1, 1}},
             {"block", {64, 1, 1}},
             {"registers_per_thread", 16},
             {"shared_memory_per_block_bytes", 0},
             {"duration_ns", 1000},
             {"metrics", metrics}}}}};
}

const json kFullMetrics = {{"smsp__warps_launched.sum", 20},
                           {"smsp__inst_executed.sum", 2000},
                           {"smsp__inst_executed_op_global_ld.sum", 40},
                           {"smsp__inst_executed_op_global_st.sum", 20},
                           {"smsp__inst_executed_op_ldgsts.sum", 50},
                           {"smsp__inst_executed_op_tma_ld.sum", 10},
                           {"smsp__inst_executed_pipe_xu.sum", 10},
                           {"smsp__inst_executed_op_barrier.sum", 0},
                           {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 160},
                           {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", 40},
                           {"l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct", 25},
                           {"lts__t_sector_hit_rate.pct", 90},
                           {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum", 30},
                           {"sm__warps_active.avg.pct_of_peak_sustained_active", 50},
                           {"smsp__inst_executed_op_shared_ld.sum", 60},
                           {"smsp__inst_executed_op_shared_st.sum", 20},
                           {"lts__t_sectors.sum", 100},
                           {"dram__bytes_read.sum", 2560},
                           {"dram__bytes_write.sum", 640},
                           {"not_a_number", nullptr}};

KernelProfile merge(const CounterFile& f, std::optional<double> max_warps = std::nullopt) {
  MergeInputs in;
  in.statics = &lat_mov();
  in.binary = "fixture";
  in.launch = &select_launch(f, lat_mov(), std::nullopt);
  in.counters_origin = "counters.json";
  in.max_warps_per_sm = max_warps;
  return make_kernel_profile(in);
}

bool starts_with(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

}  // namespace

// H.18's inputs from a kernel's SASS: each cluster wait once per warp, 32 lanes x the STAS bytes a
// thread as the warp's bytes into other blocks (a static estimate, said so in the sources); a kernel
// with neither waits nor remote stores gets nothing. The access-patterns document carries them for
// validate, which completes launches measured before the kernel profile had them.
TEST(KernelProfile, ClusterStaticsFromTheSass) {
  KernelProfile k;
  add_cluster_statics(k, ClusterStatics{2, 8, 64, 2});
  EXPECT_EQ(k.cluster_barrier_waits_per_warp, 2.0);
  EXPECT_EQ(k.remote_shared_waits_per_warp, 2.0);
  EXPECT_EQ(k.dsmem_bytes_per_warp, 32.0 * 64);
  EXPECT_TRUE(starts_with(k.sources.at("memory.dsmem_bytes_per_warp"), "static estimate (sass: 8 STAS, 64 bytes"));
  KernelProfile none;
  add_cluster_statics(none, ClusterStatics{});
  EXPECT_FALSE(none.cluster_barrier_waits_per_warp || none.remote_shared_waits_per_warp || none.dsmem_bytes_per_warp);
  BinaryAnalysis a;
  a.binary = "fixture";
  KernelStatics pushing = lat_mov(), plain = lat_mov();
  pushing.name = "pushing";
  pushing.cluster_barrier_waits = 2, pushing.remote_shared_stores = 8, pushing.remote_store_bytes_per_thread = 64,
  pushing.remote_data_waits = 2;
  a.kernels = {pushing, plain};
  const json doc = access_patterns_document(a);
  EXPECT_EQ(doc["kernels"]["pushing"]["cluster"],
            json({{"barrier_waits", 2}, {"remote_shared_stores", 8}, {"remote_store_bytes_per_thread", 64},
                  {"remote_data_waits", 2}}));
  EXPECT_FALSE(doc["kernels"][plain.name].contains("cluster"));
}

// H.12b's inputs. A profile without timed runs (collection.timing_runs 0: profile -- APP, import-ncu)
// holds durations from the counter range, and the kernel profile says so; with timed runs it does not.
// counter_range_overhead_ns: the median of gpu__time_duration - duration_ns over the launches timed
// both ways (0 where the range is the shorter); a file with none is refused, naming it.
TEST(KernelProfile, CounterRangeTimingAndItsOverhead) {
  json j = counters_json({{"gpu__time_duration.sum", 3000}});
  j["collection"] = {{"timing_runs", 0}};
  const CounterFile app = counters_from_json(j, "app.json");
  EXPECT_TRUE(app.launches.front().duration_from_counter_range);
  EXPECT_TRUE(merge(app).timed_by_counter_range);
  EXPECT_THROW(
      {
        try {
          counter_range_overhead_ns(app);
        } catch (const InputError& e) {
          EXPECT_NE(std::string(e.what()).find("app.json"), std::string::npos) << e.what();
          throw;
        }
      },
      InputError);
  json no_collection = counters_json({{"gpu__time_duration.sum", 3000}});
  EXPECT_FALSE(merge(counters_from_json(no_collection, "old.json")).timed_by_counter_range);
  j["collection"] = {{"timing_runs", 10}};
  json second = j["launches"][0];
  second["launch_index"] = 1;
  second["duration_ns"] = 1200;
  second["metrics"]["gpu__time_duration.sum"] = 3400;
  json third = second;
  third["launch_index"] = 2;
  third["metrics"]["gpu__time_duration.sum"] = 9000;
  j["launches"].push_back(second);
  j["launches"].push_back(third);
  const CounterFile floor = counters_from_json(j, "profiler-floor.json");
  EXPECT_FALSE(merge(floor).timed_by_counter_range);
  EXPECT_DOUBLE_EQ(counter_range_overhead_ns(floor), 2200);  // median of 2000, 2200, 7800
  for (auto& l : j["launches"]) l["metrics"]["gpu__time_duration.sum"] = 500;
  EXPECT_DOUBLE_EQ(counter_range_overhead_ns(counters_from_json(j, "profiler-floor.json")), 0);
}

// The L2 bytes of the kernel's own requests (sectors by operation) win over lts__t_bytes, which
// also counts L2 activity that is not the kernel's; the written sectors and the LSU wavefronts and
// the local loads map to their own fields.
TEST(KernelProfileMerge, L2TrafficByOperationWavefrontsAndLocalLoads) {
  json m = kFullMetrics;
  m["lts__t_bytes.sum"] = 1.0e6;
  m["lts__t_sectors_op_read.sum"] = 60;
  m["lts__t_sectors_op_write.sum"] = 30;
  m["lts__t_sectors_op_red.sum"] = 10;
  m["l1tex__data_pipe_lsu_wavefronts.sum"] = 400;
  m["smsp__inst_executed_op_local_ld.sum"] = 40;
  const KernelProfile k = merge(counters_from_json(counters_json(m), "counters.json"));
  EXPECT_DOUBLE_EQ(*k.l2_bytes_per_warp, 160);         // (60 + 30 + 10) x 32 B / 20
  EXPECT_DOUBLE_EQ(*k.l2_write_bytes_per_warp, 48);    // 30 x 32 B / 20
  EXPECT_DOUBLE_EQ(*k.l1_wavefronts_per_warp, 20);     // 400 / 20
  EXPECT_DOUBLE_EQ(k.local_load_inst_per_warp, 2);     // 40 / 20
  EXPECT_FALSE(k.busiest_slice_atomics_per_warp.has_value());  // no .max counters: no field
  m["lts__t_sectors_op_red.max"] = 6;  // the busiest slice (H.15)
  const KernelProfile atomics = merge(counters_from_json(counters_json(m), "counters.json"));
  EXPECT_DOUBLE_EQ(*atomics.busiest_slice_atomics_per_warp, 0.3);  // 6 / 20
  EXPECT_NE(atomics.sources.at("memory.busiest_slice_atomics_per_warp").find("lts__t_sectors_op_red.max"),
            std::string::npos);
  m.erase("lts__t_sectors_op_read.sum");                // without the split: lts__t_bytes
  EXPECT_DOUBLE_EQ(*merge(counters_from_json(counters_json(m), "counters.json")).l2_bytes_per_warp, 5.0e4);
}

TEST(KernelProfileMerge, CountersMapToTheModelFields) {
  const KernelProfile k = merge(counters_from_json(counters_json(kFullMetrics), "counters.json"));
  EXPECT_EQ(k.launch.grid, (Dim3{10, 1, 1}));
  EXPECT_EQ(k.launch.block, (Dim3{64, 1, 1}));
  EXPECT_EQ(k.launch.registers_per_thread, 16);      // the launch record wins over res-usage (11)
  EXPECT_DOUBLE_EQ(k.inst_per_warp, 100);            // 2000 / 20
  EXPECT_DOUBLE_EQ(k.mem_inst_per_warp, 3);          // (40 + 20) / 20
  EXPECT_DOUBLE_EQ(*k.global_load_inst_per_warp, 2); // 40 / 20
  EXPECT_DOUBLE_EQ(k.async_copy_inst_per_warp, 3);   // (50 LDGSTS + 10 TMA) / 20
  EXPECT_DOUBLE_EQ(k.sfu_inst_per_warp, 0.5);        // 10 / 20
  EXPECT_DOUBLE_EQ(k.sync_inst_per_warp, 0);
  EXPECT_DOUBLE_EQ(k.transactions_per_request, 4);   // 160 / 40
  EXPECT_DOUBLE_EQ(k.l1_miss_ratio, 0.75);           // 1 - 25 %
  EXPECT_DOUBLE_EQ(k.l2_miss_ratio, 0.1);            // 1 - 90 %
  EXPECT_DOUBLE_EQ(k.bank_conflicts_per_warp, 1.5);  // 30 / 20
  EXPECT_DOUBLE_EQ(k.shared_inst_per_warp, 4);       // (60 + 20) / 20
  EXPECT_DOUBLE_EQ(*k.l2_bytes_per_warp, 160);       // 100 sectors x 32 B / 20
  EXPECT_DOUBLE_EQ(*k.dram_bytes_per_warp, 160);     // (2560 + 640) / 20
  EXPECT_DOUBLE_EQ(*k.dram_write_bytes_per_warp, 32); // 640 / 20
  ASSERT_TRUE(k.stall_cycles_per_inst.has_value());  // the fixture listing carries control bits
  EXPECT_GT(*k.stall_cycles_per_inst, 1);
  ASSERT_TRUE(k.launch.active_warps_per_sm.has_value());
  EXPECT_DOUBLE_EQ(*k.launch.active_warps_per_sm, 32);  // 50 % of 2048/32 warps
  // Static fields.
  EXPECT_EQ(k.static_instructions, 52);
  EXPECT_EQ(k.basic_blocks, 4);
  EXPECT_DOUBLE_EQ(*k.ilp, 13);
  EXPECT_DOUBLE_EQ(k.mlp, 2);
  EXPECT_EQ(k.data_size_bytes, 4);
  // Sources name the counters.
  EXPECT_TRUE(starts_with(k.sources.at("instructions_per_warp.total"),
                          "cupti: smsp__inst_executed.sum / smsp__warps_launched.sum = 100"))
      << k.sources.at("instructions_per_warp.total");
  EXPECT_NE(k.sources.at("parallelism.ilp").find("52 instructions / 4 basic blocks (eq 4.26)"), std::string::npos);
  EXPECT_NE(k.sources.at("memory.l1_miss_ratio").find("l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct"),
            std::string::npos);
  // The model reads it unchanged.
  const KernelProfile back = kernel_from_json(to_json(k), "round trip");
  EXPECT_DOUBLE_EQ(back.inst_per_warp, 100);
  EXPECT_DOUBLE_EQ(*back.global_load_inst_per_warp, 2);
  EXPECT_DOUBLE_EQ(back.async_copy_inst_per_warp, 3);
  EXPECT_DOUBLE_EQ(*back.dram_write_bytes_per_warp, 32);
  EXPECT_DOUBLE_EQ(*back.stall_cycles_per_inst, *k.stall_cycles_per_inst);
  EXPECT_EQ(back.sources, k.sources);
}

TEST(KernelProfileMerge, MissingCountersFallBackToStaticAndSaySo) {
  json partial = {{"smsp__warps_launched.sum", 20}, {"smsp__inst_executed.sum", 2000}};
  const KernelProfile k = merge(counters_from_json(counters_json(partial), "counters.json"));
  EXPECT_DOUBLE_EQ(k.inst_per_warp, 100);
  EXPECT_DOUBLE_EQ(k.mem_inst_per_warp, 4);  // static: 2 LDG + 2 STG
  EXPECT_DOUBLE_EQ(*k.global_load_inst_per_warp, 2);  // static: the 2 LDG
  EXPECT_NE(k.sources.at("instructions_per_warp.global_load").find("falls back to static"), std::string::npos);
  EXPECT_DOUBLE_EQ(k.async_copy_inst_per_warp, 0);  // static: no LDGSTS or TMA
  EXPECT_NE(k.sources.at("instructions_per_warp.memory").find("falls back to static"), std::string::npos);
  EXPECT_DOUBLE_EQ(k.l1_miss_ratio, 1);
  EXPECT_NE(k.sources.at("memory.l1_miss_ratio").find("static estimate"), std::string::npos);
  EXPECT_FALSE(k.launch.active_warps_per_sm.has_value());
  EXPECT_NE(k.sources.at("launch.active_warps_per_sm").find("occupancy calculator"), std::string::npos);
  EXPECT_FALSE(k.launch.barrier_wait_share.has_value());
  EXPECT_NE(k.sources.at("launch.barrier_wait_share").find("--metrics model"), std::string::npos);
  // With the stall reasons (metric set "stalls"): the barrier's share of the warps' states.
  json stalled = partial;
  stalled["smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio"] = 6.0;
  stalled["smsp__average_warps_issue_stalled_selected_per_issue_active.ratio"] = 1.0;
  stalled["smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"] = 1.0;
  const KernelProfile s = merge(counters_from_json(counters_json(stalled), "counters.json"));
  ASSERT_TRUE(s.launch.barrier_wait_share.has_value());
  EXPECT_DOUBLE_EQ(*s.launch.barrier_wait_share, 0.75);  // 6 / (6 + 1 + 1)
  EXPECT_DOUBLE_EQ(*kernel_from_json(to_json(s), "round trip").launch.barrier_wait_share, 0.75);
  EXPECT_DOUBLE_EQ(k.shared_inst_per_warp, 0);  // static: the kernel has no LDS/STS
  EXPECT_FALSE(k.l2_bytes_per_warp.has_value());
  EXPECT_FALSE(k.dram_bytes_per_warp.has_value());
}

// sm_90 has no barrier counter: the ADU pipe count stands in for it when the kernel has a BAR, and
// its source says so; a kernel without BAR executes no barrier, whatever its ADU pipe counts.
TEST(KernelProfileMerge, BarriersFromTheAduPipeWhenNoBarrierCounter) {
  json metrics = kFullMetrics;
  metrics.erase("smsp__inst_executed_op_barrier.sum");
  metrics["smsp__inst_executed_pipe_adu.sum"] = 70;
  const CounterFile f = counters_from_json(counters_json(metrics), "counters.json");
  EXPECT_EQ(lat_mov().mix.bar, 0);
  const KernelProfile without_bar = merge(f);
  EXPECT_DOUBLE_EQ(without_bar.sync_inst_per_warp, 0);
  EXPECT_NE(without_bar.sources.at("instructions_per_warp.sync").find("no BAR"), std::string::npos);

  KernelStatics with_bar = lat_mov();
  with_bar.mix.bar = 1;
  MergeInputs in;
  in.statics = &with_bar;
  in.binary = "fixture";
  in.launch = &select_launch(f, lat_mov(), std::nullopt);
  in.counters_origin = "counters.json";
  const KernelProfile k = make_kernel_profile(in);
  EXPECT_DOUBLE_EQ(k.sync_inst_per_warp, 3.5);  // 70 / 20
  EXPECT_NE(k.sources.at("instructions_per_warp.sync").find("smsp__inst_executed_pipe_adu.sum"), std::string::npos);
  EXPECT_NE(k.sources.at("instructions_per_warp.sync").find("ADU pipe"), std::string::npos);
}

TEST(KernelProfileMerge, AchievedOccupancyUsesTheDeviceProfileWhenGiven) {
  const KernelProfile k = merge(counters_from_json(counters_json(kFullMetrics), "counters.json"), 48.0);
  EXPECT_DOUBLE_EQ(*k.launch.active_warps_per_sm, 24);  // 50 % of 48
}

TEST(KernelProfileMerge, AchievedOccupancyFromTheCountersComputeCapability) {
  json j = counters_json(kFullMetrics);
  j["device"] = {{"name", "synthetic"}, {"compute_capability", "8.6"}};  // 48 warps per SM
  const KernelProfile k = merge(counters_from_json(j, "counters.json"));
  EXPECT_DOUBLE_EQ(*k.launch.active_warps_per_sm, 24);
  EXPECT_NE(k.sources.at("launch.active_warps_per_sm").find("compute capability 8.6"), std::string::npos);
  j["device"] = {{"name", "synthetic"}};  // nothing to scale the percentage by
  const KernelProfile unknown = merge(counters_from_json(j, "counters.json"));
  EXPECT_FALSE(unknown.launch.active_warps_per_sm.has_value());
  EXPECT_NE(unknown.sources.at("launch.active_warps_per_sm").find("give --device"), std::string::npos);
}

TEST(KernelProfileMerge, BankConflictsFromLoadAndStoreCounters) {
  json metrics = kFullMetrics;
  metrics.erase("l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum");
  metrics["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"] = 10;
  metrics["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"] = 30;
  const KernelProfile k = merge(counters_from_json(counters_json(metrics), "counters.json"));
  EXPECT_DOUBLE_EQ(k.bank_conflicts_per_warp, 2);  // (10 + 30) / 20
}

TEST(KernelProfileMerge, WithoutCountersEverythingDynamicIsAStaticEstimate) {
  MergeInputs in;
  in.statics = &lat_mov();
  in.binary = "fixture";
  in.launch_spec = parse_launch_spec("grid=132,block=8x8x4,smem=1024,domain=50x50x50");
  const KernelProfile k = make_kernel_profile(in);
  EXPECT_EQ(k.launch.grid, (Dim3{132, 1, 1}));
  EXPECT_EQ(k.launch.block, (Dim3{8, 8, 4}));
  EXPECT_EQ(k.launch.domain, (Dim3{50, 50, 50}));
  EXPECT_EQ(k.launch.shared_memory_per_block_bytes, 1024);  // 0 static + 1024 dynamic
  EXPECT_EQ(k.launch.registers_per_thread, 11);             // res-usage REG
  EXPECT_DOUBLE_EQ(k.inst_per_warp, 52);
  EXPECT_DOUBLE_EQ(k.mem_inst_per_warp, 4);
  EXPECT_DOUBLE_EQ(k.fp_inst_per_warp, 2);
  EXPECT_DOUBLE_EQ(k.transactions_per_request, 4);  // 32 lanes x 4 B / 32 B sectors
  for (const char* field : {"instructions_per_warp.total", "instructions_per_warp.memory", "instructions_per_warp.fp",
                            "memory.transactions_per_request", "memory.l1_miss_ratio", "memory.l2_miss_ratio"}) {
    EXPECT_TRUE(starts_with(k.sources.at(field), "static estimate")) << field << ": " << k.sources.at(field);
    EXPECT_EQ(k.sources.at(field).find("falls back"), std::string::npos) << field;  // nothing was missing
  }
  EXPECT_NO_THROW(kernel_from_json(to_json(k), "round trip"));
}

TEST(KernelProfileMerge, DependencyIlpOnRequest) {
  MergeInputs in;
  in.statics = &lat_mov();
  in.launch_spec = parse_launch_spec("grid=1,block=32");
  in.ilp = IlpChoice::Dependency;
  const KernelProfile k = make_kernel_profile(in);
  EXPECT_DOUBLE_EQ(*k.ilp, lat_mov().dependency_ilp);
  EXPECT_NE(k.sources.at("parallelism.ilp").find("dependency ILP"), std::string::npos);
}

TEST(KernelProfileMerge, UnknownLaunchIsAnError) {
  MergeInputs in;
  in.statics = &lat_mov();
  EXPECT_THROW(make_kernel_profile(in), InputError);
  in.launch_spec = parse_launch_spec("grid=4");
  EXPECT_THROW(make_kernel_profile(in), InputError);  // no block shape
}

TEST(KernelProfileMerge, LaunchSpecErrors) {
  for (const char* bad : {"grid", "grid=0", "grid=8x8x8x8", "grid=ax2", "block=2048", "smem=-1", "warps=4"})
    EXPECT_THROW(parse_launch_spec(bad), InputError) << bad;
  const LaunchSpec ok = parse_launch_spec("grid=8x8x8,block=8x8x4");
  EXPECT_EQ(*ok.grid, (Dim3{8, 8, 8}));
  EXPECT_FALSE(ok.dynamic_shared_bytes.has_value());
}

TEST(KernelProfileMerge, CounterFileErrors) {
  EXPECT_THROW(counters_from_json(json::array(), "c.json"), InputError);
  json wrong_schema = counters_json(kFullMetrics);
  wrong_schema["schema"] = "warpmodel.kernel/1";
  EXPECT_THROW(counters_from_json(wrong_schema, "c.json"), InputError);
  json no_metrics = counters_json(kFullMetrics);
  no_metrics["launches"][0].erase("metrics");
  EXPECT_THROW(counters_from_json(no_metrics, "c.json"), InputError);
  json bad_grid = counters_json(kFullMetrics);
  bad_grid["launches"][0]["grid"] = {0, 1, 1};
  try {
    counters_from_json(bad_grid, "c.json");
    FAIL() << "a zero grid was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("launches[0].grid"), std::string::npos) << e.what();
  }
}

TEST(KernelProfileMerge, ReadsACollectionOfProfiles) {
  json other = counters_json(kFullMetrics);
  other["device"] = {{"name", "synthetic"}, {"compute_capability", "8.6"}};
  other["launches"][0]["grid"] = {30, 1, 1};
  const json collection = {{"schema", "warpmodel.profile-collection/1"},
                           {"profiles", {counters_json(kFullMetrics), other}}};
  const CounterFile f = counters_from_json(collection, "collection.json");
  ASSERT_EQ(f.launches.size(), 2u);
  EXPECT_EQ(f.launches[1].where, "profiles[1].launches[0]");
  EXPECT_EQ(f.launches[1].device["compute_capability"], "8.6");  // each launch keeps its profile's device
  const KernelProfile k = merge(f);
  EXPECT_EQ(k.launch.grid.x, 10);  // the first launch of the kernel
  EXPECT_NE(k.sources.at("counters").find("profiles[0].launches[0]"), std::string::npos) << k.sources.at("counters");
  json bad = collection;
  bad["profiles"][1]["schema"] = "something/1";
  try {
    counters_from_json(bad, "collection.json");
    FAIL() << "a bad inner schema was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("profiles[1].schema"), std::string::npos) << e.what();
  }
}

TEST(KernelProfileMerge, LaunchSelection) {
  json two = counters_json(kFullMetrics);
  json second = two["launches"][0];
  second["launch_index"] = 1;
  second["grid"] = {20, 1, 1};
  two["launches"].push_back(second);
  const CounterFile f = counters_from_json(two, "c.json");
  EXPECT_EQ(select_launch(f, lat_mov(), std::nullopt).grid.x, 10);
  EXPECT_EQ(select_launch(f, lat_mov(), 1).grid.x, 20);
  EXPECT_THROW(select_launch(f, lat_mov(), 2), InputError);
  const KernelStatics& other = select_kernel(fixture_kernels(), "ubench_clock64", "fixture");
  try {
    select_launch(f, other, std::nullopt);
    FAIL() << "a launch of another kernel was used";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("it holds: ubench_lat_register_mov"), std::string::npos) << e.what();
  }
}

TEST(KernelProfileMerge, KernelSelection) {
  const auto& ks = fixture_kernels();
  EXPECT_EQ(select_kernel(ks, "link_nodes", "f").mix.call, 1);  // unique substring of the demangled name
  EXPECT_EQ(select_kernel(ks, "ubench_departure", "f").name, "ubench_departure");
  try {
    select_kernel(ks, "ubench_", "f");
    FAIL() << "an ambiguous name was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("matches 4 kernels"), std::string::npos) << e.what();
  }
  try {
    select_kernel(ks, "ubench_clock46", "f");
    FAIL() << "an unknown name was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("closest: ubench_clock64"), std::string::npos) << e.what();
  }
}
