#!/usr/bin/env bash
# The main job. Builds warpmodel, then regenerates every table and plot from committed inputs and
# measurements (no GPU needed):
#   results/k40-thesis/   the thesis's worked example and tables 4.5/4.7, recomputed
# With a GPU present, later stages (characterize, profile, validate) measure it first.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${WARPMODEL_BIN:-}
if [ -z "$bin" ]; then scripts/setup.sh; bin=build/cli/warpmodel; fi
data=model/data

out=results/k40-thesis
mkdir -p "$out"
$bin reproduce-thesis --format markdown --output "$out/reproduction.md"
$bin reproduce-thesis --format csv --output "$out/reproduction.csv"
$bin reproduce-thesis --format json --output "$out/reproduction.json"
$bin predict --device $data/k40-thesis.device.json --kernel $data/stencil-order2-k40-thesis.kernel.json \
  --model all --format csv --output "$out/prediction-all-models.csv"
$bin sweep --device $data/k40-thesis.device.json --kernel $data/stencil-order2-k40-thesis.kernel.json \
  --top 20 --format csv --output "$out/sweep-thesis-2016.csv"
python3 scripts/plot_thesis.py "$out/reproduction.json"
cat >"$out/PROVENANCE.md" <<PROV
# Provenance of results/k40-thesis/

Computed, not measured: every number here is derived by warpmodel from the thesis's printed K40
inputs (model/data/k40-thesis.device.json, model/data/stencil-order2-k40-thesis.kernel.json; each
value there names its source equation or table in seeds/000 chapter 4). No GPU was used.

- generated: $(date -u +%Y-%m-%dT%H:%M:%SZ)
- git commit: $(git rev-parse HEAD 2>/dev/null || echo unknown)$( [ -n "$(git status --porcelain -- model cli 2>/dev/null)" ] && echo " (uncommitted changes in model/ or cli/)")
- commands: scripts/run.sh, i.e. \`warpmodel reproduce-thesis --format markdown|csv|json\`,
  \`warpmodel predict --model all --format csv\`, \`warpmodel sweep --top 20 --format csv\` on the files above,
  and \`scripts/plot_thesis.py reproduction.json\`
PROV
echo "run: wrote $out/"

# Validation tables and plots from the committed measurements of each GPU (warpmodel validate --from).
for dir in results/*/; do
  if [ -f "$dir/validation-measurements.json" ] && [ -f "$dir/device.json" ]; then
    $bin validate --from "$dir"
    python3 scripts/plot_validation.py "$dir/validation.csv"
  fi
done

$bin reproduce-thesis
