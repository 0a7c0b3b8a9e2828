#!/bin/bash
# Cooperative-grid probe (the reduced rows through L2, no clusters): tests and sanitizers of coop, the A/B
# (base, cy8b, coop, norednc alternated twice), ncu of coop's 2048^2 double y-sweep.
export LD_LIBRARY_PATH=$PWD/build/devlib
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader | tee $OUT/gpu.txt
for t in coop; do
  timeout 60 exp/bin/$t/test_adi_gpu > $OUT/test-$t.txt 2>&1; echo "test $t rc=$?"; grep -E "^\[  (PASSED|FAILED)  \] [0-9]" $OUT/test-$t.txt; grep -cE "OK \].*HundredStepsAgree/Fused" $OUT/test-$t.txt
done
for tool in memcheck racecheck; do timeout 40 compute-sanitizer --tool $tool exp/bin/coop/test_adi_gpu --gtest_filter='*HundredStepsAgree/Fused8_double_256' > $OUT/$tool-coop.txt 2>&1; echo "$tool rc=$?"; tail -1 $OUT/$tool-coop.txt; done
F='copy/d2d/256|adi/fused/double/(1024|2048|4096)/(step|sweep-y)|adi/fused/single/(1024|2048|4096)/step'
for r in 1 2; do for v in base cy8b coop norednc; do
  timeout 40 exp/bin/$v/bench_adi --benchmark_filter="$F" --benchmark_out=$OUT/bench-$v-$r.json --benchmark_out_format=json > /dev/null 2>$OUT/err-$v-$r.txt || echo "rc=$? $v"
done; done
date -Iseconds | tee $OUT/date.txt
ncu --version | tail -1 > $OUT/ncu-version.txt
S="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis --section InstructionStats"
timeout 60 ncu --kernel-name regex:cluster_y --launch-skip 12 --launch-count 2 $S exp/bin/coop/bench_adi --benchmark_filter='adi/fused/double/2048/step' > $OUT/ncu-coop.txt 2>&1; echo "ncu coop rc=$?"
cd $OUT && tar czf r.tgz *.txt *.json && rm -f *.txt *.json
