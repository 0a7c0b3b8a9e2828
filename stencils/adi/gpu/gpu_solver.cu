// Host side of the GPU ADI solver (gpu_solver.hpp): buffers in the two sweep frames, the kernel
// sequence of a step, launch geometry and traffic of each kernel.
#include "warpmodel/adi/gpu_solver.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "adi_kernels.cuh"
#include "cluster_sweep_launch.hpp"
#include "cuda_check.cuh"
#include "warpmodel/adi/cluster_sweep.hpp"
#include "warpmodel/adi/fused.hpp"
#include "warpmodel/adi/reference.hpp"

namespace warpmodel::adi {

std::string_view to_string(Variant v) {
  switch (v) {
    case Variant::ThreadPerLine:
      return "thread-per-line";
    case Variant::BlockPerLine:
      return "block-per-line";
    case Variant::Partitioned:
      return "partitioned";
    case Variant::Fused:
      return "fused";
    case Variant::FusedCluster:
      return "fused-cluster";
  }
  return "?";
}
std::string_view to_string(BlockSolver s) { return s == BlockSolver::Pcr ? "pcr" : "cr-pcr"; }
std::string_view to_string(Precision p) { return p == Precision::Double ? "double" : "single"; }

std::optional<Variant> parse_variant(std::string_view s) {
  if (s == "thread-per-line") return Variant::ThreadPerLine;
  if (s == "block-per-line") return Variant::BlockPerLine;
  if (s == "partitioned") return Variant::Partitioned;
  if (s == "fused") return Variant::Fused;
  if (s == "fused-cluster") return Variant::FusedCluster;
  return std::nullopt;
}
std::optional<BlockSolver> parse_block_solver(std::string_view s) {
  if (s == "pcr") return BlockSolver::Pcr;
  if (s == "cr-pcr") return BlockSolver::CrPcr;
  return std::nullopt;
}
std::optional<Precision> parse_precision(std::string_view s) {
  if (s == "double") return Precision::Double;
  if (s == "single") return Precision::Single;
  return std::nullopt;
}

std::string validate(const SolverConfig& c) {
  if (c.n < 32 || c.n % 32 != 0) return "size " + std::to_string(c.n) + " must be a positive multiple of 32";
  if (c.n > 32768) return "size " + std::to_string(c.n) + " is above 32768 (32-bit indices)";
  const bool fused_family = is_fused_family(c.variant);
  if (c.ny != 0 && c.ny != c.n) {
    if (!fused_family)
      return "a non-square grid (" + std::to_string(c.n) + " x " + std::to_string(c.ny) +
             ") needs variant fused or fused-cluster";
    if (c.ny < 32 || c.ny % 32 != 0) return "rows " + std::to_string(c.ny) + " must be a positive multiple of 32";
    if (static_cast<long long>(c.n) * c.ny > (1LL << 30)) return "grid above 2^30 cells (32-bit indices)";
  }
  if (fused_family) {
    const std::size_t element = c.precision == Precision::Double ? sizeof(double) : sizeof(float);
    if (c.variant == Variant::FusedCluster) {
      if (std::string why = cluster_sweep_refusal(c.rows(), c.partition_cells, element, kFusedMaxSharedBytes);
          !why.empty())
        return why;
    } else if (c.partition_cells != 4 && c.partition_cells != 8 && c.partition_cells != 16) {
      return "fused: cells per thread must be 4, 8 or 16, not " + std::to_string(c.partition_cells);
    }
    // fused-cluster's x-sweep is fused's; only fused's y-sweep runs on lines of ny cells.
    for (const int along : {c.n, c.rows()})
      if ((along == c.n || c.variant == Variant::Fused) &&
          fused_lanes(along, c.partition_cells, along == c.n ? c.rows() : c.n, element, kFusedMaxSharedBytes) == 0)
        return "fused: a line of " + std::to_string(along) + " cells needs more than " +
               std::to_string(partitioned_max_threads(c.partition_cells)) + " segments of " +
               std::to_string(c.partition_cells) + " cells or more than " +
               std::to_string(kFusedMaxSharedBytes / 1024) + " KiB of shared memory per block";
  }
  if (c.variant == Variant::BlockPerLine && c.n > 1024)
    return "block-per-line needs one thread per cell: size " + std::to_string(c.n) + " is above 1024";
  if (c.variant == Variant::Partitioned) {
    if (c.partition_cells != 8 && c.partition_cells != 16)
      return "partitioned: cells per thread must be 8 or 16, not " + std::to_string(c.partition_cells);
    if (partitioned_lanes(c.n, c.partition_cells) == 0)
      return "partitioned: size " + std::to_string(c.n) + " needs more than " +
             std::to_string(partitioned_max_threads(c.partition_cells)) + " segments of " +
             std::to_string(c.partition_cells) + " cells per block";
  }
  if (!(c.physics.dx > 0 && c.physics.dy > 0 && c.physics.dt > 0 && c.physics.manning > 0))
    return "dx, dy, dt and the Manning number must be > 0";
  return {};
}

std::string variant_label(const SolverConfig& c) {
  std::string s(to_string(c.variant));
  if (c.variant == Variant::BlockPerLine) s += "/" + std::string(to_string(c.block_solver));
  if ((c.variant == Variant::Partitioned || c.variant == Variant::Fused) && c.partition_cells != 8)
    s += "/c" + std::to_string(c.partition_cells);
  return s;
}

namespace {

enum class Kernel {
  BuildX, SolveX, TransposeZetaX2Y, TransposePX2Y, BuildY, SolveY, TransposeZetaY2X, TransposeQY2X,  // staged
  SweepX, SweepY  // fused
};

const std::vector<Kernel>& kernels_of(Variant v) {
  static const std::vector<Kernel> staged = {Kernel::BuildX, Kernel::SolveX, Kernel::TransposeZetaX2Y,
                                             Kernel::TransposePX2Y, Kernel::BuildY, Kernel::SolveY,
                                             Kernel::TransposeZetaY2X, Kernel::TransposeQY2X};
  static const std::vector<Kernel> fused = {Kernel::SweepX, Kernel::TransposeZetaX2Y, Kernel::TransposePX2Y,
                                            Kernel::SweepY, Kernel::TransposeZetaY2X, Kernel::TransposeQY2X};
  static const std::vector<Kernel> fused_cluster = {Kernel::SweepX, Kernel::SweepY};  // one frame: no transposes
  return v == Variant::Fused ? fused : v == Variant::FusedCluster ? fused_cluster : staged;
}

const char* kernel_name(Kernel k) {
  static const char* const names[] = {"build-x", "solve-x", "transpose-zeta-x2y", "transpose-p-x2y", "build-y",
                                      "solve-y", "transpose-zeta-y2x", "transpose-q-y2x", "sweep-x", "sweep-y"};
  return names[static_cast<int>(k)];
}

// Calls f(std::integral_constant<int, C>{}) with the fused variant's cells per thread C (4, 8 or 16,
// the values validate() allows): the one place where the runtime choice becomes the kernel's
// template argument, for both the attribute query and the launch.
template <class F>
decltype(auto) with_fused_cells(int cells, F&& f) {
  switch (cells) {
    case 4:
      return f(std::integral_constant<int, 4>{});
    case 8:
      return f(std::integral_constant<int, 8>{});
    default:
      return f(std::integral_constant<int, 16>{});
  }
}

}  // namespace

const std::vector<std::string>& step_kernel_names() { return step_kernel_names(Variant::ThreadPerLine); }

const std::vector<std::string>& step_kernel_names(Variant v) {
  static const auto names_of = [](Variant variant) {
    std::vector<std::string> names;
    for (Kernel k : kernels_of(variant)) names.emplace_back(kernel_name(k));
    return names;
  };
  static const std::vector<std::string> staged = names_of(Variant::ThreadPerLine), fused = names_of(Variant::Fused),
                                         fused_cluster = names_of(Variant::FusedCluster);
  return v == Variant::Fused ? fused : v == Variant::FusedCluster ? fused_cluster : staged;
}

struct GpuSolver::Impl {
  SolverConfig config;
  int n = 0;   // cells per row (nx)
  int ny = 0;  // rows (fused may be non-square; the staged variants have ny = n)
  std::size_t element = 0;
  bool along_major = false;  // thread-per-line: both sweep frames are along-major
  int thomas_lanes = 32;
  int partition_lanes = 1;  // partitioned: lines per block
  int fused_lanes_x = 1, fused_lanes_y = 1;  // fused: lines per block of each sweep
  int cluster_columns_y = kClusterColumnsNarrow;  // fused-cluster: columns (blocks) of a y-sweep cluster
  cudaStream_t stream = nullptr;
  // Frame X holds the arrays as the x-sweep reads them, frame Y as the y-sweep does; a value at
  // (i along, l line) sits at i * along_stride + l * line_stride in its frame.
  // Fused: both frames line-major, as block-per-line; the sweeps write zeta and the flux into the
  // *_out buffers (the transposes read them; p_x_out and q_y_out rotate in at finish_step()).
  gpu::DeviceBuffer zeta_x, p_x, q_x_old, q_x_new, bed_x;
  gpu::DeviceBuffer zeta_y, q_y, p_y_current, p_y_next, bed_y;
  // Coefficients, reused by both sweeps: one allocation holding amo, bmo, cmo, dmo, dma in this order
  // (the thread-per-line kernel addresses them as base + a * n * n).
  gpu::DeviceBuffer coefficient_storage;
  gpu::DeviceBuffer scratch;  // thread-per-line: the eliminated rows c1, d1 (one allocation, c1 first)
  gpu::DeviceBuffer zeta_x_out, p_x_out, zeta_y_out, q_y_out;  // fused only
  std::size_t max_shared_bytes = kFusedMaxSharedBytes;  // the device's opt-in limit per block
  // run(): finish_step() swaps buffer pairs, so the kernels' arguments repeat every two steps; a
  // two-step graph is captured for each parity of the steps done (index: steps_parity).
  int steps_parity = 0;
  cudaGraphExec_t two_steps[2] = {nullptr, nullptr};

