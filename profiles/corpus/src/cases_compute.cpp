// Workload cases of the compute-bound kernels, the divergent branches and the local-memory kernels.
#include <stdexcept>

#include "harness.hpp"

namespace warpmodel::corpus::detail {
namespace {

constexpr std::uint64_t kSeedX = 301, kSeedKeys = 302, kSeedBodies = 303;

// ---------------------------------------------------------------- polynomials

// c_k = (-1)^k / (k + 1), rounded to T: the reference uses the rounded coefficients.
template <class T, class Table>
Table poly_coefficients() {
  Table p{};
  for (int k = 0; k <= gpu::kPolyDegree; ++k) p.c[k] = static_cast<T>((k % 2 ? -1.0 : 1.0) / (k + 1));
  return p;
}

template <class T>
class PolyCase : public Case {
 public:
  explicit PolyCase(const Size& s) : n_(as_int(s.nx, "nx")), x_(n_, kSeedX, T(-1), T(2)), y_(n_) {}
  void setup() override {
    x_.allocate_and_fill();
    y_.allocate_and_poison();
  }
  void launch(const gpu::Geometry& g) override {
    if constexpr (sizeof(T) == sizeof(double))
      gpu::poly_f64(g, x_.device(), y_.device(), n_, coefficients_);
    else
      gpu::poly_f32(g, x_.device(), y_.device(), n_, coefficients_);
  }
  std::string verify() override {
    const auto y = y_.download();
    if (auto bad = all_finite(y, "y"); !bad.empty()) return bad;
    Comparison cmp("y", rtol<T>());
    for (auto i : sample_indices(y.size())) {
      const double v = x_[i];
      double p = coefficients_.c[gpu::kPolyDegree], magnitude = std::abs(p);
      for (int k = gpu::kPolyDegree - 1; k >= 0; --k) {
        p = p * v + coefficients_.c[k];
        magnitude = magnitude * std::abs(v) + std::abs(double(coefficients_.c[k]));
      }
      cmp.near(i, y[i], p, magnitude);
    }
    return cmp.verdict();
  }

 private:
  using Table = std::conditional_t<sizeof(T) == sizeof(double), gpu::PolyF64, gpu::PolyF32>;
  int n_;
  Table coefficients_ = poly_coefficients<T, Table>();
  Uniform<T> x_;
  Output<T> y_;
};

// ---------------------------------------------------------------- special functions

class SfuCase : public Case {
 public:
  explicit SfuCase(const Size& s) : n_(as_int(s.nx, "nx")), x_(n_, kSeedX, -1.0f, 2.0f), y_(n_) {}
  void setup() override {
    x_.allocate_and_fill();
    y_.allocate_and_poison();
  }
  void launch(const gpu::Geometry& g) override { gpu::sfu_f32(g, x_.device(), y_.device(), n_, kRounds); }
  std::string verify() override {
    const auto y = y_.download();
    if (auto bad = all_finite(y, "y"); !bad.empty()) return bad;
    Comparison cmp("y", kRtolF32);
    for (auto i : sample_indices(y.size())) {
      double sum = 0, magnitude = 0;
      for (int r = 0; r < kRounds; ++r) {
        const double t = x_[i] + 0.0625f * static_cast<float>(r);  // exact in float, as on the device
        const double a = std::sin(t) * std::exp(-t), b = 1.0 / std::sqrt(1.0 + t * t);
        sum += a + b;
        magnitude += std::abs(a) + std::abs(b);
      }
      cmp.near(i, y[i], sum, magnitude);
    }
    return cmp.verdict();
  }

