#!/bin/bash
# Probe: fused-cluster with PCR until the reduced rows decouple (pcr, the working tree on 4eff917) against
# base (4eff917: every PCR level) and lb (pcr with the load-balancing cluster scheduling policy for the y-sweep).
# Tests and sanitizers of pcr, then A/B/C alternated twice on one card.
set -u
export LD_LIBRARY_PATH=$PWD/exp/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader | tee $OUT/gpu.txt
date -Iseconds > $OUT/date.txt
timeout 150 exp/bin/pcr/test_adi_gpu > $OUT/test-pcr.txt 2>&1; echo "test_adi_gpu pcr rc=$?"; grep -E "PASSED|FAILED|differ" $OUT/test-pcr.txt | head -14
for tool in memcheck racecheck; do
  timeout 150 compute-sanitizer --tool $tool exp/bin/pcr/test_adi_gpu --gtest_filter='Sanitizer.FusedClusterSmall' > $OUT/$tool-pcr.txt 2>&1; echo "$tool rc=$?"; tail -2 $OUT/$tool-pcr.txt
done
F='copy/d2d/1024|adi/fused-cluster/(double|single)/(1024|2048|4096)/(step/|sweep-x|sweep-y)'
for r in 1 2; do for v in base pcr lb; do
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
cd $OUT && tar czf probe.tgz gpu.txt date.txt bench-*.json err-*.txt test-pcr.txt memcheck-pcr.txt racecheck-pcr.txt && rm -f bench-*.json err-*.txt test-pcr.txt memcheck-pcr.txt racecheck-pcr.txt
