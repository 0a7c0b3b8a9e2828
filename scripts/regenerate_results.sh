#!/usr/bin/env bash
# Regenerates every committed output that is derived from committed inputs without a GPU (the model,
# the thesis's printed inputs, the committed measurements). scripts/run.sh calls it; the CI test
# results.regenerate runs it in a copy of the tree and fails on any difference from the committed
# files, so that what is committed is what the current code writes.
#   results/k40-thesis/   the thesis's worked example and tables 4.5/4.7, recomputed
#   results/<gpu>/        validation tables and plots from validation-measurements.json.xz + device.json,
#                         the external validation set's tables (external/launches.csv, apps.csv,
#                         summary.md: its committed profiles.json.xz predicted by the same validate),
#                         the microbenchmarks' plots (ubench_*.png) and the roofline of the measured
#                         ceilings (roofline.png), the example application's predict-app tables
#                         (app-example/predict.*) and its launches on the roofline (app-example/roofline.*), the
#                         stencil benchmarks' tables (stencils.md/.csv, scripts/stencil_report.py),
#                         the ADI tables and plot (adi.md/.csv, tridiagonal.md/.csv, adi_steps.png),
#                         the FWI's phases beside the study's (fwi.md/.csv, scripts/fwi_report.py), the
#                         stencils' energy beside seed 004 (energy.md/.csv, scripts/energy_report.py),
#                         and README.md, the one-page report of the GPU (scripts/gpu_report.py)
#   results/compare-*     the GPUs' device profiles side by side (warpmodel compare-devices) and their plot
#   provenance.json       in every folder: one record per output (scripts/provenance_index.py)
# usage: scripts/regenerate_results.sh   (from the repository root; WARPMODEL_BIN names the program,
#        default build/cli/warpmodel)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${WARPMODEL_BIN:-build/cli/warpmodel}
data=model/data

out=results/k40-thesis
mkdir -p "$out"
$bin reproduce-thesis --format markdown --output "$out/reproduction.md"
$bin reproduce-thesis --format csv --output "$out/reproduction.csv"
$bin reproduce-thesis --format json --output "$out/reproduction.json"
$bin predict --device $data/k40-thesis.device.json --kernel $data/stencil-order2-k40-thesis.kernel.json \
  --model all --format csv --output "$out/prediction-all-models.csv"
$bin sweep --model thesis-2016 --device $data/k40-thesis.device.json --kernel $data/stencil-order2-k40-thesis.kernel.json \
  --top 20 --format csv --output "$out/sweep-thesis-2016.csv"
python3 scripts/plot_thesis.py "$out/reproduction.json"
echo "regenerate: wrote $out/"

# Validation tables and plots from the committed measurements of each GPU (warpmodel validate --from).
for dir in results/*/; do
  dir=${dir%/}
  if [ -f "$dir/validation-measurements.json.xz" ] && [ -f "$dir/device.json" ]; then
    # Every other GPU folder with a sweep: cross-GPU evaluation in both directions.
    cross=()
    for other in results/*/; do
      other=${other%/}
      [ "$other" != "$dir" ] && [ -f "$other/validation-measurements.json.xz" ] && [ -f "$other/device.json" ] && cross+=(--cross "$other")
    done
    $bin validate --from "$dir" "${cross[@]}" >/dev/null
    python3 scripts/plot_validation.py "$dir/validation.csv"
    echo "regenerate: wrote $dir/validation.*"
  fi
done

# The example application's predictions (predict-app of its committed CUPTI profile and cubins) with
# the device profile as validate left it (its fitted constants): they move with the model.
for dir in results/*/; do
  dir=${dir%/}
  if [ -f "$dir/app-example/profile.json" ] && [ -f "$dir/device.json" ]; then
    for format in markdown csv; do
      ext=$([ $format = markdown ] && echo md || echo csv)
      $bin predict-app --profile "$dir/app-example/profile.json" --device "$dir/device.json" --format $format \
        -o "$dir/app-example/predict.$ext"
    done
    echo "regenerate: wrote $dir/app-example/predict.{md,csv}"
    $bin roofline --profile "$dir/app-example/profile.json" --device "$dir/device.json" -o "$dir/app-example/roofline" >/dev/null
    echo "regenerate: wrote $dir/app-example/roofline.{csv,png}"
  fi
done

# The device profiles side by side, after the validation above (which rewrites device.json's fitted
# constants; compare-devices does not read them): the H200, the H100 and the thesis's K40.
compare=results/compare-h100-h200
profiles=(results/h200/device.json results/h100-80gb-hbm3/device.json $data/k40-thesis.device.json)
if [ -f "${profiles[0]}" ] && [ -f "${profiles[1]}" ]; then
  $bin compare-devices "${profiles[@]}" --format markdown --output "$compare.md"
  $bin compare-devices "${profiles[@]}" --format json --output "$compare.json"
  python3 scripts/plot_devices.py "$compare.json" "$compare.png" >/dev/null
  echo "regenerate: wrote $compare.{md,json,png}"
fi

# The ADI tables from the committed benchmark JSON, as the adi stage of characterize_gpu.sh writes
# them (scripts/adi_report.py); their plot below, once adi.csv carries its provenance columns.
for dir in results/*/; do
  dir=${dir%/}
  if [ -f "$dir/adi.json" ]; then
    extra=()
    [ -f "$dir/tridiagonal.json" ] && extra+=(--tridiagonal "$dir/tridiagonal.json")
    for p in double single; do
      [ -f "$dir/adi-dram-$p-2048.json" ] && extra+=(--dram "$dir/adi-dram-$p-2048.json")
    done
    python3 scripts/adi_report.py --adi "$dir/adi.json" "${extra[@]}" --out "$dir" >/dev/null
    echo "regenerate: wrote $dir/adi.{md,csv}, tridiagonal.{md,csv}"
  fi
