#!/usr/bin/env bash
# The ADI solver on a GPU machine, in one run: build the ADI targets and warpmodel; run the gpu tests;
# compute-sanitizer memcheck and racecheck on every ADI and batched kernel (small sizes); bench_adi;
# bench_tridiagonal; `warpmodel run-adi` once; the reports. Outputs go to $OUT (at most 8 files) or
# to $TMPDIR/adi-device-run:
#   adi.json tridiagonal.json run_adi.json adi_provenance.txt logs.tgz adi.md tridiagonal.md
#   [WARPMODEL_GIT_COMMIT=abc1234] scripts/adi_device_run.sh [full|quick|adi]
#   adi mode only: ADI_PREBUILT_DIR=dir (test_adi_gpu and bench_adi built elsewhere, no build here),
#   SANITIZER_FILTER=gtest filter for the compute-sanitizer runs (default Sanitizer.*),
#   SANITIZER_TOOLS="memcheck racecheck" (empty: none), TEST_FILTER=gtest filter of the gpu tests,
#   BENCH_FILTER=--benchmark_filter of bench_adi (default: all)
#   quick: no benchmarks; adi: ADI solver only (tests, sanitizers, bench_adi; no CLI, no cuSPARSE)
set -uo pipefail
cd "$(dirname "$0")/.."
mode=${1:-full}
build=${BUILD_DIR:-build-adi-dev}
out=${OUT:-${TMPDIR:-/tmp}/adi-device-run}
mkdir -p "$out"
logs=$(mktemp -d)
t0=$(date +%s)
stamp() { echo "[$(( $(date +%s) - t0 )) s] $*"; }

# The caller may name the commit (a device copy of the tree can carry stale git metadata).
commit=${WARPMODEL_GIT_COMMIT:-}
if [ -z "$commit" ]; then
  commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
  git diff --quiet HEAD -- 2>/dev/null || commit="$commit+dirty"
fi
export WARPMODEL_GIT_COMMIT=$commit
export WARPMODEL_SM_CLOCK="$(nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,clocks.mem --format=csv,noheader 2>&1 | head -1)"
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "git commit: $commit"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
  nvcc --version 2>&1 | tail -2
  echo "script: scripts/adi_device_run.sh $mode"
} > "$out/adi_provenance.txt"
cat "$out/adi_provenance.txt"

bin=$build/tests/adi
bench_bin=$build/stencils/adi
if [ -n "${ADI_PREBUILT_DIR:-}" ] && [ "$mode" = adi ]; then
  # test_adi_gpu and bench_adi built elsewhere from the same tree (same nvcc, sm_90), carried along:
  # saves the device the build.
  bin=$ADI_PREBUILT_DIR
  bench_bin=$ADI_PREBUILT_DIR
  echo "binaries: prebuilt in $ADI_PREBUILT_DIR ($(cat "$ADI_PREBUILT_DIR/BUILT_FROM" 2>/dev/null))" | tee -a "$out/adi_provenance.txt"
else
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DWARPMODEL_ENABLE_CUDA=ON >"$logs/configure.log" 2>&1 \
    || { stamp "configure failed"; tail -20 "$logs/configure.log"; }
  adi_targets="test_adi_gpu test_cusparse_gpu bench_adi bench_tridiagonal test_adi_cpu"
  [ "$mode" = adi ] && adi_targets="test_adi_gpu bench_adi"
  cmake --build "$build" -j16 --target $adi_targets >"$logs/build_adi.log" 2>&1 \
    || { stamp "ADI build failed"; grep -E "error" "$logs/build_adi.log" | head -20; }
  stamp "ADI targets built"
fi
if [ "$mode" = adi ]; then
  cli_pid=
  timeout 90 "$bin/test_adi_gpu" \
    --gtest_filter="${TEST_FILTER:-Variants/AgainstCpu.*_64:Variants/AgainstCpu.*ThreadPerLine*:Variants/AgainstCpu.*Partitioned*:GpuSolver.*:Sanitizer.PartitionedSmall}" \
    >"$logs/test_adi_gpu.log" 2>&1; stamp "test_adi_gpu (filtered) exit $?"
  grep -E "thread-per-line|partitioned|FAILED|Failure|PASSED" "$logs/test_adi_gpu.log" | head -40
