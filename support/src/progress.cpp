#include "warpmodel/support/progress.hpp"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <iostream>

namespace warpmodel::support {

bool progress_enabled() {
  if (const char* env = std::getenv("WARPMODEL_PROGRESS"); env && *env) return std::strcmp(env, "0") != 0;
  return ::isatty(STDERR_FILENO) == 1;
}

void progress(const std::string& command, const std::string& stage) {
  if (progress_enabled()) std::cerr << "warpmodel " << command << ": " << stage << std::endl;
}

}  // namespace warpmodel::support
