#include "warpmodel/sass/address_analysis.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <queue>
#include <set>
#include <string>
#include <vector>

#include "warpmodel/sass/analysis.hpp"
#include "warpmodel/traffic.hpp"

namespace warpmodel::sass {
namespace {

// A polynomial: monomial (sorted symbols) -> coefficient, no zero coefficients.
using Polynomial = std::map<std::vector<std::string>, long long>;
constexpr std::size_t kMaxDegree = 4;  // a product of more symbols is not index arithmetic

struct Value {
  enum class Kind { undefined, polynomial, varying, high };
  Kind kind = Kind::undefined;
  Polynomial poly;
  bool operator==(const Value&) const = default;

  static Value of(Polynomial p) { return {Kind::polynomial, std::move(p)}; }
  static Value varying() { return {Kind::varying, {}}; }
  static Value high() { return {Kind::high, {}}; }
  static Value constant(long long c) { return of(c ? Polynomial{{{}, c}} : Polynomial{}); }
  static Value symbol(const std::string& s) { return of(Polynomial{{{s}, 1}}); }
  bool is_poly() const { return kind == Kind::polynomial; }
};

using State = std::map<std::string, Value>;

Polynomial add(Polynomial a, const Polynomial& b, long long sign = 1) {
  for (const auto& [m, c] : b)
    if ((a[m] += sign * c) == 0) a.erase(m);
  return a;
}

std::optional<Polynomial> multiply(const Polynomial& a, const Polynomial& b) {
  Polynomial out;
  for (const auto& [ma, ca] : a)
    for (const auto& [mb, cb] : b) {
      std::vector<std::string> m = ma;
      m.insert(m.end(), mb.begin(), mb.end());
      if (m.size() > kMaxDegree) return std::nullopt;
      std::sort(m.begin(), m.end());
      if ((out[m] += ca * cb) == 0) out.erase(m);
    }
  return out;
}

// A thread index in a symbol: tid.x itself, or inside a floor ("floor((ntid.x*tid.y + tid.x)/32)";
// ntid. is the block's size, not a thread index).
bool names_thread_index(const std::string& s) {
  for (std::size_t at = s.find("tid."); at != std::string::npos; at = s.find("tid.", at + 1))
    if (at == 0 || s[at - 1] != 'n') return true;
  return false;
}

bool thread_dependent(const Polynomial& p) {
  for (const auto& [m, c] : p)
    for (const std::string& s : m)
      if (names_thread_index(s)) return true;
  return false;
}

bool thread_dependent(const Value& v) { return v.kind != Value::Kind::polynomial || thread_dependent(v.poly); }

// Every term non-negative: positive coefficients over indices, sizes, parameters (taken as
// non-negative: sizes and pointers) and floors of such. Thread indices then never make it negative,
// so a shift right is a floor division and an AND with a low or high mask a remainder or a multiple.
bool non_negative(const Polynomial& p) {
  for (const auto& [m, c] : p) {
    if (c < 0) return false;
    for (const std::string& s : m)
      if (!(s.rfind("tid.", 0) == 0 || s.rfind("ctaid.", 0) == 0 || s.rfind("ntid.", 0) == 0 ||
            s.rfind("nctaid.", 0) == 0 || s.rfind("param:", 0) == 0 || s.rfind("floor(", 0) == 0 ||
            s.rfind("div:nonneg:", 0) == 0))
        return false;
  }
  return true;
}

// floor(p / divisor) for a non-negative p: a constant folds, anything else becomes the symbol
// "floor((P)/D)" with P as format_address writes it (model/traffic.cpp evaluates it per lane).
Value floor_of(const Polynomial& p, long long divisor) {
  if (p.empty()) return Value::constant(0);
  if (p.size() == 1 && p.begin()->first.empty()) return Value::constant(p.begin()->second / divisor);
  AddressPolynomial a;
  for (const auto& [m, c] : p) a.push_back({c, m});
  return Value::symbol("floor((" + format_address(a) + ")/" + std::to_string(divisor) + ")");
}

std::string text_of(const Polynomial& p) {
  AddressPolynomial a;
  for (const auto& [m, c] : p) a.push_back({c, m});
  return format_address(a);
}

// ptxas divides by a value it does not know at compile time (t / blockDim.y, i % width) with a
// reciprocal: I2F.U32.RP q; MUFU.RCP; + 0xffffffe; F2I.FTZ.U32.TRUNC; one IMAD.HI.U32 to refine it;
// IMAD.HI.U32 of it and the dividend for the quotient; then two predicated +1 corrections, the
// signs (signed division) and a SEL for a zero divisor. The chain's values are "div:" symbols that
// carry the divisor Q; the quotient of a non-negative dividend A by a non-negative, warp-uniform Q
// becomes the symbol "floor((A)/(Q))", which model/traffic.cpp evaluates per lane like the
// constant-divisor floors. The corrections join the quotient with quotient + 1 (a uniform
// difference: a fresh "u:" term, evaluated as 0, which is the exact quotient).
constexpr const char* kFloatOf = "div:i2f:";
constexpr const char* kReciprocal = "div:rcp:";
constexpr const char* kIntReciprocal = "div:rcpi:";

// The divisor text of a term "div:<kind>:<Q>" among p's monomials, or "" when none.
std::string divisor_in(const Polynomial& p, const std::string& kind) {
  for (const auto& [m, c] : p)
    for (const std::string& s : m)
      if (s.rfind(kind, 0) == 0) return s.substr(std::string(kind).size());
  return "";
}

// A single symbol with coefficient 1 ("div:rcpi:ntid.y"): its name, else "".
std::string lone_symbol(const Value& v) {
  if (!v.is_poly() || v.poly.size() != 1) return "";
  const auto& [m, c] = *v.poly.begin();
  return c == 1 && m.size() == 1 ? m[0] : "";
}

// Known to be >= 1: positive constants, launch sizes and products and sums of them.
bool positive(const Polynomial& p) {
  if (p.empty()) return false;
  for (const auto& [m, c] : p) {
    if (c <= 0) return false;
    for (const std::string& s : m)
      if (s.rfind("ntid.", 0) != 0 && s.rfind("nctaid.", 0) != 0) return false;
  }
  return true;
}

bool mentions(const Polynomial& p, const std::string& symbol) {
  for (const auto& [m, c] : p)
    if (std::find(m.begin(), m.end(), symbol) != m.end()) return true;
  return false;
}

// The merge of two values at a join point `key` (see the header).
Value join(const Value& a, const Value& b, const std::string& key) {
  if (a.kind == Value::Kind::undefined) return b;
  if (b.kind == Value::Kind::undefined || a == b) return a;
  if (a.kind == Value::Kind::high && b.kind == Value::Kind::high) return a;
  if (!a.is_poly() || !b.is_poly()) return Value::varying();
  if (thread_dependent(add(a.poly, b.poly, -1))) return Value::varying();
  const std::string fresh = "u:" + key;
  if (mentions(a.poly, fresh)) return a;
  return Value::of(add(a.poly, {{{fresh}, 1}}));
}

std::string hex(unsigned long long v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", v);
  return buf;
}

// c[0x0][OFFSET]: the launch constants and the kernel parameters (sm_70+: parameters from 0x160 on
// sm_7x/8x, 0x210 on sm_90); anything else in bank 0 (the stack pointer at 0x28, ...) is uniform.
Value constant_bank_value(unsigned long long offset, std::uint32_t at) {
  static const char* kLaunch[] = {"ntid.x", "ntid.y", "ntid.z", "nctaid.x", "nctaid.y", "nctaid.z"};
  if (offset < 0x18 && offset % 4 == 0) return Value::symbol(kLaunch[offset / 4]);
  if (offset >= 0x160) return Value::symbol("param:" + hex(offset));
  return Value::symbol(std::string("u:c") + hex(offset) + "@" + hex(at));
}

// The offset of "c[0x0][0x210]" or "c[0x0][RZ]" / "c[0x0][RZ+0x4]" (ptxas writes blockDim.x so);
// nullopt for another bank or a register index.
std::optional<unsigned long long> bank0_offset(const std::string& op) {
  if (op.rfind("c[0x0][", 0) != 0 || op.back() != ']') return std::nullopt;
  std::string inner = op.substr(7, op.size() - 8);
  if (inner == "RZ") return 0;
  if (inner.rfind("RZ+", 0) == 0) inner = inner.substr(3);
  if (inner.rfind("0x", 0) != 0 || inner.find_first_of("R+") != std::string::npos) return std::nullopt;
  return std::stoull(inner, nullptr, 16);
}

bool is_register_name(const std::string& s) {
  if (s == "RZ" || s == "URZ") return true;
  std::size_t i = s[0] == 'U' ? 1 : 0;
  if (i >= s.size() || s[i] != 'R' || i + 1 >= s.size()) return false;
  return std::all_of(s.begin() + static_cast<long>(i) + 1, s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string next_register(const std::string& r) {
  const std::size_t digits = r.find_first_of("0123456789");
  if (digits == std::string::npos) return r;  // RZ/URZ
  return r.substr(0, digits) + std::to_string(std::stoi(r.substr(digits)) + 1);
}

bool is_predicate(const std::string& s) {
  std::string t = s;
  if (!t.empty() && t[0] == '!') t = t.substr(1);
  if (!t.empty() && t[0] == 'U') t = t.substr(1);
  return t == "PT" || (t.size() >= 2 && t[0] == 'P' && std::isdigit(static_cast<unsigned char>(t[1])));
}

// The value of one source operand, or nullopt when it is not integer index arithmetic.
std::optional<Value> operand_value(std::string op, const State& state, std::uint32_t at) {
  long long sign = 1;
  if (!op.empty() && op[0] == '-') {
    sign = -1;
    op = op.substr(1);
  }
  if (op.empty() || op[0] == '|' || op[0] == '~' || op[0] == '!') return std::nullopt;
  if (auto dot = op.find(".reuse"); dot != std::string::npos) op.erase(dot, 6);
  if (op.size() > 3 && op.ends_with(".64")) op.resize(op.size() - 3);
  if (op.rfind("c[", 0) == 0) {
    const auto offset = bank0_offset(op);
    if (!offset) return std::nullopt;
    Value v = constant_bank_value(*offset, at);
    return sign < 0 ? Value::of(add({}, v.poly, -1)) : v;
  }
  if (op == "RZ" || op == "URZ") return Value::constant(0);
  if (is_register_name(op)) {
    const auto it = state.find(op);
    if (it == state.end() || it->second.kind == Value::Kind::undefined) return Value::varying();
    if (sign < 0 && it->second.is_poly()) return Value::of(add({}, it->second.poly, -1));
    if (sign < 0) return Value::varying();
    return it->second;
  }
  // Integer immediates: 0x10, 16 (floating-point literals are not index arithmetic).
  try {
    std::size_t used = 0;
    const long long v = std::stoll(op, &used, 0);
    if (used == op.size()) return Value::constant(sign * v);
  } catch (...) {
  }
  return std::nullopt;
}

// Operands after the destination and any predicate outputs ("IADD3 R2, P0, R2, R4, RZ").
std::vector<std::string> sources_of(const Instruction& ins) {
  std::vector<std::string> out;
  std::size_t i = 1;
  while (i < ins.operands.size() && is_predicate(ins.operands[i])) ++i;
  for (; i < ins.operands.size(); ++i) out.push_back(ins.operands[i]);
  return out;
}

// Zero for the grid's first thread alone: every term a positive multiple of one thread or block
// index times launch sizes, a thread index and a block index among them (blockIdx.x * blockDim.x +
// threadIdx.x). Any other thread differs from the first in an index the terms weigh positively.
bool zero_only_for_first_thread(const Polynomial& p, std::vector<std::string>& indices) {
  bool thread = false, block = false;
  indices.clear();
  for (const auto& [m, c] : p) {
    if (c <= 0) return false;
    int index_symbols = 0;
    for (const std::string& s : m) {
      if (s.rfind("tid.", 0) == 0 || s.rfind("ctaid.", 0) == 0) {
        ++index_symbols;
        (s[0] == 't' ? thread : block) = true;
        indices.push_back(s);
      } else if (s.rfind("ntid.", 0) != 0 && s.rfind("nctaid.", 0) != 0) {
        return false;
      }
    }
    if (index_symbols != 1) return false;
  }
  std::sort(indices.begin(), indices.end());
  indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
  return thread && block;
}

// One basic block's interpretation. A predicated instruction's result is merged with the register's
// old value (either may hold afterwards); but an instruction under the same guard, with the
// predicate not rewritten in between, sees the guarded result: `@P0 IMAD R3, ...; @P0 LDG [R4]`,
// how ptxas compiles `if (x < n) ... = in[y * n + x]`.
bool is_predicated(const Instruction& ins) { return !ins.guard.empty() && ins.guard != "@PT" && ins.guard != "@UPT"; }

// The predicate a guard names ("@!P0" -> P0) and whether it is negated.
std::pair<std::string, bool> guard_predicate(const Instruction& ins) {
  return {ins.guard.substr(ins.guard.find_first_not_of("@!")), ins.guard.find('!') != std::string::npos};
}

std::optional<AddressPolynomial> address_of(const Instruction& ins, const State& state);

// Whether a followed address is the same for the 32 lanes of a warp whenever the block's x extent is
// a multiple of 32: tid.x appears only inside floors by a multiple of 32 (a warp's row, t / 32), and
// tid.y, tid.z (constant along a warp of such a block) anywhere. The words such loads read are the
// warp's own (a CSR row's start in a warp-per-row kernel), not data each lane picks.
bool same_in_a_warp_of_32(const AddressPolynomial& address) {
  for (const AddressTerm& t : address)
    for (const std::string& s : t.symbols) {
      // A value the analysis does not follow (a loop-carried offset) may change from trip to trip.
      if (s == "tid.x" || s.find("u:") != std::string::npos) return false;
      if (s.rfind("floor((", 0) == 0 && s.find("tid.x") != std::string::npos) {
        const std::size_t slash = s.rfind(")/");
        long long divisor = 0;
        try {
          std::size_t used = 0;
          const std::string d = s.substr(slash + 2, s.size() - slash - 3);
          divisor = std::stoll(d, &used);
          if (used != d.size()) divisor = 0;
        } catch (...) {
          divisor = 0;
        }
        if (slash == std::string::npos || divisor <= 0 || divisor % 32 != 0) return false;
      }
    }
  return true;
}

class Interpreter {
 public:
  // Applies one instruction to `state`.
  void step(const Instruction& ins, State& state) {
    const std::string b = ins.base();
    // A guard whose predicate is known here (a zero-divisor or sign test of a division): the
    // instruction either never runs or always does.
    bool predicated = is_predicated(ins);
    if (predicated) {
      const auto [predicate, negated] = guard_predicate(ins);
      const auto it = known_.find(predicate);
      if (it != known_.end()) {
        if (it->second == negated) return;  // never runs
        predicated = false;
      }
    }
    std::vector<std::pair<std::string, Value>> results = evaluate(ins, b, predicated ? view(ins, state) : state);
    for (auto& [reg, v] : results) {
      if (reg == "RZ" || reg == "URZ") continue;
      if (predicated) {
        guarded_[reg] = {ins.guard, v};
        v = join(state[reg], v, std::string("p") + hex(ins.offset) + ":" + reg);
      } else {
        guarded_.erase(reg);
      }
      state[reg] = v;
    }
    // A rewritten predicate ends what its guard promised, and what was known of it.
    for (const std::string& w : register_use(ins).writes) {
      if (w.find('P') == std::string::npos || w.find('R') != std::string::npos) continue;
      known_.erase(w);
      for (auto it = guarded_.begin(); it != guarded_.end();) {
        const std::string& g = it->second.first;
        const std::size_t at = g.find_first_not_of("@!");
        it = at != std::string::npos && g.substr(at) == w ? guarded_.erase(it) : std::next(it);
      }
    }
    if (!predicated) know_predicate(ins, state);
  }

  // The registers as an instruction under `ins`'s guard reads them.
  State view(const Instruction& ins, const State& state) const {
    State v = state;
    if (!is_predicated(ins)) return v;
    for (const auto& [reg, guarded] : guarded_)
      if (guarded.first == ins.guard) v[reg] = guarded.second;
    return v;
  }

 private:
  std::map<std::string, std::pair<std::string, Value>> guarded_;  // register -> (guard, value under it)
  std::map<std::string, bool> known_;  // predicates whose value the operands decide ("P1" -> true)

  // ISETP.<cmp>.AND P, PT, X, RZ, PT on values whose sign is known: a launch size (or a product of
  // them) is never 0; a sum of non-negative terms, or the XOR of two (the sign test of a signed
  // division), is never negative.
  void know_predicate(const Instruction& ins, const State& state) {
    if (ins.base() != "ISETP" || !ins.has_modifier("AND") || ins.operands.size() < 5) return;
    if (ins.operands[1] != "PT" || ins.operands[4] != "PT" || ins.operands[3] != "RZ") return;
    const auto x = operand_value(ins.operands[2], state, ins.offset);
    if (!x || !x->is_poly()) return;
    const std::string& p = ins.operands[0];
    if (ins.has_modifier("NE") && positive(x->poly)) known_[p] = true;
    if (ins.has_modifier("EQ") && positive(x->poly)) known_[p] = false;
    if (ins.has_modifier("GE") && non_negative(x->poly)) known_[p] = true;
    if (ins.has_modifier("LT") && non_negative(x->poly)) known_[p] = false;
  }

  // The value every register `ins` writes gets when its semantics are not modelled: a fresh
  // uniform symbol when every register it reads is uniform, else "varying".
  static std::vector<std::pair<std::string, Value>> generic(const Instruction& ins, const State& state) {
    const RegisterUse use = register_use(ins);
    bool uniform = true;
    for (const std::string& r : use.reads) {
      if (r[0] == 'P' || (r[0] == 'U' && r.size() > 1 && r[1] == 'P')) continue;
      const auto it = state.find(r);
      if (it == state.end() || thread_dependent(it->second)) uniform = false;
    }
    const std::string b = ins.base();
    if (b == "SHFL" || b == "S2R" || b == "CS2R") uniform = false;  // other lanes' data, lane/clock registers
    std::vector<std::pair<std::string, Value>> out;
    for (const std::string& r : use.writes) {
      if (r[0] == 'P' || (r[0] == 'U' && r.size() > 1 && r[1] == 'P')) continue;
      out.emplace_back(r, uniform ? Value::symbol(std::string("u:") + hex(ins.offset) + ":" + r) : Value::varying());
    }
    return out;
  }

  std::vector<std::pair<std::string, Value>> evaluate(const Instruction& ins, const std::string& b, const State& state) {
    if (ins.operands.empty()) return {};
    const std::string dest = ins.operands[0];
    const std::vector<std::string> src = sources_of(ins);
    auto value = [&](std::size_t i) -> std::optional<Value> {
      if (i >= src.size()) return std::nullopt;
      return operand_value(src[i], state, ins.offset);
    };
    auto pair = [&](Value low) { return std::vector<std::pair<std::string, Value>>{{dest, std::move(low)}, {next_register(dest), Value::high()}}; };
    auto single = [&](Value v) { return std::vector<std::pair<std::string, Value>>{{dest, std::move(v)}}; };
    if (!is_register_name(dest)) return generic(ins, state);

    // High halves of 64-bit arithmetic.
    // (SHF.L.U64.HI: the high word of a 64-bit shift left; SHF.R.S32.HI is a 32-bit shift right.)
    if (ins.has_modifier("X") || ((b == "SHF" || b == "USHF") && ins.has_modifier("L") && ins.has_modifier("HI")))
      return single(Value::high());

    if (b == "S2R" || b == "S2UR") {
      static const std::map<std::string, std::string> kSpecial = {
          {"SR_TID.X", "tid.x"},     {"SR_TID.Y", "tid.y"},     {"SR_TID.Z", "tid.z"},
          {"SR_CTAID.X", "ctaid.x"}, {"SR_CTAID.Y", "ctaid.y"}, {"SR_CTAID.Z", "ctaid.z"}};
      const auto it = kSpecial.find(ins.operands.size() > 1 ? ins.operands[1] : "");
      if (it != kSpecial.end()) return single(Value::symbol(it->second));
      return single(Value::varying());  // lane id, clocks, ...
    }
    if (b == "CS2R" && ins.operands.size() > 1 && ins.operands[1] == "SRZ")
      return ins.has_modifier("32") ? single(Value::constant(0)) : std::vector<std::pair<std::string, Value>>{{dest, Value::constant(0)}, {next_register(dest), Value::constant(0)}};
    if (b == "LDC" || b == "ULDC") {
      if (const auto offset = bank0_offset(ins.operands.size() > 1 ? ins.operands[1] : "")) {
        if (ins.has_modifier("64"))
          return {{dest, constant_bank_value(*offset, ins.offset)}, {next_register(dest), constant_bank_value(*offset + 4, ins.offset)}};
        return single(constant_bank_value(*offset, ins.offset));
      }
      return generic(ins, state);
    }
    if (b == "MOV" || b == "UMOV" || b == "R2UR") {
      if (auto v = value(0)) return ins.has_modifier("64") ? pair(*v) : single(*v);
      return generic(ins, state);
    }
    if ((b == "IMAD" || b == "UIMAD") && ins.has_modifier("HI") && ins.has_modifier("U32")) {
      // The division idiom: hi(reciprocal x refinement) refines the reciprocal; hi(reciprocal x A)
      // is the quotient floor(A / Q).
      const auto a = value(0), m = value(1), c = value(2);
      if (a && m && c && c->is_poly()) {
        for (const auto& [r, x] : {std::pair{*a, *m}, std::pair{*m, *a}}) {
          const std::string rcpi = lone_symbol(r);
          if (rcpi.rfind(kIntReciprocal, 0) != 0 || !x.is_poly()) continue;
          const std::string q = rcpi.substr(std::string(kIntReciprocal).size());
          if (divisor_in(x.poly, kIntReciprocal) == q) return single(r);
          if (c->poly.empty() && non_negative(x.poly) && divisor_in(x.poly, "div:").empty())
            return single(Value::symbol("floor((" + text_of(x.poly) + ")/(" + q + "))"));
        }
      }
      return generic(ins, state);
    }
    if (b == "I2F" && ins.has_modifier("RP")) {
      const auto q = value(0);
      if (q && q->is_poly() && !q->poly.empty() && non_negative(q->poly) && !thread_dependent(q->poly))
        return single(Value::symbol(kFloatOf + text_of(q->poly)));
      return generic(ins, state);
    }
    if (b == "MUFU" && ins.has_modifier("RCP")) {
      const auto f = value(0);
      const std::string name = f ? lone_symbol(*f) : "";
      if (name.rfind(kFloatOf, 0) == 0) return single(Value::symbol(kReciprocal + name.substr(std::string(kFloatOf).size())));
      return generic(ins, state);
    }
    if (b == "F2I" && ins.has_modifier("U32") && ins.has_modifier("TRUNC")) {
      const auto f = value(0);
      const std::string q = f && f->is_poly() ? divisor_in(f->poly, kReciprocal) : "";
      if (!q.empty()) return single(Value::symbol(kIntReciprocal + q));
      return generic(ins, state);
    }
    if (b == "IABS") {  // |x| of a non-negative x
      const auto x = value(0);
      if (x && x->is_poly() && non_negative(x->poly)) return single(*x);
      return generic(ins, state);
    }
    // ~Q of a launch size: the quotient a division returns for a zero divisor, which a launch size
    // never is (SEL below takes the other side).
    if (b == "LOP3" && src.size() >= 4 && src[3] == "0x33" && (src[0] == "RZ" || src[0] == "URZ") &&
        (src[2] == "RZ" || src[2] == "URZ")) {
      const auto x = value(1);
      if (x && x->is_poly() && positive(x->poly)) return single(Value::symbol("div:zero-divisor:" + hex(ins.offset)));
      return generic(ins, state);
    }
    // XOR of two non-negative values (a signed division's sign test): non-negative.
    if (b == "LOP3" && src.size() >= 4 && src[3] == "0x3c" && (src[2] == "RZ" || src[2] == "URZ")) {
      const auto x = value(0), y = value(1);
      if (x && y && x->is_poly() && y->is_poly() && non_negative(x->poly) && non_negative(y->poly))
        return single(Value::symbol("div:nonneg:" + hex(ins.offset)));
      return generic(ins, state);
    }
    if (b == "IMAD" || b == "UIMAD") {
      if (ins.has_modifier("HI")) return generic(ins, state);
      const auto a = value(0), m = value(1), c = value(2);
      if (!a || !m || !c) return generic(ins, state);
      Value v = Value::varying();
      if (a->is_poly() && m->is_poly() && c->is_poly())
        if (auto product = multiply(a->poly, m->poly)) v = Value::of(add(*product, c->poly));
      if (v.kind == Value::Kind::varying && !thread_dependent(*a) && !thread_dependent(*m) && !thread_dependent(*c))
        v = Value::symbol(std::string("u:") + hex(ins.offset) + ":" + dest);
      return ins.has_modifier("WIDE") ? pair(v) : single(v);
    }
    if (b == "IADD3" || b == "UIADD3" || b == "VIADD" || b == "IADD32I" || b == "IADD" || b == "UIADD") {
      Polynomial sum;
      for (std::size_t i = 0; i < src.size(); ++i) {
        if (is_predicate(src[i])) continue;
        const auto v = value(i);
        if (!v) return generic(ins, state);
        if (!v->is_poly()) return single(Value::varying());
        sum = add(sum, v->poly);
      }
      return single(Value::of(sum));
    }
    if (b == "LEA" || b == "ULEA" || b == "ISCADD" || b == "UISCADD") {
      if (ins.has_modifier("HI")) {
        // "LEA.HI Rd, Ra, Rb, RZ, s" adds Ra's top s bits to Rb; with Ra = 0 (the sign word of a
        // non-negative value: how ptxas rounds a signed division towards zero) it is Rb.
        const auto a = value(0), c = value(1);
        if (a && c && a->is_poly() && a->poly.empty()) return single(*c);
        return generic(ins, state);
      }
      const auto a = value(0), c = value(1), s = value(2);
      if (!a || !c || !s || !s->is_poly() || s->poly.size() > 1 || (s->poly.size() == 1 && !s->poly.begin()->first.empty()))
        return generic(ins, state);
      const long long shift = s->poly.empty() ? 0 : s->poly.begin()->second;
      if (!a->is_poly() || !c->is_poly() || shift < 0 || shift > 40) return single(Value::varying());
      return single(Value::of(add(*multiply(a->poly, {{{}, 1LL << shift}}), c->poly)));
    }
    // Shifts right of a non-negative 32-bit value: "SHF.R.S32.HI Rd, RZ, s, Rx" = Rx >> s.
    if ((b == "SHF" || b == "USHF") && ins.has_modifier("R") && ins.has_modifier("HI") &&
        (ins.has_modifier("S32") || ins.has_modifier("U32")) && src.size() >= 3 && (src[0] == "RZ" || src[0] == "URZ")) {
      const auto s = value(1), x = value(2);
      if (s && x && s->is_poly() && x->is_poly() && s->poly.size() == 1 && s->poly.begin()->first.empty() &&
          non_negative(x->poly)) {
        const long long shift = s->poly.begin()->second;
        if (shift >= 31) return single(Value::constant(0));  // the sign word of a non-negative value
        if (shift >= 0) return single(floor_of(x->poly, 1LL << shift));
      }
      return generic(ins, state);
    }
    // "LOP3.LUT Rd, Ra, mask, RZ, 0xc0, !PT" = Ra & mask: with a low mask 2^k - 1 the remainder
    // mod 2^k, with a high mask ~(2^k - 1) the multiple of 2^k below Ra (Ra non-negative).
    if ((b == "LOP3" || b == "ULOP3") && src.size() >= 4 && src[3] == "0xc0" && (src[2] == "RZ" || src[2] == "URZ")) {
      auto a = value(0), m = value(1);
      auto constant = [](const std::optional<Value>& v) {
        return v && v->is_poly() && v->poly.size() == 1 && v->poly.begin()->first.empty();
      };
      if (constant(a) && !constant(m)) std::swap(a, m);  // the mask may come first
      if (a && a->is_poly() && non_negative(a->poly) && constant(m)) {
        const unsigned long long mask = static_cast<unsigned long long>(m->poly.begin()->second) & 0xffffffffULL;
        for (int k = 1; k < 31; ++k) {
          const unsigned long long low = (1ULL << k) - 1;
          if (mask == low) {
            const Value f = floor_of(a->poly, 1LL << k);
            return single(Value::of(add(a->poly, *multiply(f.poly, {{{}, 1LL << k}}), -1)));
          }
          if (mask == (~low & 0xffffffffULL)) {
            const Value f = floor_of(a->poly, 1LL << k);
            return single(Value::of(*multiply(f.poly, {{{}, 1LL << k}})));
          }
        }
      }
      return generic(ins, state);
    }
    if ((b == "SHF" || b == "USHF") && ins.has_modifier("L") && !ins.has_modifier("W")) {
      const auto a = value(0), s = value(1);
      if (a && s && a->is_poly() && s->is_poly() && s->poly.size() <= 1 &&
          (s->poly.empty() || s->poly.begin()->first.empty())) {
        const long long shift = s->poly.empty() ? 0 : s->poly.begin()->second;
        if (shift >= 0 && shift <= 40) return single(Value::of(*multiply(a->poly, {{{}, 1LL << shift}})));
      }
      return generic(ins, state);
    }
    if (b == "SHL" || b == "USHL") {
      const auto a = value(0), s = value(1);
      if (a && s && a->is_poly() && s->is_poly() && s->poly.size() == 1 && s->poly.begin()->first.empty()) {
        const long long shift = s->poly.begin()->second;
        if (shift >= 0 && shift <= 40) return single(Value::of(*multiply(a->poly, {{{}, 1LL << shift}})));
      }
      return generic(ins, state);
    }
    if (b == "SEL" || b == "USEL") {
      const auto a = value(0), c = value(1);
      for (const auto& [one, other] : {std::pair{a, c}, std::pair{c, a}})  // never a zero divisor's result
        if (one && other && lone_symbol(*one).rfind("div:zero-divisor:", 0) == 0) return single(*other);
      if (src.size() >= 3) {  // a known selector (a zero-divisor test) picks its side
        const bool negated = src[2][0] == '!';
        const auto it = known_.find(src[2].substr(negated ? 1 : 0));
        if (it != known_.end()) {
          const auto picked = it->second != negated ? a : c;
          if (picked) return single(*picked);
        }
      }
      if (a && c) return single(join(*a, *c, std::string("s") + hex(ins.offset) + ":" + dest));
      return generic(ins, state);
    }
    // A 32- or 64-bit global load from a followed address that a warp's lanes share (see
    // same_in_a_warp_of_32): the word it reads is the symbol "ld(ADDRESS)", which model/traffic.cpp
    // evaluates per lane (lanes that read the same word get the same value, others far apart), so
    // that an access based on it (val[row_start + lane]) keeps its address. The taint still marks
    // it as data; loads from a lane's own address stay unfollowed (gathers).
    if ((b == "LDG" || b == "LD") && !ins.has_modifier("128") && !ins.has_modifier("U8") && !ins.has_modifier("S8") &&
        !ins.has_modifier("U16") && !ins.has_modifier("S16")) {
      if (const auto address = address_of(ins, state); address && !address->empty() && thread_dependent_address(*address) &&
                                                       same_in_a_warp_of_32(*address)) {
        const Value v = Value::symbol("ld(" + format_address(*address) + ")");
        return ins.has_modifier("64") ? pair(v) : single(v);
      }
    }
    return generic(ins, state);
  }

  static bool thread_dependent_address(const AddressPolynomial& address) {
    for (const AddressTerm& t : address)
      for (const std::string& s : t.symbols)
        if (names_thread_index(s)) return true;
    return false;
  }
};

bool is_global_access(const std::string& b) {
  return b == "LDG" || b == "STG" || b == "LD" || b == "ST" || b == "ATOMG" || b == "ATOM" || b == "RED" ||
         b == "REDG" || b == "LDGSTS";
}

AccessKind kind_of(const std::string& b) {
  if (b == "LDG" || b == "LD" || b == "LDGSTS") return AccessKind::load;
  if (b == "STG" || b == "ST") return AccessKind::store;
  return AccessKind::atomic;
}

// The address of a memory instruction: its last bracketed operand, "desc[UR6][R4.64+0x8]" ->
// R4 + 8, "[R2.64+UR4+-0x4]" -> R2 + UR4 - 4.
std::optional<AddressPolynomial> address_of(const Instruction& ins, const State& state) {
  const std::string* operand = nullptr;
  for (const std::string& op : ins.operands)
    if (op.find('[') != std::string::npos) operand = &op;
  if (!operand) return std::nullopt;
  const std::size_t open = operand->rfind('['), close = operand->rfind(']');
  if (open == std::string::npos || close == std::string::npos || close < open) return std::nullopt;
  const std::string inner = operand->substr(open + 1, close - open - 1);
  Polynomial sum;
  std::size_t start = 0;
  while (start <= inner.size()) {
    const std::size_t plus = inner.find('+', start);
    std::string token = inner.substr(start, plus == std::string::npos ? std::string::npos : plus - start);
    if (token.ends_with(".U32")) token.resize(token.size() - 4);  // a 32-bit register offset
    const auto v = operand_value(token, state, ins.offset);
    if (!v || !v->is_poly() || v->kind == Value::Kind::high) return std::nullopt;
    sum = add(sum, v->poly);
    if (plus == std::string::npos) break;
    start = plus + 1;
  }
  AddressPolynomial out;
  for (const auto& [m, c] : sum) out.push_back({c, m});
  return out;
}

// Registers that hold data loaded from memory or values computed from it: a forward taint. A load
// from global, generic or shared memory taints what it writes, any instruction that reads a tainted
// register taints what it writes, and any other write clears, a predicated one too: ptxas guards a
// computation and its use alike (@!P0 LEA R10 .. ; @!P0 STG [R10]), and keeping the register's
// earlier taint there would flag most guarded stores. The guard does not taint (a loop that stops at
// a loaded bound does not make its counter data); local loads (spill reloads) do not either, since
// which register they restore is not followed.
using Tainted = std::set<std::string>;

bool loads_memory_data(const std::string& b) { return b == "LDG" || b == "LD" || b == "LDS" || b == "LDSM"; }

void taint_step(const Instruction& ins, Tainted& tainted) {
  const RegisterUse use = register_use(ins);
  const std::string guard = ins.guard.empty() ? "" : ins.guard.substr(ins.guard.find_first_not_of("@!"));
  bool from_data = loads_memory_data(ins.base());
  for (const std::string& r : use.reads) from_data = from_data || (r != guard && tainted.count(r) > 0);
  for (const std::string& w : use.writes) {
    if (from_data) tainted.insert(w);
    else tainted.erase(w);
  }
}

bool address_from_loaded_data(const Instruction& ins, const Tainted& tainted) {
  for (const std::string& r : address_registers(ins))
    if (tainted.count(r)) return true;
  return false;
}

// The loop-carried values' trip increments: at a loop head the fixpoint gives a register that a
// back edge changes the value entry + "u:jHEAD:REG"; what the back edge brings is that plus the
// register's gain in one trip. A gain that is the same on every back edge, and holds neither a
// thread index nor a loop-carried value, is that symbol's increment; `conflicting` collects the
// symbols without one (erased from `increments` once every block is seen).
struct LoopIncrements {
  std::map<std::string, Polynomial> increments;
  std::set<std::string> conflicting;
  // The back edges out of block [first, last) whose registers leave it as `out` (its state at the end).
  void record(const std::vector<Instruction>& code, const std::vector<std::pair<std::size_t, std::size_t>>& blocks,
              const std::vector<std::size_t>& block_successors, std::size_t last, const std::vector<State>& in,
              const State& out) {
    for (const std::size_t s : block_successors) {
      if (code[blocks[s].first].offset > code[last - 1].offset) continue;  // not a back edge
      const std::string site = "u:j" + hex(code[blocks[s].first].offset) + ":";
      for (const auto& [reg, head] : in[s]) {
        const std::string symbol = site + reg;
        if (!head.is_poly() || !mentions(head.poly, symbol)) continue;
        const auto back = out.find(reg);
        std::optional<Polynomial> gain;
        if (back != out.end() && back->second.is_poly()) gain = add(back->second.poly, head.poly, -1);
        bool usable = gain && !thread_dependent(*gain);
        if (usable)
          for (const auto& [m, c] : *gain)
            for (const std::string& sym : m) usable &= sym.rfind("u:", 0) != 0;
        if (!usable || (increments.count(symbol) && increments[symbol] != *gain)) {
          conflicting.insert(symbol);
          continue;
        }
        increments[symbol] = *gain;
      }
    }
  }
  const std::map<std::string, Polynomial>& settled() {
    for (const std::string& symbol : conflicting) increments.erase(symbol);
    conflicting.clear();
    return increments;
  }
};

// Where an unfollowed value "u:..." was made: the offset of the block it was joined at ("u:jOFFSET:R"),
// of the predicated or selecting instruction ("u:pOFFSET:R", "u:sOFFSET:R"), or of the instruction
// that produced it ("u:OFFSET:R"). None for a constant-bank value ("u:c..."), the same every trip.
std::optional<std::uint32_t> symbol_site(const std::string& symbol) {
  std::size_t at = 0;
  if (symbol.rfind("u:0x", 0) == 0) at = 2;
  else if (symbol.rfind("u:j0x", 0) == 0 || symbol.rfind("u:p0x", 0) == 0 || symbol.rfind("u:s0x", 0) == 0) at = 3;
  else return std::nullopt;
  const std::size_t colon = symbol.find(':', at);
  if (colon == std::string::npos) return std::nullopt;
  return static_cast<std::uint32_t>(std::stoul(symbol.substr(at, colon - at), nullptr, 16));
}

// The address's movement in one trip of its innermost loop [head, latch]: each term carried by that
// loop's head ("u:jHEAD:R") times its increment. A value made outside the loop is constant in it;
// one made inside the loop's body may change every trip, so the movement is unknown (nullopt), as it
// is when a carried term has no increment or is a product of such values.
std::optional<AddressPolynomial> stride_per_trip(const AddressPolynomial& address,
                                                 std::pair<std::uint32_t, std::uint32_t> innermost_loop,
                                                 const std::map<std::string, Polynomial>& increments) {
  const auto [head, latch] = innermost_loop;
  Polynomial stride;
  for (const AddressTerm& t : address) {
    for (const std::string& sym : t.symbols) {
      const std::optional<std::uint32_t> site = symbol_site(sym);
      if (!site || *site < head || *site > latch) continue;  // made outside this loop: constant in it
      if (t.symbols.size() != 1) return std::nullopt;         // a product: not affine in it
      if (*site != head || sym.rfind("u:j", 0) != 0) return std::nullopt;  // made in the body
      const auto it = increments.find(sym);
      if (it == increments.end()) return std::nullopt;
      stride = add(stride, *multiply(Polynomial{{{}, t.coefficient}}, it->second));
    }
  }
  AddressPolynomial out;
  for (const auto& [m, c] : stride) out.push_back({c, m});
  return out;
}

}  // namespace

namespace {
constexpr std::size_t kUnreachable = static_cast<std::size_t>(-1);

// Immediate dominators of a control-flow graph whose entry is block 0 (Cooper, Harvey and Kennedy,
// "A Simple, Fast Dominance Algorithm", 2001): idom[0] = 0, kUnreachable for blocks the entry does
// not reach.
std::vector<std::size_t> immediate_dominators(const std::vector<std::vector<std::size_t>>& successors) {
  const std::size_t n = successors.size();
  std::vector<std::size_t> idom(n, kUnreachable);
  if (n == 0) return idom;
  // Reverse postorder from the entry (iterative depth-first search).
  std::vector<std::size_t> postorder, order(n, kUnreachable);
  std::vector<char> seen(n, 0);
  std::vector<std::pair<std::size_t, std::size_t>> stack = {{0, 0}};
  seen[0] = 1;
  while (!stack.empty()) {
    auto& [node, next] = stack.back();
    if (next < successors[node].size()) {
      const std::size_t s = successors[node][next++];
      if (!seen[s]) {
        seen[s] = 1;
        stack.emplace_back(s, 0);
      }
    } else {
      order[node] = postorder.size();
      postorder.push_back(node);
      stack.pop_back();
    }
  }
  std::vector<std::vector<std::size_t>> predecessors(n);
  for (std::size_t k = 0; k < n; ++k)
    for (std::size_t s : successors[k]) predecessors[s].push_back(k);
  const auto intersect = [&](std::size_t a, std::size_t b) {
    while (a != b) {
      while (order[a] < order[b]) a = idom[a];
      while (order[b] < order[a]) b = idom[b];
    }
    return a;
  };
  idom[0] = 0;
  for (bool changed = true; changed;) {
    changed = false;
    for (auto it = postorder.rbegin(); it != postorder.rend(); ++it) {
      const std::size_t b = *it;
      if (b == 0) continue;
      std::size_t d = kUnreachable;
      for (std::size_t p : predecessors[b])
        if (idom[p] != kUnreachable) d = d == kUnreachable ? p : intersect(p, d);
      if (d != idom[b]) idom[b] = d, changed = true;
    }
  }
  return idom;
}

// An unpredicated `ISETP.<cmp>.AND P, PT, A, B, PT` (or its uniform form) on index arithmetic: the
// polynomials A and B as the block's registers hold them there.
std::optional<std::pair<Polynomial, Polynomial>> compared_polynomials(const Instruction& ins, const Interpreter& interpreter,
                                                                      const State& state) {
  const auto& ops = ins.operands;
  if ((ins.base() != "ISETP" && ins.base() != "UISETP") || is_predicated(ins) || !ins.has_modifier("AND") ||
      ops.size() < 5 || (ops[1] != "PT" && ops[1] != "UPT") || (ops[4] != "PT" && ops[4] != "UPT"))
    return std::nullopt;
  const State view = interpreter.view(ins, state);
  const auto a = operand_value(ops[2], view, ins.offset);
  const auto b = operand_value(ops[3], view, ins.offset);
  if (!a || !b || !a->is_poly() || !b->is_poly()) return std::nullopt;
  return std::pair{a->poly, b->poly};
}

// H.1d's region: a forward branch or an exit that every thread but the grid's first takes (`@P BRA`
// or `@P EXIT` after `ISETP.NE.AND P, PT, A, B, PT`, or `@!P` after `.EQ`, A - B zero for the
// first thread alone) before code holding a loop (up to the branch's target, or the kernel's end);
// and a warp's instructions and global loads outside it, where no loop lies outside (a loop there
// makes the count per warp unknown).
std::optional<FirstThreadLoop> first_thread_loop(const std::vector<Instruction>& code,
                                                 const std::vector<std::pair<std::size_t, std::size_t>>& blocks,
                                                 const std::vector<State>& in, const std::vector<bool>& reached,
                                                 const std::vector<std::pair<std::uint32_t, std::uint32_t>>& loops) {
  std::optional<FirstThreadLoop> found;
  for (std::size_t k = 0; k < blocks.size() && !found; ++k) {
    if (!reached[k]) continue;
    State state = in[k];
    Interpreter interpreter;
    std::map<std::string, std::pair<bool, std::vector<std::string>>> zero_tests;  // P -> (P means "not zero", indices)
    for (std::size_t i = blocks[k].first; i < blocks[k].second; ++i) {
      const Instruction& ins = code[i];
      const bool skips = (ins.base() == "BRA" && ins.target && *ins.target > ins.offset) || ins.base() == "EXIT";
      if (skips && is_predicated(ins) && i + 1 < code.size()) {
        const auto [predicate, negated] = guard_predicate(ins);
        const auto it = zero_tests.find(predicate);
        if (it != zero_tests.end() && it->second.first != negated) {
          // A branch skips to its target; an exit leaves the rest of the kernel to the first thread.
          const std::uint32_t begin = code[i + 1].offset;
          const std::uint32_t end = ins.base() == "BRA" ? *ins.target : code.back().offset + 1;
          bool loop_inside = false, loop_outside = false;
          for (const auto& [first, last] : loops)
            (first >= begin && last < end ? loop_inside : loop_outside) = true;
          if (loop_inside && !loop_outside) found = FirstThreadLoop{begin, end, it->second.second, 0, 0};
        }
      }
      for (const std::string& w : register_use(ins).writes) zero_tests.erase(w);
      // ISETP.NE|EQ.AND P, PT, A, B, PT with A - B (or B - A) zero for the first thread alone.
      if (const auto ab = compared_polynomials(ins, interpreter, state);
          ab && (ins.has_modifier("NE") || ins.has_modifier("EQ"))) {
        const Polynomial difference = add(ab->first, ab->second, -1);
        std::vector<std::string> indices;
        if (zero_only_for_first_thread(difference, indices) || zero_only_for_first_thread(add({}, difference, -1), indices))
          zero_tests[ins.operands[0]] = {ins.has_modifier("NE"), indices};
      }
      interpreter.step(ins, state);
    }
  }
  if (!found) return std::nullopt;
  for (std::size_t k = 0; k < blocks.size(); ++k) {
    if (!reached[k]) continue;
    for (std::size_t i = blocks[k].first; i < blocks[k].second; ++i) {
      if (code[i].offset >= found->begin && code[i].offset < found->end) continue;
      ++found->instructions_outside;
      const std::string b = code[i].base();
      if (is_global_access(b) && kind_of(b) == AccessKind::load) ++found->global_loads_outside;
    }
  }
  return found;
}

// H.1e's bound: in the kernel's first block, `ISETP.GT|GE|LT|LE.AND P, PT, I, C, PT` with I the 1-D
// global index (ctaid.x * ntid.x + tid.x) and C a constant, then an exit the threads past C take
// (`@P EXIT` after GT or GE, `@!P EXIT` after LT or LE). The threads that pass: C + 1 (GT, LE) or C.
std::optional<long long> threads_under_constant_bound(const std::vector<Instruction>& code,
                                                      const std::vector<std::pair<std::size_t, std::size_t>>& blocks,
                                                      const std::vector<State>& in) {
  if (blocks.empty()) return std::nullopt;
  const Polynomial global_index = {{{"ctaid.x", "ntid.x"}, 1}, {{"tid.x"}, 1}};
  State state = in[0];
  Interpreter interpreter;
  std::map<std::string, std::pair<std::string, long long>> bounds;  // P -> (comparison, C)
  for (std::size_t i = blocks[0].first; i < blocks[0].second; ++i) {
    const Instruction& ins = code[i];
    if (ins.base() == "EXIT" && is_predicated(ins)) {
      const auto [predicate, negated] = guard_predicate(ins);
      const auto it = bounds.find(predicate);
      if (it == bounds.end()) return std::nullopt;
      const auto& [cmp, c] = it->second;
      if (!negated && cmp == "GT") return c + 1;
      if (!negated && cmp == "GE") return c;
      if (negated && cmp == "LT") return c;
      if (negated && cmp == "LE") return c + 1;
      return std::nullopt;
    }
    for (const std::string& w : register_use(ins).writes) bounds.erase(w);
    if (const auto ab = compared_polynomials(ins, interpreter, state)) {
      const Polynomial& b = ab->second;
      const bool constant = b.empty() || (b.size() == 1 && b.begin()->first.empty());
      if (ab->first == global_index && constant) {
        const long long c = b.empty() ? 0 : b.begin()->second;
        for (const char* cmp : {"GT", "GE", "LT", "LE"})
          if (ins.has_modifier(cmp) && c >= 0) bounds[ins.operands[0]] = {cmp, c};
      }
    }
    interpreter.step(ins, state);
  }
  return std::nullopt;
}

}  // namespace

AccessPatterns analyse_addresses(const KernelListing& listing) {
  AccessPatterns out;
  const std::vector<Instruction> code = strip_padding(listing.instructions);
  if (code.empty()) return out;
  const std::vector<std::uint32_t> leaders = leader_offsets(code);
  // Basic blocks as index ranges of `code`.
  std::map<std::uint32_t, std::size_t> block_of_offset;
  std::vector<std::pair<std::size_t, std::size_t>> blocks;
  {
    std::set<std::uint32_t> leader_set(leaders.begin(), leaders.end());
    for (std::size_t i = 0; i < code.size(); ++i) {
      if (i == 0 || leader_set.count(code[i].offset)) {
        if (!blocks.empty()) blocks.back().second = i;
        blocks.emplace_back(i, code.size());
        block_of_offset[code[i].offset] = blocks.size() - 1;
      }
    }
  }
  // Successors of each block.
  std::vector<std::vector<std::size_t>> successors(blocks.size());
  for (std::size_t k = 0; k < blocks.size(); ++k) {
    const Instruction& last = code[blocks[k].second - 1];
    const std::string b = last.base();
    const bool predicated = is_predicated(last);
    const bool has_next = k + 1 < blocks.size();
    if (b == "BRA" && last.target && block_of_offset.count(*last.target)) {
      successors[k].push_back(block_of_offset[*last.target]);
      if (predicated && has_next) successors[k].push_back(k + 1);
    } else if (b == "EXIT" || b == "RET" || b == "KILL") {
      if (predicated && has_next) successors[k].push_back(k + 1);
    } else if (has_next) {
      successors[k].push_back(k + 1);
    }
  }
  // Loops: a back edge (a branch to a block that dominates it) closes one around [target, branch].
  // A backward branch alone is not enough: ptxas puts the retry of a wait (mbarrier try_wait) in a
  // block after the kernel's body that branches back into it, and 32 unrolled waits read as 32
  // nested loops (loop depth 33 in a TMA latency kernel on an H100).
  const std::vector<std::size_t> idom = immediate_dominators(successors);
  const auto dominates = [&](std::size_t a, std::size_t b) {  // a dominates b (both reachable)
    for (std::size_t x = b;; x = idom[x]) {
      if (x == a) return true;
      if (x == idom[x] || idom[x] == kUnreachable) return false;
    }
  };
  std::vector<std::pair<std::uint32_t, std::uint32_t>> loops;
  for (std::size_t k = 0; k < blocks.size(); ++k) {
    const Instruction& ins = code[blocks[k].second - 1];
    if (ins.base() != "BRA" || !ins.target || *ins.target > ins.offset || !block_of_offset.count(*ins.target)) continue;
    const std::size_t header = block_of_offset[*ins.target];
    if (idom[k] != kUnreachable && idom[header] != kUnreachable && dominates(header, k))
      loops.emplace_back(*ins.target, ins.offset);
  }

  // Fixpoint over the blocks, lowest offset first.
  std::vector<State> in(blocks.size());
  std::vector<bool> reached(blocks.size(), false);
  reached[0] = true;
  std::set<std::size_t> work = {0};
  std::size_t steps = 0;
  const std::size_t max_steps = 64 * blocks.size() + 64;
  while (!work.empty() && steps++ < max_steps) {
    const std::size_t k = *work.begin();
    work.erase(work.begin());
    State state = in[k];
    Interpreter interpreter;
    for (std::size_t i = blocks[k].first; i < blocks[k].second; ++i) interpreter.step(code[i], state);
    for (const std::size_t s : successors[k]) {
      State merged = in[s];
      bool changed = !reached[s];
      reached[s] = true;
      std::string site = hex(code[blocks[s].first].offset);
      site.insert(site.begin(), 'j');
      site.push_back(':');
      for (const auto& [reg, v] : state) {
        std::string key = site;
        key += reg;
        const Value j = join(merged[reg], v, key);
        if (!(j == merged[reg])) {
          merged[reg] = j;
          changed = true;
        }
      }
      if (changed) {
        in[s] = std::move(merged);
        work.insert(s);
      }
    }
  }
  const bool converged = work.empty();

  // The taint of loaded data, to a fixpoint (sets only grow: it always converges).
  std::vector<Tainted> taint_in(blocks.size());
  std::vector<bool> taint_reached(blocks.size(), false);
  taint_reached[0] = true;
  for (std::set<std::size_t> pending = {0}; !pending.empty();) {
    const std::size_t k = *pending.begin();
    pending.erase(pending.begin());
    Tainted taint = taint_in[k];
    for (std::size_t i = blocks[k].first; i < blocks[k].second; ++i) taint_step(code[i], taint);
    for (const std::size_t s : successors[k]) {
      const std::size_t before = taint_in[s].size();
      taint_in[s].insert(taint.begin(), taint.end());
      if (!taint_reached[s] || taint_in[s].size() != before) pending.insert(s);
      taint_reached[s] = true;
    }
  }

  // The accesses, with the registers as the fixpoint leaves them; on the way, the loops' increments
  // (each block's back edges, from the state it ends with), for the strides once every block is seen.
  int regular = 0, data_dependent = 0;
  LoopIncrements loop_increments;
  std::vector<std::optional<std::pair<std::uint32_t, std::uint32_t>>> innermost_loops;  // per access
  for (std::size_t k = 0; k < blocks.size(); ++k) {
    State state = in[k];
    Tainted taint = taint_in[k];
    Interpreter interpreter;
    for (std::size_t i = blocks[k].first; i < blocks[k].second; ++i) {
      const Instruction& ins = code[i];
      const std::string b = ins.base();
      if (is_global_access(b)) {
        MemoryAccess a;
        a.offset = ins.offset;
        a.opcode = ins.opcode;
        a.kind = kind_of(b);
        a.bytes_per_thread = access_bytes(ins);
        std::optional<std::pair<std::uint32_t, std::uint32_t>> innermost_loop;
        for (const auto& loop : loops) {
          if (ins.offset < loop.first || ins.offset > loop.second) continue;
          ++a.loop_depth;
          if (!innermost_loop || loop.first > innermost_loop->first) innermost_loop = loop;
        }
        if (reached[k] && converged) a.address = address_of(ins, interpreter.view(ins, state));
        a.address_from_loaded_data = address_from_loaded_data(ins, taint);
        regular += a.address.has_value();
        data_dependent += a.address_from_loaded_data;
        out.accesses.push_back(std::move(a));
        innermost_loops.push_back(innermost_loop);
      }
      interpreter.step(ins, state);
      taint_step(ins, taint);
    }
    if (reached[k] && converged) loop_increments.record(code, blocks, successors[k], blocks[k].second, in, state);
  }
  if (converged) {
    out.first_thread_loop = first_thread_loop(code, blocks, in, reached, loops);
    out.threads_under_constant_bound = threads_under_constant_bound(code, blocks, in);
  }
  const std::map<std::string, Polynomial>& increments = loop_increments.settled();
  for (std::size_t i = 0; i < out.accesses.size(); ++i) {
    MemoryAccess& a = out.accesses[i];
    if (a.address && innermost_loops[i]) a.stride_per_trip = stride_per_trip(*a.address, *innermost_loops[i], increments);
  }
  out.source = "sass address analysis of " + listing.name + ": " + std::to_string(out.accesses.size()) +
               " global accesses, " + std::to_string(regular) + " affine in the thread indices, " +
               std::to_string(data_dependent) + " at addresses from loaded data" +
               (converged ? "" : " (the analysis did not converge: every access counted irregular)");
  return out;
}

}  // namespace warpmodel::sass
