// The block-per-line / block-per-system kernel bodies (block_algorithms.hpp) run on the CPU: one
// std::thread per GPU thread, a std::barrier for __syncthreads(). Checks their indexing against the
// Thomas algorithm without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <barrier>
#include <cmath>
#include <functional>
#include <random>
#include <thread>
#include <vector>

#include "warpmodel/adi/block_algorithms.hpp"
#include "warpmodel/adi/coefficients.hpp"
#include "warpmodel/adi/cluster_sweep.hpp"
#include "warpmodel/adi/fused.hpp"
#include "warpmodel/adi/partitioned.hpp"
#include "warpmodel/adi/reference.hpp"
#include "warpmodel/adi/sweep_view.hpp"

namespace warpmodel::adi {
namespace {

struct HostBlock {
  std::barrier<>* barrier;
  std::atomic<int>* votes;  // sync_or: threads whose p held in the current call
  void sync() const { barrier->arrive_and_wait(); }
  // __syncthreads_or: every thread counts its vote, reads the sum after the barrier, and takes its
  // vote back after a second one (a thread's next vote comes after that barrier, so no call sees
  // another's).
  bool sync_or(bool p) const {
    if (p) votes->fetch_add(1);
    barrier->arrive_and_wait();
    const bool any = votes->load() > 0;
    barrier->arrive_and_wait();
    if (p) votes->fetch_sub(1);
    return any;
  }
  bool all_in_warp(bool p) const { return p; }  // a host thread is a warp of one
};

// Runs body(block, t) on `threads` threads that share one barrier.
void run_block(int threads, const std::function<void(const HostBlock&, int)>& body) {
  std::barrier<> barrier(threads);
  std::atomic<int> votes{0};
  const HostBlock block{&barrier, &votes};
  std::vector<std::jthread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back([&, t] { body(block, t); });
}

struct Line {
  std::vector<double> dma, amo, bmo, cmo, dmo;
  double mass_diagonal = 0;
};

Line hump_line(int n, int step_count, double line_fraction = 0.55, double depth = HumpProblem{}.depth) {
  HumpProblem problem;
  problem.depth = depth;
  State<double> s = make_hump_state(n, n, problem);
  reference_run(s, PhysicalParameters{}, step_count);  // a developed flow, not the state at rest
  const auto k = sweep_constants<double>(PhysicalParameters{}, SweepDirection::X);
  const SweepView<double> v{s.zeta.data(), s.bed.data(), s.p.data(), s.q_old.data(), s.q_new.data(), 1, n};
  Line line;
  line.mass_diagonal = k.mass_diagonal;
  const int l = static_cast<int>(line_fraction * n);  // 0.55: through the hump
  for (int i = 0; i < n; ++i) {
    const CellRows<double> r = build_cell(v, i, l, n, n, k);
    line.dma.push_back(r.dma);
    line.amo.push_back(r.amo);
    line.bmo.push_back(r.bmo);
    line.cmo.push_back(r.cmo);
    line.dmo.push_back(r.dmo);
  }
  return line;
}

void thomas_reference(const Line& line, std::vector<double>& zeta, std::vector<double>& p) {
  const int n = static_cast<int>(line.dma.size());
  std::vector<CellRows<double>> rows;
  for (int i = 0; i < n; ++i) rows.push_back({line.dma[i], line.amo[i], line.bmo[i], line.cmo[i], line.dmo[i]});
  std::vector<double> cp(n), dp(n);
  zeta.assign(n, 0.0);
  p.assign(n, 0.0);
  solve_line_folded_thomas(n, rows, line.mass_diagonal, cp.data(), dp.data(), zeta.data(), p.data());
}

double max_abs(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m = std::max(m, std::abs(x));
  return m;
}

class AdiLine : public ::testing::TestWithParam<int> {};

TEST_P(AdiLine, PcrAndCrPcrAgreeWithThomas) {
  const int n = GetParam();
  const Line line = hump_line(n, 5);
  std::vector<double> zeta_ref, p_ref;
  thomas_reference(line, zeta_ref, p_ref);
  ASSERT_GT(max_abs(p_ref), 0.0);  // a moving line, not the state at rest
  const LineCoefficients<double> coef{line.dma.data(), line.amo.data(), line.bmo.data(), line.cmo.data(),
                                      line.dmo.data()};
  for (const bool cr : {false, true}) {
    std::vector<double> shared(static_cast<std::size_t>(cr ? adi_cr_pcr_shared_elements(n) : adi_pcr_shared_elements(n)),
                               std::nan(""));
    std::vector<double> zeta(n, std::nan("")), p(n, 0.0);
    run_block(n, [&](const HostBlock& block, int t) {
      if (cr) {
        adi_line_cr_pcr(block, t, n, coef, line.mass_diagonal, 1.0 / line.mass_diagonal, shared.data(), zeta.data(),
                        p.data());
      } else {
        adi_line_pcr(block, t, n, coef, line.mass_diagonal, shared.data(), zeta.data(), p.data());
      }
    });
    const double zscale = max_abs(zeta_ref), pscale = max_abs(p_ref);
    for (int i = 0; i < n; ++i) {
      ASSERT_NEAR(zeta[i], zeta_ref[i], 1e-12 * zscale) << (cr ? "cr-pcr" : "pcr") << " zeta " << i;
      if (i < n - 1) {
        ASSERT_NEAR(p[i], p_ref[i], 1e-12 * pscale) << (cr ? "cr-pcr" : "pcr") << " p " << i;
      }
    }
    EXPECT_EQ(p[n - 1], 0.0);  // the wall face is not written
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, AdiLine, ::testing::Values(2, 3, 32, 64, 96));

// The partitioned solve (partitioned.hpp) on two lines side by side in the along-major layout
// (value (i, l) at i * 2 + l), one std::thread per (segment, line) as the GPU block runs them.
template <int kCells>
void check_partitioned(int n) {
  constexpr int kLanes = 2;
  const Line lines[kLanes] = {hump_line(n, 5, 0.55), hump_line(n, 5, 0.3)};
  std::vector<double> dma(n * kLanes), amo(n * kLanes), bmo(n * kLanes), cmo(n * kLanes), dmo(n * kLanes);
  for (int l = 0; l < kLanes; ++l)
    for (int i = 0; i < n; ++i) {
      dma[i * kLanes + l] = lines[l].dma[i];
      amo[i * kLanes + l] = lines[l].amo[i];
      bmo[i * kLanes + l] = lines[l].bmo[i];
      cmo[i * kLanes + l] = lines[l].cmo[i];
      dmo[i * kLanes + l] = lines[l].dmo[i];
    }
  const StridedLines<double> coef{dma.data(), amo.data(), bmo.data(), cmo.data(), dmo.data(), kLanes};
  const int segments = n / kCells;
  std::vector<double> shared(static_cast<std::size_t>(partitioned_shared_elements(segments, kLanes)), std::nan(""));
  std::vector<double> zeta(n * kLanes, std::nan("")), p(n * kLanes, 0.0);
  run_block(segments * kLanes, [&](const HostBlock& block, int t) {
    adi_lines_partitioned<double, kCells>(block, t / kLanes, t % kLanes, kLanes, t % kLanes, n, coef,
                                          lines[0].mass_diagonal, shared.data(), zeta.data(), p.data());
  });
  for (int l = 0; l < kLanes; ++l) {
    std::vector<double> zeta_ref, p_ref;
    thomas_reference(lines[l], zeta_ref, p_ref);
    ASSERT_GT(max_abs(p_ref), 0.0);
    const double zscale = max_abs(zeta_ref), pscale = max_abs(p_ref);
    for (int i = 0; i < n; ++i) {
      ASSERT_NEAR(zeta[i * kLanes + l], zeta_ref[i], 1e-12 * zscale) << "zeta " << i << " line " << l;
      if (i < n - 1) {
        ASSERT_NEAR(p[i * kLanes + l], p_ref[i], 1e-12 * pscale) << "p " << i << " line " << l;
      }
    }
    EXPECT_EQ(p[(n - 1) * kLanes + l], 0.0);  // the wall face is not written
  }
}

class Partitioned : public ::testing::TestWithParam<int> {};

TEST_P(Partitioned, AgreesWithThomas) {
  const int n = GetParam();
  check_partitioned<8>(n);
  check_partitioned<16>(n);
}

// 32 and 96: segments not a power of two for 16-cell segments (2, 6); 256: 32 and 16 segments.
INSTANTIATE_TEST_SUITE_P(Sizes, Partitioned, ::testing::Values(32, 64, 96, 256));

TEST(Partitioned, BlockShape) {
  EXPECT_EQ(partitioned_lanes(2048, 8), 2);   // 256 segments x 2 lines = 512 threads
  EXPECT_EQ(partitioned_lanes(2048, 16), 2);  // 128 x 2 = 256
  EXPECT_EQ(partitioned_lanes(64, 8), 32);    // at most 32 lines per block
  EXPECT_EQ(partitioned_lanes(96, 16), 32);
  EXPECT_EQ(partitioned_lanes(4096, 8), 1);
  EXPECT_EQ(partitioned_lanes(8192, 8), 0);   // 1024 segments: above the 512-thread block
}

// Variant fused (fused.hpp) on the CPU: every block of both sweeps of a step run as the GPU runs
// them (one std::thread per GPU thread), the y-sweep on transposed arrays as the solver does,
// against reference_step (Thomas on each line). Non-square grids too.
template <int kCells, PcrLevels kLevels = PcrLevels::All>
void fused_sweep_on_cpu(const SweepView<double>& view, int n_along, int lines, const SweepConstants<double>& k,
                        std::vector<double>& zeta_out, std::vector<double>& flux_out) {
  const int lanes = fused_lanes(n_along, kCells, lines, sizeof(double), kFusedMaxSharedBytes);
  const int segments = n_along / kCells;
  ASSERT_GT(lanes, 0);
  ASSERT_EQ(lines % lanes, 0);
  for (int b = 0; b < lines / lanes; ++b) {
    std::vector<double> shared(static_cast<std::size_t>(fused_shared_elements(lanes, n_along, kCells)), std::nan(""));
    run_block(segments * lanes, [&](const HostBlock& block, int t) {
      adi_sweep_fused<double, kCells, kLevels>(block, b, t, lanes, n_along, lines, view, k, shared.data(),
                                               zeta_out.data(), flux_out.data());
    });
  }
}

// rows x cols (row-major) -> cols x rows.
std::vector<double> transposed(const std::vector<double>& v, int cols, int rows) {
  std::vector<double> out(v.size());
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) out[static_cast<std::size_t>(c) * rows + r] = v[static_cast<std::size_t>(r) * cols + c];
  return out;
}

template <int kCells, PcrLevels kLevels = PcrLevels::All>
void fused_step_on_cpu(State<double>& s, const PhysicalParameters& physics) {
  const int nx = s.nx, ny = s.ny;
  std::vector<double> zeta_half(s.cells(), std::nan("")), p_next(s.cells(), std::nan(""));
  const SweepView<double> x_view{s.zeta.data(), s.bed.data(), s.p.data(), s.q_old.data(), s.q_new.data(), 1, nx};
  fused_sweep_on_cpu<kCells, kLevels>(x_view, nx, ny, sweep_constants<double>(physics, SweepDirection::X), zeta_half,
                                      p_next);
  // The y frame: nx lines (columns) of ny cells.
  const std::vector<double> zeta_y = transposed(zeta_half, nx, ny), bed_y = transposed(s.bed, nx, ny),
                            q_y = transposed(s.q_new, nx, ny), p_y = transposed(s.p, nx, ny),
                            p_next_y = transposed(p_next, nx, ny);
  std::vector<double> zeta_next_y(s.cells(), std::nan("")), q_next_y(s.cells(), std::nan(""));
  const SweepView<double> y_view{zeta_y.data(), bed_y.data(), q_y.data(), p_y.data(), p_next_y.data(), 1, ny};
  fused_sweep_on_cpu<kCells, kLevels>(y_view, ny, nx, sweep_constants<double>(physics, SweepDirection::Y), zeta_next_y,
                                      q_next_y);
  s.zeta = transposed(zeta_next_y, ny, nx);
  s.p = std::move(p_next);
  s.q_old = std::move(s.q_new);
  s.q_new = transposed(q_next_y, ny, nx);
}

template <int kCells, PcrLevels kLevels = PcrLevels::All>
void check_fused(int nx, int ny) {
  constexpr int kSteps = 3;
  State<double> ref = make_hump_state(nx, ny);
  reference_run(ref, PhysicalParameters{}, 5);  // a developed flow, not the state at rest
  State<double> fused = ref;
  for (int step = 0; step < kSteps; ++step) {
    reference_step(ref, PhysicalParameters{});
    fused_step_on_cpu<kCells, kLevels>(fused, PhysicalParameters{});
  }
  const std::pair<const std::vector<double>*, const std::vector<double>*> fields[] = {
      {&fused.zeta, &ref.zeta}, {&fused.p, &ref.p}, {&fused.q_old, &ref.q_old}, {&fused.q_new, &ref.q_new}};
  const char* names[] = {"zeta", "p", "q_old", "q_new"};
  for (int f = 0; f < 4; ++f) {
    const double scale = max_abs(*fields[f].second);
    ASSERT_GT(scale, 0.0) << names[f];
    for (std::size_t i = 0; i < fields[f].second->size(); ++i)
      ASSERT_NEAR((*fields[f].first)[i], (*fields[f].second)[i], 1e-12 * scale)
          << names[f] << " cell " << i % nx << ", " << i / nx << " (" << nx << " x " << ny << ", " << kCells
          << " cells per thread)";
  }
}

TEST(Fused, StepAgreesWithReference) {
  check_fused<8>(64, 64);
  check_fused<16>(64, 64);
  check_fused<8>(96, 64);    // non-square, 12 segments (not a power of two) per row
  check_fused<16>(64, 160);  // 10 segments per column
  check_fused<4>(64, 96);    // 16 / 24 segments per line
  // fused-cluster's x-sweep: PCR until the reduced rows decouple (every size above stops early).
  check_fused<8, PcrLevels::UntilDecoupled>(256, 64);
  check_fused<8, PcrLevels::UntilDecoupled>(96, 64);
}

// solve_reduced_system with PCR until the rows decouple (PcrLevels::UntilDecoupled, fused-cluster)
// against all log2 P levels, on the reduced system of a developed hump line of n cells (8-cell
// segments, one block of P = n / 8 threads): the levels it runs, and how far its Z are from the full
// solve's, relative to their largest magnitude.
struct ReducedSolveRun {
  int levels = 0;  // PCR levels run (UntilDecoupled: the sync_or calls that let the block go on)
  double z_difference = 0;
  std::vector<SegmentEnds<double>> ends;
};

template <PcrLevels kLevels>
ReducedSolveRun solve_reduced_on_cpu(const std::vector<ReducedRows<double>>& rows) {
  const int segments = static_cast<int>(rows.size());
  std::vector<double> shared(static_cast<std::size_t>(partitioned_shared_elements(segments, 1)), std::nan(""));
  ReducedSolveRun run;
  run.ends.resize(rows.size());
  std::atomic<int> votes_true{0};
  run_block(segments, [&](const HostBlock& block, int t) {
    struct Counting {  // counts the levels: the sync_or calls that let the block go on
      const HostBlock& inner;
      std::atomic<int>* counted;
      int t;
      void sync() const { inner.sync(); }
      bool sync_or(bool p) const {
        const bool any = inner.sync_or(p);
        if (any && t == 0) counted->fetch_add(1);
        return any;
      }
    } counting{block, &votes_true, t};
    run.ends[t] = solve_reduced_system<double, kLevels>(counting, t, segments, SegmentSlots{0, 1}, segments,
                                                        rows[t], shared.data());
  });
  run.levels = votes_true.load();
  return run;
}

ReducedSolveRun reduced_solve_against_all_levels(int n, double depth) {
  constexpr int kCells = 8;
  const Line line = hump_line(n, 5, 0.55, depth);
  const int segments = n / kCells;
  std::vector<ReducedRows<double>> rows(segments);
  for (int s = 0; s < segments; ++s) {
    auto row = [&](int j) {
      const int i = s * kCells + j;
      return CellRows<double>{line.dma[i], line.amo[i], line.bmo[i], line.cmo[i], line.dmo[i]};
    };
    DownwardRow<double> down = downward_first(row(0));
    UpwardRow<double> up = upward_last(line.dma[s * kCells + kCells - 1], line.mass_diagonal);
    for (int j = 1; j < kCells; ++j) {
      down = downward_next(row(j), down, line.mass_diagonal);
      up = upward_next(row(kCells - 1 - j), up, line.mass_diagonal);
    }
    rows[s] = reduced_rows(up, down, s > 0);
  }
  const std::vector<SegmentEnds<double>> all = solve_reduced_on_cpu<PcrLevels::All>(rows).ends;
  ReducedSolveRun run = solve_reduced_on_cpu<PcrLevels::UntilDecoupled>(rows);
  double z_scale = 0;
  for (const auto& e : all) z_scale = std::max(z_scale, std::abs(e.z));
  for (int s = 0; s < segments; ++s) {
    run.z_difference = std::max(run.z_difference, std::abs(run.ends[s].z - all[s].z) / z_scale);
    run.z_difference = std::max(run.z_difference, std::abs(run.ends[s].z_next - all[s].z_next) / z_scale);
  }
  return run;
}

// The levels partitioned.hpp's comment gives for the hump problem (512 cells, 64 segments: PCR's full
// depth is 6 levels), and the Z within a 2^-50 of the full solve's largest (the bound is 2^-60 of the
// largest Q; the Z rows multiply Q by O(1) factors, and both solves round differently).
TEST(PcrLevels, UntilDecoupledStopsWhereTheRowsDecouple) {
  const struct {
    double depth;
    int levels;
  } cases[] = {{10.0, 3}, {100.0, 5}};
  for (const auto& c : cases) {
    const ReducedSolveRun run = reduced_solve_against_all_levels(512, c.depth);
    EXPECT_EQ(run.levels, c.levels) << "depth " << c.depth;
    EXPECT_LT(run.z_difference, std::ldexp(1.0, -50)) << "depth " << c.depth;
  }
}

// A system that does not decouple before log2 P levels runs them all: 512 cells (64 segments, 6 levels)
// at 1000 m depth (after 5 levels |a| + |c| is still 6e-12), and 64 cells (3 levels) at 100 m.
TEST(PcrLevels, UntilDecoupledRunsEveryLevelWhenItMust) {
  const struct {
    int n;
    double depth;
    int levels;
  } cases[] = {{512, 1000.0, 6}, {64, 100.0, 3}};
  for (const auto& c : cases) {
    const ReducedSolveRun run = reduced_solve_against_all_levels(c.n, c.depth);
    EXPECT_EQ(run.levels, c.levels) << c.n << " cells, depth " << c.depth;
    EXPECT_EQ(run.z_difference, 0.0) << c.n << " cells, depth " << c.depth;  // the same levels, the same arithmetic
  }
}

// The fused build's cell pairs (one set of loads for cells i and i+1) give each cell the rows a
// build of that cell alone gives, to the last bit: at the walls (first and last cells and lines) and
// inside. Both copies of the pair build are taken: the one with the wall tests folded away (interior
// pairs) and the general one; and the general one agrees with the interior one inside.
void expect_same_rows(const CellRows<double>& got, const CellRows<double>& want, int i, int l) {
  EXPECT_EQ(got.dma, want.dma) << i << ", " << l;
  EXPECT_EQ(got.amo, want.amo) << i << ", " << l;
  EXPECT_EQ(got.bmo, want.bmo) << i << ", " << l;
  EXPECT_EQ(got.cmo, want.cmo) << i << ", " << l;
  EXPECT_EQ(got.dmo, want.dmo) << i << ", " << l;
}

TEST(Fused, CellPairsAreBuiltAsSingleCells) {
  const int nx = 64, ny = 32;
  State<double> s = make_hump_state(nx, ny);
  reference_run(s, PhysicalParameters{}, 5);
  const SweepView<double> view{s.zeta.data(), s.bed.data(), s.p.data(), s.q_old.data(), s.q_new.data(), 1, nx};
  const SweepConstants<double> k = sweep_constants<double>(PhysicalParameters{}, SweepDirection::X);
  for (int l : {0, 1, 16, ny - 1})
    for (int i : {0, 2, 30, nx - 4, nx - 2}) {
      CellRows<double> pair[2];
      build_cell_pair(CellWindow<double>::at(view, i, l), i, l, nx, ny, k, cell_pair_is_interior(i, l, nx, ny), pair[0],
                      pair[1]);
      for (int h = 0; h < 2; ++h) expect_same_rows(pair[h], build_cell(view, i + h, l, nx, ny, k), i + h, l);
      if (cell_pair_is_interior(i, l, nx, ny)) {
        CellRows<double> general[2];
        build_cell_pair(CellWindow<double>::at(view, i, l), i, l, nx, ny, k, false, general[0], general[1]);
        for (int h = 0; h < 2; ++h) expect_same_rows(general[h], pair[h], i + h, l);
      }
    }
  // Which pairs are interior: not the first or last pair of a line, not the first or last line.
  EXPECT_TRUE(cell_pair_is_interior(2, 1, nx, ny));
  EXPECT_TRUE(cell_pair_is_interior(nx - 4, ny - 2, nx, ny));
  EXPECT_FALSE(cell_pair_is_interior(0, 16, nx, ny));
  EXPECT_FALSE(cell_pair_is_interior(nx - 2, 16, nx, ny));
  EXPECT_FALSE(cell_pair_is_interior(30, 0, nx, ny));
  EXPECT_FALSE(cell_pair_is_interior(30, ny - 1, nx, ny));
}

// The layout fused.hpp promises: segments of a line side by side (thread t is segment t % P of
// line t / P), at most 256 threads a block unless one line needs more, and the shared memory bound.
TEST(Fused, BlockLayout) {
  EXPECT_EQ(fused_thread(1, 256).segment, 1);
  EXPECT_EQ(fused_thread(300, 256).segment, 44);
  EXPECT_EQ(fused_thread(300, 256).lane, 1);
  EXPECT_EQ(fused_lanes(2048, 8, 2048, sizeof(double), kFusedMaxSharedBytes), 1);  // 256 threads, 72 KiB
  EXPECT_EQ(fused_lanes(4096, 8, 4096, sizeof(double), kFusedMaxSharedBytes), 1);  // 512 threads, 144 KiB
  EXPECT_EQ(fused_lanes(256, 8, 256, sizeof(double), kFusedMaxSharedBytes), 8);    // 8 x 32 threads
  EXPECT_EQ(fused_lanes(64, 8, 96, sizeof(double), kFusedMaxSharedBytes), 32);
  EXPECT_EQ(fused_lanes(8192, 16, 8192, sizeof(double), kFusedMaxSharedBytes), 0);  // 512 segments of 16
  EXPECT_EQ(fused_lanes(4096, 16, 4096, sizeof(double), 100 * 1024), 0);             // shared memory
  EXPECT_EQ(fused_lanes(256, 8, 256, sizeof(double), kFusedMaxSharedBytes, 264), 1);  // every SM gets blocks
  EXPECT_EQ(fused_lanes(1024, 8, 1024, sizeof(double), kFusedMaxSharedBytes, 264), 2);
  // Shared memory holds two 2048-cell double lines an SM (228 KiB, 1 KiB reserved per block), as the
  // registers do (fused_min_blocks, adi_kernels.cuh); the reduced system's two PCR buffers (six values
  // a segment, partitioned.hpp) took the room a third line would have had, which the registers never
  // allowed (three lines at 80 registers were a third slower: adi_kernels.cuh).
  EXPECT_EQ(fused_shared_elements(1, 2048, 8), 4 * 2048 + 6 * 256);
  EXPECT_LE(2 * (fused_shared_elements(1, 2048, 8) * sizeof(double) + 1024), 228u * 1024);
  EXPECT_GT(3 * (fused_shared_elements(1, 2048, 8) * sizeof(double) + 1024), 228u * 1024);
}

// fused_slot keeps each segment's cells together (a permutation within the segment) and serves
// every access of the sweep without bank conflicts: shared memory serves 128 bytes at once (a warp
// of floats, a half warp of doubles), and each group's elements must fall in distinct 4-byte banks.
// Whether T elements at these shared-memory slots are in distinct banks (32 banks of 4 bytes): one
// wavefront of 128 bytes serves them all.
template <class T>
bool in_distinct_banks(std::vector<int> slots) {
  for (int& s : slots) s = (s * static_cast<int>(sizeof(T)) / 4) % 32;
  std::sort(slots.begin(), slots.end());
  return std::adjacent_find(slots.begin(), slots.end()) == slots.end();
}

template <class T, int kCells>
void expect_conflict_free_slots() {
  constexpr int kGroup = 128 / static_cast<int>(sizeof(T));
  const int cells = 4096;
  std::vector<int> seen(cells, 0);
  for (int c = 0; c < cells; ++c) {
    const int slot = fused_slot<T, kCells>(c);
    ASSERT_EQ(slot / kCells, c / kCells) << "cell " << c;
    ++seen[static_cast<std::size_t>(slot)];
  }
  for (int count : seen) ASSERT_EQ(count, 1);
  for (int first = 0; first < cells / kCells; first += kGroup) {
    for (int j = 0; j < kCells; ++j) {  // the solve: thread s reads cell j of segment s
      std::vector<int> slots;
      for (int s = first; s < first + kGroup && s < cells / kCells; ++s) slots.push_back(fused_slot<T, kCells>(s * kCells + j));
      EXPECT_TRUE(in_distinct_banks<T>(slots)) << "solve, segments from " << first << ", cell " << j;
    }
  }
  for (int first = 0; first + 2 * kGroup <= cells; first += 2 * kGroup) {
    for (int h = 0; h < 2; ++h) {  // the build: thread t writes cell 2t + h
      std::vector<int> slots;
      for (int t = 0; t < kGroup; ++t) slots.push_back(fused_slot<T, kCells>(first + 2 * t + h));
      EXPECT_TRUE(in_distinct_banks<T>(slots)) << "build, cells from " << first;
    }
  }
  for (int first = 0; first + kGroup <= cells; first += kGroup) {  // the store: consecutive cells
    std::vector<int> slots;
    for (int t = 0; t < kGroup; ++t) slots.push_back(fused_slot<T, kCells>(first + t));
    EXPECT_TRUE(in_distinct_banks<T>(slots)) << "store, cells from " << first;
  }
}

TEST(Fused, SlotsAreConflictFree) {
  expect_conflict_free_slots<double, 4>();
  expect_conflict_free_slots<double, 8>();
  expect_conflict_free_slots<double, 16>();
  expect_conflict_free_slots<float, 4>();
  expect_conflict_free_slots<float, 8>();
  expect_conflict_free_slots<float, 16>();
}

// fused-cluster's y-sweep builds its rows from the x frame's row-major arrays through ColumnWindow:
// every cell pair gets, to the last bit, the rows fused's y-sweep builds from the transposed arrays
// through CellWindow (both copies of the pair build, at the walls and inside, on a non-square grid).
TEST(FusedCluster, ColumnWindowBuildsWhatTheTransposedFrameBuilds) {
  const int nx = 64, ny = 96;  // the y-sweep: nx lines (columns) of ny cells
  State<double> s = make_hump_state(nx, ny);
  reference_run(s, PhysicalParameters{}, 5);
  // zeta, bed, the along flux q, the cross flux p at two levels (any two developed fields will do).
  const SweepView<double> x_frame{s.zeta.data(), s.bed.data(), s.q_new.data(), s.p.data(), s.q_old.data(), nx, 1};
  const std::vector<double> zeta_y = transposed(s.zeta, nx, ny), bed_y = transposed(s.bed, nx, ny),
                            q_y = transposed(s.q_new, nx, ny), p_y = transposed(s.p, nx, ny),
                            other_y = transposed(s.q_old, nx, ny);
  const SweepView<double> y_frame{zeta_y.data(), bed_y.data(), q_y.data(), p_y.data(), other_y.data(), 1, ny};
  const SweepConstants<double> k = sweep_constants<double>(PhysicalParameters{}, SweepDirection::Y);
  int interior = 0;
  for (int l = 0; l < nx; ++l)
    for (int i = 0; i < ny; i += 2) {
      const bool inside = cell_pair_is_interior(i, l, ny, nx);
      interior += inside;
      for (const bool fast : {false, inside}) {
        CellRows<double> by_column[2], by_line[2];
        build_cell_pair(ColumnWindow<double>::at(x_frame, i, l), i, l, ny, nx, k, fast, by_column[0], by_column[1]);
        build_cell_pair(CellWindow<double>::at(y_frame, i, l), i, l, ny, nx, k, fast, by_line[0], by_line[1]);
        for (int h = 0; h < 2; ++h) expect_same_rows(by_column[h], by_line[h], i + h, l);
      }
    }
  EXPECT_GT(interior, 0);
}

// cluster_slot keeps each segment's cells together (a permutation within the segment, so the solve's
// chains see their rows in order), and the kColumns columns of one row (a build's or a store's lanes) fall in
// distinct shared-memory banks, as do the solve's reads (cell j of 32 consecutive threads' segments).
template <class T, int kColumns>
void expect_cluster_slots(int rows) {
  const int cells = kColumns * rows;
  std::vector<int> seen(static_cast<std::size_t>(cells), 0);
  for (int c = 0; c < cells; ++c) {
    const int slot = cluster_slot<T, kClusterCells, kColumns>(c, rows);
    ASSERT_EQ(slot / kClusterCells / (rows / kClusterCells), c / rows) << "cell " << c << ", " << rows << " rows";
    ++seen[static_cast<std::size_t>(slot)];
  }
  for (int count : seen) ASSERT_EQ(count, 1);
  // A segment's cells stay together: one segment's slots are one segment's worth of consecutive slots.
  for (int first = 0; first < cells; first += kClusterCells) {
    std::vector<int> slots;
    for (int j = 0; j < kClusterCells; ++j) slots.push_back(cluster_slot<T, kClusterCells, kColumns>(first + j, rows));
    const int lowest = *std::min_element(slots.begin(), slots.end());
    EXPECT_EQ(lowest % kClusterCells, 0) << "segment from cell " << first;
    for (int slot : slots) EXPECT_LT(slot - lowest, kClusterCells) << "segment from cell " << first;
  }
  // A wavefront is 128 bytes: 16 doubles, 32 floats.
  constexpr int kLanes = 128 / static_cast<int>(sizeof(T));
  for (int r = 0; r < rows; ++r) {
    std::vector<int> slots;
    for (int w = 0; w < kColumns && w < kLanes; ++w) slots.push_back(cluster_slot<T, kClusterCells, kColumns>(w * rows + r, rows));
    EXPECT_TRUE(in_distinct_banks<T>(slots)) << "row " << r << " of " << rows << ", " << kColumns << " columns";
  }
  // The solve: a column's consecutive segments (a warp's threads, within one column).
  const int per_column = rows / kClusterCells;
  for (int w = 0; w < kColumns; ++w)
    for (int first = 0; first < per_column; first += kLanes)
      for (int j = 0; j < kClusterCells; ++j) {
        std::vector<int> slots;
        for (int s = first; s < std::min(first + kLanes, per_column); ++s)
          slots.push_back(cluster_slot<T, kClusterCells, kColumns>(w * rows + s * kClusterCells + j, rows));
        EXPECT_TRUE(in_distinct_banks<T>(slots)) << "solve, column " << w << ", segments from " << first << ", cell " << j
                                           << ", " << kColumns << " columns, " << rows << " rows";
      }
}

// The kernel addresses a cell with its column given (ColumnSlots, cluster_slot_in_column: no division by
// R on the device): solve thread t = w S + s takes the column w = t / S for every cell of its segment, which
// holds only because a segment never straddles two columns (R a multiple of kClusterCells).
template <class T, int kColumns>
void expect_column_slots_match(int rows) {
  const int segments_per_column = rows / kClusterCells;
  for (int t = 0; t < kColumns * segments_per_column; ++t) {
    const FusedSegment<T, kClusterCells, ColumnSlots<T, kClusterCells, kColumns>> seg{nullptr, 0, t * kClusterCells,
                                                                                     {t / segments_per_column}};
    for (int j = 0; j < kClusterCells; ++j)
      ASSERT_EQ(seg.slot(j), (cluster_slot<T, kClusterCells, kColumns>(t * kClusterCells + j, rows)))
          << "thread " << t << ", cell " << j << ", " << rows << " rows";
  }
}

// 8 columns: any multiple of 8 rows; 16 columns: an even number of segments a column (cluster_columns).
TEST(FusedCluster, ColumnSlotsAreTheLayoutsSlots) {
  for (int rows : {8, 24, 256, 512}) {
    expect_column_slots_match<double, kClusterColumnsNarrow>(rows);
    expect_column_slots_match<float, kClusterColumnsNarrow>(rows);
  }
  for (int rows : {128, 256}) {
    expect_column_slots_match<double, kClusterColumnsWide>(rows);
    expect_column_slots_match<float, kClusterColumnsWide>(rows);
  }
}

TEST(FusedCluster, SlotsKeepSegmentsAndSpreadRowsOverBanks) {
  for (int rows : {8, 24, 256, 512}) {
    expect_cluster_slots<double, kClusterColumnsNarrow>(rows);
    expect_cluster_slots<float, kClusterColumnsNarrow>(rows);
  }
  for (int rows : {128, 256}) {  // the blocks of 2048 and 4096 rows (cluster_columns)
    expect_cluster_slots<double, kClusterColumnsWide>(rows);
    expect_cluster_slots<float, kClusterColumnsWide>(rows);
  }
}

// ClusterTrips: the build's pairs and the store's cells of a block, each taken by exactly one (thread, trip);
// where banded, a warp's trip is G rows of W consecutive columns, lane L on column L % W (the loads and stores
// coalesce), and the build's rows of a half warp are 8 apart with 8 columns.
template <int kColumns>
void expect_cluster_trips(int rows) {
  const int threads = kColumns * rows / kClusterCells;
  std::vector<int> built(static_cast<std::size_t>(kColumns * rows), 0), stored(built.size(), 0);
  for (int t = 0; t < threads; ++t) {
    const ClusterTrips<kClusterCells, kColumns> trips(t, rows);
    ASSERT_EQ(trips.threads, static_cast<unsigned>(threads));
    for (unsigned j = 0; j < kClusterCells / 2; ++j) {
      const ClusterCell pair = trips.build_pair(j);
      ASSERT_TRUE(pair.column >= 0 && pair.column < kColumns && pair.row >= 0 && pair.row + 1 < rows && pair.row % 2 == 0)
          << "thread " << t << " trip " << j << ", " << rows << " rows";
      for (int h = 0; h < 2; ++h) ++built[static_cast<std::size_t>(pair.column * rows + pair.row + h)];
    }
    for (unsigned j = 0; j < kClusterCells; ++j) {
      const ClusterCell cell = trips.store_cell(j);
      ASSERT_TRUE(cell.column >= 0 && cell.column < kColumns && cell.row >= 0 && cell.row < rows)
          << "thread " << t << " trip " << j << ", " << rows << " rows";
      ++stored[static_cast<std::size_t>(cell.column * rows + cell.row)];
    }
  }
  for (std::size_t c = 0; c < built.size(); ++c) {
    ASSERT_EQ(built[c], 1) << "cell " << c << " built, " << kColumns << " columns, " << rows << " rows";
    ASSERT_EQ(stored[c], 1) << "cell " << c << " stored, " << kColumns << " columns, " << rows << " rows";
  }
  if (!ClusterTrips<kClusterCells, kColumns>(0, rows).banded) return;
  for (int warp0 = 0; warp0 < threads; warp0 += 32)
    for (unsigned j = 0; j < kClusterCells; ++j)
      for (int lane = 0; lane < 32; ++lane) {
        const ClusterTrips<kClusterCells, kColumns> trips(warp0 + lane, rows);
        const ClusterTrips<kClusterCells, kColumns> first(warp0 + lane / kColumns * kColumns, rows);
        EXPECT_EQ(trips.store_cell(j).column, lane % kColumns);
        EXPECT_EQ(trips.store_cell(j).row, first.store_cell(j).row) << "lane " << lane << " of the warp at " << warp0;
        if (j < kClusterCells / 2) {
          EXPECT_EQ(trips.build_pair(j).column, lane % kColumns);
          EXPECT_EQ(trips.build_pair(j).row, first.build_pair(j).row);
          if (kColumns == 8 && lane % 16 >= 8) {
            const ClusterTrips<kClusterCells, kColumns> half_before(warp0 + lane - 8, rows);
            EXPECT_EQ(trips.build_pair(j).row, half_before.build_pair(j).row + 8);
          }
        }
      }
}

TEST(FusedCluster, TripsTakeEveryCellOnce) {
  for (int rows : {8, 24, 32, 64, 96, 128, 256, 512}) expect_cluster_trips<kClusterColumnsNarrow>(rows);
  for (int rows : {16, 48, 64, 128, 256}) expect_cluster_trips<kClusterColumnsWide>(rows);
  EXPECT_TRUE((ClusterTrips<kClusterCells, kClusterColumnsWide>(0, 128).banded));  // 2048 rows in clusters of 16
  EXPECT_TRUE((ClusterTrips<kClusterCells, kClusterColumnsNarrow>(0, 128).banded));  // 1024 rows in clusters of 8
  EXPECT_FALSE((ClusterTrips<kClusterCells, kClusterColumnsNarrow>(0, 24).banded));
}

// 16 columns at 2048 and 4096 rows (blocks of a multiple of 128 rows), 8 at every other size.
TEST(FusedCluster, ClusterColumns) {
  for (int ny : {64, 128, 1024, 1984, 2112, 2304, 3072, 4032}) EXPECT_EQ(cluster_columns(ny, 8), kClusterColumnsNarrow) << ny;
  for (int ny : {2048, 4096}) EXPECT_EQ(cluster_columns(ny, 8), kClusterColumnsWide) << ny;
}

// The sizes fused-cluster takes: rows a multiple of 8 columns x 8 cells, one thread a segment (at most
// 512, so 4096 rows), the block's shared memory within the limit; 8 cells per thread only.
TEST(FusedCluster, Sizes) {
  // 4 per-cell arrays, 6 P reduced values, W columns x (P / W + 1) Z values, 2 mbarriers (4 elements).
  EXPECT_EQ(cluster_sweep_shared_elements(2048, 8, 8), 4 * 2048 + 6 * 256 + 8 * 33 + 4);
  EXPECT_EQ(cluster_sweep_shared_elements(2048, 8, 16), 4 * 2048 + 6 * 256 + 16 * 17 + 4);
  for (int ny : {64, 128, 192, 1024, 2048, 4096}) {
    EXPECT_EQ(cluster_sweep_refusal(ny, 8, sizeof(double), kFusedMaxSharedBytes), "") << ny;
    EXPECT_EQ(cluster_sweep_refusal(ny, 8, sizeof(float), kFusedMaxSharedBytes), "") << ny;
  }
  EXPECT_NE(cluster_sweep_refusal(2400, 8, sizeof(double), kFusedMaxSharedBytes).find("multiple of 64"), std::string::npos);
  EXPECT_NE(cluster_sweep_refusal(96, 8, sizeof(double), kFusedMaxSharedBytes).find("multiple of 64"), std::string::npos);
  EXPECT_NE(cluster_sweep_refusal(8192, 8, sizeof(float), kFusedMaxSharedBytes).find("512 threads"), std::string::npos);
  EXPECT_NE(cluster_sweep_refusal(2048, 16, sizeof(double), kFusedMaxSharedBytes).find("must be 8"), std::string::npos);
  EXPECT_NE(cluster_sweep_refusal(4096, 8, sizeof(double), 100 * 1024).find("KiB of shared memory"), std::string::npos);
}

struct Systems {
  int n;
  std::vector<double> a, b, c, d;
};

Systems random_system(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  Systems s{n, {}, {}, {}, {}};
  for (int i = 0; i < n; ++i) {
    s.a.push_back(i > 0 ? u(rng) : 0.0);
    s.c.push_back(i < n - 1 ? u(rng) : 0.0);
    s.b.push_back((std::abs(s.a.back()) + std::abs(s.c.back())) * (1.0 + std::abs(u(rng))) + 0.1);
    s.d.push_back(u(rng));
  }
  return s;
}

class Batched : public ::testing::TestWithParam<int> {};

TEST_P(Batched, PcrAndCrPcrAgreeWithThomas) {
  const int n = GetParam();
  const Systems s = random_system(n, static_cast<unsigned>(n));
  std::vector<double> cp(n), ref(n);
  thomas_solve(n, s.a.data(), s.b.data(), s.c.data(), s.d.data(), cp.data(), ref.data(), 1);
  {
    std::vector<double> shared(static_cast<std::size_t>(batched_pcr_shared_elements(n))), x(n, std::nan(""));
    run_block(n, [&](const HostBlock& block, int t) {
      batched_pcr(block, t, n, s.a.data(), s.b.data(), s.c.data(), s.d.data(), shared.data(), x.data());
    });
    for (int i = 0; i < n; ++i) ASSERT_NEAR(x[i], ref[i], 1e-12) << "pcr " << i;
  }
  {
    std::vector<double> shared(static_cast<std::size_t>(batched_cr_pcr_shared_elements(n))), x(n, std::nan(""));
    run_block(n / 2, [&](const HostBlock& block, int t) {
      batched_cr_pcr(block, t, n, s.a.data(), s.b.data(), s.c.data(), s.d.data(), shared.data(), x.data());
    });
    for (int i = 0; i < n; ++i) ASSERT_NEAR(x[i], ref[i], 1e-12) << "cr-pcr " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, Batched, ::testing::Values(2, 4, 16, 64, 128));

}  // namespace
}  // namespace warpmodel::adi
