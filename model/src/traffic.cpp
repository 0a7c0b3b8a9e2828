#include "warpmodel/traffic.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>

#include "warpmodel/hopper_equations.hpp"
#include "warpmodel/occupancy.hpp"
#include "warpmodel/report.hpp"
#include "warpmodel/sweep.hpp"

namespace warpmodel {

namespace {

__extension__ typedef __int128 WideSigned;
constexpr int kWarpSize = 32;
constexpr int kSectorBytes = 32;

long long component(const Dim3& d, char axis) { return axis == 'x' ? d.x : axis == 'y' ? d.y : d.z; }

double weight_of(const MemoryAccess& a, double loop_trip) { return std::pow(loop_trip, a.loop_depth); }

bool is_load(const MemoryAccess& a) { return a.kind == AccessKind::load; }

// Whether a symbol's text (a floor's included) names the index `name` ("tid." or "ctaid."), not
// the launch extents "ntid." or "nctaid." that hold it as a suffix.
bool mentions_index(const std::string& symbol, const std::string& name) {
  for (std::size_t at = symbol.find(name); at != std::string::npos; at = symbol.find(name, at + 1))
    if (at == 0 || symbol[at - 1] != 'n') return true;
  return false;
}

template <class Predicate>
bool any_symbol(const AddressPolynomial& address, Predicate p) {
  for (const AddressTerm& t : address)
    for (const std::string& s : t.symbols)
      if (p(s)) return true;
  return false;
}

// Whether the address holds a value the analysis did not follow ("u:..."), other than, with
// `loop_counters_allowed`, one joined at a block head ("u:j...": a loop counter).
bool holds_unfollowed_value(const AddressPolynomial& address, bool loop_counters_allowed) {
  return any_symbol(address, [&](const std::string& s) {
    for (std::size_t at = s.find("u:"); at != std::string::npos; at = s.find("u:", at + 1))
      if (!loop_counters_allowed || at + 2 >= s.size() || s[at + 2] != 'j') return true;
    return false;
  });
}

int warps_per_block(const LaunchConfig& l) {
  return static_cast<int>(std::max<long long>(1, (l.block.count() + kWarpSize - 1) / kWarpSize));
}

// "floor((P)/D)": the floor division the address analysis writes for a shift right or a mask of a
// non-negative index (tid / 32, tid % 32 in a tiled kernel), or "floor((P)/(Q))" for a division by a
// value known only at run time (t / blockDim.y: ptxas's reciprocal idiom). Splits it into P's text
// and D, or Q's text (D = 0).
bool split_floor(const std::string& symbol, std::string& inner, long long& divisor, std::string& divisor_text) {
  if (symbol.rfind("floor((", 0) != 0 || symbol.back() != ')') return false;
  // P ends at the parenthesis that closes the one at index 6 (P and Q may hold floors of their own).
  std::size_t slash = std::string::npos;
  for (std::size_t at = 6, depth = 0; at < symbol.size(); ++at) {
    if (symbol[at] == '(') ++depth;
    if (symbol[at] == ')' && --depth == 0) {
      slash = at;
      break;
    }
  }
  if (slash == std::string::npos || slash + 1 >= symbol.size() || symbol[slash + 1] != '/') return false;
  inner = symbol.substr(7, slash - 7);
  const std::string d = symbol.substr(slash + 2, symbol.size() - slash - 3);
  divisor = 0;
  divisor_text.clear();
  if (!d.empty() && d.front() == '(' && d.back() == ')') {
    divisor_text = d.substr(1, d.size() - 2);
    return !divisor_text.empty();
  }
  divisor = std::stoll(d);
  return divisor > 0;
}

// "ld(P)": the word a load reads at the address P that a warp's lanes share (the SASS address
// analysis writes it for a CSR row's start in a warp-per-row kernel). Splits off P's text.
bool split_loaded(const std::string& symbol, std::string& inner) {
  if (symbol.rfind("ld(", 0) != 0 || symbol.back() != ')') return false;
  inner = symbol.substr(3, symbol.size() - 4);
  return !inner.empty();
}

// What "ld(P)" evaluates to in a lane: P's value times this, so that lanes reading the same word
// share a value and lanes reading other words land at least this far apart (1 MiB per byte of
// address: other lines, other DRAM rows), and any value is a multiple of a line.
constexpr long long kLoadedWordSpread = 1LL << 20;

// format_address's text back into a polynomial ("4*tid.x + 4*param:0x22c*tid.y - 4"; symbols may
// be floors, whose parentheses hold their own + and *).
AddressPolynomial parse_polynomial(const std::string& text) {
  AddressPolynomial out;
  std::vector<std::pair<long long, std::string>> parts;  // sign, term text
  int depth = 0;
  long long sign = 1;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    const bool end = i == text.size();
    if (!end && text[i] == '(') ++depth;
    if (!end && text[i] == ')') --depth;
    if (end || (depth == 0 && i > 0 && text[i] == ' ' && i + 2 < text.size() && (text[i + 1] == '+' || text[i + 1] == '-') &&
                text[i + 2] == ' ')) {
      std::string term = text.substr(start, i - start);
      long long term_sign = sign;
      if (!term.empty() && term[0] == '-') {
        term_sign = -term_sign;
        term = term.substr(1);
      }
      parts.emplace_back(term_sign, term);
      if (end) break;
      sign = text[i + 1] == '-' ? -1 : 1;
      start = i + 3;
      i += 2;
    }
  }
  for (const auto& [term_sign, term] : parts) {
    AddressTerm t{term_sign, {}};
    std::size_t from = 0;
    int d = 0;
    for (std::size_t i = 0; i <= term.size(); ++i) {
      if (i < term.size() && term[i] == '(') ++d;
      if (i < term.size() && term[i] == ')') --d;
      if (i == term.size() || (d == 0 && term[i] == '*')) {
        const std::string factor = term.substr(from, i - from);
        if (!factor.empty() && (std::isdigit(static_cast<unsigned char>(factor[0])) != 0)) {
          if (__builtin_mul_overflow(t.coefficient, std::stoll(factor), &t.coefficient))
            throw std::out_of_range("the coefficient " + factor + " overflows");
        }
        else if (!factor.empty())
          t.symbols.push_back(factor);
        from = i + 1;
      }
    }
    std::sort(t.symbols.begin(), t.symbols.end());
    out.push_back(std::move(t));
  }
  return out;
}

// The symbols of every regular access, each with an index into a per-thread value table: evaluating
// a block's addresses then needs no string lookups.
struct CompiledAccess {
  const MemoryAccess* access;
  std::vector<std::pair<long long, std::vector<int>>> terms;  // coefficient, symbol indices
};

struct CompiledFloor {
  int id;  // the floor symbol's index
  std::vector<std::pair<long long, std::vector<int>>> terms;
  long long divisor;  // 0: divisor_terms; -1: a loaded word, "ld(P)" (terms: P)
  std::vector<std::pair<long long, std::vector<int>>> divisor_terms;
};

struct CompiledPatterns {
  std::vector<std::string> symbols;
  std::vector<int> thread_symbols;  // indices of tid.x/y/z (the only ones that vary inside a block)
  std::vector<int> block_symbols;   // indices of ctaid.x/y/z
  std::vector<CompiledFloor> floors;  // inner ones first: recomputed per thread, in this order
  std::vector<CompiledAccess> accesses;
};

class Compiler {
 public:
  CompiledPatterns c;

