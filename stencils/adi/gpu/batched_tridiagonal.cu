// Batched tridiagonal solvers (batched_tridiagonal.hpp): Thomas in the interleaved layout, one
// thread per system; PCR and CR-PCR in shared memory, one block per system.
#include "warpmodel/adi/batched_tridiagonal.hpp"

#include <stdexcept>

#include "cuda_check.cuh"
#include "warpmodel/adi/block_algorithms.hpp"

namespace warpmodel::adi {
namespace gpu {

constexpr int kThomasBlock = 128;

// Thomas, one thread per system; row i of system s at i * batch + s. c' goes to scratch, d' to x,
// then the back substitution overwrites x. The unrolled loop lets the four loads of the next rows
// issue before the dependent arithmetic of the current one.
template <class T>
__global__ void __launch_bounds__(kThomasBlock)
    thomas_interleaved_kernel(int n, int batch, const T* __restrict__ a, const T* __restrict__ b,
                              const T* __restrict__ c, const T* __restrict__ d, T* __restrict__ c_prime,
                              T* __restrict__ x) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= batch) return;
  const std::size_t stride = static_cast<std::size_t>(batch);
  T r = T(1) / b[s];
  T cp = c[s] * r;
  T dp = d[s] * r;
  c_prime[s] = cp;
  x[s] = dp;
#pragma unroll 4
  for (int i = 1; i < n; ++i) {
    const std::size_t at = static_cast<std::size_t>(i) * stride + s;
    const T ai = a[at];
    r = T(1) / (b[at] - cp * ai);
    cp = c[at] * r;
    dp = (d[at] - dp * ai) * r;
    c_prime[at] = cp;
    x[at] = dp;
  }
  T xi = dp;
#pragma unroll 4
  for (int i = n - 2; i >= 0; --i) {
    const std::size_t at = static_cast<std::size_t>(i) * stride + s;
    xi = x[at] - c_prime[at] * xi;
    x[at] = xi;
  }
}

template <class T>
__global__ void __launch_bounds__(1024) pcr_batched_kernel(int n, const T* __restrict__ a, const T* __restrict__ b,
                                                           const T* __restrict__ c, const T* __restrict__ d,
                                                           T* __restrict__ x) {
  extern __shared__ __align__(16) unsigned char shared_raw[];
  const std::size_t offset = static_cast<std::size_t>(blockIdx.x) * n;
  batched_pcr(DeviceBlock{}, static_cast<int>(threadIdx.x), n, a + offset, b + offset, c + offset, d + offset,
              reinterpret_cast<T*>(shared_raw), x + offset);
}

template <class T>
__global__ void __launch_bounds__(1024) cr_pcr_batched_kernel(int n, const T* __restrict__ a, const T* __restrict__ b,
                                                              const T* __restrict__ c, const T* __restrict__ d,
                                                              T* __restrict__ x) {
  extern __shared__ __align__(16) unsigned char shared_raw[];
  const std::size_t offset = static_cast<std::size_t>(blockIdx.x) * n;
  batched_cr_pcr(DeviceBlock{}, static_cast<int>(threadIdx.x), n, a + offset, b + offset, c + offset, d + offset,
                 reinterpret_cast<T*>(shared_raw), x + offset);
}

template <class T>
const void* kernel_of(BatchedAlgorithm a) {
  switch (a) {
    case BatchedAlgorithm::ThomasInterleaved:
      return reinterpret_cast<const void*>(&thomas_interleaved_kernel<T>);
    case BatchedAlgorithm::Pcr:
      return reinterpret_cast<const void*>(&pcr_batched_kernel<T>);
    case BatchedAlgorithm::CrPcr:
      return reinterpret_cast<const void*>(&cr_pcr_batched_kernel<T>);
  }
  return nullptr;
}

}  // namespace gpu

