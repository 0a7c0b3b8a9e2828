#include "warpmodel/stencils/launch_plan.hpp"

#include <algorithm>
#include <charconv>
#include <limits>
#include <stdexcept>

#include "warpmodel/stencils/acoustic.hpp"

namespace warpmodel::stencils {
namespace {

std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

[[noreturn]] void bad(const std::string& what) { throw std::invalid_argument(what); }

}  // namespace

const std::vector<VariantInfo>& variants() {
  static const std::vector<VariantInfo> list = {
      {Variant::naive, "naive", "one thread per point, every neighbour a plain global load (thesis listing 3.3)",
       false, 1},
      {Variant::readonly, "readonly", "one thread per point, neighbours through the read-only cache (__ldg)", false,
       1},
      {Variant::shared, "shared", "2D shared-memory tile with halos per z-plane, z neighbours from global", false,
       1},
      {Variant::intz, "intz", "z internalised (each thread marches z), neighbours through the read-only cache", true,
       1},
      {Variant::intz_reg, "intz-reg",
       "z internalised, z neighbours in registers, xy tile in shared memory fed by cp.async, float4 per thread",
       true, 4},
  };
  return list;
}

const VariantInfo& variant_info(Variant v) {
  for (const auto& info : variants())
    if (info.variant == v) return info;
  bad("unknown variant enumerator");
}

std::string variant_names() {
  std::string s;
  for (const auto& info : variants()) s += (s.empty() ? "" : ", ") + std::string(info.name);
  return s;
}

Variant parse_variant(std::string_view name) {
  for (const auto& info : variants())
    if (name == info.name) return info.variant;
  bad("unknown variant '" + std::string(name) + "'; valid variants: " + variant_names());
}

const std::vector<int>& gpu_orders() {
  static const std::vector<int> orders = {2, 4, 6, 8, 10, 12, 14, 16};
  return orders;
}

const char* loader_name(IntzRegLoader l) { return l == IntzRegLoader::tma ? "tma" : "cp-async"; }

IntzRegLoader parse_loader(std::string_view name) {
  if (name == "tma") return IntzRegLoader::tma;
  if (name == "cp-async") return IntzRegLoader::cp_async;
  bad("unknown loader '" + std::string(name) + "'; valid loaders: tma, cp-async");
}

std::string to_string(const Dim3& d) {
  return std::to_string(d.x) + "x" + std::to_string(d.y) + "x" + std::to_string(d.z);
}

Dim3 parse_dim3(std::string_view text, std::string_view what) {
  unsigned v[3] = {1, 1, 1};
  int n = 0;
  std::size_t pos = 0;
  const auto fail = [&] {
    bad(std::string(what) + " '" + std::string(text) + "': expected positive integers as X, XxY or XxYxZ");
  };
  while (true) {
    if (n == 3) fail();
    const std::size_t end = std::min(text.find('x', pos), text.size());
    const std::string_view part = text.substr(pos, end - pos);
    unsigned value = 0;
    const auto r = std::from_chars(part.data(), part.data() + part.size(), value);
    if (part.empty() || r.ec != std::errc() || r.ptr != part.data() + part.size() || value == 0) fail();
    v[n++] = value;
    if (end == text.size()) break;
    pos = end + 1;
  }
  return {v[0], v[1], v[2]};
}

std::size_t padded_pitch(std::size_t nx) { return ceil_div(nx, 32) * 32; }

int default_pipeline_depth(Variant v) { return v == Variant::intz_reg ? 2 : 0; }

LaunchGeometry plan_block(const StencilLaunch& l, const DeviceLimits& limits) {
  if (!is_supported_order(l.order))
    bad("order " + std::to_string(l.order) + " is not supported; valid orders: 2, 4, 6, 8, 10, 12, 14, 16");
  const int r = l.order / 2;
  const std::size_t min_n = 2 * static_cast<std::size_t>(r) + 1;
  if (l.nx < min_n || l.ny < min_n || l.nz < min_n)
    bad("grid " + std::to_string(l.nx) + "x" + std::to_string(l.ny) + "x" + std::to_string(l.nz) +
        " is too small for order " + std::to_string(l.order) + " (each size must be at least " +
        std::to_string(min_n) + ")");
  if (l.nx * l.ny * l.nz > static_cast<std::size_t>(std::numeric_limits<int>::max()) / 2)
    bad("grid has too many points for one GPU array (at most 2^30)");
  const VariantInfo& info = variant_info(l.variant);
  const Dim3& b = l.block;
  const std::string name = std::string("variant ") + info.name + ": block " + to_string(b);
  if (b.x == 0 || b.y == 0 || b.z == 0) bad(name + " has a zero dimension");
  if (b.volume() > limits.max_threads_per_block || b.z > 64)
    bad(name + " has more than " + std::to_string(limits.max_threads_per_block) + " threads or z > 64");
  if (info.marches_z && b.z != 1) bad(name + ": this variant marches through z, so the block's z must be 1");
  if (l.z_chunk < 0) bad("z chunk must be >= 0 (0: automatic)");
  if (!info.marches_z && l.z_chunk > 1) bad(std::string("variant ") + info.name + " does not march z; --z-chunk applies to intz and intz-reg");

  LaunchGeometry g;
  g.block = b;
  g.radius = r;
  g.pitch = padded_pitch(l.nx);
  const std::size_t fl = sizeof(float);
  switch (l.variant) {
    case Variant::naive:
    case Variant::readonly:
    case Variant::intz:
      break;
    case Variant::shared:
      g.dynamic_shared_bytes = std::size_t(b.z) * (b.y + 2 * r) * (b.x + 2 * r) * fl;
      break;
    case Variant::intz_reg: {
      if (b.x < 2) bad(name + ": intz-reg needs block x >= 2 (the x halo is loaded by the first threads of a row)");
      const int depth = l.pipeline_depth == 0 ? default_pipeline_depth(l.variant) : l.pipeline_depth;
      if (depth < 1 || depth > 3) bad("pipeline depth must be 1, 2 or 3");
      g.pipeline_depth = depth;
      // Per stage (kernels/intz_reg.cuh, IntzRegStage): the tile, then p(n) R planes ahead, p(n-1)
      // and vel2 for the block's own points, each rounded up to 128 bytes.
      const std::size_t r4 = (r + 3) / 4 * 4;  // x halo rounded up to whole float4s
      const std::size_t tile_w = 4 * std::size_t(b.x) + 2 * r4;
      const auto round32 = [](std::size_t n) { return (n + 31) / 32 * 32; };
      const std::size_t stage = round32(tile_w * (b.y + 2 * r)) + 3 * round32(4 * std::size_t(b.x) * b.y);
      g.dynamic_shared_bytes = std::size_t(depth + 1) * stage * fl;
      if (l.loader == IntzRegLoader::tma) {
        // The copy engine's boxes are at most 256 elements per dimension.
        if (tile_w > 256 || b.y + 2 * r > 256)
          bad(name + ": the TMA tile box would be " + std::to_string(tile_w) + " x " + std::to_string(b.y + 2 * r) +
              " floats; at most 256 per side (block x <= " + std::to_string((256 - 2 * r4) / 4) +
              " at this order), or use --loader cp-async");
        g.dynamic_shared_bytes += 256;  // 128 for the stages' mbarriers, up to 128 to align the start
      }
      break;
    }
  }
  g.dynamic_shared_bytes += l.occupancy_padding_bytes;  // after the kernel's own layout: never touched
  if (l.variant != Variant::intz_reg && l.pipeline_depth != 0) bad("pipeline depth applies to intz-reg only");
  if (l.variant != Variant::intz_reg && l.loader != IntzRegLoader::tma) bad("the loader applies to intz-reg only");
  if (g.dynamic_shared_bytes > limits.max_shared_per_block)
    bad(name + " needs " + std::to_string(g.dynamic_shared_bytes) + " B of shared memory for order " +
        std::to_string(l.order) + "; the device allows " + std::to_string(limits.max_shared_per_block) +
        " B per block: use a smaller block");
  return g;
}

int choose_z_chunk(std::size_t xy_blocks, std::size_t nz, int radius, std::size_t wave) {
  wave = std::max<std::size_t>(wave, 1);
  std::size_t best_chunks = 1;
  double best_cost = std::numeric_limits<double>::max();
  for (std::size_t chunks = 1; chunks <= nz; ++chunks) {
    const std::size_t len = ceil_div(nz, chunks);
    if (ceil_div(nz, len) != chunks) continue;  // the same partition as a smaller count
    const double waves = static_cast<double>(ceil_div(xy_blocks * chunks, wave));
    const double cost = waves * static_cast<double>(len + radius);
    if (cost < best_cost - 1e-9) best_cost = cost, best_chunks = chunks;
  }
  return static_cast<int>(ceil_div(nz, best_chunks));
}

LaunchGeometry finish_geometry(const StencilLaunch& l, LaunchGeometry g, const DeviceLimits& limits,
                               int resident_blocks_per_sm) {
  const Dim3& b = g.block;
  const VariantInfo& info = variant_info(l.variant);
  if (!info.marches_z) {
    g.z_chunk = 1;
    g.grid = {unsigned(ceil_div(l.nx, b.x)), unsigned(ceil_div(l.ny, b.y)), unsigned(ceil_div(l.nz, b.z))};
  } else {
    const std::size_t points_x = std::size_t(b.x) * info.points_per_thread_x;
    const std::size_t gx = ceil_div(info.points_per_thread_x > 1 ? g.pitch : l.nx, points_x);
    const std::size_t gy = ceil_div(l.ny, b.y);
    if (resident_blocks_per_sm < 1)
      bad(std::string("variant ") + info.name + ": block " + to_string(b) + " cannot be resident on an SM for order " +
          std::to_string(l.order) + " (registers or shared memory): use a smaller block");
    g.z_chunk = l.z_chunk > 0 ? std::min<int>(l.z_chunk, int(l.nz))
                              : choose_z_chunk(gx * gy, l.nz, g.radius,
                                               std::size_t(limits.sm_count) * resident_blocks_per_sm);
    g.grid = {unsigned(gx), unsigned(gy), unsigned(ceil_div(l.nz, g.z_chunk))};
  }
  if (g.grid.y > 65535 || g.grid.z > 65535) bad("grid " + to_string(g.grid) + " exceeds the CUDA grid limits");
  return g;
}

}  // namespace warpmodel::stencils
