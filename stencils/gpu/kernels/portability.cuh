// The few device facilities the stencil kernels use, behind small functions, so the same kernel
// source compiles twice: with nvcc for the GPU, and with the host compiler against the CPU
// emulation (emulation/emulator.hpp), which runs every thread of a block as a fiber, defers
// cp.async copies until the thread waits for them, shuffles the thread order between barriers and
// checks every global access against the live buffers. The emulation is what CI runs.
#pragma once

#if defined(__CUDACC__)

#include <cuda.h>
#include <cuda_runtime.h>

#define WM_KERNEL __global__
#define WM_GRID_CONSTANT __grid_constant__
#define WM_DEVICE __device__ __forceinline__
#define WM_UNROLL _Pragma("unroll")
#define WM_MAX_REGISTERS(n) __maxnreg__(n)

namespace warpmodel::stencils::gpu::kernels {

WM_DEVICE unsigned thread_x() { return threadIdx.x; }
WM_DEVICE unsigned thread_y() { return threadIdx.y; }
WM_DEVICE unsigned thread_z() { return threadIdx.z; }
WM_DEVICE unsigned block_x() { return blockIdx.x; }
WM_DEVICE unsigned block_y() { return blockIdx.y; }
WM_DEVICE unsigned block_z() { return blockIdx.z; }
WM_DEVICE unsigned block_dim_x() { return blockDim.x; }
WM_DEVICE unsigned block_dim_y() { return blockDim.y; }
WM_DEVICE unsigned block_dim_z() { return blockDim.z; }
WM_DEVICE void block_sync() { __syncthreads(); }

// A plain global load (ld.global, L1-cached by default on sm_90): the naive variant.
template <class T>
WM_DEVICE T load_global(const T* p) {
  return *p;
}
// Through the read-only (non-coherent) data cache: ld.global.nc.
template <class T>
WM_DEVICE T load_readonly(const T* p) {
  return __ldg(p);
}
template <class T>
WM_DEVICE void store_global(T* p, const T& v) {
  *p = v;
}
template <class T>
WM_DEVICE T* dynamic_shared() {
  extern __shared__ float4 warpmodel_dynamic_shared[];
  return reinterpret_cast<T*>(warpmodel_dynamic_shared);
}

// cp.async (sm_80+): 16 bytes global -> shared without a register, L2 only (.cg); when `valid` is
// false nothing is read and the 16 bytes are zero-filled.
WM_DEVICE void async_copy_16(void* shared_dst, const void* global_src, bool valid) {
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(shared_dst));
  const int src_bytes = valid ? 16 : 0;
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(global_src), "r"(src_bytes)
               : "memory");
}
WM_DEVICE void async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
// Waits until at most `Pending` of this thread's committed groups are still in flight.
template <int Pending>
WM_DEVICE void async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending) : "memory");
}

// --- mbarrier and the bulk tensor copy engine (TMA, sm_90) ---
WM_DEVICE unsigned shared_address(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }
WM_DEVICE void mbarrier_init(unsigned long long* bar, unsigned arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(shared_address(bar)), "r"(arrivals) : "memory");
}
// Makes initialised barriers visible to the copy engine (then a block barrier to the other threads).
WM_DEVICE void fence_mbarrier_init() { asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory"); }
WM_DEVICE void mbarrier_arrive_expect_bytes(unsigned long long* bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(shared_address(bar)), "r"(bytes)
               : "memory");
}
// Returns once the phase with this parity has completed (all its bytes have landed).
WM_DEVICE void mbarrier_wait(unsigned long long* bar, unsigned parity) {
  unsigned done = 0;
  do {
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(shared_address(bar)), "r"(parity)
        : "memory");
  } while (!done);
}
// One box of a 3D tensor map into shared memory (128-byte aligned); completes on `bar`.
WM_DEVICE void tma_load_3d(void* shared_dst, const CUtensorMap* map, int x, int y, int z, unsigned long long* bar) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], "
      "[%5];\n" ::"r"(shared_address(shared_dst)),
      "l"(reinterpret_cast<unsigned long long>(map)), "r"(x), "r"(y), "r"(z), "r"(shared_address(bar))
      : "memory");
}

}  // namespace warpmodel::stencils::gpu::kernels

#elif defined(WARPMODEL_STENCIL_EMULATION)

#include "../emulation/emulator.hpp"

#define WM_KERNEL
#define WM_GRID_CONSTANT
#define WM_DEVICE inline
#define WM_UNROLL
#define WM_MAX_REGISTERS(n)

namespace warpmodel::stencils::gpu::kernels {

struct alignas(16) float4 {
  float x, y, z, w;
};
inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }

inline unsigned thread_x() { return emu::current().thread.x; }
inline unsigned thread_y() { return emu::current().thread.y; }
inline unsigned thread_z() { return emu::current().thread.z; }
inline unsigned block_x() { return emu::current().block.x; }
inline unsigned block_y() { return emu::current().block.y; }
inline unsigned block_z() { return emu::current().block.z; }
inline unsigned block_dim_x() { return emu::current().block_dim.x; }
inline unsigned block_dim_y() { return emu::current().block_dim.y; }
inline unsigned block_dim_z() { return emu::current().block_dim.z; }
inline void block_sync() { emu::sync_block(); }

template <class T>
T load_global(const T* p) {
  emu::check_global(p, sizeof(T), false);
  return *p;
}
template <class T>
T load_readonly(const T* p) {
  emu::check_global(p, sizeof(T), false);
  return *p;
}
template <class T>
void store_global(T* p, const T& v) {
  emu::check_global(p, sizeof(T), true);
  *p = v;
}
template <class T>
T* dynamic_shared() {
  return static_cast<T*>(emu::shared_memory());
}
inline void async_copy_16(void* shared_dst, const void* global_src, bool valid) {
  emu::async_copy(shared_dst, global_src, 16, valid);
}
inline void async_commit() { emu::async_commit(); }
template <int Pending>
void async_wait() {
  emu::async_wait(Pending);
}

inline void mbarrier_init(unsigned long long* bar, unsigned arrivals) { emu::mbarrier_init(bar, arrivals); }
inline void fence_mbarrier_init() {}
inline void mbarrier_arrive_expect_bytes(unsigned long long* bar, unsigned bytes) {
  emu::mbarrier_arrive_expect_bytes(bar, bytes);
}
inline void mbarrier_wait(unsigned long long* bar, unsigned parity) { emu::mbarrier_wait(bar, parity); }
inline void tma_load_3d(void* shared_dst, const emu::TensorMap* map, int x, int y, int z, unsigned long long* bar) {
  emu::tma_load_3d(shared_dst, *map, x, y, z, bar);
}

}  // namespace warpmodel::stencils::gpu::kernels

#else
#error "compile the stencil kernels with nvcc, or define WARPMODEL_STENCIL_EMULATION for the CPU emulation"
#endif
