// The Hopper-unit kernels (stage "tensor"): tensor cores (mma.sync and mma.sp from tensor.def's PTX,
// wgmma and wgmma.sp), TMA loads and stores (cp.async.bulk.tensor, 1D and 2D tiles), bulk copies
// (cp.async.bulk), cp.async (LDGSTS), distributed shared memory and the cluster barrier. Compiled
// for sm_90a (wgmma exists only there). Every kernel takes one UnitArgs and writes each warp's
// absolute (start, end) %clock64 per repetition; repetition 0 is the warm-up the harness drops.
// Kernels are extern "C" so the SASS check finds them by name in `cuobjdump -sass` of the program.
#include <cuda.h>  // CUtensorMap (the encoder comes from the runtime's driver entry point)
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "constants.hpp"
#include "unit_kernels.hpp"
#include "warpmodel/support/cuda.hpp"
#include "wgmma_operands.hpp"

namespace {

using namespace warpmodel::ubench::sizes;

struct UnitArgs {
  CUtensorMap map;            // TMA rows: the tensor map over `buffer` (1D or 2D boxes); 128-byte aligned, first
  long long* cycles;          // [block][warp][rep][2]
  unsigned char* buffer;      // global source or destination, random FP16 bits
  unsigned* sink;             // one word per thread: keeps every result alive
  unsigned long long buffer_bytes;
  int reps;                   // repetitions after the warm-up (rep 0)
  int steps;                  // loop trips of a throughput region (copies per block for the streams)
  unsigned zero;              // 0 at run time: an offset ptxas cannot fold
  unsigned meta;              // 2:4 sparsity metadata: indices 0 and 1 of every group of four
};

__device__ __forceinline__ long long clock64_read() {
  long long t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
  return t;
}
__device__ __forceinline__ void record(const UnitArgs& a, int r, long long t0, long long t1) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, nwarps = blockDim.x / 32;
  if (lane == 0) {
    long long* out = a.cycles + ((static_cast<long long>(blockIdx.x) * nwarps + warp) * (a.reps + 1) + r) * 2;
    out[0] = t0;
    out[1] = t1;
  }
}
// The dynamic shared memory of every kernel that takes some (copy destinations, DSMEM regions).
extern __shared__ __align__(1024) unsigned char dynamic_shared[];

__device__ __forceinline__ unsigned smem_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// --- mma.sync / mma.sp (tensor.def) ---
// Latency: one warp, kMmaChain dependent MMAs (each reads the accumulator the previous wrote).
// Throughput: kMmaIlp independent accumulators per warp, a loop of `steps` trips (the body, kMmaIlp
// MMAs, stays in the instruction cache), all warps of the block released together.
template <class Op>
__device__ __forceinline__ void mma_latency(const UnitArgs& a) {
  using T = typename Op::T;
  const unsigned* src = reinterpret_cast<const unsigned*>(a.buffer) + (threadIdx.x % 32) * 8;
  unsigned A[4] = {src[0], src[1], src[2], src[3]};
  const unsigned B[4] = {src[4], src[5], src[6], src[7]};
  T d[4] = {T(0), T(0), T(0), T(0)};
#pragma unroll 1
  for (int r = 0; r <= a.reps; ++r) {
    const long long t0 = clock64_read();
#pragma unroll
    for (int k = 0; k < kMmaChain; ++k) Op::step(d, A, B, a.meta);
    const long long t1 = clock64_read();
    record(a, r, t0, t1);
  }
  a.sink[blockIdx.x * blockDim.x + threadIdx.x] = static_cast<unsigned>(d[0] + d[1] + d[2] + d[3]);
}
template <class Op>
__device__ __forceinline__ void mma_throughput(const UnitArgs& a) {
  using T = typename Op::T;
  const unsigned* src = reinterpret_cast<const unsigned*>(a.buffer) + (threadIdx.x % 32) * 8;
  const unsigned B[4] = {src[4], src[5], src[6], src[7]};
  unsigned A[kMmaIlp][4];  // one A per chain: a body that writes A (the FP8 rows) keeps the chains apart
  T d[kMmaIlp][4];
#pragma unroll
  for (int i = 0; i < kMmaIlp; ++i) {
    d[i][0] = d[i][1] = d[i][2] = d[i][3] = T(0);
    A[i][0] = src[0] + i * a.zero, A[i][1] = src[1], A[i][2] = src[2], A[i][3] = src[3];
  }
#pragma unroll 1
  for (int r = 0; r <= a.reps; ++r) {
    __syncthreads();  // the harness takes a block's time as max(end) - min(start) over its warps
    const long long t0 = clock64_read();
#pragma unroll 1
    for (int s = 0; s < a.steps; ++s) {
#pragma unroll
      for (int i = 0; i < kMmaIlp; ++i) Op::step(d[i], A[i], B, a.meta);
    }
    const long long t1 = clock64_read();
    record(a, r, t0, t1);
  }
  T sum = T(0);
#pragma unroll
  for (int i = 0; i < kMmaIlp; ++i) sum += d[i][0] + d[i][1] + d[i][2] + d[i][3];
  a.sink[blockIdx.x * blockDim.x + threadIdx.x] = static_cast<unsigned>(sum);
}

