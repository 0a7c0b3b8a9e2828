// make_adi_workload (adi_workload.hpp).
#include "adi_workload.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>
#include <utility>
#include <string>
#include <vector>

#include "warpmodel/adi/gpu_solver.hpp"
#include "warpmodel/adi/state.hpp"

namespace warpmodel::cupti {
namespace {

adi::SolverConfig solver_config(const std::string& variant_text, const WorkloadRequest& r) {
  adi::SolverConfig c;
  const auto slash = variant_text.find('/');
  const std::string variant = variant_text.substr(0, slash);
  const auto v = adi::parse_variant(variant);
  if (!v)
    throw std::invalid_argument("--variant '" + variant_text +
                                "' is not an adi variant (thread-per-line, block-per-line, block-per-line/pcr, "
                                "block-per-line/cr-pcr, partitioned, partitioned/c16, fused, fused/c4, fused/c16, fused-cluster, or all)");
  c.variant = *v;
  if (slash != std::string::npos) {
    const std::string option = variant_text.substr(slash + 1);
    const bool partitions = c.variant == adi::Variant::Partitioned || c.variant == adi::Variant::Fused;
    if (partitions && option == "c16") {
      c.partition_cells = 16;
    } else if (c.variant == adi::Variant::Fused && option == "c4") {
      c.partition_cells = 4;
    } else {
      const auto s = adi::parse_block_solver(option);
      if (!s || c.variant != adi::Variant::BlockPerLine)
        throw std::invalid_argument("--variant '" + variant_text +
                                    "': a solver (pcr, cr-pcr) goes with block-per-line, c16 with partitioned or fused, "
                                    "c4 with fused");
      c.block_solver = *s;
    }
  }
  if (!r.precision.empty()) {
    const auto p = adi::parse_precision(r.precision);
    if (!p) throw std::invalid_argument("--precision '" + r.precision + "' is not single or double");
    c.precision = *p;
  }
  const std::vector<long long> size = parse_extent(r.size.empty() ? "1024" : r.size, "--size");
  if (size[2] != 1) throw std::invalid_argument("--size '" + r.size + "': adi grids are N or NXxNY");
  c.n = static_cast<int>(std::min<long long>(size[0], 1 << 30));
  if (size[1] != 1 || r.size.find('x') != std::string::npos) c.ny = static_cast<int>(std::min<long long>(size[1], 1 << 30));
  if (const std::string why = adi::validate(c); !why.empty()) throw std::invalid_argument(why);
  return c;
}

// One solver per requested variant; one launch per kernel of a step (or per named kernel), in
// the solver's order.
class AdiWorkload : public Workload {
 public:
  explicit AdiWorkload(const WorkloadRequest& r) {
    if (!r.block.empty())
      throw std::invalid_argument("--block does not apply to adi: each kernel has the solver's own launch geometry");
    for (const auto& v : expand_choice(r.variant,
                                      {"thread-per-line", "block-per-line/pcr", "block-per-line/cr-pcr", "partitioned",
                                       "partitioned/c16", "fused", "fused/c4", "fused/c16", "fused-cluster"},
                                      "thread-per-line"))
      configs_.push_back(solver_config(v, r));
    kernel_names_ = expand_choice(r.adi_kernel, {}, "");
    if (kernel_names_.size() == 1 && kernel_names_[0].empty()) kernel_names_.clear();  // every kernel of a step
  }
  std::string description() const override {
    std::ostringstream d;
    d << "adi variant=";
    for (std::size_t i = 0; i < configs_.size(); ++i) d << (i ? "," : "") << adi::variant_label(configs_[i]);
    const auto& c = configs_.front();
    d << " precision=" << adi::to_string(c.precision) << " size=" << c.n << "x" << c.rows();
    for (std::size_t i = 0; i < kernel_names_.size(); ++i) d << (i ? "," : " kernel=") << kernel_names_[i];
    return d.str();
  }
  void setup() override {
    initial_ = adi::make_hump_state(configs_.front().n, configs_.front().rows());
    for (std::size_t s = 0; s < configs_.size(); ++s) {
      solvers_.push_back(std::make_unique<adi::GpuSolver>(configs_[s]));
      const auto& sequence = solvers_.back()->kernel_sequence();
      for (const auto& k : kernel_names_) {
        bool known = false;
        for (const auto& q : sequence) known = known || q == k;
        if (!known) {
          std::string list;
          for (const auto& q : sequence) list += (list.empty() ? "" : ", ") + q;
          throw std::invalid_argument("--kernel-name '" + k + "' is not an adi kernel; a step launches: " + list);
        }
      }
      for (const auto& k : sequence)
        if (kernel_names_.empty() || std::find(kernel_names_.begin(), kernel_names_.end(), k) != kernel_names_.end())
          launches_.push_back({s, k});
    }
    restore_inputs();
  }
  std::size_t launch_count() const override { return launches_.size(); }
  std::string launch_label(std::size_t i) const override {
    const auto& [s, k] = launches_.at(i);
    return configs_.size() == 1 ? k : adi::variant_label(configs_[s]) + " " + k;
  }
  void launch(std::size_t i) override { solvers_[launches_.at(i).first]->launch(launches_[i].second); }
  // The kernels are idempotent given their inputs and finish_step() is never called, so the
  // levels never rotate; uploading the initial state again makes every pass start identically
  // even so.
  void restore_inputs() override {
    for (auto& s : solvers_) {
      s->synchronize();
      s->upload(initial_);
      s->synchronize();
    }
  }

 private:
  std::vector<adi::SolverConfig> configs_;
  std::vector<std::string> kernel_names_;
  std::vector<std::unique_ptr<adi::GpuSolver>> solvers_;
  std::vector<std::pair<std::size_t, std::string>> launches_;  // (solver, kernel name)
  adi::State<double> initial_;
};

}  // namespace

std::unique_ptr<Workload> make_adi_workload(const WorkloadRequest& request) {
  return std::make_unique<AdiWorkload>(request);
}

}  // namespace warpmodel::cupti
