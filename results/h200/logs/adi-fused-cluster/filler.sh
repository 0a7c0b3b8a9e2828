#!/bin/bash
# Probe (twenty-third session, not kept): the y-sweep's idle cluster slots filled by a second launch on a side
# stream (the last columns in clusters of 4, filler.patch), against no filler (the same binary without the
# variables). WARPMODEL_PROBE_FILLER = a multiple of the share of block slots that the main launch's clusters
# leave idle (cudaOccupancyMaxActiveClusters against blocks an SM x SMs), WARPMODEL_PROBE_FILLER_COLUMNS = a
# number of columns; WARPMODEL_PROBE_FILLER_PRIO: the main launch's stream at the greatest priority;
# WARPMODEL_PROBE_FILLER_WIDTH: the filler's cluster width (4 or 8).
set -u
export LD_LIBRARY_PATH=$PWD/exp/lib:${LD_LIBRARY_PATH:-}
B=exp/bin/filler
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader | tee $OUT/gpu.txt
date -Iseconds > $OUT/date.txt
for s in 1024 2048 4096; do for p in double single; do
  timeout 30 $B/warpmodel run-adi --variant fused-cluster --size $s --steps 2 --precision $p 2>&1 | grep PROBE
done; done | tee $OUT/occupancy.txt
for p in double single; do
  WARPMODEL_PROBE_FILLER_COLUMNS=128 timeout 60 $B/warpmodel run-adi --variant fused-cluster --size 1024 --steps 100 \
    --precision $p --check -o $OUT/check-1024-$p.json > $OUT/check-1024-$p.txt 2>&1; echo "check $p rc=$?"
  grep -iE "check|PROBE" $OUT/check-1024-$p.txt | head -3
done
WARPMODEL_PROBE_FILLER=0.5 timeout 60 $B/warpmodel run-adi --variant fused-cluster --size 2048 --steps 100 --precision double \
  -o $OUT/run-adi-2048-f050.json > $OUT/run-adi-2048-f050.txt 2>&1; echo "run-adi rc=$?"; grep -iE "median|graphs|PROBE" $OUT/run-adi-2048-f050.txt
WARPMODEL_PROBE_FILLER=1.0 timeout 150 $B/test_adi_gpu > $OUT/test-f100.txt 2>&1; echo "test_adi_gpu rc=$?"; grep -E "PASSED|FAILED|tests ran" $OUT/test-f100.txt | head -8
for tool in memcheck racecheck; do
  WARPMODEL_PROBE_FILLER_COLUMNS=32 timeout 120 compute-sanitizer --tool $tool $B/warpmodel run-adi --variant fused-cluster \
    --size 64 --steps 2 --precision double > $OUT/$tool.txt 2>&1; echo "$tool rc=$?"; grep -E "PROBE|SUMMARY" $OUT/$tool.txt
done
F='adi/fused-cluster/(double|single)/(1024|2048|4096)/(step|sweep-y)'
run() { # name env...
  local n=$1; shift
  env "$@" timeout 100 $B/bench_adi --benchmark_filter="$F" --benchmark_out=$OUT/bench-$n-$r.json --benchmark_out_format=json > /dev/null 2>$OUT/err-$n-$r.txt || echo "rc=$? $n $r"
}
for r in 1 2; do
  run base X=1
  run f050 WARPMODEL_PROBE_FILLER=0.5
  run f100 WARPMODEL_PROBE_FILLER=1.0
  run f150 WARPMODEL_PROBE_FILLER=1.5
  run f050p WARPMODEL_PROBE_FILLER=0.5 WARPMODEL_PROBE_FILLER_PRIO=1
  run f100w8 WARPMODEL_PROBE_FILLER=1.0 WARPMODEL_PROBE_FILLER_WIDTH=8
  date -Iseconds >> $OUT/date.txt
done
grep -h PROBE $OUT/err-f050-1.txt | sort -u
grep -h PROBE $OUT/err-f150-1.txt | sort -u
python3 scripts/compare_bench_runs.py $OUT base,f050,f100,f150,f050p,f100w8 -o $OUT/ab.md && cat $OUT/ab.md
cd $OUT && tar czf probe.tgz *.txt *.json *.md && ls | grep -v probe.tgz | xargs rm -f