#define UBENCH_MMA(op, dtype, TT, constraint, ptx, sass_regex, sass_per_op, allowed_regex, ops_per_op, spec)                      \
  struct Mma_##op##_##dtype {                                                                                 \
    using T = TT;                                                                                             \
    static __device__ __forceinline__ void step(T (&d)[4], unsigned (&A)[4], const unsigned (&B)[4],         \
                                                unsigned e) {                                                 \
      asm volatile(ptx                                                                                        \
                   : "+" constraint(d[0]), "+" constraint(d[1]), "+" constraint(d[2]), "+" constraint(d[3]),  \
                     "+r"(A[0]), "+r"(A[1]), "+r"(A[2]), "+r"(A[3])                                           \
                   : "r"(B[0]), "r"(B[1]), "r"(B[2]), "r"(B[3]), "r"(e));                                     \
    }                                                                                                         \
  };                                                                                                          \
  extern "C" __global__ void ubench_mma_lat_##op##_##dtype(const __grid_constant__ UnitArgs a) {              \
    mma_latency<Mma_##op##_##dtype>(a);                                                                       \
  }                                                                                                           \
  extern "C" __global__ void ubench_mma_thr_##op##_##dtype(const __grid_constant__ UnitArgs a) {              \
    mma_throughput<Mma_##op##_##dtype>(a);                                                                    \
  }
#include "tensor.def"

// --- wgmma (tensor.def): one warpgroup per m64n256 accumulator (128 registers per thread) ---
// The operand tiles live in static shared memory, filled with random FP16 bits and made visible to
// the async proxy (fence.proxy.async) before the first wgmma. Descriptors without swizzle: core
// matrices (8 rows x 16 B) 128 B apart along K and kWgmmaCoreStride apart along M/N.
__device__ __forceinline__ std::uint64_t wgmma_descriptor(unsigned shared_address) {
  return std::uint64_t((shared_address & 0x3FFFF) >> 4) | (std::uint64_t(128 >> 4) << 16) |
         (std::uint64_t(kWgmmaCoreStride >> 4) << 32);
}
__device__ __forceinline__ void fill_wgmma_tiles(const UnitArgs& a, unsigned* tiles) {
  const unsigned* src = reinterpret_cast<const unsigned*>(a.buffer);
  for (int i = threadIdx.x; i < kWgmmaSharedBytes / 4; i += blockDim.x) tiles[i] = src[i];
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
}
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}

template <class Op>
__device__ __forceinline__ void wgmma_latency(const UnitArgs& a) {
  using T = typename Op::T;
  __shared__ __align__(1024) unsigned tiles[kWgmmaSharedBytes / 4];
  fill_wgmma_tiles(a, tiles);
  T d[128];
#pragma unroll
  for (int i = 0; i < 128; ++i) d[i] = T(0);
  const unsigned base = smem_addr(tiles);
  const std::uint64_t da = wgmma_descriptor(base), db = wgmma_descriptor(base + 8 * kWgmmaCoreStride);
#pragma unroll 1
  for (int r = 0; r <= a.reps; ++r) {
    const long long t0 = clock64_read();
#pragma unroll
    for (int k = 0; k < kWgmmaChain; ++k) {
      wgmma_fence();
      Op::mma(d, da, db, a.meta);
      wgmma_commit();
      wgmma_wait<0>();
    }
    const long long t1 = clock64_read();
    record(a, r, t0, t1);
  }
  T sum = T(0);
#pragma unroll
  for (int i = 0; i < 128; ++i) sum += d[i];
  a.sink[blockIdx.x * blockDim.x + threadIdx.x] = static_cast<unsigned>(sum);
}
// A GEMM main loop without the loads: each trip one commit group of kWgmmaBatch wgmma into the
// same accumulator, at most one group in flight (wait_group 1), the last waited for (wait_group 0)
// before the stop read.
template <class Op>
__device__ __forceinline__ void wgmma_throughput(const UnitArgs& a) {
  using T = typename Op::T;
  __shared__ __align__(1024) unsigned tiles[kWgmmaSharedBytes / 4];
  fill_wgmma_tiles(a, tiles);
  T d[128];
#pragma unroll
  for (int i = 0; i < 128; ++i) d[i] = T(0);
  const unsigned base = smem_addr(tiles);
  const std::uint64_t da = wgmma_descriptor(base), db = wgmma_descriptor(base + 8 * kWgmmaCoreStride);
#pragma unroll 1
  for (int r = 0; r <= a.reps; ++r) {
    __syncthreads();
    const long long t0 = clock64_read();
#pragma unroll 1
    for (int s = 0; s < a.steps; ++s) {
      wgmma_fence();
#pragma unroll
      for (int k = 0; k < kWgmmaBatch; ++k) Op::mma(d, da, db, a.meta);
      wgmma_commit();
      wgmma_wait<1>();
    }
    wgmma_wait<0>();
    const long long t1 = clock64_read();
    record(a, r, t0, t1);
  }
  T sum = T(0);
#pragma unroll
  for (int i = 0; i < 128; ++i) sum += d[i];
  a.sink[blockIdx.x * blockDim.x + threadIdx.x] = static_cast<unsigned>(sum);
}

#define UBENCH_WGMMA(op, dtype, TT, constraint, instruction, tail, sass_regex, ops_per_op, spec)                  \
  struct Wgmma_##op##_##dtype {                                                                               \
    using T = TT;                                                                                             \
    static __device__ __forceinline__ void mma(T (&d)[128], std::uint64_t da, std::uint64_t db, unsigned e) { \
      asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, 1, 0;\n\t" instruction " " UBENCH_WGMMA_D              \
                   ", %128, %129, " tail ";\n\t}"                                                             \
                   : UBENCH_WGMMA_OPERANDS_##TT                                                               \
                   : "l"(da), "l"(db), "r"(e));                                                               \
    }                                                                                                         \
  };                                                                                                          \
  extern "C" __global__ void __launch_bounds__(384, 1)                                                       \
      ubench_wgmma_lat_##op##_##dtype(const __grid_constant__ UnitArgs a) {                                   \
    wgmma_latency<Wgmma_##op##_##dtype>(a);                                                                   \
  }                                                                                                           \
  extern "C" __global__ void __launch_bounds__(384, 1)                                                       \
      ubench_wgmma_thr_##op##_##dtype(const __grid_constant__ UnitArgs a) {                                   \
    wgmma_throughput<Wgmma_##op##_##dtype>(a);                                                                \
  }
