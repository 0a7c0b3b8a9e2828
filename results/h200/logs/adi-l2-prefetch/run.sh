#!/bin/bash
# usage: prefetch.sh  (run on the device from the repo root)
export LD_LIBRARY_PATH=$PWD/build/devlib
B=build/stencils/adi/bench_adi
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/gpu.txt
build/tests/adi/test_adi_gpu --gtest_filter='*Fused*:GpuSolver.*' 2>&1 | tail -3 | tee $OUT/test.txt
for a in 0 264 132 528 0 264; do
  WARPMODEL_ADI_PREFETCH=$a $B --benchmark_filter="copy/d2d/256|adi/fused/(double|single)/(1024|2048|4096)/" \
     --benchmark_out=$OUT/bench-pf$a-$RANDOM.json --benchmark_out_format=json > /dev/null 2>$OUT/err-$a.txt || echo "rc=$? a=$a"
done
date -Iseconds > $OUT/date.txt
