// Parsers for the text the CUDA binary tools print about a cubin. Pure text in, value types out;
// running the tools is tools.hpp's job, so everything here is tested on committed fixtures.
//
//   cuobjdump -sass CUBIN        -> parse_sass_listing   (per kernel: its instructions, in order)
//   cuobjdump -res-usage CUBIN   -> parse_resource_usage (per kernel: REG, SHARED, LOCAL, ...)
//   nvdisasm -bbcfg -poff CUBIN  -> parse_cfg_dot        (per function: basic blocks and edges)
//   cuobjdump -elf CUBIN         -> parse_nv_info        (per kernel: __launch_bounds__, .reqntid)
//
// The listing parser also reads nvdisasm's own listing (`nvdisasm -c`: ".text.NAME:" sections,
// ".L_x_N:" labels and `(.L_x_N) targets), so a listing from either tool can be analysed.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace warpmodel::sass {

// One SASS instruction as printed: "/*01a0*/  @!P0 STG.E.64 desc[UR6][R4.64], R2 ;"
struct Instruction {
  std::uint32_t offset = 0;           // byte offset in the function's .text section (0x1a0)
  std::string guard;                  // guard predicate as printed: "@!P0", "@PT", or "" (none)
  std::string opcode;                 // with its modifiers: "STG.E.64"
  std::vector<std::string> operands;  // split at top-level commas: {"desc[UR6][R4.64]", "R2"}
  // Branch/call/BSSY/WARPSYNC.COLLECTIVE target, when the operands name one (hex address or resolved nvdisasm label).
  std::optional<std::uint32_t> target;
  // sm_70 and later: the stall count of the instruction's control bits (bits 105-108 of the 128-bit
  // encoding, bits 41-44 of its second 64-bit word): the clocks ptxas makes the warp wait before
  // its next instruction, the fixed-latency part of the schedule. Absent when the listing does not
  // print the encoding.
  std::optional<int> stall_cycles;

  // The opcode without modifiers: "STG".
  std::string base() const;
  // True for "STG.E.64" and modifier ".64" (exact dot-separated component match).
  bool has_modifier(const std::string& modifier) const;
};

struct KernelListing {
  std::string name;  // the symbol as in the cubin (mangled for C++ kernels)
  std::string arch;  // "sm_90", from "code for sm_90" / ".target sm_90" when printed
  std::vector<Instruction> instructions;
};

// Kernels in the order they appear. Lines that are not instructions are ignored; a kernel
// appearing twice (two cubins concatenated) keeps both entries.
std::vector<KernelListing> parse_sass_listing(const std::string& text);

// `cuobjdump -res-usage`: " Function NAME:\n  REG:22 STACK:0 SHARED:0 LOCAL:0 CONSTANT[0]:560 ..."
struct ResourceUsage {
  int registers = 0;             // REG: registers per thread
  int stack_bytes = 0;           // STACK: call stack per thread
  int shared_bytes = 0;          // SHARED: static shared memory per block
  int local_bytes = 0;           // LOCAL: local memory per thread (spills and local arrays)
  int constant_bank0_bytes = 0;  // CONSTANT[0]: kernel parameters and driver constants
  std::map<std::string, long long> fields;  // every KEY:VALUE printed, verbatim keys
};
std::map<std::string, ResourceUsage> parse_resource_usage(const std::string& text);

// `nvdisasm -bbcfg -poff`: a graphviz digraph with one "cluster_FUNCTION" subgraph per function
// (kernels and the internal subroutines ptxas emits, "$__internal_..."); one node per basic block,
// its label holding the block's instructions with their offsets.
struct CfgBlock {
  std::string node;                    // graphviz node name: "BB3", ".L_x_12", or the function name
  std::vector<std::uint32_t> offsets;  // offsets of the block's instructions
};
struct CfgFunction {
  std::string name;
  std::vector<CfgBlock> blocks;
  std::vector<std::pair<std::string, std::string>> edges;  // (from node, to node)
};
std::vector<CfgFunction> parse_cfg_dot(const std::string& text);

// The CFG functions that make up kernel `kernel`: its own cluster plus the internal subroutines
// ("$..." clusters) that nvdisasm prints right after it, which live in the same .text section.
std::vector<const CfgFunction*> cfg_of_kernel(const std::vector<CfgFunction>& cfg, const std::string& kernel);

// The block size a kernel was compiled for, as the compiler was told it: `__launch_bounds__(N)` and
// PTX `.maxntid` (an upper bound: EIATTR_MAX_THREADS in the cubin) and PTX `.reqntid` (the exact
// size: EIATTR_REQNTID). Read from `cuobjdump -elf CUBIN` (the .nv.info.KERNEL sections, "Value:
// 0x100 0x1 0x1") or from the PTX's directives after `.entry KERNEL(`.
struct ThreadShape {
  long long x = 1, y = 1, z = 1;
  long long count() const { return x * y * z; }
  bool operator==(const ThreadShape&) const = default;
};
struct ThreadLimits {
  std::optional<ThreadShape> max_threads;       // __launch_bounds__ / .maxntid
  std::optional<ThreadShape> required_threads;  // .reqntid
  bool empty() const { return !max_threads && !required_threads; }
};
// Per kernel symbol; kernels without either attribute are absent.
std::map<std::string, ThreadLimits> parse_nv_info(const std::string& elf_text);
std::map<std::string, ThreadLimits> parse_ptx_thread_limits(const std::string& ptx_text);
// The .nv.info sections of `cuobjdump -elf`'s output, the rest (section headers, .text in hex)
// dropped: what parse_nv_info reads, small enough to keep as a fixture or in the dump cache.
std::string nv_info_sections(const std::string& elf_text);

// Itanium C++ demangling; the name itself when it is not a mangled name.
std::string demangle(const std::string& symbol);

}  // namespace warpmodel::sass
