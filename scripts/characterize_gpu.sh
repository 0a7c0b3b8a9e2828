#!/usr/bin/env bash
# Characterise the GPU of this machine end to end, in one command:
#
#   scripts/characterize_gpu.sh [--quick] [--force] [--other-gpu] [--only S1,S2] [--skip S1,S2] [OUTDIR]
#
# OUTDIR defaults to results/<gpu-slug> (the slug `warpmodel characterize` uses: "h200",
# "h100-80gb-hbm3"). Stages, in order (estimated GPU seconds, full / --quick):
#   build         configure and build warpmodel and the benchmarks            (150 / 150)
#   characterize  warpmodel characterize --only core: device.json, ubench.csv.xz/.md, plots ( 30 /  15)
#   energy        warpmodel characterize --only energy: energy per operation (pJ per  (125 / 125)
#                 FP32/FP64 op, shared, L2 and DRAM byte; static power) through NVML:
#                 energy-per-op.md and measurements.energy of device.json
#   tensor        warpmodel characterize --only tensor: tensor cores (mma.sync, wgmma, ( 60 /  40)
#                 sparse), TMA, clusters (DSMEM, barrier), async copies, cuBLASLt GEMM:
#                 tensor.md, tensor.csv.xz and their sections of device.json
#   validate      warpmodel validate --measure: the stencil, ADI and corpus   (420 /  60)
#                 sweep, validation tables and plots (VALIDATE_FAMILIES limits it)
#   stencils      bench_stencils + scripts/stencil_report.py                  (150 /  40)
#   adi           bench_adi (+ bench_tridiagonal), DRAM bytes per ADI step    (240 /  40)
#                 (warpmodel profile) + scripts/adi_report.py
#   app           the example application: profile -- APP, ncu, import-ncu,   ( 90 /  90)
#                 predict-app (scripts/app_example_device_run.sh)
#   profiler-floor  one small kernel timed by the Activity API and by the    ( 20 /  20)
#                 counter range (warpmodel profile --kernel copy): profiler-floor.json, whose
#                 difference `validate --from` stores as H.12b's counter-range overhead
#   report        README.md of OUTDIR: the one-page report of the GPU         (  5 /   5)
# and, only when named with --only: gpu-tests (ctest -L gpu), sanitizers (compute-sanitizer memcheck,
# racecheck and synccheck of the GPU tests named Sanitizer.*) and vs-ncu (the CUPTI-vs-Nsight-Compute
# test, its runs in cupti-vs-ncu-runs/ and cupti-vs-ncu.md) and repeatability (two more characterize
# runs back to back, compared latency by latency: repeatability.md).
#
# OUTDIR receives outputs only: every log goes to OUTDIR/.characterize/ (not committed). Each output a
# stage writes gets its record (GPU, UUID, driver, CUDA, SM clock, date, commit, command) in
# OUTDIR/provenance.json (scripts/provenance_index.py), and the run (its stages' status and time) joins
# the folder's short run history there.
# Resumable: each finished stage leaves OUTDIR/.characterize/<stage> with the commit and the GPU's
# UUID; a stage already done for the same commit and GPU is skipped unless --force. A failing stage
# is reported and the others still run; the exit status is non-zero when any stage failed.
# Progress on stderr: stage, elapsed time, estimate. Results of another card of the same model in
# OUTDIR (another UUID) are not overwritten silently: the script says so and the history records both
# UUIDs. A folder whose provenance names another GPU model is refused (exit 2, nothing written) unless
# --other-gpu: a machine asked for as one GPU model can come with another, and an H100's numbers must not land
# in results/h200/.
# Environment: WARPMODEL_BUILD_DIR (default build), WARPMODEL_GIT_COMMIT (the commit, where the copy's
# git metadata is stale), VALIDATE_FAMILIES (e.g. corpus: measure only those and keep the rest),
# VALIDATE_CORPUS_KERNELS (e.g. gemm-wmma-f16,gemm-mma-bf16: only those corpus kernels, the rest kept).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
root=$(pwd)

