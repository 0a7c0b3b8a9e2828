#!/bin/bash
# Decomposition probe, run 2 (not kept): base, nosolve (no solve: the store phase writes the built rows), nopcr
# (no reduced solve), hotnoarith (run 1's), hna_nosolve and hna_nopcr (hot loads, no build arithmetic, and no
# solve / no reduced solve), rcp3 (the double reciprocal without its last Newton step); alternated twice.
export LD_LIBRARY_PATH=$PWD/build/devlib
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader | tee $OUT/gpu.txt
F='copy/d2d/256|adi/fused/double/(2048|4096)/(step|sweep-x|sweep-y)|adi/fused/single/2048/(step|sweep-x)'
for r in 1 2; do for v in base nosolve nopcr hotnoarith hna_nosolve hna_nopcr rcp3; do
  timeout 60 exp/bin/$v/bench_adi --benchmark_filter="$F" --benchmark_out=$OUT/bench-$v-$r.json --benchmark_out_format=json > /dev/null 2>$OUT/err-$v-$r.txt || echo "rc=$? $v"
done; done
date -Iseconds | tee $OUT/date.txt
cd $OUT && tar czf r.tgz *.txt *.json && rm -f *.txt *.json
