#include "library_gemm.hpp"

#include <cublasLt.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <string>

#include "unit_kernels.hpp"
#include "warpmodel/support/cuda.hpp"
#include "warpmodel/support/statistics.hpp"

namespace warpmodel::ubench {
namespace {

using support::cuda::check;

// The entry points used, typed from cublasLt.h's declarations (nothing is linked).
struct CublasLt {
  void* lib = nullptr;
  std::string path;
  decltype(&cublasLtCreate) create = nullptr;
  decltype(&cublasLtDestroy) destroy = nullptr;
  decltype(&cublasLtGetVersion) version = nullptr;
  decltype(&cublasLtMatmulDescCreate) desc_create = nullptr;
  decltype(&cublasLtMatmulDescDestroy) desc_destroy = nullptr;
  decltype(&cublasLtMatmulDescSetAttribute) desc_set = nullptr;
  decltype(&cublasLtMatrixLayoutCreate) layout_create = nullptr;
  decltype(&cublasLtMatrixLayoutDestroy) layout_destroy = nullptr;
  decltype(&cublasLtMatmulPreferenceCreate) pref_create = nullptr;
  decltype(&cublasLtMatmulPreferenceDestroy) pref_destroy = nullptr;
  decltype(&cublasLtMatmulPreferenceSetAttribute) pref_set = nullptr;
  decltype(&cublasLtMatmulAlgoGetHeuristic) heuristic = nullptr;
  decltype(&cublasLtMatmul) matmul = nullptr;

  ~CublasLt() {
    if (lib) dlclose(lib);
  }
  template <class F>
  bool bind(F& f, const char* name) {
    f = reinterpret_cast<F>(dlsym(lib, name));
    return f != nullptr;
  }
  // The toolkit's library: its soname on the loader's path, else the toolkit this program was built with.
  bool load(std::string& why) {
    std::vector<std::string> candidates = {"libcublasLt.so.13", "libcublasLt.so"};
#ifdef WARPMODEL_CUDA_LIBRARY_DIR
    candidates.push_back(std::string(WARPMODEL_CUDA_LIBRARY_DIR) + "/libcublasLt.so.13");
    candidates.push_back(std::string(WARPMODEL_CUDA_LIBRARY_DIR) + "/libcublasLt.so");
#endif
    candidates.push_back("/usr/local/cuda/lib64/libcublasLt.so");
    for (const auto& c : candidates)
      if ((lib = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL))) {
        path = c;
        break;
      }
    if (!lib) {
      why = "libcublasLt.so not loadable (tried the loader's path and the toolkit's lib64)";
      return false;
    }
    const bool ok = bind(create, "cublasLtCreate") && bind(destroy, "cublasLtDestroy") &&
                    bind(version, "cublasLtGetVersion") && bind(desc_create, "cublasLtMatmulDescCreate") &&
                    bind(desc_destroy, "cublasLtMatmulDescDestroy") && bind(desc_set, "cublasLtMatmulDescSetAttribute") &&
                    bind(layout_create, "cublasLtMatrixLayoutCreate") &&
                    bind(layout_destroy, "cublasLtMatrixLayoutDestroy") &&
                    bind(pref_create, "cublasLtMatmulPreferenceCreate") &&
                    bind(pref_destroy, "cublasLtMatmulPreferenceDestroy") &&
                    bind(pref_set, "cublasLtMatmulPreferenceSetAttribute") &&
                    bind(heuristic, "cublasLtMatmulAlgoGetHeuristic") && bind(matmul, "cublasLtMatmul");
    if (!ok) why = path + ": an entry point is missing";
    return ok;
  }
};

void ok(cublasStatus_t s, const std::string& what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw support::cuda::CudaError(what + ": cuBLASLt status " + std::to_string(static_cast<int>(s)));
}

}  // namespace

