#!/bin/bash
# A/B/C of three bench_adi binaries on one card, alternated: build/base/bench_adi (8d91bbc: rows in
# registers, five values a cell, two 2048-cell double lines an SM), build/stencils/adi/bench_adi (the
# working tree: rows and chain in shared memory, four values a cell, three lines an SM at 80
# registers) and build/v2/bench_adi (the same code held to two blocks an SM, 122 registers).
export LD_LIBRARY_PATH=$PWD/build/devlib
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader | tee $OUT/gpu.txt
build/tests/adi/test_adi_gpu 2>&1 | tail -3 | tee $OUT/test.txt
F=${FILTER:-'copy/d2d/256|adi/fused.*/(step|sweep-x|sweep-y)/'}
for r in 1 2; do
  for v in base new v2; do
    B=build/stencils/adi/bench_adi; [ $v = base ] && B=build/base/bench_adi; [ $v = v2 ] && B=build/v2/bench_adi
    $B --benchmark_filter="$F" --benchmark_out=$OUT/bench_adi-$v-$r.json --benchmark_out_format=json > /dev/null 2>$OUT/err-$v-$r.txt || echo "rc=$? $v"
  done
done
date -Iseconds | tee $OUT/date.txt
