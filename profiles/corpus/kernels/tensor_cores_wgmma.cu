// Tensor-core GEMM tiles with the warpgroup MMA of sm_90a (class "tensor-core"; the warp-wide MMAs
// are in tensor_cores.cu): C (M x N, FP32) = A B, A M x K row-major, B given as N x K row-major,
// FP32 accumulation. Compiled for sm_90a alone (wgmma exists only there), as ubench's unit kernels.
//
// A warpgroup (128 consecutive threads) computes a 64 x 128 tile of C with
// wgmma.mma_async.m64n128k16 (FP16) or m64n128k32 (FP8 E4M3), both operands from shared memory
// through descriptors. A block of bx x by threads is bx / 128 x by warpgroups, a (64 by) x bx tile
// of C (so the domain is nx x ny / 64 threads): 128x1 one warpgroup, 128x2 two stacked in M (they
// share the B rows), 256x1 two side by side in N (they share the A rows).
//
// The block walks K in stages of 128 bytes a row (64 FP16 or 128 FP8 elements): all its threads copy
// the stage's A and B rows into shared memory with 16-byte loads, in the no-swizzle K-major layout
// wgmma reads: 8-row x 16-byte core matrices of 128 contiguous bytes, the 8 core matrices of a row
// group (K) 128 bytes apart (the descriptor's leading byte offset) and the row groups (M or N) 1024
// bytes apart (its stride byte offset). A fence.proxy.async makes the copies visible to the tensor
// cores' (async) proxy; then each warpgroup runs four wgmma (each 32 bytes of K further along: two
// core matrices), commits them as one group and waits for it before the block's next stage.
#include <cstdint>

#include "common.cuh"

namespace warpmodel::corpus::kernels {

constexpr int kWgRows = 64, kWgCols = 128;  // C tile of a warpgroup
constexpr int kStageBytes = 128;            // K bytes per stage and row
constexpr int kCoreBytes = 128, kRowGroupBytes = 8 * kStageBytes;

std::size_t warpgroup_tile_shared_bytes(dim3 block) {
  return std::size_t(kStageBytes) * (std::size_t(kWgRows) * block.y + block.x);
}

// Rows [row0, row0 + rows) x bytes [k0, k0 + 128) of a row-major matrix (pitch bytes a row) into the
// core-matrix layout above, a 16-byte chunk a thread; consecutive threads fill consecutive rows of
// a core matrix, so a warp's shared stores are contiguous.
__device__ __forceinline__ void stage_core_matrices(const std::uint8_t* __restrict__ g, std::size_t pitch, int row0,
                                                    int rows, std::size_t k0, std::uint8_t* s, int tid, int threads) {
  for (int c = tid; c < rows * 8; c += threads) {
    const int row_in_core = c % 8, chunk = (c / 8) % 8, group = c / 64;
    const int r = group * 8 + row_in_core;
    *reinterpret_cast<uint4*>(s + group * kRowGroupBytes + chunk * kCoreBytes + row_in_core * 16) =
        *reinterpret_cast<const uint4*>(g + std::size_t(row0 + r) * pitch + k0 + chunk * 16);
  }
}

// A shared-memory matrix descriptor, no swizzle: start address, leading byte offset (between core
// matrices along K), stride byte offset (between 8-row groups), each in 16-byte units.
__device__ __forceinline__ std::uint64_t wgmma_descriptor(unsigned shared_address) {
  return std::uint64_t((shared_address & 0x3FFFF) >> 4) | (std::uint64_t(kCoreBytes >> 4) << 16) |
         (std::uint64_t(kRowGroupBytes >> 4) << 32);
}

#define CORPUS_WGMMA_D "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}"
#define CORPUS_WGMMA_D_OPERANDS "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])

// One wgmma of each input type into the 64 accumulators (64 x 128 / 128 threads); scale-d p = 1
// (accumulate), the inputs unscaled, both K-major (FP16's two transpose immediates 0).
struct WgmmaF16 {
  static __device__ __forceinline__ void mma(float (&d)[64], std::uint64_t da, std::uint64_t db) {
    asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, 1, 0;\n\t"
                 "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 " CORPUS_WGMMA_D ", %64, %65, p, 1, 1, 0, 0;\n\t}"
                 : CORPUS_WGMMA_D_OPERANDS
                 : "l"(da), "l"(db));
  }
};
struct WgmmaE4m3 {
  static __device__ __forceinline__ void mma(float (&d)[64], std::uint64_t da, std::uint64_t db) {
    asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, 1, 0;\n\t"
                 "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 " CORPUS_WGMMA_D ", %64, %65, p, 1, 1;\n\t}"
                 : CORPUS_WGMMA_D_OPERANDS
                 : "l"(da), "l"(db));
  }
};

