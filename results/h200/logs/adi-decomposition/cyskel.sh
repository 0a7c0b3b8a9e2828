#!/bin/bash
# The cluster y-sweep's skeleton (probe, not kept): base, cy8b (the cluster y-sweep), cynorednc (no reduced
# solve, launched without clusters), cyskelnc (no rows' arithmetic and no solve, without clusters), cyskel (the
# same launched as clusters of 8); alternated twice on one card.
export LD_LIBRARY_PATH=$PWD/build/devlib
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader | tee $OUT/gpu.txt
F='copy/d2d/256|adi/fused/double/(2048|4096)/(step|sweep-x|sweep-y)|adi/fused/single/2048/(step|sweep-y)'
for r in 1 2; do for v in base cy8b cynorednc cyskelnc cyskel; do
  timeout 60 exp/bin/$v/bench_adi --benchmark_filter="$F" --benchmark_out=$OUT/bench-$v-$r.json --benchmark_out_format=json > /dev/null 2>$OUT/err-$v-$r.txt || echo "rc=$? $v"
done; done
date -Iseconds | tee $OUT/date.txt
cd $OUT && tar czf r.tgz *.txt *.json && rm -f *.txt *.json
