// Every GPU variant and order, run by the CPU emulation of the kernels (the same source), against
// the double-precision reference on odd grids; and the emulator's own checks, each shown to fail
// on a kernel that breaks its rule.
#include <cmath>
#include <cstring>
#include <map>

#include <gtest/gtest.h>

#include "emulated_propagator.hpp"
#include "emulator.hpp"
#include "variant_case.hpp"
#include "warpmodel/stencils/device_layout.hpp"

namespace warpmodel::stencils::gpu {
namespace {

using Case = testing::VariantCase;

PropagationSetup setup_for(int order) {
  PropagationSetup s;
  s.grid = {37, 23, 21, 10.0};  // odd sizes: no block shape below divides them
  s.order = order;
  s.source_i = 19, s.source_j = 11, s.source_k = 10;
  s.peak_frequency_hz = 60;  // the wavelet's peak within the few steps emulated
  return s;
}

// Random p(n-1), p(n) (zero Dirichlet layers), a two-layer model, `steps` steps, the output
// poisoned before every step; the result must match the reference within float rounding.
void check(const Case& c, int order, int steps) {
  const PropagationSetup s = setup_for(order);
  const std::vector<float> velocity = two_layer_velocity(s.grid);
  const std::vector<float> prev = random_field(s.grid, order, 1), cur = random_field(s.grid, order, 2);
  const StencilLaunch l = c.launch(order);
  EmulatedPropagator gpu(s, velocity, l, {}, 2);
  ReferencePropagator ref(validated(s, 4700), velocity);
  ref.set_fields(prev, cur);
  gpu.set_fields(prev, cur);
  for (int n = 0; n < steps; ++n) {
    gpu.poison_next();
    gpu.step();
    ref.step();
  }
  const double err = relative_l2(gpu.pressure(), ref.pressure());
  EXPECT_LT(err, 1e-5) << c.label(order) << ": relative L2 " << err;
}

const std::vector<Case>& cases() {
  static const std::vector<Case> list = {
      {Variant::naive, {8, 4, 2}},
      {Variant::readonly, {16, 4, 1}},
      {Variant::shared, {16, 8, 1}},
      {Variant::shared, {8, 4, 3}},  // several planes per block, by < R at high orders
      {Variant::intz, {16, 8, 1}, 6},
      {Variant::intz_reg, {4, 8, 1}, 0, 2, IntzRegLoader::tma},       // two blocks across the 64-float pitch
      {Variant::intz_reg, {8, 4, 1}, 5, 1, IntzRegLoader::tma},       // short chunks, by < R
      {Variant::intz_reg, {2, 8, 1}, 9, 3, IntzRegLoader::tma},
      {Variant::intz_reg, {4, 8, 1}, 0, 2, IntzRegLoader::cp_async},
      {Variant::intz_reg, {8, 3, 1}, 7, 3, IntzRegLoader::cp_async},  // by not a power of two
  };
  return list;
}

class EmulatedVariants : public ::testing::TestWithParam<int> {};
TEST_P(EmulatedVariants, EveryVariantMatchesTheReference) {
  for (const Case& c : cases()) check(c, GetParam(), 3);
}
INSTANTIATE_TEST_SUITE_P(Orders, EmulatedVariants, ::testing::Values(2, 4, 6, 8, 10, 12, 14, 16),
                         [](const auto& param_info) { return "order" + std::to_string(param_info.param); });

// Many steps with the wavelet: the source injection and the buffer rotation over time.
TEST(EmulatedPropagation, SourceOnlyRunMatchesTheReference) {
  for (const Case& c : {Case{Variant::shared, {16, 8, 1}}, Case{Variant::intz_reg, {4, 8, 1}, 0, 2}}) {
    const PropagationSetup s = setup_for(8);
    const std::vector<float> velocity = two_layer_velocity(s.grid);
    EmulatedPropagator gpu(s, velocity, c.launch(8));
    ReferencePropagator ref(validated(s, 4700), velocity);
    gpu.run(12);
    ref.run(12);
    double peak = 0;
    for (double v : ref.pressure()) peak = std::max(peak, std::fabs(v));
    EXPECT_GT(peak, 0.0);
    EXPECT_LT(relative_l2(gpu.pressure(), ref.pressure()), 1e-5) << c.label(8);
  }
}

// --- the emulator catches what it claims to catch ---

emu::LaunchConfig config(unsigned threads, std::size_t shared = 256) {
  emu::LaunchConfig c;
  c.grid = {1, 1, 1};
  c.block = {threads, 1, 1};
  c.shared_bytes = shared;
  c.shuffle_seed = 7;
  return c;
}

std::string failure(const emu::LaunchConfig& c, const std::function<void()>& body) {
  try {
    emu::launch(c, body);
  } catch (const emu::EmulationError& e) {
    return e.what();
  }
  return "";
}

TEST(Emulator, ReadingAnotherThreadsSharedWriteNeedsABarrier) {
  // Each thread writes its slot and reads its neighbour's. With the barrier between, every read
  // sees the write; without it, some thread runs before its neighbour and reads the NaN the
  // emulator fills shared memory with.
  for (bool barrier_between : {true, false}) {
    std::vector<float> seen(32);
    emu::launch(config(32), [&] {
      float* s = static_cast<float*>(emu::shared_memory());
      const unsigned t = emu::current().thread.x;
      s[t] = float(t);
      if (barrier_between) emu::sync_block();
      seen[t] = s[(t + 1) % 32];
      if (!barrier_between) emu::sync_block();
    });
    int stale = 0;
    for (unsigned t = 0; t < 32; ++t) stale += seen[t] != float((t + 1) % 32);
    if (barrier_between)
      EXPECT_EQ(stale, 0);
    else
      EXPECT_GT(stale, 0);
  }
}

TEST(Emulator, ABarrierSomeThreadsSkipIsAnError) {
  EXPECT_NE(failure(config(32), [] {
              if (emu::current().thread.x % 2) emu::sync_block();
            }).find("__syncthreads"),
            std::string::npos);
}

TEST(Emulator, GlobalAccessesAreCheckedAgainstTheBuffers) {
  std::vector<float> in(16, 1.0f), out(16, 0.0f);
  emu::register_buffer(in.data(), in.size() * 4, false);
  emu::register_buffer(out.data(), out.size() * 4, true);
  auto c = config(16);
  c.uses_barriers = false;
  EXPECT_EQ(failure(c, [&] { emu::check_global(&in[emu::current().thread.x], 4, false); }), "");
  EXPECT_NE(failure(c, [&] { emu::check_global(in.data() + 16, 4, false); }).find("outside every device buffer"),
            std::string::npos);
  EXPECT_NE(failure(c, [&] { emu::check_global(in.data(), 4, true); }).find("may only read"), std::string::npos);
  emu::unregister_buffer(in.data());
  emu::unregister_buffer(out.data());
}

TEST(Emulator, AsyncCopiesLandOnlyAfterTheWait) {
  std::vector<float> src(4, 3.0f);
  emu::register_buffer(src.data(), 16, false);
  float before = 0, after = 0;
  emu::launch(config(1), [&] {
    float* s = static_cast<float*>(emu::shared_memory());
    emu::async_copy(s, src.data(), 16, true);
    emu::async_commit();
    before = s[0];
    emu::async_wait(0);
    after = s[0];
  });
  EXPECT_TRUE(std::isnan(before));
  EXPECT_EQ(after, 3.0f);
  EXPECT_NE(failure(config(1), [&] {
              emu::async_copy(emu::shared_memory(), src.data(), 16, true);
              emu::async_commit();
            }).find("never waited"),
            std::string::npos);
  emu::unregister_buffer(src.data());
}

TEST(Emulator, BulkTensorCopiesZeroFillAndCountBytes) {
  std::vector<float> a(6 * 5 * 2);
  for (std::size_t n = 0; n < a.size(); ++n) a[n] = float(n + 1);
  emu::register_buffer(a.data(), a.size() * 4, false);
  emu::TensorMap m;
  m.base = a.data();
  m.size[0] = 6, m.size[1] = 5, m.size[2] = 2;
  m.stride[0] = 1, m.stride[1] = 6, m.stride[2] = 30;
  m.box[0] = 4, m.box[1] = 2, m.box[2] = 1;
  std::vector<float> got(8);
  emu::launch(config(2, 512), [&] {
    auto* bar = static_cast<unsigned long long*>(emu::shared_memory());
    float* dst = static_cast<float*>(emu::shared_memory()) + 32;  // 128 bytes in
    if (emu::current().thread.x == 0) {
      emu::mbarrier_init(bar, 1);
      emu::mbarrier_arrive_expect_bytes(bar, 32);
      emu::tma_load_3d(dst, m, -2, 4, 1, bar);  // x -2..1, y 4..5, z 1: partly outside
    }
    emu::sync_block();
    emu::mbarrier_wait(bar, 0);
    if (emu::current().thread.x == 1) std::memcpy(got.data(), dst, 32);
  });
  // Row y = 4, z = 1 starts at 1 + 30 + 24 = 55; x < 0 and y = 5 are outside: zeros.
  EXPECT_EQ(got, (std::vector<float>{0, 0, 55, 56, 0, 0, 0, 0}));
  EXPECT_NE(failure(config(1, 512), [&] {  // expects fewer bytes than the box carries: never completes
              auto* bar = static_cast<unsigned long long*>(emu::shared_memory());
              emu::mbarrier_init(bar, 1);
              emu::mbarrier_arrive_expect_bytes(bar, 16);
              emu::tma_load_3d(static_cast<float*>(emu::shared_memory()) + 32, m, 0, 0, 0, bar);
              emu::mbarrier_wait(bar, 0);
            }).find("more bytes"),
            std::string::npos);
  emu::unregister_buffer(a.data());
}

}  // namespace
}  // namespace warpmodel::stencils::gpu
