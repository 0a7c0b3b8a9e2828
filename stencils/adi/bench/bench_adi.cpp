// bench_adi: every kernel of an ADI step timed on its own, inside real steps, plus the whole step
// and the device-to-device copy bandwidth of the same GPU in the same run.
//   bench_adi --benchmark_out=adi.json --benchmark_out_format=json
// Each benchmark starts from the hump problem after 5 warm-up steps; one iteration runs a full step
// and CUDA events bracket the kernel of interest (or the whole step), so every kernel sees the
// caches as a step leaves them. Sizes 256^2, 1024^2, 2048^2, 4096^2 (block-per-line stops at 1024),
// and for fused and fused-cluster, the variants with non-square grids, 1536 x 2400 and 3072 x 1024 as
// well (fused-cluster refuses 2400 rows: not a multiple of 64).
// "step-graph": the step again, two at a time as one CUDA graph (GpuSolver::run; no launch gaps).
// Counters: n, effective_bytes (arrays the kernel reads once + writes once; for the step, the sum
// over its kernels), state_bytes (step only: 8 arrays), median and min time.
#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bench_common.hpp"
#include "warpmodel/adi/gpu_solver.hpp"

namespace warpmodel::adi::bench {
namespace {

constexpr int kWarmupSteps = 5;

std::unique_ptr<GpuSolver> g_solver;

GpuSolver& solver_for(const SolverConfig& c) {
  const SolverConfig& h = g_solver ? g_solver->config() : c;
  if (!g_solver || h.n != c.n || h.rows() != c.rows() || h.variant != c.variant || h.block_solver != c.block_solver ||
      h.precision != c.precision || h.partition_cells != c.partition_cells) {
    g_solver.reset();
    g_solver = std::make_unique<GpuSolver>(c);
  }
  return *g_solver;
}

// kernel == "step": the whole step; "step-graph": two steps replayed as one CUDA graph
// (GpuSolver::run), the time of a step half of it.
void bm_kernel(benchmark::State& state, SolverConfig config, std::string kernel) {
  GpuSolver& solver = solver_for(config);
  // The initial state, once per size: building it (and its frames) dominated the run at 4096^2.
  static std::map<std::pair<int, int>, State<double>> initial;
  auto it = initial.find({config.n, config.rows()});
  if (it == initial.end()) it = initial.emplace(std::pair{config.n, config.rows()}, make_hump_state(config.n, config.rows())).first;
  solver.upload(it->second);
  for (int s = 0; s < kWarmupSteps; ++s) solver.step();
  const auto stream = static_cast<cudaStream_t>(solver.stream());
  const bool whole = kernel == "step" || kernel == "step-graph", graph = kernel == "step-graph";
  if (graph) solver.capture_run_graphs();
  EventPair events;
  std::vector<double> times;
  for (auto _ : state) {
    double t = 0;
    if (graph) {
      events.start(stream);
      solver.run(2);
      events.stop(stream);
      t = events.elapsed_seconds() / 2;
    } else {
      if (whole) events.start(stream);
      for (const std::string& k : solver.kernel_sequence()) {
        if (k == kernel) events.start(stream);
        solver.launch(k);
        if (k == kernel) events.stop(stream);
      }
      solver.finish_step();
      if (whole) events.stop(stream);
      t = events.elapsed_seconds();
    }
    state.SetIterationTime(t);
    times.push_back(t);
  }
  solver.synchronize();
  double bytes = whole ? solver.step_effective_bytes() : 0.0;
  for (const KernelInfo& k : solver.kernels())
    if (k.name == kernel) bytes = k.effective_bytes;
  state.counters["n"] = config.n;
  state.counters["ny"] = config.rows();
  state.counters["effective_bytes"] = bytes;
  if (whole) state.counters["state_bytes"] = solver.step_state_bytes();
  state.counters["median_s"] = median(times);
  state.counters["min_s"] = *std::min_element(times.begin(), times.end());
  state.SetLabel(variant_label(config) + "/" + std::string(to_string(config.precision)) + "/" + kernel);
}

// cudaMemcpyAsync device to device of `bytes`; effective bytes = 2 * bytes (read + write).
void bm_copy(benchmark::State& state, std::size_t bytes) {
  void *src = nullptr, *dst = nullptr;
  support::cuda::check(cudaMalloc(&src, bytes), "cudaMalloc");
  support::cuda::check(cudaMalloc(&dst, bytes), "cudaMalloc");
  support::cuda::check(cudaMemset(src, 1, bytes), "cudaMemset");
  cudaStream_t stream;
  support::cuda::check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  support::cuda::check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream), "warm-up copy");
  EventPair events;
  std::vector<double> times;
  for (auto _ : state) {
    events.start(stream);
    support::cuda::check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream), "copy");
    events.stop(stream);
    const double t = events.elapsed_seconds();
    state.SetIterationTime(t);
    times.push_back(t);
  }
  cudaStreamDestroy(stream);
  cudaFree(src);
  cudaFree(dst);
  state.counters["effective_bytes"] = 2.0 * static_cast<double>(bytes);
  state.counters["median_s"] = median(times);
  state.counters["min_s"] = *std::min_element(times.begin(), times.end());
}

