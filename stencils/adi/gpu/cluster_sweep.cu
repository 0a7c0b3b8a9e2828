// fused-cluster's kernels (cluster_sweep.hpp, cluster_sweep.cuh) and their launches. Compiled with
// WARPMODEL_ADI_CUBIC_RECIPROCAL (stencils/adi/CMakeLists.txt; hd.hpp says why), so this translation unit
// alone has the double reciprocal without its last Newton step.
#include "cluster_sweep_launch.hpp"

#include <string>

#include "adi_kernels.cuh"
#include "cluster_sweep.cuh"
#include "cuda_check.cuh"
#include "warpmodel/adi/cluster_sweep.hpp"

#if !defined(WARPMODEL_ADI_CUBIC_RECIPROCAL)
#error "cluster_sweep.cu is compiled with WARPMODEL_ADI_CUBIC_RECIPROCAL (stencils/adi/CMakeLists.txt)"
#endif

namespace warpmodel::adi::gpu {

// fused-cluster's x-sweep: fused's, its reduced systems solved until their rows decouple
// (PcrLevels::UntilDecoupled, partitioned.hpp). A kernel of its own so that fused's keeps its name and SASS
// (the measurements committed for fused on both GPUs stand).
template <class T, int kCells>
__global__ void __launch_bounds__(partitioned_max_threads(kCells), fused_min_blocks<T, kCells>())
    fused_cluster_sweep_x_kernel(SweepView<T> view, SweepConstants<T> constants, T* __restrict__ zeta_out,
                                 T* __restrict__ flux_out, int n_along, int lines, int lanes) {
  fused_sweep_block<T, kCells, PcrLevels::UntilDecoupled>(view, constants, zeta_out, flux_out, n_along, lines, lanes);
}

namespace {

template <class T, class F>
decltype(auto) with_cluster_columns(int columns, F&& f) {
  if (columns == kClusterColumnsWide)
    return f(cluster_sweep_kernel<T, kClusterCells, kClusterColumnsWide>);
  return f(cluster_sweep_kernel<T, kClusterCells, kClusterColumnsNarrow>);
}

}  // namespace

template <class T>
const void* fused_cluster_sweep_x_function() {
  return reinterpret_cast<const void*>(&fused_cluster_sweep_x_kernel<T, kClusterCells>);
}

template <class T>
const void* cluster_sweep_y_function(int columns) {
  return with_cluster_columns<T>(columns, [](auto kernel) { return reinterpret_cast<const void*>(kernel); });
}

template <class T>
void launch_fused_cluster_sweep_x(dim3 grid, dim3 block, std::size_t shared_bytes, cudaStream_t stream,
                                  const SweepView<T>& view, const SweepConstants<T>& constants, T* zeta_out,
                                  T* flux_out, int n_along, int lines, int lanes) {
  fused_cluster_sweep_x_kernel<T, kClusterCells><<<grid, block, shared_bytes, stream>>>(view, constants, zeta_out,
                                                                                      flux_out, n_along, lines, lanes);
  check_launch("sweep-x");
}

namespace {

// The launch of one y-sweep: the cluster dimension and the load-balancing cluster scheduling policy. Why the
// policy: the 1024^2 double y-sweep took 38.4 us against 45.1 with the default, the steps of every other size
// measured within 0.5 % (H200, same card, medians of two alternated runs; results/h200/logs/adi-fused-cluster/
// pcr-levels/ab.md; earlier probes: policy/, cross-pairs/).
struct ClusterLaunch {
  cudaLaunchConfig_t config{};
  cudaLaunchAttribute attributes[2]{};  // config.attrs points here: not to be copied
  ClusterLaunch(const ClusterLaunch&) = delete;
  ClusterLaunch& operator=(const ClusterLaunch&) = delete;
  ClusterLaunch(dim3 grid, dim3 block, std::size_t shared_bytes, cudaStream_t stream, int columns) {
    config.gridDim = grid;
    config.blockDim = block;
    config.dynamicSmemBytes = shared_bytes;
    config.stream = stream;
    attributes[0].id = cudaLaunchAttributeClusterDimension;
    attributes[0].val.clusterDim.x = static_cast<unsigned>(columns);
    attributes[0].val.clusterDim.y = 1;
    attributes[0].val.clusterDim.z = 1;
    attributes[1].id = cudaLaunchAttributeClusterSchedulingPolicyPreference;
    attributes[1].val.clusterSchedulingPolicyPreference = cudaClusterSchedulingPolicyLoadBalancing;
    config.attrs = attributes;
    config.numAttrs = 2;
  }
};

}  // namespace

template <class T>
void launch_cluster_sweep_y(dim3 grid, dim3 block, std::size_t shared_bytes, cudaStream_t stream, int columns,
                            const SweepView<T>& view, const SweepConstants<T>& constants, T* zeta_out,
                            T* flux_out, int n_along, int lines) {
  ClusterLaunch launch(grid, block, shared_bytes, stream, columns);
  with_cluster_columns<T>(columns, [&](auto kernel) {
    check(cudaLaunchKernelEx(&launch.config, kernel, view, constants, zeta_out, flux_out, n_along, lines),
          "sweep-y (cudaLaunchKernelEx, clusters of " + std::to_string(columns) + ")");
  });
  check_launch("sweep-y");
}

template <class T>
int prepare_cluster_sweep_y(int columns, dim3 grid, dim3 block, std::size_t shared_bytes) {
  const void* kernel = cluster_sweep_y_function<T>(columns);
  if (shared_bytes > 48 * 1024)
    check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared_bytes)),
          "cudaFuncSetAttribute(MaxDynamicSharedMemorySize)");
  if (columns > kClusterColumnsNarrow)  // above 8, the largest portable cluster size
    check(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1),
          "cudaFuncSetAttribute(NonPortableClusterSizeAllowed)");
  ClusterLaunch launch(grid, block, shared_bytes, nullptr, columns);
  int clusters = 0;
  check(cudaOccupancyMaxActiveClusters(&clusters, kernel, &launch.config), "cudaOccupancyMaxActiveClusters");
  return clusters;
}

#define WARPMODEL_ADI_CLUSTER_SWEEP(T)                                                                              \
  template const void* fused_cluster_sweep_x_function<T>();                                                        \
  template const void* cluster_sweep_y_function<T>(int);                                                            \
  template void launch_fused_cluster_sweep_x<T>(dim3, dim3, std::size_t, cudaStream_t, const SweepView<T>&,         \
                                                const SweepConstants<T>&, T*, T*, int, int, int);                   \
  template void launch_cluster_sweep_y<T>(dim3, dim3, std::size_t, cudaStream_t, int, const SweepView<T>&,          \
                                          const SweepConstants<T>&, T*, T*, int, int);                              \
  template int prepare_cluster_sweep_y<T>(int, dim3, dim3, std::size_t);
WARPMODEL_ADI_CLUSTER_SWEEP(float)
WARPMODEL_ADI_CLUSTER_SWEEP(double)
#undef WARPMODEL_ADI_CLUSTER_SWEEP

}  // namespace warpmodel::adi::gpu
