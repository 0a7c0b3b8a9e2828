// The microbenchmark kernels. ALU benchmarks are instantiated from ubench.def (declared PTX
// bodies); the memory, clock, departure and bandwidth kernels are written once each. Kernels are
// extern "C" so the SASS check finds them by name in `cuobjdump -sass` of the program.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "constants.hpp"
#include "kernels.hpp"
#include "warpmodel/support/cuda.hpp"

namespace {

using namespace warpmodel::ubench::sizes;

__device__ __forceinline__ long long clock64_read() {
  long long t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
  return t;
}

// Distinct start values per chain and thread (from the input, so nothing folds at compile time).
template <class T, int ILP>
__device__ __forceinline__ void init_chains(const T* in, T (&x)[ILP]) {
#pragma unroll
  for (int i = 0; i < ILP; ++i) x[i] = in[0] + T(i) * in[2] + T(threadIdx.x) * in[2];
}

// Consume every chain's final value, so none of the timed work is dead.
template <class T, int ILP>
__device__ __forceinline__ void store_sum(const T (&x)[ILP], T* sink) {
  T s = x[0];
#pragma unroll
  for (int i = 1; i < ILP; ++i) s += x[i];
  sink[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// One dependent chain per thread (latency) or ILP independent chains (throughput). The chain is
// the only dependency path; the result is stored so nothing is dead.
template <class Op, int ILP>
__device__ __forceinline__ void alu_body(const typename Op::T* in, long long* cycles, typename Op::T* sink, int reps) {
  using T = typename Op::T;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int nwarps = blockDim.x / 32;
  T x[ILP];
  const T y = in[1];
  init_chains<T, ILP>(in, x);
  long long* out = cycles + (static_cast<long long>(blockIdx.x) * nwarps + warp) * (reps + 1);
#pragma unroll 1
  for (int r = 0; r <= reps; ++r) {
    const long long t0 = clock64_read();
#pragma unroll
    for (int k = 0; k < Op::kChain; ++k) {
#pragma unroll
      for (int i = 0; i < ILP; ++i) x[i] = Op::step(x[i], y);
    }
    const long long t1 = clock64_read();
    if (lane == 0) out[r] = t1 - t0;
  }
  store_sum<T, ILP>(x, sink);
}

// Throughput: the same ops, ILP independent chains, but as a loop whose body (kThroughputUnroll
// steps x ILP chains, <= 4 KiB of SASS) stays in the instruction cache. A straight-line region of
// chain x ILP = 4096 instructions (64 KiB) is fetch-bound: FP32 then issues only ~0.63 of 128/clk/SM.
template <class Op>
__device__ __forceinline__ void alu_thr_body(const typename Op::T* in, long long* cycles, typename Op::T* sink, int reps) {
  using T = typename Op::T;
  constexpr int ILP = kThroughputIlp;
  static_assert(Op::kChain % kThroughputUnroll == 0, "chain must be a multiple of the loop body");
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int nwarps = blockDim.x / 32;
  T x[ILP];
  const T y = in[1];
  init_chains<T, ILP>(in, x);
  long long* out = cycles + (static_cast<long long>(blockIdx.x) * nwarps + warp) * 2 * (reps + 1);
#pragma unroll 1
  for (int r = 0; r <= reps; ++r) {
    __syncthreads();  // all warps start the repetition together; the harness takes max(t1) - min(t0)
    const long long t0 = clock64_read();
#pragma unroll 1
    for (int it = 0; it < Op::kChain / kThroughputUnroll; ++it) {
#pragma unroll
      for (int k = 0; k < kThroughputUnroll; ++k) {
#pragma unroll
        for (int i = 0; i < ILP; ++i) x[i] = Op::step(x[i], y);
      }
    }
    const long long t1 = clock64_read();
    if (lane == 0) {
      out[2 * r] = t0;  // absolute %clock64 (per SM): start and end of this warp's region
      out[2 * r + 1] = t1;
    }
  }
  store_sum<T, ILP>(x, sink);
}

#define UBENCH_ALU(name, TT, constraint, ptx, sass_regex, sass_per_op, allowed_regex, chain, spec, minus)      \
  struct Op_##name {                                                                                    \
    using T = TT;                                                                                       \
    static constexpr int kChain = chain;                                                                \
    static __device__ __forceinline__ T step(T x, T y) {                                                \
      asm volatile(ptx : "+" constraint(x) : constraint(y));                                            \
      return x;                                                                                         \
    }                                                                                                   \
  };                                                                                                    \
  extern "C" __global__ void ubench_lat_##name(const TT* in, long long* cycles, TT* sink, int reps) {   \
    alu_body<Op_##name, 1>(in, cycles, sink, reps);                                                     \
  }                                                                                                     \
  extern "C" __global__ void ubench_thr_##name(const TT* in, long long* cycles, TT* sink, int reps) {   \
    alu_thr_body<Op_##name>(in, cycles, sink, reps);                                                    \
  }
#include "ubench.def"

// --- clock-read cost ---
extern "C" __global__ void ubench_clock64(long long* cycles, int reps) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
#pragma unroll 1
  for (int r = 0; r <= reps; ++r) {
    const long long t0 = clock64_read();
    const long long t1 = clock64_read();
    if (lane == 0) cycles[warp * (reps + 1) + r] = t1 - t0;
  }
}

extern "C" __global__ void ubench_clock32(long long* cycles, int reps) {  // thesis listing 4.1
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
#pragma unroll 1
  for (int r = 0; r <= reps; ++r) {
    unsigned start, stop;
    asm volatile("mov.u32 %0, %%clock;\n\tmov.u32 %1, %%clock;" : "=r"(start), "=r"(stop)::"memory");
    if (lane == 0) cycles[warp * (reps + 1) + r] = static_cast<int>(stop - start);
  }
}

extern "C" __global__ void ubench_clock_fn(long long* cycles, int reps) {  // thesis listing 4.2
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
#pragma unroll 1
  for (int r = 0; r <= reps; ++r) {
    const clock_t start = clock();
    const clock_t stop = clock();
    if (lane == 0) cycles[warp * (reps + 1) + r] = static_cast<int>(stop - start);
  }
}

// --- shared-memory pointer chase ---
constexpr int kSharedWords = kSharedChaseWords;
constexpr int kSharedChain = kSharedChaseChain;
extern "C" __global__ void ubench_shared_chase(long long* cycles, unsigned* sink, int reps) {
  __shared__ unsigned s[kSharedWords];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(s));
  for (int i = threadIdx.x; i < kSharedWords; i += blockDim.x)
    s[i] = base + 4u * ((i + 32 * 7) % kSharedWords);  // lane keeps its bank: no conflicts
  __syncthreads();
  unsigned p = base + 4u * ((warp * 32 + lane) % kSharedWords);
#pragma unroll 1
  for (int r = 0; r <= reps; ++r) {
    const long long t0 = clock64_read();
#pragma unroll
    for (int k = 0; k < kSharedChain; ++k) asm volatile("ld.shared.u32 %0, [%0];" : "+r"(p)::"memory");
    const long long t1 = clock64_read();
    if (lane == 0) cycles[warp * (reps + 1) + r] = t1 - t0;
  }
  sink[blockIdx.x * blockDim.x + threadIdx.x] = p;
}

// A dependent use of a loaded value (one LOP3): the next clock read is issued only after it, so
// the timed region includes the whole latency of the load that produced v.
__device__ __forceinline__ void consume(unsigned& acc, unsigned long long v) {
  asm volatile("{\n\t.reg .u32 lo;\n\tcvt.u32.u64 lo, %1;\n\txor.b32 %0, %0, lo;\n\t}" : "+r"(acc) : "l"(v));
}