quick=0 force=0 other_gpu=0 only="" skip="" out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1 ;;
    --force) force=1 ;;
    --other-gpu) other_gpu=1 ;;
    --only) only=$2; shift ;;
    --skip) skip=$2; shift ;;
    -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
    -*) echo "characterize_gpu: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) out=$1 ;;
  esac
  shift
done
default_stages="build characterize energy tensor validate stencils adi app profiler-floor report"
all_stages="$default_stages gpu-tests sanitizers vs-ncu repeatability"
for s in ${only//,/ } ${skip//,/ }; do
  [[ " $all_stages " == *" $s "* ]] || { echo "characterize_gpu: unknown stage '$s' (known: $all_stages)" >&2; exit 2; }
done

command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 ||
  { echo "characterize_gpu: no NVIDIA GPU found (nvidia-smi lists none); run it on a GPU machine" >&2; exit 3; }
IFS=',' read -r gpu_name gpu_uuid driver sm_clock <<<"$(nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm \
  --format=csv,noheader,nounits | head -1 | sed 's/, /,/g')"
# The slug `warpmodel characterize` derives from the name (ubench/characterize.cpp gpu_slug).
slug=$(echo "$gpu_name" | tr '[:upper:]' '[:lower:]' | sed -e 's/^nvidia //' -e 's/[^a-z0-9]\+/-/g' -e 's/^-//' -e 's/-$//')
out=${out:-results/$slug}
out=${out%/}
# Results of another GPU model in this folder? Checked before anything is written into it: the GPU
# and UUID of the newest run in the folder's provenance.json (else of its device profile).
read -r previous_gpu previous_uuid <<<"$(python3 - "$out/provenance.json" <<'PY'
import json, sys
try:
    doc = json.load(open(sys.argv[1]))
except (OSError, ValueError):
    sys.exit(0)
runs = [r for r in doc.get("runs", []) if r.get("gpu")]
rec = runs[-1] if runs else doc.get("outputs", {}).get("device.json", {})
print((rec.get("gpu") or "").replace(" ", "_"), rec.get("gpu_uuid") or "")
PY
)"
previous_gpu=${previous_gpu//_/ }
if [ -n "$previous_gpu" ] && [ "$previous_gpu" != "$gpu_name" ] && [ $other_gpu = 0 ]; then
  echo "characterize_gpu: $out holds results of the $previous_gpu and this GPU is the $gpu_name; give its own folder (results/$slug) or pass --other-gpu to write there anyway" >&2
  exit 2
fi
mkdir -p "$out/.characterize"
build=${WARPMODEL_BUILD_DIR:-build}
bin=$build/cli/warpmodel
commit=${WARPMODEL_GIT_COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}
run_date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
export WARPMODEL_GIT_COMMIT=$commit
cuda=$(nvcc --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\).*/\1/p')
t_start=$(date +%s)

estimate() {  # full / quick seconds of a stage
  case "$1" in
    build) echo 150 ;; sanitizers) echo 120 ;; characterize) [ $quick = 1 ] && echo 15 || echo 30 ;;
    tensor) [ $quick = 1 ] && echo 40 || echo 60 ;; energy) echo 125 ;;
    validate) [ $quick = 1 ] && echo 60 || echo 420 ;; stencils) [ $quick = 1 ] && echo 40 || echo 150 ;; adi) [ $quick = 1 ] && echo 40 || echo 240 ;;
    app) echo 90 ;; profiler-floor) echo 20 ;; report) echo 5 ;; repeatability) echo 60 ;; gpu-tests) echo 300 ;; vs-ncu) echo 240 ;; *) echo 60 ;;
  esac
}
say() { echo "[characterize_gpu $(( $(date +%s) - t_start )) s] $*" >&2; }
logs=$out/.characterize
run_json=$logs/run.json
# The run's record, as provenance.json's history keeps it (rewritten after every stage).
write_run() {
  {
    echo "{"
    echo "  \"gpu\": \"$gpu_name\", \"gpu_uuid\": \"$gpu_uuid\","
    [ -n "$previous_uuid" ] && [ "$previous_uuid" != "$gpu_uuid" ] && echo "  \"previous_gpu_uuid\": \"$previous_uuid\","
    echo "  \"driver\": \"$driver\", \"cuda\": \"${cuda:-unknown}\", \"sm_clock_mhz_at_start\": \"$sm_clock\","
    echo "  \"date\": \"$run_date\", \"commit\": \"$commit\","
    echo "  \"command\": \"scripts/characterize_gpu.sh${quick:+$( [ $quick = 1 ] && echo ' --quick')}${only:+ --only $only}${skip:+ --skip $skip} $out\","
    echo "  \"stages\": {$(IFS=,; echo "${summary[*]}")},"
    echo "  \"seconds\": $(( $(date +%s) - t_start ))"
    echo "}"
  } >"$run_json"
}
# The outputs a stage wrote (globs relative to OUTDIR), recorded with the command that wrote them.
record() {  # record STAGE OUTPUTS COMMAND
  write_run
  python3 scripts/provenance_index.py record "$out" --stage "$1" --outputs "$2" --command "$3" --run "$run_json"
}

