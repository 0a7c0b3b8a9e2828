// The corpus kernels as CUPTI workloads (warpmodel_corpus_gpu; needs CUDA to run, not to build).
#pragma once

#include <memory>

#include "warpmodel/corpus/corpus.hpp"
#include "warpmodel/cupti/workload.hpp"

namespace warpmodel::corpus {

// One launch (launch_count() = 1) of `kernel` at `size` with block `shape`, on the grid
// corpus::grid() gives. setup() fills the inputs with deterministic random values on the device
// and poisons the outputs (0xFF bytes: NaN); restore_inputs() puts back what a launch changes in
// place (accumulated outputs, atomics' counters, FDTD fields); verify() compares the outputs with
// a double-precision reference (every output, or a fixed sample of at least 256 for large ones,
// plus a NaN scan of all of them) and returns "" or one line naming the kernel, the size, the
// shape and the first wrong output. Device memory stays below ~512 MB and is freed with the
// workload. No CUDA call happens before setup(). Throws std::invalid_argument when the shape
// cannot launch the kernel (corpus::shape_problem) or the grid exceeds the device's limits.
std::unique_ptr<cupti::Workload> make_corpus_workload(const KernelDecl& kernel, const Size& size, Shape shape);

}  // namespace warpmodel::corpus
