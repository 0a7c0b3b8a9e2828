#!/usr/bin/env bash
# One call on a GPU machine: build, run the tests (gpu-labelled ones included), run
# `warpmodel characterize` twice (repeatability), and copy the outputs to $OUT (or results/).
#   scripts/ubench_device_run.sh            # outputs in results/h200 (run 1) and results/h200/run2
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-}
build=${BUILD_DIR:-build-dev}
t0=$(date +%s)
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DWARPMODEL_ENABLE_CUDA=ON >"$build.cfg.log" 2>&1 || { tail -30 "$build.cfg.log"; exit 1; }
cmake --build "$build" -j"$(nproc)" >"$build.log" 2>&1 || { grep -E "error" "$build.log" | head -30; exit 1; }
t1=$(date +%s); echo "build: $((t1 - t0)) s"
ctest --test-dir "$build" --output-on-failure -j8 2>&1 | tail -25
t2=$(date +%s); echo "ctest: $((t2 - t1)) s"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1 | head -3
bin=$build/cli/warpmodel
dir=results/h200
mkdir -p "$dir/run2"
for run in 1 2; do
  target=$dir; [ "$run" = 2 ] && target=$dir/run2
  s=$(date +%s%N)
  if [ "$run" = 1 ]; then "$bin" characterize 2>"$target/characterize.log"; else "$bin" characterize --output "$target" 2>"$target/characterize.log"; fi
  rc=$?; echo "characterize run $run: exit $rc in $(( ($(date +%s%N) - s) / 1000000 )) ms"
  tail -8 "$target/characterize.log"
done
"$bin" predict --device "$dir/device.json" --kernel model/data/stencil-order2-k40-thesis.kernel.json --model thesis-2016 2>&1 | tail -6
echo "predict exit: $?"
if [ -n "$out" ]; then
  cp "$dir/device.json" "$dir/ubench.csv" "$dir/ubench.md" "$dir/characterize.log" "$out/" 2>/dev/null
  mkdir -p "$out/run2"; cp "$dir/run2/ubench.md" "$dir/run2/device.json" "$dir/run2/characterize.log" "$out/run2/" 2>/dev/null
fi
echo "total: $(( $(date +%s) - t0 )) s"
