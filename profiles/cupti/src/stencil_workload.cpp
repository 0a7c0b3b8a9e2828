// make_stencil_workload (stencil_workload.hpp).
#include "stencil_workload.hpp"

#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "warpmodel/stencils/acoustic.hpp"
#include "warpmodel/stencils/gpu/propagator.hpp"
#include "warpmodel/stencils/launch_plan.hpp"

namespace warpmodel::cupti {
namespace {

namespace st = warpmodel::stencils;

// "intz-reg/cp-async" -> intz-reg with the cp.async loader; "intz-reg" -> the default (TMA) loader.
st::StencilLaunch parse_configuration(const std::string& variant, int order) {
  st::StencilLaunch l;
  const auto slash = variant.find('/');
  l.variant = st::parse_variant(variant.substr(0, slash));
  if (slash != std::string::npos) {
    if (l.variant != st::Variant::intz_reg)
      throw std::invalid_argument("--variant '" + variant + "': only intz-reg has a loader (intz-reg/tma, intz-reg/cp-async)");
    l.loader = st::parse_loader(variant.substr(slash + 1));
  }
  if (!st::is_supported_order(order))
    throw std::invalid_argument("--order " + std::to_string(order) + " is not supported (2, 4, ..., 16)");
  l.order = order;
  return l;
}

std::string configuration_name(const st::StencilLaunch& l) {
  std::string v = st::variant_info(l.variant).name;
  if (l.variant == st::Variant::intz_reg && l.loader != st::IntzRegLoader::tma) v += std::string("/") + st::loader_name(l.loader);
  return v + " order " + std::to_string(l.order);
}

// Every (variant, order) requested, each a propagator of its own on the same grid: one launch
// (one time step, one kernel) per configuration.
class StencilWorkload : public Workload {
 public:
  explicit StencilWorkload(const WorkloadRequest& r) {
    std::vector<std::string> all_variants;
    for (const auto& v : st::variants()) all_variants.emplace_back(v.name);
    all_variants.emplace_back("intz-reg/cp-async");
    std::vector<std::string> all_orders;
    for (int o : st::gpu_orders()) all_orders.push_back(std::to_string(o));
    const auto size = parse_extent(r.size.empty() ? "256" : r.size, "--size");
    const bool cube = r.size.find('x') == std::string::npos;
    grid_.nx = static_cast<std::size_t>(size[0]);
    grid_.ny = static_cast<std::size_t>(cube ? size[0] : size[1]);
    grid_.nz = static_cast<std::size_t>(cube ? size[0] : size[2]);
    for (const auto& v : expand_choice(r.variant, all_variants, "intz-reg"))
      for (const auto& o : expand_choice(r.order, all_orders, "8")) {
        int order = 0;
        try {
          order = std::stoi(o);
        } catch (const std::exception&) {
          throw std::invalid_argument("--order '" + o + "' is not a number (2, 4, ..., 16, or all)");
        }
        st::StencilLaunch l = parse_configuration(v, order);
        if (!r.block.empty()) l.block = st::parse_dim3(r.block, "--block");
        l.nx = grid_.nx;
        l.ny = grid_.ny;
        l.nz = grid_.nz;
        configurations_.push_back(l);
      }
    if (configurations_.empty()) throw std::invalid_argument("no stencil configuration requested");
  }
  std::string description() const override {
    std::string d = "stencil size=" + std::to_string(grid_.nx) + "x" + std::to_string(grid_.ny) + "x" + std::to_string(grid_.nz);
    if (configurations_.size() == 1)
      return d + " " + configuration_name(configurations_[0]) + " block=" + st::to_string(configurations_[0].block);
    return d + ", " + std::to_string(configurations_.size()) + " configurations (variants x orders)";
  }
  void setup() override {
    const auto velocity = st::two_layer_velocity(grid_);
    for (const auto& l : configurations_) {
      st::PropagationSetup s;
      s.grid = grid_;
      s.order = l.order;
      s.source_i = grid_.nx / 2;
      s.source_j = grid_.ny / 2;
      s.source_k = grid_.nz / 2;
      // Random fields, not zeros, so every load and store does real work; one pair per order
      // (the Dirichlet layers depend on it).
      if (!fields_.count(l.order))
        fields_[l.order] = {st::random_field(grid_, l.order, 1), st::random_field(grid_, l.order, 2)};
      propagators_.push_back(std::make_unique<st::gpu::DevicePropagator>(s, velocity, l));
      const auto& f = fields_.at(l.order);
      propagators_.back()->set_fields(f.first, f.second);
    }
    for (auto& p : propagators_) p->synchronize();
    fields_.clear();  // on the device now
  }
  std::size_t launch_count() const override { return configurations_.size(); }
  std::string launch_label(std::size_t i) const override { return configuration_name(configurations_.at(i)); }
  void launch(std::size_t i) override { propagators_.at(i)->step(); }
  // Nothing to restore: a step reads p(n-1), p(n) and vel2 and writes p(n+1), a third buffer, so
  // it is not in place; the next run computes the next step from the fields the last one left.
  // The kernel's work (every load, store and flop) does not depend on the values, and the scheme
  // is stable (dt = 0.9 x the limit), so every run and pass does the same work. (Putting the fields
  // back would cost two host-to-device copies of the grid per configuration and pass.)
  void restore_inputs() override {}

 private:
  st::Grid grid_;
  std::vector<st::StencilLaunch> configurations_;
  std::vector<std::unique_ptr<st::gpu::DevicePropagator>> propagators_;
  std::map<int, std::pair<std::vector<float>, std::vector<float>>> fields_;
};

}  // namespace

std::unique_ptr<Workload> make_stencil_workload(const WorkloadRequest& request) {
  return std::make_unique<StencilWorkload>(request);
}

}  // namespace warpmodel::cupti