# Another card of the same model measured into this folder before?
if [ -n "$previous_uuid" ] && [ "$previous_uuid" != "$gpu_uuid" ]; then
  say "NOTE: $out holds results of another card ($previous_uuid); this run ($gpu_uuid) replaces the stages it runs (--force implied for them), the provenance records both UUIDs"
  force=1
fi

stage_enabled() {
  local s=$1
  if [ -n "$only" ]; then [[ ",$only," == *",$s,"* ]]; return; fi
  [[ " $default_stages " == *" $s "* ]] && [[ ",$skip," != *",$s,"* ]]
}

declare -a summary
failed=0
run_stage() {  # run_stage NAME FUNCTION
  local s=$1 fn=$2 stamp="$out/.characterize/$1"
  stage_enabled "$s" || return 0
  if [ $force = 0 ] && [ -f "$stamp" ] && grep -q "^commit=$commit gpu=$gpu_uuid quick=$quick status=0" "$stamp"; then
    say "$s: already done for $commit on this GPU (--force to redo)"
    summary+=("\"$s\": {\"status\": \"skipped (done before)\"}")
    return 0
  fi
  say "$s: start (estimate $(estimate "$s") s; log $logs/$s.log)"
  local t0 rc
  t0=$(date +%s)
  "$fn" >"$logs/$s.log" 2>&1
  rc=$?
  local dt=$(( $(date +%s) - t0 ))
  echo "commit=$commit gpu=$gpu_uuid quick=$quick status=$rc seconds=$dt" >"$stamp"
  if [ $rc = 0 ]; then say "$s: done in $dt s"; else
    failed=1
    say "$s: FAILED (exit $rc) after $dt s; last lines of $out/.characterize/$s.log:"
    tail -5 "$out/.characterize/$s.log" >&2
  fi
  summary+=("\"$s\": {\"status\": $rc, \"seconds\": $dt}")
}

