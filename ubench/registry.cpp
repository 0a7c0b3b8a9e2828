#include "registry.hpp"

namespace warpmodel::ubench {
namespace {

constexpr int kThroughputIlp = 8;  // kernels.cu
// The throughput kernels time a loop (kernels.cu): its body holds kThroughputUnroll steps of the
// ILP chains (the check counts the static body), plus the loop's counter, compare and branch.
constexpr int kThroughputUnroll = 32;  // kernels.cu
const std::string kLoopRegex =
    "IADD3|VIADD|UIADD3|IMAD\\.IADD|ISETP\\..*|UISETP\\..*|BRA|BSSY|BSYNC|P?LOP3\\.LUT|R2UR|MOV|HFMA2\\.MMA|IMAD\\.MOV.*";
constexpr int kSharedChain = 512;  // kernels.cu
constexpr int kGlobalChain = 256;  // kernels.cu
constexpr int kStoreChain = 256;   // kernels.cu

std::vector<Declaration> build() {
  std::vector<Declaration> d;
  int alu = 0;
#define UBENCH_ALU(name, T, constraint, ptx, sass_regex, sass_per_op, allowed_regex, chain, spec, minus)   \
  d.push_back({#name, "alu", "ubench_lat_" #name, ptx, sass_regex, (chain) * (sass_per_op), allowed_regex,  \
               chain, 1, spec, minus, alu, "warps per block 1..32, 1 block", "", 0});                              \
  d.push_back({#name ".throughput", "alu_throughput", "ubench_thr_" #name, ptx, sass_regex,                 \
               kThroughputUnroll * (sass_per_op) * kThroughputIlp,                                          \
               std::string(allowed_regex).empty() ? kLoopRegex : std::string(allowed_regex) + "|" + kLoopRegex, \
               chain, kThroughputIlp, spec, "", alu,                                                        \
               "32 warps x 1 block per SM, 8 independent chains per thread", "", 0});                            \
  ++alu;
#include "ubench.def"
  d.push_back({"clock64", "clock", "ubench_clock64", "mov.u64 %0, %clock64; mov.u64 %1, %clock64;", "", 0, "", 1, 1,
               0, "", -1, "warps per block 1..32", "", 0});
  d.push_back({"clock_register", "clock", "ubench_clock32", "mov.u32 %0, %clock; mov.u32 %1, %clock; (listing 4.1)",
               "", 0, "", 1, 1, 0, "", -1, "warps per block 1..32", "", 0});
  d.push_back({"clock_function", "clock", "ubench_clock_fn", "clock(); clock(); (listing 4.2)", "", 0, "", 1, 1, 0,
               "", -1, "warps per block 1..32", "", 0});
  d.push_back({"shared_load", "shared", "ubench_shared_chase", "ld.shared.u32 %0, [%0];", "LDS", kSharedChain, "",
               kSharedChain, 1, 0, "", -1, "warps per block 1..32", "", 0});
  // The chases end with one LOP3 that consumes the last load, so the stop read waits for it.
  d.push_back({"chase_ca", "global", "ubench_chase_ca", "ld.global.ca.u64 %0, [%0];", "LDG\\.E\\.64\\.STRONG\\.SM",
               kGlobalChain, "LOP3\\.LUT", kGlobalChain, 1, 0, "", -1, "footprint 4 KiB..4 GiB; warps 1..32", "", 0});
  d.push_back({"chase_cg", "global", "ubench_chase_cg", "ld.global.cg.u64 %0, [%0];", "LDG\\.E\\.64\\.STRONG\\.GPU",
               kGlobalChain, "LOP3\\.LUT", kGlobalChain, 1, 0, "", -1, "footprint 4 KiB..4 GiB; warps 1..32", "", 0});
  d.push_back({"l2_lines", "l2_lines", "ubench_l2_lines", "ld.global.cg.u64 %0, [%0]; (one load per timed region)",
               "LDG\\.E\\.64\\.STRONG\\.GPU", 1, "LOP3\\.LUT", 1, 1, 0, "", -1,
               "one warp pinned on each SM by %smid; 4 MiB footprint, every load timed", "", 0});
  // Store latency (listings 4.8/4.9) as a round trip "st [p], p; ld p, [p]" minus the same chain
  // without the store. The store opcode is counted; the loads of the chain are tolerated.
  d.push_back({"store_shared", "store", "ubench_store_shared", "st.shared.u32 [%0], %0; ld.shared.u32 %0, [%0];",
               "STS", kStoreChain, "LDS|LOP3\\.LUT", kStoreChain, 1, 0, "", -1, "warps per block 1..32", "LDS", kStoreChain});
  d.push_back({"selfload_shared", "store", "ubench_selfload_shared", "ld.shared.u32 %0, [%0];", "LDS", kStoreChain,
               "LOP3\\.LUT", kStoreChain, 1, 0, "", -1, "warps per block 1..32", "", 0});
  d.push_back({"store_global", "store", "ubench_store_global", "st.global.u64 [%0], %0; ld.global.cg.u64 %0, [%0];",
               "STG\\.E\\.64", kStoreChain, "LDG\\.E\\.64\\.STRONG\\.GPU|LOP3\\.LUT", kStoreChain, 1, 0, "", -1,
               "warps per block 1..32", "LDG\\.E\\.64\\.STRONG\\.GPU", kStoreChain});
  d.push_back({"selfload_global", "store", "ubench_selfload_global", "ld.global.cg.u64 %0, [%0];",
               "LDG\\.E\\.64\\.STRONG\\.GPU", kStoreChain, "LOP3\\.LUT", kStoreChain, 1, 0, "", -1,
               "warps per block 1..32", "", 0});
  d.push_back({"departure", "departure", "ubench_departure", "ld.global.cg.u32 %0, [%1]; add.u32 %2, %2, %0;",
               "LDG\\.E\\.STRONG\\.GPU", 1, "IMAD\\.IADD|IADD3", 1, 1, 0, "", -1,
               "warps per block 1..32; coalesced / uncoalesced", "", 0});
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
