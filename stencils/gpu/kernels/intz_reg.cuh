// intz-reg: z internalised with the z neighbours in registers (seed 004 "int.z.reg",
// Micikevicius 2009), the x and y neighbours from a shared-memory tile of the current plane.
//
// Each thread owns 4 consecutive x points (one float4) of a 2D block and marches through the
// block's z range. Per plane it takes in one new float4 of p(n) (the plane R ahead, which enters
// the register queue), one of p(n-1) and one of vel2, and writes one of p(n+1): the 16 bytes per
// point the propagator must move. The tile (the block's plane of p(n) with x and y halos) is read
// from L2, where the blocks of the same wave, marching z together, have just brought it.
//
// Loads run `Depth` planes ahead into `Depth + 1` shared-memory stages, so several planes of
// loads are in flight per block without registers held for them. Two loaders:
//   tma:      one thread per block issues four bulk tensor copies per plane (tile, queue entry,
//             p(n-1), vel2); the copy engine zero-fills outside the arrays and completes an
//             mbarrier per stage. Almost no per-thread address arithmetic (the default).
//   cp-async: every thread copies its own 16-byte pieces and its share of the halo with cp.async
//             (LDGSTS); more integer work and registers per thread, no copy engine.
// Per plane k: wait for plane k's stage -> shift the queue (q[2R] <- plane k + R) and read
// p(n-1), vel2 -> block barrier -> issue plane k + Depth into the stage every thread finished
// reading at plane k - 1 -> compute plane k from the tile -> store. One barrier per plane.
#pragma once

#include "common.cuh"
#include "tma_params.hpp"