# --- the stages ---------------------------------------------------------------------------------
stage_build() {
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release && cmake --build "$build" -j"$(nproc)"
}
stage_characterize() {
  local reps=()
  [ $quick = 1 ] && reps=(--reps 10)
  "$bin" characterize --only core --output "$out" "${reps[@]}" && python3 scripts/plot_ubench.py "$out/ubench.csv.xz" &&
    record characterize device.json,ubench.csv.xz,ubench.md "warpmodel characterize --only core --output $out ${reps[*]}"
}
# The Hopper units: their sections of device.json (its provenance.tensor_stage.* say when and how)
# and their own report and raw series.
stage_energy() {
  "$bin" characterize --only energy --output "$out" &&
    record energy energy-per-op.md "warpmodel characterize --only energy --output $out"
}
stage_tensor() {
  local reps=()
  [ $quick = 1 ] && reps=(--reps 10)
  "$bin" characterize --only tensor --output "$out" "${reps[@]}" &&
    record tensor tensor.md,tensor.csv.xz "warpmodel characterize --only tensor --output $out ${reps[*]}"
}
stage_validate() {
  local args=()
  [ $quick = 1 ] && args+=(--quick)
  [ -n "${VALIDATE_FAMILIES:-}" ] && args+=(--families "$VALIDATE_FAMILIES")
  [ -n "${VALIDATE_CORPUS_KERNELS:-}" ] && args+=(--corpus-kernels "$VALIDATE_CORPUS_KERNELS")
  nvidia-smi >"$logs/validation-nvidia-smi.txt" 2>&1
  "$bin" validate --measure "$out" "${args[@]}" 2>"$logs/validation-sweep.log" &&
    python3 scripts/plot_validation.py "$out/validation.csv" &&
    record validate validation-measurements.json.xz,access-patterns.json.xz "warpmodel validate --measure $out ${args[*]}"
}
stage_stencils() {
  local args=(--benchmark_repetitions=5 --benchmark_report_aggregates_only=true)
  [ $quick = 1 ] && args=(--benchmark_repetitions=2 --benchmark_report_aggregates_only=true --benchmark_filter='512.*(intz-reg|copy)')
  local clocks
  clocks=$(nvidia-smi --query-gpu=clocks.sm,clocks.mem --format=csv,noheader | head -1)
  WARPMODEL_SM_CLOCK="$clocks" "$build/stencils/gpu/bench_stencils" "${args[@]}" --benchmark_out="$out/stencils.json" \
    --benchmark_out_format=json &&
    xz -9e -f "$out/stencils.json" &&  # stored compressed (docs/results-layout.md)
    record stencils stencils.json.xz "$build/stencils/gpu/bench_stencils ${args[*]} --benchmark_out=$out/stencils.json; xz -9e" &&
    python3 scripts/stencil_report.py bench --json "$out/stencils.json.xz" --device "$out/device.json" \
      --provenance "$out/provenance.json" --md "$out/stencils.md" --csv "$out/stencils.csv"
}
stage_adi() {
  local filter=()
  [ $quick = 1 ] && filter=(--benchmark_filter='copy|/double/2048/')
  "$build/stencils/adi/bench_adi" "${filter[@]}" --benchmark_out="$out/adi.json" --benchmark_out_format=json || return 1
  record adi adi.json "$build/stencils/adi/bench_adi ${filter[*]} --benchmark_out=$out/adi.json" || return 1
  local tri=()
  if [ $quick = 0 ]; then
    "$build/stencils/adi/bench_tridiagonal" --benchmark_out="$out/tridiagonal.json" --benchmark_out_format=json || return 1
    record adi tridiagonal.json "$build/stencils/adi/bench_tridiagonal --benchmark_out=$out/tridiagonal.json" || return 1
    tri=(--tridiagonal "$out/tridiagonal.json")
  fi
  # DRAM bytes per step: CUPTI counts of every kernel of a step at 2048^2.
  local dram=() p
  for p in double $([ $quick = 1 ] || echo single); do
    "$bin" profile --kernel adi --variant fused,fused-cluster,partitioned,thread-per-line --size 2048 --precision $p \
      --metrics dram__bytes_read.sum,dram__bytes_write.sum --timing-runs 1 -o "$out/adi-dram-$p-2048" \
      >"$logs/adi-dram-$p-2048.log" 2>&1 && dram+=(--dram "$out/adi-dram-$p-2048.json") &&
      record adi "adi-dram-$p-2048.json,adi-dram-$p-2048.csv" "warpmodel profile --kernel adi --size 2048 --precision $p" ||
      say "adi: the DRAM profile ($p) failed; see $logs/adi-dram-$p-2048.log (the report goes without it)"
  done
  python3 scripts/adi_report.py --adi "$out/adi.json" "${tri[@]}" "${dram[@]}" --out "$out"
}
stage_app() { DEVICE_JSON="$out/device.json" scripts/app_example_device_run.sh "$out"; }
# H.12b's measurement: 30 launches of a 1-block copy, each timed by 10 Activity-API runs and by the
# counter range in kernel replay (profile -- APP's timing); the CSV twin is not kept.
stage_profiler_floor() {
  local args=(--kernel copy --size 256 --copies 30 --timing-runs 10 --metrics model)
  "$bin" profile "${args[@]}" -o "$out/profiler-floor" && rm -f "$out/profiler-floor.csv" &&
    record profiler-floor profiler-floor.json "warpmodel profile ${args[*]} -o $out/profiler-floor"
}
# The GPU tests: their log in .characterize/gpu-tests.log, their count in the run's history.
stage_gpu_tests() { ctest --test-dir "$build" -L gpu -E vs_ncu --output-on-failure -j1; }
stage_sanitizers() {
  local tool rc=0 t
  for t in "$build/tests/adi/test_adi_gpu" "$build/tests/stencils/test_stencils_gpu"; do
    [ -x "$t" ] || continue
    for tool in memcheck racecheck synccheck; do
      echo "== compute-sanitizer --tool $tool $t --gtest_filter='Sanitizer.*'"
      compute-sanitizer --tool $tool --error-exitcode 9 "$t" --gtest_filter='Sanitizer.*' || rc=1
    done
  done
  return $rc
}
stage_vs_ncu() {
  rm -rf "$out/cupti-vs-ncu-runs"
  WARPMODEL_CUPTI_NCU_OUT="$root/$out/cupti-vs-ncu-runs" ctest --test-dir "$build" -R profiles.cupti.vs_ncu \
    --output-on-failure
  local rc=$?
  mv "$out/cupti-vs-ncu-runs/cupti-vs-ncu.md" "$out/cupti-vs-ncu-runs/cupti-vs-ncu.json" "$out/" 2>/dev/null
  rm -f "$out"/cupti-vs-ncu-runs/*.provenance.json
  record vs-ncu "cupti-vs-ncu-runs/*" "ctest -R profiles.cupti.vs_ncu (WARPMODEL_CUPTI_NCU_OUT=$out/cupti-vs-ncu-runs)" || rc=1
  return "$rc"
}
stage_repeatability() {
  local run
  for run in 1 2; do "$bin" characterize --output "$logs/repeat-$run" || return 1; done
  python3 scripts/compare_ubench_runs.py "$logs/repeat-1/device.json" "$logs/repeat-2/device.json" \
    -o "$out/repeatability.md" &&
    record repeatability repeatability.md "warpmodel characterize, twice; scripts/compare_ubench_runs.py"
}
stage_report() {
  python3 scripts/provenance_index.py index results && python3 scripts/gpu_report.py "$out" &&
    python3 scripts/provenance_index.py index results
}

run_stage build stage_build
run_stage characterize stage_characterize
run_stage energy stage_energy
run_stage tensor stage_tensor
run_stage gpu-tests stage_gpu_tests
run_stage sanitizers stage_sanitizers
run_stage validate stage_validate
run_stage stencils stage_stencils
run_stage adi stage_adi
run_stage app stage_app
run_stage profiler-floor stage_profiler_floor
run_stage vs-ncu stage_vs_ncu
run_stage repeatability stage_repeatability

# The run in the folder's history (the report stage reads it).
record run "" "scripts/characterize_gpu.sh" >/dev/null
run_stage report stage_report
say "finished in $(( $(date +%s) - t_start )) s$( [ $failed = 1 ] && echo ', with FAILED stages')"
exit $failed
