// The --model option of predict, sweep and predict-app: one default and one help text, so that every
// subcommand lists every variant, marks the default and says why it is the default.
#pragma once

#include <string>

namespace warpmodel::cli {

// hopper is the default: it is the most accurate variant on every held-out evaluation of the
// committed validation sweeps (docs/validation.md). It needs a device profile that `characterize`
// measured; the thesis's printed K40 profile feeds only the three earlier variants.
inline constexpr const char* kDefaultModel = "hopper";

inline std::string model_option_help(bool with_all) {
  std::string help =
      "hopper (default: the most accurate on every held-out evaluation; needs a device profile measured by "
      "`characterize`), thesis-2016 (the thesis's MWP-CWP; also runs on printed inputs such as the K40's), "
      "gpuperf-2012, hong-kim-2009";
  return help + (with_all ? ", or all (every variant side by side)" : "");
}

}  // namespace warpmodel::cli
