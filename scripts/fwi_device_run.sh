#!/usr/bin/env bash
# The FWI's GPU variants and the energy measurements on a GPU machine (about 10 minutes on an H100
# with prebuilt binaries, measured before each energy reading spanned three of the counter's update
# intervals, which adds at least 30 x 0.3 s to each measured region; split it with FWI_STAGES):
#   1. test_fwi_gpu (every variant against the CPU reference, label gpu)
#   2. run-fwi --variant all at the study's size (210x68, 625 steps, 5 shots) with --check and --energy
#   3. run-fwi --variant all at 8192x256 (a size that fills the GPU) with --energy
#   4. profile --kernel fwi: the study's nvprof metric set (seed-003) and the DRAM bytes, every variant
#      at 210x68, four at 8192x256 (their films must fit together)
#   5. validate --measure --families fwi: the FWI's kernels as validation rows (class fwi), then the analysis
#   6. run-stencil --energy for the five variants at orders 4 (seed 004's 13-point stencil) and 8, the
#      same launches profiled (their predicted energy beside the measured), and run-adi --energy once
#   7. the reports: fwi.md/.csv (scripts/fwi_report.py), energy.md/.csv (scripts/energy_report.py)
# Measured files go to results/<gpu>/fwi/ (run-*.json, profile-*.json/.csv) and results/<gpu>/energy/
# (stencil-*.json, adi-*.json); the validation sweep's file and outputs are replaced in results/<gpu>/.
# To $OUT (or $TMPDIR/fwi-device-run), seven files: provenance.txt, logs.tgz, results-<gpu>.tgz (the whole
# results/<gpu>/ folder: the device copy of the tree does not come back; unpack it at the repository
# root, then run scripts/regenerate_results.sh), the two run-fwi logs, fwi.md and energy.md. A stage that
# no longer fits in the time left ($FWI_RUN_SECONDS, default 480) is skipped and says so.
#   FWI_PREBUILT_DIR=dir: warpmodel, libwarpmodel_inject.so and test_fwi_gpu built elsewhere from this
#                         tree (sm_90, the same nvcc) and carried along: no build here
#   FWI_STENCIL_CONFIGS="v:order ...": the stencil energy runs to make (default the ten: five variants
#                         at orders 4 and 8), e.g. "intz-reg:4 naive:8" to finish an interrupted stage
#   FWI_STAGES=a,b,...:   only these stages (default all): test, small, large, profile-small,
#                         validate, stencil-energy, stencil-profile, adi-energy, profile-large,
#                         energy-profile (the reports always); a second run with the rest adds to
#                         the same folder
#   [WARPMODEL_GIT_COMMIT=abc1234] scripts/fwi_device_run.sh [results/<gpu>]
set -uo pipefail
cd "$(dirname "$0")/.."
t0=$(date +%s)
deadline=$(( t0 + ${FWI_RUN_SECONDS:-480} ))
stamp() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
left() { echo $(( deadline - $(date +%s) )); }
stages=",${FWI_STAGES:-test,small,large,profile-small,validate,stencil-energy,stencil-profile,adi-energy,profile-large,energy-profile},"
want() { [[ "$stages" == *",$1,"* ]]; }
out=${OUT:-${TMPDIR:-/tmp}/fwi-device-run}
mkdir -p "$out"
logs=$(mktemp -d)

commit=${WARPMODEL_GIT_COMMIT:-}
if [ -z "$commit" ]; then
  commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
  git diff --quiet HEAD -- 2>/dev/null || commit="$commit+dirty"
fi
export WARPMODEL_GIT_COMMIT=$commit
gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
[ -n "$gpu_name" ] || { echo "fwi_device_run: nvidia-smi lists no GPU" >&2; exit 3; }
# The slug `warpmodel characterize` derives from the name (ubench/characterize.cpp gpu_slug).
slug=$(echo "$gpu_name" | tr '[:upper:]' '[:lower:]' | sed -e 's/^nvidia //' -e 's/[^a-z0-9]\+/-/g' -e 's/^-//' -e 's/-$//')
res=${1:-results/$slug}
[ -f "$res/device.json" ] || { echo "fwi_device_run: $res/device.json is missing (warpmodel characterize writes it; validate --measure needs it)" >&2; exit 2; }
mkdir -p "$res/fwi" "$res/energy"
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "git commit: $commit"
  nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,power.limit,temperature.gpu --format=csv 2>&1
  echo "results: $res"
} | tee "$out/provenance.txt"

