#!/bin/bash
# Persistent-cluster probe: cy8bp's tests and sanitizers, the A/B (base, cy8b, cy8bp, nored, norednc, noredp
# alternated twice), then Nsight Compute on the 2048^2 double y-sweeps of base, cy8b, norednc and noredp.
export LD_LIBRARY_PATH=$PWD/build/devlib
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader | tee $OUT/gpu.txt
timeout 60 exp/bin/cy8bp/test_adi_gpu > $OUT/test-cy8bp.txt 2>&1; echo "test rc=$?"; grep -E "^\[  (PASSED|FAILED)  \] [0-9]" $OUT/test-cy8bp.txt; grep -cE "OK \].*HundredStepsAgree/Fused" $OUT/test-cy8bp.txt
for tool in memcheck racecheck; do timeout 40 compute-sanitizer --tool $tool exp/bin/cy8bp/test_adi_gpu --gtest_filter='*HundredStepsAgree/Fused8_double_256' > $OUT/$tool-cy8bp.txt 2>&1; echo "$tool rc=$?"; tail -1 $OUT/$tool-cy8bp.txt; done
F='copy/d2d/256|adi/fused/double/(1024|2048|4096)/(step|sweep-y)|adi/fused/single/(1024|2048|4096)/step'
for r in 1 2; do for v in base cy8b cy8bp nored norednc noredp; do
  timeout 40 exp/bin/$v/bench_adi --benchmark_filter="$F" --benchmark_out=$OUT/bench-$v-$r.json --benchmark_out_format=json > /dev/null 2>$OUT/err-$v-$r.txt || echo "rc=$? $v"
done; done
date -Iseconds | tee $OUT/date.txt
ncu --version | tail -1 > $OUT/ncu-version.txt
S="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis --section InstructionStats"
for v in base cy8b norednc noredp; do
  k=regex:cluster_y; [ $v = base ] && k=regex:fused_sweep
  timeout 60 ncu --kernel-name $k --launch-skip 12 --launch-count 2 $S exp/bin/$v/bench_adi --benchmark_filter='adi/fused/double/2048/step' > $OUT/ncu-$v.txt 2>&1; echo "ncu $v rc=$?"
done
cd $OUT && tar czf r.tgz *.txt *.json && rm -f *.txt *.json
