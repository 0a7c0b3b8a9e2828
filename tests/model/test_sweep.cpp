#include <gtest/gtest.h>

#include "warpmodel/model.hpp"
#include "warpmodel/sweep.hpp"
#include "warpmodel/thesis.hpp"

namespace warpmodel {
namespace {

TEST(Sweep, CandidatesAreWholeWarpsWithinTheBlockLimit) {
  const DeviceProfile d = thesis_k40_device();
  const auto shapes = candidate_block_shapes(d, {50, 50, 50});
  ASSERT_GT(shapes.size(), 50u);
  for (const Dim3& b : shapes) {
    EXPECT_EQ(b.count() % 32, 0);
    EXPECT_LE(b.count(), 1024);
  }
  for (const Dim3& b : candidate_block_shapes(d, {1 << 20, 1, 1})) EXPECT_EQ(b.y * b.z, 1);
}

TEST(Sweep, RanksFastestFirstAndRederivesTheGrid) {
  const DeviceProfile d = thesis_k40_device();
  const KernelProfile k = thesis_order2_kernel();
  const auto shapes = candidate_block_shapes(d, kernel_domain(k));
  for (ModelVariant v : all_variants()) {
    if (v == ModelVariant::Hopper) continue;  // needs measured rates the K40 profile lacks (test_hopper.cpp)
    const SweepResult r = sweep_launch_shapes(d, k, v, shapes);
    ASSERT_EQ(r.ranked.size() + r.rejected, shapes.size());
    for (std::size_t i = 1; i < r.ranked.size(); ++i)
      EXPECT_LE(r.ranked[i - 1].prediction.cycles, r.ranked[i].prediction.cycles);
    for (const auto& e : r.ranked) {
      EXPECT_EQ(e.grid, grid_for({50, 50, 50}, e.block));
      EXPECT_NE(e.prediction.occupancy.limiter, OccupancyLimiter::Forced);  // N re-derived per shape
    }
  }
}

TEST(Sweep, ShapesThatCannotRunAreCountedNotRanked) {
  const DeviceProfile d = thesis_k40_device();
  KernelProfile k = thesis_order2_kernel();
  k.launch.registers_per_thread = 128;  // 1024 x 128 > 65536 registers
  const std::vector<Dim3> shapes{{1024, 1, 1}, {256, 1, 1}};
  const SweepResult r = sweep_launch_shapes(d, k, ModelVariant::Thesis2016, shapes);
  EXPECT_EQ(r.rejected, 1);
  ASSERT_EQ(r.ranked.size(), 1u);
  EXPECT_EQ(r.ranked[0].block, (Dim3{256, 1, 1}));
}

}  // namespace
}  // namespace warpmodel
