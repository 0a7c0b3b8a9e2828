// The corpus on a GPU (label gpu; without one the binary exits 77 and ctest reports it skipped):
//  - every kernel at its smallest size and two shapes (its first and last declared): setup,
//    launch, verify() == ""; then restore_inputs() and a second launch verify again (the in-place
//    and atomic kernels depend on the restore);
//  - two kernels through the CUPTI profiler with kernel replay, as `validate --measure` runs them:
//    the grid and block CUPTI records are the registry's, every warp of the grid is launched, and
//    the outputs are right after the replayed passes.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

#include "warpmodel/corpus/corpus.hpp"
#include "warpmodel/corpus/workload.hpp"
#include "warpmodel/cupti/profiler.hpp"

namespace wc = warpmodel::corpus;

TEST(CorpusGpu, EveryKernelVerifiesAtItsSmallestSizeAndTwoShapes) {
  const auto t0 = std::chrono::steady_clock::now();
  for (const auto& k : wc::kernels()) {
    for (const wc::Shape shape : {k.shapes.front(), k.shapes.back()}) {
      const wc::Size& size = k.sizes.front();
      SCOPED_TRACE(k.name + " " + size.label + " " + shape.label());
      const auto w = wc::make_corpus_workload(k, size, shape);
      w->setup();
      w->restore_inputs();
      w->launch(0);
      EXPECT_EQ(w->verify(), "") << "first launch";
      w->restore_inputs();
      w->launch(0);
      EXPECT_EQ(w->verify(), "") << "second launch, after restore_inputs()";
    }
  }
  std::printf("%zu kernels x 2 shapes in %.1f s\n", wc::kernels().size(),
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
}

TEST(CorpusGpu, ProfiledWithKernelReplayTheLaunchIsTheRegistrysAndTheOutputsAreRight) {
  for (const char* name : {"gemm-naive-f32", "reduce-atomic-f32"}) {
    SCOPED_TRACE(name);
    const wc::KernelDecl& k = *wc::find_kernel(name);
    const wc::Size& size = k.sizes.front();
    const wc::Shape shape = k.shapes.front();
    const auto w = wc::make_corpus_workload(k, size, shape);
    warpmodel::cupti::ProfileOptions o;
    try {
      o.plan = warpmodel::cupti::ChipMetrics::for_device(0).resolve({"smsp__warps_launched.sum"});
    } catch (const warpmodel::cupti::PermissionError& e) {
      GTEST_SKIP() << e.what();
    }
    o.mode = warpmodel::cupti::RangeMode::Auto;
    o.timing_runs = 2;
    o.command = "test_corpus_gpu";
    const auto report = warpmodel::cupti::profile(*w, o);
    ASSERT_EQ(report.launches.size(), 1u);
    const auto& l = report.launches[0];
    const warpmodel::Dim3 grid = wc::grid(k, size, shape);
    EXPECT_EQ(l.grid[0], grid.x);
    EXPECT_EQ(l.grid[1], grid.y);
    EXPECT_EQ(l.grid[2], grid.z);
    EXPECT_EQ(l.block[0], shape.x);
    EXPECT_EQ(l.block[1], shape.y);
    EXPECT_EQ(l.metrics.at("smsp__warps_launched.sum"), double(grid.count() * shape.threads() / 32));
    EXPECT_NE(l.demangled.find(k.function), std::string::npos) << l.demangled;
    EXPECT_EQ(w->verify(), "");
  }
}
