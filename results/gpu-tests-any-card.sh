#!/bin/bash
# The GPU tests on whichever card the device machine is, into that card's own folder (results/<gpu slug>):
# ctest -L gpu -E vs_ncu built on the device (scripts/characterize_gpu.sh --only build,gpu-tests), the CLI
# tests that need a GPU to take their GPU path (RunAdiCli, Cli.ValidateMeasureRefusesAnotherGpusFolder) and the
# folder guard of characterize_gpu.sh on the real card, compute-sanitizer memcheck, racecheck and synccheck of
# Sanitizer.FusedClusterSmall, and run-adi of fused-cluster at 2048^2 double as a user would run it.
# bash results/gpu-tests-any-card.sh <full commit>
set -u
export WARPMODEL_GIT_COMMIT=$1
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
slug=$(echo "$name" | tr '[:upper:]' '[:lower:]' | sed -e 's/^nvidia //' -e 's/[^a-z0-9]\+/-/g' -e 's/^-//' -e 's/-$//')
dir=results/$slug
echo "card: $name -> $dir"
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader | tee $OUT/gpu.txt
date -Iseconds > $OUT/date.txt
timeout 400 scripts/characterize_gpu.sh --only build,gpu-tests $dir > $OUT/characterize.txt 2>&1; echo "characterize rc=$?"
tail -4 $OUT/characterize.txt
grep -E "tests passed|Failed|FAILED|\*\*\*" $dir/gpu-tests.log | head -10
timeout 90 ctest --test-dir build -R "RunAdiCli|Cli.ValidateMeasureRefusesAnotherGpusFolder|results.characterize_gpu_guard" \
  --output-on-failure > $OUT/ctest-cli.txt 2>&1; echo "CLI tests rc=$?"
grep -E "Test #|tests passed" $OUT/ctest-cli.txt
# The guard on the real card: a folder whose provenance names another GPU is refused, nothing written.
other=$(mktemp -d); echo '{"gpu": "Some Other GPU", "gpu_uuid": "GPU-other"}' > $other/characterize_gpu.provenance.json
scripts/characterize_gpu.sh --only gpu-tests $other > $OUT/guard.txt 2>&1; echo "guard rc=$? (2 expected), files: $(ls -A $other | tr '\n' ' ')"
cat $OUT/guard.txt
for tool in memcheck racecheck synccheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 build/tests/adi/test_adi_gpu \
    --gtest_filter='Sanitizer.FusedClusterSmall' > $OUT/$tool.txt 2>&1; echo "$tool rc=$?"; tail -2 $OUT/$tool.txt
done
timeout 60 build/cli/warpmodel run-adi --variant fused-cluster --size 2048 --steps 100 --precision double \
  -o $OUT/run-adi-2048-double.json > $OUT/run-adi-2048-double.txt 2>&1; echo "run-adi rc=$?"
grep -E "median|graphs" $OUT/run-adi-2048-double.txt
date -Iseconds >> $OUT/date.txt
cp $dir/gpu-tests.log $dir/characterize_gpu.provenance.json $OUT/
# One archive (a call returns a few files only).
cd $OUT && tar czf gpu-tests.tgz $(ls -A | grep -v gpu-tests.tgz) && ls -A | grep -v gpu-tests.tgz | xargs rm -f
