// bench_model: the model engine's own speed on one core (issue targets: >= 5 million
// gpuperf-2012 predictions/s; a 1,024-shape sweep in under 1 ms).
#include <benchmark/benchmark.h>

#include "warpmodel/model.hpp"
#include "warpmodel/sweep.hpp"
#include "warpmodel/thesis.hpp"

namespace {

using namespace warpmodel;

void BM_Predict(benchmark::State& state) {
  const auto variant = static_cast<ModelVariant>(state.range(0));
  const DeviceProfile device = thesis_k40_device();
  KernelProfile kernel = thesis_order2_kernel();
  kernel.launch.active_warps_per_sm.reset();
  for (auto _ : state) {
    Prediction p = predict(variant, device, kernel);
    benchmark::DoNotOptimize(p.cycles);
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(std::string(to_string(variant)));
}
BENCHMARK(BM_Predict)
    ->Arg(static_cast<int>(ModelVariant::HongKim2009))
    ->Arg(static_cast<int>(ModelVariant::GpuPerf2012))
    ->Arg(static_cast<int>(ModelVariant::Thesis2016));

// 1,024 distinct launch shapes: block x in 32..1024 (step 32) x 32 (y, z) combinations.
std::vector<Dim3> shapes_1024() {
  std::vector<Dim3> shapes;
  for (long long y = 1; y <= 8; ++y)
    for (long long z = 1; z <= 4; ++z)
      for (long long x = 32; x <= 1024; x += 32) shapes.push_back({x, y, z});
  return shapes;  // 8 x 4 x 32 = 1024 (some exceed 1024 threads and are rejected, as in a real sweep)
}

void BM_Sweep1024(benchmark::State& state) {
  const auto variant = static_cast<ModelVariant>(state.range(0));
  const DeviceProfile device = thesis_k40_device();
  const KernelProfile kernel = thesis_order2_kernel();
  const std::vector<Dim3> shapes = shapes_1024();
  for (auto _ : state) {
    SweepResult r = sweep_launch_shapes(device, kernel, variant, shapes);
    benchmark::DoNotOptimize(r.ranked.data());
  }
  state.counters["shapes"] = static_cast<double>(shapes.size());
  state.SetLabel(std::string(to_string(variant)));
}
BENCHMARK(BM_Sweep1024)
    ->Arg(static_cast<int>(ModelVariant::HongKim2009))
    ->Arg(static_cast<int>(ModelVariant::GpuPerf2012))
    ->Arg(static_cast<int>(ModelVariant::Thesis2016))
    ->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
