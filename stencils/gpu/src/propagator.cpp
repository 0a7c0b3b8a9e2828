#include "warpmodel/stencils/gpu/propagator.hpp"
#include "warpmodel/support/cuda.hpp"
#include "warpmodel/support/statistics.hpp"

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>

#include "step_params.hpp"

namespace warpmodel::stencils::gpu {

// One per variant family, each in its own translation unit (src/kernels_*.cu).
void add_naive_kernels(std::vector<KernelEntry>& table);
void add_readonly_kernels(std::vector<KernelEntry>& table);
void add_shared_kernels(std::vector<KernelEntry>& table);
void add_intz_kernels(std::vector<KernelEntry>& table);
void add_intz_reg_kernels(std::vector<KernelEntry>& table);

namespace {

using support::cuda::check;
using support::cuda::CudaError;

const std::vector<KernelEntry>& kernel_table() {
  static const std::vector<KernelEntry> table = [] {
    std::vector<KernelEntry> t;
    add_naive_kernels(t);
    add_readonly_kernels(t);
    add_shared_kernels(t);
    add_intz_kernels(t);
    add_intz_reg_kernels(t);
    return t;
  }();
  return table;
}

KernelHandle handle_of(const KernelEntry& e) {
  KernelHandle h{e.function(), e.name, {}};
  const char* mangled = nullptr;
  if (cudaFuncGetName(&mangled, e.function()) == cudaSuccess && mangled) h.mangled_name = mangled;
  else cudaGetLastError();  // no device: leave the mangled name empty
  return h;
}

// Raises the kernel's dynamic shared-memory limit when it needs more than the default 48 KB, and
// gives intz-reg the largest shared-memory carveout (it reads nothing through L1 but its queue).
void configure_function(const KernelEntry& e, const LaunchGeometry& g) {
  if (g.dynamic_shared_bytes > 48 * 1024)
    check(cudaFuncSetAttribute(e.function(), cudaFuncAttributeMaxDynamicSharedMemorySize,
                               int(g.dynamic_shared_bytes)),
          "cudaFuncSetAttribute(MaxDynamicSharedMemorySize)");
  if (e.variant == Variant::intz_reg)
    check(cudaFuncSetAttribute(e.function(), cudaFuncAttributePreferredSharedMemoryCarveout,
                               cudaSharedmemCarveoutMaxShared),
          "cudaFuncSetAttribute(PreferredSharedMemoryCarveout)");
}

int occupancy(const KernelEntry& e, const LaunchGeometry& g) {
  configure_function(e, g);
  int blocks = 0;
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, e.function(), int(g.block.volume()),
                                                      g.dynamic_shared_bytes),
        "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  return blocks;
}

PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
  static const auto fn = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(
      support::cuda::driver_entry_point("cuTensorMapEncodeTiled", 12000));
  return fn;
}

CUtensorMap encode(const float* base, const TmaBoxes& b, const unsigned box[3]) {
  CUtensorMap map{};
  const cuuint64_t size[3] = {b.size[0], b.size[1], b.size[2]};
  const cuuint64_t stride[2] = {b.stride_bytes[0], b.stride_bytes[1]};
  const cuuint32_t box_dim[3] = {box[0], box[1], box[2]};
  const cuuint32_t element_stride[3] = {1, 1, 1};
  const CUresult r = tensor_map_encoder()(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 3, const_cast<float*>(base), size,
                                          stride, box_dim, element_stride, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                          CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                          CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) throw CudaError("cuTensorMapEncodeTiled failed with CUresult " + std::to_string(int(r)));
  return map;
}

double max_velocity(const std::vector<float>& v) {
  return v.empty() ? 0.0 : double(*std::max_element(v.begin(), v.end()));
}

}  // namespace

KernelHandle kernel_handle(Variant variant, int order, int pipeline_depth, IntzRegLoader loader) {
  StencilLaunch l;
  l.variant = variant, l.order = order, l.pipeline_depth = pipeline_depth, l.loader = loader;
  LaunchGeometry g;
  g.pipeline_depth = variant == Variant::intz_reg ? (pipeline_depth ? pipeline_depth : default_pipeline_depth(variant)) : 0;
  return handle_of(find_kernel(kernel_table(), l, g));
}

std::vector<KernelHandle> all_kernels() {
  std::vector<KernelHandle> out;
  for (const auto& e : kernel_table()) out.push_back(handle_of(e));
  return out;
}

DeviceLimits current_device_limits() {
  // cudaGetDeviceProperties takes milliseconds; every relaunch asks, so remember each device's answer.
  static std::mutex mutex;
  static std::map<int, DeviceLimits> known;
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = known.find(device); it != known.end()) return it->second;
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  DeviceLimits d;
  d.sm_count = prop.multiProcessorCount;
  d.max_shared_per_block = prop.sharedMemPerBlockOptin;
  d.max_threads_per_block = unsigned(prop.maxThreadsPerBlock);
  return known[device] = d;
}

