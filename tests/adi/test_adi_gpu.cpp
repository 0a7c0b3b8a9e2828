// GPU ADI solver against the CPU reference (label gpu; main() in tests/gpu/gpu_test_main.cpp exits
// 77 without a GPU). After 100 steps of the hump problem, double precision agrees within 1e-12
// (max norm, m and m^2/s) and single within 1e-4 relative to each field's max norm.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

#include "warpmodel/adi/gpu_solver.hpp"
#include "warpmodel/adi/reference.hpp"

namespace warpmodel::adi {
namespace {

constexpr int kSteps = 100;

const State<double>& cpu_reference(int nx, int ny) {
  static std::map<std::pair<int, int>, State<double>> cache;
  auto it = cache.find({nx, ny});
  if (it == cache.end()) {
    State<double> s = make_hump_state(nx, ny);
    reference_run(s, PhysicalParameters{}, kSteps);
    it = cache.emplace(std::pair{nx, ny}, std::move(s)).first;
  }
  return it->second;
}

struct Difference {
  double max_abs = 0;
  double max_ref = 0;
  double relative() const { return max_ref > 0 ? max_abs / max_ref : max_abs; }
};

Difference compare(const std::vector<double>& gpu, const std::vector<double>& cpu) {
  Difference d;
  for (std::size_t i = 0; i < cpu.size(); ++i) {
    const double diff = std::abs(gpu[i] - cpu[i]);
    d.max_abs = std::isnan(diff) ? INFINITY : std::max(d.max_abs, diff);
    d.max_ref = std::max(d.max_ref, std::abs(cpu[i]));
  }
  return d;
}

SolverConfig config_of(Variant v, BlockSolver s, Precision p, int n, int partition_cells = 8, int ny = 0) {
  SolverConfig c;
  c.variant = v;
  c.block_solver = s;
  c.precision = p;
  c.n = n;
  c.ny = ny;
  c.partition_cells = partition_cells;
  return c;
}

// variant, block solver (block-per-line), precision, n, cells per thread (partitioned, fused),
// rows (0: n; fused only)
using Case = std::tuple<Variant, BlockSolver, Precision, int, int, int>;

class AgainstCpu : public ::testing::TestWithParam<Case> {};

TEST_P(AgainstCpu, HundredStepsAgree) {
  const auto [variant, solver, precision, n, cells, rows] = GetParam();
  const int ny = rows == 0 ? n : rows;
  GpuSolver gpu(config_of(variant, solver, precision, n, cells, rows));
  gpu.upload(make_hump_state(n, ny));
  for (int s = 0; s < kSteps; ++s) gpu.step();
  const State<double> result = gpu.download();
  const State<double>& ref = cpu_reference(n, ny);
  const std::map<std::string, Difference> fields = {{"zeta", compare(result.zeta, ref.zeta)},
                                                    {"p", compare(result.p, ref.p)},
                                                    {"q_old", compare(result.q_old, ref.q_old)},
                                                    {"q_new", compare(result.q_new, ref.q_new)}};
  for (const auto& [name, d] : fields) {
    RecordProperty(name + "_max_abs_difference", std::to_string(d.max_abs));
    std::printf("%s %s %dx%d %s: max |gpu - cpu| = %.3e (field max %.3e, relative %.3e)\n",
                variant_label(gpu.config()).c_str(), std::string(to_string(precision)).c_str(), n, ny, name.c_str(),
                d.max_abs, d.max_ref, d.relative());
    EXPECT_GT(d.max_ref, 1e-3) << name << ": the flow must not be trivial";
    if (precision == Precision::Double)
      EXPECT_LE(d.max_abs, 1e-12) << name;
    else
      EXPECT_LE(d.relative(), 1e-4) << name;
  }
}

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  for (Precision p : {Precision::Double, Precision::Single})
    for (int n : {64, 256}) {
      cases.emplace_back(Variant::ThreadPerLine, BlockSolver::CrPcr, p, n, 8, 0);
      cases.emplace_back(Variant::BlockPerLine, BlockSolver::Pcr, p, n, 8, 0);
      cases.emplace_back(Variant::BlockPerLine, BlockSolver::CrPcr, p, n, 8, 0);
      cases.emplace_back(Variant::Partitioned, BlockSolver::CrPcr, p, n, 8, 0);
      cases.emplace_back(Variant::Partitioned, BlockSolver::CrPcr, p, n, 16, 0);
      cases.emplace_back(Variant::Fused, BlockSolver::CrPcr, p, n, 8, 0);
      cases.emplace_back(Variant::Fused, BlockSolver::CrPcr, p, n, 16, 0);
      cases.emplace_back(Variant::Fused, BlockSolver::CrPcr, p, n, 4, 0);
      cases.emplace_back(Variant::FusedCluster, BlockSolver::CrPcr, p, n, 8, 0);
    }
  // Fused on non-square grids whose sides are not powers of two: 96 x 160 (12 / 20 segments per
  // line) and 224 x 64.
  for (Precision p : {Precision::Double, Precision::Single}) {
    cases.emplace_back(Variant::Fused, BlockSolver::CrPcr, p, 96, 8, 160);
    cases.emplace_back(Variant::Fused, BlockSolver::CrPcr, p, 224, 16, 64);
    cases.emplace_back(Variant::Fused, BlockSolver::CrPcr, p, 160, 4, 96);  // 40 / 24 segments
    // fused-cluster: rows a multiple of 64; 224 x 64 has one segment a column in each block of a
    // cluster (8 threads a block), 160 x 192 three (24 segments a column, not a power of two).
    cases.emplace_back(Variant::FusedCluster, BlockSolver::CrPcr, p, 96, 8, 128);
    cases.emplace_back(Variant::FusedCluster, BlockSolver::CrPcr, p, 224, 8, 64);
    cases.emplace_back(Variant::FusedCluster, BlockSolver::CrPcr, p, 160, 8, 192);
    // Clusters of 16 columns (cluster_columns: 2048 and 4096 rows): 32 x 2048, two clusters of 16 blocks of
    // 128 rows.
    cases.emplace_back(Variant::FusedCluster, BlockSolver::CrPcr, p, 32, 8, 2048);
  }
  return cases;
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  const auto [variant, solver, precision, n, cells, rows] = info.param;
  std::string s = variant == Variant::ThreadPerLine   ? "ThreadPerLine"
                  : variant == Variant::Partitioned ? "Partitioned" + std::to_string(cells)
                  : variant == Variant::Fused       ? "Fused" + std::to_string(cells)
                  : variant == Variant::FusedCluster ? "FusedCluster"
                  : solver == BlockSolver::Pcr      ? "BlockPcr"
                                                    : "BlockCrPcr";
  return s + (precision == Precision::Double ? "_double_" : "_single_") + std::to_string(n) +
         (rows != 0 ? "x" + std::to_string(rows) : "");
}

INSTANTIATE_TEST_SUITE_P(Variants, AgainstCpu, ::testing::ValuesIn(all_cases()), case_name);

// Launching the kernels one by one reproduces step() bit for bit.
TEST(GpuSolver, SequenceOfLaunchesEqualsStep) {
  for (Variant v : {Variant::ThreadPerLine, Variant::BlockPerLine, Variant::Partitioned, Variant::Fused, Variant::FusedCluster}) {
    const SolverConfig c = config_of(v, BlockSolver::CrPcr, Precision::Double, v == Variant::FusedCluster ? 128 : 96);
    GpuSolver a(c), b(c);
    for (int s = 0; s < 3; ++s) {
      a.step();
      for (const std::string& k : b.kernel_sequence()) b.launch(k);
      b.finish_step();
    }
    const State<double> sa = a.download(), sb = b.download();
    EXPECT_EQ(sa.zeta, sb.zeta);
    EXPECT_EQ(sa.p, sb.p);
    EXPECT_EQ(sa.q_new, sb.q_new);
  }
}

// run() replays two-step CUDA graphs (one for each parity of the steps done): it must give what as many
// step() calls give, to the bit, for an odd count, from either parity, and after more steps than one
// graph holds; run(0) launches nothing and a negative count is refused.
TEST(GpuSolver, RunThroughGraphsEqualsSteps) {
  for (Variant v : {Variant::ThreadPerLine, Variant::BlockPerLine, Variant::Partitioned, Variant::Fused, Variant::FusedCluster})
    for (Precision p : {Precision::Double, Precision::Single}) {
      const int rows = v == Variant::Fused ? 160 : v == Variant::FusedCluster ? 128 : 0;
      const SolverConfig c = config_of(v, BlockSolver::CrPcr, p, 96, 8, rows);
      GpuSolver by_steps(c), by_run(c);
      for (int s = 0; s < 12; ++s) by_steps.step();
      by_run.run(0);
      by_run.run(7);   // from parity 0: three graphs and a step
      by_run.run(4);   // from parity 1
      by_run.run(1);
      const State<double> a = by_steps.download(), b = by_run.download();
      const std::string what = variant_label(c) + " " + std::string(to_string(p));
      EXPECT_EQ(a.zeta, b.zeta) << what;
      EXPECT_EQ(a.p, b.p) << what;
      EXPECT_EQ(a.q_old, b.q_old) << what;
      EXPECT_EQ(a.q_new, b.q_new) << what;
      EXPECT_THROW(by_run.run(-1), std::invalid_argument) << what;
    }
}

// fused-cluster does fused's arithmetic in another order of memory: the same rows (ColumnWindow, tested
// on the CPU), the same segments and the same reduced systems, which it solves with PCR until their rows
// decouple where fused runs every level (PcrLevels, partitioned.hpp: the two solves differ by less than
// 2^-60 of the largest unknown), so it agrees with fused after 20 steps to rounding; the number of cells
// that differ at all is printed (0 means bit for bit).
TEST(GpuSolver, FusedClusterAgreesWithFused) {
  for (Precision p : {Precision::Double, Precision::Single}) {
    GpuSolver fused(config_of(Variant::Fused, BlockSolver::CrPcr, p, 256, 8, 192));
    GpuSolver cluster(config_of(Variant::FusedCluster, BlockSolver::CrPcr, p, 256, 8, 192));
    fused.run(20);
    cluster.run(20);
    const State<double> a = fused.download(), b = cluster.download();
    for (const auto& [name, x, y] : {std::tuple{"zeta", &a.zeta, &b.zeta}, std::tuple{"p", &a.p, &b.p},
                                     std::tuple{"q", &a.q_new, &b.q_new}}) {
      const Difference d = compare(*y, *x);
      std::size_t differing = 0;
      for (std::size_t i = 0; i < x->size(); ++i) differing += (*x)[i] != (*y)[i];
      std::printf("fused-cluster vs fused %s %s: %zu of %zu cells differ, max %.3e\n",
                  std::string(to_string(p)).c_str(), name, differing, x->size(), d.max_abs);
      if (p == Precision::Double)  // the tolerances of the comparison with the CPU reference
        EXPECT_LE(d.max_abs, 1e-12) << name;
      else
        EXPECT_LE(d.relative(), 1e-4) << name;
    }
  }
}

// A solver moved into another keeps its buffers and graphs (the Impl owns the stream and graphs; the
// moved-over solver's own are released).
TEST(GpuSolver, MovedSolverKeepsItsGraphs) {
  const SolverConfig c = config_of(Variant::Fused, BlockSolver::CrPcr, Precision::Double, 96);
  GpuSolver by_steps(c), first(c), second(c);
  for (int s = 0; s < 6; ++s) by_steps.step();
  first.run(4);
  second.run(2);
  second = std::move(first);
  second.run(2);
  EXPECT_EQ(by_steps.download().zeta, second.download().zeta);
  EXPECT_EQ(by_steps.download().q_new, second.download().q_new);
}

// Timing through graphs returns a positive time a step and advances the state as run() does.
TEST(GpuSolver, RunGraphTimedAdvancesLikeRun) {
  const SolverConfig c = config_of(Variant::Fused, BlockSolver::CrPcr, Precision::Double, 128);
  GpuSolver timed(c), plain(c);
  const double seconds = run_graph_timed(timed, 5);
  plain.run(5);
  EXPECT_GT(seconds, 0.0);
  EXPECT_EQ(timed.download().zeta, plain.download().zeta);
  EXPECT_THROW(run_graph_timed(timed, 0), std::invalid_argument);
}

TEST(GpuSolver, RestStaysAtRestAndVolumeIsConserved) {
  HumpProblem flat;
  flat.amplitude = 0;
  GpuSolver rest(config_of(Variant::ThreadPerLine, BlockSolver::CrPcr, Precision::Double, 64));
  rest.upload(make_hump_state(64, 64, flat));
  for (int s = 0; s < 10; ++s) rest.step();
  const State<double> r = rest.download();
  for (std::size_t i = 0; i < r.cells(); ++i) {
    ASSERT_EQ(r.zeta[i], 0.0);
    ASSERT_EQ(r.p[i], 0.0);
    ASSERT_EQ(r.q_new[i], 0.0);
  }
  for (Variant v : {Variant::ThreadPerLine, Variant::BlockPerLine, Variant::Partitioned, Variant::Fused, Variant::FusedCluster}) {
    GpuSolver g(config_of(v, BlockSolver::Pcr, Precision::Double, 128));
    const State<double> start = make_hump_state(128, 128);
    g.upload(start);
    for (int s = 0; s < 50; ++s) g.step();
    double scale = 0;
    for (double z : start.zeta) scale += std::abs(z);
    EXPECT_LT(std::abs(total_elevation(g.download()) - total_elevation(start)), 1e-12 * scale);
  }
}

TEST(GpuSolver, RejectsBadInput) {
  EXPECT_THROW(GpuSolver(config_of(Variant::BlockPerLine, BlockSolver::CrPcr, Precision::Double, 2048)),
               std::invalid_argument);
  EXPECT_THROW(GpuSolver(config_of(Variant::ThreadPerLine, BlockSolver::CrPcr, Precision::Double, 100)),
               std::invalid_argument);
  EXPECT_THROW(GpuSolver(config_of(Variant::Partitioned, BlockSolver::CrPcr, Precision::Double, 256, 4)),
               std::invalid_argument);  // 8 or 16 cells per thread
  EXPECT_THROW(GpuSolver(config_of(Variant::Partitioned, BlockSolver::CrPcr, Precision::Double, 8192, 8)),
               std::invalid_argument);  // 1024 segments: above one block
  EXPECT_THROW(GpuSolver(config_of(Variant::Partitioned, BlockSolver::CrPcr, Precision::Double, 256, 8, 128)),
               std::invalid_argument);  // non-square: fused only
  EXPECT_THROW(GpuSolver(config_of(Variant::Fused, BlockSolver::CrPcr, Precision::Double, 256, 8, 100)),
               std::invalid_argument);  // rows: a multiple of 32
  GpuSolver fused(config_of(Variant::Fused, BlockSolver::CrPcr, Precision::Double, 256, 8, 128));
  EXPECT_THROW(fused.launch("solve-x"), std::invalid_argument);  // a fused step has sweep-x, sweep-y
  EXPECT_THROW(fused.upload(make_hump_state(256, 256)), std::invalid_argument);
  // fused-cluster: rows a multiple of 64 and at most 4096, 8 cells per thread; no transposes to launch.
  EXPECT_THROW(GpuSolver(config_of(Variant::FusedCluster, BlockSolver::CrPcr, Precision::Double, 256, 8, 96)),
               std::invalid_argument);
  EXPECT_THROW(GpuSolver(config_of(Variant::FusedCluster, BlockSolver::CrPcr, Precision::Double, 256, 16)),
               std::invalid_argument);
  EXPECT_THROW(GpuSolver(config_of(Variant::FusedCluster, BlockSolver::CrPcr, Precision::Single, 256, 8, 8192)),
               std::invalid_argument);
  GpuSolver cluster(config_of(Variant::FusedCluster, BlockSolver::CrPcr, Precision::Double, 256, 8, 128));
  EXPECT_THROW(cluster.launch("transpose-zeta-x2y"), std::invalid_argument);
  GpuSolver g(config_of(Variant::ThreadPerLine, BlockSolver::CrPcr, Precision::Single, 64));
  EXPECT_THROW(g.launch("solve-z"), std::invalid_argument);
  EXPECT_THROW(g.launch("sweep-x"), std::invalid_argument);
  EXPECT_THROW(g.upload(make_hump_state(32, 32)), std::invalid_argument);
}

TEST(GpuSolver, KernelInfoIsUsable) {
  for (Variant v : {Variant::ThreadPerLine, Variant::BlockPerLine, Variant::Partitioned, Variant::Fused, Variant::FusedCluster}) {
    GpuSolver g(config_of(v, BlockSolver::CrPcr, Precision::Double, 1024));
    const auto infos = g.kernels();
    ASSERT_EQ(infos.size(), g.kernel_sequence().size());
    double sum = 0;
    for (const auto& k : infos) {
      cudaFuncAttributes attr{};
      ASSERT_EQ(cudaFuncGetAttributes(&attr, k.function), cudaSuccess) << k.name;
      EXPECT_GT(attr.numRegs, 0) << k.name;
      EXPECT_GT(k.effective_bytes, 0) << k.name;
      EXPECT_GE(attr.maxThreadsPerBlock, static_cast<int>(k.launch.block[0] * k.launch.block[1])) << k.name;
      sum += k.effective_bytes;
    }
    EXPECT_DOUBLE_EQ(sum, g.step_effective_bytes());
    EXPECT_DOUBLE_EQ(g.step_state_bytes(), 8.0 * 1024 * 1024 * 8);
    if (v == Variant::Partitioned) {
      // The partitioned solve reads the five coefficient arrays and writes zeta and the flux, nothing else.
      for (const auto& k : infos) {
        if (k.name == "solve-x") {
          EXPECT_DOUBLE_EQ(k.effective_bytes, 7.0 * 1024 * 1024 * 8);
        }
      }
    }
    if (v == Variant::Fused) {
      // Two sweeps, each reading the five state arrays of its frame and writing zeta and the flux,
      // and the four transposes.
      ASSERT_EQ(infos.size(), 6u);
      for (const auto& k : infos)
        EXPECT_DOUBLE_EQ(k.effective_bytes, (k.name.rfind("sweep", 0) == 0 ? 7.0 : 2.0) * 1024 * 1024 * 8) << k.name;
    }
    if (v == Variant::FusedCluster) {
      // The two sweeps alone; the y-sweep one block a column (1024 / 8 threads), clusters of 8.
      ASSERT_EQ(infos.size(), 2u);
      for (const auto& k : infos) EXPECT_DOUBLE_EQ(k.effective_bytes, 7.0 * 1024 * 1024 * 8) << k.name;
      EXPECT_EQ(infos[1].launch.grid[0], 1024u);
      EXPECT_EQ(infos[1].launch.block[0], 128u);
    }
  }
}

}  // namespace
}  // namespace warpmodel::adi

