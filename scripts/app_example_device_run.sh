#!/usr/bin/env bash
# The example program (tests/app_example) through both of warpmodel's paths to an application's
# counters, on a GPU machine (README "Your own kernels"). Run from the repository root
# after building into build/ (cmake --build build --target warpmodel warpmodel_app_example):
#
#   scripts/app_example_device_run.sh GPU_FOLDER        (e.g. results/h200)
#
# writes into GPU_FOLDER/app-example/:
#   profile.json/.csv (+ profile.cubins/)   warpmodel profile -- APP (CUPTI, injected)
#   ncu-raw.csv                             ncu --csv --page raw --print-units base --print-kernel-base mangled
#   ncu-long.csv                            ncu --csv --metrics ... (ncu's demangled names, default units)
#   ncu-import.json                         import-ncu of the raw page
#   ncu-long-import.json                    import-ncu of the metric rows, names mapped with --binary
#   predict.md/.csv                         predict-app of the CUPTI profile (its cubins, the GPU's device.json)
#   roofline.csv/.png                       its launches on the GPU's measured roofline (warpmodel roofline)
#   cupti-vs-ncu.md/.json                   compare-ncu: every counter of every launch, CUPTI vs ncu
#   kernel-profiles.md                      kernel-profile of each kernel's first launch from both paths
# and each file's record (GPU, UUID, driver, CUDA, clock, date, commit, its command) in
# GPU_FOLDER/provenance.json (scripts/provenance_index.py record). Every command's output goes to
# GPU_FOLDER/.characterize/app-logs/ (not committed).
# The ncu files are the real counterparts of tests/profiles/cupti/fixtures/app-example/*.handmade.csv:
# copy ncu-raw.csv and ncu-long.csv there.
# ncu runs with --clock-control none --cache-control none (clocks and caches left alone, as warpmodel).
# DEVICE_JSON overrides the device profile (default results/<gpu>/device.json, else results/h200's);
# WARPMODEL_GIT_COMMIT names the commit where the copy has no .git.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
[ $# -eq 1 ] || { echo "usage: $0 GPU_FOLDER" >&2; exit 2; }
folder=${1%/}
out=$folder/app-example
logs=$folder/.characterize/app-logs
bin=build/cli/warpmodel
app=build/tests/app_example/warpmodel_app_example
for f in "$bin" "$app" build/cli/libwarpmodel_inject.so; do
  [ -e "$f" ] || { echo "$f missing: build first (cmake --build build --target warpmodel warpmodel_app_example)" >&2; exit 2; }
done
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
[ -n "$ncu" ] || { echo "ncu (Nsight Compute) not found" >&2; exit 2; }
mkdir -p "$out" "$logs"
status=0
commit=${WARPMODEL_GIT_COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}
run_record=$logs/run.json
printf '{"date": "%s", "commit": "%s", "cuda": "%s", "command": "scripts/app_example_device_run.sh %s"}\n' \
  "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$commit" \
  "$(/usr/local/cuda/bin/nvcc --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\).*/\1/p')" "$folder" >"$run_record"
# Runs a command, logs it under app-logs/NAME.log and records OUTPUTS (comma-separated, relative to
# the GPU folder) with the exact command in the folder's provenance.json.
step() {
  local name=$1 outputs=$2
  shift 2
  echo "== $name: $*"
  "$@" >"$logs/$name.log" 2>&1
  local rc=$?
  echo "   exit $rc"
  if [ $rc -eq 0 ]; then
    [ -z "$outputs" ] || python3 scripts/provenance_index.py record "$folder" --stage "app: $name" --outputs "$outputs" \
      --command "$*" --run "$run_record" || status=1
  else
    status=1; tail -5 "$logs/$name.log"
  fi
  return $rc
}

device=${DEVICE_JSON:-$folder/device.json}
# The model set's metrics, and the launch facts ncu's metric rows print only when asked.
model=$("$bin" metrics --chip GH100 --set model --format csv | awk -F, '$2 == "perfworks" { printf "%s%s", sep, $1; sep = "," }')
launch=launch__registers_per_thread,launch__shared_mem_per_block_static,launch__shared_mem_per_block_dynamic,launch__grid_size,launch__block_size
[ -n "$model" ] || { echo "could not list the model set's metrics" >&2; exit 1; }

rm -rf "$out/profile.cubins"
step profile "app-example/profile.json,app-example/profile.csv,app-example/profile.cubins/*" \
  "$bin" profile -o "$out/profile" -- "$app"
step ncu-raw app-example/ncu-raw.csv "$ncu" --clock-control none --cache-control none --csv --page raw --print-units base \
  --print-kernel-base mangled --metrics "$model" --log-file "$out/ncu-raw.csv" "$app"
step ncu-long app-example/ncu-long.csv "$ncu" --clock-control none --cache-control none --csv --metrics "$model,$launch" \
  --log-file "$out/ncu-long.csv" "$app"
step import-raw app-example/ncu-import.json "$bin" import-ncu "$out/ncu-raw.csv" -o "$out/ncu-import.json"
step import-long app-example/ncu-long-import.json "$bin" import-ncu "$out/ncu-long.csv" -o "$out/ncu-long-import.json" --binary "$app"
# predict.md/.csv and roofline.csv/.png: derived again by scripts/regenerate_results.sh from the profile and device.json.
step predict-md "" "$bin" predict-app --profile "$out/profile.json" --device "$device" --format markdown -o "$out/predict.md"
step predict-csv "" "$bin" predict-app --profile "$out/profile.json" --device "$device" --format csv -o "$out/predict.csv"
step predict-grouped "" "$bin" predict-app --profile "$out/profile.json" --device "$device" --group
step roofline "" "$bin" roofline --profile "$out/profile.json" --device "$device" -o "$out/roofline"

# Counter by counter: the comparison folder layout `compare-ncu` reads (the same launches, in order).
cmp=$logs/comparison
mkdir -p "$cmp"
cp "$out/profile.json" "$cmp/cupti-0.json"
cp "$out/ncu-raw.csv" "$cmp/ncu-0.csv" 2>/dev/null
"$ncu" --version >"$cmp/ncu-version.txt" 2>&1
echo "ncu --clock-control none --cache-control none --csv --page raw --print-units base --print-kernel-base mangled --metrics <the model set> $app" >"$cmp/ncu-0.command.txt"
step compare app-example/cupti-vs-ncu.md,app-example/cupti-vs-ncu.json "$bin" compare-ncu --from "$cmp" -o "$out/cupti-vs-ncu"

# Kernel profiles (what predict reads) of each kernel's first launch, from both paths.
kernels=$(python3 -c "
import json, sys
seen = []
for l in json.load(open(sys.argv[1]))['launches']:
    if l['kernel'] not in seen: seen.append(l['kernel'])
print(' '.join(seen))" "$out/profile.json")
rows=()
for k in $kernels; do
  cubin_args=(--binary "$app")
  "$bin" sass-analyze "$app" --kernel "$k" --format csv >/dev/null 2>&1 || cubin_args=()
  for src in profile ncu-import; do
    if [ ${#cubin_args[@]} -eq 0 ]; then
      # The PTX-only kernel: its SASS is in one of the kept cubins.
      for c in "$out"/profile.cubins/*.cubin; do
        "$bin" sass-analyze "$c" --kernel "$k" --format csv >/dev/null 2>&1 && { cubin_args=(--binary "$c"); break; }
      done
    fi
    counters=$out/$([ $src = profile ] && echo profile.json || echo ncu-import.json)
    step "kernel-profile-$src-$k" "" "$bin" kernel-profile --kernel "$k" "${cubin_args[@]}" \
      --counters "$counters" --device "$device" -o "$logs/$k.$src.kernel.json"
  done
  rows+=("$k")
done
python3 - "$out" "$logs" "${rows[@]}" <<'EOF'
import json, sys
out, logs, kernels = sys.argv[1], sys.argv[2], sys.argv[3:]
fields = [("instructions_per_warp", "total"), ("instructions_per_warp", "memory"), ("instructions_per_warp", "global_load"),
          ("instructions_per_warp", "shared"), ("instructions_per_warp", "sync"), ("instructions_per_warp", "sfu"),
          ("memory", "transactions_per_request"), ("memory", "l1_miss_ratio"), ("memory", "l2_miss_ratio"),
          ("memory", "l2_bytes_per_warp"), ("memory", "dram_bytes_per_warp"), ("memory", "dram_write_bytes_per_warp"),
          ("memory", "bank_conflicts_per_warp"), ("launch", "active_warps_per_sm"), ("launch", "registers_per_thread")]
lines = ["# Kernel profiles of the example program: CUPTI (profile -- APP) vs ncu (import-ncu)", "",
         "Each kernel's first launch, `warpmodel kernel-profile --counters` from either path; difference relative to ncu.", ""]
for k in kernels:
    try:
        a = json.load(open(f"{logs}/{k}.profile.kernel.json"))
        b = json.load(open(f"{logs}/{k}.ncu-import.kernel.json"))
    except OSError as e:
        lines += [f"## {k}", "", f"missing: {e}", ""]
        continue
    lines += [f"## {a.get('name', k)}", "", "| field | CUPTI | ncu | difference |", "|---|---|---|---|"]
    for section, name in fields:
        x, y = a.get(section, {}).get(name), b.get(section, {}).get(name)
        if x is None and y is None:
            continue
        diff = "-" if x is None or y is None else ("0" if x == y else (f"{100 * (x - y) / y:+.3f} %" if y else "n/a"))
        lines.append(f"| {section}.{name} | {x} | {y} | {diff} |")
    lines.append("")
open(f"{out}/kernel-profiles.md", "w").write("\n".join(lines) + "\n")
EOF
python3 scripts/provenance_index.py record "$folder" --stage "app: kernel-profiles" --outputs app-example/kernel-profiles.md \
  --command "warpmodel kernel-profile --kernel K --counters {profile.json|ncu-import.json} --device $device, each kernel's first launch (scripts/app_example_device_run.sh)" \
  --run "$run_record" || status=1

echo "wrote $out (exit $status)"
exit $status
