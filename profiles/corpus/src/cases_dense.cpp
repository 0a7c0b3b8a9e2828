// Workload cases of the dense kernels: streaming, naive loops, matrix-vector products, tiled GEMM
// and transposes. Seeds are fixed per buffer role; every reference is computed in double from
// the same deterministic inputs (harness.hpp).
#include <stdexcept>

#include "harness.hpp"

namespace warpmodel::corpus::detail {
namespace {

constexpr std::uint64_t kSeedA = 101, kSeedB = 102, kSeedC = 103, kSeedX = 104;

// ---------------------------------------------------------------- streaming

class CopyCase : public Case {
 public:
  CopyCase(bool vec4, const Size& s) : vec4_(vec4), n_(as_int(s.nx, "nx")), in_(n_, kSeedA, -1.0f, 2.0f), out_(n_) {
    if (vec4_ && n_ % 4 != 0) throw std::invalid_argument("copy-vec4-f32: the size must be a multiple of 4");
  }
  void setup() override {
    in_.allocate_and_fill();
    out_.allocate_and_poison();
  }
  void launch(const gpu::Geometry& g) override {
    if (vec4_)
      gpu::copy_vec4_f32(g, in_.device(), out_.device(), n_);
    else
      gpu::copy_f32(g, in_.device(), out_.device(), n_);
  }
  std::string verify() override {
    const auto out = out_.download();
    if (auto bad = all_finite(out, "out"); !bad.empty()) return bad;
    Comparison c("out", kRtolF32);
    for (auto i : sample_indices(out.size())) c.equal(i, out[i], in_[i]);
    return c.verdict();
  }

 private:
  bool vec4_;
  int n_;
  Uniform<float> in_;
  Output<float> out_;
};

// a = b + s c (triad) or c = a + b (vadd): two inputs, one output.
template <class T>
class TwoInputCase : public Case {
 public:
  enum class Op { triad, add };
  TwoInputCase(Op op, const Size& s)
      : op_(op), n_(as_int(s.nx, "nx")), b_(n_, kSeedB, T(-1), T(2)), c_(n_, kSeedC, T(-1), T(2)), out_(n_) {}
  void setup() override {
    b_.allocate_and_fill();
    c_.allocate_and_fill();
    out_.allocate_and_poison();
  }
  void launch(const gpu::Geometry& g) override {
    if constexpr (sizeof(T) == sizeof(double)) {
      gpu::triad_f64(g, out_.device(), b_.device(), c_.device(), kScale, n_);
    } else {
      if (op_ == Op::triad)
        gpu::triad_f32(g, out_.device(), b_.device(), c_.device(), kScale, n_);
      else
        gpu::vadd_f32(g, b_.device(), c_.device(), out_.device(), n_);
    }
  }
  std::string verify() override {
    const auto out = out_.download();
    if (auto bad = all_finite(out, "out"); !bad.empty()) return bad;
    Comparison c("out", rtol<T>());
    const double s = op_ == Op::triad ? kScale : 1.0;
    for (auto i : sample_indices(out.size())) {
      const double b = b_[i], cc = c_[i];
      c.near(i, out[i], b + s * cc, std::abs(b) + std::abs(s * cc));
    }
    return c.verdict();
  }

 private:
  static constexpr T kScale = T(3);
  Op op_;
  int n_;
  Uniform<T> b_, c_;
  Output<T> out_;
};

// ---------------------------------------------------------------- GEMM (naive and tiled) and SYRK

// C = beta C + alpha A B, C in place (restored before every launch).
template <class T>
class GemmCase : public Case {
 public:
  using Launcher = void (*)(gpu::Geometry, const T*, const T*, T*, int, int, int, T, T);
  GemmCase(Launcher launcher, const Size& s)
      : launcher_(launcher),
        m_(as_int(s.ny, "M")),
        n_(as_int(s.nx, "N")),
        k_(as_int(s.nz, "K")),
        a_(std::size_t(m_) * k_, kSeedA, T(-1), T(2)),
        b_(std::size_t(k_) * n_, kSeedB, T(-1), T(2)),
        c_(std::size_t(m_) * n_, kSeedC, T(-1), T(2)) {}
  void setup() override {
    a_.allocate_and_fill();
    b_.allocate_and_fill();
    c_.allocate_and_fill();
  }
  void launch(const gpu::Geometry& g) override { launcher_(g, a_.device(), b_.device(), c_.device(), m_, n_, k_, kAlpha, kBeta); }
  void restore() override { c_.fill(); }
  std::string verify() override {
    const auto c = c_.download();
    if (auto bad = all_finite(c, "C"); !bad.empty()) return bad;
    Comparison cmp("C", rtol<T>());
    for (auto idx : sample_indices(c.size())) {
      const std::size_t row = idx / n_, col = idx % n_;
      double sum = 0, magnitude = 0;
      for (int k = 0; k < k_; ++k) {
        const double term = double(a_[row * k_ + k]) * double(b_[std::size_t(k) * n_ + col]);
        sum += term;
        magnitude += std::abs(term);
      }
      const double c0 = c_[idx];
      cmp.near(idx, c[idx], kBeta * c0 + kAlpha * sum, std::abs(kBeta * c0) + std::abs(kAlpha) * magnitude);
    }
    return cmp.verdict();
  }

