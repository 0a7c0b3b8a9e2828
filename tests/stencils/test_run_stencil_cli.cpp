// `warpmodel run-stencil` on bad input: one line on stderr naming what is wrong, exit 2, checked
// before any GPU is touched (so these pass on machines with and without one).
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "run_program.hpp"

#include <unistd.h>

#include <filesystem>

namespace {

struct Result {
  int exit_code;
  std::string err;
};

Result run(const std::string& args) {
  const auto scratch = std::filesystem::temp_directory_path() / ("warpmodel_stencil_cli_" + std::to_string(::getpid()));
  const warpmodel::test::ProgramResult r =
      warpmodel::test::run_program(std::string(WARPMODEL_BIN) + " run-stencil " + args, scratch);
  std::error_code ec;
  std::filesystem::remove_all(scratch, ec);
  return {r.exit_code, r.err};
}

void expect_bad_input(const std::string& args, const std::string& names) {
  const Result r = run(args);
  EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
  EXPECT_NE(r.err.find(names), std::string::npos) << args << ": " << r.err;
}

TEST(RunStencilCli, BadInputIsOneLineAndExit2) {
  expect_bad_input("--variant tiled", "valid variants: naive, readonly, shared, intz, intz-reg");
  expect_bad_input("--order 7 --size 64x64x64", "order 7");
  expect_bad_input("--order 8 --size 64x64x64 --dt 1", "unstable");
  expect_bad_input("--variant intz --size 64x64x64 --block 32x4x2", "z must be 1");
  expect_bad_input("--size 64x64", "too small");
  expect_bad_input("--size 64xx64", "--size");
  expect_bad_input("--size 64x64x64 --trace t.csv", "--receiver");
  expect_bad_input("--size 64x64x64 --receiver 1,2 --trace t.csv", "--receiver");
  expect_bad_input("--size 64x64x64 --model layered", "--model");
  expect_bad_input("--size 64x64x64 --source 1,1,1", "boundary");
  expect_bad_input("--size 64x64x64 --variant intz-reg --loader ldg", "valid loaders");
}

}  // namespace
