#!/bin/bash
# The skeletons with a balanced sum (probe, not kept): base, na_nosolve and cyskel (the run 4 / run 5 skeletons,
# rebuilt with patches/skeleton-treesum.patch), na_nosolve_t and cyskel_t (the same with EXP_TREESUM: the
# stand-in for the rows' arithmetic a balanced sum, 5 dependent adds a cell instead of 20); alternated twice.
export LD_LIBRARY_PATH=$PWD/build/devlib
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader | tee $OUT/gpu.txt
F='copy/d2d/256|adi/fused/double/(2048|4096)/(step|sweep-x|sweep-y)|adi/fused/single/2048/(step|sweep-x|sweep-y)'
for r in 1 2; do for v in base na_nosolve na_nosolve_t cyskel cyskel_t; do
  timeout 60 exp/bin/$v/bench_adi --benchmark_filter="$F" --benchmark_out=$OUT/bench-$v-$r.json --benchmark_out_format=json > /dev/null 2>$OUT/err-$v-$r.txt || echo "rc=$? $v"
done; done
date -Iseconds | tee $OUT/date.txt
cd $OUT && tar czf r.tgz *.txt *.json && rm -f *.txt *.json
