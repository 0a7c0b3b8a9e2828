#!/usr/bin/env bash
# The whole test suite (docs/testing.md), in three stages, each announced with its time:
#   1. setup: installs what is missing and builds build/ (nothing to do after scripts/run.sh);
#   2. ctest over build/, every label (tests labelled gpu exit 77 without a GPU: ctest lists them
#      as skipped); the SASS dumps the tests share are cached in build/sass-cache;
#   3. the code that reads input, again under AddressSanitizer + UndefinedBehaviorSanitizer
#      (build-sanitize/, no CUDA): the program and its CLI tests, the mutation fuzz of every reader
#      among them (label cli).
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
stage() { echo "test: [$(( $(date +%s) - start )) s] $*"; }

stage "setup and build (scripts/setup.sh)"
scripts/setup.sh
export WARPMODEL_SASS_CACHE="$PWD/build/sass-cache"
stage "ctest over build/ on $(nproc) cores"
ctest --test-dir build --output-on-failure -j"$(nproc)"

stage "ASan + UBSan build of warpmodel and its CLI tests (build-sanitize/, log build-sanitize.log)"
# -O0 -g1 (line tables: reports still name file and line): the 73 translation units compile in about
# 60 % of the time -O1 takes, and the fuzz under the sanitizers still runs in about a minute.
launcher_flags=()
command -v ccache >/dev/null && launcher_flags=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B build-sanitize "${launcher_flags[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O0 -g1 -DNDEBUG" \
  -DWARPMODEL_ENABLE_CUDA=OFF \
  -DWARPMODEL_BUILD_BENCHMARKS=OFF -DWARPMODEL_SANITIZE=ON >build-sanitize.log 2>&1 || { cat build-sanitize.log; exit 1; }
cmake --build build-sanitize -j"$(nproc)" --target warpmodel test_cli >>build-sanitize.log 2>&1 ||
  { tail -50 build-sanitize.log; exit 1; }
stage "the readers under ASan + UBSan (ctest -L cli in build-sanitize/)"
ASAN_OPTIONS=abort_on_error=1:detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-sanitize --output-on-failure -j"$(nproc)" -L cli
stage "all passed"
