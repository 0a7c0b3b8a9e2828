// Static analysis of one kernel's SASS: the counts the MWP-CWP model reads from the binary
// (thesis section 4.5.2 "Parameters from CUDA binary tools", table 4.1). Plain C++, no CUDA.
//
// Definitions (each is a field of KernelStatics):
//
// * static instructions (#total_instructions of eq 4.26, section 4.5.2 a): the instructions of the
//   kernel's .text section, including the internal subroutines ptxas places there (CALL targets),
//   minus the padding ptxas appends after the final EXIT/RET: the trailing NOPs and the
//   `BRA <own address>` self-loop that precedes them. NOPs inside the code (alignment of loop
//   heads) are instructions and are counted (also separately, `nop`).
// * basic blocks (#basic_blocks of eq 4.26, section 4.5.2 b): maximal straight-line runs. Taken
//   from nvdisasm's basic-block CFG (`-bbcfg`) when it is available. (In nvdisasm 13.x `-cfg` draws
//   hyperblocks, several basic blocks per node: 3 nodes for the order-2 naive stencil against 5
//   basic blocks; eq 4.26 counts basic blocks, so `-bbcfg` is the one read.) Else from leaders: the first
//   instruction, every branch/call/BSSY/WARPSYNC.COLLECTIVE target, and the instruction after every BRA, BRX, JMP,
//   JMX, CALL, RET, EXIT, BSYNC, BREAK, KILL, BPT (predicated or not). On every kernel of the
//   project the two agree (tests/profiles/sass), which is how the leader rule was fixed: nvdisasm
//   also ends a block at BSYNC and starts one at the BSSY reconvergence label.
// * thesis ILP (eq 4.26): static instructions / basic blocks. The thesis's worked example: 86 / 18.
// * dependency ILP: for each basic block, its instructions divided by the length (in
//   instructions) of its longest read-after-write chain through registers (R, UR) and predicates
//   (P, UP; the guard predicate is a read); RZ/URZ/PT/UPT carry no dependency. Averaged over the
//   blocks weighted by their instructions. Memory dependencies and latencies are not modelled; a
//   64-bit operand ("R2.64", ".64" opcodes, D* arithmetic, IMAD.WIDE) covers a register pair and a
//   ".128" one four registers (an approximation of operand widths).
// * MLP (section 4.5.2 d, Hong & Kim's definition the thesis cites: "the number of memory requests
//   between a load request and the first instruction that sources the memory request"): within a
//   basic block, a window collects global loads (LDG, generic LD) until an instruction reads the
//   result of one of them; the loads in a window are independent and in flight together. A
//   block's MLP is its largest window. mlp_max is the largest over the kernel's blocks; mlp_mean
//   the mean over blocks that issue global loads, weighted by their global loads (so the block
//   holding most loads dominates, as it dominates execution in a straight-line kernel). 1 when
//   the kernel issues no global load.
//   The thesis's sentence that follows ("MLP is equal to the number of instructions counted before
//   the first load instruction") is another quantity; it is reported as
//   instructions_before_first_global_load and is not used as MLP (in the worked example 17 > the
//   11 memory instructions, which no count of outstanding loads can give).
// * memory instructions by kind: ldg, stg, lds, sts, ldc (LDC), uldc (ULDC), ldl, stl (local:
//   spills and local arrays), ld, st (generic), atom (ATOM, ATOMG, RED, REDG: global/generic
//   atomics and reductions), atoms (shared atomics), ldgsts (cp.async), ldsm (LDSM, STSM), tma
//   (UTMALDG, UTMASTG, UTMAPF, UTMAREDG, UBLKCP, UBLKRED, UBLKPF), texture (TEX, TLD, TLD4, TMML,
//   TXD, TXQ), surface (SULD, SUST, SUATOM, SURED). global_memory = ldg + stg + ld + st + atom +
//   ldgsts: the instructions the model's #mem_inst counts (global loads and stores).
// * FP: fp32 (FADD, FMUL, FFMA and their 32I forms, FMNMX, FSET, FSETP, FSEL, FCHK, FSWZADD,
//   FRND), fp64 (DADD, DMUL, DFMA, DMNMX, DSET, DSETP), fp16 (HADD2, HMUL2, HFMA2 and 32I forms,
//   HMNMX2, HSET2, HSETP2; "HFMA2.MMA Rd, -RZ, RZ, a, b" is how ptxas materialises a constant and
//   is not counted), tensor (HMMA, IMMA, DMMA, BMMA, HGMMA, IGMMA, QGMMA, BGMMA). fp = fp32 + fp64
//   + fp16 (the thesis's #FP_inst); tensor is separate. Conversions (F2F, F2I, I2F) are not FP.
// * SFU: MUFU (all functions). Barriers: bar (BAR.*, the model's #sync_insts); warpsync
//   (WARPSYNC), membar (MEMBAR, FENCE) and mbarrier (SYNCS.*) are separate counts.
// * stall cycles per instruction: the mean, over the kernel's instructions (padding excluded), of
//   the stall count ptxas writes in each instruction's control bits (sm_70+: the clocks the warp
//   waits before its next instruction, i.e. the fixed-latency part of the schedule; scoreboard waits
//   for memory come on top). One warp alone issues at best one instruction per this many clocks.
//   Unweighted by execution counts (the listing has none); absent when the listing lacks the
//   encodings. Checked on the H200: the thread-per-line ADI solve (double) has 2.52, and one warp
//   per sub-partition runs it at 2.63 clocks per instruction (results/h200/validation-measurements.json).
// * launch values read: which of the launch's indices and sizes the code reads. "tid.x" .. "tid.z"
//   and "ctaid.x" .. "ctaid.z" from S2R/S2UR/CS2R of SR_TID.* / SR_CTAID.*; "ntid.*" (blockDim) and
//   "nctaid.*" (gridDim) from SR_NTID.* / SR_NCTAID.* or, as ptxas emits them on sm_70+, from constant
//   bank 0 at 0x0..0x14 (c[0x0][0x0] is blockDim.x, c[0x0][0xc] gridDim.x; a 64-bit LDC/ULDC reads two).
//   A kernel that never reads tid.y gives every y-row of a block the same work; one that reads
//   nctaid strides over the grid (a grid-stride loop) rather than deriving its range from it.
// * thread limits (cuobjdump -elf's .nv.info, or the PTX): the block size the kernel was compiled
//   for, __launch_bounds__ / .maxntid (max_threads) and .reqntid (required_threads); listing.hpp.
// * resources (cuobjdump -res-usage): registers, shared (static), local (per thread), stack,
//   constant bank 0. Spill bytes: the bytes stored by STL and loaded by LDL instructions, per
//   thread, statically (what ptxas -v calls "bytes spill stores/loads" when local memory holds
//   only spills).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "warpmodel/access_patterns.hpp"
#include "warpmodel/sass/listing.hpp"

