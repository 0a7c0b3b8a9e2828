// The corpus declarations (corpus.hpp). Each entry's comment gives the expected time of its largest
// size on an H200 (about 4 TB/s DRAM, 60 TFLOP/s FP32, 30 TFLOP/s FP64, 16 SFU results per clock per
// SM, 132 SMs at 1.98 GHz): bytes / bandwidth or operations / rate, a rough guide for choosing sizes
// (smallest launch ~5-20 us, largest 0.2-3 ms), not a prediction. Every buffer a launch touches stays
// below ~512 MB and below 2^31 elements (the kernels index with int).
#include "warpmodel/corpus/corpus.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "warpmodel/support/text.hpp"
#include "warpmodel/sweep.hpp"  // grid_for

namespace warpmodel::corpus {
namespace {

// Block shapes: 1D kernels from 2 to 32 warps; 2D kernels square, wide, tall and flat.
const std::vector<Shape> kShapes1d = {{64, 1}, {256, 1}, {1024, 1}};
const std::vector<Shape> kShapes2d = {{32, 8}, {16, 16}, {64, 4}, {8, 32}, {32, 32}, {256, 1}};
const std::vector<Shape> kShapesFewThreads = {{32, 1}, {64, 1}, {128, 1}};
// Tensor-core tiles: warps of 32 x 32 (64x64, 64x128 and 128x128 of C a block) and warpgroups of
// 64 x 128 (one; two stacked in M; two side by side in N).
const std::vector<Shape> kShapesWarpTiles = {{64, 2}, {128, 2}, {128, 4}};
const std::vector<Shape> kShapesWarpgroupTiles = {{128, 1}, {128, 2}, {256, 1}};

Size elements(const char* label, long long n) { return {label, n, 1, 1}; }
Size square(const char* label, long long n) { return {label, n, n, 1}; }
Size cube(const char* label, long long n) { return {label, n, n, n}; }
Size matrix(const char* label, long long rows, long long columns) { return {label, columns, rows, 1}; }

constexpr long long K = 1024, M = 1024 * 1024;

std::vector<KernelDecl> make_kernels() {
  std::vector<KernelDecl> v;
  auto add = [&v](KernelDecl d) { v.push_back(std::move(d)); };
  const std::string ns = "warpmodel::corpus::kernels::";
  const std::string n_elements = "nx = elements";
  const std::string gemm_extents = "C is ny x nx (M x N), K = nz";
  const std::string rows_columns = "ny rows x nx columns";

  // ---------------------------------------------------------------- streaming
  // 64M: 512 MB moved, 0.13 ms.
  add({"copy-f32", "streaming", "DRAM bandwidth: a 4-byte load and store per thread, no arithmetic", "f32",
       ns + "copy_f32", n_elements, ThreadSpace::x, 1, false, false,
       {elements("2M", 2 * M), elements("16M", 16 * M), elements("64M", 64 * M)}, kShapes1d, {"LDG", "STG"}});
  // 64M: 512 MB, 0.13 ms.
  add({"copy-vec4-f32", "streaming", "DRAM bandwidth with 16-byte accesses (float4), 4 elements per thread", "f32",
       ns + "copy_vec4_f32", n_elements + " (nx / 4 threads)", ThreadSpace::x, 4, false, false,
       {elements("2M", 2 * M), elements("16M", 16 * M), elements("64M", 64 * M)}, kShapes1d,
       {"LDG.E.128", "STG.E.128"}});
  // 32M: 384 MB, 0.1 ms.
  add({"triad-f32", "streaming", "DRAM bandwidth, two loads and a store: a = b + s c", "f32", ns + "triad_f32",
       n_elements, ThreadSpace::x, 1, false, false,
       {elements("2M", 2 * M), elements("8M", 8 * M), elements("32M", 32 * M)}, kShapes1d, {"LDG", "STG", "FFMA"}});
  // 16M: 384 MB, 0.1 ms.
  add({"triad-f64", "streaming", "DRAM bandwidth with 8-byte elements: a = b + s c", "f64", ns + "triad_f64", n_elements,
       ThreadSpace::x, 1, false, false, {elements("1M", M), elements("4M", 4 * M), elements("16M", 16 * M)}, kShapes1d,
       {"LDG.E.64", "STG.E.64", "DFMA"}});

  // ---------------------------------------------------------------- naive loops through aliasing pointers
  // 1024^3: 3.4e7 warp iterations, each a load of A and B and a store of C (no __restrict__): 4.3 GB
  // stored and as much loaded through L2 (~5 TB/s): ~1.7 ms.
  add({"gemm-naive-f32", "naive-loop",
       "a load and a store of C per k iteration (aliasing pointers): L1/L2 store traffic, K-long dependent chain", "f32",
       ns + "gemm_naive_f32", gemm_extents, ThreadSpace::xy, 1, false, false,
       {cube("256^3", 256), cube("512^3", 512), cube("1024^3", 1024)}, kShapes2d, {"loop:LDG", "loop:STG"}});
  // 768^3: 1.4e7 warp iterations, each 256 bytes stored and 256 loaded through L2 (~5 TB/s): ~1.4 ms.
  add({"gemm-naive-f64", "naive-loop", "as gemm-naive-f32 with 8-byte elements and DFMA", "f64", ns + "gemm_naive_f64",
       gemm_extents, ThreadSpace::xy, 1, false, false, {cube("256^3", 256), cube("512^3", 512), cube("768^3", 768)},
       kShapes2d, {"loop:LDG.E.64", "loop:STG.E.64", "DFMA|DMUL"}});
  // 768^3: 1.4e7 warp iterations; A[j][k] is a different row per lane: ~32 L1 wavefronts per
  // warp load, 4.5e8 in all over 132 SMs: ~1.7 ms.
  add({"syrk-naive-f32", "naive-loop",
       "C += alpha A A^T in memory: a column-strided (uncoalesced) load and a store of C per k iteration", "f32",
       ns + "syrk_naive_f32", "C is ny x nx (N x N, nx = ny), A is N x nz", ThreadSpace::xy, 1, false, false,
       {cube("256^3", 256), cube("512^3", 512), cube("768^3", 768)}, kShapes2d, {"loop:LDG", "loop:STG"}});
  // 8192^2: 8192 threads (2 warps per SM) each 8192 iterations of ~100 clocks (L1 hit, a miss per
  // 8 columns, the store): ~0.4 ms.
  add({"gemv-naive-f32", "naive-loop",
       "y[i] += A[i][j] x[j] in memory, thread per row: uncoalesced row walk, a store per iteration, few warps", "f32",
       ns + "gemv_naive_f32", rows_columns, ThreadSpace::y, 1, false, false,
       {square("1024^2", 1024), square("4096^2", 4096), square("8192^2", 8192)}, kShapes1d, {"loop:LDG", "loop:STG"}});
  // 2048 x 16384: coalesced column walk, but the store keeps the next row's load behind this one's
  // result: 2048 dependent DRAM round trips (~800 clocks): ~0.8 ms.
  add({"gemvt-naive-f32", "naive-loop",
       "y[j] += A[i][j] x[i] in memory, thread per column (coalesced): a DRAM round trip per row, latency bound", "f32",
       ns + "gemvt_naive_f32", rows_columns, ThreadSpace::x, 1, false, false,
       {matrix("128x4096", 128, 4096), matrix("512x8192", 512, 8192), matrix("2048x16384", 2048, 16384)}, kShapes1d,
       {"loop:LDG", "loop:STG"}});
  // 2048 x 16384: 512 warps, 2048 dependent iterations of a DRAM load (~700 clocks) each: ~0.7 ms.
  add({"colmean-naive-f32", "naive-loop",
       "mean[j] += data[i][j] in memory, thread per column: a DRAM round trip per row, latency bound", "f32",
       ns + "colmean_naive_f32", rows_columns, ThreadSpace::x, 1, false, false,
       {matrix("128x4096", 128, 4096), matrix("512x8192", 512, 8192), matrix("2048x16384", 2048, 16384)}, kShapes1d,
       {"loop:LDG", "loop:STG"}});
  // As colmean with mean[j] reloaded every iteration (it may alias std): ~0.8 ms.
  add({"colstd-naive-f32", "naive-loop",
       "std[j] += (data[i][j] - mean[j])^2 in memory: two loads and a store per row, latency bound", "f32",
       ns + "colstd_naive_f32", rows_columns, ThreadSpace::x, 1, false, false,
       {matrix("128x4096", 128, 4096), matrix("512x8192", 512, 8192), matrix("2048x16384", 2048, 16384)}, kShapes1d,
       {"loop:LDG", "loop:STG"}});

  // ---------------------------------------------------------------- matrix-vector: row walk vs column walk
  // 8192^2: 256 MB; the row walk fetches a sector per thread per 8 columns: ~0.1-0.3 ms.
  add({"gemv-row-f32", "matvec", "y = A x, thread per row walking its row: 32 sectors per warp load (uncoalesced)", "f32",
       ns + "gemv_row_f32", rows_columns, ThreadSpace::y, 1, false, false,
       {square("2048^2", 2048), square("4096^2", 4096), square("8192^2", 8192)}, kShapes1d, {"loop:LDG", "!STL"}});
  // 8192^2: 256 MB coalesced, 8192 threads: ~0.1 ms.
  add({"gemv-col-f32", "matvec", "y = A^T x, thread per column: coalesced, 4 sectors per warp load", "f32",
       ns + "gemv_col_f32", rows_columns, ThreadSpace::x, 1, false, false,
       {square("2048^2", 2048), square("4096^2", 4096), square("8192^2", 8192)}, kShapes1d, {"loop:LDG"}});
  // 8192^2: 256 MB coalesced: 65 us.
  add({"gemv-warp-f32", "matvec", "y = A x, a warp per row: coalesced row walk and a shuffle reduction", "f32",
       ns + "gemv_warp_f32", rows_columns + " (32 ny threads)", ThreadSpace::warp_per_y, 1, false, false,
       {square("2048^2", 2048), square("4096^2", 4096), square("8192^2", 8192)}, kShapes1d, {"loop:LDG", "SHFL"}});

  // ---------------------------------------------------------------- shared-memory tiled GEMM
  // 2048^3: 17 GFLOP; two shared loads per warp FFMA hold it to ~8-15 TFLOP/s: 1.1-2.1 ms.
  add({"gemm-tiled-f32", "tiled-gemm",
       "shared-memory tiles (block rows x 32 of A, 32 x block columns of B): shared bandwidth and barriers", "f32",
       ns + "gemm_tiled_f32", gemm_extents, ThreadSpace::xy, 1, false, false,
       {cube("512^3", 512), cube("1024^3", 1024), cube("2048^3", 2048)}, kShapes2d, {"LDS", "STS", "BAR", "FFMA"}});
  // 768^3: 0.9 GFLOP, 32-way conflicts on every B read (x >= 32): ~1.5 ms.
  add({"gemm-tiled-bt-f32", "tiled-gemm",
       "B tile stored transposed with a 32-word row: its reads are 32-way shared bank conflicts", "f32",
       ns + "gemm_tiled_bt_f32", gemm_extents, ThreadSpace::xy, 1, false, false,
       {cube("256^3", 256), cube("512^3", 512), cube("768^3", 768)}, kShapes2d, {"LDS", "STS", "BAR"}});
  // 768^3: 0.9 GFLOP at ~15 TFLOP/s: 60 us.
  add({"gemm-tiled-bt-padded-f32", "tiled-gemm", "gemm-tiled-bt-f32 with the row padded to 33 words: no conflicts",
       "f32", ns + "gemm_tiled_bt_padded_f32", gemm_extents, ThreadSpace::xy, 1, false, false,
       {cube("256^3", 256), cube("512^3", 512), cube("768^3", 768)}, kShapes2d, {"LDS", "STS", "BAR"}});
  // 1024^3: 2.1 GFLOP at ~5 TFLOP/s: ~0.4 ms.
  add({"gemm-tiled-f64", "tiled-gemm", "gemm-tiled-f32 in FP64 (16-deep k tiles): DFMA and 8-byte shared loads", "f64",
       ns + "gemm_tiled_f64", gemm_extents, ThreadSpace::xy, 1, false, false,
       {cube("256^3", 256), cube("512^3", 512), cube("1024^3", 1024)}, kShapes2d, {"LDS.64", "DFMA", "BAR"}});

  // ---------------------------------------------------------------- tensor-core GEMM tiles
  // H200 dense tensor rates: ~990 TFLOP/s FP16/BF16, ~1980 FP8; these unpipelined tiles (a load
  // stage, a barrier, the MMAs, a barrier) reach a fraction of it. 4096^3 is 137 GFLOP.
  const std::string tc_extents = "C is ny x nx (M x N, FP32), K = nz; B stored N x K (K contiguous)";
  const std::vector<Size> tc_sizes = {cube("1024^3", 1024), cube("2048^3", 2048), cube("4096^3", 4096)};
  // 4096^3 at ~150 TFLOP/s: ~0.9 ms.
  add({"gemm-wmma-f16", "tensor-core",
       "nvcuda::wmma 16x16x16 FP16, FP32 accumulate, a 32x32 tile per warp from shared-memory stages: HMMA",
       "f16", ns + "gemm_wmma_f16", tc_extents + "; a warp per 32x32 tile", ThreadSpace::xy, 1, false, false, tc_sizes,
       kShapesWarpTiles, {"loop:HMMA.16816.F32", "!HMMA.16816.F32.BF16", "loop:LDSM", "STS.128", "BAR"}, 32, 32, 32});
  // 4096^3 at ~150 TFLOP/s: ~0.9 ms.
  add({"gemm-mma-bf16", "tensor-core",
       "mma.sync m16n8k16 BF16 (FP32 accumulate) with ldmatrix operands, a 32x32 tile per warp: HMMA.BF16", "bf16",
       ns + "gemm_mma_bf16", tc_extents + "; a warp per 32x32 tile", ThreadSpace::xy, 1, false, false, tc_sizes,
       kShapesWarpTiles, {"loop:HMMA.16816.F32.BF16", "loop:LDSM", "STS.128", "BAR"}, 32, 32, 32});
  // 4096^3 at ~300 TFLOP/s: ~0.45 ms.
  add({"gemm-wgmma-f16", "tensor-core",
       "wgmma m64n128k16 FP16 (sm_90a), both operands from shared memory by descriptor, a 64x128 tile per warpgroup",
       "f16", ns + "gemm_wgmma_f16", tc_extents + "; a warpgroup per 64x128 tile", ThreadSpace::xy, 1, false, false,
       tc_sizes, kShapesWarpgroupTiles, {"loop:HGMMA.64x128x16.F32", "WARPGROUP.ARRIVE", "STS.128", "BAR"}, 64, 128,
       64});
  // 4096^3 at ~500 TFLOP/s: ~0.3 ms.
  add({"gemm-wgmma-e4m3", "tensor-core",
       "wgmma m64n128k32 FP8 E4M3 (sm_90a, QGMMA), operands from shared memory by descriptor, 64x128 per warpgroup",
       "e4m3", ns + "gemm_wgmma_e4m3", tc_extents + "; a warpgroup per 64x128 tile", ThreadSpace::xy, 1, false, false,
       tc_sizes, kShapesWarpgroupTiles, {"loop:QGMMA.64x128x32.F32.E4M3.E4M3", "WARPGROUP.ARRIVE", "STS.128", "BAR"},
       64, 128, 128});

  // ---------------------------------------------------------------- reductions
  // 64M: 256 MB read: 65 us.
  add({"reduce-shuffle-f32", "reduction", "DRAM read, warp shuffle reduction, per-block partials", "f32",
       ns + "reduce_shuffle_f32", n_elements, ThreadSpace::x, 1, false, false,
       {elements("4M", 4 * M), elements("16M", 16 * M), elements("64M", 64 * M)}, kShapes1d, {"SHFL", "STG"}});
  // 64M: 256 MB read plus log2(block) barriers per block: ~80 us.
  add({"reduce-tree-f32", "reduction", "shared-memory tree reduction (a barrier per level), per-block partials", "f32",
       ns + "reduce_tree_f32", n_elements, ThreadSpace::x, 1, true, false,
       {elements("4M", 4 * M), elements("16M", 16 * M), elements("64M", 64 * M)}, kShapes1d, {"LDS", "STS", "BAR"}});
  // 4M: 4M float atomics on one address, ~1 per L2 clock: ~2.5 ms.
  add({"reduce-atomic-f32", "reduction", "an atomicAdd per thread into one word: serialised at one L2 slice", "f32",
       ns + "reduce_atomic_f32", n_elements, ThreadSpace::x, 1, false, false,
       {elements("64K", 64 * K), elements("512K", 512 * K), elements("4M", 4 * M)}, kShapes1d, {"RED|REDG|ATOMG|ATOM"}});
  // 64M: 2M same-address atomics (one per warp): ~1.2 ms.
  add({"reduce-warp-atomic-f32", "reduction", "warp shuffle reduction, then one atomicAdd per warp into one word", "f32",
       ns + "reduce_warp_atomic_f32", n_elements, ThreadSpace::x, 1, false, false,
       {elements("4M", 4 * M), elements("16M", 16 * M), elements("64M", 64 * M)}, kShapes1d,
       {"SHFL", "RED|REDG|ATOMG|ATOM"}});

  // ---------------------------------------------------------------- histograms
  // 16M keys on 8 words: ~8 atomics per L2 clock: ~1 ms.
  add({"hist-global-8-bins", "histogram", "global atomics on 8 bins: heavy same-address contention", "u32",
       ns + "hist_global_8_bins", "nx = keys", ThreadSpace::x, 1, false, false,
       {elements("1M", M), elements("4M", 4 * M), elements("16M", 16 * M)}, kShapes1d, {"RED|REDG|ATOMG|ATOM"}});
  // 64M keys over 4096 words: L2 atomic throughput and 256 MB read: ~0.3 ms.
  add({"hist-global-4096-bins", "histogram", "global atomics on 4096 bins: L2 atomic throughput, little contention",
       "u32", ns + "hist_global_4096_bins", "nx = keys", ThreadSpace::x, 1, false, false,
       {elements("4M", 4 * M), elements("16M", 16 * M), elements("64M", 64 * M)}, kShapes1d, {"RED|REDG|ATOMG|ATOM"}});
  // 64M keys: shared atomics, 256 MB read: ~0.1 ms.
  add({"hist-shared-256-bins", "histogram",
       "block-private shared-memory histogram (shared atomics), merged with 256 global atomics per block", "u32",
       ns + "hist_shared_256_bins", "nx = keys", ThreadSpace::x, 1, false, false,
       {elements("4M", 4 * M), elements("16M", 16 * M), elements("64M", 64 * M)}, kShapes1d,
       {"ATOMS", "RED|REDG|ATOMG|ATOM", "BAR"}});

  // ---------------------------------------------------------------- transposes
  // 8192^2: 512 MB; the strided stores write a sector per thread: ~0.5 ms.
  add({"transpose-naive-f32", "transpose", "coalesced loads, column-strided stores (a sector per thread)", "f32",
       ns + "transpose_naive_f32", rows_columns + " (input)", ThreadSpace::xy, 1, false, false,
       {square("2048^2", 2048), square("4096^2", 4096), square("8192^2", 8192)}, kShapes2d, {"LDG", "STG"}});
  // 8192^2: 512 MB: 0.13 ms plus the conflicts of the tile's column read.
  add({"transpose-smem-f32", "transpose",
       "a block tile through shared memory: coalesced both ways, column reads of the tile bank-conflict", "f32",
       ns + "transpose_smem_f32", rows_columns + " (input)", ThreadSpace::xy, 1, false, false,
       {square("2048^2", 2048), square("4096^2", 4096), square("8192^2", 8192)}, kShapes2d, {"LDS", "STS", "BAR"}});
  // 8192^2: 512 MB: 0.13 ms.
  add({"transpose-smem-padded-f32", "transpose", "transpose-smem-f32 with the tile row padded by one word", "f32",
       ns + "transpose_smem_padded_f32", rows_columns + " (input)", ThreadSpace::xy, 1, false, false,
       {square("2048^2", 2048), square("4096^2", 4096), square("8192^2", 8192)}, kShapes2d, {"LDS", "STS", "BAR"}});

  // ---------------------------------------------------------------- irregular gathers
  const std::string csr = "ny rows (and columns), nx nonzeros per row at random columns";
  // 1M rows x 32: 256 MB of values and columns, walked a sector per thread per 8 nonzeros: ~0.3 ms.
  add({"spmv-csr-scalar-f32", "gather", "CSR SpMV, thread per row: uncoalesced row walks, random gathers of x", "f32",
       ns + "spmv_csr_scalar_f32", csr, ThreadSpace::y, 1, false, false,
       {matrix("64Kx32", 64 * K, 32), matrix("256Kx32", 256 * K, 32), matrix("1Mx32", M, 32)}, kShapes1d,
       {"loop:LDG"}});
  // 1M rows x 32: 256 MB coalesced plus the gathers: ~0.1 ms.
  add({"spmv-csr-vector-f32", "gather", "CSR SpMV, warp per row: coalesced row walks, random gathers, shuffles", "f32",
       ns + "spmv_csr_vector_f32", csr + " (32 ny threads)", ThreadSpace::warp_per_y, 1, false, false,
       {matrix("64Kx32", 64 * K, 32), matrix("256Kx32", 256 * K, 32), matrix("1Mx32", M, 32)}, kShapes1d,
       {"LDG", "SHFL"}});
  // 32M: 256 MB streamed, 32M random 4-byte gathers (a sector each): ~0.4 ms.
  add({"gather-f32", "gather", "out[i] = in[idx[i]] with random indices: a 32-byte sector per 4 bytes used", "f32",
       ns + "gather_f32", n_elements, ThreadSpace::x, 1, false, false,
       {elements("2M", 2 * M), elements("8M", 8 * M), elements("32M", 32 * M)}, kShapes1d, {"LDG", "STG"}});

  // ---------------------------------------------------------------- scans
  // 32M: 256 MB, log2(block) barrier steps: ~0.1 ms.
  add({"scan-block-hs-f32", "scan",
       "block-level inclusive scan, Hillis-Steele in double-buffered shared memory: a barrier per step", "f32",
       ns + "scan_block_hs_f32", n_elements + " (blocks scanned independently)", ThreadSpace::x, 1, false, false,
       {elements("2M", 2 * M), elements("8M", 8 * M), elements("32M", 32 * M)}, kShapes1d, {"LDS", "STS", "BAR"}});
  // 32M: 256 MB: 70 us.
  add({"scan-block-shuffle-f32", "scan", "block-level inclusive scan with warp shuffles and one shared step", "f32",
       ns + "scan_block_shuffle_f32", n_elements + " (blocks scanned independently)", ThreadSpace::x, 1, false, false,
       {elements("2M", 2 * M), elements("8M", 8 * M), elements("32M", 32 * M)}, kShapes1d, {"SHFL", "BAR"}});

  // ---------------------------------------------------------------- compute bound
  // 64M: 64M x 256 flops = 17 GFLOP at 60 TFLOP/s: 0.29 ms (512 MB: 0.13 ms).
  add({"poly-f32", "compute", "Horner, degree 128, per element: a dependent FFMA chain, 32 flops per byte", "f32",
       ns + "poly_f32", n_elements, ThreadSpace::x, 1, false, false,
       {elements("1M", M), elements("8M", 8 * M), elements("64M", 64 * M)}, kShapes1d, {"FFMA"}});
  // 32M: 8.6 GFLOP at 30 TFLOP/s: 0.29 ms.
  add({"poly-f64", "compute", "Horner, degree 128, in FP64: a dependent DFMA chain", "f64", ns + "poly_f64", n_elements,
       ThreadSpace::x, 1, false, false, {elements("512K", 512 * K), elements("4M", 4 * M), elements("32M", 32 * M)},
       kShapes1d, {"DFMA"}});
  // 16M: 16M x 32 x 3 MUFU at 16 per clock per SM: 0.37 ms.
  add({"sfu-f32", "compute", "__sinf, __expf and rsqrtf, 32 rounds per element: the SFU (MUFU) pipe", "f32",
       ns + "sfu_f32", n_elements, ThreadSpace::x, 1, false, false,
       {elements("1M", M), elements("4M", 4 * M), elements("16M", 16 * M)}, kShapes1d,
       {"MUFU.SIN", "MUFU.EX2", "MUFU.RSQ"}});
  // 32768 bodies: 1.1e9 interactions x ~20 flops and an MUFU.RSQ: ~0.5 ms.
  add({"nbody-f32", "compute", "all-pairs n-body with shared-memory tiles of bodies and rsqrtf: FFMA and MUFU", "f32",
       ns + "nbody_f32", "nx = bodies", ThreadSpace::x, 1, false, false,
       {elements("4K", 4 * K), elements("16K", 16 * K), elements("32K", 32 * K)}, kShapes1d,
       {"MUFU.RSQ", "LDS", "BAR", "FFMA"}});

  // ---------------------------------------------------------------- divergent branches
  // 32M: 4 paths of 16-64 dependent steps, every path taken by each warp: ~0.3 ms.
  add({"branch-divergent-f32", "divergence",
       "each lane takes 1 of 4 paths (different work) by its own key: warps run every path", "f32", ns + "branch_paths_f32",
       n_elements, ThreadSpace::x, 1, false, false,
       {elements("2M", 2 * M), elements("8M", 8 * M), elements("32M", 32 * M)}, kShapes1d, {"BSSY", "BRA"}});
  // 32M: the same work, one path per warp: ~0.1 ms.
  add({"branch-uniform-f32", "divergence",
       "the same kernel and work as branch-divergent-f32 with keys equal across each warp: no divergence", "f32",
       ns + "branch_paths_f32", n_elements, ThreadSpace::x, 1, false, false,
       {elements("2M", 2 * M), elements("8M", 8 * M), elements("32M", 32 * M)}, kShapes1d, {"BSSY", "BRA"}});

  // ---------------------------------------------------------------- few warps, latency bound
  // 128 chains x 1024 steps in 128 MB: a DRAM round trip (~800 clocks, TLB misses) per step: ~0.4 ms.
  add({"pointer-chase-u32", "latency",
       "1-4 warps each chasing its own random cycle: one dependent load in flight per thread", "u32",
       ns + "pointer_chase_u32",
       "nx = chains (threads), ny = steps, nz = table entries (L1, L2, DRAM resident); label chains x steps @ table bytes",
       ThreadSpace::x, 1, false, false,
       {{"32x2048@16K", 32, 2048, 4 * K}, {"64x1024@4M", 64, 1024, M}, {"128x1024@128M", 128, 1024, 32 * M}},
       kShapesFewThreads, {"loop:LDG"}});
  // 256 rows x 8192: 256 threads, a DRAM round trip per 8 columns: ~0.4 ms.
  add({"gemv-fewrows-f32", "latency", "gemv-row-f32 with 64-256 rows: too few warps to hide the row walk's latency",
       "f32", ns + "gemv_row_f32", rows_columns, ThreadSpace::y, 1, false, false,
       {matrix("64x512", 64, 512), matrix("128x2048", 128, 2048), matrix("256x8192", 256, 8192)}, kShapesFewThreads,
       {"loop:LDG"}});

  // ---------------------------------------------------------------- launch bound
  // 32K elements: 384 KB, a few microseconds: launch and drain.
  add({"vadd-tiny-f32", "launch-bound", "c = a + b on 1K-32K elements: launch overhead and ramp, not bandwidth", "f32",
       ns + "vadd_f32", n_elements, ThreadSpace::x, 1, false, false,
       {elements("1K", K), elements("8K", 8 * K), elements("32K", 32 * K)}, kShapes1d, {"LDG", "STG"}});
  // 64 threads x 16384: one block on one SM, 4 MB at a few loads in flight per warp: ~1.5 ms.
  add({"one-block-sum-f32", "launch-bound",
       "one block of 64 threads sums ny elements each, then reduces in shared memory: one SM busy", "f32",
       ns + "one_block_sum_f32", "nx = threads (64, one block), ny = elements per thread", ThreadSpace::x, 1, true, true,
       {{"64x64", 64, 64, 1}, {"64x1024", 64, 1024, 1}, {"64x16384", 64, 16384, 1}}, kShapes1d,
       {"loop:LDG", "BAR"}});

  // ---------------------------------------------------------------- local memory
  // 4M threads: 128 MB of keys and 192 local accesses per thread (256 B array): ~0.5 ms.
  add({"local-hist-u32", "local-memory",
       "a 64-entry per-thread histogram indexed by data: the array lives in local memory (LDL/STL)", "u32",
       ns + "local_hist_u32", "nx = threads (8 key words each)", ThreadSpace::x, 1, false, false,
       {elements("256K", 256 * K), elements("1M", M), elements("4M", 4 * M)}, kShapes1d, {"LDL", "STL"}});
  // 2M threads x 16 rounds x 48 FFMA: 3.2 GFLOP: 55 us; 128 MB read: 35 us.
  add({"regpressure-f32", "local-memory", "48 accumulators live across a loop: ~60 registers, no spills", "f32",
       ns + "regpressure_f32", "nx = threads (16 inputs each)", ThreadSpace::x, 1, false, false,
       {elements("256K", 256 * K), elements("1M", M), elements("2M", 2 * M)}, kShapes1d, {"FFMA", "!STL"}});
  // The same work capped at 32 registers: ~24 accumulators spill, an LDL/STL pair each per round
  // (6.4 GB of local traffic at 2M, much of it through L2): ~1.3 ms.
  add({"regpressure-spill-f32", "local-memory",
       "regpressure-f32 capped at 32 registers (__maxnreg__): spills to local memory in the loop", "f32",
       ns + "regpressure_spill_f32", "nx = threads (16 inputs each)", ThreadSpace::x, 1, false, false,
       {elements("256K", 256 * K), elements("1M", M), elements("2M", 2 * M)}, kShapes1d, {"loop:STL", "loop:LDL"}});

  // ---------------------------------------------------------------- asynchronous copies
  // 64M: 512 MB: 0.13 ms.
  add({"stencil1d-f32", "async-copy", "9-point 1D stencil with plain loads (the L1 serves the overlap)", "f32",
       ns + "stencil1d_f32", n_elements, ThreadSpace::x, 1, false, false,
       {elements("4M", 4 * M), elements("16M", 16 * M), elements("64M", 64 * M)}, kShapes1d, {"LDG", "!LDGSTS"}});
  // 64M: 512 MB: 0.13 ms.
  add({"stencil1d-cpasync-f32", "async-copy",
       "the same stencil over 8 tiles per block, double-buffered in shared memory with cp.async (LDGSTS)", "f32",
       ns + "stencil1d_cpasync_f32", n_elements + " (nx / 8 threads, 8 tiles per block)", ThreadSpace::x, 8, false, false,
       {elements("4M", 4 * M), elements("16M", 16 * M), elements("64M", 64 * M)}, kShapes1d, {"LDGSTS", "BAR"}});
  // 64M: 512 MB: 0.13 ms.
  add({"stencil1d-tma-f32", "async-copy",
       "the same stencil, the block's tile fetched by one TMA bulk copy (cp.async.bulk) onto an mbarrier", "f32",
       ns + "stencil1d_tma_f32", n_elements, ThreadSpace::x, 1, false, false,
       {elements("4M", 4 * M), elements("16M", 16 * M), elements("64M", 64 * M)}, kShapes1d, {"UBLKCP", "SYNCS"}});

  // ---------------------------------------------------------------- small 2D/3D stencils and convolutions
  // 8192^2: 512 MB: 0.13 ms (9 loads per point from L1).
  add({"conv2d-3x3-f32", "stencil-2d", "2D 3x3 convolution, one output per thread: 9 loads per point served by L1",
       "f32", ns + "conv2d_3x3_f32", rows_columns, ThreadSpace::xy, 1, false, false,
       {square("2048^2", 2048), square("4096^2", 4096), square("8192^2", 8192)}, kShapes2d, {"LDG", "STG", "FFMA"}});
  // 8192^2: 512 MB: 0.13 ms.
  add({"jacobi2d-5pt-f32", "stencil-2d", "2D 5-point Jacobi sweep (out of place)", "f32", ns + "jacobi2d_5pt_f32",
       rows_columns, ThreadSpace::xy, 1, false, false,
       {square("2048^2", 2048), square("4096^2", 4096), square("8192^2", 8192)}, kShapes2d, {"LDG", "STG"}});
  // 384^3: 453 MB: 0.12 ms plus the 27 loads per point through L1/L2.
  add({"conv3d-3x3x3-f32", "stencil-2d", "3D 3x3x3 convolution, one output per thread (grid z = planes)", "f32",
       ns + "conv3d_3x3x3_f32", "nz planes of ny rows x nx columns", ThreadSpace::xyz, 1, false, false,
       {cube("128^3", 128), cube("256^3", 256), cube("384^3", 384)}, kShapes2d, {"LDG", "STG", "FFMA"}});
  // 6144^2: 302 MB moved (ey, hz read, ey written): 75 us.
  add({"fdtd2d-ey-f32", "stencil-2d", "FDTD-2D E_y update in place: ey -= 0.5 (hz - hz[i-1])", "f32",
       ns + "fdtd2d_ey_f32", rows_columns, ThreadSpace::xy, 1, false, false,
       {square("1024^2", 1024), square("4096^2", 4096), square("6144^2", 6144)}, kShapes2d, {"LDG", "STG"}});
  // 6144^2: 302 MB: 75 us.
  add({"fdtd2d-ex-f32", "stencil-2d", "FDTD-2D E_x update in place: ex -= 0.5 (hz - hz[j-1])", "f32",
       ns + "fdtd2d_ex_f32", rows_columns, ThreadSpace::xy, 1, false, false,
       {square("1024^2", 1024), square("4096^2", 4096), square("6144^2", 6144)}, kShapes2d, {"LDG", "STG"}});
  // 6144^2: 604 MB moved (hz, ex, ey read, hz written; 453 MB allocated): 0.15 ms.
  add({"fdtd2d-hz-f32", "stencil-2d", "FDTD-2D H_z update in place from ex and ey (four neighbours)", "f32",
       ns + "fdtd2d_hz_f32", rows_columns, ThreadSpace::xy, 1, false, false,
       {square("1024^2", 1024), square("4096^2", 4096), square("6144^2", 6144)}, kShapes2d, {"LDG", "STG"}});
  return v;
}

}  // namespace

std::string Shape::label() const { return std::to_string(x) + "x" + std::to_string(y); }

Shape parse_shape(std::string_view text, std::string_view what) {
  const auto bad = [&] {
    return std::invalid_argument(std::string(what) + " '" + std::string(text) + "' is not a block shape X or XxY (e.g. 32x8)");
  };
  Shape s{0, 1};
  const auto x = text.find('x');
  auto number = [&](std::string_view part) {
    if (part.empty() || part.size() > 5 || !std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; }))
      throw bad();
    const unsigned v = static_cast<unsigned>(std::stoul(std::string(part)));
    if (v == 0) throw bad();
    return v;
  };
  s.x = number(text.substr(0, x));
  if (x != std::string_view::npos) s.y = number(text.substr(x + 1));
  return s;
}