// --- store latency (thesis listings 4.8/4.9, measured as a round trip) ---
// Every thread owns one 8-byte word that holds its own address. One step of the chain is
// "st [p], p; ld p, [p]": the store's data and address come from the previous load, and the load
// must return what the store wrote, so the store lies on the dependency path. The matching
// "load only" kernel runs the same chain without the store (same words, same cache level); the
// store latency is the difference per step. Shared memory: u32 words (conflict-free, one per
// lane); global: u64 words, 256 B per warp, loads with .cg (L2; stores are write-through).
template <class Step>
__device__ __forceinline__ void store_body(unsigned long long* gbase, long long* cycles, unsigned* sink, int reps) {
  using T = typename Step::T;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  __shared__ unsigned s[1024];
  T p;
  if constexpr (Step::kShared) {
    const unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(s + threadIdx.x));
    s[threadIdx.x] = a;
    p = a;
  } else {
    unsigned long long* a = gbase + threadIdx.x;
    *a = reinterpret_cast<unsigned long long>(a);
    p = reinterpret_cast<unsigned long long>(a);
  }
  __syncthreads();
  unsigned acc = 0;
#pragma unroll 1
  for (int r = 0; r <= reps; ++r) {
    const long long t0 = clock64_read();
#pragma unroll
    for (int k = 0; k < kStoreChain; ++k) p = Step::step(p);
    consume(acc, static_cast<unsigned long long>(p));
    const long long t1 = clock64_read();
    if (lane == 0) cycles[warp * (reps + 1) + r] = t1 - t0;
  }
  sink[threadIdx.x] = acc + static_cast<unsigned>(p);
}
#define UBENCH_STORE(name, shared, TT, cons, body)                                                        \
  struct Step_##name {                                                                                  \
    using T = TT;                                                                                       \
    static constexpr bool kShared = shared;                                                             \
    static __device__ __forceinline__ T step(T p) {                                                     \
      asm volatile(body : "+" cons(p)::"memory");                                                       \
      return p;                                                                                         \
    }                                                                                                   \
  };                                                                                                    \
  extern "C" __global__ void ubench_##name(unsigned long long* gbase, long long* cycles, unsigned* sink, int reps) { \
    store_body<Step_##name>(gbase, cycles, sink, reps);                                                 \
  }
// .volatile on the shared chain: without it ptxas forwards the stored value and deletes the LDS.
UBENCH_STORE(store_shared, true, unsigned, "r", "st.volatile.shared.u32 [%0], %0;\n\tld.volatile.shared.u32 %0, [%0];")
UBENCH_STORE(selfload_shared, true, unsigned, "r", "ld.volatile.shared.u32 %0, [%0];")
UBENCH_STORE(store_global, false, unsigned long long, "l", "st.global.u64 [%0], %0;\n\tld.global.cg.u64 %0, [%0];")
UBENCH_STORE(selfload_global, false, unsigned long long, "l", "ld.global.cg.u64 %0, [%0];")

// --- near/far L2: per-load latency of a chase, from one warp on one chosen SM ---
// Launched with many single-warp blocks; the first block that lands on SM `target` (by %smid)
// chases `steps` nodes once untimed (TLB, L2 state) and once timing every load on its own:
// clock, one ld.global.cg, a dependent use, clock. Every SM chases the same lines from the same
// start, so the per-SM distributions are comparable line by line.
extern "C" __global__ void ubench_l2_lines(unsigned long long start, int steps, int target, int* claimed,
                                           long long* cycles, unsigned long long* sink) {
  unsigned smid;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
  if (static_cast<int>(smid) != target) return;
  __shared__ int won;
  if (threadIdx.x == 0) won = atomicCAS(claimed, 0, 1) == 0;
  __syncthreads();
  if (!won) return;
  unsigned acc = 0;
  unsigned long long p = start;
#pragma unroll 1
  for (int i = 0; i < steps; ++i) asm volatile("ld.global.cg.u64 %0, [%0];" : "+l"(p)::"memory");
  p = start;
#pragma unroll 1
  for (int i = 0; i < steps; ++i) {
    const long long t0 = clock64_read();
    asm volatile("ld.global.cg.u64 %0, [%0];" : "+l"(p)::"memory");
    consume(acc, p);
    const long long t1 = clock64_read();
    if (threadIdx.x == 0) cycles[i] = t1 - t0;
  }
  sink[threadIdx.x] = p + acc;
}

// --- global-memory pointer chase ---
constexpr int kGlobalChain = kGlobalChaseChain;
#define UBENCH_CHASE(op)                                                                                 \
  extern "C" __global__ void ubench_chase_##op(const unsigned long long* starts, long long* cycles,     \
                                               unsigned long long* sink, int warmup, int reps) {         \
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;                                          \
    const int nwarps = blockDim.x / 32;                                                                  \
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;                                               \
    unsigned long long p = starts[tid];                                                                  \
    unsigned acc = 0;                                                                                    \
    _Pragma("unroll 1") for (int i = 0; i < warmup; ++i)                                                 \
        asm volatile("ld.global." #op ".u64 %0, [%0];" : "+l"(p)::"memory");                            \
    long long* out = cycles + (static_cast<long long>(blockIdx.x) * nwarps + warp) * (reps + 1);        \
    _Pragma("unroll 1") for (int r = 0; r <= reps; ++r) {                                                \
      const long long t0 = clock64_read();                                                               \
      _Pragma("unroll") for (int k = 0; k < kGlobalChain; ++k)                                           \
          asm volatile("ld.global." #op ".u64 %0, [%0];" : "+l"(p)::"memory");                          \
      consume(acc, p); /* the stop read waits for the last load */                                       \
      const long long t1 = clock64_read();                                                               \
      if (lane == 0) out[r] = t1 - t0;                                                                   \
    }                                                                                                    \
    sink[tid] = p + acc;                                                                                 \
  }
UBENCH_CHASE(ca)
UBENCH_CHASE(cg)

// --- departure delay, direct ---
__device__ __forceinline__ unsigned long long scramble_line(unsigned long long line, unsigned long long mask) {
  return (line * 1031ull) & mask;  // odd multiplier: a bijection on the power-of-two line space
}
// lines: 0 = one scrambled line per warp (coalesced), 1 = 32 scrambled lines per warp, one per lane
// (uncoalesced), 2 = one line per warp, the block's warps on consecutive lines (sequential).
extern "C" __global__ void ubench_departure(const unsigned* buf, unsigned long long line_mask,
                                            unsigned long long first_line, int lines, long long* t_start,
                                            long long* t_end, unsigned* sink, int reps) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int nwarps = blockDim.x / 32;
  const bool uncoalesced = lines == 1, sequential = lines == 2;
  unsigned acc = 0;
#pragma unroll 1
  for (int r = 0; r <= reps; ++r) {
    const unsigned long long slot = static_cast<unsigned long long>(r) * nwarps + warp;
    const unsigned long long line = uncoalesced ? first_line + slot * 32 + lane : first_line + slot;
    const unsigned long long placed = sequential ? line & line_mask : scramble_line(line, line_mask);
    const unsigned* addr = buf + placed * 32 + (uncoalesced ? 0 : lane);
    __syncthreads();
    const long long t0 = clock64_read();
    unsigned v;
    asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(addr) : "memory");
    asm volatile("add.u32 %0, %0, %1;" : "+r"(acc) : "r"(v));
    const long long t1 = clock64_read();
    if (lane == 0) {
      t_start[slot] = t0;
      t_end[slot] = t1;
    }
  }
  sink[threadIdx.x] = acc;
}