  std::vector<std::pair<long long, std::vector<int>>> terms(const AddressPolynomial& p) {
    std::vector<std::pair<long long, std::vector<int>>> out;
    for (const AddressTerm& t : p) {
      std::vector<int> ids;
      for (const std::string& s : t.symbols) ids.push_back(intern(s));
      out.emplace_back(t.coefficient, std::move(ids));
    }
    return out;
  }

 private:
  std::map<std::string, int> index_;

  int intern(const std::string& s) {
    if (auto it = index_.find(s); it != index_.end()) return it->second;
    std::string inner, divisor_text;
    long long divisor = 0;
    std::vector<std::pair<long long, std::vector<int>>> inner_terms, divisor_terms;
    const bool is_loaded = split_loaded(s, inner);
    const bool is_floor = is_loaded || split_floor(s, inner, divisor, divisor_text);
    if (is_loaded) divisor = -1;
    if (is_floor) inner_terms = terms(parse_polynomial(inner));  // its symbols first
    if (is_floor && !divisor_text.empty()) divisor_terms = terms(parse_polynomial(divisor_text));
    const int id = static_cast<int>(c.symbols.size());
    index_.emplace(s, id);
    c.symbols.push_back(s);
    if (s.rfind("tid.", 0) == 0) c.thread_symbols.push_back(id);
    if (s.rfind("ctaid.", 0) == 0) c.block_symbols.push_back(id);
    if (is_floor) c.floors.push_back({id, std::move(inner_terms), divisor, std::move(divisor_terms)});
    return id;
  }
};

CompiledPatterns compile(const AccessPatterns& patterns) {
  Compiler compiler;
  for (const MemoryAccess& a : patterns.accesses)
    if (a.address) compiler.c.accesses.push_back({&a, compiler.terms(*a.address)});
  return std::move(compiler.c);
}

WideAddress sum_terms(const std::vector<std::pair<long long, std::vector<int>>>& terms,
                      const std::vector<WideAddress>& values) {
  WideAddress sum = 0;
  for (const auto& [coefficient, ids] : terms) {
    WideAddress term = static_cast<WideAddress>(static_cast<WideSigned>(coefficient));
    for (int id : ids) term *= values[id];
    sum += term;
  }
  return sum;
}

WideAddress floor_divide(WideAddress value, WideSigned divisor) {
  if (divisor <= 0) return 0;  // a run-time divisor of 0: ptxas's zero-divisor result is not an index
  const WideSigned v = static_cast<WideSigned>(value);
  WideSigned q = v / divisor;
  if (v % divisor != 0 && v < 0) --q;
  return static_cast<WideAddress>(q);
}

// The floors after the thread or block indices changed, inner ones first.
void update_floors(const CompiledPatterns& c, std::vector<WideAddress>& values) {
  for (const CompiledFloor& f : c.floors) {
    if (f.divisor < 0) {  // "ld(P)"
      values[f.id] = sum_terms(f.terms, values) * static_cast<WideAddress>(kLoadedWordSpread);
      continue;
    }
    const WideSigned divisor =
        f.divisor > 0 ? f.divisor : static_cast<WideSigned>(sum_terms(f.divisor_terms, values));
    values[f.id] = floor_divide(sum_terms(f.terms, values), divisor);
  }
}

WideAddress evaluate(const CompiledAccess& a, const std::vector<WideAddress>& values) { return sum_terms(a.terms, values); }

// The threads of one block, warp by warp (lanes past the block's end are absent).
std::vector<std::vector<Dim3>> warps_of_block(const Dim3& block) {
  const long long threads = block.count();
  std::vector<std::vector<Dim3>> warps;
  for (long long first = 0; first < threads; first += kWarpSize) {
    std::vector<Dim3> lanes;
    for (long long linear = first; linear < std::min(threads, first + kWarpSize); ++linear)
      lanes.push_back({linear % block.x, (linear / block.x) % block.y, linear / (block.x * block.y)});
    warps.push_back(std::move(lanes));
  }
  return warps;
}

}  // namespace

