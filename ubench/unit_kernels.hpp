// Host interface of the Hopper-unit kernels (unit_kernels.cu, compiled for sm_90a): tensor cores
// (mma.sync, mma.sp, wgmma), TMA, distributed shared memory, the cluster barrier and the async
// copies. One kernel signature, launched by symbol. Plain C++: no CUDA types leak out.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "kernels.hpp"

namespace warpmodel::ubench::gpu {

// Whether this GPU runs the sm_90a kernels (compute capability 9.0); why not, if not.
bool unit_kernels_supported(std::string& why);

// One run of a unit kernel.
struct UnitRun {
  Cycles pairs;                 // [block][warp][rep][2]: absolute %clock64 (start, end) of each warp's region
  std::vector<double> seconds;  // per launch, CUDA events (empty when launches <= 1)
  int blocks = 0, warps = 0, cluster = 1;
};

// Runs `kernel` in clusters of `cluster` blocks (1: no cluster). every_sm: as many blocks (whole
// clusters) as keep one block on each SM at once, each block given the dynamic shared memory that
// leaves room for one block per SM only; else one cluster (one block when cluster is 1). `warps`
// warps per block, `reps` repetitions after the warm-up, `steps` loop trips per throughput region.
// `launches` >= 2 times each of that many launches with CUDA events; the pairs are the last
// launch's. Throws CudaError for an unknown symbol, a shape that does not fit, or a CUDA failure.
UnitRun run_unit(const std::string& kernel, int cluster, bool every_sm, int warps, int reps, int steps, int launches);

// How many clusters of each size (1 to 16 blocks) of `kernel` can be resident at once with one block
// per SM (cudaOccupancyMaxActiveClusters, the dynamic shared memory of run_unit's every_sm): a cluster
// lives in one GPC, so the counts tell the GPU's GPC layout (architecture_specs.hpp inverts them).
// Sizes the GPU refuses are left out.
std::map<int, int> max_active_clusters_one_block_per_sm(const std::string& kernel);

// The most warps one block of that kernel can hold (its registers decide: a wgmma m64n256 takes 128
// accumulator registers per thread).
int unit_max_warps_per_block(const std::string& kernel);

// Fills n bytes of device memory with FP16 values in [-1, 1) from a hash of the index and seed
// (random operands: zeros would let the tensor cores draw less power and clock higher).
void fill_random_halves(void* device_pointer, std::size_t bytes, unsigned seed);

}  // namespace warpmodel::ubench::gpu
