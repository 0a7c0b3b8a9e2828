// `warpmodel characterize`: measure the GPU with the declared microbenchmarks and write
// results/<gpu>/device.json, ubench.csv.xz and ubench.md (the core stage), tensor.csv.xz and
// tensor.md (the tensor stage: tensor cores, TMA, clusters, async copies, the library GEMM) and
// energy-per-op.md (the energy stage) (docs/microbenchmarks.md). --only STAGE[,STAGE] measures those
// stages alone: the tensor or energy stage alone adds its sections to the folder's device.json
// (which must exist), the core stage keeps the sections of the others it finds there. No GPU: one
// line, exit 3. Unknown --device: the list of devices, exit 2. Unwritable output folder, or
// --only tensor/energy without a device profile there: one line,
// exit 2, checked before measuring; every file is written atomically.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "commands.hpp"
#include "options.hpp"
#include "warpmodel/support/provenance.hpp"
#include "exit_codes.hpp"
#include "warpmodel/json_io.hpp"

#ifdef WARPMODEL_HAVE_CUDA
#include "warpmodel/support/cuda.hpp"
#include "characterize.hpp"
#include "device_query.hpp"
#include "kernels.hpp"
#include "registry.hpp"
#endif

namespace warpmodel::cli {
namespace {

struct CharacterizeArgs {
  int device = 0;
  std::string output;  // default results/<gpu slug>
  int reps = 50;
  std::vector<std::string> only;  // stages; empty: all
  std::string command;
};

bool has(const std::vector<std::string>& v, const char* x) { return std::find(v.begin(), v.end(), x) != v.end(); }

#ifdef WARPMODEL_HAVE_CUDA
std::string self_exe() {
  std::error_code ec;
  const auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : p.string();
}

// Can we create files in dir? (creates it if missing; leaves nothing behind)
bool writable(const std::filesystem::path& dir, std::string& why) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    why = ec.message();
    return false;
  }
  const auto probe = dir / (".warpmodel-probe-" + std::to_string(::getpid()));
  {
    std::ofstream f(probe);
    if (!f) {
      why = "cannot create files there";
      return false;
    }
  }
  std::filesystem::remove(probe, ec);
  return true;
}