namespace warpmodel::adi {
namespace {

// Two steps of one case on an n x n grid, against the CPU reference.
void two_steps_agree(const Case& c, int n) {
  const int steps = 2;
  const auto [variant, solver, precision, size, cells, rows] = c;
  const int ny = rows == 0 ? n : rows;
  State<double> ref = make_hump_state(n, ny);
  reference_run(ref, PhysicalParameters{}, steps);
  GpuSolver gpu(config_of(variant, solver, precision, n, cells, rows));
  for (int s = 0; s < steps; ++s) gpu.step();
  const State<double> r = gpu.download();
  for (const auto& [got, want] : {std::pair{&r.zeta, &ref.zeta}, std::pair{&r.p, &ref.p}, std::pair{&r.q_new, &ref.q_new}}) {
    const Difference d = compare(*got, *want);
    if (precision == Precision::Double)
      EXPECT_LE(d.max_abs, 1e-12) << case_name({c, 0}) << " n " << n;
    else
      EXPECT_LE(d.relative(), 1e-4) << case_name({c, 0}) << " n " << n;
  }
}

// Small runs of every kernel, for compute-sanitizer (memcheck, racecheck): every ADI variant and
// precision for two steps (checked against the CPU), every batched solver once.
TEST(Sanitizer, EveryAdiKernelSmall) {
  for (const Case& c : all_cases())
    if (std::get<3>(c) == 64) two_steps_agree(c, 64);
}

// The partitioned solve alone (a sanitizer run of the new kernels): 64 and 96 cells per side, i.e.
// 8/4 and 12/6 segments per line (not a power of two) and 32 lines per block.
TEST(Sanitizer, PartitionedSmall) {
  for (const Case& c : all_cases())
    if (std::get<0>(c) == Variant::Partitioned && std::get<3>(c) == 64)
      for (int n : {64, 96}) two_steps_agree(c, n);
}

// The fused sweeps alone, square and non-square (the cases above with a size of 64 or 96).
TEST(Sanitizer, FusedSmall) {
  for (const Case& c : all_cases())
    if (std::get<0>(c) == Variant::Fused && (std::get<3>(c) == 64 || std::get<3>(c) == 96)) two_steps_agree(c, std::get<3>(c));
}

// fused-cluster alone (its exchange through distributed shared memory under racecheck): 64^2 and 96 x 128
// (clusters of 8), 32 x 2048 (clusters of 16).
TEST(Sanitizer, FusedClusterSmall) {
  for (const Case& c : all_cases())
    if (std::get<0>(c) == Variant::FusedCluster &&
        (std::get<3>(c) == 64 || std::get<3>(c) == 96 || std::get<3>(c) == 32))
      two_steps_agree(c, std::get<3>(c));
}

}  // namespace
}  // namespace warpmodel::adi