#define UBENCH_WGMMA_OPERANDS_float UBENCH_WGMMA_D_F32
#define UBENCH_WGMMA_OPERANDS_int UBENCH_WGMMA_D_S32
#include "tensor.def"

// --- mbarrier and bulk-copy helpers ---
__device__ __forceinline__ void mbarrier_init(unsigned bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void mbarrier_expect_bytes(unsigned bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}
// Waits until the barrier's phase `parity` completed (the copies it expected arrived).
__device__ __forceinline__ void mbarrier_wait(unsigned bar, unsigned parity) {
  asm volatile(
      "{\n\t.reg .pred done;\n"
      "WAIT_%=:\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n\t"
      "@!done bra WAIT_%=;\n\t}" ::"r"(bar),
      "r"(parity)
      : "memory");
}
// One barrier per block (thread 0 initialises it), made visible to the async proxy.
__device__ __forceinline__ void init_barriers(unsigned long long* bars, int count) {
  if (threadIdx.x == 0) {
    for (int i = 0; i < count; ++i) mbarrier_init(smem_addr(bars + i), 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncthreads();
}

// TMA copies of one tile: 1D boxes of kTma1dBoxElements 4-byte elements at element `i`; 2D boxes of
// kTma2dBoxRows x kTma2dBoxFloats at tile `t` of a tensor whose rows hold kTma2dRowFloats floats.
template <int Dims>
struct Tma {
  static constexpr unsigned kBytes = Dims == 1 ? kTma1dBoxElements * 4 : kTma2dBoxRows * kTma2dBoxFloats * 4;
  static __device__ __forceinline__ void load(const UnitArgs& a, unsigned dst, unsigned bar, unsigned t) {
    if constexpr (Dims == 1) {
      asm volatile(
          "cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2}], [%3];" ::"r"(dst),
          "l"(&a.map), "r"(t * kTma1dBoxElements), "r"(bar)
          : "memory");
    } else {
      constexpr unsigned kTilesPerRow = kTma2dRowFloats / kTma2dBoxFloats;
      asm volatile(
          "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(dst),
          "l"(&a.map), "r"((t % kTilesPerRow) * kTma2dBoxFloats), "r"((t / kTilesPerRow) * kTma2dBoxRows), "r"(bar)
          : "memory");
    }
  }
  static __device__ __forceinline__ void store(const UnitArgs& a, unsigned src, unsigned t) {
    if constexpr (Dims == 1) {
      asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%0, {%1}], [%2];" ::"l"(&a.map),
                   "r"(t * kTma1dBoxElements), "r"(src)
                   : "memory");
    } else {
      constexpr unsigned kTilesPerRow = kTma2dRowFloats / kTma2dBoxFloats;
      asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];" ::"l"(&a.map),
                   "r"((t % kTilesPerRow) * kTma2dBoxFloats), "r"((t / kTilesPerRow) * kTma2dBoxRows), "r"(src)
                   : "memory");
    }
  }
  static unsigned __device__ __forceinline__ tiles(const UnitArgs& a) {
    return static_cast<unsigned>(a.buffer_bytes / kBytes);
  }
};
__device__ __forceinline__ void bulk_commit() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void bulk_wait_read() {  // the shared source of all but N groups may be reused
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}
__device__ __forceinline__ void bulk_wait_done() {  // every group complete: the writes performed
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}
struct Bulk {  // cp.async.bulk of kBulkCopyBytes from global to shared memory
  static constexpr unsigned kBytes = kBulkCopyBytes;
  static __device__ __forceinline__ void load(const UnitArgs& a, unsigned dst, unsigned bar, unsigned t) {
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(dst),
                 "l"(a.buffer + std::size_t(t) * kBytes), "r"(kBytes), "r"(bar)
                 : "memory");
  }
  static unsigned __device__ __forceinline__ tiles(const UnitArgs& a) {
    return static_cast<unsigned>(a.buffer_bytes / kBytes);
  }
};