  // The stream and graphs belong to the Impl, so that a move-assigned GpuSolver releases the old ones.
  Impl() = default;
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;
  ~Impl() {
    if (!stream) return;
    cudaStreamSynchronize(stream);
    for (cudaGraphExec_t g : two_steps)
      if (g) cudaGraphExecDestroy(g);
    cudaStreamDestroy(stream);
  }

  int along_stride() const { return along_major ? n : 1; }
  int line_stride() const { return along_major ? 1 : n; }
  // fused and fused-cluster: the fused x-sweep and its *_out buffers.
  bool fused() const { return is_fused_family(config.variant); }
  // fused-cluster: the y-sweep reads and writes the x frame (cluster_sweep.hpp); no y frame.
  bool cluster_y() const { return config.variant == Variant::FusedCluster; }

  template <class T>
  gpu::Coefficients<T> coefficients() const {
    T* base = coefficient_storage.as<T>();
    const std::size_t plane = static_cast<std::size_t>(n) * n;
    return {base + 4 * plane, base, base + plane, base + 2 * plane, base + 3 * plane};  // dma, amo, bmo, cmo, dmo
  }

  LaunchGeometry geometry(Kernel k) const {
    LaunchGeometry g;
    const unsigned un = static_cast<unsigned>(n);
    switch (k) {
      case Kernel::BuildX:
      case Kernel::BuildY:
        g.block[0] = gpu::kBuildBlockX;
        g.block[1] = gpu::kBuildBlockY;
        g.grid[0] = un / gpu::kBuildBlockX;
        g.grid[1] = (un + gpu::kBuildBlockY - 1) / gpu::kBuildBlockY;
        break;
      case Kernel::SolveX:
      case Kernel::SolveY:
        if (config.variant == Variant::Partitioned) {
          const int segments = n / config.partition_cells;
          g.block[0] = static_cast<unsigned>(segments * partition_lanes);
          g.grid[0] = un / static_cast<unsigned>(partition_lanes);
          g.dynamic_shared_bytes = static_cast<std::size_t>(partitioned_shared_elements(segments, partition_lanes)) * element;
        } else if (config.variant == Variant::ThreadPerLine) {
          g.block[0] = gpu::kThomasWarp;
          g.grid[0] = un / static_cast<unsigned>(thomas_lanes);
          g.dynamic_shared_bytes = gpu::thomas_shared_bytes(thomas_lanes, element);
        } else {
          g.block[0] = un;
          g.grid[0] = un;
          const int elements =
              config.block_solver == BlockSolver::Pcr ? adi_pcr_shared_elements(n) : adi_cr_pcr_shared_elements(n);
          g.dynamic_shared_bytes = static_cast<std::size_t>(elements) * element;
        }
        break;
      case Kernel::SweepY:
        if (cluster_y()) {  // one block per column, clusters of cluster_columns_y (launched with the dimension)
          g.block[0] = static_cast<unsigned>(ny / config.partition_cells);
          g.grid[0] = un;
          g.dynamic_shared_bytes =
              static_cast<std::size_t>(cluster_sweep_shared_elements(ny, config.partition_cells, cluster_columns_y)) *
              element;
          break;
        }
        [[fallthrough]];
      case Kernel::SweepX: {
        const bool x = k == Kernel::SweepX;
        const int along = x ? n : ny, lanes = x ? fused_lanes_x : fused_lanes_y;
        const int segments = along / config.partition_cells;
        g.block[0] = static_cast<unsigned>(segments * lanes);
        g.grid[0] = static_cast<unsigned>((x ? ny : n) / lanes);
        g.dynamic_shared_bytes =
            static_cast<std::size_t>(fused_shared_elements(lanes, along, config.partition_cells)) * element;
        break;
      }
      default: {
        // x to y: the x frame's ny rows of n; y to x: the y frame's n rows of ny.
        const bool to_y = k == Kernel::TransposeZetaX2Y || k == Kernel::TransposePX2Y;
        g.block[0] = gpu::kTile;
        g.block[1] = gpu::kTileRows;
        g.grid[0] = static_cast<unsigned>((to_y ? n : ny) / gpu::kTile);
        g.grid[1] = static_cast<unsigned>((to_y ? ny : n) / gpu::kTile);
        break;
      }
    }
    return g;
  }

