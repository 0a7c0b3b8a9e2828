// Workload cases of the kernels whose results depend on how threads meet: reductions (per-block
// partials, atomics into one word, one block), histograms, gathers, block scans and the pointer
// chase.
#include <stdexcept>

#include "harness.hpp"

namespace warpmodel::corpus::detail {
namespace {

constexpr std::uint64_t kSeedIn = 201, kSeedKeys = 202, kSeedColumns = 203, kSeedValues = 204, kSeedX = 205;

// ---------------------------------------------------------------- reductions

// Per-block partial sums (shuffle or tree): block b sums in[b x block .. (b + 1) x block).
class BlockSumsCase : public Case {
 public:
  using Launcher = void (*)(gpu::Geometry, const float*, float*, int);
  BlockSumsCase(Launcher launcher, const Size& s, Shape shape)
      : launcher_(launcher), n_(as_int(s.nx, "nx")), block_(shape.x), in_(n_, kSeedIn, -1.0f, 2.0f),
        sums_((n_ + block_ - 1) / block_) {}
  void setup() override {
    in_.allocate_and_fill();
    sums_.allocate_and_poison();
  }
  void launch(const gpu::Geometry& g) override { launcher_(g, in_.device(), sums_.device(), n_); }
  std::string verify() override {
    const auto sums = sums_.download();
    if (auto bad = all_finite(sums, "block_sums"); !bad.empty()) return bad;
    Comparison cmp("block_sums", kRtolF32);
    for (auto b : sample_indices(sums.size())) {
      double sum = 0, magnitude = 0;
      for (std::size_t i = b * block_; i < std::min<std::size_t>((b + 1) * block_, n_); ++i) {
        sum += in_[i];
        magnitude += std::abs(double(in_[i]));
      }
      cmp.near(b, sums[b], sum, magnitude);
    }
    return cmp.verdict();
  }

 private:
  Launcher launcher_;
  int n_;
  unsigned block_;
  Uniform<float> in_;
  Output<float> sums_;
};

// One word: atomics into a zeroed word (zeroed again before every launch), or the one-block sum
// (which writes it).
class TotalSumCase : public Case {
 public:
  enum class Kind { atomic, warp_atomic, one_block };
  TotalSumCase(Kind kind, const Size& s)
      : kind_(kind), n_(as_int(s.nx * s.ny, "elements")), threads_(as_int(s.nx, "nx")), per_thread_(as_int(s.ny, "ny")),
        in_(n_, kSeedIn, -1.0f, 2.0f), sum_(1) {}
  void setup() override {
    in_.allocate_and_fill();
    sum_.allocate_and_poison();
    restore();
  }
  void launch(const gpu::Geometry& g) override {
    switch (kind_) {
      case Kind::atomic: gpu::reduce_atomic_f32(g, in_.device(), sum_.device(), n_); break;
      case Kind::warp_atomic: gpu::reduce_warp_atomic_f32(g, in_.device(), sum_.device(), n_); break;
      case Kind::one_block: gpu::one_block_sum_f32(g, in_.device(), sum_.device(), threads_, per_thread_); break;
    }
  }
  void restore() override {
    if (kind_ != Kind::one_block) sum_.zero();
  }
  std::string verify() override {
    const auto sum = sum_.download();
    if (auto bad = all_finite(sum, "sum"); !bad.empty()) return bad;
    double expected = 0, magnitude = 0;
    for (int i = 0; i < n_; ++i) {
      expected += in_[i];
      magnitude += std::abs(double(in_[i]));
    }
    Comparison cmp("sum", kRtolF32);
    cmp.near(0, sum[0], expected, magnitude);
    return cmp.verdict();
  }

 private:
  Kind kind_;
  int n_, threads_, per_thread_;
  Uniform<float> in_;
  Output<float> sum_;
};

// ---------------------------------------------------------------- histograms

class HistogramCase : public Case {
 public:
  using Launcher = void (*)(gpu::Geometry, const std::uint32_t*, std::uint32_t*, int);
  HistogramCase(Launcher launcher, std::uint32_t bins, const Size& s)
      : launcher_(launcher), bins_(bins), n_(as_int(s.nx, "nx")), keys_(n_, kSeedKeys, 0), counts_(bins) {}
  void setup() override {
    keys_.allocate_and_fill();
    counts_.allocate_and_poison();
    restore();
  }
  void launch(const gpu::Geometry& g) override { launcher_(g, keys_.device(), counts_.device(), n_); }
  void restore() override { counts_.zero(); }
  std::string verify() override {
    const auto counts = counts_.download();
    std::vector<double> expected(bins_, 0.0);
    for (int i = 0; i < n_; ++i) expected[keys_[i] % bins_] += 1;
    Comparison cmp("bins", 0);
    for (std::size_t b = 0; b < bins_; ++b) cmp.equal(b, counts[b], expected[b]);
    return cmp.verdict();
  }