namespace warpmodel::sass {

struct InstructionMix {
  // memory, by kind
  int ldg = 0, stg = 0, lds = 0, sts = 0, ldc = 0, uldc = 0, ldl = 0, stl = 0, ld = 0, st = 0;
  int atom = 0, atoms = 0, ldgsts = 0, ldsm = 0, tma = 0, texture = 0, surface = 0;
  // arithmetic
  int fp32 = 0, fp64 = 0, fp16 = 0, tensor = 0, sfu = 0;
  // synchronisation and control
  int bar = 0, warpsync = 0, membar = 0, mbarrier = 0, branch = 0, call = 0, exit = 0, ret = 0, nop = 0;

  int global_memory() const { return ldg + stg + ld + st + atom + ldgsts; }
  int shared_memory() const { return lds + sts + atoms + ldsm; }
  int fp() const { return fp32 + fp64 + fp16; }
  // Every counted kind once (each instruction falls in at most one kind): at most the total.
  int classified() const;
};

// A tensor-core instruction's work as its SASS shape gives it: dense FLOPs per warp instruction (2 a
// multiply-add) and the input type (architecture_specs.hpp's tensor types; "" for kinds the model
// does not price, such as 4-bit and binary MMAs). HMMA.16816.F32.BF16: m16 n8 k16, 4096 FLOPs, bf16;
// HMMA.1684.F32.TF32: 1024, tf32; IMMA.16816.S8.S8: 4096, int8; DMMA.8x8x4: 512, fp64 (as ptxas 13.0
// prints them for sm_90a); the warpgroup
// MMAs of sm_90 (HGMMA.64x128x16.F32.BF16, QGMMA.64x128x32.F32.E4M3.E4M3, IGMMA) run on the four
// warps of a warpgroup, each counting the instruction once: 2 x 64 N K / 4 per warp. nullopt when
// the shape is not one of these forms.
struct TensorWork {
  double flops_per_warp_instruction = 0;
  std::string type;
  bool warpgroup = false;  // a warpgroup MMA (*GMMA, wgmma); else a warp's own (mma.sync, WMMA)
};
std::optional<TensorWork> tensor_work(const std::string& opcode);

struct BasicBlock {
  std::uint32_t start_offset = 0;
  int instructions = 0;
  int dependency_chain = 0;  // longest register/predicate RAW chain, in instructions
  int global_loads = 0;
  int mlp = 0;               // largest window of independent global loads (0 without loads)
};

struct KernelStatics {
  std::string name;       // symbol (mangled)
  std::string demangled;  // demangled, or the symbol
  std::string arch;
  std::string cubin;      // which extracted cubin it came from (file name), empty for a listing

