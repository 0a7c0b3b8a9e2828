// Kernel durations from CUPTI's Activity API (cupti_internal.hpp KernelTimer), and the CUDA
// context helper.
#include <cuda_runtime_api.h>
#include <cupti_activity.h>

#include <cstdlib>
#include <map>
#include <mutex>

#include "cupti_internal.hpp"
#include "warpmodel/support/cuda.hpp"
#include "warpmodel/cupti/profiler.hpp"

namespace warpmodel::cupti::detail {
namespace {

constexpr std::size_t kBufferBytes = 4u << 20;
constexpr std::size_t kRecordAlignment = 8;  // ACTIVITY_RECORD_ALIGNMENT in CUPTI's samples

// The process-wide store the buffer callbacks fill (they have no user pointer).
struct ActivityStore {
  std::mutex mutex;
  std::vector<KernelActivity> kernels;
  std::map<std::uint32_t, std::uint64_t> external_by_correlation;
  std::size_t dropped = 0;
};
ActivityStore& store() {
  static ActivityStore s;
  return s;
}

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(kRecordAlignment, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;  // as many as fit
}

void CUPTIAPI buffer_completed(CUcontext, std::uint32_t, std::uint8_t* buffer, std::size_t, std::size_t valid) {
  ActivityStore& s = store();
  std::lock_guard<std::mutex> lock(s.mutex);
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || record->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      KernelActivity a;
      a.correlation_id = k->correlationId;
      a.name = k->name ? k->name : "";
      a.start_ns = k->start;
      a.end_ns = k->end;
      a.grid[0] = k->gridX;
      a.grid[1] = k->gridY;
      a.grid[2] = k->gridZ;
      a.block[0] = k->blockX;
      a.block[1] = k->blockY;
      a.block[2] = k->blockZ;
      a.cluster[0] = static_cast<int>(k->clusterX);
      a.cluster[1] = static_cast<int>(k->clusterY);
      a.cluster[2] = static_cast<int>(k->clusterZ);
      a.registers_per_thread = k->registersPerThread;
      a.static_shared_bytes = k->staticSharedMemory;
      a.dynamic_shared_bytes = k->dynamicSharedMemory;
      s.kernels.push_back(std::move(a));
    } else if (record->kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) {
      const auto* e = reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(record);
      if (e->externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0)
        s.external_by_correlation[e->correlationId] = e->externalId;
    }
  }
  std::size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped) == CUPTI_SUCCESS) s.dropped += dropped;
  std::free(buffer);
}

constexpr CUpti_ActivityKind kKinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_RUNTIME,
                                         CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION};

}  // namespace

KernelTimer::KernelTimer() {
  static const bool registered = [] {
    check(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed), "cuptiActivityRegisterCallbacks");
    return true;
  }();
  (void)registered;
  {
    std::lock_guard<std::mutex> lock(store().mutex);
    store().kernels.clear();
    store().external_by_correlation.clear();
    store().dropped = 0;
  }
  for (auto kind : kKinds) check(cuptiActivityEnable(kind), "cuptiActivityEnable");
}

KernelTimer::~KernelTimer() {
  for (auto kind : kKinds) cuptiActivityDisable(kind);
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}

void KernelTimer::push(std::uint64_t id) {
  check(cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, id),
        "cuptiActivityPushExternalCorrelationId");
}

void KernelTimer::pop() {
  std::uint64_t last = 0;
  check(cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &last),
        "cuptiActivityPopExternalCorrelationId");
}

std::vector<KernelActivity> KernelTimer::collect() {
  support::cuda::check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  check(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll");
  ActivityStore& s = store();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.dropped)
    throw CuptiError("the Activity API dropped " + std::to_string(s.dropped) +
                     " records (its buffers were full); kernel durations would be incomplete");
  std::vector<KernelActivity> out = s.kernels;
  for (auto& k : out) {
    const auto it = s.external_by_correlation.find(k.correlation_id);
    k.external_id = it == s.external_by_correlation.end() ? 0 : it->second;
  }
  return out;
}

CUcontext current_context(int device) {
  const int count = support::cuda::require_gpu();
  if (device < 0 || device >= count)
    throw support::cuda::NoGpuError("no GPU " + std::to_string(device) + ": the CUDA runtime sees " + std::to_string(count));
  support::cuda::check(cudaSetDevice(device), "cudaSetDevice");
  support::cuda::check(cudaFree(nullptr), "cudaFree(0) (creating the context)");
  using GetCurrent = CUresult (*)(CUcontext*);
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found{};
  support::cuda::check(cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn, 12000, cudaEnableDefault, &found),
             "cudaGetDriverEntryPointByVersion(cuCtxGetCurrent)");
  if (!fn || found != cudaDriverEntryPointSuccess) throw std::runtime_error("the driver has no cuCtxGetCurrent");
  CUcontext ctx = nullptr;
  if (reinterpret_cast<GetCurrent>(fn)(&ctx) != CUDA_SUCCESS || !ctx)
    throw std::runtime_error("cuCtxGetCurrent gave no context for device " + std::to_string(device));
  return ctx;
}

}  // namespace warpmodel::cupti::detail
