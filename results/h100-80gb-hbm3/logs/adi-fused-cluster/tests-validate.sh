#!/bin/bash
# The issue-15 variants on another GPU, call 1 of 2: built on the device, the GPU tests, then the ADI rows of the
# validation sweep re-measured (fused-cluster joins this GPU's sweep). The same steps as the H200's m4.sh, for any
# results folder. bash tests-validate.sh <full commit> <results folder>
set -u
export WARPMODEL_GIT_COMMIT=$1
dir=$2
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader | tee $OUT/gpu.txt
date -Iseconds > $OUT/date.txt
VALIDATE_FAMILIES=adi timeout 560 scripts/characterize_gpu.sh --only build,gpu-tests,validate $dir > $OUT/characterize.txt 2>&1; echo "characterize rc=$?"
tail -6 $OUT/characterize.txt
grep -E "tests passed|Failed|FAILED|\*\*\*" $dir/gpu-tests.log | head -10
tail -3 $dir/validation-sweep.log
date -Iseconds >> $OUT/date.txt
tar czf $OUT/tests-validate.tgz -C . $dir/validation-measurements.json $dir/validation-sweep.log \
  $dir/validation-nvidia-smi.txt $dir/characterize_gpu.provenance.json $dir/gpu-tests.log $dir/access-patterns.json \
  -C $OUT characterize.txt gpu.txt date.txt
