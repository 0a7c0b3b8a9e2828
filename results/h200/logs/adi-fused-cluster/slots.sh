#!/bin/bash
# Probe: fused-cluster's y-sweep, (v2) slots without a runtime division, (rel) v2 + cluster barriers without
# their release fence (timing only). base = HEAD a9ca68b. Alternated twice on one card.
set -u
export LD_LIBRARY_PATH=$PWD/exp/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader | tee $OUT/gpu.txt
date -Iseconds > $OUT/date.txt
# test_adi_gpu of v2 ran in the first call: 73 passed
F='copy/d2d/1024|adi/fused-cluster/(double|single)/(1024|2048|4096)/(step/|sweep-y)'
for r in 1 2; do for v in base v2 rel; do
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
cd $OUT && tar czf probe.tgz gpu.txt date.txt bench-*.json err-*.txt && rm -f bench-*.json err-*.txt
