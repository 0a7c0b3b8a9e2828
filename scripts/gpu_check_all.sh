#!/usr/bin/env bash
# One run on a GPU machine: configure and build everything, run every gpu-labelled test, then the
# GPU subcommands once each (run-adi, run-stencil, profile), logging to $OUT (or ./gpu-check/).
#   OUT=/some/dir scripts/gpu_check_all.sh
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-gpu-check}; mkdir -p "$out"
build=${BUILD_DIR:-build-gpu-check}
log="$out/gpu-check.log"
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit: ${WARPMODEL_GIT_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv
  nvcc --version | tail -2
} >"$log" 2>&1
t0=$(date +%s)
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >"$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
cmake --build "$build" -j"$(nproc)" >"$out/build.log" 2>&1 || { grep -E "error" "$out/build.log" | head -30; exit 1; }
echo "build: $(( $(date +%s) - t0 )) s" | tee -a "$log"
echo "== ctest -L gpu" >>"$log"
ctest --test-dir "$build" -L gpu --output-on-failure -j1 >>"$log" 2>&1; echo "ctest -L gpu exit: $?" | tee -a "$log"
bin=$build/cli/warpmodel
run() { echo "== $*" >>"$log"; "$@" >>"$log" 2>&1; echo "exit: $?" >>"$log"; }
run "$bin" run-adi --size 2048 --steps 100 --variant thread-per-line --precision double
run "$bin" run-adi --size 1024 --steps 100 --variant block-per-line --solver cr-pcr --precision double --check
run "$bin" run-stencil --order 8 --variant intz-reg --size 512x512x512 --steps 100 --block 32x8x1
run "$bin" profile --kernel stencil --order 2 --variant naive --size 128 --metrics model --output "$out/profile-stencil"
run "$bin" profile --kernel corpus --variant all --size small --metrics model --output "$out/profile-corpus"
grep -E "tests passed|exit:|Skipped|Failed|\*\*\*" "$log" | tail -40
echo "total: $(( $(date +%s) - t0 )) s"
