// bench_stencils: Google Benchmark harness for the GPU acoustic propagator.
//
// Orders x variants x block shapes x sizes (50^3, the thesis's; 256^3; 512^3), each timed with
// CUDA events (UseManualTime) over batches of steps after a warm-up; run with
// --benchmark_repetitions=N and the median is what scripts/stencil_report.py reports. The same
// run times a device-to-device cudaMemcpyAsync of 1 GiB first and last ("copy/..."): every kernel
// is reported as a fraction of that copy bandwidth.
//
// Counters: points_per_second, effective_bytes_per_second (16 B per point: p(n-1), p(n), vel2
// read once, p(n+1) written once), and the launch as it ran: blocks_per_sm (occupancy API),
// warps_per_sm, registers_per_thread, spill_bytes, shared_bytes_per_block, z_chunk, grid_{x,y,z}.
//
// Own flags (before Google Benchmark's): --sizes=50,256,512 --orders=2,4,6,8,12,16
// --variants=naive,readonly,shared,intz,intz-reg --tuning=1 (intz-reg depth/loader extras at the
// largest size).
#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "warpmodel/stencils/gpu/propagator.hpp"
#include "warpmodel/support/cuda.hpp"

namespace ws = warpmodel::stencils;
namespace wg = warpmodel::stencils::gpu;

namespace {

using warpmodel::support::cuda::check;

std::vector<int> parse_list(const std::string& text) {
  std::vector<int> out;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) out.push_back(std::stoi(item));
  return out;
}

// One propagator per grid size, shared by every benchmark of that size (the buffers are the
// expensive part). dt is stable for order 16, hence for every order. Random p(n-1), p(n): the
// timing never runs on zeros.
wg::DevicePropagator& propagator(std::size_t n) {
  static std::map<std::size_t, std::unique_ptr<wg::DevicePropagator>> by_size;
  auto& slot = by_size[n];
  if (!slot) {
    ws::PropagationSetup s;
    s.grid = {n, n, n, 10.0};
    s.order = 16;
    s.source_i = s.source_j = n / 2;
    s.source_k = std::max<std::size_t>(n / 5, 8);
    const auto velocity = ws::two_layer_velocity(s.grid);
    ws::StencilLaunch l;
    l.order = 16, l.variant = ws::Variant::naive, l.block = {32, 4, 1};
    slot = std::make_unique<wg::DevicePropagator>(s, velocity, l);
    slot->set_fields(ws::random_field(s.grid, 16, 1), ws::random_field(s.grid, 16, 2));
  }
  return *slot;
}

// Steps per timed batch and timed batches per repetition: a batch lasts a few milliseconds at
// every size, so launch gaps and event resolution stay small against it.
int steps_per_batch(std::size_t n) { return n <= 64 ? 100 : n <= 256 ? 10 : 4; }
int batches(std::size_t n) { return n <= 64 ? 10 : 5; }

