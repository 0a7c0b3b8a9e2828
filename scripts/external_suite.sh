#!/usr/bin/env bash
# The external validation set on a GPU machine: public CUDA applications (HeCBench, Rodinia; their
# sources in SRC_DIR, not in this repository) built, profiled with `warpmodel profile -- APP` and
# predicted with `warpmodel predict-app`, as a user would (docs/validation.md, "External validation set").
#
#   scripts/external_suite.sh SRC_DIR LIST_FILE OUT_DIR [--only NAME,...] [--half development|held-out]
#                             [--build-only] [--jobs N] [--timeout S] [--skip-done] [--budget S] [--no-tables]
#
#   SRC_DIR    the exported folders (.external/: hecbench/src/<app>-cuda, rodinia/cuda/<app>)
#   LIST_FILE  scripts/external_suite.list (name, suite, folder, build, run, half, profile_options)
#   OUT_DIR    results/<gpu>/external (its device profile: results/<gpu>/device.json; DEVICE_JSON overrides)
#   --only     these applications only; --half: one half only (profiles.json.xz keeps the other
#              applications' earlier entries)
#   --build-only  build and stop (no GPU needed); --jobs N: parallel builds (default 1)
#   --timeout  seconds for one application's `profile` run (default 120)
#   --skip-done   leave an application that ran in an earlier call (its status.txt has a run exit)
#   --budget   start no application's profile after S seconds of the call (the files are still
#              written; the rest are "not run" until a later call with --skip-done)
#   --no-tables   keep the measurements and stop: no `validate --from` here (it needs no GPU and
#              takes about two minutes: scripts/regenerate_results.sh writes the tables elsewhere)
#
# Per application: the build (in its folder, log OUT_DIR/.logs/NAME.build.log), then, one at a time,
# `warpmodel profile -o OUT_DIR/.work/NAME/profile [profile_options] -- bash -c RUN` in its folder under
# the timeout (log .logs/NAME.run.log), then `predict-app --format csv` into .work/NAME/predict.csv (a
# first look; the committed tables are predicted again below); the stages' exit codes and times go to
# .work/NAME/status.txt. A failure is recorded and the next application goes on. Then
# scripts/external_bundle.py keeps every application's status and profile.json in OUT_DIR/profiles.json.xz
# and the cubins holding its launched kernels in OUT_DIR/cubins.json.xz (merged into existing ones: a run
# split over several calls or machines adds to them), `provenance_index.py record` records them with the run in
# results/<gpu>/provenance.json, and, where the folder has the corpus sweep, `warpmodel validate --from
# results/<gpu>` predicts every application and writes OUT_DIR/launches.csv, apps.csv and summary.md
# (scripts/regenerate_results.sh does the same without a GPU). The run record (OUT_DIR/.logs/run-DATE.json)
# holds the GPU's name, UUID and driver and its SM clock (at rest, and the maximum) as nvidia-smi
# reports them when the call starts, CUDA and nvcc, the commit, the command and both suites'
# repositories and commits. .work and .logs are not committed: copy OUT_DIR/profiles.json.xz and cubins.json.xz back.
# WARPMODEL_GIT_COMMIT names the commit where the copy has no .git.
set -uo pipefail
usage() { sed -n '6,20p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
repo=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 3 ] || usage
src=$(cd "$1" 2>/dev/null && pwd) || { echo "external_suite: SRC_DIR $1 is not a folder" >&2; exit 2; }
list=$2
[ -f "$list" ] || { echo "external_suite: LIST_FILE $list not found" >&2; exit 2; }
list=$(cd "$(dirname "$list")" && pwd)/$(basename "$list")
out=${3%/}
shift 3
options="$*"
only="" half="" build_only=0 jobs=1 timeout_s=120 skip_done=0 budget_s=0 tables=1
while [ $# -gt 0 ]; do
  case $1 in
    --only) only=${2:?--only needs NAME,...}; shift 2 ;;
    --half) half=${2:?--half needs development or held-out}; shift 2 ;;
    --build-only) build_only=1; shift ;;
    --jobs) jobs=${2:?--jobs needs N}; shift 2 ;;
    --timeout) timeout_s=${2:?--timeout needs seconds}; shift 2 ;;
    --skip-done) skip_done=1; shift ;;
    --budget) budget_s=${2:?--budget needs seconds}; shift 2 ;;
    --no-tables) tables=0; shift ;;
    *) echo "external_suite: unknown option $1" >&2; usage ;;
  esac
