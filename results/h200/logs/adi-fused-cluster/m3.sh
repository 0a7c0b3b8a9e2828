#!/bin/bash
# fused-cluster with PCR until decoupled, clusters of 16 at 2048/4096 rows and the cubic reciprocal: the adi stage
# (bench_adi every variant, DRAM per step, report), then run-adi of fused-cluster as a user would.
# bash exp/cluster_m1.sh <full commit>
set -u
export WARPMODEL_GIT_COMMIT=$1
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader | tee $OUT/gpu.txt
date -Iseconds > $OUT/date.txt
timeout 520 scripts/characterize_gpu.sh --only build,adi results/h200 > $OUT/characterize.txt 2>&1; echo "characterize rc=$?"
tail -4 $OUT/characterize.txt
mkdir -p $OUT/h200
cp results/h200/adi.json results/h200/adi.md results/h200/adi.csv results/h200/tridiagonal.* results/h200/adi-dram-* \
   results/h200/characterize_gpu.provenance.json results/h200/adi_steps.png $OUT/h200/ 2>/dev/null
grep -E "fused-cluster" results/h200/adi.md | head -12
W=$(find build -name warpmodel -type f -perm -u+x | head -1)
export LD_LIBRARY_PATH=$PWD/exp/lib:${LD_LIBRARY_PATH:-}
timeout 40 $W run-adi --variant fused-cluster --size 2048 --steps 100 --precision double -o $OUT/run-adi-2048-double.json > $OUT/run-adi-2048-double.txt 2>&1; echo "run-adi 2048 rc=$?"
timeout 60 $W run-adi --variant fused-cluster --size 1024 --steps 100 --precision double --check -o $OUT/run-adi-1024-double-check.json > $OUT/run-adi-1024-double-check.txt 2>&1; echo "run-adi 1024 check rc=$?"
timeout 60 $W run-adi --variant fused-cluster --size 1024 --steps 100 --precision single --check -o $OUT/run-adi-1024-single-check.json > $OUT/run-adi-1024-single-check.txt 2>&1; echo "run-adi 1024 single check rc=$?"
cat $OUT/run-adi-*.txt | grep -E "per step|check|graphs"
date -Iseconds >> $OUT/date.txt
cd $OUT && tar czf m1.tgz gpu.txt date.txt characterize.txt h200 run-adi-* && rm -rf h200 run-adi-* characterize.txt