  template <class T>
  const void* function(Kernel k) const {
    switch (k) {
      case Kernel::BuildX:
      case Kernel::BuildY:
        return along_major ? reinterpret_cast<const void*>(&gpu::build_kernel<T, true>)
                           : reinterpret_cast<const void*>(&gpu::build_kernel<T, false>);
      case Kernel::SolveX:
      case Kernel::SolveY:
        if (config.variant == Variant::ThreadPerLine) return reinterpret_cast<const void*>(&gpu::solve_thomas_kernel<T>);
        if (config.variant == Variant::Partitioned)
          return config.partition_cells == 8 ? reinterpret_cast<const void*>(&gpu::solve_partitioned_kernel<T, 8>)
                                             : reinterpret_cast<const void*>(&gpu::solve_partitioned_kernel<T, 16>);
        return config.block_solver == BlockSolver::Pcr ? reinterpret_cast<const void*>(&gpu::solve_pcr_kernel<T>)
                                                       : reinterpret_cast<const void*>(&gpu::solve_cr_pcr_kernel<T>);
      case Kernel::SweepY:
        if (cluster_y()) return gpu::cluster_sweep_y_function<T>(cluster_columns_y);
        [[fallthrough]];
      case Kernel::SweepX:
        if (k == Kernel::SweepX && cluster_y()) return gpu::fused_cluster_sweep_x_function<T>();
        return with_fused_cells(config.partition_cells, [](auto cells) {
          return reinterpret_cast<const void*>(&gpu::fused_sweep_kernel<T, decltype(cells)::value>);
        });
      default:
        return reinterpret_cast<const void*>(&gpu::transpose_kernel<T>);
    }
  }

  const void* function(Kernel k) const {
    return config.precision == Precision::Double ? function<double>(k) : function<float>(k);
  }

