#include <gtest/gtest.h>

#include "warpmodel/model.hpp"
#include "warpmodel/sweep.hpp"
#include "warpmodel/thesis.hpp"
#include "round_profiles.hpp"

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

// A one-block kernel profiled with 2 warps and relaunched with 32: the same work over 16 times the
// warps, so every per-warp count is divided by 16; a one-thread-per-point grid keeps its counts.
TEST(Sweep, ProfileAtLaunchConservesTheWork) {
  KernelProfile k;
  k.launch.grid = {1, 1, 1};
  k.launch.block = {64, 1, 1};
  k.inst_per_warp = 3200;
  k.mem_inst_per_warp = 160;
  k.global_load_inst_per_warp = 128;
  k.l2_bytes_per_warp = 16384;
  k.l1_miss_ratio = 0.5;
  k.mlp = 4;
  k.launch.active_warps_per_sm = 2;
  LaunchConfig wide = k.launch;
  wide.block = {1024, 1, 1};
  const KernelProfile w = profile_at_launch(k, wide);
  EXPECT_DOUBLE_EQ(w.inst_per_warp, 200);
  EXPECT_DOUBLE_EQ(w.mem_inst_per_warp, 10);
  EXPECT_DOUBLE_EQ(*w.global_load_inst_per_warp, 8);
  EXPECT_DOUBLE_EQ(*w.l2_bytes_per_warp, 1024);
  EXPECT_DOUBLE_EQ(w.l1_miss_ratio, 0.5);  // ratios and parallelism are the kernel's, not the shape's
  EXPECT_DOUBLE_EQ(w.mlp, 4);
  EXPECT_FALSE(w.launch.active_warps_per_sm) << "N follows from the new shape";
  EXPECT_EQ(w.launch.block, (Dim3{1024, 1, 1}));
  LaunchConfig same_points = k.launch;  // 1 x 64 threads as 2 blocks of 32
  same_points.grid = {2, 1, 1};
  same_points.block = {32, 1, 1};
  EXPECT_DOUBLE_EQ(profile_at_launch(k, same_points).inst_per_warp, 3200);
}

// The profiled shape's row is `predict`'s prediction: its measured active warps (hopper H.1b: one
// working warp of four in a one-block launch) stay with it and with no other shape.
TEST(Sweep, TheProfiledShapeKeepsItsMeasuredActiveWarps) {
  const DeviceProfile d = testing::round_device();
  KernelProfile k = testing::round_kernel();
  k.launch.grid = {1, 1, 1};
  k.launch.block = {128, 1, 1};
  k.launch.active_warps_per_sm = 1;
  const std::vector<Dim3> shapes = {{128, 1, 1}, {256, 1, 1}};
  const SweepResult r = sweep_launch_shapes(d, k, ModelVariant::Hopper, shapes);
  ASSERT_EQ(r.ranked.size(), 2u);
  for (const auto& e : r.ranked) {
    if (e.block == Dim3{128, 1, 1}) {
      EXPECT_DOUBLE_EQ(e.prediction.cycles, predict(ModelVariant::Hopper, d, k).cycles);
      EXPECT_DOUBLE_EQ(e.prediction.working_warps_per_sm, 1);
    } else {
      EXPECT_FALSE(e.profile.launch.active_warps_per_sm.has_value());
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
