// Batched tridiagonal solvers on the GPU (the ADI solver's standalone benchmark; link
// warpmodel_adi_gpu). All systems have n rows; a_0 = 0 and c_{n-1} = 0.
//   thomas-interleaved  one thread per system, Thomas; interleaved layout: row i of system s at
//                       i * batch + s (coalesced across threads); scratch n * batch for c'
//   pcr                 one block per system, one thread per row, shared memory (n <= 1024);
//                       contiguous layout: row i of system s at s * n + i
//   cr-pcr              one block per system, one CR step then PCR, one thread per row pair
//                       (n even, n <= 2048); contiguous layout
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpmodel::adi {

enum class BatchedAlgorithm { ThomasInterleaved, Pcr, CrPcr };

std::string_view to_string(BatchedAlgorithm a);
std::optional<BatchedAlgorithm> parse_batched_algorithm(std::string_view s);
const std::vector<BatchedAlgorithm>& all_batched_algorithms();
bool uses_interleaved_layout(BatchedAlgorithm a);

// Empty when (algorithm, n, batch) can run, else one line saying why not.
std::string validate_batched(BatchedAlgorithm a, int n, int batch);
std::size_t batched_scratch_elements(BatchedAlgorithm a, int n, int batch);

// Device pointers of n * batch elements; asynchronous on `stream` (a cudaStream_t, null = default).
// Throws CudaError (gpu_solver.hpp) on a launch error, std::invalid_argument on a bad size.
template <class T>
void solve_batched(BatchedAlgorithm a, int n, int batch, const T* lower, const T* diagonal, const T* upper,
                   const T* rhs, T* x, T* scratch, void* stream);

// The __global__ function an algorithm launches, for cudaFuncGetAttributes / profiling.
const void* batched_kernel_function(BatchedAlgorithm a, bool double_precision);

}  // namespace warpmodel::adi