std::string_view to_string(ThreadSpace t) {
  switch (t) {
    case ThreadSpace::x: return "x";
    case ThreadSpace::y: return "thread per row";
    case ThreadSpace::warp_per_y: return "warp per row";
    case ThreadSpace::xy: return "2D";
    case ThreadSpace::xyz: return "3D";
  }
  return "?";
}

const std::vector<KernelDecl>& kernels() {
  static const std::vector<KernelDecl> all = make_kernels();
  return all;
}

const KernelDecl* find_kernel(std::string_view name) {
  for (const auto& k : kernels())
    if (k.name == name) return &k;
  return nullptr;
}

std::vector<std::string> kernel_names() {
  std::vector<std::string> names;
  for (const auto& k : kernels()) names.push_back(k.name);
  return names;
}

std::vector<std::string> classes() {
  std::vector<std::string> out;
  for (const auto& k : kernels())
    if (std::find(out.begin(), out.end(), k.klass) == out.end()) out.push_back(k.klass);
  return out;
}

Dim3 domain(const KernelDecl& k, const Size& s) {
  switch (k.threads) {
    case ThreadSpace::x: return {(s.nx + k.elements_per_thread - 1) / k.elements_per_thread, 1, 1};
    case ThreadSpace::y: return {s.ny, 1, 1};
    case ThreadSpace::warp_per_y: return {32 * s.ny, 1, 1};
    case ThreadSpace::xy: return {s.nx, (s.ny + k.rows_per_thread - 1) / k.rows_per_thread, 1};
    case ThreadSpace::xyz: return {s.nx, s.ny, s.nz};
  }
  throw std::logic_error("corpus::domain: unknown thread space");
}

