// Compiled with WARPMODEL_STENCIL_EMULATION: the kernels' source becomes host functions.
#include "emulated_propagator.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

#include "../kernels/kernel_list.cuh"
#include "../src/step_params.hpp"
#include "emulator.hpp"

namespace warpmodel::stencils::gpu {
namespace {

const std::vector<KernelEntry>& emulated_kernels() {
  static const std::vector<KernelEntry> table = [] {
    std::vector<KernelEntry> t;
    const auto add = [&](KernelEntry e) { t.push_back(std::move(e)); };
    kernels::visit_naive(add);
    kernels::visit_readonly(add);
    kernels::visit_shared(add);
    kernels::visit_intz(add);
    kernels::visit_intz_reg(add);
    return t;
  }();
  return table;
}

emu::TensorMap tensor_map(const float* base, const TmaBoxes& b, const unsigned box[3]) {
  emu::TensorMap m;
  m.base = base;
  for (int d = 0; d < 3; ++d) m.size[d] = static_cast<long long>(b.size[d]), m.box[d] = static_cast<int>(box[d]);
  m.stride[0] = 1;
  m.stride[1] = static_cast<long long>(b.stride_bytes[0] / sizeof(float));
  m.stride[2] = static_cast<long long>(b.stride_bytes[1] / sizeof(float));
  return m;
}

}  // namespace

EmulatedPropagator::EmulatedPropagator(const PropagationSetup& setup, const std::vector<float>& velocity,
                                       StencilLaunch launch, const DeviceLimits& limits, int resident_blocks_per_sm)
    : velocity_(velocity), launch_(launch) {
  PropagationSetup s = setup;
  s.order = launch.order;
  setup_ = validated(s, double(*std::max_element(velocity_.begin(), velocity_.end())));
  launch_.nx = setup_.grid.nx, launch_.ny = setup_.grid.ny, launch_.nz = setup_.grid.nz;
  geometry_ = finish_geometry(launch_, plan_block(launch_, limits), limits, resident_blocks_per_sm);
  const std::size_t n = geometry_.pitch * setup_.grid.ny * setup_.grid.nz;
  for (auto& p : pressure_) p.assign(n, 0.0f);
  vel2_ = velocity_term_padded(velocity_, setup_.grid, setup_.dt, geometry_.pitch);
}

EmulatedPropagator::~EmulatedPropagator() {
  for (const auto& p : pressure_) emu::unregister_buffer(p.data());
  emu::unregister_buffer(vel2_.data());
}

void EmulatedPropagator::step() {
  const KernelEntry& e = find_kernel(emulated_kernels(), launch_, geometry_);
  const std::size_t bytes = vel2_.size() * sizeof(float);
  emu::register_buffer(pressure_[prev_].data(), bytes, false);
  emu::register_buffer(pressure_[cur_].data(), bytes, false);
  emu::register_buffer(pressure_[next_].data(), bytes, true);
  emu::register_buffer(vel2_.data(), bytes, false);
  const StencilParams p = make_params(setup_, geometry_, pressure_[prev_].data(), pressure_[cur_].data(), vel2_.data(),
                                      pressure_[next_].data(), source_amplitude(setup_, velocity_, steps_));
  emu::LaunchConfig cfg;
  cfg.grid = {geometry_.grid.x, geometry_.grid.y, geometry_.grid.z};
  cfg.block = {geometry_.block.x, geometry_.block.y, geometry_.block.z};
  cfg.shared_bytes = geometry_.dynamic_shared_bytes;
  cfg.uses_barriers = e.uses_barriers;
  cfg.shuffle_seed = shuffle_seed + unsigned(steps_);
  if (e.tma) {
    TmaStencilParams t{};
    t.base = p;
    const TmaBoxes b = tma_boxes(setup_, geometry_);
    t.tile_cur = tensor_map(p.cur, b, b.tile_box);
    t.own_cur = tensor_map(p.cur, b, b.own_box);
    t.own_prev = tensor_map(p.prev, b, b.own_box);
    t.own_vel2 = tensor_map(p.vel2, b, b.own_box);
    emu::launch(cfg, [&] { e.tma(t); });
  } else {
    emu::launch(cfg, [&] { e.plain(p); });
  }
  const int old_prev = prev_;
  prev_ = cur_, cur_ = next_, next_ = old_prev;
  ++steps_;
}

void EmulatedPropagator::set_fields(const std::vector<float>& previous, const std::vector<float>& current) {
  pressure_[prev_] = to_padded(previous, setup_.grid, geometry_.pitch);
  pressure_[cur_] = to_padded(current, setup_.grid, geometry_.pitch);
}

std::vector<float> EmulatedPropagator::pressure() const {
  return from_padded(pressure_[cur_], setup_.grid, geometry_.pitch);
}

void EmulatedPropagator::poison_next() {
  std::fill(pressure_[next_].begin(), pressure_[next_].end(), std::numeric_limits<float>::quiet_NaN());
}

}  // namespace warpmodel::stencils::gpu
