#!/bin/bash
# fused-cluster, third device call: the ADI rows of the validation sweep re-measured (fused-cluster joins
# them), then the new kernel's tests and compute-sanitizer logs. bash exp/cluster/run3.sh <full commit>
set -u
export WARPMODEL_GIT_COMMIT=$1
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader | tee $OUT/gpu.txt
date -Iseconds > $OUT/date.txt
VALIDATE_FAMILIES=adi timeout 420 scripts/characterize_gpu.sh --only build,validate results/h200 > $OUT/characterize.txt 2>&1; echo "characterize rc=$?"
tail -4 $OUT/characterize.txt
tail -5 results/h200/validation-sweep.log
tar czf $OUT/validate.tgz results/h200/validation-measurements.json results/h200/validation-sweep.log \
  results/h200/validation-nvidia-smi.txt results/h200/characterize_gpu.provenance.json
export LD_LIBRARY_PATH=$PWD/build/devlib:${LD_LIBRARY_PATH:-}
mkdir -p $OUT/run3
T=$(find build -name test_adi_gpu -type f | head -1)
timeout 60 $T --gtest_filter='GpuSolver.FusedCluster*:*FusedCluster*' > $OUT/run3/test-fused-cluster.txt 2>&1; echo "cluster tests rc=$?"
grep -E "differ|PASSED|FAILED" $OUT/run3/test-fused-cluster.txt | head -20
for tool in memcheck racecheck; do
  timeout 150 compute-sanitizer --tool $tool $T --gtest_filter='Sanitizer.FusedClusterSmall' > $OUT/run3/$tool-fused-cluster.txt 2>&1; echo "$tool rc=$?"; tail -2 $OUT/run3/$tool-fused-cluster.txt
done
cp $OUT/gpu.txt $OUT/run3/
date -Iseconds | tee -a $OUT/date.txt > $OUT/run3/date.txt
cd $OUT && tar czf run3.tgz run3 && rm -rf run3
