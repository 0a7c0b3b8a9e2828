#!/bin/bash
# The GPU tests on the H200 after the last change to GPU-built code (6dc185a: the y-sweep's ClusterTrips
# refactor and run-adi's JSON record), which until then had run on an H100 only: ctest -L gpu -E vs_ncu built on
# the device, the run-adi CLI tests, compute-sanitizer memcheck, racecheck and synccheck of
# Sanitizer.FusedClusterSmall, and run-adi of fused-cluster at 2048^2 double as a user would run it.
# bash gpu-tests-head.sh <full commit>
set -u
export WARPMODEL_GIT_COMMIT=$1
dir=results/h200
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader | tee $OUT/gpu.txt
date -Iseconds > $OUT/date.txt
timeout 400 scripts/characterize_gpu.sh --only build,gpu-tests $dir > $OUT/characterize.txt 2>&1; echo "characterize rc=$?"
tail -4 $OUT/characterize.txt
grep -E "tests passed|Failed|FAILED|\*\*\*" $dir/gpu-tests.log | head -10
timeout 60 ctest --test-dir build -R RunAdiCli --output-on-failure > $OUT/ctest-run-adi-cli.txt 2>&1; echo "RunAdiCli rc=$?"
grep -E "Test #|tests passed" $OUT/ctest-run-adi-cli.txt
for tool in memcheck racecheck synccheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 build/tests/adi/test_adi_gpu \
    --gtest_filter='Sanitizer.FusedClusterSmall' > $OUT/$tool.txt 2>&1; echo "$tool rc=$?"; tail -2 $OUT/$tool.txt
done
timeout 60 build/cli/warpmodel run-adi --variant fused-cluster --size 2048 --steps 100 --precision double \
  -o $OUT/run-adi-2048-double.json > $OUT/run-adi-2048-double.txt 2>&1; echo "run-adi rc=$?"
grep -E "median|graphs" $OUT/run-adi-2048-double.txt
date -Iseconds >> $OUT/date.txt
cp $dir/gpu-tests.log $dir/characterize_gpu.provenance.json $OUT/