 private:
  static constexpr int kRounds = 32;
  int n_;
  Uniform<float> x_;
  Output<float> y_;
};

// ---------------------------------------------------------------- n-body

// Bodies (x, y, z, mass) with every component in [0.5, 1.5): a unit cube of positive masses.
class NbodyCase : public Case {
 public:
  explicit NbodyCase(const Size& s) : n_(as_int(s.nx, "bodies")), bodies_(4 * std::size_t(n_), kSeedBodies, 0.5f, 1.0f),
                                      accel_(4 * std::size_t(n_)) {}
  void setup() override {
    bodies_.allocate_and_fill();
    accel_.allocate_and_poison();
  }
  void launch(const gpu::Geometry& g) override { gpu::nbody_f32(g, bodies_.device(), accel_.device(), n_, kSoftening2); }
  std::string verify() override {
    const auto a = accel_.download();
    if (auto bad = all_finite(a, "accel"); !bad.empty()) return bad;
    std::vector<double> body(4 * std::size_t(n_));
    for (std::size_t e = 0; e < body.size(); ++e) body[e] = bodies_[e];
    Comparison cmp("accel", kRtolF32);
    for (auto i : sample_indices(std::size_t(n_), 256)) {
      double sum[3] = {0, 0, 0}, magnitude[3] = {0, 0, 0};
      for (int j = 0; j < n_; ++j) {
        double d[3];
        for (int c = 0; c < 3; ++c) d[c] = body[4 * std::size_t(j) + c] - body[4 * i + c];
        const double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + double(kSoftening2);
        const double s = body[4 * std::size_t(j) + 3] / (r2 * std::sqrt(r2));
        for (int c = 0; c < 3; ++c) {
          sum[c] += d[c] * s;
          magnitude[c] += std::abs(d[c] * s);
        }
      }
      for (int c = 0; c < 3; ++c) cmp.near(4 * i + c, a[4 * i + c], sum[c], magnitude[c]);
      cmp.equal(4 * i + 3, a[4 * i + 3], 0.0);
    }
    return cmp.verdict();
  }

 private:
  static constexpr float kSoftening2 = 0.01f;
  int n_;
  Uniform<float> bodies_;
  Output<float> accel_;
};

// ---------------------------------------------------------------- divergent branches

// The four paths of branch_paths_f32, in double.
double branch_path(std::uint32_t key, double v) {
  switch (key & 3u) {
    case 0:
      for (int k = 0; k < 16; ++k) v = v * 0.75 + 0.125;
      break;
    case 1:
      for (int k = 0; k < 32; ++k) v = v * v - 0.25;
      break;
    case 2:
      for (int k = 0; k < 48; ++k) v = (v * -0.5 + 0.25) * 0.875;
      break;
    default:
      for (int k = 0; k < 64; ++k) v = v * v * -0.0625 + v * 0.9375;
      break;
  }
  return v;
}

// Keys per lane (divergent) or per warp of 32 consecutive threads (uniform); the same kernel.
class BranchCase : public Case {
 public:
  BranchCase(bool warp_uniform, const Size& s)
      : n_(as_int(s.nx, "nx")), keys_(n_, kSeedKeys, 0, warp_uniform ? 32 : 1), x_(n_, kSeedX, -0.5f, 1.0f), y_(n_) {}
  void setup() override {
    keys_.allocate_and_fill();
    x_.allocate_and_fill();
    y_.allocate_and_poison();
  }
  void launch(const gpu::Geometry& g) override { gpu::branch_paths_f32(g, keys_.device(), x_.device(), y_.device(), n_); }
  std::string verify() override {
    const auto y = y_.download();
    if (auto bad = all_finite(y, "y"); !bad.empty()) return bad;
    Comparison cmp("y", kRtolF32);
    // Every path is a contraction of values of order one: compare on that scale.
    for (auto i : sample_indices(y.size())) cmp.near(i, y[i], branch_path(keys_[i], x_[i]), 1.0);
    return cmp.verdict();
  }

