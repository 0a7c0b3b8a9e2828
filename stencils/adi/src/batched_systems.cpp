#include "warpmodel/adi/batched_systems.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <thread>

#include "warpmodel/adi/tridiagonal.hpp"

namespace warpmodel::adi {
namespace {

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Uniform in [0, 1) from 53 random bits.
double unit(std::uint64_t seed, std::uint64_t index, std::uint64_t stream) {
  return static_cast<double>(splitmix64(seed ^ splitmix64(index * 4 + stream)) >> 11) * 0x1.0p-53;
}

// Runs body(first, last) over [0, count) split into `threads` contiguous ranges.
void parallel_for(std::size_t count, int threads, const std::function<void(std::size_t, std::size_t)>& body) {
  const std::size_t t = static_cast<std::size_t>(
      std::max(1, threads > 0 ? threads : static_cast<int>(std::thread::hardware_concurrency())));
  const std::size_t chunk = (count + t - 1) / t;
  std::vector<std::jthread> pool;
  for (std::size_t first = 0; first < count; first += chunk)
    pool.emplace_back([&body, first, last = std::min(count, first + chunk)] { body(first, last); });
}

}  // namespace

BatchedSystems make_random_systems(int n, int batch, std::uint64_t seed, int threads) {
  if (n < 2 || batch < 1) throw std::invalid_argument("random systems: need n >= 2 and batch >= 1");
  BatchedSystems s;
  s.n = n;
  s.batch = batch;
  const std::size_t count = s.elements();
  s.lower.resize(count);
  s.diagonal.resize(count);
  s.upper.resize(count);
  s.rhs.resize(count);
  parallel_for(count, threads, [&](std::size_t first, std::size_t last) {
    for (std::size_t e = first; e < last; ++e) {
      const int i = static_cast<int>(e % static_cast<std::size_t>(n));
      const double a = i > 0 ? 2 * unit(seed, e, 0) - 1 : 0.0;
      const double c = i < n - 1 ? 2 * unit(seed, e, 1) - 1 : 0.0;
      s.lower[e] = a;
      s.upper[e] = c;
      s.diagonal[e] = std::abs(a) + std::abs(c) + 0.5 + unit(seed, e, 2);
      s.rhs[e] = 2 * unit(seed, e, 3) - 1;
    }
  });
  return s;
}

std::vector<double> solve_systems_cpu(const BatchedSystems& s, int threads) {
  std::vector<double> x(s.elements()), scratch(s.elements());
  parallel_for(static_cast<std::size_t>(s.batch), threads, [&](std::size_t first, std::size_t last) {
    for (std::size_t b = first; b < last; ++b) {
      const std::size_t o = b * static_cast<std::size_t>(s.n);
      thomas_solve(s.n, s.lower.data() + o, s.diagonal.data() + o, s.upper.data() + o, s.rhs.data() + o,
                   scratch.data() + o, x.data() + o, 1);
    }
  });
  return x;
}

template <class T>
std::vector<T> interleave(const std::vector<double>& contiguous, int n, int batch) {
  std::vector<T> out(contiguous.size());
  parallel_for(static_cast<std::size_t>(n), 0, [&](std::size_t first, std::size_t last) {
    for (std::size_t i = first; i < last; ++i)
      for (std::size_t b = 0; b < static_cast<std::size_t>(batch); ++b)
        out[i * static_cast<std::size_t>(batch) + b] = static_cast<T>(contiguous[b * static_cast<std::size_t>(n) + i]);
  });
  return out;
}

template <class T>
std::vector<double> deinterleave(const std::vector<T>& interleaved, int n, int batch) {
  std::vector<double> out(interleaved.size());
  parallel_for(static_cast<std::size_t>(batch), 0, [&](std::size_t first, std::size_t last) {
    for (std::size_t b = first; b < last; ++b)
      for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i)
        out[b * static_cast<std::size_t>(n) + i] = static_cast<double>(interleaved[i * static_cast<std::size_t>(batch) + b]);
  });
  return out;
}

template std::vector<float> interleave<float>(const std::vector<double>&, int, int);
template std::vector<double> interleave<double>(const std::vector<double>&, int, int);
template std::vector<double> deinterleave<float>(const std::vector<float>&, int, int);
template std::vector<double> deinterleave<double>(const std::vector<double>&, int, int);

SolutionError compare_solution(const std::vector<double>& x, const std::vector<double>& reference, int threads) {
  if (x.size() != reference.size()) throw std::invalid_argument("compare_solution: sizes differ");
  const int t = std::max(1, threads > 0 ? threads : static_cast<int>(std::thread::hardware_concurrency()));
  std::vector<SolutionError> partial(static_cast<std::size_t>(t));
  const std::size_t chunk = (x.size() + static_cast<std::size_t>(t) - 1) / static_cast<std::size_t>(t);
  {
    std::vector<std::jthread> pool;
    for (int k = 0; k < t; ++k)
      pool.emplace_back([&, k] {
        SolutionError& e = partial[static_cast<std::size_t>(k)];
        const std::size_t first = static_cast<std::size_t>(k) * chunk, last = std::min(x.size(), first + chunk);
        for (std::size_t i = first; i < last; ++i) {
          if (!std::isfinite(x[i])) {
            ++e.nonfinite;
            continue;
          }
          e.max_abs = std::max(e.max_abs, std::abs(x[i] - reference[i]));
          e.max_ref = std::max(e.max_ref, std::abs(reference[i]));
        }
      });
  }
  SolutionError total;
  for (const auto& e : partial) {
    total.max_abs = std::max(total.max_abs, e.max_abs);
    total.max_ref = std::max(total.max_ref, e.max_ref);
    total.nonfinite += e.nonfinite;
  }
  return total;
}

}  // namespace warpmodel::adi
