// `warpmodel profile` and `warpmodel metrics` end to end: exit codes and one-line errors. The
// offline paths (--chip, --legacy, bad input) run anywhere; "no GPU" is checked where there is none.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <string>

#include "run_program.hpp"

namespace {

using warpmodel::test::CommandResult;

CommandResult run(const std::string& args, const std::string& env = "") {
  return warpmodel::test::run_command(env + (env.empty() ? "" : " ") + WARPMODEL_BIN + std::string(" ") + args);
}

bool have_gpu() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

std::size_t lines(const std::string& s) {
  std::size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

}  // namespace

TEST(CliMetrics, LegacyTableNeedsNoGpu) {
  const CommandResult r = run("metrics --legacy");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("achieved_occupancy"), std::string::npos);
  EXPECT_NE(r.out.find("0.01 * sm__warps_active.avg.pct_of_peak_sustained_active"), std::string::npos);
}

TEST(CliMetrics, SetPassCountOfANamedChipOffline) {
  const CommandResult r = run("metrics --chip GH100 --set model");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("model: 63 Perfworks metrics, "), std::string::npos) << r.out;  // 61, and the 2 optional GH100 has
  EXPECT_NE(r.out.find(" pass(es) on GH100"), std::string::npos) << r.out;
  const CommandResult l = run("metrics --chip GH100 --list --filter dram__bytes_read");
  EXPECT_EQ(l.code, 0) << l.out;
  EXPECT_NE(l.out.find("dram__bytes_read "), std::string::npos) << l.out;
  EXPECT_EQ(l.out.find("lts__t_sector_hit_rate"), std::string::npos) << "the filter filters";
}

TEST(CliMetrics, UnknownNamesGetOneLineWithTheClosestNames) {
  const CommandResult r = run("metrics --chip GH100 --set dram__bytes_red.sum");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_EQ(lines(r.out), 1u) << r.out;
  EXPECT_NE(r.out.find("closest valid names: dram__bytes_read.sum"), std::string::npos) << r.out;
  const CommandResult rej = run("metrics --chip GH100 --set inst_replay_overhead");
  EXPECT_EQ(rej.code, 2) << rej.out;
  EXPECT_NE(rej.out.find("has no Perfworks equivalent"), std::string::npos) << rej.out;
  const CommandResult chip = run("metrics --chip GH999");
  EXPECT_EQ(chip.code, 2) << chip.out;
  EXPECT_NE(chip.out.find("GH100"), std::string::npos) << "lists the chips CUPTI knows";
}

TEST(CliProfile, BadWorkloadOptionsAreBadInput) {
  CommandResult r = run("profile --kernel nonsense");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("unknown --kernel 'nonsense'; this build has: copy, saxpy, barrier"), std::string::npos) << r.out;
  r = run("profile --kernel copy --size 0");
  EXPECT_EQ(r.code, 2) << r.out;
  r = run("profile --kernel copy --block 100");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("multiple of 32"), std::string::npos) << r.out;
  r = run("profile --kernel copy --range sideways");
  EXPECT_EQ(r.code, 2) << r.out;
  r = run("profile --kernel copy --output /proc/warpmodel-no/x");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("not writable"), std::string::npos) << r.out;
}

TEST(CliProfile, UnderAnotherProfilerItRefusesWithTheWayOut) {
  const CommandResult r = run("profile --kernel copy", "CUDA_INJECTION64_PATH=/opt/some/libInjection.so");
  EXPECT_EQ(r.code, 4) << r.out;
  EXPECT_EQ(lines(r.out), 1u) << r.out;
  EXPECT_NE(r.out.find("another CUPTI client"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--launch-only"), std::string::npos) << r.out;
}

TEST(CliCompareNcu, RegeneratesTheDocumentFromSavedRuns) {
  const std::string dir = WARPMODEL_CUPTI_FIXTURES "/ncu-comparison";
  const std::string prefix = "/tmp/warpmodel-compare-ncu-" + std::to_string(::getpid());
  const CommandResult r = run("compare-ncu --from " + dir + " -o " + prefix);
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("workload(s)"), std::string::npos) << r.out;
  std::FILE* f = std::fopen((prefix + ".md").c_str(), "r");
  ASSERT_NE(f, nullptr);
  std::fclose(f);
  std::remove((prefix + ".md").c_str());
  std::remove((prefix + ".json").c_str());
  const CommandResult missing = run("compare-ncu --from /nonexistent -o " + prefix);
  EXPECT_EQ(missing.code, 2) << missing.out;
}

TEST(CliProfile, NoGpuIsExitThree) {
  if (have_gpu()) GTEST_SKIP() << "a GPU is present";
  CommandResult r = run("profile --kernel copy --output /tmp/warpmodel-cli-test-profile");
  EXPECT_EQ(r.code, 3) << r.out;
  EXPECT_EQ(lines(r.out), 1u) << r.out;
  EXPECT_TRUE(r.out.find("no NVIDIA driver found") != std::string::npos || r.out.find("no CUDA GPU") != std::string::npos)
      << r.out;
  r = run("metrics --list");
  EXPECT_EQ(r.code, 3) << r.out;
  EXPECT_NE(r.out.find("--chip GH100"), std::string::npos) << r.out;
  EXPECT_EQ(std::fopen("/tmp/warpmodel-cli-test-profile.json", "r"), nullptr) << "nothing written";
}