// Latency of a copy into shared memory: one warp, thread 0 issues kCopyChain copies of distinct
// L2-resident tiles one after another, each waited for on the mbarrier by the whole warp.
template <class Copy>
__device__ __forceinline__ void copy_load_latency(const UnitArgs& a) {
  __shared__ unsigned long long bar;
  init_barriers(&bar, 1);
  const unsigned dst = smem_addr(dynamic_shared), b = smem_addr(&bar);
  unsigned parity = 0;
#pragma unroll 1
  for (int r = 0; r <= a.reps; ++r) {
    const long long t0 = clock64_read();
#pragma unroll
    for (int k = 0; k < kCopyChain; ++k) {
      if (threadIdx.x == 0) {
        mbarrier_expect_bytes(b, Copy::kBytes);
        Copy::load(a, dst, b, k + a.zero);
      }
      mbarrier_wait(b, parity);
      parity ^= 1;
    }
    const long long t1 = clock64_read();
    record(a, r, t0, t1);
  }
  a.sink[threadIdx.x] = dynamic_shared[threadIdx.x];
}
// Latency of a TMA store: thread 0 stores kCopyChain tiles one after another, each committed and
// waited for until its writes are performed (cp.async.bulk.wait_group 0).
template <int Dims>
__device__ __forceinline__ void tma_store_latency(const UnitArgs& a) {
  const unsigned* src = reinterpret_cast<const unsigned*>(a.buffer);
  for (unsigned i = threadIdx.x; i < Tma<Dims>::kBytes / 4; i += blockDim.x)
    reinterpret_cast<unsigned*>(dynamic_shared)[i] = src[i];
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  const unsigned s = smem_addr(dynamic_shared);
#pragma unroll 1
  for (int r = 0; r <= a.reps; ++r) {
    const long long t0 = clock64_read();
#pragma unroll
    for (int k = 0; k < kCopyChain; ++k) {
      if (threadIdx.x == 0) {
        Tma<Dims>::store(a, s, k + a.zero);
        bulk_commit();
        bulk_wait_done();
      }
    }
    const long long t1 = clock64_read();
    record(a, r, t0, t1);
  }
}
// Streaming from DRAM into shared memory: one warp per block, thread 0 keeps `Stages` copies in
// flight, each to its own stage and mbarrier; the block copies `steps` tiles a repetition, tile
// blockIdx.x + j x gridDim.x (modulo the buffer's tiles), so the blocks sweep the 1 GiB buffer.
template <class Copy, int Stages>
__device__ __forceinline__ void copy_load_stream(const UnitArgs& a) {
  __shared__ unsigned long long bars[Stages];
  init_barriers(bars, Stages);
  const unsigned dst = smem_addr(dynamic_shared), b0 = smem_addr(bars);
  const unsigned tiles = Copy::tiles(a), n = static_cast<unsigned>(a.steps);
  unsigned long long parity = 0;  // bit s: the phase stage s waits for next
#pragma unroll 1
  for (int r = 0; r <= a.reps; ++r) {
    __syncthreads();
    const long long t0 = clock64_read();
    if (threadIdx.x == 0) {
#pragma unroll 1
      for (unsigned j = 0; j < n + Stages; ++j) {
        const unsigned s = j % Stages;
        if (j >= Stages) {  // the copy Stages ago into this stage: wait for it before reusing the stage
          mbarrier_wait(b0 + 8 * s, static_cast<unsigned>(parity >> s) & 1u);
          parity ^= 1ull << s;
        }
        if (j < n) {
          mbarrier_expect_bytes(b0 + 8 * s, Copy::kBytes);
          Copy::load(a, dst + s * Copy::kBytes, b0 + 8 * s, (blockIdx.x + j * gridDim.x) % tiles);
        }
      }
    }
    const long long t1 = clock64_read();
    record(a, r, t0, t1);
  }
  a.sink[blockIdx.x] = dynamic_shared[0];
}
// Streaming from shared memory to DRAM with TMA stores: thread 0 issues `steps` stores a
// repetition (one commit group each), at most Stages groups still reading shared memory, and waits
// for all of them to complete before the stop read.
template <int Dims, int Stages>
__device__ __forceinline__ void tma_store_stream(const UnitArgs& a) {
  const unsigned* src = reinterpret_cast<const unsigned*>(a.buffer);
  for (unsigned i = threadIdx.x; i < Stages * Tma<Dims>::kBytes / 4; i += blockDim.x)
    reinterpret_cast<unsigned*>(dynamic_shared)[i] = src[i];
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  const unsigned s0 = smem_addr(dynamic_shared), tiles = Tma<Dims>::tiles(a), n = static_cast<unsigned>(a.steps);
#pragma unroll 1
  for (int r = 0; r <= a.reps; ++r) {
    __syncthreads();
    const long long t0 = clock64_read();
    if (threadIdx.x == 0) {
#pragma unroll 1
      for (unsigned j = 0; j < n; ++j) {
        Tma<Dims>::store(a, s0 + (j % Stages) * Tma<Dims>::kBytes, (blockIdx.x + j * gridDim.x) % tiles);
        bulk_commit();
        bulk_wait_read<Stages - 1>();
      }
      bulk_wait_done();
    }
    const long long t1 = clock64_read();
    record(a, r, t0, t1);
  }
}

extern "C" __global__ void ubench_tma_load_1d_lat(const __grid_constant__ UnitArgs a) { copy_load_latency<Tma<1>>(a); }
extern "C" __global__ void ubench_tma_load_2d_lat(const __grid_constant__ UnitArgs a) { copy_load_latency<Tma<2>>(a); }
extern "C" __global__ void ubench_tma_store_1d_lat(const __grid_constant__ UnitArgs a) { tma_store_latency<1>(a); }
extern "C" __global__ void ubench_tma_store_2d_lat(const __grid_constant__ UnitArgs a) { tma_store_latency<2>(a); }
extern "C" __global__ void ubench_tma_load_1d_bw(const __grid_constant__ UnitArgs a) {
  copy_load_stream<Tma<1>, kCopyStages1d>(a);
}
extern "C" __global__ void ubench_tma_load_2d_bw(const __grid_constant__ UnitArgs a) {
  copy_load_stream<Tma<2>, kCopyStages>(a);
}
extern "C" __global__ void ubench_tma_store_1d_bw(const __grid_constant__ UnitArgs a) {
  tma_store_stream<1, kCopyStages1d>(a);
}
extern "C" __global__ void ubench_tma_store_2d_bw(const __grid_constant__ UnitArgs a) {
  tma_store_stream<2, kCopyStages>(a);
}
extern "C" __global__ void ubench_bulk_load_lat(const __grid_constant__ UnitArgs a) { copy_load_latency<Bulk>(a); }
extern "C" __global__ void ubench_bulk_load_bw(const __grid_constant__ UnitArgs a) {
  copy_load_stream<Bulk, kCopyStages>(a);
}

