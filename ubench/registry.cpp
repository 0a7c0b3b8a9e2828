#include "registry.hpp"

namespace warpmodel::ubench {
namespace {

constexpr int kThroughputIlp = 8;  // kernels.cu
constexpr int kSharedChain = 512;  // kernels.cu
constexpr int kGlobalChain = 256;  // kernels.cu

std::vector<Declaration> build() {
  std::vector<Declaration> d;
  int alu = 0;
#define UBENCH_ALU(name, T, constraint, ptx, sass_regex, sass_per_op, allowed_regex, chain, spec, minus)   \
  d.push_back({#name, "alu", "ubench_lat_" #name, ptx, sass_regex, (chain) * (sass_per_op), allowed_regex,  \
               chain, 1, spec, minus, alu, "warps per block 1..32, 1 block"});                              \
  d.push_back({#name ".throughput", "alu_throughput", "ubench_thr_" #name, ptx, sass_regex,                 \
               (chain) * (sass_per_op) * kThroughputIlp, allowed_regex, chain, kThroughputIlp, spec, "", alu, \
               "32 warps x 1 block per SM, 8 independent chains per thread"});                            \
  ++alu;
#include "ubench.def"
  d.push_back({"clock64", "clock", "ubench_clock64", "mov.u64 %0, %clock64; mov.u64 %1, %clock64;", "", 0, "", 1, 1,
               0, "", -1, "warps per block 1..32"});
  d.push_back({"clock_register", "clock", "ubench_clock32", "mov.u32 %0, %clock; mov.u32 %1, %clock; (listing 4.1)",
               "", 0, "", 1, 1, 0, "", -1, "warps per block 1..32"});
  d.push_back({"clock_function", "clock", "ubench_clock_fn", "clock(); clock(); (listing 4.2)", "", 0, "", 1, 1, 0,
               "", -1, "warps per block 1..32"});
  d.push_back({"shared_load", "shared", "ubench_shared_chase", "ld.shared.u32 %0, [%0];", "LDS", kSharedChain, "",
               kSharedChain, 1, 0, "", -1, "warps per block 1..32"});
  d.push_back({"chase_ca", "global", "ubench_chase_ca", "ld.global.ca.u64 %0, [%0];", "LDG\\.E\\.64\\.STRONG\\.SM",
               kGlobalChain, "", kGlobalChain, 1, 0, "", -1, "footprint 4 KiB..4 GiB; warps 1..32"});
  d.push_back({"chase_cg", "global", "ubench_chase_cg", "ld.global.cg.u64 %0, [%0];", "LDG\\.E\\.64\\.STRONG\\.GPU",
               kGlobalChain, "", kGlobalChain, 1, 0, "", -1, "footprint 4 KiB..4 GiB; warps 1..32"});
  d.push_back({"departure", "departure", "ubench_departure", "ld.global.cg.u32 %0, [%1]; add.u32 %2, %2, %0;",
               "LDG\\.E\\.STRONG\\.GPU", 1, "IMAD\\.IADD|IADD3", 1, 1, 0, "", -1,
               "warps per block 1..32; coalesced / uncoalesced"});
  return d;
}

}  // namespace

const std::vector<Declaration>& declarations() {
  static const std::vector<Declaration> d = build();
  return d;
}

const Declaration* find_declaration(const std::string& name) {
  for (const auto& d : declarations())
    if (d.name == name) return &d;
  return nullptr;
}

}  // namespace warpmodel::ubench
