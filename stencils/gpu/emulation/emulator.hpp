// A CPU emulation of the CUDA execution model, just large enough to run the stencil kernels'
// source on a machine without a GPU (CI). Not a simulator of performance; a checker of logic:
//   - every thread of a block runs as a fiber; __syncthreads switches fibers, and the order in
//     which the fibers run between two barriers is shuffled, so a read of shared memory that
//     another thread writes in the same phase sees stale data, as it may on the GPU;
//   - a barrier reached by only some threads of a block is an error;
//   - cp.async copies land only when the issuing thread waits for their group; bulk tensor copies
//     (TMA) land only when a thread waits on their mbarrier phase, zero-filling outside the tensor;
//   - every global load and store is checked against the registered buffers (out of bounds and
//     writes to read-only buffers are errors), every async copy against the block's shared memory.
// Errors throw emu::EmulationError from launch().
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>

namespace warpmodel::stencils::emu {

struct EmulationError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Index3 {
  unsigned x = 0, y = 0, z = 0;
};

struct ThreadView {
  Index3 thread, block, block_dim, grid_dim;
};

// The descriptor a bulk tensor copy reads: a 3D float tensor and the box one copy moves.
struct TensorMap {
  const float* base = nullptr;
  long long size[3] = {0, 0, 0};    // elements in x, y, z
  long long stride[3] = {1, 0, 0};  // elements between neighbours in x, y, z
  int box[3] = {1, 1, 1};
};

// Inside a kernel (current fiber).
const ThreadView& current();
void sync_block();
void* shared_memory();
void check_global(const void* p, std::size_t bytes, bool write);
void async_copy(void* shared_dst, const void* global_src, std::size_t bytes, bool valid);
void async_commit();
void async_wait(int pending_allowed);
void mbarrier_init(unsigned long long* bar, unsigned arrivals);
void mbarrier_arrive_expect_bytes(unsigned long long* bar, unsigned bytes);
void mbarrier_wait(unsigned long long* bar, unsigned parity);
void tma_load_3d(void* shared_dst, const TensorMap& map, int x, int y, int z, unsigned long long* bar);

// On the host. Buffers the kernels may touch; `writable` false makes a store an error.
void register_buffer(const void* p, std::size_t bytes, bool writable);
void unregister_buffer(const void* p);

struct LaunchConfig {
  Index3 grid, block;
  std::size_t shared_bytes = 0;
  bool uses_barriers = true;  // false: threads run one after another, no fibers
  unsigned shuffle_seed = 1;
};
// Runs `body` once per thread of every block (blocks one after another).
void launch(const LaunchConfig& config, const std::function<void()>& body);

}  // namespace warpmodel::stencils::emu