 private:
  static constexpr T kAlpha = T(1.5), kBeta = T(0.5);
  Launcher launcher_;
  int m_, n_, k_;
  Uniform<T> a_, b_, c_;
};

// C = beta C + alpha A A^T, A N x K, C N x N in place.
class SyrkCase : public Case {
 public:
  explicit SyrkCase(const Size& s)
      : n_(as_int(s.nx, "N")), k_(as_int(s.nz, "K")), a_(std::size_t(n_) * k_, kSeedA, -1.0f, 2.0f),
        c_(std::size_t(n_) * n_, kSeedC, -1.0f, 2.0f) {}
  void setup() override {
    a_.allocate_and_fill();
    c_.allocate_and_fill();
  }
  void launch(const gpu::Geometry& g) override { gpu::syrk_naive_f32(g, a_.device(), c_.device(), n_, k_, kAlpha, kBeta); }
  void restore() override { c_.fill(); }
  std::string verify() override {
    const auto c = c_.download();
    if (auto bad = all_finite(c, "C"); !bad.empty()) return bad;
    Comparison cmp("C", kRtolF32);
    for (auto idx : sample_indices(c.size())) {
      const std::size_t i = idx / n_, j = idx % n_;
      double sum = 0, magnitude = 0;
      for (int k = 0; k < k_; ++k) {
        const double term = double(a_[i * k_ + k]) * double(a_[j * k_ + k]);
        sum += term;
        magnitude += std::abs(term);
      }
      const double c0 = c_[idx];
      cmp.near(idx, c[idx], kBeta * c0 + kAlpha * sum, std::abs(kBeta * c0) + kAlpha * magnitude);
    }
    return cmp.verdict();
  }

 private:
  static constexpr float kAlpha = 1.5f, kBeta = 0.5f;
  int n_, k_;
  Uniform<float> a_, c_;
};

// ---------------------------------------------------------------- matrix-vector products

// y = A x (rows results) or y = A^T x (cols results); A is rows x cols.
class GemvCase : public Case {
 public:
  using Launcher = void (*)(gpu::Geometry, const float*, const float*, float*, int, int);
  GemvCase(Launcher launcher, bool transposed, const Size& s)
      : launcher_(launcher),
        transposed_(transposed),
        rows_(as_int(s.ny, "rows")),
        cols_(as_int(s.nx, "cols")),
        a_(std::size_t(rows_) * cols_, kSeedA, -1.0f, 2.0f),
        x_(transposed ? rows_ : cols_, kSeedX, -1.0f, 2.0f),
        y_(transposed ? cols_ : rows_) {}
  void setup() override {
    a_.allocate_and_fill();
    x_.allocate_and_fill();
    y_.allocate_and_poison();
  }
  void launch(const gpu::Geometry& g) override { launcher_(g, a_.device(), x_.device(), y_.device(), rows_, cols_); }
  std::string verify() override {
    const auto y = y_.download();
    if (auto bad = all_finite(y, "y"); !bad.empty()) return bad;
    Comparison cmp("y", kRtolF32);
    for (auto i : sample_indices(y.size())) {
      double sum = 0, magnitude = 0;
      const int length = transposed_ ? rows_ : cols_;
      for (int k = 0; k < length; ++k) {
        const std::size_t a = transposed_ ? std::size_t(k) * cols_ + i : i * cols_ + k;
        const double term = double(a_[a]) * double(x_[k]);
        sum += term;
        magnitude += std::abs(term);
      }
      cmp.near(i, y[i], sum, magnitude);
    }
    return cmp.verdict();
  }

 private:
  Launcher launcher_;
  bool transposed_;
  int rows_, cols_;
  Uniform<float> a_, x_;
  Output<float> y_;
};

// Column means, or column standard deviations around given (random) means.
class ColumnStatsCase : public Case {
 public:
  ColumnStatsCase(bool deviation, const Size& s)
      : deviation_(deviation),
        rows_(as_int(s.ny, "rows")),
        cols_(as_int(s.nx, "cols")),
        data_(std::size_t(rows_) * cols_, kSeedA, -1.0f, 2.0f),
        mean_(cols_, kSeedB, -0.5f, 1.0f),
        out_(cols_) {}
  void setup() override {
    data_.allocate_and_fill();
    if (deviation_) mean_.allocate_and_fill();
    out_.allocate_and_poison();
  }
  void launch(const gpu::Geometry& g) override {
    if (deviation_)
      gpu::colstd_naive_f32(g, data_.device(), mean_.device(), out_.device(), rows_, cols_);
    else
      gpu::colmean_naive_f32(g, data_.device(), out_.device(), rows_, cols_);
  }
  std::string verify() override {
    const auto out = out_.download();
    if (auto bad = all_finite(out, deviation_ ? "std" : "mean"); !bad.empty()) return bad;
    Comparison cmp(deviation_ ? "std" : "mean", kRtolF32);
    for (auto j : sample_indices(out.size())) {
      double sum = 0, magnitude = 0;
      for (int i = 0; i < rows_; ++i) {
        const double d = data_[std::size_t(i) * cols_ + j];
        const double term = deviation_ ? (d - double(mean_[j])) * (d - double(mean_[j])) : d;
        sum += term;
        magnitude += std::abs(term);
      }
      if (deviation_)  // sqrt halves the sum's relative error: compare against the result itself
        cmp.near(j, out[j], std::sqrt(sum / rows_), std::sqrt(sum / rows_));
      else
        cmp.near(j, out[j], sum / rows_, magnitude / rows_);
    }
    return cmp.verdict();
  }

