#!/bin/bash
# A/B of probe binaries against base, alternated on one card: VARIANTS="base x y" TESTED=x FILTER=...
export LD_LIBRARY_PATH=$PWD/build/devlib
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader | tee $OUT/gpu.txt
for t in $TESTED; do timeout 200 exp/bin/$t/test_adi_gpu > $OUT/test-$t.txt 2>&1; echo "test $t rc=$?"; tail -1 $OUT/test-$t.txt; done
F=${FILTER:-"copy/d2d/256|adi/fused/.*/step/|adi/fused/(double|single)/(2048|4096)/(sweep-|transpose-)"}
for r in 1 2; do
  for v in $VARIANTS; do
    exp/bin/$v/bench_adi --benchmark_filter="$F" --benchmark_out=$OUT/bench-$v-$r.json --benchmark_out_format=json > /dev/null 2>$OUT/err-$v-$r.txt || echo "rc=$? $v"
  done
done
date -Iseconds | tee $OUT/date.txt
cd $OUT && tar czf r.tgz *.txt *.json && rm -f *.txt *.json
