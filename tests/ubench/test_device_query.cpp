// On a GPU: the runtime's view of the device is sane and matches the model's architecture table.
#include <gtest/gtest.h>

#include "device_query.hpp"
#include "warpmodel/device_profile.hpp"

TEST(DeviceQuery, ReportsAKnownArchitecture) {
  const auto gpus = warpmodel::ubench::query_gpus();
  ASSERT_FALSE(gpus.empty());
  for (const auto& g : gpus) {
    EXPECT_GT(g.sm_count, 0);
    EXPECT_GT(g.sm_clock_mhz, 100);
    EXPECT_GT(g.mem_peak_bandwidth_gbs, 10);
    const auto limits = warpmodel::arch_limits_for(g.cc_major, g.cc_minor);
    EXPECT_EQ(limits.max_threads_per_sm, g.max_threads_per_sm);
    EXPECT_EQ(limits.max_blocks_per_sm, g.max_blocks_per_sm);
    EXPECT_EQ(limits.registers_per_sm, g.registers_per_sm);
    EXPECT_EQ(limits.shared_memory_per_sm_bytes, g.shared_memory_per_sm_bytes);
  }
}
