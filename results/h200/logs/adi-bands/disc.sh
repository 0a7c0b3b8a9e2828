#!/bin/bash
# Probe: lean32 band transposes with the band's own-frame zeta discarded from L2 after the transpose
# (discard.global.L2), against lean32 and base (37f4969). GPU tests of `discard`, then the three
# bench_adi binaries alternated twice on one card. No sanitizer run (device time).
export LD_LIBRARY_PATH=$PWD/build/devlib
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader | tee $OUT/gpu.txt
timeout 100 exp/bin/discard/test_adi_gpu > $OUT/test.txt 2>&1; echo "test rc=$?"; tail -3 $OUT/test.txt
F='copy/d2d/256|adi/fused/(double|single)/(1024|2048|4096)/(step|sweep-x)/'
for r in 1 2; do
  for v in base lean32 discard; do
    exp/bin/$v/bench_adi --benchmark_filter="$F" --benchmark_out=$OUT/bench-$v-$r.json --benchmark_out_format=json > /dev/null 2>$OUT/err-$v-$r.txt || echo "rc=$? $v"
  done
done
date -Iseconds | tee $OUT/date.txt
cd $OUT && tar czf r.tgz *.txt *.json && rm -f *.txt *.json
