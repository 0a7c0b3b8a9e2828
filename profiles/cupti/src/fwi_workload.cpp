// make_fwi_workload (fwi_workload.hpp).
#include "fwi_workload.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "warpmodel/fwi/gpu/device_fwi.hpp"
#include "warpmodel/fwi/inversion.hpp"

namespace warpmodel::cupti {
namespace {

// The study's experiment (table 4) at nx x nz.
fwi::Experiment experiment(int nx, int nz) {
  fwi::Experiment s;
  s.grid = {nx, nz, 25.0};
  s.acquisition = fwi::surface_acquisition(s.grid, s.cpml.width, 5, 2);
  fwi::validate(s, 4000.0);
  return s;
}

class FwiWorkload : public Workload {
 public:
  explicit FwiWorkload(const WorkloadRequest& r) {
    if (!r.block.empty())
      throw std::invalid_argument("--block does not apply to fwi: each variant has the study's blocks (32x16, 32x8 from phase 6)");
    std::vector<std::string> all;
    for (const auto& v : fwi::gpu_variants()) all.emplace_back(v.name);
    for (const auto& name : expand_choice(r.variant, all, "original")) {
      const auto v = fwi::parse_gpu_variant(name);
      if (!v) throw std::invalid_argument("--variant '" + name + "' is not an fwi variant (" + fwi::gpu_variant_names() + ", or all)");
      variants_.push_back(*v);
    }
    const std::vector<long long> size = parse_extent(r.size.empty() ? "210x68" : r.size, "--size");
    if (size[2] != 1 || (!r.size.empty() && r.size.find('x') == std::string::npos))
      throw std::invalid_argument("--size '" + r.size + "': fwi grids are NXxNZ (the CPML included), e.g. 210x68");
    if (size[0] > 100000 || size[1] > 100000) throw std::invalid_argument("--size '" + r.size + "': at most 100000 points a side");
    s_ = experiment(static_cast<int>(size[0]), static_cast<int>(size[1]));
    kernel_names_ = expand_choice(r.adi_kernel, {}, "");
    if (kernel_names_.size() == 1 && kernel_names_[0].empty()) kernel_names_.clear();
  }
  std::string description() const override {
    std::string d = "fwi variant=";
    for (std::size_t i = 0; i < variants_.size(); ++i) {
      if (i) d += ',';
      d += fwi::gpu_variant_info(variants_[i]).name;
    }
    return d + " size=" + std::to_string(s_.grid.nx) + "x" + std::to_string(s_.grid.nz) + " nt=" + std::to_string(s_.time.nt) +
           " shots=" + std::to_string(s_.acquisition.source_i.size());
  }
  void setup() override {
    const std::vector<double> truth = fwi::layered_model(s_.grid, s_.cpml);
    const std::vector<float> truth_f(truth.begin(), truth.end());
    const std::vector<double> start = fwi::smoothed(s_.grid, truth, 4);
    const std::vector<float> start_f(start.begin(), start.end());
    std::vector<std::vector<float>> observed;
    for (std::size_t v = 0; v < variants_.size(); ++v) {
      fwis_.push_back(std::make_unique<fwi::gpu::DeviceFwi>(s_, variants_[v]));
      if (observed.empty()) observed = fwis_.back()->model_data(truth_f);
      const auto recorded = fwis_.back()->record_launches(start_f, observed);
      for (const auto& k : kernel_names_)
        if (std::none_of(recorded.begin(), recorded.end(), [&](const auto& r) { return r.name == k; })) {
          std::string list;
          for (const auto& r : recorded) list += (list.empty() ? "" : ", ") + r.name;
          throw std::invalid_argument("--kernel-name '" + k + "' is not a kernel of " +
                                      fwi::gpu_variant_info(variants_[v]).name + ": " + list);
        }
      for (std::size_t i = 0; i < recorded.size(); ++i)
        if (kernel_names_.empty() ||
            std::find(kernel_names_.begin(), kernel_names_.end(), recorded[i].name) != kernel_names_.end())
          launches_.push_back({v, i, recorded[i].name});
    }
  }
  std::size_t launch_count() const override { return launches_.size(); }
  std::string launch_label(std::size_t i) const override {
    const Launch& l = launches_.at(i);
    return variants_.size() == 1 ? l.name : std::string(fwi::gpu_variant_info(variants_[l.variant]).name) + " " + l.name;
  }
  void launch(std::size_t i) override { fwis_[launches_.at(i).variant]->replay(launches_[i].recorded); }
  // Nothing to restore: a replayed kernel writes only the work arrays (films, memory variables, the
  // gradient, the update's scalars), and its work (every load, store and flop; psi and zeta where
  // a_q != 0) does not depend on their values.
  void restore_inputs() override {}

 private:
  struct Launch {
    std::size_t variant, recorded;
    std::string name;
  };
  fwi::Experiment s_;
  std::vector<fwi::GpuVariant> variants_;
  std::vector<std::string> kernel_names_;
  std::vector<std::unique_ptr<fwi::gpu::DeviceFwi>> fwis_;
  std::vector<Launch> launches_;
};

}  // namespace

std::unique_ptr<Workload> make_fwi_workload(const WorkloadRequest& request) { return std::make_unique<FwiWorkload>(request); }

}  // namespace warpmodel::cupti
