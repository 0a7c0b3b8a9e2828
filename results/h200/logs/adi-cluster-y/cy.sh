#!/bin/bash
# Cluster y-sweep probes: tests, memcheck and racecheck on one small case each, then A/B against base (alternated twice).
export LD_LIBRARY_PATH=$PWD/build/devlib
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader | tee $OUT/gpu.txt
for t in $TESTED; do
  timeout 200 exp/bin/$t/test_adi_gpu > $OUT/test-$t.txt 2>&1; echo "test $t rc=$?"; grep -E "^\[  (PASSED|FAILED)  \] [0-9]" $OUT/test-$t.txt
  grep -E "OK \].*HundredStepsAgree/Fused" $OUT/test-$t.txt | wc -l
  for tool in memcheck racecheck; do
    timeout 200 compute-sanitizer --tool $tool exp/bin/$t/test_adi_gpu --gtest_filter='*HundredStepsAgree/Fused8_double_256' > $OUT/$tool-$t.txt 2>&1; echo "$tool $t rc=$?"; tail -1 $OUT/$tool-$t.txt
  done
done
F=${FILTER:-'copy/d2d/256|adi/fused/.*/step/|adi/fused/(double|single)/(1024|2048|4096)/(sweep-|transpose-)'}
for r in 1 2; do
  for v in $VARIANTS; do
    timeout 150 exp/bin/$v/bench_adi --benchmark_filter="$F" --benchmark_out=$OUT/bench-$v-$r.json --benchmark_out_format=json > /dev/null 2>$OUT/err-$v-$r.txt || echo "rc=$? $v"
  done
done
date -Iseconds | tee $OUT/date.txt
cd $OUT && tar czf r.tgz *.txt *.json && rm -f *.txt *.json