Dim3 grid(const KernelDecl& k, const Size& s, Shape shape) { return grid_for(domain(k, s), {shape.x, shape.y, 1}); }

std::string shape_problem(const KernelDecl& k, const Size& s, Shape shape) {
  const unsigned t = shape.threads();
  if (t == 0 || t > 1024) return "block " + shape.label() + " has " + std::to_string(t) + " threads (1..1024)";
  if (t % 32 != 0) return "block " + shape.label() + " is not a whole number of warps";
  const bool one_d = k.threads != ThreadSpace::xy && k.threads != ThreadSpace::xyz;
  if (one_d && shape.y != 1) return k.name + " is a 1D kernel: the block must be X x 1";
  if (k.power_of_two_block && (t & (t - 1)) != 0)
    return k.name + " halves its block: the block's threads must be a power of two";
  if (k.single_block && shape.x < domain(k, s).x)
    return k.name + " runs as one block: the block needs at least " + std::to_string(domain(k, s).x) + " threads";
  if (k.rows_per_thread > 1) {
    const long long tile_rows = static_cast<long long>(shape.y) * k.rows_per_thread;
    if (shape.x % k.block_x_multiple != 0)
      return k.name + " gives each " + std::to_string(k.block_x_multiple) +
             " threads of x a tile: block x must be a multiple of " + std::to_string(k.block_x_multiple);
    if (s.nx % shape.x != 0 || s.ny % tile_rows != 0 || s.nz % k.k_multiple != 0)
      return k.name + " computes whole tiles: with block " + shape.label() + " the size needs nx a multiple of " +
             std::to_string(shape.x) + ", ny of " + std::to_string(tile_rows) + " and nz of " +
             std::to_string(k.k_multiple);
  }
  return "";
}

