#!/usr/bin/env bash
# CUPTI collection on a GPU machine (README "CUPTI collection"), one run each:
#   scripts/cupti_device_run.sh check     build; CPU and gpu tests; the device's metric list and set
#                                         pass counts; probes (which counter counts barriers, whether
#                                         SASS-patched metrics come through, ncu detection); the
#                                         CUPTI-vs-ncu test. Logs and outputs: $OUT/logs.tgz.
#   scripts/cupti_device_run.sh cache     build; the CUPTI-vs-ncu test; then the cache-state probes:
#                                         the same workloads with each tool's kernel replay (caches
#                                         left alone), ncu's --cache-control all against CUPTI's
#                                         flushed user replay, and the shared-memory counters of the
#                                         stencil, each laid out as a comparison folder for
#                                         `warpmodel compare-ncu` (results/h200/cupti-probes/).
#                                         Everything in $OUT/logs.tgz.
#   scripts/cupti_device_run.sh results   build; the model set for every stencil variant x order and
#                                         every ADI kernel (one size each) -> results/h200/metrics.csv
#                                         and metrics.json; the CUPTI-vs-ncu test (raw runs in
#                                         results/h200/cupti-vs-ncu-runs/, the document by
#                                         `warpmodel compare-ncu` -> results/h200/cupti-vs-ncu.md
#                                         and .json); copies in $OUT (default /tmp/cupti-out),
#                                         with logs.tgz.
# WARPMODEL_GIT_COMMIT names the commit in the provenance (the device copy has no .git).
set -uo pipefail
cd "$(dirname "$0")/.."
mode=${1:-results}
final=${OUT:-/tmp/cupti-out}   # what comes back: the results, logs.tgz (every log and output)
build=${BUILD_DIR:-build-cupti-dev}
work=$(mktemp -d)
out=$work/logs
mkdir -p "$final" "$out"
trap 'tar czf "$final/logs.tgz" -C "$work" . 2>/dev/null' EXIT
t0=$(date +%s)
say() { echo "[$(($(date +%s) - t0)) s] $*"; }

# CUPTI_PREBUILT=1: use the binaries already in $build (carried from a machine with the same
# toolkit), skipping configure and build.
if [ -n "${CUPTI_PREBUILT:-}" ] && "$build/cli/warpmodel" --help >/dev/null 2>&1; then
  say "prebuilt binaries in $build"
else
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DWARPMODEL_BUILD_BENCHMARKS=OFF >"$out/configure.log" 2>&1 ||
  { tail -30 "$out/configure.log"; exit 1; }
targets="warpmodel test_cupti_cpu test_cupti_gpu"
[ "$mode" = cache ] && targets="warpmodel test_cupti_gpu"
cmake --build "$build" -j"$(nproc)" --target $targets >"$out/build.log" 2>&1 ||
  { grep -E "error|Error" "$out/build.log" | head -30; exit 1; }
say "built"
fi
bin=$build/cli/warpmodel
tests=$build/tests/profiles/cupti
export WARPMODEL_GIT_COMMIT=${WARPMODEL_GIT_COMMIT:-unknown}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv >"$out/nvidia-smi.csv" 2>&1
cat "$out/nvidia-smi.csv"
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
echo "ncu: ${ncu:-none} $([ -n "$ncu" ] && "$ncu" --version | tail -1)"

# The pass counts of the sets on this device; which counter counts barrier instructions (the same
# kernel with 0 and 32 __syncthreads per thread); SASS-patched metrics through the Range Profiler
# (copy of 2^26 floats: 2^21 global loads); refusal under ncu. Outputs in $work, logs in $out.
probes() {
  "$bin" metrics --set model --set seed-003 --set seed-002 >"$out/sets.txt" 2>&1
  grep -E "pass\(es\)|warpmodel" "$out/sets.txt"
  local probe="smsp__inst_executed.sum,smsp__warps_launched.sum,smsp__inst_executed_pipe_cbu.sum,smsp__inst_executed_op_branch.sum,smsp__inst_executed_pipe_adu.sum,smsp__inst_executed_pipe_alu.sum,smsp__inst_executed_pipe_uniform.sum,smsp__warps_issue_stalled_barrier.sum"
  for b in 0 32; do
    "$bin" profile --kernel barrier --barriers "$b" --metrics "$probe" -o "$work/barrier-$b" >"$out/barrier-$b.log" 2>&1
    echo "barrier $b: exit $?"; grep -E "smsp__" "$out/barrier-$b.log"
  done
  "$bin" profile --kernel copy -o "$work/sass-probe" --metrics \
    smsp__inst_executed_op_global_ld.sum,smsp__sass_inst_executed_op_global_ld.sum,smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct \
    >"$out/sass-probe.log" 2>&1; echo "sass probe: exit $?"; tail -5 "$out/sass-probe.log"
  if [ -n "$ncu" ]; then
    "$ncu" --metrics smsp__warps_launched.sum "$bin" profile --kernel copy -o "$work/under-ncu" >"$out/under-ncu.log" 2>&1
    echo "profile under ncu: exit $?"; grep -v "^==PROF==" "$out/under-ncu.log" | head -2
  fi
}