// --- bandwidth ---
extern "C" __global__ void ubench_bw_read(const float4* __restrict__ a, std::size_t n, float* sink) {
  float s = 0;
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const float4 v = __ldcg(a + i);
    s += v.x + v.y + v.z + v.w;
  }
  if (s == 1.2345f) sink[0] = s;  // never true for the zeroed buffer; keeps the loads alive
}
extern "C" __global__ void ubench_bw_write(float4* __restrict__ a, std::size_t n) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    a[i] = make_float4(0.f, 0.f, 0.f, 0.f);
}
extern "C" __global__ void ubench_bw_copy(const float4* __restrict__ a, float4* __restrict__ b, std::size_t n) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    b[i] = a[i];
}
// In place: every float4 read and written back to the same address (a read-modify-write sweep, as
// kernels that update their arrays do).
extern "C" __global__ void ubench_bw_inplace(float4* __restrict__ a, std::size_t n) {
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    float4 v = a[i];
    v.x += 1.0f, v.y += 1.0f, v.z += 1.0f, v.w += 1.0f;
    a[i] = v;
  }
}
extern "C" __global__ void ubench_bw_l2_read(const float4* __restrict__ a, std::size_t n, int passes, float* sink) {
  float s = 0;  // n is a power of two
  const std::size_t step = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t c = blockIdx.x * blockDim.x + threadIdx.x; c < n * passes; c += step) {
    const float4 v = __ldcg(a + (c & (n - 1)));
    s += v.x + v.y + v.z + v.w;
  }
  if (s == 1.2345f) sink[0] = s;
}
// Brings a chase footprint into L2 before the timed chase (parallel streaming read).
extern "C" __global__ void ubench_prewarm(const unsigned long long* __restrict__ a, std::size_t n, unsigned long long* sink) {
  unsigned long long s = 0;
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    s += __ldcg(a + i);
  if (s == 12345) sink[0] = s;
}
constexpr int kSharedBwFloat4 = 2048;  // 32 KiB per block
extern "C" __global__ void ubench_bw_shared(int iters, float* sink) {
  __shared__ float4 s[kSharedBwFloat4];
  for (int i = threadIdx.x; i < kSharedBwFloat4; i += blockDim.x) s[i] = make_float4(i, 0, 0, 0);
  __syncthreads();
  float4 acc = make_float4(0, 0, 0, 0);
  int idx = threadIdx.x;
#pragma unroll 1
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      const float4 v = s[(idx + k * 256) % kSharedBwFloat4];
      acc.x += v.x; acc.y += v.y; acc.z += v.z; acc.w += v.w;
    }
    idx = (idx + 1) & (kSharedBwFloat4 - 1);
  }
  if (acc.x + acc.y + acc.z + acc.w == 1.2345f) sink[0] = acc.x;
}

extern "C" __global__ void ubench_bw_l2_write(float4* __restrict__ a, std::size_t n, int passes) {
  const std::size_t step = static_cast<std::size_t>(gridDim.x) * blockDim.x;  // n is a power of two
  for (std::size_t c = blockIdx.x * blockDim.x + threadIdx.x; c < n * passes; c += step)
    a[c & (n - 1)] = make_float4(0.f, 0.f, 0.f, 0.f);
}

// Sector hash(i) of 2^log2_sectors: the splitmix64 finalizer, so neighbouring i land on unrelated
// sectors, pages and channels, and no line is reused in L1 (Fibonacci hashing's lattice, i x 2^64/phi,
// ran at half the rate of a gather with random indices).
__device__ __forceinline__ std::size_t hashed_sector(std::size_t i, int log2_sectors) {
  unsigned long long z = static_cast<unsigned long long>(i) + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return (z ^ (z >> 31)) >> (64 - log2_sectors);
}

// Random sectors (a gather): sample i reads one float of sector hashed_sector(i) of the footprint;
// log2_sectors of them, a power of two. Bytes moved: 32 per sample.
extern "C" __global__ void ubench_bw_random_read(const float* __restrict__ a, int log2_sectors, std::size_t samples,
                                                 float* sink) {
  float s = 0;
  const std::size_t step = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < samples; i += step)
    s += __ldcg(a + hashed_sector(i, log2_sectors) * 8);
  if (s == 1.2345f) sink[0] = s;
}

// Random whole sectors written (a data-indexed per-thread array's lines going back to DRAM): the
// write twin of ubench_bw_random_read. Each group of 8 lanes writes the 8 floats of sector
// hashed_sector(i / 8) of the footprint, so a request writes 4 whole sectors at 4
// unrelated places and the L2 evicts whole dirty sectors, never partial ones; `sectors` of them.
// Back-to-back launches pay the previous launch's dirty lines: the timed rate is the write-back's.
// Bytes moved: 32 per sector.
extern "C" __global__ void ubench_bw_random_write(float* a, int log2_sectors, std::size_t sectors) {
  const std::size_t step = static_cast<std::size_t>(gridDim.x) * blockDim.x;  // a multiple of 8
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < sectors * 8; i += step)
    a[hashed_sector(i >> 3, log2_sectors) * 8 + (i & 7)] = 1.0f;
}

// Row segments: a matrix of `width` floats per row, x across the block's width, y down its height
// and on down the matrix in steps of the grid's height (a grid of about 8 blocks per SM, one wave at
// 64 warps per SM, each block looping; one float
// per thread and launch would time the block dispatch instead, 1.6 TB/s on the H100 at every
// segment). Blocks are dealt x first, so the x-neighbouring blocks that read the other segments of
// each line run at about the same time, as in a 2D stencil.
extern "C" __global__ void ubench_bw_read_rows(const float* a, int width, int rows, float* sink) {
  const std::size_t x = blockIdx.x * blockDim.x + threadIdx.x;
  const std::size_t step = static_cast<std::size_t>(gridDim.y) * blockDim.y;
  float s = 0;
#pragma unroll 4
  for (std::size_t y = blockIdx.y * blockDim.y + threadIdx.y; y < static_cast<std::size_t>(rows); y += step)
    s += a[y * width + x];
  if (s == 1.2345f) sink[0] = s;
}

// The same walk, storing: every float of the matrix written once.
extern "C" __global__ void ubench_bw_write_rows(float* a, int width, int rows) {
  const std::size_t x = blockIdx.x * blockDim.x + threadIdx.x;
  const std::size_t step = static_cast<std::size_t>(gridDim.y) * blockDim.y;
#pragma unroll 4
  for (std::size_t y = blockIdx.y * blockDim.y + threadIdx.y; y < static_cast<std::size_t>(rows); y += step)
    a[y * width + x] = 1.0f;
}

// Scattered sectors: a matrix of 2048 x 2048 floats (resident in L2) written down its columns, a
// warp's 32 lanes as 32 / k rows of k consecutive floats (k = 2^log2_k = 1, 2, 4 or 8: 4 to 32 bytes
// of a sector), as a naive transpose's warp writes; the warps are dealt column-group fastest, so the
// next 32 / k warps write the rest of those rows' lines. Every float is written once a pass.
extern "C" __global__ void ubench_bw_l2_write_sectors(float* a, int log2_k, int passes) {
  constexpr unsigned kWidth = kL2SectorsWidthFloats, kLog2Width = 11;
  static_assert(1u << kLog2Width == kWidth);
  const unsigned lane = threadIdx.x & 31, k = 1u << log2_k;
  const unsigned row_in_request = lane >> log2_k, column_in_request = lane & (k - 1);
  const unsigned groups_per_row = kWidth >> log2_k, requests = kWidth * kWidth / 32;  // powers of two
  const unsigned warps = gridDim.x * blockDim.x / 32;
  for (unsigned c = (blockIdx.x * blockDim.x + threadIdx.x) / 32; c < requests * passes; c += warps) {
    const unsigned t = c & (requests - 1);
    const unsigned group = t & (groups_per_row - 1), row_block = t >> (kLog2Width - log2_k);
    const unsigned row = row_block * (32u >> log2_k) + row_in_request;
    a[row * kWidth + group * k + column_in_request] = 1.0f;
  }
}

