// The SASS address analysis (profiles/sass address_analysis): hand-written and ptxas-written SASS
// whose addresses are known from the CUDA source.
#include <gtest/gtest.h>

#include <algorithm>

#include "warpmodel/sass/address_analysis.hpp"
#include "warpmodel/sass/listing.hpp"
#include "warpmodel/traffic.hpp"

namespace warpmodel::sass {
namespace {

AccessPatterns analyse(const std::string& body) {
  const auto kernels = parse_sass_listing("\tcode for sm_90\n\t\tFunction : k\n" + body);
  EXPECT_EQ(kernels.size(), 1u);
  return analyse_addresses(kernels.at(0));
}

// Sorted terms, for comparisons that do not depend on the order the analysis prints them in.
std::vector<AddressTerm> sorted(AddressPolynomial p) {
  std::sort(p.begin(), p.end(), [](const AddressTerm& a, const AddressTerm& b) { return a.symbols < b.symbols; });
  return p;
}

// ptxas 13.0 for sm_90, the corpus's naive transpose:
//   x = blockIdx.x * blockDim.x + threadIdx.x; y = blockIdx.y * blockDim.y + threadIdx.y;
//   if (x < cols && y < rows) out[x * rows + y] = in[y * cols + x];
// with in, out, rows, cols at parameter offsets 0x210, 0x218, 0x220, 0x224.
const char* kTranspose = R"(
        /*0000*/                   LDC R1, c[0x0][0x28] ;
        /*0010*/                   S2R R3, SR_TID.X ;
        /*0020*/                   S2UR UR4, SR_CTAID.X ;
        /*0030*/                   ULDC.64 UR6, c[0x0][0x220] ;
        /*0040*/                   S2R R7, SR_CTAID.Y ;
        /*0050*/                   S2R R2, SR_TID.Y ;
        /*0060*/                   LDC R0, c[0x0][RZ] ;
        /*0070*/                   IMAD R0, R0, UR4, R3 ;
        /*0080*/                   ULDC UR4, c[0x0][0x4] ;
        /*0090*/                   ISETP.GE.AND P0, PT, R0, UR7, PT ;
        /*00a0*/                   IMAD R7, R7, UR4, R2 ;
        /*00b0*/                   ISETP.GE.OR P0, PT, R7, UR6, P0 ;
        /*00c0*/               @P0 EXIT ;
        /*00d0*/                   LDC.64 R2, c[0x0][0x210] ;
        /*00e0*/                   IMAD R5, R7, UR7, R0 ;
        /*00f0*/                   ULDC.64 UR4, c[0x0][0x208] ;
        /*0100*/                   IMAD.WIDE R2, R5, 0x4, R2 ;
        /*0110*/                   LDC.64 R4, c[0x0][0x218] ;
        /*0120*/                   LDG.E.CONSTANT R3, desc[UR4][R2.64] ;
        /*0130*/                   IMAD R7, R0, UR6, R7 ;
        /*0140*/                   IMAD.WIDE R4, R7, 0x4, R4 ;
        /*0150*/                   STG.E desc[UR4][R4.64], R3 ;
        /*0160*/                   EXIT ;
        /*0170*/                   BRA 0x170;
)";

TEST(AddressAnalysis, NaiveTransposeReadsRowsAndWritesColumns) {
  const AccessPatterns p = analyse(kTranspose);
  ASSERT_EQ(p.accesses.size(), 2u);
  const MemoryAccess& in = p.accesses[0];
  const MemoryAccess& out = p.accesses[1];
  EXPECT_EQ(in.kind, AccessKind::load);
  EXPECT_EQ(out.kind, AccessKind::store);
  ASSERT_TRUE(in.address && out.address);
  // in + 4 * ((ctaid.y * ntid.y + tid.y) * cols + ctaid.x * ntid.x + tid.x)
  const AddressPolynomial expected_in = {{1, {"param:0x210"}},
                                         {4, {"tid.x"}},
                                         {4, {"ctaid.x", "ntid.x"}},
                                         {4, {"param:0x224", "tid.y"}},
                                         {4, {"ctaid.y", "ntid.y", "param:0x224"}}};
  EXPECT_EQ(sorted(*in.address), sorted(expected_in)) << format_address(in.address);
  // out + 4 * ((ctaid.x * ntid.x + tid.x) * rows + ctaid.y * ntid.y + tid.y)
  const AddressPolynomial expected_out = {{1, {"param:0x218"}},
                                          {4, {"tid.y"}},
                                          {4, {"ctaid.y", "ntid.y"}},
                                          {4, {"param:0x220", "tid.x"}},
                                          {4, {"ctaid.x", "ntid.x", "param:0x220"}}};
  EXPECT_EQ(sorted(*out.address), sorted(expected_out)) << format_address(out.address);
  // What the traffic model makes of it: the read is 4 sectors a warp, the write 32 at 32x8, 8 at 8x32.
  LaunchConfig l;
  l.grid = {64, 64, 1};
  l.block = {32, 8, 1};
  const ShapeTraffic wide = shape_traffic(p, l);
  l.block = {8, 32, 1};
  const ShapeTraffic narrow = shape_traffic(p, l);
  EXPECT_DOUBLE_EQ(wide.load_sectors_per_request, 4);
  EXPECT_DOUBLE_EQ(wide.store_sectors_per_request, 32);
  EXPECT_DOUBLE_EQ(narrow.store_sectors_per_request, 8);
}

// A loop that advances a per-thread pointer by a uniform stride (p += 32 floats), then a load
// whose address was loaded from memory (a gather), and a predicated update of a pointer by a
// thread-dependent amount.
const char* kLoop = R"(
        /*0000*/                   S2R R0, SR_TID.X ;
        /*0010*/                   LDC.64 R2, c[0x0][0x210] ;
        /*0020*/                   IMAD.WIDE R2, R0, 0x4, R2 ;
        /*0030*/                   MOV R4, RZ ;
        /*0040*/                   LDG.E R5, desc[UR4][R2.64] ;
        /*0050*/                   IADD3 R2, P0, R2, 0x80, RZ ;
        /*0060*/                   IADD3.X R3, RZ, R3, RZ, P0, !PT ;
        /*0070*/                   IADD3 R4, R4, 0x1, RZ ;
        /*0080*/                   ISETP.NE.AND P1, PT, R4, 0x10, PT ;
        /*0090*/               @P1 BRA 0x40 ;
        /*00a0*/                   LDC.64 R6, c[0x0][0x218] ;
        /*00b0*/                   IMAD.WIDE R6, R5, 0x4, R6 ;
        /*00c0*/                   LDG.E R8, desc[UR4][R6.64] ;
        /*00d0*/                   LDC.64 R10, c[0x0][0x220] ;
        /*00e0*/                   IMAD.WIDE R10, R0, 0x8, R10 ;
        /*00f0*/               @P1 IMAD.WIDE R10, R0, 0x4, R10 ;
        /*0100*/                   STG.E.64 desc[UR4][R10.64], R8 ;
        /*0110*/                   EXIT ;
)";

