#!/bin/bash
# A/B of the band transposes + two-buffer PCR (exp/bin/new, working tree on b7b2aa8) against b7b2aa8
# (exp/bin/base): GPU tests and compute-sanitizer of the new binary first, then both bench_adi binaries
# alternated twice on one card. Run from the repository root on the device.
export LD_LIBRARY_PATH=$PWD/build/devlib
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader | tee $OUT/gpu.txt
timeout 240 exp/bin/new/test_adi_gpu > $OUT/test.txt 2>&1; echo "test rc=$?"; tail -3 $OUT/test.txt
for tool in memcheck racecheck; do
  timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 exp/bin/new/test_adi_gpu --gtest_filter='Sanitizer.FusedSmall' > $OUT/$tool.txt 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/$tool.txt | tr '\n' ' ')"
done
F=${FILTER:-'copy/d2d/256|adi/fused/.*/step/|adi/fused/(double|single)/(2048|4096)/sweep-'}
for r in 1 2; do
  for v in ${VARIANTS:-base new}; do
    exp/bin/$v/bench_adi --benchmark_filter="$F" --benchmark_out=$OUT/bench-$v-$r.json --benchmark_out_format=json > /dev/null 2>$OUT/err-$v-$r.txt || echo "rc=$? $v"
  done
done
date -Iseconds | tee $OUT/date.txt
cd $OUT && tar czf r.tgz *.txt *.json && rm -f *.txt *.json
