// Subcommand registration. Each add_* attaches its subcommands to the app; the callback of the
// chosen one runs after parsing and returns the process exit code.
#pragma once

#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "exit_codes.hpp"
#include "warpmodel/json_io.hpp"
#include "warpmodel/support/input_file.hpp"

namespace warpmodel::cli {

using Action = std::function<int()>;

// Before a command reads anything: its -o (when given) may be written, and is none of its inputs
// (support::check_output_file: a new name or a regular file, never a folder or a device node).
inline void check_output(const std::string& output, const std::vector<support::NamedInput>& inputs) {
  if (!output.empty()) support::check_output_file("-o", output, inputs);
}

// A command's rendered output: to standard output, or written atomically to `output` (-o).
inline void emit(const std::string& output, const std::string& text) {
  if (output.empty())
    std::cout << text;
  else
    write_file_atomically(output, text);
}

// What a GPU subcommand does in a build without CUDA: one line, exit kExitNoGpu.
inline int no_cuda_in_this_build(const char* command) {
  std::cerr << "warpmodel " << command << ": this build has no CUDA support (configured with "
               "WARPMODEL_ENABLE_CUDA=OFF); rebuild with the CUDA toolkit to use GPU subcommands\n";
  return kExitNoGpu;
}

// predict, sweep, reproduce-thesis: model only, no GPU needed.
void add_model_commands(CLI::App& app, Action& action);
// compare-devices: device profiles side by side, with ratios and spec values (no GPU needed).
void add_device_commands(CLI::App& app, Action& action);
// validate --from DIR: predicted against measured cycles from committed measurements (no GPU).
void add_validate_command(CLI::App& app, Action& action);
// GPU subcommands (devices, ...). Without CUDA support built in they say so and exit 3.
void add_gpu_commands(CLI::App& app, Action& action);
// characterize: the microbenchmarks (ubench); without CUDA it says so and exits 3.
void add_characterize_command(CLI::App& app, Action& action);
// run-stencil: the 3D acoustic propagator on the GPU (stencils/gpu).
void add_stencil_commands(CLI::App& app, Action& action);
// run-adi: the ADI shallow-water solver on the GPU (stencils/adi).
void add_adi_commands(CLI::App& app, Action& action);
// run-fwi: the 2D acoustic full-waveform inversion with CPML (stencils/fwi); the CPU reference for now.
void add_fwi_commands(CLI::App& app, Action& action);
// profile, metrics: CUPTI Range Profiler collection (profiles/cupti).
void add_profile_commands(CLI::App& app, Action& action);
// kernel-profile: static SASS analysis merged with CUPTI counts into a KernelProfile (profiles/sass).
void add_kernel_profile_command(CLI::App& app, Action& action);
// import-ncu, predict-app: any application's profile, imported and predicted (no GPU).
void add_app_commands(CLI::App& app, Action& action);

}  // namespace warpmodel::cli