TEST(AddressAnalysis, LoopsKeepThePerThreadPartAndLoadedAddressesAreIrregular) {
  const AccessPatterns p = analyse(kLoop);
  ASSERT_EQ(p.accesses.size(), 3u);
  const MemoryAccess& walk = p.accesses[0];
  EXPECT_EQ(walk.loop_depth, 1);
  ASSERT_TRUE(walk.address);
  // 4 tid.x + param + a uniform symbol for the pointer's advance at the loop head.
  bool has_tid = false, has_loop_symbol = false;
  for (const AddressTerm& t : *walk.address) {
    if (t.symbols == std::vector<std::string>{"tid.x"}) has_tid = t.coefficient == 4;
    if (t.symbols.size() == 1 && t.symbols[0].rfind("u:j0x40", 0) == 0) has_loop_symbol = true;
  }
  EXPECT_TRUE(has_tid) << format_address(walk.address);
  EXPECT_TRUE(has_loop_symbol) << format_address(walk.address);
  // The back edge adds 0x80 to the pointer: the address moves 128 bytes a trip (H.5d reads it).
  ASSERT_TRUE(walk.stride_per_trip);
  EXPECT_EQ(format_address(walk.stride_per_trip), "128");
  EXPECT_FALSE(p.accesses[2].stride_per_trip) << "outside the loop";
  EXPECT_FALSE(walk.address_from_loaded_data);
  EXPECT_FALSE(p.accesses[1].address) << "an address loaded from memory is irregular";
  EXPECT_TRUE(p.accesses[1].address_from_loaded_data) << "x[idx]: the index R5 came from the loop's LDG";
  EXPECT_EQ(p.accesses[1].loop_depth, 0);
  EXPECT_FALSE(p.accesses[2].address) << "a predicated thread-dependent update makes it irregular";
  EXPECT_FALSE(p.accesses[2].address_from_loaded_data) << "irregular, but computed from indices only";
  EXPECT_EQ(p.accesses[2].bytes_per_thread, 8);
  EXPECT_NE(p.source.find("3 global accesses, 1 affine in the thread indices, 1 at addresses from loaded data"),
            std::string::npos)
      << p.source;
}

