// Running the program (or any shell command) from a test: one helper for every test that drives
// `warpmodel` end to end, instead of a copy per test file.
//   run_program(command, scratch): exit code, stdout and stderr apart (captured in files under
//                                  `scratch`, which is created and left for the caller to remove)
//   run_command(command):          exit code and stdout + stderr together (a pipe)
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "warpmodel/support/text.hpp"

namespace warpmodel::test {

struct ProgramResult {
  int exit_code = -1;
  std::string out, err;
};

inline ProgramResult run_program(const std::string& command, const std::filesystem::path& scratch) {
  std::filesystem::create_directories(scratch);
  const std::filesystem::path out = scratch / "out", err = scratch / "err";
  const int status = std::system((command + " >" + out.string() + " 2>" + err.string()).c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, support::read_text_file(out).value_or(""),
          support::read_text_file(err).value_or("")};
}

struct CommandResult {
  int code = -1;
  std::string out;  // stdout and stderr, interleaved as written
};

inline CommandResult run_command(const std::string& command) {
  CommandResult r;
  FILE* p = popen((command + " 2>&1").c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf{};
  while (fgets(buf.data(), buf.size(), p)) r.out += buf.data();
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace warpmodel::test
