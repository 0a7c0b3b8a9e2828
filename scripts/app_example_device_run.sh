#!/usr/bin/env bash
# The example program (tests/app_example) through both of warpmodel's paths to an application's
# counters, on a GPU machine (README "Your own kernels"; issue 13). Run from the repository root
# after building into build/ (cmake --build build --target warpmodel warpmodel_app_example):
#
#   scripts/app_example_device_run.sh OUT
#
# writes into OUT:
#   app-example.profile.json/.csv (+ .cubins/)   warpmodel profile -- APP (CUPTI, injected)
#   app-example.ncu-raw.csv                      ncu --csv --page raw --print-units base --print-kernel-base mangled
#   app-example.ncu-long.csv                     ncu --csv --metrics ... (ncu's demangled names, default units)
#   app-example.ncu-import.json                  import-ncu of the raw page
#   app-example.ncu-long-import.json             import-ncu of the metric rows, names mapped with --binary
#   app-example.predict.md/.csv                  predict-app of the CUPTI profile (its cubins, the GPU's device.json)
#   app-example.cupti-vs-ncu.md/.json            compare-ncu: every counter of every launch, CUPTI vs ncu
#   app-example.kernel-profiles.md               kernel-profile of each kernel's first launch from both paths
#   PROVENANCE.md                                GPU, driver, CUDA, ncu, date, commit, every command
#   logs/                                        every command's output
# The ncu files are the real counterparts of tests/profiles/cupti/fixtures/app-example/*.handmade.csv:
# copy app-example.ncu-raw.csv and app-example.ncu-long.csv there as ncu-raw.csv and ncu-long.csv.
# ncu runs with --clock-control none --cache-control none (clocks and caches left alone, as warpmodel).
# DEVICE_JSON overrides the device profile (default results/<gpu>/device.json, else results/h200's);
# WARPMODEL_GIT_COMMIT names the commit where the copy has no .git.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
[ $# -eq 1 ] || { echo "usage: $0 OUT" >&2; exit 2; }
out=$1
bin=build/cli/warpmodel
app=build/tests/app_example/warpmodel_app_example
for f in "$bin" "$app" build/cli/libwarpmodel_inject.so; do
  [ -e "$f" ] || { echo "$f missing: build first (cmake --build build --target warpmodel warpmodel_app_example)" >&2; exit 2; }
done
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
[ -n "$ncu" ] || { echo "ncu (Nsight Compute) not found" >&2; exit 2; }
mkdir -p "$out/logs"
commands=()
status=0
# Runs a command, logs it under logs/NAME.log, records it for the provenance.
step() {
  local name=$1
  shift
  commands+=("$*")
  echo "== $name: $*"
  "$@" >"$out/logs/$name.log" 2>&1
  local rc=$?
  echo "   exit $rc"
  [ $rc -eq 0 ] || { status=1; tail -5 "$out/logs/$name.log"; }
  return $rc
}

gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
folder=$(echo "$gpu" | grep -oiE "h100|h200|a100|b200|gh200" | head -1 | tr '[:upper:]' '[:lower:]')
device=${DEVICE_JSON:-results/${folder:-h200}/device.json}
[ -f "$device" ] || device=results/h200/device.json
# The model set's metrics, and the launch facts ncu's metric rows print only when asked.
model=$("$bin" metrics --chip GH100 --set model --format csv | awk -F, '$2 == "perfworks" { printf "%s%s", sep, $1; sep = "," }')
launch=launch__registers_per_thread,launch__shared_mem_per_block_static,launch__shared_mem_per_block_dynamic,launch__grid_size,launch__block_size
[ -n "$model" ] || { echo "could not list the model set's metrics" >&2; exit 1; }

step profile "$bin" profile -o "$out/app-example.profile" -- "$app"
step ncu-raw "$ncu" --clock-control none --cache-control none --csv --page raw --print-units base \
  --print-kernel-base mangled --metrics "$model" --log-file "$out/app-example.ncu-raw.csv" "$app"
step ncu-long "$ncu" --clock-control none --cache-control none --csv --metrics "$model,$launch" \
  --log-file "$out/app-example.ncu-long.csv" "$app"
step import-raw "$bin" import-ncu "$out/app-example.ncu-raw.csv" -o "$out/app-example.ncu-import.json"
step import-long "$bin" import-ncu "$out/app-example.ncu-long.csv" -o "$out/app-example.ncu-long-import.json" --binary "$app"
step predict-md "$bin" predict-app --profile "$out/app-example.profile.json" --device "$device" --format markdown \
  -o "$out/app-example.predict.md"
step predict-csv "$bin" predict-app --profile "$out/app-example.profile.json" --device "$device" --format csv \
  -o "$out/app-example.predict.csv"
step predict-grouped "$bin" predict-app --profile "$out/app-example.profile.json" --device "$device" --group

# Counter by counter: the comparison folder layout `compare-ncu` reads (the same launches, in order).
cmp=$out/logs/comparison
mkdir -p "$cmp"
cp "$out/app-example.profile.json" "$cmp/cupti-0.json"
cp "$out/app-example.ncu-raw.csv" "$cmp/ncu-0.csv" 2>/dev/null
"$ncu" --version >"$cmp/ncu-version.txt" 2>&1
echo "ncu --clock-control none --cache-control none --csv --page raw --print-units base --print-kernel-base mangled --metrics <the model set> $app" >"$cmp/ncu-0.command.txt"
step compare "$bin" compare-ncu --from "$cmp" -o "$out/app-example.cupti-vs-ncu"

# Kernel profiles (what predict reads) of each kernel's first launch, from both paths.
kernels=$(python3 -c "
import json, sys
seen = []
for l in json.load(open(sys.argv[1]))['launches']:
    if l['kernel'] not in seen: seen.append(l['kernel'])
print(' '.join(seen))" "$out/app-example.profile.json")
rows=()
for k in $kernels; do
  cubin_args=(--binary "$app")
  "$bin" sass-analyze "$app" --kernel "$k" --format csv >/dev/null 2>&1 || cubin_args=()
  for src in profile ncu-import; do
    if [ ${#cubin_args[@]} -eq 0 ]; then
      # The PTX-only kernel: its SASS is in one of the kept cubins.
      for c in "$out"/app-example.profile.cubins/*.cubin; do
        "$bin" sass-analyze "$c" --kernel "$k" --format csv >/dev/null 2>&1 && { cubin_args=(--binary "$c"); break; }
      done
    fi
    step "kernel-profile-$src-$k" "$bin" kernel-profile --kernel "$k" "${cubin_args[@]}" \
      --counters "$out/app-example.$src.json" --device "$device" -o "$out/logs/$k.$src.kernel.json"
  done
  rows+=("$k")
done
python3 - "$out" "${rows[@]}" <<'EOF'
import json, sys
out, kernels = sys.argv[1], sys.argv[2:]
fields = [("instructions_per_warp", "total"), ("instructions_per_warp", "memory"), ("instructions_per_warp", "global_load"),
          ("instructions_per_warp", "shared"), ("instructions_per_warp", "sync"), ("instructions_per_warp", "sfu"),
          ("memory", "transactions_per_request"), ("memory", "l1_miss_ratio"), ("memory", "l2_miss_ratio"),
          ("memory", "l2_bytes_per_warp"), ("memory", "dram_bytes_per_warp"), ("memory", "dram_write_bytes_per_warp"),
          ("memory", "bank_conflicts_per_warp"), ("launch", "active_warps_per_sm"), ("launch", "registers_per_thread")]
lines = ["# Kernel profiles of the example program: CUPTI (profile -- APP) vs ncu (import-ncu)", "",
         "Each kernel's first launch, `warpmodel kernel-profile --counters` from either path; difference relative to ncu.", ""]
for k in kernels:
    try:
        a = json.load(open(f"{out}/logs/{k}.profile.kernel.json"))
        b = json.load(open(f"{out}/logs/{k}.ncu-import.kernel.json"))
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
open(f"{out}/app-example.kernel-profiles.md", "w").write("\n".join(lines) + "\n")
EOF

{
  echo "# Provenance of the example program's runs"
  echo
  echo "- GPU: $gpu"
  echo "- driver: $(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -1)"
  echo "- CUDA: $(/usr/local/cuda/bin/nvcc --version 2>/dev/null | tail -1)"
  echo "- ncu: $("$ncu" --version 2>/dev/null | tail -1)"
  echo "- SM clock (NVML, before): $(nvidia-smi --query-gpu=clocks.sm --format=csv,noheader 2>/dev/null | head -1)"
  echo "- date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "- commit: ${WARPMODEL_GIT_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}"
  echo "- device profile: $device"
  echo
  echo "Commands, in order (outputs in logs/):"
  echo
  for c in "${commands[@]}"; do echo "    $c"; done
} >"$out/PROVENANCE.md"
echo "wrote $out (exit $status)"
exit $status
