#include "emulator.hpp"

#include <ucontext.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <vector>

namespace warpmodel::stencils::emu {
namespace {

struct Buffer {
  const char* begin;
  std::size_t bytes;
  bool writable;
};
std::vector<Buffer>& buffers() {
  static std::vector<Buffer> list;
  return list;
}

struct Copy {
  void* dst;
  const void* src;
  std::size_t bytes;
  bool valid;
};
struct BoxCopy {
  void* dst;
  TensorMap map;
  int x, y, z;
};
struct MBarrier {
  unsigned expected = 0, arrivals = 0;
  unsigned completed_phases = 0;
  long long expected_bytes = 0, issued_bytes = 0;
  std::vector<BoxCopy> pending;
};

enum class State { ready, at_barrier, yielded, done };

// Fiber stacks, kept between launches (allocating and clearing 64 KiB per thread and launch
// dominated the emulation's time).
constexpr std::size_t kStackBytes = 64 * 1024;
std::vector<std::unique_ptr<char[]>>& stack_pool() {
  thread_local std::vector<std::unique_ptr<char[]>> pool;
  return pool;
}

struct Fiber {
  ucontext_t context{};
  char* stack = nullptr;
  ThreadView view;
  State state = State::ready;
  std::vector<Copy> open_group;
  std::deque<std::vector<Copy>> groups;
  std::string error;
};

struct BlockRun {
  std::vector<Fiber> fibers;
  char* shared = nullptr;
  std::size_t shared_bytes = 0;
  std::map<unsigned long long*, MBarrier> mbarriers;
  ucontext_t scheduler{};
  Fiber* current = nullptr;
  bool fibers_enabled = false;
  const std::function<void()>* body = nullptr;
};

thread_local BlockRun* g_run = nullptr;

BlockRun& run() {
  if (!g_run || !g_run->current) throw EmulationError("emulated device function called outside a kernel");
  return *g_run;
}
Fiber& me() { return *run().current; }

std::string where() {
  const ThreadView& v = me().view;
  return " (block " + std::to_string(v.block.x) + "," + std::to_string(v.block.y) + "," + std::to_string(v.block.z) +
         ", thread " + std::to_string(v.thread.x) + "," + std::to_string(v.thread.y) + "," +
         std::to_string(v.thread.z) + ")";
}

void check_shared(const void* p, std::size_t bytes) {
  const char* c = static_cast<const char*>(p);
  BlockRun& r = run();
  if (c < r.shared || c + bytes > r.shared + r.shared_bytes)
    throw EmulationError("shared-memory access outside the block's " + std::to_string(r.shared_bytes) + " bytes" +
                         where());
}

void yield(State state) {
  BlockRun& r = run();
  if (!r.fibers_enabled)
    throw EmulationError("barrier or wait in a kernel launched without barriers (uses_barriers = false)" + where());
  Fiber& f = me();
  f.state = state;
  swapcontext(&f.context, &r.scheduler);
}

void fiber_main() {
  BlockRun& r = *g_run;
  Fiber& f = *r.current;
  try {
    (*r.body)();
  } catch (const std::exception& e) {
    f.error = e.what();
  } catch (...) {
    f.error = "unknown exception";
  }
  f.state = State::done;
}  // returns to uc_link: the scheduler

void perform(const Copy& c) {
  if (c.valid)
    std::memcpy(c.dst, c.src, c.bytes);
  else
    std::memset(c.dst, 0, c.bytes);
}

void perform(const BoxCopy& c) {
  float* dst = static_cast<float*>(c.dst);
  const TensorMap& m = c.map;
  for (int bz = 0; bz < m.box[2]; ++bz)
    for (int by = 0; by < m.box[1]; ++by)
      for (int bx = 0; bx < m.box[0]; ++bx) {
        const long long x = c.x + bx, y = c.y + by, z = c.z + bz;
        const bool inside = x >= 0 && x < m.size[0] && y >= 0 && y < m.size[1] && z >= 0 && z < m.size[2];
        float v = 0.0f;  // the copy engine fills outside the tensor with zeros
        if (inside) {
          const float* src = m.base + x * m.stride[0] + y * m.stride[1] + z * m.stride[2];
          check_global(src, sizeof(float), false);
          v = *src;
        }
        *dst++ = v;
      }
}

void run_block(BlockRun& r, const LaunchConfig& cfg, std::mt19937& rng) {
  const std::size_t n = r.fibers.size();
  for (auto& f : r.fibers) {
    f.state = State::ready;
    f.error.clear();
    f.open_group.clear();
    f.groups.clear();
  }
  r.mbarriers.clear();
  std::memset(r.shared, 0xff, r.shared_bytes);  // NaN everywhere: unwritten shared memory shows

  if (!cfg.uses_barriers) {
    for (auto& f : r.fibers) {
      r.current = &f;
      (*r.body)();
      r.current = nullptr;
    }
    return;
  }
  for (auto& f : r.fibers) {
    getcontext(&f.context);
    f.context.uc_stack.ss_sp = f.stack;
    f.context.uc_stack.ss_size = kStackBytes;
    f.context.uc_link = &r.scheduler;
    makecontext(&f.context, fiber_main, 0);
  }
  std::vector<std::size_t> order(n);
  int passes_without_progress = 0;
  while (true) {
    order.clear();
    for (std::size_t t = 0; t < n; ++t)
      if (r.fibers[t].state == State::ready || r.fibers[t].state == State::yielded) order.push_back(t);
    std::shuffle(order.begin(), order.end(), rng);
    bool progress = false;
    for (std::size_t t : order) {
      Fiber& f = r.fibers[t];
      r.current = &f;
      swapcontext(&r.scheduler, &f.context);
      r.current = nullptr;
      if (!f.error.empty()) {
        const ThreadView& v = f.view;
        throw EmulationError(f.error + " (block " + std::to_string(v.block.x) + "," + std::to_string(v.block.y) +
                             "," + std::to_string(v.block.z) + ", thread " + std::to_string(v.thread.x) + "," +
                             std::to_string(v.thread.y) + "," + std::to_string(v.thread.z) + ")");
      }
      if (f.state != State::yielded) progress = true;
    }
    std::size_t done = 0, waiting = 0, yielded = 0;
    for (const auto& f : r.fibers) {
      done += f.state == State::done;
      waiting += f.state == State::at_barrier;
      yielded += f.state == State::yielded;
    }
    if (done == n) break;
    if (yielded == 0) {
      if (done > 0)
        throw EmulationError("__syncthreads reached by " + std::to_string(waiting) + " threads of a block while " +
                             std::to_string(done) + " have exited");
      for (auto& f : r.fibers) f.state = State::ready;  // everyone arrived: release the barrier
      continue;
    }
    passes_without_progress = progress ? 0 : passes_without_progress + 1;
    if (passes_without_progress > 100000) throw EmulationError("deadlock: threads wait on mbarriers that never complete");
  }
  for (const auto& f : r.fibers)
    for (const auto& g : f.groups)
      if (!g.empty()) throw EmulationError("a thread exited with cp.async copies it never waited for");
  for (const auto& [bar, b] : r.mbarriers)
    if (!b.pending.empty()) throw EmulationError("a block exited with bulk tensor copies nobody waited for");
}

}  // namespace

const ThreadView& current() { return me().view; }

void sync_block() { yield(State::at_barrier); }

void* shared_memory() { return run().shared; }

void check_global(const void* p, std::size_t bytes, bool write) {
  const char* c = static_cast<const char*>(p);
  for (const auto& b : buffers())
    if (c >= b.begin && c + bytes <= b.begin + b.bytes) {
      if (write && !b.writable) throw EmulationError("store to a buffer the kernel may only read" + where());
      return;
    }
  throw EmulationError(std::string(write ? "store" : "load") + " of " + std::to_string(bytes) +
                       " bytes outside every device buffer" + where());
}

void async_copy(void* shared_dst, const void* global_src, std::size_t bytes, bool valid) {
  check_shared(shared_dst, bytes);
  if (reinterpret_cast<std::uintptr_t>(shared_dst) % bytes != 0) throw EmulationError("misaligned cp.async destination" + where());
  if (valid) check_global(global_src, bytes, false);
  me().open_group.push_back({shared_dst, global_src, bytes, valid});
}

void async_commit() {
  Fiber& f = me();
  f.groups.push_back(std::move(f.open_group));
  f.open_group.clear();
}

void async_wait(int pending_allowed) {
  Fiber& f = me();
  while (static_cast<int>(f.groups.size()) > pending_allowed) {
    for (const Copy& c : f.groups.front()) perform(c);
    f.groups.pop_front();
  }
}

void mbarrier_init(unsigned long long* bar, unsigned arrivals) {
  check_shared(bar, sizeof *bar);
  MBarrier b;
  b.expected = arrivals;
  run().mbarriers[bar] = b;
}

void mbarrier_arrive_expect_bytes(unsigned long long* bar, unsigned bytes) {
  auto it = run().mbarriers.find(bar);
  if (it == run().mbarriers.end()) throw EmulationError("arrive on an uninitialised mbarrier" + where());
  it->second.expected_bytes += bytes;
  if (++it->second.arrivals > it->second.expected) throw EmulationError("more arrivals than the mbarrier expects" + where());
}

void mbarrier_wait(unsigned long long* bar, unsigned parity) {
  while (true) {
    auto it = run().mbarriers.find(bar);
    if (it == run().mbarriers.end()) throw EmulationError("wait on an uninitialised mbarrier" + where());
    MBarrier& b = it->second;
    if ((b.completed_phases & 1u) != (parity & 1u)) return;  // the phase with this parity has completed
    if (b.arrivals == b.expected && b.issued_bytes == b.expected_bytes) {
      for (const BoxCopy& c : b.pending) perform(c);
      b.pending.clear();
      b.arrivals = 0;
      b.expected_bytes = b.issued_bytes = 0;
      ++b.completed_phases;
      return;
    }
    if (b.arrivals == b.expected && b.issued_bytes > b.expected_bytes)
      throw EmulationError("bulk copies carry more bytes than the mbarrier expects" + where());
    yield(State::yielded);
  }
}

void tma_load_3d(void* shared_dst, const TensorMap& map, int x, int y, int z, unsigned long long* bar) {
  const std::size_t bytes = std::size_t(map.box[0]) * map.box[1] * map.box[2] * sizeof(float);
  check_shared(shared_dst, bytes);
  if ((static_cast<char*>(shared_dst) - run().shared) % 128 != 0)
    throw EmulationError("bulk tensor copy destination not 128-byte aligned" + where());
  if (map.box[0] > 256 || map.box[1] > 256 || map.box[2] > 256 || (map.box[0] * sizeof(float)) % 16 != 0)
    throw EmulationError("tensor map box exceeds the copy engine's limits" + where());
  auto it = run().mbarriers.find(bar);
  if (it == run().mbarriers.end()) throw EmulationError("bulk copy completing on an uninitialised mbarrier" + where());
  it->second.pending.push_back({shared_dst, map, x, y, z});
  it->second.issued_bytes += static_cast<long long>(bytes);
}

void register_buffer(const void* p, std::size_t bytes, bool writable) {
  for (auto& b : buffers())
    if (b.begin == p) {
      b.bytes = bytes, b.writable = writable;
      return;
    }
  buffers().push_back({static_cast<const char*>(p), bytes, writable});
}

void unregister_buffer(const void* p) {
  auto& list = buffers();
  list.erase(std::remove_if(list.begin(), list.end(), [&](const Buffer& b) { return b.begin == p; }), list.end());
}

void launch(const LaunchConfig& cfg, const std::function<void()>& body) {
  const std::size_t threads = std::size_t(cfg.block.x) * cfg.block.y * cfg.block.z;
  if (threads == 0 || threads > 1024) throw EmulationError("block of " + std::to_string(threads) + " threads");
  BlockRun r;
  r.body = &body;
  r.fibers_enabled = cfg.uses_barriers;
  r.fibers.resize(threads);
  if (cfg.uses_barriers) {
    auto& pool = stack_pool();
    while (pool.size() < threads) pool.push_back(std::unique_ptr<char[]>(new char[kStackBytes]));
    for (std::size_t t = 0; t < threads; ++t) r.fibers[t].stack = pool[t].get();
  }
  // 1024-byte aligned, like the start of a block's shared memory on the GPU.
  r.shared_bytes = cfg.shared_bytes;
  const std::size_t alloc = (std::max<std::size_t>(cfg.shared_bytes, 1) + 1023) / 1024 * 1024;
  std::unique_ptr<char, decltype(&std::free)> shared(static_cast<char*>(std::aligned_alloc(1024, alloc)), &std::free);
  r.shared = shared.get();
  std::mt19937 rng(cfg.shuffle_seed);
  BlockRun* const outer = g_run;
  g_run = &r;
  try {
    for (unsigned bz = 0; bz < cfg.grid.z; ++bz)
      for (unsigned by = 0; by < cfg.grid.y; ++by)
        for (unsigned bx = 0; bx < cfg.grid.x; ++bx) {
          std::size_t t = 0;
          for (unsigned tz = 0; tz < cfg.block.z; ++tz)
            for (unsigned ty = 0; ty < cfg.block.y; ++ty)
              for (unsigned tx = 0; tx < cfg.block.x; ++tx)
                r.fibers[t++].view = {{tx, ty, tz}, {bx, by, bz}, cfg.block, cfg.grid};
          run_block(r, cfg, rng);
        }
  } catch (...) {
    g_run = outer;
    throw;
  }
  g_run = outer;
}

}  // namespace warpmodel::stencils::emu
