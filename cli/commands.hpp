// Subcommand registration. Each add_* attaches its subcommands to the app; the callback of the
// chosen one runs after parsing and returns the process exit code.
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

namespace warpmodel::cli {

using Action = std::function<int()>;

// predict, sweep, reproduce-thesis: model only, no GPU needed.
void add_model_commands(CLI::App& app, Action& action);
// GPU subcommands (devices, ...). Without CUDA support built in they say so and exit 3.
void add_gpu_commands(CLI::App& app, Action& action);
// characterize: the microbenchmarks (ubench); without CUDA it says so and exits 3.
void add_characterize_command(CLI::App& app, Action& action);

}  // namespace warpmodel::cli
