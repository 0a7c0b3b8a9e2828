#!/bin/bash
# A/B of two bench_adi binaries on the device: build/base/bench_adi (HEAD) against the working tree's.
export LD_LIBRARY_PATH=$PWD/build/devlib
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/gpu.txt
build/tests/adi/test_adi_gpu 2>&1 | tail -3 | tee $OUT/test.txt
F=${FILTER:-"copy/d2d/256|adi/fused/(double|single)/(256|1024|2048|4096)/"}
for r in 1 2; do
  for v in base new; do
    B=build/stencils/adi/bench_adi; [ $v = base ] && B=build/base/bench_adi
    $B --benchmark_filter="$F" --benchmark_out=$OUT/bench-$v-$r.json --benchmark_out_format=json > /dev/null 2>$OUT/err-$v-$r.txt || echo "rc=$? $v"
  done
done
date -Iseconds | tee $OUT/date.txt
cd $OUT && tar czf all.tgz *.json *.txt
