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

// 1,024 distinct launch shapes that all fit an SM: block x in 1..256, y in 1..4 (at most 1,024 threads).
std::vector<Dim3> shapes_1024() {
  std::vector<Dim3> shapes;
  for (long long y = 1; y <= 4; ++y)
    for (long long x = 1; x <= 256; ++x) shapes.push_back({x, y, 1});
  return shapes;
}

void BM_Sweep1024(benchmark::State& state) {
  const auto variant = static_cast<ModelVariant>(state.range(0));
  const DeviceProfile device = thesis_k40_device();
  const KernelProfile kernel = thesis_order2_kernel();
  const std::vector<Dim3> shapes = shapes_1024();
  SweepResult r;
  for (auto _ : state) {
    r = sweep_launch_shapes(device, kernel, variant, shapes);
    benchmark::DoNotOptimize(r.ranked.data());
  }
  state.counters["shapes"] = static_cast<double>(shapes.size());
  state.counters["ranked"] = static_cast<double>(r.ranked.size());
  state.SetLabel(std::string(to_string(variant)));
}
BENCHMARK(BM_Sweep1024)
    ->Arg(static_cast<int>(ModelVariant::HongKim2009))
    ->Arg(static_cast<int>(ModelVariant::GpuPerf2012))
    ->Arg(static_cast<int>(ModelVariant::Thesis2016))
    ->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