if [ "$mode" = check ]; then
  "$tests/test_cupti_cpu" >"$out/cpu-tests.log" 2>&1; echo "cpu tests: exit $?"; tail -3 "$out/cpu-tests.log"
  "$tests/test_cupti_gpu" --gtest_filter='CuptiGpu.*' >"$out/gpu-tests.log" 2>&1; echo "gpu tests: exit $?"
  grep -E "^\[  (FAILED|PASSED) |Failure|Expected|Which is|actual|error" "$out/gpu-tests.log" | head -40
  say "gpu tests"
  "$bin" metrics --list >"$out/metrics-list.txt" 2>&1; tail -1 "$out/metrics-list.txt"
  probes
  "$bin" profile --kernel stencil --variant shared --order 8 -o "$out/stencil" >"$out/stencil.log" 2>&1; echo "stencil: exit $?"; tail -2 "$out/stencil.log"
  "$bin" profile --kernel adi --kernel-name solve-x -o "$out/adi" --range user >"$out/adi.log" 2>&1; echo "adi: exit $?"; tail -2 "$out/adi.log"
  say "probes"
  WARPMODEL_CUPTI_NCU_OUT="$out/ncu" "$tests/test_cupti_gpu" --gtest_filter='CuptiVsNcu.*' >"$out/vs-ncu.log" 2>&1
  echo "vs ncu: exit $?"; grep -E "Summary|^\[  (FAILED|PASSED|SKIPPED)" "$out/ncu/cupti-vs-ncu.md" "$out/vs-ncu.log" | head
  grep -E "\*\*no\*\*" "$out/ncu/cupti-vs-ncu.md" | head -30
  say "vs ncu"
  exit 0
fi

if [ "$mode" = cache ]; then
  budget=${CACHE_PROBE_BUDGET_S:-130}   # no new probe starts after this many seconds
  "$tests/test_cupti_gpu" --gtest_filter='CuptiGpu.Copy*' >"$out/gpu-tests.log" 2>&1; echo "flush tests: exit $?"
  grep -E "^\[  (FAILED|PASSED) |Failure|Expected|Which is|actual" "$out/gpu-tests.log" | head -20
  WARPMODEL_CUPTI_NCU_OUT="$work/ncu" "$tests/test_cupti_gpu" --gtest_filter='CuptiVsNcu.*' >"$out/vs-ncu.log" 2>&1
  echo "vs ncu: exit $?"; grep -E "Summary|^\[  (FAILED|PASSED|SKIPPED)" "$work/ncu/cupti-vs-ncu.md" "$out/vs-ncu.log" | head
  grep -E "\*\*no\*\*" "$work/ncu/cupti-vs-ncu.md" | head -20
  say "vs ncu"
  tar czf "$final/vs-ncu.tgz" -C "$work" ncu logs 2>/dev/null   # back even if a probe runs past the limit
  [ -z "$ncu" ] && exit 0
  ws=("--kernel copy --size 16777216" "--kernel stencil --variant shared --order 8 --size 256"
      "--kernel adi --variant thread-per-line --kernel-name solve-x --size 2048")
  model=$(python3 -c "import json,sys; print(','.join(json.load(open(sys.argv[1]))['collection']['metrics']))" "$work/ncu/cupti-0.json")
  base="--clock-control none --csv --page raw --print-units base --kernel-name-base mangled --profile-from-start off"
  # CACHE_PROBES: which probes (default all three); none starts after $budget seconds.
  late() {
    case " ${CACHE_PROBES:-kernel-replay cache-all shared} " in *" $1 "*) ;; *) return 0 ;; esac
    [ $(($(date +%s) - t0)) -gt "$budget" ] && { say "skipping $1: past ${budget} s"; return 0; }
    return 1
  }
  # ncu_run FOLDER FILE_INDEX WORKLOAD_INDEX SUFFIX NCU_OPTIONS METRICS LAUNCH_OPTIONS
  ncu_run() {
    echo "ncu $5 $base --metrics <$6> warpmodel profile ${ws[$3]} --launch-only $7" >"$1/ncu-$2.command.txt"
    "$ncu" $5 $base --metrics "$6" --log-file "$1/ncu-$2$4.csv" "$bin" profile ${ws[$3]} --launch-only $7 >>"$out/probes.log" 2>&1
    echo "$(basename "$1") ncu-$2$4: exit $?" | tee -a "$out/probes.log"
  }
  p=$work/probes; mkdir -p "$p/kernel-replay" "$p/cache-all" "$p/shared"
  for d in kernel-replay cache-all shared; do cp "$work/ncu/ncu-version.txt" "$p/$d/"; done
  # 1. Each tool's own kernel replay, caches left alone (the comparison before the fix), twice each.
  for i in 0 1 2; do
    late kernel-replay && break
    for r in "" -repeat; do
      "$bin" profile ${ws[$i]} --metrics model --timing-runs 1 -o "$p/kernel-replay/cupti-$i$r" >>"$out/probes.log" 2>&1
      ncu_run "$p/kernel-replay" $i $i "$r" "--cache-control none" "$model" ""
    done
  done
  say "kernel replay"
  # 2. ncu's kernel replay with --cache-control all (ncu flushes before each pass) against the flushed
  #    CUPTI user replay of the test.
  for i in 0 1 2; do
    late cache-all && break
    cp "$work/ncu/cupti-$i.json" "$work/ncu/cupti-$i-repeat.json" "$p/cache-all/"
    for r in "" -repeat; do ncu_run "$p/cache-all" $i $i "$r" "--cache-control all" "$model" "--flush-l2"; done
  done
  say "cache all"
  # 3. The stencil's shared-memory counters, both tools flushed as in the test, three times each:
  #    bank conflicts beside the wavefronts they add to.
  shared=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum
  for r in "" -repeat -third; do
    late shared && break
    "$bin" profile ${ws[1]} --metrics "$shared" --timing-runs 1 --replay user --flush-l2 -o "$p/shared/cupti-0$r" >>"$out/probes.log" 2>&1
    ncu_run "$p/shared" 0 1 "$r" "--replay-mode application --cache-control none" "$shared" "--flush-l2"
  done
  say "shared"
  exit 0
