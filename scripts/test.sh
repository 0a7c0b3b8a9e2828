#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds, runs every ctest test. Tests labelled
# gpu report "skipped" on a machine without a GPU (they exit 77).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
ctest --test-dir build --output-on-failure -j"$(nproc)"
