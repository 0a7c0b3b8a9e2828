// warpmodel_app_example: a small CUDA application to profile with `warpmodel profile -- APP` and
// `ncu` (README "Your own kernels"). Each repetition launches, in this order:
//   0 copy (its own kernels.cu)        3 reduce, stage 2: one block over the partial sums
//   1 naive matrix product             4 scale_add (a separately compiled library)
//   2 reduce, stage 1 (1024 blocks)    5 polynomial (the library's PTX-only kernel, JIT-compiled)
// then, once, the four kernels built to trip predict-app's guardrails (kernels.hpp):
//   6R+0 rows_x_only (a 64x4 block indexed by threadIdx.x alone)   6R+2 bounded_square (__launch_bounds__)
//   6R+1 scale_grid_stride (a fixed grid)                          6R+3 block_sum_dynamic (shared memory from the block)
// (R repetitions) and checks every result on the host. Exit status: 0 when every result is right, 1 when one is
// wrong, 2 for a bad option, 3 without a usable GPU; --exit-code C exits with C after the checks
// and --abort-after K calls abort() after the K-th launch (to test how a failing application is
// profiled).
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "kernels.hpp"
#include "library/app_library.hpp"
#include "warpmodel/support/cuda.hpp"

namespace {

namespace cu = warpmodel::support::cuda;

struct Options {
  long long copy_size = 1LL << 24;  // = `warpmodel profile --kernel copy --size 16777216 --block 256`
  int copy_block = 256;
  int matmul_n = 512;
  long long reduce_count = 1LL << 22;
  long long library_size = 1LL << 22;
  int repeat = 2;
  int exit_code = 0;
  int abort_after = -1;
};

[[noreturn]] void usage(const std::string& problem) {
  std::fprintf(stderr,
               "warpmodel_app_example: %s\nusage: warpmodel_app_example [--copy-size N] [--copy-block B] "
               "[--repeat R] [--exit-code C] [--abort-after K]\n",
               problem.c_str());
  std::exit(2);
}

long long number(const char* option, const char* text, long long low, long long high) {
  char* end = nullptr;
  const long long v = std::strtoll(text, &end, 10);
  if (!end || *end || v < low || v > high)
    usage(std::string(option) + " " + text + ": expected an integer in [" + std::to_string(low) + ", " +
          std::to_string(high) + "]");
  return v;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) usage("unknown option or missing value: " + a);
    const char* v = argv[++i];
    if (a == "--copy-size") o.copy_size = number("--copy-size", v, 1, 1LL << 30);
    else if (a == "--copy-block") o.copy_block = static_cast<int>(number("--copy-block", v, 32, 1024));
    else if (a == "--repeat") o.repeat = static_cast<int>(number("--repeat", v, 1, 1000));
    else if (a == "--exit-code") o.exit_code = static_cast<int>(number("--exit-code", v, 0, 255));
    else if (a == "--abort-after") o.abort_after = static_cast<int>(number("--abort-after", v, 0, 1 << 20));
    else usage("unknown option " + a);
  }
  return o;
}