 private:
  Launcher launcher_;
  std::uint32_t bins_;
  int n_;
  Keys keys_;
  Output<std::uint32_t> counts_;
};

// ---------------------------------------------------------------- gathers

// CSR y = A x, A rows x rows with `per_row` nonzeros per row at random columns (row_ptr regular,
// as a generator of fixed-degree matrices produces it).
class SpmvCase : public Case {
 public:
  using Launcher = void (*)(gpu::Geometry, const int*, const int*, const float*, const float*, float*, int);
  SpmvCase(Launcher launcher, const Size& s)
      : launcher_(launcher), rows_(as_int(s.ny, "rows")), per_row_(as_int(s.nx, "nonzeros per row")),
        nonzeros_(std::size_t(rows_) * per_row_), columns_(nonzeros_, kSeedColumns, std::uint32_t(rows_)),
        values_(nonzeros_, kSeedValues, -1.0f, 2.0f), x_(rows_, kSeedX, -1.0f, 2.0f), y_(rows_) {}
  void setup() override {
    row_ptr_ = allocate<int>(std::size_t(rows_) + 1);
    gpu::fill_row_pointers(row_ptr_.data(), rows_, per_row_);
    cuda::check_launch("corpus fill_row_pointers");
    columns_.allocate_and_fill();
    values_.allocate_and_fill();
    x_.allocate_and_fill();
    y_.allocate_and_poison();
  }
  void launch(const gpu::Geometry& g) override {
    // Column indices are below rows < 2^31: the same bits as int.
    launcher_(g, row_ptr_.data(), reinterpret_cast<const int*>(columns_.device()), values_.device(), x_.device(),
              y_.device(), rows_);
  }
  std::string verify() override {
    const auto y = y_.download();
    if (auto bad = all_finite(y, "y"); !bad.empty()) return bad;
    Comparison cmp("y", kRtolF32);
    for (auto r : sample_indices(y.size())) {
      double sum = 0, magnitude = 0;
      for (int k = 0; k < per_row_; ++k) {
        const std::size_t e = r * per_row_ + k;
        const double term = double(values_[e]) * double(x_[columns_[e]]);
        sum += term;
        magnitude += std::abs(term);
      }
      cmp.near(r, y[r], sum, magnitude);
    }
    return cmp.verdict();
  }

 private:
  Launcher launcher_;
  int rows_, per_row_;
  std::size_t nonzeros_;
  cuda::DeviceBuffer<int> row_ptr_;
  Keys columns_;
  Uniform<float> values_, x_;
  Output<float> y_;
};

class GatherCase : public Case {
 public:
  explicit GatherCase(const Size& s)
      : n_(as_int(s.nx, "nx")), in_(n_, kSeedIn, -1.0f, 2.0f), idx_(n_, kSeedKeys, std::uint32_t(n_)), out_(n_) {}
  void setup() override {
    in_.allocate_and_fill();
    idx_.allocate_and_fill();
    out_.allocate_and_poison();
  }
  void launch(const gpu::Geometry& g) override { gpu::gather_f32(g, in_.device(), idx_.device(), out_.device(), n_); }
  std::string verify() override {
    const auto out = out_.download();
    if (auto bad = all_finite(out, "out"); !bad.empty()) return bad;
    Comparison cmp("out", kRtolF32);
    for (auto i : sample_indices(out.size())) cmp.equal(i, out[i], in_[idx_[i]]);
    return cmp.verdict();
  }

 private:
  int n_;
  Uniform<float> in_;
  Keys idx_;
  Output<float> out_;
};

// ---------------------------------------------------------------- scans

// Inclusive scan of each block's blockDim.x elements: out[i] = sum of in[block start .. i].
class BlockScanCase : public Case {
 public:
  using Launcher = void (*)(gpu::Geometry, const float*, float*, int);
  BlockScanCase(Launcher launcher, const Size& s, Shape shape)
      : launcher_(launcher), n_(as_int(s.nx, "nx")), block_(shape.x), in_(n_, kSeedIn, -1.0f, 2.0f), out_(n_) {}
  void setup() override {
    in_.allocate_and_fill();
    out_.allocate_and_poison();
  }
  void launch(const gpu::Geometry& g) override { launcher_(g, in_.device(), out_.device(), n_); }
  std::string verify() override {
    const auto out = out_.download();
    if (auto bad = all_finite(out, "out"); !bad.empty()) return bad;
    Comparison cmp("out", kRtolF32);
    for (auto i : sample_indices(out.size())) {
      double sum = 0, magnitude = 0;
      for (std::size_t j = i - i % block_; j <= i; ++j) {
        sum += in_[j];
        magnitude += std::abs(double(in_[j]));
      }
      cmp.near(i, out[i], sum, magnitude);
    }
    return cmp.verdict();
  }

