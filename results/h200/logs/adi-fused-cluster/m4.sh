#!/bin/bash
# fused-cluster at its new commit: the GPU tests, then the ADI rows of the validation sweep
# re-measured. bash exp/cluster_m2.sh <full commit>
set -u
export WARPMODEL_GIT_COMMIT=$1
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader | tee $OUT/gpu.txt
date -Iseconds > $OUT/date.txt
VALIDATE_FAMILIES=adi timeout 560 scripts/characterize_gpu.sh --only build,gpu-tests,validate results/h200 > $OUT/characterize.txt 2>&1; echo "characterize rc=$?"
tail -6 $OUT/characterize.txt
grep -E "tests passed|Failed|FAILED|\*\*\*" results/h200/gpu-tests.log | head -10
tail -3 results/h200/validation-sweep.log
date -Iseconds >> $OUT/date.txt
tar czf $OUT/m2.tgz -C . results/h200/validation-measurements.json results/h200/validation-sweep.log \
  results/h200/validation-nvidia-smi.txt results/h200/characterize_gpu.provenance.json results/h200/gpu-tests.log \
  -C $OUT characterize.txt gpu.txt date.txt
