// The declared microbenchmarks, host side: for each, the kernel that runs it, the SASS its timed
// region must hold, and its axes. Built from ubench.def (ALU) plus the memory/clock kernels of
// kernels.cu. Plain C++ (no CUDA): the SASS check and its tests use it on machines without a GPU.
#pragma once

#include <string>
#include <vector>

namespace warpmodel::ubench {

struct Declaration {
  std::string name;            // e.g. "fp32_add", "fp32_add.throughput", "chase_cg"
  std::string group;           // alu, alu_throughput, clock, shared, global, departure
  std::string kernel;          // extern "C" kernel symbol
  std::string ptx;             // the PTX body (documentation and the report)
  std::string sass_regex;      // the instruction that must be timed ("" = the region must be empty)
  int sass_count = 0;          // how many times, exactly, between the two clock reads
  std::string allowed_regex;   // other opcodes tolerated in the region ("" = only NOP)
  int chain = 1;               // operations per timed region per chain (divide by this)
  int ilp = 1;                 // independent chains per thread
  double spec_per_clk_sm = 0;  // architectural rate per SM per clock (sm_90), 0 = none
  std::string minus;           // benchmark subtracted from the per-op figure ("" = none)
  int alu_index = -1;          // index into ubench.def for the ALU kernels
  std::string axes;            // sweep axes, for the report
  std::string also_regex;      // a second instruction the region must hold ("" = none) ...
  int also_count = 0;          // ... exactly this many times (e.g. the loads of a store round trip)
};

const std::vector<Declaration>& declarations();
const Declaration* find_declaration(const std::string& name);

}  // namespace warpmodel::ubench
