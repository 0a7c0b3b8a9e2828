#!/usr/bin/env bash
# One run on a GPU machine for the acoustic propagator: build the stencil targets,
# run the GPU tests, compute-sanitizer (memcheck, racecheck) over every kernel, bench_stencils,
# and run-stencil (the 512^3 demo, and a 100^3 run with snapshots and a receiver trace). Outputs
# go to $OUT (at most 8 files) or, without $OUT, to stencil-run/. Every step logs; a failing step
# does not stop the later ones.
#   WARPMODEL_GIT_COMMIT=<commit> scripts/stencil_device_run.sh [--quick]
#   --quick: bench only orders 2,8,16 at 512^3 (a re-check after a change)
#   --carried DIR: no build, no bench: the GPU tests (with the race hunt), synccheck and the
#                  snapshot run from test_stencils_gpu and warpmodel built elsewhere (DIR/tests/stencils,
#                  DIR/cli), each log copied to $OUT as soon as it exists
set -uo pipefail
cd "$(dirname "$0")/.."
quick=0
[ "${1:-}" = "--quick" ] && quick=1
if [ "${1:-}" = "--carried" ]; then
  dir=$2 out=${OUT:-stencil-run}
  mkdir -p "$out" stencil-run-work/snapshots
  t0=$(date +%s)
  { nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv,noheader; date -u; } | tee "$out/gpu.txt"
  "$dir/tests/stencils/test_stencils_gpu" >"$out/test_gpu_carried.log" 2>&1; echo "test_stencils_gpu exit $? ($(( $(date +%s) - t0 )) s)"
  grep -E "race hunt|FAILED|Failure" "$out/test_gpu_carried.log" | head -20
  "$dir/tests/stencils/test_stencils_gpu" --gtest_filter='Orders/GpuVariants.*:GpuDeterminism.*' --gtest_repeat=2 \
    >"$out/test_gpu_repeat.log" 2>&1; echo "repeat exit $? ($(( $(date +%s) - t0 )) s)"
  grep -E "FAILED|DIFFERS|first bad" "$out/test_gpu_repeat.log" | head -10
  timeout 30 compute-sanitizer --tool synccheck "$dir/tests/stencils/test_stencils_gpu" --gtest_filter='GpuSanitizerSweep.*' \
    >"$out/synccheck.log" 2>&1; echo "synccheck exit $?: $(grep -E 'ERROR SUMMARY' "$out/synccheck.log" | tail -1)"
  (cd stencil-run-work && "../$dir/cli/warpmodel" run-stencil --order 8 --variant intz-reg --size 100x100x100 \
    --block 16x8x1 --steps 450 --snapshot-every 150 --snapshot-dir snapshots --receiver 50,50,35 \
    --trace snapshots/trace.csv >snapshots/run_stencil.log 2>&1; echo "run-stencil exit $?"; cat snapshots/run_stencil.log)
  tar czf "$out/snapshots.tgz" -C stencil-run-work snapshots
  ls -la "$out"; echo "total $(( $(date +%s) - t0 )) s"
  exit 0
fi
out=${OUT:-stencil-run}
work=stencil-run-work
build=${BUILD_DIR:-build-dev-stencil}
mkdir -p "$out" "$work/snapshots"
t0=$(date +%s)
deadline=$(( t0 + ${STENCIL_RUN_SECONDS:-560} ))  # the call's limit, less the packing at the end
stamp() { echo "[$(( $(date +%s) - t0 )) s] $*"; }

gpu_state() {  # name, driver, clocks (nvidia-smi), as JSON fields
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw \
    --format=csv,noheader 2>/dev/null | head -1
}
state_start=$(gpu_state)
stamp "GPU: $state_start"

cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DWARPMODEL_ENABLE_CUDA=ON -DWARPMODEL_PTXAS_VERBOSE=ON \
  >"$work/configure.log" 2>&1 || { tail -30 "$work/configure.log"; }
