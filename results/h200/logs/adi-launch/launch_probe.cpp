// Probe (issue 15, not kept): how much of a fused ADI step is launch overhead? The same 100 steps of the
// kept solver (GpuSolver, 2048^2 double unless told), timed four ways on one card:
//   events   run_timed: an event before every kernel (run-adi's and bench_adi's timing)
//   stream   the steps launched back to back, one event pair around all of them
//   graph    two steps captured into a CUDA graph (the buffers rotate with period 2), replayed 50 times
// Each way runs `repeats` times, alternated; the medians of the per-step times are printed as JSON.
// The graph's final state is compared with the stream's, bit for bit, from the same initial state.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "warpmodel/adi/gpu_solver.hpp"
#include "warpmodel/adi/state.hpp"

using namespace warpmodel::adi;

#define CHECK(x)                                                                           \
  do {                                                                                     \
    cudaError_t e_ = (x);                                                                  \
    if (e_ != cudaSuccess) {                                                               \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                        \
    }                                                                                      \
  } while (0)

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main(int argc, char** argv) {
  SolverConfig c;
  c.n = argc > 1 ? std::atoi(argv[1]) : 2048;
  c.precision = argc > 2 && std::strcmp(argv[2], "single") == 0 ? Precision::Single : Precision::Double;
  c.variant = Variant::Fused;
  const int repeats = argc > 3 ? std::atoi(argv[3]) : 5, steps = 100;
  GpuSolver solver(c);
  const State<double> initial = make_hump_state(c.n, c.n);
  auto stream = static_cast<cudaStream_t>(solver.stream());
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));

  solver.upload(initial);
  for (int s = 0; s < 10; ++s) solver.step();  // warm-up
  solver.synchronize();

  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  solver.step();
  solver.step();
  CHECK(cudaStreamEndCapture(stream, &graph));
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  // Capturing called finish_step() twice: the buffers are back where they were (period 2).

  auto time_stream = [&] {
    CHECK(cudaEventRecord(a, stream));
    for (int s = 0; s < steps; ++s) solver.step();
    CHECK(cudaEventRecord(b, stream));
    CHECK(cudaEventSynchronize(b));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    return ms * 1e-3 / steps;
  };
  auto time_graph = [&] {
    CHECK(cudaEventRecord(a, stream));
    for (int s = 0; s < steps / 2; ++s) CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaEventRecord(b, stream));
    CHECK(cudaEventSynchronize(b));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    return ms * 1e-3 / steps;
  };
  auto time_events = [&] {
    const TimedRun run = run_timed(solver, steps);
    return run.kernels.back().median_seconds;
  };

  std::vector<double> by_events, by_stream, by_graph;
  for (int r = 0; r < repeats; ++r) {
    by_events.push_back(time_events());
    by_stream.push_back(time_stream());
    by_graph.push_back(time_graph());
  }

  // The graph computes what the stream computes: 100 steps each from the same state, bit for bit.
  solver.upload(initial);
  for (int s = 0; s < steps; ++s) solver.step();
  const State<double> by_steps = solver.download();
  solver.upload(initial);
  for (int s = 0; s < steps / 2; ++s) CHECK(cudaGraphLaunch(exec, stream));
  solver.synchronize();
  const State<double> by_replay = solver.download();
  // A hash of the final state, to compare builds (FNV-1a over the bytes of zeta, p and q).
  unsigned long long hash = 1469598103934665603ull;
  for (const std::vector<double>* v : {&by_steps.zeta, &by_steps.p, &by_steps.q_new})
    for (double x : *v) {
      unsigned long long bits;
      std::memcpy(&bits, &x, sizeof bits);
      for (int b = 0; b < 8; ++b) hash = (hash ^ ((bits >> (8 * b)) & 0xff)) * 1099511628211ull;
    }
  const bool same = by_steps.zeta == by_replay.zeta && by_steps.p == by_replay.p && by_steps.q_old == by_replay.q_old && by_steps.q_new == by_replay.q_new;

  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("{\"gpu\": \"%s\", \"n\": %d, \"precision\": \"%s\", \"steps\": %d, \"repeats\": %d, "
              "\"graph_state_equals_stream_state\": %s, \"state_hash\": \"%016llx\",\n \"median_step_us\": {\"events\": %.2f, \"stream\": %.2f, "
              "\"graph\": %.2f},\n \"step_us\": {",
              prop.name, c.n, c.precision == Precision::Double ? "double" : "single", steps, repeats, same ? "true" : "false", hash,
              median(by_events) * 1e6, median(by_stream) * 1e6, median(by_graph) * 1e6);
  const char* names[] = {"events", "stream", "graph"};
  const std::vector<double>* all[] = {&by_events, &by_stream, &by_graph};
  for (int k = 0; k < 3; ++k) {
    std::printf("%s\"%s\": [", k ? ", " : "", names[k]);
    for (std::size_t r = 0; r < all[k]->size(); ++r) std::printf("%s%.2f", r ? ", " : "", (*all[k])[r] * 1e6);
    std::printf("]");
  }
  std::printf("}}\n");
  return same ? 0 : 2;
}