// A warp-per-row CSR product's loads: the row's start at row_ptr[tid.y] (a word the 32 lanes of a
// warp share when the block is 32 wide), the row data col[start + lane] and the gather x[col[..]];
// then the same with the row's start at row_ptr[tid.x] (a word per lane).
std::string csr_rows(const char* row_index_register) {
  return std::string(R"(
        /*0000*/                   S2R R0, )") + row_index_register + R"( ;
        /*0010*/                   S2R R1, SR_TID.X ;
        /*0020*/                   LDC.64 R2, c[0x0][0x210] ;
        /*0030*/                   IMAD.WIDE R2, R0, 0x4, R2 ;
        /*0040*/                   LDG.E R4, desc[UR4][R2.64] ;
        /*0050*/                   IADD3 R4, R4, R1, RZ ;
        /*0060*/                   LDC.64 R6, c[0x0][0x218] ;
        /*0070*/                   IMAD.WIDE R6, R4, 0x4, R6 ;
        /*0080*/                   LDG.E R8, desc[UR4][R6.64] ;
        /*0090*/                   LDC.64 R10, c[0x0][0x220] ;
        /*00a0*/                   IMAD.WIDE R10, R8, 0x4, R10 ;
        /*00b0*/                   LDG.E R12, desc[UR4][R10.64] ;
        /*00c0*/                   EXIT ;
        /*00d0*/                   BRA 0xd0;
)";
}

TEST(AddressAnalysis, ARowStartAWarpSharesKeepsTheRowDataAffine) {
  const AccessPatterns p = analyse(csr_rows("SR_TID.Y"));
  ASSERT_EQ(p.accesses.size(), 3u);
  ASSERT_TRUE(p.accesses[1].address) << "col[start + lane]: affine in the loaded start";
  const AddressPolynomial expected = {{1, {"param:0x218"}}, {4, {"tid.x"}}, {4, {"ld(param:0x210 + 4*tid.y)"}}};
  EXPECT_EQ(sorted(*p.accesses[1].address), sorted(expected)) << format_address(p.accesses[1].address);
  EXPECT_TRUE(p.accesses[1].address_from_loaded_data);
  EXPECT_FALSE(is_gather(p.accesses[1]));
  EXPECT_TRUE(is_gather(p.accesses[2])) << "x[col[..]]: each lane's own loaded index";
  // The traffic model evaluates the start per lane: a 32-wide block's warp reads one row (4 sectors),
  // a 16-wide block's warp two rows far apart (2 sectors each).
  LaunchConfig l;
  l.grid = {64, 1, 1};
  l.block = {32, 4, 1};
  const double loads = p.accesses.size() - 1.0;  // row_ptr (1 sector, the lanes' shared word) and col
  EXPECT_DOUBLE_EQ(shape_traffic(p, l).load_sectors_per_request, (1 + 4) / loads);
  l.block = {16, 8, 1};
  EXPECT_DOUBLE_EQ(shape_traffic(p, l).load_sectors_per_request, (1 + 4) / loads);
  l.block = {8, 16, 1};  // four rows of 8 lanes: one sector each
  EXPECT_DOUBLE_EQ(shape_traffic(p, l).load_sectors_per_request, (1 + 4) / loads);

  // A start each lane reads for itself (row_ptr[tid.x]) is data per lane: its row data is a gather.
  const AccessPatterns lanes = analyse(csr_rows("SR_TID.X"));
  ASSERT_EQ(lanes.accesses.size(), 3u);
  EXPECT_FALSE(lanes.accesses[1].address);
  EXPECT_TRUE(is_gather(lanes.accesses[1]));
}

