#!/bin/bash
# The GPU tests after the session's last commit touching code built for the GPU. bash exp/cluster/run6.sh <full commit>
set -u
export WARPMODEL_GIT_COMMIT=$1
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader | tee $OUT/gpu.txt
date -Iseconds > $OUT/date.txt
timeout 400 scripts/characterize_gpu.sh --only build,gpu-tests results/h200 > $OUT/characterize.txt 2>&1; echo "characterize rc=$?"
tail -3 $OUT/characterize.txt
cp results/h200/gpu-tests.log results/h200/characterize_gpu.provenance.json $OUT/
grep -E "tests passed|Failed|\*\*\*" results/h200/gpu-tests.log | head
export LD_LIBRARY_PATH=$PWD/build/devlib:${LD_LIBRARY_PATH:-}
mkdir -p $OUT/run6
ctest --test-dir build -R RunAdiCli --output-on-failure > $OUT/run6/ctest-run-adi-cli.txt 2>&1; echo "RunAdiCli rc=$?"; grep "tests passed" $OUT/run6/ctest-run-adi-cli.txt
W=$(find build -name warpmodel -type f -perm -u+x | head -1)
timeout 60 $W run-adi --variant fused-cluster --size 3072 --rows 1024 --steps 100 --precision double -o $OUT/run6/run-adi-3072x1024-double.json > $OUT/run6/run-adi-3072x1024-double.txt 2>&1; echo "run-adi 3072x1024 rc=$?"
grep -E "per step|graphs" $OUT/run6/run-adi-3072x1024-double.txt
cp $OUT/gpu.txt $OUT/run6/; date -Iseconds | tee -a $OUT/date.txt > $OUT/run6/date.txt
cd $OUT && tar czf run6.tgz run6 && rm -rf run6
