// warpmodel: characterise a GPU, measure kernels, predict their time (README.md).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "exit_codes.hpp"
#include "warpmodel/json_io.hpp"
#include "warpmodel/model.hpp"
#include "warpmodel/support/input_file.hpp"
#include "warpmodel/support/text.hpp"

namespace {

using namespace warpmodel;

// The command line as the parser should see it, or the one line that refuses it: every argument in
// UTF-8 (names and paths end up in JSON output, which holds nothing else), and "--name=" written as
// "--name ''" so that an empty value meets the option's own check, as `--name ''` does.
std::string normalise_arguments(int argc, char** argv, std::vector<std::string>& out) {
  bool after_separator = false;  // `profile -- APP ARGS`: APP's arguments are APP's
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (!after_separator) {
      if (const auto bad = support::first_invalid_utf8(arg)) {
        char byte[8];
        std::snprintf(byte, sizeof byte, "0x%02x", static_cast<unsigned char>(arg[*bad]));
        return "argument " + std::to_string(i) + " is not UTF-8 (byte " + byte + "); give names and paths in UTF-8";
      }
      if (arg == "--") after_separator = true;
      if (arg.size() > 3 && arg.rfind("--", 0) == 0 && arg.back() == '=' && arg.find('=') == arg.size() - 1) {
        out.push_back(arg.substr(0, arg.size() - 1));
        out.emplace_back();
        continue;
      }
    }
    out.push_back(std::move(arg));
  }
  return "";
}

// The first word names a subcommand, or the one line that says it does not (CLI11 would read an
// unknown word as a missing subcommand, and `warpmodel typo --help` as the top-level help).
std::string unknown_subcommand(const CLI::App& app, const std::vector<std::string>& args) {
  if (args.empty() || args.front().empty() || args.front()[0] == '-') return "";
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) names.push_back(sub->get_name());
  if (std::find(names.begin(), names.end(), args.front()) != names.end()) return "";
  const std::vector<std::string> closest = support::closest_names(args.front(), names, 1);
  std::string message = "unknown subcommand '" + args.front() + "'";
  if (!closest.empty() && support::edit_distance(args.front(), closest.front()) <= 3)
    message += " (did you mean '" + closest.front() + "'?)";
  return message + "; the subcommands: " + support::join(names, ", ") + " (warpmodel --help says what each does)";
}

}  // namespace

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
  std::vector<std::string> args;
  if (const std::string bad = normalise_arguments(argc, argv, args); !bad.empty()) {
    std::cerr << "warpmodel: " << bad << "\n";
    return cli::kExitBadInput;
  }
  if (const std::string unknown = unknown_subcommand(app, args); !unknown.empty()) {
    std::cerr << "warpmodel: " << unknown << "\n";
    return cli::kExitBadInput;
  }
  app.name(argv[0]);  // as parse(argc, argv) would: the help's usage line
  try {
    std::reverse(args.begin(), args.end());  // CLI11 takes the arguments last first
    app.parse(args);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // Help and version print as CLI11 formats them; a bad command line is one line, exit 2.
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(e);
    const std::string sub = argc > 1 && argv[1][0] != '-' ? std::string(argv[1]) + " " : std::string();
    std::cerr << "warpmodel: " << e.what() << " (see warpmodel " << sub << "--help)\n";
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
  } catch (const std::filesystem::filesystem_error& e) {
    // A path the system refuses (too long, a loop of links, no permission): the input's, not a bug.
    std::cerr << "warpmodel: " << e.path1().string() << ": " << e.code().message() << "\n";
    return cli::kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "warpmodel: " << e.what() << "\n";
    return cli::kExitInternal;
  }
}