int run_characterize(const CharacterizeArgs& a) {
  std::vector<ubench::GpuInfo> gpus;
  try {
    gpus = ubench::query_gpus();
  } catch (const support::cuda::NoGpuError& e) {
    std::cerr << "warpmodel characterize: " << e.what() << "\n";
    return kExitNoGpu;
  }
  if (a.device < 0 || a.device >= static_cast<int>(gpus.size())) {
    std::cerr << "warpmodel characterize: --device " << a.device << " does not exist; devices:";
    for (const auto& g : gpus) std::cerr << " [" << g.index << "] " << g.name;
    std::cerr << "\n";
    return kExitBadInput;
  }
  if (a.reps < 2) {
    std::cerr << "warpmodel characterize: --reps must be >= 2 (50 or more for the thesis's uncertainty)\n";
    return kExitBadInput;
  }
  const auto& gpu = gpus[a.device];
  const std::filesystem::path dir = a.output.empty() ? "results/" + ubench::gpu_slug(gpu.name) : a.output;
  std::string why;
  if (!writable(dir, why)) {
    std::cerr << "warpmodel characterize: " << dir.string() << ": output folder is not writable (" << why
              << "); choose another with --output\n";
    return kExitBadInput;
  }
  // The profile already in the folder: the tensor stage alone adds to it; the core stage keeps its
  // tensor sections.
  const bool core = a.only.empty() || has(a.only, ubench::kStageCore);
  std::string base;
  const auto device_path = dir / "device.json";
  if (std::filesystem::exists(device_path)) {
    try {
      const nlohmann::json j = read_json_file(device_path.string());
      if (j.is_object() && j.value("schema", "") == kDeviceSchema) base = j.dump();
    } catch (const InputError&) {
    }
  }
  if (!core && base.empty()) {
    std::cerr << "warpmodel characterize: --only " << (has(a.only, ubench::kStageTensor) ? "tensor" : "energy")
              << " adds to " << device_path.string()
              << ", which is missing or not a device profile; run `warpmodel characterize --output " << dir.string()
              << "` first (or without --only)\n";
    return kExitBadInput;
  }
  ubench::CharacterizeOptions o;
  o.reps = a.reps;
  o.stages = a.only;
  o.base_device_json = base;
  o.self_exe = self_exe();
  o.command = a.command;
  if (const char* c = std::getenv("WARPMODEL_GIT_COMMIT")) o.commit = c;
#ifdef WARPMODEL_GIT_COMMIT_CONFIGURED
  if (o.commit.empty()) o.commit = WARPMODEL_GIT_COMMIT_CONFIGURED;
#endif
  o.log = [](const std::string& s) { std::cerr << "characterize: " << s << "\n"; };
  ubench::CharacterizeOutputs out;
  try {
    out = ubench::characterize(gpu, o);
  } catch (const support::cuda::CudaError& e) {
    std::cerr << "warpmodel characterize: CUDA error: " << e.what() << "\n";
    return kExitInternal;
  } catch (const std::invalid_argument& e) {
    std::cerr << "warpmodel characterize: " << e.what() << "\n";
    return kExitBadInput;
  }
  std::vector<std::string> written = {"device.json"};
  try {
    // Every sample of every benchmark (about 100,000 rows), xz-compressed: docs/results-layout.md.
    if (has(out.stages, ubench::kStageCore)) {
      write_file_atomically(dir / "ubench.csv.xz", out.csv);
      write_file_atomically(dir / "ubench.md", out.markdown);
      written.insert(written.end(), {"ubench.csv.xz", "ubench.md"});
    }
    if (has(out.stages, ubench::kStageTensor)) {
      write_file_atomically(dir / "tensor.csv.xz", out.tensor_csv);
      write_file_atomically(dir / "tensor.md", out.tensor_markdown);
      written.insert(written.end(), {"tensor.csv.xz", "tensor.md"});
    }
    if (has(out.stages, ubench::kStageEnergy)) {
      write_file_atomically(dir / "energy-per-op.md", out.energy_markdown);
      written.push_back("energy-per-op.md");
    }
    write_file_atomically(dir / "device.json", out.device_json);
  } catch (const InputError& e) {
    std::cerr << "warpmodel characterize: " << e.what() << "\n";
    return kExitBadInput;
  }
  for (const auto& w : out.warnings) std::cerr << "warning: " << w << "\n";
  if (!out.profile_error.empty()) return kExitInternal;
  std::cout << "characterize: " << gpu.name << " measured in " << out.seconds << " s; wrote " << dir.string() << "/{";
  for (std::size_t i = 0; i < written.size(); ++i) std::cout << (i ? "," : "") << written[i];
  std::cout << "}\n";
  return kExitOk;
}
#else
int run_characterize(const CharacterizeArgs&) {
  return no_cuda_in_this_build("characterize");
}
#endif

}  // namespace

void add_characterize_command(CLI::App& app, Action& action) {
  auto args = std::make_shared<CharacterizeArgs>();
  CLI::App* c = app.add_subcommand("characterize",
                                   "measure the GPU with inline-PTX microbenchmarks and write a device profile "
                                   "(GPU subcommand)");
  c->add_option("--device", args->device, "CUDA device index (see `warpmodel devices`)")->check(integer_at_least(0));
  c->add_option("-o,--output", args->output, "output folder (default results/<gpu>, e.g. results/h200)")
      ->check(path_name());
  c->add_option("--reps", args->reps, "repetitions per point (default 50)")->check(integer_at_least(2));
  c->add_option("--only", args->only,
                "stages to measure: core (the model's profile), tensor (tensor cores, TMA, clusters, async copies, "
                "the library GEMM), energy (energy per operation through NVML); tensor and energy alone add to "
                "the folder's device.json; default all three")
      ->delimiter(',')
      ->check(CLI::IsMember({"core", "tensor", "energy"}));
  c->callback([&action, args] {
    args->command = support::this_process_command_line();
    action = [args] {
      if (!args->output.empty()) support::check_output_folder("-o", args->output);  // before measuring
      return run_characterize(*args);
    };
  });
}

}  // namespace warpmodel::cli
