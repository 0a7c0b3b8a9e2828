#include "warpmodel/support/provenance.hpp"

#include <cstdlib>
#include <ctime>
#include <fstream>

namespace warpmodel::support {

std::string shell_quote(std::string_view a) {
  const bool plain = !a.empty() && a.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                                       "0123456789_@%+=:,./-") == std::string_view::npos;
  if (plain) return std::string(a);
  std::string out = "'";
  for (char c : a) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string normalise_path(std::string_view p) {
  while (p.size() > 1 && p.back() == '/') p.remove_suffix(1);
  return std::string(p);
}

std::string command_line(const std::vector<std::string>& argv) {
  std::string out;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    std::string arg = argv[i];
    if (i == 0) {
      const auto slash = arg.rfind('/');
      if (slash != std::string::npos) arg = arg.substr(slash + 1);
    } else {
      // "--from=results/h200/" keeps its option name; the value is normalised.
      const auto eq = arg.rfind('=');
      arg = arg.rfind("--", 0) == 0 && eq != std::string::npos ? arg.substr(0, eq + 1) + normalise_path(arg.substr(eq + 1))
                                                                : normalise_path(arg);
    }
    if (i) out += ' ';
    out += shell_quote(arg);
  }
  return out;
}

std::string command_line(int argc, const char* const* argv) {
  std::vector<std::string> args;
  for (int i = 0; i < argc; ++i) args.emplace_back(argv[i] ? argv[i] : "");
  return command_line(args);
}

std::string this_process_command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  if (!in) return "unknown";
  std::vector<std::string> args;
  std::string arg;
  while (std::getline(in, arg, '\0')) args.push_back(arg);
  return args.empty() ? "unknown" : command_line(args);
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return date;
}

std::string source_commit() {
  if (const char* env = std::getenv("WARPMODEL_GIT_COMMIT"); env && *env) return env;
#ifdef WARPMODEL_GIT_COMMIT_CONFIGURED
  return WARPMODEL_GIT_COMMIT_CONFIGURED;
#else
  return "unknown";
#endif
}

}  // namespace warpmodel::support