  ArrayTraffic traffic(Kernel k) const {
    const bool x = k == Kernel::BuildX || k == Kernel::SolveX;
    const std::string along = x ? "p" : "q";
    switch (k) {
      case Kernel::BuildX:
        return {{"zeta^n", "bed", "p^n", "q^{n-1/2}", "q^{n+1/2}"}, {"dma", "amo", "bmo", "cmo", "dmo"}};
      case Kernel::BuildY:
        return {{"zeta^{n+1/2}", "bed", "q^{n+1/2}", "p^n", "p^{n+1}"}, {"dma", "amo", "bmo", "cmo", "dmo"}};
      case Kernel::SolveX:
      case Kernel::SolveY: {
        ArrayTraffic t{{"dma", "amo", "bmo", "cmo", "dmo"}, {}};
        if (config.variant == Variant::ThreadPerLine) {
          t.reads.insert(t.reads.end(), {"c1 (cp, ap)", "d1 (dp, dq)"});
          t.writes = {"c1 (cp, ap)", "d1 (dp, dq)"};
        }
        t.writes.push_back(x ? "zeta^{n+1/2}" : "zeta^{n+1}");
        t.writes.push_back(x ? "p^{n+1}" : "q^{n+3/2}");
        return t;
      }
      case Kernel::TransposeZetaX2Y:
        return {{"zeta^{n+1/2} (x frame)"}, {"zeta^{n+1/2} (y frame)"}};
      case Kernel::TransposePX2Y:
        return {{"p^{n+1} (x frame)"}, {"p^{n+1} (y frame)"}};
      case Kernel::TransposeZetaY2X:
        return {{"zeta^{n+1} (y frame)"}, {"zeta^{n+1} (x frame)"}};
      case Kernel::TransposeQY2X:
        return {{"q^{n+3/2} (y frame)"}, {"q^{n+3/2} (x frame)"}};
      case Kernel::SweepX:
        return {{"zeta^n", "bed", "p^n", "q^{n-1/2}", "q^{n+1/2}"}, {"zeta^{n+1/2}", "p^{n+1}"}};
      case Kernel::SweepY:
        return {{"zeta^{n+1/2}", "bed", "q^{n+1/2}", "p^n", "p^{n+1}"}, {"zeta^{n+1}", "q^{n+3/2}"}};
    }
    return {};
  }

  double array_bytes() const { return static_cast<double>(n) * ny * static_cast<double>(element); }

