// Placeholder: filled in by its issue; registers no subcommand yet.
#include "commands.hpp"

namespace warpmodel::cli {
void add_adi_commands(CLI::App& /*app*/, Action& /*action*/) {}
}  // namespace warpmodel::cli