std::string format_address(const std::optional<AddressPolynomial>& address) {
  if (!address) return "irregular";
  if (address->empty()) return "0";
  std::string out;
  for (const AddressTerm& t : *address) {
    const bool negative = t.coefficient < 0;
    const long long magnitude = negative ? -t.coefficient : t.coefficient;
    out += out.empty() ? (negative ? "-" : "") : (negative ? " - " : " + ");
    std::string product;
    for (const std::string& s : t.symbols) product += (product.empty() ? "" : "*") + s;
    if (product.empty()) out += std::to_string(magnitude);
    else out += (magnitude == 1 ? "" : std::to_string(magnitude) + "*") + product;
  }
  return out;
}

unsigned long long symbol_value(const std::string& symbol, const Dim3& thread, const LaunchConfig& launch) {
  auto axis = [&]() { return symbol.back(); };
  if (symbol.rfind("tid.", 0) == 0) return static_cast<unsigned long long>(component(thread, axis()));
  if (symbol.rfind("ntid.", 0) == 0) return static_cast<unsigned long long>(component(launch.block, axis()));
  if (symbol.rfind("nctaid.", 0) == 0) return static_cast<unsigned long long>(component(launch.grid, axis()));
  if (symbol.rfind("ctaid.", 0) == 0) return 0;
  if (symbol.rfind("param:", 0) == 0) {
    const unsigned long long word = std::stoull(symbol.substr(6), nullptr, 0) / 4;
    return (1ULL << 40) + (word << 32);
  }
  return 0;  // "u:" symbols (uniform values the analysis does not follow); floors and "ld(P)" by update_floors
}

std::string address_symbols_problem(const AddressPolynomial& address) {
  try {
    Compiler compiler;
    (void)compiler.terms(address);  // parses every floor, recursively
    for (const std::string& symbol : compiler.c.symbols) (void)symbol_value(symbol, {0, 0, 0}, LaunchConfig{});
  } catch (const std::invalid_argument&) {  // std::stoll's, std::stoull's
    return "expected symbols the traffic model reads (tid.x, ntid.y, ctaid.z, param:0x160, u:..., floor((P)/D)): "
           "text stands where a number belongs";
  } catch (const std::out_of_range&) {
    return "expected an address the traffic model can evaluate: a number in it, or a product of its coefficients, "
           "is beyond 64 bits";
  }
  return "";
}

WideAddress evaluate_address(const AddressPolynomial& address, const Dim3& thread, const LaunchConfig& launch) {
  Compiler compiler;
  const auto terms = compiler.terms(address);
  std::vector<WideAddress> values(compiler.c.symbols.size());
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = symbol_value(compiler.c.symbols[i], thread, launch);
  update_floors(compiler.c, values);
  return sum_terms(terms, values);
}

SmResidency sm_residency(const DeviceProfile& device, const LaunchConfig& launch) {
  SmResidency r;
  r.sm_count = std::max(1, device.sm_count);
  const BlockResources resources{static_cast<int>(launch.block.count()), launch.registers_per_thread,
                                 launch.shared_memory_per_block_bytes};
  const long long fit = max_blocks_per_sm(device.limits, resources).blocks_per_sm;
  const long long share = (launch.grid.count() + r.sm_count - 1) / r.sm_count;
  r.blocks_per_sm = std::max(1LL, std::min(fit, share));
  return r;
}

namespace {
// Visits one request's sectors line by line: visit(the line's first and past-the-last elements, its
// sectors). The container is ordered by sector, so a 128-byte line's sectors (1 to 4 of them) are
// neighbours.
template <class Ordered, class SectorOf, class Visit>
void for_each_line(const Ordered& sectors, SectorOf sector_of, Visit visit) {
  for (auto it = sectors.begin(); it != sectors.end();) {
    const auto first = it;
    const WideAddress line = sector_of(*it) / 4;
    int n = 0;
    for (; it != sectors.end() && sector_of(*it) / 4 == line; ++it) ++n;
    visit(first, it, n);
  }
}
}  // namespace

