#!/bin/bash
# Probe (twenty-second session, not kept): where and when fused-cluster's y-sweep blocks run (%smid, %globaltimer,
# clock64 after each phase; placement.patch), and clusters of 4 and 8 columns against 16 at 2048^2 and 4096^2
# (WARPMODEL_PROBE_COLUMNS, the same binary), then Nsight Compute's per-instruction stall sampling of the y-sweep.
set -u
export LD_LIBRARY_PATH=$PWD/exp/lib:${LD_LIBRARY_PATH:-}
P=exp/bin/probe
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader | tee $OUT/gpu.txt
date -Iseconds > $OUT/date.txt
for w in default 4 8; do
  for prec in double single; do
    if [ $w = default ]; then unset WARPMODEL_PROBE_COLUMNS; else export WARPMODEL_PROBE_COLUMNS=$w; fi
    WARPMODEL_PROBE_PLACEMENT=$OUT/placement-$prec-2048-w$w.csv timeout 60 $P/warpmodel run-adi --variant fused-cluster \
      --size 2048 --steps 4 --precision $prec -o $OUT/run-adi-$prec-2048-w$w.json > $OUT/run-adi-$prec-2048-w$w.txt 2>&1
    echo "placement $w $prec rc=$?"; grep -E "median|graphs" $OUT/run-adi-$prec-2048-w$w.txt | head -2
  done
done
for w in 4 8; do
  WARPMODEL_PROBE_COLUMNS=$w timeout 60 $P/warpmodel run-adi --variant fused-cluster --size 1024 --steps 100 \
    --precision double --check -o $OUT/check-1024-w$w.json > $OUT/check-1024-w$w.txt 2>&1; echo "check w$w rc=$?"
  grep -E "check" $OUT/check-1024-w$w.txt
done
unset WARPMODEL_PROBE_COLUMNS
F='adi/fused-cluster/(double|single)/(1024|2048|4096)/(step|sweep-y)'
for r in 1 2; do for w in default 4 8; do
  if [ $w = default ]; then unset WARPMODEL_PROBE_COLUMNS; else export WARPMODEL_PROBE_COLUMNS=$w; fi
  timeout 120 $P/bench_adi --benchmark_filter="$F" --benchmark_out=$OUT/bench-w$w-$r.json --benchmark_out_format=json > /dev/null 2>$OUT/err-w$w-$r.txt || echo "rc=$? w$w $r"
done; done
unset WARPMODEL_PROBE_COLUMNS
date -Iseconds >> $OUT/date.txt
timeout 150 ncu --kernel-name regex:cluster_sweep_kernel --launch-skip 5 --launch-count 1 --section SourceCounters \
  --section WarpStateStats --page source --print-source sass --csv \
  $P/bench_adi --benchmark_filter='adi/fused-cluster/double/2048/sweep-y' > $OUT/ncu-source-sweep-y.csv 2> $OUT/ncu-source-sweep-y.err
echo "ncu rc=$?"; wc -l $OUT/ncu-source-sweep-y.csv; head -3 $OUT/ncu-source-sweep-y.err
date -Iseconds >> $OUT/date.txt
python3 - <<'PY'
import json, os, collections
out = os.environ["OUT"]; t = collections.defaultdict(dict)
for f in sorted(os.listdir(out)):
    if f.startswith("bench-") and f.endswith(".json"):
        v, r = f[6:-5].rsplit("-", 1)
        try: bs = json.load(open(os.path.join(out, f)))["benchmarks"]
        except Exception as e: print(f, e); continue
        for b in bs:
            t[b["name"].split("/iterations")[0]][f"{v}-{r}"] = round(b["median_s"] * 1e6, 1)
for k, row in t.items(): print(k, row)
PY
cd $OUT && tar czf probe.tgz *.csv *.json *.txt *.err && ls | grep -v probe.tgz | xargs rm -f
