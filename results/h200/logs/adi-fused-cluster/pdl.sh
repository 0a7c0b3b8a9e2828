#!/bin/bash
# Probe (twenty-first session): fused-cluster's y-sweep with its trips' index arithmetic unsigned and the store
# unrolled (ClusterTrips; u), and that with programmatic dependent launch between the sweeps (up), against
# base (f620148). Tests and sanitizers of up, then the three bench_adi builds alternated twice.
set -u
export LD_LIBRARY_PATH=$PWD/exp/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader | tee $OUT/gpu.txt
date -Iseconds > $OUT/date.txt
timeout 150 exp/bin/up/test_adi_gpu > $OUT/test-up.txt 2>&1; echo "test_adi_gpu up rc=$?"; grep -E "PASSED|FAILED|tests ran" $OUT/test-up.txt | head -8
for tool in memcheck racecheck; do
  timeout 150 compute-sanitizer --tool $tool exp/bin/up/test_adi_gpu --gtest_filter='Sanitizer.FusedClusterSmall' > $OUT/$tool-up.txt 2>&1; echo "$tool rc=$?"; tail -2 $OUT/$tool-up.txt
done
F='copy/d2d/1024|adi/fused-cluster/(double|single)/(1024|2048|4096|3072x1024)/(step|sweep-x|sweep-y)'
for r in 1 2; do for v in base u up; do
  timeout 120 exp/bin/$v/bench_adi --benchmark_filter="$F" --benchmark_out=$OUT/bench-$v-$r.json --benchmark_out_format=json > /dev/null 2>$OUT/err-$v-$r.txt || echo "rc=$? $v $r"
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
for k, row in t.items():
    if "2048" in k or "4096" in k: print(k, row)
PY
cd $OUT && tar czf probe.tgz gpu.txt date.txt bench-*.json err-*.txt test-up.txt memcheck-up.txt racecheck-up.txt && rm -f bench-*.json err-*.txt test-up.txt memcheck-up.txt racecheck-up.txt
