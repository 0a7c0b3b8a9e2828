// `warpmodel roofline`'s points (roofline.hpp).
#include "warpmodel/sass/roofline.hpp"

#include <cmath>
#include <cstdio>
#include <map>

#include "warpmodel/sass/report.hpp"
#include "warpmodel/sass/speed_of_light.hpp"

namespace warpmodel::sass {
namespace {

std::string raw(const std::optional<double>& v) {
  if (!v || !std::isfinite(*v)) return "";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", *v);
  return buf;
}

}  // namespace

std::vector<RooflinePoint> roofline_points(const CounterFile& counters, const std::vector<KernelStatics>& kernels,
                                           const AppPrediction& prediction) {
  std::map<std::string, const KernelStatics*> by_mangled, by_demangled;
  for (const auto& k : kernels) {
    by_mangled.emplace(k.name, &k);
    by_demangled.emplace(k.demangled, &k);
  }
  std::vector<RooflinePoint> out;
  for (std::size_t i = 0; i < counters.launches.size(); ++i) {
    const CounterLaunch& l = counters.launches[i];
    RooflinePoint p;
    p.launch_index = l.launch_index;
    // The kernel's name alone: repeated launches of a kernel draw one label over their points.
    p.label = short_kernel_name(l.demangled.empty() ? demangle(l.kernel) : l.demangled);
    if (!prediction.grouped && i < prediction.rows.size()) p.bound = prediction.rows[i].bound;
    const KernelStatics* statics = nullptr;
    if (auto it = by_mangled.find(l.kernel); it != by_mangled.end()) statics = it->second;
    else if (auto d = by_demangled.find(l.demangled); !l.demangled.empty() && d != by_demangled.end()) statics = d->second;
    if ((p.flops = counted_flops(l))) {
      p.flops_source = "counters";
    } else if (statics && (p.flops = estimated_flops(l, *statics))) {
      p.flops_source = "estimated";
    }
    p.dram_bytes = dram_bytes(l);
    if (l.duration_ns && *l.duration_ns > 0) p.measured_us = *l.duration_ns / 1000.0;
    if (!p.flops) p.note = statics ? "no FLOP counters and no instruction count" : "no FLOP counters and no SASS";
    else if (!(*p.flops > 0)) p.note = "no floating-point operations";
    else if (!p.dram_bytes || !(*p.dram_bytes > 0)) p.note = "no DRAM bytes counted";
    else if (!p.measured_us) p.note = "no measured duration";
    else {
      p.intensity_flop_per_byte = *p.flops / *p.dram_bytes;
      p.flops_per_second = *p.flops / (*p.measured_us * 1e-6);
    }
    out.push_back(std::move(p));
  }
  return out;
}

Table roofline_table(const std::vector<RooflinePoint>& points) {
  Table t;
  t.headers = {"label", "intensity_flop_per_byte", "flops_per_second", "bound",     "launch",
               "flops", "flops_source",            "dram_bytes",       "measured_us", "note"};
  for (const auto& p : points)
    t.rows.push_back({p.label, raw(p.intensity_flop_per_byte), raw(p.flops_per_second), p.bound,
                      std::to_string(p.launch_index), raw(p.flops), p.flops_source, raw(p.dram_bytes),
                      raw(p.measured_us), p.note});
  return t;
}

}  // namespace warpmodel::sass
