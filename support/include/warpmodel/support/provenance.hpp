// Where a result came from: the command as the user typed it, the date, the commit. Every writer of
// measured or derived results records these the same way.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace warpmodel::support {

// One argument as a POSIX shell would need it to read it back: unchanged when it holds only
// [A-Za-z0-9_@%+=:,./-], else in single quotes.
std::string shell_quote(std::string_view argument);

// A path argument written the same way however it was typed: trailing slashes dropped
// ("results/h200/" -> "results/h200"; "/" stays "/").
std::string normalise_path(std::string_view path);

// The command line, program name first ("warpmodel validate --from results/h200"): argv[0] reduced
// to its file name, every argument passed through normalise_path (so a trailing slash does not
// change the record) and shell_quote.
std::string command_line(int argc, const char* const* argv);
std::string command_line(const std::vector<std::string>& argv);

// This process's own command line (/proc/self/cmdline) in the form of command_line(): what a
// result records as "the exact command". "unknown" where /proc is not mounted.
std::string this_process_command_line();

// The current UTC time, ISO 8601 ("2026-11-24T16:44:00Z").
std::string utc_now();

// The commit the results come from: WARPMODEL_GIT_COMMIT when set (a copied tree's git metadata
// can be stale, as on a GPU machine it was copied to), else the commit configured at build time, else "unknown".
std::string source_commit();

}  // namespace warpmodel::support
