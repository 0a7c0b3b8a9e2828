// main() for GPU tests: with no usable GPU, print why and exit 77, which ctest reports as
// skipped (SKIP_RETURN_CODE), never as passed.
#include <cstdio>

#include <gtest/gtest.h>

#include "warpmodel/support/cuda.hpp"

int main(int argc, char** argv) {
  try {
    warpmodel::support::cuda::require_gpu();
  } catch (const warpmodel::support::cuda::NoGpuError& e) {
    std::printf("SKIPPED: %s\n", e.what());
    return 77;
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
