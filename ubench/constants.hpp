// The sizes the kernels (kernels.cu) are built with and the declarations (registry.cpp) divide by:
// one header, so the per-op figures cannot drift from the code that runs. Plain constexpr, C++17
// (nvcc compiles kernels.cu as C++17).
#pragma once

#include <cstddef>

namespace warpmodel::ubench::sizes {

constexpr int kMaxWarpsPerBlock = 32;

// ALU throughput kernels: kThroughputIlp independent chains per thread, timed as a loop whose body
// holds kThroughputUnroll steps of every chain (the body stays in the instruction cache).
constexpr int kThroughputIlp = 8;
constexpr int kThroughputUnroll = 32;

// Latency chains (dependent operations between the two clock reads).
constexpr int kSharedChaseChain = 512;  // ld.shared.u32 pointer chase
constexpr int kSharedChaseWords = 2048;
constexpr int kGlobalChaseChain = 256;  // ld.global.{ca,cg}.u64 pointer chase
constexpr int kChaseNodeBytes = 256;    // 32 pointers: a warp chases one node, or every lane its own
constexpr int kStoreChain = 256;        // st [p], p; ld p, [p]
constexpr int kLocalChaseChain = 256;   // ld.local.u32 pointer chase
constexpr int kLocalChaseWords = 32;    // per thread: 128 B of local memory
constexpr int kAtomicChain = 128;       // atom.global.add.u32 on one word, the result fed back
constexpr int kBarrierChain = 64;       // bar.sync 0, straight-line (no loop to subtract)

// Memory-pipe throughput kernels (LSU loads, stores, atomics, local loads): every warp runs
// kMemorySteps iterations of a loop whose body holds kMemoryOpsPerStep independent operations.
constexpr int kMemoryOpsPerStep = 32;
constexpr int kMemorySteps = 16;
constexpr int kAtomicOpsPerStep = 4;  // atomics: fewer, a same-address atomic is slow
constexpr int kAtomicSteps = 8;
// Local loads: one per word of an 8-word per-thread array per step (32 B per thread, so 32 warps x
// 32 lanes hold 32 KiB per SM); ptxas merges repeated loads of one address, so the step holds each
// word once, and takes 64 steps for the same 512 requests per warp as the other memory kernels.
constexpr int kLocalThroughputWords = 8;
constexpr int kLocalSteps = kMemoryOpsPerStep * kMemorySteps / kLocalThroughputWords;

// Device buffer of the memory-pipe kernels: every kernel's footprint lies inside it.
constexpr std::size_t kMemoryBufferBytes = std::size_t(64) << 20;
// Stores: each warp writes its own 4 KiB region (32 requests of 128 B, or 32 lines x 1 sector), so
// 132 SMs x 32 warps write 16.5 MiB, well inside L2.
constexpr int kStoreRegionWords = 1024;

// Bandwidth kernels: the L2 read/write footprint (resident in L2) and its passes.
constexpr std::size_t kL2BandwidthBytes = std::size_t(16) << 20;
constexpr int kL2BandwidthPasses = 256;
// Scattered-sector writes (hopper H.8c): the same footprint as a 2048 x 2048 float matrix written
// down its columns; each pass moves 8x (4-byte sectors) to 1x (32-byte) the footprint in sectors.
constexpr int kL2SectorsWidthFloats = 2048;
constexpr int kL2SectorsPasses = 64;
static_assert(std::size_t(kL2SectorsWidthFloats) * kL2SectorsWidthFloats * 4 == kL2BandwidthBytes);
// Random-sector reads (a gather's traffic): one 4-byte load per 32-byte sector at a hashed sector
// of the footprint, this many per launch (512 MiB of sectors).
constexpr std::size_t kRandomReadSamples = std::size_t(1) << 24;
// Their DRAM footprint: 256 MiB, 5x the L2 and within the TLBs' reach (over the 2 GiB scratch the
// page-table walks set the rate: 1,298 GB/s on the H200, where a 128 MiB gather moved 2,850).
constexpr std::size_t kRandomReadDramBytes = std::size_t(256) << 20;

// Row-segment reads and writes (a 2D kernel at a narrow block shape): a matrix of kRowsReadWidthFloats-float
// rows (32 KiB), kRowsReadBytes in all, read (or written) once by one wave of about 8 blocks per SM,
// each thread looping down the rows in steps of the grid's height; blocks of 256 threads whose
// width in floats times 4 is the segment of a row each warp reads: 8 x 32 (32 B: one sector of
// each of 4 lines), 16 x 16 (64 B), 32 x 8 (128 B: one whole line).
constexpr int kRowsReadWidthFloats = 8192;
constexpr std::size_t kRowsReadBytes = std::size_t(1) << 30;

// Launch overhead: grids of 1..kLaunchMaxWaves waves of one block per SM, kLaunchBlockThreads each.
constexpr int kLaunchMaxWaves = 64;
constexpr int kLaunchBlockThreads = 32;
constexpr int kBackToBackLaunches = 1000;


// --- The Hopper units (hopper_kernels.cu, stage "tensor"): tensor cores, TMA, clusters, async copies.
// mma.sync: a latency region of kMmaChain dependent mma (the accumulator carries the chain); a
// throughput region of kMmaSteps loop trips, each kMmaIlp independent accumulators.
constexpr int kMmaChain = 64;
constexpr int kMmaIlp = 8;
constexpr int kMmaSteps = 256;
// wgmma (one warpgroup = 4 warps, m64nNk*): a latency region of kWgmmaChain dependent
// (fence, wgmma, commit, wait 0); a throughput region of kWgmmaSteps trips of kWgmmaBatch wgmma into
// one accumulator, committed as one group, at most one group in flight (wait_group 1), as a GEMM
// main loop does. Operands from shared memory (no swizzle, core matrices contiguous: conflict-free).
constexpr int kWgmmaN = 256;
constexpr int kWgmmaChain = 16;
constexpr int kWgmmaBatch = 8;
constexpr int kWgmmaSteps = 32;
// The operand tiles in shared memory: A at 0 (64 rows), B after it (256 rows); core matrices (8 rows x
// 16 B, 128 B contiguous) 128 B apart along K and 512 B apart along M/N, room for the widest K (64 B).
constexpr int kWgmmaCoreStride = 512;
constexpr int kWgmmaSharedBytes = (64 + kWgmmaN) / 8 * kWgmmaCoreStride;
// TMA and bulk copies: latency chains of kCopyChain dependent copies (each waited for) from an
// L2-resident source; bandwidth: one block per SM streaming a kStreamBytes buffer from or to DRAM,
// kCopyStages copies in flight per block.
constexpr int kCopyChain = 32;
constexpr int kTma1dBoxElements = 256;   // the largest box of a dimension: 256 x 4 B = 1 KiB
constexpr int kTma2dBoxRows = 64;        // 64 rows x 64 floats = 16 KiB
constexpr int kTma2dBoxFloats = 64;
constexpr int kTma2dRowFloats = 8192;    // the 2D tensor's rows (32 KiB)
constexpr int kBulkCopyBytes = 16 << 10; // cp.async.bulk: one 16 KiB copy
constexpr int kCopyStages = 8;           // copies in flight per block (16 KiB each: 128 KiB of shared memory)
constexpr int kCopyStages1d = 64;        // 1 KiB TMA boxes: more of them in flight (64 KiB)
constexpr std::size_t kStreamBytes = std::size_t(1) << 30;
// cp.async (LDGSTS): a latency chain of kCpAsyncChain (16 B per lane, commit, wait 0) from L2; the
// bandwidth kernel: 256 threads per block, kCpAsyncPerStage 16-B copies per thread and stage,
// kCpAsyncStages stages in flight.
constexpr int kCpAsyncChain = 64;
constexpr int kCpAsyncThreads = 256;
constexpr int kCpAsyncPerStage = 4;
constexpr int kCpAsyncStages = 4;
// Distributed shared memory: a chase of kDsmemChain dependent ld.shared::cluster through the next
// block's shared memory; reads of kDsmemReadBytes of it with 16-B loads, kDsmemUnroll per step.
constexpr int kDsmemChain = 256;
constexpr int kDsmemWords = 2048;
constexpr int kDsmemReadBytes = 64 << 10;
constexpr int kDsmemUnroll = 8;
constexpr int kDsmemSteps = 64;
// Cluster barrier: kClusterBarrierChain barrier.cluster.arrive + wait pairs in a row.
constexpr int kClusterBarrierChain = 32;
// Every throughput row's launch is timed with CUDA events this many times (the whole GPU's rate).
constexpr int kUnitLaunches = 5;
// The library GEMM (cuBLASLt): square sizes and the heuristic's candidate algorithms timed per size.
constexpr int kLibraryGemmAlgorithms = 8;
constexpr int kLibraryGemmLaunches = 5;

}  // namespace warpmodel::ubench::sizes
