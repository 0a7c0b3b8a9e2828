// Setup and restore kernels (not part of the corpus): deterministic fills from random.hpp, so
// that inputs never cross PCIe and restore_inputs() is a few fast kernels.
#include <algorithm>

#include "../src/random.hpp"
#include "common.cuh"

namespace warpmodel::corpus::setup_kernels {
namespace {

constexpr int kThreads = 256;

unsigned fill_blocks(std::size_t n) {
  return static_cast<unsigned>(std::min<std::size_t>((n + kThreads - 1) / kThreads, 8192));
}

__global__ void uniform_f32(float* p, std::size_t n, std::uint64_t seed, float lo, float width) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    p[i] = corpus::uniform_f32(seed, i, lo, width);
}

__global__ void uniform_f64(double* p, std::size_t n, std::uint64_t seed, double lo, double width) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    p[i] = corpus::uniform_f64(seed, i, lo, width);
}

__global__ void keys(std::uint32_t* p, std::size_t n, std::uint64_t seed, std::uint32_t modulus, std::uint32_t group) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    p[i] = random_key(seed, i, modulus, group);
}

__global__ void row_pointers(int* p, int rows, int per_row) {
  for (int r = blockIdx.x * blockDim.x + threadIdx.x; r <= rows; r += gridDim.x * blockDim.x) p[r] = r * per_row;
}

__global__ void chase_cycle(std::uint32_t* next, unsigned bits) {
  const std::uint32_t mask = (1u << bits) - 1u;
  for (std::uint32_t j = blockIdx.x * blockDim.x + threadIdx.x; j <= mask; j += gridDim.x * blockDim.x)
    next[scramble(j, bits)] = scramble((j + 1) & mask, bits);
}

}  // namespace
}  // namespace warpmodel::corpus::setup_kernels

namespace warpmodel::corpus::gpu {

namespace sk = setup_kernels;

void fill_uniform(float* p, std::size_t n, std::uint64_t seed, float lo, float width) {
  sk::uniform_f32<<<sk::fill_blocks(n), sk::kThreads>>>(p, n, seed, lo, width);
}
void fill_uniform(double* p, std::size_t n, std::uint64_t seed, double lo, double width) {
  sk::uniform_f64<<<sk::fill_blocks(n), sk::kThreads>>>(p, n, seed, lo, width);
}
void fill_keys(std::uint32_t* p, std::size_t n, std::uint64_t seed, std::uint32_t modulus, std::uint32_t group) {
  sk::keys<<<sk::fill_blocks(n), sk::kThreads>>>(p, n, seed, modulus, group);
}
void fill_row_pointers(int* p, int rows, int per_row) {
  sk::row_pointers<<<sk::fill_blocks(std::size_t(rows) + 1), sk::kThreads>>>(p, rows, per_row);
}
void fill_chase_cycle(std::uint32_t* next, unsigned bits) {
  sk::chase_cycle<<<sk::fill_blocks(std::size_t(1) << bits), sk::kThreads>>>(next, bits);
}

}  // namespace warpmodel::corpus::gpu
