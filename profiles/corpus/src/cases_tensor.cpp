// Workload cases of the tensor-core GEMM tiles (kernels/tensor_cores.cu, tensor_cores_wgmma.cu):
// C (M x N, FP32) = A B with A M x K and B N x K (K contiguous), the inputs multiples of 1/8 in
// [-1, 1) (random.hpp eighths_f32: exact in FP16, BF16 and FP8 E4M3). Every product is then a
// multiple of 1/64 and every sum of them up to K = 4096 is exact in FP32, so the FP16 and BF16
// results must match the double reference to FP32's tolerance whatever order the tensor cores add
// in; FP8 gets 1e-3 (the FP8 tensor cores add with fewer bits than FP32), still far below the
// error of one wrong or missing term (at least 1/64 of a magnitude of about K / 4).
#include <stdexcept>

#include "harness.hpp"

namespace warpmodel::corpus::detail {
namespace {

constexpr std::uint64_t kSeedA = 201, kSeedB = 202;
constexpr double kRtolF8 = 1e-3;

enum class Input { f16, bf16, e4m3 };

class TensorGemmCase : public Case {
 public:
  using Launcher16 = void (*)(gpu::Geometry, const std::uint16_t*, const std::uint16_t*, float*, int, int, int);
  using Launcher8 = void (*)(gpu::Geometry, const std::uint8_t*, const std::uint8_t*, float*, int, int, int);
  TensorGemmCase(Input input, Launcher16 launcher16, Launcher8 launcher8, const Size& s)
      : input_(input),
        launcher16_(launcher16),
        launcher8_(launcher8),
        m_(as_int(s.ny, "M")),
        n_(as_int(s.nx, "N")),
        k_(as_int(s.nz, "K")),
        c_(std::size_t(m_) * n_) {}
  void setup() override {
    const std::size_t a = std::size_t(m_) * k_, b = std::size_t(n_) * k_;
    if (input_ == Input::e4m3) {
      a8_ = allocate<std::uint8_t>(a);
      b8_ = allocate<std::uint8_t>(b);
      gpu::fill_eighths_e4m3(a8_.data(), a, kSeedA);
      gpu::fill_eighths_e4m3(b8_.data(), b, kSeedB);
    } else {
      a16_ = allocate<std::uint16_t>(a);
      b16_ = allocate<std::uint16_t>(b);
      auto fill = input_ == Input::f16 ? &gpu::fill_eighths_f16 : &gpu::fill_eighths_bf16;
      fill(a16_.data(), a, kSeedA);
      fill(b16_.data(), b, kSeedB);
    }
    cuda::check_launch("corpus fill_eighths");
    c_.allocate_and_poison();
  }
  void launch(const gpu::Geometry& g) override {
    if (input_ == Input::e4m3)
      launcher8_(g, a8_.data(), b8_.data(), c_.device(), m_, n_, k_);
    else
      launcher16_(g, a16_.data(), b16_.data(), c_.device(), m_, n_, k_);
  }
  std::string verify() override {
    const auto c = c_.download();
    if (auto bad = all_finite(c, "C"); !bad.empty()) return bad;
    Comparison cmp("C", input_ == Input::e4m3 ? kRtolF8 : kRtolF32);
    for (auto idx : sample_indices(c.size())) {
      const std::size_t row = idx / n_, col = idx % n_;
      double sum = 0, magnitude = 0;
      for (int k = 0; k < k_; ++k) {
        const double term = double(eighths_f32(kSeedA, row * k_ + k)) * double(eighths_f32(kSeedB, col * k_ + k));
        sum += term;
        magnitude += std::abs(term);
      }
      cmp.near(idx, c[idx], sum, magnitude);
    }
    return cmp.verdict();
  }

 private:
  Input input_;
  Launcher16 launcher16_;
  Launcher8 launcher8_;
  int m_, n_, k_;
  cuda::DeviceBuffer<std::uint16_t> a16_, b16_;
  cuda::DeviceBuffer<std::uint8_t> a8_, b8_;
  Output<float> c_;
};

}  // namespace

std::unique_ptr<Case> make_tensor_case(const KernelDecl& k, const Size& s, Shape) {
  const std::string& n = k.name;
  if (n == "gemm-wmma-f16") return std::make_unique<TensorGemmCase>(Input::f16, &gpu::gemm_wmma_f16, nullptr, s);
  if (n == "gemm-mma-bf16") return std::make_unique<TensorGemmCase>(Input::bf16, &gpu::gemm_mma_bf16, nullptr, s);
  if (n == "gemm-wgmma-f16") return std::make_unique<TensorGemmCase>(Input::f16, &gpu::gemm_wgmma_f16, nullptr, s);
  if (n == "gemm-wgmma-e4m3") return std::make_unique<TensorGemmCase>(Input::e4m3, nullptr, &gpu::gemm_wgmma_e4m3, s);
  return nullptr;
}

}  // namespace warpmodel::corpus::detail