// A pointer bumped on one path of the loop's body: the value joined after the branch may move by 0x80
// or 0x180 in a trip, so the per-trip movement is unknown rather than the head's increment alone.
const char* kLoopWithABranch = R"(
        /*0000*/                   S2R R0, SR_TID.X ;
        /*0010*/                   LDC.64 R2, c[0x0][0x210] ;
        /*0020*/                   IMAD.WIDE R2, R0, 0x4, R2 ;
        /*0030*/                   MOV R4, RZ ;
        /*0040*/                   ISETP.NE.AND P0, PT, R4, 0x3, PT ;
        /*0050*/               @P0 BRA 0x80 ;
        /*0060*/                   IADD3 R2, P2, R2, 0x100, RZ ;
        /*0070*/                   IADD3.X R3, RZ, R3, RZ, P2, !PT ;
        /*0080*/                   LDG.E R5, desc[UR4][R2.64] ;
        /*0090*/                   IADD3 R2, P0, R2, 0x80, RZ ;
        /*00a0*/                   IADD3.X R3, RZ, R3, RZ, P0, !PT ;
        /*00b0*/                   IADD3 R4, R4, 0x1, RZ ;
        /*00c0*/                   ISETP.NE.AND P1, PT, R4, 0x10, PT ;
        /*00d0*/               @P1 BRA 0x40 ;
        /*00e0*/                   EXIT ;
)";

TEST(AddressAnalysis, AValueJoinedInsideTheLoopLeavesItsStrideUnknown) {
  const AccessPatterns p = analyse(kLoopWithABranch);
  ASSERT_EQ(p.accesses.size(), 1u);
  EXPECT_EQ(p.accesses[0].loop_depth, 1);
  ASSERT_TRUE(p.accesses[0].address) << "still affine in the thread index";
  EXPECT_FALSE(p.accesses[0].stride_per_trip) << format_address(p.accesses[0].stride_per_trip);
}

// ptxas's layout of a wait that may retry (an mbarrier try_wait): the retry sits after the body's
// EXIT and branches back into it. Two waits in a loop of 16 trips: the loads are in one loop, not
// in three (a backward branch is a loop only when its target dominates it).
const char* kWaitsRetriedOutOfLine = R"(
        /*0000*/                   S2R R0, SR_TID.X ;
        /*0010*/                   LDC.64 R2, c[0x0][0x210] ;
        /*0020*/                   IMAD.WIDE R2, R0, 0x4, R2 ;
        /*0030*/                   MOV R4, RZ ;
        /*0040*/                   LDG.E R5, desc[UR4][R2.64] ;
        /*0050*/                   ISETP.NE.AND P0, PT, R5, RZ, PT ;
        /*0060*/               @P0 BRA 0x100 ;
        /*0070*/                   LDG.E R6, desc[UR4][R2.64+0x80] ;
        /*0080*/                   ISETP.NE.AND P0, PT, R6, RZ, PT ;
        /*0090*/               @P0 BRA 0x120 ;
        /*00a0*/                   IADD3 R4, R4, 0x1, RZ ;
        /*00b0*/                   ISETP.NE.AND P1, PT, R4, 0x10, PT ;
        /*00c0*/               @P1 BRA 0x40 ;
        /*00d0*/                   EXIT ;
        /*00e0*/                   BRA 0xe0 ;
        /*00f0*/                   NOP ;
        /*0100*/                   NANOSLEEP 0x20 ;
        /*0110*/                   BRA 0x70 ;
        /*0120*/                   NANOSLEEP 0x20 ;
        /*0130*/                   BRA 0xa0 ;
)";

TEST(AddressAnalysis, ARetryBlockAfterTheBodyIsNotALoop) {
  const AccessPatterns p = analyse(kWaitsRetriedOutOfLine);
  ASSERT_EQ(p.accesses.size(), 2u);
  EXPECT_EQ(p.accesses[0].loop_depth, 1);
  EXPECT_EQ(p.accesses[1].loop_depth, 1);  // three backward branches enclose it; one is a loop
}