  template <class T>
  void launch_kernel(Kernel k) {
    const LaunchGeometry g = geometry(k);
    const dim3 grid(g.grid[0], g.grid[1], g.grid[2]), block(g.block[0], g.block[1], g.block[2]);
    const PhysicalParameters& ph = config.physics;
    switch (k) {
      case Kernel::BuildX:
      case Kernel::BuildY: {
        const bool x = k == Kernel::BuildX;
        const SweepView<T> view =
            x ? SweepView<T>{zeta_x.as<T>(), bed_x.as<T>(), p_x.as<T>(), q_x_old.as<T>(), q_x_new.as<T>(), along_stride(),
                             line_stride()}
              : SweepView<T>{zeta_y.as<T>(), bed_y.as<T>(), q_y.as<T>(), p_y_current.as<T>(), p_y_next.as<T>(),
                             along_stride(), line_stride()};
        const SweepConstants<T> constants = sweep_constants<T>(ph, x ? SweepDirection::X : SweepDirection::Y);
        if (along_major)
          gpu::build_kernel<T, true><<<grid, block, 0, stream>>>(view, n, constants, coefficients<T>());
        else
          gpu::build_kernel<T, false><<<grid, block, 0, stream>>>(view, n, constants, coefficients<T>());
        gpu::check_launch(x ? "build-x" : "build-y");
        break;
      }
      case Kernel::SolveX:
      case Kernel::SolveY: {
        const bool x = k == Kernel::SolveX;
        const SweepConstants<T> constants = sweep_constants<T>(ph, x ? SweepDirection::X : SweepDirection::Y);
        T* zeta = x ? zeta_x.as<T>() : zeta_y.as<T>();
        T* flux = x ? p_x.as<T>() : q_y.as<T>();
        if (config.variant == Variant::ThreadPerLine)
          gpu::solve_thomas_kernel<T><<<grid, block, g.dynamic_shared_bytes, stream>>>(
              coefficients<T>(), scratch.as<T>(), zeta, flux, n, thomas_lanes, constants.mass_diagonal);
        else if (config.variant == Variant::Partitioned && config.partition_cells == 8)
          gpu::solve_partitioned_kernel<T, 8><<<grid, block, g.dynamic_shared_bytes, stream>>>(
              coefficients<T>(), zeta, flux, n, partition_lanes, constants.mass_diagonal);
        else if (config.variant == Variant::Partitioned)
          gpu::solve_partitioned_kernel<T, 16><<<grid, block, g.dynamic_shared_bytes, stream>>>(
              coefficients<T>(), zeta, flux, n, partition_lanes, constants.mass_diagonal);
        else if (config.block_solver == BlockSolver::Pcr)
          gpu::solve_pcr_kernel<T><<<grid, block, g.dynamic_shared_bytes, stream>>>(coefficients<T>(), zeta, flux, n,
                                                                                   constants.mass_diagonal);
        else
          gpu::solve_cr_pcr_kernel<T><<<grid, block, g.dynamic_shared_bytes, stream>>>(
              coefficients<T>(), zeta, flux, n, constants.mass_diagonal, constants.inv_mass_diagonal);
        gpu::check_launch(x ? "solve-x" : "solve-y");
        break;
      }
      case Kernel::TransposeZetaX2Y:
        gpu::transpose_kernel<T><<<grid, block, 0, stream>>>((fused() ? zeta_x_out : zeta_x).as<T>(), zeta_y.as<T>(), n, ny);
        gpu::check_launch("transpose-zeta-x2y");
        break;
      case Kernel::TransposePX2Y:
        gpu::transpose_kernel<T><<<grid, block, 0, stream>>>((fused() ? p_x_out : p_x).as<T>(), p_y_next.as<T>(), n, ny);
        gpu::check_launch("transpose-p-x2y");
        break;
      case Kernel::TransposeZetaY2X:
        gpu::transpose_kernel<T><<<grid, block, 0, stream>>>((fused() ? zeta_y_out : zeta_y).as<T>(), zeta_x.as<T>(), ny, n);
        gpu::check_launch("transpose-zeta-y2x");
        break;
      case Kernel::TransposeQY2X:
        gpu::transpose_kernel<T><<<grid, block, 0, stream>>>((fused() ? q_y_out : q_y).as<T>(), q_x_old.as<T>(), ny, n);
        gpu::check_launch("transpose-q-y2x");
        break;
      case Kernel::SweepY:
        if (cluster_y()) {
          // The y-sweep on the x frame: reads zeta^{n+1/2} (zeta_x_out), bed, q^{n+1/2} (q_x_new), p^n (p_x),
          // p^{n+1} (p_x_out); writes zeta^{n+1} over zeta^n (zeta_x) and q^{n+3/2} over q^{n-1/2} (q_x_old),
          // which only the x-sweep before it read; finish_step() rotates them as for fused.
          const SweepView<T> view{zeta_x_out.as<T>(), bed_x.as<T>(), q_x_new.as<T>(), p_x.as<T>(), p_x_out.as<T>(), n, 1};
          gpu::launch_cluster_sweep_y<T>(grid, block, g.dynamic_shared_bytes, stream, cluster_columns_y, view,
                                         sweep_constants<T>(config.physics, SweepDirection::Y), zeta_x.as<T>(),
                                         q_x_old.as<T>(), ny, n);
          break;
        }
        [[fallthrough]];
      case Kernel::SweepX: {
        const bool x = k == Kernel::SweepX;
        // Both frames line-major (fused.hpp): x: ny rows of n cells; y: n columns of ny cells.
        const SweepView<T> view = x ? SweepView<T>{zeta_x.as<T>(), bed_x.as<T>(), p_x.as<T>(), q_x_old.as<T>(),
                                                   q_x_new.as<T>(), 1, n}
                                    : SweepView<T>{zeta_y.as<T>(), bed_y.as<T>(), q_y.as<T>(), p_y_current.as<T>(),
                                                   p_y_next.as<T>(), 1, ny};
        const SweepConstants<T> constants = sweep_constants<T>(ph, x ? SweepDirection::X : SweepDirection::Y);
        T* zeta_out = x ? zeta_x_out.as<T>() : zeta_y_out.as<T>();
        T* flux_out = x ? p_x_out.as<T>() : q_y_out.as<T>();
        const int along = x ? n : ny, lines = x ? ny : n, lanes = x ? fused_lanes_x : fused_lanes_y;
        if (x && cluster_y()) {
          gpu::launch_fused_cluster_sweep_x<T>(grid, block, g.dynamic_shared_bytes, stream, view, constants, zeta_out,
                                               flux_out, along, lines, lanes);
          break;
        }
        with_fused_cells(config.partition_cells, [&](auto cells) {
          gpu::fused_sweep_kernel<T, decltype(cells)::value><<<grid, block, g.dynamic_shared_bytes, stream>>>(
              view, constants, zeta_out, flux_out, along, lines, lanes);
        });
        gpu::check_launch(x ? "sweep-x" : "sweep-y");
        break;
      }
    }
  }

  void launch_kernel(Kernel k) {
    if (config.precision == Precision::Double)
      launch_kernel<double>(k);
    else
      launch_kernel<float>(k);
  }

  // Host-side frame conversion: state index j + k * n <-> frame index.
  // Index of state cell (j, k) in a frame: x frame along j (n cells, ny lines), y frame along k
  // (ny cells, n lines); line-major frames may be non-square (fused), along-major ones are square.
  std::size_t frame_index(int j, int k, bool x_frame) const {
    const std::size_t i = static_cast<std::size_t>(x_frame ? j : k), l = static_cast<std::size_t>(x_frame ? k : j);
    const std::size_t cells_per_line = static_cast<std::size_t>(x_frame ? n : ny);
    return along_major ? i * static_cast<std::size_t>(n) + l : i + l * cells_per_line;
  }

  template <class T>
  std::vector<T> to_frame(const std::vector<double>& v, bool x_frame) const {
    std::vector<T> out(v.size());
    for (int k = 0; k < ny; ++k)
      for (int j = 0; j < n; ++j)
        out[frame_index(j, k, x_frame)] = static_cast<T>(v[static_cast<std::size_t>(j) + static_cast<std::size_t>(k) * n]);
    return out;
  }