// The variants measured: thread-per-line, block-per-line with both solvers, partitioned with 8 and
// 16 cells per thread, fused with 8 and 4, fused-cluster (8).
std::vector<SolverConfig> variant_configs() {
  std::vector<SolverConfig> out;
  SolverConfig c;
  c.variant = Variant::ThreadPerLine;
  out.push_back(c);
  c.variant = Variant::BlockPerLine;
  c.block_solver = BlockSolver::Pcr;
  out.push_back(c);
  c.block_solver = BlockSolver::CrPcr;
  out.push_back(c);
  c.variant = Variant::Partitioned;
  c.partition_cells = 8;
  out.push_back(c);
  c.partition_cells = 16;
  out.push_back(c);
  // Fused with 8 cells per thread only: with 16 (255 registers, one block per SM) it was slower at
  // every size and precision measured on the H100 (results/h100-80gb-hbm3/logs/adi-fused/), and with
  // 16 as one line a 128-thread block, three an SM (168 registers), 14 % slower a 2048^2 double sweep on
  // the H200: 12 warps an SM instead of 16 (results/h200/logs/adi-c16-three-blocks/).
  c.variant = Variant::Fused;
  c.partition_cells = 8;
  out.push_back(c);
  c.partition_cells = 4;  // twice the threads per line: for grids of a wave or a few
  out.push_back(c);
  c.variant = Variant::FusedCluster;  // no transposes: the y-sweep by thread-block clusters
  c.partition_cells = 8;
  out.push_back(c);
  return out;
}

// The arrays each kernel is counted with (effective bytes), into the JSON context for the report.
void add_traffic_context() {
  for (SolverConfig c : variant_configs()) {
    c.n = 64;
    const GpuSolver solver(c);
    for (const KernelInfo& k : solver.kernels()) {
      std::string text = "reads:";
      for (const auto& a : k.traffic.reads) text += " " + a + ";";
      text += " writes:";
      for (const auto& a : k.traffic.writes) text += " " + a + ";";
      benchmark::AddCustomContext("traffic/" + variant_label(c) + "/" + k.name, text);
    }
  }
}

void register_all() {
  for (std::size_t mib : {256, 1024})
    benchmark::RegisterBenchmark(("copy/d2d/" + std::to_string(mib) + "MiB").c_str(), bm_copy, mib << 20)
        ->UseManualTime()
        ->Iterations(30)
        ->Unit(benchmark::kMicrosecond);
  const std::pair<int, int> sizes[] = {{256, 256}, {1024, 1024}, {2048, 2048}, {4096, 4096}, {1536, 2400}, {3072, 1024}};
  for (const auto& [n, rows] : sizes)
    for (Precision p : {Precision::Double, Precision::Single})
      for (SolverConfig c : variant_configs()) {
        c.n = n;
        c.ny = rows == n ? 0 : rows;
        c.precision = p;
        if (!validate(c).empty()) continue;  // block-per-line: n <= 1024; non-square: fused, fused-cluster
        std::vector<std::string> kernels = {"step", "step-graph"};
        for (const std::string& k : step_kernel_names(c.variant)) kernels.push_back(k);
        const std::string size = rows == n ? std::to_string(n) : std::to_string(n) + "x" + std::to_string(rows);
        for (const std::string& k : kernels) {
          const std::string name = "adi/" + variant_label(c) + "/" + std::string(to_string(p)) + "/" + size + "/" + k;
          benchmark::RegisterBenchmark(name.c_str(), bm_kernel, c, k)
              ->UseManualTime()
              ->Iterations(static_cast<long long>(n) * c.rows() >= 2048 * 2048 ? 30 : 50)
              ->Unit(benchmark::kMicrosecond);
        }
      }
}

}  // namespace
}  // namespace warpmodel::adi::bench

int main(int argc, char** argv) {
  using namespace warpmodel::adi::bench;
  if (!add_gpu_context(argc, argv)) {
    std::fprintf(stderr, "bench_adi: no GPU (the CUDA runtime found no device)\n");
    return 3;
  }
  add_traffic_context();
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  g_solver.reset();
  return 0;
}
