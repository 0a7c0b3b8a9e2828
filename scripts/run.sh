#!/usr/bin/env bash
# The main job. Installs what is missing and builds warpmodel, then regenerates every table and plot
# from committed inputs and measurements (scripts/regenerate_results.sh; no GPU needed) and prints
# the thesis reproduction. On a GPU machine, scripts/characterize_gpu.sh measures a GPU first.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${WARPMODEL_BIN:-}
if [ -z "$bin" ]; then scripts/setup.sh; bin=build/cli/warpmodel; fi
WARPMODEL_BIN=$bin scripts/regenerate_results.sh
$bin reproduce-thesis
