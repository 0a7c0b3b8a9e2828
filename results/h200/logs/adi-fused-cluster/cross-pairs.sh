#!/bin/bash
# Probe 3 (on 39ead0b): fused-cluster's y-sweep built from cross pairs (xp: cell r of columns w, w+1 from one set of
# -DEXP_CLUSTER_POLICY=2), against base (39ead0b). Tests and sanitizers of xp, then A/B alternated twice.
set -u
export LD_LIBRARY_PATH=$PWD/exp/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader | tee $OUT/gpu.txt
date -Iseconds > $OUT/date.txt
timeout 120 exp/bin/xp/test_adi_gpu > $OUT/test-xp.txt 2>&1; echo "test_adi_gpu xp rc=$?"; grep -E "PASSED|FAILED|differ" $OUT/test-xp.txt | head -12
for tool in memcheck racecheck; do
  timeout 150 compute-sanitizer --tool $tool exp/bin/xp/test_adi_gpu --gtest_filter='Sanitizer.FusedClusterSmall' > $OUT/$tool-xp.txt 2>&1; echo "$tool rc=$?"; tail -2 $OUT/$tool-xp.txt
done
F='copy/d2d/1024|adi/fused-cluster/(double|single)/(1024|2048|4096)/(step/|sweep-y)'
for r in 1 2; do for v in base xp lb; do
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
cd $OUT && tar czf probe3.tgz gpu.txt date.txt bench-*.json err-*.txt test-xp.txt memcheck-xp.txt racecheck-xp.txt && rm -f bench-*.json err-*.txt test-xp.txt memcheck-xp.txt racecheck-xp.txt
