#!/bin/bash
# Probe: fused-cluster's y-sweep by clusters of 16 columns (c16: non-portable cluster size, each block 16 columns x
# R/16... rows, whole 128-byte rows a warp) and the double reciprocal without its last Newton step (rcp), against cur
# (68cb654). Tests of c16 (its agreement with fused at 256^2: the other fused-cluster test sizes have rows that
# are not a multiple of 128) and rcp (every test: GPU vs CPU after 100 steps), then A/B/C alternated twice.
set -u
export LD_LIBRARY_PATH=$PWD/exp/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader | tee $OUT/gpu.txt
date -Iseconds > $OUT/date.txt
timeout 100 exp/bin/c16/test_adi_gpu --gtest_filter='GpuSolver.FusedClusterAgreesWithFused' > $OUT/test-c16.txt 2>&1; echo "test c16 rc=$?"; grep -E "PASSED|FAILED|differ" $OUT/test-c16.txt | head -8
timeout 150 exp/bin/rcp/test_adi_gpu > $OUT/test-rcp.txt 2>&1; echo "test rcp rc=$?"; grep -E "PASSED|FAILED" $OUT/test-rcp.txt | head -4
F='copy/d2d/1024|adi/fused-cluster/(double|single)/(1024|2048|4096)/(step/|sweep-x|sweep-y)'
for r in 1 2; do for v in cur c16 rcp; do
  timeout 100 exp/bin/$v/bench_adi --benchmark_filter="$F" --benchmark_out=$OUT/bench-$v-$r.json --benchmark_out_format=json > /dev/null 2>$OUT/err-$v-$r.txt || echo "rc=$? $v $r"
done; done
date -Iseconds >> $OUT/date.txt
python3 - <<'PY'
import json, os, collections
out = os.environ["OUT"]; t = collections.defaultdict(dict)
for f in sorted(os.listdir(out)):
    if f.startswith("bench-") and f.endswith(".json"):
        v, r = f[6:-5].rsplit("-", 1)
        for b in json.load(open(os.path.join(out, f)))["benchmarks"]:
            t[b["name"].split("/iterations")[0]][f"{v}-{r}"] = round(b["median_s"] * 1e6, 1)
for k, row in t.items(): print(k, row)
PY
cd $OUT && tar czf probe.tgz gpu.txt date.txt bench-*.json err-*.txt test-c16.txt test-rcp.txt && rm -f bench-*.json err-*.txt test-c16.txt test-rcp.txt
