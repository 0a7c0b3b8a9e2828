#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds, runs every ctest test (tests labelled gpu
# report "skipped" on a machine without a GPU: they exit 77), then builds the model, the parsers,
# the CLI and their tests again with AddressSanitizer + UndefinedBehaviorSanitizer (no CUDA) and
# runs those tests, the mutation fuzz of the readers included, under them.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
scripts/setup.sh
ctest --test-dir build --output-on-failure -j"$(nproc)"

echo "test: ASan + UBSan build (build-sanitize/, no CUDA)"
# -O1 -g1 (line tables: reports still name file and line): the sanitized build took 722 s of a 1,460 s
# run at -O2 -g on a 2-core machine, and a translation unit compiles in half the time at -O1 -g1.
cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
  -DWARPMODEL_ENABLE_CUDA=OFF \
  -DWARPMODEL_BUILD_BENCHMARKS=OFF -DWARPMODEL_SANITIZE=ON >build-sanitize.log 2>&1 || { cat build-sanitize.log; exit 1; }
sanitized_targets=(warpmodel test_model test_cli test_sass test_ubench_core)
cmake --build build-sanitize -j"$(nproc)" --target "${sanitized_targets[@]}" >>build-sanitize.log 2>&1 ||
  { tail -50 build-sanitize.log; exit 1; }
ASAN_OPTIONS=abort_on_error=1:detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-sanitize --output-on-failure -j"$(nproc)" -L "model|cli|profiles|ubench"
echo "test: all passed in $(( $(date +%s) - start )) s"
