// predict-app's recommendations a user can act on, piece by piece and without a GPU: what the SASS
// says about a launch (the launch values read, cuobjdump -elf's and the PTX's thread limits) on the
// example application's kernels (fixtures/sm90_app_example.*) and on hand-written text, each
// guardrail's detector, the sweep options they imply, the GPU check, the speed of light of hand-made
// counters, the what-ifs' parser and effects, and the hopper terms made free.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "warpmodel/json_io.hpp"
#include "warpmodel/model.hpp"
#include "warpmodel/sass/analysis.hpp"
#include "warpmodel/sass/guardrails.hpp"
#include "warpmodel/sass/listing.hpp"
#include "warpmodel/sass/merge.hpp"
#include "warpmodel/sass/speed_of_light.hpp"
#include "warpmodel/sass/tools.hpp"
#include "warpmodel/sass/what_if.hpp"
#include "warpmodel/support/input_file.hpp"
#include "warpmodel/sweep.hpp"

using namespace warpmodel;
using namespace warpmodel::sass;

namespace {

std::string read(const std::string& name) {
  std::ifstream f(std::string(WARPMODEL_SASS_FIXTURES) + "/" + name);
  EXPECT_TRUE(f.good()) << name;
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

CubinDump example_dump() {
  return {"sm90_app_example", read("sm90_app_example.sass"), read("sm90_app_example.res-usage.txt"),
          read("sm90_app_example.cfg.dot"), read("sm90_app_example.nv-info.txt")};
}

const std::vector<KernelStatics>& example() {
  static const std::vector<KernelStatics> kernels = analyse_dump(example_dump());
  return kernels;
}

const KernelStatics& kernel(const std::string& part) {
  for (const auto& k : example())
    if (k.name.find(part) != std::string::npos) return k;
  throw std::runtime_error(part + " not in the fixture");
}

Instruction parse_one(const std::string& line) {
  const auto ks = parse_sass_listing("Function : k\n" + line + "\n");
  EXPECT_EQ(ks.size(), 1u);
  EXPECT_EQ(ks.at(0).instructions.size(), 1u) << line;
  return ks.at(0).instructions.at(0);
}

const DeviceProfile& h200() {
  static const DeviceProfile d = load_device_profile(std::filesystem::path(WARPMODEL_RESULTS) / "h200" / "device.json");
  return d;
}

// A kernel with the given launch values read and nothing else, for the detectors.
KernelStatics with_reads(std::initializer_list<const char*> values, const std::string& name = "_Z1kPf") {
  KernelStatics k;
  k.name = name;
  for (const char* v : values) k.launch_values_read.insert(v);
  return k;
}

}  // namespace

// ---------------------------------------------------------------- what the SASS says

TEST(LaunchValues, EachInstructionForm) {
  using V = std::vector<std::string>;
  EXPECT_EQ(launch_values_read_by(parse_one("/*0010*/ S2R R0, SR_TID.Y ;")), V{"tid.y"});
  EXPECT_EQ(launch_values_read_by(parse_one("/*0010*/ S2UR UR4, SR_CTAID.X ;")), V{"ctaid.x"});
  EXPECT_EQ(launch_values_read_by(parse_one("/*0010*/ S2R R3, SR_NCTAID.Z ;")), V{"nctaid.z"});
  EXPECT_EQ(launch_values_read_by(parse_one("/*0010*/ S2R R3, SR_NTID.X ;")), V{"ntid.x"});
  EXPECT_EQ(launch_values_read_by(parse_one("/*0010*/ S2R R3, SR_LANEID ;")), V{});
  EXPECT_EQ(launch_values_read_by(parse_one("/*0010*/ CS2R R4, SR_CLOCKLO ;")), V{});
  EXPECT_EQ(launch_values_read_by(parse_one("/*0040*/ LDC R5, c[0x0][RZ] ;")), V{"ntid.x"});
  EXPECT_EQ(launch_values_read_by(parse_one("/*0030*/ ULDC UR4, c[0x0][0x4] ;")), V{"ntid.y"});
  EXPECT_EQ(launch_values_read_by(parse_one("/*00d0*/ LDC R4, c[0x0][0xc] ;")), V{"nctaid.x"});
  // A 64-bit load reads two words: blockDim.z and gridDim.x.
  EXPECT_EQ(launch_values_read_by(parse_one("/*0030*/ ULDC.64 UR4, c[0x0][0x8] ;")), (V{"ntid.z", "nctaid.x"}));
  // As an operand of arithmetic; the kernel's parameters (0x210 on sm_90) are not launch values.
  EXPECT_EQ(launch_values_read_by(parse_one("/*0060*/ IMAD R0, R3, c[0x0][0x0], R0 ;")), V{"ntid.x"});
  EXPECT_EQ(launch_values_read_by(parse_one("/*0060*/ IMAD R0, R3, c[0x0][0x210], R0 ;")), V{});
  EXPECT_EQ(launch_values_read_by(parse_one("/*0060*/ ULDC.64 UR4, c[0x0][0x208] ;")), V{});
}

TEST(LaunchValues, TheExampleKernels) {
  // Read from fixtures/sm90_app_example.sass (see each kernel's first instructions there).
  const KernelStatics& rows = kernel("rows_x_only_kernel");
  EXPECT_TRUE(rows.reads("tid.x"));
  EXPECT_FALSE(rows.reads("tid.y")) << "threadIdx.x alone";
  EXPECT_FALSE(rows.reads("ntid.y"));
  const KernelStatics& matmul = kernel("matmul_naive_kernel");
  for (const char* v : {"tid.x", "tid.y", "ctaid.x", "ctaid.y", "ntid.x", "ntid.y"}) EXPECT_TRUE(matmul.reads(v)) << v;
  EXPECT_FALSE(matmul.reads("nctaid.x"));
  EXPECT_TRUE(kernel("scale_grid_stride_kernel").reads("nctaid.x"));
  EXPECT_TRUE(kernel("reduce_sum_kernel").reads("nctaid.x")) << "its first stage strides over the grid";
  EXPECT_FALSE(kernel("block_sum_dynamic_kernel").reads("nctaid.x"));
  // A tampered copy: the row kernel's thread index read as threadIdx.y.
  CubinDump tampered = example_dump();
  const auto at = tampered.sass.find("rows_x_only_kernel");
  const auto p = tampered.sass.find("SR_TID.X", at);
  ASSERT_NE(p, std::string::npos);
  tampered.sass.replace(p, 8, "SR_TID.Y");
  for (const auto& k : analyse_dump(tampered))
    if (k.name.find("rows_x_only_kernel") != std::string::npos) EXPECT_TRUE(k.reads("tid.y"));
}

TEST(ThreadLimits, CuobjdumpElfOfTheExample) {
  const KernelStatics& bounded = kernel("bounded_square_kernel");
  ASSERT_TRUE(bounded.thread_limits.max_threads.has_value()) << "__launch_bounds__(128)";
  EXPECT_EQ(*bounded.thread_limits.max_threads, (ThreadShape{128, 1, 1}));
  EXPECT_FALSE(bounded.thread_limits.required_threads.has_value());
  EXPECT_EQ(bounded.thread_limits_source, "cuobjdump -elf (.nv.info)");
  for (const auto& k : example())
    if (k.name != bounded.name) EXPECT_TRUE(k.thread_limits.empty()) << k.name;
  // Without the .nv.info text (an older dump) the limits are unknown, nothing else changes.
  CubinDump without = example_dump();
  without.nv_info.clear();
  for (const auto& k : analyse_dump(without)) EXPECT_TRUE(k.thread_limits.empty()) << k.name;
}

TEST(ThreadLimits, HandWrittenElfAndPtx) {
  const std::string elf =
      "  7    78c     6c  0  4   CUDA_INFO   0    3   0 .nv.info\n"
      ".nv.info\n\tAttribute:\tEIATTR_REGCOUNT\n\tValue:\tfunction: k(0xc)\tregister count: 10\n"
      ".nv.info._Z1kPf\n\t<0x1>\n\tAttribute:\tEIATTR_REQNTID\n\tFormat:\tEIFMT_SVAL\n\tValue:\t0x40 0x2 0x1 \n"
      "\t<0x2>\n\tAttribute:\tEIATTR_MAX_THREADS\n\tFormat:\tEIFMT_SVAL\n\tValue:\t0x100 0x1 0x1 \n"
      ".nv.info.plain\n\tAttribute:\tEIATTR_CUDA_API_VERSION\n\tValue:\t0x82 \n"
      ".text.plain\n0xff017b82 0x00000a00 0x00000800 0x000fe200\n";
  const auto limits = parse_nv_info(elf);
  ASSERT_EQ(limits.size(), 1u);
  EXPECT_EQ(limits.at("_Z1kPf").required_threads, (ThreadShape{64, 2, 1}));
  EXPECT_EQ(limits.at("_Z1kPf").max_threads, (ThreadShape{256, 1, 1}));
  const std::string kept = nv_info_sections(elf);
  EXPECT_NE(kept.find("EIATTR_REQNTID"), std::string::npos);
  EXPECT_EQ(kept.find("0xff017b82"), std::string::npos) << ".text is dropped";
  EXPECT_EQ(kept.find("CUDA_INFO"), std::string::npos) << "the section table is dropped";
  EXPECT_EQ(parse_nv_info(kept).size(), 1u);

  const std::string ptx =
      ".visible .entry _Z2lbPf(\n\t.param .u64 _Z2lbPf_param_0\n)\n.maxntid 128, 1, 1\n{\n\tret;\n}\n"
      ".visible .entry _Z3reqPf(\n\t.param .u64 p\n)\n.reqntid 64, 2\n.minnctapersm 2\n{\n\tret;\n}\n"
      ".visible .entry plain(\n)\n{\n.maxntid 32, 1, 1\n}\n";
  const auto from_ptx = parse_ptx_thread_limits(ptx);
  ASSERT_EQ(from_ptx.size(), 2u) << "a directive inside the body is not the entry's";
  EXPECT_EQ(from_ptx.at("_Z2lbPf").max_threads, (ThreadShape{128, 1, 1}));
  EXPECT_EQ(from_ptx.at("_Z3reqPf").required_threads, (ThreadShape{64, 2, 1}));
  EXPECT_TRUE(parse_nv_info("Value: 0x100\n").empty()) << "outside a .nv.info section";
  EXPECT_TRUE(parse_nv_info(".nv.info._Z1k\n\tAttribute:\tEIATTR_MAX_THREADS\n\tValue:\tzero\n").empty());
}

// ---------------------------------------------------------------- the detectors

TEST(Guardrails, TemplateIntegerArguments) {
  using V = std::vector<long long>;
  EXPECT_EQ(template_integer_arguments("_ZN11app_example17reduce_sum_kernelILi256EEEvPKiPix"), V{256});
  EXPECT_EQ(template_integer_arguments("_Z6kernelILj32ELi4EEvPf"), (V{32, 4}));
  EXPECT_EQ(template_integer_arguments("_Z6kernelILin4EEvPf"), V{}) << "negative literals are skipped";
  EXPECT_EQ(template_integer_arguments("_ZN11app_example11copy_kernelEPKfPfx"), V{});
}

TEST(Guardrails, FixedBlockSize) {
  const KernelStatics& reduce = kernel("reduce_sum_kernel");
  const auto g = fixed_block_size(reduce, {256, 1, 1});
  ASSERT_TRUE(g.has_value());
  EXPECT_EQ(g->kind, "fixed_block_size");
  EXPECT_EQ(g->withholds, "the block size is the template argument <256>");
  EXPECT_FALSE(fixed_block_size(reduce, {128, 1, 1})) << "a launch at another size than the argument";
  EXPECT_FALSE(fixed_block_size(kernel("rows_x_only_kernel"), {64, 4, 1})) << "no template argument";
  KernelStatics required = with_reads({"tid.x"});
  required.thread_limits.required_threads = ThreadShape{64, 2, 1};
  const auto r = fixed_block_size(required, {64, 2, 1});
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->withholds, "compiled for exactly 64x2 threads (.reqntid)");
}

