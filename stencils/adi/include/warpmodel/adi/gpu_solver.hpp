// Host API of the GPU ADI solver (no CUDA types; link warpmodel_adi_gpu). A solver is chosen by
// variant, precision and size; step() advances one ADI step, and each kernel of a step can be
// launched on its own by name (benchmarks, CUPTI profiling, validation sweeps).
//
// Variants (thesis chapter 8):
//   thread-per-line (S1): one thread per grid line, Thomas algorithm with the mass pivots folded,
//     eliminating from both ends of the line at once (solve_line_two_ended in tridiagonal.hpp; the
//     CPU reference runs the one-directional solve_line_folded_thomas: same elimination, other
//     rounding, agreement ~1e-15), coefficients in the interleaved layout (line l of row i at
//     i * n + l). The x-sweep runs on transposed arrays, so every sweep is coalesced;
//     shared-memory transposes carry zeta and the new flux between the two frames.
//   block-per-line (S2): one block per line, one thread per cell (n <= 1024), solver pcr (PCR on
//     the interleaved system) or cr-pcr (one CR step removes the mass rows, then PCR), in shared
//     memory without bank conflicts (PCR/CR-PCR round differently from Thomas: ~1e-15 from the
//     CPU reference after 100 steps). Here the y-sweep runs on transposed arrays.
//   partitioned: the thread-per-line layout and transposes, and a partitioned solve with many
//     threads per line (partitioned.hpp: each thread eliminates a segment of partition_cells cells
//     from both ends in registers, CR + PCR on the reduced system in shared memory, back
//     substitution); n / partition_cells <= 512 (8 cells) or 256 (16 cells).
//   fused: one kernel per sweep builds each cell's rows from the state and runs the
//     partitioned solve on them at once (fused.hpp): no coefficient arrays. Both sweeps run on
//     line-major arrays (a block holds whole lines, staged through shared memory), so the y-sweep
//     runs on transposed arrays and four transposes carry zeta and the new fluxes between the
//     frames (fused.hpp says why, and what was measured without them). Non-square grids (n cells per
//     row, ny rows) with fused-cluster.
//   fused-cluster: fused's x-sweep, and a y-sweep on the x frame's row-major arrays by thread-block
//     clusters of 8 (cluster_sweep.hpp: a block holds an eighth of 8 columns' rows, each column's
//     reduced system solved through distributed shared memory), so a step has no transposes and
//     no y frame. 8 cells per thread; ny a multiple of 64 and at most 4096.
//
// A step launches, in this order (kernel_sequence()):
//   build-x, solve-x, transpose-zeta-x2y, transpose-p-x2y, build-y, solve-y, transpose-zeta-y2x,
//   transpose-q-y2x (fused: sweep-x, transpose-zeta-x2y, transpose-p-x2y, sweep-y,
//   transpose-zeta-y2x, transpose-q-y2x; fused-cluster: sweep-x, sweep-y)
// then rotates buffers (finish_step()). Every kernel is idempotent given its inputs, so one kernel
// may be launched repeatedly; launching the sequence and then finish_step() is exactly step().
#pragma once

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "warpmodel/adi/parameters.hpp"
#include "warpmodel/adi/state.hpp"

namespace warpmodel::adi {

enum class Variant { ThreadPerLine, BlockPerLine, Partitioned, Fused, FusedCluster };
enum class BlockSolver { Pcr, CrPcr };
enum class Precision { Double, Single };

std::string_view to_string(Variant v);
std::string_view to_string(BlockSolver s);
std::string_view to_string(Precision p);
// "thread-per-line", "block-per-line", "partitioned", "fused", "fused-cluster"
std::optional<Variant> parse_variant(std::string_view s);
std::optional<BlockSolver> parse_block_solver(std::string_view s);  // "pcr", "cr-pcr"
std::optional<Precision> parse_precision(std::string_view s);       // "double", "single"

// fused and fused-cluster: the fused x-sweep (one kernel per sweep, no coefficient arrays), non-square grids.
inline bool is_fused_family(Variant v) { return v == Variant::Fused || v == Variant::FusedCluster; }

struct SolverConfig {
  Variant variant = Variant::ThreadPerLine;
  BlockSolver block_solver = BlockSolver::CrPcr;  // block-per-line only
  Precision precision = Precision::Double;
  int partition_cells = 8;  // partitioned and fused: cells per thread, 8 or 16 (fused also 4); fused-cluster: 8
  int n = 256;  // cells per row (per side of a square grid); a multiple of 32; block-per-line: n <= 1024
  int ny = 0;   // rows, a multiple of 32; 0: n (square). Only fused and fused-cluster take ny != n.
  PhysicalParameters physics{};