if [ -n "${FWI_PREBUILT_DIR:-}" ]; then
  bin=$FWI_PREBUILT_DIR/warpmodel
  test_bin=$FWI_PREBUILT_DIR/test_fwi_gpu
  stamp "prebuilt binaries in $FWI_PREBUILT_DIR"
else
  build=${BUILD_DIR:-build-fwi-dev}
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DWARPMODEL_ENABLE_CUDA=ON >"$logs/configure.log" 2>&1 \
    || { stamp "configure failed"; tail -20 "$logs/configure.log"; }
  cmake --build "$build" -j16 --target warpmodel test_fwi_gpu >"$logs/build.log" 2>&1 \
    || { stamp "build failed"; grep -E "error" "$logs/build.log" | head -20; }
  bin=$build/cli/warpmodel
  test_bin=$build/tests/fwi/test_fwi_gpu
  stamp "built"
fi
[ -x "$bin" ] || { echo "fwi_device_run: no warpmodel at $bin" >&2; exit 1; }

# 1. The variants against the CPU reference on this GPU.
if want test && [ -x "$test_bin" ]; then
  timeout 120 "$test_bin" >"$logs/test_fwi_gpu.log" 2>&1; stamp "test_fwi_gpu exit $?"
  grep -E "\[fwi-gpu\]|FAILED|Failure" "$logs/test_fwi_gpu.log" | head -30
fi

# 2, 3. The phases timed (and checked, and energy-measured).
run_fwi() {  # NAME SECONDS ARGS...
  local name=$1 need=$2; shift 2
  if [ "$(left)" -lt "$need" ]; then stamp "run-fwi $name skipped: $(left) s left"; return; fi
  timeout $(( $(left) - 20 )) "$bin" run-fwi --variant all "$@" -o "$res/fwi/run-$name.json" 2>&1 | tee "$logs/run-fwi-$name.log"
  stamp "run-fwi $name exit ${PIPESTATUS[0]}"
}
want small && run_fwi 210x68 150 --check --energy
want large && run_fwi 8192x256 240 --nx 8192 --nz 256 --iterations 2 --energy

# 4. The study's metrics and the DRAM bytes of each kernel (the roof placement of fwi.md).
profile_fwi() {  # SIZE VARIANTS SECONDS
  if [ "$(left)" -lt "$3" ]; then stamp "profile $1 skipped: $(left) s left"; return; fi
  timeout $(( $(left) - 20 )) "$bin" profile --kernel fwi --variant "$2" --size "$1" \
    --metrics seed-003,dram__bytes_read.sum,dram__bytes_write.sum -o "$res/fwi/profile-$1" >"$logs/profile-$1.log" 2>&1
  stamp "profile fwi $1 exit $? ($(tail -1 "$logs/profile-$1.log"))"
}
want profile-small && profile_fwi 210x68 all 100

# 5. The FWI's kernels as validation rows (class fwi), merged with the folder's other families.
if ! want validate; then
  :
elif [ "$(left)" -ge 150 ]; then
  timeout $(( $(left) - 15 )) "$bin" validate --measure "$res" --families fwi >"$logs/validate.log" 2>&1
  stamp "validate --measure --families fwi exit $? ($(grep -E 'launches measured' "$logs/validate.log"))"
else
  stamp "validate --measure --families fwi skipped: $(left) s left"
fi

