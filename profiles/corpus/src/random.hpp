// Deterministic inputs: every element is a function of (seed, index). The device fills buffers with
// these functions (fill.cu); the host recomputes any element for its references, so no input is
// ever downloaded. Compiled by nvcc (host and device) and by the host compiler; C++17.
//
// Host and device must produce the same bits. Integer hashing is exact; a uniform value is
// lo + width x u with u = (24 or 53 random bits) x 2^-bits, and `width` must be a power of two, so
// that width x u is exact and the only rounding is the addition, whether or not the device fuses
// it into an FMA.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define WARPMODEL_CORPUS_HD __host__ __device__ inline
#else
#define WARPMODEL_CORPUS_HD inline
#endif

namespace warpmodel::corpus {

// SplitMix64's finaliser: a bijection of 64-bit words with good avalanche.
WARPMODEL_CORPUS_HD std::uint64_t mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

WARPMODEL_CORPUS_HD std::uint64_t random_bits(std::uint64_t seed, std::uint64_t index) {
  return mix64(mix64(seed) ^ index);
}

// Uniform in [lo, lo + width), width a power of two (see above).
WARPMODEL_CORPUS_HD float uniform_f32(std::uint64_t seed, std::uint64_t index, float lo, float width) {
  const float u = static_cast<float>(random_bits(seed, index) >> 40) * 0x1p-24f;
  return lo + width * u;
}
WARPMODEL_CORPUS_HD double uniform_f64(std::uint64_t seed, std::uint64_t index, double lo, double width) {
  const double u = static_cast<double>(random_bits(seed, index) >> 11) * 0x1p-53;
  return lo + width * u;
}

// A multiple of 1/8 in [-1, 1) (k / 8, k = -8..7): exact in FP16, BF16 and FP8 E4M3, so tensor-core
// inputs converted from it lose nothing and their products (multiples of 1/64) add exactly in FP32.
WARPMODEL_CORPUS_HD float eighths_f32(std::uint64_t seed, std::uint64_t index) {
  return static_cast<float>(static_cast<int>(random_bits(seed, index) >> 60) - 8) * 0.125f;
}

// random_bits of index / group (equal across each group of `group` indices), modulo `modulus`
// (0: the low 32 bits as they are).
WARPMODEL_CORPUS_HD std::uint32_t random_key(std::uint64_t seed, std::uint64_t index, std::uint32_t modulus,
                                              std::uint32_t group) {
  const std::uint64_t bits = random_bits(seed, index / group);
  return modulus ? static_cast<std::uint32_t>(bits % modulus) : static_cast<std::uint32_t>(bits);
}

// A bijection of [0, 2^bits) (bits in 1..32): odd multiplications and xor-shifts, each invertible
// modulo 2^bits. The pointer chase walks j -> j + 1 through it, which is one cycle over the table
// with random-looking jumps.
WARPMODEL_CORPUS_HD std::uint32_t scramble(std::uint32_t x, unsigned bits) {
  const std::uint32_t mask = bits >= 32 ? 0xFFFFFFFFu : (1u << bits) - 1u;
  const unsigned shift = bits / 2 + 1;
  x = (x * 0x9E3779B1u) & mask;
  x ^= x >> shift;
  x = (x * 0x85EBCA6Bu) & mask;
  x ^= x >> shift;
  x = (x * 0xC2B2AE35u) & mask;
  return x;
}

}  // namespace warpmodel::corpus
