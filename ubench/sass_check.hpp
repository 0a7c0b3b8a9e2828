// The SASS check: for each declared kernel, take its timed region (the instructions between its
// two reads of SR_CLOCKLO, or the whole kernel for event-timed kernels) and verify that it holds
// the declared instruction exactly the declared number of times and nothing else beyond what the
// declaration tolerates. Parsing the listing and running cuobjdump are profiles/sass's
// (warpmodel::sass::parse_sass_listing, sass::dump_sass); only the check is here. Plain C++.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "registry.hpp"
#include "warpmodel/sass/listing.hpp"

namespace warpmodel::ubench {

// Kernel name -> its instructions in order (the first listing of each name).
using SassListing = std::map<std::string, std::vector<sass::Instruction>>;

// parse_sass_listing of a `cuobjdump -sass` (or nvdisasm) listing, indexed by kernel name.
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

}  // namespace warpmodel::ubench
