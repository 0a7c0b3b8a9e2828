#!/bin/bash
# fused-cluster, first device call: build, GPU tests, sanitizers of the new kernel, a quick A/B of the step.
# bash exp/cluster/run1.sh <full commit>
set -u
export WARPMODEL_GIT_COMMIT=$1
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader | tee $OUT/gpu.txt
date -Iseconds > $OUT/date.txt
timeout 330 scripts/characterize_gpu.sh --only build,gpu-tests results/h200 > $OUT/characterize.txt 2>&1; echo "characterize rc=$?"
tail -5 $OUT/characterize.txt
cp results/h200/gpu-tests.log results/h200/characterize_gpu.provenance.json $OUT/ 2>/dev/null
grep -E "tests passed|Failed|FAILED|\*\*\*" results/h200/gpu-tests.log | head -20
export LD_LIBRARY_PATH=$PWD/build/devlib:${LD_LIBRARY_PATH:-}
T=$(find build -name test_adi_gpu -type f | head -1)
timeout 60 $T --gtest_filter='GpuSolver.FusedCluster*:*FusedCluster*' > $OUT/test-fused-cluster.txt 2>&1; echo "cluster tests rc=$?"
grep -E "differ|PASSED|FAILED" $OUT/test-fused-cluster.txt | head -20
for tool in memcheck racecheck; do
  timeout 150 compute-sanitizer --tool $tool $T --gtest_filter='Sanitizer.FusedClusterSmall' > $OUT/$tool.log 2>&1; echo "$tool rc=$?"; tail -2 $OUT/$tool.log
done
B=$(find build -name bench_adi -type f | head -1)
for r in 1 2; do
  timeout 100 $B --benchmark_filter='copy/d2d/1024|adi/fused(-cluster)?/(double|single)/(1024|2048|4096)/(step|step-graph|sweep-x|sweep-y)$' \
    --benchmark_out=$OUT/ab-$r.json --benchmark_out_format=json > /dev/null 2>$OUT/ab-err-$r.txt; echo "ab $r rc=$?"
done
python3 - <<'PY'
import json, os
for r in (1, 2):
    p = os.path.join(os.environ["OUT"], f"ab-{r}.json")
    if not os.path.exists(p): continue
    for b in json.load(open(p))["benchmarks"]:
        if b["name"].startswith("adi"):
            print(r, b["name"], round(b["median_s"] * 1e6, 1))
PY
date -Iseconds >> $OUT/date.txt