TEST(Guardrails, LaunchBoundsLimitTheSweep) {
  const KernelStatics& bounded = kernel("bounded_square_kernel");
  const auto g = launch_bounds(bounded, {128, 1, 1});
  ASSERT_TRUE(g.has_value());
  EXPECT_TRUE(g->withholds.empty()) << "shapes within the bound are still tried";
  EXPECT_NE(g->note.find("__launch_bounds__(128)"), std::string::npos) << g->note;
  EXPECT_EQ(sweep_options_for(bounded, {32768, 1, 1}, {128, 1, 1}, 0).max_threads, 128);
  EXPECT_FALSE(launch_bounds(kernel("rows_x_only_kernel"), {64, 4, 1}));
}

TEST(Guardrails, UnusedBlockDimension) {
  const auto g = unused_block_dimension(kernel("rows_x_only_kernel"), {64, 4, 1});
  ASSERT_TRUE(g.has_value());
  EXPECT_EQ(g->withholds, "the kernel does not read threadIdx.y: reshaping the block is not work-conserving");
  EXPECT_FALSE(unused_block_dimension(kernel("rows_x_only_kernel"), {256, 1, 1})) << "a 1D block";
  EXPECT_FALSE(unused_block_dimension(kernel("matmul_naive_kernel"), {16, 16, 1}));
  const auto z = unused_block_dimension(with_reads({"tid.x", "tid.y"}), {8, 8, 4});
  ASSERT_TRUE(z.has_value());
  EXPECT_NE(z->withholds.find("threadIdx.z"), std::string::npos);
}