ShapeTraffic shape_traffic(const AccessPatterns& patterns, const LaunchConfig& launch, double loop_trip,
                           SmResidency residency) {
  ShapeTraffic out;
  for (const MemoryAccess& a : patterns.accesses) {
    if (a.address) continue;
    (is_load(a) ? out.irregular_load_weight : out.irregular_store_weight) += weight_of(a, loop_trip);
  }
  const CompiledPatterns compiled = compile(patterns);
  if (compiled.accesses.empty()) return out;

  // Every symbol's value at thread (0,0,0) of block 0; the thread and block indices change below.
  std::vector<WideAddress> values(compiled.symbols.size());
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = symbol_value(compiled.symbols[i], {0, 0, 0}, launch);
  const std::vector<std::vector<Dim3>> warps = warps_of_block(launch.block);
  // The blocks SM 0 holds: 0, sm_count, 2 sm_count, ... (x fastest in the block index).
  std::vector<Dim3> blocks;
  const Dim3& g = launch.grid;
  for (long long j = 0; j < residency.blocks_per_sm; ++j) {
    const long long linear = j * residency.sm_count;
    if (linear >= g.count()) break;
    blocks.push_back({linear % g.x, (linear / g.x) % g.y, linear / (g.x * g.y)});
  }
  if (blocks.empty()) blocks.push_back({0, 0, 0});

  double load_sectors = 0, store_sectors = 0, hit_sectors = 0, weighted_load_sectors = 0;
  double per_block_loads = 0, per_block_load_sectors = 0, per_block_store_sectors = 0;
  double all_store_sectors = 0;  // with the per-block stores at their dynamic weight
  std::set<WideAddress> seen;  // sectors the resident blocks' earlier loads touched
  for (const CompiledAccess& ca : compiled.accesses) {
    const MemoryAccess& a = *ca.access;
    const double w = weight_of(a, loop_trip);
    long long sectors_sum = 0, hits = 0, requests = 0;
    long long by_fill[4] = {0, 0, 0, 0};  // load sectors whose line held 1..4 of the request's sectors
    long long lone_by_bytes[4] = {0, 0, 0, 0};  // store sectors alone in their line, by bytes written
    // A per-block sweep inside a loop (every block reading the same range) is evaluated at its first
    // trip only, where it may alias what a load outside the loop read (an n-body tile's first bodies
    // are block 0's own); its reuse is the other resident blocks' same trip, so it counts hits
    // against its own earlier sectors only.
    const bool per_block = is_per_block_access(a);
    const bool own_reuse_only = a.loop_depth > 0 && per_block;
    std::set<WideAddress> own_seen;
    for (const Dim3& block : blocks) {
      for (int id : compiled.block_symbols)
        values[id] = static_cast<WideAddress>(component(block, compiled.symbols[id].back()));
      for (const auto& lanes : warps) {
        std::set<WideAddress> warp_sectors;
        std::map<WideAddress, long long> bytes_in_sector;  // stores: the bytes the request writes in each
        for (const Dim3& t : lanes) {
          for (int id : compiled.thread_symbols)
            values[id] = static_cast<WideAddress>(component(t, compiled.symbols[id].back()));
          update_floors(compiled, values);
          const WideAddress first = evaluate(ca, values);
          const WideAddress last = first + static_cast<WideAddress>(std::max(1, a.bytes_per_thread) - 1);
          for (WideAddress s = first / kSectorBytes; s <= last / kSectorBytes; ++s) {
            warp_sectors.insert(s);
            if (a.kind == AccessKind::store)
              bytes_in_sector[s] += static_cast<long long>(std::min(last, (s + 1) * kSectorBytes - 1) -
                                                           std::max(first, s * kSectorBytes) + 1);
          }
        }
        ++requests;
        sectors_sum += static_cast<long long>(warp_sectors.size());
        // H.8c, H.8g: the store sectors at a lone sector's rate, by the bytes written in them (up to
        // 4, 8, 16, 32).
        if (a.kind == AccessKind::store)
          for_each_line(bytes_in_sector, [](const auto& entry) { return entry.first; },
                        [&](auto first, auto last, int n) {
                          for (; first != last; ++first)
                            if (hopper_eq::store_sector_at_lone_rate(n, first->second))
                              ++lone_by_bytes[hopper_eq::lone_store_fill_index(first->second)];
                        });
        if (!is_load(a)) continue;
        for_each_line(warp_sectors, [](WideAddress sector) { return sector; },
                      [&](auto, auto, int n) { by_fill[n - 1] += n; });
        const std::set<WideAddress>& reused = own_reuse_only ? own_seen : seen;
        for (const WideAddress s : warp_sectors) hits += static_cast<long long>(reused.count(s));
        if (own_reuse_only) own_seen.insert(warp_sectors.begin(), warp_sectors.end());
        // Later warps of the same instruction reuse them too. (Counting only earlier instructions'
        // sectors, as if warps of one instruction missed together, matched the H200 sweep's L1 hit
        // rates less often: 83 % of launches within 5 points against 85 %.)
        seen.insert(warp_sectors.begin(), warp_sectors.end());
      }
    }
    const double per_request = static_cast<double>(sectors_sum) / static_cast<double>(requests);
    if (is_load(a)) {
      out.regular_load_weight += w;
      load_sectors += w * per_request;
      if (per_block) {
        per_block_loads += w;
        per_block_load_sectors += w * per_request;
      }
      weighted_load_sectors += w * static_cast<double>(sectors_sum);
      hit_sectors += w * static_cast<double>(hits);
      for (int k = 0; k < 4; ++k) out.load_sectors_by_line_fill[k] += w * static_cast<double>(by_fill[k]);
    } else {
      out.regular_store_weight += w;
      store_sectors += w * per_request;
      for (int k = 0; k < 4; ++k)
        out.store_lone_sectors_by_fill[k] += w * static_cast<double>(lone_by_bytes[k]) / static_cast<double>(requests);
      // A store outside loops that one thread of a block writes: 1 / warps per block of a warp.
      const double dynamic = per_block && a.loop_depth == 0 ? w / warps_per_block(launch) : w;
      all_store_sectors += dynamic * per_request;
      if (per_block) per_block_store_sectors += dynamic * per_request;
    }
  }
  // The irregular loads at the regular ones' mean sectors; irregular stores at one sector.
  const double mean_load_sectors = out.regular_load_weight > 0 ? load_sectors / out.regular_load_weight : 0;
  const double all_loads = out.regular_load_weight + out.irregular_load_weight;
  const double all_load_sectors = load_sectors + out.irregular_load_weight * mean_load_sectors;
  if (all_loads > 0) out.per_block_load_share = per_block_loads / all_loads;
  if (all_load_sectors > 0) out.per_block_load_sector_share = per_block_load_sectors / all_load_sectors;
  all_store_sectors += out.irregular_store_weight;
  if (all_store_sectors > 0) out.per_block_store_sector_share = per_block_store_sectors / all_store_sectors;
  double atomics = 0, per_block_atomics = 0;
  for (const MemoryAccess& a : patterns.accesses) {
    if (a.kind != AccessKind::atomic) continue;
    atomics += weight_of(a, loop_trip);
    if (is_per_block_access(a)) per_block_atomics += weight_of(a, loop_trip);
  }
  if (atomics > 0) out.per_block_atomic_share = per_block_atomics / atomics;
  if (out.regular_load_weight > 0) out.load_sectors_per_request = load_sectors / out.regular_load_weight;
  if (out.regular_store_weight > 0) {
    out.store_sectors_per_request = store_sectors / out.regular_store_weight;
    for (double& lone : out.store_lone_sectors_by_fill) lone /= out.regular_store_weight;
  }
  if (weighted_load_sectors > 0) {
    out.load_l1_hit_rate = hit_sectors / weighted_load_sectors;
    for (double& share : out.load_sectors_by_line_fill) share /= weighted_load_sectors;
  }
  return out;
}

