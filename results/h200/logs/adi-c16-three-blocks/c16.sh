#!/bin/bash
# 16 cells a thread, one line a 128-thread block, three blocks an SM (probe): tests and memcheck of c16 and
# c16u, the A/B (base, c16, c16u alternated twice), ncu of c16's 2048^2 double sweeps.
export LD_LIBRARY_PATH=$PWD/build/devlib
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader | tee $OUT/gpu.txt
for t in c16 c16u; do
  timeout 60 exp/bin/$t/test_adi_gpu > $OUT/test-$t.txt 2>&1; echo "test $t rc=$?"; grep -E "^\[  (PASSED|FAILED)  \] [0-9]" $OUT/test-$t.txt; grep -E "OK \].*HundredStepsAgree/Fused16" $OUT/test-$t.txt | wc -l
  timeout 40 compute-sanitizer --tool memcheck exp/bin/$t/test_adi_gpu --gtest_filter='*HundredStepsAgree/Fused16_double_256' > $OUT/memcheck-$t.txt 2>&1; echo "memcheck rc=$?"; tail -1 $OUT/memcheck-$t.txt
done
timeout 40 compute-sanitizer --tool racecheck exp/bin/c16/test_adi_gpu --gtest_filter='*HundredStepsAgree/Fused16_double_256' > $OUT/racecheck-c16.txt 2>&1; echo "racecheck rc=$?"; tail -1 $OUT/racecheck-c16.txt
F='copy/d2d/256|adi/fused(/c16)?/(double|single)/(1024|2048|4096|1536x2400)/(step|sweep-x)'
for r in 1 2; do for v in base c16 c16u; do
  timeout 60 exp/bin/$v/bench_adi --benchmark_filter="$F" --benchmark_out=$OUT/bench-$v-$r.json --benchmark_out_format=json > /dev/null 2>$OUT/err-$v-$r.txt || echo "rc=$? $v"
done; done
date -Iseconds | tee $OUT/date.txt
ncu --version | tail -1 > $OUT/ncu-version.txt
S="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section InstructionStats"
timeout 60 ncu --kernel-name regex:fused_sweep --launch-skip 10 --launch-count 2 $S exp/bin/c16/bench_adi --benchmark_filter='adi/fused/c16/double/2048/step' > $OUT/ncu-c16.txt 2>&1; echo "ncu c16 rc=$?"
cd $OUT && tar czf r.tgz *.txt *.json && rm -f *.txt *.json
