#!/bin/bash
# The issue-15 variants on another GPU, call 3: the GPU tests built on the device (ctest -L gpu -E vs_ncu, the
# run-adi CLI tests), then compute-sanitizer memcheck, racecheck and synccheck of Sanitizer.FusedClusterSmall on
# this GPU. bash gpu-tests.sh <full commit> <results folder>
set -u
export WARPMODEL_GIT_COMMIT=$1
dir=$2
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader | tee $OUT/gpu.txt
date -Iseconds > $OUT/date.txt
timeout 400 scripts/characterize_gpu.sh --only build,gpu-tests $dir > $OUT/characterize.txt 2>&1; echo "characterize rc=$?"
tail -4 $OUT/characterize.txt
grep -E "tests passed|Failed|FAILED|\*\*\*" $dir/gpu-tests.log | head -10
timeout 60 ctest --test-dir build -R RunAdiCli --output-on-failure > $OUT/ctest-run-adi-cli.txt 2>&1; echo "RunAdiCli rc=$?"
grep -E "tests passed" $OUT/ctest-run-adi-cli.txt
for tool in memcheck racecheck synccheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 build/tests/adi/test_adi_gpu \
    --gtest_filter='Sanitizer.FusedClusterSmall' > $OUT/$tool.txt 2>&1; echo "$tool rc=$?"; tail -2 $OUT/$tool.txt
done
date -Iseconds >> $OUT/date.txt
cp $dir/gpu-tests.log $dir/characterize_gpu.provenance.json $OUT/
