// The SASS check: parse a `cuobjdump -sass` (or `nvdisasm`) listing, find each declared kernel,
// take its timed region (the instructions between its first two reads of SR_CLOCKLO) and verify
// that it holds the declared instruction exactly the declared number of times and nothing else
// beyond what the declaration tolerates. Plain C++; tested on committed fixtures.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "registry.hpp"

namespace warpmodel::ubench {

struct SassInstruction {
  std::string predicate;  // "@P0", "@!PT", or ""
  std::string opcode;     // with modifiers: "LDG.E.64.STRONG.GPU"
  std::string operands;
};

// Kernel name -> its instructions in order.
using SassListing = std::map<std::string, std::vector<SassInstruction>>;

SassListing parse_sass(const std::string& text);

struct SassVerdict {
  std::string benchmark;
  bool valid = false;
  int found = 0;     // matches of the declared instruction in the region
  int expected = 0;
  std::string reason;  // why invalid, or a short summary when valid
  std::map<std::string, int> region;  // opcode histogram of the timed region
};

SassVerdict check_declaration(const Declaration& d, const SassListing& listing);
std::vector<SassVerdict> check_all(const SassListing& listing);

// Finds cuobjdump: $WARPMODEL_CUOBJDUMP, PATH, /usr/local/cuda/bin, the PyPI wheel's folder.
std::optional<std::string> find_cuobjdump();
// Runs `cuobjdump -sass FILE`; nullopt when the tool is missing or fails.
std::optional<std::string> dump_sass(const std::string& binary, std::string* error = nullptr);

}  // namespace warpmodel::ubench
