#!/bin/bash
# Last call of the session: cy8lp's GPU tests, the A/B (base, cy8b, cy8lp alternated twice), then memcheck and racecheck.
export LD_LIBRARY_PATH=$PWD/build/devlib
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader | tee $OUT/gpu.txt
timeout 40 exp/bin/cy8lp/test_adi_gpu > $OUT/test-cy8lp.txt 2>&1; echo "test rc=$?"; grep -E "^\[  (PASSED|FAILED)  \] [0-9]" $OUT/test-cy8lp.txt; grep -cE "OK \].*HundredStepsAgree/Fused" $OUT/test-cy8lp.txt
F='copy/d2d/256|adi/fused/double/(1024|2048|4096)/(step|sweep-y)|adi/fused/single/(1024|2048)/step'
for r in 1 2; do for v in base cy8b cy8lp; do
  timeout 40 exp/bin/$v/bench_adi --benchmark_filter="$F" --benchmark_out=$OUT/bench-$v-$r.json --benchmark_out_format=json > /dev/null 2>$OUT/err-$v-$r.txt || echo "rc=$? $v"
done; done
date -Iseconds | tee $OUT/date.txt
for tool in memcheck racecheck; do timeout 25 compute-sanitizer --tool $tool exp/bin/cy8lp/test_adi_gpu --gtest_filter='*HundredStepsAgree/Fused8_double_256' > $OUT/$tool-cy8lp.txt 2>&1; echo "$tool rc=$?"; tail -1 $OUT/$tool-cy8lp.txt; done
cd $OUT && tar czf r.tgz *.txt *.json && rm -f *.txt *.json
