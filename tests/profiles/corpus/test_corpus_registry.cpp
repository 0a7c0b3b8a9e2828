// The corpus declarations (profiles/corpus/include/warpmodel/corpus/corpus.hpp): coverage, unique
// names, launchable shapes, thread spaces, the name and size selection the CLI uses, and the
// README table generated from the registry. Plain C++, no GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>

#include "warpmodel/corpus/corpus.hpp"
#include "warpmodel/support/text.hpp"

using warpmodel::support::read_text_file;

namespace wc = warpmodel::corpus;

namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(CorpusRegistry, CoversAtLeast40KernelsIn12Classes) {
  EXPECT_GE(wc::kernels().size(), 40u);
  EXPECT_GE(wc::classes().size(), 12u);
  // The classes the issue asks for are all there.
  for (const char* c : {"streaming", "naive-loop", "matvec", "tiled-gemm", "reduction", "histogram", "transpose",
                        "gather", "scan", "compute", "divergence", "latency", "launch-bound", "local-memory",
                        "async-copy", "stencil-2d", "tensor-core"})
    EXPECT_NE(std::find(wc::classes().begin(), wc::classes().end(), c), wc::classes().end()) << c;
}

TEST(CorpusRegistry, EveryDeclarationIsComplete) {
  const std::regex name_re("[a-z0-9]+(-[a-z0-9]+)*");
  std::set<std::string> names;
  for (const auto& k : wc::kernels()) {
    SCOPED_TRACE(k.name);
    EXPECT_TRUE(std::regex_match(k.name, name_re));
    EXPECT_TRUE(names.insert(k.name).second) << "duplicate name";
    EXPECT_FALSE(k.klass.empty());
    EXPECT_FALSE(k.limiter.empty());
    EXPECT_FALSE(k.extents.empty());
    EXPECT_TRUE(k.precision == "f32" || k.precision == "f64" || k.precision == "u32" || k.precision == "f16" ||
                k.precision == "bf16" || k.precision == "e4m3")
        << k.precision;
    // Tensor-core tile kernels, and only they, declare tiles of several rows per thread.
    EXPECT_EQ(k.rows_per_thread > 1, k.klass == "tensor-core");
    if (k.rows_per_thread > 1) {
      EXPECT_EQ(k.threads, wc::ThreadSpace::xy);
      EXPECT_TRUE(k.block_x_multiple == 32 || k.block_x_multiple == 128) << k.block_x_multiple;
      EXPECT_GT(k.k_multiple, 1);
    }
    EXPECT_EQ(k.function.rfind("warpmodel::corpus::kernels::", 0), 0u) << k.function;
    EXPECT_FALSE(k.sass_expect.empty());
    EXPECT_GE(k.elements_per_thread, 1);
    EXPECT_GE(k.sizes.size(), 3u);
    EXPECT_GE(k.shapes.size(), 3u);
    std::set<std::string> labels;
    for (const auto& s : k.sizes) {
      EXPECT_TRUE(labels.insert(s.label).second) << "duplicate size " << s.label;
      EXPECT_NE(s.label, "small");
      EXPECT_NE(s.label, "medium");
      EXPECT_NE(s.label, "large");
      const warpmodel::Dim3 d = wc::domain(k, s);
      EXPECT_GT(d.x, 0);
      EXPECT_GT(d.y, 0);
      EXPECT_GT(d.z, 0);
      EXPECT_LT(d.count(), 1LL << 31) << s.label;  // the kernels index with int
      for (const auto& shape : k.shapes) {
        EXPECT_EQ(shape.threads() % 32, 0u) << shape.label();
        EXPECT_LE(shape.threads(), 1024u) << shape.label();
        EXPECT_EQ(wc::shape_problem(k, s, shape), "") << s.label << " " << shape.label();
        const warpmodel::Dim3 g = wc::grid(k, s, shape);
        EXPECT_LE(g.y, 65535) << s.label << " " << shape.label();
        EXPECT_LE(g.z, 65535) << s.label << " " << shape.label();
      }
    }
    // Sizes grow: the smallest first (the GPU test and --quick take the first).
    auto work = [](const wc::Size& s) { return s.nx * s.ny * s.nz; };
    for (std::size_t i = 1; i < k.sizes.size(); ++i) EXPECT_LT(work(k.sizes[i - 1]), work(k.sizes[i])) << k.sizes[i].label;
  }
}

