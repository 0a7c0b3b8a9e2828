// cuSPARSE's batched tridiagonal solvers behind one interface (bench_tridiagonal and the gpu test
// test_cusparse_gpu only; nothing else links cuSPARSE).
//   gtsv2StridedBatch     contiguous layout (batchStride = n), no pivoting
//   gtsvInterleavedBatch  interleaved layout, algo 0 (cuThomas, no pivoting: the fastest of its three)
// Both overwrite the right-hand side with the solution; the interleaved routine may also modify the
// diagonals (its arguments are not const), so callers restore every input before each solve.
#pragma once

#include <cuda_runtime_api.h>
#include <cusparse.h>

#include <stdexcept>
#include <string>
#include <type_traits>

namespace warpmodel::adi::bench {

enum class CusparseAlgorithm { StridedBatch, InterleavedBatch };

inline const char* to_string(CusparseAlgorithm a) {
  return a == CusparseAlgorithm::StridedBatch ? "cusparse-gtsv2StridedBatch" : "cusparse-gtsvInterleavedBatch";
}

inline void cusparse_check(cusparseStatus_t s, const char* what) {
  if (s != CUSPARSE_STATUS_SUCCESS) throw std::runtime_error(std::string(what) + ": " + cusparseGetErrorString(s));
}

template <class T>
class CusparseBatchedSolver {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);

 public:
  // Pointers are only used to size the buffer; solve() may get other ones of the same shape.
  CusparseBatchedSolver(CusparseAlgorithm algorithm, int n, int batch, T* lower, T* diagonal, T* upper, T* x,
                        cudaStream_t stream)
      : algorithm_(algorithm), n_(n), batch_(batch) {
    cusparse_check(cusparseCreate(&handle_), "cusparseCreate");
    cusparse_check(cusparseSetStream(handle_, stream), "cusparseSetStream");
    std::size_t bytes = 0;
    if (algorithm == CusparseAlgorithm::StridedBatch) {
      if constexpr (std::is_same_v<T, double>)
        cusparse_check(cusparseDgtsv2StridedBatch_bufferSizeExt(handle_, n, lower, diagonal, upper, x, batch, n, &bytes),
                       "gtsv2StridedBatch_bufferSizeExt");
      else
        cusparse_check(cusparseSgtsv2StridedBatch_bufferSizeExt(handle_, n, lower, diagonal, upper, x, batch, n, &bytes),
                       "gtsv2StridedBatch_bufferSizeExt");
    } else {
      if constexpr (std::is_same_v<T, double>)
        cusparse_check(cusparseDgtsvInterleavedBatch_bufferSizeExt(handle_, 0, n, lower, diagonal, upper, x, batch, &bytes),
                       "gtsvInterleavedBatch_bufferSizeExt");
      else
        cusparse_check(cusparseSgtsvInterleavedBatch_bufferSizeExt(handle_, 0, n, lower, diagonal, upper, x, batch, &bytes),
                       "gtsvInterleavedBatch_bufferSizeExt");
    }
    buffer_bytes_ = bytes;
    if (bytes > 0 && cudaMalloc(&buffer_, bytes) != cudaSuccess) {
      cusparseDestroy(handle_);
      throw std::runtime_error("cudaMalloc of the cuSPARSE buffer (" + std::to_string(bytes) + " bytes)");
    }
  }
  ~CusparseBatchedSolver() {
    if (buffer_) cudaFree(buffer_);
    if (handle_) cusparseDestroy(handle_);
  }
  CusparseBatchedSolver(const CusparseBatchedSolver&) = delete;
  CusparseBatchedSolver& operator=(const CusparseBatchedSolver&) = delete;

  // x holds the right-hand sides on entry and the solutions on return.
  void solve(T* lower, T* diagonal, T* upper, T* x) {
    if (algorithm_ == CusparseAlgorithm::StridedBatch) {
      if constexpr (std::is_same_v<T, double>)
        cusparse_check(cusparseDgtsv2StridedBatch(handle_, n_, lower, diagonal, upper, x, batch_, n_, buffer_),
                       "gtsv2StridedBatch");
      else
        cusparse_check(cusparseSgtsv2StridedBatch(handle_, n_, lower, diagonal, upper, x, batch_, n_, buffer_),
                       "gtsv2StridedBatch");
    } else {
      if constexpr (std::is_same_v<T, double>)
        cusparse_check(cusparseDgtsvInterleavedBatch(handle_, 0, n_, lower, diagonal, upper, x, batch_, buffer_),
                       "gtsvInterleavedBatch");
      else
        cusparse_check(cusparseSgtsvInterleavedBatch(handle_, 0, n_, lower, diagonal, upper, x, batch_, buffer_),
                       "gtsvInterleavedBatch");
    }
  }
  std::size_t buffer_bytes() const { return buffer_bytes_; }

 private:
  CusparseAlgorithm algorithm_;
  int n_, batch_;
  cusparseHandle_t handle_ = nullptr;
  void* buffer_ = nullptr;
  std::size_t buffer_bytes_ = 0;
};

}  // namespace warpmodel::adi::bench