// --- the memory-pipe kernels: one signature, launched by symbol (run_timed) ---
// Every warp writes the absolute (start, end) %clock64 of its timed region per repetition; the
// harness takes a block's time as max(end) - min(start) over its warps (throughput) or each
// warp's own region (latency chains).
struct TimedArgs {
  long long* cycles;  // [block][warp][rep][2]
  unsigned* buffer;   // kMemoryBufferBytes, zeroed before the launch
  unsigned* sink;     // one word per thread: keeps every result alive
  int reps;           // repetitions after the warm-up (rep 0)
  unsigned zero;      // 0 at run time: an offset ptxas cannot fold (nor prove warp-uniform)
};

__device__ __forceinline__ void record_region(const TimedArgs& a, int r, long long t0, long long t1) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, nwarps = blockDim.x / 32;
  if (lane == 0) {
    long long* out = a.cycles + ((static_cast<long long>(blockIdx.x) * nwarps + warp) * (a.reps + 1) + r) * 2;
    out[0] = t0;
    out[1] = t1;
  }
}

// The repetitions of a memory-pipe kernel: all warps of the block start together (barrier), then
// the timed region: kSteps calls of step(s, r) (a loop ptxas keeps, so its body stays in the
// instruction cache), then finish() (a fence, or nothing), between the two clock reads.
template <int kSteps, class Step, class Finish>
__device__ __forceinline__ void timed_steps(const TimedArgs& a, Step step, Finish finish) {
#pragma unroll 1
  for (int r = 0; r <= a.reps; ++r) {
    __syncthreads();
    const long long t0 = clock64_read();
#pragma unroll 1
    for (int s = 0; s < kSteps; ++s) step(s, r);
    finish();
    const long long t1 = clock64_read();
    record_region(a, r, t0, t1);
  }
}
struct NoFinish {
  __device__ void operator()() const {}
};
// fence.acq_rel.gpu (MEMBAR.ALL.GPU): the stop read waits until the region's stores and reductions
// have reached L2 (they have no result a clock read could wait for).
struct FenceGpu {
  __device__ void operator()() const { asm volatile("fence.acq_rel.gpu;" ::: "memory"); }
};