// --- cp.async (LDGSTS): 16 bytes per lane, L2 bypassing L1 (.cg) ---
__device__ __forceinline__ void cp_async_16(unsigned dst, const void* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}
// Latency: one warp copies 512 B (16 per lane) of an L2-resident region, waits, kCpAsyncChain times.
extern "C" __global__ void ubench_cp_async_lat(const __grid_constant__ UnitArgs a) {
  __shared__ __align__(16) unsigned char tile[32 * 16];
  const unsigned dst = smem_addr(tile + 16 * (threadIdx.x % 32));
#pragma unroll 1
  for (int r = 0; r <= a.reps; ++r) {
    const long long t0 = clock64_read();
#pragma unroll
    for (int k = 0; k < kCpAsyncChain; ++k) {
      cp_async_16(dst, a.buffer + (std::size_t(k) * 32 + threadIdx.x % 32 + a.zero) * 16);
      cp_async_commit();
      cp_async_wait<0>();
    }
    const long long t1 = clock64_read();
    record(a, r, t0, t1);
  }
  a.sink[threadIdx.x] = tile[threadIdx.x];
}
// Streaming: kCpAsyncThreads threads, each kCpAsyncPerStage 16-B copies a stage (16 KiB a block), a
// stage committed as a group and at most kCpAsyncStages groups in flight; `steps` stages a
// repetition, chunk blockIdx.x + j x gridDim.x of the buffer.
extern "C" __global__ void __launch_bounds__(kCpAsyncThreads) ubench_cp_async_bw(const __grid_constant__ UnitArgs a) {
  constexpr unsigned kChunk = kCpAsyncThreads * kCpAsyncPerStage * 16;
  const unsigned chunks = static_cast<unsigned>(a.buffer_bytes / kChunk), n = static_cast<unsigned>(a.steps);
  const unsigned d0 = smem_addr(dynamic_shared);
#pragma unroll 1
  for (int r = 0; r <= a.reps; ++r) {
    __syncthreads();
    const long long t0 = clock64_read();
#pragma unroll 1
    for (unsigned j = 0; j < n; ++j) {
      const unsigned char* src = a.buffer + std::size_t((blockIdx.x + j * gridDim.x) % chunks) * kChunk;
      const unsigned dst = d0 + (j % kCpAsyncStages) * kChunk;
#pragma unroll
      for (int i = 0; i < kCpAsyncPerStage; ++i) {
        const unsigned offset = (i * kCpAsyncThreads + threadIdx.x) * 16;
        cp_async_16(dst + offset, src + offset);
      }
      cp_async_commit();
      cp_async_wait<kCpAsyncStages - 1>();
    }
    cp_async_wait<0>();
    const long long t1 = clock64_read();
    record(a, r, t0, t1);
  }
  a.sink[blockIdx.x * blockDim.x + threadIdx.x] = dynamic_shared[threadIdx.x];
}

// --- clusters: distributed shared memory and the cluster barrier ---
__device__ __forceinline__ unsigned cluster_rank() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
__device__ __forceinline__ unsigned cluster_size() {
  unsigned n;
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(n));
  return n;
}
// The address of `shared_address` (this block's) in block `rank`'s shared memory, in the cluster window.
__device__ __forceinline__ unsigned map_to_rank(unsigned shared_address, unsigned rank) {
  unsigned out;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(out) : "r"(shared_address), "r"(rank));
  return out;
}
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}

// Latency: every block chases through the shared memory of the next block of its cluster (rank + 1
// mod size): the words hold cluster-window addresses of the next word in the same block, each lane
// keeps its bank, so one warp request touches one word per bank.
extern "C" __global__ void ubench_dsmem_chase(const __grid_constant__ UnitArgs a) {
  __shared__ unsigned words[kDsmemWords];
  const unsigned rank = cluster_rank(), next = (rank + 1) % cluster_size();
  for (int i = threadIdx.x; i < kDsmemWords; i += blockDim.x)
    words[i] = map_to_rank(smem_addr(&words[(i + 32 * 7) % kDsmemWords]), rank);
  cluster_sync();
  unsigned p = map_to_rank(smem_addr(&words[(threadIdx.x + a.zero) % kDsmemWords]), next);
#pragma unroll 1
  for (int r = 0; r <= a.reps; ++r) {
    const long long t0 = clock64_read();
#pragma unroll
    for (int k = 0; k < kDsmemChain; ++k) asm volatile("ld.shared::cluster.u32 %0, [%0];" : "+r"(p)::"memory");
    const long long t1 = clock64_read();
    record(a, r, t0, t1);
  }
  a.sink[blockIdx.x * blockDim.x + threadIdx.x] = p;
  cluster_sync();  // no block leaves while another still reads its shared memory
}
// Bandwidth: every block reads kDsmemReadBytes of the next block's shared memory with 16-byte loads
// (512 B a warp request, kDsmemUnroll independent requests a step), each value consumed.
extern "C" __global__ void ubench_dsmem_read(const __grid_constant__ UnitArgs a) {
  unsigned* own = reinterpret_cast<unsigned*>(dynamic_shared);
  for (int i = threadIdx.x; i < kDsmemReadBytes / 4; i += blockDim.x) own[i] = i;
  cluster_sync();
  const unsigned remote = map_to_rank(smem_addr(dynamic_shared), (cluster_rank() + 1) % cluster_size());
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  unsigned acc = 0;
#pragma unroll 1
  for (int r = 0; r <= a.reps; ++r) {
    __syncthreads();
    const long long t0 = clock64_read();
#pragma unroll 1
    for (int s = 0; s < a.steps; ++s) {
#pragma unroll
      for (int k = 0; k < kDsmemUnroll; ++k) {
        const unsigned request = (warp * kDsmemUnroll + k + s * a.zero) % (kDsmemReadBytes / 512);
        unsigned x, y, z, w;
        asm volatile("ld.shared::cluster.v4.u32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(x), "=r"(y), "=r"(z), "=r"(w)
                     : "r"(remote + request * 512 + lane * 16)
                     : "memory");
        acc ^= x ^ y ^ z ^ w;
      }
    }
    const long long t1 = clock64_read();
    record(a, r, t0, t1);
  }
  a.sink[blockIdx.x * blockDim.x + threadIdx.x] = acc;
  cluster_sync();
}
// The cluster barrier: kClusterBarrierChain arrive + wait pairs in a row, every thread of every
// block of the cluster. Default semantics (release on arrive, acquire on wait: what
// cooperative_groups' cluster.sync() uses) and .relaxed arrive (no memory ordering).
extern "C" __global__ void ubench_cluster_barrier(const __grid_constant__ UnitArgs a) {
#pragma unroll 1
  for (int r = 0; r <= a.reps; ++r) {
    const long long t0 = clock64_read();
#pragma unroll
    for (int k = 0; k < kClusterBarrierChain; ++k)
      asm volatile("barrier.cluster.arrive.aligned;\n\tbarrier.cluster.wait.aligned;" ::: "memory");
    const long long t1 = clock64_read();
    record(a, r, t0, t1);
  }
}
extern "C" __global__ void ubench_cluster_barrier_relaxed(const __grid_constant__ UnitArgs a) {
#pragma unroll 1
  for (int r = 0; r <= a.reps; ++r) {
    const long long t0 = clock64_read();
#pragma unroll
    for (int k = 0; k < kClusterBarrierChain; ++k)
      asm volatile("barrier.cluster.arrive.relaxed.aligned;\n\tbarrier.cluster.wait.aligned;" ::: "memory");
    const long long t1 = clock64_read();
    record(a, r, t0, t1);
  }
}

