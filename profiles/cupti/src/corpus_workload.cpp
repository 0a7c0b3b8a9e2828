// make_corpus_request_workload (corpus_workload.hpp).
#include "corpus_workload.hpp"

#include <vector>

#include "warpmodel/corpus/corpus.hpp"
#include "warpmodel/corpus/workload.hpp"

namespace warpmodel::cupti {
namespace {

// Several corpus workloads as one: launch i is kernel i's one launch. Each is set up (and holds
// its buffers) for the whole profile, so `--variant all` at a large size needs their sum of
// device memory; profile large sizes a few kernels at a time.
class CorpusListWorkload : public Workload {
 public:
  explicit CorpusListWorkload(std::vector<std::unique_ptr<Workload>> parts) : parts_(std::move(parts)) {}
  std::string description() const override {
    std::string d = "corpus, " + std::to_string(parts_.size()) + " kernels:";
    for (const auto& p : parts_) d.append(" ").append(p->launch_label(0));
    return d;
  }
  void setup() override {
    for (auto& p : parts_) p->setup();
  }
  std::size_t launch_count() const override { return parts_.size(); }
  std::string launch_label(std::size_t i) const override { return parts_.at(i)->launch_label(0); }
  void launch(std::size_t i) override { parts_.at(i)->launch(0); }
  void restore_inputs() override {
    for (auto& p : parts_) p->restore_inputs();
  }
  std::string verify() override {
    std::string wrong;
    for (auto& p : parts_)
      if (const std::string w = p->verify(); !w.empty()) wrong += (wrong.empty() ? "" : "; ") + w;
    return wrong;
  }

 private:
  std::vector<std::unique_ptr<Workload>> parts_;
};

}  // namespace

std::unique_ptr<Workload> make_corpus_request_workload(const WorkloadRequest& r) {
  if (!r.order.empty() || !r.adi_kernel.empty() || !r.precision.empty())
    throw std::invalid_argument("--order, --kernel-name and --precision do not apply to corpus kernels (each has its own)");
  std::vector<std::unique_ptr<Workload>> parts;
  for (const corpus::KernelDecl* k : corpus::select_kernels(r.variant.empty() ? "copy-f32" : r.variant)) {
    const corpus::Size& size = corpus::select_size(*k, r.size.empty() ? "small" : r.size);
    const corpus::Shape shape = r.block.empty() ? k->shapes.front() : corpus::parse_shape(r.block);
    parts.push_back(corpus::make_corpus_workload(*k, size, shape));
  }
  if (parts.size() == 1) return std::move(parts.front());
  return std::make_unique<CorpusListWorkload>(std::move(parts));
}

}  // namespace warpmodel::cupti