# 6. Energy of the stencil variants (seed 004) and of the ADI solver.
# One run takes about 20 s on an H100 (30 repetitions, each spanning three of the counter's updates);
# the guard leaves room for the 60 s cap of the run it would start.
stencil_configs=${FWI_STENCIL_CONFIGS:-"naive:4 readonly:4 shared:4 intz:4 intz-reg:4 naive:8 readonly:8 shared:8 intz:8 intz-reg:8"}
want stencil-energy && for config in $stencil_configs; do
  v=${config%%:*} order=${config##*:}
  if [ "$(left)" -lt 70 ]; then stamp "run-stencil $v order $order skipped: $(left) s left"; continue; fi
  timeout 60 "$bin" run-stencil --variant $v --order $order --size 512x512x512 --steps 100 --block 32x8x1 --energy \
    -o "$res/energy/stencil-$v-order$order.json" >"$logs/stencil-$v-$order.log" 2>&1
  stamp "run-stencil $v order $order exit $? ($(grep -E '^energy:' "$logs/stencil-$v-$order.log" | cut -c1-120))"
done
# The same stencil launches profiled (the model's metric set): regenerate_results.sh predicts their
# energy from these counters (predict-app) beside the counter's J per step (energy.md).
if want stencil-profile && [ "$(left)" -ge 60 ]; then
  timeout 120 "$bin" profile --kernel stencil --variant naive,readonly,shared,intz,intz-reg --order 4,8 \
    --size 512x512x512 --block 32x8x1 --metrics model -o "$res/energy/profile-stencil-512" >"$logs/profile-stencil.log" 2>&1
  stamp "profile stencil 512 exit $? ($(tail -1 "$logs/profile-stencil.log" | cut -c1-120))"
  xz -9 -f "$res/energy/profile-stencil-512.json" 2>/dev/null
  rm -f "$res/energy/profile-stencil-512.csv"
fi
if want adi-energy && [ "$(left)" -ge 100 ]; then
  timeout 60 "$bin" run-adi --variant fused --size 2048 --steps 100 --precision double --energy \
    -o "$res/energy/adi-fused-double-2048.json" >"$logs/adi.log" 2>&1
  stamp "run-adi exit $? ($(grep -E '^energy:' "$logs/adi.log" | cut -c1-120))"
fi
want profile-large && profile_fwi 8192x256 original,fused-cpml,gradient-on-the-fly,read-only 90
# The energy runs' launches again with the model's metric set (executed instructions by kind, the data
# pipe's wavefronts, L2 bytes), which the study's set lacks: regenerate_results.sh predicts the FWI's
# energy from these where they exist (fwi_report.py --energy-profile; docs/energy.md).
if want energy-profile; then
  for size in 210x68:all 8192x256:original,fused-cpml,gradient-on-the-fly,read-only; do
    if [ "$(left)" -lt 90 ]; then stamp "energy profile ${size%%:*} skipped: $(left) s left"; continue; fi
    timeout $(( $(left) - 20 )) "$bin" profile --kernel fwi --variant "${size##*:}" --size "${size%%:*}" --metrics model \
      -o "$res/fwi/energy-profile-${size%%:*}" >"$logs/energy-profile-${size%%:*}.log" 2>&1
    stamp "profile fwi ${size%%:*} (model set) exit $? ($(tail -1 "$logs/energy-profile-${size%%:*}.log" | cut -c1-120))"
  done
fi

# The measured records stored as results/ stores large measurements: xz-compressed (the reports read
# them so); the profiles' CSV twins are left out (the JSON holds the same rows; fwi.csv is the table).
xz -9 -f "$res"/fwi/run-*.json "$res"/fwi/profile-*.json "$res"/fwi/energy-profile-*.json 2>/dev/null
rm -f "$res"/fwi/profile-*.csv "$res"/fwi/energy-profile-*.csv

# 7. The reports, from what was measured.
args=()
for f in "$res"/fwi/run-*.json*; do [ -f "$f" ] && args+=(--run "$f"); done
for f in "$res"/fwi/profile-*.json*; do [ -f "$f" ] && args+=(--profile "$f"); done
python3 scripts/fwi_report.py "${args[@]}" --device "$res/device.json" --out "$res" && stamp "wrote $res/fwi.md"
args=()
for f in "$res"/energy/stencil-*.json; do [ -f "$f" ] && args+=(--run "$f"); done
python3 scripts/energy_report.py "${args[@]}" --out "$res" && stamp "wrote $res/energy.md"
grep -E "^\| (phase|original|phase)" "$res/fwi.md" | head -24
tar czf "$out/results-$slug.tgz" "$res" 2>/dev/null
cp "$logs"/run-fwi-*.log "$res/fwi.md" "$res/energy.md" "$out/" 2>/dev/null
tar czf "$out/logs.tgz" -C "$logs" . 2>/dev/null
ls -la "$out"
stamp "done"