done

# The microbenchmarks' plots and the roofline of each GPU's measured ceilings.
for dir in results/*/; do
  dir=${dir%/}
  if [ -f "$dir/ubench.csv.xz" ]; then
    python3 scripts/plot_ubench.py "$dir/ubench.csv.xz" >/dev/null
    echo "regenerate: wrote $dir/ubench_*.png"
  fi
  if [ -f "$dir/device.json" ] && grep -q '"measurements"' "$dir/device.json"; then
    python3 scripts/plot_roofline.py "$dir/device.json" >/dev/null
    echo "regenerate: wrote $dir/roofline.png"
  fi
done

# The FWI's phases beside the study's (scripts/fwi_report.py) from the committed run-fwi and profile JSON
# (results/<gpu>/fwi/), and the stencils' energy beside seed 004 (scripts/energy_report.py) from the
# committed run-stencil --energy JSON (results/<gpu>/energy/).
for dir in results/*/; do
  dir=${dir%/}
  if compgen -G "$dir/fwi/run-*.json*" >/dev/null; then
    args=()
    for f in "$dir"/fwi/run-*.json*; do args+=(--run "$f"); done
    predicted=()
    # The launches' energy as the model predicts it (held out: docs/energy.md), where the device has
    # energy coefficients: `predict_energy FLAG FILE` adds the profile (after FLAG) and its predict-app JSON.
    energy=
    if [ -f "$dir/device.json" ] && grep -q '"static_w"' "$dir/device.json"; then energy=yes; fi
    predict_energy() {
      predicted+=("$(mktemp)")
      $bin predict-app --profile "$2" --device "$dir/device.json" --binary "$bin" --format json -o "${predicted[-1]}" >/dev/null
      args+=("$1" "$2" --predicted "${predicted[-1]}")
    }
    for f in "$dir"/fwi/profile-*.json*; do
      [ -f "$f" ] || continue
      if [ -n "$energy" ]; then predict_energy --profile "$f"; else args+=(--profile "$f"); fi
    done
    # The same launches with the model's metric set (fwi_device_run.sh's energy-profile): their
    # predictions take the place of the study's set's for the energy.
    for f in "$dir"/fwi/energy-profile-*.json*; do
      if [ -f "$f" ] && [ -n "$energy" ]; then predict_energy --energy-profile "$f"; fi
    done
    python3 scripts/fwi_report.py "${args[@]}" --device "$dir/device.json" --out "$dir" >/dev/null
    [ ${#predicted[@]} -eq 0 ] || rm -f "${predicted[@]}"
    echo "regenerate: wrote $dir/fwi.{md,csv}"
  fi
  if compgen -G "$dir/energy/stencil-*.json" >/dev/null; then
    args=() predicted=""
    for f in "$dir"/energy/stencil-*.json; do args+=(--run "$f"); done
    # The same launches' counters (scripts/fwi_device_run.sh): their energy as the model predicts it.
    profile=$(compgen -G "$dir/energy/profile-stencil-*.json*" | head -1 || true)
    if [ -n "$profile" ] && [ -f "$dir/device.json" ]; then
      predicted=$(mktemp)
      $bin predict-app --profile "$profile" --device "$dir/device.json" --binary "$bin" --format json -o "$predicted" >/dev/null
      args+=(--profile "$profile" --predicted "$predicted" --device "$dir/device.json")
    fi
    python3 scripts/energy_report.py "${args[@]}" --out "$dir" >/dev/null
    [ -z "$predicted" ] || rm -f "$predicted"
    echo "regenerate: wrote $dir/energy.{md,csv}"
  fi
done

# One provenance record per output in each folder (scripts/provenance_index.py), and the provenance
# columns of the tables computed from measurements, which the stencil tables and the ADI plot read.
python3 scripts/provenance_index.py index results

# The stencil benchmarks' tables (scripts/stencil_report.py), whose references come from device.json.
for dir in results/*/; do
  dir=${dir%/}
  if [ -f "$dir/stencils.json.xz" ] && [ -f "$dir/device.json" ]; then
    python3 scripts/stencil_report.py bench --json "$dir/stencils.json.xz" --device "$dir/device.json" \
      --provenance "$dir/provenance.json" --md "$dir/stencils.md" --csv "$dir/stencils.csv" >/dev/null
    echo "regenerate: wrote $dir/stencils.{md,csv}"
  fi
done

# The ADI steps' plot (scripts/plot_adi.py), titled with the GPU its provenance columns name.
for dir in results/*/; do
  dir=${dir%/}
  if [ -f "$dir/adi.csv" ]; then
    python3 scripts/plot_adi.py "$dir/adi.csv" >/dev/null
    echo "regenerate: wrote $dir/adi_steps.png"
  fi
done

# The one-page report of each GPU (README.md), from what its folder holds now.
for dir in results/*/; do
  dir=${dir%/}
  if [ -f "$dir/device.json" ]; then
    python3 scripts/gpu_report.py "$dir" >/dev/null
    echo "regenerate: wrote $dir/README.md"
  fi
done

# The records of what was written since (the reports), in the same files.
python3 scripts/provenance_index.py index results >/dev/null