const Size& select_size(const KernelDecl& k, std::string_view label) {
  for (const auto& s : k.sizes)
    if (s.label == label) return s;
  if (label == "small") return k.sizes.front();
  if (label == "medium") return k.sizes.at(k.sizes.size() / 2);
  if (label == "large") return k.sizes.back();
  std::vector<std::string> labels;
  for (const auto& s : k.sizes) labels.push_back(s.label);
  const auto closest = support::closest_names(label, labels, 1);
  throw std::invalid_argument("--size '" + std::string(label) + "' is not a size of " + k.name + " (" +
                              support::join(labels) + ", or small, medium, large)" +
                              (closest.empty() ? "" : "; closest: " + closest.front()));
}

std::vector<const KernelDecl*> select_kernels(std::string_view list) {
  std::vector<const KernelDecl*> out;
  if (list == "all") {
    for (const auto& k : kernels()) out.push_back(&k);
    return out;
  }
  std::size_t start = 0;
  while (start <= list.size()) {
    const auto comma = list.find(',', start);
    const std::string_view name = list.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    if (!name.empty()) {
      const KernelDecl* k = find_kernel(name);
      if (!k) {
        const auto closest = support::closest_names(name, kernel_names(), 3);
        throw std::invalid_argument("--variant '" + std::string(name) + "' is not a corpus kernel; closest: " +
                                    support::join(closest) + " (" + std::to_string(kernels().size()) +
                                    " kernels, or all; profiles/corpus/README.md lists them)");
      }
      out.push_back(k);
    }
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (out.empty()) throw std::invalid_argument("--variant names no corpus kernel (a list of names, or all)");
  return out;
}

std::string markdown_table() {
  std::ostringstream t;
  t << "| kernel | class | limiter | precision | threads | sizes | block shapes |\n"
    << "|---|---|---|---|---|---|---|\n";
  for (const auto& k : kernels()) {
    std::vector<std::string> sizes, shapes;
    for (const auto& s : k.sizes) sizes.push_back(s.label);
    for (const auto& s : k.shapes) shapes.push_back(s.label());
    std::string threads(to_string(k.threads));
    if (k.threads == ThreadSpace::x)
      threads = k.elements_per_thread == 1 ? "1D" : "1D, " + std::to_string(k.elements_per_thread) + " per thread";
    if (k.single_block) threads += ", one block";
    if (k.rows_per_thread > 1) threads += ", " + std::to_string(k.rows_per_thread) + " rows per thread";
    t << "| `" << k.name << "` | " << k.klass << " | " << k.limiter << " | " << k.precision << " | " << threads << " | "
      << support::join(sizes) << " | " << support::join(shapes) << " |\n";
  }
  return t.str();
}

std::size_t launch_count() {
  std::size_t n = 0;
  for (const auto& k : kernels()) n += k.sizes.size() * k.shapes.size();
  return n;
}

}  // namespace warpmodel::corpus
