#include "sass_check.hpp"

#include <regex>
#include <sstream>

namespace warpmodel::ubench {
namespace {

bool is_clock_read(const sass::Instruction& i) {
  for (const auto& o : i.operands)
    if (o.find("SR_CLOCKLO") != std::string::npos) return true;
  return false;
}

}  // namespace

SassListing parse_sass(const std::string& text) {
  SassListing out;
  for (auto& k : sass::parse_sass_listing(text)) out.emplace(k.name, std::move(k.instructions));
  return out;
}

SassVerdict check_declaration(const Declaration& d, const SassListing& listing) {
  // An energy row runs another row's kernel: that row's check is its check.
  if (const auto* e = std::get_if<EnergyOf>(&d.variant)) {
    const Declaration* target = find_declaration(e->of);
    if (!target) {
      SassVerdict v;
      v.benchmark = d.name;
      v.reason = "runs the kernel of " + e->of + ", which is not declared";
      return v;
    }
    SassVerdict v = check_declaration(*target, listing);
    v.benchmark = d.name;
    v.reason = "the kernel of " + e->of + ": " + v.reason;
    return v;
  }
  SassVerdict v;
  v.benchmark = d.name;
  v.expected = d.sass_count;
  if (d.sass_region == SassRegion::library) {  // a library's kernels (cuBLASLt): not in this program's SASS
    v.valid = true;
    v.reason = "library kernels (" + d.kernel + "): not this program's code, not checked";
    return v;
  }
  const auto it = listing.find(d.kernel);
  if (it == listing.end()) {
    v.reason = "kernel " + d.kernel + " not found in the SASS listing";
    return v;
  }
  const auto& ins = it->second;
  std::size_t first = 0, last = ins.size();  // the region: [first, last)
  if (d.sass_region == SassRegion::between_clock_reads) {
    std::vector<std::size_t> clocks;
    for (std::size_t i = 0; i < ins.size(); ++i)
      if (is_clock_read(ins[i])) clocks.push_back(i);
    if (clocks.size() != 2) {
      v.reason = "expected 2 clock reads in " + d.kernel + ", found " + std::to_string(clocks.size());
      return v;
    }
    first = clocks[0] + 1;
    last = clocks[1];
  }
  const std::regex want(d.sass_regex.empty() ? std::string("$^") : d.sass_regex);
  const std::regex allowed(d.allowed_regex.empty() ? std::string("NOP") : "NOP|" + d.allowed_regex);
  const std::regex also(d.also_regex.empty() ? std::string("$^") : d.also_regex);
  std::map<std::string, int> unexpected;
  int also_found = 0;
  for (std::size_t i = first; i < last; ++i) {
    const auto& op = ins[i].opcode;  // modifiers included, guard predicate not
    ++v.region[op];
    if (!d.also_regex.empty() && std::regex_match(op, also)) ++also_found;
    if (!d.sass_regex.empty() && std::regex_match(op, want)) ++v.found;
    else if (!std::regex_match(op, allowed)) ++unexpected[op];
  }
  std::ostringstream why;
  if (v.found != v.expected)
    why << "timed region holds " << v.found << " x " << (d.sass_regex.empty() ? "(nothing)" : d.sass_regex)
        << ", declared " << v.expected;
  if (!d.also_regex.empty() && also_found != d.also_count) {
    if (why.tellp() > 0) why << "; ";
    why << "timed region holds " << also_found << " x " << d.also_regex << ", declared " << d.also_count;
  }
  if (!unexpected.empty()) {
    if (why.tellp() > 0) why << "; ";
    why << "unexpected instructions in the timed region:";
    for (const auto& [op, n] : unexpected) why << " " << op << " x" << n;
  }
  v.valid = why.tellp() == 0;
  if (v.valid) {
    std::ostringstream ok;
    ok << v.found << " x " << (d.sass_regex.empty() ? "(empty region)" : d.sass_regex);
    if (!d.also_regex.empty()) ok << " and " << also_found << " x " << d.also_regex;
    if (d.sass_region == SassRegion::whole_kernel) ok << " (whole kernel)";
    v.reason = ok.str();
  } else {
    v.reason = why.str();
  }
  return v;
}

std::vector<SassVerdict> check_all(const SassListing& listing) {
  std::vector<SassVerdict> out;
  for (const auto& d : declarations()) out.push_back(check_declaration(d, listing));
  return out;
}

}  // namespace warpmodel::ubench