  template <class T>
  std::vector<double> from_x_frame(const std::vector<T>& v) const {
    std::vector<double> out(v.size());
    for (int k = 0; k < ny; ++k)
      for (int j = 0; j < n; ++j)
        out[static_cast<std::size_t>(j) + static_cast<std::size_t>(k) * n] = static_cast<double>(v[frame_index(j, k, true)]);
    return out;
  }

  template <class T>
  void put(const gpu::DeviceBuffer& b, const std::vector<double>& v, bool x_frame) {
    const std::vector<T> host = to_frame<T>(v, x_frame);
    gpu::check(cudaMemcpyAsync(b.as<T>(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice, stream),
               "upload");
    gpu::check(cudaStreamSynchronize(stream), "upload");
  }

  template <class T>
  std::vector<double> get(const gpu::DeviceBuffer& b) const {
    std::vector<T> host(static_cast<std::size_t>(n) * ny);
    gpu::check(cudaMemcpyAsync(host.data(), b.as<T>(), host.size() * sizeof(T), cudaMemcpyDeviceToHost, stream),
               "download");
    gpu::check(cudaStreamSynchronize(stream), "download");
    return from_x_frame(host);
  }

  template <class T>
  void upload(const State<double>& s) {
    put<T>(zeta_x, s.zeta, true);
    put<T>(p_x, s.p, true);
    put<T>(q_x_old, s.q_old, true);
    put<T>(q_x_new, s.q_new, true);
    put<T>(bed_x, s.bed, true);
    if (cluster_y()) return;  // no y frame
    put<T>(zeta_y, s.zeta, false);
    put<T>(q_y, s.q_new, false);
    put<T>(p_y_current, s.p, false);
    put<T>(bed_y, s.bed, false);
  }

  template <class T>
  State<double> download() const {
    State<double> s;
    s.nx = n;
    s.ny = ny;
    s.zeta = get<T>(zeta_x);
    s.bed = get<T>(bed_x);
    s.p = get<T>(p_x);
    s.q_old = get<T>(q_x_old);
    s.q_new = get<T>(q_x_new);
    return s;
  }
};

GpuSolver::GpuSolver(const SolverConfig& config) : impl_(std::make_unique<Impl>()) {
  if (const std::string why = validate(config); !why.empty()) throw std::invalid_argument(why);
  support::cuda::require_gpu();
  Impl& m = *impl_;
  m.config = config;
  m.n = config.n;
  m.ny = config.rows();
  m.element = config.precision == Precision::Double ? sizeof(double) : sizeof(float);
  // thread-per-line and partitioned: both sweep frames along-major.
  m.along_major = config.variant != Variant::BlockPerLine && !m.fused();
  if (config.variant == Variant::Partitioned) m.partition_lanes = partitioned_lanes(m.n, config.partition_cells);
  if (m.fused()) {
    int device_index = 0, optin = 0;
    gpu::check(cudaGetDevice(&device_index), "cudaGetDevice");
    gpu::check(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device_index),
               "cudaDeviceGetAttribute");
    m.max_shared_bytes = static_cast<std::size_t>(optin);
    int sms = 0;
    gpu::check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device_index), "cudaDeviceGetAttribute");
    m.fused_lanes_x = fused_lanes(m.n, config.partition_cells, m.ny, m.element, m.max_shared_bytes, 2 * sms);
    if (!m.cluster_y())
      m.fused_lanes_y = fused_lanes(m.ny, config.partition_cells, m.n, m.element, m.max_shared_bytes, 2 * sms);
    if (m.fused_lanes_x == 0 || m.fused_lanes_y == 0)
      throw std::invalid_argument(std::string(to_string(config.variant)) +
                                  ": a line does not fit the shared memory of one block on this GPU (" +
                                  std::to_string(optin / 1024) + " KiB)");
    if (m.cluster_y())  // validate() assumed sm_90's 227 KiB; this GPU's limit may be lower
      if (const std::string why = cluster_sweep_refusal(m.ny, config.partition_cells, m.element, m.max_shared_bytes);
          !why.empty())
        throw std::invalid_argument(why + " on this GPU");
  }
  int device = 0, sms = 0;
  gpu::check(cudaGetDevice(&device), "cudaGetDevice");
  gpu::check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
  // Narrow blocks until every SM gets at least one block of lines (thread-per-line has n threads).
  while (m.thomas_lanes > 8 && m.n / m.thomas_lanes < sms) m.thomas_lanes /= 2;
  gpu::check(cudaStreamCreateWithFlags(&m.stream, cudaStreamNonBlocking), "cudaStreamCreate");
  const std::size_t bytes = static_cast<std::size_t>(m.n) * m.ny * m.element;
  for (gpu::DeviceBuffer* b : {&m.zeta_x, &m.p_x, &m.q_x_old, &m.q_x_new, &m.bed_x}) *b = gpu::DeviceBuffer(bytes);
  if (!m.cluster_y())
    for (gpu::DeviceBuffer* b : {&m.zeta_y, &m.q_y, &m.p_y_current, &m.p_y_next, &m.bed_y}) *b = gpu::DeviceBuffer(bytes);
  if (m.fused()) {
    for (gpu::DeviceBuffer* b : {&m.zeta_x_out, &m.p_x_out}) *b = gpu::DeviceBuffer(bytes);
    if (!m.cluster_y())
      for (gpu::DeviceBuffer* b : {&m.zeta_y_out, &m.q_y_out}) *b = gpu::DeviceBuffer(bytes);
  } else {
    m.coefficient_storage = gpu::DeviceBuffer(5 * bytes);
  }
  if (config.variant == Variant::ThreadPerLine) m.scratch = gpu::DeviceBuffer(2 * bytes);
  // Kernels above the default 48 KiB of dynamic shared memory must opt in.
  // (Fused: sweep-x and sweep-y are one function; it gets the larger of their needs. fused-cluster:
  // sweep-y is a function of its own.)
  const Kernel solve = m.fused() ? Kernel::SweepX : Kernel::SolveX;
  std::size_t shared_bytes = m.geometry(solve).dynamic_shared_bytes;
  if (config.variant == Variant::Fused)
    shared_bytes = std::max(shared_bytes, m.geometry(Kernel::SweepY).dynamic_shared_bytes);
  const auto allow_shared = [&](Kernel k, std::size_t kernel_bytes) {
    if (kernel_bytes > 48 * 1024)
      gpu::check(cudaFuncSetAttribute(m.function(k), cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      static_cast<int>(kernel_bytes)),
                 "cudaFuncSetAttribute(MaxDynamicSharedMemorySize)");
  };
  allow_shared(solve, shared_bytes);
  if (m.cluster_y()) {
    // 16 columns where cluster_columns says so and this GPU can run such a cluster, else 8.
    const auto prepare = [&] {
      const LaunchGeometry g = m.geometry(Kernel::SweepY);
      const dim3 grid(g.grid[0], g.grid[1], g.grid[2]), block(g.block[0], g.block[1], g.block[2]);
      return m.config.precision == Precision::Double
                 ? gpu::prepare_cluster_sweep_y<double>(m.cluster_columns_y, grid, block, g.dynamic_shared_bytes)
                 : gpu::prepare_cluster_sweep_y<float>(m.cluster_columns_y, grid, block, g.dynamic_shared_bytes);
    };
    m.cluster_columns_y = cluster_columns(m.ny, config.partition_cells);
    if (prepare() == 0 && m.cluster_columns_y != kClusterColumnsNarrow) {
      m.cluster_columns_y = kClusterColumnsNarrow;
      if (prepare() == 0)
        throw std::invalid_argument("fused-cluster: this GPU cannot run a cluster of " +
                                    std::to_string(kClusterColumnsNarrow) + " y-sweep blocks of " +
                                    std::to_string(m.ny) + " rows; variant fused takes them");
    }
  }
  upload(make_hump_state(m.n, m.ny));
}

