// make_workload (workload_factory.hpp).
#include "warpmodel/cupti/workload_factory.hpp"

#include <stdexcept>

#include "warpmodel/cupti/builtin_workloads.hpp"
#ifdef WARPMODEL_HAVE_STENCIL_WORKLOAD
#include "stencil_workload.hpp"
#endif
#ifdef WARPMODEL_HAVE_ADI_WORKLOAD
#include "adi_workload.hpp"
#endif
#ifdef WARPMODEL_HAVE_CORPUS_WORKLOAD
#include "corpus_workload.hpp"
#endif
#ifdef WARPMODEL_HAVE_FWI_WORKLOAD
#include "fwi_workload.hpp"
#endif

namespace warpmodel::cupti {

std::vector<long long> parse_extent(const std::string& text, const char* what) {
  std::vector<long long> v;
  std::size_t start = 0;
  while (true) {
    const auto x = text.find('x', start);
    const std::string part = text.substr(start, x == std::string::npos ? std::string::npos : x - start);
    std::size_t used = 0;
    long long value = 0;
    try {
      value = std::stoll(part, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (part.empty() || used != part.size() || value <= 0)
      throw std::invalid_argument(std::string(what) + " '" + text + "' is not a positive integer or AxB[xC]");
    v.push_back(value);
    if (x == std::string::npos) break;
    start = x + 1;
  }
  if (v.size() > 3) throw std::invalid_argument(std::string(what) + " '" + text + "' has more than three extents");
  while (v.size() < 3) v.push_back(1);
  return v;
}

std::vector<std::string> expand_choice(const std::string& text, const std::vector<std::string>& all,
                                       const std::string& fallback) {
  if (text.empty()) return {fallback};
  if (text == "all") return all;
  std::vector<std::string> v;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!item.empty()) v.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return v;
}

std::vector<std::string> workload_kinds() {
  std::vector<std::string> k = {"copy", "saxpy", "barrier"};
#ifdef WARPMODEL_HAVE_STENCIL_WORKLOAD
  k.push_back("stencil");
#endif
#ifdef WARPMODEL_HAVE_ADI_WORKLOAD
  k.push_back("adi");
#endif
#ifdef WARPMODEL_HAVE_CORPUS_WORKLOAD
  k.push_back("corpus");
#endif
#ifdef WARPMODEL_HAVE_FWI_WORKLOAD
  k.push_back("fwi");
#endif
  return k;
}

std::unique_ptr<Workload> make_workload(const WorkloadRequest& r) {
  auto one_d = [&](long long default_size, int default_block, long long& n, int& block) {
    n = r.size.empty() ? default_size : parse_extent(r.size, "--size")[0];
    block = r.block.empty() ? default_block : static_cast<int>(parse_extent(r.block, "--block")[0]);
  };
  long long n = 0;
  int block = 0;
  if (r.kernel == "copy") {
    one_d(64LL << 20, 256, n, block);
    return make_copy_workload(n, block, r.copies);
  }
  if (r.kernel == "saxpy") {
    one_d(64LL << 20, 256, n, block);
    return make_saxpy_workload(n, block);
  }
  if (r.kernel == "barrier") {
    one_d(16LL << 20, 256, n, block);
    return make_barrier_workload(n, block, r.barriers);
  }
#ifdef WARPMODEL_HAVE_STENCIL_WORKLOAD
  if (r.kernel == "stencil") return make_stencil_workload(r);
#endif
#ifdef WARPMODEL_HAVE_ADI_WORKLOAD
  if (r.kernel == "adi") return make_adi_workload(r);
#endif
#ifdef WARPMODEL_HAVE_CORPUS_WORKLOAD
  if (r.kernel == "corpus") return make_corpus_request_workload(r);
#endif
#ifdef WARPMODEL_HAVE_FWI_WORKLOAD
  if (r.kernel == "fwi") return make_fwi_workload(r);
#endif
  std::string known;
  for (const auto& k : workload_kinds()) known += (known.empty() ? "" : ", ") + k;
  throw std::invalid_argument("unknown --kernel '" + r.kernel + "'; this build has: " + known);
}

}  // namespace warpmodel::cupti
