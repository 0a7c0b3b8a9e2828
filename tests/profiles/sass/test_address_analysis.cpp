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

}  // namespace
}  // namespace warpmodel::sass
