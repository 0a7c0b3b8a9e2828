// The GPU propagator (label gpu): every variant and order against the double-precision CPU
// reference after 50 steps on odd grids (no block shape divides them), the output buffer
// poisoned with NaN before every step so a point a kernel fails to write fails the comparison;
// plus the host API (kernel handles, errors, relaunch, the copy timer).
#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>

#include <gtest/gtest.h>

#include "variant_case.hpp"
#include "warpmodel/stencils/device_layout.hpp"
#include "warpmodel/stencils/gpu/propagator.hpp"

namespace warpmodel::stencils::gpu {
namespace {

constexpr int kSteps = 50;

PropagationSetup setup_for(int order) {
  PropagationSetup s;
  s.grid = {67, 45, 39, 10.0};
  s.order = order;
  s.source_i = 31, s.source_j = 20, s.source_k = 13;
  s.peak_frequency_hz = 30;
  return s;
}

struct Inputs {
  std::vector<float> velocity, prev, cur;
  std::vector<double> expected;  // the reference after kSteps
};

// The reference for an order, computed once (random start, two-layer model, the source on).
const Inputs& inputs(int order) {
  static std::map<int, Inputs> cache;
  auto it = cache.find(order);
  if (it != cache.end()) return it->second;
  Inputs in;
  const PropagationSetup s = setup_for(order);
  in.velocity = two_layer_velocity(s.grid);
  in.prev = random_field(s.grid, order, 11);
  in.cur = random_field(s.grid, order, 12);
  ReferencePropagator ref(validated(s, 4700), in.velocity);
  ref.set_fields(in.prev, in.cur);
  ref.run(kSteps);
  in.expected = ref.pressure();
  return cache.emplace(order, std::move(in)).first->second;
}

using Case = testing::VariantCase;

double run_case(const Case& c, int order) {
  const Inputs& in = inputs(order);
  const StencilLaunch l = c.launch(order);
  DevicePropagator gpu(setup_for(order), in.velocity, l);
  gpu.set_fields(in.prev, in.cur);
  for (int n = 0; n < kSteps; ++n) {
    gpu.poison_next();
    gpu.step();
  }
  gpu.synchronize();
  return relative_l2(gpu.pressure(), in.expected);
}

const std::vector<Case>& cases() {
  static const std::vector<Case> list = {
      {Variant::naive, {8, 8, 4}},  // the thesis's block
      {Variant::naive, {32, 4, 1}},
      {Variant::readonly, {32, 4, 1}},
      {Variant::readonly, {16, 4, 4}},
      {Variant::shared, {32, 4, 1}},
      {Variant::shared, {16, 8, 2}},
      {Variant::shared, {32, 2, 1}},  // by < R at high orders: the halo loop
      {Variant::intz, {32, 4, 1}},
      {Variant::intz, {16, 8, 1}, 5},
      {Variant::intz_reg, {32, 8, 1}, 0, 2, IntzRegLoader::tma},
      {Variant::intz_reg, {16, 4, 1}, 0, 1, IntzRegLoader::tma},
      {Variant::intz_reg, {8, 8, 1}, 7, 3, IntzRegLoader::tma},
      {Variant::intz_reg, {16, 16, 1}, 0, 2, IntzRegLoader::tma},
      {Variant::intz_reg, {32, 8, 1}, 0, 2, IntzRegLoader::cp_async},
      {Variant::intz_reg, {8, 3, 1}, 11, 3, IntzRegLoader::cp_async},
  };
  return list;
}

class GpuVariants : public ::testing::TestWithParam<int> {};
TEST_P(GpuVariants, EveryVariantMatchesTheReferenceAfter50Steps) {
  const int order = GetParam();
  for (const Case& c : cases()) {
    const double err = run_case(c, order);
    std::printf("%-60s relative L2 %.3g\n", c.label(order).c_str(), err);
    EXPECT_LT(err, 1e-5) << c.label(order);
  }
}
INSTANTIATE_TEST_SUITE_P(Orders, GpuVariants, ::testing::Values(2, 4, 6, 8, 10, 12, 14, 16),
                         [](const auto& param_info) { return "order" + std::to_string(param_info.param); });

// Where a field leaves the reference: the number of points off by more than 1e-4 (relative),
// how many of them are not finite, and their bounding box; with the launch's grid and z chunk.
std::string describe_mismatch(const Grid& g, const std::vector<float>& p, const std::vector<double>& ref,
                              const LaunchGeometry& geometry) {
  std::size_t bad = 0, nonfinite = 0, lo[3] = {g.nx, g.ny, g.nz}, hi[3] = {0, 0, 0};
  for (std::size_t k = 0; k < g.nz; ++k)
    for (std::size_t j = 0; j < g.ny; ++j)
      for (std::size_t i = 0; i < g.nx; ++i) {
        const double r = ref[g.index(i, j, k)], v = p[g.index(i, j, k)];
        if (std::fabs(v - r) <= 1e-4 * (1 + std::fabs(r))) continue;
        ++bad;
        nonfinite += !std::isfinite(v);
        const std::size_t at[3] = {i, j, k};
        for (int d = 0; d < 3; ++d) lo[d] = std::min(lo[d], at[d]), hi[d] = std::max(hi[d], at[d]);
      }
  char line[300];
  std::snprintf(line, sizeof line, "%zu bad points (%zu not finite) in i %zu..%zu j %zu..%zu k %zu..%zu; grid %s z_chunk %d",
                bad, nonfinite, lo[0], hi[0], lo[1], hi[1], lo[2], hi[2], to_string(geometry.grid).c_str(),
                geometry.z_chunk);
  return line;
}

// Repeated runs of the same launch must agree bitwise and stay on the reference at every step
// ("a moving error is a race"). On a mismatch the first bad step and the box of bad points are
// printed: the block, plane or halo they share says what broke.
TEST(GpuDeterminism, RepeatedRunsAgreeStepByStep) {
  const std::vector<std::pair<int, Case>> runs = {
      {2, {Variant::intz_reg, {16, 16, 1}, 0, 2, IntzRegLoader::tma}},
      {2, {Variant::intz_reg, {16, 16, 1}, 0, 1, IntzRegLoader::tma}},
      {2, {Variant::intz_reg, {16, 16, 1}, 0, 3, IntzRegLoader::tma}},
      {2, {Variant::intz_reg, {16, 16, 1}, 39, 2, IntzRegLoader::tma}},
      {2, {Variant::intz_reg, {16, 16, 1}, 0, 2, IntzRegLoader::cp_async}},
      {2, {Variant::intz_reg, {8, 16, 1}, 0, 2, IntzRegLoader::tma}},
      {2, {Variant::intz_reg, {32, 16, 1}, 0, 2, IntzRegLoader::tma}},
      {4, {Variant::intz_reg, {16, 16, 1}, 0, 2, IntzRegLoader::tma}},
      {16, {Variant::intz_reg, {32, 16, 1}, 0, 2, IntzRegLoader::tma}},
      {2, {Variant::shared, {16, 16, 1}}},
  };
  for (const auto& [order, c] : runs) {
    const PropagationSetup s = setup_for(order);
    const Inputs& in = inputs(order);
    std::vector<float> first;
    for (int rep = 0; rep < 3; ++rep) {
      DevicePropagator gpu(s, in.velocity, c.launch(order));
      ReferencePropagator ref(validated(s, 4700), in.velocity);
      gpu.set_fields(in.prev, in.cur);
      ref.set_fields(in.prev, in.cur);
      int first_bad = -1;
      for (int n = 0; n < kSteps; ++n) {
        gpu.poison_next();
        gpu.step();
        ref.step();
        const std::vector<float> p = gpu.pressure();
        if (first_bad < 0 && relative_l2(p, ref.pressure()) > 1e-5) {
          first_bad = n + 1;
          std::printf("determinism: %s run %d: first bad step %d: %s\n", c.label(order).c_str(), rep, first_bad,
                      describe_mismatch(s.grid, p, ref.pressure(), gpu.geometry()).c_str());
        }
      }
      const std::vector<float> p = gpu.pressure();
      const double err = relative_l2(p, ref.pressure());
      const bool same = first.empty() || std::memcmp(first.data(), p.data(), p.size() * sizeof(float)) == 0;
      std::printf("determinism: %-60s run %d relative L2 %.3g %s\n", c.label(order).c_str(), rep, err,
                  same ? "identical to run 0" : "DIFFERS from run 0");
      EXPECT_EQ(first_bad, -1) << c.label(order);
      EXPECT_TRUE(same) << c.label(order);
      if (first.empty()) first = p;
    }
  }
}

// The race hunt: each launch run 40 times from the same start, 50 steps, every step checked
// against the reference (precomputed); counts the runs that leave it and, for the first such
// run, where (first bad step, bad points, their box). On the H200 it found the first step of
// one-plane z chunks reading the tail of an upload still in flight (step 1, the last planes,
// either loader; now DevicePropagator::upload): the launches are that one and its neighbours.
TEST(GpuRaceHunt, RepeatedRunsOfTheSuspectLaunches) {
  const int reps = 40;
  const std::vector<std::pair<int, Case>> runs = {
      {2, {Variant::intz_reg, {16, 16, 1}, 0, 2, IntzRegLoader::tma}},
      {2, {Variant::intz_reg, {16, 16, 1}, 0, 1, IntzRegLoader::tma}},
      {2, {Variant::intz_reg, {16, 16, 1}, 39, 2, IntzRegLoader::tma}},
      {2, {Variant::intz_reg, {16, 16, 1}, 0, 2, IntzRegLoader::cp_async}},
      {2, {Variant::intz_reg, {32, 8, 1}, 0, 2, IntzRegLoader::tma}},
      {4, {Variant::intz_reg, {16, 16, 1}, 0, 2, IntzRegLoader::tma}},
      {8, {Variant::intz_reg, {32, 8, 1}, 0, 2, IntzRegLoader::tma}},
      {2, {Variant::shared, {16, 16, 1}}},
  };
  std::map<int, std::vector<std::vector<double>>> reference;  // per order, the field after each step
  int total_failures = 0;
  for (const auto& [order, c] : runs) {
    const PropagationSetup s = setup_for(order);
    const Inputs& in = inputs(order);
    auto& steps = reference[order];
    if (steps.empty()) {
      ReferencePropagator ref(validated(s, 4700), in.velocity);
      ref.set_fields(in.prev, in.cur);
      for (int n = 0; n < kSteps; ++n) {
        ref.step();
        steps.push_back(ref.pressure());
      }
    }
    int failures = 0;
    std::string first_failure;
    for (int rep = 0; rep < reps; ++rep) {
      DevicePropagator gpu(s, in.velocity, c.launch(order));
      gpu.set_fields(in.prev, in.cur);
      for (int n = 0; n < kSteps; ++n) {
        gpu.poison_next();
        gpu.step();
        const std::vector<float> p = gpu.pressure();
        if (relative_l2(p, steps[n]) <= 1e-5) continue;
        ++failures;
        if (first_failure.empty())
          first_failure = "rep " + std::to_string(rep) + " step " + std::to_string(n + 1) + ": " +
                          describe_mismatch(s.grid, p, steps[n], gpu.geometry());
        break;
      }
    }
    std::printf("race hunt: %-60s %d of %d runs left the reference%s%s\n", c.label(order).c_str(), failures, reps,
                first_failure.empty() ? "" : "; first: ", first_failure.c_str());
    total_failures += failures;
  }
  EXPECT_EQ(total_failures, 0);
}

// A few steps of every kernel instantiation (all depths and loaders) at a second, tiny odd grid:
// the sanitizer run (scripts/stencil_device_run.sh) launches this test under memcheck and racecheck.
TEST(GpuSanitizerSweep, EveryKernelFewSteps) {
  for (int order : gpu_orders())
    for (const auto& v : variants()) {
      const std::vector<int> depths = v.variant == Variant::intz_reg ? std::vector<int>{1, 2, 3} : std::vector<int>{0};
      const std::vector<IntzRegLoader> loaders = v.variant == Variant::intz_reg
                                                     ? std::vector<IntzRegLoader>{IntzRegLoader::tma, IntzRegLoader::cp_async}
                                                     : std::vector<IntzRegLoader>{IntzRegLoader::tma};
      for (int depth : depths)
        for (IntzRegLoader loader : loaders) {
          PropagationSetup s;
          s.grid = {41, 23, 21, 10.0};
          s.order = order;
          s.source_i = 20, s.source_j = 11, s.source_k = 10;
          const auto velocity = constant_velocity(s.grid, 2000);
          StencilLaunch l;
          l.order = order, l.variant = v.variant, l.pipeline_depth = depth, l.loader = loader;
          l.block = v.variant == Variant::intz_reg ? Dim3{8, 4, 1} : v.marches_z ? Dim3{16, 4, 1} : Dim3{16, 4, 2};
          DevicePropagator gpu(s, velocity, l);
          ReferencePropagator ref(validated(s, 2000), velocity);
          const auto prev = random_field(s.grid, order, 3), cur = random_field(s.grid, order, 4);
          gpu.set_fields(prev, cur);
          ref.set_fields(prev, cur);
          for (int n = 0; n < 3; ++n) {
            gpu.poison_next();
            gpu.step();
          }
          ref.run(3);
          const double err = relative_l2(gpu.pressure(), ref.pressure());
          std::printf("sanitizer sweep: %s (%s) relative L2 %.3g\n", gpu.kernel().name.c_str(),
                      gpu.kernel().mangled_name.c_str(), err);
          EXPECT_LT(err, 1e-5) << gpu.kernel().name;
        }
    }
}

TEST(GpuApi, KernelHandlesAreDistinctAndQueryable) {
  const auto all = all_kernels();
  EXPECT_EQ(all.size(), 4u * 8u + 8u * 6u);  // 4 variants x 8 orders + intz-reg x 8 orders x 3 depths x 2 loaders
  std::map<const void*, std::string> seen;
  for (const auto& k : all) {
    EXPECT_TRUE(seen.emplace(k.function, k.name).second) << k.name;
    EXPECT_FALSE(k.mangled_name.empty()) << k.name;
    cudaFuncAttributes attr{};
    ASSERT_EQ(cudaFuncGetAttributes(&attr, k.function), cudaSuccess) << k.name;
    EXPECT_GT(attr.numRegs, 0);
    // No spills, but for the cp.async intz-reg kernels at R = 4 (8 bytes; kernels/intz_reg.cuh).
    if (k.name.rfind("intz_reg_async_kernel<4,", 0) != 0) {
      EXPECT_EQ(attr.localSizeBytes, 0u) << k.name << " spills";
    }
  }
  EXPECT_EQ(kernel_handle(Variant::intz_reg, 8).name, "intz_reg_tma_kernel<4, 2>");
  EXPECT_THROW(kernel_handle(Variant::naive, 9), std::invalid_argument);
}

TEST(GpuApi, RelaunchRefusesAnOrderTheTimeStepMakesUnstable) {
  PropagationSetup s = setup_for(2);
  const auto velocity = constant_velocity(s.grid, 3000);
  StencilLaunch l;
  l.order = 2, l.variant = Variant::naive;
  DevicePropagator gpu(s, velocity, l);  // dt = 0.9 x the order-2 limit
  l.order = 16;
  try {
    gpu.relaunch(l);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("unstable"), std::string::npos);
  }
  l.order = 2, l.variant = Variant::intz_reg, l.block = {16, 8, 1};
  gpu.relaunch(l);
  EXPECT_EQ(gpu.geometry().pipeline_depth, 2);
  EXPECT_GT(resident_blocks_per_sm(gpu.launch()), 0);
}

TEST(GpuApi, DeviceCopyIsTimed) {
  const double seconds = time_device_copy_seconds(std::size_t(256) << 20, 5);
  const double gbs = 2.0 * (256 << 20) / seconds / 1e9;
  std::printf("device-to-device copy of 256 MiB: %.1f GB/s (read + write)\n", gbs);
  EXPECT_GT(gbs, 100.0);
}

}  // namespace
}  // namespace warpmodel::stencils::gpu
