#include "warpmodel/sass/report.hpp"

#include "warpmodel/json_io.hpp"
#include "warpmodel/support/provenance.hpp"

#include <filesystem>


namespace warpmodel::sass {
namespace {

std::string integer(long long x) { return std::to_string(x); }
std::string number(double x) { return format_number(x, 4); }


// The instruction-mix columns: (header, value).
std::vector<std::pair<std::string, int>> mix_columns(const InstructionMix& m, bool all) {
  std::vector<std::pair<std::string, int>> c = {
      {"LDG", m.ldg}, {"STG", m.stg}, {"LDS", m.lds}, {"STS", m.sts}, {"LDC", m.ldc + m.uldc},
      {"LDL", m.ldl}, {"STL", m.stl}, {"ATOM", m.atom + m.atoms}, {"FP", m.fp()}, {"SFU", m.sfu}, {"BAR", m.bar}};
  if (!all) return c;
  c[4] = {"LDC", m.ldc};
  c[7] = {"ATOM", m.atom};
  const std::vector<std::pair<std::string, int>> more = {
      {"ULDC", m.uldc},     {"LD", m.ld},         {"ST", m.st},           {"ATOMS", m.atoms},
      {"LDGSTS", m.ldgsts}, {"LDSM", m.ldsm},     {"TMA", m.tma},         {"TEX", m.texture},
      {"SURF", m.surface},  {"FP32", m.fp32},     {"FP64", m.fp64},       {"FP16", m.fp16},
      {"TENSOR", m.tensor}, {"WARPSYNC", m.warpsync}, {"MEMBAR", m.membar}, {"MBARRIER", m.mbarrier},
      {"BRANCH", m.branch}, {"CALL", m.call},     {"EXIT", m.exit},       {"RET", m.ret},
      {"NOP", m.nop},       {"global_memory", m.global_memory()}, {"shared_memory", m.shared_memory()}};
  c.insert(c.end(), more.begin(), more.end());
  return c;
}

}  // namespace

std::string short_kernel_name(const std::string& demangled) {
  std::string s = demangled;
  if (!s.empty() && s.back() == ')') {  // drop the parameter list: match the last '(' at depth 0
    int depth = 0;
    for (std::size_t i = s.size(); i-- > 0;) {
      if (s[i] == ')') ++depth;
      if (s[i] == '(' && --depth == 0) {
        s = s.substr(0, i);
        break;
      }
    }
  }
  if (s.rfind("void ", 0) == 0) s = s.substr(5);
  return s;
}

Table statics_table(const std::vector<KernelStatics>& kernels, TableFormat format) {
  const bool all = format == TableFormat::Csv;
  Table t;
  t.headers = {"kernel"};
  if (all) t.headers.insert(t.headers.end(), {"symbol", "cubin", "arch"});
  t.headers.insert(t.headers.end(), {"inst", "BBs", "ILP_4.26", "ILP_dep", "MLP_max", "MLP_mean", "stall_per_inst"});
  if (kernels.empty()) {
    for (const auto& [h, v] : mix_columns(InstructionMix{}, all)) t.headers.push_back(h);
  } else {
    for (const auto& [h, v] : mix_columns(kernels.front().mix, all)) t.headers.push_back(h);
  }
  t.headers.insert(t.headers.end(), {"REG", "SHARED", "LOCAL", "spill_st_B", "spill_ld_B"});
  if (all)
    t.headers.insert(t.headers.end(), {"STACK", "CONSTANT0", "padding", "inst_before_first_ldg", "mean_ldg_bytes",
                                       "cfg_edges", "blocks_source", "leaders_agree_with_cfg"});
  for (const auto& k : kernels) {
    std::vector<std::string> row = {all ? k.demangled : short_kernel_name(k.demangled)};
    if (all) row.insert(row.end(), {k.name, k.cubin, k.arch});
    row.insert(row.end(), {integer(k.static_instructions), integer(k.basic_blocks()), number(k.thesis_ilp),
                           number(k.dependency_ilp), number(k.mlp_max), number(k.mlp_mean),
                           k.stall_cycles_per_instruction ? number(*k.stall_cycles_per_instruction) : "-"});
    for (const auto& [h, v] : mix_columns(k.mix, all)) row.push_back(integer(v));
    const auto r = [&](int ResourceUsage::*field) { return k.resources ? integer((*k.resources).*field) : "-"; };
    row.insert(row.end(), {r(&ResourceUsage::registers), r(&ResourceUsage::shared_bytes),
                           r(&ResourceUsage::local_bytes), integer(k.spill_store_bytes), integer(k.spill_load_bytes)});
    if (all)
      row.insert(row.end(),
                 {r(&ResourceUsage::stack_bytes), r(&ResourceUsage::constant_bank0_bytes),
                  integer(k.padding_instructions), integer(k.instructions_before_first_global_load),
                  number(k.mean_global_load_bytes), k.cfg_edges < 0 ? "" : integer(k.cfg_edges), k.blocks_source,
                  k.leaders_agree_with_cfg ? (*k.leaders_agree_with_cfg ? "yes" : "no") : ""});
    t.rows.push_back(std::move(row));
  }
  return t;
}

nlohmann::json to_json(const KernelStatics& k) {
  const InstructionMix& m = k.mix;
  const nlohmann::json mix = {
      {"ldg", m.ldg},          {"stg", m.stg},         {"lds", m.lds},           {"sts", m.sts},
      {"ldc", m.ldc},          {"uldc", m.uldc},       {"ldl", m.ldl},           {"stl", m.stl},
      {"ld", m.ld},            {"st", m.st},           {"atom", m.atom},         {"atoms", m.atoms},
      {"ldgsts", m.ldgsts},    {"ldsm", m.ldsm},       {"tma", m.tma},           {"texture", m.texture},
      {"surface", m.surface},  {"fp32", m.fp32},       {"fp64", m.fp64},         {"fp16", m.fp16},
      {"tensor", m.tensor},    {"sfu", m.sfu},         {"bar", m.bar},           {"warpsync", m.warpsync},
      {"membar", m.membar},    {"mbarrier", m.mbarrier}, {"branch", m.branch},   {"call", m.call},
      {"exit", m.exit},        {"ret", m.ret},         {"nop", m.nop},           {"fp", m.fp()},
      {"global_memory", m.global_memory()},            {"shared_memory", m.shared_memory()}};
  nlohmann::json blocks = nlohmann::json::array();
  for (const auto& b : k.blocks)
    blocks.push_back({{"start_offset", b.start_offset},
                      {"instructions", b.instructions},
                      {"dependency_chain", b.dependency_chain},
                      {"global_loads", b.global_loads},
                      {"mlp", b.mlp}});
  nlohmann::json j = {{"name", k.name},
                      {"demangled", k.demangled},
                      {"arch", k.arch},
                      {"cubin", k.cubin},
                      {"static_instructions", k.static_instructions},
                      {"padding_instructions", k.padding_instructions},
                      {"basic_blocks", k.basic_blocks()},
                      {"blocks_source", k.blocks_source},
                      {"thesis_ilp", k.thesis_ilp},
                      {"dependency_ilp", k.dependency_ilp},
                      {"mlp_max", k.mlp_max},
                      {"mlp_mean", k.mlp_mean},
                      {"instructions_before_first_global_load", k.instructions_before_first_global_load},
                      {"mean_global_load_bytes", k.mean_global_load_bytes},
                      {"mix", mix},
                      {"spill_store_bytes", k.spill_store_bytes},
                      {"spill_load_bytes", k.spill_load_bytes},
                      {"opcodes", k.opcode_histogram},
                      {"blocks", blocks},
                      {"access_patterns", warpmodel::to_json(k.access_patterns)}};
  if (k.stall_cycles_per_instruction) j["stall_cycles_per_instruction"] = *k.stall_cycles_per_instruction;
  if (k.mix.tensor > 0)
    j["tensor"] = {{"flops_by_type", k.tensor_flops_by_type}, {"instructions_read", k.tensor_instructions_read}};
  if (k.cluster_barrier_waits > 0 || k.remote_shared_stores > 0)
    j["cluster"] = {{"barrier_waits", k.cluster_barrier_waits},
                    {"remote_shared_stores", k.remote_shared_stores},
                    {"remote_store_bytes_per_thread", k.remote_store_bytes_per_thread},
                    {"remote_data_waits", k.remote_data_waits}};
  if (k.cfg_edges >= 0) j["cfg_edges"] = k.cfg_edges;
  if (k.leaders_agree_with_cfg) j["leaders_agree_with_cfg"] = *k.leaders_agree_with_cfg;
  if (k.resources) {
    const ResourceUsage& r = *k.resources;
    j["resources"] = {{"registers", r.registers},       {"shared_bytes", r.shared_bytes},
                      {"local_bytes", r.local_bytes},   {"stack_bytes", r.stack_bytes},
                      {"constant_bank0_bytes", r.constant_bank0_bytes}, {"fields", r.fields}};
  }
  return j;
}

nlohmann::json access_patterns_document(const BinaryAnalysis& a) {
  nlohmann::json kernels = nlohmann::json::object();
  for (const auto& k : a.kernels) {
    kernels[k.name] = {{"static_instructions", k.static_instructions},
                       {"access_patterns", warpmodel::to_json(k.access_patterns)}};
    // Its thread-block-cluster statics (hopper H.18), where it has any: validate completes the sweeps'
    // launches measured before the kernel profile carried them.
    if (k.cluster_barrier_waits > 0 || k.remote_shared_stores > 0)
      kernels[k.name]["cluster"] = {{"barrier_waits", k.cluster_barrier_waits},
                                    {"remote_shared_stores", k.remote_shared_stores},
                                    {"remote_store_bytes_per_thread", k.remote_store_bytes_per_thread},
                                    {"remote_data_waits", k.remote_data_waits}};
  }
  return {{"schema", "warpmodel.access-patterns/1"},
          {"binary", std::filesystem::path(a.binary).filename().string()},
          {"provenance",
           {{"command", support::this_process_command_line()},
            {"date", support::utc_now()},
            {"commit", support::source_commit()},
            {"how", "cuobjdump -sass of the binary, profiles/sass address_analysis"}}},
          {"kernels", kernels}};
}

nlohmann::json to_json(const BinaryAnalysis& a) {
  nlohmann::json kernels = nlohmann::json::array();
  for (const auto& k : a.kernels) kernels.push_back(to_json(k));
  return {{"schema", kSassSchema}, {"binary", a.binary}, {"warnings", a.warnings}, {"kernels", kernels}};
}

}  // namespace warpmodel::sass
