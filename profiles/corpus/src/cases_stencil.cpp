// Workload cases of the stencils: the 1D 9-point stencil (plain, cp.async, TMA), the 2D/3D
// convolutions, Jacobi and the three FDTD-2D updates.
#include <stdexcept>

#include "harness.hpp"

namespace warpmodel::corpus::detail {
namespace {

constexpr std::uint64_t kSeedIn = 401, kSeedEx = 402, kSeedEy = 403, kSeedHz = 404;

// ---------------------------------------------------------------- 1D 9-point stencil

gpu::Stencil9 stencil_weights() {
  gpu::Stencil9 w{};
  for (int m = 0; m <= 2 * gpu::kStencilRadius; ++m) w.w[m] = static_cast<float>(m % 3 + 1) / 16.0f - 0.1f;
  return w;
}

class Stencil1dCase : public Case {
 public:
  using Launcher = void (*)(gpu::Geometry, const float*, float*, int, const gpu::Stencil9&);
  Stencil1dCase(Launcher launcher, bool whole_16_bytes, const Size& s)
      : launcher_(launcher), n_(as_int(s.nx, "nx")), in_(std::size_t(n_) + 2 * gpu::kStencilRadius, kSeedIn, -1.0f, 2.0f),
        out_(n_) {
    if (whole_16_bytes && n_ % 4 != 0)
      throw std::invalid_argument("stencil1d-tma-f32: the size must be a multiple of 4 (16-byte bulk copies)");
  }
  void setup() override {
    in_.allocate_and_fill();
    out_.allocate_and_poison();
  }
  void launch(const gpu::Geometry& g) override { launcher_(g, in_.device(), out_.device(), n_, weights_); }
  std::string verify() override {
    const auto out = out_.download();
    if (auto bad = all_finite(out, "out"); !bad.empty()) return bad;
    Comparison cmp("out", kRtolF32);
    for (auto i : sample_indices(out.size())) {
      double sum = 0, magnitude = 0;
      for (int m = 0; m <= 2 * gpu::kStencilRadius; ++m) {
        const double term = double(weights_.w[m]) * double(in_[i + m]);
        sum += term;
        magnitude += std::abs(term);
      }
      cmp.near(i, out[i], sum, magnitude);
    }
    return cmp.verdict();
  }

 private:
  Launcher launcher_;
  int n_;
  gpu::Stencil9 weights_ = stencil_weights();
  Uniform<float> in_;
  Output<float> out_;
};

// ---------------------------------------------------------------- 2D and 3D stencils

// conv2d-3x3, jacobi2d-5pt (2D, planes = 1) and conv3d-3x3x3: interior points are a weighted sum
// of their neighbours, border points copy the input.
class GridStencilCase : public Case {
 public:
  enum class Kind { conv2d, jacobi2d, conv3d };
  GridStencilCase(Kind kind, const Size& s)
      : kind_(kind), cols_(as_int(s.nx, "nx")), rows_(as_int(s.ny, "ny")), planes_(as_int(s.nz, "nz")),
        points_(std::size_t(cols_) * rows_ * planes_), in_(points_, kSeedIn, -1.0f, 2.0f), out_(points_) {
    for (int k = 0; k < 9; ++k) conv2d_.w[k] = static_cast<float>(k % 3 + 1 + k / 3) / 16.0f;
    for (int k = 0; k < 27; ++k) conv3d_.w[k] = static_cast<float>((k % 5) - 2) / 8.0f + 0.03125f;
  }
  void setup() override {
    in_.allocate_and_fill();
    out_.allocate_and_poison();
  }
  void launch(const gpu::Geometry& g) override {
    switch (kind_) {
      case Kind::conv2d: gpu::conv2d_3x3_f32(g, in_.device(), out_.device(), rows_, cols_, conv2d_); break;
      case Kind::jacobi2d: gpu::jacobi2d_5pt_f32(g, in_.device(), out_.device(), rows_, cols_); break;
      case Kind::conv3d: gpu::conv3d_3x3x3_f32(g, in_.device(), out_.device(), planes_, rows_, cols_, conv3d_); break;
    }
  }
  std::string verify() override {
    const auto out = out_.download();
    if (auto bad = all_finite(out, "out"); !bad.empty()) return bad;
    Comparison cmp("out", kRtolF32);
    for (auto p : sample_indices(out.size())) {
      const long long x = p % cols_, y = (p / cols_) % rows_, z = p / (std::size_t(cols_) * rows_);
      const bool border = x == 0 || y == 0 || x == cols_ - 1 || y == rows_ - 1 ||
                          (kind_ == Kind::conv3d && (z == 0 || z == planes_ - 1));
      if (border) {
        cmp.equal(p, out[p], in_[p]);
        continue;
      }
      double sum = 0, magnitude = 0;
      auto add = [&](double w, long long dz, long long dy, long long dx) {
        const long long q = static_cast<long long>(p) + (dz * rows_ + dy) * cols_ + dx;
        const double term = w * double(in_[static_cast<std::size_t>(q)]);
        sum += term;
        magnitude += std::abs(term);
      };
      if (kind_ == Kind::jacobi2d) {
        constexpr int kPoints[5][2] = {{0, 0}, {0, -1}, {0, 1}, {-1, 0}, {1, 0}};  // (dy, dx)
        for (const auto& d : kPoints) add(1.0, 0, d[0], d[1]);
        sum *= 0.2f;
        magnitude *= 0.2f;
      } else if (kind_ == Kind::conv2d) {
        for (int dy = -1; dy <= 1; ++dy)
          for (int dx = -1; dx <= 1; ++dx) add(conv2d_.w[(dy + 1) * 3 + dx + 1], 0, dy, dx);
      } else {
        for (int dz = -1; dz <= 1; ++dz)
          for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) add(conv3d_.w[(dz + 1) * 9 + (dy + 1) * 3 + dx + 1], dz, dy, dx);
      }
      cmp.near(p, out[p], sum, magnitude);
    }
    return cmp.verdict();
  }

