// Address analysis of one kernel's SASS: for every global load, store and atomic, the byte address
// each thread computes, as a polynomial in the thread and block indices, the launch constants and
// the kernel parameters (warpmodel::AccessPatterns, the input of model/traffic.hpp). Plain C++.
//
// How: an abstract interpretation over the kernel's basic blocks. Every register holds one of
//   * a polynomial over the symbols of access_patterns.hpp (S2R SR_TID.X -> tid.x, c[0x0][0x0] ->
//     ntid.x, c[0x0][0x210] -> param:0x210, immediates -> constants), built by the integer
//     instructions that compilers use for index arithmetic: MOV, IMAD (and .WIDE/.SHL/.MOV/.IADD),
//     IADD3, VIADD, LEA, ISCADD, SHF.L/SHL by a constant, and their uniform (U) forms;
//   * a fresh warp-uniform symbol ("u:...") for anything else computed from uniform inputs (a value
//     loaded from a uniform address, a division of parameters, a loop counter);
//   * "varying": anything else that depends on the thread (a loaded value, a thread index shifted
//     right or masked): an address that holds one is irregular;
//   * the high word of a 64-bit pair (the pair's value lives in its low register).
// Where control flow merges (loop heads included), two polynomials that differ by a warp-uniform
// amount become the first plus a fresh uniform symbol of that merge (so a pointer advanced by a
// loop keeps its per-thread part), anything else becomes "varying". A predicated instruction
// merges its result with the register's old value the same way. Calls are not followed.
#pragma once

#include "warpmodel/access_patterns.hpp"
#include "warpmodel/sass/listing.hpp"

namespace warpmodel::sass {

AccessPatterns analyse_addresses(const KernelListing& listing);

}  // namespace warpmodel::sass