// Random FP16 values in [-1, 1): a hash of the word index and the seed (two halves per word).
__global__ void fill_random_halves_kernel(unsigned* p, std::size_t words, unsigned seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < words;
       i += std::size_t(gridDim.x) * blockDim.x) {
    unsigned h = static_cast<unsigned>(i) * 0x9E3779B1u ^ seed;
    h ^= h >> 16;
    h *= 0x85EBCA6Bu;
    h ^= h >> 13;
    // Sign bit, exponent 0x0E or below (|x| < 1), 10 random mantissa bits, for each half.
    const unsigned lo = (h & 0x83FFu) | (((h >> 10) % 15u) << 10);
    const unsigned hi = ((h >> 16) & 0x83FFu) | (((h >> 26) % 15u) << 10);
    p[i] = lo | (hi << 16);
  }
}

// --- host side ---
using warpmodel::support::cuda::check;
using warpmodel::support::cuda::CudaError;
template <class T>
using DevBuf = warpmodel::support::cuda::DeviceBuffer<T>;

using UnitKernelFn = void (*)(UnitArgs);
enum class TensorMap { none, one_d, two_d };
// How a kernel is launched: its dynamic shared memory, its tensor map, the footprint of its buffer.
struct UnitKernelEntry {
  const char* name;
  UnitKernelFn fn;
  int dynamic_shared_bytes;
  TensorMap map;
  std::size_t buffer_bytes;
};
constexpr std::size_t kOperandBytes = std::size_t(1) << 20;     // tensor-core operands
constexpr std::size_t kL2ResidentBytes = std::size_t(8) << 20;  // the latency chains' sources
constexpr int kTileBytes2d = kTma2dBoxRows * kTma2dBoxFloats * 4;

