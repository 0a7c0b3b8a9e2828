// Launch geometry of the GPU variants (plain C++, no GPU): names, block checks, shared memory,
// grids and the automatic z chunk.
#include <gtest/gtest.h>

#include "warpmodel/stencils/launch_plan.hpp"

namespace warpmodel::stencils {
namespace {

StencilLaunch launch(Variant v, int order, Dim3 block, std::size_t n = 64) {
  StencilLaunch l;
  l.variant = v, l.order = order, l.block = block, l.nx = l.ny = l.nz = n;
  return l;
}

std::string error_of(const StencilLaunch& l, const DeviceLimits& d = {}) {
  try {
    plan_block(l, d);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(Variants, NamesRoundTripAndUnknownNamesListTheValidOnes) {
  EXPECT_EQ(variants().size(), 5u);
  for (const auto& v : variants()) EXPECT_EQ(parse_variant(v.name), v.variant);
  try {
    parse_variant("tiled");
    FAIL();
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'tiled'"), std::string::npos);
    EXPECT_NE(what.find("naive, readonly, shared, intz, intz-reg"), std::string::npos);
  }
  EXPECT_EQ(parse_loader("cp-async"), IntzRegLoader::cp_async);
  EXPECT_THROW(parse_loader("ldg"), std::invalid_argument);
}

TEST(Dim3Text, ParsesOneTwoOrThreeNumbers) {
  EXPECT_EQ(parse_dim3("32x4x2", "block"), (Dim3{32, 4, 2}));
  EXPECT_EQ(parse_dim3("32x4", "block"), (Dim3{32, 4, 1}));
  EXPECT_EQ(parse_dim3("50", "size"), (Dim3{50, 1, 1}));
  for (const char* bad : {"", "x4", "32x", "32x0", "32x4x2x1", "a", "-3", "32 x4"})
    EXPECT_THROW(parse_dim3(bad, "block"), std::invalid_argument) << bad;
  EXPECT_EQ(to_string(Dim3{8, 8, 4}), "8x8x4");
}

TEST(Pitch, RowsArePaddedTo128Bytes) {
  EXPECT_EQ(padded_pitch(1), 32u);
  EXPECT_EQ(padded_pitch(32), 32u);
  EXPECT_EQ(padded_pitch(50), 64u);
  EXPECT_EQ(padded_pitch(512), 512u);
}

TEST(PlanBlock, RefusesBadShapesWithAReason) {
  EXPECT_NE(error_of(launch(Variant::naive, 7, {32, 4, 1})).find("order 7"), std::string::npos);
  EXPECT_NE(error_of(launch(Variant::naive, 8, {32, 4, 1}, 8)).find("too small"), std::string::npos);
  EXPECT_NE(error_of(launch(Variant::naive, 8, {64, 32, 1})).find("more than 1024"), std::string::npos);
  EXPECT_NE(error_of(launch(Variant::intz, 8, {32, 4, 2})).find("z must be 1"), std::string::npos);
  EXPECT_NE(error_of(launch(Variant::intz_reg, 8, {1, 64, 1})).find("x >= 2"), std::string::npos);
  StencilLaunch l = launch(Variant::naive, 8, {32, 4, 1});
  l.pipeline_depth = 2;
  EXPECT_NE(error_of(l).find("intz-reg only"), std::string::npos);
  l = launch(Variant::intz_reg, 8, {32, 4, 1});
  l.pipeline_depth = 4;
  EXPECT_NE(error_of(l).find("1, 2 or 3"), std::string::npos);
  // The TMA box is at most 256 floats wide: 4 x 64 + 2 x 8 > 256.
  EXPECT_NE(error_of(launch(Variant::intz_reg, 16, {64, 4, 1})).find("at most 256"), std::string::npos);
  l = launch(Variant::intz_reg, 16, {64, 4, 1});
  l.loader = IntzRegLoader::cp_async;
  EXPECT_EQ(error_of(l), "");
  DeviceLimits small;
  small.max_shared_per_block = 16 * 1024;
  EXPECT_NE(error_of(launch(Variant::intz_reg, 16, {32, 16, 1}), small).find("shared memory"), std::string::npos);
}

TEST(PlanBlock, SharedMemoryFollowsTheTileLayouts) {
  // shared: bz planes of (bx + 2R) x (by + 2R) floats.
  EXPECT_EQ(plan_block(launch(Variant::shared, 8, {32, 8, 2}), {}).dynamic_shared_bytes, 2u * 16 * 40 * 4);
  EXPECT_EQ(plan_block(launch(Variant::naive, 8, {32, 8, 2}), {}).dynamic_shared_bytes, 0u);
  // intz-reg, order 8 (R = R4 = 4), 32x8 threads, depth 2: 3 stages of the tile (136 x 16) and three
  // own arrays (128 x 8), each rounded to 32 floats, + 256 bytes (mbarriers, alignment) for TMA.
  const LaunchGeometry g = plan_block(launch(Variant::intz_reg, 8, {32, 8, 1}), {});
  EXPECT_EQ(g.pipeline_depth, 2);
  EXPECT_EQ(g.dynamic_shared_bytes, 3u * (136 * 16 + 3 * 1024) * 4 + 256);
  StencilLaunch l = launch(Variant::intz_reg, 2, {32, 8, 1});  // R = 1, R4 = 4: tile 136 x 10
  l.loader = IntzRegLoader::cp_async;
  l.pipeline_depth = 1;
  EXPECT_EQ(plan_block(l, {}).dynamic_shared_bytes, 2u * (1376 + 3 * 1024) * 4);
}

TEST(Geometry, GridsCoverTheDomain) {
  StencilLaunch l = launch(Variant::naive, 4, {8, 8, 4}, 50);
  LaunchGeometry g = finish_geometry(l, plan_block(l, {}), {}, 8);
  EXPECT_EQ(g.grid, (Dim3{7, 7, 13}));  // the thesis's 50^3 with 8x8x4 blocks
  l = launch(Variant::intz_reg, 8, {16, 8, 1}, 50);  // pitch 64 = one block of 16 x 4 points
  l.z_chunk = 7;
  g = finish_geometry(l, plan_block(l, {}), {}, 2);
  EXPECT_EQ(g.grid, (Dim3{1, 7, 8}));
  EXPECT_EQ(g.z_chunk, 7);
  l = launch(Variant::intz, 8, {32, 4, 1}, 50);
  EXPECT_THROW(finish_geometry(l, plan_block(l, {}), {}, 0), std::invalid_argument);  // cannot be resident
  l.z_chunk = 3;
  l.variant = Variant::shared;
  EXPECT_THROW(plan_block(l, {}), std::invalid_argument);  // z chunk is for the marching variants
}

// The automatic chunk minimises waves x (planes + radius): one chunk when the xy blocks already
// fill a wave, more when they do not (more blocks in flight, each paying R extra planes).
TEST(Geometry, AutomaticZChunk) {
  EXPECT_EQ(choose_z_chunk(512, 512, 4, 528), 512);  // 512^3, 32x4 tiles of 128x4 points: one wave
  EXPECT_EQ(choose_z_chunk(1024, 512, 4, 528), 512);  // two waves either way: no split
  const int chunk = choose_z_chunk(64, 256, 4, 264);  // 256^3, 64 xy blocks, 264 per wave: split in 4
  EXPECT_EQ(chunk, 64);
  EXPECT_EQ(choose_z_chunk(1, 10, 1, 100), 1);  // one column, many slots: one plane per block
  for (std::size_t xy : {1u, 7u, 100u, 1000u})
    for (std::size_t nz : {17u, 50u, 256u}) {
      const int c = choose_z_chunk(xy, nz, 8, 264);
      EXPECT_GE(c, 1);
      EXPECT_LE(c, int(nz));
    }
}

}  // namespace
}  // namespace warpmodel::stencils
