#!/bin/bash
# A/B of the stagger probe: base = unmodified fused sweep; stagger = the same kernel with the k-th
# co-resident block of an SM's first wave waiting k * S ns (WARPMODEL_ADI_STAGGER_NS=S; -1: counters only).
export LD_LIBRARY_PATH=$PWD/build/devlib
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader | tee $OUT/gpu.txt
WARPMODEL_ADI_STAGGER_NS=6000 timeout 200 exp/bin/stagger/test_adi_gpu --gtest_filter='*Fused*:*fused*' > $OUT/test.txt 2>&1; echo "test rc=$?"; tail -3 $OUT/test.txt
# Benchmark names end in /iterations:N/manual_time: match the kind followed by '/', not anchored by '$'.
F=${FILTER:-'copy/d2d/256|adi/fused/(double|single)/(1024|2048|4096)/(step|sweep-x)/|adi/fused/double/1536x2400/step'}
for r in 1 2; do
  exp/bin/base/bench_adi --benchmark_filter="$F" --benchmark_out=$OUT/bench-base-$r.json --benchmark_out_format=json > /dev/null 2>$OUT/err-base-$r.txt || echo "rc=$? base"
  for s in ${STAGGERS:--1 3000 6000 9000}; do
    WARPMODEL_ADI_STAGGER_NS=$s exp/bin/stagger/bench_adi --benchmark_filter="$F" --benchmark_out=$OUT/bench-s$s-$r.json --benchmark_out_format=json > /dev/null 2>$OUT/err-s$s-$r.txt || echo "rc=$? s$s"
  done
done
date -Iseconds | tee $OUT/date.txt
cd $OUT && tar czf r.tgz *.txt *.json && rm -f *.txt *.json
