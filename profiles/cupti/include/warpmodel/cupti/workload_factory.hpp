// Builds a Workload from command-line style arguments: the built-in test kernels (copy, saxpy,
// barrier) and, where their libraries are built, the stencil, ADI and corpus kernel families.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "warpmodel/cupti/workload.hpp"

namespace warpmodel::cupti {

struct WorkloadRequest {
  std::string kernel;      // copy, saxpy, barrier, stencil, adi, corpus, fwi
  std::string size;        // copy/saxpy/barrier: elements; stencil: N or NXxNYxNZ; adi: N (N x N grid);
                           // corpus: a size label of each kernel, or small, medium, large
  std::string block;       // "256" or "32x8" ("" = the family's default)
  int copies = 1;          // copy: launches of the same kernel
  int barriers = 32;       // barrier: __syncthreads per thread (0, 1, 8, 32)
  std::string order;       // stencil: spatial order, a list "2,4" or "all" ("" = the family's default)
  std::string variant;     // stencil / adi variant, corpus kernel: a list or "all" ("" = default)
  std::string adi_kernel;  // adi, fwi: which kernel (e.g. solve-x, Prop_psi_sh; "" = every kernel)
  std::string precision;   // adi: single or double ("" = default)
};

// The kernel families this build can run, e.g. {"copy", "saxpy", "barrier", "stencil"}.
std::vector<std::string> workload_kinds();
// Throws std::invalid_argument with one line naming the bad argument.
std::unique_ptr<Workload> make_workload(const WorkloadRequest& request);

// "a,b" -> {"a", "b"}; "all" -> `all`; "" -> {fallback}.
std::vector<std::string> expand_choice(const std::string& text, const std::vector<std::string>& all,
                                       const std::string& fallback);

// "32x8" -> {32, 8, 1}; "256" -> {256, 1, 1}; throws std::invalid_argument.
std::vector<long long> parse_extent(const std::string& text, const char* what);

}  // namespace warpmodel::cupti