TEST(CorpusRegistry, LaunchCountFitsTheSweepBudget) {
  // ~0.4 s per launch on the H200: 500-700 launches is about four to four and a half minutes.
  EXPECT_GE(wc::launch_count(), 500u);
  EXPECT_LE(wc::launch_count(), 700u);
  std::size_t n = 0;
  for (const auto& k : wc::kernels()) n += k.sizes.size() * k.shapes.size();
  EXPECT_EQ(wc::launch_count(), n);
}

TEST(CorpusRegistry, DomainsAndGridsFollowTheThreadSpace) {
  const auto& gemm = *wc::find_kernel("gemm-naive-f32");
  const auto& s512 = wc::select_size(gemm, "512^3");
  EXPECT_EQ(wc::domain(gemm, s512), (warpmodel::Dim3{512, 512, 1}));
  EXPECT_EQ(wc::grid(gemm, s512, {32, 8}), (warpmodel::Dim3{16, 64, 1}));
  EXPECT_EQ(wc::grid(gemm, s512, {256, 1}), (warpmodel::Dim3{2, 512, 1}));
  const auto& warp_rows = *wc::find_kernel("gemv-warp-f32");
  EXPECT_EQ(wc::domain(warp_rows, wc::select_size(warp_rows, "2048^2")), (warpmodel::Dim3{2048 * 32, 1, 1}));
  EXPECT_EQ(wc::grid(warp_rows, wc::select_size(warp_rows, "2048^2"), {256, 1}), (warpmodel::Dim3{256, 1, 1}));
  const auto& rows = *wc::find_kernel("gemv-fewrows-f32");
  EXPECT_EQ(wc::domain(rows, wc::select_size(rows, "64x512")), (warpmodel::Dim3{64, 1, 1}));
  const auto& vec4 = *wc::find_kernel("copy-vec4-f32");
  EXPECT_EQ(wc::domain(vec4, wc::select_size(vec4, "2M")), (warpmodel::Dim3{512 * 1024, 1, 1}));
  const auto& tiles = *wc::find_kernel("stencil1d-cpasync-f32");
  EXPECT_EQ(wc::grid(tiles, wc::select_size(tiles, "4M"), {256, 1}), (warpmodel::Dim3{2048, 1, 1}));
  const auto& conv3d = *wc::find_kernel("conv3d-3x3x3-f32");
  EXPECT_EQ(wc::grid(conv3d, wc::select_size(conv3d, "128^3"), {32, 8}), (warpmodel::Dim3{4, 16, 128}));
  // A partial block: ceil, never floor.
  EXPECT_EQ(wc::grid(gemm, s512, {64, 4}), (warpmodel::Dim3{8, 128, 1}));
  EXPECT_EQ(wc::grid(conv3d, {"100", 100, 100, 3}, {32, 8}), (warpmodel::Dim3{4, 13, 3}));
  // Tensor-core tiles: a thread per column and 32 (a warp's tile) or 64 (a warpgroup's) rows of C.
  const auto& wmma = *wc::find_kernel("gemm-wmma-f16");
  const auto& w1024 = wc::select_size(wmma, "1024^3");
  EXPECT_EQ(wc::domain(wmma, w1024), (warpmodel::Dim3{1024, 32, 1}));
  EXPECT_EQ(wc::grid(wmma, w1024, {64, 2}), (warpmodel::Dim3{16, 16, 1}));    // 64x64 tiles of C
  EXPECT_EQ(wc::grid(wmma, w1024, {128, 4}), (warpmodel::Dim3{8, 8, 1}));     // 128x128
  const auto& wgmma = *wc::find_kernel("gemm-wgmma-e4m3");
  EXPECT_EQ(wc::domain(wgmma, w1024), (warpmodel::Dim3{1024, 16, 1}));
  EXPECT_EQ(wc::grid(wgmma, w1024, {128, 2}), (warpmodel::Dim3{8, 8, 1}));    // 128x128
  EXPECT_EQ(wc::grid(wgmma, w1024, {256, 1}), (warpmodel::Dim3{4, 16, 1}));   // 64x256
}