# The stencil targets first (their own log: ptxas registers and spills per kernel), the CLI last
# (it links every family's library; a failure there leaves the rest of the run intact).
cmake --build "$build" -j16 --target test_stencils_gpu bench_stencils test_stencils_cpu test_stencils_emulated \
  >"$work/build.log" 2>&1 || { grep -E "error" "$work/build.log" | head -30; }
cmake --build "$build" -j16 --target warpmodel test_run_stencil_cli >"$work/build-cli.log" 2>&1 || { grep -E "error" "$work/build-cli.log" | head -20; }
stamp "build done"
grep -E "registers|spill" "$work/build.log" | sed 's/ptxas info *: //' >"$work/ptxas.log"

tests=$build/tests/stencils
"$tests/test_stencils_cpu" --gtest_brief=1 >"$work/test_cpu.log" 2>&1; echo "test_stencils_cpu exit $?"
"$tests/test_stencils_emulated" --gtest_brief=1 >"$work/test_emulated.log" 2>&1; echo "test_stencils_emulated exit $?"
"$tests/test_run_stencil_cli" --gtest_brief=1 >"$work/test_cli.log" 2>&1; echo "test_run_stencil_cli exit $?"
"$tests/test_stencils_gpu" >"$work/test_gpu.log" 2>&1; rc=$?; echo "test_stencils_gpu exit $rc"
grep -E "^determinism:.*(DIFFERS|first bad)" "$work/test_gpu.log" | head -20
grep -E "FAILED|Failure|relative L2 [0-9.e+-]*$" "$work/test_gpu.log" | grep -vE "e-0[6-9]|e-1[0-9]" | head -20
ctest --test-dir "$build" -R "gpu.stencils" --output-on-failure >"$work/ctest_gpu.log" 2>&1; tail -3 "$work/ctest_gpu.log"
cp "$work/test_gpu.log" "$out/"  # what has finished comes back even if a later step runs out of time
stamp "tests done"


cli=$build/cli/warpmodel
demo_cmd="warpmodel run-stencil --order 8 --variant intz-reg --size 512x512x512 --steps 100 --block 32x8x1"
snap_cmd="warpmodel run-stencil --order 8 --variant intz-reg --size 100x100x100 --block 16x8x1 --steps 450 --snapshot-every 150 --snapshot-dir snapshots --receiver 50,50,35 --trace snapshots/trace.csv"
if [ -x "$cli" ]; then
  "$cli" run-stencil --order 8 --variant intz-reg --size 512x512x512 --steps 100 --block 32x8x1 \
    >"$work/run_stencil_512.log" 2>&1; echo "run-stencil 512 exit $?"; cat "$work/run_stencil_512.log"
  (cd "$work" && "../$cli" run-stencil --order 8 --variant intz-reg --size 100x100x100 --block 16x8x1 --steps 450 \
    --snapshot-every 150 --snapshot-dir snapshots --receiver 50,50,35 --trace snapshots/trace.csv \
    >run_stencil_snapshots.log 2>&1; echo "run-stencil snapshots exit $?"; cat run_stencil_snapshots.log)
  "$cli" run-stencil --variant tiled >"$work/run_stencil_bad.log" 2>&1; echo "bad variant exit $? ($(cat "$work/run_stencil_bad.log"))"
fi
stamp "run-stencil done"

bench_args=(--benchmark_repetitions=5 --benchmark_report_aggregates_only=true
            --benchmark_out="$out/stencils.json" --benchmark_out_format=json)
[ $quick = 1 ] && bench_args+=(--sizes=512 --orders=2,8,16)
"$build/stencils/gpu/bench_stencils" "${bench_args[@]}" >"$work/bench.log" 2>&1; echo "bench_stencils exit $?"
grep -E "copy/|n:512/order:(2|8|16)/variant:intz-reg/block:32x8x1/depth:2" "$work/bench.log" | head -12
stamp "bench done"



