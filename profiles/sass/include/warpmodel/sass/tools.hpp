// Running the CUDA binary tools on a project binary (an executable, a static library .a, an
// object .o or a .cubin): extract every cubin (`cuobjdump -xelf all`, in a temporary folder), then
// per cubin `cuobjdump -sass`, `cuobjdump -res-usage`, `cuobjdump -elf` (the .nv.info sections:
// __launch_bounds__, .reqntid) and `nvdisasm -bbcfg -poff`, and analyse.
//
// The tools are found in this order: PATH, /usr/local/cuda/bin, and the folder CMake found at
// configure time (the PyPI wheels nvidia-cuda-cuobjdump / nvidia-cuda-nvdisasm that
// scripts/setup.sh installs). $WARPMODEL_CUOBJDUMP / $WARPMODEL_NVDISASM, when set, name the tool
// and nothing else is tried (a wrong path is reported, not replaced). Each tool runs under a time
// limit (`timeout`). Without nvdisasm the basic blocks come from the leader rule (with a warning).
// With $WARPMODEL_SASS_CACHE naming a folder, each cubin's tool output is kept there, keyed by the
// cubin's contents and the tools, and reused by later analyses of the same cubin (the tests set it).
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "warpmodel/sass/analysis.hpp"

namespace warpmodel::sass {

// A required tool is missing: the message names it and the pip package that provides it.
class ToolMissing : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
// The input cannot be analysed (not readable, no device code, a tool failed): one line saying why.
class AnalysisError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::optional<std::string> find_cuobjdump();
std::optional<std::string> find_nvdisasm();

// The raw tool output for one cubin, kept so it can be written out as fixtures.
struct CubinDump {
  std::string cubin;      // file name as cuobjdump extracted it: "warpmodel.1.sm_90.cubin"
  std::string sass;       // cuobjdump -sass
  std::string res_usage;  // cuobjdump -res-usage
  std::string cfg_dot;    // nvdisasm -bbcfg -poff (empty without nvdisasm)
  std::string nv_info;    // the .nv.info sections of cuobjdump -elf (nv_info_sections)
};

struct BinaryAnalysis {
  std::string binary;
  std::vector<CubinDump> dumps;
  std::vector<KernelStatics> kernels;  // every kernel of every cubin, in order
  // Kernels the binary holds as PTX only (`.entry` names of `cuobjdump -ptx` with no cubin
  // function): the driver JIT-compiles them, so their SASS exists only at run time.
  std::vector<std::string> ptx_only_kernels;
  std::vector<std::string> warnings;   // e.g. "nvdisasm not found: basic blocks from branch targets"
};

// Throws ToolMissing when cuobjdump is missing, AnalysisError when `binary` cannot be read or
// holds no cubin. `timeout_seconds` bounds each tool run.
BinaryAnalysis analyse_binary(const std::string& binary, int timeout_seconds = 120);

// Every .cubin file of a folder (the PREFIX.cubins folder `warpmodel profile -- APP` keeps: the
// cubins of every module the application loaded, its libraries' and JIT-compiled PTX included),
// in numeric order of their names. Throws ToolMissing, or AnalysisError when the folder is not
// readable or holds no cubin.
BinaryAnalysis analyse_cubin_folder(const std::string& folder, int timeout_seconds = 120);

// `cuobjdump -sass BINARY` of a whole file (every cubin it embeds, one listing), for checks that
// only need the instructions (ubench's SASS check of its own program). Throws ToolMissing when
// cuobjdump is missing, AnalysisError when the file cannot be read or the tool fails.
std::string dump_sass(const std::string& binary, int timeout_seconds = 120);

// Analyses dumps made earlier (fixtures, or text from another machine).
std::vector<KernelStatics> analyse_dump(const CubinDump& dump);

}  // namespace warpmodel::sass
