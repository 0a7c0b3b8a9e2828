#!/bin/bash
# rcp3 (the double reciprocal without its last Newton step; probe, not kept): the GPU tests (100-step
# agreement with the CPU reference), then base and rcp3 alternated twice over every fused size.
export LD_LIBRARY_PATH=$PWD/build/devlib
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader | tee $OUT/gpu.txt
timeout 90 exp/bin/rcp3/test_adi_gpu > $OUT/test-rcp3.txt 2>&1; echo "test rcp3 rc=$?"; grep -E "^\[  (PASSED|FAILED)  \] [0-9]" $OUT/test-rcp3.txt; grep -cE "OK \].*HundredStepsAgree/Fused" $OUT/test-rcp3.txt
F='copy/d2d/256|adi/fused(/c4)?/(double|single)/[0-9x]+/step'
for r in 1 2; do for v in base rcp3; do
  timeout 90 exp/bin/$v/bench_adi --benchmark_filter="$F" --benchmark_out=$OUT/bench-$v-$r.json --benchmark_out_format=json > /dev/null 2>$OUT/err-$v-$r.txt || echo "rc=$? $v"
done; done
date -Iseconds | tee $OUT/date.txt
cd $OUT && tar czf r.tgz *.txt *.json && rm -f *.txt *.json
