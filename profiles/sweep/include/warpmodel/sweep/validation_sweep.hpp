// The measurement half of `warpmodel validate`: runs the stencil, ADI, FWI and corpus kernels
// over the validation configurations on the GPU and records, per launch, the kernel duration
// (CUPTI Activity API), the SM clock, sm__cycles_elapsed and the kernel profile the model reads
// (static SASS analysis of this binary merged with the CUPTI `model` counters, profiles/sass
// merge.hpp). The result is a warpmodel.validation-measurements/1 document
// (model/include/warpmodel/json_io.hpp), which `validate --from` turns into tables without a GPU.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace warpmodel::sweep {

struct StencilShape {
  unsigned x = 32, y = 8;  // block (z = 1)
};

struct SweepPlan {
  // Stencils: every order x variant x shape x warps-per-SM target x size (tables 4.5-4.7 layout).
  std::vector<int> stencil_sizes{50, 256, 512};
  std::vector<int> orders{2, 4, 8, 16};
  std::vector<std::string> variants{"naive", "readonly", "shared", "intz", "intz-reg"};
  std::vector<StencilShape> shapes{{32, 8}};  // 8 warps: 1..4 blocks per SM give the four columns
  std::vector<int> warps_per_sm{8, 16, 24, 32};
  // ADI: every kernel of a step, per variant and precision, at each size (block-per-line to 1024).
  std::vector<int> adi_sizes{256, 1024, 2048};
  std::vector<std::string> adi_variants{"thread-per-line", "block-per-line/pcr", "block-per-line/cr-pcr", "fused",
                                        "fused-cluster"};
  std::vector<std::string> adi_precisions{"double", "single"};
  // FWI (stencils/fwi): every distinct kernel of a gradient evaluation of each variant, at each size
  // NXxNZ (the study's, and one that fills the GPU); a kernel that several variants share is
  // measured once per size. Measured when the build has the FWI's GPU library.
  std::vector<std::string> fwi_sizes{"210x68", "8192x256"};
  std::vector<std::string> fwi_variants{"original",    "shared",              "fused",     "fused-cpml", "dot-gpu",
                                        "reorganised", "gradient-on-the-fly", "read-only", "fast-math"};
  // Corpus (profiles/corpus), after the stencils and ADI: every kernel x size x declared shape.
  bool corpus = true;
  std::vector<std::string> corpus_kernels;  // empty: all
  std::size_t corpus_sizes = 0;             // each kernel's first (smallest) sizes only; 0: all
  std::size_t corpus_shapes = 0;            // each kernel's first declared shapes only; 0: all
  int timing_runs = 5;
  // L2 written back and emptied before every launch, timed or counted (Nsight Compute's default,
  // --cache-control all): the timed launches then see the cache state the counters see. Off: the
  // timed runs find in L2 what restoring the inputs and the previous launches left there, while
  // CUPTI's kernel replay counts each pass after restoring the kernel's memory.
  bool cold_l2 = true;
};

// The measurement file's provenance.l2_before_each_launch: how its launches found L2.
inline constexpr const char* kL2Cold = "flushed (cold, as ncu --cache-control all)";
inline constexpr const char* kL2Warm = "as left (warm)";
// Whether a measurement file (warpmodel.validation-measurements/1) was measured on a cold L2 (files
// from before the protocol was recorded were warm).
bool measured_cold(const nlohmann::json& measurements);

struct SweepOutcome {
  nlohmann::json measurements;        // warpmodel.validation-measurements/1
  std::vector<std::string> skipped;   // configurations not measured (cannot launch, or outputs wrong), with the reason
  double seconds = 0;
};

// `binary`: the executable whose cubins hold the kernels (this program), for the static analysis.
// Throws on no GPU / no permission (the CUPTI errors) or a failure of the tools.
SweepOutcome run_validation_sweep(const SweepPlan& plan, const std::string& binary, const std::string& command,
                                  const std::function<void(const std::string&)>& log);

// A measurement file from a sweep of some families only (`validate --measure --families`), merged
// into an earlier one: the earlier file's cases of the other families are kept, the new ones
// replace those of `families`; the provenance is the new run's, with the earlier run's under
// "earlier_parts" (and the families each part measured). With `corpus_kernels` (`--corpus-kernels`),
// only those corpus kernels' cases are replaced and the corpus's other cases kept. Plain JSON, no GPU.
nlohmann::json merge_measurements(const nlohmann::json& earlier, const nlohmann::json& fresh,
                                  const std::vector<std::string>& families,
                                  const std::vector<std::string>& corpus_kernels = {});

}  // namespace warpmodel::sweep
