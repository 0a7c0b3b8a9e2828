// Stage lines for commands that run longer than a few seconds ("warpmodel validate: fitting ..."),
// on standard error and only when it is a terminal (or WARPMODEL_PROGRESS=1): a script or a test
// reading standard error sees what it saw before, and a refusal stays one line.
#pragma once

#include <string>

namespace warpmodel::support {

// Whether stage lines are printed: standard error is a terminal, or WARPMODEL_PROGRESS=1.
bool progress_enabled();

// "warpmodel <command>: <stage>" on standard error when progress_enabled().
void progress(const std::string& command, const std::string& stage);

}  // namespace warpmodel::support
