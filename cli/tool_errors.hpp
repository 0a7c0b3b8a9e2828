// The commands that run cuobjdump/nvdisasm (sass-analyze, kernel-profile, predict-app, import-ncu):
// the tools' failures and bad input are reported as one line naming the command, exit 2.
#pragma once

#include <filesystem>
#include <iostream>

#include "exit_codes.hpp"
#include "warpmodel/json_io.hpp"
#include "warpmodel/model.hpp"
#include "warpmodel/sass/tools.hpp"

namespace warpmodel::cli {

template <typename Body>
int guarded(const char* command, Body body) {
  try {
    return body();
  } catch (const sass::ToolMissing& e) {
    std::cerr << "warpmodel " << command << ": " << e.what() << "\n";
  } catch (const sass::AnalysisError& e) {
    std::cerr << "warpmodel " << command << ": " << e.what() << "\n";
  } catch (const InputError& e) {
    std::cerr << "warpmodel " << command << ": " << e.what() << "\n";
  } catch (const ModelError& e) {
    std::cerr << "warpmodel " << command << ": " << e.what() << "\n";
  } catch (const std::filesystem::filesystem_error& e) {  // a path the system refuses: the input's
    std::cerr << "warpmodel " << command << ": " << e.path1().string() << ": " << e.code().message() << "\n";
  }
  return kExitBadInput;
}

}  // namespace warpmodel::cli
