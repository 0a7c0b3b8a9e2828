// fused-cluster's kernels seen from the host (gpu_solver.cu): they live in their own translation unit,
// gpu/cluster_sweep.cu, compiled with WARPMODEL_ADI_CUBIC_RECIPROCAL (hd.hpp), so that fused's kernels keep
// their arithmetic. Private to warpmodel_adi_gpu.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "warpmodel/adi/parameters.hpp"
#include "warpmodel/adi/sweep_view.hpp"

namespace warpmodel::adi::gpu {

// The sweeps' device functions (attributes, occupancy, KernelInfo); `columns`: 8 or 16 (cluster_columns).
template <class T>
const void* fused_cluster_sweep_x_function();
template <class T>
const void* cluster_sweep_y_function(int columns);

// The x-sweep: fused's sweep over line-major rows (fused.hpp), its reduced systems solved until their rows
// decouple.
template <class T>
void launch_fused_cluster_sweep_x(dim3 grid, dim3 block, std::size_t shared_bytes, cudaStream_t stream,
                                  const SweepView<T>& view, const SweepConstants<T>& constants, T* zeta_out,
                                  T* flux_out, int n_along, int lines, int lanes);

// The y-sweep on the x frame's row-major arrays (view: along_stride = lines, line_stride = 1), in clusters
// of `columns` blocks (cluster_sweep.hpp), with the load-balancing cluster scheduling policy.
template <class T>
void launch_cluster_sweep_y(dim3 grid, dim3 block, std::size_t shared_bytes, cudaStream_t stream, int columns,
                            const SweepView<T>& view, const SweepConstants<T>& constants, T* zeta_out,
                            T* flux_out, int n_along, int lines);

// Sets the y-sweep's attributes for this launch (its dynamic shared memory; for 16 columns the non-portable
// cluster size) and returns how many of its clusters the GPU can run at once (0: it cannot run one).
template <class T>
int prepare_cluster_sweep_y(int columns, dim3 grid, dim3 block, std::size_t shared_bytes);

}  // namespace warpmodel::adi::gpu
