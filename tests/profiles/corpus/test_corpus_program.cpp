// The corpus in the freshly built warpmodel program, without a GPU:
//  - every corpus kernel is in the program's SASS and contains what its declaration says it
//    stresses (KernelDecl::sass_expect: a store and a load inside the naive GEMM's loop, LDL/STL in
//    the spill kernels, LDGSTS in the cp.async kernel, UBLKCP in the TMA kernel, atomics, MUFU...);
//  - every kernel x size x declared shape builds a workload (no CUDA call before setup());
//  - `warpmodel profile --kernel corpus` refuses bad names, sizes and shapes with one line, exit 2.
// The SASS tests skip when cuobjdump is missing (pip package nvidia-cuda-cuobjdump).
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "run_program.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "warpmodel/corpus/corpus.hpp"
#include "warpmodel/corpus/workload.hpp"
#include "warpmodel/sass/analysis.hpp"
#include "warpmodel/sass/listing.hpp"
#include "warpmodel/sass/merge.hpp"
#include "warpmodel/sass/report.hpp"
#include "warpmodel/sass/tools.hpp"
#include "warpmodel/support/text.hpp"

using warpmodel::support::read_text_file;

namespace wc = warpmodel::corpus;
namespace ws = warpmodel::sass;
namespace fs = std::filesystem;

namespace {

const std::string kBin = WARPMODEL_BIN;

// The program's kernels by function (demangled, without parameters), from `cuobjdump -sass`.
struct ProgramSass {
  std::map<std::string, ws::KernelListing> by_function;
  std::string why_missing;
};

const ProgramSass& program_sass() {
  static const ProgramSass sass = [] {
    ProgramSass out;
    const auto cuobjdump = ws::find_cuobjdump();
    if (!cuobjdump) {
      out.why_missing = "cuobjdump not found (pip package nvidia-cuda-cuobjdump, installed by scripts/setup.sh)";
      return out;
    }
    const std::string command = "'" + *cuobjdump + "' -sass '" + kBin + "' 2>/dev/null";
    std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
    std::string text;
    std::array<char, 1 << 16> chunk;
    while (pipe && std::fgets(chunk.data(), static_cast<int>(chunk.size()), pipe.get())) text += chunk.data();
    for (auto& k : ws::parse_sass_listing(text))
      out.by_function.emplace(ws::short_kernel_name(ws::demangle(k.name)), std::move(k));
    if (out.by_function.empty()) out.why_missing = "no device code in " + kBin;
    return out;
  }();
  return sass;
}

// Whether `opcode` is one of the '|'-separated prefixes (at '.' boundaries).
bool matches(const std::string& opcode, const std::string& alternatives) {
  std::size_t start = 0;
  while (start <= alternatives.size()) {
    const auto bar = alternatives.find('|', start);
    const std::string alt = alternatives.substr(start, bar == std::string::npos ? std::string::npos : bar - start);
    if (!alt.empty() && (opcode == alt || opcode.rfind(alt + ".", 0) == 0)) return true;
    if (bar == std::string::npos) break;
    start = bar + 1;
  }
  return false;
}

// "" when the listing meets the expectation (corpus.hpp: "loop:" inside a loop body, "!" absent).
std::string unmet(const ws::KernelListing& k, const std::string& expectation) {
  if (expectation.rfind("!", 0) == 0) {
    for (const auto& i : k.instructions)
      if (matches(i.opcode, expectation.substr(1))) return "has " + i.opcode + ", which it must not";
    return "";
  }
  const bool in_loop = expectation.rfind("loop:", 0) == 0;
  const std::string wanted = in_loop ? expectation.substr(5) : expectation;
  // Loop bodies: from a backward branch's target to the branch (the padding's branch to itself is not one).
  std::vector<std::pair<std::uint32_t, std::uint32_t>> loops;
  for (const auto& i : k.instructions)
    if (i.base() == "BRA" && i.target && *i.target < i.offset) loops.emplace_back(*i.target, i.offset);
  for (const auto& i : k.instructions) {
    if (!matches(i.opcode, wanted)) continue;
    if (!in_loop) return "";
    for (const auto& [first, last] : loops)
      if (i.offset >= first && i.offset <= last) return "";
  }
  return in_loop ? "no " + wanted + " inside any of its " + std::to_string(loops.size()) + " loop(s)" : "no " + wanted;
}

using CommandResult = warpmodel::test::ProgramResult;

CommandResult run(const std::string& args) {
  const fs::path dir = fs::temp_directory_path() / ("warpmodel_corpus_test_" + std::to_string(::getpid()));
  CommandResult r = warpmodel::test::run_program(kBin + " " + args, dir);
  std::error_code ec;
  fs::remove_all(dir, ec);
  return r;
}

}  // namespace