TEST(CorpusRegistry, ShapeProblemsAreNamed) {
  const auto& copy = *wc::find_kernel("copy-f32");
  const auto& size = copy.sizes.front();
  EXPECT_EQ(wc::shape_problem(copy, size, {128, 1}), "");
  EXPECT_NE(wc::shape_problem(copy, size, {32, 8}).find("1D kernel"), std::string::npos);
  EXPECT_NE(wc::shape_problem(copy, size, {48, 1}).find("whole number of warps"), std::string::npos);
  EXPECT_NE(wc::shape_problem(copy, size, {2048, 1}).find("1..1024"), std::string::npos);
  const auto& tree = *wc::find_kernel("reduce-tree-f32");
  EXPECT_NE(wc::shape_problem(tree, tree.sizes.front(), {96, 1}).find("power of two"), std::string::npos);
  const auto& one = *wc::find_kernel("one-block-sum-f32");
  EXPECT_NE(wc::shape_problem(one, one.sizes.front(), {32, 1}).find("one block"), std::string::npos);
  const auto& gemm = *wc::find_kernel("gemm-tiled-f32");
  EXPECT_EQ(wc::shape_problem(gemm, gemm.sizes.front(), {128, 2}), "");  // undeclared shapes launch too
  // Tensor-core tiles: whole warps (warpgroups) of columns, whole tiles of the size.
  const auto& wmma = *wc::find_kernel("gemm-wmma-f16");
  EXPECT_EQ(wc::shape_problem(wmma, wmma.sizes.front(), {32, 8}), "");
  EXPECT_NE(wc::shape_problem(wmma, wmma.sizes.front(), {16, 16}).find("multiple of 32"), std::string::npos);
  EXPECT_NE(wc::shape_problem(wmma, {"1000^3", 1000, 1000, 1000}, {64, 2}).find("whole tiles"), std::string::npos);
  EXPECT_NE(wc::shape_problem(wmma, {"1024x1024x1000", 1024, 1024, 1000}, {64, 2}).find("nz of 32"),
            std::string::npos);
  const auto& wgmma = *wc::find_kernel("gemm-wgmma-f16");
  EXPECT_NE(wc::shape_problem(wgmma, wgmma.sizes.front(), {64, 2}).find("multiple of 128"), std::string::npos);
  EXPECT_EQ(wc::shape_problem(wgmma, wgmma.sizes.front(), {128, 4}), "");
}

TEST(CorpusRegistry, ShapesParse) {
  EXPECT_EQ(wc::parse_shape("32x8"), (wc::Shape{32, 8}));
  EXPECT_EQ(wc::parse_shape("256"), (wc::Shape{256, 1}));
  EXPECT_EQ(wc::Shape({64, 4}).label(), "64x4");
  for (const char* bad : {"", "x8", "32x", "0x8", "32x8x2", "-32", "abc", "32 x 8"})
    EXPECT_NE(error_of([&] { wc::parse_shape(bad); }).find("is not a block shape"), std::string::npos) << bad;
}

