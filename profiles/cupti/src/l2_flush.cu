// The L2 write-back flush (l2_flush.hpp).
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "l2_flush.hpp"
#include "warpmodel/support/cuda.hpp"

namespace warpmodel::cupti::detail {
namespace {

using support::cuda::check;

// Reads every 16-byte word (grid-stride). The buffer holds zeros, so the sum is 0 and the store
// never happens; the compiler cannot know that, so the loads stay.
__global__ void read_through_l2(const uint4* __restrict__ words, std::size_t count, unsigned long long* sink) {
  unsigned long long sum = 0;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const uint4 w = words[i];
    sum += static_cast<unsigned long long>(w.x) + w.y + w.z + w.w;
  }
  if (sum != 0) atomicAdd(sink, sum);
}

}  // namespace

L2Flusher::L2Flusher(std::size_t l2_bytes) : bytes_(kBufferL2Multiple * l2_bytes) {
  if (l2_bytes == 0) throw std::runtime_error("L2 flush: the device reports no L2 cache");
  check(cudaMalloc(&buffer_, bytes_), "cudaMalloc (L2 flush buffer)");
  check(cudaMalloc(&sink_, sizeof *sink_), "cudaMalloc (L2 flush sink)");
  check(cudaMemset(buffer_, 0, bytes_), "cudaMemset (L2 flush buffer)");
  check(cudaMemset(sink_, 0, sizeof *sink_), "cudaMemset (L2 flush sink)");
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (L2 flush buffer)");
}

L2Flusher::~L2Flusher() {
  cudaFree(buffer_);
  cudaFree(sink_);
}

void L2Flusher::flush() {
  // Everything queued before (restores, earlier passes) first, so their lines are resident or
  // already written back when the reads sweep L2.
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (before the L2 flush)");
  int device = 0, sms = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
  read_through_l2<<<static_cast<unsigned>(4 * sms), 512>>>(static_cast<const uint4*>(buffer_), bytes_ / sizeof(uint4),
                                                           sink_);
  check(cudaGetLastError(), "L2 flush kernel launch");
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (L2 flush)");
}

}  // namespace warpmodel::cupti::detail
