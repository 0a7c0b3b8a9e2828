#!/bin/bash
# A/B/C of three bench_adi binaries on one card, alternated: build/base/bench_adi (8d91bbc: rows in
# registers, five values a cell), build/stencils/adi/bench_adi (the working tree: rows and chain in
# shared memory, four values a cell, the registers of 8d91bbc's blocks an SM) and build/v3/bench_adi
# (the same with x^(1/6) by adi_sixth_root instead of cbrt(sqrt(x))). Both new test binaries first.
export LD_LIBRARY_PATH=$PWD/build/devlib
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/gpu.txt
for t in build/tests/adi/test_adi_gpu build/v3/test_adi_gpu; do $t 2>&1 | tail -3 | tee -a $OUT/test.txt; done
F=${FILTER:-'copy/d2d/256|adi/fused.*/(step|sweep-x|sweep-y)/'}
for r in 1 2; do
  for v in base new v3; do
    B=build/stencils/adi/bench_adi; [ $v = base ] && B=build/base/bench_adi; [ $v = v3 ] && B=build/v3/bench_adi
    $B --benchmark_filter="$F" --benchmark_out=$OUT/bench_adi-$v-$r.json --benchmark_out_format=json > /dev/null 2>$OUT/err-$v-$r.txt || echo "rc=$? $v"
  done
done
date -Iseconds | tee $OUT/date.txt
cd $OUT && tar czf all.tgz *.json *.txt