int resident_blocks_per_sm(const StencilLaunch& launch) {
  const LaunchGeometry g = plan_block(launch, current_device_limits());
  return occupancy(find_kernel(kernel_table(), launch, g), g);
}

LaunchGeometry plan_launch(const StencilLaunch& launch) {
  const DeviceLimits limits = current_device_limits();
  const LaunchGeometry g = plan_block(launch, limits);
  return finish_geometry(launch, g, limits, occupancy(find_kernel(kernel_table(), launch, g), g));
}

struct DevicePropagator::Impl {
  float* pressure[3] = {nullptr, nullptr, nullptr};  // rotating p(n-1), p(n), p(n+1)
  float* vel2 = nullptr;
  int prev = 0, cur = 1, next = 2;
  std::size_t padded_floats = 0;
  const KernelEntry* kernel = nullptr;
  // TMA loader: per pressure buffer its tile and own maps, and vel2's own map.
  CUtensorMap tile_map[3]{}, own_map[3]{}, vel2_map{};

  ~Impl() {
    for (float* p : pressure) cudaFree(p);
    cudaFree(vel2);
  }
};

DevicePropagator::DevicePropagator(const PropagationSetup& setup, const std::vector<float>& velocity,
                                   StencilLaunch launch)
    : velocity_(velocity), impl_(std::make_unique<Impl>()) {
  PropagationSetup s = setup;
  s.order = launch.order;
  setup_ = validated(s, max_velocity(velocity_));
  if (velocity_.size() != setup_.grid.size()) throw std::invalid_argument("velocity model size does not match the grid");
  const std::size_t pitch = padded_pitch(setup_.grid.nx);
  impl_->padded_floats = pitch * setup_.grid.ny * setup_.grid.nz;
  const std::size_t bytes = impl_->padded_floats * sizeof(float);
  check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  for (float*& p : impl_->pressure) {
    check(cudaMalloc(&p, bytes), "cudaMalloc (pressure)");
    check(cudaMemsetAsync(p, 0, bytes, stream_), "cudaMemsetAsync");
  }
  check(cudaMalloc(&impl_->vel2, bytes), "cudaMalloc (vel2)");
  const std::vector<float> vel2 = velocity_term_padded(velocity_, setup_.grid, setup_.dt, pitch);
  upload(impl_->vel2, vel2, "vel2");
  relaunch(launch);
}

DevicePropagator::~DevicePropagator() {
  if (stream_) {
    cudaStreamSynchronize(stream_);
    cudaStreamDestroy(stream_);
  }
}

void DevicePropagator::relaunch(StencilLaunch launch) {
  launch.nx = setup_.grid.nx, launch.ny = setup_.grid.ny, launch.nz = setup_.grid.nz;
  PropagationSetup s = setup_;
  s.order = launch.order;
  s = validated(s, max_velocity(velocity_));  // same dt: refused if unstable at this order
  const LaunchGeometry g = plan_launch(launch);
  const KernelEntry& e = find_kernel(kernel_table(), launch, g);
  configure_function(e, g);
  if (e.tma) {
    const TmaBoxes boxes = tma_boxes(s, g);
    for (int b = 0; b < 3; ++b) {
      impl_->tile_map[b] = encode(impl_->pressure[b], boxes, boxes.tile_box);
      impl_->own_map[b] = encode(impl_->pressure[b], boxes, boxes.own_box);
    }
    impl_->vel2_map = encode(impl_->vel2, boxes, boxes.own_box);
  }
  setup_ = s;
  launch_ = launch;
  geometry_ = g;
  impl_->kernel = &e;
}

// Every host-to-device copy goes on the propagator's own stream and is waited for. A plain
// cudaMemcpy from pageable memory may return before its DMA has landed, and it runs on the legacy
// stream, which the non-blocking stream_ does not wait for: the first kernel then read the tail
// of a copy still in flight (the race hunt on the H200: step 1, the last planes, z chunks of one
// plane, both loaders; tests/stencils/test_gpu_propagator.cpp GpuRaceHunt).
void DevicePropagator::upload(float* device, const std::vector<float>& host, const char* what) {
  check(cudaMemcpyAsync(device, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice, stream_),
        (std::string("cudaMemcpyAsync (") + what + ")").c_str());
  check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (upload)");
}

void DevicePropagator::set_fields(const std::vector<float>& previous, const std::vector<float>& current) {
  upload(impl_->pressure[impl_->prev], to_padded(previous, setup_.grid, geometry_.pitch), "p(n-1)");
  upload(impl_->pressure[impl_->cur], to_padded(current, setup_.grid, geometry_.pitch), "p(n)");
}