  int static_instructions = 0;
  int padding_instructions = 0;  // trailing NOPs and the BRA-to-self, excluded
  InstructionMix mix;
  std::map<std::string, int> opcode_histogram;  // base opcode -> count

  std::vector<BasicBlock> blocks;
  std::string blocks_source;      // "nvdisasm -bbcfg" or "branch targets (leaders)"
  int cfg_edges = -1;             // edges in nvdisasm's CFG; -1 without it
  // When both were available: whether nvdisasm's blocks and the leader rule agree.
  std::optional<bool> leaders_agree_with_cfg;

  double thesis_ilp = 0;      // eq 4.26
  double dependency_ilp = 0;  // instruction-weighted mean over blocks
  double mlp_max = 1, mlp_mean = 1;
  std::optional<double> stall_cycles_per_instruction;  // mean control-bit stall count (see above)
  // Tensor work (hopper H.17): the static MMA instructions' FLOPs per warp by input type (each
  // instruction once), and the MMA instructions whose shape was read.
  std::map<std::string, double> tensor_flops_by_type;
  std::map<std::string, double> mma_sync_flops_by_type;  // the part of it from warp-level MMAs (HMMA, IMMA, ...)
  int tensor_instructions_read = 0;
  // Thread-block clusters (hopper H.18): UCGABAR_WAIT (barrier.cluster.wait), STAS (st.async into
  // another block's shared memory) and its bytes per thread, and the mbarrier waits (SYNCS.PHASECHK
  // ... TRYWAIT, an out-of-line retry loop after EXIT not counted again) of a kernel that pushes
  // into other blocks: the waits for the values they push.
  int cluster_barrier_waits = 0;
  int remote_shared_stores = 0;
  int remote_store_bytes_per_thread = 0;
  int remote_data_waits = 0;
  int instructions_before_first_global_load = 0;  // the thesis's literal sentence (see above)

  // Global load widths: mean bytes per thread per global load (LDG/LD), 0 without loads.
  double mean_global_load_bytes = 0;

  std::optional<ResourceUsage> resources;  // from cuobjdump -res-usage
  int spill_store_bytes = 0;               // sum of STL widths
  int spill_load_bytes = 0;                // sum of LDL widths

  // The address of every global load, store and atomic (address_analysis.hpp): lets sweep and
  // validate derive the memory counters at another launch shape.
  AccessPatterns access_patterns;

  // The launch values the code reads ("tid.y", "nctaid.x", ...; see above).
  std::set<std::string> launch_values_read;
  // __launch_bounds__ / .maxntid and .reqntid (see above), and where they were read.
  ThreadLimits thread_limits;
  std::string thread_limits_source;  // "cuobjdump -elf (.nv.info)", "ptx", or "" (none)

  int basic_blocks() const { return static_cast<int>(blocks.size()); }
  bool reads(const std::string& launch_value) const { return launch_values_read.count(launch_value) > 0; }
};

// Analyses one kernel. `cfg` is the kernel's part of nvdisasm's CFG (cfg_of_kernel), empty when
// nvdisasm was not run; `resources` its res-usage entry when known.
KernelStatics analyse_kernel(const KernelListing& listing, const std::vector<const CfgFunction*>& cfg,
                             const std::optional<ResourceUsage>& resources);

// Analyses every kernel of a listing (with the CFG, res-usage and .nv.info texts of the same
// cubin; any of them may be empty).
std::vector<KernelStatics> analyse_listing(const std::string& sass_text, const std::string& cfg_dot_text,
                                           const std::string& res_usage_text, const std::string& nv_info_text = "");

// --- building blocks, exposed for the tests ---

// Instructions without the trailing padding (see the definition above).
std::vector<Instruction> strip_padding(const std::vector<Instruction>& instructions);
// Block start offsets by the leader rule.
std::vector<std::uint32_t> leader_offsets(const std::vector<Instruction>& instructions);
// Registers read and written: "R4", "UR6", "P0", "UP1" (pairs expanded), without RZ/PT.
struct RegisterUse {
  std::vector<std::string> reads, writes;
};
RegisterUse register_use(const Instruction& ins);
// Registers the address operand of a memory instruction reads ("desc[UR4][R2.64+0x8]" -> UR4, UR5,
// R2, R3); empty when it has none.
std::vector<std::string> address_registers(const Instruction& ins);
// Bytes each thread moves for a load/store instruction (from .64/.128/.U8/... modifiers): 4 default.
int access_bytes(const Instruction& ins);
// The launch values an instruction reads ("tid.x", "ntid.y", "nctaid.x", ...; see above).
std::vector<std::string> launch_values_read_by(const Instruction& ins);

}  // namespace warpmodel::sass
