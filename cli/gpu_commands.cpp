// GPU subcommands. Built with CUDA: they query the GPU and exit 3 with one line when none is
// usable. Built without CUDA: they say so and exit 3.
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "exit_codes.hpp"
#include "warpmodel/report.hpp"

#ifdef WARPMODEL_HAVE_CUDA
#include "warpmodel/support/cuda.hpp"
#include "device_query.hpp"
#endif

namespace warpmodel::cli {
namespace {

#ifdef WARPMODEL_HAVE_CUDA
int run_devices() {
  std::vector<ubench::GpuInfo> gpus;
  try {
    gpus = ubench::query_gpus();
  } catch (const support::cuda::NoGpuError& e) {
    std::cerr << "warpmodel devices: " << e.what() << "\n";
    return kExitNoGpu;
  }
  Table t;
  t.headers = {"index", "name", "cc", "SMs", "max SM clock (MHz)", "memory (GiB)", "peak BW (GB/s)", "L2 (MiB)",
               "driver", "runtime"};
  for (const auto& g : gpus)
    t.rows.push_back({std::to_string(g.index), g.name, std::to_string(g.cc_major) + "." + std::to_string(g.cc_minor),
                      std::to_string(g.sm_count), format_number(g.sm_clock_mhz),
                      format_number(g.global_memory_bytes / 1073741824.0, 4), format_number(g.mem_peak_bandwidth_gbs, 6),
                      format_number(g.l2_cache_bytes / 1048576.0, 4), std::to_string(g.driver_version),
                      std::to_string(g.runtime_version)});
  std::cout << t.render(TableFormat::Text);
  return kExitOk;
}
#else
int run_devices() {
  return no_cuda_in_this_build("devices");
}
#endif

}  // namespace

void add_gpu_commands(CLI::App& app, Action& action) {
  CLI::App* devices = app.add_subcommand("devices", "list the CUDA GPUs present (GPU subcommand)");
  devices->callback([&action] { action = [] { return run_devices(); }; });
  add_characterize_command(app, action);
  add_stencil_commands(app, action);
  add_adi_commands(app, action);
  add_fwi_commands(app, action);
  add_profile_commands(app, action);
  add_kernel_profile_command(app, action);
}

}  // namespace warpmodel::cli
