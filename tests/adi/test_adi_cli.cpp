// `warpmodel run-adi` end to end (label adi): bad options give one line and exit 2; without a GPU
// the program still starts (static CUDA runtime) and exits 3 with one line; with one it prints the
// time per step and per kernel.
#include <gtest/gtest.h>

#include "run_program.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "warpmodel/support/text.hpp"

using warpmodel::support::read_text_file;

namespace {

struct Result {
  int code = -1;
  std::string out, err;
};

Result run(const std::string& args) {
  const auto scratch = std::filesystem::temp_directory_path() / ("warpmodel_adi_cli_" + std::to_string(::getpid()));
  const warpmodel::test::ProgramResult r = warpmodel::test::run_program(std::string(WARPMODEL_BIN) + " " + args, scratch);
  std::error_code ec;
  std::filesystem::remove_all(scratch, ec);
  return {r.exit_code, r.out, r.err};
}

int lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

TEST(RunAdiCli, BadOptionsExitTwoWithOneLine) {
  for (const char* args : {"run-adi --variant diagonal", "run-adi --size 100", "run-adi --variant block-per-line --size 2048",
                           "run-adi --precision half", "run-adi --steps 0", "run-adi --solver thomas"}) {
    const Result r = run(args);
    EXPECT_EQ(r.code, 2) << args << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << args;
  }
  const Result r = run("run-adi --size 100");
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("multiple of 32"), std::string::npos) << r.err;
  // fused-cluster's sizes and cells per thread are checked before any GPU is looked for.
  for (const auto& [args, why] : {std::pair{"run-adi --variant fused-cluster --size 256 --rows 96", "multiple of 64"},
                                  std::pair{"run-adi --variant fused-cluster --size 256 --partition-cells 16", "must be 8"},
                                  std::pair{"run-adi --variant fused-cluster --size 8192", "512 threads"}}) {
    const Result c = run(args);
    EXPECT_EQ(c.code, 2) << args << ": " << c.err;
    EXPECT_EQ(lines(c.err), 1) << c.err;
    EXPECT_NE(c.err.find(why), std::string::npos) << args << ": " << c.err;
  }
}

TEST(RunAdiCli, RunsOrSaysNoGpu) {
  const Result r = run("run-adi --size 64 --steps 2");
  if (r.code == 3) {
    EXPECT_EQ(lines(r.err), 1) << r.err;
    // Without a driver the message says so; with one but no device, "no CUDA GPU".
    EXPECT_TRUE(r.err.find("no NVIDIA driver found") != std::string::npos || r.err.find("no CUDA GPU") != std::string::npos)
        << r.err;
    EXPECT_TRUE(r.out.empty());
  } else {
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("time per step"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("solve-x"), std::string::npos) << r.out;
    // The same steps through CUDA graphs (GpuSolver::run), ending in the same state.
    EXPECT_NE(r.out.find("through CUDA graphs"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("identical to the run above"), std::string::npos) << r.out;
  }
}

// -o FILE: the run records where it came from, in the fields every measured record carries.
TEST(RunAdiCli, TheJsonRecordsWhereItCameFrom) {
  const auto dir = std::filesystem::temp_directory_path() / ("warpmodel_adi_json_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto file = dir / "run.json";
  const Result r = run("run-adi --size 64 --steps 2 -o " + file.string());
  if (r.code == 3) {
    EXPECT_FALSE(std::filesystem::exists(file)) << "nothing is written without a GPU";
    std::filesystem::remove_all(dir);
    GTEST_SKIP() << "no GPU: " << r.err;
  }
  ASSERT_EQ(r.code, 0) << r.err;
  const std::optional<std::string> text = read_text_file(file);
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(text) << file << " was not written";
  const nlohmann::json j = nlohmann::json::parse(*text);
  ASSERT_TRUE(j.contains("provenance")) << j.dump();
  const nlohmann::json& p = j["provenance"];
  for (const char* key : {"gpu", "driver", "cuda", "date", "commit", "command"}) {
    ASSERT_TRUE(p.contains(key) && p[key].is_string()) << key << " in " << p.dump();
    EXPECT_FALSE(p[key].get<std::string>().empty()) << key;
  }
  EXPECT_GT(p["sm_clock_mhz"].get<double>(), 0.0) << p.dump();
  EXPECT_NE(p["command"].get<std::string>().find("run-adi --size 64 --steps 2"), std::string::npos) << p.dump();
}

}  // namespace
