#!/bin/bash
# Decomposition probe (not kept): base, hot (every block's stencil from lines 0..3, L1/L2-hot), noarith
# (the rows' arithmetic replaced by a sum of the same loads), hotnoarith; alternated twice on one card.
export LD_LIBRARY_PATH=$PWD/build/devlib
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader | tee $OUT/gpu.txt
F='copy/d2d/256|adi/fused/double/(2048|4096)/(step|sweep-x|sweep-y)|adi/fused/single/2048/(step|sweep-x)'
for r in 1 2; do for v in base hot noarith hotnoarith; do
  timeout 60 exp/bin/$v/bench_adi --benchmark_filter="$F" --benchmark_out=$OUT/bench-$v-$r.json --benchmark_out_format=json > /dev/null 2>$OUT/err-$v-$r.txt || echo "rc=$? $v"
done; done
date -Iseconds | tee $OUT/date.txt
cd $OUT && tar czf r.tgz *.txt *.json && rm -f *.txt *.json
