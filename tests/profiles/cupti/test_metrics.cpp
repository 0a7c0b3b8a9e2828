// Metric sets, the nvprof -> Perfworks table and name resolution, checked against CUPTI's host API
// for GH100 (the H200's chip): no GPU needed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "warpmodel/counter_rules.hpp"
#include "warpmodel/cupti/metrics.hpp"
#include "warpmodel/cupti/profiler.hpp"
#include "warpmodel/support/text.hpp"

namespace wc = warpmodel::cupti;
namespace counter_rules = warpmodel::counter_rules;

namespace {

const wc::ChipMetrics& gh100() {
  static const wc::ChipMetrics chip = wc::ChipMetrics::for_chip("GH100");
  return chip;
}

bool contains(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

std::string resolve_error(const std::vector<std::string>& request) {
  try {
    gh100().resolve(request);
  } catch (const wc::MetricNameError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(LegacyTable, NamesAreSortedAndUnique) {
  const auto& t = wc::legacy_metrics();
  ASSERT_GT(t.size(), 60u);
  for (std::size_t i = 1; i < t.size(); ++i) EXPECT_LT(t[i - 1].nvprof_name, t[i].nvprof_name);
}

TEST(LegacyTable, EveryTranslationExistsOnGH100) {
  for (const auto& m : wc::legacy_metrics()) {
    if (m.is_rejected()) {
      EXPECT_TRUE(m.numerator.empty()) << m.nvprof_name;
      EXPECT_GT(m.rejected.size(), 30u) << m.nvprof_name << ": a rejection says why";
      continue;
    }
    ASSERT_FALSE(m.numerator.empty()) << m.nvprof_name;
    EXPECT_FALSE(m.unit.empty()) << m.nvprof_name;
    for (const auto& in : m.inputs()) {
      EXPECT_TRUE(gh100().is_valid(in)) << m.nvprof_name << " -> " << in << " is not a GH100 metric";
      EXPECT_EQ(m.needs_sass_patching || !wc::is_sass_patched_metric(in), true)
          << m.nvprof_name << " uses a SASS-patched input without saying so";
    }
  }
}

TEST(LegacyTable, TheIssuesNamesAreTranslated) {
  // The names the issue lists, plus the seed documents' counters.
  for (const char* name : {"achieved_occupancy", "gld_transactions", "gld_transactions_per_request", "dram_read_throughput",
                           "inst_per_warp", "ipc", "l2_tex_hit_rate", "gst_transactions", "shared_load_transactions",
                           "l1_cache_global_hit_rate", "l1_shared_bank_conflict"}) {
    const wc::LegacyMetric* m = wc::find_legacy_metric(name);
    ASSERT_NE(m, nullptr) << name;
    EXPECT_FALSE(m->is_rejected()) << name;
    EXPECT_FALSE(m->needs_sass_patching) << name;
  }
  // gld/gst efficiency need requested bytes, which only SASS patching counts.
  for (const char* name : {"gld_efficiency", "gst_efficiency"}) {
    const wc::LegacyMetric* m = wc::find_legacy_metric(name);
    ASSERT_NE(m, nullptr);
    EXPECT_TRUE(m->needs_sass_patching);
  }
}

TEST(LegacyTable, ExpressionsEvaluateInNvprofUnits) {
  const auto* occ = wc::find_legacy_metric("achieved_occupancy");
  EXPECT_EQ(occ->expression(), "0.01 * sm__warps_active.avg.pct_of_peak_sustained_active");
  EXPECT_DOUBLE_EQ(occ->evaluate({{"sm__warps_active.avg.pct_of_peak_sustained_active", 39.87}}), 0.3987);

  const auto* ipw = wc::find_legacy_metric("inst_per_warp");
  EXPECT_EQ(ipw->expression(), "smsp__inst_executed.sum / smsp__warps_launched.sum");
  EXPECT_DOUBLE_EQ(ipw->evaluate({{"smsp__inst_executed.sum", 7500}, {"smsp__warps_launched.sum", 100}}), 75.0);
  EXPECT_TRUE(std::isnan(ipw->evaluate({{"smsp__inst_executed.sum", 7500}, {"smsp__warps_launched.sum", 0}})));
  EXPECT_TRUE(std::isnan(ipw->evaluate({{"smsp__inst_executed.sum", 7500}})));

  const auto* thr = wc::find_legacy_metric("dram_read_throughput");
  EXPECT_DOUBLE_EQ(thr->evaluate({{"dram__bytes_read.sum.per_second", 2.5e12}}), 2500.0);  // GB/s

  const auto* hit = wc::find_legacy_metric("global_hit_rate");
  EXPECT_DOUBLE_EQ(hit->evaluate({{"l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum", 30},
                                  {"l1tex__t_sectors_pipe_lsu_mem_global_op_st_lookup_hit.sum", 10},
                                  {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 60},
                                  {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", 20}}),
                   50.0);

  const auto* flops = wc::find_legacy_metric("flop_count_sp");
  EXPECT_NE(flops->expression().find("2 * smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"), std::string::npos);
  EXPECT_DOUBLE_EQ(flops->evaluate({{"smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", 1},
                                    {"smsp__sass_thread_inst_executed_op_fmul_pred_on.sum", 2},
                                    {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", 3}}),
                   9.0);

  const auto* weff = wc::find_legacy_metric("warp_execution_efficiency");
  EXPECT_DOUBLE_EQ(weff->evaluate({{"smsp__thread_inst_executed_per_inst_executed.ratio", 32}}), 100.0);
}

TEST(LegacyTable, DocumentIsInSync) {
  std::ifstream f(WARPMODEL_CUPTI_DIR "/legacy_metrics.md");
  ASSERT_TRUE(f) << "profiles/cupti/legacy_metrics.md is missing";
  std::stringstream s;
  s << f.rdbuf();
  EXPECT_EQ(s.str(), wc::legacy_metrics_markdown())
      << "regenerate: warpmodel metrics --legacy --format markdown > profiles/cupti/legacy_metrics.md";
}

TEST(MetricSets, ModelHoldsWhatTheModelNeeds) {
  const wc::MetricSet* model = wc::find_metric_set("model");
  ASSERT_NE(model, nullptr);
  for (const char* name :
       {"smsp__inst_executed.sum", "smsp__warps_launched.sum", "smsp__inst_executed_op_global_ld.sum",
        "smsp__inst_executed_op_global_st.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
        "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
        "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct",
        "lts__t_sector_hit_rate.pct", "dram__bytes_read.sum", "dram__bytes_write.sum",
        "sm__warps_active.avg.pct_of_peak_sustained_active", "sm__cycles_elapsed.avg", "sm__cycles_elapsed.max",
        "smsp__cycles_active.avg", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "smsp__inst_executed_pipe_adu.sum",
        "smsp__inst_executed_pipe_xu.sum", "l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum",
        "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum"})
    EXPECT_TRUE(contains(model->metrics, name)) << name;
  // Every counter the merge rules read (counter_rules.hpp): H.8's L2 sectors, H.7's wavefronts, H.8b's
  // local sectors, H.15's atomics and busiest slice, H.1c's stall reasons.
  for (const char* name : {counter_rules::kL2ReadSectors, counter_rules::kL2WriteSectors, counter_rules::kL2AtomSectors,
                           counter_rules::kL2RedSectors, counter_rules::kL1Wavefronts, counter_rules::kLocalLoads,
                           counter_rules::kLocalLoadSectors, counter_rules::kLocalLoadRequests,
                           counter_rules::kL1RedSectors, counter_rules::kL1AtomSectors,
                           counter_rules::kBusiestSliceRedSectors, counter_rules::kBusiestSliceAtomSectors})
    EXPECT_TRUE(contains(model->metrics, name)) << name;
  for (const char* reason : counter_rules::kStallReasons)
    EXPECT_TRUE(contains(model->metrics, counter_rules::stall_metric(reason))) << reason;
}

TEST(MetricSets, EverySetResolvesOnGH100WithAPassCount) {
  for (const auto& set : wc::metric_sets()) {
    const wc::MetricPlan plan = gh100().resolve({set.name});
    EXPECT_FALSE(plan.collect.empty()) << set.name;
    const std::size_t passes = gh100().passes(plan.collect);
    EXPECT_GE(passes, 1u) << set.name;
    EXPECT_LE(passes, 12u) << set.name;
  }
  // The model set's raw counters fit in fewer passes than the whole set.
  EXPECT_EQ(gh100().passes({"smsp__inst_executed.sum"}), 1u);
  EXPECT_LT(gh100().passes({"smsp__inst_executed.sum"}), gh100().passes(gh100().resolve({"model"}).collect));
}

// The model set's optional metrics (the tensor pipe's instructions, hopper H.17; distributed shared
// memory bytes, H.18c) are collected where the chip has them (GH100 has both; GA100 lacks the
// second) and listed as unavailable where it does not.
TEST(MetricSets, OptionalMetricsFollowTheChip) {
  const wc::MetricSet* model = wc::find_metric_set("model");
  ASSERT_NE(model, nullptr);
  const std::string tensor = "smsp__inst_executed_pipe_tensor.sum", dsmem = "l1tex__m_l1tex2xbar_write_bytes_mem_dshared.sum";
  EXPECT_TRUE(contains(model->optional_metrics, tensor));
  EXPECT_TRUE(contains(model->optional_metrics, dsmem));
  const wc::MetricPlan hopper = gh100().resolve({"model"});
  EXPECT_TRUE(contains(hopper.collect, tensor));
  EXPECT_TRUE(contains(hopper.collect, dsmem));
  EXPECT_TRUE(hopper.unavailable.empty());
  const wc::ChipMetrics ga100 = wc::ChipMetrics::for_chip("GA100");
  EXPECT_TRUE(ga100.is_valid(tensor));
  EXPECT_FALSE(ga100.is_valid(dsmem));
  // A chip without one: the rest of the set resolves and the missing one is listed.
  const auto plan = wc::resolve_metrics({"model"}, [&](const std::string& m) { return m != dsmem && gh100().is_valid(m); },
                                        nullptr);
  EXPECT_TRUE(contains(plan.collect, tensor));
  EXPECT_FALSE(contains(plan.collect, dsmem));
  EXPECT_EQ(plan.unavailable, (std::vector<std::string>{dsmem}));
}

TEST(MetricSets, SeedSetsHoldTheirDocumentsNames) {
  // The Range Profiler collects SASS-patched metrics (measured on the H200), so gld/gst
  // efficiency stay in the seed sets.
  ASSERT_TRUE(wc::range_profiler_collects_sass_metrics());
  const wc::MetricSet* s3 = wc::find_metric_set("seed-003");
  ASSERT_NE(s3, nullptr);
  for (const char* name : {"achieved_occupancy", "gld_transactions", "gst_transactions", "gld_throughput",
                           "gst_throughput", "shared_load_transactions", "shared_store_transactions",
                           "dram_read_throughput", "dram_write_throughput", "gld_efficiency", "gst_efficiency"})
    EXPECT_TRUE(contains(s3->metrics, name)) << name;
  const wc::MetricSet* s2 = wc::find_metric_set("seed-002");
  ASSERT_NE(s2, nullptr);
  for (const char* name : {"gld_efficiency", "l1_cache_global_hit_rate", "ipc", "inst_issued", "inst_executed",
                           "divergent_branch", "l1_local_load_hit", "l2_read_transactions", "shared_load",
                           "l1_shared_bank_conflict"})
    EXPECT_TRUE(contains(s2->metrics, name)) << name;
  for (const auto& set : wc::metric_sets())
    for (const auto& m : set.metrics)
      EXPECT_TRUE(wc::find_legacy_metric(m) != nullptr || m.find('.') != std::string::npos) << set.name << ": " << m;
}

TEST(Resolve, ExpandsSetsSplitsListsAndDeduplicates) {
  const auto plan = gh100().resolve({"smsp__inst_executed.sum, inst_per_warp", "ipc,smsp__inst_executed.sum"});
  EXPECT_EQ(plan.collect,
            (std::vector<std::string>{"smsp__inst_executed.sum", "smsp__warps_launched.sum",
                                      "sm__inst_executed.avg.per_cycle_active"}));
  ASSERT_EQ(plan.derived.size(), 2u);
  EXPECT_EQ(plan.derived[0].name, "inst_per_warp");
  EXPECT_EQ(plan.derived[1].name, "ipc");
  EXPECT_EQ(plan.requested.size(), 4u);
  const auto with_set = gh100().resolve({"model", "dram__bytes_read.sum"});
  // The set's metrics and its optional ones that GH100 has (both).
  EXPECT_EQ(with_set.collect.size(),
            wc::find_metric_set("model")->metrics.size() + wc::find_metric_set("model")->optional_metrics.size());
}

TEST(Resolve, UnknownNamesGetTheClosestValidOnes) {
  const std::string e = resolve_error({"dram__bytes_red.sum"});
  EXPECT_NE(e.find("unknown metric 'dram__bytes_red.sum'"), std::string::npos) << e;
  EXPECT_NE(e.find("closest valid names: dram__bytes_read.sum"), std::string::npos) << e;
  // The roll-up the user asked for is kept where the counter has it.
  EXPECT_NE(resolve_error({"dram__bytes_red.max"}).find("dram__bytes_read.max"), std::string::npos);
  // A base name without roll-up is not collectable: suggest the rolled-up name.
  EXPECT_NE(resolve_error({"smsp__inst_executed"}).find("smsp__inst_executed.sum"), std::string::npos);
  // Misspelt nvprof names and set names are suggested too.
  EXPECT_NE(resolve_error({"achieved_ocupancy"}).find("achieved_occupancy"), std::string::npos);
  EXPECT_NE(resolve_error({"modle"}).find("model"), std::string::npos);
}

TEST(Resolve, RejectedNamesSayWhy) {
  EXPECT_NE(resolve_error({"inst_replay_overhead"}).find("has no Perfworks equivalent: Volta and later"),
            std::string::npos);
  EXPECT_NE(resolve_error({"l2_subp0_read_sector_queries"}).find("sub-partition"), std::string::npos);
  EXPECT_NE(resolve_error({""}).find("no metrics requested"), std::string::npos);
  // SASS-patched metrics resolve (the Range Profiler collects them); a build that could not would
  // refuse them with the reason.
  EXPECT_NO_THROW(gh100().resolve({"gld_efficiency", "smsp__sass_inst_executed_op_global_ld.sum"}));
  try {
    gh100().resolve({"gld_efficiency"}, /*allow_sass=*/false);
    FAIL() << "refused when SASS-patched metrics are not allowed";
  } catch (const wc::MetricNameError& e) {
    EXPECT_NE(std::string(e.what()).find("SASS-patched"), std::string::npos) << e.what();
  }
}

TEST(Names, EditDistanceAndClosest) {
  EXPECT_EQ(warpmodel::support::edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(warpmodel::support::edit_distance("", "abc"), 3u);
  EXPECT_EQ(warpmodel::support::edit_distance("same", "same"), 0u);
  const std::vector<std::string> pool = {"dram__bytes.sum", "dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_sectors.sum"};
  EXPECT_EQ(wc::closest_names("dram__bytes_reed.sum", pool, 2),
            (std::vector<std::string>{"dram__bytes_read.sum", "dram__bytes_write.sum"}));
  EXPECT_EQ(wc::closest_names("x", {}, 3).size(), 0u);
  EXPECT_EQ(wc::split_list(" a, b ,,c "), (std::vector<std::string>{"a", "b", "c"}));
}

TEST(Chip, ListsAndValidatesGH100Offline) {
  const auto chips = wc::ChipMetrics::supported_chips();
  EXPECT_TRUE(contains(chips, "GH100"));
  EXPECT_THROW(wc::ChipMetrics::for_chip("GH999"), std::invalid_argument);
  const auto base = gh100().base_metrics();
  EXPECT_GT(base.size(), 1000u);
  const auto dram = std::find_if(base.begin(), base.end(), [](const wc::MetricInfo& m) { return m.name == "dram__bytes_read"; });
  ASSERT_NE(dram, base.end());
  EXPECT_EQ(dram->type, "counter");
  EXPECT_EQ(dram->dim_unit, "byte");
  const auto subs = gh100().submetrics("dram__bytes_read", "counter");
  EXPECT_TRUE(contains(subs, ".sum"));
  EXPECT_TRUE(contains(subs, ".sum.per_second"));
  EXPECT_TRUE(gh100().is_valid("lts__t_sector_hit_rate.pct"));
  EXPECT_FALSE(gh100().is_valid("lts__t_sector_hit_rate"));
  EXPECT_FALSE(gh100().is_valid("no__such_metric.sum"));
}

TEST(Errors, PermissionAndOtherClientsAreNamedWithTheRemedy) {
  EXPECT_THROW(wc::throw_cupti_error(35 /*CUPTI_ERROR_INSUFFICIENT_PRIVILEGES*/, "cuptiRangeProfilerEnable"),
               wc::PermissionError);
  try {
    wc::throw_cupti_error(35, "cuptiRangeProfilerEnable");
  } catch (const wc::PermissionError& e) {
    const std::string w = e.what();
    EXPECT_NE(w.find("NVreg_RestrictProfilingToAdminUsers=0"), std::string::npos);
    EXPECT_NE(w.find("CAP_SYS_ADMIN"), std::string::npos);
    EXPECT_EQ(w.find('\n'), std::string::npos) << "one line";
  }
  EXPECT_THROW(wc::throw_cupti_error(39 /*MULTIPLE_SUBSCRIBERS*/, "cuptiSubscribe"), wc::OtherClientError);
  EXPECT_THROW(wc::throw_cupti_error(26 /*HARDWARE_BUSY*/, "cuptiRangeProfilerEnable"), wc::OtherClientError);
  EXPECT_THROW(wc::throw_cupti_error(1 /*INVALID_PARAMETER*/, "cuptiX"), wc::CuptiError);

  auto env = [](const char* value) {
    return [value](const char* name) -> const char* {
      return std::string(name) == "CUDA_INJECTION64_PATH" ? value : nullptr;
    };
  };
  EXPECT_FALSE(wc::injected_profiler(env(nullptr)).has_value());
  EXPECT_FALSE(wc::injected_profiler(env("")).has_value());
  const auto found = wc::injected_profiler(env("/opt/nvidia/nsight-compute/target/libInjection.so"));
  ASSERT_TRUE(found.has_value());
  EXPECT_NE(found->find("libInjection.so"), std::string::npos);
  EXPECT_NE(wc::other_client_message(*found).find("--launch-only"), std::string::npos);
}