template <class Mma, int ElementBytes>
__device__ __forceinline__ void gemm_wgmma(const std::uint8_t* __restrict__ A, const std::uint8_t* __restrict__ B,
                                           float* __restrict__ C, int N, int K) {
  const int tid = threadIdx.y * blockDim.x + threadIdx.x, threads = blockDim.x * blockDim.y;
  const int block_rows = kWgRows * blockDim.y, block_cols = blockDim.x;
  const int row0 = blockIdx.y * block_rows, col0 = blockIdx.x * block_cols;
  const int wg_row = threadIdx.y * kWgRows, wg_col = (threadIdx.x / 128) * kWgCols;
  std::uint8_t* As = dynamic_shared<std::uint8_t>();
  std::uint8_t* Bs = As + block_rows * kStageBytes;
  const unsigned a_base = static_cast<unsigned>(__cvta_generic_to_shared(As + wg_row * kStageBytes));
  const unsigned b_base = static_cast<unsigned>(__cvta_generic_to_shared(Bs + wg_col * kStageBytes));
  const std::size_t pitch = std::size_t(K) * ElementBytes;
  float d[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) d[i] = 0.0f;
  for (std::size_t k0 = 0; k0 < pitch; k0 += kStageBytes) {
    stage_core_matrices(A, pitch, row0, block_rows, k0, As, tid, threads);
    stage_core_matrices(B, pitch, col0, block_cols, k0, Bs, tid, threads);
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
    for (int s = 0; s < kStageBytes / 32; ++s)
      Mma::mma(d, wgmma_descriptor(a_base + 2 * kCoreBytes * s), wgmma_descriptor(b_base + 2 * kCoreBytes * s));
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    __syncthreads();
  }
  // The accumulator fragment, per n8 tile j of the warp's 16 rows: d[4j], d[4j + 1] at (row lane / 4,
  // columns 8j + 2 (lane % 4) and + 1), d[4j + 2], d[4j + 3] 8 rows lower.
  const int lane = threadIdx.x % 32, warp = (threadIdx.x % 128) / 32;
  const int row = row0 + wg_row + 16 * warp + lane / 4, col = col0 + wg_col + 2 * (lane % 4);
#pragma unroll
  for (int j = 0; j < kWgCols / 8; ++j)
#pragma unroll
    for (int h = 0; h < 2; ++h)
      *reinterpret_cast<float2*>(C + std::size_t(row + 8 * h) * N + col + 8 * j) = make_float2(d[4 * j + 2 * h], d[4 * j + 2 * h + 1]);
}

__global__ void __launch_bounds__(256) gemm_wgmma_f16(const std::uint16_t* __restrict__ A,
                                                      const std::uint16_t* __restrict__ B, float* __restrict__ C,
                                                      int M, int N, int K) {
  gemm_wgmma<WgmmaF16, 2>(reinterpret_cast<const std::uint8_t*>(A), reinterpret_cast<const std::uint8_t*>(B), C, N, K);
}
__global__ void __launch_bounds__(256) gemm_wgmma_e4m3(const std::uint8_t* __restrict__ A,
                                                       const std::uint8_t* __restrict__ B, float* __restrict__ C,
                                                       int M, int N, int K) {
  gemm_wgmma<WgmmaE4m3, 1>(A, B, C, N, K);
}

}  // namespace warpmodel::corpus::kernels

namespace warpmodel::corpus::gpu {

void gemm_wgmma_f16(Geometry g, const std::uint16_t* A, const std::uint16_t* B, float* C, int M, int N, int K) {
  kernels::gemm_wgmma_f16<<<g.grid, g.block, kernels::warpgroup_tile_shared_bytes(g.block)>>>(A, B, C, M, N, K);
}
void gemm_wgmma_e4m3(Geometry g, const std::uint8_t* A, const std::uint8_t* B, float* C, int M, int N, int K) {
  kernels::gemm_wgmma_e4m3<<<g.grid, g.block, kernels::warpgroup_tile_shared_bytes(g.block)>>>(A, B, C, M, N, K);
}

}  // namespace warpmodel::corpus::gpu
