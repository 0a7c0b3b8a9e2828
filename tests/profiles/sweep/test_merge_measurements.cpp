// merge_measurements (profiles/sweep): a sweep of some families merged into an earlier measurement
// file. Plain JSON, no GPU.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "warpmodel/sweep/validation_sweep.hpp"

namespace {

using nlohmann::json;
using warpmodel::sweep::merge_measurements;

json earlier_file() {
  return json::parse(R"({
    "schema": "warpmodel.validation-measurements/1",
    "cases": [{"family": "stencil", "kernel": "a"}, {"family": "adi", "kernel": "b"},
              {"family": "corpus", "kernel": "c"}, {"family": "stencil", "kernel": "d"}],
    "skipped": ["stencil x: cannot launch", "corpus y: outputs wrong", "adi z: cannot launch"],
    "provenance": {"command": "old", "earlier_parts": [{"command": "older"}]}
  })");
}

json fresh_file() {
  return json::parse(R"({
    "schema": "warpmodel.validation-measurements/1",
    "cases": [{"family": "corpus", "kernel": "c2"}],
    "skipped": ["corpus w: cannot launch"],
    "provenance": {"command": "new"}
  })");
}

TEST(MergeMeasurements, FreshFamiliesReplaceTheEarlierOnes) {
  const json m = merge_measurements(earlier_file(), fresh_file(), {"corpus"});
  EXPECT_EQ(m.at("schema"), "warpmodel.validation-measurements/1");
  // The earlier cases of the other families first (in their order), then the fresh ones.
  EXPECT_EQ(m.at("cases"), json::parse(R"([{"family": "stencil", "kernel": "a"}, {"family": "adi", "kernel": "b"},
                                            {"family": "stencil", "kernel": "d"}, {"family": "corpus", "kernel": "c2"}])"));
  // The fresh skips, then the earlier skips of the families not measured again.
  EXPECT_EQ(m.at("skipped"),
            json::parse(R"(["corpus w: cannot launch", "stencil x: cannot launch", "adi z: cannot launch"])"));
  // The provenance is the new run's, with the earlier run (and what it kept) and its own earlier parts.
  const json& p = m.at("provenance");
  EXPECT_EQ(p.at("command"), "new");
  EXPECT_EQ(p.at("families_measured"), json::parse(R"(["corpus"])"));
  EXPECT_EQ(p.at("earlier_parts"),
            json::parse(R"([{"command": "old", "families_kept": ["stencil", "adi"]}, {"command": "older"}])"));
}

TEST(MergeMeasurements, SeveralFamiliesAndNoEarlierProvenance) {
  json earlier = earlier_file();
  earlier.erase("provenance");
  const json m = merge_measurements(earlier, fresh_file(), {"corpus", "stencil"});
  EXPECT_EQ(m.at("cases"), json::parse(R"([{"family": "adi", "kernel": "b"}, {"family": "corpus", "kernel": "c2"}])"));
  EXPECT_EQ(m.at("skipped"), json::parse(R"(["corpus w: cannot launch", "adi z: cannot launch"])"));
  EXPECT_EQ(m.at("provenance").at("families_measured"), json::parse(R"(["corpus", "stencil"])"));
  EXPECT_EQ(m.at("provenance").at("earlier_parts"), json::array());
}

TEST(MergeMeasurements, SomeCorpusKernelsReplaceOnlyTheirOwnCases) {
  json earlier = earlier_file();
  earlier["cases"].push_back({{"family", "corpus"}, {"kernel", "y"}});
  earlier["skipped"].push_back("corpus c, 1024, 256: failed, not measured: x");
  json fresh = fresh_file();
  fresh["cases"] = json::parse(R"([{"family": "corpus", "kernel": "y"}])");
  fresh["skipped"] = json::array();
  const json m = merge_measurements(earlier, fresh, {"corpus"}, {"y"});
  // The corpus's other kernel (c) and its skip are kept; y's case and skip are the fresh run's.
  EXPECT_EQ(m.at("cases"), json::parse(R"([{"family": "stencil", "kernel": "a"}, {"family": "adi", "kernel": "b"},
                                            {"family": "corpus", "kernel": "c"}, {"family": "stencil", "kernel": "d"},
                                            {"family": "corpus", "kernel": "y"}])"));
  EXPECT_EQ(m.at("skipped"), json::parse(R"(["stencil x: cannot launch", "adi z: cannot launch",
                                              "corpus c, 1024, 256: failed, not measured: x"])"));
  EXPECT_EQ(m.at("provenance").at("corpus_kernels_measured"), json::parse(R"(["y"])"));
  EXPECT_EQ(m.at("provenance").at("earlier_parts").at(0).at("families_kept"),
            json::parse(R"(["stencil", "adi", "corpus"])"));
}

TEST(MergeMeasurements, TheCacheProtocolIsReadFromTheProvenance) {
  // Files from before the protocol was recorded were warm.
  EXPECT_FALSE(warpmodel::sweep::measured_cold(earlier_file()));
  json cold = earlier_file();
  cold["provenance"]["l2_before_each_launch"] = warpmodel::sweep::kL2Cold;
  EXPECT_TRUE(warpmodel::sweep::measured_cold(cold));
  cold["provenance"]["l2_before_each_launch"] = warpmodel::sweep::kL2Warm;
  EXPECT_FALSE(warpmodel::sweep::measured_cold(cold));
  EXPECT_FALSE(warpmodel::sweep::measured_cold(json::object()));
}

}  // namespace