// Warp-per-row indexing: warp = tid / 32 by a shift, lane = tid % 32 by a mask; a signed division's
// rounding (the sign word through LEA.HI) vanishes for a non-negative index.
const char* kLanes = R"(
        /*0000*/                   S2R R0, SR_TID.X ;
        /*0010*/                   SHF.R.S32.HI R1, RZ, 0x1f, R0 ;
        /*0020*/                   LEA.HI R1, R1, R0, RZ, 0x5 ;
        /*0030*/                   SHF.R.S32.HI R2, RZ, 0x5, R1 ;
        /*0040*/                   LOP3.LUT R3, R0, 0x1f, RZ, 0xc0, !PT ;
        /*0050*/                   LDC R4, c[0x0][0x220] ;
        /*0060*/                   IMAD R5, R2, R4, R3 ;
        /*0070*/                   LDC.64 R6, c[0x0][0x210] ;
        /*0080*/                   IMAD.WIDE R6, R5, 0x4, R6 ;
        /*0090*/                   LDG.E R8, desc[UR4][R6.64] ;
        /*00a0*/                   EXIT ;
)";

TEST(AddressAnalysis, ShiftsAndMasksOfTheThreadIndexAreFloors) {
  const AccessPatterns p = analyse(kLanes);
  ASSERT_EQ(p.accesses.size(), 1u);
  ASSERT_TRUE(p.accesses[0].address) << p.source;
  // in[warp * n + lane] = in + 4 (floor(tid/32) n + tid - 32 floor(tid/32)).
  const AddressPolynomial expected = {{1, {"param:0x210"}},
                                      {4, {"tid.x"}},
                                      {-128, {"floor((tid.x)/32)"}},
                                      {4, {"floor((tid.x)/32)", "param:0x220"}}};
  EXPECT_EQ(sorted(*p.accesses[0].address), sorted(expected)) << format_address(p.accesses[0].address);
  // A 64-thread block: two warps, rows 0 and 1, 4 sectors each.
  LaunchConfig l;
  l.grid = {1, 1, 1};
  l.block = {64, 1, 1};
  EXPECT_DOUBLE_EQ(shape_traffic(p, l).load_sectors_per_request, 4);
}