namespace {
// The loop-weighted share of the loads that satisfy `selected` (weights: weight_of at the trip count
// that makes the loads' weights sum to the measured loads per warp).
template <class Selected>
double weighted_load_share(const AccessPatterns& patterns, double global_load_inst_per_warp, Selected selected) {
  const double trip = loop_trip_factor(patterns, global_load_inst_per_warp);
  double chosen = 0, all = 0;
  for (const MemoryAccess& a : patterns.accesses) {
    if (!is_load(a)) continue;
    all += weight_of(a, trip);
    if (selected(a)) chosen += weight_of(a, trip);
  }
  return all > 0 ? chosen / all : 0;
}
}  // namespace

double gather_load_sector_share(const AccessPatterns& patterns, double global_load_inst_per_warp,
                                double transactions_per_request) {
  constexpr double kScatteredSectors = 32;
  const double gathered = weighted_load_share(patterns, global_load_inst_per_warp, is_gather);
  if (!(gathered > 0) || !(transactions_per_request > 0)) return 0;
  return std::min(1.0, gathered * kScatteredSectors / transactions_per_request);
}

bool is_per_block_access(const MemoryAccess& a) {
  if (!a.address) return false;
  const bool thread = any_symbol(*a.address, [](const std::string& s) { return mentions_index(s, "tid."); });
  // "u:j..." is a value joined at a block head (a loop counter). Any other unfollowed "u:" value may
  // hide a thread or block index: the analysis takes a value reloaded from local memory (a spilled
  // global index) as uniform.
  if (holds_unfollowed_value(*a.address, /*loop_counters_allowed=*/true)) return false;
  if (a.kind == AccessKind::store && a.loop_depth == 0) return !thread && a.address->size() > 0;
  if (a.loop_depth < 1 || !thread) return false;
  return !any_symbol(*a.address, [](const std::string& s) { return mentions_index(s, "ctaid."); });
}

std::string cooperative_tile_origin(const MemoryAccess& a) {
  if (!is_load(a) || a.loop_depth < 1 || !a.address) return "";
  const bool splits_thread_index = any_symbol(*a.address, [](const std::string& s) {
    return s.rfind("floor(", 0) == 0 && mentions_index(s, "tid.");
  });
  if (!splits_thread_index) return "";
  std::string origin;
  for (const char d : {'x', 'y', 'z'})
    if (any_symbol(*a.address, [&](const std::string& s) { return mentions_index(s, std::string("ctaid.") + d); }))
      origin.push_back(d);
  return origin;
}

double cooperative_tile_factor(const AccessPatterns& patterns, const LaunchConfig& reference,
                               const LaunchConfig& target) {
  std::set<std::string> families;
  for (const MemoryAccess& a : patterns.accesses)
    if (const std::string o = cooperative_tile_origin(a); !o.empty()) families.insert(o);
  if (families.empty()) return 1;
  const double threads = static_cast<double>(std::max<long long>(1, reference.block.count()));
  double weights = 0, moved = 0;
  for (const std::string& origin : families) {
    double trip = 1 / threads, replication = 1;  // per-thread trip at the reference; launch-wide change
    for (const char d : {'x', 'y', 'z'}) {
      if (origin.find(d) != std::string::npos)
        trip *= static_cast<double>(component(reference.block, d));
      else
        replication *= static_cast<double>(std::max(1LL, component(target.grid, d))) /
                       static_cast<double>(std::max(1LL, component(reference.grid, d)));
    }
    weights += trip;
    moved += trip * replication;
  }
  return moved / weights;
}

bool is_loop_invariant_load(const MemoryAccess& a) {
  if (!is_load(a) || a.loop_depth < 1 || !a.address || a.opcode.find("STRONG") != std::string::npos) return false;
  return !holds_unfollowed_value(*a.address, /*loop_counters_allowed=*/false);  // also inside a floor
}

double loop_invariant_load_share(const AccessPatterns& patterns, double global_load_inst_per_warp) {
  return weighted_load_share(patterns, global_load_inst_per_warp, is_loop_invariant_load);
}