TEST(Guardrails, GridNotFromTheBlock) {
  const auto stride = grid_not_from_block(kernel("scale_grid_stride_kernel"), {264, 1, 1});
  ASSERT_TRUE(stride.has_value());
  EXPECT_NE(stride->note.find("grid-stride loop (reads gridDim.x)"), std::string::npos) << stride->note;
  EXPECT_TRUE(stride->withholds.empty()) << "the sweep keeps the grid instead";
  EXPECT_TRUE(sweep_options_for(kernel("scale_grid_stride_kernel"), {264, 1, 1}, {256, 1, 1}, 0).keep_grid);
  const auto alike = grid_not_from_block(with_reads({"tid.x", "ntid.x"}), {1, 1, 1});
  ASSERT_TRUE(alike.has_value());
  EXPECT_NE(alike->note.find("never reads blockIdx"), std::string::npos);
  EXPECT_FALSE(grid_not_from_block(kernel("matmul_naive_kernel"), {32, 32, 1}));
  EXPECT_FALSE(sweep_options_for(kernel("matmul_naive_kernel"), {32, 32, 1}, {16, 16, 1}, 0).keep_grid);
}

TEST(Guardrails, SharedMemorySizedFromTheBlock) {
  const KernelStatics& sum = kernel("block_sum_dynamic_kernel");
  ASSERT_TRUE(sum.resources.has_value());
  EXPECT_EQ(sum.resources->shared_bytes, 1024) << "res-usage: the system's 1 KiB alone (extern __shared__ only)";
  EXPECT_EQ(static_shared_bytes(sum), 0);
  EXPECT_EQ(static_shared_bytes(kernel("reduce_sum_kernel")), 1024) << "int partial[256]";
  const auto g = block_sized_shared_memory(sum, {256, 1, 1}, 1024);
  ASSERT_TRUE(g.has_value());
  EXPECT_NE(g->note.find("1024 B = 4 B x 256 threads"), std::string::npos) << g->note;
  const SweepOptions o = sweep_options_for(sum, {4096, 1, 1}, {256, 1, 1}, 1024);
  ASSERT_TRUE(o.shared_bytes_per_thread.has_value());
  EXPECT_DOUBLE_EQ(*o.shared_bytes_per_thread, 4.0);
  EXPECT_EQ(o.fixed_shared_bytes, 0);
  // The reduction's 1 KiB is static (its res-usage SHARED): not sized at launch.
  EXPECT_FALSE(block_sized_shared_memory(kernel("reduce_sum_kernel"), {256, 1, 1}, 1024));
  EXPECT_FALSE(block_sized_shared_memory(sum, {256, 1, 1}, 1000)) << "not a whole multiple of the threads";
  EXPECT_FALSE(block_sized_shared_memory(sum, {256, 1, 1}, std::nullopt));
}

