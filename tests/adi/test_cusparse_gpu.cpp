// cuSPARSE's batched solvers agree with the CPU on the benchmark's systems (label gpu): the
// comparison in bench_tridiagonal is between solvers that compute the same thing.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <vector>

#include "cusparse_solvers.hpp"
#include "warpmodel/adi/batched_systems.hpp"

namespace warpmodel::adi {
namespace {

template <class T>
SolutionError run_cusparse(bench::CusparseAlgorithm algorithm, const BatchedSystems& s) {
  const bool inter = algorithm == bench::CusparseAlgorithm::InterleavedBatch;
  const std::size_t bytes = s.elements() * sizeof(T);
  const std::vector<double>* src[4] = {&s.lower, &s.diagonal, &s.upper, &s.rhs};
  T* dev[4] = {};
  for (int k = 0; k < 4; ++k) {
    EXPECT_EQ(cudaMalloc(reinterpret_cast<void**>(&dev[k]), bytes), cudaSuccess);
    const std::vector<T> host = inter ? interleave<T>(*src[k], s.n, s.batch) : std::vector<T>(src[k]->begin(), src[k]->end());
    EXPECT_EQ(cudaMemcpy(dev[k], host.data(), bytes, cudaMemcpyHostToDevice), cudaSuccess);
  }
  {
    bench::CusparseBatchedSolver<T> solver(algorithm, s.n, s.batch, dev[0], dev[1], dev[2], dev[3], nullptr);
    solver.solve(dev[0], dev[1], dev[2], dev[3]);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  }
  std::vector<T> x(s.elements());
  EXPECT_EQ(cudaMemcpy(x.data(), dev[3], bytes, cudaMemcpyDeviceToHost), cudaSuccess);
  for (T* p : dev) cudaFree(p);
  const std::vector<double> solution = inter ? deinterleave<T>(x, s.n, s.batch) : std::vector<double>(x.begin(), x.end());
  return compare_solution(solution, solve_systems_cpu(s));
}

TEST(Cusparse, BatchedSolversAgreeWithCpu) {
  for (int n : {64, 1024}) {
    const BatchedSystems s = make_random_systems(n, 257, 9);
    for (auto algorithm : {bench::CusparseAlgorithm::StridedBatch, bench::CusparseAlgorithm::InterleavedBatch}) {
      const SolutionError d = run_cusparse<double>(algorithm, s);
      EXPECT_EQ(d.nonfinite, 0u) << bench::to_string(algorithm);
      EXPECT_LE(d.relative(), 1e-12) << bench::to_string(algorithm) << " n " << n;
      const SolutionError f = run_cusparse<float>(algorithm, s);
      EXPECT_LE(f.relative(), 1e-4) << bench::to_string(algorithm) << " n " << n;
    }
  }
}

}  // namespace
}  // namespace warpmodel::adi
