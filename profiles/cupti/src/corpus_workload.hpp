// The kernel corpus (profiles/corpus, warpmodel_corpus_gpu) as a Workload: one launch per
// requested kernel, each a corpus workload of its own.
#pragma once

#include <memory>

#include "warpmodel/cupti/workload.hpp"
#include "warpmodel/cupti/workload_factory.hpp"

namespace warpmodel::cupti {

// --variant: corpus kernels, a list or all (default copy-f32); --size: a size label of each
// kernel, or small, medium, large (default small); --block XxY (default each kernel's first
// declared shape). Throws std::invalid_argument with one line naming the valid choices.
std::unique_ptr<Workload> make_corpus_request_workload(const WorkloadRequest& request);

}  // namespace warpmodel::cupti