 private:
  bool deviation_;
  int rows_, cols_;
  Uniform<float> data_, mean_;
  Output<float> out_;
};

// ---------------------------------------------------------------- transposes

class TransposeCase : public Case {
 public:
  using Launcher = void (*)(gpu::Geometry, const float*, float*, int, int);
  TransposeCase(Launcher launcher, const Size& s)
      : launcher_(launcher), rows_(as_int(s.ny, "rows")), cols_(as_int(s.nx, "cols")),
        in_(std::size_t(rows_) * cols_, kSeedA, -1.0f, 2.0f), out_(std::size_t(rows_) * cols_) {}
  void setup() override {
    in_.allocate_and_fill();
    out_.allocate_and_poison();
  }
  void launch(const gpu::Geometry& g) override { launcher_(g, in_.device(), out_.device(), rows_, cols_); }
  std::string verify() override {
    const auto out = out_.download();
    if (auto bad = all_finite(out, "out"); !bad.empty()) return bad;
    Comparison cmp("out", kRtolF32);
    for (auto o : sample_indices(out.size())) {
      const std::size_t c = o / rows_, r = o % rows_;  // out is cols x rows
      cmp.equal(o, out[o], in_[r * cols_ + c]);
    }
    return cmp.verdict();
  }

 private:
  Launcher launcher_;
  int rows_, cols_;
  Uniform<float> in_;
  Output<float> out_;
};

}  // namespace

std::unique_ptr<Case> make_dense_case(const KernelDecl& k, const Size& s, Shape) {
  const std::string& n = k.name;
  using F32Pair = TwoInputCase<float>;
  if (n == "copy-f32" || n == "copy-vec4-f32") return std::make_unique<CopyCase>(n == "copy-vec4-f32", s);
  if (n == "triad-f32") return std::make_unique<F32Pair>(F32Pair::Op::triad, s);
  if (n == "triad-f64") return std::make_unique<TwoInputCase<double>>(TwoInputCase<double>::Op::triad, s);
  if (n == "vadd-tiny-f32") return std::make_unique<F32Pair>(F32Pair::Op::add, s);
  if (n == "gemm-naive-f32") return std::make_unique<GemmCase<float>>(&gpu::gemm_naive_f32, s);
  if (n == "gemm-naive-f64") return std::make_unique<GemmCase<double>>(&gpu::gemm_naive_f64, s);
  if (n == "gemm-tiled-f32") return std::make_unique<GemmCase<float>>(&gpu::gemm_tiled_f32, s);
  if (n == "gemm-tiled-bt-f32") return std::make_unique<GemmCase<float>>(&gpu::gemm_tiled_bt_f32, s);
  if (n == "gemm-tiled-bt-padded-f32") return std::make_unique<GemmCase<float>>(&gpu::gemm_tiled_bt_padded_f32, s);
  if (n == "gemm-tiled-f64") return std::make_unique<GemmCase<double>>(&gpu::gemm_tiled_f64, s);
  if (n == "syrk-naive-f32") return std::make_unique<SyrkCase>(s);
  if (n == "gemv-naive-f32") return std::make_unique<GemvCase>(&gpu::gemv_naive_f32, false, s);
  if (n == "gemvt-naive-f32") return std::make_unique<GemvCase>(&gpu::gemvt_naive_f32, true, s);
  if (n == "gemv-row-f32" || n == "gemv-fewrows-f32") return std::make_unique<GemvCase>(&gpu::gemv_row_f32, false, s);
  if (n == "gemv-col-f32") return std::make_unique<GemvCase>(&gpu::gemv_col_f32, true, s);
  if (n == "gemv-warp-f32") return std::make_unique<GemvCase>(&gpu::gemv_warp_f32, false, s);
  if (n == "colmean-naive-f32" || n == "colstd-naive-f32")
    return std::make_unique<ColumnStatsCase>(n == "colstd-naive-f32", s);
  if (n == "transpose-naive-f32") return std::make_unique<TransposeCase>(&gpu::transpose_naive_f32, s);
  if (n == "transpose-smem-f32") return std::make_unique<TransposeCase>(&gpu::transpose_smem_f32, s);
  if (n == "transpose-smem-padded-f32") return std::make_unique<TransposeCase>(&gpu::transpose_smem_padded_f32, s);
  return nullptr;
}

}  // namespace warpmodel::corpus::detail
