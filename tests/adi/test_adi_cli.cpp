// `warpmodel run-adi` end to end (label adi): bad options give one line and exit 2; without a GPU
// the program still starts (static CUDA runtime) and exits 3 with one line; with one it prints the
// time per step and per kernel.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include "warpmodel/support/text.hpp"

using warpmodel::support::read_text_file;

namespace {

struct Result {
  int code = -1;
  std::string out, err;
};

Result run(const std::string& args) {
  const auto dir = std::filesystem::temp_directory_path();
  const std::string out = (dir / "adi_cli_out.txt").string(), err = (dir / "adi_cli_err.txt").string();
  const std::string cmd = std::string(WARPMODEL_BIN) + " " + args + " >" + out + " 2>" + err;
  const int status = std::system(cmd.c_str());
  Result r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_text_file(out).value_or("");
  r.err = read_text_file(err).value_or("");
  return r;
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
}

TEST(RunAdiCli, RunsOrSaysNoGpu) {
  const Result r = run("run-adi --size 64 --steps 2");
  if (r.code == 3) {
    EXPECT_EQ(lines(r.err), 1) << r.err;
    // Without a driver the message says so (issue 14); with one but no device, "no CUDA GPU".
    EXPECT_TRUE(r.err.find("no NVIDIA driver found") != std::string::npos || r.err.find("no CUDA GPU") != std::string::npos)
        << r.err;
    EXPECT_TRUE(r.out.empty());
  } else {
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("time per step"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("solve-x"), std::string::npos) << r.out;
  }
}

}  // namespace
