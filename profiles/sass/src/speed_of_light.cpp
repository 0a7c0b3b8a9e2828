// Speed of light per launch (speed_of_light.hpp).
#include "warpmodel/sass/speed_of_light.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "warpmodel/counter_rules.hpp"
#include "warpmodel/sass/analysis.hpp"

namespace warpmodel::sass {
namespace {

std::optional<double> metric(const CounterLaunch& l, const std::string& name) {
  if (const auto it = l.metrics.find(name); it != l.metrics.end() && std::isfinite(it->second)) return it->second;
  return std::nullopt;
}

// Thread operations of the named counters (smsp__sass_thread_inst_executed_op_<op>_pred_on.sum).
std::optional<double> thread_ops(const CounterLaunch& l, std::initializer_list<const char*> ops) {
  std::optional<double> sum;
  for (const char* op : ops)
    if (const auto v = metric(l, std::string("smsp__sass_thread_inst_executed_op_") + op + "_pred_on.sum"))
      sum = sum.value_or(0) + *v;
  return sum;
}

bool positive(const std::optional<double>& v) { return v && std::isfinite(*v) && *v > 0; }

}  // namespace

const std::vector<std::pair<std::string, std::string>>& speed_of_light_resources() {
  static const std::vector<std::pair<std::string, std::string>> kResources = {
      {"DRAM", "dram"}, {"L2", "l2"}, {"L1/shared", "l1_shared"}, {"issue slots", "issue"},
      {"FP32", "fp32"}, {"FP64", "fp64"}, {"SFU", "sfu"}};
  return kResources;
}

std::vector<CeilingShare> speed_of_light(const CounterLaunch& l, const DeviceProfile& d) {
  std::vector<CeilingShare> out;
  if (!l.duration_ns || !(*l.duration_ns > 0) || !std::isfinite(*l.duration_ns)) return out;
  const double seconds = *l.duration_ns * 1e-9;
  const double clock_hz = d.sm_clock_mhz * 1e6;
  auto add = [&](const char* resource, const char* key, double needed_seconds) {
    if (std::isfinite(needed_seconds) && needed_seconds >= 0) out.push_back({resource, key, needed_seconds / seconds});
  };
  auto gbs = [](std::initializer_list<std::optional<double>> candidates) -> std::optional<double> {
    for (const auto& c : candidates)
      if (positive(c)) return *c * 1e9;
    return std::nullopt;
  };

  // DRAM: reads and writes, each at its measured rate.
  {
    const auto read = metric(l, "dram__bytes_read.sum"), write = metric(l, "dram__bytes_write.sum");
    const auto read_bw = gbs({d.dram_read_bandwidth_gbs, d.dram_copy_bandwidth_gbs, d.mem_peak_bandwidth_gbs});
    const auto write_bw = gbs({d.dram_write_bandwidth_gbs, d.dram_copy_bandwidth_gbs, d.mem_peak_bandwidth_gbs});
    if ((read || write) && read_bw && write_bw) add("DRAM", "dram", read.value_or(0) / *read_bw + write.value_or(0) / *write_bw);
  }
  // L2: the kernel's requests by operation, the written ones at the write rate.
  {
    const counter_rules::Lookup lookup = [&](const std::string& name) { return metric(l, name); };
    const auto read_bw = gbs({d.l2_read_bandwidth_gbs});
    const auto write_bw = gbs({d.l2_write_bandwidth_gbs, d.l2_read_bandwidth_gbs});
    if (read_bw && write_bw) {
      if (const auto total = counter_rules::l2_request_bytes(lookup)) {
        const auto written = counter_rules::l2_written_bytes(lookup);
        const double w = written ? std::min(written->total, total->total) : 0;
        add("L2", "l2", (total->total - w) / *read_bw + w / *write_bw);
      } else if (const auto bytes = metric(l, "lts__t_bytes.sum")) {
        add("L2", "l2", *bytes / *read_bw);
      }
    }
  }
  // L1/shared data path: one 128-byte wavefront per clock per SM at most; the measured shared rate.
  if (const auto wavefronts = metric(l, counter_rules::kL1Wavefronts); wavefronts && positive(d.shared_read_bandwidth_gbs))
    add("L1/shared", "l1_shared", *wavefronts * 128.0 / (*d.shared_read_bandwidth_gbs * 1e9));
  // Issue: one warp instruction per clock per scheduler.
  if (const auto inst = metric(l, "smsp__inst_executed.sum"); inst && d.sm_count > 0 && clock_hz > 0)
    add("issue slots", "issue", *inst / (d.sm_count * d.limits.sub_partitions_per_sm * clock_hz));
  // Arithmetic pipes, where the counters give thread operations and characterize measured the rate.
  auto pipe = [&](const char* resource, const char* key, const std::optional<double>& ops,
                  const std::optional<double>& per_clock_per_sm) {
    if (ops && positive(per_clock_per_sm) && d.sm_count > 0 && clock_hz > 0)
      add(resource, key, *ops / (*per_clock_per_sm * d.sm_count * clock_hz));
  };
  pipe("FP32", "fp32", thread_ops(l, {"fadd", "fmul", "ffma"}), d.fp32_ops_per_clock_per_sm);
  pipe("FP64", "fp64", thread_ops(l, {"dadd", "dmul", "dfma"}), d.fp64_ops_per_clock_per_sm);
  if (const auto xu = metric(l, "smsp__inst_executed_pipe_xu.sum"))
    pipe("SFU", "sfu", *xu * d.warp_size(), d.sfu_ops_per_clock_per_sm);
  return out;
}

std::string speed_of_light_summary(const std::vector<CeilingShare>& shares, std::size_t n) {
  std::vector<CeilingShare> sorted = shares;
  std::stable_sort(sorted.begin(), sorted.end(), [](const CeilingShare& a, const CeilingShare& b) { return a.share > b.share; });
  std::string out;
  for (std::size_t i = 0; i < sorted.size() && i < n; ++i) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s %.0f %%", sorted[i].resource.c_str(), 100.0 * sorted[i].share);
    out += (out.empty() ? "" : ", ") + std::string(buf);
  }
  return out.empty() ? "-" : out;
}

std::optional<double> counted_flops(const CounterLaunch& l) {
  const auto once = thread_ops(l, {"fadd", "fmul", "dadd", "dmul"});
  const auto twice = thread_ops(l, {"ffma", "dfma"});
  if (!once && !twice) return std::nullopt;
  return once.value_or(0) + 2 * twice.value_or(0);
}

std::optional<double> estimated_flops(const CounterLaunch& l, const KernelStatics& s) {
  const auto inst = metric(l, "smsp__inst_executed.sum");
  if (!inst || s.static_instructions <= 0) return std::nullopt;
  auto count = [&](const char* op) {
    const auto it = s.opcode_histogram.find(op);
    return it == s.opcode_histogram.end() ? 0.0 : static_cast<double>(it->second);
  };
  const double flops_per_instruction =
      (count("FADD") + count("FADD32I") + count("FMUL") + count("FMUL32I") + count("DADD") + count("DMUL") +
       2 * (count("FFMA") + count("FFMA32I") + count("DFMA"))) /
      s.static_instructions;
  return *inst * flops_per_instruction * 32.0;
}

std::optional<double> dram_bytes(const CounterLaunch& l) {
  const auto read = metric(l, "dram__bytes_read.sum"), write = metric(l, "dram__bytes_write.sum");
  if (!read && !write) return std::nullopt;
  return read.value_or(0) + write.value_or(0);
}

}  // namespace warpmodel::sass
