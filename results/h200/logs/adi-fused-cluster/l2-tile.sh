#!/bin/bash
# Probe (twenty-third session): each fused-cluster block prefetches its own inputs into L2 at its start
# (l2-tile.patch): WARPMODEL_PROBE_PF bit 1, the y-sweep's tile (rows row0-1 .. row0+R+1 of its W columns, the
# five fields, prefetch.global.L2 of every 32-byte sector); bit 2, the x-sweep's line and its two neighbours
# (cp.async.bulk.prefetch.L2 of each field's whole line). The same binary without the variable is the base.
set -u
export LD_LIBRARY_PATH=$PWD/exp/lib:${LD_LIBRARY_PATH:-}
B=exp/bin/pf
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader | tee $OUT/gpu.txt
date -Iseconds > $OUT/date.txt
WARPMODEL_PROBE_PF=3 timeout 150 $B/test_adi_gpu > $OUT/test-pf3.txt 2>&1; echo "test_adi_gpu rc=$?"; grep -E "PASSED|FAILED|tests ran" $OUT/test-pf3.txt | head -8
F='copy/d2d/1024|adi/fused-cluster/(double|single)/(1024|2048|4096)/(step|sweep-x|sweep-y)'
run() { # name env...
  local n=$1; shift
  env "$@" timeout 100 $B/bench_adi --benchmark_filter="$F" --benchmark_out=$OUT/bench-$n-$r.json --benchmark_out_format=json > /dev/null 2>$OUT/err-$n-$r.txt || echo "rc=$? $n $r"
}
for r in 1 2; do
  run base X=1
  run y WARPMODEL_PROBE_PF=1
  run x WARPMODEL_PROBE_PF=2
  run xy WARPMODEL_PROBE_PF=3
  date -Iseconds >> $OUT/date.txt
done
python3 scripts/compare_bench_runs.py $OUT base,y,x,xy -o $OUT/ab.md && grep -E "^\| " $OUT/ab.md
cd $OUT && tar czf probe.tgz *.txt *.json *.md && ls | grep -v probe.tgz | xargs rm -f