GpuSolver::~GpuSolver() = default;
GpuSolver::GpuSolver(GpuSolver&&) noexcept = default;
GpuSolver& GpuSolver::operator=(GpuSolver&&) noexcept = default;

const SolverConfig& GpuSolver::config() const { return impl_->config; }

void GpuSolver::upload(const State<double>& state) {
  check_state(state);
  if (state.nx != impl_->n || state.ny != impl_->ny)
    throw std::invalid_argument("upload: the state must be " + std::to_string(impl_->n) + " x " + std::to_string(impl_->ny));
  if (impl_->config.precision == Precision::Double)
    impl_->upload<double>(state);
  else
    impl_->upload<float>(state);
}

State<double> GpuSolver::download() const {
  return impl_->config.precision == Precision::Double ? impl_->download<double>() : impl_->download<float>();
}

const std::vector<std::string>& GpuSolver::kernel_sequence() const { return step_kernel_names(impl_->config.variant); }

void GpuSolver::launch(std::string_view kernel) {
  for (Kernel k : kernels_of(impl_->config.variant))
    if (kernel_name(k) == kernel) {
      impl_->launch_kernel(k);
      return;
    }
  std::string list;
  for (const std::string& k : kernel_sequence()) list += (list.empty() ? "" : ", ") + k;
  throw std::invalid_argument("unknown ADI kernel '" + std::string(kernel) + "' (a " +
                              std::string(to_string(impl_->config.variant)) + " step launches " + list + ")");
}

void GpuSolver::finish_step() {
  Impl& m = *impl_;
  if (m.fused()) {
    std::swap(m.p_x, m.p_x_out);  // p^{n+1} (x frame) becomes p^n
    std::swap(m.q_y, m.q_y_out);  // q^{n+3/2} (y frame) becomes the y-sweep's along flux
  }
  std::swap(m.p_y_current, m.p_y_next);  // p^{n+1} becomes the current p of the y frame
  std::swap(m.q_x_old, m.q_x_new);        // q^{n+1/2} becomes old, q^{n+3/2} new
  m.steps_parity ^= 1;                    // every swap above has period two
}

void GpuSolver::step() {
  for (Kernel k : kernels_of(impl_->config.variant)) impl_->launch_kernel(k);
  finish_step();
}