  int rows() const { return ny == 0 ? n : ny; }
};

// Empty when the configuration is valid, else one line saying what is wrong.
std::string validate(const SolverConfig& config);

// Short name of a configuration, e.g. "thread-per-line", "block-per-line/cr-pcr", "partitioned"
// (8 cells per thread), "partitioned/c16", "fused", "fused/c16".
std::string variant_label(const SolverConfig& config);

struct LaunchGeometry {
  unsigned grid[3] = {1, 1, 1};
  unsigned block[3] = {1, 1, 1};
  std::size_t dynamic_shared_bytes = 0;
};

// The arrays a kernel touches, each counted once (effective bandwidth, thesis eq 3.12.3).
struct ArrayTraffic {
  std::vector<std::string> reads;
  std::vector<std::string> writes;
};

struct KernelInfo {
  std::string name;        // step-level name, e.g. "solve-x"
  const void* function;    // host stub of the __global__ function (cudaFuncGetAttributes, CUPTI)
  LaunchGeometry launch;   // as step() launches it (fused-cluster's sweep-y: also in clusters of 8 or 16
                           // blocks, cluster_columns in cluster_sweep.hpp, which LaunchGeometry does not carry)
  ArrayTraffic traffic;    // arrays of n * n elements of the solver's precision
  double effective_bytes;  // (reads + writes) * n * n * sizeof(element)
};

// The kernels of a step in launch order: the staged variants' eight, fused's six, fused-cluster's two.
const std::vector<std::string>& step_kernel_names(Variant v);
const std::vector<std::string>& step_kernel_names();  // the staged variants' (thread-per-line, ...)


class GpuSolver {
 public:
  // Allocates device memory; throws std::invalid_argument (bad config), support::cuda::NoGpuError, CudaError.
  explicit GpuSolver(const SolverConfig& config);
  ~GpuSolver();
  GpuSolver(GpuSolver&&) noexcept;
  GpuSolver& operator=(GpuSolver&&) noexcept;
  GpuSolver(const GpuSolver&) = delete;
  GpuSolver& operator=(const GpuSolver&) = delete;

  const SolverConfig& config() const;

  // The state in the layout of state.hpp (nx = n, ny = rows()), converted to the solver's precision.
  void upload(const State<double>& state);
  State<double> download() const;

  void step();  // launches the sequence and finish_step(); asynchronous on the solver's stream
  // `steps` steps, the same as calling step() `steps` times, but two at a time through a CUDA graph of
  // two steps (captured at the first call, one graph for each parity of the steps done so far: the
  // buffers rotate with period two, so a two-step graph replays with the right ones). Why: the launch
  // gaps between a step's kernels; on the H200 the 2048^2 double fused step took 315 us this way
  // against 325 launched one kernel at a time (results/h200/logs/adi-launch/). Asynchronous; an odd
  // step count ends with one step().
  void run(int steps);
  // Captures the graphs run() replays (both parities), launching nothing: so that a timed run() does not
  // include the capture.
  void capture_run_graphs();
  const std::vector<std::string>& kernel_sequence() const;
  void launch(std::string_view kernel);  // throws std::invalid_argument for an unknown name
  void finish_step();
  void synchronize() const;

  std::vector<KernelInfo> kernels() const;  // in sequence order
  // The step's effective bytes: the sum over its kernels.
  double step_effective_bytes() const;
  // The fewest bytes a step must move: reads zeta, bed, p, q^{n-1/2}, q^{n+1/2} and writes zeta,
  // p, q once each (8 arrays).
  double step_state_bytes() const;

  // The solver's CUDA stream as an opaque handle (cudaStream_t), for events in benchmarks.
  void* stream() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// A run of `steps` steps with CUDA events around every kernel of every step (run-adi). The state
// advances exactly `steps` steps; the caller uploads the initial state and warms up beforehand.
struct KernelTiming {
  std::string name;  // a kernel of the sequence, or "step"
  double mean_seconds = 0;
  double median_seconds = 0;
  double min_seconds = 0;
  double effective_bytes = 0;  // per launch (per step for "step")
};

struct TimedRun {
  std::string gpu_name;
  int steps = 0;
  std::vector<KernelTiming> kernels;  // sequence order, then "step"
  double state_bytes = 0;             // GpuSolver::step_state_bytes()
};

TimedRun run_timed(GpuSolver& solver, int steps);

// `steps` steps through GpuSolver::run with one pair of CUDA events around them: the mean time of a
// step (run-adi's "through a CUDA graph" line; the kernels cannot be timed one by one inside a graph).
double run_graph_timed(GpuSolver& solver, int steps);

}  // namespace warpmodel::adi
