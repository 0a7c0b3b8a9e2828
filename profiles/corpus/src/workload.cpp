// make_corpus_workload (workload.hpp): a Case (harness.hpp) behind the cupti::Workload interface.
#include "warpmodel/corpus/workload.hpp"

#include <stdexcept>

#include "harness.hpp"

namespace warpmodel::corpus {
namespace {

class CorpusWorkload : public cupti::Workload {
 public:
  CorpusWorkload(const KernelDecl& kernel, const Size& size, Shape shape, std::unique_ptr<detail::Case> c)
      : kernel_(kernel), size_(size), shape_(shape), case_(std::move(c)) {
    const Dim3 g = grid(kernel, size, shape);
    if (g.x > 2147483647LL || g.y > 65535 || g.z > 65535)
      throw std::invalid_argument(kernel.name + " at " + size.label + " with block " + shape.label() + ": a grid of " +
                                  std::to_string(g.x) + "x" + std::to_string(g.y) + "x" + std::to_string(g.z) +
                                  " blocks exceeds the device's limits");
    geometry_.grid = dim3(static_cast<unsigned>(g.x), static_cast<unsigned>(g.y), static_cast<unsigned>(g.z));
    geometry_.block = dim3(shape.x, shape.y, 1);
  }
  std::string description() const override {
    return "corpus " + kernel_.name + " size=" + size_.label + " block=" + shape_.label();
  }
  void setup() override {
    case_->setup();
    detail::cuda::check(cudaDeviceSynchronize(), "corpus setup of " + kernel_.name);
  }
  std::size_t launch_count() const override { return 1; }
  std::string launch_label(std::size_t) const override { return kernel_.name; }
  void launch(std::size_t) override {
    case_->launch(geometry_);
    detail::cuda::check_launch(kernel_.name.c_str());
  }
  void restore_inputs() override { case_->restore(); }
  std::string verify() override {
    detail::cuda::check(cudaDeviceSynchronize(), "corpus launch of " + kernel_.name);
    const std::string wrong = case_->verify();
    return wrong.empty() ? "" : kernel_.name + " " + size_.label + " block " + shape_.label() + ": " + wrong;
  }

 private:
  KernelDecl kernel_;
  Size size_;
  Shape shape_;
  gpu::Geometry geometry_;
  std::unique_ptr<detail::Case> case_;
};

}  // namespace

std::unique_ptr<cupti::Workload> make_corpus_workload(const KernelDecl& kernel, const Size& size, Shape shape) {
  if (const std::string why = shape_problem(kernel, size, shape); !why.empty()) throw std::invalid_argument(why);
  for (detail::CaseFactory factory : {&detail::make_dense_case, &detail::make_irregular_case,
                                      &detail::make_compute_case, &detail::make_stencil_case,
                                      &detail::make_tensor_case})
    if (auto c = factory(kernel, size, shape)) return std::make_unique<CorpusWorkload>(kernel, size, shape, std::move(c));
  throw std::logic_error("corpus: no workload for kernel " + kernel.name);
}

}  // namespace warpmodel::corpus
