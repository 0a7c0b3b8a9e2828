// Random diagonally dominant tridiagonal systems for the batched benchmark and its checks (CPU).
// Stored in the contiguous layout (row i of system s at s * n + i); a_0 = c_{n-1} = 0.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace warpmodel::adi {

struct BatchedSystems {
  int n = 0;
  int batch = 0;
  std::vector<double> lower, diagonal, upper, rhs;
  std::size_t elements() const { return static_cast<std::size_t>(n) * static_cast<std::size_t>(batch); }
};

// a, c, d uniform in [-1, 1); b = |a| + |c| + 0.5 + u, u uniform in [0, 1): every row dominant by
// at least 0.5. Element (s, i) depends only on (seed, s, i), so any thread split gives the same data.
BatchedSystems make_random_systems(int n, int batch, std::uint64_t seed, int threads = 0);

// Thomas in double precision per system (threads: 0 = hardware concurrency).
std::vector<double> solve_systems_cpu(const BatchedSystems& systems, int threads = 0);

// Contiguous -> interleaved (row i of system s at i * batch + s), converting to T.
template <class T>
std::vector<T> interleave(const std::vector<double>& contiguous, int n, int batch);
// Interleaved -> contiguous, to double.
template <class T>
std::vector<double> deinterleave(const std::vector<T>& interleaved, int n, int batch);

struct SolutionError {
  double max_abs = 0;   // max |x - x_ref|
  double max_ref = 0;   // max |x_ref|
  std::size_t nonfinite = 0;
  double relative() const { return max_ref > 0 ? max_abs / max_ref : max_abs; }
};
// x in the contiguous layout.
SolutionError compare_solution(const std::vector<double>& x, const std::vector<double>& reference, int threads = 0);

}  // namespace warpmodel::adi
