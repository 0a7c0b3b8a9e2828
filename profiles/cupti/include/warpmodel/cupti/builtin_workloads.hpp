// Small kernels with counts known in advance, to check the collector (GPU tests) and to probe what
// a counter counts (`warpmodel profile --kernel copy|saxpy|barrier`).
//
//   copy:    out[i] = in[i] for n floats, one element per thread, `copies` launches of the same
//            kernel on the same buffers. Per launch (n a multiple of the block, block a multiple of
//            32): warps launched = n/32; global load and store instructions = n/32 each; requests
//            = n/32 each; sectors = n/8 each (4 aligned bytes per lane, 32-byte sectors).
//   saxpy:   y = a*x + y in place: the inputs must be restored before every pass and run, and
//            verify() checks that y was updated exactly once from its initial value.
//   barrier: copy with `barriers` __syncthreads() between the load and the store, to see which
//            counter counts barrier instructions (warps x barriers more than copy).
#pragma once

#include <memory>

#include "warpmodel/cupti/workload.hpp"

namespace warpmodel::cupti {

std::unique_ptr<Workload> make_copy_workload(long long n, int block, int copies = 1);
std::unique_ptr<Workload> make_saxpy_workload(long long n, int block);
std::unique_ptr<Workload> make_barrier_workload(long long n, int block, int barriers);
// Declares one launch but launch(0) starts two kernels: the misdeclared workload the profiler
// must refuse rather than mis-attribute (GPU test).
std::unique_ptr<Workload> make_double_launch_workload(long long n, int block);

}  // namespace warpmodel::cupti