TEST(CorpusRegistry, SizesAndKernelsAreSelectedByNameWithClosestSuggestions) {
  const auto& gemm = *wc::find_kernel("gemm-naive-f32");
  EXPECT_EQ(wc::select_size(gemm, "small").label, gemm.sizes.front().label);
  EXPECT_EQ(wc::select_size(gemm, "medium").label, gemm.sizes[1].label);
  EXPECT_EQ(wc::select_size(gemm, "large").label, gemm.sizes.back().label);
  EXPECT_EQ(wc::select_size(gemm, "512^3").label, "512^3");
  const std::string size_error = error_of([&] { wc::select_size(gemm, "521^3"); });
  EXPECT_NE(size_error.find("256^3, 512^3, 1024^3, or small, medium, large"), std::string::npos) << size_error;
  EXPECT_NE(size_error.find("closest: 512^3"), std::string::npos) << size_error;

  EXPECT_EQ(wc::select_kernels("all").size(), wc::kernels().size());
  const auto two = wc::select_kernels("copy-f32,gemm-tiled-f64");
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[1]->name, "gemm-tiled-f64");
  const std::string kernel_error = error_of([] { wc::select_kernels("copy-f32,gemm-naive-f23"); });
  EXPECT_NE(kernel_error.find("'gemm-naive-f23' is not a corpus kernel; closest: gemm-naive-f32"), std::string::npos)
      << kernel_error;
  EXPECT_EQ(kernel_error.find('\n'), std::string::npos);
  EXPECT_NE(error_of([] { wc::select_kernels(","); }), "");
  EXPECT_EQ(wc::find_kernel("nope"), nullptr);
}

TEST(CorpusRegistry, MarkdownTableListsEveryKernel) {
  const std::string table = wc::markdown_table();
  std::istringstream lines(table);
  std::string line;
  std::size_t rows = 0;
  while (std::getline(lines, line)) ++rows;
  EXPECT_EQ(rows, wc::kernels().size() + 2);  // header and separator
  for (const auto& k : wc::kernels()) {
    EXPECT_NE(table.find("| `" + k.name + "` | " + k.klass + " | " + k.limiter + " |"), std::string::npos) << k.name;
    for (const auto& s : k.sizes) EXPECT_NE(table.find(s.label), std::string::npos) << k.name << " " << s.label;
  }
  EXPECT_NE(table.find("| `gemv-warp-f32` | matvec |"), std::string::npos);
  EXPECT_NE(table.find("warp per row"), std::string::npos);
  EXPECT_NE(table.find("1D, 4 per thread"), std::string::npos);
  EXPECT_NE(table.find("| e4m3 | 2D, 64 rows per thread |"), std::string::npos);
}

// profiles/corpus/README.md holds the table between two markers, as markdown_table() makes it.
// WARPMODEL_UPDATE_CORPUS_README=1 rewrites it there (then commit the README).
TEST(CorpusRegistry, ReadmeHoldsTheGeneratedTable) {
  const std::string path = WARPMODEL_CORPUS_README;
  const std::string begin = "<!-- corpus table: generated by markdown_table(), tests/profiles/corpus -->\n";
  const std::string end = "<!-- end of the corpus table -->";
  std::string readme = read_text_file(path).value_or("");
  const auto b = readme.find(begin), e = readme.find(end);
  ASSERT_NE(b, std::string::npos) << path << " lacks the table's begin marker";
  ASSERT_NE(e, std::string::npos) << path << " lacks the table's end marker";
  const std::string expected = wc::markdown_table();
  const std::string actual = readme.substr(b + begin.size(), e - b - begin.size());
  if (actual != expected && std::getenv("WARPMODEL_UPDATE_CORPUS_README")) {
    readme.replace(b + begin.size(), e - b - begin.size(), expected);
    std::ofstream(path) << readme;
    GTEST_SKIP() << "rewrote the table in " << path;
  }
  EXPECT_EQ(actual, expected) << path
                              << " is out of date: run this test with WARPMODEL_UPDATE_CORPUS_README=1 to rewrite it";
}
