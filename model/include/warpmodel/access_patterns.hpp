// The global memory accesses of a kernel as the SASS computes them (profiles/sass address_analysis):
// the input of the shape-aware traffic model (traffic.hpp). Value types only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace warpmodel {

// One monomial of an address: coefficient x the product of the symbols (sorted; none: a constant).
// Symbols: "tid.x|y|z" (threadIdx), "ntid.x|y|z" (blockDim), "ctaid.x|y|z" (blockIdx),
// "nctaid.x|y|z" (gridDim), "param:0x210" (a 32-bit word of the kernel parameters: pointers, sizes,
// pitches), "u:..." (a warp-uniform value the analysis does not follow: a loop-carried offset, a
// loaded constant; evaluated as 0), "ld(P)" (the word a load reads at the address P, which the lanes
// of a 32-wide warp share: a CSR row's start; evaluated per lane from P, lanes reading the same word
// alike and the others far apart), "floor((P)/D)" (a floor division of an index).
struct AddressTerm {
  long long coefficient = 0;
  std::vector<std::string> symbols;
  bool operator==(const AddressTerm&) const = default;
};
using AddressPolynomial = std::vector<AddressTerm>;

enum class AccessKind { load, store, atomic };

struct MemoryAccess {
  std::uint32_t offset = 0;  // the instruction's SASS offset
  std::string opcode;        // "LDG.E.64"
  AccessKind kind = AccessKind::load;
  int bytes_per_thread = 4;
  int loop_depth = 0;  // loops (backward branches) around the instruction
  // The byte address each thread computes; absent for an irregular access (see above).
  std::optional<AddressPolynomial> address;
  // The address is computed from a value loaded from memory (x[col[j]], a pointer chase): a gather,
  // whose sectors land at data-dependent places. An access the analysis merely cannot follow (a
  // predicated update, a loop it does not solve) is irregular without this. A warp-uniform loaded
  // offset (a CSR row start in a warp-per-row kernel) can still leave the address affine.
  bool address_from_loaded_data = false;
  // How far the address moves in one trip of the innermost loop around the access, where the analysis
  // follows the loop-carried values it holds (each "u:j" term's register gains the same amount on
  // every back edge); absent when it does not, or outside loops. Read by line_walking_loads (H.5d).
  std::optional<AddressPolynomial> stride_per_trip;
};

// Code that only the grid's first thread runs, around a loop: `if (blockIdx.x * blockDim.x +
// threadIdx.x == 0) { for (...) ... }` (a serial scan or sum left to one thread). Its instructions
// are one warp's path whatever the launch's size (hopper H.1d). What a warp runs outside it is
// counted once per warp (its path with the region left out; found only where no loop lies outside).
struct FirstThreadLoop {
  std::uint32_t begin = 0, end = 0;   // SASS offsets of the region [begin, end)
  std::vector<std::string> indices;   // the indices the guard tests ("ctaid.x", "tid.x")
  int instructions_outside = 0;       // a warp's instructions outside the region
  int global_loads_outside = 0;       // and its global loads there
  bool operator==(const FirstThreadLoop&) const = default;
};

struct AccessPatterns {
  std::vector<MemoryAccess> accesses;  // global loads, stores and atomics in program order
  std::string source;                  // where they came from ("sass address analysis of ...")
  std::optional<FirstThreadLoop> first_thread_loop;
  // The threads that pass an exit at the kernel's top guarding blockIdx.x * blockDim.x + threadIdx.x
  // against a constant (`if (i > 767) return;`: 768 + 1): the rest leave at once (hopper H.1e).
  std::optional<long long> threads_under_constant_bound;
};

}  // namespace warpmodel
