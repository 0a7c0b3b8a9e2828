#!/bin/bash
# Probe: fused-cluster with clusters of 16 columns at 2048 and 4096 rows and its kernels in their own translation
# unit with the double reciprocal without its last Newton step (nw, 7a9c557) against cur (68cb654).
# Tests (every ADI GPU test, the cubic reciprocal's error) and sanitizers of nw, then A/B alternated twice.
set -u
export LD_LIBRARY_PATH=$PWD/exp/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader | tee $OUT/gpu.txt
date -Iseconds > $OUT/date.txt
timeout 150 exp/bin/nw/test_adi_gpu > $OUT/test-nw.txt 2>&1; echo "test_adi_gpu nw rc=$?"; grep -E "PASSED|FAILED|differ|worst|FusedCluster.*(double|single) 32x2048" $OUT/test-nw.txt | head -24
for tool in memcheck racecheck; do
  timeout 150 compute-sanitizer --tool $tool exp/bin/nw/test_adi_gpu --gtest_filter='Sanitizer.FusedClusterSmall' > $OUT/$tool-nw.txt 2>&1; echo "$tool rc=$?"; tail -2 $OUT/$tool-nw.txt
done
F='copy/d2d/1024|adi/fused-cluster/(double|single)/(1024|2048|4096|3072x1024)/(step/|sweep-x|sweep-y)'
for r in 1 2; do for v in cur nw; do
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
cd $OUT && tar czf probe.tgz gpu.txt date.txt bench-*.json err-*.txt test-nw.txt memcheck-nw.txt racecheck-nw.txt && rm -f bench-*.json err-*.txt test-nw.txt memcheck-nw.txt racecheck-nw.txt