namespace {
// Whether a term moves with the thread, the block or a loop (the terms two unrolled copies of one
// load share); the others are the base: parameters and constants.
bool is_indexed_term(const AddressTerm& t) {
  for (const std::string& s : t.symbols)
    if (mentions_index(s, "tid.") || mentions_index(s, "ctaid.") || s.rfind("u:", 0) == 0) return true;
  return false;
}
// Whether a movement of the address (a difference of two addresses) is a line or more: a term that
// holds a parameter (a pitch) or the launch's sizes (a grid-stride step), or 128 bytes or more.
bool at_least_a_line(const std::map<std::vector<std::string>, long long>& movement) {
  for (const auto& [symbols, coefficient] : movement) {
    if (coefficient == 0) continue;
    if (!symbols.empty()) return true;
    if (std::llabs(coefficient) >= 128) return true;
  }
  return false;
}
// Whether a load moves a line or more in one trip of its loop (the analysis followed the loop).
bool strides_a_line(const MemoryAccess& a) {
  if (!a.stride_per_trip) return false;
  std::map<std::vector<std::string>, long long> movement;
  for (const AddressTerm& t : *a.stride_per_trip) movement[t.symbols] += t.coefficient;
  return at_least_a_line(movement);
}
// Whether no other warp reads the lines a warp's load reads, given that no other block does (the
// caller's count): every dimension the block spans indexes the address, and a warp's lanes along x
// (32, or the block's x extent when smaller) cover a line or more (or step a pitch apart), so the
// next warp or block along x starts a new line. The hits the counters show on such a load's lines
// are the warp's own reuse, not hits on a line a sharer has in flight (H.5d).
bool lines_of_one_warp(const AddressPolynomial& address, const Dim3& block) {
  const std::pair<const char*, long long> dimensions[] = {{"tid.x", block.x}, {"tid.y", block.y}, {"tid.z", block.z}};
  for (const auto& [tid, extent] : dimensions)
    if (extent > 1 && !any_symbol(address, [&](const std::string& s) { return mentions_index(s, tid); })) return false;
  const long long lanes_along_x = std::min<long long>(32, std::max<long long>(1, block.x));
  for (const AddressTerm& t : address)
    if (t.symbols == std::vector<std::string>{"tid.x"} && std::llabs(t.coefficient) * lanes_along_x < 128) return false;
  return true;
}
// The loads with an address, each split once into its indexed terms (thread, block and loop-counter
// indices) and the rest, its base, and grouped by their indexed terms: loads of one group differ in
// their bases alone, so only they can be copies of one another (line_walking_loads) or read what a
// neighbouring thread or block reads with another.
struct SplitLoads {
  struct Load {
    std::size_t group = 0;
    std::map<std::vector<std::string>, long long> base;  // symbols -> coefficient
  };
  std::vector<std::optional<Load>> of;  // by access; none for a store, an atomic or a load with no address
  // Per group: whether two of its loads differ by a constant or by a multiple of what a thread or block
  // index is multiplied by (a stencil's in[i + 1], in[j + 1]), so that each reads what a neighbouring
  // thread or block reads with another: the warps share lines after all.
  std::vector<bool> reads_neighbours_lines;
};
SplitLoads split_loads(const std::vector<MemoryAccess>& accesses) {
  SplitLoads out;
  out.of.resize(accesses.size());
  std::vector<AddressPolynomial> group_indexed;
  std::vector<std::set<std::vector<long long>>> group_offsets;  // the bases' coefficients along the index steps
  for (std::size_t i = 0; i < accesses.size(); ++i) {
    if (!is_load(accesses[i]) || !accesses[i].address) continue;
    AddressPolynomial indexed;
    SplitLoads::Load load;
    for (const AddressTerm& t : *accesses[i].address) {
      if (is_indexed_term(t)) indexed.push_back(t);
      else load.base[t.symbols] += t.coefficient;
    }
    const auto found = std::find(group_indexed.begin(), group_indexed.end(), indexed);
    load.group = static_cast<std::size_t>(found - group_indexed.begin());
    if (found == group_indexed.end()) {
      group_indexed.push_back(indexed);
      group_offsets.emplace_back();
    }
    // The factors of each thread or block index in the group's terms, and this load's base along them.
    std::vector<long long> offsets;
    for (const AddressTerm& t : group_indexed[load.group])
      for (const std::string& s : t.symbols)
        if (mentions_index(s, "tid.") || mentions_index(s, "ctaid.")) {
          std::vector<std::string> step;
          for (const std::string& other : t.symbols)
            if (other != s) step.push_back(other);
          const auto at = load.base.find(step);
          offsets.push_back(at == load.base.end() ? 0 : at->second);
        }
    group_offsets[load.group].insert(std::move(offsets));
    out.of[i] = std::move(load);
  }
  for (const auto& offsets : group_offsets) out.reads_neighbours_lines.push_back(offsets.size() > 1);
  return out;
}
// Whether two loads of one group are copies of one load a line or more apart (see line_walking_loads).
bool copies_a_line_apart(const SplitLoads::Load& a, const SplitLoads::Load& b) {
  std::map<std::vector<std::string>, long long> difference = a.base;  // a's base minus b's
  for (const auto& [symbols, coefficient] : b.base) difference[symbols] -= coefficient;
  return at_least_a_line(difference);
}
}  // namespace

double inplace_store_share(const AccessPatterns& patterns, double global_load_inst_per_warp) {
  const double trip = loop_trip_factor(patterns, global_load_inst_per_warp);
  double stores = 0, inplace = 0;
  for (const MemoryAccess& s : patterns.accesses) {
    if (s.kind != AccessKind::store || !s.address) continue;
    const double w = weight_of(s, trip);
    stores += w;
    for (const MemoryAccess& l : patterns.accesses)
      if (is_load(l) && l.address && l.loop_depth == s.loop_depth && l.offset < s.offset && *l.address == *s.address) {
        inplace += w;
        break;
      }
  }
  return stores > 0 ? inplace / stores : 0.0;
}