std::string_view to_string(BatchedAlgorithm a) {
  switch (a) {
    case BatchedAlgorithm::ThomasInterleaved:
      return "thomas-interleaved";
    case BatchedAlgorithm::Pcr:
      return "pcr";
    case BatchedAlgorithm::CrPcr:
      return "cr-pcr";
  }
  return "?";
}

std::optional<BatchedAlgorithm> parse_batched_algorithm(std::string_view s) {
  for (BatchedAlgorithm a : all_batched_algorithms())
    if (to_string(a) == s) return a;
  return std::nullopt;
}

const std::vector<BatchedAlgorithm>& all_batched_algorithms() {
  static const std::vector<BatchedAlgorithm> all = {BatchedAlgorithm::ThomasInterleaved, BatchedAlgorithm::Pcr,
                                                    BatchedAlgorithm::CrPcr};
  return all;
}

bool uses_interleaved_layout(BatchedAlgorithm a) { return a == BatchedAlgorithm::ThomasInterleaved; }

std::string validate_batched(BatchedAlgorithm a, int n, int batch) {
  if (n < 2 || batch < 1) return "need n >= 2 and batch >= 1";
  if (static_cast<long long>(n) * batch > (1LL << 31)) return "n * batch above 2^31";
  if (a == BatchedAlgorithm::Pcr && n > 1024) return "pcr needs one thread per row: n <= 1024";
  if (a == BatchedAlgorithm::CrPcr && (n % 2 != 0 || n > 2048)) return "cr-pcr needs n even and n <= 2048";
  return {};
}

std::size_t batched_scratch_elements(BatchedAlgorithm a, int n, int batch) {
  return a == BatchedAlgorithm::ThomasInterleaved ? static_cast<std::size_t>(n) * static_cast<std::size_t>(batch) : 0;
}

const void* batched_kernel_function(BatchedAlgorithm a, bool double_precision) {
  return double_precision ? gpu::kernel_of<double>(a) : gpu::kernel_of<float>(a);
}

template <class T>
void solve_batched(BatchedAlgorithm a, int n, int batch, const T* lower, const T* diagonal, const T* upper,
                   const T* rhs, T* x, T* scratch, void* stream_handle) {
  if (const std::string why = validate_batched(a, n, batch); !why.empty()) throw std::invalid_argument(why);
  cudaStream_t stream = static_cast<cudaStream_t>(stream_handle);
  switch (a) {
    case BatchedAlgorithm::ThomasInterleaved:
      gpu::thomas_interleaved_kernel<T><<<(batch + gpu::kThomasBlock - 1) / gpu::kThomasBlock, gpu::kThomasBlock, 0,
                                          stream>>>(n, batch, lower, diagonal, upper, rhs, scratch, x);
      break;
    case BatchedAlgorithm::Pcr: {
      const std::size_t shared = static_cast<std::size_t>(batched_pcr_shared_elements(n)) * sizeof(T);
      gpu::pcr_batched_kernel<T><<<batch, n, shared, stream>>>(n, lower, diagonal, upper, rhs, x);
      break;
    }
    case BatchedAlgorithm::CrPcr: {
      const std::size_t shared = static_cast<std::size_t>(batched_cr_pcr_shared_elements(n)) * sizeof(T);
      if (shared > 48 * 1024)
        gpu::check(cudaFuncSetAttribute(&gpu::cr_pcr_batched_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        static_cast<int>(shared)),
                   "cudaFuncSetAttribute");
      gpu::cr_pcr_batched_kernel<T><<<batch, n / 2, shared, stream>>>(n, lower, diagonal, upper, rhs, x);
      break;
    }
  }
  gpu::check_launch(to_string(a).data());
}

template void solve_batched<float>(BatchedAlgorithm, int, int, const float*, const float*, const float*, const float*,
                                   float*, float*, void*);
template void solve_batched<double>(BatchedAlgorithm, int, int, const double*, const double*, const double*,
                                    const double*, double*, double*, void*);

}  // namespace warpmodel::adi
