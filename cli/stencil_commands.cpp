// `warpmodel run-stencil`: the 3D acoustic propagator on the GPU (stencils/gpu). Runs the chosen
// variant, prints the launch and the throughput (kernel time from CUDA events around each step),
// and optionally writes snapshots (VTK ImageData, .vti) and a receiver trace (CSV), each file
// atomically. Bad options: one line, exit 2. No GPU (or a build without CUDA): one line, exit 3.
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "commands.hpp"
#include "options.hpp"
#include "exit_codes.hpp"
#include "warpmodel/json_io.hpp"
#include "warpmodel/support/provenance.hpp"
#include "warpmodel/stencils/acoustic.hpp"

#ifdef WARPMODEL_HAVE_CUDA
#include <cuda_runtime_api.h>

#include <filesystem>

#include "gpu_run_support.hpp"
#include "warpmodel/support/cuda.hpp"
#include "warpmodel/stencils/gpu/propagator.hpp"
#include "warpmodel/stencils/launch_plan.hpp"
#include "warpmodel/stencils/wavefield_io.hpp"
#endif

namespace warpmodel::cli {
namespace {

struct RunStencilArgs {
  int order = 8;
  std::string variant = "intz-reg";
  std::string size = "512x512x512";
  std::string block = "32x4x1";
  int steps = 100;
  int z_chunk = 0;
  int depth = 0;
  std::string loader = "tma";
  std::string model = "two-layer";
  double velocity = 2000;  // m/s, --model constant
  double h = 10;           // m
  double dt = 0;           // s; 0 = 0.9 x the stability limit
  double frequency = 20;   // Hz
  std::string source;      // "i,j,k"; default: the thesis's position scaled (nx/2, ny/2, nz/5)
  std::string receiver;    // "i,j,k"
  std::string trace;       // CSV path
  int snapshot_every = 0;
  std::string snapshot_dir = "snapshots";
  bool energy = false;
  int energy_samples = 30;
  std::string output;   // JSON of the run
  std::string command;  // as given, for the JSON's provenance
};

#ifdef WARPMODEL_HAVE_CUDA
namespace st = warpmodel::stencils;

struct Point {
  std::size_t i, j, k;
};

Point parse_point(const std::string& text, const char* what) {
  std::stringstream ss(text);
  long long v[3];
  char c1 = 0, c2 = 0;
  if (!(ss >> v[0] >> c1 >> v[1] >> c2 >> v[2]) || c1 != ',' || c2 != ',' || !ss.eof() || v[0] < 0 || v[1] < 0 ||
      v[2] < 0)
    throw std::invalid_argument(std::string(what) + " '" + text + "': expected three indices i,j,k");
  return {std::size_t(v[0]), std::size_t(v[1]), std::size_t(v[2])};
}

int run(const RunStencilArgs& a) {
  // Everything about the input first, so a bad option never waits for a GPU.
  st::PropagationSetup setup;
  st::StencilLaunch launch;
  std::vector<float> velocity;
  Point receiver{};
  const bool tracing = !a.trace.empty() || !a.receiver.empty();
  try {
    const st::Dim3 n = st::parse_dim3(a.size, "--size");
    setup.grid = {n.x, n.y, n.z, a.h};
    setup.order = a.order;
    setup.dt = a.dt;
    setup.peak_frequency_hz = a.frequency;
    const Point src = a.source.empty() ? Point{n.x / 2, n.y / 2, n.z / 5} : parse_point(a.source, "--source");
    setup.source_i = src.i, setup.source_j = src.j, setup.source_k = src.k;
    if (a.model == "two-layer")
      velocity = st::two_layer_velocity(setup.grid);
    else if (a.model == "constant") {
      if (!(a.velocity > 0)) throw std::invalid_argument("--velocity must be > 0");
      velocity = st::constant_velocity(setup.grid, float(a.velocity));
    } else
      throw std::invalid_argument("--model '" + a.model + "': use two-layer (thesis listing 3.1) or constant");
    launch.order = a.order;
    launch.variant = st::parse_variant(a.variant);
    launch.block = st::parse_dim3(a.block, "--block");
    launch.nx = n.x, launch.ny = n.y, launch.nz = n.z;
    launch.z_chunk = a.z_chunk;
    launch.pipeline_depth = a.depth;
    launch.loader = st::parse_loader(a.loader);
    if (tracing) {
      if (a.trace.empty() || a.receiver.empty())
        throw std::invalid_argument("a receiver trace needs both --receiver i,j,k and --trace FILE.csv");
      receiver = parse_point(a.receiver, "--receiver");
      if (receiver.i >= n.x || receiver.j >= n.y || receiver.k >= n.z)
        throw std::invalid_argument("--receiver is outside the grid");
    }
    const double vmax = a.model == "constant" ? a.velocity : 4700.0;
    setup = st::validated(setup, vmax);  // order, source, CFL (an unstable --dt is refused, 0 picks one)
    st::plan_block(launch, st::DeviceLimits{});  // block shape and order against the variant
  } catch (const std::invalid_argument& e) {
    std::cerr << "warpmodel run-stencil: " << e.what() << "\n";
    return kExitBadInput;
  }
  try {
    support::cuda::require_gpu();
  } catch (const support::cuda::NoGpuError& e) {
    std::cerr << "warpmodel run-stencil: " << e.what() << "\n";
    return kExitNoGpu;
  }
  std::unique_ptr<energy::NvmlPower> nvml;
  if (a.energy) {  // before anything runs: NVML must be there
    nvml = nvml_for_current_device();
    if (!nvml->available()) {
      std::cerr << "warpmodel run-stencil: --energy: " << nvml->why_unavailable() << "\n";
      return kExitNoGpu;
    }
  }

  try {
    st::gpu::DevicePropagator p(setup, velocity, launch);
    const st::LaunchGeometry& g = p.geometry();
    const st::gpu::KernelHandle k = p.kernel();
    std::printf("run-stencil: %zux%zux%zu, order %d, h %.3g m, dt %.6g s (CFL limit %.6g s), source (%zu,%zu,%zu) %.3g Hz, %s model\n",
                setup.grid.nx, setup.grid.ny, setup.grid.nz, setup.order, setup.grid.h, setup.dt,
                st::courant_limit(setup.order) * setup.grid.h / (a.model == "constant" ? a.velocity : 4700.0),
                setup.source_i, setup.source_j, setup.source_k, setup.peak_frequency_hz, a.model.c_str());
    std::printf("kernel %s: block %s, grid %s, z chunk %d, %zu B shared, %d blocks/SM; Dirichlet boundary (the %d outermost layers stay 0)\n",
                k.name.c_str(), st::to_string(g.block).c_str(), st::to_string(g.grid).c_str(), g.z_chunk,
                g.dynamic_shared_bytes, st::gpu::resident_blocks_per_sm(p.launch()), g.radius);
    namespace fs = std::filesystem;
    if (a.snapshot_every > 0)
      write_file_atomically(fs::path(a.snapshot_dir) / "velocity.vti",
                            st::vti_document(setup.grid, {{"velocity", &velocity}}));
    st::gpu::RunOptions run;
    run.steps = a.steps;
    if (tracing) run.receiver = st::gpu::ReceiverPoint{receiver.i, receiver.j, receiver.k};
    run.snapshot_every = a.snapshot_every;
    int snapshots = 0;
    run.on_snapshot = [&](int step, const std::vector<float>& field) {
      char name[64];
      std::snprintf(name, sizeof name, "wavefield_%06d.vti", step);
      write_file_atomically(fs::path(a.snapshot_dir) / name, st::vti_document(setup.grid, {{"pressure", &field}}));
      ++snapshots;
    };
    const st::gpu::TimedRun timed = st::gpu::run_timed(p, run);
    const double kernel_seconds = timed.kernel_seconds;
    if (tracing) {
      std::vector<st::TraceSample> samples;
      for (int s = 0; s < a.steps; ++s) samples.push_back({s + 1, (s + 1) * setup.dt, double(timed.receiver_samples[s])});
      write_file_atomically(a.trace, st::trace_csv(samples));
    }
    const double points = double(setup.grid.size()) * a.steps;
    double peak = 0;
    for (float v : p.pressure()) peak = std::max(peak, double(std::fabs(v)));
    std::printf("%d steps: %.4f ms per step, %.3f Gpoints/s, %.1f GB/s effective (16 B per point); max |p| %.4g\n",
                a.steps, kernel_seconds / a.steps * 1e3, points / kernel_seconds / 1e9,
                points * st::effective_bytes_per_point() / kernel_seconds / 1e9, peak);
    if (snapshots) std::printf("wrote %d snapshots and velocity.vti to %s\n", snapshots, a.snapshot_dir.c_str());
    if (tracing) std::printf("wrote the receiver trace at (%zu,%zu,%zu) to %s\n", receiver.i, receiver.j, receiver.k, a.trace.c_str());
    if (!std::isfinite(peak)) {
      std::cerr << "warpmodel run-stencil: the field is not finite\n";
      return kExitInternal;
    }
    std::optional<EnergyReport> energy;
    if (nvml) {
      // --steps steps a region, as timed above (the field goes on from where the run left it).
      energy = measure_region_energy(*nvml, [&] { p.run(a.steps); }, a.steps, double(setup.grid.size()),
                                     a.energy_samples);
      std::printf("%s\n", energy->summary.c_str());
    }
    if (!a.output.empty()) {
      nlohmann::json j;
      j["schema"] = "warpmodel.stencil-run/1";
      j["command"] = a.command;
      j["provenance"] = run_provenance(support::cuda::device_name(), a.command);
      j["variant"] = a.variant;
      j["order"] = setup.order;
      j["size"] = {setup.grid.nx, setup.grid.ny, setup.grid.nz};
      j["block"] = {g.block.x, g.block.y, g.block.z};
      j["kernel"] = k.name;
      j["steps"] = a.steps;
      j["kernel_seconds"] = kernel_seconds;
      j["seconds_per_step"] = kernel_seconds / a.steps;
      j["points_per_second"] = points / kernel_seconds;
      j["effective_gbs"] = points * st::effective_bytes_per_point() / kernel_seconds / 1e9;
      if (energy) j["energy"] = energy->json;
      write_file_atomically(a.output, j.dump(2) + "\n");
      std::printf("wrote the run to %s\n", a.output.c_str());
    }
    return kExitOk;
  } catch (const InputError& e) {
    std::cerr << "warpmodel run-stencil: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const std::invalid_argument& e) {
    std::cerr << "warpmodel run-stencil: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const support::cuda::CudaError& e) {
    std::cerr << "warpmodel run-stencil: CUDA error: " << e.what() << "\n";
    return kExitInternal;
  } catch (const std::runtime_error& e) {  // the energy counter stopped answering
    std::cerr << "warpmodel run-stencil: --energy: " << e.what() << "\n";
    return kExitNoGpu;
  }
}
#else
int run(const RunStencilArgs&) {
  return no_cuda_in_this_build("run-stencil");
}
#endif

}  // namespace

void add_stencil_commands(CLI::App& app, Action& action) {
  auto a = std::make_shared<RunStencilArgs>();
  CLI::App* c = app.add_subcommand("run-stencil",
                                   "run the 3D acoustic FDTD propagator on the GPU: throughput, snapshots (.vti), "
                                   "receiver trace (GPU subcommand)");
  c->add_option("--order", a->order, "spatial order: 2, 4, ..., 16 (default 8)")->check(integer_at_least(0));
  c->add_option("--variant", a->variant, "naive, readonly, shared, intz, intz-reg (default intz-reg)");
  c->add_option("--size", a->size, "grid NXxNYxNZ (default 512x512x512)");
  c->add_option("--block", a->block, "threads per block BXxBYxBZ (default 32x4x1; intz-reg: 4 x points per thread)");
  c->add_option("--steps", a->steps, "time steps (default 100)")->check(integer_at_least(1));
  c->add_option("--z-chunk", a->z_chunk, "intz, intz-reg: z planes per block (default 0: from the occupancy)")
      ->check(integer_at_least(0));
  c->add_option("--depth", a->depth, "intz-reg: planes loaded ahead, 1..3 (default 2)")->check(integer_in(1, 3));
  c->add_option("--loader", a->loader, "intz-reg: tma (default) or cp-async");
  c->add_option("--model", a->model, "velocity model: two-layer (1500/4700 m/s, thesis listing 3.1) or constant");
  c->add_option("--velocity", a->velocity, "m/s for --model constant (default 2000)")->check(greater_than(0));
  c->add_option("--spacing", a->h, "grid spacing h in m (default 10, the thesis's dx = dy = dz)")->check(greater_than(0));
  c->add_option("--dt", a->dt, "time step in s (default: 0.9 x the CFL limit; an unstable one is refused)")
      ->check(at_least(0));
  c->add_option("--frequency", a->frequency, "Ricker peak frequency in Hz (default 20)")->check(greater_than(0));
  c->add_option("--source", a->source, "source point i,j,k (default nx/2,ny/2,nz/5)");
  c->add_option("--receiver", a->receiver, "receiver point i,j,k for --trace");
  c->add_option("--trace", a->trace, "write the receiver trace as CSV (step,time_s,pressure)")->check(path_name());
  c->add_option("--snapshot-every", a->snapshot_every, "write the pressure every N steps as .vti (default 0: none)")
      ->check(integer_at_least(0));
  c->add_option("--snapshot-dir", a->snapshot_dir, "folder for snapshots (default snapshots)")->check(path_name());
  c->add_flag("--energy", a->energy,
              "also measure the energy of --steps steps with NVML: J per step, points per joule, mean W, efficiency, "
              "over --energy-samples readings with 95 % intervals (docs/energy.md)");
  c->add_option("--energy-samples", a->energy_samples, "readings of the energy counter (default 30, as seed 004)")
      ->check(integer_in(2, 10000));
  c->add_option("-o,--output", a->output, "write the run (and its energy) as JSON with its provenance")->check(path_name());
  c->callback([&action, a] {
    a->command = support::this_process_command_line();
    action = [a] {
      check_output(a->output, {});
      if (!a->trace.empty()) support::check_output_file("--trace", a->trace);  // before the GPU is touched
      if (a->snapshot_every > 0) support::check_output_folder("--snapshot-dir", a->snapshot_dir);
      return run(*a);
    };
  });
}

}  // namespace warpmodel::cli