LineWalkingLoads line_walking_loads(const AccessPatterns& patterns, const LaunchConfig& launch,
                                    double global_load_inst_per_warp) {
  const double trip = loop_trip_factor(patterns, global_load_inst_per_warp);
  double all = 0, walking = 0, sharers = 0;
  const auto& accesses = patterns.accesses;
  const SplitLoads split = split_loads(accesses);
  for (std::size_t i = 0; i < accesses.size(); ++i) {
    const MemoryAccess& a = accesses[i];
    if (!is_load(a)) continue;
    const double w = weight_of(a, trip);
    all += w;
    if (a.loop_depth < 1 || !a.address) continue;
    const SplitLoads::Load& load = *split.of[i];
    bool walks = strides_a_line(a);
    for (std::size_t j = 0; j < accesses.size() && !walks; ++j)
      walks = j != i && split.of[j] && split.of[j]->group == load.group && accesses[j].loop_depth == a.loop_depth &&
              copies_a_line_apart(load, *split.of[j]);
    if (!walks) continue;
    // The blocks along every grid dimension the address does not index read the same lines.
    double blocks = 1;
    const std::pair<const char*, long long> dimensions[] = {{"x", launch.grid.x}, {"y", launch.grid.y}, {"z", launch.grid.z}};
    for (const auto& [dimension, extent] : dimensions) {
      const std::string tid = std::string("tid.") + dimension, ctaid = std::string("ctaid.") + dimension;
      if (!any_symbol(*a.address, [&](const std::string& s) { return mentions_index(s, tid) || mentions_index(s, ctaid); }))
        blocks *= static_cast<double>(std::max<long long>(1, extent));
    }
    if (blocks <= 1 && lines_of_one_warp(*a.address, launch.block) && !split.reads_neighbours_lines[load.group]) continue;
    walking += w;
    sharers += w * blocks;
  }
  LineWalkingLoads out;
  if (all > 0 && walking > 0) {
    out.share = walking / all;
    out.concurrent_sharers = sharers / walking;
  }
  return out;
}

double loop_trip_factor(const AccessPatterns& patterns, double global_load_inst_per_warp) {
  std::vector<int> depths;
  for (const MemoryAccess& a : patterns.accesses)
    if (is_load(a)) depths.push_back(a.loop_depth);
  if (depths.empty() || *std::max_element(depths.begin(), depths.end()) == 0) return 1;
  auto loads_at = [&](double trip) {
    double sum = 0;
    for (int d : depths) sum += std::pow(trip, d);
    return sum;
  };
  if (!(global_load_inst_per_warp > loads_at(1))) return 1;
  double low = 1, high = 2;
  while (loads_at(high) < global_load_inst_per_warp && high < 1e9) high *= 2;
  for (int i = 0; i < 100; ++i) {
    const double mid = 0.5 * (low + high);
    (loads_at(mid) < global_load_inst_per_warp ? low : high) = mid;
  }
  return 0.5 * (low + high);
}

namespace {

// Sectors per request at the target: the reference's measurement, with the regular accesses'
// share moved as their addresses say and the irregular share kept at what the measurement leaves
// for it (the measurement = regular weight x their sectors + irregular weight x x, solved for x).
double anchored_sectors(double measured, double regular_reference, double regular_target, double regular_weight,
                        double irregular_weight) {
  if (!(regular_weight > 0) || !(regular_reference > 0)) return measured;
  if (!(irregular_weight > 0)) return measured * regular_target / regular_reference;
  const double total = regular_weight + irregular_weight;
  const double irregular = std::clamp((measured * total - regular_reference * regular_weight) / irregular_weight, 1.0,
                                      static_cast<double>(kWarpSize));
  // A ratio of the two mixtures, so that the reference shape gets its measurement back even when
  // the irregular share had to be clamped to [1, 32] sectors.
  const double at_reference = regular_reference * regular_weight + irregular * irregular_weight;
  const double at_target = regular_target * regular_weight + irregular * irregular_weight;
  return measured * at_target / at_reference;
}

std::string format(double v) {
  std::ostringstream s;
  s.precision(4);
  s << v;
  return s.str();
}

}  // namespace