LibraryGemmResult measure_library_gemm(const std::vector<int>& sizes, int algorithms, int launches) {
  LibraryGemmResult out;
  CublasLt lt;
  if (!lt.load(out.why_not)) return out;
  out.library = "cuBLASLt " + std::to_string(lt.version()) + " (" + lt.path + ")";
  cublasLtHandle_t handle = nullptr;
  ok(lt.create(&handle), "cublasLtCreate");
  constexpr std::size_t kWorkspaceBytes = std::size_t(64) << 20;
  support::cuda::DeviceBuffer<unsigned char> workspace(kWorkspaceBytes);
  for (int n : sizes) {
    const std::size_t elements = std::size_t(n) * n;
    support::cuda::DeviceBuffer<unsigned char> a(elements * 2), b(elements * 2), d(elements * 2);
    gpu::fill_random_halves(a.data(), elements * 2, 1u);
    gpu::fill_random_halves(b.data(), elements * 2, 2u);
    check(cudaDeviceSynchronize(), "library GEMM operands");
    cublasLtMatmulDesc_t op = nullptr;
    cublasLtMatrixLayout_t la = nullptr, lb = nullptr, ld = nullptr;
    cublasLtMatmulPreference_t pref = nullptr;
    ok(lt.desc_create(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate");
    const cublasOperation_t transpose = CUBLAS_OP_T, none = CUBLAS_OP_N;  // D = A^T B: both K-major ("TN")
    ok(lt.desc_set(op, CUBLASLT_MATMUL_DESC_TRANSA, &transpose, sizeof transpose), "TRANSA");
    ok(lt.desc_set(op, CUBLASLT_MATMUL_DESC_TRANSB, &none, sizeof none), "TRANSB");
    ok(lt.layout_create(&la, CUDA_R_16F, n, n, n), "layout A");
    ok(lt.layout_create(&lb, CUDA_R_16F, n, n, n), "layout B");
    ok(lt.layout_create(&ld, CUDA_R_16F, n, n, n), "layout D");
    ok(lt.pref_create(&pref), "cublasLtMatmulPreferenceCreate");
    ok(lt.pref_set(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &kWorkspaceBytes, sizeof kWorkspaceBytes),
       "workspace preference");
    std::vector<cublasLtMatmulHeuristicResult_t> found(static_cast<std::size_t>(algorithms));
    int returned = 0;
    ok(lt.heuristic(handle, op, la, lb, ld, ld, pref, algorithms, found.data(), &returned),
       "cublasLtMatmulAlgoGetHeuristic");
    const float alpha = 1.0f, beta = 0.0f;
    const double ops = 2.0 * double(n) * n * n;
    LibraryGemmPoint best{n, {}, 0};
    support::cuda::EventPair events;
    for (int i = 0; i < returned; ++i) {
      if (found[i].state != CUBLAS_STATUS_SUCCESS) continue;
      auto run = [&] {
        return lt.matmul(handle, op, &alpha, a.data(), la, b.data(), lb, &beta, d.data(), ld, d.data(), ld,
                         &found[i].algo, workspace.data(), kWorkspaceBytes, nullptr);
      };
      if (run() != CUBLAS_STATUS_SUCCESS) continue;  // a candidate that refuses these operands
      check(cudaDeviceSynchronize(), "library GEMM warm-up");
      std::vector<double> rate;
      for (int l = 0; l < launches; ++l) {
        events.start();
        ok(run(), "cublasLtMatmul");
        events.stop();
        rate.push_back(ops / events.elapsed_seconds() / 1e12);
      }
      ++best.algorithms_timed;
      const auto e = support::estimate(rate);
      if (e.mean > best.tera_ops_per_second.mean) best.tera_ops_per_second = e;
    }
    lt.pref_destroy(pref);
    lt.layout_destroy(la);
    lt.layout_destroy(lb);
    lt.layout_destroy(ld);
    lt.desc_destroy(op);
    if (best.algorithms_timed > 0) out.sizes.push_back(best);
  }
  lt.destroy(handle);
  out.measured = !out.sizes.empty();
  if (!out.measured) out.why_not = "no cuBLASLt algorithm ran for these operands";
  return out;
}

}  // namespace warpmodel::ubench