 private:
  Kind kind_;
  int cols_, rows_, planes_;
  std::size_t points_;
  gpu::Conv3x3 conv2d_{};
  gpu::Conv3x3x3 conv3d_{};
  Uniform<float> in_;
  Output<float> out_;
};

// One of PolyBench fdtd-2d's updates, in place on its field (restored before every launch).
class FdtdCase : public Case {
 public:
  enum class Field { ey, ex, hz };
  FdtdCase(Field field, const Size& s)
      : field_(field), cols_(as_int(s.nx, "nx")), rows_(as_int(s.ny, "ny")), points_(std::size_t(cols_) * rows_),
        ex_(points_, kSeedEx, -1.0f, 2.0f), ey_(points_, kSeedEy, -1.0f, 2.0f), hz_(points_, kSeedHz, -1.0f, 2.0f) {}
  void setup() override {
    hz_.allocate_and_fill();
    if (field_ != Field::ey) ex_.allocate_and_fill();
    if (field_ != Field::ex) ey_.allocate_and_fill();
  }
  void launch(const gpu::Geometry& g) override {
    switch (field_) {
      case Field::ey: gpu::fdtd2d_ey_f32(g, ey_.device(), hz_.device(), rows_, cols_, kFict); break;
      case Field::ex: gpu::fdtd2d_ex_f32(g, ex_.device(), hz_.device(), rows_, cols_); break;
      case Field::hz: gpu::fdtd2d_hz_f32(g, hz_.device(), ex_.device(), ey_.device(), rows_, cols_); break;
    }
  }
  void restore() override { updated().fill(); }
  std::string verify() override {
    const auto out = updated().download();
    const char* name = field_ == Field::ey ? "ey" : field_ == Field::ex ? "ex" : "hz";
    if (auto bad = all_finite(out, name); !bad.empty()) return bad;
    Comparison cmp(name, kRtolF32);
    const std::size_t c = cols_;
    for (auto p : sample_indices(out.size())) {
      const std::size_t i = p / c, j = p % c;
      double expected = 0, magnitude = 0;
      if (field_ == Field::ey) {
        expected = i == 0 ? kFict : ey_[p] - 0.5f * (double(hz_[p]) - hz_[p - c]);
        magnitude = i == 0 ? 0 : std::abs(ey_[p]) + 0.5 * (std::abs(hz_[p]) + std::abs(hz_[p - c]));
      } else if (field_ == Field::ex) {
        expected = j == 0 ? ex_[p] : ex_[p] - 0.5f * (double(hz_[p]) - hz_[p - 1]);
        magnitude = j == 0 ? 0 : std::abs(ex_[p]) + 0.5 * (std::abs(hz_[p]) + std::abs(hz_[p - 1]));
      } else if (i + 1 < std::size_t(rows_) && j + 1 < c) {
        expected = hz_[p] - 0.7f * (double(ex_[p + 1]) - ex_[p] + ey_[p + c] - ey_[p]);
        magnitude = std::abs(hz_[p]) +
                    0.7 * (std::abs(ex_[p + 1]) + std::abs(ex_[p]) + std::abs(ey_[p + c]) + std::abs(ey_[p]));
      } else {
        expected = hz_[p];
      }
      if (magnitude == 0)
        cmp.equal(p, out[p], expected);
      else
        cmp.near(p, out[p], expected, magnitude);
    }
    return cmp.verdict();
  }

 private:
  static constexpr float kFict = 0.75f;  // PolyBench's _fict_[t] for this step
  Uniform<float>& updated() { return field_ == Field::ey ? ey_ : field_ == Field::ex ? ex_ : hz_; }
  Field field_;
  int cols_, rows_;
  std::size_t points_;
  Uniform<float> ex_, ey_, hz_;
};

}  // namespace

std::unique_ptr<Case> make_stencil_case(const KernelDecl& k, const Size& s, Shape) {
  const std::string& n = k.name;
  if (n == "stencil1d-f32") return std::make_unique<Stencil1dCase>(&gpu::stencil1d_f32, false, s);
  if (n == "stencil1d-cpasync-f32") return std::make_unique<Stencil1dCase>(&gpu::stencil1d_cpasync_f32, false, s);
  if (n == "stencil1d-tma-f32") return std::make_unique<Stencil1dCase>(&gpu::stencil1d_tma_f32, true, s);
  using Grid = GridStencilCase::Kind;
  if (n == "conv2d-3x3-f32") return std::make_unique<GridStencilCase>(Grid::conv2d, s);
  if (n == "jacobi2d-5pt-f32") return std::make_unique<GridStencilCase>(Grid::jacobi2d, s);
  if (n == "conv3d-3x3x3-f32") return std::make_unique<GridStencilCase>(Grid::conv3d, s);
  if (n == "fdtd2d-ey-f32") return std::make_unique<FdtdCase>(FdtdCase::Field::ey, s);
  if (n == "fdtd2d-ex-f32") return std::make_unique<FdtdCase>(FdtdCase::Field::ex, s);
  if (n == "fdtd2d-hz-f32") return std::make_unique<FdtdCase>(FdtdCase::Field::hz, s);
  return nullptr;
}

}  // namespace warpmodel::corpus::detail
