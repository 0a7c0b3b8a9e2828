// How one time step of the acoustic propagator is launched on a GPU: the variants, their names,
// the block shape (a run-time parameter), and the geometry each variant derives from it (grid,
// dynamic shared memory, planes per block). Plain C++ (no CUDA): the CLI, the GPU library, the
// CPU emulation of the kernels and the CI tests share it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace warpmodel::stencils {

// The memory variants (seed 004 section 3, thesis listing 3.3).
enum class Variant {
  naive,     // one thread per point, every neighbour a plain global load (thesis listing 3.3)
  readonly,  // the same through the read-only data cache (const __restrict__ + __ldg)
  shared,    // a 2D shared-memory tile with halos per z-plane; z neighbours from global memory
  intz,      // z internalised: each thread marches through z; all neighbours through the read-only cache
  intz_reg,  // z internalised, z neighbours in registers, xy tile in shared memory (Micikevicius 2009)
};

struct VariantInfo {
  Variant variant;
  const char* name;         // as the CLI spells it
  const char* description;  // one line
  bool marches_z;           // the block covers a z range, not one point per thread in z
  int points_per_thread_x;  // 4 for intz-reg (one float4 per thread), else 1
};

const std::vector<VariantInfo>& variants();
const VariantInfo& variant_info(Variant v);
// Throws std::invalid_argument naming the valid variants.
Variant parse_variant(std::string_view name);
std::string variant_names();  // "naive, readonly, shared, intz, intz-reg"

// Spatial orders the kernels are instantiated for: 2, 4, ..., 16 (radius 1..8).
const std::vector<int>& gpu_orders();

// How intz-reg brings its planes into shared memory (see stencils/gpu/kernels/intz_reg.cuh).
enum class IntzRegLoader {
  tma,       // one thread per block issues bulk tensor copies (the copy engine), completing an mbarrier
  cp_async,  // every thread copies its own 16-byte pieces with cp.async
};
const char* loader_name(IntzRegLoader l);             // "tma", "cp-async"
IntzRegLoader parse_loader(std::string_view name);   // throws std::invalid_argument

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
  unsigned volume() const { return x * y * z; }
  // Spelled out (not defaulted): the kernels' .cu files, which include this header, build as C++17.
  friend bool operator==(const Dim3& a, const Dim3& b) { return a.x == b.x && a.y == b.y && a.z == b.z; }
};
std::string to_string(const Dim3& d);  // "32x4x1"
// "32x4x1", "32x4" (z = 1) or "32"; throws std::invalid_argument naming `what`.
Dim3 parse_dim3(std::string_view text, std::string_view what);

// What the caller chooses for one launch.
struct StencilLaunch {
  int order = 8;
  Variant variant = Variant::intz_reg;
  Dim3 block{32, 4, 1};  // threads; for intz-reg each thread covers 4 consecutive x points
  std::size_t nx = 0, ny = 0, nz = 0;
  int z_chunk = 0;         // intz, intz-reg: z planes per block (0: chosen from the occupancy)
  int pipeline_depth = 0;  // intz-reg: planes loaded ahead, 1..3 (0: the default, 2)
  IntzRegLoader loader = IntzRegLoader::tma;  // intz-reg only
  // Unused dynamic shared memory added to every block: caps the blocks resident per SM, so a
  // validation sweep can hold a kernel at 8, 16, 24 or 32 warps per SM (thesis tables 4.5-4.7).
  std::size_t occupancy_padding_bytes = 0;
};

// Device limits the plan checks against (from cudaGetDeviceProperties, or fixed in the emulation).
struct DeviceLimits {
  int sm_count = 132;
  std::size_t max_shared_per_block = 227 * 1024;  // opt-in maximum
  unsigned max_threads_per_block = 1024;
};

// What one step launches. All arrays share one layout: x rows padded to `pitch` floats (a
// multiple of 32, so every row starts on a 128-byte line and float4 loads are aligned), index
// (k * ny + j) * pitch + i.
struct LaunchGeometry {
  Dim3 grid, block;
  std::size_t dynamic_shared_bytes = 0;
  int z_chunk = 1;         // planes per block along z (1 for the one-point-per-thread variants)
  int pipeline_depth = 0;  // intz-reg only
  std::size_t pitch = 0;   // floats per padded x row
  int radius = 0;
};

std::size_t padded_pitch(std::size_t nx);
int default_pipeline_depth(Variant v);

// Checks the order, the block shape against the variant and the device, and returns the block,
// the dynamic shared memory and the pitch; grid and z_chunk are filled by finish_geometry.
// Throws std::invalid_argument with one line naming what is wrong.
LaunchGeometry plan_block(const StencilLaunch& launch, const DeviceLimits& limits);
// Completes the grid. For the z-marching variants, z_chunk = 0 picks the chunk length that
// minimises (waves of blocks) x (planes per block + radius), with a wave = sm_count x
// resident_blocks_per_sm: all blocks of a wave march z together, so halos come from L2.
LaunchGeometry finish_geometry(const StencilLaunch& launch, LaunchGeometry g, const DeviceLimits& limits,
                               int resident_blocks_per_sm);
int choose_z_chunk(std::size_t xy_blocks, std::size_t nz, int radius, std::size_t wave);

// Bytes the propagator must move per step at least: prev, cur and vel2 read once, next written once.
inline double effective_bytes_per_point() { return 16.0; }

}  // namespace warpmodel::stencils