TEST(CorpusSass, TheMatcherReadsPrefixesAlternativesLoopsAndAbsence) {
  EXPECT_TRUE(matches("REDG.E.ADD.F32.FTZ.RN.STRONG.GPU", "ATOMG|REDG"));
  EXPECT_TRUE(matches("MUFU.RSQ", "MUFU.RSQ"));
  EXPECT_FALSE(matches("MUFU.RSQ64H", "MUFU.RSQ"));
  EXPECT_FALSE(matches("LDGSTS.E", "LDG"));
  EXPECT_TRUE(matches("LDG.E.128.CONSTANT", "LDG.E.128"));
  const auto listing = ws::parse_sass_listing(
      "\tFunction : k\n"
      "        /*0000*/                   LDG.E R2, desc[UR4][R2.64] ;\n"
      "        /*0010*/                   STG.E desc[UR4][R4.64], R2 ;\n"
      "        /*0020*/              @P0 BRA 0x10 ;\n"
      "        /*0030*/                   EXIT ;\n"
      "        /*0040*/                   BRA 0x40;\n");
  ASSERT_EQ(listing.size(), 1u);
  EXPECT_EQ(unmet(listing[0], "loop:STG"), "");
  EXPECT_NE(unmet(listing[0], "loop:LDG"), "");  // before the loop
  EXPECT_EQ(unmet(listing[0], "LDG"), "");
  EXPECT_NE(unmet(listing[0], "!STG"), "");
  EXPECT_EQ(unmet(listing[0], "!STL"), "");
  EXPECT_NE(unmet(listing[0], "ATOMG|REDG"), "");
}

TEST(CorpusSass, EveryKernelIsInTheProgramAndStressesWhatItClaims) {
  const ProgramSass& sass = program_sass();
  if (sass.by_function.empty()) GTEST_SKIP() << sass.why_missing;
  for (const auto& k : wc::kernels()) {
    SCOPED_TRACE(k.name);
    const auto it = sass.by_function.find(k.function);
    ASSERT_NE(it, sass.by_function.end()) << k.function << " is not in " << kBin;
    // The warpgroup-MMA kernels are built for sm_90a alone (wgmma exists only there), the rest for sm_90.
    const bool warpgroup_mma = std::any_of(k.sass_expect.begin(), k.sass_expect.end(),
                                           [](const std::string& e) { return e.find("GMMA") != std::string::npos; });
    EXPECT_EQ(it->second.arch, warpgroup_mma ? "sm_90a" : "sm_90");
    for (const auto& e : k.sass_expect) EXPECT_EQ(unmet(it->second, e), "") << k.function << ": " << e;
  }
}

