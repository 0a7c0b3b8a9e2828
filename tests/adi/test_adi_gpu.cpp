// GPU ADI solver against the CPU reference (label gpu; main() in tests/gpu/gpu_test_main.cpp exits
// 77 without a GPU). After 100 steps of the hump problem, double precision agrees within 1e-12
// (max norm, m and m^2/s) and single within 1e-4 relative to each field's max norm.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cmath>
#include <map>
#include <string>
#include <tuple>

#include "warpmodel/adi/gpu_solver.hpp"
#include "warpmodel/adi/reference.hpp"

namespace warpmodel::adi {
namespace {

constexpr int kSteps = 100;

const State<double>& cpu_reference(int n) {
  static std::map<int, State<double>> cache;
  auto it = cache.find(n);
  if (it == cache.end()) {
    State<double> s = make_hump_state(n, n);
    reference_run(s, PhysicalParameters{}, kSteps);
    it = cache.emplace(n, std::move(s)).first;
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

SolverConfig config_of(Variant v, BlockSolver s, Precision p, int n, int partition_cells = 8) {
  SolverConfig c;
  c.variant = v;
  c.block_solver = s;
  c.precision = p;
  c.n = n;
  c.partition_cells = partition_cells;
  return c;
}

// variant, block solver (block-per-line), precision, n, cells per thread (partitioned)
using Case = std::tuple<Variant, BlockSolver, Precision, int, int>;

class AgainstCpu : public ::testing::TestWithParam<Case> {};

TEST_P(AgainstCpu, HundredStepsAgree) {
  const auto [variant, solver, precision, n, cells] = GetParam();
  GpuSolver gpu(config_of(variant, solver, precision, n, cells));
  gpu.upload(make_hump_state(n, n));
  for (int s = 0; s < kSteps; ++s) gpu.step();
  const State<double> result = gpu.download();
  const State<double>& ref = cpu_reference(n);
  const std::map<std::string, Difference> fields = {{"zeta", compare(result.zeta, ref.zeta)},
                                                    {"p", compare(result.p, ref.p)},
                                                    {"q_old", compare(result.q_old, ref.q_old)},
                                                    {"q_new", compare(result.q_new, ref.q_new)}};
  for (const auto& [name, d] : fields) {
    RecordProperty(name + "_max_abs_difference", std::to_string(d.max_abs));
    std::printf("%s %s %d %s: max |gpu - cpu| = %.3e (field max %.3e, relative %.3e)\n",
                variant_label(gpu.config()).c_str(), std::string(to_string(precision)).c_str(), n, name.c_str(),
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
      cases.emplace_back(Variant::ThreadPerLine, BlockSolver::CrPcr, p, n, 8);
      cases.emplace_back(Variant::BlockPerLine, BlockSolver::Pcr, p, n, 8);
      cases.emplace_back(Variant::BlockPerLine, BlockSolver::CrPcr, p, n, 8);
      cases.emplace_back(Variant::Partitioned, BlockSolver::CrPcr, p, n, 8);
      cases.emplace_back(Variant::Partitioned, BlockSolver::CrPcr, p, n, 16);
    }
  return cases;
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  const auto [variant, solver, precision, n, cells] = info.param;
  std::string s = variant == Variant::ThreadPerLine   ? "ThreadPerLine"
                  : variant == Variant::Partitioned ? "Partitioned" + std::to_string(cells)
                  : solver == BlockSolver::Pcr      ? "BlockPcr"
                                                    : "BlockCrPcr";
  return s + (precision == Precision::Double ? "_double_" : "_single_") + std::to_string(n);
}

INSTANTIATE_TEST_SUITE_P(Variants, AgainstCpu, ::testing::ValuesIn(all_cases()), case_name);

// Launching the kernels one by one reproduces step() bit for bit.
TEST(GpuSolver, SequenceOfLaunchesEqualsStep) {
  for (Variant v : {Variant::ThreadPerLine, Variant::BlockPerLine, Variant::Partitioned}) {
    const SolverConfig c = config_of(v, BlockSolver::CrPcr, Precision::Double, 96);
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
  for (Variant v : {Variant::ThreadPerLine, Variant::BlockPerLine, Variant::Partitioned}) {
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
  GpuSolver g(config_of(Variant::ThreadPerLine, BlockSolver::CrPcr, Precision::Single, 64));
  EXPECT_THROW(g.launch("solve-z"), std::invalid_argument);
  EXPECT_THROW(g.upload(make_hump_state(32, 32)), std::invalid_argument);
}

TEST(GpuSolver, KernelInfoIsUsable) {
  for (Variant v : {Variant::ThreadPerLine, Variant::BlockPerLine, Variant::Partitioned}) {
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
  }
}

}  // namespace
}  // namespace warpmodel::adi

namespace warpmodel::adi {
namespace {

// Two steps of one case on an n x n grid, against the CPU reference.
void two_steps_agree(const Case& c, int n) {
  const int steps = 2;
  State<double> ref = make_hump_state(n, n);
  reference_run(ref, PhysicalParameters{}, steps);
  const auto [variant, solver, precision, size, cells] = c;
  GpuSolver gpu(config_of(variant, solver, precision, n, cells));
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

}  // namespace
}  // namespace warpmodel::adi
