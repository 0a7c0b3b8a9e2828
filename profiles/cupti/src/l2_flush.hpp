// Puts L2 in one known state before a measured pass: no dirty line (everything the workload or its
// restore wrote is written back to DRAM) and no line of any workload buffer (the kernel's first
// touch of each line misses). It reads, rather than writes, a buffer of kBufferL2Multiple x L2:
// reading evicts every resident line, writing the dirty ones back during the flush, and leaves
// only clean lines behind, so the measured kernel's dram__bytes_write counts its own stores alone.
// (Overwriting a buffer instead, as cudaMemset does, leaves L2 full of dirty lines that the kernel
// then evicts: up to an L2's worth of DRAM writes charged to the kernel, more or fewer from pass to
// pass.) Used before every user-replay pass (profile --range user --flush-l2) and before the
// launches of `profile --launch-only --flush-l2`, so that CUPTI and ncu (application replay) start
// every pass from the same cache state.
#pragma once

#include <cstddef>

namespace warpmodel::cupti::detail {

class L2Flusher {
 public:
  static constexpr std::size_t kBufferL2Multiple = 3;
  // Allocates and zeroes kBufferL2Multiple x l2_bytes on the current device. Throws
  // std::runtime_error for CUDA failures.
  explicit L2Flusher(std::size_t l2_bytes);
  ~L2Flusher();
  L2Flusher(const L2Flusher&) = delete;
  L2Flusher& operator=(const L2Flusher&) = delete;
  // Reads the whole buffer on the legacy default stream and waits for the device (every earlier
  // launch and copy has finished and its lines are written back before this returns).
  void flush();
  std::size_t buffer_bytes() const { return bytes_; }

 private:
  void* buffer_ = nullptr;
  unsigned long long* sink_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace warpmodel::cupti::detail