// The tensor-core kernels' MMAs reach the model's tensor pipe (hopper H.17): the SASS analysis reads
// each MMA's input type and FLOPs from its opcode (an HMMA.16816 is 4096 a warp, an HGMMA.64x128x16
// 2 x 64 x 128 x 16 over the warpgroup's 4 warps, a QGMMA.64x128x32 twice that), and the kernel
// profile built from it carries tensor_flops_per_warp of that type (here without counters: the
// static estimate, each MMA once; with them, smsp__inst_executed_pipe_tensor.sum per warp).
TEST(CorpusSass, TensorCoreKernelsReachTheTensorPipeTerm) {
  const ProgramSass& sass = program_sass();
  if (sass.by_function.empty()) GTEST_SKIP() << sass.why_missing;
  const std::map<std::string, std::pair<std::string, double>> expected = {
      {"gemm-wmma-f16", {"fp16", 4096}},
      {"gemm-mma-bf16", {"bf16", 4096}},
      {"gemm-wgmma-f16", {"fp16", 2.0 * 64 * 128 * 16 / 4}},
      {"gemm-wgmma-e4m3", {"fp8", 2.0 * 64 * 128 * 32 / 4}},
  };
  std::size_t seen = 0;
  for (const auto& k : wc::kernels()) {
    if (k.klass != "tensor-core") continue;
    SCOPED_TRACE(k.name);
    ++seen;
    const auto want = expected.find(k.name);
    ASSERT_NE(want, expected.end()) << "a tensor-core kernel this test does not know";
    const auto& [type, flops_per_mma] = want->second;
    const ws::KernelStatics statics = ws::analyse_kernel(sass.by_function.at(k.function), {}, std::nullopt);
    EXPECT_GT(statics.mix.tensor, 0);
    EXPECT_EQ(statics.tensor_instructions_read, statics.mix.tensor);
    ASSERT_EQ(statics.tensor_flops_by_type.size(), 1u);
    EXPECT_EQ(statics.tensor_flops_by_type.begin()->first, type);
    EXPECT_DOUBLE_EQ(statics.tensor_flops_by_type.begin()->second, flops_per_mma * statics.mix.tensor);
    // The warp-level MMAs (WMMA, mma.sync) are all of the work of their kernels, none of the wgmma ones'.
    const bool warpgroup = k.name.find("wgmma") != std::string::npos;
    EXPECT_EQ(statics.mma_sync_flops_by_type.count(type), warpgroup ? 0u : 1u);

    const wc::Size& size = k.sizes.front();
    const wc::Shape shape = k.shapes.front();
    const warpmodel::Dim3 g = wc::grid(k, size, shape), d = wc::domain(k, size);
    auto dims = [](const warpmodel::Dim3& v) {
      return std::to_string(v.x) + "x" + std::to_string(v.y) + "x" + std::to_string(v.z);
    };
    ws::MergeInputs in;
    in.statics = &statics;
    in.binary = kBin;
    in.launch_spec = ws::parse_launch_spec("grid=" + dims(g) + ",block=" + shape.label() + ",domain=" + dims(d));
    const warpmodel::KernelProfile profile = ws::make_kernel_profile(in);
    EXPECT_EQ(profile.tensor_inst_per_warp, statics.mix.tensor);
    ASSERT_EQ(profile.tensor_flops_per_warp.count(type), 1u);
    EXPECT_DOUBLE_EQ(profile.tensor_flops_per_warp.at(type), flops_per_mma * statics.mix.tensor);
    if (!warpgroup) EXPECT_DOUBLE_EQ(profile.mma_sync_flops_per_warp.at(type), profile.tensor_flops_per_warp.at(type));
    else EXPECT_TRUE(profile.mma_sync_flops_per_warp.empty());
  }
  EXPECT_EQ(seen, expected.size());
}

TEST(CorpusWorkloads, EveryKernelSizeAndShapeBuildsAWorkloadWithoutTheGpu) {
  std::size_t built = 0;
  for (const auto& k : wc::kernels())
    for (const auto& s : k.sizes)
      for (const auto& shape : k.shapes) {
        SCOPED_TRACE(k.name + " " + s.label + " " + shape.label());
        std::unique_ptr<warpmodel::cupti::Workload> w;
        ASSERT_NO_THROW(w = wc::make_corpus_workload(k, s, shape));
        EXPECT_EQ(w->launch_count(), 1u);
        EXPECT_EQ(w->launch_label(0), k.name);
        EXPECT_EQ(w->description(), "corpus " + k.name + " size=" + s.label + " block=" + shape.label());
        ++built;
      }
  EXPECT_EQ(built, wc::launch_count());
}

TEST(CorpusWorkloads, ShapesTheKernelCannotRunAreRefused) {
  const auto& copy = *wc::find_kernel("copy-f32");
  EXPECT_THROW(wc::make_corpus_workload(copy, copy.sizes[0], {32, 8}), std::invalid_argument);
  EXPECT_THROW(wc::make_corpus_workload(copy, copy.sizes[0], {100, 1}), std::invalid_argument);
  const auto& gemm = *wc::find_kernel("gemm-naive-f32");
  EXPECT_NO_THROW(wc::make_corpus_workload(gemm, gemm.sizes[0], {128, 2}));  // undeclared, valid
  // 8192 rows of one-thread-high blocks is fine; a grid taller than 65535 blocks is not.
  EXPECT_THROW(wc::make_corpus_workload(gemm, {"70000x32x32", 32, 70000, 32}, {32, 1}), std::invalid_argument);
}

TEST(CorpusCli, BadKernelSizeOrShapeIsOneLineAndExit2) {
  struct Case {
    std::string args, expect;
  };
  const std::vector<Case> cases = {
      {"--variant gemm-naive-f23", "closest: gemm-naive-f32"},
      {"--variant copy-f32,nbody", "'nbody' is not a corpus kernel; closest: nbody-f32"},
      {"--variant gemm-naive-f32 --size 3^3", "256^3, 512^3, 1024^3, or small, medium, large"},
      {"--variant reduce-tree-f32 --block 96", "power of two"},
      {"--variant copy-f32 --block 32x8", "1D kernel"},
      {"--variant copy-f32 --block 32y8", "is not a block shape"},
      {"--variant copy-f32 --order 2", "do not apply to corpus kernels"},
  };
  for (const auto& c : cases) {
    const auto r = run("profile --kernel corpus " + c.args + " -o /nonexistent/never");
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << c.args << "\n" << r.err;
  }
}
