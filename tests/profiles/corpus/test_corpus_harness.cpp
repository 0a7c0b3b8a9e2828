// The host half of the corpus workloads (profiles/corpus/src): deterministic inputs, the pointer
// chase's cycle, output sampling and comparisons. No GPU: what the device computes from the same
// functions is checked by the gpu test.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "harness.hpp"
#include "random.hpp"

namespace wc = warpmodel::corpus;
namespace wd = warpmodel::corpus::detail;

TEST(CorpusHarness, UniformValuesStayInTheirRangeAndVary) {
  std::set<float> seen;
  for (std::uint64_t i = 0; i < 10000; ++i) {
    const float v = wc::uniform_f32(7, i, -1.0f, 2.0f);
    EXPECT_GE(v, -1.0f);
    EXPECT_LT(v, 1.0f);
    seen.insert(v);
    const double d = wc::uniform_f64(7, i, 0.5, 1.0);
    EXPECT_GE(d, 0.5);
    EXPECT_LT(d, 1.5);
  }
  EXPECT_GT(seen.size(), 9900u);
  EXPECT_NE(wc::uniform_f32(7, 0, -1.0f, 2.0f), wc::uniform_f32(8, 0, -1.0f, 2.0f));  // seeds differ
  // 24 random bits times a power of two: every value is a multiple of 2^-23 in [-1, 1).
  const float v = wc::uniform_f32(3, 5, -1.0f, 2.0f);
  EXPECT_EQ(std::ldexp(v, 23), std::round(std::ldexp(v, 23)));
}

// The tensor-core inputs: k / 8 for k = -8..7, each value taken about equally often, so that FP16,
// BF16 and FP8 E4M3 hold them exactly (3 significant bits at most) and products add exactly in FP32.
TEST(CorpusHarness, EighthsAreSixteenExactValuesInMinusOneToOne) {
  std::vector<int> count(16, 0);
  for (std::uint64_t i = 0; i < 16000; ++i) {
    const float v = wc::eighths_f32(11, i);
    const float k = v * 8.0f;
    ASSERT_EQ(k, std::round(k)) << v;
    ASSERT_GE(k, -8.0f);
    ASSERT_LE(k, 7.0f);
    ++count[static_cast<int>(k) + 8];
  }
  for (int c : count) {
    EXPECT_GT(c, 800);
    EXPECT_LT(c, 1200);
  }
  int differ = 0;  // a function of the seed as well: two seeds agree about 1 time in 16
  for (std::uint64_t i = 0; i < 256; ++i) differ += wc::eighths_f32(11, i) != wc::eighths_f32(12, i);
  EXPECT_GT(differ, 200);
}

TEST(CorpusHarness, KeysAreEqualAcrossTheirGroupAndBelowTheModulus) {
  for (std::uint64_t i = 0; i < 4096; ++i) {
    EXPECT_LT(wc::random_key(9, i, 4096, 1), 4096u);
    EXPECT_EQ(wc::random_key(9, i, 0, 32), wc::random_key(9, i - i % 32, 0, 32));
  }
  std::set<std::uint32_t> lanes;  // per-lane keys do differ within a warp
  for (std::uint64_t i = 0; i < 32; ++i) lanes.insert(wc::random_key(9, i, 4, 1));
  EXPECT_GT(lanes.size(), 1u);
}

// The chase's table is next[scramble(j)] = scramble(j + 1): one cycle if scramble is a bijection,
// and chain c, started at scramble(p), ends `steps` later at scramble(p + steps).
TEST(CorpusHarness, ScrambleIsABijectionSoTheChaseIsOneCycle) {
  for (unsigned bits : {1u, 5u, 12u, 16u}) {
    const std::uint32_t n = 1u << bits;
    std::vector<std::uint32_t> next(n, 0xFFFFFFFFu);
    std::vector<bool> hit(n, false);
    for (std::uint32_t j = 0; j < n; ++j) {
      const std::uint32_t s = wc::scramble(j, bits);
      ASSERT_LT(s, n);
      EXPECT_FALSE(hit[s]) << "bits " << bits << ": " << j;
      hit[s] = true;
      next[s] = wc::scramble((j + 1) & (n - 1), bits);
    }
    std::uint32_t p = wc::scramble(0, bits), length = 0;
    do {
      p = next[p];
      ++length;
    } while (p != wc::scramble(0, bits) && length <= n);
    EXPECT_EQ(length, n) << "bits " << bits;
    p = wc::scramble(5, bits);
    for (int s = 0; s < 37; ++s) p = next[p];
    EXPECT_EQ(p, wc::scramble((5 + 37) & (n - 1), bits));
  }
}

TEST(CorpusHarness, SamplesCoverTheEndsWithoutRepeats) {
  EXPECT_EQ(wd::sample_indices(10).size(), 10u);
  for (std::size_t n : {513ul, 4096ul, 1ul << 26}) {
    const auto s = wd::sample_indices(n);
    EXPECT_GE(s.size(), 256u);
    EXPECT_LE(s.size(), 512u);
    EXPECT_TRUE(std::is_sorted(s.begin(), s.end()));
    EXPECT_EQ(std::adjacent_find(s.begin(), s.end()), s.end());
    EXPECT_EQ(s.front(), 0u);
    EXPECT_EQ(s.back(), n - 1);
  }
  EXPECT_EQ(wd::sample_indices(1 << 20), wd::sample_indices(1 << 20));  // deterministic
}

TEST(CorpusHarness, ComparisonsNameTheFirstWrongOutput) {
  wd::Comparison ok("y", wd::kRtolF32);
  ok.near(0, 1.00005, 1.0, 1.0);
  ok.near(1, 10.0, 10.0001, 1e3);  // within 1e-4 of the magnitude of the terms
  ok.equal(2, 3.0, 3.0);
  EXPECT_EQ(ok.verdict(), "");
  wd::Comparison bad("y", wd::kRtolF32);
  bad.near(0, 1.0, 1.0, 1.0);
  bad.near(7, 1.001, 1.0, 1.0);
  bad.near(9, std::nan(""), 1.0, 1.0);
  EXPECT_NE(bad.verdict().find("2 of 3 checked outputs wrong; first: y[7] = 1.001, expected 1"), std::string::npos)
      << bad.verdict();
  EXPECT_NE(wd::all_finite(std::vector<float>{1.0f, std::nanf(""), 2.0f}, "out").find("out[1]"), std::string::npos);
  EXPECT_EQ(wd::all_finite(std::vector<float>{1.0f, 2.0f}, "out"), "");
  EXPECT_NE(wd::none_poisoned({1u, 0xFFFFFFFFu}, "mode").find("mode[1]"), std::string::npos);
}