done
case $half in ""|development|held-out) ;; *) echo "external_suite: --half is development or held-out, not $half" >&2; exit 2 ;; esac
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "external_suite: --jobs needs a positive integer, not $jobs" >&2; exit 2; }
[[ $timeout_s =~ ^[1-9][0-9]*$ ]] || { echo "external_suite: --timeout needs seconds, not $timeout_s" >&2; exit 2; }
[[ $budget_s =~ ^[0-9]+$ ]] || { echo "external_suite: --budget needs seconds, not $budget_s" >&2; exit 2; }

mkdir -p "$out/.work" "$out/.logs" || exit 1
out=$(cd "$out" && pwd)
bin=$repo/build/cli/warpmodel
device=${DEVICE_JSON:-$(dirname "$out")/device.json}
if [ $build_only -eq 0 ]; then
  for f in "$bin" "$repo/build/cli/libwarpmodel_inject.so" "$device"; do
    [ -e "$f" ] || { echo "external_suite: $f missing (build warpmodel into build/; DEVICE_JSON names another device profile)" >&2; exit 2; }
  done
fi
# The GPU as nvidia-smi reports it when the call starts (name, UUID, driver, SM clock now and at most):
# the run record's; CUDA_VISIBLE_DEVICES's first entry picks the GPU where it is set.
smi=""
if [ $build_only -eq 0 ]; then
  gpu_pick=${CUDA_VISIBLE_DEVICES:-}
  gpu_pick=${gpu_pick%%,*}
  smi=$(nvidia-smi ${gpu_pick:+-i "$gpu_pick"} --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm \
        --format=csv,noheader,nounits 2>/dev/null | head -1)
  echo "external_suite: nvidia-smi: ${smi:-no answer}"
fi
command -v nvcc >/dev/null 2>&1 || export PATH=/usr/local/cuda/bin:$PATH
command -v nvcc >/dev/null 2>&1 || { echo "external_suite: nvcc not found (PATH, /usr/local/cuda/bin)" >&2; exit 2; }

