#!/usr/bin/env bash
# The main job. Builds warpmodel, then regenerates every table and plot from committed inputs and
# measurements (no GPU needed):
#   results/k40-thesis/   the thesis's worked example and tables 4.5/4.7, recomputed
# With a GPU present, later stages (characterize, profile, validate) measure it first.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
bin=build/cli/warpmodel
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
echo "run: wrote $out/"

$bin reproduce-thesis