const std::vector<UnitKernelEntry>& unit_kernel_table() {
  static const std::vector<UnitKernelEntry> table = [] {
    std::vector<UnitKernelEntry> t;
#define UBENCH_MMA(op, dtype, TT, constraint, ptx, sass_regex, sass_per_op, allowed_regex, ops_per_op, spec)              \
  t.push_back({"ubench_mma_lat_" #op "_" #dtype, ubench_mma_lat_##op##_##dtype, 0, TensorMap::none, kOperandBytes}); \
  t.push_back({"ubench_mma_thr_" #op "_" #dtype, ubench_mma_thr_##op##_##dtype, 0, TensorMap::none, kOperandBytes});
#include "tensor.def"
#define UBENCH_WGMMA(op, dtype, TT, constraint, instruction, tail, sass_regex, ops_per_op, spec)          \
  t.push_back({"ubench_wgmma_lat_" #op "_" #dtype, ubench_wgmma_lat_##op##_##dtype, 0, TensorMap::none,        \
               kOperandBytes});                                                                            \
  t.push_back({"ubench_wgmma_thr_" #op "_" #dtype, ubench_wgmma_thr_##op##_##dtype, 0, TensorMap::none,        \
               kOperandBytes});
#include "tensor.def"
    t.push_back({"ubench_tma_load_1d_lat", ubench_tma_load_1d_lat, kTma1dBoxElements * 4, TensorMap::one_d, kL2ResidentBytes});
    t.push_back({"ubench_tma_load_2d_lat", ubench_tma_load_2d_lat, kTileBytes2d, TensorMap::two_d, kL2ResidentBytes});
    t.push_back({"ubench_tma_store_1d_lat", ubench_tma_store_1d_lat, kTma1dBoxElements * 4, TensorMap::one_d, kL2ResidentBytes});
    t.push_back({"ubench_tma_store_2d_lat", ubench_tma_store_2d_lat, kTileBytes2d, TensorMap::two_d, kL2ResidentBytes});
    t.push_back({"ubench_tma_load_1d_bw", ubench_tma_load_1d_bw, kCopyStages1d * kTma1dBoxElements * 4, TensorMap::one_d, kStreamBytes});
    t.push_back({"ubench_tma_load_2d_bw", ubench_tma_load_2d_bw, kCopyStages * kTileBytes2d, TensorMap::two_d, kStreamBytes});
    t.push_back({"ubench_tma_store_1d_bw", ubench_tma_store_1d_bw, kCopyStages1d * kTma1dBoxElements * 4, TensorMap::one_d, kStreamBytes});
    t.push_back({"ubench_tma_store_2d_bw", ubench_tma_store_2d_bw, kCopyStages * kTileBytes2d, TensorMap::two_d, kStreamBytes});
    t.push_back({"ubench_bulk_load_lat", ubench_bulk_load_lat, kBulkCopyBytes, TensorMap::none, kL2ResidentBytes});
    t.push_back({"ubench_bulk_load_bw", ubench_bulk_load_bw, kCopyStages * kBulkCopyBytes, TensorMap::none, kStreamBytes});
    t.push_back({"ubench_cp_async_lat", ubench_cp_async_lat, 0, TensorMap::none, kL2ResidentBytes});
    t.push_back({"ubench_cp_async_bw", ubench_cp_async_bw, kCpAsyncStages * kCpAsyncThreads * kCpAsyncPerStage * 16,
                 TensorMap::none, kStreamBytes});
    t.push_back({"ubench_dsmem_chase", ubench_dsmem_chase, 0, TensorMap::none, kOperandBytes});
    t.push_back({"ubench_dsmem_read", ubench_dsmem_read, kDsmemReadBytes, TensorMap::none, kOperandBytes});
    t.push_back({"ubench_cluster_barrier", ubench_cluster_barrier, 0, TensorMap::none, kOperandBytes});
    t.push_back({"ubench_cluster_barrier_relaxed", ubench_cluster_barrier_relaxed, 0, TensorMap::none, kOperandBytes});
    return t;
  }();
  return table;
}

const UnitKernelEntry& unit_kernel(const std::string& symbol) {
  for (const auto& e : unit_kernel_table())
    if (symbol == e.name) return e;
  throw CudaError("run_unit: no kernel " + symbol + " in unit_kernels.cu's table");
}

// cuTensorMapEncodeTiled through the runtime's driver entry point (support/cuda: no -lcuda).
PFN_cuTensorMapEncodeTiled_v12000 encode_tiled() {
  static const auto fn = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(
      warpmodel::support::cuda::driver_entry_point("cuTensorMapEncodeTiled", 12000));
  return fn;
}

CUtensorMap make_tensor_map(TensorMap kind, void* base, std::size_t bytes) {
  CUtensorMap map{};
  CUresult r = CUDA_SUCCESS;
  const cuuint32_t unit_strides[2] = {1, 1};
  if (kind == TensorMap::one_d) {
    const cuuint64_t dims[1] = {bytes / 4};
    // A rank-1 map has no stride to give, but the driver refuses a null array (CUresult 1 on an H100,
    // driver 580): the whole extent in bytes, never read.
    const cuuint64_t unused_strides[1] = {bytes};
    const cuuint32_t box[1] = {kTma1dBoxElements};
    r = encode_tiled()(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 1, base, dims, unused_strides, box, unit_strides,
                       CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                       CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  } else {
    const cuuint64_t dims[2] = {kTma2dRowFloats, bytes / (kTma2dRowFloats * 4)};
    const cuuint64_t strides[1] = {kTma2dRowFloats * 4};  // bytes between rows
    const cuuint32_t box[2] = {kTma2dBoxFloats, kTma2dBoxRows};
    r = encode_tiled()(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, base, dims, strides, box, unit_strides,
                       CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                       CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  }
  if (r != CUDA_SUCCESS) throw CudaError("cuTensorMapEncodeTiled failed (CUresult " + std::to_string(int(r)) + ")");
  return map;
}

}  // namespace

namespace warpmodel::ubench::gpu {

bool unit_kernels_supported(std::string& why) {
  int device = 0, major = 0, minor = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device), "compute capability");
  check(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device), "compute capability");
  if (major == 9 && minor == 0) return true;
  why = "compute capability " + std::to_string(major) + "." + std::to_string(minor) +
        ": the tensor-stage kernels are built for sm_90a (wgmma, TMA, clusters of Hopper) only";
  return false;
}

void fill_random_halves(void* device_pointer, std::size_t bytes, unsigned seed) {
  fill_random_halves_kernel<<<1024, 256>>>(static_cast<unsigned*>(device_pointer), bytes / 4, seed);
  check(cudaGetLastError(), "fill_random_halves");
}

int unit_max_warps_per_block(const std::string& kernel) {
  cudaFuncAttributes attributes{};
  check(cudaFuncGetAttributes(&attributes, unit_kernel(kernel).fn), "attributes of " + kernel);
  return std::min(kMaxWarpsPerBlock, attributes.maxThreadsPerBlock / 32);
}

// The SM count, with `kernel` given its dynamic shared memory (more than half of the SM's for one
// block per SM: the rows measure per SM) and, for clusters beyond 8 blocks, the non-portable sizes.
struct KernelSetup {
  int sms = 0, dynamic_shared = 0;
};
KernelSetup set_up_kernel(const UnitKernelEntry& e, const std::string& kernel, bool one_block_per_sm, bool large_clusters) {
  int device = 0, optin = 0;
  KernelSetup k;
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&k.sms, cudaDevAttrMultiProcessorCount, device), "SM count");
  check(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device), "shared memory opt-in");
  k.dynamic_shared = one_block_per_sm ? std::max(e.dynamic_shared_bytes, optin / 2 + 1024) : e.dynamic_shared_bytes;
  check(cudaFuncSetAttribute(e.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, k.dynamic_shared),
        kernel + ": dynamic shared memory");
  if (large_clusters)
    check(cudaFuncSetAttribute(e.fn, cudaFuncAttributeNonPortableClusterSizeAllowed, 1),
          kernel + ": cudaFuncAttributeNonPortableClusterSizeAllowed");
  return k;
}

