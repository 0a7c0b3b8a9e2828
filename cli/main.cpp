// warpmodel: characterise a GPU, measure kernels, predict their time (README.md).
#include <exception>
#include <iostream>

#include "commands.hpp"
#include "exit_codes.hpp"
#include "warpmodel/json_io.hpp"
#include "warpmodel/model.hpp"

int main(int argc, char** argv) {
  using namespace warpmodel;
  CLI::App app{"warpmodel: MWP-CWP performance model of GPU kernels, with the microbenchmarks and profiles it needs"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "warpmodel 0.1.0");
  cli::Action action;
  cli::add_model_commands(app, action);
  cli::add_device_commands(app, action);
  cli::add_validate_command(app, action);
  cli::add_gpu_commands(app, action);
  cli::add_app_commands(app, action);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // Help and version print as CLI11 formats them; a bad command line is one line, exit 2.
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(e);
    std::cerr << "warpmodel: " << e.what() << " (see warpmodel " << (argc > 1 ? argv[1] : "") << " --help)\n";
    return cli::kExitBadInput;
  }
  try {
    return action ? action() : cli::kExitBadInput;
  } catch (const InputError& e) {
    std::cerr << "warpmodel: " << e.what() << "\n";
    return cli::kExitBadInput;
  } catch (const ModelError& e) {
    std::cerr << "warpmodel: " << e.what() << "\n";
    return cli::kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "warpmodel: " << e.what() << "\n";
    return cli::kExitInternal;
  }
}
