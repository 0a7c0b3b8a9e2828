#!/bin/bash
# Probe (second call): c16's benchmarks (its bench_adi built again with the traffic context at 128^2: at 64 rows
# fused-cluster with clusters of 16 is refused) against cur, alternated twice.
set -u
export LD_LIBRARY_PATH=$PWD/exp/lib:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader | tee $OUT/gpu.txt
date -Iseconds > $OUT/date.txt
F='copy/d2d/1024|adi/fused-cluster/(double|single)/(1024|2048|4096)/(step/|sweep-x|sweep-y)'
for r in 1 2; do for v in cur c16; do
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
