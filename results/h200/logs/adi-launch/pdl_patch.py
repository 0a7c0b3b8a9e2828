# Applies the PDL probe (not kept) to the working tree: griddepcontrol.wait + launch_dependents at the start of
# the fused sweep and transpose kernels, and their launches with programmatic stream serialization, all under
# EXP_PDL (defined at the top of gpu_solver.cu). Undo with `git checkout -- stencils/`.
import re
p = 'stencils/adi/gpu/adi_kernels.cuh'
s = open(p).read()
s = s.replace('''// --- fused: build and partitioned solve''', '''#ifdef EXP_PDL
#define EXP_PDL_ENTRY()                                  \\
  asm volatile("griddepcontrol.wait;" ::: "memory");     \\
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory")
#else
#define EXP_PDL_ENTRY()
#endif

// --- fused: build and partitioned solve''', 1)
s = s.replace('''  extern __shared__ __align__(16) unsigned char shared_raw[];
  adi_sweep_fused<T, kCells>(''', '''  EXP_PDL_ENTRY();
  extern __shared__ __align__(16) unsigned char shared_raw[];
  adi_sweep_fused<T, kCells>(''', 1)
s = s.replace('''  __shared__ T tile[kTile][kTile + 1];
  int x = blockIdx.x * kTile + threadIdx.x;''', '''  EXP_PDL_ENTRY();
  __shared__ T tile[kTile][kTile + 1];
  int x = blockIdx.x * kTile + threadIdx.x;''', 1)
assert s.count('EXP_PDL_ENTRY();') == 2, s.count('EXP_PDL_ENTRY();')
open(p, 'w').write(s)
p = 'stencils/adi/gpu/gpu_solver.cu'
s = open(p).read()
s = s.replace('#include "warpmodel/adi/gpu_solver.hpp"\n', '#define EXP_PDL\n#include "warpmodel/adi/gpu_solver.hpp"\n', 1)
s = s.replace('''namespace {

enum class Kernel {''', '''namespace {

// EXP_PDL: every launch below with programmatic stream serialization (the kernel waits at its start).
template <class... KArgs, class... Args>
void launch_pdl(void (*kernel)(KArgs...), dim3 grid, dim3 block, std::size_t shared, cudaStream_t stream, Args... args) {
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = shared;
  config.stream = stream;
  cudaLaunchAttribute attribute[1];
  attribute[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute[0].val.programmaticStreamSerializationAllowed = 1;
  config.attrs = attribute;
  config.numAttrs = 1;
  gpu::check(cudaLaunchKernelEx(&config, kernel, args...), "cudaLaunchKernelEx");
}

enum class Kernel {''', 1)
n0 = s.count('gpu::transpose_kernel<T><<<grid, block, 0, stream>>>(')
s = s.replace('gpu::transpose_kernel<T><<<grid, block, 0, stream>>>(', 'launch_pdl(gpu::transpose_kernel<T>, grid, block, 0, stream, ')
s = s.replace('''          gpu::fused_sweep_kernel<T, decltype(cells)::value><<<grid, block, g.dynamic_shared_bytes, stream>>>(
              view, constants, zeta_out, flux_out, along, lines, lanes);''', '''          launch_pdl(gpu::fused_sweep_kernel<T, decltype(cells)::value>, grid, block, g.dynamic_shared_bytes, stream,
                     view, constants, zeta_out, flux_out, along, lines, lanes);''')
assert n0 == 4 and 'launch_pdl(gpu::fused_sweep_kernel' in s
open(p, 'w').write(s)
print("pdl patch applied")