// LSU loads: kMemoryOpsPerStep independent weak loads (LDG.E, cached in L1) per loop step, each
// value consumed by an XOR inside the loop, so the stop read waits for the last load. Every
// pattern's footprint is <= 16 KiB (L1-resident after the warm-up repetition).
struct LoadBroadcast {  // all lanes one 4-byte word (a different word per k): 1 sector per request
  static __device__ __forceinline__ unsigned load(const unsigned* base, int k, int /*lane*/) {
    unsigned v;
    asm volatile("ld.global.u32 %0, [%1];" : "=r"(v) : "l"(base + k) : "memory");
    return v;
  }
};
struct LoadCoalesced {  // consecutive lanes, consecutive words: one 128-B line, 4 sectors per request
  static __device__ __forceinline__ unsigned load(const unsigned* base, int k, int lane) {
    unsigned v;
    asm volatile("ld.global.u32 %0, [%1];" : "=r"(v) : "l"(base + k * 32 + lane) : "memory");
    return v;
  }
};
struct LoadCoalesced16 {  // float4 per lane: 512 B, 16 sectors per request
  static __device__ __forceinline__ unsigned load(const unsigned* base, int k, int lane) {
    unsigned x, y, z, w;
    asm volatile("ld.global.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(x), "=r"(y), "=r"(z), "=r"(w)
                 : "l"(base + (k * 32 + lane) * 4)
                 : "memory");
    return x ^ y ^ z ^ w;
  }
};
struct LoadScattered {  // each lane its own 128-B line: 32 lines, 32 sectors per request
  static __device__ __forceinline__ unsigned load(const unsigned* base, int k, int lane) {
    unsigned v;
    asm volatile("ld.global.u32 %0, [%1];" : "=r"(v) : "l"(base + lane * 32 + k) : "memory");
    return v;
  }
};
template <class Pattern>
__device__ __forceinline__ void load_throughput(const TimedArgs& a) {
  const int lane = threadIdx.x % 32;
  unsigned acc = 0;
  timed_steps<kMemorySteps>(
      a,
      [&](int, int) {
#pragma unroll
        for (int k = 0; k < kMemoryOpsPerStep; ++k) acc ^= Pattern::load(a.buffer, k, lane);
      },
      NoFinish{});
  a.sink[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
extern "C" __global__ void ubench_ldg_broadcast(TimedArgs a) { load_throughput<LoadBroadcast>(a); }
extern "C" __global__ void ubench_ldg_coalesced(TimedArgs a) { load_throughput<LoadCoalesced>(a); }
extern "C" __global__ void ubench_ldg_coalesced_16b(TimedArgs a) { load_throughput<LoadCoalesced16>(a); }
extern "C" __global__ void ubench_ldg_scattered(TimedArgs a) { load_throughput<LoadScattered>(a); }

// Stores through L1 to L2: each warp its own kStoreRegionWords region; coalesced: consecutive lanes
// write one line (4 sectors per request); scattered: each lane its own line (one sector per lane).
// A store has no result to wait for, so a fence (fence.acq_rel.gpu: MEMBAR.ALL.GPU) precedes the
// stop read: the region ends when the stores have reached L2.
template <bool kScattered>
__device__ __forceinline__ void store_throughput(const TimedArgs& a) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, nwarps = blockDim.x / 32;
  unsigned* region = a.buffer + (static_cast<std::size_t>(blockIdx.x) * nwarps + warp) * kStoreRegionWords;
  timed_steps<kMemorySteps>(
      a,
      [&](int s, int r) {
#pragma unroll
        for (int k = 0; k < kMemoryOpsPerStep; ++k) {
          unsigned* p = kScattered ? region + lane * 32 + k : region + k * 32 + lane;
          asm volatile("st.global.u32 [%0], %1;" ::"l"(p), "r"(static_cast<unsigned>(s ^ r)) : "memory");
        }
      },
      FenceGpu{});
}
extern "C" __global__ void ubench_stg_coalesced(TimedArgs a) { store_throughput<false>(a); }
extern "C" __global__ void ubench_stg_scattered(TimedArgs a) { store_throughput<true>(a); }

// Global atomics without a return (red.global.add: what atomicAdd with an unused result compiles
// to), a fence before the stop read. The same-address word is offset by zero x lane: ptxas cannot
// prove the address warp-uniform, so it does not aggregate the warp's adds into one RED.
// kFloat: red.global.add.f32, which the L2 performs more slowly than the integer add (a float
// atomicAdd on one word ran 3.5 clocks per add on the H200, against 1.5 for u32).
template <bool kSameAddress, bool kFloat = false>
__device__ __forceinline__ void red_global_throughput(const TimedArgs& a) {
  const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned* word = kSameAddress ? a.buffer + a.zero * (threadIdx.x % 32) : a.buffer + tid;
  timed_steps<kAtomicSteps>(
      a,
      [&](int, int) {
#pragma unroll
        for (int k = 0; k < kAtomicOpsPerStep; ++k) {
          if constexpr (kFloat)
            asm volatile("red.global.add.f32 [%0], 1.0;" ::"l"(word) : "memory");
          else
            asm volatile("red.global.add.u32 [%0], 1;" ::"l"(word) : "memory");
        }
      },
      FenceGpu{});
}
extern "C" __global__ void ubench_red_global_same(TimedArgs a) { red_global_throughput<true>(a); }
extern "C" __global__ void ubench_red_global_same_f32(TimedArgs a) { red_global_throughput<true, true>(a); }
extern "C" __global__ void ubench_red_global_distinct(TimedArgs a) { red_global_throughput<false>(a); }

// Shared atomics with their result consumed (ATOMS.ADD), so the stop read waits for the last one.
template <bool kSameAddress>
__device__ __forceinline__ void atom_shared_throughput(const TimedArgs& a) {
  __shared__ unsigned words[1024];
  words[threadIdx.x] = 0;
  __syncthreads();
  const unsigned index = kSameAddress ? a.zero * threadIdx.x : threadIdx.x;  // distinct: one bank per lane
  const unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(words + index));
  unsigned acc = 0;
  timed_steps<kAtomicSteps>(
      a,
      [&](int, int) {
#pragma unroll
        for (int k = 0; k < kAtomicOpsPerStep; ++k) {
          unsigned v;
          asm volatile("atom.shared.add.u32 %0, [%1], 1;" : "=r"(v) : "r"(addr) : "memory");
          acc ^= v;
        }
      },
      NoFinish{});
  a.sink[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
extern "C" __global__ void ubench_atom_shared_same(TimedArgs a) { atom_shared_throughput<true>(a); }
extern "C" __global__ void ubench_atom_shared_distinct(TimedArgs a) { atom_shared_throughput<false>(a); }

// Global atomic latency: one lane, a chain of atom.global.add whose result is the next operand (the
// word stays in L2, where atomics are performed); one LOP3 consumes the last result before the stop.
extern "C" __global__ void ubench_atom_global_latency(TimedArgs a) {
  if (threadIdx.x != 0) return;
  unsigned v = a.zero, acc = 0;
#pragma unroll 1
  for (int r = 0; r <= a.reps; ++r) {
    const long long t0 = clock64_read();
#pragma unroll
    for (int k = 0; k < kAtomicChain; ++k)
      asm volatile("atom.global.add.u32 %0, [%1], %0;" : "+r"(v) : "l"(a.buffer) : "memory");
    asm volatile("xor.b32 %0, %0, %1;" : "+r"(acc) : "r"(v));
    const long long t1 = clock64_read();
    record_region(a, r, t0, t1);
  }
  a.sink[0] = acc + v;
}

// Local memory: a per-thread array whose local address is handed to the asm, so it stays in local
// memory (LDL/STL). Latency: a chase through the array (each word holds the local address of the
// next, a stride of 7 words over 32: one cycle); all lanes hold the same offsets, so each LDL is one
// coalesced request (local memory interleaves the threads' words).
extern "C" __global__ void ubench_local_chase(TimedArgs a) {
  unsigned words[kLocalChaseWords];
  const unsigned base = static_cast<unsigned>(__cvta_generic_to_local(words));
#pragma unroll
  for (int i = 0; i < kLocalChaseWords; ++i) words[i] = base + 4u * ((i + 7) % kLocalChaseWords);
  unsigned p = base + 4u * a.zero, acc = 0;
#pragma unroll 1
  for (int r = 0; r <= a.reps; ++r) {
    const long long t0 = clock64_read();
#pragma unroll
    for (int k = 0; k < kLocalChaseChain; ++k) asm volatile("ld.local.u32 %0, [%0];" : "+r"(p)::"memory");
    asm volatile("xor.b32 %0, %0, %1;" : "+r"(acc) : "r"(p));
    const long long t1 = clock64_read();
    record_region(a, r, t0, t1);
  }
  a.sink[blockIdx.x * blockDim.x + threadIdx.x] = acc + p;
}
// Local throughput: independent LDLs at a base offset by a run-time zero (ptxas cannot forward the
// stored values, which it does for known addresses and then deletes the loads).
extern "C" __global__ void ubench_local_loads(TimedArgs a) {
  unsigned words[kLocalThroughputWords];
#pragma unroll
  for (int i = 0; i < kLocalThroughputWords; ++i) words[i] = threadIdx.x ^ static_cast<unsigned>(i);
  const unsigned base = static_cast<unsigned>(__cvta_generic_to_local(words)) + 4u * a.zero;
  unsigned acc = 0;
  timed_steps<kLocalSteps>(
      a,
      [&](int, int) {
#pragma unroll
        for (int k = 0; k < kLocalThroughputWords; ++k) {
          unsigned v;
          asm volatile("ld.local.u32 %0, [%1];" : "=r"(v) : "r"(base + 4u * k) : "memory");
          acc ^= v;
        }
      },
      NoFinish{});
  a.sink[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// Barriers: kBarrierChain bar.sync 0 in a row, no loop (nothing to subtract but the clock read).
extern "C" __global__ void ubench_barrier(TimedArgs a) {
#pragma unroll 1
  for (int r = 0; r <= a.reps; ++r) {
    __syncthreads();
    const long long t0 = clock64_read();
#pragma unroll
    for (int k = 0; k < kBarrierChain; ++k) asm volatile("bar.sync 0;" ::: "memory");
    const long long t1 = clock64_read();
    record_region(a, r, t0, t1);
  }
}

// Launch overhead: nothing but EXIT.
extern "C" __global__ void ubench_empty() {}

// --- host side ---
using warpmodel::support::cuda::check;
template <class T>
using DevBuf = warpmodel::support::cuda::DeviceBuffer<T>;

void sync(const char* what) {
  check(cudaGetLastError(), what);
  check(cudaDeviceSynchronize(), what);
}

using AluKernelF = void (*)(const float*, long long*, float*, int);
using AluKernelD = void (*)(const double*, long long*, double*, int);
using AluKernelU = void (*)(const unsigned*, long long*, unsigned*, int);
struct AluEntry {
  AluKernelF f = nullptr;
  AluKernelD d = nullptr;
  AluKernelU u = nullptr;
  AluKernelF tf = nullptr;
  AluKernelD td = nullptr;
  AluKernelU tu = nullptr;
};
template <class K>
void set_kernels(AluEntry& e, K lat, K thr);
template <>
void set_kernels<AluKernelF>(AluEntry& e, AluKernelF lat, AluKernelF thr) { e.f = lat; e.tf = thr; }
template <>
void set_kernels<AluKernelD>(AluEntry& e, AluKernelD lat, AluKernelD thr) { e.d = lat; e.td = thr; }
template <>
void set_kernels<AluKernelU>(AluEntry& e, AluKernelU lat, AluKernelU thr) { e.u = lat; e.tu = thr; }

std::vector<AluEntry> alu_table() {
  std::vector<AluEntry> t;
#define UBENCH_ALU(name, TT, constraint, ptx, sass_regex, sass_per_op, allowed_regex, chain, spec, minus) \
  {                                                                                                \
    AluEntry e;                                                                                    \
    set_kernels<void (*)(const TT*, long long*, TT*, int)>(e, ubench_lat_##name, ubench_thr_##name); \
    t.push_back(e);                                                                                \
  }
#include "ubench.def"
  return t;
}

// A large zeroed buffer shared by the departure and bandwidth kernels.
struct Scratch {
  void* p = nullptr;
  std::size_t bytes = 0;
  unsigned long long next_line = 0;
} g_scratch;
constexpr std::size_t kScratchBytes = 2ull << 30;  // 2 GiB

void* scratch() {
  if (!g_scratch.p) {
    check(cudaMalloc(&g_scratch.p, kScratchBytes), "cudaMalloc scratch");
    check(cudaMemset(g_scratch.p, 0, kScratchBytes), "cudaMemset scratch");
    g_scratch.bytes = kScratchBytes;
    sync("scratch init");
  }
  return g_scratch.p;
}

}  // namespace

namespace warpmodel::ubench::gpu {

void select_device(int index) { check(cudaSetDevice(index), "cudaSetDevice"); }

std::string pci_bus_id(int index) {
  char id[64] = {0};
  if (cudaDeviceGetPCIBusId(id, sizeof id, index) != cudaSuccess) return "";
  return id;
}

int alu_count() { return static_cast<int>(alu_table().size()); }

namespace {
// One ALU kernel's launch: its three runtime inputs uploaded (so nothing folds), a sink per thread.
template <typename T, typename Kernel>
void launch_alu(Kernel* kernel, const T (&inputs)[3], int blocks, int warps, long long* cycles, int reps) {
  DevBuf<T> in(3), sink(static_cast<std::size_t>(blocks) * warps * 32);
  check(cudaMemcpy(in.data(), inputs, sizeof inputs, cudaMemcpyHostToDevice), "cudaMemcpy");
  kernel<<<blocks, warps * 32>>>(in.data(), cycles, sink.data(), reps);
  sync("alu kernel");
}
}  // namespace

Cycles run_alu(AluKernel kernel, int blocks, int warps, int reps) {
  const bool throughput = kernel.throughput;
  const auto table = alu_table();
  const AluEntry& e = table.at(static_cast<std::size_t>(kernel.index));
  const std::size_t n = static_cast<std::size_t>(blocks) * warps * (reps + 1) * (throughput ? 2 : 1);
  DevBuf<long long> cyc(n);
  if (e.f) {
    const float inputs[3] = {1.0001f, 0.99993f, 1e-7f};
    launch_alu(throughput ? e.tf : e.f, inputs, blocks, warps, cyc.data(), reps);
  } else if (e.u) {
    const unsigned inputs[3] = {0x9E3779B9u, 7u, 0x85EBCA6Bu};  // a start, a rotate amount, a lane spread
    launch_alu(throughput ? e.tu : e.u, inputs, blocks, warps, cyc.data(), reps);
  } else {
    const double inputs[3] = {1.0001, 0.99993, 1e-9};
    launch_alu(throughput ? e.td : e.d, inputs, blocks, warps, cyc.data(), reps);
  }
  return cyc.download();
}

Cycles run_clock(ClockRead which, int warps, int reps) {
  const std::size_t n = static_cast<std::size_t>(warps) * (reps + 1);
  DevBuf<long long> cyc(n);
  auto* k = which == ClockRead::clock64 ? ubench_clock64
            : which == ClockRead::clock32_register ? ubench_clock32
                                                   : ubench_clock_fn;
  k<<<1, warps * 32>>>(cyc.data(), reps);
  sync("clock kernel");
  return cyc.download();
}

Cycles run_shared_chase(int warps, int reps) {
  const std::size_t n = static_cast<std::size_t>(warps) * (reps + 1);
  DevBuf<long long> cyc(n);
  DevBuf<unsigned> sink(static_cast<std::size_t>(warps) * 32);
  ubench_shared_chase<<<1, warps * 32>>>(cyc.data(), sink.data(), reps);
  sync("shared chase");
  return cyc.download();
}

Cycles run_store(StoreChain which, int warps, int reps) {
  const std::size_t n = static_cast<std::size_t>(warps) * (reps + 1);
  DevBuf<long long> cyc(n);
  DevBuf<unsigned> sink(static_cast<std::size_t>(warps) * 32);
  DevBuf<unsigned long long> words(static_cast<std::size_t>(warps) * 32);
  auto* k = which == StoreChain::shared_roundtrip   ? ubench_store_shared
            : which == StoreChain::shared_selfload  ? ubench_selfload_shared
            : which == StoreChain::global_roundtrip ? ubench_store_global
                                                    : ubench_selfload_global;
  k<<<1, warps * 32>>>(words.data(), cyc.data(), sink.data(), reps);
  sync("store kernel");
  return cyc.download();
}

namespace {
__global__ void link_nodes(unsigned long long* buf, const std::uint32_t* order, std::size_t nodes, std::size_t stride) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= nodes) return;
  const std::size_t from = order[i], to = order[(i + 1) % nodes];
  unsigned long long* node = buf + from * (stride / 8);
  const unsigned long long next = reinterpret_cast<unsigned long long>(buf + to * (stride / 8));
  for (int w = 0; w < 32; ++w) node[w] = next + 8ull * w;
}
}  // namespace

ChaseBuffer::ChaseBuffer(std::size_t max_bytes) : max_(max_bytes) {
  check(cudaMalloc(&buf_, max_bytes), "cudaMalloc chase buffer");
}
ChaseBuffer::~ChaseBuffer() { cudaFree(buf_); }

std::size_t ChaseBuffer::build(std::size_t footprint, std::size_t stride, std::uint64_t seed) {
  if (footprint > max_ || stride < 256 || footprint < 2 * stride) throw warpmodel::support::cuda::CudaError("chase: bad footprint/stride");
  footprint_ = footprint;
  stride_ = stride;
  nodes_ = footprint / stride;
  order_.resize(nodes_);
  std::iota(order_.begin(), order_.end(), 0u);
  std::mt19937_64 rng(seed);
  std::shuffle(order_.begin(), order_.end(), rng);  // a random cyclic order = a single random cycle
  DevBuf<std::uint32_t> ord(nodes_);
  check(cudaMemcpy(ord.data(), order_.data(), nodes_ * 4, cudaMemcpyHostToDevice), "cudaMemcpy order");
  link_nodes<<<static_cast<unsigned>((nodes_ + 255) / 256), 256>>>(static_cast<unsigned long long*>(buf_), ord.data(), nodes_, stride_);
  sync("link nodes");
  return nodes_;
}

Cycles ChaseBuffer::run(CacheOp op, bool coalesced, int blocks, int warps, int warmup_steps, int reps) {
  const std::size_t threads = static_cast<std::size_t>(blocks) * warps * 32;
  std::vector<unsigned long long> starts(threads);
  const auto base = reinterpret_cast<unsigned long long>(buf_);
  for (std::size_t t = 0; t < threads; ++t) {
    const std::size_t warp = t / 32, lane = t % 32;
    const std::size_t chains = coalesced ? threads / 32 : threads;
    const std::size_t chain = coalesced ? warp : t;
    const std::size_t pos = chain * nodes_ / chains;  // spread the chains along the cycle
    starts[t] = base + order_[pos] * stride_ + 8 * lane;
  }
  DevBuf<unsigned long long> st(threads), sink(threads);
  check(cudaMemcpy(st.data(), starts.data(), threads * 8, cudaMemcpyHostToDevice), "cudaMemcpy starts");
  const std::size_t n = static_cast<std::size_t>(blocks) * warps * (reps + 1);
  DevBuf<long long> cyc(n);
  ubench_prewarm<<<1024, 256>>>(static_cast<const unsigned long long*>(buf_), footprint_ / 8, sink.data());  // L2 warm
  sync("prewarm");
  if (op == CacheOp::ca) ubench_chase_ca<<<blocks, warps * 32>>>(st.data(), cyc.data(), sink.data(), warmup_steps, reps);
  else ubench_chase_cg<<<blocks, warps * 32>>>(st.data(), cyc.data(), sink.data(), warmup_steps, reps);
  sync("chase");
  return cyc.download();
}

std::vector<long long> ChaseBuffer::run_lines(int target_sm, int steps, int grid_blocks) {
  DevBuf<unsigned long long> sink(32);
  DevBuf<long long> cyc(static_cast<std::size_t>(steps));
  DevBuf<int> claimed(1);
  check(cudaMemset(claimed.data(), 0, sizeof(int)), "cudaMemset");
  check(cudaMemset(cyc.data(), 0xff, static_cast<std::size_t>(steps) * sizeof(long long)), "cudaMemset");  // -1: SM not reached
  const auto start = reinterpret_cast<unsigned long long>(buf_) + order_[0] * stride_;
  ubench_l2_lines<<<grid_blocks, 32>>>(start, steps, target_sm, claimed.data(), cyc.data(), sink.data());
  sync("l2 lines");
  return cyc.download();
}

void ChaseBuffer::prewarm() {
  DevBuf<unsigned long long> sink(1);
  ubench_prewarm<<<1024, 256>>>(static_cast<const unsigned long long*>(buf_), footprint_ / 8, sink.data());
  sync("prewarm");
}

void ChaseBuffer::set_carveout(int percent) {
  check(cudaFuncSetAttribute(ubench_chase_ca, cudaFuncAttributePreferredSharedMemoryCarveout, percent), "carveout");
  check(cudaFuncSetAttribute(ubench_chase_cg, cudaFuncAttributePreferredSharedMemoryCarveout, percent), "carveout");
}

Departure run_departure(DepartureLines placement, int warps, int reps) {
  const auto* buf = static_cast<const unsigned*>(scratch());
  const unsigned long long lines = g_scratch.bytes / 128;
  const std::size_t n = static_cast<std::size_t>(warps) * (reps + 1);
  DevBuf<long long> ts(n), te(n);
  DevBuf<unsigned> sink(static_cast<std::size_t>(warps) * 32);
  const bool uncoalesced = placement == DepartureLines::uncoalesced;
  ubench_departure<<<1, warps * 32>>>(buf, lines - 1, g_scratch.next_line, static_cast<int>(placement), ts.data(),
                                      te.data(), sink.data(), reps);
  sync("departure");
  // Never reuse a line index (until the space wraps). The sequential series places index i at line
  // i, which a scrambled series may have touched: hundreds of MiB of departure traffic earlier, so
  // no longer in L2.
  g_scratch.next_line += n * (uncoalesced ? 32 : 1);
  return {ts.download(), te.download()};
}

Bandwidth run_bandwidth(BandwidthKind kind, int sm_count, int reps) {
  auto* base = static_cast<float4*>(scratch());
  DevBuf<float> sink(1);
  warpmodel::support::cuda::EventPair events;
  Bandwidth out;
  const std::size_t half = g_scratch.bytes / 2 / sizeof(float4);
  const int blocks = sm_count * 8, threads = 256;
  const std::size_t l2_n = kL2BandwidthBytes / sizeof(float4);  // resident in L2
  const int l2_passes = kL2BandwidthPasses;
  const int shared_iters = 4096;
  // Random sectors: the largest power-of-two number of sectors in the scratch (DRAM), and the L2
  // footprint's (resident in L2 after the warm-up launch).
  int dram_log2_sectors = 0, l2_log2_sectors = 0;
  while ((std::size_t(2) << dram_log2_sectors) * 32 <= std::min(g_scratch.bytes, kRandomReadDramBytes)) ++dram_log2_sectors;
  while ((std::size_t(2) << l2_log2_sectors) * 32 <= kL2BandwidthBytes) ++l2_log2_sectors;
  // Row-segment reads: kRowsReadBytes of rows, or what the scratch holds.
  const std::size_t rows_read_rows = std::min(kRowsReadBytes, g_scratch.bytes) / (kRowsReadWidthFloats * sizeof(float));
  auto launch = [&] {
    switch (kind) {
      case BandwidthKind::dram_read: ubench_bw_read<<<blocks, threads>>>(base, 2 * half, sink.data()); break;
      case BandwidthKind::dram_write: ubench_bw_write<<<blocks, threads>>>(base, 2 * half); break;
      case BandwidthKind::dram_copy: ubench_bw_copy<<<blocks, threads>>>(base, base + half, half); break;
      case BandwidthKind::dram_inplace: ubench_bw_inplace<<<blocks, threads>>>(base, 2 * half); break;
      case BandwidthKind::l2_read: ubench_bw_l2_read<<<sm_count * 4, 512>>>(base, l2_n, l2_passes, sink.data()); break;
      case BandwidthKind::l2_write: ubench_bw_l2_write<<<sm_count * 4, 512>>>(base, l2_n, l2_passes); break;
      case BandwidthKind::shared_read: ubench_bw_shared<<<sm_count * 4, 256>>>(shared_iters, sink.data()); break;
      case BandwidthKind::dram_random_read:
        ubench_bw_random_read<<<blocks, threads>>>(reinterpret_cast<const float*>(base), dram_log2_sectors,
                                                   kRandomReadSamples, sink.data());
        break;
      case BandwidthKind::l2_random_read:
        ubench_bw_random_read<<<blocks, threads>>>(reinterpret_cast<const float*>(base), l2_log2_sectors,
                                                   kRandomReadSamples, sink.data());
        break;
      case BandwidthKind::dram_random_write:
        ubench_bw_random_write<<<blocks, threads>>>(reinterpret_cast<float*>(base), dram_log2_sectors,
                                                    kRandomReadSamples);
        break;
      case BandwidthKind::dram_read_rows_32b:
      case BandwidthKind::dram_read_rows_64b:
      case BandwidthKind::dram_read_rows_128b:
      case BandwidthKind::dram_write_rows_32b:
      case BandwidthKind::dram_write_rows_64b:
      case BandwidthKind::dram_write_rows_128b: {
        const bool w32 = kind == BandwidthKind::dram_read_rows_32b || kind == BandwidthKind::dram_write_rows_32b;
        const bool w64 = kind == BandwidthKind::dram_read_rows_64b || kind == BandwidthKind::dram_write_rows_64b;
        const unsigned bx = w32 ? 8 : w64 ? 16 : 32;
        const dim3 block(bx, 256 / bx);
        const unsigned columns = kRowsReadWidthFloats / bx;
        // About 8 blocks per SM on 128 or more SMs (1,024 blocks at every width on 132). Below 128 SMs
        // the 32-byte width cannot go under its 1,024 columns and the widths get different block counts
        // (on 108 SMs: 1,024 / 512 / 768): to be made a grid-stride loop in x before characterizing
        // such a GPU.
        const dim3 grid(columns, std::max(1u, static_cast<unsigned>(sm_count) * 8 / columns));
        const bool write = kind == BandwidthKind::dram_write_rows_32b || kind == BandwidthKind::dram_write_rows_64b ||
                           kind == BandwidthKind::dram_write_rows_128b;
        if (write)
          ubench_bw_write_rows<<<grid, block>>>(reinterpret_cast<float*>(base), kRowsReadWidthFloats,
                                                static_cast<int>(rows_read_rows));
        else
          ubench_bw_read_rows<<<grid, block>>>(reinterpret_cast<const float*>(base), kRowsReadWidthFloats,
                                               static_cast<int>(rows_read_rows), sink.data());
        break;
      }
      case BandwidthKind::l2_write_sectors_4b:
      case BandwidthKind::l2_write_sectors_8b:
      case BandwidthKind::l2_write_sectors_16b:
      case BandwidthKind::l2_write_sectors_32b: {
        const int log2_k = kind == BandwidthKind::l2_write_sectors_4b    ? 0
                           : kind == BandwidthKind::l2_write_sectors_8b  ? 1
                           : kind == BandwidthKind::l2_write_sectors_16b ? 2
                                                                         : 3;
        ubench_bw_l2_write_sectors<<<sm_count * 4, 512>>>(reinterpret_cast<float*>(base), log2_k, kL2SectorsPasses);
        break;
      }
    }
  };
  switch (kind) {
    case BandwidthKind::dram_read:
    case BandwidthKind::dram_write:
    case BandwidthKind::dram_copy: out.bytes = 2.0 * half * sizeof(float4); break;
    case BandwidthKind::dram_inplace: out.bytes = 2.0 * 2.0 * half * sizeof(float4); break;  // read + written
    case BandwidthKind::l2_read:
    case BandwidthKind::l2_write: out.bytes = double(l2_n) * sizeof(float4) * l2_passes; break;
    case BandwidthKind::shared_read: out.bytes = double(sm_count) * 4 * 256 * shared_iters * 8 * sizeof(float4); break;
    case BandwidthKind::dram_random_read:
    case BandwidthKind::l2_random_read:
    case BandwidthKind::dram_random_write: out.bytes = double(kRandomReadSamples) * 32; break;  // a sector per sample
    case BandwidthKind::dram_read_rows_32b:
    case BandwidthKind::dram_read_rows_64b:
    case BandwidthKind::dram_read_rows_128b:
    case BandwidthKind::dram_write_rows_32b:
    case BandwidthKind::dram_write_rows_64b:
    case BandwidthKind::dram_write_rows_128b: out.bytes = double(rows_read_rows) * kRowsReadWidthFloats * sizeof(float); break;
    case BandwidthKind::l2_write_sectors_4b:
    case BandwidthKind::l2_write_sectors_8b:
    case BandwidthKind::l2_write_sectors_16b:
    case BandwidthKind::l2_write_sectors_32b:
      out.bytes = double(kL2SectorsWidthFloats) * kL2SectorsWidthFloats * sizeof(float) * kL2SectorsPasses;
      break;
  }
  launch();  // warm-up (and, for l2_write, brings the footprint into L2)
  sync("bandwidth warm-up");
  for (int r = 0; r < reps; ++r) {
    events.start();
    launch();
    events.stop();
    out.seconds.push_back(events.elapsed_seconds());
    check(cudaGetLastError(), "bandwidth kernel");
  }
  return out;
}

namespace {
using TimedKernelFn = void (*)(TimedArgs);
// The kernels run_timed launches, by symbol: one line per kernel of the TimedArgs signature.
TimedKernelFn timed_kernel(const std::string& symbol) {
  static const std::pair<const char*, TimedKernelFn> table[] = {
      {"ubench_ldg_broadcast", ubench_ldg_broadcast},
      {"ubench_ldg_coalesced", ubench_ldg_coalesced},
      {"ubench_ldg_coalesced_16b", ubench_ldg_coalesced_16b},
      {"ubench_ldg_scattered", ubench_ldg_scattered},
      {"ubench_stg_coalesced", ubench_stg_coalesced},
      {"ubench_stg_scattered", ubench_stg_scattered},
      {"ubench_red_global_same", ubench_red_global_same},
      {"ubench_red_global_same_f32", ubench_red_global_same_f32},
      {"ubench_red_global_distinct", ubench_red_global_distinct},
      {"ubench_atom_shared_same", ubench_atom_shared_same},
      {"ubench_atom_shared_distinct", ubench_atom_shared_distinct},
      {"ubench_atom_global_latency", ubench_atom_global_latency},
      {"ubench_local_chase", ubench_local_chase},
      {"ubench_local_loads", ubench_local_loads},
      {"ubench_barrier", ubench_barrier},
  };
  for (const auto& [name, fn] : table)
    if (symbol == name) return fn;
  throw warpmodel::support::cuda::CudaError("run_timed: no kernel " + symbol + " in kernels.cu's table");
}
}  // namespace

Cycles run_timed(const std::string& kernel, int blocks, int warps, int reps) {
  const TimedKernelFn fn = timed_kernel(kernel);
  if (blocks < 1 || warps < 1 || warps > kMaxWarpsPerBlock || reps < 1)
    throw warpmodel::support::cuda::CudaError("run_timed " + kernel + ": bad launch shape");
  const std::size_t threads = static_cast<std::size_t>(blocks) * warps * 32;
  // The largest per-thread or per-warp footprint of the family must fit the buffer.
  const std::size_t need = std::max(threads * sizeof(unsigned),
                                    static_cast<std::size_t>(blocks) * warps * kStoreRegionWords * sizeof(unsigned));
  if (need > kMemoryBufferBytes)
    throw warpmodel::support::cuda::CudaError("run_timed " + kernel + ": the grid's footprint exceeds the buffer");
  // The largest L1 (0 % shared memory), as for the chase kernels: the footprints are meant to be L1-resident.
  check(cudaFuncSetAttribute(fn, cudaFuncAttributePreferredSharedMemoryCarveout, 0), "carveout " + kernel);
  DevBuf<unsigned> buffer(kMemoryBufferBytes / sizeof(unsigned)), sink(threads);
  buffer.fill_bytes(0);
  DevBuf<long long> cycles(threads / 32 * static_cast<std::size_t>(reps + 1) * 2);
  TimedArgs args{cycles.data(), buffer.data(), sink.data(), reps, 0u};
  fn<<<blocks, warps * 32>>>(args);
  sync(kernel.c_str());
  return cycles.download();
}

int timed_max_warps_per_block(const std::string& kernel) {
  cudaFuncAttributes attributes{};
  check(cudaFuncGetAttributes(&attributes, timed_kernel(kernel)), "attributes of " + kernel);
  return std::min(kMaxWarpsPerBlock, attributes.maxThreadsPerBlock / 32);
}

std::vector<double> time_single_launches(int reps) {
  warpmodel::support::cuda::EventPair events;
  ubench_empty<<<1, kLaunchBlockThreads>>>();  // warm-up: module load, first-launch costs
  sync("empty kernel warm-up");
  std::vector<double> us;
  for (int r = 0; r < reps; ++r) {
    events.start();
    ubench_empty<<<1, kLaunchBlockThreads>>>();
    events.stop();
    us.push_back(events.elapsed_seconds() * 1e6);
    check(cudaGetLastError(), "empty kernel");
  }
  return us;
}

std::vector<double> time_back_to_back_launches(int launches, int reps) {
  warpmodel::support::cuda::EventPair events;
  std::vector<double> us;
  for (int r = 0; r < reps; ++r) {
    events.start();
    for (int i = 0; i < launches; ++i) ubench_empty<<<1, kLaunchBlockThreads>>>();
    events.stop();
    us.push_back(events.elapsed_seconds() * 1e6 / launches);
    check(cudaGetLastError(), "empty kernel");
  }
  return us;
}

int one_block_per_sm_shared_bytes() {
  int device = 0, optin = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device), "shared memory opt-in");
  return optin;
}

std::vector<double> time_grid_launches(int blocks, int threads, int dynamic_shared_bytes, int reps) {
  if (dynamic_shared_bytes > 0)
    check(cudaFuncSetAttribute(ubench_empty, cudaFuncAttributeMaxDynamicSharedMemorySize, dynamic_shared_bytes),
          "empty kernel: dynamic shared memory");
  warpmodel::support::cuda::EventPair events;
  ubench_empty<<<blocks, threads, dynamic_shared_bytes>>>();  // warm-up
  sync("empty grid warm-up");
  std::vector<double> us;
  for (int r = 0; r < reps; ++r) {
    events.start();
    ubench_empty<<<blocks, threads, dynamic_shared_bytes>>>();
    events.stop();
    us.push_back(events.elapsed_seconds() * 1e6);
    check(cudaGetLastError(), "empty grid");
  }
  return us;
}

void release_buffers() {
  if (g_scratch.p) check(cudaFree(g_scratch.p), "cudaFree scratch");
  g_scratch = Scratch{};
}

}  // namespace warpmodel::ubench::gpu