// ptxas 13.0 for sm_90, the corpus's shared-memory transpose: a block's tile stored out through
// t = threadIdx.y * blockDim.x + threadIdx.x, r = t / blockDim.y, c = t % blockDim.y,
//   out[(x0 + r) * rows + y0 + c] = tile[c][r]
// with a signed division by blockDim.y, which ptxas does with its reciprocal idiom (I2F.RP, MUFU.RCP,
// F2I, IMAD.HI.U32, the corrections, the sign test and the zero-divisor test). in, out, rows, cols at
// 0x210, 0x218, 0x220, 0x224.
const char* kTransposeTile = R"(
        /*0000*/                   LDC R1, c[0x0][0x28] ;
        /*0010*/                   S2R R9, SR_TID.X ;
        /*0020*/                   S2UR UR4, SR_CTAID.X ;
        /*0030*/                   ULDC UR8, c[0x0][0x0] ;
        /*0040*/                   ULDC.64 UR10, c[0x0][0x220] ;
        /*0050*/                   S2R R10, SR_TID.Y ;
        /*0060*/                   ULDC.64 UR6, c[0x0][0x208] ;
        /*0070*/                   S2UR UR5, SR_CTAID.Y ;
        /*0080*/                   LDC R2, c[0x0][0x4] ;
        /*0090*/                   UIMAD UR4, UR4, UR8, URZ ;
        /*00a0*/                   VIADD R3, R9, UR4 ;
        /*00b0*/                   ISETP.GE.AND P0, PT, R3, UR11, PT ;
        /*00c0*/                   IMAD R0, R2, UR5, RZ ;
        /*00d0*/                   IMAD.IADD R6, R0, 0x1, R10 ;
        /*00e0*/                   ISETP.LT.AND P0, PT, R6, UR10, !P0 ;
        /*00f0*/               @P0 LDC.64 R4, c[0x0][0x210] ;
        /*0100*/               @P0 IMAD R3, R6, UR11, R3 ;
        /*0110*/               @P0 IMAD.WIDE R4, R3, 0x4, R4 ;
        /*0120*/               @P0 LDG.E.CONSTANT R3, desc[UR6][R4.64] ;
        /*0130*/                   IABS R11, R2 ;
        /*0140*/                   IMAD R9, R10, UR8, R9 ;
        /*0150*/                   I2F.RP R8, R11 ;
        /*0160*/                   IABS R4, R9 ;
        /*0170*/                   IABS R5, R2 ;
        /*0180*/                   IADD3 R5, RZ, -R5, RZ ;
        /*0190*/                   MUFU.RCP R8, R8 ;
        /*01a0*/                   IADD3 R6, R8, 0xffffffe, RZ ;
        /*01b0*/                   F2I.FTZ.U32.TRUNC.NTZ R7, R6 ;
        /*01c0*/                   IMAD.MOV.U32 R6, RZ, RZ, RZ ;
        /*01d0*/                   IMAD.MOV R12, RZ, RZ, -R7 ;
        /*01e0*/                   IMAD R13, R12, R11, RZ ;
        /*01f0*/                   IMAD.HI.U32 R7, R7, R13, R6 ;
        /*0200*/                   IMAD.HI.U32 R7, R7, R4, RZ ;
        /*0210*/                   IMAD R4, R7, R5, R4 ;
        /*0220*/               @P0 S2R R5, SR_CgaCtaId ;
        /*0230*/                   ISETP.GT.U32.AND P3, PT, R11, R4, PT ;
        /*0240*/              @!P3 IMAD.IADD R4, R4, 0x1, -R11 ;
        /*0250*/              @!P3 IADD3 R7, R7, 0x1, RZ ;
        /*0260*/                   ISETP.NE.AND P3, PT, R2, RZ, PT ;
        /*0270*/                   ISETP.GE.U32.AND P1, PT, R4, R11, PT ;
        /*0280*/                   LOP3.LUT R4, R9, R2, RZ, 0x3c, !PT ;
        /*0290*/                   ISETP.GE.AND P2, PT, R4, RZ, PT ;
        /*02a0*/               @P1 VIADD R7, R7, 0x1 ;
        /*02b0*/              @!P2 IADD3 R7, -R7, RZ, RZ ;
        /*02c0*/              @!P3 LOP3.LUT R7, RZ, R2, RZ, 0x33, !PT ;
        /*02d0*/                   IMAD.MOV R4, RZ, RZ, -R7 ;
        /*02e0*/                   VIADD R6, R7, UR4 ;
        /*02f0*/                   IMAD R4, R2, R4, R9 ;
        /*0300*/                   IADD3 R11, R0, R4, RZ ;
        /*0310*/               @P0 MOV R0, 0x400 ;
        /*0320*/                   ISETP.GE.AND P1, PT, R11, UR10, PT ;
        /*0330*/               @P0 LEA R0, R5, R0, 0x18 ;
        /*0340*/                   ISETP.GE.OR P1, PT, R6, UR11, P1 ;
        /*0350*/               @P0 LEA R0, R9, R0, 0x2 ;
        /*0360*/               @P0 STS [R0], R3 ;
        /*0370*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
        /*0380*/               @P1 EXIT ;
        /*0390*/                   S2UR UR5, SR_CgaCtaId ;
        /*03a0*/                   UMOV UR4, 0x400 ;
        /*03b0*/                   IMAD R0, R4, UR8, R7 ;
        /*03c0*/                   IMAD R7, R6, UR10, R11 ;
        /*03d0*/                   LDC.64 R2, c[0x0][0x218] ;
        /*03e0*/                   ULEA UR4, UR5, UR4, 0x18 ;
        /*03f0*/                   LEA R0, R0, UR4, 0x2 ;
        /*0400*/                   IMAD.WIDE R2, R7, 0x4, R2 ;
        /*0410*/                   LDS R5, [R0] ;
        /*0420*/                   STG.E desc[UR6][R2.64], R5 ;
        /*0430*/                   EXIT ;
        /*0440*/                   BRA 0x440;
)";

TEST(AddressAnalysis, DivisionByABlockSizeIsAFloorOfIt) {
  const AccessPatterns p = analyse(kTransposeTile);
  ASSERT_EQ(p.accesses.size(), 2u);
  const MemoryAccess& store = p.accesses[1];
  ASSERT_TRUE(store.address.has_value()) << "the quotient t / blockDim.y is followed";
  const std::string text = format_address(store.address);
  EXPECT_NE(text.find("floor((ntid.x*tid.y + tid.x)/(ntid.y))*param:0x220"), std::string::npos) << text;
  // Sectors per store request, evaluated per lane: 32x8: r = t / 8 spans 4 output rows of 8 floats
  // (4 sectors); 64x4: 8 rows of 4 floats (8 half sectors); 256x1: every lane its own row (32).
  auto sectors = [&](long long bx, long long by) {
    LaunchConfig l;
    l.block = {bx, by, 1};
    l.grid = {16, 16, 1};
    return shape_traffic(p, l).store_sectors_per_request;
  };
  EXPECT_DOUBLE_EQ(sectors(32, 8), 4);
  EXPECT_DOUBLE_EQ(sectors(16, 16), 4);
  EXPECT_DOUBLE_EQ(sectors(64, 4), 8);
  EXPECT_DOUBLE_EQ(sectors(256, 1), 32);
}