 private:
  Launcher launcher_;
  int n_;
  unsigned block_;
  Uniform<float> in_;
  Output<float> out_;
};

// ---------------------------------------------------------------- the pointer chase

// nx chains, ny steps, a table of nz entries (a power of two) holding one random cycle; chain c
// starts c x (nz / nx) positions along the cycle, so chains never share an entry while
// chains x steps <= nz.
class PointerChaseCase : public Case {
 public:
  explicit PointerChaseCase(const Size& s)
      : chains_(as_int(s.nx, "chains")), steps_(as_int(s.ny, "steps")), table_(static_cast<std::size_t>(s.nz)),
        out_(chains_) {
    bits_ = 0;
    while ((std::size_t(1) << bits_) < table_) ++bits_;
    if ((std::size_t(1) << bits_) != table_ || bits_ > 30 || chains_ > int(table_))
      throw std::invalid_argument("pointer-chase-u32: the table must be a power of two of at least `chains` entries");
  }
  void setup() override {
    next_ = allocate<std::uint32_t>(table_);
    gpu::fill_chase_cycle(next_.data(), bits_);
    cuda::check_launch("corpus fill_chase_cycle");
    std::vector<std::uint32_t> start(chains_);
    for (int c = 0; c < chains_; ++c) start[c] = scramble(position(c, 0), bits_);
    start_ = allocate<std::uint32_t>(start.size());
    start_.upload(start);
    out_.allocate_and_poison();
  }
  void launch(const gpu::Geometry& g) override {
    gpu::pointer_chase_u32(g, next_.data(), start_.data(), out_.device(), chains_, steps_);
  }
  std::string verify() override {
    const auto out = out_.download();
    Comparison cmp("out", 0);
    for (int c = 0; c < chains_; ++c) cmp.equal(c, out[c], scramble(position(c, steps_), bits_));
    return cmp.verdict();
  }

 private:
  // Where chain c is along the cycle (before scrambling) after s steps.
  std::uint32_t position(int c, int s) const {
    return static_cast<std::uint32_t>((std::size_t(c) * (table_ / chains_) + s) & (table_ - 1));
  }
  int chains_, steps_;
  std::size_t table_;
  unsigned bits_ = 0;
  cuda::DeviceBuffer<std::uint32_t> next_, start_;
  Output<std::uint32_t> out_;
};

}  // namespace

std::unique_ptr<Case> make_irregular_case(const KernelDecl& k, const Size& s, Shape shape) {
  const std::string& n = k.name;
  using Total = TotalSumCase::Kind;
  if (n == "reduce-shuffle-f32") return std::make_unique<BlockSumsCase>(&gpu::reduce_shuffle_f32, s, shape);
  if (n == "reduce-tree-f32") return std::make_unique<BlockSumsCase>(&gpu::reduce_tree_f32, s, shape);
  if (n == "reduce-atomic-f32") return std::make_unique<TotalSumCase>(Total::atomic, s);
  if (n == "reduce-warp-atomic-f32") return std::make_unique<TotalSumCase>(Total::warp_atomic, s);
  if (n == "one-block-sum-f32") return std::make_unique<TotalSumCase>(Total::one_block, s);
  if (n == "hist-global-8-bins") return std::make_unique<HistogramCase>(&gpu::hist_global_8_bins, 8, s);
  if (n == "hist-global-4096-bins") return std::make_unique<HistogramCase>(&gpu::hist_global_4096_bins, 4096, s);
  if (n == "hist-shared-256-bins") return std::make_unique<HistogramCase>(&gpu::hist_shared_256_bins, 256, s);
  if (n == "spmv-csr-scalar-f32") return std::make_unique<SpmvCase>(&gpu::spmv_csr_scalar_f32, s);
  if (n == "spmv-csr-vector-f32") return std::make_unique<SpmvCase>(&gpu::spmv_csr_vector_f32, s);
  if (n == "gather-f32") return std::make_unique<GatherCase>(s);
  if (n == "scan-block-hs-f32") return std::make_unique<BlockScanCase>(&gpu::scan_block_hs_f32, s, shape);
  if (n == "scan-block-shuffle-f32") return std::make_unique<BlockScanCase>(&gpu::scan_block_shuffle_f32, s, shape);
  if (n == "pointer-chase-u32") return std::make_unique<PointerChaseCase>(s);
  return nullptr;
}

}  // namespace warpmodel::corpus::detail