// A launch of `threads`-thread blocks in clusters of `cluster` along x (one: a plain launch); the
// attribute must outlive the config.
void set_cluster_launch(cudaLaunchConfig_t& config, cudaLaunchAttribute& attribute, int cluster, unsigned threads,
                        int dynamic_shared) {
  attribute = cudaLaunchAttribute{};
  attribute.id = cudaLaunchAttributeClusterDimension;
  attribute.val.clusterDim.x = static_cast<unsigned>(cluster);
  attribute.val.clusterDim.y = 1;
  attribute.val.clusterDim.z = 1;
  config = cudaLaunchConfig_t{};
  config.blockDim = dim3(threads);
  config.dynamicSmemBytes = static_cast<std::size_t>(dynamic_shared);
  config.attrs = &attribute;
  config.numAttrs = cluster > 1 ? 1 : 0;
}

std::map<int, int> max_active_clusters_one_block_per_sm(const std::string& kernel) {
  const UnitKernelEntry& e = unit_kernel(kernel);
  const KernelSetup k = set_up_kernel(e, kernel, true, true);
  std::map<int, int> out;
  for (int cluster = 1; cluster <= 16; ++cluster) {
    cudaLaunchConfig_t config;
    cudaLaunchAttribute attribute;
    set_cluster_launch(config, attribute, cluster, 32, k.dynamic_shared);
    config.numAttrs = 1;  // a cluster of one too: the occupancy of clusters, not of plain blocks
    config.gridDim = dim3(static_cast<unsigned>(cluster * k.sms));
    int clusters = 0;
    if (cudaOccupancyMaxActiveClusters(&clusters, e.fn, &config) == cudaSuccess) {
      out[cluster] = clusters;
    } else {
      (void)cudaGetLastError();  // a size this GPU does not run: left out
    }
  }
  return out;
}

UnitRun run_unit(const std::string& kernel, int cluster, bool every_sm, int warps, int reps, int steps, int launches) {
  const UnitKernelEntry& e = unit_kernel(kernel);
  if (cluster < 1 || cluster > 16 || warps < 1 || warps > unit_max_warps_per_block(kernel) || reps < 1)
    throw CudaError("run_unit " + kernel + ": bad launch shape (cluster " + std::to_string(cluster) + ", " +
                    std::to_string(warps) + " warps)");
  const KernelSetup k = set_up_kernel(e, kernel, every_sm, cluster > 8);
  const int sms = k.sms;
  cudaLaunchConfig_t config;
  cudaLaunchAttribute attribute;
  set_cluster_launch(config, attribute, cluster, static_cast<unsigned>(warps * 32), k.dynamic_shared);
  int blocks = cluster;
  if (every_sm) {
    if (cluster == 1) {
      blocks = sms;
    } else {  // as many clusters as are resident at once (a cluster lives in one GPC)
      config.gridDim = dim3(static_cast<unsigned>(cluster * sms));
      int clusters = 0;
      check(cudaOccupancyMaxActiveClusters(&clusters, e.fn, &config), kernel + ": cudaOccupancyMaxActiveClusters");
      if (clusters < 1)
        throw CudaError(kernel + ": no cluster of " + std::to_string(cluster) + " blocks fits on this GPU");
      blocks = clusters * cluster;
    }
  }
  config.gridDim = dim3(static_cast<unsigned>(blocks));

  DevBuf<unsigned char> buffer(e.buffer_bytes);
  fill_random_halves(buffer.data(), e.buffer_bytes, 12345u);
  const std::size_t threads = static_cast<std::size_t>(blocks) * warps * 32;
  DevBuf<unsigned> sink(threads);
  DevBuf<long long> cycles(threads / 32 * static_cast<std::size_t>(reps + 1) * 2);
  UnitArgs args{};
  if (e.map != TensorMap::none) args.map = make_tensor_map(e.map, buffer.data(), e.buffer_bytes);
  args.cycles = cycles.data();
  args.buffer = buffer.data();
  args.sink = sink.data();
  args.buffer_bytes = e.buffer_bytes;
  args.reps = reps;
  args.steps = steps;
  args.zero = 0;
  args.meta = 0x44444444u;  // every nibble: indices 0 and 1 of its group of four

  UnitRun run;
  run.blocks = blocks;
  run.warps = warps;
  run.cluster = cluster;
  const std::string what = "run_unit " + kernel;
  if (launches <= 1) {
    check(cudaLaunchKernelEx(&config, e.fn, args), what);
    check(cudaGetLastError(), what);
    check(cudaDeviceSynchronize(), what);
  } else {
    check(cudaLaunchKernelEx(&config, e.fn, args), what);  // warm-up launch (module load, first touch)
    check(cudaDeviceSynchronize(), what);
    warpmodel::support::cuda::EventPair events;
    for (int l = 0; l < launches; ++l) {
      events.start();
      check(cudaLaunchKernelEx(&config, e.fn, args), what);
      events.stop();
      run.seconds.push_back(events.elapsed_seconds());
      check(cudaGetLastError(), what);
    }
  }
  run.pairs = cycles.download();
  return run;
}

}  // namespace warpmodel::ubench::gpu