// The division chain's own values (the divisor as a float, its reciprocal, the zero-divisor result)
// never reach an address: only the quotient does, as a floor.
TEST(AddressAnalysis, DivisionChainValuesNeverReachAnAddress) {
  const AccessPatterns p = analyse(kTransposeTile);
  for (const MemoryAccess& a : p.accesses)
    if (a.address)
      for (const AddressTerm& t : *a.address)
        for (const std::string& sym : t.symbols) EXPECT_EQ(sym.rfind("div:", 0), std::string::npos) << sym;
}

}  // namespace
}  // namespace warpmodel::sass

namespace warpmodel::sass {
namespace {

// `listing` with its first `from` replaced by `to` (a variant of a hand-written listing).
std::string edited(std::string listing, const std::string& from, const std::string& to) {
  listing.replace(listing.find(from), from.size(), to);
  return listing;
}

// ptxas 13.0's form of `int i = blockIdx.x * blockDim.x + threadIdx.x; if (i != 0) return;` before
// a loop over a parameter's count (particlefilter's sum_kernel): -tid.x against ntid.x * ctaid.x,
// then an exit every thread but the grid's first takes.
const char* kFirstThreadSum = R"(
        /*0000*/                   S2R R0, SR_TID.X ;
        /*0010*/                   S2UR UR5, SR_CTAID.X ;
        /*0020*/                   ULDC UR4, c[0x0][0x0] ;
        /*0030*/                   UIMAD UR4, UR4, UR5, URZ ;
        /*0040*/                   IMAD.MOV R0, RZ, RZ, -R0 ;
        /*0050*/                   ISETP.NE.AND P0, PT, R0, UR4, PT ;
        /*0060*/               @P0 EXIT ;
        /*0070*/                   ULDC.64 UR8, c[0x0][0x208] ;
        /*0080*/                   LDC.64 R2, c[0x0][0x210] ;
        /*0090*/                   MOV R4, RZ ;
        /*00a0*/                   LDG.E R5, desc[UR8][R2.64] ;
        /*00b0*/                   IADD3 R4, R4, 0x1, RZ ;
        /*00c0*/                   ISETP.GE.AND P1, PT, R4, 0x100, PT ;
        /*00d0*/              @!P1 BRA 0xa0 ;
        /*00e0*/                   STG.E desc[UR8][R2.64], R5 ;
        /*00f0*/                   EXIT ;
        /*0100*/                   BRA 0x100;
)";

TEST(AddressAnalysis, AnExitEveryThreadButTheFirstTakesLeavesItTheLoop) {
  const AccessPatterns p = analyse(kFirstThreadSum);
  ASSERT_TRUE(p.first_thread_loop);
  EXPECT_EQ(p.first_thread_loop->begin, 0x70u);
  EXPECT_GT(p.first_thread_loop->end, 0xf0u);
  EXPECT_EQ(p.first_thread_loop->indices, (std::vector<std::string>{"ctaid.x", "tid.x"}));
  EXPECT_EQ(p.first_thread_loop->instructions_outside, 7);  // 0x00 .. 0x60
  EXPECT_EQ(p.first_thread_loop->global_loads_outside, 0);
}

// `if (threadIdx.x == 0)` is one thread a block, not one of the grid; and a guard whose region
// holds no loop is no serial path.
TEST(AddressAnalysis, OneThreadABlockOrNoLoopIsNoFirstThreadLoop) {
  EXPECT_FALSE(analyse(edited(kFirstThreadSum, "R0, UR4, PT", "R0, RZ, PT")).first_thread_loop);
  EXPECT_FALSE(analyse(edited(kFirstThreadSum, "@!P1 BRA 0xa0", "NOP")).first_thread_loop);
}

// The branch form (normalize_weights_kernel): `if (i == 0) { for ... }` in the middle of the kernel,
// i = ctaid.x * ntid.x + tid.x tested against zero, the code after the region counted outside it.
TEST(AddressAnalysis, ABranchAroundTheFirstThreadsLoopCountsTheRestOutside) {
  const AccessPatterns p = analyse(R"(
        /*0000*/                   S2R R0, SR_TID.X ;
        /*0010*/                   S2R R3, SR_CTAID.X ;
        /*0020*/                   LDC R6, c[0x0][0x0] ;
        /*0030*/                   IMAD R0, R3, R6, R0 ;
        /*0040*/                   ULDC.64 UR8, c[0x0][0x208] ;
        /*0050*/                   LDC.64 R2, c[0x0][0x210] ;
        /*0060*/                   LDG.E R5, desc[UR8][R2.64] ;
        /*0070*/                   ISETP.NE.AND P0, PT, R0, RZ, PT ;
        /*0080*/               @P0 BRA 0xd0 ;
        /*0090*/                   LDG.E R7, desc[UR8][R2.64] ;
        /*00a0*/                   IADD3 R4, R4, 0x1, RZ ;
        /*00b0*/                   ISETP.GE.AND P1, PT, R4, 0x100, PT ;
        /*00c0*/              @!P1 BRA 0x90 ;
        /*00d0*/                   STG.E desc[UR8][R2.64], R5 ;
        /*00e0*/                   EXIT ;
        /*00f0*/                   BRA 0xf0;
)");
  ASSERT_TRUE(p.first_thread_loop);
  EXPECT_EQ(p.first_thread_loop->begin, 0x90u);
  EXPECT_EQ(p.first_thread_loop->end, 0xd0u);
  EXPECT_EQ(p.first_thread_loop->instructions_outside, 11);  // 0x00 .. 0x80, 0xd0, 0xe0
  EXPECT_EQ(p.first_thread_loop->global_loads_outside, 1);
}


// histogram's `histogram_gmem_accum<1024, 3, 256>` (ptxas 13.0): `if (i > 3 * 256) return;` with i
// the 1-D global index: 769 threads pass; `i >= 768` and `!(i < 768)` forms give 768.
const char* kExitAtConstantBound = R"(
        /*0000*/                   LDC R1, c[0x0][0x28] ;
        /*0010*/                   S2R R2, SR_CTAID.X ;
        /*0020*/                   ULDC UR4, c[0x0][0x0] ;
        /*0030*/                   S2R R3, SR_TID.X ;
        /*0040*/                   IMAD R2, R2, UR4, R3 ;
        /*0050*/                   ISETP.GT.AND P0, PT, R2, 0x300, PT ;
        /*0060*/               @P0 EXIT ;
        /*0070*/                   ULDC.64 UR4, c[0x0][0x208] ;
        /*0080*/                   LDC.64 R4, c[0x0][0x210] ;
        /*0090*/                   STG.E desc[UR4][R4.64], R2 ;
        /*00a0*/                   EXIT ;
        /*00b0*/                   BRA 0xb0;
)";

TEST(AddressAnalysis, AnExitAtAConstantBoundCountsTheThreadsThatPass) {
  EXPECT_EQ(analyse(kExitAtConstantBound).threads_under_constant_bound, 769);
  EXPECT_EQ(analyse(edited(kExitAtConstantBound, "ISETP.GT", "ISETP.GE")).threads_under_constant_bound, 768);
  const std::string lt = edited(kExitAtConstantBound, "ISETP.GT", "ISETP.LT");
  EXPECT_EQ(analyse(edited(lt, "@P0 EXIT", "@!P0 EXIT")).threads_under_constant_bound, 768);
  // A bound from a kernel parameter (`if (i >= n) return;`) is not known before the launch.
  EXPECT_FALSE(analyse(edited(kExitAtConstantBound, "R2, 0x300", "R2, c[0x0][0x218]")).threads_under_constant_bound);
  // Nor is a bound on the thread index alone (each block's first threads pass).
  EXPECT_FALSE(analyse(edited(kExitAtConstantBound, "PT, R2, 0x300", "PT, R3, 0x300")).threads_under_constant_bound);
}
}  // namespace
}  // namespace warpmodel::sass
