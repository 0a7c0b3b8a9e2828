// CPU tests of the ubench core: the SASS parser and check on committed fixtures, the statistics,
// the declarations, and (when cuobjdump is available) the check on the freshly built program.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <regex>
#include <sstream>

#include "registry.hpp"
#include "sass_check.hpp"
#include "stats.hpp"

using namespace warpmodel::ubench;

namespace {
std::string read(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}
const std::string kFixture = std::string(WARPMODEL_UBENCH_FIXTURES) + "/sm90_ubench_subset.sass";

SassVerdict verdict(const SassListing& l, const std::string& name) {
  const auto* d = find_declaration(name);
  EXPECT_NE(d, nullptr) << name;
  return check_declaration(*d, l);
}
}  // namespace

TEST(SassParser, FindsKernelsAndInstructions) {
  const auto l = parse_sass(read(kFixture));
  ASSERT_TRUE(l.count("ubench_lat_fp32_add"));
  ASSERT_TRUE(l.count("ubench_chase_cg"));
  const auto& ins = l.at("ubench_chase_ca");
  int clocks = 0, strong_sm = 0;
  for (const auto& i : ins) {
    clocks += i.operands.find("SR_CLOCKLO") != std::string::npos;
    strong_sm += i.opcode == "LDG.E.64.STRONG.SM";
  }
  EXPECT_EQ(clocks, 2);
  EXPECT_EQ(strong_sm, 256 + 1);  // the timed chain plus the warm-up loop's load
  bool predicated = false;
  for (const auto& i : ins) predicated |= i.predicate == "@!P1" && i.opcode == "BRA";
  EXPECT_TRUE(predicated);
}

TEST(SassParser, ReadsNvdisasmStyleSections) {
  const std::string text =
      "        .text.ubench_clock64:\n"
      "        /*0000*/                   CS2R R2, SR_CLOCKLO ;\n"
      "        /*0010*/                   CS2R R4, SR_CLOCKLO ;\n"
      "        /*0020*/                   EXIT ;\n";
  const auto l = parse_sass(text);
  ASSERT_TRUE(l.count("ubench_clock64"));
  EXPECT_EQ(l.at("ubench_clock64").size(), 3u);
  EXPECT_TRUE(verdict(l, "clock64").valid);
}

TEST(SassCheck, DeclaredLatencyBenchmarksPassOnTheFixture) {
  const auto l = parse_sass(read(kFixture));
  for (const char* name : {"fp32_add", "fp32_fma", "sfu_rcp", "fp32_div_full", "shared_load", "chase_ca", "chase_cg",
                           "clock64", "departure"}) {
    const auto v = verdict(l, name);
    EXPECT_TRUE(v.valid) << name << ": " << v.reason;
    EXPECT_EQ(v.found, v.expected) << name;
  }
  EXPECT_EQ(verdict(l, "fp32_add").region.at("FADD"), 512);
  EXPECT_EQ(verdict(l, "chase_cg").region.at("LDG.E.64.STRONG.GPU"), 256);
}

TEST(SassCheck, RemovedMovChainIsInvalid) {
  // ptxas deletes a chain of mov.f32: the region is empty, so the benchmark must be reported invalid.
  const auto v = verdict(parse_sass(read(kFixture)), "register_mov");
  EXPECT_FALSE(v.valid);
  EXPECT_EQ(v.found, 0);
  EXPECT_NE(v.reason.find("declared 512"), std::string::npos) << v.reason;
}

TEST(SassCheck, TamperedRegionsAreInvalid) {
  std::string text = read(kFixture);
  const auto fn = text.find("Function : ubench_lat_fp32_add");
  ASSERT_NE(fn, std::string::npos);
  // One FADD becomes an FMUL: the count no longer matches and FMUL is not tolerated.
  const auto fadd = text.find("FADD", text.find("SR_CLOCKLO", fn));
  std::string t1 = text;
  t1.replace(fadd, 4, "FMUL");
  auto v = verdict(parse_sass(t1), "fp32_add");
  EXPECT_FALSE(v.valid);
  EXPECT_EQ(v.found, 511);
  EXPECT_NE(v.reason.find("FMUL x1"), std::string::npos) << v.reason;
  // A load inside the timed region distorts it.
  std::string t2 = text;
  const auto line = t2.rfind('\n', fadd) + 1;
  t2.insert(line, "        /*0000*/                   LDG.E R2, desc[UR4][R2.64] ;\n");
  v = verdict(parse_sass(t2), "fp32_add");
  EXPECT_FALSE(v.valid);
  EXPECT_NE(v.reason.find("LDG.E x1"), std::string::npos) << v.reason;
  // The chase with the wrong cache operator (.cg where .ca was declared) is caught.
  std::string t3 = text;
  const auto ca = t3.find("Function : ubench_chase_ca");
  const auto end = t3.find("Function :", ca + 10);
  for (auto p = t3.find("LDG.E.64.STRONG.SM", ca); p != std::string::npos && p < end;
       p = t3.find("LDG.E.64.STRONG.SM", p))
    t3.replace(p, 18, "LDG.E.64.STRONG.GPU");
  v = verdict(parse_sass(t3), "chase_ca");
  EXPECT_FALSE(v.valid);
  // A missing kernel is invalid, not skipped.
  EXPECT_FALSE(verdict(SassListing{}, "fp32_add").valid);
}