void bm_stencil(benchmark::State& state, std::size_t n, ws::StencilLaunch launch) {
  try {
    wg::DevicePropagator& p = propagator(n);
    p.relaunch(launch);
    const int per_batch = steps_per_batch(n);
    for (int w = 0; w < 2; ++w) p.step();  // warm-up (also loads the module on first use)
    p.synchronize();
    warpmodel::support::cuda::EventPair events;
    for (auto _ : state) {
      events.start(p.stream());
      for (int s = 0; s < per_batch; ++s) p.step();
      events.stop(p.stream());
      state.SetIterationTime(events.elapsed_seconds());
    }
    p.synchronize();
    const double points = double(n) * n * n * per_batch * double(state.iterations());
    state.counters["points_per_second"] = benchmark::Counter(points, benchmark::Counter::kIsRate);
    state.counters["effective_bytes_per_second"] =
        benchmark::Counter(points * ws::effective_bytes_per_point(), benchmark::Counter::kIsRate);
    state.counters["steps_per_iteration"] = per_batch;
    const ws::LaunchGeometry& g = p.geometry();
    const int blocks = wg::resident_blocks_per_sm(p.launch());
    cudaFuncAttributes attr{};
    check(cudaFuncGetAttributes(&attr, p.kernel().function), "cudaFuncGetAttributes");
    state.counters["blocks_per_sm"] = blocks;
    state.counters["warps_per_sm"] = blocks * ((g.block.volume() + 31) / 32);
    state.counters["registers_per_thread"] = attr.numRegs;
    state.counters["spill_bytes"] = double(attr.localSizeBytes);
    state.counters["shared_bytes_per_block"] = double(g.dynamic_shared_bytes);
    state.counters["z_chunk"] = g.z_chunk;
    state.counters["grid_x"] = g.grid.x, state.counters["grid_y"] = g.grid.y, state.counters["grid_z"] = g.grid.z;
    state.SetLabel(p.kernel().name);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

void bm_copy(benchmark::State& state, std::size_t bytes) {
  try {
    for (auto _ : state) state.SetIterationTime(wg::time_device_copy_seconds(bytes, 5));
    state.counters["bytes_per_second"] =
        benchmark::Counter(2.0 * double(bytes) * double(state.iterations()), benchmark::Counter::kIsRate);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

std::vector<ws::Dim3> blocks_for(ws::Variant v) {
  switch (v) {
    case ws::Variant::naive:
    case ws::Variant::readonly:
      return {{8, 8, 4}, {32, 4, 1}, {32, 8, 1}, {64, 4, 1}};  // 8x8x4: the thesis's validation launch
    case ws::Variant::shared:
      return {{32, 4, 1}, {32, 8, 1}, {64, 4, 1}, {32, 16, 1}};
    case ws::Variant::intz:
      return {{32, 4, 1}, {32, 8, 1}, {64, 4, 1}, {128, 2, 1}};
    case ws::Variant::intz_reg:  // threads; each covers 4 x points
      return {{16, 8, 1}, {32, 4, 1}, {32, 8, 1}, {16, 16, 1}, {32, 16, 1}};
  }
  return {};
}

std::string name_of(std::size_t n, const ws::StencilLaunch& l) {
  std::string s = "stencil/n:" + std::to_string(n) + "/order:" + std::to_string(l.order) +
                  "/variant:" + ws::variant_info(l.variant).name + "/block:" + ws::to_string(l.block);
  if (l.variant == ws::Variant::intz_reg)
    s += "/depth:" + std::to_string(l.pipeline_depth ? l.pipeline_depth : ws::default_pipeline_depth(l.variant)) +
         "/loader:" + ws::loader_name(l.loader);
  return s;
}

void add(std::size_t n, const ws::StencilLaunch& l) {
  benchmark::RegisterBenchmark(name_of(n, l).c_str(), [n, l](benchmark::State& st) { bm_stencil(st, n, l); })
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond)
      ->Iterations(batches(n));
}

void add_copy(const char* when) {
  const std::size_t bytes = std::size_t(1) << 30;
  benchmark::RegisterBenchmark(("copy/bytes:" + std::to_string(bytes) + "/when:" + when).c_str(),
                               [bytes](benchmark::State& st) { bm_copy(st, bytes); })
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond)
      ->Iterations(3);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes = {50, 256, 512}, orders = {2, 4, 6, 8, 12, 16};
  std::vector<ws::Variant> variant_list;
  bool tuning = true;
  std::vector<char*> rest = {argv[0]};
  try {
    for (int a = 1; a < argc; ++a) {
      const std::string arg = argv[a];
      if (arg.rfind("--sizes=", 0) == 0) sizes = parse_list(arg.substr(8));
      else if (arg.rfind("--orders=", 0) == 0) orders = parse_list(arg.substr(9));
      else if (arg.rfind("--tuning=", 0) == 0) tuning = arg.substr(9) != "0";
      else if (arg.rfind("--variants=", 0) == 0) {
        std::stringstream ss(arg.substr(11));
        for (std::string item; std::getline(ss, item, ',');) variant_list.push_back(ws::parse_variant(item));
      } else rest.push_back(argv[a]);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_stencils: %s\n", e.what());
    return 2;
  }
  if (variant_list.empty())
    for (const auto& v : ws::variants()) variant_list.push_back(v.variant);
  try {
    warpmodel::support::cuda::require_gpu();
  } catch (const warpmodel::support::cuda::NoGpuError& e) {
    std::fprintf(stderr, "bench_stencils: %s\n", e.what());
    return 3;
  }

  add_copy("first");
  for (int n : sizes)
    for (int order : orders)
      for (ws::Variant v : variant_list)
        for (const ws::Dim3& b : blocks_for(v)) {
          ws::StencilLaunch l;
          l.order = order, l.variant = v, l.block = b;
          add(std::size_t(n), l);
        }
  // intz-reg's own knobs at the largest size: pipeline depth 1 and 3, and the cp.async loader.
  const bool has_intz_reg =
      std::find(variant_list.begin(), variant_list.end(), ws::Variant::intz_reg) != variant_list.end();
  if (tuning && has_intz_reg && !sizes.empty()) {
    const std::size_t n = std::size_t(*std::max_element(sizes.begin(), sizes.end()));
    for (int order : orders) {
      for (int depth : {1, 3}) {
        ws::StencilLaunch l;
        l.order = order, l.variant = ws::Variant::intz_reg, l.block = {32, 8, 1}, l.pipeline_depth = depth;
        add(n, l);
      }
      for (ws::Dim3 b : {ws::Dim3{32, 8, 1}, ws::Dim3{16, 8, 1}}) {
        ws::StencilLaunch l;
        l.order = order, l.variant = ws::Variant::intz_reg, l.block = b, l.loader = ws::IntzRegLoader::cp_async;
        add(n, l);
      }
    }
  }
  add_copy("last");

  int rest_argc = int(rest.size());
  benchmark::Initialize(&rest_argc, rest.data());
  if (benchmark::ReportUnrecognizedArguments(rest_argc, rest.data())) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
