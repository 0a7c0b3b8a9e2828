#include "warpmodel/sass/analysis.hpp"

#include "warpmodel/sass/address_analysis.hpp"

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>
#include <unordered_map>

namespace warpmodel::sass {
namespace {

using Set = std::set<std::string, std::less<>>;

bool in(const Set& s, const std::string& x) { return s.find(x) != s.end(); }

// Opcodes after which a basic block ends (see the header).
const Set kBlockEnders = {"BRA", "BRX", "BRXU", "JMP", "JMX", "JMXU", "CALL", "RET",
                          "EXIT", "BSYNC", "BREAK", "KILL", "BPT"};

// Opcodes with no register destination: their operands are all read.
const Set kNoDestination = {
    "ST",       "STG",      "STS",     "STL",      "STSM",     "RED",      "REDG",      "BAR",
    "MEMBAR",   "FENCE",    "BRA",     "BRX",      "BRXU",     "JMP",      "JMX",       "JMXU",
    "CALL",     "RET",      "EXIT",    "BSSY",     "BSYNC",    "WARPSYNC", "NOP",       "YIELD",
    "ERRBAR",   "CCTL",     "CCTLL",   "DEPBAR",   "LDGDEPBAR", "LDGSTS",  "ARRIVES",   "UTMALDG",
    "UTMASTG",  "UTMAPF",   "UTMAREDG", "UTMACCTL", "UTMACMDFLUSH", "UBLKCP", "UBLKRED", "UBLKPF",
    "BPT",      "KILL",     "BREAK",   "NANOSLEEP", "PMTRIG",  "SUST",     "SURED",     "CGAERRBAR",
    "STAS",     "UCGABAR_ARV", "UCGABAR_WAIT"};

const Set kFp32 = {"FADD", "FADD32I", "FMUL", "FMUL32I", "FFMA", "FFMA32I", "FMNMX", "FSET", "FSETP",
                   "FSEL", "FCHK",    "FSWZADD", "FRND"};
const Set kFp64 = {"DADD", "DMUL", "DFMA", "DMNMX", "DSET", "DSETP"};
const Set kFp16 = {"HADD2", "HADD2_32I", "HMUL2", "HMUL2_32I", "HFMA2", "HFMA2_32I", "HMNMX2", "HSET2", "HSETP2"};
const Set kTensor = {"HMMA", "IMMA", "DMMA", "BMMA", "HGMMA", "IGMMA", "QGMMA", "BGMMA"};
const Set kTma = {"UTMALDG", "UTMASTG", "UTMAPF", "UTMAREDG", "UBLKCP", "UBLKRED", "UBLKPF"};
const Set kTexture = {"TEX", "TLD", "TLD4", "TMML", "TXD", "TXQ"};
const Set kSurface = {"SULD", "SUST", "SUATOM", "SURED"};
const Set kConversions = {"F2F", "F2I", "I2F", "F2FP", "I2FP"};

bool is_global_load(const std::string& base) { return base == "LDG" || base == "LD"; }
bool is_load(const std::string& base) {
  return base == "LDG" || base == "LD" || base == "LDS" || base == "LDL" || base == "LDC" || base == "ULDC" ||
         base == "ATOM" || base == "ATOMG" || base == "ATOMS";
}
bool is_store(const std::string& base) {
  return base == "STG" || base == "ST" || base == "STS" || base == "STL" || base == "RED" || base == "REDG";
}

// "HFMA2.MMA R5, -RZ, RZ, 1.5, 0" writes a constant: a move, not arithmetic.
bool is_constant_move(const Instruction& ins) {
  return ins.base() == "HFMA2" && ins.operands.size() >= 3 && ins.operands[1] == "-RZ" && ins.operands[2] == "RZ";
}

void count(const Instruction& ins, InstructionMix& m) {
  const std::string b = ins.base();
  // memory
  if (b == "LDG") ++m.ldg;
  else if (b == "STG") ++m.stg;
  else if (b == "LDS") ++m.lds;
  else if (b == "STS") ++m.sts;
  else if (b == "LDC") ++m.ldc;
  else if (b == "ULDC") ++m.uldc;
  else if (b == "LDL") ++m.ldl;
  else if (b == "STL") ++m.stl;
  else if (b == "LD") ++m.ld;
  else if (b == "ST") ++m.st;
  else if (b == "ATOM" || b == "ATOMG" || b == "RED" || b == "REDG") ++m.atom;
  else if (b == "ATOMS") ++m.atoms;
  else if (b == "LDGSTS") ++m.ldgsts;
  else if (b == "LDSM" || b == "STSM") ++m.ldsm;
  else if (in(kTma, b)) ++m.tma;
  else if (in(kTexture, b)) ++m.texture;
  else if (in(kSurface, b)) ++m.surface;
  // arithmetic
  else if (in(kFp32, b)) ++m.fp32;
  else if (in(kFp64, b)) ++m.fp64;
  else if (in(kFp16, b)) { if (!is_constant_move(ins)) ++m.fp16; }
  else if (in(kTensor, b)) ++m.tensor;
  else if (b == "MUFU") ++m.sfu;
  // synchronisation and control
  else if (b == "BAR") ++m.bar;
  else if (b == "WARPSYNC") ++m.warpsync;
  else if (b == "MEMBAR" || b == "FENCE") ++m.membar;
  else if (b == "SYNCS") ++m.mbarrier;
  else if (b == "BRA" || b == "BRX" || b == "BRXU" || b == "JMP" || b == "JMX" || b == "JMXU") ++m.branch;
  else if (b == "CALL") ++m.call;
  else if (b == "EXIT") ++m.exit;
  else if (b == "RET") ++m.ret;
  else if (b == "NOP") ++m.nop;
}

bool is_padding_branch(const Instruction& ins) {
  return ins.base() == "BRA" && ins.guard.empty() && ins.target && *ins.target == ins.offset;
}

// Register tokens in an operand: R12, UR4, P0, UP1, RZ, URZ, PT, UPT, PR, with an optional width.
const std::regex& register_re() {
  static const std::regex re(R"((?:^|[^A-Za-z0-9_])(U?R(?:\d+|Z)|U?P(?:\d+|T)|PR)(\.64|\.128)?(?![A-Za-z0-9_]))");
  return re;
}

bool is_predicate_token(const std::string& operand) {
  static const std::regex re(R"(U?P(?:\d+|T))");
  return std::regex_match(operand, re);
}

// Adds `reg` (width in 32-bit registers) to `out`, expanded to its pair/quad, without the zero
// registers and the true predicate.
void add_register(const std::string& reg, int width, std::vector<std::string>& out) {
  if (reg == "RZ" || reg == "URZ" || reg == "PT" || reg == "UPT") return;
  if (reg == "PR") {  // all predicate registers at once (P2R / R2P)
    for (int i = 0; i < 7; ++i) out.push_back("P" + std::to_string(i));
    return;
  }
  const std::size_t digits = reg.find_first_of("0123456789");
  if (digits == std::string::npos) return;
  const std::string prefix = reg.substr(0, digits);
  const int n = std::stoi(reg.substr(digits));
  const int w = (prefix == "R" || prefix == "UR") ? std::max(width, 1) : 1;
  for (int i = 0; i < w; ++i) out.push_back(prefix + std::to_string(n + i));
}

void add_operand_registers(const std::string& operand, int width, std::vector<std::string>& out) {
  const bool descriptor = operand.rfind("desc[", 0) == 0;  // desc[URn] is a 64-bit descriptor pair
  bool first = true;
  for (auto it = std::sregex_iterator(operand.begin(), operand.end(), register_re()); it != std::sregex_iterator();
       ++it) {
    const std::string suffix = (*it)[2].str();
    int w = suffix == ".64" ? 2 : suffix == ".128" ? 4 : width;
    if (descriptor && first) w = 2;
    first = false;
    add_register((*it)[1].str(), w, out);
  }
}

// Type modifiers of a conversion in order ("F2F.F64.F32" -> {F64, F32}): destination, source.
std::vector<std::string> conversion_types(const Instruction& ins) {
  std::vector<std::string> types;
  static const std::regex type_re(R"(\.([FSU](?:8|16|32|64)))");
  for (auto it = std::sregex_iterator(ins.opcode.begin(), ins.opcode.end(), type_re); it != std::sregex_iterator();
       ++it)
    types.push_back((*it)[1].str());
  return types;
}
int type_width(const std::string& type) { return type.ends_with("64") ? 2 : 1; }

}  // namespace

int InstructionMix::classified() const {
  return ldg + stg + lds + sts + ldc + uldc + ldl + stl + ld + st + atom + atoms + ldgsts + ldsm + tma + texture +
         surface + fp32 + fp64 + fp16 + tensor + sfu + bar + warpsync + membar + mbarrier + branch + call + exit + ret +
         nop;
}

int access_bytes(const Instruction& ins) {
  if (ins.has_modifier("128")) return 16;
  if (ins.has_modifier("64")) return 8;
  if (ins.has_modifier("U16") || ins.has_modifier("S16")) return 2;
  if (ins.has_modifier("U8") || ins.has_modifier("S8")) return 1;
  return 4;
}

RegisterUse register_use(const Instruction& ins) {
  RegisterUse use;
  const std::string b = ins.base();
  if (!ins.guard.empty()) add_register(ins.guard.substr(ins.guard.find_first_not_of("@!")), 1, use.reads);

  // Which leading operands are destinations.
  std::size_t destinations = 0;
  if (in(kNoDestination, b)) destinations = 0;
  else if (b == "PLOP3" || b == "UPLOP3") destinations = 2;
  else if (b == "VOTE" || b == "VOTEU") destinations = 1;
  else if ((b == "SHFL" || b == "ATOM" || b == "ATOMG" || b == "ATOMS") && !ins.operands.empty() &&
           is_predicate_token(ins.operands[0]))
    destinations = 2;
  else if (!ins.operands.empty()) {
    destinations = 1;  // the first operand, then carry/second predicate outputs right after it
    while (destinations < ins.operands.size() - 1 && is_predicate_token(ins.operands[destinations])) ++destinations;
  }
  destinations = std::min(destinations, ins.operands.size());

  // Operand widths in 32-bit registers.
  const bool memory_data = is_load(b) || is_store(b);
  const int data_width = memory_data ? std::max(1, access_bytes(ins) / 4) : 1;
  const bool double_op = in(kFp64, b);
  const bool wide_multiply = (b == "IMAD" || b == "UIMAD") && ins.has_modifier("WIDE");
  const std::vector<std::string> types = in(kConversions, b) ? conversion_types(ins) : std::vector<std::string>{};
  for (std::size_t i = 0; i < ins.operands.size(); ++i) {
    const bool is_destination = i < destinations;
    int width = 1;
    if (double_op) width = 2;
    else if (is_destination && memory_data) width = data_width;
    else if (!is_destination && is_store(b) && i + 1 == ins.operands.size()) width = data_width;  // stored data
    else if (wide_multiply && (i == 0 || i == 3)) width = 2;
    else if (b == "CS2R" && i == 0 && !ins.has_modifier("32")) width = 2;
    else if (!types.empty()) width = type_width(is_destination ? types.front() : types.back());
    add_operand_registers(ins.operands[i], width, is_destination ? use.writes : use.reads);
  }
  return use;
}

std::vector<std::string> address_registers(const Instruction& ins) {
  std::vector<std::string> out;
  for (auto it = ins.operands.rbegin(); it != ins.operands.rend(); ++it)
    if (it->find('[') != std::string::npos) {
      add_operand_registers(*it, 1, out);
      break;
    }
  return out;
}

std::vector<Instruction> strip_padding(const std::vector<Instruction>& instructions) {
  std::size_t n = instructions.size();
  while (n > 0 && instructions[n - 1].base() == "NOP") --n;
  if (n > 0 && is_padding_branch(instructions[n - 1])) --n;
  return {instructions.begin(), instructions.begin() + static_cast<std::ptrdiff_t>(n)};
}

std::vector<std::uint32_t> leader_offsets(const std::vector<Instruction>& instructions) {
  std::set<std::uint32_t> leaders;
  if (instructions.empty()) return {};
  std::set<std::uint32_t> present;
  for (const auto& i : instructions) present.insert(i.offset);
  leaders.insert(instructions.front().offset);
  for (std::size_t k = 0; k < instructions.size(); ++k) {
    const Instruction& i = instructions[k];
    const std::string b = i.base();
    if (in(kBlockEnders, b) && k + 1 < instructions.size()) leaders.insert(instructions[k + 1].offset);
    if (i.target && (b == "BRA" || b == "BRX" || b == "JMP" || b == "CALL" || b == "BSSY" || b == "WARPSYNC") &&
        present.count(*i.target))
      leaders.insert(*i.target);
  }
  return {leaders.begin(), leaders.end()};
}

namespace {

// Longest RAW chain and MLP windows of one block.
void analyse_block(const std::vector<Instruction>& code, std::size_t begin, std::size_t end, BasicBlock& block) {
  std::unordered_map<std::string, int> depth_of_writer;  // register -> chain depth of its last writer
  std::set<std::string> pending_load_results;           // registers a load in the open window writes
  int window = 0;
  for (std::size_t k = begin; k < end; ++k) {
    const Instruction& ins = code[k];
    const RegisterUse use = register_use(ins);
    int depth = 1;
    bool uses_pending = false;
    for (const auto& r : use.reads) {
      if (auto it = depth_of_writer.find(r); it != depth_of_writer.end()) depth = std::max(depth, it->second + 1);
      uses_pending |= pending_load_results.count(r) > 0;
    }
    for (const auto& r : use.writes) depth_of_writer[r] = depth;
    block.dependency_chain = std::max(block.dependency_chain, depth);

    if (uses_pending) {  // the first use of a result closes the window
      block.mlp = std::max(block.mlp, window);
      window = 0;
      pending_load_results.clear();
    }
    if (is_global_load(ins.base())) {
      ++block.global_loads;
      ++window;
      pending_load_results.insert(use.writes.begin(), use.writes.end());
    } else {
      for (const auto& r : use.writes) pending_load_results.erase(r);  // overwritten before use
    }
  }
  block.mlp = std::max(block.mlp, window);
}

}  // namespace

std::optional<TensorWork> tensor_work(const std::string& opcode) {
  const auto dot = opcode.find('.');
  const std::string base = opcode.substr(0, dot);
  if (dot == std::string::npos) return std::nullopt;
  std::vector<std::string> mods;
  for (std::size_t at = dot + 1; at <= opcode.size();) {
    const auto next = opcode.find('.', at);
    mods.push_back(opcode.substr(at, next == std::string::npos ? std::string::npos : next - at));
    if (next == std::string::npos) break;
    at = next + 1;
  }
  const auto has = [&](const char* m) { return std::find(mods.begin(), mods.end(), m) != mods.end(); };
  const std::string& shape = mods.front();
  double m = 0, n = 0, k = 0, warps = 1;
  static const std::regex warpgroup_re(R"((\d+)x(\d+)x(\d+))");
  std::smatch g;
  if (std::regex_match(shape, g, warpgroup_re)) {  // DMMA.8x8x4; HGMMA.64x128x16: a warpgroup of 4 warps
    m = std::stod(g[1]), n = std::stod(g[2]), k = std::stod(g[3]);
    if (base.size() > 4 && base.compare(base.size() - 4, 4, "GMMA") == 0) warps = 4;
  } else if (std::all_of(shape.begin(), shape.end(), ::isdigit) && shape.size() >= 3) {
    // HMMA.16816, HMMA.1688, HMMA.1684, IMMA.16832, IMMA.8816, DMMA.884: m (16 or 8), n 8, then k.
    const std::size_t m_digits = shape.rfind("16", 0) == 0 ? 2 : 1;
    m = std::stod(shape.substr(0, m_digits));
    n = shape[m_digits] - '0';
    k = std::stod(shape.substr(m_digits + 1));
  } else {
    return std::nullopt;
  }
  TensorWork w;
  w.flops_per_warp_instruction = 2 * m * n * k / warps;
  w.warpgroup = warps == 4;
  if (base == "DMMA") w.type = "fp64";
  else if (base == "IMMA" || base == "IGMMA") w.type = (has("S8") || has("U8")) ? "int8" : "";
  else if (base == "QGMMA" || has("E4M3") || has("E5M2")) w.type = "fp8";
  else if (base == "BMMA" || base == "BGMMA") w.type = "";
  else if (has("TF32")) w.type = "tf32";
  else if (has("BF16")) w.type = "bf16";
  else if (base == "HMMA" || base == "HGMMA") w.type = "fp16";
  else return std::nullopt;
  return w;
}

KernelStatics analyse_kernel(const KernelListing& listing, const std::vector<const CfgFunction*>& cfg,
                             const std::optional<ResourceUsage>& resources) {
  KernelStatics s;
  s.name = listing.name;
  s.demangled = demangle(listing.name);
  s.arch = listing.arch;
  const std::vector<Instruction> code = strip_padding(listing.instructions);
  s.static_instructions = static_cast<int>(code.size());
  s.padding_instructions = static_cast<int>(listing.instructions.size() - code.size());
  s.access_patterns = analyse_addresses(listing);
  int load_bytes = 0;
  bool seen_global_load = false;
  for (const auto& ins : code) {
    count(ins, s.mix);
    ++s.opcode_histogram[ins.base()];
    const std::string b = ins.base();
    if (is_global_load(b)) {
      load_bytes += access_bytes(ins);
      seen_global_load = true;
    }
    if (!seen_global_load) ++s.instructions_before_first_global_load;
    if (b == "STL") s.spill_store_bytes += access_bytes(ins);
    if (b == "LDL") s.spill_load_bytes += access_bytes(ins);
    if (in(kTensor, b)) {
      if (const auto w = tensor_work(ins.opcode); w && !w->type.empty()) {
        s.tensor_flops_by_type[w->type] += w->flops_per_warp_instruction;
        if (!w->warpgroup) s.mma_sync_flops_by_type[w->type] += w->flops_per_warp_instruction;
        ++s.tensor_instructions_read;
      }
    }
    if (b == "UCGABAR_WAIT") ++s.cluster_barrier_waits;
    if (b == "STAS") {
      ++s.remote_shared_stores;
      s.remote_store_bytes_per_thread += access_bytes(ins);
    }
  }
  // The waits for values pushed by other blocks: a kernel's mbarrier try-waits where it pushes with
  // st.async; ptxas puts a wait's retry loop out of line after EXIT (a self-loop there), which is
  // the same wait.
  if (s.remote_shared_stores > 0) {
    bool after_exit = false;
    for (std::size_t i = 0; i < code.size(); ++i) {
      const Instruction& ins = code[i];
      if (ins.base() == "EXIT" && ins.guard.empty()) after_exit = true;
      if (ins.base() != "SYNCS" || ins.opcode.find("TRYWAIT") == std::string::npos) continue;
      const bool self_loop = i + 1 < code.size() && code[i + 1].base() == "BRA" && code[i + 1].target == ins.offset;
      if (!(after_exit && self_loop)) ++s.remote_data_waits;
    }
  }
  {
    double stalls = 0;
    bool every_instruction = !code.empty();
    for (const auto& ins : code) {
      every_instruction &= ins.stall_cycles.has_value();
      stalls += ins.stall_cycles.value_or(0);
    }
    if (every_instruction) s.stall_cycles_per_instruction = stalls / static_cast<double>(code.size());
  }
  const int global_loads = s.mix.ldg + s.mix.ld;
  s.mean_global_load_bytes = global_loads > 0 ? static_cast<double>(load_bytes) / global_loads : 0;

  // Block boundaries: nvdisasm's CFG when given, else the leader rule.
  const std::vector<std::uint32_t> leaders = leader_offsets(code);
  std::vector<std::uint32_t> starts = leaders;
  if (!cfg.empty()) {
    std::set<std::uint32_t> present, from_cfg;
    for (const auto& i : code) present.insert(i.offset);
    s.cfg_edges = 0;
    for (const CfgFunction* f : cfg) {
      s.cfg_edges += static_cast<int>(f->edges.size());
      for (const auto& b : f->blocks)
        if (!b.offsets.empty() && present.count(b.offsets.front())) from_cfg.insert(b.offsets.front());
    }
    if (!code.empty()) from_cfg.insert(code.front().offset);
    starts.assign(from_cfg.begin(), from_cfg.end());
    s.leaders_agree_with_cfg = starts == leaders;
    s.blocks_source = "nvdisasm -bbcfg";
  } else {
    s.blocks_source = "branch targets (leaders)";
  }
  const std::set<std::uint32_t> start_set(starts.begin(), starts.end());
  for (std::size_t k = 0; k < code.size();) {
    std::size_t end = k + 1;
    while (end < code.size() && !start_set.count(code[end].offset)) ++end;
    BasicBlock block;
    block.start_offset = code[k].offset;
    block.instructions = static_cast<int>(end - k);
    analyse_block(code, k, end, block);
    s.blocks.push_back(block);
    k = end;
  }

  if (!s.blocks.empty()) {
    s.thesis_ilp = static_cast<double>(s.static_instructions) / static_cast<double>(s.blocks.size());
    double weighted = 0;
    for (const auto& b : s.blocks) weighted += b.instructions * (static_cast<double>(b.instructions) / b.dependency_chain);
    s.dependency_ilp = weighted / s.static_instructions;
  }
  int loads = 0, max_window = 0;
  double load_weighted = 0;
  for (const auto& b : s.blocks) {
    if (b.global_loads == 0) continue;
    loads += b.global_loads;
    load_weighted += static_cast<double>(b.global_loads) * b.mlp;
    max_window = std::max(max_window, b.mlp);
  }
  if (loads > 0) {
    s.mlp_max = max_window;
    s.mlp_mean = load_weighted / loads;
  }
  s.resources = resources;
  for (const auto& ins : listing.instructions)
    for (auto& v : launch_values_read_by(ins)) s.launch_values_read.insert(std::move(v));
  return s;
}

std::vector<std::string> launch_values_read_by(const Instruction& ins) {
  std::vector<std::string> out;
  const std::string b = ins.base();
  if ((b == "S2R" || b == "S2UR" || b == "CS2R") && ins.operands.size() > 1) {
    static const std::map<std::string, std::string> kSpecial = {
        {"SR_TID", "tid"}, {"SR_CTAID", "ctaid"}, {"SR_NTID", "ntid"}, {"SR_NCTAID", "nctaid"}};
    const std::string& sr = ins.operands[1];
    const std::string name = sr.substr(0, sr.find('.'));
    if (const auto it = kSpecial.find(name); it != kSpecial.end()) {
      if (sr.size() == name.size() + 2 && sr[name.size()] == '.')  // SR_TID.X
        out.push_back(it->second + "." + static_cast<char>(std::tolower(static_cast<unsigned char>(sr.back()))));
      else if (sr == name)  // the whole register: every component
        for (const char* c : {".x", ".y", ".z"}) out.push_back(it->second + c);
    }
    return out;
  }
  // Constant bank 0 below 0x18: blockDim.xyz, then gridDim.xyz (ptxas's sm_70+ layout).
  static const char* kLaunch[] = {"ntid.x", "ntid.y", "ntid.z", "nctaid.x", "nctaid.y", "nctaid.z"};
  const bool wide = ins.has_modifier("64") || ins.has_modifier("128");
  for (const auto& op : ins.operands) {
    const auto at = op.find("c[0x0][");
    if (at == std::string::npos) continue;
    const auto close = op.find(']', at + 7);
    if (close == std::string::npos) continue;
    std::string inner = op.substr(at + 7, close - at - 7);
    unsigned long long offset = 0;
    if (inner == "RZ") {
      offset = 0;
    } else {
      if (inner.rfind("RZ+", 0) == 0) inner = inner.substr(3);
      if (inner.rfind("0x", 0) != 0 || inner.find_first_of("R+") != std::string::npos) continue;
      try {
        offset = std::stoull(inner, nullptr, 16);
      } catch (const std::exception&) {
        continue;
      }
    }
    const unsigned long long words = ins.has_modifier("128") ? 4 : wide ? 2 : 1;
    for (unsigned long long w = 0; w < words; ++w)
      if (const unsigned long long o = offset + 4 * w; o < 0x18 && o % 4 == 0) out.push_back(kLaunch[o / 4]);
  }
  return out;
}

std::vector<KernelStatics> analyse_listing(const std::string& sass_text, const std::string& cfg_dot_text,
                                           const std::string& res_usage_text, const std::string& nv_info_text) {
  const std::vector<KernelListing> kernels = parse_sass_listing(sass_text);
  const std::vector<CfgFunction> cfg = parse_cfg_dot(cfg_dot_text);
  const std::map<std::string, ResourceUsage> usage = parse_resource_usage(res_usage_text);
  const std::map<std::string, ThreadLimits> limits = parse_nv_info(nv_info_text);
  std::vector<KernelStatics> out;
  for (const auto& k : kernels) {
    std::optional<ResourceUsage> r;
    if (auto it = usage.find(k.name); it != usage.end()) r = it->second;
    out.push_back(analyse_kernel(k, cfg_of_kernel(cfg, k.name), r));
    if (auto it = limits.find(k.name); it != limits.end()) {
      out.back().thread_limits = it->second;
      out.back().thread_limits_source = "cuobjdump -elf (.nv.info)";
    }
  }
  return out;
}

}  // namespace warpmodel::sass
