// The instantiations: every variant for radius 1..8 (orders 2..16), intz-reg also for both
// loaders and pipeline depths 1..3. Each visit_* function is called from its own translation unit (one .cu per
// variant builds in parallel); the emulation calls them all.
#pragma once

#include <string>
#include <utility>

#include "intz.cuh"
#include "intz_reg.cuh"
#include "kernel_entry.hpp"
#include "one_point.cuh"
#include "shared_tile.cuh"

namespace warpmodel::stencils::gpu::kernels {

inline std::string kernel_name(const char* base, int radius, int depth = 0) {
  return std::string(base) + "<" + std::to_string(radius) + (depth ? ", " + std::to_string(depth) : "") + ">";
}

// C++17 (the .cu files build as C++17): one maker per family, expanded over radius 1..8.
template <template <int> class Maker, class Add, int... I>
void for_each_radius(Add& add, std::integer_sequence<int, I...>) {
  (Maker<I + 1>::add(add), ...);
}
template <template <int> class Maker, class Add>
void for_each_radius(Add& add) {
  for_each_radius<Maker>(add, std::make_integer_sequence<int, kMaxRadius>{});
}

template <int R>
struct NaiveMaker {
  template <class Add>
  static void add(Add& a) {
    a(KernelEntry{Variant::naive, 2 * R, 0, IntzRegLoader::tma, &naive_kernel<R>, nullptr, kernel_name("naive_kernel", R), false});
  }
};
template <int R>
struct ReadonlyMaker {
  template <class Add>
  static void add(Add& a) {
    a(KernelEntry{Variant::readonly, 2 * R, 0, IntzRegLoader::tma, &readonly_kernel<R>, nullptr, kernel_name("readonly_kernel", R), false});
  }
};
template <int R>
struct SharedMaker {
  template <class Add>
  static void add(Add& a) {
    a(KernelEntry{Variant::shared, 2 * R, 0, IntzRegLoader::tma, &shared_kernel<R>, nullptr, kernel_name("shared_kernel", R), true});
  }
};
template <int R>
struct IntzMaker {
  template <class Add>
  static void add(Add& a) {
    a(KernelEntry{Variant::intz, 2 * R, 0, IntzRegLoader::tma, &intz_kernel<R>, nullptr, kernel_name("intz_kernel", R), false});
  }
};
template <int R>
struct IntzRegMaker {
  template <int D, class Add>
  static void add_depth(Add& a) {
    a(KernelEntry{Variant::intz_reg, 2 * R, D, IntzRegLoader::tma, nullptr, &intz_reg_tma_kernel<R, D>,
                  kernel_name("intz_reg_tma_kernel", R, D), true});
    a(KernelEntry{Variant::intz_reg, 2 * R, D, IntzRegLoader::cp_async, &intz_reg_async_kernel<R, D>, nullptr,
                  kernel_name("intz_reg_async_kernel", R, D), true});
  }
  template <class Add>
  static void add(Add& a) {
    add_depth<1>(a);
    add_depth<2>(a);
    add_depth<3>(a);
  }
};

template <class Add>
void visit_naive(Add&& add) {
  for_each_radius<NaiveMaker>(add);
}
template <class Add>
void visit_readonly(Add&& add) {
  for_each_radius<ReadonlyMaker>(add);
}
template <class Add>
void visit_shared(Add&& add) {
  for_each_radius<SharedMaker>(add);
}
template <class Add>
void visit_intz(Add&& add) {
  for_each_radius<IntzMaker>(add);
}
template <class Add>
void visit_intz_reg(Add&& add) {
  for_each_radius<IntzRegMaker>(add);
}

}  // namespace warpmodel::stencils::gpu::kernels