# The selected rows: name, suite, folder, build, run, half, profile_options (comments and header skipped).
selected=$(awk -F'\t' -v only=",$only," -v half="$half" '
  /^#/ || NF == 0 { next }
  !seen_header { seen_header = 1; next }
  NF < 6 { printf "external_suite: line %d has %d fields, expected 7\n", NR, NF > "/dev/stderr"; bad = 1; next }
  (only == ",," || index(only, "," $1 ",")) && (half == "" || $6 == half) { print }
  END { exit bad }' "$list") || exit 2
if [ -n "$only" ]; then
  for n in ${only//,/ }; do
    grep -q "^$n"$'\t' <<<"$selected" || { echo "external_suite: $n is not in $list${half:+ (half $half)}" >&2; exit 2; }
  done
fi
[ -n "$selected" ] || { echo "external_suite: no application selected" >&2; exit 2; }
count=$(wc -l <<<"$selected")
start_all=$(date +%s)
stamp() { printf '[%4ds]' $(( $(date +%s) - start_all )); }
setkey() {  # setkey FILE KEY VALUE: one "key<TAB>value" line per key
  local file=$1 key=$2 value=${3//$'\t'/ }
  value=${value//$'\n'/ }
  { [ -f "$file" ] && grep -v "^$key"$'\t' "$file"; printf '%s\t%s\n' "$key" "$value"; } >"$file.tmp"
  mv "$file.tmp" "$file"
}
# Ran in an earlier call, whatever came of it (a timeout is not run again on every call).
done_already() { [ $skip_done -eq 1 ] && grep -q "^run_exit"$'\t' "$out/.work/$1/status.txt" 2>/dev/null; }

# --- build (CPU; --jobs in parallel) ---------------------------------------------------------------
build_one() {
  local name=$1 folder=$2 build=$3 work=$out/.work/$1 log=$out/.logs/$1.build.log
  mkdir -p "$work"
  local t0 rc; t0=$(date +%s)
  if [ ! -d "$src/$folder" ]; then
    echo "folder $src/$folder not found" >"$log"; rc=2
  else
    (cd "$src/$folder" && bash -c "$build") </dev/null >"$log" 2>&1
    rc=$?
  fi
  local t=$(( $(date +%s) - t0 )) reason=""
  [ $rc -eq 0 ] || reason="build exit $rc: $(grep -m1 -iE 'error|not found|No such' "$log" | cut -c1-200)"
  setkey "$work/status.txt" build_exit $rc
  setkey "$work/status.txt" build_seconds $t
  setkey "$work/status.txt" build_reason "$reason"
  printf '%s build %-24s %s (%ds)\n' "$(stamp)" "$name" "$([ $rc -eq 0 ] && echo ok || echo "FAILED: $reason")" $t
}
echo "external_suite: $count application(s) from $list; sources $src; output $out"
running=0
while IFS=$'\t' read -r name suite folder build run app_half popts; do
  done_already "$name" && { echo "$(stamp) build $name: done earlier (--skip-done)"; continue; }
  rm -f "$out/.work/$name/status.txt"
  if [ "$jobs" -gt 1 ]; then
    build_one "$name" "$folder" "$build" &
    running=$((running + 1))
    if [ $running -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
  else
    build_one "$name" "$folder" "$build"
  fi
done <<<"$selected"
wait
[ $build_only -eq 1 ] && { echo "external_suite: built (--build-only); logs in $out/.logs"; exit 0; }

# --- profile and predict (GPU; one application at a time) -------------------------------------------
commit=${WARPMODEL_GIT_COMMIT:-$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)}
date_utc=$(date -u +%Y-%m-%dT%H:%M:%SZ)
i=0
not_run_reason=""
while IFS=$'\t' read -r name suite folder build run app_half popts; do
  i=$((i + 1))
  work=$out/.work/$name status=$out/.work/$name/status.txt log=$out/.logs/$name.run.log
  done_already "$name" && { echo "$(stamp) [$i/$count] $name: done earlier (--skip-done)"; continue; }
  if [ "$budget_s" -gt 0 ] && [ $(( $(date +%s) - start_all )) -ge "$budget_s" ]; then
    not_run_reason="the call's time budget (--budget $budget_s) ran out before it: run again with --skip-done"
    echo "$(stamp) [$i/$count] $name: not run (--budget $budget_s s spent)"
    continue
  fi
  if [ "$(awk -F'\t' '$1 == "build_exit" { print $2 }' "$status" 2>/dev/null)" != 0 ]; then
    echo "$(stamp) [$i/$count] $name: not run (build failed)"
    continue
  fi
  rm -rf "$work/profile.json" "$work/profile.csv" "$work/profile.cubins" "$work/predict.csv"
  opts=()
  [ "$popts" = "-" ] || [ -z "$popts" ] || read -r -a opts <<<"$popts"
  echo "$(stamp) [$i/$count] $name ($suite, $app_half): profile -- $run"
  t0=$(date +%s)
  (cd "$src/$folder" && timeout -k 15 "$timeout_s" "$bin" profile -o "$work/profile" ${opts[@]+"${opts[@]}"} -- bash -c "$run") </dev/null >"$log" 2>&1
  rc=$?
  t=$(( $(date +%s) - t0 ))
  reason=""
  case $rc in
    0) ;;
    124|137) reason="timeout after ${timeout_s} s" ;;
    *) reason="profile exit $rc: $(grep 'warpmodel profile:' "$log" | tail -1 | cut -c1-200)" ;;
  esac
  setkey "$status" run_exit $rc
  setkey "$status" run_seconds $t
  setkey "$status" run_reason "$reason"
  setkey "$status" run_date "$date_utc"
  echo "$(stamp)        profile exit $rc (${t}s)${reason:+: $reason}"
  prc=-1
  if [ -s "$work/profile.json" ]; then
    "$bin" predict-app --profile "$work/profile.json" --device "$device" --format csv -o "$work/predict.csv" </dev/null >>"$log" 2>&1
    prc=$?
    echo "$(stamp)        predict-app exit $prc"
  fi
  setkey "$status" predict_exit $prc
  # No GPU, no driver, or no counter permission: every other application would fail the same way.
  if [ $rc -eq 3 ] || [ $rc -eq 4 ]; then
    echo "external_suite: profile exit $rc ($reason): stopping; see $log" >&2
    exit 1
  fi
done <<<"$selected"

# --- tables and provenance ------------------------------------------------------------------------
# One record per call (run-DATE.json): a run split over several calls on one machine keeps each call's.
run_record=$out/.logs/run-$date_utc.json
hec_commit=$(sed -n 's/^#   hecbench .* commit \([0-9a-f]*\).*/\1/p' "$list")
rod_commit=$(sed -n 's/^#   rodinia .* commit \([0-9a-f]*\).*/\1/p' "$list")
cmdline="scripts/external_suite.sh $(basename "$src") $(basename "$list") ${out#"$repo"/}${options:+ $options}"
python3 - "$run_record" "$date_utc" "$commit" "$cmdline" "$hec_commit" "$rod_commit" "$smi" "$not_run_reason" <<'EOF'
import json, subprocess, sys
path, date, commit, command, hec, rod, smi, not_run_reason = sys.argv[1:]
try:
    cuda = subprocess.run(["nvcc", "--version"], capture_output=True, text=True).stdout.split("release ")[1].split(",")[0]
except (OSError, IndexError):
    cuda = None
fields = [f.strip() for f in smi.split(",")]
def text(i):
    return fields[i] if len(fields) == 5 and fields[i] and not fields[i].startswith("[") else None
def mhz(i):
    try:
        return float(text(i))
    except (TypeError, ValueError):
        return None
try:
    nvcc = subprocess.run(["nvcc", "--version"], capture_output=True, text=True).stdout.split(", V")[1].split()[0] + \
        " (the applications built on the GPU machine)"
except (OSError, IndexError):
    nvcc = None
json.dump({"date": date, "commit": commit, "cuda": cuda, "nvcc": nvcc, "command": command, "stage": "external",
           "gpu": text(0), "gpu_uuid": text(1), "driver": text(2), "sm_clock_mhz": mhz(3), "sm_clock_max_mhz": mhz(4),
           "sm_clock_source": "nvidia-smi when the call started (before any application ran)",
           **({"not_run_reason": not_run_reason} if not_run_reason else {}),
           "suites": [{"suite": "hecbench", "repository": "https://github.com/zjin-lcf/HeCBench", "commit": hec},
                      {"suite": "rodinia", "repository": "https://github.com/yuhc/gpu-rodinia", "commit": rod}]},
          open(path, "w"), indent=1)
EOF
runs=()
for r in "$out"/.logs/run-*.json; do [ -f "$r" ] && runs+=(--run "$r"); done
python3 "$repo/scripts/external_bundle.py" --work "$out/.work" --logs "$out/.logs" --list "$list" \
  --out "$out/profiles.json.xz" "${runs[@]}" || exit 1
gpu_folder=$(dirname "$out")
if [ "$(basename "$out")" = external ] && [ -f "$gpu_folder/device.json" ]; then
  python3 "$repo/scripts/provenance_index.py" record "$gpu_folder" --stage external \
    --outputs external/profiles.json.xz,external/cubins.json.xz --command "$cmdline" --run "$run_record" || exit 1
  if [ $tables -eq 1 ] && ls "$gpu_folder"/validation-measurements.json* >/dev/null 2>&1; then
    # As scripts/regenerate_results.sh runs it (from the repository root, every other GPU folder with a
    # sweep for the cross-GPU rows), so that the tables it writes are the ones a regeneration writes.
    cross=()
    for other in "$(dirname "$gpu_folder")"/*/; do
      other=${other%/}
      [ "$other" != "$gpu_folder" ] && ls "$other"/validation-measurements.json* >/dev/null 2>&1 &&
        [ -f "$other/device.json" ] && cross+=(--cross "${other#"$repo"/}")
    done
    (cd "$repo" && "$bin" validate --from "${gpu_folder#"$repo"/}" ${cross[@]+"${cross[@]}"} >/dev/null) || exit 1
    python3 "$repo/scripts/provenance_index.py" index "$(dirname "$gpu_folder")" >/dev/null || exit 1
    echo "external_suite: wrote $out/profiles.json.xz, cubins.json.xz, launches.csv, apps.csv, summary.md ($(( $(date +%s) - start_all )) s)"
    exit 0
  fi
fi
if [ $tables -eq 0 ]; then
  echo "external_suite: wrote $out/profiles.json.xz, cubins.json.xz ($(( $(date +%s) - start_all )) s); --no-tables:" \
       "\`warpmodel validate --from\` (scripts/regenerate_results.sh) writes the tables"
else
  echo "external_suite: wrote $out/profiles.json.xz, cubins.json.xz ($(( $(date +%s) - start_all )) s); no corpus sweep beside" \
       "device.json: \`warpmodel validate --from\` writes the tables once the GPU's folder has one"
fi
