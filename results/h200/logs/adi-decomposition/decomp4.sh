#!/bin/bash
# Decomposition probe, run 4 (not kept): base and na_nosolve (no rows' arithmetic, no solve, loads from the real
# lines, i.e. DRAM) alternated twice; then the GPU tests of the commit checked out (scripts/characterize_gpu.sh).
export LD_LIBRARY_PATH=$PWD/build/devlib
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader | tee $OUT/gpu.txt
F='copy/d2d/256|adi/fused/double/(2048|4096)/(step|sweep-x|sweep-y)|adi/fused/single/2048/(step|sweep-x)'
mkdir -p $OUT/probe
for r in 1 2; do for v in base na_nosolve; do
  timeout 60 exp/bin/$v/bench_adi --benchmark_filter="$F" --benchmark_out=$OUT/probe/bench-$v-$r.json --benchmark_out_format=json > /dev/null 2>$OUT/probe/err-$v-$r.txt || echo "rc=$? $v"
done; done
date -Iseconds | tee $OUT/probe/date.txt; cp $OUT/gpu.txt $OUT/probe/
(cd $OUT/probe && tar czf ../probe.tgz * && cd .. && rm -rf probe)
WARPMODEL_GIT_COMMIT=$1 scripts/characterize_gpu.sh --only build,gpu-tests results/h200 > $OUT/characterize.log 2>&1; echo "characterize rc=$?"
tail -5 results/h200/gpu-tests.log
cp results/h200/gpu-tests.log results/h200/characterize_gpu.provenance.json $OUT/
