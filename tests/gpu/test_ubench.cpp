// On a GPU: the harness's kernels give physically sensible numbers (small, fast runs).
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <numeric>

#include "kernels.hpp"
#include "registry.hpp"

using namespace warpmodel::ubench;

namespace {
double mean_per_op(const gpu::Cycles& c, int units, int reps, double overhead, double chain) {
  double s = 0;
  for (int u = 0; u < units; ++u)
    for (int r = 1; r <= reps; ++r) s += static_cast<double>(c[static_cast<std::size_t>(u) * (reps + 1) + r]);
  return (s / (units * reps) - overhead) / chain;
}
}  // namespace

TEST(Ubench, ClockOverheadAndFp32Latency) {
  gpu::select_device(0);
  const double oh = mean_per_op(gpu::run_clock(0, 1, 20), 1, 20, 0, 1);
  EXPECT_GT(oh, 0);
  EXPECT_LT(oh, 200);
  const auto* add = find_declaration("fp32_add");
  ASSERT_NE(add, nullptr);
  const double lat = mean_per_op(gpu::run_alu(add->alu_index, false, 1, 1, 20), 1, 20, oh, add->chain);
  EXPECT_GT(lat, 1.5);
  EXPECT_LT(lat, 12);
}

TEST(Ubench, CacheHierarchyIsOrdered) {
  gpu::select_device(0);
  gpu::ChaseBuffer chase(std::size_t(1) << 30);
  chase.build(16 << 10, 256, 1);
  const double l1 = mean_per_op(chase.run("ca", true, 1, 1, 64, 10), 1, 10, 0, 256);
  chase.build(4 << 20, 256, 2);
  const double l2 = mean_per_op(chase.run("cg", true, 1, 1, 8192, 10), 1, 10, 0, 256);
  chase.build(std::size_t(1) << 30, 4096, 3);
  const double dram = mean_per_op(chase.run("cg", true, 1, 1, 0, 10), 1, 10, 0, 256);
  EXPECT_LT(l1, l2);
  EXPECT_LT(l2, dram);
  EXPECT_GT(dram, 200);
}

TEST(Ubench, StoreRoundTripCostsAtLeastTheLoad) {
  gpu::select_device(0);
  const double oh = mean_per_op(gpu::run_clock(0, 1, 20), 1, 20, 0, 1);
  for (int space : {0, 2}) {
    const double trip = mean_per_op(gpu::run_store(space, 1, 20), 1, 20, oh, 256);
    const double load = mean_per_op(gpu::run_store(space + 1, 1, 20), 1, 20, oh, 256);
    EXPECT_GT(load, 5) << space;
    EXPECT_GE(trip, load - 1) << space;
  }
}

TEST(Ubench, L2LinesReachEverySmAsked) {
  gpu::select_device(0);
  int sms = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), cudaSuccess);
  gpu::ChaseBuffer chase(std::size_t(4) << 20);
  chase.build(4 << 20, 256, 7);
  chase.prewarm();
  for (int sm : {0, sms - 1}) {
    const auto c = chase.run_lines(sm, 256, 4 * sms);
    ASSERT_EQ(c.size(), 256u);
    EXPECT_GT(c[0], 50) << "SM " << sm;  // -1: no block landed there
    EXPECT_LT(c[0], 5000) << "SM " << sm;
  }
}
