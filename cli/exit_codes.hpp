// Exit codes of the warpmodel program (README "Exit codes").
#pragma once

namespace warpmodel::cli {
inline constexpr int kExitOk = 0;
inline constexpr int kExitInternal = 1;      // a bug: please report
inline constexpr int kExitBadInput = 2;      // malformed or invalid input, unknown names, bad options
inline constexpr int kExitNoGpu = 3;         // a GPU subcommand found no usable GPU
inline constexpr int kExitNoPermission = 4;  // profiling counters not permitted
inline constexpr int kExitAppFailed = 5;     // the profiled application failed: what was seen is written, incomplete
}  // namespace warpmodel::cli