TEST(SassCheck, ExtraClockReadIsInvalid) {
  std::string text = read(kFixture);
  const auto fn = text.find("Function : ubench_lat_fp32_add");
  const auto fadd = text.find("FADD", text.find("SR_CLOCKLO", fn));
  const auto line = text.rfind('\n', fadd) + 1;
  text.insert(line, "        /*0000*/                   CS2R R9, SR_CLOCKLO ;\n");
  const auto v = verdict(parse_sass(text), "fp32_add");
  EXPECT_FALSE(v.valid);
  EXPECT_NE(v.reason.find("found 3"), std::string::npos) << v.reason;
}

// A store round trip must hold the declared stores AND the declared loads: ptxas forwarding the
// stored value (and deleting the loads) makes it invalid.
TEST(SassCheck, StoreRoundTripNeedsItsLoads) {
  auto listing = [](int loads) {
    std::ostringstream t;
    t << "\t\tFunction : ubench_store_shared\n        /*0000*/                   CS2R R2, SR_CLOCKLO ;\n";
    int pc = 0x10;
    for (int i = 0; i < 256; ++i) {
      t << "        /*" << std::hex << pc << "*/                   STS [R4], R4 ;\n";
      pc += 0x10;
      if (i < loads) {
        t << "        /*" << std::hex << pc << "*/                   LDS R4, [R4] ;\n";
        pc += 0x10;
      }
    }
    t << "        /*" << std::hex << pc << "*/                   LOP3.LUT R0, R0, R4, RZ, 0x3c, !PT ;\n";
    t << "        /*" << std::hex << pc + 0x10 << "*/                   CS2R R6, SR_CLOCKLO ;\n";
    return parse_sass(t.str());
  };
  const auto ok = verdict(listing(256), "store_shared");
  EXPECT_TRUE(ok.valid) << ok.reason;
  const auto forwarded = verdict(listing(0), "store_shared");
  EXPECT_FALSE(forwarded.valid);
  EXPECT_NE(forwarded.reason.find("0 x LDS"), std::string::npos) << forwarded.reason;
}

TEST(Declarations, EveryBenchmarkIsDeclaredOnce) {
  std::set<std::string> names;
  for (const auto& d : declarations()) {
    EXPECT_TRUE(names.insert(d.name).second) << d.name;
    EXPECT_FALSE(d.kernel.empty());
    EXPECT_GE(d.chain, 1);
    EXPECT_NO_THROW(std::regex(d.sass_regex.empty() ? "$^" : d.sass_regex)) << d.name;
    if (!d.minus.empty()) EXPECT_NE(find_declaration(d.minus), nullptr) << d.name;
  }
  for (const char* n : {"fp32_add", "fp32_fma", "fp32_div_rn", "sfu_rcp", "fp64_fma", "shared_load", "chase_ca",
                        "chase_cg", "departure", "clock64", "store_shared", "selfload_shared", "store_global",
                        "selfload_global", "l2_lines"})
    EXPECT_NE(find_declaration(n), nullptr) << n;
}

TEST(Stats, GumTypeA) {
  const auto e = estimate({10, 12, 14, 16});
  EXPECT_DOUBLE_EQ(e.mean, 13);
  EXPECT_NEAR(e.stddev, std::sqrt(20.0 / 3), 1e-12);
  EXPECT_NEAR(e.uncertainty, std::sqrt(20.0 / 3) / 2, 1e-12);
  EXPECT_EQ(e.n, 4);
  EXPECT_EQ(estimate({5}).uncertainty, 0);
}

TEST(Stats, LinearFit) {
  const auto f = linear_fit({1, 2, 3, 4}, {3, 5, 7, 9});
  EXPECT_NEAR(f.slope, 2, 1e-12);
  EXPECT_NEAR(f.intercept, 1, 1e-12);
  EXPECT_NEAR(f.slope_uncertainty, 0, 1e-12);
  const auto g = linear_fit({1, 2, 3, 4}, {3, 5.5, 7, 9});
  EXPECT_GT(g.slope_uncertainty, 0);
  EXPECT_THROW(linear_fit({1}, {1}), std::invalid_argument);
}

// The check on the program just built: needs cuobjdump (toolkit or PyPI wheel); skips without it.
TEST(SassLive, FreshlyBuiltProgramPassesItsChecks) {
#ifndef WARPMODEL_BIN
  GTEST_SKIP() << "built without CUDA: no kernels to check";
#else
  std::string error;
  const auto text = dump_sass(WARPMODEL_BIN, &error);
  if (!text) GTEST_SKIP() << error;
  const auto verdicts = check_all(parse_sass(*text));
  ASSERT_EQ(verdicts.size(), declarations().size());
  for (const auto& v : verdicts) {
    if (v.benchmark.rfind("register_mov", 0) == 0) {
      EXPECT_FALSE(v.valid) << "ptxas kept the mov chain? " << v.reason;
      continue;
    }
    EXPECT_TRUE(v.valid) << v.benchmark << ": " << v.reason;
  }
#endif
}