void GpuSolver::capture_run_graphs() {
  Impl& m = *impl_;
  if (m.two_steps[0] && m.two_steps[1]) return;  // captured once; run() calls this every time
  for (int flip = 0; flip < 2; ++flip) {
    cudaGraphExec_t& graph = m.two_steps[m.steps_parity];
    if (!graph) {
      // Capturing records the launches without running them; the two finish_step() calls bring the
      // buffers (and the parity) back to where they were, as replaying the graph will.
      cudaGraph_t captured = nullptr;
      gpu::check(cudaStreamSynchronize(m.stream), "cudaStreamSynchronize");  // nothing pending into the capture
      gpu::check(cudaStreamBeginCapture(m.stream, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
      try {
        step();
        step();
      } catch (...) {
        cudaStreamEndCapture(m.stream, &captured);
        if (captured) cudaGraphDestroy(captured);
        throw;
      }
      gpu::check(cudaStreamEndCapture(m.stream, &captured), "cudaStreamEndCapture");
      const cudaError_t instantiated = cudaGraphInstantiate(&graph, captured, 0);
      cudaGraphDestroy(captured);
      gpu::check(instantiated, "cudaGraphInstantiate");
    }
    finish_step();  // only swaps buffers on the host: twice over the loop, so nothing changes
  }
}

void GpuSolver::run(int steps) {
  if (steps < 0) throw std::invalid_argument("run: steps must be >= 0, not " + std::to_string(steps));
  if (steps >= 2) capture_run_graphs();
  for (; steps >= 2; steps -= 2)
    gpu::check(cudaGraphLaunch(impl_->two_steps[impl_->steps_parity], impl_->stream), "cudaGraphLaunch");
  if (steps == 1) step();
}

void GpuSolver::synchronize() const { gpu::check(cudaStreamSynchronize(impl_->stream), "cudaStreamSynchronize"); }

std::vector<KernelInfo> GpuSolver::kernels() const {
  std::vector<KernelInfo> out;
  for (Kernel kernel : kernels_of(impl_->config.variant)) {
    KernelInfo info{kernel_name(kernel), impl_->function(kernel), impl_->geometry(kernel), impl_->traffic(kernel), 0.0};
    info.effective_bytes = static_cast<double>(info.traffic.reads.size() + info.traffic.writes.size()) * impl_->array_bytes();
    out.push_back(std::move(info));
  }
  return out;
}

double GpuSolver::step_effective_bytes() const {
  double sum = 0;
  for (const auto& k : kernels()) sum += k.effective_bytes;
  return sum;
}

double GpuSolver::step_state_bytes() const { return 8.0 * impl_->array_bytes(); }

void* GpuSolver::stream() const { return impl_->stream; }

}  // namespace warpmodel::adi

namespace warpmodel::adi {
namespace {

struct Stats {
  double mean = 0, median = 0, min = 0;
};

Stats stats_of(std::vector<double> v) {
  Stats s;
  if (v.empty()) return s;
  double sum = 0;
  for (double x : v) sum += x;
  s.mean = sum / static_cast<double>(v.size());
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  s.median = v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
  s.min = v.front();
  return s;
}

}  // namespace

TimedRun run_timed(GpuSolver& solver, int steps) {
  if (steps < 1) throw std::invalid_argument("run_timed: steps must be >= 1");
  const auto stream = static_cast<cudaStream_t>(solver.stream());
  const auto& names = solver.kernel_sequence();
  // events[k] is recorded before kernel k; events[size] after the last one.
  std::vector<cudaEvent_t> events(names.size() + 1);
  for (auto& e : events) gpu::check(cudaEventCreate(&e), "cudaEventCreate");
  std::vector<std::vector<double>> seconds(names.size() + 1);
  try {
    for (int s = 0; s < steps; ++s) {
      for (std::size_t k = 0; k < names.size(); ++k) {
        gpu::check(cudaEventRecord(events[k], stream), "cudaEventRecord");
        solver.launch(names[k]);
      }
      gpu::check(cudaEventRecord(events[names.size()], stream), "cudaEventRecord");
      solver.finish_step();
      gpu::check(cudaEventSynchronize(events[names.size()]), "step");
      for (std::size_t k = 0; k <= names.size(); ++k) {
        float ms = 0;
        const cudaEvent_t from = k < names.size() ? events[k] : events[0];
        const cudaEvent_t to = k < names.size() ? events[k + 1] : events[names.size()];
        gpu::check(cudaEventElapsedTime(&ms, from, to), "cudaEventElapsedTime");
        seconds[k].push_back(ms * 1e-3);
      }
    }
  } catch (...) {
    for (auto& e : events) cudaEventDestroy(e);
    throw;
  }
  for (auto& e : events) cudaEventDestroy(e);

  TimedRun run;
  cudaDeviceProp prop{};
  int device = 0;
  gpu::check(cudaGetDevice(&device), "cudaGetDevice");
  gpu::check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  run.gpu_name = prop.name;
  run.steps = steps;
  run.state_bytes = solver.step_state_bytes();
  const std::vector<KernelInfo> infos = solver.kernels();
  for (std::size_t k = 0; k <= names.size(); ++k) {
    const Stats st = stats_of(seconds[k]);
    KernelTiming t;
    t.name = k < names.size() ? names[k] : "step";
    t.mean_seconds = st.mean;
    t.median_seconds = st.median;
    t.min_seconds = st.min;
    t.effective_bytes = k < names.size() ? infos[k].effective_bytes : solver.step_effective_bytes();
    run.kernels.push_back(std::move(t));
  }
  return run;
}

double run_graph_timed(GpuSolver& solver, int steps) {
  if (steps < 1) throw std::invalid_argument("run_graph_timed: steps must be >= 1");
  const auto stream = static_cast<cudaStream_t>(solver.stream());
  solver.capture_run_graphs();  // outside the timed span
  support::cuda::EventPair events;
  events.start(stream);
  solver.run(steps);
  events.stop(stream);
  return events.elapsed_seconds() / steps;
}

}  // namespace warpmodel::adi
