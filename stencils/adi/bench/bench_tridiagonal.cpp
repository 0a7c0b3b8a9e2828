// bench_tridiagonal: batched tridiagonal solvers on the same random diagonally dominant systems,
// ours (Thomas interleaved, PCR, CR-PCR: batched_tridiagonal.hpp) against cuSPARSE
// (gtsv2StridedBatch, gtsvInterleavedBatch). Every solution is checked against a double-precision
// Thomas solve on the CPU before it is timed; a failed check marks the benchmark as an error.
//   bench_tridiagonal --benchmark_out=tridiagonal.json --benchmark_out_format=json
// Sizes: n = 64..1024, batch = 1024, 16384 and min(2^20, 2^26 / n). Timing: CUDA events around
// the solve only (UseManualTime); before every solve all inputs are restored from pristine copies
// (cuSPARSE overwrites them), for every solver alike. Counters: n, batch, effective bytes
// (5 n batch sizeof(T): a, b, c, d read once, x written once), median and min time.
#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench_common.hpp"
#include "cusparse_solvers.hpp"
#include "warpmodel/adi/batched_systems.hpp"
#include "warpmodel/adi/batched_tridiagonal.hpp"
#include "warpmodel/adi/gpu_solver.hpp"

namespace warpmodel::adi::bench {
namespace {

enum class Solver { Thomas, Pcr, CrPcr, CusparseStrided, CusparseInterleaved };

const char* name_of(Solver s) {
  switch (s) {
    case Solver::Thomas:
      return "thomas-interleaved";
    case Solver::Pcr:
      return "pcr";
    case Solver::CrPcr:
      return "cr-pcr";
    case Solver::CusparseStrided:
      return to_string(CusparseAlgorithm::StridedBatch);
    case Solver::CusparseInterleaved:
      return to_string(CusparseAlgorithm::InterleavedBatch);
  }
  return "?";
}

bool interleaved(Solver s) { return s == Solver::Thomas || s == Solver::CusparseInterleaved; }
bool ours(Solver s) { return s == Solver::Thomas || s == Solver::Pcr || s == Solver::CrPcr; }

using DeviceArray = support::cuda::DeviceBuffer<std::byte>;

// The systems of one (n, batch, precision) on the device, pristine and working copies in both
// layouts, and the CPU reference solution. One configuration lives at a time.
struct ConfigData {
  int n = 0, batch = 0;
  bool double_precision = true;
  std::size_t elements = 0, bytes = 0;
  std::vector<double> reference;  // contiguous
  std::vector<std::unique_ptr<DeviceArray>> pristine[2], work[2];  // [layout: 0 contiguous, 1 interleaved][a,b,c,d]
  std::unique_ptr<DeviceArray> x, scratch;
  cudaStream_t stream = nullptr;
  ~ConfigData() {
    if (stream) cudaStreamDestroy(stream);
  }
};

template <class T>
std::unique_ptr<ConfigData> make_config(int n, int batch) {
  auto d = std::make_unique<ConfigData>();
  d->n = n;
  d->batch = batch;
  d->double_precision = std::is_same_v<T, double>;
  d->elements = static_cast<std::size_t>(n) * static_cast<std::size_t>(batch);
  d->bytes = d->elements * sizeof(T);
  support::cuda::check(cudaStreamCreateWithFlags(&d->stream, cudaStreamNonBlocking), "cudaStreamCreate");
  const BatchedSystems systems = make_random_systems(n, batch, 0x5eed0000ULL + static_cast<unsigned>(n) * 31 + batch);
  d->reference = solve_systems_cpu(systems);
  const std::vector<double>* arrays[4] = {&systems.lower, &systems.diagonal, &systems.upper, &systems.rhs};
  for (int layout = 0; layout < 2; ++layout)
    for (int a = 0; a < 4; ++a) {
      d->pristine[layout].push_back(std::make_unique<DeviceArray>(d->bytes));
      d->work[layout].push_back(std::make_unique<DeviceArray>(d->bytes));
      std::vector<T> host = layout == 0 ? std::vector<T>(arrays[a]->begin(), arrays[a]->end())
                                        : interleave<T>(*arrays[a], n, batch);
      support::cuda::check(cudaMemcpy(d->pristine[layout][a]->template as<T>(), host.data(), d->bytes, cudaMemcpyHostToDevice),
                 "upload");
    }
  d->x = std::make_unique<DeviceArray>(d->bytes);
  d->scratch = std::make_unique<DeviceArray>(d->bytes);
  return d;
}

std::unique_ptr<ConfigData> g_config;

template <class T>
ConfigData& config(int n, int batch) {
  const bool dbl = std::is_same_v<T, double>;
  if (!g_config || g_config->n != n || g_config->batch != batch || g_config->double_precision != dbl) {
    g_config.reset();  // free the previous configuration first
    g_config = make_config<T>(n, batch);
  }
  return *g_config;
}

template <class T>
void bm_solver(benchmark::State& state, int n, int batch, Solver solver) {
  ConfigData& d = config<T>(n, batch);
  const int layout = interleaved(solver) ? 1 : 0;
  T* a = d.work[layout][0]->template as<T>();
  T* b = d.work[layout][1]->template as<T>();
  T* c = d.work[layout][2]->template as<T>();
  T* rhs = d.work[layout][3]->template as<T>();
  T* x = d.x->template as<T>();
  std::optional<CusparseBatchedSolver<T>> cusparse;
  if (!ours(solver))
    cusparse.emplace(solver == Solver::CusparseStrided ? CusparseAlgorithm::StridedBatch
                                                        : CusparseAlgorithm::InterleavedBatch,
                     n, batch, a, b, c, x, d.stream);
  auto restore = [&] {
    for (int k = 0; k < 4; ++k)
      support::cuda::check(cudaMemcpyAsync(d.work[layout][k]->template as<T>(), d.pristine[layout][k]->template as<T>(), d.bytes,
                                 cudaMemcpyDeviceToDevice, d.stream),
                 "restore");
    if (cusparse) support::cuda::check(cudaMemcpyAsync(x, rhs, d.bytes, cudaMemcpyDeviceToDevice, d.stream), "restore");
  };
  auto run = [&] {
    if (solver == Solver::Thomas)
      solve_batched<T>(BatchedAlgorithm::ThomasInterleaved, n, batch, a, b, c, rhs, x, d.scratch->template as<T>(), d.stream);
    else if (solver == Solver::Pcr)
      solve_batched<T>(BatchedAlgorithm::Pcr, n, batch, a, b, c, rhs, x, nullptr, d.stream);
    else if (solver == Solver::CrPcr)
      solve_batched<T>(BatchedAlgorithm::CrPcr, n, batch, a, b, c, rhs, x, nullptr, d.stream);
    else
      cusparse->solve(a, b, c, x);
  };

  // Check against the CPU (the output is poisoned first, so an unwritten element fails).
  restore();
  support::cuda::check(cudaMemsetAsync(x, 0xff, d.bytes, d.stream), "poison");
  if (cusparse) support::cuda::check(cudaMemcpyAsync(x, rhs, d.bytes, cudaMemcpyDeviceToDevice, d.stream), "restore");
  run();
  std::vector<T> host(d.elements);
  support::cuda::check(cudaMemcpyAsync(host.data(), x, d.bytes, cudaMemcpyDeviceToHost, d.stream), "download");
  support::cuda::check(cudaStreamSynchronize(d.stream), "solve");
  const std::vector<double> solution =
      layout == 1 ? deinterleave<T>(host, n, batch) : std::vector<double>(host.begin(), host.end());
  const SolutionError error = compare_solution(solution, d.reference);
  const double tolerance = std::is_same_v<T, double> ? 1e-12 : 1e-4;
  const bool passed = error.nonfinite == 0 && error.relative() <= tolerance;

  std::vector<double> times;
  EventPair events;
  restore();
  run();  // warm-up
  for (auto _ : state) {
    restore();
    events.start(d.stream);
    run();
    events.stop(d.stream);
    const double t = events.elapsed_seconds();
    state.SetIterationTime(t);
    times.push_back(t);
  }
  support::cuda::check(cudaGetLastError(), "benchmark");
  state.counters["n"] = n;
  state.counters["batch"] = batch;
  state.counters["effective_bytes"] = 5.0 * static_cast<double>(d.bytes);
  state.counters["median_s"] = median(times);
  state.counters["min_s"] = *std::min_element(times.begin(), times.end());
  state.counters["max_relative_error"] = error.relative();
  state.counters["check_passed"] = passed ? 1 : 0;
  state.counters["ours"] = ours(solver) ? 1 : 0;
  if (cusparse) state.counters["cusparse_buffer_bytes"] = static_cast<double>(cusparse->buffer_bytes());
  state.SetLabel(name_of(solver));
  if (!passed) {
    char msg[160];
    std::snprintf(msg, sizeof msg, "check against the CPU failed: relative error %.3e, %zu non-finite", error.relative(),
                  error.nonfinite);
    state.SkipWithError(msg);
  }
}

void register_all() {
  const int sizes[] = {64, 128, 256, 512, 1024};
  const Solver solvers[] = {Solver::Thomas, Solver::Pcr, Solver::CrPcr, Solver::CusparseStrided,
                            Solver::CusparseInterleaved};
  for (const bool dbl : {true, false})
    for (int n : sizes) {
      std::vector<int> batches = {1024, 16384, std::min(1 << 20, (1 << 26) / n)};
      for (int batch : batches)
        for (Solver s : solvers) {
          const std::string name = std::string("tridiagonal/") + (dbl ? "double" : "single") + "/n:" + std::to_string(n) +
                                   "/batch:" + std::to_string(batch) + "/" + name_of(s);
          const long long elements = static_cast<long long>(n) * batch;
          const int iterations = static_cast<int>(std::clamp(( 1LL << 30) / elements, 10LL, 200LL));
          auto* bm = dbl ? benchmark::RegisterBenchmark(name.c_str(), bm_solver<double>, n, batch, s)
                         : benchmark::RegisterBenchmark(name.c_str(), bm_solver<float>, n, batch, s);
          bm->UseManualTime()->Iterations(iterations)->Unit(benchmark::kMicrosecond);
        }
    }
}

}  // namespace
}  // namespace warpmodel::adi::bench

int main(int argc, char** argv) {
  using namespace warpmodel::adi::bench;
  if (!add_gpu_context(argc, argv)) {
    std::fprintf(stderr, "bench_tridiagonal: no GPU (the CUDA runtime found no device)\n");
    return 3;
  }
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  g_config.reset();
  return 0;
}