 private:
  int n_;
  Keys keys_;
  Uniform<float> x_;
  Output<float> y_;
};

// ---------------------------------------------------------------- local memory

class LocalHistCase : public Case {
 public:
  explicit LocalHistCase(const Size& s) : n_(as_int(s.nx, "nx")), keys_(8 * std::size_t(n_), kSeedKeys, 0), mode_(n_) {}
  void setup() override {
    keys_.allocate_and_fill();
    mode_.allocate_and_poison();
  }
  void launch(const gpu::Geometry& g) override { gpu::local_hist_u32(g, keys_.device(), mode_.device(), n_); }
  std::string verify() override {
    const auto mode = mode_.download();
    if (auto bad = none_poisoned(mode, "mode"); !bad.empty()) return bad;
    Comparison cmp("mode", 0);
    for (auto i : sample_indices(mode.size())) {
      unsigned hist[64] = {};
      for (int w = 0; w < 8; ++w)
        for (int shift = 0; shift < 32; shift += 8) ++hist[(keys_[std::size_t(w) * n_ + i] >> shift) & 63u];
      unsigned best = 0;
      for (unsigned b = 1; b < 64; ++b)
        if (hist[b] > hist[best]) best = b;
      cmp.equal(i, mode[i], 256.0 * best + hist[best]);
    }
    return cmp.verdict();
  }

 private:
  int n_;
  Keys keys_;
  Output<std::uint32_t> mode_;
};

// 48 Horner chains per thread over `rounds` inputs (launchers.hpp), capped at 32 registers or not.
class RegPressureCase : public Case {
 public:
  RegPressureCase(bool spill, const Size& s)
      : spill_(spill), n_(as_int(s.nx, "nx")), in_(std::size_t(kRounds) * n_, kSeedX, -1.0f, 2.0f), out_(n_) {}
  void setup() override {
    in_.allocate_and_fill();
    out_.allocate_and_poison();
  }
  void launch(const gpu::Geometry& g) override {
    if (spill_)
      gpu::regpressure_spill_f32(g, in_.device(), out_.device(), n_, kRounds);
    else
      gpu::regpressure_f32(g, in_.device(), out_.device(), n_, kRounds);
  }
  std::string verify() override {
    const auto out = out_.download();
    if (auto bad = all_finite(out, "out"); !bad.empty()) return bad;
    Comparison cmp("out", kRtolF32);
    for (auto i : sample_indices(out.size())) {
      double sum = 0, magnitude = 0;
      for (int j = 0; j < gpu::kRegPressureAccumulators; ++j) {
        const double c = (j + 1) / 64.0, w = (j % 7 - 3) / 8.0;
        double acc = 0, size = 0;
        for (int r = 0; r < kRounds; ++r) {
          const double v = in_[std::size_t(r) * n_ + i];
          acc = acc * v + c;
          size = size * std::abs(v) + c;
        }
        sum += acc * w;
        magnitude += size * std::abs(w);
      }
      cmp.near(i, out[i], sum, magnitude);
    }
    return cmp.verdict();
  }

 private:
  static constexpr int kRounds = 16;
  bool spill_;
  int n_;
  Uniform<float> in_;
  Output<float> out_;
};

}  // namespace

std::unique_ptr<Case> make_compute_case(const KernelDecl& k, const Size& s, Shape) {
  const std::string& n = k.name;
  if (n == "poly-f32") return std::make_unique<PolyCase<float>>(s);
  if (n == "poly-f64") return std::make_unique<PolyCase<double>>(s);
  if (n == "sfu-f32") return std::make_unique<SfuCase>(s);
  if (n == "nbody-f32") return std::make_unique<NbodyCase>(s);
  if (n == "branch-divergent-f32" || n == "branch-uniform-f32")
    return std::make_unique<BranchCase>(n == "branch-uniform-f32", s);
  if (n == "local-hist-u32") return std::make_unique<LocalHistCase>(s);
  if (n == "regpressure-f32" || n == "regpressure-spill-f32")
    return std::make_unique<RegPressureCase>(n == "regpressure-spill-f32", s);
  return nullptr;
}

}  // namespace warpmodel::corpus::detail