KernelProfile derive_profile_at_launch(const DeviceProfile& device, const KernelProfile& reference,
                                       const AccessPatterns& patterns, const LaunchConfig& target,
                                       std::vector<DerivedCounter>* derivation) {
  KernelProfile k = profile_at_launch(reference, target);
  const double loads_per_warp = reference.global_load_inst_per_warp.value_or(reference.mem_inst_per_warp);
  const double trip = loop_trip_factor(patterns, loads_per_warp);
  const ShapeTraffic r = shape_traffic(patterns, reference.launch, trip, sm_residency(device, reference.launch));
  const ShapeTraffic t = shape_traffic(patterns, k.launch, trip, sm_residency(device, k.launch));
  if (r.regular_load_weight + r.regular_store_weight <= 0) return k;
  const std::string where = " (sass addresses at " + format_dim3(reference.launch.block) + " -> " +
                            format_dim3(target.block) + ", loop trip " + format(trip) + ")";
  auto note = [&](const std::string& name, double from, double to, const std::string& how) {
    k.sources[name] = "derived: " + how + where;
    if (derivation) derivation->push_back({name, from, to, how});
  };

  // Sectors per global-load request.
  const double sectors_reference = reference.transactions_per_request;
  // At least one sector a request (a measurement below the addresses' count cannot scale under it).
  const double sectors_target =
      std::max(1.0, anchored_sectors(sectors_reference, r.load_sectors_per_request, t.load_sectors_per_request,
                                     r.regular_load_weight, r.irregular_load_weight));
  k.transactions_per_request = sectors_target;
  note("memory.transactions_per_request", sectors_reference, sectors_target,
       "measured x regular loads' sectors " + format(t.load_sectors_per_request) + " / " +
           format(r.load_sectors_per_request));

  // L1 hit rate of global loads: the measured one moved by the change of reuse among the blocks one
  // SM holds, in proportion to the regular loads' share.
  const double total_load_weight = r.regular_load_weight + r.irregular_load_weight;
  const double regular_share = total_load_weight > 0 ? r.regular_load_weight / total_load_weight : 0;
  const double hit_reference = 1 - reference.l1_miss_ratio;
  const double hit_target =
      std::clamp(hit_reference + regular_share * (t.load_l1_hit_rate - r.load_l1_hit_rate), 0.0, 1.0);
  k.l1_miss_ratio = 1 - hit_target;
  note("memory.l1_miss_ratio", reference.l1_miss_ratio, k.l1_miss_ratio,
       "1 - (measured hit rate + block reuse " + format(t.load_l1_hit_rate) + " - " + format(r.load_l1_hit_rate) + ")");

  // Per-block accesses (is_per_block_access): profile_at_launch kept their launch-wide count; it
  // follows the number of blocks instead, a factor `blocks` more per warp.
  const double blocks = static_cast<double>(std::max(1LL, k.launch.grid.count())) /
                        static_cast<double>(std::max(1LL, reference.launch.grid.count()));
  auto per_block = [&](double share) { return 1 + share * (blocks - 1); };
  // Cooperative tile loads (cooperative_tile_origin): the loop loads' launch-wide count follows the
  // tiles' replication instead of being conserved.
  const double tile_factor = cooperative_tile_factor(patterns, reference.launch, k.launch);
  const double loop_load_share =
      tile_factor != 1 ? weighted_load_share(patterns, loads_per_warp, [](const MemoryAccess& a) { return a.loop_depth > 0; })
                       : 0;
  const double load_requests = per_block(r.per_block_load_share) * (1 + loop_load_share * (tile_factor - 1));
  if (load_requests != 1 && k.global_load_inst_per_warp) {
    const double before = *k.global_load_inst_per_warp;
    const double added = before * (load_requests - 1);
    k.global_load_inst_per_warp = before + added;
    k.mem_inst_per_warp = std::max(0.0, k.mem_inst_per_warp + added);
    k.inst_per_warp = std::max(0.0, k.inst_per_warp + added);
    note("instructions_per_warp.global_load", before, *k.global_load_inst_per_warp,
         "per-block loads (share " + format(r.per_block_load_share) + ") x blocks " + format(blocks) +
             ", loop loads (share " + format(loop_load_share) + ") x tile replication " + format(tile_factor));
  }
  const double atomic_requests = per_block(r.per_block_atomic_share);
  const double atomic_lane_ops_kept = k.atomic_lane_ops_per_warp.value_or(0);
  if (atomic_requests != 1)
    for (std::optional<double>* x : {&k.atomic_lane_ops_per_warp, &k.busiest_slice_atomics_per_warp})
      if (*x) **x *= atomic_requests;

  // L2 traffic: reads follow the load sectors that miss L1, writes the store sectors, atomics
  // (lts red + atom sectors, taken as 32 bytes per lane operation) their requests.
  if (k.l2_bytes_per_warp) {
    const double write = k.l2_write_bytes_per_warp.value_or(0);
    const double unwritten = std::max(0.0, *k.l2_bytes_per_warp - write);
    const double atomic = std::min(unwritten, atomic_lane_ops_kept * kSectorBytes);
    const double read = unwritten - atomic;
    const double miss_reference = sectors_reference * (1 - hit_reference);
    // The tiles' sectors follow their replication, the other loads' the sectors that miss L1.
    const double read_scale =
        ((1 - loop_load_share) * (miss_reference > 0 ? sectors_target * (1 - hit_target) / miss_reference : 1) +
         loop_load_share * tile_factor) *
        per_block(r.per_block_load_sector_share);
    double write_scale = per_block(r.per_block_store_sector_share);
    if (r.store_sectors_per_request > 0)
      write_scale *= anchored_sectors(1, r.store_sectors_per_request, t.store_sectors_per_request,
                                      r.regular_store_weight, r.irregular_store_weight);
    const double before = *k.l2_bytes_per_warp;
    if (k.l2_write_bytes_per_warp) k.l2_write_bytes_per_warp = write * write_scale;
    k.l2_bytes_per_warp = read * read_scale + write * write_scale + atomic * atomic_requests;
    note("memory.l2_bytes_per_warp", before, *k.l2_bytes_per_warp,
         "reads x missed sectors " + format(read_scale) + ", writes x store sectors " + format(write_scale) +
             ", atomics x requests " + format(atomic_requests));
  }
  // Sectors per store request: the measured one moved as the regular stores' sectors move.
  if (k.store_sectors_per_request && r.store_sectors_per_request > 0) {
    const double before = *k.store_sectors_per_request;
    k.store_sectors_per_request = anchored_sectors(before, r.store_sectors_per_request, t.store_sectors_per_request,
                                                   r.regular_store_weight, r.irregular_store_weight);
    note("memory.store_sectors_per_request", before, *k.store_sectors_per_request,
         "measured x regular stores' sectors " + format(t.store_sectors_per_request) + " / " +
             format(r.store_sectors_per_request));
  }
  // L1 wavefronts: the global part follows the load sectors per request.
  if (k.l1_wavefronts_per_warp && sectors_reference > 0) {
    const double memory = k.mem_inst_per_warp + k.shared_inst_per_warp;
    const double global_share = memory > 0 ? k.mem_inst_per_warp / memory : 0;
    const double before = *k.l1_wavefronts_per_warp;
    k.l1_wavefronts_per_warp =
        before * (1 - global_share + global_share * load_requests * sectors_target / sectors_reference);
    note("memory.l1_wavefronts_per_warp", before, *k.l1_wavefronts_per_warp,
         "global share " + format(global_share) + " x sectors per request ratio");
  }
  return k;
}

}  // namespace warpmodel
