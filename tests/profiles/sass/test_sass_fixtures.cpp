// The SASS parsers and the static-analysis definitions (analysis.hpp) on committed tool output of
// the project's own kernels (fixtures/, see fixtures/*.provenance.md) and on small hand-written
// listings. The expected counts were checked by reading the fixtures' SASS; each is noted where
// it is asserted. Tampered copies of a fixture must move the counts.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "warpmodel/sass/analysis.hpp"
#include "warpmodel/sass/listing.hpp"
#include "warpmodel/sass/tools.hpp"

using namespace warpmodel::sass;

namespace {

std::string read(const std::string& name) {
  std::ifstream f(std::string(WARPMODEL_SASS_FIXTURES) + "/" + name);
  EXPECT_TRUE(f.good()) << name;
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

CubinDump ubench_dump() {
  return {"sm90_ubench", read("sm90_ubench.sass"), read("sm90_ubench.res-usage.txt"), read("sm90_ubench.cfg.dot")};
}

CubinDump stencil_dump() {
  return {"sm90_stencils", read("sm90_stencils.sass"), read("sm90_stencils.res-usage.txt"),
          read("sm90_stencils.cfg.dot")};
}

const KernelStatics& find(const std::vector<KernelStatics>& ks, const std::string& part) {
  const auto it = std::find_if(ks.begin(), ks.end(), [&](const KernelStatics& k) {
    return k.name.find(part) != std::string::npos;
  });
  if (it == ks.end()) throw std::runtime_error("kernel " + part + " not in the fixture");
  return *it;
}

std::vector<int> block_sizes(const KernelStatics& k) {
  std::vector<int> out;
  for (const auto& b : k.blocks) out.push_back(b.instructions);
  return out;
}

// Replaces the first occurrence of `from` after `anchor` (so a tampering hits the intended kernel).
std::string tamper(std::string text, const std::string& anchor, const std::string& from, const std::string& to) {
  const auto a = text.find(anchor);
  EXPECT_NE(a, std::string::npos) << anchor;
  const auto p = text.find(from, a);
  EXPECT_NE(p, std::string::npos) << from;
  return text.replace(p, from.size(), to);
}

Instruction parse_one(const std::string& line) {
  const auto ks = parse_sass_listing("Function : k\n" + line + "\n");
  EXPECT_EQ(ks.size(), 1u);
  EXPECT_EQ(ks.at(0).instructions.size(), 1u) << line;
  return ks.at(0).instructions.at(0);
}

bool contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace

// ---------------------------------------------------------------- parsers

TEST(SassListing, ReadsCuobjdumpOutput) {
  const auto ks = parse_sass_listing(read("sm90_ubench.sass"));
  ASSERT_EQ(ks.size(), 5u);
  for (const auto& k : ks) EXPECT_EQ(k.arch, "sm_90") << k.name;
  const auto& clock = *std::find_if(ks.begin(), ks.end(), [](const auto& k) { return k.name == "ubench_clock64"; });
  // 0x000..0x270: 29 instructions, the padding BRA 0x1d0 and 10 NOPs; encoding lines are skipped.
  ASSERT_EQ(clock.instructions.size(), 40u);
  const Instruction& exit_guarded = clock.instructions[3];
  EXPECT_EQ(exit_guarded.offset, 0x30u);
  EXPECT_EQ(exit_guarded.guard, "@!P0");
  EXPECT_EQ(exit_guarded.opcode, "EXIT");
  const Instruction& store = clock.instructions[26];  // /*01a0*/ @!P0 STG.E.64 desc[UR6][R4.64], R2 ;
  EXPECT_EQ(store.opcode, "STG.E.64");
  EXPECT_EQ(store.base(), "STG");
  EXPECT_TRUE(store.has_modifier("64"));
  EXPECT_FALSE(store.has_modifier("E6"));
  EXPECT_EQ(store.operands, (std::vector<std::string>{"desc[UR6][R4.64]", "R2"}));
  const Instruction& loop = clock.instructions[27];  // /*01b0*/ @!P2 BRA 0x100 ;
  ASSERT_TRUE(loop.target.has_value());
  EXPECT_EQ(*loop.target, 0x100u);
}

// The stall count sits in bits 41-44 of the control word (the line after the instruction): in
// 0x000fc8... the nibbles fc8 >> 1 = 0x7e4, low four bits 4. An architecture before sm_70 (64-bit
// encodings with separate control groups) and a listing without encodings keep none.
TEST(SassListing, ReadsTheStallCountOfTheControlBits) {
  const std::string body =
      "        Function : k\n"
      "        /*0000*/                   IADD3 R0, R0, 0x1, RZ ;  /* 0x0000000100007810 */\n"
      "                                                            /* 0x000fc80007ffe0ff */\n"
      "        /*0010*/                   EXIT ;                   /* 0x000000000000794d */\n"
      "                                                            /* 0x000fea0003800000 */\n";
  const auto ks = parse_sass_listing("\tcode for sm_90\n" + body);
  ASSERT_EQ(ks.size(), 1u);
  ASSERT_EQ(ks[0].instructions.size(), 2u);
  EXPECT_EQ(ks[0].instructions[0].stall_cycles, 4);
  EXPECT_EQ(ks[0].instructions[1].stall_cycles, 5);  // fea >> 1 = 0x7f5
  EXPECT_DOUBLE_EQ(*analyse_kernel(ks[0], {}, std::nullopt).stall_cycles_per_instruction, 4.5);
  const auto old_arch = parse_sass_listing("\tcode for sm_61\n" + body);
  EXPECT_FALSE(old_arch[0].instructions[0].stall_cycles.has_value());
  EXPECT_FALSE(analyse_kernel(old_arch[0], {}, std::nullopt).stall_cycles_per_instruction.has_value());
  const auto bare = parse_sass_listing("\tcode for sm_90\nFunction : k\n/*0000*/ EXIT ;\n");
  EXPECT_FALSE(analyse_kernel(bare[0], {}, std::nullopt).stall_cycles_per_instruction.has_value());
}

TEST(SassListing, ReadsNvdisasmListingWithLabels) {
  const std::string text =
      "\t.target\tsm_90\n"
      ".text.k:\n"
      "        /*0000*/                   ISETP.GE.AND P0, PT, R0, 0x4, PT ;\n"
      "        /*0010*/              @P0 BRA `(.L_x_1) ;\n"
      ".L_x_0:\n"
      "        /*0020*/                   IADD3 R0, R0, 0x1, RZ ;\n"
      "        /*0030*/                   BRA `(.L_x_0) ;\n"
      ".L_x_1:\n"
      "        /*0040*/                   EXIT ;\n";
  const auto ks = parse_sass_listing(text);
  ASSERT_EQ(ks.size(), 1u);
  EXPECT_EQ(ks[0].name, "k");
  EXPECT_EQ(ks[0].arch, "sm_90");
  ASSERT_EQ(ks[0].instructions.size(), 5u);
  EXPECT_EQ(ks[0].instructions[1].target, 0x40u);  // forward label
  EXPECT_EQ(ks[0].instructions[3].target, 0x20u);  // backward label
  const KernelStatics s = analyse_kernel(ks[0], {}, std::nullopt);
  EXPECT_EQ(block_sizes(s), (std::vector<int>{2, 2, 1}));
  EXPECT_EQ(s.blocks_source, "branch targets (leaders)");
}

TEST(SassListing, ReadsResourceUsage) {
  const auto r = parse_resource_usage(read("sm90_ubench.res-usage.txt"));
  ASSERT_EQ(r.size(), 5u);
  EXPECT_EQ(r.at("ubench_clock64").registers, 10);
  EXPECT_EQ(r.at("ubench_clock64").constant_bank0_bytes, 540);
  EXPECT_EQ(r.at("ubench_bw_shared").registers, 30);
  EXPECT_EQ(r.at("ubench_bw_shared").shared_bytes, 33792);
  EXPECT_EQ(r.at("ubench_departure").local_bytes, 0);
  EXPECT_EQ(r.at("ubench_departure").fields.at("SAMPLER"), 0);
}

TEST(SassListing, ReadsTheBasicBlockCfg) {
  const auto cfg = parse_cfg_dot(read("sm90_ubench.cfg.dot"));
  ASSERT_EQ(cfg.size(), 6u);  // five kernels and link_nodes' internal subroutine
  const auto clock = cfg_of_kernel(cfg, "ubench_clock64");
  ASSERT_EQ(clock.size(), 1u);
  ASSERT_EQ(clock[0]->blocks.size(), 4u);
  EXPECT_EQ(clock[0]->blocks[0].offsets, (std::vector<std::uint32_t>{0x0, 0x10, 0x20, 0x30}));
  EXPECT_EQ(clock[0]->blocks[3].offsets, (std::vector<std::uint32_t>{0x1c0}));
  EXPECT_EQ(clock[0]->edges.size(), 4u);  // entry -> body, body -> loop, loop -> loop, loop -> exit
  const auto link = cfg_of_kernel(cfg, "_ZN9warpmodel6ubench3gpu43_GLOBAL__N__7a64f1df_10_kernels_cu_9eb2367010link_nodesEPyPKjmm");
  ASSERT_EQ(link.size(), 2u);
  EXPECT_EQ(link[1]->name, "$__internal_0_$__cuda_sm20_rem_u64");
}

// ---------------------------------------------------------------- hand-checked kernels

TEST(SassAnalysis, Clock64HandChecked) {
  const auto ks = analyse_dump(ubench_dump());
  const KernelStatics& k = find(ks, "ubench_clock64");
  EXPECT_EQ(k.static_instructions, 29);  // /*0000*/ .. /*01c0*/ EXIT
  EXPECT_EQ(k.padding_instructions, 11);  // BRA 0x1d0 and 10 NOPs
  // Blocks: 0x000-0x030 (ends with @!P0 EXIT), 0x040-0x0f0, loop 0x100-0x1b0 (@!P2 BRA 0x100), 0x1c0 EXIT.
  EXPECT_EQ(block_sizes(k), (std::vector<int>{4, 12, 12, 1}));
  EXPECT_EQ(k.blocks_source, "nvdisasm -bbcfg");
  EXPECT_EQ(k.leaders_agree_with_cfg, true);
  EXPECT_DOUBLE_EQ(k.thesis_ilp, 29.0 / 4.0);  // eq 4.26
  EXPECT_EQ(k.mix.ldg, 0);
  EXPECT_EQ(k.mix.stg, 1);
  EXPECT_EQ(k.mix.ldc, 3);   // LDC R1; LDC.64 R2; LDC R6
  EXPECT_EQ(k.mix.uldc, 2);  // ULDC UR4; ULDC.64 UR6
  EXPECT_EQ(k.mix.exit, 2);
  EXPECT_EQ(k.mix.branch, 1);
  EXPECT_EQ(k.mix.fp(), 0);
  EXPECT_EQ(k.mlp_max, 1);  // no global loads
  EXPECT_EQ(k.instructions_before_first_global_load, 29);
  // Control-bit stall counts of the 29 instructions (LDC 1, ULDC 2, ISETP 13 (waits for the
  // uniform register), EXIT 5, ...), summed by hand from the fixture's control words: 86.
  ASSERT_TRUE(k.stall_cycles_per_instruction.has_value());
  EXPECT_DOUBLE_EQ(*k.stall_cycles_per_instruction, 86.0 / 29.0);
  // Entry block: LDC R1 | ULDC UR4 -> ISETP P0 (reads UR4) -> @!P0 EXIT: a chain of 3.
  EXPECT_EQ(k.blocks[0].dependency_chain, 3);
  ASSERT_TRUE(k.resources.has_value());
  EXPECT_EQ(k.resources->registers, 10);
}

TEST(SassAnalysis, LatRegisterMovHandChecked) {
  const auto ks = analyse_dump(ubench_dump());
  const KernelStatics& k = find(ks, "ubench_lat_register_mov");
  EXPECT_EQ(k.static_instructions, 52);  // /*0000*/ .. /*0330*/ EXIT
  // @!P0 BRA 0x2c0 at 0x0b0; loop 0x200-0x2b0 (@!P2 BRA 0x200); tail 0x2c0-0x330.
  EXPECT_EQ(block_sizes(k), (std::vector<int>{12, 20, 12, 8}));
  EXPECT_DOUBLE_EQ(k.thesis_ilp, 13.0);
  EXPECT_EQ(k.mix.ldg, 2);   // LDG.E R5, [R2.64+0x8]; LDG.E R0, [R2.64]
  EXPECT_EQ(k.mix.stg, 2);   // STG.E.64 (in the loop), STG.E
  EXPECT_EQ(k.mix.fp32, 2);  // FFMA x2 (I2FP is a conversion)
  EXPECT_EQ(k.mix.ldc, 6);
  EXPECT_EQ(k.mix.uldc, 3);
  // Both loads are issued before FFMA R0, RZ, R5, R0 reads R5: one window of 2.
  EXPECT_EQ(k.blocks[0].global_loads, 2);
  EXPECT_EQ(k.blocks[0].mlp, 2);
  EXPECT_EQ(k.mlp_max, 2);
  EXPECT_EQ(k.mlp_mean, 2);
  // LDC.64 R2 -> LDG R5 -> FFMA R0 -> FFMA R0: 4.
  EXPECT_EQ(k.blocks[0].dependency_chain, 4);
  EXPECT_EQ(k.instructions_before_first_global_load, 5);
  EXPECT_DOUBLE_EQ(k.mean_global_load_bytes, 4);
}

TEST(SassAnalysis, DepartureHandChecked) {
  const auto ks = analyse_dump(ubench_dump());
  const KernelStatics& k = find(ks, "ubench_departure");
  EXPECT_EQ(k.static_instructions, 64);
  EXPECT_EQ(block_sizes(k), (std::vector<int>{6, 25, 28, 5}));
  EXPECT_EQ(k.mix.ldg, 1);  // LDG.E.STRONG.GPU in the timed loop
  EXPECT_EQ(k.mix.stg, 3);
  EXPECT_EQ(k.mix.bar, 1);  // BAR.SYNC.DEFER_BLOCKING 0x0
  EXPECT_EQ(k.mlp_max, 1);  // the load's result is consumed by the next instruction
  EXPECT_EQ(k.resources->registers, 19);
}

TEST(SassAnalysis, InternalSubroutineBelongsToItsKernel) {
  const auto ks = analyse_dump(ubench_dump());
  const KernelStatics& k = find(ks, "link_nodes");
  EXPECT_NE(k.demangled.find("warpmodel::ubench::gpu::"), std::string::npos);
  EXPECT_EQ(k.static_instructions, 222);  // up to RET.REL.NODEC at 0xdd0 in $__internal_0_$__cuda_sm20_rem_u64
  // Leaders 0, 0xa0, 0x150, 0x170, 0x180, 0x2b0, 0x2c0 and the subroutine at 0x9d0.
  EXPECT_EQ(k.basic_blocks(), 8);
  EXPECT_EQ(k.blocks.back().start_offset, 0x9d0u);
  EXPECT_EQ(k.leaders_agree_with_cfg, true);
  EXPECT_EQ(k.mix.call, 1);
  EXPECT_EQ(k.mix.ret, 1);
  EXPECT_EQ(k.mix.sfu, 2);  // MUFU.RCP in the kernel and in the subroutine
  EXPECT_EQ(k.mix.stg, 32);
}

// The thesis's kernel: order 2 (radius 1), one thread per point (listing 3.3), as nvcc 13.0 builds
// it for sm_90. The K40 binary of the thesis had 86 instructions in 18 blocks and MLP 17 (eqs
// 4.33, 4.43); this one is 98 / 5 = 19.6 and MLP 9 (nine independent loads, then the sum).
TEST(SassAnalysis, StencilOrder2HandChecked) {
  const auto ks = analyse_dump(stencil_dump());
  ASSERT_EQ(ks.size(), 2u);  // two cubins (one per .cu file), one kernel each
  const KernelStatics& k = find(ks, "naive_kernelILi1E");
  EXPECT_EQ(k.demangled, "void warpmodel::stencils::gpu::kernels::naive_kernel<1>(warpmodel::stencils::gpu::StencilParams)");
  EXPECT_EQ(k.static_instructions, 98);  // /*0000*/ .. /*0610*/ EXIT
  // @P0 EXIT at 0x120; @P0 BRA 0x5c0 at 0x280; the stencil body 0x290-0x5b0; BSYNC at 0x5c0; 0x5d0 store.
  EXPECT_EQ(block_sizes(k), (std::vector<int>{19, 22, 51, 1, 5}));
  EXPECT_DOUBLE_EQ(k.thesis_ilp, 19.6);
  EXPECT_EQ(k.mix.ldg, 9);   // centre, six neighbours, prev, vel2
  EXPECT_EQ(k.mix.stg, 1);
  EXPECT_EQ(k.mix.fp32, 11);  // 8 FADD, 1 FMUL, 2 FFMA
  EXPECT_EQ(k.blocks[2].global_loads, 9);
  EXPECT_EQ(k.blocks[2].mlp, 9);  // all nine issued before FADD R9, R9, R18 at 0x500
  EXPECT_EQ(k.mlp_max, 9);
  EXPECT_EQ(k.instructions_before_first_global_load, 53);  // the thesis's literal MLP sentence
  EXPECT_EQ(k.resources->registers, 26);
  const KernelStatics& tiled = find(ks, "shared_kernelILi1E");
  EXPECT_EQ(tiled.static_instructions, 248);
  EXPECT_EQ(tiled.basic_blocks(), 17);
  EXPECT_EQ(tiled.mix.ldg, 9);
  EXPECT_EQ(tiled.mix.sts, 5);
  EXPECT_EQ(tiled.mix.lds, 5);
  EXPECT_EQ(tiled.mix.bar, 1);
  EXPECT_EQ(tiled.mix.branch, 7);
  EXPECT_EQ(tiled.mlp_max, 4);
  EXPECT_DOUBLE_EQ(tiled.mlp_mean, 25.0 / 9.0);  // windows 1, 2, 2, 4 in four blocks, weighted by loads
  EXPECT_EQ(tiled.resources->shared_bytes, 1024);
}

TEST(SassAnalysis, EveryFixtureKernelIsConsistent) {
  std::vector<KernelStatics> all = analyse_dump(ubench_dump());
  const std::vector<KernelStatics> stencils = analyse_dump(stencil_dump());
  all.insert(all.end(), stencils.begin(), stencils.end());
  for (const auto& k : all) {
    SCOPED_TRACE(k.name);
    EXPECT_GE(k.basic_blocks(), 1);
    EXPECT_LE(k.mix.classified(), k.static_instructions);
    int in_blocks = 0;
    for (const auto& b : k.blocks) {
      in_blocks += b.instructions;
      EXPECT_GE(b.dependency_chain, 1);
      EXPECT_LE(b.dependency_chain, b.instructions);
      EXPECT_LE(b.mlp, b.global_loads);
    }
    EXPECT_EQ(in_blocks, k.static_instructions);
    EXPECT_DOUBLE_EQ(k.thesis_ilp, static_cast<double>(k.static_instructions) / k.basic_blocks());
    EXPECT_GE(k.dependency_ilp, 1.0);
    EXPECT_LE(k.dependency_ilp, k.thesis_ilp + 1e-12);  // chain >= 1 in every block
    EXPECT_EQ(k.leaders_agree_with_cfg, true);
    EXPECT_TRUE(k.resources.has_value());
  }
}

// ---------------------------------------------------------------- tampered fixtures

TEST(SassAnalysis, TamperedStoreBecomesLoad) {
  CubinDump d = ubench_dump();
  d.sass = tamper(d.sass, "Function : ubench_clock64", "@!P0 STG.E.64 desc[UR6][R4.64], R2", "@!P0 LDG.E.64 R2, desc[UR6][R4.64]");
  const auto ks = analyse_dump(d);
  const KernelStatics& k = find(ks, "ubench_clock64");
  EXPECT_EQ(k.mix.stg, 0);
  EXPECT_EQ(k.mix.ldg, 1);
  EXPECT_EQ(k.instructions_before_first_global_load, 26);
  EXPECT_DOUBLE_EQ(k.mean_global_load_bytes, 8);
}

TEST(SassAnalysis, TamperedBranchTargetMovesABlockBoundary) {
  CubinDump d = ubench_dump();
  d.sass = tamper(d.sass, "Function : ubench_clock64", "@!P2 BRA 0x100 ;", "@!P2 BRA 0x120 ;");
  const auto with_cfg_all = analyse_dump(d);
  const KernelStatics& with_cfg = find(with_cfg_all, "ubench_clock64");
  EXPECT_EQ(block_sizes(with_cfg), (std::vector<int>{4, 12, 12, 1}));  // nvdisasm's blocks, untampered...
  EXPECT_EQ(with_cfg.leaders_agree_with_cfg, false);                   // ...and the disagreement is reported
  d.cfg_dot.clear();
  const auto leaders_all = analyse_dump(d);
  const KernelStatics& leaders = find(leaders_all, "ubench_clock64");
  EXPECT_EQ(block_sizes(leaders), (std::vector<int>{4, 14, 10, 1}));  // the loop head moved to 0x120
}

TEST(SassAnalysis, TamperedExitAddsABlock) {
  CubinDump d = ubench_dump();
  d.sass = tamper(d.sass, "Function : ubench_clock64", "/*0120*/                   UIADD3 UR4, UR4, 0x1, URZ ;",
                  "/*0120*/              @P1 EXIT ;");
  d.cfg_dot.clear();
  const auto ks = analyse_dump(d);
  const KernelStatics& k = find(ks, "ubench_clock64");
  EXPECT_EQ(block_sizes(k), (std::vector<int>{4, 12, 3, 9, 1}));
  EXPECT_DOUBLE_EQ(k.thesis_ilp, 29.0 / 5.0);
  EXPECT_EQ(k.mix.exit, 3);
}

TEST(SassAnalysis, TamperedLoadsChangeMlp) {
  CubinDump d = ubench_dump();
  // Make the second load depend on the first (a pointer chase): two windows of 1.
  d.sass = tamper(d.sass, "Function : ubench_lat_register_mov", "LDG.E R0, desc[UR6][R2.64] ;",
                  "LDG.E R0, desc[UR6][R5.64] ;");
  const auto ks = analyse_dump(d);
  const KernelStatics& k = find(ks, "ubench_lat_register_mov");
  EXPECT_EQ(k.blocks[0].global_loads, 2);
  EXPECT_EQ(k.mlp_max, 1);
}

TEST(SassAnalysis, TamperedResourceUsage) {
  CubinDump d = ubench_dump();
  d.res_usage = tamper(d.res_usage, "Function ubench_clock64:", "REG:10", "REG:12");
  const auto ks = analyse_dump(d);
  EXPECT_EQ(find(ks, "ubench_clock64").resources->registers, 12);
}

// ---------------------------------------------------------------- definitions on small listings

TEST(SassDefinitions, PaddingIsTheTailAfterTheLastExit) {
  const auto ks = parse_sass_listing(
      "Function : k\n"
      "/*0000*/ NOP ;\n"  // an alignment NOP inside the code stays
      "/*0010*/ EXIT ;\n"
      "/*0020*/ BRA 0x20 ;\n"
      "/*0030*/ NOP ;\n"
      "/*0040*/ NOP ;\n");
  const auto code = strip_padding(ks.at(0).instructions);
  ASSERT_EQ(code.size(), 2u);
  EXPECT_EQ(code[0].base(), "NOP");
  const KernelStatics s = analyse_kernel(ks.at(0), {}, std::nullopt);
  EXPECT_EQ(s.padding_instructions, 3);
  EXPECT_EQ(s.mix.nop, 1);
}

TEST(SassDefinitions, RegisterUse) {
  auto use = register_use(parse_one("/*0000*/ IADD3 R4, P0, R2, 0x1, RZ ;"));
  EXPECT_EQ(use.writes, (std::vector<std::string>{"R4", "P0"}));
  EXPECT_EQ(use.reads, (std::vector<std::string>{"R2"}));
  use = register_use(parse_one("/*0000*/ LDG.E.64 R2, desc[UR6][R4.64+0x8] ;"));
  EXPECT_EQ(use.writes, (std::vector<std::string>{"R2", "R3"}));
  EXPECT_EQ(use.reads, (std::vector<std::string>{"UR6", "UR7", "R4", "R5"}));
  use = register_use(parse_one("/*0000*/ @!P1 STG.E.128 desc[UR4][R2.64], R8 ;"));
  EXPECT_TRUE(use.writes.empty());
  EXPECT_EQ(use.reads, (std::vector<std::string>{"P1", "UR4", "UR5", "R2", "R3", "R8", "R9", "R10", "R11"}));
  use = register_use(parse_one("/*0000*/ ISETP.GE.U32.AND.EX P0, PT, R3, UR11, PT, P0 ;"));
  EXPECT_EQ(use.writes, (std::vector<std::string>{"P0"}));
  EXPECT_EQ(use.reads, (std::vector<std::string>{"R3", "UR11", "P0"}));
  use = register_use(parse_one("/*0000*/ DFMA R2, R4, R6, R2 ;"));
  EXPECT_EQ(use.writes, (std::vector<std::string>{"R2", "R3"}));
  EXPECT_TRUE(contains(use.reads, "R7"));
  use = register_use(parse_one("/*0000*/ IMAD.WIDE.U32 R2, R5, UR4, R2 ;"));
  EXPECT_EQ(use.writes, (std::vector<std::string>{"R2", "R3"}));
  EXPECT_TRUE(contains(use.reads, "R3"));
  use = register_use(parse_one("/*0000*/ SHFL.BFLY PT, R3, R2, 0x1, 0x1f ;"));
  EXPECT_EQ(use.writes, (std::vector<std::string>{"R3"}));
  use = register_use(parse_one("/*0000*/ VOTE.ANY R3, PT, P0 ;"));
  EXPECT_EQ(use.writes, (std::vector<std::string>{"R3"}));
  EXPECT_EQ(use.reads, (std::vector<std::string>{"P0"}));
  use = register_use(parse_one("/*0000*/ S2R R2, SR_TID.X ;"));
  EXPECT_EQ(use.writes, (std::vector<std::string>{"R2"}));
  EXPECT_TRUE(use.reads.empty());  // SR_TID is a special register, not R/P
  use = register_use(parse_one("/*0000*/ FFMA R0, -R5.reuse, |R4|, R0 ;"));
  EXPECT_EQ(use.reads, (std::vector<std::string>{"R5", "R4", "R0"}));
}

TEST(SassDefinitions, DependencyIlpIsInstructionsOverTheLongestChain) {
  const auto independent = parse_sass_listing(
      "Function : k\n/*0000*/ MOV R0, 0x1 ;\n/*0010*/ MOV R1, 0x2 ;\n/*0020*/ MOV R2, 0x3 ;\n/*0030*/ EXIT ;\n");
  const KernelStatics a = analyse_kernel(independent.at(0), {}, std::nullopt);
  EXPECT_EQ(a.blocks.at(0).dependency_chain, 1);
  EXPECT_DOUBLE_EQ(a.dependency_ilp, 4.0);
  const auto chain = parse_sass_listing(
      "Function : k\n/*0000*/ MOV R0, 0x1 ;\n/*0010*/ FADD R0, R0, 1 ;\n/*0020*/ FADD R0, R0, 1 ;\n"
      "/*0030*/ ISETP.GT.AND P0, PT, R0, RZ, PT ;\n/*0040*/ @P0 EXIT ;\n/*0050*/ EXIT ;\n");
  const KernelStatics b = analyse_kernel(chain.at(0), {}, std::nullopt);
  ASSERT_EQ(b.blocks.size(), 2u);
  EXPECT_EQ(b.blocks[0].dependency_chain, 5);  // MOV -> FADD -> FADD -> ISETP -> @P0 EXIT
  // Weighted by instructions: (5 x 5/5 + 1 x 1/1) / 6 = 1.
  EXPECT_DOUBLE_EQ(b.dependency_ilp, 1.0);
  EXPECT_DOUBLE_EQ(b.thesis_ilp, 3.0);
}

TEST(SassDefinitions, MlpCountsIndependentLoadsBeforeTheFirstUse) {
  const auto ks = parse_sass_listing(
      "Function : k\n"
      "/*0000*/ LDG.E R4, desc[UR4][R2.64] ;\n"
      "/*0010*/ LDG.E R5, desc[UR4][R2.64+0x4] ;\n"
      "/*0020*/ LDG.E R6, desc[UR4][R2.64+0x8] ;\n"
      "/*0030*/ FADD R7, R4, R5 ;\n"                    // first use: window of 3
      "/*0040*/ LDG.E R8, desc[UR4][R2.64+0xc] ;\n"
      "/*0050*/ FADD R7, R7, R8 ;\n"                    // window of 1
      "/*0060*/ STG.E desc[UR4][R2.64], R7 ;\n"
      "/*0070*/ EXIT ;\n"
      "/*0080*/ BRA 0x80 ;\n");
  const KernelStatics s = analyse_kernel(ks.at(0), {}, std::nullopt);
  ASSERT_EQ(s.blocks.size(), 1u);
  EXPECT_EQ(s.blocks[0].global_loads, 4);
  EXPECT_EQ(s.blocks[0].mlp, 3);
  EXPECT_EQ(s.mlp_max, 3);
  EXPECT_EQ(s.mlp_mean, 3);  // one block
  EXPECT_EQ(s.instructions_before_first_global_load, 0);
  EXPECT_EQ(s.mix.global_memory(), 5);
  EXPECT_EQ(s.padding_instructions, 1);
}

TEST(SassDefinitions, InstructionKinds) {
  const auto ks = parse_sass_listing(
      "Function : k\n"
      "/*0000*/ LDS.U.128 R4, [R2] ;\n/*0010*/ STS [R2], R4 ;\n/*0020*/ LDL R5, [R1+0x10] ;\n"
      "/*0030*/ STL.64 [R1+0x8], R4 ;\n/*0040*/ ATOMG.E.ADD.STRONG.GPU PT, R3, desc[UR4][R2.64], R5 ;\n"
      "/*0050*/ RED.E.ADD.STRONG.GPU desc[UR4][R2.64], R5 ;\n/*0060*/ MUFU.EX2 R0, R0 ;\n"
      "/*0070*/ HFMA2.MMA R7, -RZ, RZ, 1.875, 0 ;\n/*0080*/ HFMA2 R7, R7, R8, R9 ;\n/*0090*/ DADD R8, R8, R10 ;\n"
      "/*00a0*/ BAR.SYNC.DEFER_BLOCKING 0x0 ;\n/*00b0*/ WARPSYNC 0xffffffff ;\n/*00c0*/ MEMBAR.SC.GPU ;\n"
      "/*00d0*/ LDGSTS.E [R2], desc[UR4][R4.64] ;\n/*00e0*/ F2F.F64.F32 R10, R0 ;\n/*00f0*/ EXIT ;\n");
  const KernelStatics s = analyse_kernel(ks.at(0), {}, std::nullopt);
  EXPECT_EQ(s.mix.lds, 1);
  EXPECT_EQ(s.mix.sts, 1);
  EXPECT_EQ(s.mix.ldl, 1);
  EXPECT_EQ(s.mix.stl, 1);
  EXPECT_EQ(s.spill_store_bytes, 8);
  EXPECT_EQ(s.spill_load_bytes, 4);
  EXPECT_EQ(s.mix.atom, 2);
  EXPECT_EQ(s.mix.sfu, 1);
  EXPECT_EQ(s.mix.fp16, 1);  // the HFMA2.MMA constant move is not arithmetic
  EXPECT_EQ(s.mix.fp64, 1);
  EXPECT_EQ(s.mix.bar, 1);
  EXPECT_EQ(s.mix.warpsync, 1);
  EXPECT_EQ(s.mix.membar, 1);
  EXPECT_EQ(s.mix.ldgsts, 1);
  EXPECT_EQ(s.mix.global_memory(), 3);  // two atomics and the LDGSTS
  EXPECT_EQ(s.mix.classified(), 14);    // all but the conversion and the constant move
  EXPECT_EQ(register_use(ks.at(0).instructions[14]).writes, (std::vector<std::string>{"R10", "R11"}));
}

// ---------------------------------------------------------------- tensor and cluster statics
// The MMA shapes as ptxas 13.0 prints them for sm_90a (a wmma kernel per type, compiled and dumped
// with cuobjdump -sass): each one's dense FLOPs per warp instruction and input type (hopper H.17).
TEST(SassAnalysis, TensorShapesGiveFlopsAndType) {
  const auto flops = [](const std::string& opcode) { return tensor_work(opcode).value().flops_per_warp_instruction; };
  const auto type = [](const std::string& opcode) { return tensor_work(opcode).value().type; };
  EXPECT_EQ(flops("HMMA.16816.F32"), 2 * 16 * 8 * 16);  // wmma 16x16x16 fp16: two of them, 8192
  EXPECT_EQ(type("HMMA.16816.F32"), "fp16");
  EXPECT_EQ(type("HMMA.16816.F16"), "fp16");
  EXPECT_EQ(type("HMMA.16816.F32.BF16"), "bf16");
  EXPECT_EQ(flops("HMMA.1684.F32.TF32"), 2 * 16 * 8 * 4);  // wmma 16x16x8 tf32: four of them
  EXPECT_EQ(type("HMMA.1684.F32.TF32"), "tf32");
  EXPECT_EQ(flops("HMMA.1688.F32.TF32"), 2 * 16 * 8 * 8);
  EXPECT_EQ(flops("IMMA.16816.S8.S8"), 2 * 16 * 8 * 16);
  EXPECT_EQ(type("IMMA.16816.S8.S8"), "int8");
  EXPECT_EQ(flops("IMMA.16832.S8.S8"), 2 * 16 * 8 * 32);
  EXPECT_EQ(flops("DMMA.8x8x4"), 2 * 8 * 8 * 4);  // fp64: one warp, not a warpgroup
  EXPECT_EQ(type("DMMA.8x8x4"), "fp64");
  EXPECT_EQ(flops("DMMA.884"), 2 * 8 * 8 * 4);
  // sm_90's warpgroup MMAs: the 4 warps of the group each execute it.
  EXPECT_EQ(flops("HGMMA.64x128x16.F32.BF16"), 2 * 64 * 128 * 16 / 4);
  EXPECT_EQ(type("HGMMA.64x128x16.F32.BF16"), "bf16");
  EXPECT_EQ(type("HGMMA.64x256x16.F32"), "fp16");
  EXPECT_EQ(type("HGMMA.64x64x8.F32.TF32"), "tf32");
  EXPECT_EQ(flops("QGMMA.64x128x32.F32.E4M3.E4M3"), 2 * 64 * 128 * 32 / 4);
  EXPECT_EQ(type("QGMMA.64x128x32.F32.E4M3.E4M3"), "fp8");
  EXPECT_EQ(type("IGMMA.64x128x32.S32.S8.S8"), "int8");
  EXPECT_EQ(type("IMMA.16864.S4.S4"), "") << "4-bit: not one of the priced types";
  // Which rate H.17 prices them at: a warpgroup's (wgmma) or a warp's own (mma.sync, WMMA; DMMA too).
  for (const char* warp_level : {"HMMA.16816.F32", "IMMA.16832.S8.S8", "DMMA.8x8x4"})
    EXPECT_FALSE(tensor_work(warp_level).value().warpgroup) << warp_level;
  for (const char* group : {"HGMMA.64x128x16.F32.BF16", "QGMMA.64x128x32.F32.E4M3.E4M3", "IGMMA.64x128x32.S32.S8.S8"})
    EXPECT_TRUE(tensor_work(group).value().warpgroup) << group;
  EXPECT_FALSE(tensor_work("HMMA.MMA"));
  EXPECT_FALSE(tensor_work("HMMA"));
}

// A kernel's MMAs summed by type; its cluster waits, with the out-of-line retry loop of a wait after
// EXIT not counted twice (the pattern of the ADI fused-cluster y-sweep's SASS: two UCGABAR_WAIT,
// eight STAS, three TRYWAIT of which the last is the first one's retry).
TEST(SassAnalysis, TensorAndClusterStatics) {
  const std::string listing =
      "\tcode for sm_90a\n"
      "        Function : k\n"
      "        /*0000*/                   HMMA.16816.F32.BF16 R16, R4, R12, RZ ;\n"
      "        /*0010*/                   HMMA.16816.F32.BF16 R12, R4, R14, RZ ;\n"
      "        /*0020*/                   HMMA.1684.F32.TF32 R4, R10, R0, RZ ;\n"
      "        /*0030*/                   UCGABAR_ARV ;\n"
      "        /*0040*/                   UCGABAR_WAIT ;\n"
      "        /*0050*/                   STAS.64 [R30.64], R24 ;\n"
      "        /*0060*/                   STAS.64 [R34.64], R74 ;\n"
      "        /*0070*/                   SYNCS.PHASECHK.TRANS64.TRYWAIT P1, [R28+URZ+0x80], R31 ;\n"
      "        /*0080*/              @!P1 BRA 0x100 ;\n"
      "        /*0090*/                   SYNCS.PHASECHK.TRANS64.TRYWAIT P1, [R28+URZ+0x88], R9 ;\n"
      "        /*00a0*/              @!P1 BRA 0x90 ;\n"
      "        /*00b0*/                   UCGABAR_WAIT ;\n"
      "        /*00c0*/                   EXIT ;\n"
      "        /*0100*/                   SYNCS.PHASECHK.TRANS64.TRYWAIT P1, [R28+URZ+0x80], R31 ;\n"
      "        /*0110*/              @!P1 BRA 0x100 ;\n"
      "        /*0120*/                   BRA 0x90 ;\n";
  const auto ks = parse_sass_listing(listing);
  ASSERT_EQ(ks.size(), 1u);
  const KernelStatics s = analyse_kernel(ks[0], {}, std::nullopt);
  EXPECT_EQ(s.mix.tensor, 3);
  EXPECT_EQ(s.tensor_instructions_read, 3);
  EXPECT_DOUBLE_EQ(s.tensor_flops_by_type.at("bf16"), 2 * 4096);
  EXPECT_DOUBLE_EQ(s.tensor_flops_by_type.at("tf32"), 1024);
  EXPECT_EQ(s.cluster_barrier_waits, 2);
  EXPECT_EQ(s.remote_shared_stores, 2);
  EXPECT_EQ(s.remote_store_bytes_per_thread, 16);
  EXPECT_EQ(s.remote_data_waits, 2) << "the retry loop after EXIT is the first wait's";
  // Without a push into another block, the mbarrier waits are a pipeline's (TMA, cp.async), not the cluster's.
  const auto no_push = parse_sass_listing(tamper(listing, "Function : k", "STAS.64 [R30.64], R24", "NOP"));
  const auto no_push2 = parse_sass_listing(tamper(tamper(listing, "Function : k", "STAS.64 [R30.64], R24", "NOP"),
                                                  "Function : k", "STAS.64 [R34.64], R74", "NOP"));
  EXPECT_EQ(analyse_kernel(no_push[0], {}, std::nullopt).remote_data_waits, 2);
  EXPECT_EQ(analyse_kernel(no_push2[0], {}, std::nullopt).remote_data_waits, 0);
}