fi

# results (and the probes the check mode makes, for the record)
dir=results/h200
mkdir -p "$dir"
"$tests/test_cupti_gpu" --gtest_filter='CuptiGpu.*' >"$out/gpu-tests.log" 2>&1; echo "gpu tests: exit $?"
grep -E "^\[  (FAILED|PASSED) |Failure" "$out/gpu-tests.log" | head -10
probes
say "probes"
"$bin" profile --kernel stencil --variant all --order all --size 256 --metrics model -o "$work/stencil" \
  >"$out/stencil.log" 2>&1; echo "stencil (all variants x orders): exit $?"; tail -2 "$out/stencil.log"
say "stencil"
"$bin" profile --kernel adi --variant all --size 1024 --range user --metrics model -o "$work/adi" \
  >"$out/adi.log" 2>&1; echo "adi (all variants, every kernel of a step): exit $?"; tail -2 "$out/adi.log"
say "adi"
python3 - "$work" "$dir" <<'EOF'
# metrics.csv: the two profiles' long CSVs under one header; metrics.json: both profiles as written.
import json, os, sys
work, dir = sys.argv[1], sys.argv[2]
profiles, rows, header = [], [], None
for name in ("stencil", "adi"):
    p = os.path.join(work, name)
    if not os.path.exists(p + ".json"):
        continue
    profiles.append(json.load(open(p + ".json")))
    lines = open(p + ".csv").read().splitlines()
    header = header or lines[0]
    rows += lines[1:]
if profiles:
    with open(os.path.join(dir, "metrics.csv.tmp"), "w") as f:
        f.write(header + "\n" + "\n".join(rows) + "\n")
    os.replace(os.path.join(dir, "metrics.csv.tmp"), os.path.join(dir, "metrics.csv"))
    with open(os.path.join(dir, "metrics.json.tmp"), "w") as f:
        json.dump({"schema": "warpmodel.profile-collection/1",
                   "note": "results/h200/metrics.csv in JSON: one warpmodel.profile/1 per command, provenance inside",
                   "profiles": profiles}, f, indent=1)
        f.write("\n")
    os.replace(os.path.join(dir, "metrics.json.tmp"), os.path.join(dir, "metrics.json"))
    print("metrics.csv:", len(rows), "rows from", sum(len(p["launches"]) for p in profiles), "launches")
EOF
WARPMODEL_CUPTI_NCU_OUT="$work/ncu" "$tests/test_cupti_gpu" --gtest_filter='CuptiVsNcu.*' >"$out/vs-ncu.log" 2>&1
echo "vs ncu: exit $?"
# The measured runs are kept beside the document, which compare-ncu regenerates from them.
mkdir -p "$dir/cupti-vs-ncu-runs"
cp "$work"/ncu/cupti-?.json "$work"/ncu/cupti-?-repeat.json "$work"/ncu/ncu-?.csv "$work"/ncu/ncu-?-repeat.csv \
  "$work"/ncu/ncu-?.command.txt "$work"/ncu/ncu-version.txt \
  "$dir/cupti-vs-ncu-runs/" 2>/dev/null
"$bin" compare-ncu --from "$dir/cupti-vs-ncu-runs" -o "$dir/cupti-vs-ncu"
say "vs ncu"
cp "$dir/metrics.csv" "$dir/metrics.json" "$dir/cupti-vs-ncu.md" "$dir/cupti-vs-ncu.json" "$final/" 2>/dev/null
tar czf "$final/cupti-vs-ncu-runs.tgz" -C "$dir" cupti-vs-ncu-runs 2>/dev/null
say "done"