TEST(Guardrails, EveryDetectorOnTheExampleLaunches) {
  // The shapes tests/app_example/main.cpp launches them with.
  auto kinds = [](const std::vector<Guardrail>& gs) {
    std::vector<std::string> out;
    for (const auto& g : gs) out.push_back(g.kind);
    return out;
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(kinds(launch_guardrails(kernel("reduce_sum_kernel"), {1024, 1, 1}, {256, 1, 1}, 1024)),
            (V{"fixed_block_size", "grid_not_from_block"}));
  EXPECT_EQ(kinds(launch_guardrails(kernel("matmul_naive_kernel"), {32, 32, 1}, {16, 16, 1}, 0)), V{});
  EXPECT_EQ(kinds(launch_guardrails(kernel("rows_x_only_kernel"), {16384, 1, 1}, {64, 4, 1}, 0)),
            V{"unused_block_dimension"});
  EXPECT_EQ(kinds(launch_guardrails(kernel("scale_grid_stride_kernel"), {264, 1, 1}, {256, 1, 1}, 0)),
            V{"grid_not_from_block"});
  EXPECT_EQ(kinds(launch_guardrails(kernel("bounded_square_kernel"), {8192, 1, 1}, {128, 1, 1}, 0)), V{"launch_bounds"});
  EXPECT_EQ(kinds(launch_guardrails(kernel("block_sum_dynamic_kernel"), {4096, 1, 1}, {256, 1, 1}, 1024)),
            V{"block_sized_shared_memory"});
}

TEST(Guardrails, TheGpuCheck) {
  nlohmann::json profile = {{"device", {{"name", "NVIDIA H200"}}}, {"provenance", {{"gpu", "other"}}}};
  EXPECT_EQ(profile_gpu_name(profile), "NVIDIA H200");
  profile.erase("device");
  EXPECT_EQ(profile_gpu_name(profile), "other");
  EXPECT_EQ(profile_gpu_name(nlohmann::json::array()), "");
  EXPECT_EQ(device_gpu_name(h200()), "NVIDIA H200");
  DeviceProfile named;
  named.name = "NVIDIA H100 80GB HBM3 (warpmodel characterize)";
  EXPECT_EQ(device_gpu_name(named), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(gpu_mismatch_warning("NVIDIA H200", "nvidia h200 "), "");
  EXPECT_EQ(gpu_mismatch_warning("", "NVIDIA H200"), "") << "unknown: no warning";
  const std::string w = gpu_mismatch_warning("NVIDIA H100 80GB HBM3", "NVIDIA H200");
  EXPECT_NE(w.find("measured on NVIDIA H100 80GB HBM3"), std::string::npos) << w;
  EXPECT_NE(w.find("describes NVIDIA H200"), std::string::npos) << w;
}

// ---------------------------------------------------------------- the sweep's options

TEST(GuardrailSweep, KeepsTheGridSizesSharedMemoryAndBoundsTheBlock) {
  MergeInputs in;
  in.statics = &kernel("block_sum_dynamic_kernel");
  in.binary = "fixture";
  in.launch_spec.grid = Dim3{4096, 1, 1};
  in.launch_spec.block = Dim3{256, 1, 1};
  in.launch_spec.dynamic_shared_bytes = 1024;
  const KernelProfile k = make_kernel_profile(in);
  const std::vector<Dim3> shapes = {{128, 1, 1}, {256, 1, 1}, {1024, 1, 1}};
  SweepOptions o;
  o.keep_grid = true;
  o.shared_bytes_per_thread = 4;
  const SweepResult r = sweep_launch_shapes(h200(), k, ModelVariant::Hopper, shapes, o);
  ASSERT_EQ(r.ranked.size(), 3u);
  for (const auto& e : r.ranked) {
    EXPECT_EQ(e.grid, (Dim3{4096, 1, 1})) << "the profiled grid for every block";
    EXPECT_EQ(e.profile.launch.shared_memory_per_block_bytes, 4 * e.block.count());
  }
  const SweepResult plain = sweep_launch_shapes(h200(), k, ModelVariant::Hopper, shapes);
  for (const auto& e : plain.ranked) {
    EXPECT_EQ(e.grid.x * e.block.x, 4096 * 256) << "re-derived from the domain";
    EXPECT_EQ(e.profile.launch.shared_memory_per_block_bytes, k.launch.shared_memory_per_block_bytes)
        << "per block, as profiled";
  }
  o.max_threads = 256;
  const SweepResult bounded = sweep_launch_shapes(h200(), k, ModelVariant::Hopper, shapes, o);
  EXPECT_EQ(bounded.ranked.size(), 2u);
  EXPECT_EQ(bounded.rejected, 1);
}

// ---------------------------------------------------------------- speed of light

TEST(SpeedOfLight, SharesOfHandMadeCounters) {
  DeviceProfile d;
  d.sm_count = 100;
  d.sm_clock_mhz = 1000;
  d.dram_read_bandwidth_gbs = 1000;  // 1e12 B/s
  d.dram_write_bandwidth_gbs = 500;
  d.l2_read_bandwidth_gbs = 4000;
  d.shared_read_bandwidth_gbs = 12800;  // 128 B x 100 SMs x 1 GHz
  d.fp32_ops_per_clock_per_sm = 100;
  d.sfu_ops_per_clock_per_sm = 16;
  CounterLaunch l;
  l.duration_ns = 1e6;  // 1 ms
  l.metrics = {{"dram__bytes_read.sum", 4e8},                        // 0.4 ms at 1e12
               {"dram__bytes_write.sum", 1e8},                       // 0.2 ms at 5e11
               {"lts__t_sectors_op_read.sum", 1e9 / 32},             // 1e9 B: 0.25 ms at 4e12
               {"lts__t_sectors_op_write.sum", 0},
               {"l1tex__data_pipe_lsu_wavefronts.sum", 5e7},         // 6.4e9 B: 0.5 ms
               {"smsp__inst_executed.sum", 1e8},                     // / (100 x 4 x 1e9) = 0.25 ms
               {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", 5e9},  // / (100 x 100 x 1e9) = 0.5 ms
               {"smsp__inst_executed_pipe_xu.sum", 1e6}};            // x 32 / (16 x 100 x 1e9) = 0.02 ms
  const auto shares = speed_of_light(l, d);
  std::map<std::string, double> by_key;
  for (const auto& s : shares) by_key[s.key] = s.share;
  EXPECT_NEAR(by_key.at("dram"), 0.6, 1e-12);
  EXPECT_NEAR(by_key.at("l2"), 0.25, 1e-12);
  EXPECT_NEAR(by_key.at("l1_shared"), 0.5, 1e-12);
  EXPECT_NEAR(by_key.at("issue"), 0.25, 1e-12);
  EXPECT_NEAR(by_key.at("fp32"), 0.5, 1e-12);
  EXPECT_NEAR(by_key.at("sfu"), 0.02, 1e-12);
  EXPECT_EQ(by_key.count("fp64"), 0u) << "no FP64 counters";
  EXPECT_EQ(speed_of_light_summary(shares), "DRAM 60 %, L1/shared 50 %");
  EXPECT_EQ(speed_of_light_summary({}), "-");
  l.duration_ns.reset();
  EXPECT_TRUE(speed_of_light(l, d).empty()) << "no measured time, no shares";
  // FLOPs: an FMA is two.
  EXPECT_DOUBLE_EQ(*counted_flops(l), 1e10);
  EXPECT_DOUBLE_EQ(*dram_bytes(l), 5e8);
}

TEST(SpeedOfLight, TheDeviceProfileCarriesTheMeasuredThroughput) {
  ASSERT_TRUE(h200().fp32_ops_per_clock_per_sm.has_value());
  EXPECT_GT(*h200().fp32_ops_per_clock_per_sm, 100);  // 125.5 of the spec's 128
  ASSERT_TRUE(h200().fp64_ops_per_clock_per_sm.has_value());
  ASSERT_TRUE(h200().sfu_ops_per_clock_per_sm.has_value());
  EXPECT_LT(*h200().sfu_ops_per_clock_per_sm, 16.01);
}

TEST(SpeedOfLight, FlopsEstimatedFromTheSassMix) {
  // rows_x_only: out = 2 in + 1, one FFMA among its instructions.
  const KernelStatics& rows = kernel("rows_x_only_kernel");
  CounterLaunch l;
  l.metrics["smsp__inst_executed.sum"] = rows.static_instructions * 1000.0;
  const int ffma = rows.opcode_histogram.count("FFMA") ? rows.opcode_histogram.at("FFMA") : 0;
  ASSERT_GT(ffma, 0);
  EXPECT_DOUBLE_EQ(*estimated_flops(l, rows), 1000.0 * 32 * 2 * ffma);
  EXPECT_FALSE(counted_flops(l).has_value());
  l.metrics.clear();
  EXPECT_FALSE(estimated_flops(l, rows).has_value());
}

// ---------------------------------------------------------------- what-if

TEST(WhatIf, ParsesAndRefuses) {
  WhatIf w = parse_what_if("dram_bytes=0.5x");
  EXPECT_EQ(w.key, "dram_bytes");
  EXPECT_EQ(w.kind, WhatIf::Kind::Factor);
  EXPECT_DOUBLE_EQ(w.value, 0.5);
  EXPECT_EQ(parse_what_if("l1_hit_rate=+20").kind, WhatIf::Kind::Points);
  EXPECT_EQ(parse_what_if("l1_hit_rate=-5").value, -5);
  EXPECT_EQ(parse_what_if("l2_hit_rate=80").kind, WhatIf::Kind::Percent);
  EXPECT_EQ(parse_what_if("registers=64").value, 64);
  EXPECT_EQ(parse_what_if("shared_memory=49152").value, 49152);
  for (const char* bad : {"dram_bytes", "=1", "dram_bytes=0.5", "dram_bytes=-1x", "dram_bytes=abcx", "dram_bytes=nanx",
                          "l1_hit_rate=120", "l1_hit_rate=+200", "l1_hit_rate=x", "registers=0", "registers=64.5",
                          "registers=300", "shared_memory=-1", "colour=blue"}) {
    try {
      parse_what_if(bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()).rfind(std::string("--what-if ") + bad + ": ", 0), 0u) << e.what();
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    }
  }
}

TEST(WhatIf, ChangesTheProfile) {
  KernelProfile k;
  k.inst_per_warp = 100;
  k.mem_inst_per_warp = 10;
  k.dram_bytes_per_warp = 1000;
  k.dram_write_bytes_per_warp = 400;
  k.l2_bytes_per_warp = 2000;
  k.l2_write_bytes_per_warp = 500;
  k.l1_miss_ratio = 0.5;
  k.l2_miss_ratio = 0.5;
  k.launch.active_warps_per_sm = 40;
  KernelProfile a = k;
  EXPECT_EQ(apply_what_if(parse_what_if("dram_bytes=0.5x"), a), "");
  EXPECT_DOUBLE_EQ(*a.dram_bytes_per_warp, 500);
  EXPECT_DOUBLE_EQ(*a.dram_write_bytes_per_warp, 200);
  a = k;
  apply_what_if(parse_what_if("l1_hit_rate=+20"), a);  // 50 % -> 70 %: misses 0.5 -> 0.3
  EXPECT_DOUBLE_EQ(a.l1_miss_ratio, 0.3);
  EXPECT_DOUBLE_EQ(*a.l2_bytes_per_warp, 500 + 1500 * 0.6) << "the L2 reads follow the L1 misses";
  a = k;
  apply_what_if(parse_what_if("l2_hit_rate=100"), a);
  EXPECT_DOUBLE_EQ(a.l2_miss_ratio, 0);
  EXPECT_DOUBLE_EQ(*a.dram_bytes_per_warp, 400) << "only the writes stay";
  a = k;
  apply_what_if(parse_what_if("instructions=0.01x"), a);
  EXPECT_DOUBLE_EQ(a.inst_per_warp, 10) << "no fewer than the memory instructions";
  a = k;
  apply_what_if(parse_what_if("registers=128"), a);
  EXPECT_EQ(a.launch.registers_per_thread, 128);
  EXPECT_FALSE(a.launch.active_warps_per_sm.has_value()) << "the measured occupancy held at the profiled resources";
  KernelProfile none;
  EXPECT_EQ(apply_what_if(parse_what_if("l1_wavefronts=2x"), none), "no measured L1 wavefronts");
}

TEST(WhatIf, EachHopperBoundMadeFree) {
  MergeInputs in;
  in.statics = &kernel("rows_x_only_kernel");
  in.binary = "fixture";
  in.launch_spec.grid = Dim3{16384, 1, 1};
  in.launch_spec.block = Dim3{256, 1, 1};
  const KernelProfile k = make_kernel_profile(in);
  const Prediction base = predict(ModelVariant::Hopper, h200(), k);
  ASSERT_EQ(removable_bounds().size(), 10u);
  EXPECT_NE(std::find(removable_bounds().begin(), removable_bounds().end(), base.bound), removable_bounds().end())
      << base.bound;
  for (const auto& bound : removable_bounds()) {
    DeviceProfile free = h200();
    free.free_terms = {bound};
    const Prediction p = predict(ModelVariant::Hopper, free, k);
    EXPECT_LE(p.cycles, base.cycles * (1 + 1e-12)) << bound << ": a free resource never slows a launch";
    if (bound == base.bound) {
      EXPECT_LT(p.cycles, base.cycles) << bound;
      EXPECT_NE(p.bound, base.bound) << "another term bounds it";
    }
  }
}