else
  # The CLI links every kernel family; build it beside the tests.
  (cmake --build "$build" -j12 --target warpmodel >"$logs/build_cli.log" 2>&1; echo "exit $?" >>"$logs/build_cli.log") &
  cli_pid=$!
  "$bin/test_adi_cpu" --gtest_brief=1 >"$logs/test_adi_cpu.log" 2>&1; stamp "test_adi_cpu exit $?"
  "$bin/test_adi_gpu" >"$logs/test_adi_gpu.log" 2>&1; rc=$?; stamp "test_adi_gpu exit $rc"
  grep -E "max \|gpu - cpu\||FAILED|Failure|PASSED" "$logs/test_adi_gpu.log" | head -60
  "$bin/test_cusparse_gpu" >"$logs/test_cusparse_gpu.log" 2>&1; stamp "test_cusparse_gpu exit $?"
  grep -E "FAILED|Failure|PASSED" "$logs/test_cusparse_gpu.log" | head
fi

for tool in ${SANITIZER_TOOLS-memcheck racecheck}; do
  timeout "${SANITIZER_TIMEOUT:-240}" compute-sanitizer --tool $tool --error-exitcode 9 "$bin/test_adi_gpu" \
    --gtest_filter="${SANITIZER_FILTER:-Sanitizer.*}" \
    >"$logs/sanitizer_$tool.log" 2>&1
  stamp "compute-sanitizer $tool exit $? ($(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$logs/sanitizer_$tool.log" | tr '\n' ' '))"
done

if [ "$mode" = full ] || [ "$mode" = adi ]; then
  timeout 150 "$bench_bin/bench_adi" ${BENCH_FILTER:+--benchmark_filter="$BENCH_FILTER"} \
    --benchmark_out="$out/adi.json" --benchmark_out_format=json \
    >"$logs/bench_adi.txt" 2>&1; stamp "bench_adi exit $?"
  grep -E "copy/|/2048/|/1024/step" "$logs/bench_adi.txt" | head -40
fi

[ -n "$cli_pid" ] && wait $cli_pid && tail -1 "$logs/build_cli.log"
if [ -n "$cli_pid" ] && [ -x "$build/cli/warpmodel" ]; then
  "$build/cli/warpmodel" run-adi --size 2048 --steps 100 --variant thread-per-line --precision double \
    -o "$out/run_adi.json" 2>&1 | tee "$logs/run_adi.txt"; stamp "run-adi exit ${PIPESTATUS[0]}"
  "$build/cli/warpmodel" run-adi --size 256 --steps 100 --variant block-per-line --solver cr-pcr --precision double \
    --check 2>&1 | tee "$logs/run_adi_check.txt" | tail -4; stamp "run-adi --check exit ${PIPESTATUS[0]}"
elif [ -n "$cli_pid" ]; then
  grep -E "error" "$logs/build_cli.log" | head -10
fi

if [ "$mode" = full ]; then
  # Last: the longest stage, and the one a short call can lose.
  timeout 240 "$build/stencils/adi/bench_tridiagonal" --benchmark_out="$out/tridiagonal.json" \
    --benchmark_out_format=json >"$logs/bench_tridiagonal.txt" 2>&1; stamp "bench_tridiagonal exit $?"
  grep -E "ERROR|error" "$logs/bench_tridiagonal.txt" | head
fi

if [ -f "$out/adi.json" ]; then
  extra=(); [ -f "$out/run_adi.json" ] && extra+=(--run "$out/run_adi.json")
  [ -f "$out/tridiagonal.json" ] && extra+=(--tridiagonal "$out/tridiagonal.json")
  python3 scripts/adi_report.py --adi "$out/adi.json" "${extra[@]}" \
    --provenance "$out/adi_provenance.txt" --out "$logs/report" >/dev/null 2>&1 && cp "$logs/report/"*.md "$out/"
  grep -E "% of copy|^\| (double|single)" "$out/adi.md" "$out/tridiagonal.md" 2>/dev/null | head -50
fi
grep -E "ptxas info    : (Used|Compiling)|spill" "$logs/build_adi.log" >"$logs/ptxas.txt" 2>/dev/null
tar czf "$out/logs.tgz" -C "$logs" .
stamp "done"