template <class T, class F>
std::vector<T> filled(long long n, F value) {
  std::vector<T> v(static_cast<std::size_t>(n));
  for (long long i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = value(i);
  return v;
}

int run(const Options& o) {
  cu::require_gpu();
  const int n = o.matmul_n;
  const long long nn = static_cast<long long>(n) * n;
  constexpr int kReduceBlocks = 1024;
  constexpr float kScale = 2.0f, kPolynomialC = 1.0f;
  constexpr int kIterations = 64;

  const auto copy_in = filled<float>(o.copy_size, [](long long i) { return 0.5f * static_cast<float>(i % 1021); });
  const auto a = filled<float>(nn, [](long long i) { return static_cast<float>(i % 5); });
  const auto b = filled<float>(nn, [](long long i) { return static_cast<float>(i % 3); });
  const auto reduce_in = filled<int>(o.reduce_count, [](long long i) { return static_cast<int>(i % 7); });
  const auto x = filled<float>(o.library_size, [](long long i) { return static_cast<float>(i % 1021); });
  const auto y0 = filled<float>(o.library_size, [](long long i) { return static_cast<float>(i % 17); });
  const auto p0 = filled<float>(o.library_size, [](long long i) { return 0.25f * static_cast<float>(i % 64); });
  constexpr int kGuardrailSize = 1 << 20;
  constexpr int kSumBlock = 256;
  constexpr float kStrideScale = 4.0f;
  const auto g = filled<float>(kGuardrailSize, [](long long i) { return static_cast<float>(i % 8); });

  cu::DeviceBuffer<float> d_copy_in(copy_in.size()), d_copy_out(copy_in.size());
  cu::DeviceBuffer<float> d_a(a.size()), d_b(b.size()), d_c(a.size());
  cu::DeviceBuffer<int> d_reduce_in(reduce_in.size()), d_partial(kReduceBlocks), d_total(1);
  cu::DeviceBuffer<float> d_x(x.size()), d_y(y0.size()), d_p(p0.size());
  cu::DeviceBuffer<float> d_g(g.size()), d_rows(g.size()), d_strided(g.size()), d_squares(g.size());
  cu::DeviceBuffer<float> d_sums(kGuardrailSize / kSumBlock);
  d_copy_in.upload(copy_in);
  d_a.upload(a);
  d_b.upload(b);
  d_reduce_in.upload(reduce_in);
  d_x.upload(x);
  d_y.upload(y0);
  d_p.upload(p0);
  d_g.upload(g);
  d_strided.upload(g);

  int launches = 0;
  auto launched = [&](cudaError_t e, const char* what) {
    cu::check(e, std::string("launch of ") + what);
    ++launches;
    if (launches == o.abort_after) {
      cu::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
      std::fprintf(stderr, "warpmodel_app_example: aborting after launch %d, as asked\n", launches);
      std::abort();
    }
  };
  for (int r = 0; r < o.repeat; ++r) {
    launched(app_example::launch_copy(d_copy_in.data(), d_copy_out.data(), o.copy_size, o.copy_block), "copy");
    launched(app_example::launch_matmul(d_a.data(), d_b.data(), d_c.data(), n, 16), "matmul");
    launched(app_example::launch_reduce(d_reduce_in.data(), d_partial.data(), o.reduce_count, kReduceBlocks),
             "reduce (stage 1)");
    launched(app_example::launch_reduce(d_partial.data(), d_total.data(), kReduceBlocks, 1), "reduce (stage 2)");
    launched(app_library::scale_add(kScale, d_x.data(), d_y.data(), o.library_size), "scale_add");
    launched(app_library::polynomial(d_p.data(), o.library_size, kIterations, kPolynomialC), "polynomial");
  }
  launched(app_example::launch_rows_x_only(d_g.data(), d_rows.data(), kGuardrailSize), "rows_x_only");
  launched(app_example::launch_grid_stride(d_strided.data(), kGuardrailSize, kStrideScale), "scale_grid_stride");
  launched(app_example::launch_bounded_square(d_g.data(), d_squares.data(), kGuardrailSize), "bounded_square");
  launched(app_example::launch_block_sum_dynamic(d_g.data(), d_sums.data(), kGuardrailSize, kSumBlock),
           "block_sum_dynamic");
  cu::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");

  // Every value is a small integer or an exact binary fraction: the checks are exact.
  std::vector<std::string> wrong;
  const auto copy_out = d_copy_out.download();
  for (std::size_t i = 0; i < copy_out.size(); ++i)
    if (copy_out[i] != copy_in[i]) {
      wrong.push_back("copy: out[" + std::to_string(i) + "]");
      break;
    }
  const auto c = d_c.download();
  for (int row = 0; row < n && wrong.size() < 2; ++row)
    for (int col = 0; col < n; ++col) {
      float sum = 0.0f;
      for (int k = 0; k < n; ++k) sum += a[static_cast<std::size_t>(row) * n + k] * b[static_cast<std::size_t>(k) * n + col];
      if (c[static_cast<std::size_t>(row) * n + col] != sum) {
        wrong.push_back("matmul: C[" + std::to_string(row) + "][" + std::to_string(col) + "]");
        break;
      }
    }
  long long total = 0;
  for (int v : reduce_in) total += v;
  if (const auto t = d_total.download(); t[0] != total)
    wrong.push_back("reduce: " + std::to_string(t[0]) + " instead of " + std::to_string(total));
  const auto y = d_y.download();
  for (std::size_t i = 0; i < y.size(); ++i)
    if (y[i] != y0[i] + static_cast<float>(o.repeat) * kScale * x[i]) {
      wrong.push_back("scale_add: y[" + std::to_string(i) + "]");
      break;
    }
  const auto p = d_p.download();
  for (std::size_t i = 0; i < p.size(); ++i) {
    float want = p0[i];
    for (int r = 0; r < o.repeat; ++r) want = app_library::polynomial_reference(want, kIterations, kPolynomialC);
    if (p[i] != want) {
      wrong.push_back("polynomial: data[" + std::to_string(i) + "]");
      break;
    }
  }
  const auto rows = d_rows.download(), strided = d_strided.download(), squares = d_squares.download();
  for (std::size_t i = 0; i < g.size(); ++i) {
    const char* bad = rows[i] != 2.0f * g[i] + 1.0f          ? "rows_x_only"
                      : strided[i] != kStrideScale * g[i]    ? "scale_grid_stride"
                      : squares[i] != g[i] * g[i]            ? "bounded_square"
                                                             : nullptr;
    if (bad) {
      wrong.push_back(std::string(bad) + ": element " + std::to_string(i));
      break;
    }
  }
  const auto sums = d_sums.download();
  for (std::size_t blk = 0; blk < sums.size(); ++blk) {
    float want = 0.0f;
    for (int t = 0; t < kSumBlock; ++t) want += g[blk * kSumBlock + static_cast<std::size_t>(t)];
    if (sums[blk] != want) {
      wrong.push_back("block_sum_dynamic: block " + std::to_string(blk));
      break;
    }
  }
  if (!wrong.empty()) {
    std::fprintf(stderr, "warpmodel_app_example: wrong results: %s%s\n", wrong.front().c_str(),
                 wrong.size() > 1 ? (", " + wrong[1]).c_str() : "");
    return 1;
  }
  std::printf("warpmodel_app_example: %d kernel launches (%d repetitions of 6, then 4 once), every result correct\n",
              launches, o.repeat);
  return o.exit_code;
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse(argc, argv);
  try {
    return run(options);
  } catch (const cu::NoGpuError& e) {
    std::fprintf(stderr, "warpmodel_app_example: %s\n", e.what());
    return 3;
  } catch (const cu::CudaError& e) {
    std::fprintf(stderr, "warpmodel_app_example: %s\n", e.what());
    return 1;
  }
}