# Last: compute-sanitizer over every kernel (3 steps each), in the time that is left.
san_cmd="compute-sanitizer --tool TOOL --print-limit 50 $tests/test_stencils_gpu --gtest_filter=GpuSanitizerSweep.*:GpuDeterminism.*"
for tool in memcheck racecheck; do
  left=$(( deadline - $(date +%s) )); limit=$(( left / 2 < 180 ? left / 2 : 180 ))
  [ $limit -gt 90 ] && limit=90
  [ $limit -lt 20 ] && { echo "$tool skipped: no time left"; continue; }
  timeout $limit compute-sanitizer --tool $tool --print-limit 50 "$tests/test_stencils_gpu" \
    --gtest_filter='GpuSanitizerSweep.*:GpuDeterminism.*' >"$work/$tool.log" 2>&1
  echo "$tool exit $?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$work/$tool.log" | tail -1)"
done
stamp "sanitizer done"

# Where the time goes in the best guess at 512^3 (ncu, clocks left alone): orders 8 and 16.
if [ -x "$cli" ] && command -v ncu >/dev/null; then
  for order in 16 8; do
    left=$(( deadline - $(date +%s) - 20 )); [ $left -lt 30 ] && { echo "ncu order $order skipped: no time left"; continue; }
    timeout $left ncu --clock-control none -k regex:intz_reg_tma_kernel -s 3 -c 1 \
      --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section WarpStateStats \
      --section SchedulerStats --section LaunchStats \
      "$cli" run-stencil --order $order --variant intz-reg --size 512x512x512 --steps 5 --block 32x8x1 \
      >"$work/ncu_order$order.log" 2>&1
    echo "ncu order $order exit $?"
    grep -E "DRAM Throughput|Memory Throughput|L2 Cache Throughput|L1/TEX Cache Throughput|Achieved Occupancy|Issue Slots Busy|No Eligible|Registers Per|Duration" "$work/ncu_order$order.log" | head -12
  done
fi
stamp "ncu done"

state_end=$(gpu_state)
python3 - "$out/stencils.provenance.json" "$state_start" "$state_end" "$san_cmd" "$demo_cmd" "$snap_cmd" <<'EOF'
import json, subprocess, sys, datetime, os
path, start, end, san, demo, snap = sys.argv[1:]
def sh(c):
    try:
        return subprocess.run(c, shell=True, capture_output=True, text=True, timeout=30).stdout.strip()
    except Exception as e:
        return f"unavailable ({e})"
fields = ["name", "driver_version", "clocks.sm", "clocks.max.sm", "clocks.mem", "temperature.gpu", "power.draw"]
def parse(s):
    return dict(zip(fields, [x.strip() for x in s.split(",")]))
p = {
    "gpu": parse(start).get("name", "?"),
    "driver": parse(start).get("driver_version", "?"),
    "gpu_state_before": parse(start),
    "gpu_state_after": parse(end),
    "cuda": sh("nvcc --version | tail -2 | tr '\\n' ' '"),
    "compute_sanitizer": sh("compute-sanitizer --version | head -3 | tail -1"),
    "date_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    "commit": os.environ.get("WARPMODEL_GIT_COMMIT", "unknown"),
    "bench_command": "bench_stencils --benchmark_repetitions=5 --benchmark_report_aggregates_only=true "
                     "--benchmark_out=stencils.json --benchmark_out_format=json",
    "sanitizer_command": san,
    "run_stencil_commands": [demo, snap],
    "script": "scripts/stencil_device_run.sh",
}
with open(path, "w") as f:
    json.dump(p, f, indent=2)
EOF
# At most 8 files back: the bench JSON, its provenance, the logs, and the snapshots one per file.
cp "$work/memcheck.log" "$work/racecheck.log" "$out/" 2>/dev/null
tar czf "$out/logs.tgz" -C "$work" configure.log build.log build-cli.log ptxas.log test_cpu.log test_emulated.log \
  ctest_gpu.log test_cli.log bench.log run_stencil_512.log run_stencil_snapshots.log run_stencil_bad.log ncu_order8.log \
  ncu_order16.log 2>/dev/null
tar czf "$out/snapshots.tgz" -C "$work" snapshots 2>/dev/null
ls -la "$out"
stamp "total"
