// Placeholder: filled in by its issue; registers no subcommand yet.
#include "commands.hpp"

namespace warpmodel::cli {
void add_kernel_profile_command(CLI::App& /*app*/, Action& /*action*/) {}
}  // namespace warpmodel::cli
