// Batched tridiagonal kernels against the CPU (label gpu).
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <string>
#include <tuple>
#include <vector>

#include "warpmodel/adi/batched_systems.hpp"
#include "warpmodel/adi/batched_tridiagonal.hpp"
#include "warpmodel/adi/gpu_solver.hpp"

namespace warpmodel::adi {
namespace {

template <class T>
SolutionError run_on_gpu(BatchedAlgorithm algorithm, const BatchedSystems& s) {
  const bool inter = uses_interleaved_layout(algorithm);
  const std::size_t bytes = s.elements() * sizeof(T);
  const std::vector<double>* src[4] = {&s.lower, &s.diagonal, &s.upper, &s.rhs};
  T* dev[6] = {};
  for (T*& p : dev) {
    EXPECT_EQ(cudaMalloc(reinterpret_cast<void**>(&p), bytes), cudaSuccess);
  }
  for (int k = 0; k < 4; ++k) {
    const std::vector<T> host = inter ? interleave<T>(*src[k], s.n, s.batch) : std::vector<T>(src[k]->begin(), src[k]->end());
    EXPECT_EQ(cudaMemcpy(dev[k], host.data(), bytes, cudaMemcpyHostToDevice), cudaSuccess);
  }
  EXPECT_EQ(cudaMemset(dev[4], 0xff, bytes), cudaSuccess);  // poison: NaN where nothing is written
  solve_batched<T>(algorithm, s.n, s.batch, dev[0], dev[1], dev[2], dev[3], dev[4], dev[5], nullptr);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<T> x(s.elements());
  EXPECT_EQ(cudaMemcpy(x.data(), dev[4], bytes, cudaMemcpyDeviceToHost), cudaSuccess);
  for (T* p : dev) cudaFree(p);
  const std::vector<double> solution = inter ? deinterleave<T>(x, s.n, s.batch) : std::vector<double>(x.begin(), x.end());
  return compare_solution(solution, solve_systems_cpu(s));
}

using Case = std::tuple<BatchedAlgorithm, int>;
class BatchedGpu : public ::testing::TestWithParam<Case> {};

TEST_P(BatchedGpu, AgreesWithCpuThomas) {
  const auto [algorithm, n] = GetParam();
  const BatchedSystems s = make_random_systems(n, 333, 42);
  const SolutionError d = run_on_gpu<double>(algorithm, s);
  EXPECT_EQ(d.nonfinite, 0u);
  EXPECT_LE(d.relative(), 1e-12);
  const SolutionError f = run_on_gpu<float>(algorithm, s);
  EXPECT_EQ(f.nonfinite, 0u);
  EXPECT_LE(f.relative(), 1e-4);
}

INSTANTIATE_TEST_SUITE_P(All, BatchedGpu,
                         ::testing::Combine(::testing::Values(BatchedAlgorithm::ThomasInterleaved, BatchedAlgorithm::Pcr,
                                                              BatchedAlgorithm::CrPcr),
                                            ::testing::Values(64, 128, 1024)),
                         [](const ::testing::TestParamInfo<Case>& param_info) {
                           std::string name(to_string(std::get<0>(param_info.param)));
                           for (char& ch : name)
                             if (ch == '-') ch = '_';
                           return name + "_" + std::to_string(std::get<1>(param_info.param));
                         });

TEST(BatchedGpu, RejectsBadSizes) {
  EXPECT_FALSE(validate_batched(BatchedAlgorithm::Pcr, 2048, 4).empty());
  EXPECT_FALSE(validate_batched(BatchedAlgorithm::CrPcr, 63, 4).empty());
  EXPECT_THROW(solve_batched<double>(BatchedAlgorithm::Pcr, 4096, 1, nullptr, nullptr, nullptr, nullptr, nullptr,
                                     nullptr, nullptr),
               std::invalid_argument);
  for (BatchedAlgorithm a : all_batched_algorithms()) {
    cudaFuncAttributes attr{};
    EXPECT_EQ(cudaFuncGetAttributes(&attr, batched_kernel_function(a, true)), cudaSuccess);
    EXPECT_EQ(parse_batched_algorithm(to_string(a)), a);
  }
}

}  // namespace
}  // namespace warpmodel::adi

namespace warpmodel::adi {
namespace {

TEST(Sanitizer, EveryBatchedKernelSmall) {
  const BatchedSystems s = make_random_systems(64, 40, 3);
  for (BatchedAlgorithm a : all_batched_algorithms()) {
    EXPECT_LE(run_on_gpu<double>(a, s).relative(), 1e-12) << to_string(a);
    EXPECT_LE(run_on_gpu<float>(a, s).relative(), 1e-4) << to_string(a);
  }
}

}  // namespace
}  // namespace warpmodel::adi