void DevicePropagator::step() {
  Impl& m = *impl_;
  const StencilParams p = make_params(setup_, geometry_, m.pressure[m.prev], m.pressure[m.cur], m.vel2,
                                      m.pressure[m.next], source_amplitude(setup_, velocity_, steps_));
  const dim3 grid(geometry_.grid.x, geometry_.grid.y, geometry_.grid.z);
  const dim3 block(geometry_.block.x, geometry_.block.y, geometry_.block.z);
  if (m.kernel->tma) {
    TmaStencilParams t{};
    t.base = p;
    t.tile_cur = m.tile_map[m.cur];
    t.own_cur = m.own_map[m.cur];
    t.own_prev = m.own_map[m.prev];
    t.own_vel2 = m.vel2_map;
    void* args[] = {&t};
    check(cudaLaunchKernel(m.kernel->function(), grid, block, args, geometry_.dynamic_shared_bytes, stream_),
          "cudaLaunchKernel");
  } else {
    StencilParams q = p;
    void* args[] = {&q};
    check(cudaLaunchKernel(m.kernel->function(), grid, block, args, geometry_.dynamic_shared_bytes, stream_),
          "cudaLaunchKernel");
  }
  const int old_prev = m.prev;
  m.prev = m.cur, m.cur = m.next, m.next = old_prev;
  ++steps_;
}

void DevicePropagator::run(int steps) {
  for (int n = 0; n < steps; ++n) step();
  synchronize();
}

void DevicePropagator::synchronize() {
  check(cudaStreamSynchronize(stream_), "kernel execution (cudaStreamSynchronize)");
  check(cudaGetLastError(), "kernel execution");
}

std::vector<float> DevicePropagator::pressure() const {
  std::vector<float> padded(impl_->padded_floats);
  check(cudaMemcpyAsync(padded.data(), impl_->pressure[impl_->cur], padded.size() * sizeof(float),
                        cudaMemcpyDeviceToHost, stream_),
        "cudaMemcpyAsync (pressure)");
  check(cudaStreamSynchronize(stream_), "kernel execution or copy (cudaStreamSynchronize)");
  return from_padded(padded, setup_.grid, geometry_.pitch);
}

void DevicePropagator::sample_to(std::size_t i, std::size_t j, std::size_t k, float* device_destination) {
  const Grid& g = setup_.grid;
  if (i >= g.nx || j >= g.ny || k >= g.nz) throw std::invalid_argument("sample point outside the grid");
  const float* src = impl_->pressure[impl_->cur] + (k * g.ny + j) * geometry_.pitch + i;
  check(cudaMemcpyAsync(device_destination, src, sizeof(float), cudaMemcpyDeviceToDevice, stream_),
        "cudaMemcpyAsync (sample)");
}

void DevicePropagator::poison_next() {
  check(cudaMemsetAsync(impl_->pressure[impl_->next], 0xff, impl_->padded_floats * sizeof(float), stream_),
        "cudaMemsetAsync (poison)");
}

KernelHandle DevicePropagator::kernel() const { return handle_of(*impl_->kernel); }

double time_device_copy_seconds(std::size_t bytes, int repetitions) {
  support::cuda::DeviceBuffer<std::byte> src(bytes), dst(bytes);
  support::cuda::Stream stream;
  support::cuda::EventPair events;
  check(cudaMemsetAsync(src.data(), 0x5a, bytes, stream.get()), "cudaMemsetAsync");
  check(cudaMemcpyAsync(dst.data(), src.data(), bytes, cudaMemcpyDeviceToDevice, stream.get()), "cudaMemcpyAsync (warm-up)");
  std::vector<double> seconds;
  for (int r = 0; r < std::max(repetitions, 1); ++r) {
    events.start(stream.get());
    check(cudaMemcpyAsync(dst.data(), src.data(), bytes, cudaMemcpyDeviceToDevice, stream.get()), "cudaMemcpyAsync");
    events.stop(stream.get());
    seconds.push_back(events.elapsed_seconds());
  }
  return support::median(seconds);
}

TimedRun run_timed(DevicePropagator& p, const RunOptions& o) {
  if (o.steps < 1) throw std::invalid_argument("run_timed: steps must be >= 1");
  support::cuda::DeviceBuffer<float> trace(o.receiver ? static_cast<std::size_t>(o.steps) : 0);
  std::vector<support::cuda::EventPair> events(static_cast<std::size_t>(o.steps));
  for (int s = 0; s < o.steps; ++s) {
    events[s].start(p.stream());
    p.step();
    events[s].stop(p.stream());
    if (o.receiver) p.sample_to(o.receiver->i, o.receiver->j, o.receiver->k, trace.data() + s);
    if (o.snapshot_every > 0 && (s + 1) % o.snapshot_every == 0 && o.on_snapshot) o.on_snapshot(s + 1, p.pressure());
  }
  p.synchronize();
  TimedRun r;
  for (auto& e : events) r.kernel_seconds += e.elapsed_seconds();
  if (o.receiver) r.receiver_samples = trace.download(p.stream());  // stream-ordered after the samples
  return r;
}

}  // namespace warpmodel::stencils::gpu