namespace warpmodel::stencils::gpu::kernels {

// Register cap per radius (the block shape stays a run-time choice, so __maxnreg__ rather than
// __launch_bounds__): the queue alone is 4 (2R + 1) registers. Uncapped, ptxas hoists every y
// load of the plane (194 registers at R = 8: 8 warps per SM). The caps are the smallest that keep
// the TMA kernels free of spills (ptxas -v, nvcc 13.0): 128 at R >= 5 (16 warps per SM with
// 256-thread blocks), 88 at R = 4 (20 warps with 128-thread blocks), 80 at R = 3 (24), 64 at R <= 2
// (32). The cp.async kernels spill 8 bytes at R = 4, depths 2 and 3.
constexpr int intz_reg_max_registers(int radius) { return radius <= 2 ? 64 : radius <= 3 ? 80 : radius <= 4 ? 88 : 128; }

constexpr int round_up_32(int n) { return (n + 31) / 32 * 32; }

// Shared-memory layout of one stage, in floats, each piece 128-byte aligned (the TMA needs it).
struct IntzRegStage {
  int tile_w, tile, own, size;  // tile row width, tile, one own-points array, whole stage
  WM_DEVICE IntzRegStage(int radius, int bx, int by) {
    const int r4 = intz_reg_x_halo(radius);
    tile_w = 4 * bx + 2 * r4;
    tile = round_up_32(tile_w * (by + 2 * radius));
    own = round_up_32(4 * bx * by);
    size = tile + 3 * own;  // tile, p(n) R planes ahead, p(n-1), vel2
  }
  // The thread's own float4 of the stage's p(n) R planes ahead (a = 0), p(n-1) (1) and vel2 (2).
  WM_DEVICE const float4& own_point(const float* stage, int array, int own_offset) const {
    return *reinterpret_cast<const float4*>(stage + tile + array * own + own_offset);
  }
};

// The register queue: q[m] holds p(n) at plane k - R + m while plane k is computed.
template <int R>
struct ZQueue {
  float q[2 * R + 1][4];
  WM_DEVICE void set(int m, const float4& v) { q[m][0] = v.x, q[m][1] = v.y, q[m][2] = v.z, q[m][3] = v.w; }
  WM_DEVICE void shift_in(const float4& v) {
    WM_UNROLL
    for (int m = 0; m < 2 * R; ++m) {
      WM_UNROLL
      for (int e = 0; e < 4; ++e) q[m][e] = q[m + 1][e];
    }
    set(2 * R, v);
  }
};

struct IntzRegThread;

template <int R>
WM_DEVICE void intz_reg_update(const StencilParams& p, const IntzRegThread& s, const ZQueue<R>& z, const float* t,
                               int tile_w, const float4& previous, const float4& vel2, int k);
// The part both loaders share: the thread's place, the chunk's planes, the Dirichlet planes.
struct IntzRegThread {
  int tx, ty, bx, by, i0, j0, i, j;
  bool active;     // owns 4 allocated points (padding included)
  int sy, sz;      // 32-bit offsets: plan_block keeps a grid below 2^30 points
  int column;      // offset of the thread's float4 within a plane
  int kb, ke;      // interior planes of this block's chunk: [kb, ke)
  int interior_lanes;  // bit e: point i + e is inside the Dirichlet layers in x and y
  int source_lane;     // e if the source is this thread's point i + e in x and y, else -1
  template <int R>
  WM_DEVICE static IntzRegThread make(const StencilParams& p) {
    IntzRegThread s;
    s.tx = int(thread_x()), s.ty = int(thread_y()), s.bx = int(block_dim_x()), s.by = int(block_dim_y());
    s.i0 = int(block_x()) * s.bx * 4, s.j0 = int(block_y()) * s.by;
    s.i = s.i0 + 4 * s.tx, s.j = s.j0 + s.ty;
    s.active = s.i < p.pitch && s.j < p.ny;
    s.sy = p.pitch, s.sz = p.pitch * p.ny;
    s.column = s.j * s.sy + s.i;
    const int k_begin = int(block_z()) * p.z_chunk;
    const int k_end = k_begin + p.z_chunk < p.nz ? k_begin + p.z_chunk : p.nz;
    s.kb = k_begin > R ? k_begin : R;
    s.ke = k_end < p.nz - R ? k_end : p.nz - R;
    s.interior_lanes = 0;
    for (int e = 0; e < 4; ++e)
      if (is_interior<R>(p, s.i + e, s.j, R)) s.interior_lanes |= 1 << e;
    s.source_lane = s.j == p.source_j && p.source_i >= s.i && p.source_i < s.i + 4 ? p.source_i - s.i : -1;
    if (s.active)
      for (int k = k_begin; k < k_end; ++k)
        if (k < s.kb || k >= s.ke)
          store_global(reinterpret_cast<float4*>(p.next + k * s.sz + s.column), make_float4(0.0f, 0.0f, 0.0f, 0.0f));
    return s;
  }
  // Before the first plane: q[1..2R] <- planes kb - R .. kb + R - 1 (read directly).
  template <int R>
  WM_DEVICE void fill_queue(const StencilParams& p, ZQueue<R>& z) const {
    WM_UNROLL
    for (int m = 1; m <= 2 * R; ++m)
      z.set(m, active ? load_readonly(reinterpret_cast<const float4*>(p.cur + (kb - R - 1 + m) * sz + column))
                      : make_float4(0.0f, 0.0f, 0.0f, 0.0f));
  }
};

// Computes and stores the thread's 4 points of plane k. `t` points at the thread's first point
// in the tile; the tile's centre float4 equals q[R] and is taken from the queue.
template <int R>
WM_DEVICE void intz_reg_update(const StencilParams& p, const IntzRegThread& s, const ZQueue<R>& z, const float* t,
                               int tile_w, const float4& previous, const float4& vel2, int k) {
  constexpr int R4 = intz_reg_x_halo(R), HX = R4 / 4;
  float xs[4 + 2 * R4];  // x window: tile floats t - R4 .. t + 3 + R4
  WM_UNROLL
  for (int m = 0; m <= 2 * HX; ++m) {
    const float4 v = m == HX ? make_float4(z.q[R][0], z.q[R][1], z.q[R][2], z.q[R][3])
                             : *reinterpret_cast<const float4*>(t - R4 + 4 * m);
    xs[4 * m] = v.x, xs[4 * m + 1] = v.y, xs[4 * m + 2] = v.z, xs[4 * m + 3] = v.w;
  }
  float sum[4];
  WM_UNROLL
  for (int e = 0; e < 4; ++e) sum[e] = p.weight[0] * z.q[R][e];
  WM_UNROLL
  for (int d = 1; d <= R; ++d) {
    const float4 up = *reinterpret_cast<const float4*>(t - d * tile_w);
    const float4 down = *reinterpret_cast<const float4*>(t + d * tile_w);
    const float u[4] = {up.x, up.y, up.z, up.w}, w[4] = {down.x, down.y, down.z, down.w};
    WM_UNROLL
    for (int e = 0; e < 4; ++e)
      sum[e] += p.weight[d] * (xs[R4 + e - d] + xs[R4 + e + d] + u[e] + w[e] + z.q[R - d][e] + z.q[R + d][e]);
  }
  const float pv[4] = {previous.x, previous.y, previous.z, previous.w};
  const float v2[4] = {vel2.x, vel2.y, vel2.z, vel2.w};
  // k is an interior plane here; the x/y test and the source's row and lane were settled once.
  const int source_lane = k == p.source_k ? s.source_lane : -1;
  float out[4];
  WM_UNROLL
  for (int e = 0; e < 4; ++e) {
    const float value = leapfrog(z.q[R][e], pv[e], v2[e], sum[e]) + (e == source_lane ? p.source_amplitude : 0.0f);
    out[e] = (s.interior_lanes >> e) & 1 ? value : 0.0f;
  }
  if (s.active)
    store_global(reinterpret_cast<float4*>(p.next + k * s.sz + s.column), make_float4(out[0], out[1], out[2], out[3]));
}


template <int R, int Depth>
WM_KERNEL void WM_MAX_REGISTERS(intz_reg_max_registers(R)) intz_reg_tma_kernel(const WM_GRID_CONSTANT TmaStencilParams args) {
  constexpr int R4 = intz_reg_x_halo(R), Stages = Depth + 1;
  const StencilParams& p = args.base;
  const IntzRegThread s = IntzRegThread::make<R>(p);
  if (s.kb >= s.ke) return;  // uniform over the block: no barrier follows
  const IntzRegStage layout(R, s.bx, s.by);
  // 128 bytes for the stages' mbarriers, then the stages, from a 128-byte aligned start.
  char* const raw = dynamic_shared<char>();
  char* const base = raw + ((128 - reinterpret_cast<unsigned long long>(raw) % 128) % 128);
  unsigned long long* const full = reinterpret_cast<unsigned long long*>(base);
  float* const stages = reinterpret_cast<float*>(base + 128);
  const bool producer = s.tx == 0 && s.ty == 0;
  const unsigned stage_bytes =
      4u * unsigned(layout.tile_w * (s.by + 2 * R) + 3 * 4 * s.bx * s.by);  // whole boxes, zero fill included
  if (producer) {
    for (int st = 0; st < Stages; ++st) mbarrier_init(full + st, 1);
    fence_mbarrier_init();
  }
  block_sync();
  const auto issue = [&](int g) {  // plane g into stage (g - kb) % Stages, by one thread
    if (!producer || g >= s.ke) return;
    const int st = (g - s.kb) % Stages;
    float* const dst = stages + st * layout.size;
    mbarrier_arrive_expect_bytes(full + st, stage_bytes);
    tma_load_3d(dst, &args.tile_cur, s.i0 - R4, s.j0 - R, g, full + st);
    tma_load_3d(dst + layout.tile, &args.own_cur, s.i0, s.j0, g + R, full + st);
    tma_load_3d(dst + layout.tile + layout.own, &args.own_prev, s.i0, s.j0, g, full + st);
    tma_load_3d(dst + layout.tile + 2 * layout.own, &args.own_vel2, s.i0, s.j0, g, full + st);
  };

  ZQueue<R> z;
  s.fill_queue<R>(p, z);
  for (int g = s.kb; g < s.kb + Depth; ++g) issue(g);
  const int own = 4 * (s.ty * s.bx + s.tx);
  const int tile_centre = (s.ty + R) * layout.tile_w + R4 + 4 * s.tx;
  int st = 0;
  unsigned parity = 0;
  for (int k = s.kb; k < s.ke; ++k) {
    mbarrier_wait(full + st, parity);
    const float* const stage = stages + st * layout.size;
    z.shift_in(layout.own_point(stage, 0, own));
    const float4 previous = layout.own_point(stage, 1, own), vel2 = layout.own_point(stage, 2, own);
    block_sync();
    issue(k + Depth);
    intz_reg_update<R>(p, s, z, stage + tile_centre, layout.tile_w, previous, vel2, k);
    if (++st == Stages) st = 0, parity ^= 1u;
  }
}

template <int R, int Depth>
WM_KERNEL void WM_MAX_REGISTERS(intz_reg_max_registers(R)) intz_reg_async_kernel(StencilParams p) {
  constexpr int R4 = intz_reg_x_halo(R), HX = R4 / 4, Stages = Depth + 1;
  const IntzRegThread s = IntzRegThread::make<R>(p);
  if (s.kb >= s.ke) return;  // uniform over the block: no barrier follows
  const IntzRegStage layout(R, s.bx, s.by);
  float* const stages = dynamic_shared<float>();
  const int own = 4 * (s.ty * s.bx + s.tx);
  const int tile_centre = (s.ty + R) * layout.tile_w + R4 + 4 * s.tx;

  // The group of plane g: this thread's pieces of plane g's tile halo, its p(n-1) and vel2, and
  // p(n) of plane g + R. The tile's centre is stored from the queue. Past the chunk's end an
  // empty group keeps the wait counts uniform.
  const auto issue = [&](int g) {
    if (g < s.ke) {
      float* const dst = stages + ((g - s.kb) % Stages) * layout.size;
      const float* const cur_g = p.cur + g * s.sz;
      const int at = g * s.sz + s.column;
      async_copy_16(dst + layout.tile + own, s.active ? p.cur + at + R * s.sz : p.cur, s.active);
      async_copy_16(dst + layout.tile + layout.own + own, s.active ? p.prev + at : p.prev, s.active);
      async_copy_16(dst + layout.tile + 2 * layout.own + own, s.active ? p.vel2 + at : p.vel2, s.active);
      const bool column_ok = s.i < p.pitch;
      // y halo: R rows above and below, this thread's columns; row h by thread row h (and, for
      // blocks shorter than R, h + by, h + 2 by, ...).
      for (int h = s.ty; h < R; h += s.by) {
        const int above = s.j0 - R + h, below = s.j0 + s.by + h;
        const bool a_ok = column_ok && above >= 0, b_ok = column_ok && below < p.ny;
        async_copy_16(dst + h * layout.tile_w + R4 + 4 * s.tx, a_ok ? cur_g + above * s.sy + s.i : p.cur, a_ok);
        async_copy_16(dst + (s.by + R + h) * layout.tile_w + R4 + 4 * s.tx, b_ok ? cur_g + below * s.sy + s.i : p.cur,
                      b_ok);
      }
      if (s.tx < HX) {  // x halo of this thread's row: HX float4s left and right
        const int left = s.i0 - R4 + 4 * s.tx, right = s.i0 + 4 * s.bx + 4 * s.tx;
        const bool l_ok = s.j < p.ny && left >= 0, r_ok = s.j < p.ny && right < p.pitch;
        async_copy_16(dst + (s.ty + R) * layout.tile_w + 4 * s.tx, l_ok ? cur_g + s.j * s.sy + left : p.cur, l_ok);
        async_copy_16(dst + (s.ty + R) * layout.tile_w + R4 + 4 * s.bx + 4 * s.tx,
                      r_ok ? cur_g + s.j * s.sy + right : p.cur, r_ok);
      }
    }
    async_commit();
  };

  ZQueue<R> z;
  s.fill_queue<R>(p, z);
  for (int g = s.kb; g < s.kb + Depth; ++g) issue(g);
  int st = 0;
  for (int k = s.kb; k < s.ke; ++k) {
    async_wait<Depth - 1>();  // this thread's group of plane k has landed
    float* const stage = stages + st * layout.size;
    z.shift_in(layout.own_point(stage, 0, own));
    const float4 previous = layout.own_point(stage, 1, own), vel2 = layout.own_point(stage, 2, own);
    *reinterpret_cast<float4*>(stage + tile_centre) = make_float4(z.q[R][0], z.q[R][1], z.q[R][2], z.q[R][3]);
    block_sync();
    issue(k + Depth);
    intz_reg_update<R>(p, s, z, stage + tile_centre, layout.tile_w, previous, vel2, k);
    if (++st == Stages) st = 0;
  }
  async_wait<0>();
}

}  // namespace warpmodel::stencils::gpu::kernels
